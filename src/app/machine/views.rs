//! The arrays the page's views read (through typed-array views over wasm memory, or copied
//! into a frame): the units' activations, the clamp flags, w_ij, θ_i, and the clamped and
//! free statistics ⟨s_i s_j⟩ as n×n matrices, refreshed from the learner (or from the
//! hand-run sampler while exploring).

use super::{Machine, MachineLab};
use crate::learn::{Phase, PhaseStatistics};

impl MachineLab {
    /// Re-reads the views' arrays from the learner.
    pub(super) fn refresh(&mut self) {
        let n = self.dataset.units();
        let high = self.network().kind().high();
        if let Some(sampler) = &self.explore {
            for i in 0..n {
                self.activations[i] = f64::from(u8::from(sampler.state()[i] == high));
                self.clamps[i] = u8::from(sampler.is_clamped(i));
            }
            return;
        }
        match &self.machine {
            Machine::Stochastic(l) => {
                let sampler = l.sampler();
                for i in 0..n {
                    self.activations[i] = f64::from(u8::from(sampler.state()[i] == high));
                    self.clamps[i] = u8::from(sampler.is_clamped(i));
                }
            }
            Machine::MeanField(l) => {
                let position = self.shown;
                if let Some(mf) = l.last_solution() {
                    self.activations.copy_from_slice(&mf.probabilities);
                }
                let clamped = match (position.phase, position.pattern) {
                    (Phase::Clamped, Some(_)) => self.dataset.visible(),
                    (Phase::Free, Some(_)) => self.dataset.encoder().map_or(0, |e| e.group),
                    _ => 0,
                };
                for i in 0..n {
                    self.clamps[i] = u8::from(i < clamped);
                }
            }
        }
        let network = self.machine.learner().network();
        for i in 0..n {
            for j in 0..n {
                self.weights[i * n + j] = if i == j { 0.0 } else { network.weight(i, j) };
            }
        }
        let (clamped, free) = self.statistics();
        fill_pairs(&mut self.clamped_pairs, &clamped);
        fill_pairs(&mut self.free_pairs, &free);
        for k in 0..n * n {
            self.pair_difference[k] = self.clamped_pairs[k] - self.free_pairs[k];
        }
    }

    /// The clamped and free statistics: the last completed cycle's, or the current
    /// cycle's so far before the first.
    fn statistics(&self) -> (PhaseStatistics, PhaseStatistics) {
        if let Some(report) = self.machine.learner().last_cycle() {
            return (report.clamped.clone(), report.free.clone());
        }
        match &self.machine {
            Machine::Stochastic(l) => (l.statistics(Phase::Clamped), l.statistics(Phase::Free)),
            Machine::MeanField(l) => (l.statistics(Phase::Clamped), l.statistics(Phase::Free)),
        }
    }

    /// q_i = P(s_i = high) per unit (0 or 1 when sampling).
    pub fn activations(&self) -> &[f64] {
        &self.activations
    }

    /// 1 where a unit is clamped now.
    pub fn clamps(&self) -> &[u8] {
        &self.clamps
    }

    /// w_ij, n×n row-major, zero diagonal.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// θ_i.
    pub fn biases(&self) -> &[f64] {
        self.network().biases()
    }

    /// ⟨s_i s_j⟩ clamped, n×n (diagonal ⟨s_i⟩).
    pub fn clamped_pairs(&self) -> &[f64] {
        &self.clamped_pairs
    }

    /// ⟨s_i s_j⟩ free, n×n (diagonal ⟨s_i⟩).
    pub fn free_pairs(&self) -> &[f64] {
        &self.free_pairs
    }

    /// Clamped minus free, n×n.
    pub fn pair_difference(&self) -> &[f64] {
        &self.pair_difference
    }
}

/// Writes ⟨s_i s_j⟩ into an n×n matrix with ⟨s_i⟩ on the diagonal.
fn fill_pairs(matrix: &mut [f64], statistics: &PhaseStatistics) {
    let n = statistics.means.len();
    for i in 0..n {
        for j in 0..n {
            matrix[i * n + j] = if i == j {
                statistics.means[i]
            } else {
                statistics.pair(i, j)
            };
        }
    }
}
