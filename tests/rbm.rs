//! Restricted Boltzmann machines against exact results: ln Z and ln p(v) against brute
//! force and against the general machine with a bipartite mask, block Gibbs particles
//! against the exact joint distribution (χ²), CD-1 and persistent updates against their
//! exact expectations, AIS against exact ln Z on a 64-16 machine, typed errors that leave
//! the state unchanged, and (ignored, run by hand) the measured speed and
//! quality targets.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use boltzlab::exact::enumeration::enumerate;
use boltzlab::learn::digits;
use boltzlab::learn::likelihood::log_probabilities;
use boltzlab::learn::rbm::exact::{log_z, mean_free_energy, mean_log_likelihood};
use boltzlab::learn::rbm::sampling::sigmoid;
use boltzlab::learn::rbm::{
    AisRuns, AisSchedule, Gradient, Particles, RateSchedule, Rbm, RbmTrainer, Statistics,
    TrainingOptions, ais_log_z, base_rate_biases,
};
use boltzlab::learn::{Dataset, rbm};
use boltzlab::rng::seeded_rng;
use boltzlab::{ParamError, SpinKind};
use common::{chi_square_threshold, noncentrality, pearson_chi_square};

/// A V-H machine with W ~ N(0, σ²) and biases uniform on [−β, β], from `seed`.
fn random_rbm(visible: usize, hidden: usize, sigma: f64, bias: f64, seed: u64) -> Rbm {
    let r = Rbm::random(visible, hidden, sigma, seed).unwrap();
    let mut rng = seeded_rng(seed ^ 0x5eed);
    let mut u = |_| bias * (2.0 * (f64::from(rng.next_u32()) / 4_294_967_296.0) - 1.0);
    let a = (0..visible).map(&mut u).collect();
    let b = (0..hidden).map(&mut u).collect();
    Rbm::new(visible, hidden, r.weights().to_vec(), a, b).unwrap()
}

use rand::Rng;

/// The 0/1 vector of `len` bits of `index` (bit i = unit i).
fn bits(index: usize, len: usize) -> Vec<u8> {
    (0..len).map(|i| (index >> i & 1) as u8).collect()
}

/// Every 0/1 vector of length n, in index order.
fn all_vectors(n: usize) -> Vec<Vec<u8>> {
    (0..1 << n).map(|k| bits(k, n)).collect()
}

/// ln Σ e^{x} of a list, plainly (for brute force on tiny machines).
fn log_sum_exp(xs: &[f64]) -> f64 {
    let max = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    max + xs.iter().map(|x| (x - max).exp()).sum::<f64>().ln()
}

/// The exact joint p(v, h) of a tiny machine, indexed by v + 2^V·h.
fn joint_distribution(m: &Rbm) -> Vec<f64> {
    let (nv, nh) = (m.visible(), m.hidden());
    let exponents: Vec<f64> = (0..1usize << (nv + nh))
        .map(|k| -m.energy(&bits(k & ((1 << nv) - 1), nv), &bits(k >> nv, nh)))
        .collect();
    let z = log_sum_exp(&exponents);
    exponents.iter().map(|x| (x - z).exp()).collect()
}

/// p(h | v) and p(v | h) of a tiny machine as full tables: [v][h] and [h][v].
fn conditionals(m: &Rbm) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let (nv, nh) = (m.visible(), m.hidden());
    let product = |probabilities: Vec<f64>, state: &[u8]| -> f64 {
        probabilities
            .iter()
            .zip(state)
            .map(|(&p, &s)| if s == 1 { p } else { 1.0 - p })
            .product()
    };
    let h_given_v = (0..1 << nv)
        .map(|v| {
            let v = bits(v, nv);
            (0..1 << nh)
                .map(|h| {
                    let p = (0..nh)
                        .map(|j| {
                            sigmoid(
                                m.hidden_biases()[j]
                                    + (0..nv)
                                        .map(|i| f64::from(v[i]) * m.weight(i, j))
                                        .sum::<f64>(),
                            )
                        })
                        .collect();
                    product(p, &bits(h, nh))
                })
                .collect()
        })
        .collect();
    let v_given_h = (0..1 << nh)
        .map(|h| {
            let h = bits(h, nh);
            (0..1 << nv)
                .map(|v| {
                    let p = (0..nv)
                        .map(|i| {
                            sigmoid(
                                m.visible_biases()[i]
                                    + (0..nh)
                                        .map(|j| f64::from(h[j]) * m.weight(i, j))
                                        .sum::<f64>(),
                            )
                        })
                        .collect();
                    product(p, &bits(v, nv))
                })
                .collect()
        })
        .collect();
    (h_given_v, v_given_h)
}

#[test]
fn exact_ln_z_and_ln_p_of_a_tiny_rbm_equal_brute_force_over_all_v_and_h() {
    // Both branches: the hidden layer smaller (5-3) and the visible layer smaller (3-5).
    for (nv, nh, seed) in [(5, 3, 1), (3, 5, 2), (4, 4, 3)] {
        let m = random_rbm(nv, nh, 1.5, 1.0, seed);
        let mut exponents = Vec::new();
        for v in all_vectors(nv) {
            for h in all_vectors(nh) {
                exponents.push(-m.energy(&v, &h));
            }
        }
        let brute = log_sum_exp(&exponents);
        let exact = log_z(&m).unwrap();
        assert!(
            (exact - brute).abs() < 1e-12,
            "{nv}-{nh}: {exact} vs {brute}"
        );
        // ln p(v) = −F(v) − ln Z, with F against Σ_h directly.
        let patterns = all_vectors(nv);
        let mut total = 0.0;
        for v in &patterns {
            let by_h: Vec<f64> = all_vectors(nh).iter().map(|h| -m.energy(v, h)).collect();
            assert!((m.free_energy(v) + log_sum_exp(&by_h)).abs() < 1e-12);
            total += (log_sum_exp(&by_h) - brute).exp();
        }
        assert!((total - 1.0).abs() < 1e-12, "Σ p(v) = {total}");
        let mean = mean_log_likelihood(&m, &patterns[..3]).unwrap();
        let by_hand = (0..3)
            .map(|k| -m.free_energy(&patterns[k]) - brute)
            .sum::<f64>()
            / 3.0;
        assert!((mean - by_hand).abs() < 1e-12);
    }
}

#[test]
fn ln_z_is_the_same_summed_over_either_layer_past_the_refresh_period() {
    // A 13-14 machine enumerates its 2^13 visible states, its transpose (14-13) its 2^13
    // hidden states: the same Z, both walks past one recomputation from scratch (4096).
    let m = random_rbm(13, 14, 0.8, 1.0, 7);
    let transposed_weights: Vec<f64> = (0..14)
        .flat_map(|j| (0..13).map(move |i| (i, j)))
        .map(|(i, j)| m.weight(i, j))
        .collect();
    let t = Rbm::new(
        14,
        13,
        transposed_weights,
        m.hidden_biases().to_vec(),
        m.visible_biases().to_vec(),
    )
    .unwrap();
    let (a, b) = (log_z(&m).unwrap(), log_z(&t).unwrap());
    assert!((a - b).abs() < 1e-11 * a.abs().max(1.0), "{a} vs {b}");
}

#[test]
fn the_general_machine_with_a_bipartite_mask_has_the_same_exact_distribution() {
    let m = random_rbm(6, 4, 1.0, 0.8, 11);
    let network = m.to_network().unwrap();
    assert_eq!(network.kind(), SpinKind::Binary);
    assert_eq!((network.len(), network.visible()), (10, 6));
    for i in 0..10 {
        for j in 0..10 {
            let bipartite = (i < 6) != (j < 6);
            assert_eq!(network.is_allowed(i, j), bipartite, "{i} {j}");
        }
    }
    let general = enumerate(&network, 1.0).unwrap().log_z;
    let restricted = log_z(&m).unwrap();
    assert!(
        (general - restricted).abs() < 1e-12,
        "{general} vs {restricted}"
    );
    let vectors = all_vectors(6);
    let general = log_probabilities(&network, 1.0, &vectors).unwrap();
    for (v, g) in vectors.iter().zip(general) {
        let r = -m.free_energy(v) - restricted;
        assert!((g - r).abs() < 1e-12, "{v:?}: {g} vs {r}");
    }
}

#[test]
fn block_gibbs_particles_sample_the_exact_joint_distribution() {
    // A 4-3 machine with strong weights (σ = 1.5), 2^7 = 128 joint states. 40 000
    // particles, each an independent chain from a uniform visible state, advanced S block
    // Gibbs steps; the (v, h) of each particle is one sample. The exact distribution after
    // S steps is computed from the conditionals, and S is taken large enough that its
    // bias is invisible (noncentrality < 0.01). Pearson χ² with the 10⁻⁶ threshold of
    // tests/common: fails by chance once in a million runs.
    let m = random_rbm(4, 3, 1.5, 1.0, 5);
    let (nv, nh) = (4, 3);
    let exact = joint_distribution(&m);
    let (h_given_v, v_given_h) = conditionals(&m);
    let particles = 40_000;
    // Exact law after S steps: v_0 uniform; (v_s, h_s) = Σ_v π_{s−1}(v) p(h|v) p(v_s|h).
    let after = |steps: usize| -> Vec<f64> {
        let mut pi = vec![1.0 / 16.0; 16];
        let mut joint = vec![0.0; 128];
        for _ in 0..steps {
            joint.fill(0.0);
            for (v, &mass) in pi.iter().enumerate() {
                for h in 0..1 << nh {
                    for v2 in 0..1 << nv {
                        joint[v2 + (h << nv)] += mass * h_given_v[v][h] * v_given_h[h][v2];
                    }
                }
            }
            pi = (0..16)
                .map(|v| (0..8).map(|h| joint[v + (h << nv)]).sum())
                .collect();
        }
        joint
    };
    let steps = [2, 4, 8, 16, 32, 64]
        .into_iter()
        .find(|&s| noncentrality(particles as u64, &after(s), &exact) < 0.01)
        .expect("the chain mixes within 64 steps");
    let mut rng = seeded_rng(2026);
    let mut chains = Particles::random(particles, nv, nh, &mut rng);
    chains.advance(&m, steps, &mut rng);
    let mut counts = vec![0u64; 128];
    for k in 0..particles {
        let v = chains.visible_state(k);
        let h = &chains.hidden_states()[k * nh..(k + 1) * nh];
        let index = v
            .iter()
            .chain(h)
            .enumerate()
            .map(|(i, &b)| usize::from(b) << i)
            .sum::<usize>();
        counts[index] += 1;
    }
    let (chi2, df) = pearson_chi_square(&counts, &exact);
    let threshold = chi_square_threshold(df);
    eprintln!(
        "block Gibbs: {steps} steps, χ² = {chi2:.1} with {df} degrees of freedom (threshold {threshold:.1})"
    );
    assert!(chi2 < threshold, "χ² = {chi2} ≥ {threshold} ({df} df)");
    // The cached p(h | v) is the exact conditional at the particle's visible state.
    let v = chains.visible_state(0).to_vec();
    let index = v
        .iter()
        .enumerate()
        .map(|(i, &b)| usize::from(b) << i)
        .sum::<usize>();
    for j in 0..nh {
        let marginal: f64 = (0..8)
            .filter(|h| h >> j & 1 == 1)
            .map(|h| h_given_v[index][h])
            .sum();
        assert!((chains.hidden_probabilities()[j] - marginal).abs() < 1e-12);
    }
}

/// The exact model statistics ⟨v ⊗ h⟩, ⟨v⟩, ⟨h⟩ of a tiny machine as a [`Gradient`].
fn model_statistics(m: &Rbm) -> Gradient {
    let (nv, nh) = (m.visible(), m.hidden());
    let p = joint_distribution(m);
    let mut g = Gradient::zeros(nv, nh);
    for (k, &pk) in p.iter().enumerate() {
        let (v, h) = (bits(k & ((1 << nv) - 1), nv), bits(k >> nv, nh));
        let h: Vec<f64> = h.iter().map(|&x| f64::from(x)).collect();
        g.add(&v, &h, pk);
    }
    g
}

/// The exact clamped statistics (1/N) Σ_d v_d ⊗ p(h | v_d) and means.
fn data_statistics(m: &Rbm, patterns: &[Vec<u8>]) -> Gradient {
    let mut g = Gradient::zeros(m.visible(), m.hidden());
    let mut p_h = vec![0.0; m.hidden()];
    for v in patterns {
        rbm::sampling::hidden_probabilities(m, v, &mut p_h);
        g.add(v, &p_h, 1.0 / patterns.len() as f64);
    }
    g
}

fn flatten(g: &Gradient) -> Vec<f64> {
    g.weights
        .iter()
        .chain(&g.visible)
        .chain(&g.hidden)
        .copied()
        .collect()
}

fn tiny_patterns() -> Vec<Vec<u8>> {
    vec![vec![1, 0, 1], vec![0, 1, 1], vec![1, 1, 0]]
}

fn options(statistics: Statistics, batch: usize) -> TrainingOptions {
    TrainingOptions {
        statistics,
        batch,
        rate: 0.1,
        schedule: RateSchedule::Constant,
        momentum: 0.0,
        weight_decay: 0.0,
        seed: 1,
    }
}

#[test]
fn the_cd1_update_matches_its_exact_expectation() {
    // CD-1 from data vector d: h ~ p(h | v_d), v′ ~ p(v | h), negative statistic
    // v′ ⊗ p(h | v′). Its exact expectation sums over h and v′. Each call of
    // estimate_gradient is an independent draw (the chains restart at the data), so the
    // mean of 40 000 calls has standard error sd/√40 000 per component; the 11 components
    // must lie within 5.3σ (two-sided p = 1.2·10⁻⁷ each: about one false failure in 10⁶
    // runs).
    let m = random_rbm(3, 2, 1.2, 0.5, 21);
    let patterns = tiny_patterns();
    let (h_given_v, v_given_h) = conditionals(&m);
    let mut expected = data_statistics(&m, &patterns);
    let mut p_h = vec![0.0; 2];
    for d in &patterns {
        let vd = d
            .iter()
            .enumerate()
            .map(|(i, &b)| usize::from(b) << i)
            .sum::<usize>();
        for (h, v_given) in v_given_h.iter().enumerate() {
            for (v2, &p_v2) in v_given.iter().enumerate() {
                let weight = h_given_v[vd][h] * p_v2 / patterns.len() as f64;
                let v2 = bits(v2, 3);
                rbm::sampling::hidden_probabilities(&m, &v2, &mut p_h);
                expected.add(&v2, &p_h, -weight);
            }
        }
    }
    let mut trainer = RbmTrainer::new(
        m.clone(),
        &patterns,
        options(Statistics::ContrastiveDivergence { steps: 1 }, 3),
    )
    .unwrap();
    let calls = 40_000;
    let expected = flatten(&expected);
    let (mut sum, mut sum_sq) = (vec![0.0; 11], vec![0.0; 11]);
    for _ in 0..calls {
        for (k, x) in flatten(trainer.estimate_gradient()).into_iter().enumerate() {
            sum[k] += x;
            sum_sq[k] += x * x;
        }
    }
    assert_eq!(trainer.rbm(), &m, "estimating changes nothing");
    let n = f64::from(calls);
    let mut worst: f64 = 0.0;
    for k in 0..11 {
        let mean = sum[k] / n;
        let sd = ((sum_sq[k] / n - mean * mean) * n / (n - 1.0)).sqrt();
        let z = (mean - expected[k]) / (sd / n.sqrt()).max(1e-300);
        worst = worst.max(z.abs());
        assert!(
            z.abs() < 5.3,
            "component {k}: {mean} vs {} ({z:.1}σ)",
            expected[k]
        );
    }
    eprintln!("CD-1: worst component {worst:.2}σ from its exact expectation");
}

#[test]
fn persistent_and_tempered_updates_with_fixed_weights_match_the_exact_gradient() {
    // With the weights fixed, 500 persistent particles (or 5 tempered replicas of 100)
    // sample the model, so the mean estimated gradient is the exact one: ⟨·⟩_data − ⟨·⟩_model. After 50 calls of
    // burn-in, 4000 calls in 40 blocks of 100; the standard error comes from the spread
    // of the block means (so the chains' autocorrelation is accounted for), and each of
    // the 11 components must lie within 6.5 standard errors (Student t with 39 degrees of
    // freedom: two-sided p ≈ 10⁻⁷ each, about one false failure in 10⁶ runs).
    let m = random_rbm(3, 2, 1.2, 0.5, 22);
    let patterns = tiny_patterns();
    let mut exact = data_statistics(&m, &patterns);
    let model = model_statistics(&m);
    exact
        .weights
        .iter_mut()
        .zip(&model.weights)
        .for_each(|(e, x)| *e -= x);
    exact
        .visible
        .iter_mut()
        .zip(&model.visible)
        .for_each(|(e, x)| *e -= x);
    exact
        .hidden
        .iter_mut()
        .zip(&model.hidden)
        .for_each(|(e, x)| *e -= x);
    let exact = flatten(&exact);
    for statistics in [
        Statistics::Persistent {
            particles: 500,
            steps: 1,
        },
        Statistics::ParallelTempering {
            particles: 100,
            steps: 1,
            replicas: 5,
        },
    ] {
        let mut trainer = RbmTrainer::new(m.clone(), &patterns, options(statistics, 3)).unwrap();
        worst_deviation(&mut trainer, &exact, statistics.name());
    }
}

/// Checks the mean of the estimated gradients against `exact` (see the caller).
fn worst_deviation(trainer: &mut RbmTrainer, exact: &[f64], name: &str) {
    for _ in 0..50 {
        trainer.estimate_gradient();
    }
    let (blocks, per_block) = (40, 100);
    let mut means = vec![vec![0.0; 11]; blocks];
    for block in means.iter_mut() {
        for _ in 0..per_block {
            for (k, x) in flatten(trainer.estimate_gradient()).into_iter().enumerate() {
                block[k] += x / f64::from(per_block);
            }
        }
    }
    let mut worst: f64 = 0.0;
    for k in 0..11 {
        let b = blocks as f64;
        let mean = means.iter().map(|m| m[k]).sum::<f64>() / b;
        let var = means.iter().map(|m| (m[k] - mean).powi(2)).sum::<f64>() / (b - 1.0);
        let z = (mean - exact[k]) / (var / b).sqrt().max(1e-300);
        worst = worst.max(z.abs());
        assert!(
            z.abs() < 6.5,
            "component {k}: {mean} vs {} ({z:.1} se)",
            exact[k]
        );
    }
    eprintln!("{name}: worst component {worst:.2} standard errors from the exact gradient");
}

#[test]
fn an_update_is_rate_times_the_estimate_with_momentum_and_decay() {
    // Two trainers on the same stream: one estimates, the other updates; the update must
    // be u = μ u_prev + ε (g − λ W) on weights and μ u_prev + ε g on biases.
    let m = random_rbm(3, 2, 1.0, 0.5, 23);
    let patterns = tiny_patterns();
    let o = TrainingOptions {
        rate: 0.3,
        momentum: 0.5,
        weight_decay: 0.01,
        schedule: RateSchedule::LinearDecay { updates: 4 },
        ..options(
            Statistics::Persistent {
                particles: 7,
                steps: 2,
            },
            2,
        )
    };
    let mut estimator = RbmTrainer::new(m.clone(), &patterns, o).unwrap();
    let mut learner = RbmTrainer::new(m.clone(), &patterns, o).unwrap();
    let g1 = estimator.estimate_gradient().clone();
    learner.update().unwrap();
    let after1 = learner.rbm().clone();
    let u1: Vec<f64> = (0..6)
        .map(|k| 0.3 * (g1.weights[k] - 0.01 * m.weights()[k]))
        .collect();
    for (k, u) in u1.iter().enumerate() {
        assert!((after1.weights()[k] - m.weights()[k] - u).abs() < 1e-15);
    }
    // Second update, ε_1 = 0.3·(1 − 1/4): a copy of the learner estimates exactly the
    // gradient its next update will use (same machine, same stream position).
    let g2 = learner.clone().estimate_gradient().clone();
    learner.update().unwrap();
    let eps = 0.3 * 0.75;
    for (k, u) in u1.iter().enumerate() {
        let u2 = 0.5 * u + eps * (g2.weights[k] - 0.01 * after1.weights()[k]);
        assert!((learner.rbm().weights()[k] - after1.weights()[k] - u2).abs() < 1e-15);
    }
    for i in 0..3 {
        let u2 = 0.5 * (0.3 * g1.visible[i]) + eps * g2.visible[i];
        let step = learner.rbm().visible_biases()[i] - after1.visible_biases()[i];
        assert!((step - u2).abs() < 1e-15);
    }
    // After the schedule ends (update 4 on) ε = 0: only momentum moves the weights.
    learner.run(2).unwrap();
    let before = learner.rbm().clone();
    learner.update().unwrap();
    assert_eq!(learner.updates(), 5);
    assert_ne!(learner.rbm(), &before, "momentum carries on");
}

#[test]
fn ais_is_within_three_standard_errors_of_exact_ln_z_on_a_64_16_machine_trained_on_digits() {
    // 1500 CD-1 updates (100 epochs) on the digits (batch 100, rate 0.05, momentum 0.5)
    // give trained-like weights (rms 0.61); exact ln Z enumerates 2^16 hidden states. AIS
    // with the page schedule (1 450 steps) and 100 runs, from the data's base rates. The
    // seed is fixed, so the test is deterministic; the criterion is
    // |ln Ẑ − ln Z| < 3 standard errors (measured: −0.8σ). Then 8 more estimates (other
    // seeds, 100 runs each): the spread of the 9 should agree with the reported standard
    // error (ratio between 1/3 and 3; measured 0.74).
    let (train, _) = digits::split();
    let images = train.images();
    let mut m = Rbm::random(64, 16, 0.01, 3).unwrap();
    m.set_base_rate_biases(images).unwrap();
    let o = TrainingOptions {
        rate: 0.05,
        momentum: 0.5,
        ..options(Statistics::ContrastiveDivergence { steps: 1 }, 100)
    };
    let mut trainer = RbmTrainer::new(m, images, o).unwrap();
    trainer.run(1500).unwrap();
    let m = trainer.rbm().clone();
    let norm = (m.weights().iter().map(|w| w * w).sum::<f64>() / 1024.0).sqrt();
    let exact = log_z(&m).unwrap();
    let base = base_rate_biases(images, 64).unwrap();
    let estimates: Vec<_> = (0..9)
        .map(|seed| ais_log_z(&m, &base, &AisSchedule::PAGE, 100, 100 + seed).unwrap())
        .collect();
    let first = estimates[0];
    let deviation = (first.log_z - exact) / first.stderr;
    eprintln!(
        "AIS 64-16 (rms weight {norm:.3}): exact ln Z = {exact:.4}, AIS {:.4} ± {:.4} \
         ({deviation:+.2}σ), effective runs {:.1} of 100",
        first.log_z, first.stderr, first.effective_runs
    );
    assert!(deviation.abs() < 3.0, "{deviation}σ");
    let mean = estimates.iter().map(|e| e.log_z).sum::<f64>() / 9.0;
    let spread = (estimates
        .iter()
        .map(|e| (e.log_z - mean).powi(2))
        .sum::<f64>()
        / 8.0)
        .sqrt();
    let reported = estimates.iter().map(|e| e.stderr).sum::<f64>() / 9.0;
    eprintln!(
        "AIS spread of 9 estimates {spread:.4}, mean reported stderr {reported:.4}, mean {:+.4} from exact",
        mean - exact
    );
    assert!(spread / reported > 1.0 / 3.0 && spread / reported < 3.0);
    assert_eq!(AisSchedule::PAGE.steps(), 1450);
    assert_eq!(AisSchedule::SALAKHUTDINOV_MURRAY.steps(), 14_500);
}

#[test]
fn the_named_ais_schedules_share_the_papers_shape_at_three_resolutions() {
    // page, paper and fine: 1 450, 14 500 and 58 000 steps from β = 0 to 1, rising, with
    // the paper's breaks at 0.5 and 0.9; each coarser schedule's β are every 10th (page in
    // paper) or 4th (paper in fine) β of the finer one.
    let betas = |name: &str| AisSchedule::named(name).unwrap().betas();
    for (name, steps) in [("page", 1450), ("paper", 14_500), ("fine", 58_000)] {
        let b = betas(name);
        assert_eq!(b.len() - 1, steps, "{name}");
        assert_eq!((b[0], b[steps]), (0.0, 1.0), "{name}");
        assert!(b.windows(2).all(|w| w[0] < w[1]), "{name}: not rising");
        for brk in [0.5, 0.9] {
            assert!(
                b.iter().any(|&x| (x - brk).abs() < 1e-12),
                "{name}: no β at {brk}"
            );
        }
    }
    for (coarse, fine, every) in [("page", "paper", 10), ("paper", "fine", 4)] {
        let (c, f) = (betas(coarse), betas(fine));
        for (k, x) in c.iter().enumerate() {
            assert!((x - f[every * k]).abs() < 1e-12, "{coarse} β_{k}");
        }
    }
    assert!(AisSchedule::named("Paper").is_none());
    assert_eq!(
        AisSchedule::named("paper"),
        Some(AisSchedule::SALAKHUTDINOV_MURRAY)
    );
}

#[test]
fn ais_in_slices_is_bit_for_bit_the_whole_estimate() {
    // AisRuns advanced 1, 7 or 1000 steps at a time (crossing run boundaries) draws the
    // same numbers in the same order as ais_log_z, so the estimate is identical.
    let patterns = tiny_patterns();
    let base = base_rate_biases(&patterns, 3).unwrap();
    let mut rng = boltzlab::rng::seeded_rng(5);
    let mut draw = || (f64::from(rand::Rng::next_u32(&mut rng)) / 4_294_967_296.0 - 0.5) * 3.0;
    let weights: Vec<f64> = (0..12).map(|_| draw()).collect();
    let hidden: Vec<f64> = (0..4).map(|_| draw()).collect();
    let m = Rbm::new(3, 4, weights, vec![0.3, -0.2, 0.1], hidden).unwrap();
    let whole = ais_log_z(&m, &base, &AisSchedule::PAGE, 5, 9).unwrap();
    for slice in [1, 7, 1000] {
        let mut runs = AisRuns::new(&m, &base, &AisSchedule::PAGE, 5, 9).unwrap();
        assert_eq!(runs.total_steps(), 5 * 1450);
        let mut calls = 0;
        while !runs.advance(&m, slice) {
            calls += 1;
            assert!(runs.estimate().is_none());
            assert_eq!(runs.steps_done(), calls * slice);
        }
        assert_eq!(runs.steps_done(), runs.total_steps());
        assert_eq!(runs.estimate().unwrap(), whole, "slices of {slice}");
    }
}

#[test]
fn ais_of_a_zero_weight_machine_is_exact() {
    // With W = 0 and b = 0 every importance weight is e^{(a − a_A)·v}-free: the target's
    // visible biases equal the base's, so every weight is 1 and ln Ẑ = ln Z exactly.
    let patterns = tiny_patterns();
    let base = base_rate_biases(&patterns, 3).unwrap();
    let m = Rbm::new(3, 4, vec![0.0; 12], base.clone(), vec![0.0; 4]).unwrap();
    let e = ais_log_z(&m, &base, &AisSchedule::PAGE, 2, 1).unwrap();
    assert!((e.log_z - log_z(&m).unwrap()).abs() < 1e-12);
    assert!(e.stderr.abs() < 1e-12);
}

/// Asserts an error names `field` (and prints it).
fn names(result: Result<impl std::fmt::Debug, ParamError>, field: &str) -> String {
    let e = result.expect_err("must be refused");
    assert_eq!(e.field(), field, "{e}");
    e.to_string()
}

#[test]
fn bad_input_is_refused_with_a_clear_error_and_changes_nothing() {
    // Machine sizes.
    names(Rbm::zeros(0, 4), "visible");
    names(Rbm::zeros(4, 0), "hidden");
    names(Rbm::zeros(4, 1_000_000), "hidden");
    let message = names(Rbm::zeros(4096, 4096), "hidden");
    assert!(message.contains("at most 1024 hidden units"), "{message}");
    names(
        Rbm::new(2, 1, vec![f64::NAN, 0.0], vec![0.0; 2], vec![0.0]),
        "weights",
    );
    names(
        Rbm::new(2, 1, vec![0.0; 3], vec![0.0; 2], vec![0.0]),
        "weights",
    );
    // Too many units for exact ln Z: the message names the limit.
    let message = names(log_z(&Rbm::zeros(30, 26).unwrap()), "units");
    assert!(message.contains("at most 25 units"), "{message}");
    // Training options: each refused at construction and by set_options, which changes
    // nothing.
    let patterns = tiny_patterns();
    let m = random_rbm(3, 2, 1.0, 0.5, 31);
    let good = options(
        Statistics::Persistent {
            particles: 5,
            steps: 1,
        },
        3,
    );
    let bad: Vec<(TrainingOptions, &str)> = vec![
        (
            options(
                Statistics::Persistent {
                    particles: 0,
                    steps: 1,
                },
                3,
            ),
            "particles",
        ),
        (
            options(
                Statistics::Persistent {
                    particles: 1_000_000,
                    steps: 1,
                },
                3,
            ),
            "particles",
        ),
        (
            options(
                Statistics::Persistent {
                    particles: 5,
                    steps: 0,
                },
                3,
            ),
            "gibbs steps",
        ),
        (
            options(Statistics::ContrastiveDivergence { steps: 5000 }, 3),
            "gibbs steps",
        ),
        (
            options(Statistics::ContrastiveDivergence { steps: 1 }, 0),
            "batch",
        ),
        (
            options(
                Statistics::ParallelTempering {
                    particles: 5,
                    steps: 1,
                    replicas: 1,
                },
                3,
            ),
            "replicas",
        ),
        (
            options(
                Statistics::ParallelTempering {
                    particles: 5,
                    steps: 1,
                    replicas: 65,
                },
                3,
            ),
            "replicas",
        ),
        (
            options(Statistics::ContrastiveDivergence { steps: 1 }, 4),
            "batch",
        ),
        (
            TrainingOptions {
                rate: f64::NAN,
                ..good
            },
            "learning rate",
        ),
        (TrainingOptions { rate: 0.0, ..good }, "learning rate"),
        (
            TrainingOptions {
                momentum: 1.0,
                ..good
            },
            "momentum",
        ),
        (
            TrainingOptions {
                weight_decay: -0.1,
                ..good
            },
            "weight decay",
        ),
        (
            TrainingOptions {
                schedule: RateSchedule::LinearDecay { updates: 0 },
                ..good
            },
            "decay updates",
        ),
    ];
    let mut trainer = RbmTrainer::new(m.clone(), &patterns, good).unwrap();
    trainer.run(3).unwrap();
    let before = (
        trainer.rbm().clone(),
        *trainer.options(),
        trainer.updates(),
        trainer.particles().cloned(),
    );
    for (o, field) in bad {
        names(RbmTrainer::new(m.clone(), &patterns, o), field);
        names(trainer.set_options(o), field);
        let after = (
            trainer.rbm().clone(),
            *trainer.options(),
            trainer.updates(),
            trainer.particles().cloned(),
        );
        assert_eq!(after, before, "{field}");
    }
    // Work per update: many particles × steps on a large machine.
    let big = Rbm::zeros(784, 500).unwrap();
    let digits_like = vec![vec![0u8; 784]; 10];
    names(
        RbmTrainer::new(
            big,
            &digits_like,
            options(
                Statistics::Persistent {
                    particles: 10_000,
                    steps: 100,
                },
                10,
            ),
        ),
        "particles × gibbs steps",
    );
    // Training vectors of the wrong length or with a value other than 0/1.
    names(RbmTrainer::new(m.clone(), &[vec![1, 0]], good), "patterns");
    names(
        RbmTrainer::new(m.clone(), &[vec![1, 2, 0]], good),
        "patterns",
    );
    names(RbmTrainer::new(m.clone(), &[], good), "patterns");
    names(mean_free_energy(&m, &[vec![0, 0, 0, 0]]), "patterns");
    // AIS: too few runs, wrong base.
    names(ais_log_z(&m, &[0.0; 3], &AisSchedule::PAGE, 1, 1), "runs");
    names(
        ais_log_z(&m, &[0.0; 2], &AisSchedule::PAGE, 10, 1),
        "base biases",
    );
}

#[test]
fn a_malformed_digits_file_is_refused() {
    let good = digits::DIGITS_FILE.to_vec();
    assert_eq!(digits::parse(&good).unwrap().len(), 1797);
    let refuse = |bytes: &[u8], words: &str| {
        let message = names(digits::parse(bytes), "digits file");
        assert!(message.contains(words), "{message}");
    };
    refuse(&[], "DIGITS8");
    refuse(b"PNG\x89 not digits at all", "DIGITS8");
    let mut version = good.clone();
    version[7] = 2;
    refuse(&version, "version 2");
    refuse(&good[..good.len() - 1], "1797 images");
    let mut longer = good.clone();
    longer.push(0);
    refuse(&longer, "the file has 16189");
    let mut flipped = good.clone();
    flipped[100] ^= 1;
    refuse(&flipped, "checksum");
    // A label of 10 with a correct checksum.
    let mut label = good[..good.len() - 4].to_vec();
    label[11 + 8] = 10;
    let sum = digits::fnv1a32(&label);
    label.extend(sum.to_le_bytes());
    refuse(&label, "image 0 has label 10");
    let mut empty = good[..11].to_vec();
    empty[8] = 0;
    empty[9] = 0;
    let sum = digits::fnv1a32(&empty);
    empty.extend(sum.to_le_bytes());
    refuse(&empty, "0 images");
}

#[test]
fn training_is_deterministic_and_pcd_lowers_the_nll_of_bars_and_stripes() {
    // A short run (2000 full-batch PCD updates) must beat the uniform model (16 ln 2 =
    // 11.09 nats) by far, and the same seed gives the same machine.
    let patterns = Dataset::bars_and_stripes(4, 16).patterns().to_vec();
    let o = TrainingOptions {
        rate: 0.05,
        momentum: 0.5,
        ..options(
            Statistics::Persistent {
                particles: 100,
                steps: 1,
            },
            30,
        )
    };
    let run = || {
        let mut t = RbmTrainer::new(Rbm::random(16, 16, 0.01, 4).unwrap(), &patterns, o).unwrap();
        t.run(2000).unwrap();
        t.rbm().clone()
    };
    let m = run();
    assert_eq!(m, run());
    let nll = -mean_log_likelihood(&m, &patterns).unwrap();
    eprintln!("BAS 4×4, 2000 PCD updates: NLL {nll:.3} nats per pattern");
    assert!(nll < 8.0, "{nll}");
}

#[test]
fn tempered_replicas_sample_the_exact_joint_distribution_at_beta_1() {
    // The 4-3 machine of the block Gibbs test; 40 000 independent copies of 4 replicas
    // (β = 1, 0.75, 0.5, 0.25), each round k = 1 step at every β then one round of swaps;
    // the β = 1 states after 64 rounds against the exact joint p(v, h). A plain chain of
    // this machine is within noncentrality 0.01 of it after 8 steps (the block Gibbs
    // test); each round includes such a step at β = 1 and the swaps keep the product of
    // the replicas' distributions invariant, so 64 rounds are ample (not proven: the
    // tempered chain's exact law is beyond enumeration here). Pearson χ² with the 10⁻⁶
    // threshold: fails by chance once in a million runs.
    let m = random_rbm(4, 3, 1.5, 1.0, 5);
    let exact = joint_distribution(&m);
    let mut rng = seeded_rng(2027);
    let mut replicas = rbm::Replicas::random(4, 40_000, &m, &mut rng);
    for _ in 0..64 {
        replicas.advance(&m, 1, &mut rng);
        replicas.swap(&m, &mut rng);
    }
    assert_eq!(replicas.betas(), &[1.0, 0.75, 0.5, 0.25]);
    let cold = replicas.coldest();
    let mut counts = vec![0u64; 128];
    for k in 0..cold.count() {
        let index = cold
            .visible_state(k)
            .iter()
            .chain(cold.hidden_state(k))
            .enumerate()
            .map(|(i, &b)| usize::from(b) << i)
            .sum::<usize>();
        counts[index] += 1;
    }
    let (chi2, df) = pearson_chi_square(&counts, &exact);
    let threshold = chi_square_threshold(df);
    eprintln!(
        "tempering: χ² = {chi2:.1} with {df} degrees of freedom (threshold {threshold:.1}), \
         swap acceptance {:.2}",
        replicas.acceptance()
    );
    assert!(chi2 < threshold, "χ² = {chi2} ≥ {threshold} ({df} df)");
    assert!(replicas.acceptance() > 0.1);
}

#[test]
fn a_diverging_update_changes_no_parameter_and_stops_learning() {
    // W_00 = 999 999 with rate 100 and weight decay 0.5: the decay term alone moves it by
    // −50·W_00, far beyond the limit ±10⁶.
    let mut weights = vec![0.0; 6];
    weights[0] = 999_999.0;
    let m = Rbm::new(3, 2, weights, vec![0.0; 3], vec![0.0; 2]).unwrap();
    let o = TrainingOptions {
        rate: 100.0,
        weight_decay: 0.5,
        ..options(Statistics::ContrastiveDivergence { steps: 1 }, 3)
    };
    let mut trainer = RbmTrainer::new(m.clone(), &tiny_patterns(), o).unwrap();
    let e = trainer.update().unwrap_err();
    assert!(
        e.to_string()
            .starts_with("learning: diverged at cycle 1: weight W[0][0] = -4899"),
        "{e}"
    );
    assert_eq!(trainer.rbm(), &m);
    assert_eq!(trainer.updates(), 0);
    assert_eq!(trainer.update().unwrap_err(), e);
    assert_eq!(trainer.diverged(), Some(&e));
}

#[test]
fn fifty_pcd_updates_on_digits_give_the_pinned_machine() {
    // The same run in WebAssembly (tests/web_rbm.rs) must give these bits too.
    let (train, _) = digits::split();
    let mut m = Rbm::random(64, 16, 0.01, 1).unwrap();
    m.set_base_rate_biases(train.images()).unwrap();
    let o = TrainingOptions {
        momentum: 0.5,
        rate: 0.02,
        ..options(
            Statistics::Persistent {
                particles: 100,
                steps: 1,
            },
            100,
        )
    };
    let mut t = RbmTrainer::new(m, train.images(), o).unwrap();
    t.run(50).unwrap();
    let m = t.rbm();
    let bytes: Vec<u8> = m
        .weights()
        .iter()
        .chain(m.visible_biases())
        .chain(m.hidden_biases())
        .flat_map(|x| x.to_bits().to_le_bytes())
        .collect();
    assert_eq!(digits::fnv1a32(&bytes), PINNED_MACHINE);
}

/// FNV-1a of the machine's bits after the 50 updates above.
const PINNED_MACHINE: u32 = 1_192_079_894;

#[test]
fn for_each_on_visits_exactly_the_ones_in_order_across_blocks_of_64() {
    use boltzlab::model::rbm::for_each_on;
    use rand::Rng;
    let mut rng = seeded_rng(17);
    for len in [0, 1, 63, 64, 65, 127, 128, 129, 784] {
        for density in [0.0, 0.1, 0.5, 1.0] {
            // Values other than 0 and 1 are not "on" (the layers hold 0/1; the test pins it).
            let bits: Vec<u8> = (0..len)
                .map(|_| match f64::from(rng.next_u32()) / 4_294_967_296.0 {
                    u if u < density => 1,
                    u if u < 0.9 => 0,
                    _ => 2,
                })
                .collect();
            let want: Vec<usize> = (0..len).filter(|&k| bits[k] == 1).collect();
            let mut got = Vec::new();
            for_each_on(&bits, |k| got.push(k));
            assert_eq!(got, want, "length {len}, density {density}");
        }
    }
}

#[test]
fn sums_of_rows_have_the_bits_of_adding_the_rows_one_after_another() {
    use boltzlab::model::rbm::sum_of_rows_on;
    use rand::Rng;
    let mut rng = seeded_rng(23);
    let mut uniform = || f64::from(rng.next_u32()) / 4_294_967_296.0;
    // Every width through one 16-column block and its 8-, 4- and 1-column tails, and widths
    // past SHORT_ROWS (64), which add whole rows; 0 to all of 130 rows on.
    for width in (1..=70).chain([99, 100, 500]) {
        for (rows, density) in [(1, 1.0), (20, 0.0), (20, 0.5), (130, 0.3), (130, 1.0)] {
            // Values of mixed sizes and signs, so that the order of the additions shows in
            // the last bits.
            let mut value = || (uniform() - 0.5) * 10f64.powi((uniform() * 12.0) as i32 - 6);
            let base: Vec<f64> = (0..width).map(|_| value()).collect();
            let table: Vec<Vec<f64>> = (0..rows)
                .map(|_| (0..width).map(|_| value()).collect())
                .collect();
            let bits: Vec<u8> = (0..rows).map(|_| u8::from(uniform() < density)).collect();
            let mut want = base.clone();
            for (k, row) in table.iter().enumerate() {
                if bits[k] == 1 {
                    for (s, &w) in want.iter_mut().zip(row) {
                        *s += w;
                    }
                }
            }
            let mut got = vec![f64::NAN; width];
            sum_of_rows_on(&bits, &base, |k| &table[k], &mut got);
            let same = got
                .iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "width {width}, {rows} rows, density {density}");
        }
    }
}
