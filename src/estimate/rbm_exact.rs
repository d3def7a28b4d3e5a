//! Exact ln Z and log-likelihood of a restricted machine by enumerating its smaller layer.
//!
//! Summing one layer out in closed form leaves a sum over the other:
//!
//!   Z = Σ_h e^{b·h} Π_i (1 + e^{a_i + (W h)_i})  = Σ_v e^{a·v} Π_j (1 + e^{b_j + (vW)_j}),
//!
//! so ln Z costs 2^{min(V, H)} terms of max(V, H) softplus each. The states of the smaller
//! layer are visited in Gray-code order: one unit t flips per state and the other layer's
//! inputs move by ±(its weights to t), O(max(V, H)) per state (recomputed from scratch
//! every 4096 states, so rounding cannot drift). The terms are summed by the careful
//! log-sum-exp of [`crate::log_sum_exp::LogSumExp`]. The smaller layer may have at most
//! [`MAX_EXACT_LAYER`] = 24 units (2^24 ≈ 1.7·10⁷ terms); beyond, use [`super::rbm_ais`].

use crate::error::ParamError;
use crate::log_sum_exp::LogSumExp;
use crate::model::rbm::Rbm;
use crate::model::rbm::softplus;

/// Most units the smaller layer may have for exact ln Z: 24.
pub const MAX_EXACT_LAYER: usize = 24;

/// States between recomputations of the inputs from scratch.
const REFRESH: u64 = 1 << 12;

/// Checks min(V, H) ≤ [`MAX_EXACT_LAYER`]; the error names `units` and the limit.
pub fn check_exact(rbm: &Rbm) -> Result<(), ParamError> {
    let smaller = rbm.visible().min(rbm.hidden());
    if smaller > MAX_EXACT_LAYER {
        return Err(ParamError::Invalid {
            field: "units",
            reason: format!(
                "exact ln Z enumerates the smaller layer, which may have at most \
                 {MAX_EXACT_LAYER} units, but this machine has {} visible and {} hidden \
                 units; use AIS instead",
                rbm.visible(),
                rbm.hidden()
            ),
        });
    }
    Ok(())
}

/// Exact ln Z of `rbm` (min(V, H) ≤ 24, else an error naming `units`). Cost
/// O(2^{min(V, H)} · max(V, H)).
pub fn log_z(rbm: &Rbm) -> Result<f64, ParamError> {
    check_exact(rbm)?;
    let (nv, nh) = (rbm.visible(), rbm.hidden());
    // Enumerate layer "small" (biases `small_bias`), summing out layer "large": coupling
    // row t holds the weights of small unit t to every large unit.
    let (small_bias, large_bias, coupling): (&[f64], &[f64], Vec<f64>) = if nh <= nv {
        let mut columns = vec![0.0; nh * nv];
        for i in 0..nv {
            for j in 0..nh {
                columns[j * nv + i] = rbm.weight(i, j);
            }
        }
        (rbm.hidden_biases(), rbm.visible_biases(), columns)
    } else {
        (
            rbm.visible_biases(),
            rbm.hidden_biases(),
            rbm.weights().to_vec(),
        )
    };
    Ok(enumerate(small_bias, large_bias, &coupling))
}

/// ln Σ_s e^{α·s} Π_k (1 + e^{β_k + (s M)_k}) over s ∈ {0,1}^n, n = α.len(), M (n × m,
/// row-major) = `coupling`, β = `large_bias` of length m.
fn enumerate(small_bias: &[f64], large_bias: &[f64], coupling: &[f64]) -> f64 {
    let (n, m) = (small_bias.len(), large_bias.len());
    let mut state = vec![false; n];
    let mut input = large_bias.to_vec();
    let mut linear = 0.0;
    let mut sum = LogSumExp::new();
    let row = |t: usize| &coupling[t * m..(t + 1) * m];
    for step in 0..1u64 << n {
        if step > 0 {
            let t = step.trailing_zeros() as usize;
            state[t] = !state[t];
            if step % REFRESH == 0 {
                input.copy_from_slice(large_bias);
                linear = 0.0;
                for (u, _) in state.iter().enumerate().filter(|(_, on)| **on) {
                    linear += small_bias[u];
                    input.iter_mut().zip(row(u)).for_each(|(x, w)| *x += w);
                }
            } else {
                let sign = if state[t] { 1.0 } else { -1.0 };
                linear += sign * small_bias[t];
                input
                    .iter_mut()
                    .zip(row(t))
                    .for_each(|(x, w)| *x += sign * w);
            }
        }
        sum.push(linear + input.iter().map(|&x| softplus(x)).sum::<f64>());
    }
    sum.value()
}

/// The mean free energy (1/N) Σ_d F(v⁽ᵈ⁾) of `patterns` (each checked: V values 0/1;
/// errors name `patterns`).
pub fn mean_free_energy(rbm: &Rbm, patterns: &[Vec<u8>]) -> Result<f64, ParamError> {
    crate::model::patterns::check_patterns(patterns, rbm.visible())?;
    let mut scratch = vec![0.0; rbm.hidden()];
    let total: f64 = patterns
        .iter()
        .map(|v| rbm.free_energy_with(v, &mut scratch))
        .sum();
    Ok(total / patterns.len() as f64)
}

/// The mean log-likelihood (1/N) Σ_d ln p(v⁽ᵈ⁾) = −(1/N) Σ_d F(v⁽ᵈ⁾) − ln Z, in nats per
/// vector, exact (min(V, H) ≤ 24). For several sets, compute [`log_z`] once and use
/// [`mean_free_energy`].
pub fn mean_log_likelihood(rbm: &Rbm, patterns: &[Vec<u8>]) -> Result<f64, ParamError> {
    let log_z = log_z(rbm)?;
    Ok(-mean_free_energy(rbm, patterns)? - log_z)
}
