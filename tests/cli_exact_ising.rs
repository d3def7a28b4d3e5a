//! `boltzlab exact --kaufman` and `boltzlab ising` at extreme temperatures, run as a process:
//! Kaufman's values agree with enumeration wherever they are printed and are refused (exit 2,
//! nothing on stdout, one message naming --temperature and the range) where they would be
//! wrong; `ising` reports c and χ as {mean, stderr} numbers at T = 0; headers print numbers
//! in short form.

mod common;

use boltzlab::exact::{
    KAUFMAN_MAX_TEMPERATURE, KAUFMAN_MIN_TEMPERATURE, torus_broken_bond_counts,
    torus_thermodynamics,
};
use common::{boltzlab as run, boltzlab_json as json};

/// |a − b| / |b|.
fn relative(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

/// Asserts the refusal contract and that every needle is in the message.
fn refused(args: &[&str], needles: &[&str]) {
    let (code, stdout, stderr) = run(args);
    assert_eq!(code, 2, "{args:?}: {stderr}");
    assert!(stdout.is_empty(), "{args:?}: {stdout}");
    assert!(stderr.starts_with("boltzlab: "), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "'{needle}' not in: {stderr}");
    }
}

/// ln Z, E/N and C/N of the L × L torus by enumeration (`torus_thermodynamics` of its
/// broken-bond counts: sums of positive terms, good to ~1e-15 relative; the CLI's own
/// enumeration forms ⟨E²⟩ − ⟨E⟩², which leaves C at T = 0.35 on 4×4 only good to ~1e-7, too
/// coarse a reference here).
fn enumerated(side: usize, t: f64) -> [f64; 3] {
    let n = (side * side) as f64;
    let (log_z, energy, heat) =
        torus_thermodynamics(&torus_broken_bond_counts(side, side).unwrap(), t);
    [log_z, energy / n, heat / n]
}

#[test]
fn kaufman_matches_enumeration_at_the_ends_of_its_range_and_refuses_beyond() {
    // Inside [0.35, 5000] Kaufman is good to 1e-8 relative (closed_form's bounds: 2.8e-9 for
    // C at 0.35, ε·T² = 5.5e-9 at 5000); the enumeration reference (`enumerated`) is good to
    // ~ε·T ≤ 1e-12 in E at T = 5000 and to ~1e-14 elsewhere. Tolerance 1e-8.
    for side in ["2", "3", "4"] {
        for t in [KAUFMAN_MIN_TEMPERATURE, 1.0, 1e3, KAUFMAN_MAX_TEMPERATURE] {
            let exact = enumerated(side.parse().unwrap(), t);
            let t = t.to_string();
            let kaufman = json(&[
                "exact",
                "--size",
                side,
                "--temperature",
                &t,
                "--kaufman",
                "--json",
            ]);
            for (key, b) in ["log_z", "energy_per_spin", "specific_heat_per_spin"]
                .into_iter()
                .zip(exact)
            {
                let a = kaufman[key].as_f64().expect("a number");
                assert!(relative(a, b) <= 1e-8, "{side} T={t} {key}: {a} vs {b}");
            }
            // Laws: |E/N| ≤ 2, C ≥ 0.
            assert!(kaufman["energy_per_spin"].as_f64().unwrap().abs() <= 2.0);
            assert!(kaufman["specific_heat_per_spin"].as_f64().unwrap() >= 0.0);
        }
        // Beyond: refused in text and JSON alike (these printed nothing, null, −8192 per
        // spin or a negative C with exit 0), while enumeration still answers (|E/N| ≤ 2,
        // C ≥ 0, all numbers).
        for t in [
            "1e-3", "0.005", "0.008", "0.3", "5001", "1e9", "1e15", "1e20", "1e300",
        ] {
            for json_flag in [&[][..], &["--json"][..]] {
                let args = [
                    &["exact", "--size", side, "--temperature", t, "--kaufman"][..],
                    json_flag,
                ]
                .concat();
                refused(&args, &["--temperature", "between 0.35 and 5000", "got "]);
            }
            let e = json(&["exact", "--size", side, "--temperature", t, "--json"]);
            let (u, c) = (
                e["energy_per_spin"].as_f64().expect("a number"),
                e["specific_heat_per_spin"].as_f64().expect("a number"),
            );
            assert!(u.abs() <= 2.0 && c >= 0.0, "{side} T={t}: {u} {c}");
        }
    }
}

#[test]
fn ising_at_zero_temperature_reports_zero_fluctuations_as_numbers() {
    // Heat-bath at T = 0 is energy descent: an 8×8 torus from a random start settles in a
    // ground state within the burn-in (the seed-1 run does; checked by E/N = −2 ± 0), so
    // Var(e) = Var(|m|) = 0 and c = χ = 0 ± 0, the T → 0 limit, in JSON and text alike
    // (they were NaN ± NaN and null). Exact equality: no rounding is involved.
    for t in ["0", "1e-300"] {
        let args = [
            "ising",
            "--size",
            "8",
            "--temperature",
            t,
            "--sweeps",
            "256",
            "--burn-in",
            "1000",
        ];
        let report = json(&[&args[..], &["--json"]].concat());
        assert_eq!(report["energy_per_spin"]["mean"].as_f64(), Some(-2.0));
        for key in ["specific_heat_per_spin", "susceptibility_per_spin"] {
            assert_eq!(report[key]["mean"].as_f64(), Some(0.0), "T={t} {key}");
            assert_eq!(report[key]["stderr"].as_f64(), Some(0.0), "T={t} {key}");
        }
        let (code, text, stderr) = run(&args);
        assert_eq!(code, 0, "{stderr}");
        assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
        assert!(text.contains("specific heat per spin           0.000000 ± 0.000000"));
    }
}

#[test]
fn ising_refuses_infinite_fluctuations_at_zero_temperature() {
    // With no burn-in the first 64 sweeps at T = 0 still change the energy: β²N·Var(e) = ∞,
    // refused (nothing printed) rather than shown as inf ± inf or null.
    for json_flag in [&[][..], &["--json"][..]] {
        let args = [
            &[
                "ising",
                "--size",
                "8",
                "--temperature",
                "0",
                "--sweeps",
                "64",
                "--burn-in",
                "0",
            ][..],
            json_flag,
        ]
        .concat();
        refused(&args, &["--temperature", "overflows", "at least"]);
    }
}

#[test]
fn headers_print_numbers_in_short_form() {
    // 1e300 was printed with its 301 digits, 1e-320 with 320 decimals.
    let (code, text, _) = run(&[
        "ising",
        "--size",
        "8",
        "--temperature",
        "1e300",
        "--sweeps",
        "64",
        "--burn-in",
        "0",
    ]);
    assert_eq!(code, 0);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("T = 1e300, h = 0, J = 1,"),
        "{text}"
    );
    for (t, field, needle) in [
        ("1e300", "0", "T = 1e300, h = 0,"),
        ("2", "1e-320", "h = 1e-320,"),
    ] {
        let (code, text, _) = run(&["exact", "--size", "3", "--temperature", t, "--field", field]);
        assert_eq!(code, 0);
        let header = text.lines().next().unwrap();
        assert!(header.contains(needle) && header.len() < 100, "{header}");
    }
}
