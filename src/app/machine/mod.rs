//! The Boltzmann-machine laboratory: one learning run the page drives.
//!
//! A [`MachineLab`] holds a learner (stochastic two-phase or mean-field) for a training
//! set, steps it a bounded number of sweeps at a time, and keeps what the live views read:
//! the units' activations q_i = P(s_i = high) (0/1 when sampling), the clamp flags, the
//! full weight matrix w_ij and the biases θ_i, the clamped and free statistics
//! ⟨s_i s_j⟩ as n×n matrices, and the learning curves (exact KL(data ‖ model) when the
//! machine can be enumerated, the fraction of encoder inputs with their own code), kept as
//! bounded [`History`]s. Too big to enumerate, KL is estimated a chunk at a time by
//! [`KlEstimate`] (AIS). Every method that takes a value from outside checks it and, on error, changes nothing.

pub mod snapshot;

use crate::app::parse::parse_schedule;
use crate::dynamics::{NetworkOrder, NetworkSampler, Rule};
use crate::error::{ParamError, finite_in, whole_in};
use crate::estimate::kl::{AIS_KL_RUNS_PER_CHUNK, AIS_KL_STEPS, KlEstimate, MAX_KL_HIDDEN};
use crate::estimate::log_z::{LogZ, page_log_z};
use crate::estimate::trace::{Eviction, History};
use crate::learn::encoder::{mean_field_codes, sampled_codes};
use crate::learn::experiment::{LearningMethod, Protocol, random_weights};
use crate::learn::likelihood::kl_divergence;
use crate::learn::stochastic::generate;
use crate::learn::{
    Dataset, Learner, MeanFieldLearner, Phase, PhaseStatistics, Position, Problem, Progress,
    StochasticLearner, Update,
};
use crate::model::Network;

use snapshot::{Curves, LearnerState, SessionParts};

/// The exact KL curve is kept when (distinct training vectors + 1) · 2^n, the states it
/// enumerates per point, is at most this.
pub const MAX_KL_STATES: f64 = (1u64 << 21) as f64;
/// Most sweeps (stochastic) or solves (mean field) one `advance` call may do.
pub const MAX_STEPS_PER_CALL: u64 = 1 << 20;
/// Points kept in each learning curve.
pub const CURVE_CAPACITY: usize = 4096;

/// The learner, stochastic or mean-field.
#[derive(Debug, Clone)]
enum Machine {
    Stochastic(StochasticLearner),
    MeanField(MeanFieldLearner),
}

impl Machine {
    fn learner(&self) -> &dyn Learner {
        match self {
            Machine::Stochastic(l) => l,
            Machine::MeanField(l) => l,
        }
    }

    fn learner_mut(&mut self) -> &mut dyn Learner {
        match self {
            Machine::Stochastic(l) => l,
            Machine::MeanField(l) => l,
        }
    }
}

/// Chunks per KL estimate (so 2 × 48 = 96 AIS runs in all).
pub const AIS_KL_CHUNKS: usize = 48;
/// An AIS estimate of KL starts at most every this many cycles.
pub const AIS_KL_EVERY: u64 = 10;
/// Most multiply-adds one step of the KL estimate may take: the hidden sums
/// (patterns × 2^hidden × n, done when the estimate starts) and one chunk of AIS runs
/// (2 × 250 × n², so n ≤ 256), so that no frame freezes.
pub const MAX_KL_STEP_WORK: f64 = (1u64 << 25) as f64;

/// One learning run of a Boltzmann machine on a training set.
#[derive(Debug, Clone)]
pub struct MachineLab {
    dataset: Dataset,
    protocol: Protocol,
    seed: u64,
    machine: Machine,
    activations: Vec<f64>,
    clamps: Vec<u8>,
    weights: Vec<f64>,
    clamped_pairs: Vec<f64>,
    free_pairs: Vec<f64>,
    pair_difference: Vec<f64>,
    /// The learning curve: (cycle, exact KL or NaN, solved fraction or NaN).
    curve: History<3>,
    /// The AIS curve: (cycle, KL estimate, its standard error).
    ais_curve: History<3>,
    /// The AIS estimate of KL under way (machines too big to enumerate).
    estimate: Option<KlEstimate>,
    /// The cycle the last AIS estimate started at.
    estimate_started: Option<u64>,
    /// Cycles done before the learner was last rebuilt (changed options keep counting).
    cycle_offset: u64,
    version: u64,
    /// A sampler run by hand (learning waits): visible units clamped to a chosen pattern,
    /// or nothing clamped (the machine dreams).
    explore: Option<NetworkSampler>,
    /// The pattern clamped while exploring (None: dreaming).
    explored: Option<usize>,
    /// The position the shown state belongs to (the settling of the last sweep).
    shown: Position,
}

impl MachineLab {
    /// A run on the built-in `problem` (a [`Problem`] name) with `method` (`stochastic`
    /// or `mean-field`), the protocol of [`Protocol::standard`], from `seed`.
    pub fn new(problem: &str, method: &str, seed: u64) -> Result<MachineLab, ParamError> {
        let problem = Problem::parse(problem)?;
        let method = LearningMethod::parse(method)?;
        let mut protocol = Protocol::standard(problem, method);
        protocol.options.seed = seed;
        MachineLab::build(problem.dataset(), protocol, seed, None)
    }

    /// A run on the user's `patterns` (0/1, all of one length) with `hidden` hidden units.
    pub fn custom(
        patterns: Vec<Vec<u8>>,
        hidden: usize,
        method: &str,
        seed: u64,
    ) -> Result<MachineLab, ParamError> {
        let method = LearningMethod::parse(method)?;
        whole_in("hidden units", hidden as f64, 0, 64)?;
        let visible = patterns.first().map_or(0, Vec::len);
        let dataset = Dataset::custom(visible, hidden, patterns)?;
        let mut protocol = Protocol::standard(Problem::Pixels10, method);
        protocol.options.seed = seed;
        MachineLab::build(dataset, protocol, seed, None)
    }

    fn build(
        dataset: Dataset,
        protocol: Protocol,
        seed: u64,
        network: Option<Network>,
    ) -> Result<MachineLab, ParamError> {
        protocol.options.check()?;
        let network = match network {
            Some(n) => n,
            None => random_weights(
                dataset.network(protocol.kind),
                protocol.initial_weights,
                seed,
            )?,
        };
        let options = protocol.options.clone();
        let machine = match protocol.method {
            LearningMethod::Stochastic => Machine::Stochastic(StochasticLearner::new(
                network,
                dataset.patterns(),
                options,
            )?),
            LearningMethod::MeanField => Machine::MeanField(MeanFieldLearner::new(
                network,
                dataset.patterns(),
                options,
                protocol.settings,
            )?),
        };
        let n = dataset.units();
        let mut lab = MachineLab {
            dataset,
            protocol,
            seed,
            machine: machine.clone(),
            activations: vec![0.0; n],
            clamps: vec![0; n],
            weights: vec![0.0; n * n],
            clamped_pairs: vec![0.0; n * n],
            free_pairs: vec![0.0; n * n],
            pair_difference: vec![0.0; n * n],
            curve: History::with_eviction(CURVE_CAPACITY, Eviction::Oldest),
            ais_curve: History::with_eviction(CURVE_CAPACITY, Eviction::Oldest),
            estimate: None,
            estimate_started: None,
            cycle_offset: 0,
            version: 0,
            shown: machine_position(&machine),
            explore: None,
            explored: None,
        };
        lab.apply_stage()?;
        lab.refresh();
        lab.record()?;
        Ok(lab)
    }

    /// The same run with changed options, from the current weights (a fresh cycle; the
    /// curves go on). On error nothing changes.
    fn rebuild(&mut self, protocol: Protocol) -> Result<(), ParamError> {
        let network = self.network().clone();
        let mut next = MachineLab::build(self.dataset.clone(), protocol, self.seed, Some(network))?;
        next.cycle_offset = self.cycles();
        next.apply_stage()?;
        // build recorded a point at the new learner's cycle 0: keep the old curves instead.
        std::mem::swap(&mut next.curve, &mut self.curve);
        std::mem::swap(&mut next.ais_curve, &mut self.ais_curve);
        next.estimate = self.estimate.take();
        next.estimate_started = self.estimate_started;
        next.version = self.version + 1;
        *self = next;
        Ok(())
    }

    /// The protocol stage (0-based) that learning cycle `cycle` (1-based) belongs to: the
    /// first whose `until` is at least `cycle`, as the CLI's `reproduce` runs them.
    pub fn stage_of(&self, cycle: u64) -> usize {
        let stages = &self.protocol.stages;
        stages
            .iter()
            .position(|s| cycle <= s.until)
            .unwrap_or(stages.len() - 1)
    }

    /// Sets the clamping noise and hidden–hidden connections of the stage of the next
    /// cycle.
    fn apply_stage(&mut self) -> Result<(), ParamError> {
        let stage = self.protocol.stages[self.stage_of(self.cycles() + 1)];
        let learner = self.machine.learner_mut();
        learner.set_noise(stage.noise)?;
        learner.set_hidden_connected(stage.hidden_connected);
        Ok(())
    }

    /// Stages of the protocol (1 for all but the 40-10-40 encoder).
    pub fn stage_count(&self) -> usize {
        self.protocol.stages.len()
    }

    /// The stage of the cycle under way, described: "stage 2 of 3 (cycles 301–800): …";
    /// empty when the protocol has one stage.
    pub fn stage_text(&self) -> String {
        let stages = &self.protocol.stages;
        if stages.len() <= 1 {
            return String::new();
        }
        let k = self.stage_of(self.cycles() + 1);
        let stage = stages[k];
        let first = if k == 0 { 1 } else { stages[k - 1].until + 1 };
        let span = if stage.until == u64::MAX {
            format!("cycles {first} on")
        } else {
            format!("cycles {first}–{}", stage.until)
        };
        let noise = if stage.noise.is_none() {
            "noise-free clamping".to_string()
        } else {
            format!(
                "noisy clamping (on→off {}, off→on {})",
                stage.noise.on_to_off, stage.noise.off_to_on
            )
        };
        let hidden = if stage.hidden_connected {
            "hidden units connected to each other"
        } else {
            "no hidden–hidden connections"
        };
        format!(
            "stage {} of {} ({span}): {noise}, {hidden}; the paper's protocol ends at cycle {}",
            k + 1,
            stages.len(),
            self.protocol.max_cycles
        )
    }

    /// The network being trained.
    pub fn network(&self) -> &Network {
        self.machine.learner().network()
    }

    /// The training vectors.
    pub fn patterns(&self) -> &[Vec<u8>] {
        self.dataset.patterns()
    }

    /// The training set's name.
    pub fn dataset_name(&self) -> &str {
        self.dataset.name()
    }

    /// The method's name.
    pub fn method(&self) -> &'static str {
        self.protocol.method.name()
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Encoder group size n (0 when the set is not an encoder).
    pub fn encoder_group(&self) -> usize {
        self.dataset.encoder().map_or(0, |e| e.group)
    }

    /// The learning temperature T.
    pub fn temperature(&self) -> f64 {
        self.protocol.options.temperature()
    }

    /// Cycles completed.
    pub fn cycles(&self) -> u64 {
        self.cycle_offset + self.machine.learner().cycles()
    }

    /// The phase under way.
    pub fn phase(&self) -> Phase {
        match (&self.explore, self.explored) {
            (Some(_), Some(_)) => Phase::Clamped,
            (Some(_), None) => Phase::Free,
            _ => self.shown.phase,
        }
    }

    /// The training vector clamped now (None in a free phase that clamps nothing).
    pub fn pattern(&self) -> Option<usize> {
        if self.explore.is_some() {
            return self.explored;
        }
        self.shown.pattern
    }

    /// The learning rule: `gradient` with its rate ε, or `sign` with its step k.
    pub fn update(&self) -> Update {
        self.protocol.options.update
    }

    /// Weight decay λ.
    pub fn weight_decay(&self) -> f64 {
        self.protocol.options.weight_decay
    }

    /// Sets the rule: `gradient` (ε in (0, 100]) or `sign` (k in (0, 1000]).
    pub fn set_update(&mut self, rule: &str, size: f64) -> Result<(), ParamError> {
        let update = match rule {
            "gradient" => Update::Gradient { rate: size },
            "sign" => Update::Sign { step: size },
            other => {
                return Err(ParamError::UnknownChoice {
                    field: "rule",
                    value: other.to_string(),
                    allowed: "gradient, sign",
                });
            }
        };
        let mut protocol = self.protocol.clone();
        protocol.options.update = update;
        self.rebuild(protocol)
    }

    /// Sets the weight decay λ in [0, 1).
    pub fn set_weight_decay(&mut self, decay: f64) -> Result<(), ParamError> {
        let mut protocol = self.protocol.clone();
        protocol.options.weight_decay = decay;
        self.rebuild(protocol)
    }

    /// Sets the annealing schedule from text "T:sweeps, T:sweeps, …" (the last step's T is
    /// the learning temperature) and the collection sweeps.
    pub fn set_schedule(&mut self, text: &str, collect: f64) -> Result<(), ParamError> {
        let steps = parse_schedule(text)?;
        let collect = whole_in("collect sweeps", collect, 1, 1_000_000)?;
        let mut protocol = self.protocol.clone();
        protocol.options.settling = crate::learn::Settling {
            anneal: crate::dynamics::Schedule::new(&steps)?,
            collect_sweeps: collect,
        };
        self.rebuild(protocol)
    }

    /// The annealing schedule as "T:sweeps, …" text.
    pub fn schedule_text(&self) -> String {
        self.protocol
            .options
            .settling
            .anneal
            .steps()
            .iter()
            .map(|(t, s)| format!("{t}:{s}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Collection sweeps per settling.
    pub fn collect_sweeps(&self) -> u64 {
        self.protocol.options.settling.collect_sweeps
    }

    /// Sets the way the stochastic machine gets its statistics: `anneal`, `persistent`,
    /// `persistent-free`, `mean-field-persistent` or `tempering`
    /// ([`crate::learn::statistics`]), with K particles and k sweeps per chain and cycle
    /// (ignored by `anneal`) and R replicas per particle (used by `tempering` only). A
    /// fresh cycle from the current weights; on error nothing changes.
    pub fn set_statistics(
        &mut self,
        name: &str,
        particles: f64,
        sweeps: f64,
        replicas: f64,
    ) -> Result<(), ParamError> {
        let particles = whole_in(
            "particles",
            particles,
            1,
            crate::learn::statistics::MAX_PARTICLES,
        )?;
        let sweeps = whole_in(
            "gibbs steps",
            sweeps,
            1,
            crate::learn::statistics::MAX_CHAIN_SWEEPS,
        )?;
        let replicas = whole_in(
            "replicas",
            replicas,
            1,
            crate::learn::statistics::MAX_REPLICAS,
        )?;
        let statistics = crate::learn::GeneralStatistics::parse(name, particles, sweeps, replicas)?;
        let mut protocol = self.protocol.clone();
        protocol.options.statistics = statistics;
        self.rebuild(protocol)
    }

    /// The way of getting the statistics: its name, particles K (0 if none), sweeps k
    /// per chain and cycle (0 for `anneal`) and chains per particle R (1 unless tempering,
    /// 0 for an annealed free phase).
    pub fn statistics_way(&self) -> (String, u64, u64, u64) {
        use crate::learn::{ClampedStatistics, FreeStatistics};
        let s = self.protocol.options.statistics;
        let sweeps = match (s.free, s.clamped) {
            (FreeStatistics::Persistent { sweeps, .. }, _) => sweeps,
            (_, ClampedStatistics::WarmStarted { sweeps }) => sweeps,
            _ => 0,
        };
        (s.name(), s.particles(), sweeps, s.replicas())
    }

    /// Puts every weight back to its start (the same seed gives the same start); the
    /// curves start again.
    pub fn reset_weights(&mut self) -> Result<(), ParamError> {
        let next = MachineLab::build(self.dataset.clone(), self.protocol.clone(), self.seed, None)?;
        let version = self.version + 1;
        *self = next;
        self.version = version;
        Ok(())
    }

    /// Advances by up to `steps` sweeps (stochastic) or settlings (mean field), stopping
    /// early at the end of a cycle when `to_cycle_end`. Returns the cycles completed.
    pub fn advance(&mut self, steps: f64, to_cycle_end: bool) -> Result<u64, ParamError> {
        let steps = whole_in("steps", steps, 0, MAX_STEPS_PER_CALL)?;
        self.explore = None;
        let mut completed = 0;
        for _ in 0..steps {
            self.shown = self.machine.learner().position();
            let progress = match &mut self.machine {
                Machine::Stochastic(l) => l.sweep()?,
                Machine::MeanField(l) => l.step()?,
            };
            if progress == Progress::Cycle {
                completed += 1;
                self.version += 1;
                self.apply_stage()?;
                self.record()?;
                if to_cycle_end {
                    break;
                }
            }
        }
        self.refresh();
        Ok(completed)
    }

    /// One whole learning cycle (the rest of the current one).
    pub fn step_cycle(&mut self) -> Result<(), ParamError> {
        self.advance(MAX_STEPS_PER_CALL as f64, true).map(|_| ())
    }

    /// Starts watching the current network by hand at the learning temperature: with the
    /// visible units clamped to training pattern `pattern`, or (pattern < 0) nothing
    /// clamped. The free units start random. Learning waits until [`Self::stop_exploring`].
    pub fn explore(&mut self, pattern: f64) -> Result<(), ParamError> {
        let mut sampler = NetworkSampler::new(
            self.network().clone(),
            self.temperature(),
            Rule::HeatBath,
            NetworkOrder::Random,
            self.seed ^ 0xD2EA_u64 ^ self.cycles(),
        )?;
        let mut explored = None;
        if pattern >= 0.0 {
            let count = self.patterns().len() as u64;
            let k = whole_in("pattern", pattern + 1.0, 1, count)? as usize - 1;
            let kind = self.network().kind();
            let values: Vec<i8> = self.patterns()[k]
                .iter()
                .map(|&b| kind.value(b == 1))
                .collect();
            sampler.clamp_visible(&values)?;
            explored = Some(k);
        } else {
            finite_in("pattern", pattern, -1.0, -1.0)?;
        }
        sampler.randomize_free_units();
        self.explore = Some(sampler);
        self.explored = explored;
        self.refresh();
        Ok(())
    }

    /// [`Self::explore`] with training pattern `number` (1-based, as the page numbers
    /// them) clamped; errors name `pattern to clamp` and its range.
    pub fn explore_number(&mut self, number: f64) -> Result<(), ParamError> {
        let count = self.patterns().len() as u64;
        let k = whole_in("pattern to clamp", number, 1, count)?;
        self.explore(k as f64 - 1.0)
    }

    /// Back to learning.
    pub fn stop_exploring(&mut self) {
        self.explore = None;
        self.refresh();
    }

    /// Whether a hand-run sampler is shown.
    pub fn exploring(&self) -> bool {
        self.explore.is_some()
    }

    /// Sweeps of the hand-run sampler (1 ≤ sweeps ≤ 10⁴).
    pub fn explore_sweeps(&mut self, sweeps: f64) -> Result<(), ParamError> {
        let sweeps = whole_in("sweeps", sweeps, 1, 10_000)?;
        if let Some(sampler) = &mut self.explore {
            for _ in 0..sweeps {
                sampler.sweep();
            }
        }
        self.refresh();
        Ok(())
    }

    /// `count` free-running samples of the visible units (each one whole settling of the
    /// learning schedule from random units), grouped: each distinct vector with its
    /// frequency, its exact probability p(v) when the machine can be enumerated, and
    /// whether it is a training vector; most frequent first.
    pub fn gallery(&self, count: f64, seed: f64) -> Result<Vec<GalleryEntry>, ParamError> {
        let count = whole_in("samples", count, 1, 100_000)? as usize;
        let seed = whole_in("seed", seed, 0, u64::MAX >> 11)?;
        let samples = generate(
            self.network(),
            &self.protocol.options.settling.schedule(),
            count,
            seed,
        )?;
        let mut entries: Vec<GalleryEntry> = Vec::new();
        for sample in samples {
            match entries.iter_mut().find(|e| e.pattern == sample) {
                Some(e) => e.frequency += 1.0 / count as f64,
                None => entries.push(GalleryEntry {
                    training: self.patterns().contains(&sample),
                    pattern: sample,
                    frequency: 1.0 / count as f64,
                    probability: None,
                }),
            }
        }
        entries.sort_by(|a, b| b.frequency.total_cmp(&a.frequency));
        if self.dataset.units() <= crate::learn::likelihood::MAX_LIKELIHOOD_UNITS
            && (entries.len() as f64 + 1.0) * libm::exp2(self.dataset.units() as f64)
                <= 16.0 * MAX_KL_STATES
        {
            let vectors: Vec<Vec<u8>> = entries.iter().map(|e| e.pattern.clone()).collect();
            let logs = crate::learn::likelihood::log_probabilities(
                self.network(),
                self.temperature(),
                &vectors,
            )?;
            for (e, l) in entries.iter_mut().zip(logs) {
                e.probability = Some(libm::exp(l));
            }
        }
        Ok(entries)
    }

    /// Re-reads the views' arrays from the learner.
    fn refresh(&mut self) {
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

    /// Adds a point to the curves: exact KL when enumerable, the solved fraction of an
    /// encoder (NaN where not defined).
    fn record(&mut self) -> Result<(), ParamError> {
        let cycle = self.cycles();
        let states = (self.patterns().len() as f64 + 1.0) * libm::exp2(self.dataset.units() as f64);
        let kl = if states <= MAX_KL_STATES {
            kl_divergence(self.network(), self.temperature(), self.patterns())?
        } else {
            f64::NAN
        };
        if kl.is_nan() {
            self.start_estimate()?;
        }
        let solved = self.solved_fraction()?;
        self.curve.push_point([cycle as f64, kl, solved]);
        Ok(())
    }

    /// Starts an AIS estimate of KL at the current weights, unless one is under way, one
    /// started fewer than [`AIS_KL_EVERY`] cycles ago, or the hidden units are too many to
    /// sum.
    fn start_estimate(&mut self) -> Result<(), ParamError> {
        let cycle = self.cycles();
        let recent = self
            .estimate_started
            .is_some_and(|c| cycle < c + AIS_KL_EVERY);
        if self.estimate.is_some() || recent || !self.kl_estimated() {
            return Ok(());
        }
        self.estimate = Some(KlEstimate::new(
            self.network(),
            self.temperature(),
            self.patterns(),
            AIS_KL_CHUNKS,
            self.seed ^ 0xA15 ^ cycle.wrapping_mul(0x2545_F491_4F6C_DD1D),
            cycle,
        )?);
        self.estimate_started = Some(cycle);
        Ok(())
    }

    /// Whether an AIS estimate of KL is under way.
    pub fn estimating(&self) -> bool {
        self.estimate.is_some()
    }

    /// Whether KL can only be estimated (the machine is too big to enumerate) and can be
    /// (few enough hidden units, each step within [`MAX_KL_STEP_WORK`]).
    pub fn kl_estimated(&self) -> bool {
        let n = self.dataset.units() as f64;
        let states = (self.patterns().len() as f64 + 1.0) * libm::exp2(n);
        let hidden = self.network().hidden();
        let sums = self.patterns().len() as f64 * libm::exp2(hidden as f64) * n;
        let chunk = (AIS_KL_RUNS_PER_CHUNK * AIS_KL_STEPS) as f64 * n * n;
        states > MAX_KL_STATES
            && hidden <= MAX_KL_HIDDEN
            && sums <= MAX_KL_STEP_WORK
            && chunk <= MAX_KL_STEP_WORK
    }

    /// Runs up to `chunks` chunks of the AIS estimate under way (1 ≤ chunks ≤ 1000); when
    /// it completes, its point joins the AIS curve. Returns whether a point was added.
    pub fn estimate_step(&mut self, chunks: f64) -> Result<bool, ParamError> {
        let chunks = whole_in("chunks", chunks, 1, 1000)? as usize;
        let Some(estimate) = &mut self.estimate else {
            return Ok(false);
        };
        match estimate.advance(chunks) {
            Ok(false) => return Ok(false),
            Ok(true) => {}
            Err(err) => {
                // Dropped, so that the next cycle may start a fresh one.
                self.estimate = None;
                return Err(err);
            }
        }
        let (kl, stderr) = estimate
            .value()
            .expect("a complete estimate has its chunks");
        let cycle = estimate.cycle();
        self.estimate = None;
        self.ais_curve.push_point([cycle as f64, kl, stderr]);
        self.version += 1;
        Ok(true)
    }

    /// Cycles of the AIS KL points.
    pub fn curve_ais_cycles(&self) -> &[f64] {
        self.ais_curve.column(0)
    }

    /// AIS estimates of KL(data ‖ model).
    pub fn curve_ais_kl(&self) -> &[f64] {
        self.ais_curve.column(1)
    }

    /// Their standard errors.
    pub fn curve_ais_stderr(&self) -> &[f64] {
        self.ais_curve.column(2)
    }

    /// The fraction of encoder inputs whose hidden code is their own (decided and shared
    /// with no other input); NaN when the set is not an encoder.
    pub fn solved_fraction(&self) -> Result<f64, ParamError> {
        let Some(encoder) = self.dataset.encoder() else {
            return Ok(f64::NAN);
        };
        let settling = &self.protocol.options.settling;
        let codes = match self.protocol.method {
            LearningMethod::Stochastic => sampled_codes(
                self.network(),
                encoder,
                settling,
                self.protocol.code_trials,
                self.seed ^ self.cycles(),
            )?,
            LearningMethod::MeanField => {
                mean_field_codes(self.network(), encoder, settling, &self.protocol.settings)?.0
            }
        };
        let mut own = 0;
        for (k, code) in codes.iter().enumerate() {
            if let Some(c) = code
                && codes
                    .iter()
                    .enumerate()
                    .all(|(m, other)| m == k || other.as_ref() != Some(c))
            {
                own += 1;
            }
        }
        Ok(own as f64 / encoder.group as f64)
    }

    /// Units n.
    pub fn units(&self) -> usize {
        self.dataset.units()
    }

    /// Visible units.
    pub fn visible(&self) -> usize {
        self.dataset.visible()
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

    /// Learning-curve cycles.
    pub fn curve_cycles(&self) -> &[f64] {
        self.curve.column(0)
    }

    /// Exact KL per curve point (NaN when not enumerable).
    pub fn curve_kl(&self) -> &[f64] {
        self.curve.column(1)
    }

    /// Encoder solved fraction per curve point (NaN when not an encoder).
    pub fn curve_solved(&self) -> &[f64] {
        self.curve.column(2)
    }

    /// Changes whenever the weights change (for redrawing only then).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The network as the JSON file `boltzlab logz --network FILE` reads.
    pub fn export_network(&self) -> String {
        self.network().to_json()
    }

    /// Replaces the weights and biases by those of a network file with the same units,
    /// visible count and kind; the learner starts a fresh cycle. A malformed or
    /// mismatched file changes nothing.
    pub fn import_network(&mut self, text: &str) -> Result<(), ParamError> {
        let current = self.network();
        let n = current.len();
        let limit = (64 * n * n + 65_536).min(Network::MAX_JSON_BYTES);
        if text.len() > limit {
            return Err(ParamError::Invalid {
                field: "network file",
                reason: format!(
                    "the file is {} bytes; a network of this machine's {n} units takes at most {limit}",
                    text.len()
                ),
            });
        }
        let imported = Network::from_json(text)?;
        if imported.mask().is_some() && imported.mask() != current.mask() {
            return Err(ParamError::Invalid {
                field: "network file",
                reason: "its mask of allowed connections differs from this machine's".into(),
            });
        }
        if imported.len() != current.len()
            || imported.visible() != current.visible()
            || imported.kind() != current.kind()
        {
            return Err(ParamError::Invalid {
                field: "network file",
                reason: format!(
                    "this machine has {} units ({} visible, {} units); the file has {} ({} visible, {} units)",
                    current.len(),
                    current.visible(),
                    current.kind().name(),
                    imported.len(),
                    imported.visible(),
                    imported.kind().name()
                ),
            });
        }
        let mut network = imported;
        if let Some(mask) = current.mask() {
            network = network.with_mask(mask.to_vec())?;
        }
        self.adopt_network(network)
    }

    /// Starts from random couplings: the Sherrington–Kirkpatrick glass on this machine's n
    /// units, w_ij ~ N(0, 1/n) between ±1 spins with θ = 0 (docs/references.md,
    /// bibliography), drawn from `seed` and written in the machine's own units by
    /// [`Network::to_kind`] (the same energy up to a constant). Pairs this machine's wiring
    /// forbids stay unconnected. Learning starts again from there (cycle 0, empty curves);
    /// on error nothing changes.
    pub fn random_couplings(&mut self, seed: f64) -> Result<(), ParamError> {
        let seed = crate::app::setup::check_seed(seed)?;
        let current = self.network();
        let mut glass = Network::sherrington_kirkpatrick(current.len(), seed)?;
        for i in 0..current.len() {
            for j in i + 1..current.len() {
                if !current.is_allowed(i, j) {
                    glass.set_weight(i, j, 0.0)?;
                }
            }
        }
        let (glass, _) = glass.to_kind(current.kind());
        let mut network = glass.with_visible(current.visible())?;
        if let Some(mask) = current.mask() {
            network = network.with_mask(mask.to_vec())?;
        }
        self.adopt_network(network)
    }

    /// A new run of this dataset and protocol from `network`'s weights (an import or a
    /// random start); the version moves on so the page redraws.
    fn adopt_network(&mut self, network: Network) -> Result<(), ParamError> {
        let mut next = MachineLab::build(
            self.dataset.clone(),
            self.protocol.clone(),
            self.seed,
            Some(network),
        )?;
        next.version = self.version + 1;
        *self = next;
        Ok(())
    }

    /// ln Z of the current network at `temperature` by `method` (`exact`, `sampled`,
    /// `mean-field`, `ais`), with the page's fixed effort.
    pub fn log_z(&self, method: &str, temperature: f64) -> Result<LogZ, ParamError> {
        page_log_z(self.network(), method, temperature, self.seed)
    }
}

fn machine_position(machine: &Machine) -> Position {
    machine.learner().position()
}

// The session's hooks: src/app/machine/snapshot.rs writes and reads a run through these.
impl MachineLab {
    /// Everything the run is, for its session.
    fn session_parts(&self) -> SessionParts {
        SessionParts {
            dataset: self.dataset.clone(),
            protocol: self.protocol.clone(),
            seed: self.seed,
            network: self.network().clone(),
            learner: match &self.machine {
                Machine::Stochastic(l) => LearnerState::Stochastic(l.saved_state()),
                Machine::MeanField(l) => LearnerState::MeanField(l.saved_state()),
            },
            activations: self.activations.clone(),
            curves: Curves {
                cycles: self.curve.column(0).to_vec(),
                kl: self.curve.column(1).to_vec(),
                solved: self.curve.column(2).to_vec(),
                ais_cycles: self.ais_curve.column(0).to_vec(),
                ais_kl: self.ais_curve.column(1).to_vec(),
                ais_stderr: self.ais_curve.column(2).to_vec(),
            },
            estimate: self.estimate.as_ref().map(KlEstimate::saved),
            estimate_started: self.estimate_started,
            cycle_offset: self.cycle_offset,
            version: self.version,
            explore: self
                .explore
                .as_ref()
                .map(|sampler| (sampler.saved_state(), self.explored)),
            shown: self.shown,
        }
    }

    /// The run that `parts` describe, continuing exactly; every part is checked against
    /// the rest (the learner's state by its learner, the estimate's by [`KlEstimate::new`])
    /// and on error nothing is built.
    fn from_session_parts(parts: SessionParts) -> Result<MachineLab, ParamError> {
        let SessionParts {
            dataset,
            protocol,
            seed,
            network,
            learner,
            activations,
            curves,
            estimate,
            estimate_started,
            cycle_offset,
            version,
            explore,
            shown,
        } = parts;
        let patterns = dataset.patterns();
        let options = protocol.options.clone();
        let machine = match (learner, protocol.method) {
            (LearnerState::Stochastic(state), LearningMethod::Stochastic) => Machine::Stochastic(
                StochasticLearner::from_saved_state(network.clone(), patterns, options, state)?,
            ),
            (LearnerState::MeanField(state), LearningMethod::MeanField) => {
                Machine::MeanField(MeanFieldLearner::from_saved_state(
                    network.clone(),
                    patterns,
                    options,
                    protocol.settings,
                    state,
                )?)
            }
            _ => {
                return Err(ParamError::Invalid {
                    field: "learner",
                    reason: format!("not the state of a {} learner", protocol.method.name()),
                });
            }
        };
        let estimate = estimate
            .map(|e| KlEstimate::resumed(e, patterns))
            .transpose()?;
        let (explore, explored) = match explore {
            None => (None, None),
            Some((state, explored)) => {
                if let Some(k) = explored
                    && k >= patterns.len()
                {
                    return Err(ParamError::OutOfRange {
                        field: "explore pattern",
                        value: k as f64,
                        min: 0.0,
                        max: (patterns.len() - 1) as f64,
                    });
                }
                let sampler = NetworkSampler::from_saved_state(network.clone(), state)?;
                (Some(sampler), explored)
            }
        };
        let n = dataset.units();
        let mut lab = MachineLab {
            dataset,
            protocol,
            seed,
            machine,
            activations,
            clamps: vec![0; n],
            weights: vec![0.0; n * n],
            clamped_pairs: vec![0.0; n * n],
            free_pairs: vec![0.0; n * n],
            pair_difference: vec![0.0; n * n],
            curve: curves.learning_history(),
            ais_curve: curves.ais_history(),
            estimate,
            estimate_started,
            cycle_offset,
            version,
            explore: None,
            explored: None,
            shown,
        };
        lab.apply_stage()?;
        // The views as learning left them, then the hand-run sampler over them.
        lab.refresh();
        if explore.is_some() {
            lab.explore = explore;
            lab.explored = explored;
            lab.refresh();
        }
        Ok(lab)
    }
}

/// One distinct sample of the gallery.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GalleryEntry {
    /// The visible vector (0/1).
    pub pattern: Vec<u8>,
    /// Its share of the samples.
    pub frequency: f64,
    /// The model's exact p(v), when enumerable.
    pub probability: Option<f64>,
    /// Whether it is a training vector.
    pub training: bool,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::parse::parse_patterns;
    use crate::estimate::kl::visible_log_z;
    use crate::log_sum_exp::log_sum_exp;

    #[test]
    fn clamped_phase_holds_the_visible_units_at_the_pattern() {
        let mut lab = MachineLab::new("pixels-10", "stochastic", 1).unwrap();
        for _ in 0..50 {
            lab.advance(1.0, false).unwrap();
            if lab.phase() == Phase::Clamped {
                let k = lab.pattern().unwrap();
                for (i, &bit) in lab.patterns()[k].iter().enumerate() {
                    assert_eq!(lab.activations()[i], f64::from(bit));
                    assert_eq!(lab.clamps()[i], 1);
                }
            }
        }
    }

    #[test]
    fn exploring_clamps_the_chosen_pattern_and_dreaming_clamps_nothing() {
        let mut lab = MachineLab::new("bars-3x3", "stochastic", 2).unwrap();
        for _ in 0..5 {
            lab.step_cycle().unwrap();
        }
        lab.explore(3.0).unwrap();
        lab.explore_sweeps(10.0).unwrap();
        for (i, &bit) in lab.patterns()[3].iter().enumerate() {
            assert_eq!(lab.activations()[i], f64::from(bit));
        }
        assert!(lab.explore(99.0).is_err());
        lab.explore(-1.0).unwrap();
        assert!(lab.clamps().iter().all(|&c| c == 0));
        let gallery = lab.gallery(200.0, 1.0).unwrap();
        let total: f64 = gallery.iter().map(|e| e.frequency).sum();
        assert!((total - 1.0).abs() < 1e-9);
        assert!(gallery.iter().all(|e| e.probability.is_some()));
        lab.stop_exploring();
        assert!(!lab.exploring());
    }

    #[test]
    fn a_bad_value_changes_nothing() {
        let mut lab = MachineLab::new("4-2-4", "stochastic", 1).unwrap();
        let before = lab.update();
        assert!(lab.set_update("gradient", -1.0).is_err());
        assert!(lab.set_update("bogus", 1.0).is_err());
        assert!(lab.set_schedule("10", 5.0).is_err());
        assert!(lab.import_network("{\"units\": 3}").is_err());
        assert_eq!(lab.update(), before);
        let json = lab.export_network();
        lab.import_network(&json).unwrap();
        assert!(MachineLab::custom(vec![vec![1, 0], vec![1]], 0, "stochastic", 1).is_err());
        let err = parse_patterns("1010\n101").unwrap_err().to_string();
        assert!(err.contains("same length"), "{err}");
        assert_eq!(
            parse_patterns("10 1\n\n011").unwrap(),
            vec![vec![1, 0, 1], vec![0, 1, 1]]
        );
    }

    #[test]
    fn clamped_log_z_sums_to_the_exact_partition_function() {
        // Σ_v Z(v) over all visible vectors is Z.
        let network = crate::learn::experiment::random_weights(
            Problem::parse("4-2-4")
                .unwrap()
                .dataset()
                .network(crate::model::SpinKind::Binary),
            1.5,
            7,
        )
        .unwrap();
        let t = 0.8;
        let mut terms = Vec::new();
        for code in 0..(1u32 << network.visible()) {
            let v: Vec<u8> = (0..network.visible())
                .map(|i| ((code >> i) & 1) as u8)
                .collect();
            terms.push(visible_log_z(&network, t, &v).unwrap());
        }
        let total = log_sum_exp(terms);
        let exact = crate::estimate::log_z::exact_log_z(&network, t)
            .unwrap()
            .log_z;
        assert!((total - exact).abs() < 1e-9, "{total} vs {exact}");
    }

    #[test]
    fn the_ais_kl_estimate_agrees_with_exact_kl() {
        // A trained small machine: the estimate is within 5 standard errors (plus the
        // small downward bias of ln Ẑ, about stderr²/2) of the exact value.
        // 8-3-8 (19 units) is one the page estimates; it can still be enumerated here.
        for (problem, cycles) in [("bars-3x3", 30), ("8-3-8", 15)] {
            let mut lab = MachineLab::new(problem, "stochastic", 3).unwrap();
            for _ in 0..cycles {
                lab.step_cycle().unwrap();
            }
            let exact = kl_divergence(lab.network(), lab.temperature(), lab.patterns()).unwrap();
            for seed in 0..4 {
                let mut estimate = KlEstimate::new(
                    lab.network(),
                    lab.temperature(),
                    lab.patterns(),
                    32,
                    seed,
                    0,
                )
                .unwrap();
                assert!(estimate.value().is_none());
                while !estimate.advance(5).unwrap() {}
                let (kl, stderr) = estimate.value().unwrap();
                assert!(stderr > 0.0 && stderr < 0.2, "stderr {stderr}");
                assert!(
                    (kl - exact).abs() <= 5.0 * stderr + stderr * stderr,
                    "{problem} seed {seed}: AIS {kl} ± {stderr}, exact {exact}"
                );
            }
        }
    }

    #[test]
    fn a_big_machine_gets_ais_points_and_runs_every_stage() {
        let mut lab = MachineLab::new("40-10-40", "stochastic", 1).unwrap();
        assert!(lab.kl_estimated());
        assert!(lab.curve_kl()[0].is_nan());
        assert!(lab.estimating());
        while !lab.estimate_step(8.0).unwrap() {}
        // All weights zero at the start: the model is uniform over the 2^80 visible vectors
        // (V1 and V2, 40 each) and the data uniform over 40, so KL = 80 ln 2 − ln 40.
        let (kl, stderr) = (lab.curve_ais_kl()[0], lab.curve_ais_stderr()[0]);
        let exact = 80.0 * 2f64.ln() - 40f64.ln();
        assert!(
            (kl - exact).abs() < 1e-9 && stderr < 1e-9,
            "{kl} ± {stderr}"
        );
        assert!(lab.estimate_step(0.0).is_err());
        assert_eq!(lab.stage_count(), 3);
        assert!(
            lab.stage_text().starts_with("stage 1 of 3"),
            "{}",
            lab.stage_text()
        );
        assert_eq!(lab.stage_of(300), 0);
        assert_eq!(lab.stage_of(301), 1);
        assert_eq!(lab.stage_of(801), 2);
        assert_eq!(lab.stage_of(5000), 2);
        // Crossing into stage 2 gives the learner that stage's clamping noise.
        assert!(lab.machine.learner().options().noise.is_none());
        lab.cycle_offset = 300;
        lab.apply_stage().unwrap();
        assert_eq!(
            lab.machine.learner().options().noise,
            lab.protocol.stages[1].noise
        );
        assert!(!lab.machine.learner().options().noise.is_none());
        assert!(
            lab.stage_text()
                .starts_with("stage 2 of 3 (cycles 301–800)")
        );
        lab.cycle_offset = 800;
        lab.apply_stage().unwrap();
        assert!(lab.machine.learner().options().noise.is_none());
        // Too much work per step for a frame: no estimate (the page says so).
        let patterns: Vec<Vec<u8>> = (0..600u32)
            .map(|k| (0..40).map(|i| ((k * 7 + i * 13) % 5 == 0) as u8).collect())
            .collect();
        let heavy = MachineLab::custom(patterns, 16, "stochastic", 1).unwrap();
        assert!(!heavy.kl_estimated() && !heavy.estimating());
        let mut short = MachineLab::new("4-2-4", "stochastic", 1).unwrap();
        assert_eq!(short.stage_text(), "");
        short.step_cycle().unwrap();
        short.set_weight_decay(0.001).unwrap();
        assert_eq!(short.cycles(), 1, "changed options keep the cycle count");
    }
}
