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
