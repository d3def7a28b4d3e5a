//! `boltzlab memory`: the capacity experiment from the command line: its JSON, a sweep over
//! α, results that do not depend on the thread count, and refusals that name the option.

mod common;

use common::{boltzlab, boltzlab_json};

#[test]
fn one_row_has_every_field() {
    let row = boltzlab_json(&[
        "memory",
        "--units",
        "100",
        "--patterns",
        "5",
        "--runs",
        "3",
        "--json",
    ]);
    assert_eq!(row["units"], 100);
    assert_eq!(row["patterns"], 5);
    assert_eq!(row["alpha"], 0.05);
    assert_eq!(row["rule"], "hebb");
    assert_eq!(row["runs"], 3);
    // Five patterns in 100 units are far below capacity: each is a fixed point.
    assert_eq!(row["overlap"]["mean"], 1.0);
    assert_eq!(row["overlap"]["stderr"], 0.0);
    assert_eq!(row["recalled_fraction"], 1.0);
    let from = &row["from_random"];
    let starts: u64 = ["pattern", "reversed", "mixture", "other"]
        .iter()
        .map(|k| from[k].as_u64().unwrap())
        .sum();
    assert_eq!(starts, 30, "10 random starts per run");
    assert!(row["seconds"].as_f64().unwrap() >= 0.0);
}

#[test]
fn a_list_of_patterns_sweeps_alpha_and_threads_change_nothing() {
    let run = |threads: &str| {
        let mut out = boltzlab_json(&[
            "memory",
            "--units",
            "80",
            "--patterns",
            "4,12,20",
            "--runs",
            "3",
            "--rule",
            "unlearning",
            "--threads",
            threads,
            "--json",
        ]);
        for row in out["rows"].as_array_mut().unwrap() {
            row.as_object_mut().unwrap().remove("seconds");
        }
        out
    };
    let one = run("1");
    assert_eq!(one, run("2"));
    let rows = one["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[2]["alpha"], 0.25);
    assert_eq!(rows[0]["rule_settings"]["steps"].as_f64(), Some(40.0));
    // More patterns, less recall (the sweep's whole point), here by a wide margin.
    let m = |k: usize| rows[k]["overlap"]["mean"].as_f64().unwrap();
    assert!(m(0) > m(2), "{} then {}", m(0), m(2));
}

#[test]
fn bad_values_are_refused_with_the_option_named() {
    for (args, needle) in [
        (vec!["--units", "100", "--patterns", "101"], "--patterns"),
        (vec!["--units", "0"], "--units"),
        (vec!["--units", "5000"], "--units"),
        (vec!["--rule", "oja"], "--rule"),
        (
            vec!["--rule", "hebb", "--epsilon", "0.1"],
            "--epsilon is an option of --rule unlearning",
        ),
        (vec!["--rule", "unlearning", "--epsilon", "2"], "--epsilon"),
        (vec!["--rule", "boltzmann", "--rate", "nan"], "--rate"),
        (vec!["--temperature", "-1"], "--temperature"),
        (vec!["--runs", "0"], "--runs"),
        (vec!["--patterns", "3,x"], "--patterns"),
    ] {
        let mut full = vec!["memory"];
        full.extend(args.iter());
        let (code, _, err) = boltzlab(&full);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}
