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

#[test]
fn one_run_has_no_standard_error_and_two_have_one() {
    let args = |runs: &'static str| {
        vec![
            "memory",
            "--units",
            "60",
            "--patterns",
            "12",
            "--runs",
            runs,
        ]
    };
    let with_json = |runs| {
        let mut a = args(runs);
        a.push("--json");
        boltzlab_json(&a)
    };
    // One run: no spread to estimate an error from; null, as learn --problem --runs 1 says.
    let one = with_json("1");
    assert_eq!(one["runs"], 1);
    assert!(one["overlap"]["stderr"].is_null(), "{one}");
    assert!(one["overlap"]["mean"].is_f64());
    let two = with_json("2");
    assert!(two["overlap"]["stderr"].as_f64().unwrap() >= 0.0, "{two}");
    // The text says so too, and counts one run in the singular.
    let (code, stdout, stderr) = boltzlab(&args("1"));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("1 run each"), "{stdout}");
    assert!(stdout.contains("± —"), "{stdout}");
}

#[test]
fn the_table_lines_up_and_the_header_prints_numbers_short() {
    let (code, stdout, stderr) = boltzlab(&[
        "memory",
        "--units",
        "200",
        "--patterns",
        "5,40,200",
        "--runs",
        "2",
        "--temperature",
        "1e300",
        "--sweeps",
        "1",
        "--random-starts",
        "2",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].contains("T = 1e300,"), "{}", lines[0]);
    // Header and rows: every column right-aligned to the same width, so the lines are as
    // long as each other and the P column ends where its heading does.
    let table = &lines[1..];
    assert_eq!(table.len(), 4, "{stdout}");
    let width = |l: &str| l.chars().count();
    assert!(
        table.iter().all(|l| width(l) == width(table[0])),
        "{stdout}"
    );
    for (line, p) in table[1..].iter().zip(["5", "40", "200"]) {
        assert_eq!(line[..6].trim_start(), p, "{stdout}");
    }
    assert_eq!(table[0][..6].trim_start(), "P");
}

#[test]
fn sweeps_apply_only_above_zero_temperature() {
    for args in [
        vec!["--sweeps", "5"],
        vec!["--temperature", "0", "--sweeps", "5"],
    ] {
        let mut all = vec!["memory", "--units", "20", "--patterns", "2", "--runs", "1"];
        all.extend(args);
        let (code, stdout, err) = boltzlab(&all);
        assert_eq!(code, 2, "{all:?}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(
            err.contains("--sweeps applies to --temperature T > 0 only"),
            "{all:?}: {err}"
        );
    }
    boltzlab_json(&[
        "memory",
        "--units",
        "20",
        "--patterns",
        "2",
        "--runs",
        "1",
        "--temperature",
        "0.5",
        "--sweeps",
        "5",
        "--json",
    ]);
}
