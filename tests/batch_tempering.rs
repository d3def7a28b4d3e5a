//! Parallel tempering in the f32 batch trainer against exact laws on a tiny machine (4
//! visible, 3 hidden units, every state enumerated): each replica's particles sample its
//! tempered law p_β(v) ∝ e^{β a·v} Π_j (1 + e^{β(b_j + v·W_j)}) (χ² on particles far apart
//! in time), with swaps accepted and refused; the gradient reads replica 0 alone, at its
//! states after the swaps; and the combinations it cannot run are refused by name.
//!
//! False-failure rate: each χ² fails by chance once in 10⁶ runs (three per run); the
//! gradient check is exact up to f32 rounding (a bound, not a chance).

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use boltzlab::learn::rbm::{BatchTrainer, RateSchedule, Rbm, Statistics, TrainingOptions};
use common::{chi_square_threshold, pearson_chi_square};

const VISIBLE: usize = 4;
const HIDDEN: usize = 3;

/// A tiny machine with strong couplings (W of standard deviation 1.5, a sum of three
/// uniforms; biases uniform on ±1; a fixed xorshift stream), so the replicas' laws differ
/// much and swaps are both accepted and refused.
fn tiny() -> Rbm {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let weights = (0..VISIBLE * HIDDEN)
        .map(|_| 3.0 * (next() + next() + next() - 1.5))
        .collect();
    let a = (0..VISIBLE).map(|_| 2.0 * next() - 1.0).collect();
    let b = (0..HIDDEN).map(|_| 2.0 * next() - 1.0).collect();
    Rbm::new(VISIBLE, HIDDEN, weights, a, b).unwrap()
}

fn tempering(particles: usize, replicas: usize) -> TrainingOptions {
    TrainingOptions {
        statistics: Statistics::ParallelTempering {
            particles,
            steps: 1,
            replicas,
        },
        batch: 2,
        rate: 0.05,
        schedule: RateSchedule::Constant,
        momentum: 0.0,
        weight_decay: 0.0,
        seed: 7,
    }
}

fn data() -> Vec<Vec<u8>> {
    vec![
        vec![1, 0, 1, 0],
        vec![0, 1, 1, 1],
        vec![1, 1, 0, 0],
        vec![0, 0, 0, 1],
    ]
}

/// The exact p_β(v) over the 2^V visible states (bit i of the index = unit i), hidden
/// layer summed out.
fn tempered_law(rbm: &Rbm, beta: f64) -> Vec<f64> {
    let (w, a, b) = (rbm.weights(), rbm.visible_biases(), rbm.hidden_biases());
    let weights: Vec<f64> = (0..1usize << VISIBLE)
        .map(|s| {
            let on = |i: usize| f64::from(u8::from(s >> i & 1 == 1));
            let mut log = beta * (0..VISIBLE).map(|i| a[i] * on(i)).sum::<f64>();
            for j in 0..HIDDEN {
                let input = b[j] + (0..VISIBLE).map(|i| on(i) * w[i * HIDDEN + j]).sum::<f64>();
                log += (1.0 + (beta * input).exp()).ln();
            }
            log.exp()
        })
        .collect();
    let z: f64 = weights.iter().sum();
    weights.iter().map(|p| p / z).collect()
}

/// The largest total variation from p_β, over all starting states, of the plain block
/// Gibbs chain at β (v → h → v) after `steps` steps, by its exact transition matrix.
fn forgetting(rbm: &Rbm, beta: f64, steps: usize) -> f64 {
    let (w, a, b) = (rbm.weights(), rbm.visible_biases(), rbm.hidden_biases());
    let sigma = |x: f64| 1.0 / (1.0 + (-beta * x).exp());
    let bit = |s: usize, i: usize| s >> i & 1 == 1;
    let n = 1usize << VISIBLE;
    // P(layer = `to` | the other layer = `from`): each unit i of `units` on with
    // σ(β(bias_i + Σ_j W(i, j) from_j)), the other layer's `others` units.
    let conditional = |to: usize,
                       from: usize,
                       units: usize,
                       others: usize,
                       bias: &[f64],
                       weight: &dyn Fn(usize, usize) -> f64| {
        (0..units)
            .map(|i| {
                let p = sigma(
                    bias[i]
                        + (0..others)
                            .filter(|&j| bit(from, j))
                            .map(|j| weight(i, j))
                            .sum::<f64>(),
                );
                if bit(to, i) { p } else { 1.0 - p }
            })
            .product::<f64>()
    };
    let hidden_weight = |j: usize, i: usize| w[i * HIDDEN + j];
    let visible_weight = |i: usize, j: usize| w[i * HIDDEN + j];
    let mut t = vec![vec![0.0; n]; n];
    for (v, row) in t.iter_mut().enumerate() {
        for h in 0..1usize << HIDDEN {
            let ph = conditional(h, v, HIDDEN, VISIBLE, b, &hidden_weight);
            for (u, entry) in row.iter_mut().enumerate() {
                *entry += ph * conditional(u, h, VISIBLE, HIDDEN, a, &visible_weight);
            }
        }
    }
    let law = tempered_law(rbm, beta);
    (0..n)
        .map(|start| {
            let mut p = vec![0.0; n];
            p[start] = 1.0;
            for _ in 0..steps {
                p = (0..n)
                    .map(|u| (0..n).map(|v| p[v] * t[v][u]).sum())
                    .collect();
            }
            0.5 * p.iter().zip(&law).map(|(x, y)| (x - y).abs()).sum::<f64>()
        })
        .fold(0.0, f64::max)
}

#[test]
fn each_tempered_replica_samples_its_law_and_swaps_are_made() {
    // 3 replicas (β = 1, 2/3, 1/3) of 400 particles. The parameters never change
    // (estimate_gradient only moves the chains). After 100 updates of burn-in, the
    // particles are tallied every 25 updates, 200 times: 80 000 states per replica. At
    // every β the plain Gibbs chain of this machine forgets any start to a total variation
    // below 10⁻³ within 25 steps (checked first, exactly), and swaps only add moves that
    // keep the joint law, so tallies 25 updates apart are as good as independent;
    // particles of one replica never interact.
    let rbm = tiny();
    let (particles, replicas) = (400, 3);
    let mut trainer = BatchTrainer::new(&rbm, &data(), tempering(particles, replicas), 1).unwrap();
    let rbm = trainer.rbm(); // the f32-rounded parameters, exactly
    for r in 0..replicas {
        let beta = 1.0 - r as f64 / replicas as f64;
        let forgets = forgetting(&rbm, beta, 25);
        assert!(
            forgets < 1e-3,
            "β = {beta}: total variation {forgets} after 25 steps"
        );
    }
    let mut counts = vec![vec![0u64; 1 << VISIBLE]; replicas];
    for update in 0..100 + 200 * 25 {
        trainer.estimate_gradient();
        if update >= 100 && update % 25 == 0 {
            for (row, x) in trainer.chain_visible().chunks_exact(VISIBLE).enumerate() {
                let state = (0..VISIBLE).fold(0, |s, i| s | usize::from(x[i] == 1.0) << i);
                counts[row / particles][state] += 1;
            }
        }
    }
    for (r, counts) in counts.iter().enumerate() {
        let beta = 1.0 - r as f64 / replicas as f64;
        assert_eq!(trainer.chain_betas()[r * particles], beta as f32);
        let law = tempered_law(&rbm, beta);
        let (chi2, dof) = pearson_chi_square(counts, &law);
        assert!(
            chi2 < chi_square_threshold(dof),
            "replica {r} (β = {beta}): χ² = {chi2:.1} on {dof} degrees of freedom"
        );
    }
    let (proposed, accepted) = trainer.swaps();
    assert_eq!(
        proposed,
        (100 + 200 * 25) * ((replicas - 1) * particles) as u64
    );
    assert!(
        accepted > 0 && accepted < proposed,
        "{accepted} of {proposed} swaps accepted"
    );
    eprintln!("swap acceptance {:.3}", accepted as f64 / proposed as f64);
}

#[test]
fn tempering_learns_from_replica_zero_at_its_states_after_the_swaps() {
    // g_W = V₀ᵀ P₀ / B − X₀ᵀ σ(X₀ W + b) / K with X₀ replica 0's rows as they stand after
    // the update (swaps included), recomputed in f64: equal within f32 rounding (each
    // entry a sum of ≤ 400 terms of size ≤ 1, so |error| ≤ 10⁻⁴ with room).
    let rbm = tiny();
    let (particles, replicas) = (200, 4);
    let mut trainer = BatchTrainer::new(&rbm, &data(), tempering(particles, replicas), 1).unwrap();
    let rbm = trainer.rbm();
    let sigma = |x: f64| 1.0 / (1.0 + (-x).exp());
    let hidden_p = |v: &[f32], j: usize| {
        sigma(
            rbm.hidden_biases()[j]
                + (0..VISIBLE)
                    .map(|i| f64::from(v[i]) * rbm.weights()[i * HIDDEN + j])
                    .sum::<f64>(),
        )
    };
    for _ in 0..30 {
        trainer.estimate_gradient();
        let batch = trainer.batch_visible()[..2 * VISIBLE].to_vec();
        let cold = &trainer.chain_visible()[..particles * VISIBLE];
        let (g, _, g_b) = trainer.gradient();
        for i in 0..VISIBLE {
            for j in 0..HIDDEN {
                let clamped: f64 = batch
                    .chunks_exact(VISIBLE)
                    .map(|v| f64::from(v[i]) * hidden_p(v, j))
                    .sum::<f64>()
                    / 2.0;
                let free: f64 = cold
                    .chunks_exact(VISIBLE)
                    .map(|x| f64::from(x[i]) * hidden_p(x, j))
                    .sum::<f64>()
                    / particles as f64;
                let got = f64::from(g[i * HIDDEN + j]);
                assert!(
                    (got - (clamped - free)).abs() < 1e-4,
                    "g_W[{i}][{j}] = {got}, expected {}",
                    clamped - free
                );
            }
        }
        for (j, &got) in g_b.iter().enumerate() {
            let expected = batch
                .chunks_exact(VISIBLE)
                .map(|v| hidden_p(v, j))
                .sum::<f64>()
                / 2.0
                - cold
                    .chunks_exact(VISIBLE)
                    .map(|x| hidden_p(x, j))
                    .sum::<f64>()
                    / particles as f64;
            assert!((f64::from(got) - expected).abs() < 1e-4);
        }
    }
    assert!(trainer.swaps().1 > 0, "some swaps were made");
}

#[test]
fn tempering_with_a_label_group_or_a_shared_update_is_refused_by_name() {
    let trainer = BatchTrainer::new(&tiny(), &data(), tempering(4, 2), 1).unwrap();
    let error = trainer.clone().with_label_group(2).unwrap_err().to_string();
    assert!(error.contains("statistics"), "{error}");
    let mut shared = trainer.clone();
    let before = shared.state();
    let error = shared
        .shard_chains(boltzlab::learn::rbm::batch::Shard::new(0, 2).unwrap())
        .unwrap_err()
        .to_string();
    assert!(error.contains("statistics"), "{error}");
    assert_eq!(shared.state(), before, "nothing changed");
}
