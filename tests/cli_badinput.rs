//! Bad input to every value-taking option of every `boltzlab` command, run as a process:
//! each bad value must end with exit status 2, nothing on stdout, and one short message on
//! stderr naming the option and its allowed range (never a panic). Also damaged network
//! files, unknown options and commands, missing and repeated values.

mod common;

use common::TempDir;
/// Runs `boltzlab` → (exit status, stdout, stderr).
use common::boltzlab as run;

/// Asserts the contract for a refused command line; `needles` must all be in the message.
fn refused(args: &[&str], needles: &[&str]) {
    let shown: Vec<String> = args
        .iter()
        .map(|a| a.chars().take(40).collect::<String>())
        .collect();
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 2, "{shown:?}: exit status; stderr: {stderr}");
    assert!(stdout.is_empty(), "{shown:?}: stdout: {stdout}");
    assert!(!stderr.contains("panicked"), "{shown:?}: {stderr}");
    assert!(stderr.starts_with("boltzlab: "), "{shown:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{shown:?}: {stderr}");
    assert!(stderr.len() < 600, "{shown:?}: {} bytes", stderr.len());
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{shown:?}: '{needle}' not in: {stderr}"
        );
    }
}

/// Bad values as a person (or a script) might type them.
const VALUES: &[&str] = &[
    "",
    "NaN",
    "nan",
    "inf",
    "Infinity",
    "-Infinity",
    "1e309",
    "-1e309",
    "-1",
    "0",
    "-0",
    "1e12",
    "99999999999",
    "18446744073709551616",
    "2.5",
    "1e-3",
    "0x10",
    "12abc",
    " ",
    "１２",
    "1,5",
    "--1",
    "+",
    ".",
];

/// What an option takes, for deciding which values are bad and what the message says.
#[derive(Clone, Copy)]
enum Kind {
    /// A whole number from min to max, read by the engine (`--size`).
    Side,
    /// A whole number from min to max, read by the command line (counts, seeds).
    Count(u64, u64),
    /// A real number in [min, max] (infinite bounds allowed); `open_low`: min excluded.
    Real(f64, f64, bool),
    /// One of these names.
    Choice(&'static str),
}

impl Kind {
    fn accepts(self, text: &str) -> bool {
        match self {
            Kind::Side => text
                .parse::<f64>()
                .is_ok_and(|x| x.fract() == 0.0 && (2.0..=4096.0).contains(&x)),
            Kind::Count(lo, hi) => text.parse::<u64>().is_ok_and(|n| (lo..=hi).contains(&n)),
            Kind::Real(lo, hi, open_low) => text.parse::<f64>().is_ok_and(|x| {
                !x.is_nan() && x >= lo && x <= hi && !(open_low && x == lo) && {
                    // A finite range means a finite number.
                    x.is_finite() || hi.is_infinite()
                }
            }),
            Kind::Choice(allowed) => allowed.split(", ").any(|a| a == text),
        }
    }

    /// Texts one of which the message must hold (the range, in the engine's words).
    fn range(self) -> Vec<String> {
        match self {
            Kind::Side => vec!["between 2 and 4096".into()],
            Kind::Count(lo, hi) => vec![format!("from {lo} to {hi}")],
            Kind::Real(lo, hi, _) if hi.is_infinite() => vec![
                format!("of at least {lo}"),
                format!("between {lo} and ∞"),
                format!("above {lo}"),
            ],
            Kind::Real(lo, hi, _) => vec![format!("between {lo} and {hi}")],
            Kind::Choice(allowed) => vec![format!("one of {allowed}")],
        }
    }
}

const CHOICE_VALUES: &[&str] = &[
    "",
    "x",
    "NaN",
    "null",
    "Heat-bath",
    " periodic",
    "exact ",
    "１",
];

/// A small good network file and a directory for damaged ones, one directory per test:
/// the tests of this binary run at once in one process, and a shared `good.json` being
/// rewritten by one test was read half-written by another (a CI run failed so).
fn scratch(test: &str) -> TempDir {
    let dir = TempDir::new(test);
    std::fs::write(
        dir.join("good.json"),
        r#"{"units": 2, "spin": "ising", "weights": [[0, 1], [1, 0]], "biases": [0, 0]}"#,
    )
    .unwrap();
    dir
}

/// A good base command line and the value-taking options to spoil in it.
type Command<'a> = (Vec<&'a str>, Vec<(&'static str, Kind)>);

/// Every command with a good base command line, and its value-taking options.
fn commands(good: &str) -> Vec<Command<'_>> {
    let ising_base = vec![
        "ising",
        "--size",
        "4",
        "--temperature",
        "2",
        "--sweeps",
        "64",
        "--burn-in",
        "0",
    ];
    let exact_base = vec!["exact", "--size", "2", "--temperature", "2"];
    vec![
        (
            ising_base.clone(),
            vec![
                ("size", Kind::Side),
                ("height", Kind::Side),
                ("temperature", Kind::Real(0.0, f64::INFINITY, false)),
                ("field", Kind::Real(-1000.0, 1000.0, false)),
                ("coupling", Kind::Real(-1000.0, 1000.0, false)),
                ("dynamics", Kind::Choice("heat-bath, metropolis, wolff")),
                ("order", Kind::Choice("sequential, random, checkerboard")),
                (
                    "boundary",
                    Kind::Choice("periodic, open, fixed-up, fixed-down"),
                ),
                ("sweeps", Kind::Count(64, 100_000_000)),
                ("burn-in", Kind::Count(0, 100_000_000)),
                ("seed", Kind::Count(0, u64::MAX)),
            ],
        ),
        (
            exact_base.clone(),
            vec![
                ("size", Kind::Side),
                ("height", Kind::Side),
                ("temperature", Kind::Real(0.0, f64::INFINITY, true)),
                ("field", Kind::Real(-1000.0, 1000.0, false)),
                ("coupling", Kind::Real(-1000.0, 1000.0, false)),
                (
                    "boundary",
                    Kind::Choice("periodic, open, fixed-up, fixed-down"),
                ),
            ],
        ),
        (
            vec![
                "logz",
                "--network",
                good,
                "--temperature",
                "1",
                "--method",
                "exact",
            ],
            vec![
                ("temperature", Kind::Real(0.0, f64::INFINITY, true)),
                ("method", Kind::Choice("exact, ais, mean-field, sampled")),
            ],
        ),
        (
            vec![
                "logz",
                "--network",
                good,
                "--temperature",
                "1",
                "--method",
                "ais",
                "--runs",
                "2",
                "--steps",
                "1",
            ],
            vec![
                ("runs", Kind::Count(2, 1_000_000)),
                ("steps", Kind::Count(1, 1_000_000)),
                ("seed", Kind::Count(0, u64::MAX)),
            ],
        ),
        (
            vec![
                "logz",
                "--network",
                good,
                "--temperature",
                "1",
                "--method",
                "sampled",
                "--sweeps",
                "1",
            ],
            vec![("sweeps", Kind::Count(1, 10_000_000))],
        ),
        (
            vec![
                "learn",
                "--problem",
                "4-2-4",
                "--method",
                "mean-field",
                "--runs",
                "1",
                "--max-cycles",
                "1",
            ],
            vec![
                (
                    "problem",
                    Kind::Choice("4-2-4, 4-3-4, 8-3-8, 40-10-40, bars-3x3, bars-4x4, pixels-10"),
                ),
                ("method", Kind::Choice("stochastic, mean-field")),
                ("runs", Kind::Count(1, 100_000)),
                ("max-cycles", Kind::Count(1, 10_000_000)),
                ("seed", Kind::Count(0, u64::MAX)),
                ("threads", Kind::Count(1, 256)),
            ],
        ),
        (
            vec![
                "reproduce",
                "ackley1985",
                "--problems",
                "4-2-4",
                "--methods",
                "mean-field",
                "--runs",
                "1",
                "--max-cycles",
                "1",
            ],
            vec![
                ("runs", Kind::Count(1, 100_000)),
                ("max-cycles", Kind::Count(1, 10_000_000)),
                ("seed", Kind::Count(0, u64::MAX)),
                ("threads", Kind::Count(1, 256)),
            ],
        ),
    ]
}

/// `base` with `--name value` replacing the option's value (or appended).
fn with<'a>(base: &[&'a str], name: &'a str, value: &'a str) -> Vec<&'a str> {
    let mut args = base.to_vec();
    match args.iter().position(|a| *a == name) {
        Some(k) => args[k + 1] = value,
        None => args.extend([name, value]),
    }
    args
}

#[test]
fn every_option_refuses_every_bad_value_with_its_name_and_range() {
    let dir = scratch("every_option_refuses_every_bad_value_with_its_name_and_range");
    let good = dir.join("good.json");
    let good = good.to_str().unwrap();
    let long = "9".repeat(10_000);
    let long_text = "x".repeat(10_000);
    let mut tried = 0;
    let mut per_command = std::collections::BTreeMap::<String, usize>::new();
    for (base, options) in commands(good) {
        // The base command line is good: it runs and prints.
        let (code, stdout, stderr) = run(&base);
        assert_eq!(code, 0, "{base:?}: {stderr}");
        assert!(!stdout.is_empty());
        for (name, kind) in options {
            let flag: &'static str = Box::leak(format!("--{name}").into_boxed_str());
            let values: Vec<&str> = match kind {
                Kind::Choice(_) => CHOICE_VALUES
                    .iter()
                    .copied()
                    .chain([long_text.as_str()])
                    .collect(),
                _ => VALUES.iter().copied().chain([long.as_str()]).collect(),
            };
            let mut bad = 0;
            for value in values {
                if kind.accepts(value) {
                    continue;
                }
                let ranges = kind.range();
                let args = with(&base, flag, value);
                let (code, stdout, stderr) = run(&args);
                assert_eq!(code, 2, "{flag} '{value}': {stderr}");
                assert!(stdout.is_empty(), "{flag} '{value}': {stdout}");
                assert!(!stderr.contains("panicked"), "{flag} '{value}': {stderr}");
                assert!(stderr.len() < 600, "{flag}: {} bytes", stderr.len());
                assert!(stderr.contains(flag), "{flag} '{value}': {stderr}");
                assert!(
                    ranges.iter().any(|r| stderr.contains(r.as_str())),
                    "{flag} '{value}': none of {ranges:?} in: {stderr}"
                );
                bad += 1;
            }
            assert!(bad >= 6, "{flag}: only {bad} bad values");
            tried += bad;
            *per_command
                .entry(format!("{} {flag}", base[0]))
                .or_default() += bad;
        }
    }
    println!("bad option values tried: {tried} {per_command:?}");
    assert!(tried > 500, "{tried}");
}

#[test]
fn values_just_outside_the_documented_ranges_are_refused() {
    let dir = scratch("values_just_outside_the_documented_ranges_are_refused");
    let good = dir.join("good.json");
    let good = good.to_str().unwrap();
    for (args, needles) in [
        (
            vec!["ising", "--size", "1", "--temperature", "2"],
            vec!["--size '1'", "between 2 and 4096"],
        ),
        (
            vec!["ising", "--size", "4097", "--temperature", "2"],
            vec!["--size '4097'", "between 2 and 4096"],
        ),
        (
            vec![
                "ising",
                "--size",
                "4",
                "--height",
                "4097",
                "--temperature",
                "2",
            ],
            vec!["--height '4097'", "between 2 and 4096"],
        ),
        (
            vec!["ising", "--size", "4", "--temperature", "-0.001"],
            vec!["--temperature '-0.001'", "between 0 and ∞"],
        ),
        (
            vec![
                "ising",
                "--size",
                "4",
                "--temperature",
                "2",
                "--field",
                "1000.5",
            ],
            vec!["--field '1000.5'", "between -1000 and 1000"],
        ),
        (
            vec![
                "ising",
                "--size",
                "4",
                "--temperature",
                "2",
                "--coupling",
                "-1000.5",
            ],
            vec!["--coupling '-1000.5'", "between -1000 and 1000"],
        ),
        (
            vec![
                "ising",
                "--size",
                "4",
                "--temperature",
                "2",
                "--sweeps",
                "63",
            ],
            vec!["--sweeps", "from 64 to 100000000"],
        ),
        (
            vec![
                "ising",
                "--size",
                "4",
                "--temperature",
                "2",
                "--burn-in",
                "100000001",
            ],
            vec!["--burn-in", "from 0 to 100000000"],
        ),
        (
            vec!["exact", "--size", "2", "--temperature", "0"],
            vec!["--temperature '0'", "above 0"],
        ),
        (
            vec!["exact", "--size", "2", "--temperature", "inf"],
            vec!["--temperature 'inf'", "finite"],
        ),
        (
            vec![
                "logz",
                "--network",
                good,
                "--temperature",
                "0",
                "--method",
                "exact",
            ],
            vec!["--temperature '0'", "above 0"],
        ),
        (
            vec![
                "logz",
                "--network",
                good,
                "--temperature",
                "1",
                "--method",
                "ais",
                "--runs",
                "1",
            ],
            vec!["--runs", "from 2 to 1000000"],
        ),
        (
            vec!["learn", "--problem", "4-2-4", "--threads", "257"],
            vec!["--threads", "from 1 to 256"],
        ),
        (
            vec!["learn", "--problem", "4-2-4", "--max-cycles", "10000001"],
            vec!["--max-cycles", "from 1 to 10000000"],
        ),
        (
            vec!["reproduce", "ackley1985", "--problems", "4-2-4,bars-3x3"],
            vec!["--problems", "encoders (4-2-4, 4-3-4, 8-3-8, 40-10-40)"],
        ),
        (
            vec!["reproduce", "ackley1985", "--problems", "4-2-4,x"],
            vec!["--problems", "one of 4-2-4"],
        ),
        (
            vec!["reproduce", "ackley1985", "--problems", ""],
            vec!["--problems", "one of 4-2-4"],
        ),
        (
            vec!["reproduce", "ackley1985", "--methods", "mean-field,x"],
            vec!["--methods", "one of stochastic, mean-field"],
        ),
        (
            vec!["reproduce", "ackley1985", "--methods", ","],
            vec!["--methods", "one of stochastic, mean-field"],
        ),
    ] {
        refused(&args, &needles);
    }
}

#[test]
fn sizes_beyond_the_limits_are_refused_before_anything_is_allocated() {
    // A 10^6 × 10^6 lattice would need a terabyte: refused at once (the test finishes).
    for size in ["1000000", "1e9", "4294967296", "18446744073709551616"] {
        refused(
            &["ising", "--size", size, "--temperature", "2"],
            &["--size", "between 2 and 4096"],
        );
        refused(
            &[
                "exact",
                "--size",
                "2",
                "--height",
                size,
                "--temperature",
                "2",
            ],
            &["--height", "between 2 and 4096"],
        );
    }
    // Within the side limit, exact enumeration is refused beyond 30 spins.
    refused(
        &["exact", "--size", "4096", "--temperature", "2"],
        &["at most 30 spins"],
    );
}

#[test]
fn damaged_network_files_are_refused_naming_the_file() {
    let dir = scratch("damaged_network_files_are_refused_naming_the_file");
    let good = r#"{"units": 2, "spin": "ising", "weights": [[0, 1], [1, 0]], "biases": [0, 0]}"#;
    let files: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.json", vec![], "is not a network"),
        ("text.json", b"hello".to_vec(), "is not a network"),
        ("truncated-1.json", good.as_bytes()[..1].to_vec(), "is not a network"),
        ("truncated-half.json", good.as_bytes()[..good.len() / 2].to_vec(), "is not a network"),
        ("truncated-end.json", good.as_bytes()[..good.len() - 1].to_vec(), "is not a network"),
        ("binary.json", (0..4096u32).map(|k| (k * 7919 + 13) as u8).collect(), "not UTF-8"),
        ("nul.json", vec![0; 1000], "is not a network"),
        ("array.json", b"[]".to_vec(), "is not a network"),
        (
            "asymmetric.json",
            br#"{"units": 2, "spin": "ising", "weights": [[0, 1], [2, 0]], "biases": [0, 0]}"#.to_vec(),
            "symmetric",
        ),
        (
            "nan.json",
            br#"{"units": 2, "spin": "ising", "weights": [[0, "NaN"], ["NaN", 0]], "biases": [0, 0]}"#.to_vec(),
            "is not a network",
        ),
        (
            "overflow.json",
            br#"{"units": 2, "spin": "ising", "weights": [[0, 1e999], [1e999, 0]], "biases": [0, 0]}"#.to_vec(),
            "is not a network",
        ),
        (
            "shape.json",
            br#"{"units": 3, "spin": "ising", "weights": [[0, 1], [1, 0]], "biases": [0, 0]}"#.to_vec(),
            "is not a network",
        ),
        (
            "units-0.json",
            br#"{"units": 0, "spin": "ising", "weights": [], "biases": []}"#.to_vec(),
            "is not a network",
        ),
        (
            "units-neg.json",
            br#"{"units": -2, "spin": "ising", "weights": [[0, 1], [1, 0]], "biases": [0, 0]}"#.to_vec(),
            "is not a network",
        ),
        (
            "spin.json",
            br#"{"units": 2, "spin": "potts", "weights": [[0, 1], [1, 0]], "biases": [0, 0]}"#.to_vec(),
            "is not a network",
        ),
        (
            "diagonal.json",
            br#"{"units": 2, "spin": "ising", "weights": [[5, 1], [1, 0]], "biases": [0, 0]}"#.to_vec(),
            "is not a network",
        ),
        (
            "lattice-state.json",
            br#"{"format": "boltzlab-lattice", "version": 1}"#.to_vec(),
            "is not a network",
        ),
    ];
    for (name, bytes, needle) in &files {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        let path = path.to_str().unwrap();
        refused(
            &[
                "logz",
                "--network",
                path,
                "--temperature",
                "1",
                "--method",
                "exact",
            ],
            &["--network", name, needle],
        );
    }
    // Beyond the size limit: refused after reading at most limit + 1 bytes (a sparse file,
    // so the test writes nothing to disk).
    let huge = dir.join("huge.json");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len(boltzlab::Network::MAX_JSON_BYTES as u64 + 1)
        .unwrap();
    refused(
        &[
            "logz",
            "--network",
            huge.to_str().unwrap(),
            "--temperature",
            "1",
            "--method",
            "exact",
        ],
        &["--network", "longer than"],
    );
    std::fs::remove_file(&huge).unwrap();
    let missing = dir.join("missing.json");
    refused(
        &[
            "logz",
            "--network",
            missing.to_str().unwrap(),
            "--temperature",
            "1",
            "--method",
            "exact",
        ],
        &["--network", "cannot open"],
    );
    refused(
        &[
            "logz",
            "--network",
            dir.to_str().unwrap(),
            "--temperature",
            "1",
            "--method",
            "exact",
        ],
        &["--network", "cannot read"],
    );
    println!("damaged network files tried: {}", files.len() + 3);
}

#[test]
fn unknown_options_commands_and_missing_values_are_refused() {
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["isng"], "unknown command 'isng'"),
        (vec![""], "unknown command ''"),
        (vec!["ISING"], "unknown command 'ISING'"),
        (vec!["--size", "4"], "unknown command '--size'"),
        (
            vec!["ising", "--size", "4", "--temperature", "2", "--sizes", "4"],
            "unknown option --sizes",
        ),
        (
            vec!["ising", "--size", "4", "--temperature", "2", "--Size", "4"],
            "unknown option --Size",
        ),
        (
            vec!["ising", "-s", "4", "--temperature", "2"],
            "unexpected argument '-s'",
        ),
        (
            vec!["ising", "size", "4", "--temperature", "2"],
            "unexpected argument 'size'",
        ),
        (
            vec!["ising", "--size=4", "--temperature", "2"],
            "unknown option --size=4",
        ),
        (vec!["ising", "--", "--size", "4"], "unknown option --"),
        (
            vec!["ising", "---size", "4", "--temperature", "2"],
            "unknown option ---size",
        ),
        (
            vec!["ising", "--size", "4", "--temperature", "2", "--json=1"],
            "unknown option --json=1",
        ),
        (
            vec!["ising", "--size", "4", "--temperature"],
            "--temperature needs a value",
        ),
        (vec!["ising", "--size"], "--size needs a value"),
        (vec!["ising", "--temperature", "2"], "--size is required"),
        (
            vec!["ising", "--size", "4", "--size", "4", "--temperature", "2"],
            "--size is given twice",
        ),
        (
            vec![
                "exact",
                "--size",
                "2",
                "--temperature",
                "2",
                "--sweeps",
                "64",
            ],
            "unknown option --sweeps",
        ),
        (vec!["exact", "--size", "2"], "--temperature is required"),
        (
            vec!["logz", "--temperature", "1", "--method", "exact"],
            "--network is required",
        ),
        (
            vec!["logz", "--network", "x.json", "--temperature", "1"],
            "--method is required",
        ),
        (
            vec![
                "logz",
                "--network",
                "x.json",
                "--temperature",
                "1",
                "--method",
                "exact",
                "--runs",
                "5",
            ],
            "--runs applies to --method ais only",
        ),
        (
            vec![
                "logz",
                "--network",
                "x.json",
                "--temperature",
                "1",
                "--method",
                "exact",
                "--seed",
                "5",
            ],
            "--seed applies to --method ais and sampled only",
        ),
        (vec!["learn"], "--problem is required"),
        (vec!["learn", "--problem"], "--problem needs a value"),
        (
            vec!["learn", "--dataset", "mnist"],
            "--dataset needs --machine rbm or --machine full",
        ),
        (
            vec!["learn", "--problem", "4-2-4", "--hidden", "3"],
            "--hidden needs --machine rbm or --machine full",
        ),
        (
            vec![
                "learn",
                "--problem",
                "4-2-4",
                "--seed",
                "18446744073709551615",
                "--runs",
                "3",
            ],
            "would need seeds beyond 18446744073709551615",
        ),
        (vec!["reproduce"], "reproduce needs a paper"),
        (
            vec!["reproduce", "hinton2006"],
            "unknown paper 'hinton2006'",
        ),
        (
            vec!["reproduce", "ackley1985", "--problem", "4-2-4"],
            "unknown option --problem",
        ),
    ];
    let long = format!("--{}", "x".repeat(100_000));
    let mut all = cases.clone();
    all.push((vec!["ising", long.as_str(), "4"], "unknown option --xxxx"));
    for (args, needle) in &all {
        refused(args, &[needle]);
    }
    println!(
        "unknown options, commands and missing values tried: {}",
        all.len()
    );
}
