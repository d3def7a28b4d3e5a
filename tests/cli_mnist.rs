//! `boltzlab learn --machine rbm --dataset mnist`, `--data FILE` (a packed or text image
//! file a user brings), the subsets, `boltzlab pack-mnist`, and the refusal of bad files
//! with a message that names the file and the problem.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use boltzlab::learn::mnist::{crc32, pack_idx};
use common::{TempDir, TempFile, boltzlab, boltzlab_json};

/// `boltzlab learn --machine rbm` with `more`, expecting failure: its stderr.
fn refused(more: &[&str]) -> String {
    let mut args = vec!["learn", "--machine", "rbm", "--updates", "5"];
    args.extend_from_slice(more);
    let (code, stdout, stderr) = boltzlab(&args);
    assert_eq!(code, 2, "{args:?} should be refused: {stdout}");
    assert!(stdout.is_empty(), "{stdout}");
    stderr
}

/// 784 ln 2: the negative log-likelihood per image of the uniform model on 28×28 images.
const UNIFORM_NLL: f64 = 543.4273;

#[test]
fn learn_rbm_on_mnist_reads_the_shipped_file_and_its_subsets() {
    let args = [
        "learn",
        "--machine",
        "rbm",
        "--dataset",
        "mnist",
        "--hidden",
        "8",
        "--statistics",
        "cd",
        "--updates",
        "20",
        "--train-subset",
        "1000",
        "--test-subset",
        "500",
        "--json",
    ];
    let v = boltzlab_json(&args);
    assert_eq!(v["problem"], "mnist");
    assert_eq!(
        (v["train_images"].as_u64(), v["test_images"].as_u64()),
        (Some(1000), Some(500))
    );
    assert_eq!(
        (v["hidden"].as_u64(), v["updates"].as_u64()),
        (Some(8), Some(20))
    );
    assert_eq!(v["exact"], true);
    // The visible biases start at the training set's base rates, so the machine is far
    // better than uniform from the start (an independent-pixel model of binarized MNIST is
    // about 200 nats per image; a machine at its base rates cannot do worse than uniform).
    let test = v["test_log_likelihood"].as_f64().unwrap();
    let train = v["train_nll_per_pattern"].as_f64().unwrap();
    assert!(
        test > -UNIFORM_NLL + 100.0 && train < UNIFORM_NLL - 100.0,
        "{v}"
    );
    // The same seed gives the same run.
    assert_eq!(
        boltzlab_json(&args)["test_log_likelihood"],
        v["test_log_likelihood"]
    );
}

#[test]
fn learn_rbm_learns_a_text_image_file() {
    // Six 3×3 images: a vertical and a horizontal bar in three places each, labelled.
    let text = "# bars\n100100100 0\n010010010 1\n001001001 2\n111000000 3\n000111000 4\n\
                000000111 5\n";
    let file = TempFile::new("bars.txt", text.as_bytes());
    let v = boltzlab_json(&[
        "learn",
        "--machine",
        "rbm",
        "--data",
        file.path(),
        "--hidden",
        "4",
        "--updates",
        "50",
        "--json",
    ]);
    assert_eq!(v["problem"], file.path());
    assert_eq!(v["train_images"], 6);
    assert!(
        v["test_images"].is_null() && v["test_log_likelihood"].is_null(),
        "{v}"
    );
    assert_eq!(v["exact"], true);
    let nll = v["train_nll_per_pattern"].as_f64().unwrap();
    // Six equally likely images: no model beats ln 6 = 1.79; the uniform model is 9 ln 2.
    assert!(nll >= 6f64.ln() - 1e-9 && nll < 9.0 * 2f64.ln(), "{v}");
    // --train-subset keeps the first lines.
    let v = boltzlab_json(&[
        "learn",
        "--machine",
        "rbm",
        "--data",
        file.path(),
        "--train-subset",
        "4",
        "--hidden",
        "2",
        "--updates",
        "5",
        "--batch",
        "4",
        "--json",
    ]);
    assert_eq!(v["train_images"], 4);
}

#[test]
fn a_machine_too_large_for_a_network_file_learns_and_save_refuses_it_before_learning() {
    // Two images of 2047 pixels with 2 hidden units: 2049 units, one more than a network
    // file holds. Without --save the machine learns and reports; with --save it is refused
    // at once (nothing learned, nothing written) with the limit and the machine's size.
    let line = |bit: char| std::iter::repeat_n(bit, 2047).collect::<String>();
    let text = format!("{}\n{}\n", line('0'), line('1'));
    let dir = TempDir::new("large");
    let file = dir.write("large.txt", text.as_bytes());
    let saved = dir.join("large.json");
    let args = |save: bool| {
        let mut a = vec![
            "learn",
            "--machine",
            "rbm",
            "--data",
            file.to_str().unwrap(),
            "--hidden",
            "2",
            "--updates",
            "2",
            "--batch",
            "2",
            "--json",
        ];
        if save {
            a.extend(["--save", saved.to_str().unwrap()]);
        }
        a
    };
    let v = boltzlab_json(&args(false));
    assert_eq!(
        (v["train_images"].as_u64(), v["hidden"].as_u64()),
        (Some(2), Some(2)),
        "{v}"
    );
    assert!(
        v["train_nll_per_pattern"].as_f64().unwrap().is_finite(),
        "{v}"
    );
    let (code, stdout, stderr) = boltzlab(&args(true));
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.contains("--save writes a network of at most 2048 units")
            && stderr.contains("2049 (2047 pixels and 2 hidden units)"),
        "{stderr}"
    );
    assert!(stdout.is_empty() && !saved.exists());
}

/// IDX files of `count` images of 2 × 3 (pixel k of image i is 255 if i + k is even) and
/// labels i mod 10.
fn idx(count: usize) -> (Vec<u8>, Vec<u8>) {
    let mut images = vec![0, 0, 8, 3];
    for n in [count, 2, 3] {
        images.extend_from_slice(&(n as u32).to_be_bytes());
    }
    for i in 0..count {
        images.extend((0..6).map(|k| if (i + k).is_multiple_of(2) { 255 } else { 0 }));
    }
    let mut labels = vec![0, 0, 8, 1];
    labels.extend_from_slice(&(count as u32).to_be_bytes());
    labels.extend((0..count).map(|i| (i % 10) as u8));
    (images, labels)
}

#[test]
fn learn_rbm_learns_a_packed_file_a_user_brings_with_its_test_set() {
    let (train_images, train_labels) = idx(10);
    let (test_images, test_labels) = idx(4);
    let packed = pack_idx(&train_images, &train_labels, &test_images, &test_labels, 3).unwrap();
    let file = TempFile::new("small.bin", &packed);
    for dataset in [&[][..], &["--dataset", "mnist"][..]] {
        let mut args = vec![
            "learn",
            "--machine",
            "rbm",
            "--data",
            file.path(),
            "--hidden",
            "2",
            "--updates",
            "5",
            "--batch",
            "5",
            "--json",
        ];
        args.extend_from_slice(dataset);
        let v = boltzlab_json(&args);
        assert_eq!(
            (v["train_images"].as_u64(), v["test_images"].as_u64()),
            (Some(10), Some(4))
        );
        // Two distinct images, each half the test set: p₁ + p₂ ≤ 1 bounds the mean test LL
        // (ln p₁ + ln p₂)/2 by −ln 2. The base rates are all ½ (the uniform model, −6 ln 2),
        // and five small updates barely move it.
        let test = v["test_log_likelihood"].as_f64().unwrap();
        assert!(
            test <= -(2f64.ln()) + 1e-9 && test > -6.0 * 2f64.ln() - 0.1,
            "{v}"
        );
    }
}

#[test]
fn bad_image_files_are_refused_naming_the_file_and_the_problem() {
    let bad_char = TempFile::new("badchar.txt", b"0101\n01x1\n");
    let e = refused(&["--data", bad_char.path()]);
    assert!(e.contains(bad_char.path()), "{e}");
    assert!(
        e.contains("image file: line 2: character 'x' at column 3 is not 0 or 1"),
        "{e}"
    );

    let short = TempFile::new("short.txt", b"0101 1\n0101 2\n011 3\n");
    let e = refused(&["--data", short.path()]);
    assert!(
        e.contains("line 3: 3 pixels, expected 4 (the length of line 1)"),
        "{e}"
    );

    let label = TempFile::new("label.txt", b"0101 1\n0101 x\n");
    let e = refused(&["--data", label.path()]);
    assert!(e.contains("line 2: label 'x' is not a digit 0 to 9"), "{e}");

    let empty = TempFile::new("empty.txt", b"");
    assert!(refused(&["--data", empty.path()]).contains("no images"));

    let binary = TempFile::new("binary.dat", &[0xff, 0xfe, 0, 1]);
    let e = refused(&["--data", binary.path()]);
    assert!(e.contains("neither a packed file nor text"), "{e}");

    // A packed file with one image byte damaged (its checksum no longer matches) and one
    // cut short.
    let (images, labels) = idx(10);
    let mut packed = pack_idx(&images, &labels, &images, &labels, 3).unwrap();
    packed[70] ^= 1;
    let damaged = TempFile::new("damaged.bin", &packed);
    let e = refused(&["--data", damaged.path()]);
    assert!(e.contains("mnist file: damaged: checksum mismatch"), "{e}");
    packed[70] ^= 1;
    let n = packed.len();
    assert_eq!(crc32(&packed[..n - 4]).to_le_bytes(), packed[n - 4..]);
    let cut = TempFile::new("cut.bin", &packed[..n - 7]);
    let e = refused(&["--data", cut.path(), "--dataset", "mnist"]);
    assert!(e.contains("mnist file: truncated"), "{e}");

    let e = refused(&["--data", "/nonexistent/boltzlab.bin"]);
    assert!(e.contains("cannot read /nonexistent/boltzlab.bin"), "{e}");
    // --dataset mnist wants a packed file.
    let text = TempFile::new("text.txt", b"0101\n");
    let e = refused(&["--dataset", "mnist", "--data", text.path()]);
    assert!(
        e.contains("not a packed MNIST file (it must start with MNISTBZ)"),
        "{e}"
    );
}

#[test]
fn dataset_options_that_do_not_fit_are_refused_naming_the_option() {
    let text = TempFile::new("fit.txt", b"0101\n");
    let e = refused(&["--dataset", "digits8", "--data", text.path()]);
    assert!(
        e.contains("--data goes alone or with --dataset mnist, not with --dataset digits8"),
        "{e}"
    );
    let e = refused(&["--dataset", "bars-4x4", "--train-subset", "10"]);
    assert!(
        e.contains("--train-subset goes with --dataset mnist or --data FILE"),
        "{e}"
    );
    let e = refused(&["--dataset", "mnist", "--test-subset", "0"]);
    assert!(
        e.contains("--test-subset must be a whole number from 1 to 1048576, got '0'"),
        "{e}"
    );
    for option in ["--train-subset", "--test-subset"] {
        for value in [
            "",
            "nan",
            "-1",
            "2.5",
            "1e12",
            "99999999999",
            "0x10",
            "１２",
        ] {
            let e = refused(&["--dataset", "mnist", option, value]);
            assert!(
                e.starts_with(&format!(
                    "boltzlab: {option} must be a whole number from 1 to"
                )),
                "{option} {value:?}: {e}"
            );
            assert_eq!(e.trim_end().lines().count(), 1, "{e}");
        }
    }
    let e = refused(&["--dataset", "mnist2"]);
    assert!(
        e.contains("--dataset must be one of bars-4x4, digits8, mnist"),
        "{e}"
    );
}

#[test]
fn pack_mnist_packs_idx_files_that_the_reader_accepts() {
    let dir = TempDir::new("idx");
    let (images, labels) = idx(7);
    for (name, bytes) in [
        ("train-images-idx3-ubyte", &images),
        ("train-labels-idx1-ubyte", &labels),
        ("t10k-images-idx3-ubyte", &images),
        ("t10k-labels-idx1-ubyte", &labels),
    ] {
        dir.write(name, bytes);
    }
    let out = dir.join("packed.bin");
    let (code, stdout, stderr) = boltzlab(&[
        "pack-mnist",
        "--idx",
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--seed",
        "5",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("7 training and 7 test images of 2×3, seed 5"),
        "{stdout}"
    );
    let m = boltzlab::learn::mnist::parse(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!((m.train.len(), m.seed), (7, 5));
    assert_eq!(m.train.image(1), vec![0, 1, 0, 1, 0, 1]);
    // A missing IDX file is named.
    std::fs::remove_file(dir.join("t10k-labels-idx1-ubyte")).unwrap();
    let (code, _, stderr) = boltzlab(&[
        "pack-mnist",
        "--idx",
        dir.to_str().unwrap(),
        "--out",
        "/dev/null",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cannot read") && stderr.contains("t10k-labels-idx1-ubyte"),
        "{stderr}"
    );
    let (code, _, stderr) = boltzlab(&["pack-mnist"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--idx DIR is required"), "{stderr}");
}

#[test]
fn learn_rbm_on_mnist_uses_the_f32_trainer_with_the_same_bits_on_any_threads_and_f64_on_request() {
    // 784-26: above 25 hidden units (ln Z by AIS) and large enough that two threads split
    // each update (SPLIT_WORK), so the threads really share the work.
    let run = |more: &[&str]| {
        let mut args = vec![
            "learn",
            "--machine",
            "rbm",
            "--dataset",
            "mnist",
            "--hidden",
            "26",
            "--statistics",
            "cd",
            "--updates",
            "10",
            "--train-subset",
            "1000",
            "--test-subset",
            "300",
            "--json",
        ];
        args.extend_from_slice(more);
        boltzlab_json(&args)
    };
    let one = run(&["--threads", "1"]);
    let two = run(&["--threads", "2"]);
    assert_eq!(
        (one["trainer"].as_str(), one["threads"].as_u64()),
        (Some("f32"), Some(1))
    );
    assert_eq!(
        (two["trainer"].as_str(), two["threads"].as_u64()),
        (Some("f32"), Some(2))
    );
    assert_eq!(one["exact"], false);
    for key in ["test_log_likelihood", "train_nll_per_pattern"] {
        assert_eq!(one[key], two[key], "{key}: {one} against {two}");
    }
    let f64 = run(&["--f64"]);
    assert_eq!(
        (f64["trainer"].as_str(), f64["threads"].as_u64()),
        (Some("f64"), Some(1))
    );
    // Both trainers start from the base rates, far better than uniform.
    for v in [&one, &f64] {
        assert!(
            v["test_log_likelihood"].as_f64().unwrap() > -UNIFORM_NLL + 100.0,
            "{v}"
        );
    }
    // The built-in digits keep the f64 trainer their documented figures come from.
    let digits = boltzlab_json(&[
        "learn",
        "--machine",
        "rbm",
        "--dataset",
        "digits8",
        "--updates",
        "5",
        "--json",
    ]);
    assert_eq!(digits["trainer"], "f64");
    assert!(refused(&["--dataset", "mnist", "--threads", "0"]).contains("threads"));
}
