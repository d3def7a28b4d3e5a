//! ln Z four ways (src/estimate/log_z.rs) against exact enumeration: the exact route equals a
//! naive sum, AIS is within its error bar and its error bar is real, the sampled and
//! mean-field routes never exceed ln Z, and the `boltzlab logz` command reports the same
//! numbers.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use common::{TempDir, boltzlab, boltzlab_json as json};

use boltzlab::estimate::kl::KlEstimate;
use boltzlab::estimate::log_z::{
    Bound, Facts, LogZ, MAX_AIS_RUNS, MAX_AIS_STEPS, MAX_SAMPLED_STATES, MAX_SAMPLED_SWEEPS,
    ais_log_z, exact_log_z, mean_field_log_z, sampled_log_z,
};
use boltzlab::exact::enumeration::state_of_index;
use boltzlab::{Lattice, Network, ParamError, SpinKind};
use common::Z_ONE_IN_A_MILLION;

/// ln Σ_s e^{−E(s)/T} with every energy from the definition
/// E(s) = −Σ_{i<j} w_ij s_i s_j − Σ_i θ_i s_i, summed by a two-pass log-sum-exp.
fn naive_log_z(network: &Network, temperature: f64) -> f64 {
    let n = network.len();
    let exponents: Vec<f64> = (0..1u64 << n)
        .map(|index| {
            let s: Vec<f64> = state_of_index(network.kind(), n, index)
                .iter()
                .map(|&x| f64::from(x))
                .collect();
            let mut energy = 0.0;
            for i in 0..n {
                energy -= network.bias(i) * s[i];
                for j in i + 1..n {
                    energy -= network.weight(i, j) * s[i] * s[j];
                }
            }
            -energy / temperature
        })
        .collect();
    let max = exponents.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    max + exponents.iter().map(|x| (x - max).exp()).sum::<f64>().ln()
}

fn exact(network: &Network, temperature: f64) -> f64 {
    exact_log_z(network, temperature).unwrap().log_z
}

/// Rounding allowance for comparing two ways of summing the same ≤ 2^16 positive terms:
/// 10⁻¹² relative to ln Z (or absolute near ln Z = 0).
fn rounding(log_z: f64) -> f64 {
    1e-12 * log_z.abs().max(1.0)
}

/// The χ² quantiles with k degrees of freedom below and above which a draw falls with
/// probability 10⁻⁶ each, by Wilson–Hilferty (see tests/common).
fn chi_square_bounds(k: usize) -> (f64, f64) {
    let k = k as f64;
    let a = 2.0 / (9.0 * k);
    let quantile = |z: f64| k * (1.0 - a + z * a.sqrt()).powi(3);
    (quantile(-Z_ONE_IN_A_MILLION), quantile(Z_ONE_IN_A_MILLION))
}

#[test]
fn exact_log_z_equals_a_naive_sum_over_all_states() {
    for kind in SpinKind::ALL {
        for (n, seed) in [(1, 1), (2, 2), (5, 3), (8, 4), (12, 5)] {
            let network = Network::random(n, kind, 1.5, 0.8, seed).unwrap();
            for temperature in [0.3, 1.0, 2.5] {
                let result = exact_log_z(&network, temperature).unwrap();
                let naive = naive_log_z(&network, temperature);
                let relative = (result.log_z - naive).abs() / naive.abs().max(1e-300);
                assert!(
                    relative < 1e-12,
                    "{kind:?} n={n} T={temperature}: {} vs {naive}",
                    result.log_z
                );
                assert_eq!(result.bound, Bound::Exact);
                assert_eq!(result.facts, Facts::Exact { states: 1 << n });
                assert_eq!(result.stderr, None);
            }
        }
    }
}

/// AIS settings for 16 units: 200 runs of 1000 steps (3.2 million ticks per estimate).
const AIS_RUNS: u64 = 200;
const AIS_STEPS: u64 = 1000;

#[test]
fn ais_is_within_three_standard_errors_of_exact_on_16_unit_networks() {
    // Each comparison fails by chance with probability ≈ 0.27 % if ln Ẑ is normal with the
    // reported standard error; the seeds are fixed, so the outcome is too.
    for kind in SpinKind::ALL {
        for network_seed in [1, 2] {
            let network = Network::random(16, kind, 1.0, 0.5, network_seed).unwrap();
            for (k, temperature) in [0.5, 1.0, 2.0].into_iter().enumerate() {
                let truth = exact(&network, temperature);
                let ais =
                    ais_log_z(&network, temperature, AIS_RUNS, AIS_STEPS, 10 + k as u64).unwrap();
                let stderr = ais.stderr.unwrap();
                let deviation = (ais.log_z - truth) / stderr;
                let Facts::Ais { effective_runs, .. } = ais.facts else {
                    panic!("AIS facts");
                };
                println!(
                    "{kind:?} net {network_seed} T={temperature}: exact {truth:.6}, AIS {:.6} ± \
                     {stderr:.2e} ({deviation:+.2} stderr), effective runs {effective_runs:.0}",
                    ais.log_z
                );
                assert!(deviation.abs() < 3.0, "{deviation} standard errors");
                assert_eq!(ais.bound, Bound::None);
            }
        }
    }
}

#[test]
fn ais_standard_error_agrees_with_the_spread_of_independent_estimates() {
    // R estimates with different seeds. If the reported standard error σ is the true
    // standard deviation of ln Ẑ (and ln Ẑ is near normal), then (R − 1) s² / σ̄² ~ χ²_{R−1}
    // for the sample variance s² of the estimates (σ̄² = mean reported σ², itself averaged
    // over R estimates of M runs, so nearly exact), and Σ_r ((ln Ẑ_r − ln Z)/σ_r)² ~ χ²_R.
    // Both must fall between the 10⁻⁶ and 1 − 10⁻⁶ quantiles: a standard error off by a
    // factor of 1.5 either way fails.
    const R: usize = 100;
    for (kind, temperature) in [(SpinKind::Ising, 1.0), (SpinKind::Binary, 0.5)] {
        let network = Network::random(16, kind, 1.0, 0.5, 7).unwrap();
        let truth = exact(&network, temperature);
        let estimates: Vec<LogZ> = (0..R as u64)
            .map(|seed| ais_log_z(&network, temperature, 50, 200, 1000 + seed).unwrap())
            .collect();
        let values: Vec<f64> = estimates.iter().map(|e| e.log_z).collect();
        let stderrs: Vec<f64> = estimates.iter().map(|e| e.stderr.unwrap()).collect();
        let mean = values.iter().sum::<f64>() / R as f64;
        let spread = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (R - 1) as f64;
        let reported = stderrs.iter().map(|s| s * s).sum::<f64>() / R as f64;
        let z_squares: f64 = values
            .iter()
            .zip(&stderrs)
            .map(|(v, s)| ((v - truth) / s).powi(2))
            .sum();
        println!(
            "{kind:?} T={temperature}: observed sd {:.4}, mean reported stderr {:.4} (ratio \
             {:.3}); Σz² = {z_squares:.1} for {R} estimates",
            spread.sqrt(),
            reported.sqrt(),
            (spread / reported).sqrt()
        );
        let (low, high) = chi_square_bounds(R - 1);
        let statistic = (R - 1) as f64 * spread / reported;
        assert!(
            (low..high).contains(&statistic),
            "(R − 1) s²/σ̄² = {statistic}, allowed {low}..{high}"
        );
        let (low, high) = chi_square_bounds(R);
        assert!(
            (low..high).contains(&z_squares),
            "Σz² = {z_squares}, allowed {low}..{high}"
        );
    }
}

#[test]
fn ais_agrees_with_the_exact_4x4_periodic_lattice_at_t_2() {
    // docs/references.md §1: Z = 26839013.6123 by full enumeration (12 significant digits, so
    // ln Z to ±2·10⁻¹²).
    let network = Lattice::square(4).unwrap().to_network().unwrap();
    let published = 26_839_013.612_3f64.ln();
    let truth = exact(&network, 2.0);
    assert!((truth - published).abs() < 1e-11, "{truth} vs {published}");
    let ais = ais_log_z(&network, 2.0, AIS_RUNS, AIS_STEPS, 3).unwrap();
    let deviation = (ais.log_z - truth) / ais.stderr.unwrap();
    println!(
        "4×4 at T = 2: exact {truth:.8}, AIS {:.8} ± {:.2e} ({deviation:+.2} stderr)",
        ais.log_z,
        ais.stderr.unwrap()
    );
    assert!(deviation.abs() < 3.0, "{deviation} standard errors");
}

#[test]
fn sampled_log_z_never_exceeds_exact() {
    // Every term of the sampled sum is a term of Z, whatever the network, temperature,
    // seed or number of sweeps.
    let mut cases = 0;
    for kind in SpinKind::ALL {
        for n in [3, 6, 9, 12] {
            for network_seed in 0..4 {
                let network = Network::random(n, kind, 1.5, 1.0, network_seed).unwrap();
                for temperature in [0.2, 1.0, 5.0] {
                    let truth = exact(&network, temperature);
                    for (seed, sweeps) in [(1, 1), (2, 10), (3, 300)] {
                        let sampled = sampled_log_z(&network, temperature, sweeps, seed).unwrap();
                        assert!(
                            sampled.log_z <= truth + rounding(truth),
                            "{kind:?} n={n} T={temperature}: {} > {truth}",
                            sampled.log_z
                        );
                        assert_eq!(sampled.bound, Bound::Lower);
                        cases += 1;
                    }
                }
            }
        }
    }
    assert_eq!(cases, 288);
}

#[test]
fn sampled_log_z_grows_with_sweeps_and_reaches_exact_on_10_units() {
    // The same seed gives the same trajectory, so more sweeps visit a superset of the
    // states: the bound can only rise. The gap is ln Z − sampled = −ln(1 − missed mass).
    // Counting one independent draw per sweep (conservative for these weakly coupled
    // networks at T = 1, where a sweep decorrelates the state), N draws miss an expected
    // mass Σ_s P(s)(1 − P(s))^N ≤ Σ_s P(s) e^{−N P(s)} ≤ 2^n / (e N), since x e^{−Nx} ≤
    // 1/(eN): at n = 10 and N = 10⁵, 3.8·10⁻³.
    for kind in SpinKind::ALL {
        let network = Network::random(10, kind, 1.0, 0.5, 4).unwrap();
        let truth = exact(&network, 1.0);
        let mut previous = f64::NEG_INFINITY;
        for sweeps in [1, 10, 100, 1000, 10_000, 100_000] {
            let sampled = sampled_log_z(&network, 1.0, sweeps, 9).unwrap();
            let Facts::Sampled {
                distinct_states,
                state_fraction,
                ticks,
                capped,
                ..
            } = sampled.facts
            else {
                panic!("sampled facts");
            };
            println!(
                "{kind:?} {sweeps} sweeps: gap {:.3e}, {distinct_states} states ({:.3} of 2^10)",
                truth - sampled.log_z,
                state_fraction.unwrap()
            );
            assert_eq!(ticks, sweeps * 10);
            assert!(!capped);
            assert_eq!(state_fraction, Some(distinct_states as f64 / 1024.0));
            assert!(sampled.log_z >= previous - rounding(truth));
            previous = sampled.log_z;
        }
        let missed = 1024.0 / (std::f64::consts::E * 1e5);
        let allowed = -(1.0 - missed).ln();
        assert!(
            truth - previous < allowed,
            "gap {} > {allowed}",
            truth - previous
        );
    }
}

#[test]
fn sampled_log_z_stops_at_the_cap_on_distinct_states_and_says_so() {
    // At T = 50 the heat-bath rule on 24 weakly coupled units is nearly a fair coin: about
    // every other tick changes a unit, almost always into a state not seen before (there
    // are 2^24), so 10⁵ sweeps (2.4·10⁶ ticks) would find more than the 2^20 states the set
    // may hold. (The gap is then near ln(2^24/2^20) = ln 16: the weights are nearly equal.)
    let network = Network::random(24, SpinKind::Ising, 0.1, 0.1, 1).unwrap();
    let sampled = sampled_log_z(&network, 50.0, 100_000, 1).unwrap();
    let Facts::Sampled {
        sweeps,
        ticks,
        distinct_states,
        capped,
        ..
    } = sampled.facts
    else {
        panic!("sampled facts");
    };
    assert!(capped);
    assert_eq!(distinct_states, MAX_SAMPLED_STATES as u64);
    assert!(sweeps < 100_000 && ticks < 2_400_000 && ticks >= sweeps * 24);
    let truth = exact(&network, 50.0);
    println!(
        "capped after {sweeps} sweeps: gap {:.3} (2^20 of 2^24 states)",
        truth - sampled.log_z
    );
    assert!(sampled.log_z <= truth + rounding(truth));
}

#[test]
fn mean_field_log_z_is_at_most_exact_on_random_networks_and_the_sk_model() {
    // Gibbs–Bogoliubov: ln Z ≥ −F(q)/T for every product distribution q. Only the theorem
    // is asserted; how far below ln Z mean field lands is printed, not judged.
    let mut networks: Vec<(String, Network)> = Vec::new();
    for kind in SpinKind::ALL {
        for seed in 0..3 {
            networks.push((
                format!("random {kind:?} {seed}"),
                Network::random(12, kind, 1.0, 0.5, seed).unwrap(),
            ));
        }
    }
    for seed in 0..3 {
        networks.push((
            format!("SK {seed}"),
            Network::sherrington_kirkpatrick(14, seed).unwrap(),
        ));
    }
    for (label, network) in &networks {
        for temperature in [0.3, 0.7, 1.5, 3.0] {
            let truth = exact(network, temperature);
            let mf = mean_field_log_z(network, temperature).unwrap();
            let Facts::MeanField {
                converged,
                annealed,
                ..
            } = mf.facts
            else {
                panic!("mean-field facts");
            };
            println!(
                "{label} T={temperature}: exact {truth:.5}, mean field {:.5}, error {:.3e} \
                 (converged {converged}, annealed {annealed})",
                mf.log_z,
                mf.log_z - truth
            );
            assert!(
                mf.log_z <= truth + rounding(truth),
                "{label} T={temperature}"
            );
            assert_eq!(mf.bound, Bound::Lower);
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_estimate_and_another_seed_another() {
    let network = Network::random(12, SpinKind::Binary, 1.0, 0.5, 2).unwrap();
    let strip = |mut r: LogZ| {
        r.seconds = None;
        r
    };
    let a = strip(ais_log_z(&network, 1.0, 10, 50, 5).unwrap());
    assert_eq!(a, strip(ais_log_z(&network, 1.0, 10, 50, 5).unwrap()));
    assert_ne!(a.log_z, ais_log_z(&network, 1.0, 10, 50, 6).unwrap().log_z);
    let s = strip(sampled_log_z(&network, 0.5, 20, 5).unwrap());
    assert_eq!(s, strip(sampled_log_z(&network, 0.5, 20, 5).unwrap()));
}

#[test]
fn bad_input_gets_typed_errors_naming_the_field() {
    let network = Network::random(8, SpinKind::Ising, 1.0, 0.5, 1).unwrap();
    for temperature in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let results = [
            exact_log_z(&network, temperature),
            sampled_log_z(&network, temperature, 10, 1),
            mean_field_log_z(&network, temperature),
            ais_log_z(&network, temperature, 10, 10, 1),
        ];
        for result in results {
            let err = result.unwrap_err();
            assert!(
                matches!(
                    err,
                    ParamError::NotFinite {
                        field: "temperature",
                        ..
                    } | ParamError::Invalid {
                        field: "temperature",
                        ..
                    }
                ),
                "T = {temperature}: {err:?}"
            );
            assert!(err.to_string().starts_with("temperature"), "{err}");
        }
    }
    // A subnormal T (found by tests/robustness.rs): 1/T overflows an f64, so AIS refuses
    // its schedule, in ln Z and in the KL estimate alike, with a typed error, not a panic.
    let subnormal = 1.4e-309;
    let patterns = vec![vec![0u8; network.visible()]];
    for err in [
        ais_log_z(&network, subnormal, 10, 10, 1).unwrap_err(),
        KlEstimate::new(&network, subnormal, &patterns, 2, 1, 0).unwrap_err(),
    ] {
        assert!(
            matches!(
                err,
                ParamError::Invalid {
                    field: "temperature",
                    ..
                }
            ),
            "{err:?}"
        );
    }
    let out_of_range = |result: Result<LogZ, ParamError>, name: &str| match result {
        Err(ParamError::OutOfRange { field, .. }) => assert_eq!(field, name),
        other => panic!("{name}: {other:?}"),
    };
    out_of_range(ais_log_z(&network, 1.0, 1, 10, 1), "runs");
    out_of_range(ais_log_z(&network, 1.0, 0, 10, 1), "runs");
    out_of_range(ais_log_z(&network, 1.0, MAX_AIS_RUNS + 1, 10, 1), "runs");
    out_of_range(ais_log_z(&network, 1.0, 10, 0, 1), "steps");
    out_of_range(ais_log_z(&network, 1.0, 10, MAX_AIS_STEPS + 1, 1), "steps");
    out_of_range(sampled_log_z(&network, 1.0, 0, 1), "sweeps");
    out_of_range(
        sampled_log_z(&network, 1.0, MAX_SAMPLED_SWEEPS + 1, 1),
        "sweeps",
    );
    // Within each limit, but 10⁶ × 10⁶ sweeps of 8 units is beyond the work bound 2^40.
    let err = ais_log_z(&network, 1.0, MAX_AIS_RUNS, MAX_AIS_STEPS, 1).unwrap_err();
    assert!(err.to_string().starts_with("runs × steps"), "{err}");
    // A 2048-unit network may sweep at most 2^40 / 2048² = 262144 times.
    let big = Network::zeros(SpinKind::Ising, 2048).unwrap();
    out_of_range(sampled_log_z(&big, 1.0, 262_145, 1), "sweeps");
    let wide = Network::random(31, SpinKind::Binary, 1.0, 1.0, 1).unwrap();
    match exact_log_z(&wide, 1.0) {
        Err(ParamError::Invalid { field, reason }) => {
            assert_eq!(field, "units");
            assert!(reason.contains("30"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // Weights of 10⁶ at T = 10⁻³⁰⁵ overflow an f64: refused, not reported as ∞ or NaN.
    let strong = Network::random(4, SpinKind::Ising, 1e6, 1e6, 1).unwrap();
    let err = exact_log_z(&strong, 1e-305).unwrap_err();
    assert!(err.to_string().starts_with("temperature"), "{err}");
}

// ---------------------------------------------------------------------------------------
// The command line.
// ---------------------------------------------------------------------------------------

#[test]
fn cli_logz_exact_equals_the_library_value() {
    let network = Network::random(12, SpinKind::Binary, 1.0, 0.5, 3).unwrap();
    let dir = TempDir::new("exact");
    let file = dir.write("exact.json", network.to_json().as_bytes());
    let file = file.to_str().unwrap();
    let v = json(&[
        "logz",
        "--network",
        file,
        "--temperature",
        "0.7",
        "--method",
        "exact",
        "--json",
    ]);
    // The file holds every weight to the last bit, so the two are the same computation.
    assert_eq!(v["log_z"].as_f64().unwrap(), exact(&network, 0.7));
    assert_eq!(v["method"], "exact");
    assert_eq!(v["bound"], "exact");
    assert_eq!(v["states"], 4096);
    let (code, text, stderr) = boltzlab(&[
        "logz",
        "--network",
        file,
        "--temperature",
        "0.7",
        "--method",
        "exact",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("log z") && text.contains("exact"), "{text}");
}

#[test]
fn cli_logz_json_reports_log_z_for_every_method() {
    let network = Network::random(10, SpinKind::Ising, 1.0, 0.5, 8).unwrap();
    let dir = TempDir::new("methods");
    let file = dir.write("methods.json", network.to_json().as_bytes());
    let file = file.to_str().unwrap();
    let truth = exact(&network, 1.0);
    let run = |extra: &[&str]| {
        let mut args = vec!["logz", "--network", file, "--temperature", "1", "--json"];
        args.extend_from_slice(extra);
        json(&args)
    };
    let ais = run(&["--method", "ais", "--runs", "50", "--steps", "200"]);
    let stderr = ais["stderr"].as_f64().unwrap();
    assert!(((ais["log_z"].as_f64().unwrap() - truth) / stderr).abs() < 3.0);
    assert_eq!(
        (ais["runs"].as_u64(), ais["steps"].as_u64()),
        (Some(50), Some(200))
    );
    assert!(ais["seconds"].as_f64().unwrap() >= 0.0);
    let mf = run(&["--method", "mean-field"]);
    assert!(mf["log_z"].as_f64().unwrap() <= truth + rounding(truth));
    assert!(mf["converged"].is_boolean() && mf.get("stderr").is_none());
    let sampled = run(&["--method", "sampled", "--sweeps", "100", "--seed", "4"]);
    assert!(sampled["log_z"].as_f64().unwrap() <= truth + rounding(truth));
    assert_eq!(sampled["bound"], "lower");
    assert!(sampled["distinct_states"].as_u64().unwrap() >= 1);
    let exact = run(&["--method", "exact"]);
    assert_eq!(exact["log_z"].as_f64().unwrap(), truth);
}

#[test]
fn cli_logz_refuses_missing_or_malformed_files_and_unknown_methods_with_status_2() {
    let dir = TempDir::new("refused");
    let good = dir.write(
        "good.json",
        Network::sherrington_kirkpatrick(5, 1)
            .unwrap()
            .to_json()
            .as_bytes(),
    );
    let good = good.to_str().unwrap();
    let malformed = dir.write(
        "malformed.json",
        br#"{"units": 2, "spin": "ising", "weights": [[0"#,
    );
    let malformed = malformed.to_str().unwrap();
    let missing = dir.join("absent.json");
    let missing = missing.to_str().unwrap();
    let cases: [(&[&str], &str); 7] = [
        (
            &[
                "--network",
                missing,
                "--temperature",
                "1",
                "--method",
                "exact",
            ],
            "absent.json",
        ),
        (
            &[
                "--network",
                malformed,
                "--temperature",
                "1",
                "--method",
                "exact",
            ],
            "malformed.json",
        ),
        (
            &["--network", good, "--temperature", "1", "--method", "magic"],
            "--method",
        ),
        (&["--network", good, "--temperature", "1"], "--method"),
        (
            &["--network", good, "--temperature", "0", "--method", "ais"],
            "--temperature",
        ),
        (
            &[
                "--network",
                good,
                "--temperature",
                "1",
                "--method",
                "ais",
                "--runs",
                "1",
            ],
            "--runs",
        ),
        (
            &[
                "--network",
                good,
                "--temperature",
                "1",
                "--method",
                "exact",
                "--sweeps",
                "10",
            ],
            "--sweeps",
        ),
    ];
    for (args, named) in cases {
        let mut full = vec!["logz"];
        full.extend_from_slice(args);
        let (code, stdout, stderr) = boltzlab(&full);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert!(stderr.contains(named), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
}
