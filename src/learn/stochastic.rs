//! The stochastic Boltzmann machine: the two-phase rule with sampled statistics
//! (Ackley, Hinton & Sejnowski 1985), one sweep, settling or cycle at a time.
//!
//! A settling: release every clamp; in the clamped phase clamp the visible units to the
//! (noisy) training vector of this settling, in the free phase clamp nothing (or only the
//! inputs, to the same noisy vector as the clamped phase's settling of the same index);
//! set every free unit to a random value; then sweep by the [`super::Settling`] plan with
//! heat-bath ticks on randomly chosen free units (the paper's random probes;
//! P(s_k = high) = 1/(1 + e^{−Δ_k/T})). In each collection sweep the state after the
//! sweep is added to the phase's statistics, so one settling contributes
//! `collect_sweeps` states. The clamped phase settles each training vector `settlings`
//! times in a row (vector 0, 0, 1, 1, …); the free phase does as many settlings.
//! Three details the paper leaves open are [`Sampling`] (set by
//! [`StochasticLearner::set_sampling`]): how a time unit's probes choose units
//! ([`ProbeOrder`]), when states are recorded ([`CollectAt`]) and whether a vector's
//! settlings share one noisy copy ([`NoisyCopy`]); the defaults are as above.
//!
//! The way each phase gets its statistics is [`super::LearningOptions::statistics`]
//! ([`super::statistics`]): with [`GeneralStatistics::ANNEAL`] everything is as above.
//! A warm-started clamped settling continues its training vector's saved state instead
//! of randomising; a persistent free phase has one settling per fantasy particle, which
//! continues that particle's saved state (random the first time) for k sweeps at T; a
//! mean-field clamped settling is one step that clamps the vector and draws nothing (the
//! statistics are solved for the cycle's presented vectors when the cycle ends).
//!
//! Streams: the seed is split into a sampler stream (randomising, probing, heat-bath
//! decisions) and a noise stream (noisy clamping), so changing the noise does not shift
//! the sampler's random numbers.

use super::statistics::{mean_field_clamped, replica_temperature};
use super::{
    ClampedStatistics, CycleReport, FreePhase, FreeStatistics, GeneralStatistics, Learner,
    LearnerCommonState, LearnerCore, LearningOptions, Phase, PhaseStatistics, Position, Progress,
    check_patterns, split_seed, to_kind,
};
use crate::dynamics::network_sampler::NetworkSamplerState;
use crate::dynamics::{NetworkOrder, NetworkSampler, Rule, Schedule};
use crate::error::{ParamError, whole_in};
use crate::estimate::Correlations;
use crate::estimate::correlations::CorrelationSums;
use crate::model::Network;
use crate::rng::seeded_rng;

/// A network learning from training vectors by the stochastic two-phase rule.
#[derive(Debug, Clone)]
pub struct StochasticLearner {
    sampler: NetworkSampler,
    patterns: Vec<Vec<u8>>,
    /// The clamped and free phases' settling plans ([`LearningOptions::plan_of`]).
    plans: [Vec<(f64, bool)>; 2],
    /// Warm-started clamped phase: the state kept for each training vector shown so far.
    warm: Vec<Vec<i8>>,
    /// Persistent free phase: the fantasy particles advanced so far; when tempering, each
    /// particle's ladder of R chains in a row (particle p's chain r at p·R + r).
    particles: Vec<Vec<i8>>,
    clamped: Correlations,
    free: Correlations,
    /// The options, the place in the cycle, the updater, the last report, a divergence.
    core: LearnerCore,
    /// How probes, collection and noisy copies are read ([`Sampling`]).
    sampling: Sampling,
}

/// How the n probes of one time unit choose their units (paper, footnote 4 p. 159: "a
/// time period of 1 involves n random probes in which some unit is given a chance to
/// change its state").
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProbeOrder {
    /// Each probe a free unit drawn uniformly, with replacement (boltzlab's reading).
    Random,
    /// The free units in a fresh random permutation each time unit: every unit exactly
    /// once ([`NetworkSampler::sweep_permuted`]).
    Permutation,
    /// The free units in index order, cyclically (not random: a departure).
    Typewriter,
}

/// When the collection time units record states for p_ij (paper p. 159: "statistics
/// were collected at a temperature of 10 for 10 units of time"; the granularity is not
/// stated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CollectAt {
    /// The state after each collection time unit: 10 per settling (boltzlab's reading).
    TimeUnit,
    /// The state after every probe of the collection time units: 10·n per settling
    /// (n free units, so the clamped phase's count differs from the free phase's).
    Probe,
    /// Only the state at the end of the settling: 1 per settling.
    End,
}

/// Which noisy copy of a training vector each of its clamped settlings uses (paper
/// p. 156: "These noisy vectors are then clamped"; whether the two settlings of one
/// vector share one is not stated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoisyCopy {
    /// A fresh noisy copy for each settling (boltzlab's reading).
    PerSettling,
    /// One noisy copy per vector and cycle, shared by its settlings.
    PerVector,
}

/// The sampling details of the stochastic learner that the paper leaves open. The
/// default is boltzlab's reading: random probes with replacement, a state per
/// collection time unit, a fresh noisy copy per settling. Not part of
/// [`StochasticState`]: a learner restored from a saved state samples by the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Sampling {
    /// How a time unit's probes choose units.
    pub probes: ProbeOrder,
    /// When states are recorded.
    pub collect_at: CollectAt,
    /// Noisy copies per settling or per vector.
    pub noisy_copy: NoisyCopy,
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling {
            probes: ProbeOrder::Random,
            collect_at: CollectAt::TimeUnit,
            noisy_copy: NoisyCopy::PerSettling,
        }
    }
}

/// Names on the command line, and parsing with an error naming `field`.
macro_rules! named_choices {
    ($ty:ident, $field:literal, $allowed:literal, $($variant:ident => $name:literal),+) => {
        impl $ty {
            /// Every choice.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];

            /// The name on the command line.
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }

            /// Parses a name; the error names the field and the allowed names.
            pub fn parse(name: &str) -> Result<$ty, ParamError> {
                $ty::ALL.iter().copied().find(|c| c.name() == name).ok_or_else(|| {
                    ParamError::UnknownChoice {
                        field: $field,
                        value: name.to_string(),
                        allowed: $allowed,
                    }
                })
            }
        }
    };
}

named_choices!(ProbeOrder, "probes", "random, permutation, typewriter", Random => "random", Permutation => "permutation",
    Typewriter => "typewriter");
named_choices!(CollectAt, "collect at", "time-unit, probe, end", TimeUnit => "time-unit", Probe => "probe", End => "end");
named_choices!(NoisyCopy, "noisy copy", "settling, vector", PerSettling => "settling", PerVector => "vector");

impl StochasticLearner {
    /// A learner for `network` (its visible units, mask and starting weights) and the
    /// training vectors `patterns` (0/1, one value per visible unit).
    ///
    /// Checks: the options ([`LearningOptions::check`]), the vectors
    /// ([`super::check_patterns`]: field `patterns`), the free-phase inputs
    /// (1 ≤ k < visible).
    pub fn new(
        network: Network,
        patterns: &[Vec<u8>],
        options: LearningOptions,
    ) -> Result<Self, ParamError> {
        options.check()?;
        check_patterns(patterns, network.visible())?;
        options.check_free_phase(network.visible())?;
        let (sampler_seed, noise_seed) = split_seed(options.seed);
        let n = network.len();
        let plans = [
            options.plan_of(Phase::Clamped),
            options.plan_of(Phase::Free),
        ];
        let sampler = NetworkSampler::new(
            network,
            plans[0][0].0,
            Rule::HeatBath,
            NetworkOrder::Random,
            sampler_seed,
        )?;
        Ok(StochasticLearner {
            sampler,
            patterns: patterns.to_vec(),
            plans,
            warm: Vec::new(),
            particles: Vec::new(),
            clamped: Correlations::new(n),
            free: Correlations::new(n),
            core: LearnerCore::new(options, seeded_rng(noise_seed), n),
            sampling: Sampling::default(),
        })
    }

    /// Sets the sampling details ([`Sampling`]); takes effect from the next time unit.
    pub fn set_sampling(&mut self, sampling: Sampling) {
        self.sampling = sampling;
        self.sampler.set_order(match sampling.probes {
            ProbeOrder::Typewriter => NetworkOrder::Sequential,
            ProbeOrder::Random | ProbeOrder::Permutation => NetworkOrder::Random,
        });
    }

    /// The sampling details.
    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    /// The sampler: the current state, clamps and temperature (for the live view).
    pub fn sampler(&self) -> &NetworkSampler {
        &self.sampler
    }

    /// The training vectors.
    pub fn patterns(&self) -> &[Vec<u8>] {
        &self.patterns
    }

    /// The statistics gathered so far in the current cycle for `phase` (complete for the
    /// clamped phase once the free phase has started). Before any sample, zero with
    /// `samples` = 0; a mean-field clamped phase's are solved when the cycle ends, so they
    /// read as zero until then.
    pub fn statistics(&self, phase: Phase) -> PhaseStatistics {
        match phase {
            // Solved for the whole cycle when it ends, never piecemeal (a live view asking
            // every frame must not cost a solve per presented vector).
            Phase::Clamped if self.mean_field_clamped() => {
                PhaseStatistics::empty(self.network_len())
            }
            Phase::Clamped => statistics_of(&self.clamped),
            Phase::Free => statistics_of(&self.free),
        }
    }

    fn network_len(&self) -> usize {
        self.sampler.network().len()
    }

    /// Whether the clamped phase is the mean-field settling.
    fn mean_field_clamped(&self) -> bool {
        self.core.options.statistics.clamped == ClampedStatistics::MeanField
    }

    /// The mean-field clamped statistics of the vectors presented so far in this cycle,
    /// and the solves that did not converge.
    fn mean_field_statistics(&self) -> Result<(PhaseStatistics, u64), ParamError> {
        let n = self.network_len();
        let count = self.core.presented.len();
        if count == 0 {
            return Ok((PhaseStatistics::empty(n), 0));
        }
        let (means, pairs, nonconverged) = mean_field_clamped(
            self.sampler.network(),
            self.core.options.temperature(),
            &self.core.presented,
        )?;
        let m = count as f64;
        Ok((
            PhaseStatistics {
                samples: count as u64,
                means: means.into_iter().map(|x| x / m).collect(),
                pairs: pairs.into_iter().map(|x| x / m).collect(),
            },
            nonconverged,
        ))
    }

    /// The plan of the current phase's settlings.
    fn plan(&self) -> &[(f64, bool)] {
        &self.plans[usize::from(self.core.position.phase == Phase::Free)]
    }

    /// The way of getting the statistics.
    pub fn statistics_way(&self) -> GeneralStatistics {
        self.core.options.statistics
    }

    /// Settlings in the current phase ([`LearningOptions::settlings_in`]).
    fn settlings_per_phase(&self) -> u64 {
        self.core
            .options
            .settlings_in(self.core.position.phase, self.patterns.len())
    }

    /// The training vector of settling `s`.
    fn pattern_of(&self, s: u64) -> usize {
        (s / self.core.options.settlings) as usize
    }

    /// Sets up a settling: clamps and random free units.
    fn begin_settling(&mut self) -> Result<(), ParamError> {
        self.sampler.release_all();
        let kind = self.sampler.network().kind();
        let s = self.core.position.settling;
        match self.core.position.phase {
            Phase::Clamped => {
                let k = self.pattern_of(s);
                let shared = self.sampling.noisy_copy == NoisyCopy::PerVector
                    && !s.is_multiple_of(self.core.options.settlings);
                let shown = match self.core.presented.last() {
                    Some(copy) if shared => copy.clone(),
                    _ => self
                        .core
                        .options
                        .noise
                        .present(&self.patterns[k], &mut self.core.noise_rng),
                };
                let warm = match self.core.options.statistics.clamped {
                    ClampedStatistics::WarmStarted { .. } => self.warm.get(k),
                    _ => None,
                };
                if let Some(state) = warm {
                    self.sampler.set_state(state)?;
                }
                self.sampler.clamp_visible(&to_kind(kind, &shown))?;
                self.core.presented.push(shown);
                match self.core.options.statistics.clamped {
                    ClampedStatistics::MeanField => return Ok(()),
                    ClampedStatistics::WarmStarted { .. } if warm.is_some() => return Ok(()),
                    _ => {}
                }
            }
            Phase::Free => {
                if let FreePhase::Inputs(inputs) = self.core.options.free_phase {
                    let shown = &self.core.presented[s as usize][..inputs];
                    let units: Vec<usize> = (0..inputs).collect();
                    self.sampler.clamp(&units, &to_kind(kind, shown))?;
                }
                if let FreeStatistics::Persistent { replicas, .. } =
                    self.core.options.statistics.free
                    && let Some(state) = self.particles.get((s * replicas) as usize)
                {
                    self.sampler.set_state(state)?;
                    return Ok(());
                }
            }
        }
        self.sampler.randomize_free_units();
        Ok(())
    }

    /// Keeps the state a chain reached at the end of its settling: the training vector's
    /// warm state or the fantasy particle (chain 0 of its ladder when tempering, which
    /// then advances the rest of the ladder: [`StochasticLearner::advance_ladder`]).
    fn keep_chain_state(&mut self) {
        let state = self.sampler.state().to_vec();
        let s = self.core.position.settling as usize;
        let pattern = self.pattern_of(s as u64);
        let replicas = self.core.options.statistics.replicas().max(1) as usize;
        let (store, index) = match (self.core.position.phase, self.core.options.statistics) {
            (
                Phase::Clamped,
                GeneralStatistics {
                    clamped: ClampedStatistics::WarmStarted { .. },
                    ..
                },
            ) => (&mut self.warm, pattern),
            (
                Phase::Free,
                GeneralStatistics {
                    free: FreeStatistics::Persistent { .. },
                    ..
                },
            ) => (&mut self.particles, s * replicas),
            _ => return,
        };
        if index < store.len() {
            store[index] = state;
        } else {
            store.push(state);
        }
        if self.core.position.phase == Phase::Free && replicas > 1 {
            self.advance_ladder(s);
        }
    }

    /// Tempering, after chain 0 of particle s's ladder (at T, counted) has done its k
    /// sweeps: chains r = 1 … R − 1 (random the first time) each do k sweeps at their
    /// own T_r = T / (1 − r/R) ([`super::statistics::replica_temperature`]), then the
    /// ladder's neighbours exchange states ([`NetworkSampler::exchange_replicas`]). The
    /// ladder is `particles[s·R .. s·R + R]`; nothing here is counted.
    fn advance_ladder(&mut self, s: usize) {
        let FreeStatistics::Persistent {
            sweeps, replicas, ..
        } = self.core.options.statistics.free
        else {
            return;
        };
        let t = self.core.options.temperature();
        let temperatures: Vec<f64> = (0..replicas)
            .map(|r| replica_temperature(t, r, replicas))
            .collect();
        let base = s * replicas as usize;
        for (r, &temperature) in temperatures.iter().enumerate().skip(1) {
            match self.particles.get(base + r) {
                Some(state) => self
                    .sampler
                    .set_state(state)
                    .expect("a kept chain fits the network"),
                None => self.sampler.randomize_free_units(),
            }
            self.sampler
                .set_temperature(temperature)
                .expect("a ladder's temperatures are finite and positive");
            for _ in 0..sweeps {
                match self.sampling.probes {
                    ProbeOrder::Permutation => self.sampler.sweep_permuted(|_| {}),
                    _ => self.sampler.sweep(),
                }
            }
            let state = self.sampler.state().to_vec();
            if base + r < self.particles.len() {
                self.particles[base + r] = state;
            } else {
                self.particles.push(state);
            }
        }
        let ladder = &mut self.particles[base..base + replicas as usize];
        self.sampler.exchange_replicas(ladder, &temperatures);
    }

    /// One sweep (time unit) of the current settling; at the start of a settling it
    /// first sets up the clamps and randomises the free units. At the end of the free
    /// phase the weights change by the learning rule. If that change diverges (a weight or
    /// bias non-finite or beyond ±[`super::DIVERGENCE_LIMIT`]), the network keeps the
    /// weights from before the change and this and every later call return the error
    /// ([`super::diverged`]) until a new learner is made.
    pub fn sweep(&mut self) -> Result<Progress, ParamError> {
        if let Some(e) = &self.core.diverged {
            return Err(e.clone());
        }
        if self.core.position.sweep == 0 {
            self.begin_settling()?;
        }
        let (temperature, collect) = self.plan()[self.core.position.sweep as usize];
        self.sampler
            .set_temperature(temperature)
            .expect("settling temperatures were checked");
        let solved = self.core.position.phase == Phase::Clamped && self.mean_field_clamped();
        let last = self.core.position.sweep + 1 == self.plan().len() as u64;
        let stats = match self.core.position.phase {
            Phase::Clamped => &mut self.clamped,
            Phase::Free => &mut self.free,
        };
        let (per_probe, at_end) = match self.sampling.collect_at {
            CollectAt::TimeUnit => (false, collect),
            CollectAt::Probe => (collect && !solved, collect && solved),
            CollectAt::End => (false, last),
        };
        if !solved {
            match (self.sampling.probes, per_probe) {
                (ProbeOrder::Permutation, _) => self.sampler.sweep_permuted(|state| {
                    if per_probe {
                        stats.add(state)
                    }
                }),
                (_, true) => self.sampler.sweep_observed(|state| stats.add(state)),
                (_, false) => self.sampler.sweep(),
            }
        }
        if at_end {
            stats.add(self.sampler.state());
        }
        self.core.position.sweep += 1;
        if self.core.position.sweep < self.plan().len() as u64 {
            return Ok(Progress::Sweep);
        }
        self.keep_chain_state();
        self.end_settling()
    }

    fn end_settling(&mut self) -> Result<Progress, ParamError> {
        let per_phase = self.settlings_per_phase();
        if self.core.position.settling + 1 < per_phase {
            self.core.position.settling += 1;
            self.core.position.sweep = 0;
            self.core.position.pattern = self.pattern_in_phase();
            return Ok(Progress::Settling);
        }
        match self.core.position.phase {
            Phase::Clamped => {
                self.core.position.phase = Phase::Free;
                self.core.position.settling = 0;
                self.core.position.sweep = 0;
                self.core.position.pattern = self.pattern_in_phase();
                Ok(Progress::Phase)
            }
            Phase::Free => {
                let (clamped, nonconverged) = if self.mean_field_clamped() {
                    match self.mean_field_statistics() {
                        Ok(solved) => solved,
                        Err(e) => {
                            self.core.diverged = Some(e.clone());
                            return Err(e);
                        }
                    }
                } else {
                    (statistics_of(&self.clamped), 0)
                };
                let free = statistics_of(&self.free);
                let options = &self.core.options;
                let updater = &mut self.core.updater;
                let cycle = self.core.position.cycle + 1;
                if let Err(e) = self.sampler.with_network_mut(|network| {
                    updater.apply(network, options, &clamped, &free, cycle)
                }) {
                    self.core.diverged = Some(e.clone());
                    return Err(e);
                }
                self.clamped.reset();
                self.free.reset();
                self.core.presented.clear();
                self.core.position = Position {
                    cycle: self.core.position.cycle + 1,
                    phase: Phase::Clamped,
                    settling: 0,
                    pattern: Some(0),
                    sweep: 0,
                };
                self.core.last = Some(CycleReport {
                    cycle: self.core.position.cycle,
                    clamped,
                    free,
                    nonconverged,
                });
                Ok(Progress::Cycle)
            }
        }
    }

    fn pattern_in_phase(&self) -> Option<usize> {
        match (self.core.position.phase, self.core.options.free_phase) {
            (Phase::Free, FreePhase::Nothing) => None,
            _ => Some(self.pattern_of(self.core.position.settling)),
        }
    }

    /// Free-running samples from the trained machine for a gallery: see [`generate`];
    /// each sample is one whole settling (the learning schedule and collection period)
    /// from random units, nothing clamped.
    pub fn generate(&self, count: usize, seed: u64) -> Result<Vec<Vec<u8>>, ParamError> {
        generate(
            self.sampler.network(),
            &self.core.options.settling.schedule(),
            count,
            seed,
        )
    }
}

/// Everything a [`StochasticLearner`] holds besides its network, training vectors and
/// options: for a saved run that continues exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct StochasticState {
    /// The sampler (state, clamps, temperature, random stream).
    pub sampler: NetworkSamplerState,
    /// The statistics gathered so far in this cycle.
    pub clamped: CorrelationSums,
    pub free: CorrelationSums,
    /// Warm-started clamped phase: the state kept per training vector shown so far
    /// (empty otherwise).
    pub warm: Vec<Vec<i8>>,
    /// Persistent free phase: the fantasy particles advanced so far (empty otherwise).
    pub particles: Vec<Vec<i8>>,
    pub common: LearnerCommonState,
}

impl StochasticLearner {
    /// The state that, with the network, the training vectors and the options, fixes the
    /// learner's future.
    pub fn saved_state(&self) -> StochasticState {
        StochasticState {
            sampler: self.sampler.saved_state(),
            clamped: self.clamped.to_sums(),
            free: self.free.to_sums(),
            warm: self.warm.clone(),
            particles: self.particles.clone(),
            common: LearnerCommonState::save(&self.core),
        }
    }

    /// A learner that continues exactly where the one that gave `saved` left off, for
    /// `network`, `patterns` and `options` as [`StochasticLearner::new`] checks them;
    /// every part of `saved` is checked against them and the error names the field.
    pub fn from_saved_state(
        network: Network,
        patterns: &[Vec<u8>],
        options: LearningOptions,
        saved: StochasticState,
    ) -> Result<Self, ParamError> {
        let mut learner = StochasticLearner::new(network, patterns, options)?;
        let n = learner.sampler.network().len();
        let options = &learner.core.options;
        let plans = &learner.plans;
        saved.common.check_phases(
            learner.sampler.network(),
            options,
            |phase| {
                let plan = &plans[usize::from(phase == Phase::Free)];
                (
                    options.settlings_in(phase, patterns.len()),
                    plan.len() as u64,
                )
            },
            |p| p.settling as usize + usize::from(p.sweep > 0),
        )?;
        let (warm_max, particles_max) = (
            match options.statistics.clamped {
                ClampedStatistics::WarmStarted { .. } => patterns.len(),
                _ => 0,
            },
            (options.statistics.particles() * options.statistics.replicas()) as usize,
        );
        for (field, states, max) in [
            ("learner.warm", &saved.warm, warm_max),
            ("learner.particles", &saved.particles, particles_max),
        ] {
            if states.len() > max {
                return Err(ParamError::Invalid {
                    field,
                    reason: format!("at most {max} states, got {}", states.len()),
                });
            }
            for state in states {
                learner.sampler.network().check_state(field, state)?;
            }
        }
        let network = learner.sampler.network().clone();
        learner.sampler = NetworkSampler::from_saved_state(network, saved.sampler)?;
        learner.clamped = Correlations::from_sums("learner.clamped_sums", n, saved.clamped)?;
        learner.free = Correlations::from_sums("learner.free_sums", n, saved.free)?;
        learner.warm = saved.warm;
        learner.particles = saved.particles;
        saved.common.restore(&mut learner.core)?;
        Ok(learner)
    }
}

impl Learner for StochasticLearner {
    fn cycle(&mut self) -> Result<CycleReport, ParamError> {
        while self.sweep()? != Progress::Cycle {}
        Ok(self.core.last.clone().expect("a cycle was just completed"))
    }

    fn settle(&mut self) -> Result<Progress, ParamError> {
        loop {
            let progress = self.sweep()?;
            if progress != Progress::Sweep {
                return Ok(progress);
            }
        }
    }

    fn network(&self) -> &Network {
        self.sampler.network()
    }

    fn core(&self) -> &LearnerCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut LearnerCore {
        &mut self.core
    }
}

fn statistics_of(c: &Correlations) -> PhaseStatistics {
    if c.count() == 0 {
        return PhaseStatistics::empty(c.units());
    }
    PhaseStatistics {
        samples: c.count(),
        means: c.means(),
        pairs: c.pair_means(),
    }
}

/// Most samples one [`generate`] call makes: 10⁷.
pub const MAX_SAMPLES: usize = 10_000_000;

/// Free-running samples of the visible units (0/1 per unit): each sample starts from
/// independent random units (each high with probability ½), runs `schedule` with
/// heat-bath ticks on random units (nothing clamped), and reads the visible units at the
/// end. The samples are independent and identically distributed: their distribution is
/// the exact distribution after the schedule from the uniform start, which approaches
/// the Boltzmann distribution at the final temperature as the schedule lengthens.
/// 1 ≤ count ≤ [`MAX_SAMPLES`].
pub fn generate(
    network: &Network,
    schedule: &Schedule,
    count: usize,
    seed: u64,
) -> Result<Vec<Vec<u8>>, ParamError> {
    whole_in("samples", count as f64, 1, MAX_SAMPLES as u64)?;
    let high = network.kind().high();
    let first = schedule.steps()[0].0;
    let mut sampler = NetworkSampler::new(
        network.clone(),
        first,
        Rule::HeatBath,
        NetworkOrder::Random,
        seed,
    )?;
    let visible = network.visible();
    let mut samples = Vec::with_capacity(count);
    for _ in 0..count {
        sampler.randomize_free_units();
        schedule.run(&mut sampler);
        samples.push(
            sampler.state()[..visible]
                .iter()
                .map(|&s| u8::from(s == high))
                .collect(),
        );
    }
    Ok(samples)
}
