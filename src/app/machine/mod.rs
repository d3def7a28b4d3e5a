//! The Boltzmann-machine laboratory: one learning run of a general Boltzmann machine that
//! the page drives.
//!
//! A [`MachineLab`] holds a learner (stochastic two-phase or mean-field) for a training set,
//! steps it a bounded number of sweeps at a time, and keeps what the live views read. It is a
//! small composition, one file per job:
//! - [`options`]: the learning options (rule, weight decay, annealing schedule, the way of
//!   getting the statistics), each change a fresh cycle from the current weights;
//! - [`stages`]: the protocol's stages (clamping noise, hidden–hidden connections by cycle);
//! - [`advancing`]: learning, sweep by sweep or a whole cycle, and starting again;
//! - [`views`]: the arrays the views read: the units' activations q_i = P(s_i = high) (0/1
//!   when sampling), the clamp flags, w_ij, θ_i, the clamped and free ⟨s_i s_j⟩;
//! - [`explore`]: a sampler run by hand (a training pattern clamped, or dreaming);
//! - [`curves`]: the learning curves, kept as bounded histories: exact KL(data ‖ model) when
//!   the machine can be enumerated, else AIS estimates of it a chunk at a time
//!   ([`KlEstimate`]), and the fraction of encoder inputs with their own code;
//! - [`gallery`]: free-running samples grouped, with their exact probabilities;
//! - [`network_io`]: the network file out and in, random couplings, ln Z four ways;
//! - [`snapshot`]: the whole run as versioned session text, restored exactly;
//! - [`counts`]: the range of every whole number a command carries;
//! - [`command`]: the protocol: every change is one [`MachineCommand`], made by the one
//!   dispatcher [`MachineLab::apply`], answered by a [`MachineReply`].
//!
//! The app API takes integers, `Option` and enums; each count's range is one
//! [`Count`](crate::app::Count) in [`counts`], read once at the boundary (the wire, or the
//! page's number-form calls in `web/`) and checked again by the method with the same message.
//! Every method that takes a value from outside checks it and, on error, changes nothing.

pub mod advancing;
pub mod command;
pub mod counts;
pub mod curves;
pub mod explore;
pub mod gallery;
pub mod network_io;
pub mod options;
pub mod snapshot;
pub mod stages;
pub mod views;

#[cfg(test)]
mod tests;

pub use command::{MachineCommand, MachineReply};
pub use counts::*;
pub use curves::{AIS_KL_CHUNKS, AIS_KL_EVERY, MAX_KL_STATES, MAX_KL_STEP_WORK};
pub use gallery::GalleryEntry;
pub use options::{StatisticsWay, UpdateRule};

use crate::dynamics::NetworkSampler;
use crate::error::ParamError;
use crate::estimate::kl::KlEstimate;
use crate::estimate::trace::{Eviction, History};
use crate::learn::experiment::{LearningMethod, Protocol, random_weights};
use crate::learn::{
    Dataset, Learner, MeanFieldLearner, Phase, Position, Problem, StochasticLearner,
};
use crate::model::Network;

/// Most sweeps (stochastic) or solves (mean field) one `advance` call may do.
pub const MAX_STEPS_PER_CALL: u64 = 1 << 20;
/// Points kept in each learning curve.
pub const CURVE_CAPACITY: usize = 4096;
/// Most hidden units of a machine on the user's patterns: 64.
pub const MAX_CUSTOM_HIDDEN: u64 = 64;

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
        MachineLab::built_in(problem, method, seed)
    }

    /// A run on the built-in `problem` with `method`, the protocol of
    /// [`Protocol::standard`], from `seed` (0 to 2^53).
    pub fn built_in(
        problem: Problem,
        method: LearningMethod,
        seed: u64,
    ) -> Result<MachineLab, ParamError> {
        let seed = SEED.check(seed)?;
        let mut protocol = Protocol::standard(problem, method);
        protocol.options.seed = seed;
        MachineLab::build(problem.dataset(), protocol, seed, None)
    }

    /// A run on the user's `patterns` (0/1, all of one length) with `hidden` hidden units
    /// (0 to [`MAX_CUSTOM_HIDDEN`]) and `method`, from `seed` (0 to 2^53).
    pub fn custom(
        patterns: Vec<Vec<u8>>,
        hidden: u64,
        method: LearningMethod,
        seed: u64,
    ) -> Result<MachineLab, ParamError> {
        let hidden = HIDDEN.check(hidden)? as usize;
        let seed = SEED.check(seed)?;
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
            shown: machine.learner().position(),
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

    /// Units n.
    pub fn units(&self) -> usize {
        self.dataset.units()
    }

    /// Visible units.
    pub fn visible(&self) -> usize {
        self.dataset.visible()
    }

    /// Changes whenever the weights change (for redrawing only then).
    pub fn version(&self) -> u64 {
        self.version
    }
}
