//! The `boltzlab` command line, run as a process: the contract in docs/contract.md, exact values,
//! and clear errors for bad input.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use common::{boltzlab, boltzlab_json as json};

use boltzlab::Lattice;
use boltzlab::exact::enumeration::enumerate;
use boltzlab::exact::{kaufman_energy_per_spin, kaufman_log_z, kaufman_specific_heat_per_spin};

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

#[test]
fn exact_reproduces_the_published_4x4_values_at_t_2() {
    // docs/references.md §1: Z = 26839013.6123, ⟨E⟩ = −28.0861, C = 9.68852, ⟨|M|⟩ = 14.7031.
    let v = json(&["exact", "--size", "4", "--temperature", "2", "--json"]);
    let n = 16.0;
    assert!(relative(v["log_z"].as_f64().unwrap().exp(), 26_839_013.612_3) < 1e-10);
    assert!(relative(v["energy_per_spin"].as_f64().unwrap() * n, -28.0861) < 2e-6);
    assert!(relative(v["specific_heat_per_spin"].as_f64().unwrap() * n, 9.68852) < 1e-6);
    assert!(
        relative(
            v["abs_magnetization_per_spin"].as_f64().unwrap() * n,
            14.7031
        ) < 4e-6
    );
}

#[test]
fn enumeration_agrees_with_kaufman_on_4x4_and_5x5() {
    for side in [4, 5] {
        let network = Lattice::square(side).unwrap().to_network().unwrap();
        for t in [1.0, 2.0, 2.269, 3.5, 10.0] {
            let e = enumerate(&network, t).unwrap();
            let n = (side * side) as f64;
            // Both are exact; they differ by rounding only (Kaufman's docs: ~1e-14
            // relative in this range; the enumeration sums 2^25 terms in a stable order).
            assert!(relative(e.log_z, kaufman_log_z(side, side, t)) < 1e-12);
            assert!(relative(e.mean_energy / n, kaufman_energy_per_spin(side, side, t)) < 1e-10);
            let c = e.energy_variance / (t * t) / n;
            assert!(relative(c, kaufman_specific_heat_per_spin(side, side, t)) < 1e-9);
        }
        let by_cli = json(&[
            "exact",
            "--size",
            &side.to_string(),
            "--temperature",
            "2.5",
            "--json",
        ]);
        let kaufman = json(&[
            "exact",
            "--size",
            &side.to_string(),
            "--temperature",
            "2.5",
            "--kaufman",
            "--json",
        ]);
        for key in ["log_z", "energy_per_spin", "specific_heat_per_spin"] {
            let (a, b) = (
                by_cli[key].as_f64().unwrap(),
                kaufman[key].as_f64().unwrap(),
            );
            assert!(relative(a, b) < 1e-9, "{key}: {a} vs {b}");
        }
    }
}

#[test]
fn exact_enumerates_the_2x2_closed_form() {
    // Z = 4 cosh(8β) + 12 for the 2×2 periodic lattice (doubled bonds).
    for t in [0.5f64, 1.0, 2.0, 5.0] {
        let v = json(&[
            "exact",
            "--size",
            "2",
            "--temperature",
            &t.to_string(),
            "--json",
        ]);
        let z = 4.0 * (8.0 / t).cosh() + 12.0;
        assert!(relative(v["log_z"].as_f64().unwrap(), z.ln()) < 1e-13);
    }
}

#[test]
fn ising_reports_every_observable_as_mean_and_stderr() {
    let v = json(&[
        "ising",
        "--size",
        "16",
        "--temperature",
        "3.0",
        "--sweeps",
        "2000",
        "--burn-in",
        "200",
        "--order",
        "checkerboard",
        "--dynamics",
        "metropolis",
        "--json",
    ]);
    for key in [
        "energy_per_spin",
        "magnetization_per_spin",
        "abs_magnetization_per_spin",
        "specific_heat_per_spin",
        "susceptibility_per_spin",
    ] {
        let mean = v[key]["mean"].as_f64().unwrap();
        let stderr = v[key]["stderr"].as_f64().unwrap();
        assert!(
            mean.is_finite() && stderr.is_finite() && stderr >= 0.0,
            "{key}: {v}"
        );
    }
    assert_eq!(v["sweeps"], 2000);
    assert!(v["updates_per_second"].as_f64().unwrap() > 0.0);
    // The sampled energy agrees with Kaufman's exact 16×16 value within 5 standard errors.
    let e = &v["energy_per_spin"];
    let exact = kaufman_energy_per_spin(16, 16, 3.0);
    let deviation = (e["mean"].as_f64().unwrap() - exact) / e["stderr"].as_f64().unwrap();
    assert!(deviation.abs() < 5.0, "{deviation} σ");
}

#[test]
fn bad_input_gets_a_message_naming_the_option_and_exit_status_2() {
    for (args, expected) in [
        (
            vec!["ising", "--size", "0", "--temperature", "2"],
            "width must be between",
        ),
        (
            vec!["ising", "--size", "8", "--temperature", "nan"],
            "temperature",
        ),
        (
            vec!["ising", "--size", "8", "--temperature", "-1"],
            "temperature must be between 0",
        ),
        (vec!["ising", "--size", "8"], "--temperature is required"),
        (
            vec![
                "ising",
                "--size",
                "8",
                "--temperature",
                "2",
                "--order",
                "spiral",
            ],
            "--order must be one of",
        ),
        (
            vec![
                "ising",
                "--size",
                "8",
                "--temperature",
                "2",
                "--sweeps",
                "1.5",
            ],
            "--sweeps must be a whole number",
        ),
        (
            vec![
                "ising",
                "--size",
                "8",
                "--temperature",
                "2",
                "--dynamics",
                "wolff",
                "--field",
                "1",
            ],
            "zero field",
        ),
        (
            vec![
                "ising",
                "--size",
                "8",
                "--temperature",
                "2",
                "--colour",
                "red",
            ],
            "unknown option --colour",
        ),
        (
            vec!["exact", "--size", "6", "--temperature", "2"],
            "at most 30 spins",
        ),
        (
            vec![
                "exact",
                "--size",
                "4",
                "--temperature",
                "2",
                "--field",
                "1",
                "--kaufman",
            ],
            "--kaufman is exact",
        ),
        (vec!["teleport"], "unknown command"),
    ] {
        let (code, _, stderr) = boltzlab(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn the_cli_and_the_pages_sweep_measure_c_and_chi_alike() {
    // One accumulator and one Wolff calibration: for the same lattice, seed, dynamics,
    // burn-in and measurement, `boltzlab ising` at T reports exactly the first point of a
    // sweep that starts at T_high = T (to the last bit: JSON numbers round-trip).
    use boltzlab::app::{ScanPlan, TemperatureScan};
    use boltzlab::{Dynamics, LatticeSampler};
    for dynamics in ["heat-bath", "wolff"] {
        let (size, t, burn_in, measure, seed) = (8, 2.5, 50, 64, 3);
        let v = json(&[
            "ising",
            "--size",
            &size.to_string(),
            "--temperature",
            &t.to_string(),
            "--dynamics",
            dynamics,
            "--burn-in",
            &burn_in.to_string(),
            "--sweeps",
            &measure.to_string(),
            "--seed",
            &seed.to_string(),
            "--json",
        ]);
        let mut sampler = LatticeSampler::new(Lattice::square(size).unwrap(), t, seed).unwrap();
        sampler
            .set_dynamics(Dynamics::parse(dynamics).unwrap())
            .unwrap();
        let plan = ScanPlan::new(t, 1.5, 2, burn_in, measure).unwrap();
        let mut scan = TemperatureScan::new(plan, sampler);
        scan.advance(plan.sweeps_per_point());
        let r = scan.results();
        assert_eq!(r.len(), 1);
        let cli = |name: &str, key: &str| v[name][key].as_f64().unwrap();
        for (name, mean, stderr) in [
            ("energy_per_spin", r.energy[0], r.energy_error[0]),
            (
                "abs_magnetization_per_spin",
                r.abs_magnetization[0],
                r.abs_magnetization_error[0],
            ),
            (
                "specific_heat_per_spin",
                r.specific_heat[0],
                r.specific_heat_error[0],
            ),
            (
                "susceptibility_per_spin",
                r.susceptibility[0],
                r.susceptibility_error[0],
            ),
        ] {
            assert_eq!(cli(name, "mean"), mean, "{dynamics} {name}");
            assert_eq!(cli(name, "stderr"), stderr, "{dynamics} {name}");
        }
    }
}

#[test]
fn verbose_runs_say_solved_or_not_in_words() {
    // Three cycles cannot solve the 4-2-4 encoder: the line says so (not Rust's `None`).
    let (code, _, stderr) = boltzlab(&[
        "learn",
        "--problem",
        "4-2-4",
        "--runs",
        "1",
        "--max-cycles",
        "3",
        "--verbose",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("run 0 (seed 1): 3 cycles, not solved, "),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Some(") && !stderr.contains("None"),
        "{stderr}"
    );
}
