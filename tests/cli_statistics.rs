//! The command line for the general machine's ways of getting statistics:
//! `boltzlab learn --machine full`, `--save`, refused input, `reproduce statistics`' general
//! rows, and `boltzlab logz` on a bipartite network (a saved restricted machine).

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use boltzlab::Network;
use boltzlab::learn::rbm::{Rbm, exact::log_z};
use common::{boltzlab, boltzlab_json};

fn temp_file(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("boltzlab-{name}-{}.json", std::process::id()))
}

#[test]
fn learn_full_reports_the_exact_nll_and_saves_a_network_logz_reads_back() {
    let file = temp_file("full");
    let path = file.to_str().unwrap();
    let v = boltzlab_json(&[
        "learn",
        "--machine",
        "full",
        "--dataset",
        "pixels-10",
        "--statistics",
        "persistent",
        "--particles",
        "30",
        "--gibbs-steps",
        "1",
        "--rate",
        "0.05",
        "--updates",
        "300",
        "--save",
        path,
        "--json",
    ]);
    assert_eq!(v["machine"], "full");
    assert_eq!(v["statistics"], "persistent");
    assert_eq!(v["particles"], 30);
    assert_eq!(v["exact"], true);
    assert_eq!(v["updates"], 300);
    assert!(v["test_log_likelihood"].is_null());
    let nll = v["train_nll_per_pattern"].as_f64().unwrap();
    // From zero weights the NLL is 10 ln 2 = 6.93 nats; the floor is ln 6 = 1.79.
    assert!(nll > 6f64.ln() && nll < 10.0 * 2f64.ln(), "{v}");
    let network = Network::from_json(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!((network.len(), network.visible()), (10, 10));
    // ln Z of the saved network at T = 1 by logz, and the NLL it implies, agree with the
    // learner's report: −ln p(v) = E(v) + ln Z for a machine without hidden units.
    let z = boltzlab_json(&[
        "logz",
        "--network",
        path,
        "--temperature",
        "1",
        "--method",
        "exact",
        "--json",
    ]);
    std::fs::remove_file(&file).ok();
    let patterns = boltzlab::learn::Problem::Pixels10
        .dataset()
        .patterns()
        .to_vec();
    let mean_energy: f64 = patterns
        .iter()
        .map(|p| network.energy(&p.iter().map(|&b| b as i8).collect::<Vec<_>>()))
        .sum::<f64>()
        / patterns.len() as f64;
    let implied = mean_energy + z["log_z"].as_f64().unwrap();
    assert!((implied - nll).abs() < 1e-9, "{implied} vs {nll}");
}

#[test]
fn logz_exact_on_a_saved_64_16_rbm_equals_the_machines_exact_ln_z() {
    let file = temp_file("rbm-logz");
    let path = file.to_str().unwrap();
    boltzlab_json(&[
        "learn",
        "--machine",
        "rbm",
        "--dataset",
        "digits8",
        "--updates",
        "20",
        "--save",
        path,
        "--json",
    ]);
    let text = std::fs::read_to_string(&file).unwrap();
    let network = Network::from_json(&text).unwrap();
    // The machine back from the network: W = w[i][64 + j], a = θ[..64], b = θ[64..].
    let (nv, nh) = (64, 16);
    let weights: Vec<f64> = (0..nv)
        .flat_map(|i| (0..nh).map(move |j| (i, j)))
        .map(|(i, j)| network.weight(i, nv + j))
        .collect();
    let biases = |r: std::ops::Range<usize>| r.map(|i| network.bias(i)).collect::<Vec<_>>();
    let rbm = Rbm::new(nv, nh, weights, biases(0..nv), biases(nv..nv + nh)).unwrap();
    let exact = log_z(&rbm).unwrap();
    for (method, extra) in [("exact", vec![]), ("ais", vec!["--runs", "100"])] {
        let mut args = vec![
            "logz",
            "--network",
            path,
            "--temperature",
            "1",
            "--method",
            method,
            "--json",
        ];
        args.extend(extra);
        let v = boltzlab_json(&args);
        assert_eq!(v["bipartite"], true, "{v}");
        let got = v["log_z"].as_f64().unwrap();
        match method {
            "exact" => {
                assert!((got - exact).abs() < 1e-9 * exact.abs(), "{got} vs {exact}");
                assert_eq!(v["states"], 1 << 16);
            }
            _ => {
                // 5 standard errors: a false failure about once in 10⁶ runs if the error
                // bar is honest (AIS is biased low by about stderr²/2, far inside).
                let stderr = v["stderr"].as_f64().unwrap();
                assert!(
                    (got - exact).abs() < 5.0 * stderr,
                    "{got} ± {stderr} vs {exact}"
                );
            }
        }
    }
    // A network with an odd cycle is not bipartite: 80 units are beyond enumeration.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["weights"][0][1] = serde_json::json!(0.5);
    v["weights"][1][0] = serde_json::json!(0.5);
    v["weights"][0][64] = serde_json::json!(0.5);
    v["weights"][64][0] = serde_json::json!(0.5);
    v["weights"][1][64] = serde_json::json!(0.5);
    v["weights"][64][1] = serde_json::json!(0.5);
    if let Some(mask) = v.get_mut("mask") {
        *mask = serde_json::Value::Null;
    }
    let obj = v.as_object_mut().unwrap();
    obj.remove("mask");
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    let (code, _, stderr) = boltzlab(&[
        "logz",
        "--network",
        path,
        "--temperature",
        "1",
        "--method",
        "exact",
    ]);
    std::fs::remove_file(&file).ok();
    assert_eq!(code, 2);
    assert!(stderr.contains("at most 30 units"), "{stderr}");
}

#[test]
fn learn_full_with_tempering_learns_the_ten_pixel_images() {
    // 4 hidden units, 50 ladders of R = 4 chains, ε = 0.05, 300 cycles: from zero weights
    // the NLL is 10 ln 2 = 6.93 nats and the floor ln 6 = 1.79; a working learner gains
    // over 2 nats here (measured, seed 1: 6.93 → 2.70; plain persistent chains 2.76 in
    // the same 300 cycles); a free phase that did not run, or a wrong sign of the update,
    // would not. (Whether the tempered chains sample the right distribution is
    // tests/general_statistics.rs's χ² law: this run cannot tell.)
    let v = boltzlab_json(&[
        "learn",
        "--machine",
        "full",
        "--dataset",
        "pixels-10",
        "--hidden",
        "4",
        "--statistics",
        "tempering",
        "--particles",
        "50",
        "--replicas",
        "4",
        "--rate",
        "0.05",
        "--updates",
        "300",
        "--json",
    ]);
    assert_eq!(v["statistics"], "tempering");
    assert_eq!(
        (v["particles"].as_u64(), v["replicas"].as_u64()),
        (Some(50), Some(4))
    );
    let nll = v["train_nll_per_pattern"].as_f64().unwrap();
    assert!(nll > 6f64.ln() && nll < 10.0 * 2f64.ln() - 2.0, "{v}");
}

#[test]
fn learn_full_refuses_bad_input_naming_the_option() {
    for (args, words) in [
        (
            vec!["--statistics", "persistent", "--particles", "0"],
            "--particles '0': particles must be",
        ),
        (
            vec!["--statistics", "persistent", "--particles", "99999999"],
            "--particles",
        ),
        (
            vec!["--statistics", "persistent", "--gibbs-steps", "0"],
            "--gibbs-steps",
        ),
        (
            vec![
                "--statistics",
                "persistent",
                "--particles",
                "5000",
                "--gibbs-steps",
                "5000",
            ],
            "particles × gibbs steps",
        ),
        (vec!["--statistics", "cd"], "needs --machine rbm"),
        (
            vec!["--statistics", "tempering", "--replicas", "1"],
            "--replicas '1': replicas must be between 2 and 32",
        ),
        (
            vec!["--statistics", "tempering", "--replicas", "33"],
            "--replicas '33'",
        ),
        (
            vec!["--statistics", "persistent", "--replicas", "3"],
            "--replicas applies to --statistics tempering only",
        ),
        (
            vec![
                "--statistics",
                "tempering",
                "--particles",
                "10000",
                "--gibbs-steps",
                "100",
            ],
            "particles × gibbs steps × replicas",
        ),
        (vec!["--statistics", "magic"], "--statistics 'magic'"),
        (
            vec!["--batch", "10"],
            "--batch applies to --machine rbm only",
        ),
        (vec!["--particles", "10"], "not --statistics anneal"),
        (vec!["--hidden", "30"], "--hidden"),
        (vec!["--dataset", "4-2-4", "--hidden", "3"], "wiring"),
        (vec!["--dataset", "mnist"], "--dataset must be one of"),
        (vec!["--rate", "nan"], "--rate 'nan'"),
        (vec!["--momentum", "1"], "--momentum"),
        (vec!["--updates", "0"], "--updates"),
    ] {
        let mut all = vec!["learn", "--machine", "full", "--updates", "5"];
        if args.contains(&"--updates") {
            all.truncate(3);
        }
        all.extend(args);
        let (code, stdout, stderr) = boltzlab(&all);
        assert_eq!(code, 2, "{all:?}: {stderr}");
        assert!(stdout.is_empty(), "{all:?}: {stdout}");
        assert!(stderr.contains(words), "{all:?}: {stderr}");
    }
}

#[test]
fn reproduce_statistics_has_general_rows_for_pixels_and_the_encoders() {
    let v = boltzlab_json(&["reproduce", "statistics", "--quick", "--json"]);
    let rows = v["rows"].as_array().unwrap();
    let full: Vec<_> = rows.iter().filter(|r| r["machine"] == "full").collect();
    for (problem, way) in [
        ("pixels-10", "anneal"),
        ("pixels-10", "persistent"),
        ("pixels-10", "mean-field-persistent"),
        ("4-2-4", "anneal"),
        ("4-2-4", "persistent"),
        ("4-2-4", "mean-field-persistent"),
        ("pixels-10", "tempering"),
        ("4-2-4", "tempering"),
    ] {
        assert!(
            full.iter()
                .any(|r| r["problem"] == problem && r["statistics"] == way),
            "{problem} {way}"
        );
    }
    for row in full {
        let tempering = row["statistics"] == "tempering";
        assert_eq!(row["replicas"].is_null(), !tempering, "{row}");
        assert_eq!(row["exact"], true);
        assert!(row["test_log_likelihood"].is_null());
        assert!(row["train_nll_per_pattern"].as_f64().unwrap().is_finite());
        assert!(row["updates"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn learn_full_refuses_a_save_file_it_cannot_write_before_it_learns() {
    let dir = common::TempDir::new("full-save");
    let missing = dir.join("missing/x.json");
    // The order, not a speed: 10⁷ cycles of 4-2-4 take about 15 minutes, a refusal before
    // them milliseconds, so 30 s tells the two apart with room for any load (the command
    // prints nothing while it learns, so time is the only witness).
    for (save, words) in [
        (dir.to_str().unwrap(), "is a directory"),
        (missing.to_str().unwrap(), "does not exist"),
    ] {
        let clock = std::time::Instant::now();
        let (code, stdout, stderr) = boltzlab(&[
            "learn",
            "--machine",
            "full",
            "--dataset",
            "4-2-4",
            "--updates",
            "10000000",
            "--save",
            save,
        ]);
        assert_eq!(code, 2, "{save}: {stdout}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(
            stderr.contains("--save '") && stderr.contains(words),
            "{save}: {stderr}"
        );
        assert!(
            clock.elapsed().as_secs() < 30,
            "refused only after learning"
        );
    }
    // A run refused after the check leaves no file behind.
    let fresh = dir.join("fresh.json");
    let (code, _, _) = boltzlab(&[
        "learn",
        "--machine",
        "full",
        "--rate",
        "nan",
        "--save",
        fresh.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(!fresh.exists());
}

#[test]
fn reproduce_statistics_text_rows_each_say_what_sets_them_apart() {
    let (code, stdout, stderr) = boltzlab(&["reproduce", "statistics", "--quick"]);
    assert_eq!(code, 0, "{stderr}");
    // What a row ran (before its results): no two rows alike. pixels-10's two persistent
    // rows differ only in their rate, which the row shows.
    let described: Vec<&str> = stdout
        .lines()
        .map(|l| l.split("train NLL").next().unwrap().trim_end())
        .collect();
    for (i, a) in described.iter().enumerate() {
        assert!(!described[i + 1..].contains(a), "two rows read '{a}'");
    }
    assert!(
        described.iter().any(|d| d.contains("ε=0.5"))
            && described.iter().any(|d| d.contains("ε=0.05")),
        "{stdout}"
    );
    // Whether an encoder is solved is said in words.
    assert!(
        !stdout.contains("solved false") && !stdout.contains("solved true"),
        "{stdout}"
    );
    let (code, stdout, stderr) = boltzlab(&[
        "learn",
        "--machine",
        "full",
        "--dataset",
        "4-2-4",
        "--updates",
        "1",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.trim_end().ends_with("  not solved"), "{stdout}");
    assert!(stdout.contains(" 1 update "), "{stdout}");
}
