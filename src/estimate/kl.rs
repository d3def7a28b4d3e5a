//! KL(data ‖ model) for a machine too big to enumerate: exact data terms, ln Z by AIS.
//!
//! KL = Σ_v P(v) ln P(v) − Σ_v P(v) ln Z(v) + ln Z, where P is the training set's empirical
//! distribution ([`data_distribution`]), Z(v) = Σ_h e^{−E(v,h)/T} sums the hidden states
//! exactly ([`visible_log_z`]), and ln Z is estimated by the engine's AIS driver
//! ([`super::ais::Ais`]) on the general network's path ([`log_z::NetworkPath`]) a chunk of runs
//! at a time ([`KlEstimate`]), so a page can spread the work over frames.

use super::ais::{Ais, AisPath};
use super::exact_log_z;
use super::log_z::{self, NetworkPath};
use crate::dynamics::NetworkSampler;
use crate::error::{ParamError, TemperatureDomain, check_temperature, whole_in};
use crate::log_sum_exp::log_mean_and_spread;
use crate::model::Network;
use crate::model::patterns::check_patterns;

/// AIS runs per chunk of the KL estimate (the engine's minimum).
pub const AIS_KL_RUNS_PER_CHUNK: u64 = log_z::MIN_AIS_RUNS;
/// Intermediate temperatures per AIS run of the KL estimate (few, so that one chunk of
/// 40-10-40, 50 units, takes a few milliseconds in the page).
pub const AIS_KL_STEPS: u64 = 250;
/// Most hidden units whose 2^hidden states the KL estimate sums per pattern.
pub const MAX_KL_HIDDEN: usize = 16;
/// An AIS estimate of KL(data ‖ model) for a network too big to enumerate, done a chunk
/// of AIS runs at a time so that the page stays smooth.
///
/// KL = Σ_v P(v) ln P(v) − Σ_v P(v) ln Z(v) + ln Z, where P is the training set's
/// distribution, Z(v) = Σ_h e^{−E(v,h)/T} sums the 2^hidden hidden states exactly
/// ([`visible_log_z`]), and ln Z is estimated by AIS ([`NetworkPath`], the linear schedule
/// of [`log_z::ais_schedule`] with [`AIS_KL_STEPS`] steps), a chunk being a batch of
/// [`AIS_KL_RUNS_PER_CHUNK`] runs. The data terms are exact, so the standard error of
/// the KL estimate is that of ln Ẑ.
#[derive(Debug, Clone)]
pub struct KlEstimate {
    /// The network and its AIS path (the runs share the network).
    path: NetworkPath,
    temperature: f64,
    cycle: u64,
    data_term: f64,
    seed: u64,
    chunks: usize,
    /// ln Ẑ_c of the chunks done before a resumption.
    resumed: Vec<f64>,
    ais: Ais<NetworkSampler>,
}

impl KlEstimate {
    /// Starts an estimate for `network` (hidden ≤ [`MAX_KL_HIDDEN`]) at `temperature` on
    /// `patterns`, with `chunks` chunks of AIS runs, from `seed`; `cycle` labels it.
    pub fn new(
        network: &Network,
        temperature: f64,
        patterns: &[Vec<u8>],
        chunks: usize,
        seed: u64,
        cycle: u64,
    ) -> Result<KlEstimate, ParamError> {
        check_temperature(temperature, TemperatureDomain::LogZ)?;
        whole_in("chunks", chunks as f64, 2, 1_000_000)?;
        check_patterns(patterns, network.visible())?;
        let mut data_term = 0.0;
        for (v, p) in data_distribution(patterns) {
            data_term += p * (libm::log(p) - visible_log_z(network, temperature, &v)?);
        }
        // The AIS limits of the general network's estimator (runs, steps, work), so that
        // a chunk is refused here as log_z::ais_log_z would refuse it.
        let n = network.len() as u128;
        if u128::from(AIS_KL_RUNS_PER_CHUNK * AIS_KL_STEPS) * n * n > log_z::MAX_WORK {
            return Err(ParamError::Invalid {
                field: "runs × steps",
                reason: format!("a chunk of AIS runs on {n} units is beyond the limit 2^40"),
            });
        }
        let betas = log_z::ais_schedule(temperature, AIS_KL_STEPS)?;
        let runs = chunks as u64 * AIS_KL_RUNS_PER_CHUNK;
        Ok(KlEstimate {
            path: NetworkPath::new(network),
            temperature,
            cycle,
            data_term,
            seed,
            chunks,
            resumed: Vec::new(),
            ais: Ais::new(betas, runs, AIS_KL_RUNS_PER_CHUNK as usize, seed),
        })
    }

    /// Runs up to `chunks` more chunks; returns whether the estimate is complete.
    pub fn advance(&mut self, chunks: usize) -> Result<bool, ParamError> {
        let steps = (chunks as u64)
            .saturating_mul(AIS_KL_RUNS_PER_CHUNK)
            .saturating_mul(self.ais.steps());
        self.ais.advance(&self.path, steps);
        Ok(self.done())
    }

    /// Whether every chunk has run.
    pub fn done(&self) -> bool {
        self.ais.done()
    }

    /// ln Ẑ_c of each chunk done: ln Z_0 + ln mean(w) of its runs.
    fn chunk_log_z(&self) -> Vec<f64> {
        let base = self.path.log_z_base();
        let done = self.ais.batch_log_means().iter().map(|m| base + m);
        self.resumed.iter().copied().chain(done).collect()
    }

    /// The learning cycle the estimate belongs to.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// (KL estimate, its standard error) from the chunks run so far (at least two).
    ///
    /// Each chunk's Ẑ_c is the mean of its runs' importance weights, so the Ẑ_c are
    /// independent and identically distributed with mean Z: ln Ẑ = ln mean_c Ẑ_c, with
    /// standard error sd(Ẑ_c) / (√C · mean(Ẑ_c)) (the delta method, as in
    /// [`log_z::ais_log_z`]), computed relative to the largest Ẑ_c by
    /// [`log_mean_and_spread`].
    pub fn value(&self) -> Option<(f64, f64)> {
        let chunk_log_z = self.chunk_log_z();
        let c = chunk_log_z.len();
        if c < 2 {
            return None;
        }
        let (log_z, relative_sd, _) = log_mean_and_spread(&chunk_log_z);
        let stderr = relative_sd / libm::sqrt(c as f64);
        Some((self.data_term + log_z, stderr))
    }
}

/// What a [`KlEstimate`] under way started from and the chunks it has done: for a saved
/// run that continues exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct KlEstimateState {
    pub network: Network,
    pub temperature: f64,
    pub seed: u64,
    pub chunks: usize,
    pub cycle: u64,
    /// ln Ẑ_c of each chunk done.
    pub chunk_log_z: Vec<f64>,
}

impl KlEstimate {
    /// What the estimate started from and the chunks done, for a session.
    pub fn saved(&self) -> KlEstimateState {
        KlEstimateState {
            network: self.path.network().clone(),
            temperature: self.temperature,
            seed: self.seed,
            chunks: self.chunks,
            cycle: self.cycle,
            chunk_log_z: self.chunk_log_z(),
        }
    }

    /// The estimate `saved` describes on `patterns`, continuing exactly: started again by
    /// [`KlEstimate::new`] (which checks it and recomputes the data terms), with fewer
    /// than `chunks` finite chunk results (field `estimate.chunk_log_z`).
    pub fn resumed(saved: KlEstimateState, patterns: &[Vec<u8>]) -> Result<KlEstimate, ParamError> {
        let mut estimate = KlEstimate::new(
            &saved.network,
            saved.temperature,
            patterns,
            saved.chunks,
            saved.seed,
            saved.cycle,
        )?;
        let done = &saved.chunk_log_z;
        if done.len() >= saved.chunks || !done.iter().all(|l| l.is_finite()) {
            return Err(ParamError::Invalid {
                field: "estimate.chunk_log_z",
                reason: format!(
                    "need fewer than {} finite ln Z of the chunks done, got {}",
                    saved.chunks,
                    done.len()
                ),
            });
        }
        estimate.ais.resume_at_batch(done.len() as u64);
        estimate.resumed = saved.chunk_log_z;
        Ok(estimate)
    }
}

/// ln Z(v) = ln Σ_h e^{−E(v,h)/T}: the visible units held at the 0/1 vector `v`, the
/// hidden units summed over all 2^hidden states (hidden ≤ [`MAX_KL_HIDDEN`]) by the one
/// exact ln Z ([`exact_log_z::log_z_at`]). Finite T > 0.
pub fn visible_log_z(network: &Network, temperature: f64, v: &[u8]) -> Result<f64, ParamError> {
    let temperature = check_temperature(temperature, TemperatureDomain::LogZ)?;
    check_patterns(&[v.to_vec()], network.visible())?;
    let hidden = network.hidden();
    if hidden > MAX_KL_HIDDEN {
        return Err(ParamError::Invalid {
            field: "hidden units",
            reason: format!(
                "the KL estimate sums all 2^hidden hidden states per pattern and handles at \
                 most {MAX_KL_HIDDEN} hidden units, got {hidden}"
            ),
        });
    }
    let kind = network.kind();
    let clamp: Vec<Option<i8>> = (0..network.len())
        .map(|i| v.get(i).map(|&b| kind.value(b == 1)))
        .collect();
    Ok(exact_log_z::log_z_at(network, 1.0 / temperature, &clamp))
}

/// The empirical distribution of the training vectors: each distinct vector once, with
/// its frequency (in order of first appearance).
pub fn data_distribution(patterns: &[Vec<u8>]) -> Vec<(Vec<u8>, f64)> {
    let mut distinct: Vec<(Vec<u8>, usize)> = Vec::new();
    for p in patterns {
        match distinct.iter_mut().find(|(v, _)| v == p) {
            Some((_, count)) => *count += 1,
            None => distinct.push((p.clone(), 1)),
        }
    }
    let total = patterns.len() as f64;
    distinct
        .into_iter()
        .map(|(v, c)| (v, c as f64 / total))
        .collect()
}
