//! `boltzlab reproduce salakhutdinov2008` on small machines and subsets of MNIST: the
//! shape of its report and the laws every row must obey. Each run is seeded, so each
//! check is deterministic (no false-failure rate): a failure is a change in behaviour.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use boltzlab::learn::rbm::{BatchTrainer, RateSchedule, Rbm, Statistics, TrainingOptions};
use common::{boltzlab, boltzlab_json};
use serde_json::Value;

/// 1000 training and 500 test images, 20 epochs (200 updates), a 12-hidden machine with
/// exact ln Z and a 30-hidden one with AIS (the page's schedule, 20 runs: --quick).
const SMALL_RUN: &[&str] = &[
    "reproduce",
    "salakhutdinov2008",
    "--quick",
    "--json",
    "--rows",
    "cd1-25,cd1-500,pcd-500",
    "--small",
    "12",
    "--large",
    "30",
    "--train-subset",
    "1000",
    "--test-subset",
    "500",
    "--epochs",
    "20",
];

fn number(row: &Value, key: &str) -> f64 {
    row[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is a number in {row}"))
}

fn run(threads: &str) -> Value {
    let mut args = SMALL_RUN.to_vec();
    args.extend(["--threads", threads]);
    boltzlab_json(&args)
}

#[test]
fn quick_rows_have_their_fields_and_obey_the_laws() {
    let report = run("2");
    assert_eq!(report["quick"], true);
    // The protocol line states the AIS actually run (--quick's: the page's schedule, 20 runs).
    let protocol = report["protocol"].as_str().expect("protocol");
    assert!(
        protocol.contains("AIS: 20 runs of 1450 steps (page)"),
        "{protocol}"
    );
    assert_eq!(report["train_images"], 1000);
    assert_eq!(report["test_images"], 500);
    let base = number(&report, "base_rate_test_log_likelihood");
    // 784 independent pixels: ln p(v) is negative and above 784 ln(1/2) only if the base
    // rates are informative, which MNIST's are.
    assert!(
        base < 0.0 && base > 784.0 * (0.5f64).ln(),
        "base rate {base}"
    );
    let rows = report["rows"].as_array().expect("rows");
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["CD1(12)", "CD1(30)", "PCD(30)"]);
    for r in rows {
        for key in ["hidden", "epochs", "updates", "seconds", "log_z"] {
            assert!(number(r, key).is_finite(), "{key} in {r}");
        }
        assert_eq!(number(r, "epochs"), 20.0);
        assert_eq!(number(r, "updates"), 200.0, "10 batches of 100 per epoch");
        let ll = number(r, "test_log_likelihood");
        // A log-probability of a binary vector is at most 0, and a trained machine is far
        // better than the uniform distribution (784 ln 2 = 543.4 nats).
        assert!(ll < 0.0 && ll > -784.0 * 2f64.ln(), "{r}");
        // Nothing in these rows is confirmed from the paper for these sizes.
        assert!(r["paper"].is_null(), "{r}");
        assert!(r["statistics"].is_string());
    }
    let exact = &rows[0];
    assert_eq!(exact["exact"], true);
    assert_eq!(number(exact, "stderr"), 0.0);
    // After 200 updates the 12-hidden machine, exactly scored, beats the independent-pixel
    // base-rate model it started far from (biases 0).
    assert!(
        number(exact, "test_log_likelihood") > base,
        "CD1(12) {} vs base rate {base}",
        exact["test_log_likelihood"]
    );
    for r in &rows[1..] {
        assert_eq!(r["exact"], false);
        let stderr = number(r, "stderr");
        assert!(stderr > 0.0 && stderr.is_finite(), "{r}");
        let effective = number(r, "ais_effective_runs");
        assert!((1.0..=20.0 + 1e-9).contains(&effective), "{r}");
    }
}

#[test]
fn the_report_does_not_depend_on_the_threads() {
    let mut one = run("1");
    let mut two = run("2");
    for report in [&mut one, &mut two] {
        report["threads"] = Value::Null;
        report["seconds"] = Value::Null;
        for r in report["rows"].as_array_mut().unwrap() {
            r["seconds"] = Value::Null;
            r["train_seconds"] = Value::Null;
        }
    }
    assert_eq!(one, two);
}

#[test]
fn bad_options_are_refused_by_name() {
    let (code, _, err) = boltzlab(&["reproduce", "salakhutdinov2008", "--rows", "cd2-25"]);
    assert_eq!(code, 2);
    assert!(err.contains("--rows") && err.contains("cd2-25"), "{err}");
    let (code, _, err) = boltzlab(&["reproduce", "salakhutdinov2008", "--small", "26"]);
    assert_eq!(code, 2);
    assert!(err.contains("--small"), "{err}");
    let (code, _, err) = boltzlab(&["reproduce", "salakhutdinov1999"]);
    assert_eq!(code, 2);
    assert!(err.contains("salakhutdinov2008"), "{err}");
}

/// AIS settings a row's scoring would refuse (1000 runs of the paper's 14 500 steps at 784-500
/// cost 1.1·10¹³ multiply-adds, beyond the limit 2^41) are refused before any row is trained:
/// the exactly scored row listed first prints no result, in the plain run and in the curve.
#[test]
fn a_scoring_refusal_comes_before_any_training() {
    let rows = ["--rows", "cd1-25,pcd-500", "--ais-runs", "1000"];
    let small = [
        "--epochs",
        "1",
        "--train-subset",
        "200",
        "--test-subset",
        "100",
    ];
    for curve in [&[][..], &["--curve", "--json"][..]] {
        let args: Vec<&str> = ["reproduce", "salakhutdinov2008"]
            .iter()
            .chain(&rows)
            .chain(&small)
            .chain(curve)
            .copied()
            .collect();
        let (code, out, err) = boltzlab(&args);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains("row pcd-500") && err.contains("1000 runs"),
            "{err}"
        );
        assert!(
            !err.contains("test ln p(v)") && out.is_empty(),
            "{out}{err}"
        );
    }
}

/// The momentum switch the protocol needs (0.5 → 0.9 after five epochs) keeps the trainer's
/// state, and a momentum outside [0, 1) is refused by name and changes nothing.
/// Eight 6-pixel patterns and CD-1 options (batch `batch`, ε = 0.05, momentum `momentum`,
/// weight cost 0.0002, seed 3) for the batch trainer's own checks.
fn tiny_cd(batch: usize, momentum: f64) -> (Vec<Vec<u8>>, TrainingOptions) {
    let patterns = (0..8u8)
        .map(|k| (0..6).map(|i| (k >> (i % 3)) & 1).collect())
        .collect();
    let options = TrainingOptions {
        statistics: Statistics::ContrastiveDivergence { steps: 1 },
        batch,
        rate: 0.05,
        schedule: RateSchedule::Constant,
        momentum,
        weight_decay: 0.0002,
        seed: 3,
    };
    (patterns, options)
}

#[test]
fn the_batch_trainer_switches_momentum_and_refuses_a_bad_one() {
    let (patterns, options) = tiny_cd(4, 0.5);
    let start = Rbm::random(6, 3, 0.01, 3).unwrap();
    let mut trainer = BatchTrainer::new(&start, &patterns, options, 1).unwrap();
    trainer.run(5).unwrap();
    for bad in [1.0, -0.1, f64::NAN] {
        let err = trainer.set_momentum(bad).unwrap_err();
        assert_eq!(err.field(), "momentum", "{err}");
        assert_eq!(trainer.options().momentum, 0.5);
    }
    trainer.set_momentum(0.9).unwrap();
    assert_eq!(trainer.options().momentum, 0.9);
    assert_eq!(trainer.updates(), 5);
    trainer.run(3).unwrap();
    assert_eq!(trainer.updates(), 8);
}

/// rbm.m's `anneal_lr` between epochs: k and ε change and everything else goes on. A
/// trainer switched to CD-3 at ε/3 after 5 updates is, bit for bit, a CD-3 trainer at ε/3
/// given its state (velocities, chains, order, generator) at that moment; a refused value
/// changes nothing, and persistent chains refuse the switch.
#[test]
fn the_batch_trainer_raises_k_keeping_its_velocities_and_refuses_what_it_cannot() {
    let (patterns, options) = tiny_cd(3, 0.9);
    let start = Rbm::random(6, 3, 0.5, 3).unwrap();
    let mut raised = BatchTrainer::new(&start, &patterns, options, 1).unwrap();
    raised.run(5).unwrap();
    let at_switch = raised.state();
    for (steps, rate, field) in [
        (0, 0.05, "gibbs steps"),
        (3, f64::NAN, "learning rate"),
        (3, -1.0, "learning rate"),
    ] {
        let err = raised.set_cd_steps(steps, rate).unwrap_err();
        assert_eq!(err.field(), field, "{err}");
        assert_eq!(raised.state(), at_switch, "nothing changed");
        assert_eq!(raised.options().statistics, options.statistics);
    }
    raised.set_cd_steps(3, 0.05 / 3.0).unwrap();
    assert_eq!(
        raised.state(),
        at_switch,
        "the velocities, chains and position go on"
    );
    let cd3 = TrainingOptions {
        statistics: Statistics::ContrastiveDivergence { steps: 3 },
        rate: 0.05 / 3.0,
        ..options
    };
    let mut fresh = BatchTrainer::new(&start, &patterns, cd3, 1).unwrap();
    fresh.restore(at_switch).unwrap();
    raised.run(7).unwrap();
    fresh.run(7).unwrap();
    assert_eq!(raised.state(), fresh.state());
    let persistent = TrainingOptions {
        statistics: Statistics::Persistent {
            particles: 4,
            steps: 1,
        },
        ..options
    };
    let mut pcd = BatchTrainer::new(&start, &patterns, persistent, 1).unwrap();
    let err = pcd.set_cd_steps(3, 0.05).unwrap_err();
    assert_eq!(err.field(), "statistics", "{err}");
}

/// A small curve run: 1000 training and 500 test images (10 updates per epoch), a
/// 30-hidden machine scored by AIS (--quick: 20 runs), as JSON lines.
fn curve_lines(extra: &[&str]) -> Vec<Value> {
    let mut args = vec![
        "reproduce",
        "salakhutdinov2008",
        "--quick",
        "--json",
        "--large",
        "30",
        "--train-subset",
        "1000",
        "--test-subset",
        "500",
        "--threads",
        "1",
        "--curve",
    ];
    args.extend(extra);
    let (code, out, err) = boltzlab(&args);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The curve's machine at epoch E is the machine a plain run of E epochs trains (the same
/// seed and updates, the momentum switched after epoch 5 in both): the same ln Ẑ and test
/// ln p(v) to the last bit, since both are deterministic given the machine and the seed.
/// For CD-1 and for parallel tempering (its replicas in the same batch trainer).
#[test]
fn a_curve_checkpoint_is_the_plain_run_of_that_many_epochs() {
    for (id, name) in [("cd1-500", "CD1(30)"), ("pt-500", "PT(30)")] {
        curve_checkpoint_is_the_plain_run(id, name);
    }
}

fn curve_checkpoint_is_the_plain_run(id: &str, name: &str) {
    let lines = curve_lines(&["--rows", id, "--epochs", "7", "--checkpoints", "7,2"]);
    let epochs: Vec<u64> = lines.iter().map(|l| l["epoch"].as_u64().unwrap()).collect();
    assert_eq!(epochs, [2, 7], "checkpoints in order");
    for l in &lines {
        assert_eq!(l["name"], name);
        assert_eq!(number(l, "updates"), 10.0 * number(l, "epoch"));
        assert_eq!(
            l["ais_schedule"], "page",
            "--quick scores on the page's schedule"
        );
        assert_eq!(number(l, "ais_steps"), 1450.0);
        assert_eq!(number(l, "ais_runs"), 20.0);
        if id.starts_with("cd") {
            assert_eq!(number(l, "cd_steps"), 1.0);
        }
        assert!(number(l, "test_log_likelihood") < 0.0, "{l}");
    }
    let plain = boltzlab_json(&[
        "reproduce",
        "salakhutdinov2008",
        "--quick",
        "--json",
        "--rows",
        id,
        "--large",
        "30",
        "--train-subset",
        "1000",
        "--test-subset",
        "500",
        "--threads",
        "1",
        "--epochs",
        "7",
    ]);
    let row = &plain["rows"][0];
    let last = &lines[1];
    assert_eq!(row["log_z"], last["log_z"]);
    assert_eq!(row["test_log_likelihood"], last["test_log_likelihood"]);
    assert_eq!(row["ais_effective_runs"], last["ais_effective_runs"]);
}

/// rbm.m's annealed k: k = ⌈epoch/10⌉ (capped at the row's k) with ε/k. Its first ten
/// epochs are therefore CD1 at ε, update for update; from epoch 11 on, k = 2 and ε/2.
/// Two schedules score each checkpoint, each line naming its own.
#[test]
fn annealed_k_rises_every_ten_epochs_with_the_rate_divided() {
    let annealed = curve_lines(&[
        "--rows",
        "cd3-500",
        "--epochs",
        "12",
        "--anneal-k",
        "--checkpoints",
        "10,12",
        "--ais-schedule",
        "page,paper",
        "--ais-runs",
        "4",
    ]);
    let seen: Vec<(u64, u64, f64, &str)> = annealed
        .iter()
        .map(|l| {
            (
                l["epoch"].as_u64().unwrap(),
                l["cd_steps"].as_u64().unwrap(),
                number(l, "rate"),
                l["ais_schedule"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (10, 1, 0.05, "page"),
            (10, 1, 0.05, "paper"),
            (12, 2, 0.025, "page"),
            (12, 2, 0.025, "paper"),
        ]
    );
    assert_eq!(number(&annealed[1], "ais_steps"), 14_500.0);
    let cd1 = curve_lines(&[
        "--rows",
        "cd1-500",
        "--epochs",
        "10",
        "--checkpoints",
        "10",
        "--ais-schedule",
        "page",
        "--ais-runs",
        "4",
    ]);
    assert_eq!(cd1.len(), 1);
    assert_eq!(cd1[0]["log_z"], annealed[0]["log_z"]);
    assert_eq!(
        cd1[0]["test_log_likelihood"],
        annealed[0]["test_log_likelihood"]
    );
}

#[test]
fn a_smaller_rate_is_a_different_run() {
    let base = curve_lines(&["--rows", "cd1-500", "--epochs", "1"]);
    let slow = curve_lines(&["--rows", "cd1-500", "--epochs", "1", "--rate", "0.01"]);
    assert_eq!(number(&base[0], "rate"), 0.05);
    assert_eq!(number(&slow[0], "rate"), 0.01);
    assert_ne!(base[0]["log_z"], slow[0]["log_z"]);
}

#[test]
fn bad_curve_options_are_refused_by_name() {
    let refused = |extra: &[&str], needle: &[&str]| {
        let mut args = vec!["reproduce", "salakhutdinov2008", "--quick"];
        args.extend(extra);
        let (code, out, err) = boltzlab(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            out.is_empty(),
            "nothing is printed before the refusal: {out}"
        );
        for n in needle {
            assert!(err.contains(n), "{args:?}: '{n}' not in {err}");
        }
    };
    refused(
        &["--anneal-k", "--rows", "cd25-500"],
        &["--anneal-k", "--curve"],
    );
    refused(
        &["--curve", "--anneal-k", "--rows", "cd25-500,pcd-500"],
        &["--anneal-k", "pcd-500"],
    );
    refused(&["--checkpoints", "1"], &["--checkpoints", "--curve"]);
    refused(&["--f64"], &["--f64", "--curve"]);
    refused(
        &[
            "--curve",
            "--rows",
            "cd1-500",
            "--epochs",
            "3",
            "--checkpoints",
            "1,4",
        ],
        &["--checkpoints", "'4'", "1 to 3"],
    );
    refused(
        &["--curve", "--rows", "cd1-500", "--checkpoints", "x"],
        &["--checkpoints", "'x'"],
    );
    for bad in ["0", "-0.1", "1.5", "abc", "NaN"] {
        refused(&["--rate", bad], &["--rate", bad]);
    }
    refused(
        &["--ais-schedule", "finer"],
        &["--ais-schedule", "finer", "paper, page, fine"],
    );
    refused(&["--ais-runs", "1"], &["--ais-runs"]);
}

/// `--f64` trains the same curve in the f64 trainer: a separate implementation of the same
/// rule, with its own random streams, so its machine differs from the f32 one while each
/// line says which trainer made it.
#[test]
fn the_f64_trainer_draws_its_own_curve() {
    let args = ["--rows", "cd1-500", "--epochs", "2", "--checkpoints", "2"];
    let f32_line = &curve_lines(&args)[0];
    let mut with_f64 = args.to_vec();
    with_f64.push("--f64");
    let f64_line = &curve_lines(&with_f64)[0];
    assert_eq!(f32_line["trainer"], "f32");
    assert_eq!(f64_line["trainer"], "f64");
    assert_eq!(f64_line["updates"], 20);
    assert_ne!(f32_line["log_z"], f64_line["log_z"]);
    let ll = number(f64_line, "test_log_likelihood");
    assert!(ll < 0.0 && ll > -784.0 * 2f64.ln(), "{f64_line}");
}
