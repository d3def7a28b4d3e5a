//! Pattern memory (Hopfield 1982): P stored patterns ξ^μ ∈ {−1, +1}^N, the Hebbian network
//! that stores them, and the read-outs of a state: its overlap with each pattern and which
//! stored pattern or spurious state it is.
//!
//! The network is an ordinary [`Network`] of Ising units with no biases, so recall is the
//! same sequential tick as every other network (`crate::dynamics::NetworkSampler`): at
//! T = 0 each tick lowers E(s) = −Σ_{i<j} w_ij s_i s_j or leaves it.

use crate::error::ParamError;
use crate::model::network::{Network, SpinKind};
use crate::rng::SpinRng;
use rand::Rng;

/// A state is "at" a pattern when its overlap is at least this: at most 1 % of its units
/// differ (m = 1 − 2·(differing)/N).
pub const RECALLED_OVERLAP: f64 = 0.98;

/// P patterns of N ±1 units, stored flat (pattern μ is `values[μN..(μ+1)N]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Patterns {
    units: usize,
    values: Vec<i8>,
}

/// What a state is, read against the stored patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recall {
    /// Within 1 % of stored pattern `index` (`reversed`: of its mirror image −ξ, a spurious
    /// state every Hebbian memory has, since E(−s) = E(s)).
    Pattern { index: usize, reversed: bool },
    /// Within 1 % of a symmetric mixture of three patterns, sign(±ξ^a ± ξ^b ± ξ^c), the
    /// best-known spurious state (Amit, Gutfreund & Sompolinsky 1985): each overlap near ±½.
    Mixture { indices: [usize; 3], signs: [i8; 3] },
    /// Neither: a spin-glass state or a state still on its way.
    Other,
}

impl Patterns {
    /// Most units a pattern memory may have (the dense network's limit).
    pub const MAX_UNITS: usize = Network::MAX_UNITS;

    /// Patterns from rows of ±1 values. Checks: 1 ≤ P ≤ N, 1 ≤ N ≤ [`Patterns::MAX_UNITS`],
    /// every row of length N, every value −1 or +1 (errors name `patterns`).
    pub fn new(rows: &[Vec<i8>]) -> Result<Self, ParamError> {
        let units = rows.first().map_or(0, Vec::len);
        check_shape(units, rows.len())?;
        let mut values = Vec::with_capacity(units * rows.len());
        for (mu, row) in rows.iter().enumerate() {
            if row.len() != units {
                return Err(ParamError::Invalid {
                    field: "patterns",
                    reason: format!(
                        "pattern {mu} has {} units, but pattern 0 has {units}",
                        row.len()
                    ),
                });
            }
            if let Some(i) = row.iter().position(|&s| s != 1 && s != -1) {
                return Err(ParamError::Invalid {
                    field: "patterns",
                    reason: format!(
                        "pattern {mu} has {} at unit {i}; units are −1 or +1",
                        row[i]
                    ),
                });
            }
            values.extend_from_slice(row);
        }
        Ok(Patterns { units, values })
    }

    /// `count` independent patterns of `units` units, each value ±1 with probability ½
    /// (one bit of a 32-bit draw per unit, in pattern then unit order).
    pub fn random(units: usize, count: usize, rng: &mut SpinRng) -> Result<Self, ParamError> {
        check_shape(units, count)?;
        let values = (0..units * count)
            .map(|_| if rng.next_u32() >> 31 == 1 { 1 } else { -1 })
            .collect();
        Ok(Patterns { units, values })
    }

    /// N, the units of each pattern.
    pub fn units(&self) -> usize {
        self.units
    }

    /// P, the number of patterns.
    pub fn count(&self) -> usize {
        self.values.len() / self.units
    }

    /// Every pattern, in order.
    pub fn rows(&self) -> impl Iterator<Item = &[i8]> {
        self.values.chunks(self.units)
    }

    /// Pattern μ (panics if μ ≥ P).
    pub fn pattern(&self, mu: usize) -> &[i8] {
        &self.values[mu * self.units..(mu + 1) * self.units]
    }

    /// Hebb's rule: w_ij = (1/N) Σ_μ ξ_i^μ ξ_j^μ for i ≠ j, w_ii = 0, no biases. Each w_ij
    /// is an integer sum divided by N once, so w_ij = w_ji exactly.
    pub fn hebb_weights(&self) -> Vec<f64> {
        let n = self.units;
        let mut weights = vec![0.0; n * n];
        let mut sums = vec![0i32; n];
        for i in 0..n {
            sums.iter_mut().for_each(|s| *s = 0);
            for mu in 0..self.count() {
                let xi = self.pattern(mu);
                let a = i32::from(xi[i]);
                for (s, &b) in sums[i + 1..].iter_mut().zip(&xi[i + 1..]) {
                    *s += a * i32::from(b);
                }
            }
            for j in i + 1..n {
                let w = f64::from(sums[j]) / n as f64;
                weights[i * n + j] = w;
                weights[j * n + i] = w;
            }
        }
        weights
    }

    /// The Hebbian network: Ising units, [`Patterns::hebb_weights`], zero biases.
    pub fn hebb_network(&self) -> Network {
        Network::new(SpinKind::Ising, self.hebb_weights(), vec![0.0; self.units])
            .expect("Hebbian weights are symmetric, bounded by P/N ≤ 1, with a zero diagonal")
    }

    /// The overlap m^μ = (1/N) Σ_i ξ_i^μ s_i of `state` with pattern μ: an integer sum divided
    /// once, so exact (a multiple of 1/N). Panics if the state is shorter than N.
    pub fn overlap(&self, mu: usize, state: &[i8]) -> f64 {
        let sum: i64 = self
            .pattern(mu)
            .iter()
            .zip(state)
            .map(|(&x, &s)| i64::from(x) * i64::from(s))
            .sum();
        sum as f64 / self.units as f64
    }

    /// Every overlap m^μ, μ = 0..P.
    pub fn overlaps(&self, state: &[i8]) -> Vec<f64> {
        (0..self.count())
            .map(|mu| self.overlap(mu, state))
            .collect()
    }

    /// Which stored pattern, reversed pattern or three-pattern mixture `state` is (within
    /// 1 %: overlap ≥ [`RECALLED_OVERLAP`]), or [`Recall::Other`]. A mixture is tried with
    /// the three patterns of largest |m^μ| and the signs of their overlaps: the state is
    /// compared with sign(σ_a ξ^a + σ_b ξ^b + σ_c ξ^c) itself.
    pub fn classify(&self, state: &[i8]) -> Recall {
        let overlaps = self.overlaps(state);
        let mut order: Vec<usize> = (0..overlaps.len()).collect();
        order.sort_by(|&a, &b| {
            overlaps[b]
                .abs()
                .total_cmp(&overlaps[a].abs())
                .then(a.cmp(&b))
        });
        let best = order[0];
        if overlaps[best].abs() >= RECALLED_OVERLAP {
            return Recall::Pattern {
                index: best,
                reversed: overlaps[best] < 0.0,
            };
        }
        if order.len() >= 3 {
            let mut indices = [order[0], order[1], order[2]];
            indices.sort_unstable();
            let signs = indices.map(|mu| if overlaps[mu] < 0.0 { -1 } else { 1 });
            let agree: i64 = (0..self.units)
                .map(|i| {
                    let sum: i8 = (0..3).map(|k| signs[k] * self.pattern(indices[k])[i]).sum();
                    i64::from(sum.signum()) * i64::from(state[i])
                })
                .sum();
            if agree as f64 / self.units as f64 >= RECALLED_OVERLAP {
                return Recall::Mixture { indices, signs };
            }
        }
        Recall::Other
    }
}

/// 1 ≤ N ≤ [`Patterns::MAX_UNITS`] and 1 ≤ P ≤ N (errors name `units` and `patterns`).
pub fn check_shape(units: usize, count: usize) -> Result<(), ParamError> {
    if units == 0 || units > Patterns::MAX_UNITS {
        return Err(ParamError::OutOfRange {
            field: "units",
            value: units as f64,
            min: 1.0,
            max: Patterns::MAX_UNITS as f64,
        });
    }
    if count == 0 || count > units {
        return Err(ParamError::OutOfRange {
            field: "patterns",
            value: count as f64,
            min: 1.0,
            max: units as f64,
        });
    }
    Ok(())
}
