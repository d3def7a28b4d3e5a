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
    let mut sum = LogZSum::new(rbm)?;
    sum.advance(u64::MAX);
    Ok(sum.value().expect("the whole sum was done"))
}

/// The sum of [`log_z`] done a slice of states at a time, so that a front end can spread
/// it over frames: ln Σ_s e^{α·s} Π_k (1 + e^{β_k + (s M)_k}) over the 2^n states s of the
/// smaller layer (biases α, n units), the larger layer (biases β) summed out through the
/// coupling M (n × m, row-major). It holds its own copy of the machine's parameters, so
/// the machine may change while the sum is under way; the states are visited in the same
/// order with the same arithmetic as one call of [`log_z`], so the value is the same bit
/// for bit however it is sliced.
#[derive(Debug, Clone, PartialEq)]
pub struct LogZSum {
    small_bias: Vec<f64>,
    large_bias: Vec<f64>,
    coupling: Vec<f64>,
    state: Vec<bool>,
    input: Vec<f64>,
    linear: f64,
    step: u64,
    sum: LogSumExp,
}

impl LogZSum {
    /// The sum for `rbm` (min(V, H) ≤ 24, else an error naming `units`), none done yet.
    pub fn new(rbm: &Rbm) -> Result<LogZSum, ParamError> {
        check_exact(rbm)?;
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        // Enumerate layer "small", summing out layer "large": coupling row t holds the
        // weights of small unit t to every large unit.
        let (small_bias, large_bias, coupling) = if nh <= nv {
            let mut columns = vec![0.0; nh * nv];
            for i in 0..nv {
                for j in 0..nh {
                    columns[j * nv + i] = rbm.weight(i, j);
                }
            }
            (
                rbm.hidden_biases().to_vec(),
                rbm.visible_biases().to_vec(),
                columns,
            )
        } else {
            (
                rbm.visible_biases().to_vec(),
                rbm.hidden_biases().to_vec(),
                rbm.weights().to_vec(),
            )
        };
        Ok(LogZSum {
            state: vec![false; small_bias.len()],
            input: large_bias.clone(),
            linear: 0.0,
            step: 0,
            sum: LogSumExp::new(),
            small_bias,
            large_bias,
            coupling,
        })
    }

    /// The states to visit, 2^n.
    pub fn states(&self) -> u64 {
        1u64 << self.small_bias.len()
    }

    /// The states visited so far.
    pub fn done(&self) -> u64 {
        self.step
    }

    /// Visits up to `states` more states (Gray-code order: one unit t flips per state and
    /// the inputs move by ±(its row of M), recomputed from scratch every 4096 states);
    /// returns whether the sum is complete.
    pub fn advance(&mut self, states: u64) -> bool {
        let (n, m) = (self.small_bias.len(), self.large_bias.len());
        let end = self.step.saturating_add(states).min(1u64 << n);
        let coupling = &self.coupling;
        let row = |t: usize| &coupling[t * m..(t + 1) * m];
        for step in self.step..end {
            if step > 0 {
                let t = step.trailing_zeros() as usize;
                self.state[t] = !self.state[t];
                if step % REFRESH == 0 {
                    self.input.copy_from_slice(&self.large_bias);
                    self.linear = 0.0;
                    for (u, _) in self.state.iter().enumerate().filter(|(_, on)| **on) {
                        self.linear += self.small_bias[u];
                        self.input.iter_mut().zip(row(u)).for_each(|(x, w)| *x += w);
                    }
                } else {
                    let sign = if self.state[t] { 1.0 } else { -1.0 };
                    self.linear += sign * self.small_bias[t];
                    self.input
                        .iter_mut()
                        .zip(row(t))
                        .for_each(|(x, w)| *x += sign * w);
                }
            }
            self.sum
                .push(self.linear + self.input.iter().map(|&x| softplus(x)).sum::<f64>());
        }
        self.step = end;
        self.step == self.states()
    }

    /// ln Z once every state is visited, else `None`.
    pub fn value(&self) -> Option<f64> {
        (self.step == self.states()).then(|| self.sum.value())
    }
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
