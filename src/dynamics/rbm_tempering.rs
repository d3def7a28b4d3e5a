//! Parallel tempering for the free phase: R replicas of the persistent particles at
//! inverse temperatures 1 = β_0 > β_1 > … > β_{R−1} > 0, with swaps between neighbours.
//!
//! Replica r holds K particles of p_{β_r}(v, h) ∝ e^{−β_r E(v, h)}; each update advances
//! every replica k block Gibbs steps at its own β ([`Particles::advance_at`]), and then,
//! for each neighbouring pair (r, r + 1) in turn and each particle index, proposes to
//! exchange the two states, accepted with probability
//!
//!   min(1, e^{(β_r − β_{r+1}) (E(x_r) − E(x_{r+1}))}),
//!
//! which keeps the product of the replicas' distributions invariant. Hot replicas cross
//! energy barriers easily and hand their states down, so the β = 1 particles, the only
//! ones whose statistics are used, move between modes that plain persistent chains leave
//! only rarely (Desjardins et al. 2010). The spacing here is linear: β_r = 1 − r/R.

use super::rbm::Particles;
use crate::dynamics::rules::threshold;
use crate::model::rbm::Rbm;
use crate::rng::SpinRng;
use rand::Rng;

/// Replicas of persistent particles at falling β, with their swap counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicas {
    betas: Vec<f64>,
    replicas: Vec<Particles>,
    proposed: u64,
    accepted: u64,
}

impl Replicas {
    /// A copy of the states alone, for a saved run ([`Particles::states_only`]).
    pub fn states_only(&self) -> Replicas {
        Replicas {
            betas: self.betas.clone(),
            replicas: self.replicas.iter().map(Particles::states_only).collect(),
            proposed: self.proposed,
            accepted: self.accepted,
        }
    }

    /// Recomputes each replica's missing cache ([`Particles::restore_probabilities`]).
    pub fn restore_probabilities(&mut self, rbm: &Rbm) {
        for particles in &mut self.replicas {
            particles.restore_probabilities(rbm);
        }
    }

    /// R replicas (β_r = 1 − r/R) of K uniformly random particles each, drawn from `rng`
    /// replica by replica. The caller checks R and K.
    pub fn random(replicas: usize, particles: usize, rbm: &Rbm, rng: &mut SpinRng) -> Replicas {
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        Replicas {
            betas: (0..replicas)
                .map(|r| 1.0 - r as f64 / replicas as f64)
                .collect(),
            replicas: (0..replicas)
                .map(|_| Particles::random(particles, nv, nh, rng))
                .collect(),
            proposed: 0,
            accepted: 0,
        }
    }

    /// Replicas for a saved run: `replicas` (R ≥ 2 sets of one shape, replica 0 the
    /// coldest) at `betas`, which must be exactly β_r = 1 − r/R, with the swap counts
    /// (accepted ≤ proposed). Errors name `field`.
    pub fn from_parts(
        field: &'static str,
        betas: Vec<f64>,
        replicas: Vec<Particles>,
        proposed: u64,
        accepted: u64,
    ) -> Result<Replicas, crate::error::ParamError> {
        let bad = |reason: String| crate::error::ParamError::Invalid { field, reason };
        let count = replicas.len();
        if betas.len() != count || count < 2 {
            return Err(bad(format!(
                "need as many temperatures as replicas (at least 2), got {} and {count}",
                betas.len()
            )));
        }
        for (r, &beta) in betas.iter().enumerate() {
            let expected = 1.0 - r as f64 / count as f64;
            if beta.to_bits() != expected.to_bits() {
                return Err(bad(format!(
                    "β of replica {r} must be 1 − {r}/{count} = {expected}, got {beta}"
                )));
            }
        }
        if accepted > proposed {
            return Err(bad(format!(
                "{accepted} swaps accepted of {proposed} proposed"
            )));
        }
        Ok(Replicas {
            betas,
            replicas,
            proposed,
            accepted,
        })
    }

    /// Replicas R.
    pub fn count(&self) -> usize {
        self.replicas.len()
    }

    /// Swaps proposed and accepted so far.
    pub fn swaps(&self) -> (u64, u64) {
        (self.proposed, self.accepted)
    }

    /// β_r of each replica.
    pub fn betas(&self) -> &[f64] {
        &self.betas
    }

    /// The β = 1 particles (what the statistics and the page use).
    pub fn coldest(&self) -> &Particles {
        &self.replicas[0]
    }

    /// Replica r's particles.
    pub fn replica(&self, r: usize) -> &Particles {
        &self.replicas[r]
    }

    /// The fraction of proposed swaps accepted so far (0 before any).
    pub fn acceptance(&self) -> f64 {
        if self.proposed == 0 {
            0.0
        } else {
            self.accepted as f64 / self.proposed as f64
        }
    }

    /// Advances every replica `steps` block Gibbs steps at its β (replica 0 first).
    pub fn advance(&mut self, rbm: &Rbm, steps: usize, rng: &mut SpinRng) {
        for (particles, &beta) in self.replicas.iter_mut().zip(&self.betas) {
            particles.advance_at(rbm, beta, steps, rng);
        }
    }

    /// One round of swaps: for r = 0 … R − 2 and each particle k, exchange the states of
    /// replicas r and r + 1 with probability min(1, e^{(β_r − β_{r+1})(E_r − E_{r+1})}),
    /// decided by one 32-bit draw as every other bit. An exchanged state keeps p(h | v) of
    /// its old β; the next advance recomputes it.
    pub fn swap(&mut self, rbm: &Rbm, rng: &mut SpinRng) {
        let k = self.coldest().count();
        for pair in 0..self.replicas.len().saturating_sub(1) * k {
            self.swap_pair(rbm, pair, rng);
        }
    }

    /// Swap proposals in a round: (R − 1)·K.
    pub fn pairs(&self) -> usize {
        (self.replicas.len() - 1) * self.coldest().count()
    }

    /// The `pair`-th proposal of a round of [`Replicas::swap`] (pair = r·K + k: replicas r
    /// and r + 1, particle k), so that a round can be done in slices.
    pub fn swap_pair(&mut self, rbm: &Rbm, pair: usize, rng: &mut SpinRng) {
        let count = self.coldest().count();
        let (r, k) = (pair / count, pair % count);
        let gap = self.betas[r] - self.betas[r + 1];
        let (low, high) = self.replicas.split_at_mut(r + 1);
        let (cold, hot) = (&mut low[r], &mut high[0]);
        let difference = gap * (cold.energy(rbm, k) - hot.energy(rbm, k));
        let p = if difference >= 0.0 {
            1.0
        } else {
            libm::exp(difference)
        };
        self.proposed += 1;
        if u64::from(rng.next_u32()) < threshold(p) {
            cold.exchange(hot, k);
            self.accepted += 1;
        }
    }

    /// Replica r's particles, to advance.
    pub(crate) fn replica_mut(&mut self, r: usize) -> &mut Particles {
        &mut self.replicas[r]
    }
}
