//! The command line for restricted machines: `boltzlab learn --machine rbm` and
//! `boltzlab reproduce statistics`, their JSON contract, `--save`, and refused input.

mod common;

use boltzlab::Network;
use common::{boltzlab, boltzlab_json};

#[test]
fn learn_rbm_reports_the_exact_nll_and_saves_the_network() {
    let file = std::env::temp_dir().join(format!("boltzlab-rbm-{}.json", std::process::id()));
    let path = file.to_str().unwrap();
    let v = boltzlab_json(&[
        "learn",
        "--machine",
        "rbm",
        "--dataset",
        "digits8",
        "--statistics",
        "cd",
        "--updates",
        "30",
        "--save",
        path,
        "--json",
    ]);
    for key in [
        "problem",
        "machine",
        "hidden",
        "statistics",
        "train_nll_per_pattern",
    ] {
        assert!(!v[key].is_null(), "{key}: {v}");
    }
    assert_eq!(v["problem"], "digits8");
    assert_eq!(v["exact"], true);
    assert_eq!(v["updates"], 30);
    // Beats the uniform model (64 ln 2 = 44.4 nats) at once: the biases start at the base
    // rates.
    assert!(v["test_log_likelihood"].as_f64().unwrap() > -30.0, "{v}");
    let network = Network::from_json(&std::fs::read_to_string(&file).unwrap()).unwrap();
    std::fs::remove_file(&file).ok();
    assert_eq!((network.len(), network.visible()), (80, 64));
    assert!(!network.is_allowed(0, 1) && network.is_allowed(0, 64) && !network.is_allowed(64, 65));
    // The same seed gives the same run.
    let again = boltzlab_json(&[
        "learn",
        "--machine",
        "rbm",
        "--dataset",
        "digits8",
        "--statistics",
        "cd",
        "--updates",
        "30",
        "--json",
    ]);
    assert_eq!(again["train_nll_per_pattern"], v["train_nll_per_pattern"]);
}

#[test]
fn learn_rbm_refuses_bad_input_naming_the_option() {
    for (args, words) in [
        (
            vec!["--particles", "0"],
            "--particles '0': particles must be between 1 and 10000",
        ),
        (vec!["--particles", "99999999"], "--particles"),
        (
            vec!["--batch", "31"],
            "--batch '31': batch must be between 1 and 30",
        ),
        (vec!["--hidden", "0"], "--hidden '0'"),
        (
            vec!["--rate", "nan"],
            "--rate 'nan': learning rate must be a finite number",
        ),
        (vec!["--gibbs-steps", "0"], "--gibbs-steps"),
        (
            vec!["--statistics", "magic"],
            "--statistics must be one of persistent, cd, tempering",
        ),
        (
            vec!["--dataset", "cifar10"],
            "--dataset must be one of bars-4x4, digits8, mnist",
        ),
    ] {
        let mut all = vec!["learn", "--machine", "rbm", "--updates", "5"];
        all.extend(args);
        let (code, _, stderr) = boltzlab(&all);
        assert_eq!(code, 2, "{all:?}");
        assert!(stderr.contains(words), "{all:?}: {stderr}");
    }
}

#[test]
fn reproduce_statistics_prints_one_row_per_problem_and_way() {
    let v = boltzlab_json(&["reproduce", "statistics", "--quick", "--json"]);
    // The restricted machines' rows (the general machine's: tests/cli_statistics.rs).
    let rows: Vec<_> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["machine"] == "rbm")
        .collect();
    assert_eq!(rows.len(), 8);
    for row in rows {
        for key in [
            "problem",
            "machine",
            "hidden",
            "statistics",
            "train_nll_per_pattern",
            "test_log_likelihood",
            "exact",
            "updates",
            "seconds",
        ] {
            assert!(row.get(key).is_some(), "{key}: {row}");
        }
        assert_eq!(row["machine"], "rbm");
        assert_eq!(row["exact"], true);
        assert_eq!(
            row["test_log_likelihood"].is_null(),
            row["problem"] == "bars-4x4"
        );
    }
}

/// `boltzlab` with `args`, expecting refusal (status 2, nothing on stdout): its stderr.
fn refused(args: &[&str]) -> String {
    let (code, stdout, stderr) = boltzlab(args);
    assert_eq!(code, 2, "{args:?} should be refused: {stdout}");
    assert!(stdout.is_empty(), "{args:?}: {stdout}");
    stderr
}

#[test]
fn learn_rbm_refuses_a_save_file_it_cannot_write_before_it_learns() {
    let dir = common::TempDir::new("rbm-save");
    let plain = dir.write("plain", b"keep");
    let missing = dir.join("missing/x.json");
    let under_file = plain.join("x.json");
    // The order, not a speed: 10⁶ updates of a 64-20 machine take over a minute here (0.08 ms
    // each), a refusal before them milliseconds, so 30 s tells the two apart with room for any
    // load (the command prints nothing while it learns, so time is the only witness).
    for (save, words) in [
        (dir.to_str().unwrap(), "is a directory"),
        (missing.to_str().unwrap(), "does not exist"),
        (under_file.to_str().unwrap(), "is not a directory"),
    ] {
        let clock = std::time::Instant::now();
        let e = refused(&[
            "learn",
            "--machine",
            "rbm",
            "--dataset",
            "digits8",
            "--hidden",
            "20",
            "--updates",
            "1000000",
            "--save",
            save,
        ]);
        assert!(e.contains("--save '") && e.contains(words), "{save}: {e}");
        assert!(
            clock.elapsed().as_secs() < 30,
            "{save}: refused only after learning"
        );
    }
    // A writable --save on a run refused later leaves no file behind, and an existing file
    // untouched.
    let fresh = dir.join("fresh.json");
    for save in [fresh.as_path(), plain.as_path()] {
        refused(&[
            "learn",
            "--machine",
            "rbm",
            "--updates",
            "5",
            "--rate",
            "nan",
            "--save",
            save.to_str().unwrap(),
        ]);
    }
    assert!(!fresh.exists());
    assert_eq!(std::fs::read(&plain).unwrap(), b"keep");
}

#[test]
fn learn_rbm_refuses_options_its_statistics_or_trainer_do_not_use() {
    let dir = common::TempDir::new("rbm-unused");
    let text = dir.write("images.txt", b"0101\n1100\n0011\n");
    let text = text.to_str().unwrap();
    for (args, words) in [
        (
            vec!["--statistics", "cd", "--particles", "7"],
            "--particles applies to persistent chains, not --statistics cd",
        ),
        (
            vec!["--statistics", "cd", "--replicas", "9"],
            "--replicas applies to --statistics tempering only",
        ),
        (
            vec!["--replicas", "3"],
            "--replicas applies to --statistics tempering only",
        ),
        (
            vec!["--data", text, "--test-subset", "1"],
            "--test-subset applies to a file with a test set only",
        ),
        (
            vec!["--dataset", "digits8", "--threads", "2"],
            "--threads applies to the f32 batch trainer only",
        ),
        (
            vec!["--data", text, "--f64", "--threads", "2"],
            "--threads applies to the f32 batch trainer only",
        ),
    ] {
        let mut all = vec!["learn", "--machine", "rbm", "--updates", "5"];
        all.extend(args);
        let e = refused(&all);
        assert!(e.contains(words), "{all:?}: {e}");
    }
    // The same options where they apply are taken.
    for args in [
        vec!["--statistics", "persistent", "--particles", "7"],
        vec!["--statistics", "tempering", "--replicas", "3"],
        vec!["--data", text, "--threads", "2"],
    ] {
        let mut all = vec!["learn", "--machine", "rbm", "--updates", "5", "--json"];
        all.extend(args);
        boltzlab_json(&all);
    }
}

#[test]
fn learn_rbm_text_row_counts_in_the_singular_for_one_and_shows_the_rate() {
    let (code, stdout, stderr) = boltzlab(&[
        "learn",
        "--machine",
        "rbm",
        "--updates",
        "1",
        "--rate",
        "0.03",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(" 1 update ") && !stdout.contains("1 updates"),
        "{stdout}"
    );
    assert!(stdout.contains("ε=0.03"), "{stdout}");
}
