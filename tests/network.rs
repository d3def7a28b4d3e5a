//! The network engine's laws: the samplers draw the Boltzmann distribution, clamps hold,
//! zero temperature descends, the bookkeeping is exact, the two conventions agree, the
//! generators have the stated statistics, and bad input is refused by name.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

use boltzlab::dynamics::rules::Rule;
use boltzlab::exact::enumeration::{
    MAX_ENUMERATION_UNITS, enumerate, exact_correlations, index_of_state, state_of_index,
    state_probabilities,
};
use boltzlab::{Correlations, Network, NetworkOrder, NetworkSampler, ParamError, SpinKind};

mod common;

use common::{Visits, chi_square_threshold, noncentrality, pearson_chi_square};

/// The exact distribution after `sweeps` sweeps from the uniform distribution, by the
/// rule's single-unit kernels (see `common::distribution_after_burn_in`).
fn distribution_after_burn_in(
    network: &Network,
    temperature: f64,
    rule: Rule,
    order: NetworkOrder,
    sweeps: usize,
) -> Vec<f64> {
    let n = network.len();
    let kind = network.kind();
    let visits = match order {
        NetworkOrder::Sequential => Visits::Fixed((0..n).collect()),
        NetworkOrder::Random => Visits::Random,
    };
    let p_high = |index: usize, unit: usize| {
        let state = state_of_index(kind, n, index as u64);
        let is_high = state[unit] == kind.high();
        let gap = kind.span() * network.local_field(&state, unit);
        rule.probability_high(is_high, gap, temperature)
    };
    common::distribution_after_burn_in(n, &visits, p_high, sweeps)
}

/// The networks of the distribution tests: 6 dense units at T = 1, weights and biases
/// drawn uniformly (binary units get larger weights, as their gaps are h rather than 2h).
fn test_network(kind: SpinKind) -> Network {
    match kind {
        SpinKind::Ising => Network::random(6, kind, 0.8, 0.5, 2024).unwrap(),
        SpinKind::Binary => Network::random(6, kind, 2.0, 1.5, 1985).unwrap(),
    }
}

const SAMPLES: u64 = 100_000;
const BURN_IN_SWEEPS: usize = 40;

/// Draws SAMPLES independent states (each from a fresh uniformly random state after
/// BURN_IN_SWEEPS sweeps), compares their histogram with the exact Boltzmann distribution
/// by Pearson's χ² at p = 10⁻⁶, and checks the test's power on the distribution at a 5 %
/// higher temperature.
fn sampled_distribution_matches_boltzmann(rule: Rule, order: NetworkOrder) {
    let temperature = 1.0;
    for kind in SpinKind::ALL {
        let network = test_network(kind);
        let exact = state_probabilities(&network, temperature).unwrap();
        // Independence and burn-in: every sample restarts from fresh random units, so
        // samples share nothing but the random stream. The exact law after the burn-in
        // differs from the Boltzmann law by δ; the χ² statistic then has mean
        // df + N Σ δ²/p, and the second term must be negligible.
        let after = distribution_after_burn_in(&network, temperature, rule, order, BURN_IN_SWEEPS);
        let noncentrality = noncentrality(SAMPLES, &after, &exact);
        assert!(
            noncentrality < 0.01,
            "{kind:?} {rule:?} {order:?}: burn-in too short, N Σ δ²/p = {noncentrality}"
        );
        let mut sampler =
            NetworkSampler::new(network.clone(), temperature, rule, order, 77).unwrap();
        let mut counts = vec![0u64; exact.len()];
        for _ in 0..SAMPLES {
            sampler.randomize_free_units();
            for _ in 0..BURN_IN_SWEEPS {
                sampler.sweep();
            }
            counts[index_of_state(kind, sampler.state()) as usize] += 1;
        }
        let (chi2, df) = pearson_chi_square(&counts, &exact);
        let threshold = chi_square_threshold(df);
        let warmer = state_probabilities(&network, 1.05 * temperature).unwrap();
        let (chi2_warmer, df_warmer) = pearson_chi_square(&counts, &warmer);
        eprintln!(
            "{kind:?} {rule:?} {order:?}: χ² = {chi2:.1} (df {df}, threshold {threshold:.1}); \
             against T = 1.05: χ² = {chi2_warmer:.1} (threshold {:.1}); N Σ δ²/p = {noncentrality:.1e}",
            chi_square_threshold(df_warmer)
        );
        assert!(
            chi2 < threshold,
            "{kind:?} {rule:?} {order:?}: χ² = {chi2} ≥ {threshold}"
        );
        assert!(
            chi2_warmer > chi_square_threshold(df_warmer),
            "{kind:?} {rule:?} {order:?}: the test cannot tell T from 1.05 T"
        );
    }
}

#[test]
fn heat_bath_sequential_samples_the_boltzmann_distribution_of_6_units() {
    sampled_distribution_matches_boltzmann(Rule::HeatBath, NetworkOrder::Sequential);
}

#[test]
fn heat_bath_random_order_samples_the_boltzmann_distribution_of_6_units() {
    sampled_distribution_matches_boltzmann(Rule::HeatBath, NetworkOrder::Random);
}

#[test]
fn metropolis_sequential_samples_the_boltzmann_distribution_of_6_units() {
    sampled_distribution_matches_boltzmann(Rule::Metropolis, NetworkOrder::Sequential);
}

#[test]
fn metropolis_random_order_samples_the_boltzmann_distribution_of_6_units() {
    sampled_distribution_matches_boltzmann(Rule::Metropolis, NetworkOrder::Random);
}

#[test]
fn sampled_correlations_match_exact_correlations_within_five_standard_errors() {
    // Independent samples as above; each ⟨s_i⟩ and ⟨s_i s_j⟩ is a mean of N independent
    // values x with exact variance ⟨x²⟩ − ⟨x⟩², so its standard error is √(var/N).
    let samples = 40_000;
    for kind in SpinKind::ALL {
        let network = Network::random(8, kind, 1.0, 1.0, 31).unwrap();
        let exact = exact_correlations(&network, 1.5).unwrap();
        let mut sampler =
            NetworkSampler::new(network, 1.5, Rule::HeatBath, NetworkOrder::Random, 5).unwrap();
        let mut statistics = Correlations::new(8);
        for _ in 0..samples {
            sampler.randomize_free_units();
            for _ in 0..BURN_IN_SWEEPS {
                sampler.sweep();
            }
            statistics.add(sampler.state());
        }
        assert_eq!(statistics.count(), samples);
        // For ±1 values x² = 1; for 0/1 values x² = x.
        let variance = |mean: f64| match kind {
            SpinKind::Ising => 1.0 - mean * mean,
            SpinKind::Binary => mean - mean * mean,
        };
        let compare = |sampled: f64, exact: f64| {
            let stderr = (variance(exact) / samples as f64).sqrt();
            assert!(
                (sampled - exact).abs() < 5.0 * stderr,
                "{kind:?}: {sampled} vs {exact} ± {stderr}"
            );
        };
        for (sampled, exact) in statistics.means().into_iter().zip(&exact.means) {
            compare(sampled, *exact);
        }
        for (sampled, exact) in statistics.pair_means().into_iter().zip(&exact.pairs) {
            compare(sampled, *exact);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Laws without statistics
// ---------------------------------------------------------------------------------------

const TEMPERATURES: [f64; 4] = [0.0, 0.7, 3.0, f64::INFINITY];

#[test]
fn clamped_units_never_move_under_any_rule_order_or_temperature() {
    for kind in SpinKind::ALL {
        let network = Network::random(10, kind, 1.0, 1.0, 4).unwrap();
        let clamped = [1, 4, 9];
        let values = [kind.high(), kind.low(), kind.high()];
        for rule in Rule::ALL {
            for order in NetworkOrder::ALL {
                for temperature in TEMPERATURES {
                    let mut sampler =
                        NetworkSampler::new(network.clone(), temperature, rule, order, 6).unwrap();
                    sampler.clamp(&clamped, &values).unwrap();
                    let mut moved_free_units = false;
                    for tick in 0..20_000 {
                        let before = sampler.state().to_vec();
                        if tick % 1000 == 0 {
                            sampler.randomize_free_units();
                        }
                        sampler.tick();
                        for (&i, &v) in clamped.iter().zip(&values) {
                            assert_eq!(sampler.state()[i], v, "{rule:?} {order:?} T={temperature}");
                        }
                        moved_free_units |= before != sampler.state();
                    }
                    assert!(moved_free_units);
                    sampler.release_all();
                    assert_eq!(sampler.free_units().len(), 10);
                }
            }
        }
    }
}

#[test]
fn clamping_the_visible_units_holds_them_and_sweeps_visit_only_free_units() {
    let network = Network::random(7, SpinKind::Binary, 1.0, 1.0, 8)
        .unwrap()
        .with_visible(4)
        .unwrap();
    let mut sampler = NetworkSampler::new(
        network,
        f64::INFINITY,
        Rule::Metropolis,
        NetworkOrder::Sequential,
        2,
    )
    .unwrap();
    sampler.clamp_visible(&[1, 0, 0, 1]).unwrap();
    let hidden = sampler.state()[4..].to_vec();
    sampler.sweep();
    assert_eq!(sampler.ticks(), 3);
    for _ in 0..1000 {
        sampler.sweep();
        assert_eq!(sampler.visible_state(), &[1, 0, 0, 1]);
    }
    // Metropolis at T = ∞ always flips, and a sweep visits each of the 3 hidden units
    // once: after 1001 sweeps every hidden unit is the opposite of where it started.
    assert_eq!(sampler.ticks(), 3 * 1001);
    let flipped: Vec<i8> = hidden.iter().map(|&s| 1 - s).collect();
    assert_eq!(&sampler.state()[4..], &flipped[..]);
}

#[test]
fn zero_temperature_never_raises_the_energy() {
    for kind in SpinKind::ALL {
        let network = Network::random(30, kind, 1.0, 1.0, 12).unwrap();
        for rule in Rule::ALL {
            for order in NetworkOrder::ALL {
                let mut sampler =
                    NetworkSampler::new(network.clone(), 0.0, rule, order, 3).unwrap();
                let mut last = sampler.energy();
                let mut last_recomputed = sampler.recomputed_energy();
                for _ in 0..30_000 {
                    sampler.tick();
                    assert!(sampler.energy() <= last, "{kind:?} {rule:?} {order:?}");
                    let recomputed = sampler.recomputed_energy();
                    assert!(recomputed <= last_recomputed + 1e-12);
                    last = sampler.energy();
                    last_recomputed = recomputed;
                }
            }
        }
    }
}

#[test]
fn incremental_energy_equals_recomputation_after_many_ticks() {
    for kind in SpinKind::ALL {
        let network = Network::random(50, kind, 2.0, 1.0, 13).unwrap();
        // Rounding in each ΔE is at most ~ε·|E|-sized; 10⁻⁹ of the largest possible |E|
        // allows 10⁷ ticks of drift.
        let scale: f64 = network.weights().iter().map(|w| w.abs()).sum::<f64>() / 2.0
            + network.biases().iter().map(|b| b.abs()).sum::<f64>();
        for rule in Rule::ALL {
            for order in NetworkOrder::ALL {
                let mut sampler =
                    NetworkSampler::new(network.clone(), 1.0, rule, order, 9).unwrap();
                for _ in 0..20 {
                    sampler.run(9_973);
                    let drift = (sampler.energy() - sampler.recomputed_energy()).abs();
                    assert!(drift < 1e-9 * scale, "{kind:?} {rule:?} {order:?}: {drift}");
                }
                assert_eq!(sampler.ticks(), 20 * 9_973);
            }
        }
    }
}

#[test]
fn the_two_conventions_give_identical_exact_distributions() {
    for kind in SpinKind::ALL {
        let network = Network::random(10, kind, 1.5, 1.0, 17).unwrap();
        let other = match kind {
            SpinKind::Ising => SpinKind::Binary,
            SpinKind::Binary => SpinKind::Ising,
        };
        let (mapped, offset) = network.to_kind(other);
        // Every state's energy differs by the same constant…
        for index in 0..1u64 << 10 {
            let e = network.energy(&state_of_index(kind, 10, index));
            let e_mapped = mapped.energy(&state_of_index(other, 10, index));
            assert!((e - e_mapped - offset).abs() < 1e-12);
        }
        // …so the distributions are identical and ln Z shifts by −C/T.
        for temperature in [0.5, 1.0, 4.0] {
            let p = state_probabilities(&network, temperature).unwrap();
            let q = state_probabilities(&mapped, temperature).unwrap();
            for (a, b) in p.iter().zip(&q) {
                assert!((a - b).abs() <= 1e-12 * a.max(*b), "{a} vs {b}");
            }
            let log_z = enumerate(&network, temperature).unwrap().log_z;
            let log_z_mapped = enumerate(&mapped, temperature).unwrap().log_z;
            assert!((log_z - (log_z_mapped - offset / temperature)).abs() < 1e-12 * log_z.abs());
        }
    }
}

#[test]
fn enumeration_reproduces_the_4x4_periodic_ising_lattice_at_t_2() {
    // docs/references.md §1: Z = 26839013.6123, ⟨E⟩ = −28.0861, C = 9.68852, ⟨|M|⟩ = 14.7031.
    let network = periodic_lattice(4, 4);
    let exact = enumerate(&network, 2.0).unwrap();
    assert!((exact.log_z.exp() / 26_839_013.612_3 - 1.0).abs() < 1e-10);
    assert!((exact.mean_energy + 28.0861).abs() < 1e-4);
    assert!((exact.energy_variance / 4.0 - 9.68852).abs() < 1e-5);
    assert!((exact.mean_abs_magnetization - 14.7031).abs() < 1e-4);
}

#[test]
fn enumeration_reproduces_the_2x2_periodic_lattice_closed_form() {
    // Doubled bonds: each neighbour pair of the 2×2 torus carries weight 2.
    // Z = 4 cosh(8β) + 12, ⟨E⟩ = −32 sinh(8β)/Z, ⟨|M|⟩ = 8(e^{8β} + 2)/Z.
    let network = periodic_lattice(2, 2);
    for temperature in [0.8, 2.269, 5.0] {
        let beta: f64 = 1.0 / temperature;
        let z = 4.0 * (8.0 * beta).cosh() + 12.0;
        let exact = enumerate(&network, temperature).unwrap();
        assert!((exact.log_z - z.ln()).abs() < 1e-13);
        assert!((exact.mean_energy + 32.0 * (8.0 * beta).sinh() / z).abs() < 1e-12);
        assert!(
            (exact.mean_abs_magnetization - 8.0 * ((8.0 * beta).exp() + 2.0) / z).abs() < 1e-12
        );
    }
}

/// The W×H periodic ferromagnet (J = 1) as a network: w_ij = number of bonds joining
/// sites i and j (2 for the doubled bonds of a side of length 2).
fn periodic_lattice(width: usize, height: usize) -> Network {
    let n = width * height;
    let mut weights = vec![0.0; n * n];
    for y in 0..height {
        for x in 0..width {
            let i = x + width * y;
            for j in [(x + 1) % width + width * y, x + width * ((y + 1) % height)] {
                weights[i * n + j] += 1.0;
                weights[j * n + i] += 1.0;
            }
        }
    }
    Network::new(SpinKind::Ising, weights, vec![0.0; n]).unwrap()
}

#[test]
fn sherrington_kirkpatrick_weights_have_mean_zero_and_variance_one_over_n() {
    let n = 400;
    let network = Network::sherrington_kirkpatrick(n, 2).unwrap();
    assert_eq!(network.kind(), SpinKind::Ising);
    assert!(network.biases().iter().all(|&b| b == 0.0));
    let pairs = (n * (n - 1) / 2) as f64;
    let (mut sum, mut sum_sq, mut sum_4) = (0.0, 0.0, 0.0);
    for i in 0..n {
        assert_eq!(network.weight(i, i), 0.0);
        for j in i + 1..n {
            let w = network.weight(i, j);
            assert_eq!(w, network.weight(j, i));
            sum += w;
            sum_sq += w * w;
            sum_4 += w.powi(4);
        }
    }
    // With σ² = 1/n and M pairs: the mean has standard error σ/√M, the mean square
    // √(2/M)·σ², the mean fourth power (3σ⁴ for a Gaussian) √(96/M)·σ⁴.
    let sigma2 = 1.0 / n as f64;
    let mean = sum / pairs;
    let mean_square = sum_sq / pairs;
    let mean_fourth = sum_4 / pairs;
    assert!(mean.abs() < 4.0 * (sigma2 / pairs).sqrt(), "{mean}");
    assert!(
        (mean_square - sigma2).abs() < 4.0 * (2.0 / pairs).sqrt() * sigma2,
        "{mean_square}"
    );
    assert!(
        (mean_fourth - 3.0 * sigma2 * sigma2).abs() < 4.0 * (96.0 / pairs).sqrt() * sigma2 * sigma2,
        "{mean_fourth}"
    );
}

#[test]
fn a_seed_fixes_the_trajectory() {
    let run = |seed, order| {
        let network = Network::sherrington_kirkpatrick(64, 1).unwrap();
        let mut sampler = NetworkSampler::new(network, 0.8, Rule::Metropolis, order, seed).unwrap();
        sampler.clamp(&[5], &[1]).unwrap();
        let mut trajectory = Vec::new();
        for _ in 0..200 {
            sampler.run(97);
            trajectory.push((
                index_of_state(SpinKind::Ising, &sampler.state()[..64]),
                sampler.energy().to_bits(),
            ));
        }
        trajectory
    };
    for order in NetworkOrder::ALL {
        assert_eq!(run(3, order), run(3, order));
        assert_ne!(run(3, order), run(4, order));
    }
    assert_eq!(
        Network::sherrington_kirkpatrick(50, 9).unwrap(),
        Network::sherrington_kirkpatrick(50, 9).unwrap()
    );
    assert_ne!(
        Network::sherrington_kirkpatrick(50, 9).unwrap(),
        Network::sherrington_kirkpatrick(50, 10).unwrap()
    );
}

// ---------------------------------------------------------------------------------------
// Bad parameters
// ---------------------------------------------------------------------------------------

/// Asserts that the error's message starts with the field's name.
fn names(err: ParamError, field: &str) {
    assert!(
        err.to_string().starts_with(field),
        "expected '{field}…', got '{err}'"
    );
}

#[test]
fn bad_temperatures_are_refused_and_leave_the_sampler_unchanged() {
    let network = Network::random(5, SpinKind::Ising, 1.0, 1.0, 1).unwrap();
    for bad in [f64::NAN, -1.0, f64::NEG_INFINITY] {
        let err = NetworkSampler::new(
            network.clone(),
            bad,
            Rule::HeatBath,
            NetworkOrder::Sequential,
            1,
        )
        .unwrap_err();
        names(err, "temperature");
    }
    let mut sampler =
        NetworkSampler::new(network, 2.0, Rule::HeatBath, NetworkOrder::Sequential, 1).unwrap();
    for bad in [f64::NAN, -0.5] {
        names(sampler.set_temperature(bad).unwrap_err(), "temperature");
        assert_eq!(sampler.temperature(), 2.0);
    }
}

#[test]
fn bad_networks_are_refused_with_the_field_named() {
    let kind = SpinKind::Ising;
    names(Network::zeros(kind, 0).unwrap_err(), "units");
    names(Network::new(kind, vec![], vec![]).unwrap_err(), "units");
    names(
        Network::zeros(kind, Network::MAX_UNITS + 1).unwrap_err(),
        "units",
    );
    names(
        Network::sherrington_kirkpatrick(100_000, 1).unwrap_err(),
        "units",
    );
    // Shapes.
    names(
        Network::new(kind, vec![0.0; 8], vec![0.0; 3]).unwrap_err(),
        "weights",
    );
    // Symmetry and the diagonal.
    let mut w = vec![0.0; 9];
    w[1] = 0.5;
    w[3] = 0.25;
    let err = Network::new(kind, w, vec![0.0; 3]).unwrap_err();
    assert!(err.to_string().contains("symmetric"), "{err}");
    names(err, "weights");
    let mut w = vec![0.0; 9];
    w[4] = 1.0;
    let err = Network::new(kind, w, vec![0.0; 3]).unwrap_err();
    assert!(err.to_string().contains("diagonal"), "{err}");
    // Non-finite and out-of-range values.
    let mut w = vec![0.0; 4];
    w[1] = f64::NAN;
    w[2] = f64::NAN;
    names(Network::new(kind, w, vec![0.0; 2]).unwrap_err(), "weights");
    names(
        Network::new(kind, vec![0.0; 4], vec![f64::INFINITY, 0.0]).unwrap_err(),
        "biases",
    );
    names(
        Network::new(kind, vec![0.0; 4], vec![2.0e6, 0.0]).unwrap_err(),
        "biases",
    );
    names(
        Network::random(4, kind, f64::NAN, 1.0, 1).unwrap_err(),
        "weight_scale",
    );
    // Visible units.
    names(
        Network::zeros(kind, 3)
            .unwrap()
            .with_visible(4)
            .unwrap_err(),
        "visible",
    );
    // The mask: weights where it forbids, asymmetric, true diagonal, wrong shape.
    let network = Network::random(3, kind, 1.0, 1.0, 3).unwrap();
    let forbid_01 = vec![false, false, true, false, false, true, true, true, false];
    names(
        network.clone().with_mask(forbid_01.clone()).unwrap_err(),
        "weights",
    );
    let mut asymmetric = forbid_01.clone();
    asymmetric[1] = true;
    names(
        Network::zeros(kind, 3)
            .unwrap()
            .with_mask(asymmetric)
            .unwrap_err(),
        "mask",
    );
    let mut diagonal = forbid_01.clone();
    diagonal[0] = true;
    names(
        Network::zeros(kind, 3)
            .unwrap()
            .with_mask(diagonal)
            .unwrap_err(),
        "mask",
    );
    names(
        Network::zeros(kind, 3)
            .unwrap()
            .with_mask(vec![false; 4])
            .unwrap_err(),
        "mask",
    );
    let mut masked = Network::zeros(kind, 3)
        .unwrap()
        .with_mask(forbid_01)
        .unwrap();
    names(masked.set_weight(1, 0, 0.5).unwrap_err(), "weights");
    assert_eq!(masked.weight(0, 1), 0.0);
}

#[test]
fn malformed_network_json_is_refused_with_the_field_named() {
    let good =
        r#"{"units": 2, "spin": "binary", "weights": [[0, 1.5], [1.5, 0]], "biases": [0.5, -1]}"#;
    let network = Network::from_json(good).unwrap();
    assert_eq!(
        (network.len(), network.kind(), network.weight(0, 1)),
        (2, SpinKind::Binary, 1.5)
    );
    for (text, field, detail) in [
        (&good[..40], "weights", "EOF"),
        ("", "network", "EOF"),
        ("[1, 2]", "network", "invalid type"),
        (
            r#"{"units": 2, "spin": "binary", "weights": [[0, "x"], [1.5, 0]], "biases": [0, 0]}"#,
            "weights",
            "entry [0][1] must be a number, got a string",
        ),
        (
            r#"{"units": 2, "spin": "binary", "weights": [[0, 1e999], [1e999, 0]], "biases": [0, 0]}"#,
            "weights",
            "out of range",
        ),
        (
            r#"{"units": 2, "spin": "binary", "weights": [[0, 1], [1, 0]], "biases": [0, null]}"#,
            "biases",
            "entry [1] must be a number, got null",
        ),
        (
            r#"{"units": 2, "spin": "potts", "weights": [[0, 1], [1, 0]], "biases": [0, 0]}"#,
            "spin",
            "ising, binary",
        ),
        (
            r#"{"units": 2, "spin": "ising", "weights": [[0, 1], [2, 0]], "biases": [0, 0]}"#,
            "weights",
            "symmetric",
        ),
        (
            r#"{"units": 2, "spin": "ising", "weights": [[0, 1], [1]], "biases": [0, 0]}"#,
            "weights",
            "row 1 has 1 entries",
        ),
        (
            r#"{"units": 3, "spin": "ising", "weights": [[0, 1], [1, 0]], "biases": [0, 0]}"#,
            "weights",
            "there are 2 rows",
        ),
        (
            r#"{"units": 2, "spin": "ising", "weights": [[0, 1], [1, 0]], "biases": [0]}"#,
            "biases",
            "need 2",
        ),
        (
            r#"{"units": 0, "spin": "ising", "weights": [], "biases": []}"#,
            "units",
            "between 1 and 2048",
        ),
        (
            r#"{"units": 2.5, "spin": "ising", "weights": [], "biases": []}"#,
            "units",
            "whole number",
        ),
        (
            r#"{"spin": "ising", "weights": [[0]], "biases": [0]}"#,
            "units",
            "missing",
        ),
        (
            r#"{"units": 1, "spin": "ising", "weights": [[0]], "biases": [0], "visible": 2}"#,
            "visible",
            "between 0 and 1",
        ),
        (
            r#"{"units": 2, "spin": "ising", "weights": [[0, 1], [1, 0]], "biases": [0, 0], "mask": [[0, 0], [0, 0]]}"#,
            "weights",
            "mask forbids",
        ),
        (
            r#"{"units": 2, "spin": "ising", "weights": [[0, 0], [0, 0]], "biases": [0, 0], "mask": [[0, 2], [1, 0]]}"#,
            "mask",
            "entry [0][1] must be true, false, 1 or 0",
        ),
        (
            r#"{"units": 1, "spin": "ising", "weights": [[0]], "biases": [0], "bias": [0]}"#,
            "network",
            "unknown key 'bias'",
        ),
        (
            r#"{"units": 1, "units": 1, "spin": "ising", "weights": [[0]], "biases": [0]}"#,
            "units",
            "twice",
        ),
        (
            r#"{"units": 1, "spin": "ising", "weights": [[0]], "biases": [0]} x"#,
            "network",
            "trailing",
        ),
    ] {
        let err = Network::from_json(text).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with(field),
            "{text}: expected '{field}…', got '{message}'"
        );
        assert!(
            message.contains(detail),
            "{text}: expected '{detail}' in '{message}'"
        );
    }
    let long = " ".repeat(Network::MAX_JSON_BYTES + 1);
    names(Network::from_json(&long).unwrap_err(), "network");
}

#[test]
fn bad_states_clamps_and_enumerations_are_refused() {
    let network = Network::random(4, SpinKind::Binary, 1.0, 1.0, 1).unwrap();
    let mut sampler =
        NetworkSampler::new(network, 1.0, Rule::HeatBath, NetworkOrder::Random, 1).unwrap();
    let before = sampler.state().to_vec();
    names(sampler.set_state(&[0, 1, -1, 0]).unwrap_err(), "state");
    names(sampler.set_state(&[0, 1]).unwrap_err(), "state");
    names(sampler.clamp(&[4], &[1]).unwrap_err(), "clamp units");
    names(sampler.clamp(&[0, 0], &[1, 1]).unwrap_err(), "clamp units");
    names(sampler.clamp(&[0], &[-1]).unwrap_err(), "clamp values");
    names(sampler.clamp(&[0, 1], &[1]).unwrap_err(), "clamp values");
    names(sampler.release(&[7]).unwrap_err(), "release units");
    assert_eq!(sampler.state(), &before[..]);
    assert_eq!(sampler.free_units().len(), 4);
    sampler.clamp(&[2], &[1]).unwrap();
    let mut changed = sampler.state().to_vec();
    changed[2] = 0;
    names(sampler.set_state(&changed).unwrap_err(), "state");

    let big = Network::zeros(SpinKind::Ising, MAX_ENUMERATION_UNITS + 1).unwrap();
    let err = enumerate(&big, 1.0).unwrap_err();
    assert!(err.to_string().contains("at most 30 units"), "{err}");
    names(err, "units");
    let medium = Network::zeros(SpinKind::Ising, 25).unwrap();
    names(state_probabilities(&medium, 1.0).unwrap_err(), "units");
    names(exact_correlations(&medium, 1.0).unwrap_err(), "units");
    let small = Network::zeros(SpinKind::Ising, 3).unwrap();
    names(enumerate(&small, 0.0).unwrap_err(), "temperature");
    names(enumerate(&small, f64::NAN).unwrap_err(), "temperature");
}

#[test]
fn a_temperature_too_low_for_floating_point_is_refused_not_overflowed() {
    // T = 1e-308 makes β·|E| overflow: a typed error, never an infinite ln Z.
    let network = Network::random(6, SpinKind::Ising, 1.0, 0.5, 3).unwrap();
    let err = enumerate(&network, 1e-308).unwrap_err();
    assert!(err.to_string().starts_with("temperature"), "{err}");
    assert!(boltzlab::estimate::exact_log_z::log_z(&network, 1e-308, None).is_err());
    assert!(enumerate(&network, 1e-3).unwrap().log_z.is_finite());
}
