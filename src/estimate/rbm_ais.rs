//! ln Z of a restricted machine by annealed importance sampling, in the form of
//! Salakhutdinov & Murray (2008).
//!
//! The base model A has no weights and no hidden biases, and visible biases a_A (the log
//! base rates of the data, [`crate::model::rbm::base_rate_biases`], or 0 for a uniform base):
//! p_A(v) = Π_i σ(a_A,i)^{v_i} (1 − σ(a_A,i))^{1−v_i}, ln Z_A = Σ_i ln(1 + e^{a_A,i}) + H ln 2.
//! The target B is the machine (W, a, b). The intermediate distributions, for
//! 0 = β_0 < β_1 < … < β_K = 1, are the machines with weights β W, hidden biases β b and
//! visible biases (1 − β) a_A + β a, with the hidden layer summed out in closed form:
//!
//!   ln p*_β(v) = ((1 − β) a_A + β a)·v + Σ_j ln(1 + e^{β (b_j + (vW)_j)}),
//!
//! so p*_0(v) = 2^H e^{a_A·v}, whose sum over v is Z_A, and p*_1(v) = e^{−F(v)}, whose sum
//! is Z_B. One run draws v_1 ~ p_A
//! exactly and, for k = 1 … K, adds ln p*_{β_k}(v_k) − ln p*_{β_{k−1}}(v_k) to its log
//! weight and (for k < K) moves v_k → v_{k+1} by one block Gibbs step of the machine at
//! β_k, which leaves p_{β_k} invariant. Then E\[w\] = Z_B/Z_A, and over M runs
//!
//!   ln Ẑ_B = ln Z_A + ln((1/M) Σ_r w_r),
//!
//! with the standard error of the delta method, sd(w)/(√M mean(w)), computed relative to
//! the largest weight ([`crate::log_sum_exp::log_mean_and_spread`]). Ẑ is unbiased; ln Ẑ is
//! biased low by about stderr²/2 and is a stochastic lower bound (Markov:
//! P(ln Ẑ > ln Z + t) ≤ e^{−t}). The error bar is honest when the weights are even:
//! `effective_runs` = (Σ w)²/Σ w² should be a good fraction of M.

use super::log_z::{MAX_AIS_RUNS, MAX_WORK, MIN_AIS_RUNS};
use crate::dynamics::rbm::sample_bits;
use crate::error::ParamError;
use crate::log_sum_exp::log_mean_and_spread;
use crate::model::rbm::Rbm;
use crate::model::rbm::{hidden_input, sigmoid, softplus, visible_input};
use crate::rng::{SpinRng, seeded_rng};

/// An AIS schedule: piecewise uniform spacing of β, each piece (end, step) running from
/// the previous end (0 for the first) to `end` in steps of about `step`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AisSchedule {
    pieces: &'static [(f64, f64)],
}

impl AisSchedule {
    /// Salakhutdinov & Murray's schedule: steps of 10⁻³ up to β = 0.5, 10⁻⁴ up to 0.9 and
    /// 10⁻⁵ up to 1: 14 500 intermediate distributions.
    pub const SALAKHUTDINOV_MURRAY: AisSchedule = AisSchedule {
        pieces: &[(0.5, 1e-3), (0.9, 1e-4), (1.0, 1e-5)],
    };

    /// The same shape ten times coarser, for the page: steps of 10⁻² up to 0.5, 10⁻³ up
    /// to 0.9, 10⁻⁴ up to 1: 1 450 intermediate distributions. 100 runs on a trained 64-16
    /// machine took 1.4 s natively on a busy machine and came within 1.3 standard errors
    /// of exact (the paper's schedule: 10 s, 0.7 standard errors; tests/rbm_targets.rs).
    pub const PAGE: AisSchedule = AisSchedule {
        pieces: &[(0.5, 1e-2), (0.9, 1e-3), (1.0, 1e-4)],
    };

    /// β_0 = 0, β_1, …, β_K = 1.
    pub fn betas(&self) -> Vec<f64> {
        let mut betas = vec![0.0];
        let mut start = 0.0;
        for &(end, step) in self.pieces {
            let count = libm::round((end - start) / step).max(1.0) as usize;
            betas.extend((1..=count).map(|k| start + (end - start) * k as f64 / count as f64));
            start = end;
        }
        betas
    }

    /// K, the number of intermediate distributions after β_0.
    pub fn steps(&self) -> usize {
        self.betas().len() - 1
    }
}

/// An AIS estimate of ln Z.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AisEstimate {
    /// ln Ẑ = ln Z_A + ln mean(w).
    pub log_z: f64,
    /// Its standard error by the delta method, sd(w)/(√M mean(w)).
    pub stderr: f64,
    /// (Σ w)²/Σ w²: how many runs carry the estimate.
    pub effective_runs: f64,
    /// M, the runs.
    pub runs: u64,
    /// K, the intermediate distributions.
    pub steps: usize,
    /// ln Z_A of the base model.
    pub log_z_base: f64,
}

/// ln Z of `rbm` by AIS from the base model with visible biases `base` (length V, finite)
/// through `schedule`, with `runs` independent runs (2 ≤ M ≤ 10⁶, field `runs`) on the
/// stream of `seed`, one run after another. Work M·K·2VH must stay within 2^40 (field
/// `runs × steps`). It is [`AisRuns`] advanced to the end at once.
pub fn ais_log_z(
    rbm: &Rbm,
    base: &[f64],
    schedule: &AisSchedule,
    runs: u64,
    seed: u64,
) -> Result<AisEstimate, ParamError> {
    let mut ais = AisRuns::new(rbm, base, schedule, runs, seed)?;
    ais.advance(rbm, u64::MAX);
    Ok(ais.estimate().expect("every run is done"))
}

/// AIS runs under way ([`ais_log_z`]'s), advanced a given number of intermediate steps at
/// a time, so that a page can spread one estimate over many frames. The draws are made in
/// the same order whatever the slices, so the estimate is bit for bit [`ais_log_z`]'s
/// (tests/rbm.rs).
#[derive(Debug, Clone)]
pub struct AisRuns {
    betas: Vec<f64>,
    base: Vec<f64>,
    base_probabilities: Vec<f64>,
    rng: SpinRng,
    runs: u64,
    /// The log weights of the runs done.
    log_weights: Vec<f64>,
    /// The run under way: the next step k (0: its start v_1 ~ p_A is still to be drawn),
    /// its v_k and its log weight so far.
    step: usize,
    v: Vec<u8>,
    log_weight: f64,
    /// Scratch: the hidden state, the hidden inputs, p(h | v), the visible inputs.
    h: Vec<u8>,
    c: Vec<f64>,
    p_h: Vec<f64>,
    x: Vec<f64>,
}

impl AisRuns {
    /// `runs` runs of `rbm` from the base `base` through `schedule` on the stream of
    /// `seed`, none done yet; checked as [`ais_log_z`] checks them.
    pub fn new(
        rbm: &Rbm,
        base: &[f64],
        schedule: &AisSchedule,
        runs: u64,
        seed: u64,
    ) -> Result<AisRuns, ParamError> {
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        if base.len() != nv || base.iter().any(|x| !x.is_finite()) {
            return Err(ParamError::Invalid {
                field: "base biases",
                reason: format!("need {nv} finite values, got {}", base.len()),
            });
        }
        if !(MIN_AIS_RUNS..=MAX_AIS_RUNS).contains(&runs) {
            return Err(ParamError::OutOfRange {
                field: "runs",
                value: runs as f64,
                min: MIN_AIS_RUNS as f64,
                max: MAX_AIS_RUNS as f64,
            });
        }
        let betas = schedule.betas();
        let work = u128::from(runs) * betas.len() as u128 * 2 * (nv * nh) as u128;
        if work > MAX_WORK {
            return Err(ParamError::Invalid {
                field: "runs × steps",
                reason: format!(
                    "{runs} runs of {} steps cost {work} multiply-adds, beyond the limit 2^40",
                    betas.len() - 1
                ),
            });
        }
        Ok(AisRuns {
            betas,
            base: base.to_vec(),
            base_probabilities: base.iter().map(|&x| sigmoid(x)).collect(),
            rng: seeded_rng(seed),
            runs,
            log_weights: Vec::with_capacity(runs as usize),
            step: 0,
            v: vec![0; nv],
            log_weight: 0.0,
            h: vec![0; nh],
            c: vec![0.0; nh],
            p_h: vec![0.0; nh],
            x: vec![0.0; nv],
        })
    }

    /// The steps every run takes (K) times the runs: the whole job in [`AisRuns::advance`]'s
    /// units.
    pub fn total_steps(&self) -> u64 {
        self.runs * (self.betas.len() as u64 - 1)
    }

    /// The steps done so far, in [`AisRuns::advance`]'s units.
    pub fn steps_done(&self) -> u64 {
        self.log_weights.len() as u64 * (self.betas.len() as u64 - 1)
            + self.step.saturating_sub(1) as u64
    }

    /// Does up to `steps` intermediate steps (each adds ln p*_{β_k}(v_k) − ln p*_{β_{k−1}}(v_k)
    /// to the run's log weight and moves v_k → v_{k+1} by one block Gibbs step at β_k;
    /// the module notes), starting new runs as old ones end. `rbm` must be the machine the
    /// runs were made for. Returns whether every run is done.
    pub fn advance(&mut self, rbm: &Rbm, steps: u64) -> bool {
        let last = self.betas.len() - 1;
        let mut left = steps;
        while left > 0 && (self.log_weights.len() as u64) < self.runs {
            if self.step == 0 {
                sample_bits(&self.base_probabilities, &mut self.v, &mut self.rng);
                self.log_weight = 0.0;
                self.step = 1;
            }
            let k = self.step;
            hidden_input(rbm, &self.v, &mut self.c);
            self.log_weight += self.log_p(rbm, self.betas[k]) - self.log_p(rbm, self.betas[k - 1]);
            if k < last {
                let beta = self.betas[k];
                for (p, &cj) in self.p_h.iter_mut().zip(&self.c) {
                    *p = sigmoid(beta * cj);
                }
                sample_bits(&self.p_h, &mut self.h, &mut self.rng);
                visible_input(rbm, &self.h, &mut self.x);
                for (xi, &a0) in self.x.iter_mut().zip(&self.base) {
                    *xi = sigmoid((1.0 - beta) * a0 + beta * *xi);
                }
                sample_bits(&self.x, &mut self.v, &mut self.rng);
                self.step += 1;
            } else {
                self.log_weights.push(self.log_weight);
                self.step = 0;
            }
            left -= 1;
        }
        self.log_weights.len() as u64 == self.runs
    }

    /// ln p*_β(v) = ((1 − β) a_A + β a)·v + Σ_j ln(1 + e^{β c_j}) of the run's v, with
    /// c = b + vW its hidden inputs (already in `self.c`).
    fn log_p(&self, rbm: &Rbm, beta: f64) -> f64 {
        let linear: f64 = self
            .v
            .iter()
            .zip(self.base.iter().zip(rbm.visible_biases()))
            .map(|(&vi, (&a0, &a))| f64::from(vi) * ((1.0 - beta) * a0 + beta * a))
            .sum();
        linear + self.c.iter().map(|&cj| softplus(beta * cj)).sum::<f64>()
    }

    /// The estimate, once every run is done.
    pub fn estimate(&self) -> Option<AisEstimate> {
        if (self.log_weights.len() as u64) < self.runs {
            return None;
        }
        let nh = self.c.len();
        let log_z_base = self.base.iter().map(|&a| softplus(a)).sum::<f64>()
            + nh as f64 * core::f64::consts::LN_2;
        let (log_mean, relative_sd, effective_runs) = log_mean_and_spread(&self.log_weights);
        Some(AisEstimate {
            log_z: log_z_base + log_mean,
            stderr: relative_sd / libm::sqrt(self.runs as f64),
            effective_runs,
            runs: self.runs,
            steps: self.betas.len() - 1,
            log_z_base,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedules_rise_from_0_to_1_with_the_papers_spacing() {
        for (schedule, steps) in [
            (AisSchedule::SALAKHUTDINOV_MURRAY, 14_500),
            (AisSchedule::PAGE, 1_450),
        ] {
            let betas = schedule.betas();
            assert_eq!(betas.len(), steps + 1);
            assert_eq!((betas[0], betas[steps]), (0.0, 1.0));
            assert!(betas.windows(2).all(|w| w[1] > w[0]));
        }
        let page = AisSchedule::PAGE.betas();
        assert!((page[50] - 0.5).abs() < 1e-15 && (page[450] - 0.9).abs() < 1e-15);
    }
}
