//! `boltzlab score --run FILE`: a run saved as the page saves it (`MnistLab::save`, the
//! `.bzmn` file of "Save the run to a file") is scored natively. Its page point is checked
//! against an independent computation (ln Z by the engine's threaded exact sum over the
//! hidden states, the free energies summed here), the full test set likewise, and a
//! labelled run's test error and ln p(v) against the labelled machine classifying every
//! test image here and its ln Z enumerated here; damaged and missing files are refused by
//! name.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use boltzlab::app::rbm::mnist::{LABELS, MnistCommand, MnistLab};
use boltzlab::learn::mnist;
use boltzlab::learn::rbm::exact::log_z_threads;
use boltzlab::learn::rbm::{LabelledRbm, Rbm, classify_set};
use common::{TempFile, boltzlab, boltzlab_json};

fn data() -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/mnist/mnist.bin")).unwrap()
}

/// A 784-`hidden` run of `seed` after `updates` updates, with or without the labels.
fn run(hidden: u64, seed: u64, labels: bool, updates: u64) -> MnistLab {
    let mut lab = MnistLab::from_file(&data(), hidden, seed, None, labels).unwrap();
    lab.apply(MnistCommand::Advance { updates }).unwrap();
    lab
}

/// The run's machine in f64 (W, a, b of `parameters`).
fn machine(lab: &MnistLab) -> Rbm {
    let nh = lab.hidden();
    let nv = lab.visible() + if lab.labelled() { LABELS } else { 0 };
    let p: Vec<f64> = lab.parameters().iter().map(|&x| f64::from(x)).collect();
    Rbm::new(
        nv,
        nh,
        p[..nv * nh].to_vec(),
        p[nv * nh..nv * nh + nv].to_vec(),
        p[nv * nh + nv..].to_vec(),
    )
    .unwrap()
}

/// Mean −F(v) − ln Z over `images`, summed here.
fn mean_log_likelihood(rbm: &Rbm, log_z: f64, images: &[Vec<u8>]) -> f64 {
    let mut scratch = vec![0.0; rbm.hidden()];
    let total: f64 = images
        .iter()
        .map(|v| -rbm.free_energy_with(v, &mut scratch) - log_z)
        .sum();
    total / images.len() as f64
}

fn log_sum_exp(x: &[f64]) -> f64 {
    let top = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    top + x.iter().map(|t| (t - top).exp()).sum::<f64>().ln()
}

fn close(a: &serde_json::Value, b: f64, what: &str) {
    let a = a.as_f64().unwrap_or_else(|| panic!("{what}: {a}"));
    assert!(
        (a - b).abs() <= 1e-9 * b.abs().max(1.0),
        "{what}: {a} against {b}"
    );
}

/// A 784-12 run (ln Z exact, 2^12 hidden states): the page point is mean ln p(v) of the
/// first 1000 training and test images, the full figure that of all 10 000 test images,
/// each equal to 10⁻⁹ to the same quantities computed here from an independent exact ln Z.
#[test]
fn a_saved_run_scores_as_the_page_and_over_the_whole_test_set() {
    let lab = run(12, 5, false, 40);
    let file = TempFile::new("plain.bzmn", &lab.save());
    let report = boltzlab_json(&["score", "--run", file.path(), "--threads", "2", "--json"]);
    assert_eq!(report["hidden"], 12);
    assert_eq!(report["labels"], false);
    assert_eq!(report["seed"], 5);
    assert_eq!(report["updates"], 40);
    assert_eq!(report["training"]["rate"], 0.1);

    let rbm = machine(&lab);
    let log_z = log_z_threads(&rbm, 2).unwrap();
    let parsed = mnist::parse(&data()).unwrap();
    let page = &report["page_point"];
    assert_eq!(page["exact"], true);
    close(
        &page["train_log_likelihood"],
        mean_log_likelihood(&rbm, log_z, &parsed.train.vectors(1000)),
        "page train",
    );
    close(
        &page["test_log_likelihood"],
        mean_log_likelihood(&rbm, log_z, &parsed.test.vectors(1000)),
        "page test",
    );
    let test = &report["test"];
    assert_eq!(test["images"], 10_000);
    assert_eq!(test["exact"], true);
    assert_eq!(test["stderr"], 0.0);
    close(&test["log_z"], log_z, "ln Z");
    close(
        &test["test_log_likelihood"],
        mean_log_likelihood(&rbm, log_z, &parsed.test.vectors(10_000)),
        "all test images",
    );
}

/// A labelled run: the page point's test error and the full classification are the
/// labelled machine's errors on all 10 000 test images, counted here; the confusion matrix
/// holds every image once; its ln p(v) (the label summed out) equals the mean computed here
/// from ln Z enumerated over hidden states and labels.
#[test]
fn a_saved_labelled_run_scores_its_test_error() {
    let lab = run(16, 2, true, 60);
    let file = TempFile::new("labels.bzmn", &lab.save());
    let report = boltzlab_json(&["score", "--run", file.path(), "--json"]);
    assert_eq!(report["labels"], true);
    assert_eq!(report["training"]["decay"], 0.0002);

    let parsed = mnist::parse(&data()).unwrap();
    let images = parsed.test.vectors(10_000);
    let labels = parsed.test.labels().unwrap();
    let machine = LabelledRbm::new(machine(&lab), LABELS).unwrap();
    let c = classify_set(&machine, &images, labels, 1).unwrap();
    let e = c.errors as f64 / 10_000.0;
    assert_eq!(report["test"]["errors"], c.errors);
    close(&report["page_point"]["test_error"], e, "page test error");
    close(
        &report["page_point"]["test_error_stderr"],
        (e * (1.0 - e) / 10_000.0).sqrt(),
        "its standard error",
    );
    // ln p(v) = ln Σ_y e^{−F(v, y)} − ln Z over all test images, ln Z enumerated here over
    // the 2^16 hidden states and the ten labels with the image summed out:
    // Z = Σ_h Σ_y e^{bᵀh + c_y + U_y·h} Π_i (1 + e^{a_i + W_i·h}).
    let rbm = machine.rbm();
    let (nh, pixels) = (rbm.hidden(), 784);
    let mut terms = Vec::with_capacity(10 << nh);
    for h in 0..1usize << nh {
        let on: Vec<usize> = (0..nh).filter(|j| (h >> j) & 1 == 1).collect();
        let field = |i: usize| on.iter().map(|&j| rbm.weight_row(i)[j]).sum::<f64>();
        let hidden: f64 = on.iter().map(|&j| rbm.hidden_biases()[j]).sum();
        let image: f64 = (0..pixels)
            .map(|i| {
                let x = rbm.visible_biases()[i] + field(i);
                x.max(0.0) + (-x.abs()).exp().ln_1p()
            })
            .sum();
        for y in pixels..pixels + LABELS {
            terms.push(hidden + image + rbm.visible_biases()[y] + field(y));
        }
    }
    let log_z = log_sum_exp(&terms);
    // Mean ln Σ_y e^{−F(v, y)} − ln Z over a set, summed here.
    let mean = |set: &[Vec<u8>]| {
        set.iter()
            .map(|v| {
                let f: Vec<f64> = (0..LABELS).map(|y| -machine.free_energy(v, y)).collect();
                log_sum_exp(&f) - log_z
            })
            .sum::<f64>()
            / set.len() as f64
    };
    assert_eq!(report["test"]["exact"], true);
    close(&report["test"]["log_z"], log_z, "labelled ln Z");
    // The page's point: the same on the first 1000 test images.
    let first = mean(&images[..1000]);
    assert_eq!(report["page_point"]["exact"], true);
    close(
        &report["page_point"]["test_log_likelihood"],
        first,
        "page labelled ln p(v)",
    );
    close(
        &report["test"]["test_log_likelihood"],
        mean(&images),
        "labelled ln p(v)",
    );

    let confusion: u64 = report["test"]["confusion"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row.as_array().unwrap().iter().map(|n| n.as_u64().unwrap()))
        .sum();
    assert_eq!(confusion, 10_000);
}

/// A 784-30 run (ln Z by AIS): the page point is an AIS estimate with an error bar, and the
/// full figure an AIS estimate of the schedule and runs asked for.
#[test]
fn a_saved_run_beyond_25_hidden_units_is_scored_by_ais() {
    let lab = run(30, 1, false, 10);
    let file = TempFile::new("ais.bzmn", &lab.save());
    let report = boltzlab_json(&[
        "score",
        "--run",
        file.path(),
        "--ais-schedule",
        "page",
        "--ais-runs",
        "8",
        "--json",
    ]);
    assert_eq!(report["page_point"]["exact"], false);
    assert!(report["page_point"]["stderr"].as_f64().unwrap() > 0.0);
    let test = &report["test"];
    assert_eq!(test["exact"], false);
    assert_eq!(test["ais_schedule"], "page");
    assert_eq!(test["ais_runs"], 8);
    assert!(test["stderr"].as_f64().unwrap() > 0.0);
    let effective = test["ais_effective_runs"].as_f64().unwrap();
    assert!((1.0..=8.0).contains(&effective), "{effective}");
}

/// A damaged file (one flipped bit), a file that is not a run, a missing file and a
/// missing --run are each refused with a message naming the problem (status 2).
#[test]
fn damaged_or_missing_runs_are_refused_by_name() {
    let mut bytes = run(8, 1, false, 1).save();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x10;
    let flipped = TempFile::new("flipped.bzmn", &bytes);
    let text = TempFile::new("notes.txt", b"not a run");
    for (args, message) in [
        (vec!["score", "--run", flipped.path()], "checksum"),
        (vec!["score", "--run", text.path()], "not a saved MNIST run"),
        (
            vec!["score", "--run", "/nonexistent/run.bzmn"],
            "cannot read",
        ),
        (vec!["score"], "--run FILE is required"),
    ] {
        let (code, stdout, stderr) = boltzlab(&args);
        assert_eq!(code, 2, "{args:?}: {stdout}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    // A --data file that is not a packed MNIST file is named in the message.
    let good = TempFile::new("good.bzmn", &run(8, 1, false, 1).save());
    for (args, message) in [
        (
            vec!["score", "--run", good.path(), "--data", text.path()],
            format!("{}: mnist file: not a packed MNIST file", text.path()),
        ),
        (
            vec!["score", "--run", good.path(), "--data", flipped.path()],
            format!("{}: ", flipped.path()),
        ),
    ] {
        let (code, stdout, stderr) = boltzlab(&args);
        assert_eq!(code, 2, "{args:?}: {stdout}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(&message), "{args:?}: {stderr}");
    }
}
