//! The general machine's protocol: every change a front end can make to a [`MachineLab`] is
//! one [`MachineCommand`], and [`MachineLab::apply`] is the one dispatcher that makes it and
//! answers with a [`MachineReply`] (the shape of the lattice's and the restricted machine's
//! protocols: `app::lattice::command`, `app::rbm::command`).
//!
//! On the wire a command is a plain object tagged by `command` (kebab-case), its choices by
//! name and its counts as numbers: `{"command": "advance", "steps": 64}`,
//! `{"command": "explore", "pattern": null}`. Decoding reads each count through its
//! [`Count`](crate::app::Count), the same range the method checks, so a bad value gets the
//! same message at the boundary as here; the methods check again for Rust callers that build
//! commands directly. A refused command leaves the lab as it was, except where said: learning
//! that fails keeps the sweeps before the failure, and an AIS estimate whose work fails is
//! dropped.
//!
//! Reading (the views' arrays, the curves, the counters, the gallery, ln Z, the network file
//! and the session text) stays with plain methods: only commands change the lab.

use super::options::{StatisticsWay, UpdateRule};
use super::{GIBBS_STEPS, MAX_STEPS_PER_CALL, MachineLab, PARTICLES, REPLICAS, REPLICAS_UP_TO};
use crate::app::lattice::wire::by_name;
use crate::app::parse::parse_patterns;
use crate::error::ParamError;
use crate::learn::Problem;
use crate::learn::experiment::LearningMethod;
use serde::{Deserialize, Serialize};

/// Every change a front end can make to the general machine's engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "command", rename_all = "kebab-case", deny_unknown_fields)]
#[tsify(missing_as_null)]
pub enum MachineCommand {
    /// Replaces the run by a new one on a built-in problem (`4-2-4`, `bars-3x3`, …) with
    /// `method`, from `seed` (0 to 2^53).
    NewRun {
        #[serde(with = "by_name")]
        problem: Problem,
        #[serde(with = "by_name")]
        method: LearningMethod,
        #[serde(deserialize_with = "wire::seed")]
        seed: u64,
    },
    /// Replaces the run by a new one on the user's patterns (text, one pattern per line of
    /// 0s and 1s, all of one length) with `hidden` hidden units (0 to 64).
    NewCustomRun {
        patterns: String,
        #[serde(deserialize_with = "wire::hidden")]
        hidden: u64,
        #[serde(with = "by_name")]
        method: LearningMethod,
        #[serde(deserialize_with = "wire::seed")]
        seed: u64,
    },
    /// Replaces the run by the one a session text describes (continuing exactly).
    RestoreSession { text: String },
    /// The learning rule: `gradient` with rate ε = `size` (0 < ε ≤ 100) or `sign` with step
    /// k = `size` (0 < k ≤ 1000).
    SetUpdate {
        #[serde(with = "by_name")]
        rule: UpdateRule,
        size: f64,
    },
    /// The weight decay λ in [0, 1).
    SetWeightDecay { decay: f64 },
    /// The annealing schedule ("T:sweeps, …") and the collection sweeps (1 to 10⁶).
    SetSchedule {
        schedule: String,
        #[serde(deserialize_with = "wire::collect_sweeps")]
        collect: u64,
    },
    /// The way of getting the statistics, with K particles, k sweeps per chain and cycle
    /// and R replicas per particle (tempering: R ≥ 2).
    SetStatistics {
        #[serde(with = "by_name")]
        statistics: StatisticsWay,
        #[serde(deserialize_with = "wire::particles")]
        particles: u64,
        #[serde(deserialize_with = "wire::gibbs_steps")]
        sweeps: u64,
        #[serde(deserialize_with = "wire::replicas")]
        replicas: u64,
    },
    /// Up to `steps` sweeps (stochastic) or settlings (mean field), 0 to 2^20; stops any
    /// exploring.
    Advance {
        #[serde(deserialize_with = "wire::steps")]
        steps: u64,
    },
    /// The rest of the current learning cycle.
    StepCycle,
    /// Every weight back to its start (the same seed); the curves start again.
    ResetWeights,
    /// Up to `chunks` chunks (1 to 1000) of the AIS estimate of KL under way.
    EstimateStep {
        #[serde(deserialize_with = "wire::estimate_chunks")]
        chunks: u64,
    },
    /// Watches the network by hand: training pattern `pattern` (0-based) clamped, or
    /// nothing clamped (`null`: the machine dreams). Learning waits.
    Explore {
        #[serde(default, deserialize_with = "wire::pattern")]
        pattern: Option<u64>,
    },
    /// Back to learning.
    StopExploring,
    /// `sweeps` sweeps (1 to 10⁴) of the hand-run sampler.
    ExploreSweeps {
        #[serde(deserialize_with = "wire::explore_sweeps")]
        sweeps: u64,
    },
    /// Weights and biases from a network file of the same shape; learning starts again.
    ImportNetwork { text: String },
    /// Random couplings (the Sherrington–Kirkpatrick glass) drawn from `seed` (0 to 2^53);
    /// learning starts again.
    RandomCouplings {
        #[serde(deserialize_with = "wire::seed")]
        seed: u64,
    },
}

/// What the engine answers to a command it accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "reply", rename_all = "kebab-case")]
pub enum MachineReply {
    /// The change was made.
    Changed,
    /// A new run replaced the old (new run or session): its shape, for the page to lay out
    /// its views again.
    Restarted {
        units: usize,
        visible: usize,
        patterns: usize,
    },
    /// Learning completed `cycles` cycles.
    Advanced { cycles: u64 },
    /// The estimate worked; `added`: a point joined the AIS curve.
    Estimated { added: bool },
}

crate::app::lattice::wire::named!(Problem, LearningMethod, UpdateRule, StatisticsWay);

/// How a command's counts are read on the wire: each through its [`Count`](crate::app::Count).
mod wire {
    use crate::app::lattice::wire::counts;
    use serde::{Deserialize, Deserializer, de::Error};

    counts! {
        seed: SEED;
        hidden: HIDDEN;
        collect_sweeps: COLLECT_SWEEPS;
        particles: PARTICLES;
        gibbs_steps: GIBBS_STEPS;
        steps: STEPS;
        estimate_chunks: ESTIMATE_CHUNKS;
        explore_sweeps: EXPLORE_SWEEPS;
    }

    /// R: 1 to 32, and at least 2 under tempering, which the statistics check.
    pub fn replicas<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        crate::app::lattice::wire::read_count_before(
            d,
            super::super::REPLICAS,
            super::super::REPLICAS_UP_TO,
        )
    }

    /// A pattern (0-based) or `null`/absent for none.
    pub fn pattern<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        Option::<f64>::deserialize(d)?
            .map(|x| super::super::PATTERN.read(x).map_err(D::Error::custom))
            .transpose()
    }
}

/// Commands from the page's number-form calls (every JavaScript number is an f64), read as
/// the wire reads them: the same counts, the same messages.
impl MachineCommand {
    /// [`MachineCommand::SetStatistics`] from a way's name and K, k and R as numbers (the
    /// counts are read first, then the name).
    pub fn statistics_from_numbers(
        name: &str,
        particles: f64,
        sweeps: f64,
        replicas: f64,
    ) -> Result<MachineCommand, ParamError> {
        let particles = PARTICLES.read(particles)?;
        let sweeps = GIBBS_STEPS.read(sweeps)?;
        let replicas = REPLICAS.read_before(replicas, REPLICAS_UP_TO)?;
        Ok(MachineCommand::SetStatistics {
            statistics: StatisticsWay::parse(name)?,
            particles,
            sweeps,
            replicas,
        })
    }
}

impl MachineLab {
    /// The one dispatcher: makes `command` or refuses it (with the reason, changing nothing
    /// but what the module docs say).
    pub fn apply(&mut self, command: MachineCommand) -> Result<MachineReply, ParamError> {
        use MachineCommand as C;
        match command {
            C::NewRun {
                problem,
                method,
                seed,
            } => {
                *self = MachineLab::built_in(problem, method, seed)?;
                return Ok(self.restarted());
            }
            C::NewCustomRun {
                patterns,
                hidden,
                method,
                seed,
            } => {
                let patterns = parse_patterns(&patterns)?;
                *self = MachineLab::custom(patterns, hidden, method, seed)?;
                return Ok(self.restarted());
            }
            C::RestoreSession { text } => {
                self.restore_session(&text)?;
                return Ok(self.restarted());
            }
            C::SetUpdate { rule, size } => self.set_update(rule.with_size(size))?,
            C::SetWeightDecay { decay } => self.set_weight_decay(decay)?,
            C::SetSchedule { schedule, collect } => self.set_schedule(&schedule, collect)?,
            C::SetStatistics {
                statistics,
                particles,
                sweeps,
                replicas,
            } => self.set_statistics(statistics, particles, sweeps, replicas)?,
            C::Advance { steps } => {
                let cycles = self.advance(steps, false)?;
                return Ok(MachineReply::Advanced { cycles });
            }
            C::StepCycle => {
                let cycles = self.advance(MAX_STEPS_PER_CALL, true)?;
                return Ok(MachineReply::Advanced { cycles });
            }
            C::ResetWeights => self.reset_weights()?,
            C::EstimateStep { chunks } => {
                let added = self.estimate_step(chunks)?;
                return Ok(MachineReply::Estimated { added });
            }
            C::Explore { pattern } => self.explore(pattern)?,
            C::StopExploring => self.stop_exploring(),
            C::ExploreSweeps { sweeps } => self.explore_sweeps(sweeps)?,
            C::ImportNetwork { text } => self.import_network(&text)?,
            C::RandomCouplings { seed } => self.random_couplings(seed)?,
        }
        Ok(MachineReply::Changed)
    }

    fn restarted(&self) -> MachineReply {
        MachineReply::Restarted {
            units: self.units(),
            visible: self.visible(),
            patterns: self.patterns().len(),
        }
    }
}
