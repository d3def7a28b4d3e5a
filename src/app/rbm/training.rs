//! The restricted machine's learning: its options, checked once into the engine's
//! [`TrainingOptions`], and the lab's learning calls (whole updates, or work in slices of an
//! update).
//!
//! [`Training`] is the typed form a command carries: the statistics as a choice, counts as
//! integers, `None` where the statistics have no such count. [`RbmTraining`] is the page's
//! form (every value a JavaScript number, NaN for "none"), read into a [`Training`] by
//! [`RbmTraining::typed`] with the same ranges ([`super::Count`]), so a value refused at the
//! boundary and one refused by the dispatcher get the same message.

use super::{BATCH, Count, GIBBS_STEPS, LEARNING_WORK, PARTICLES, REPLICAS, RbmLab, UPDATES};
use crate::app::lattice::wire::{Named, by_name};
use crate::error::{ParamError, finite_in};
use crate::learn::rbm::{RateSchedule, Statistics, TrainingOptions};
use serde::{Deserialize, Serialize};

/// How the free-phase statistics are gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'cd' | 'persistent' | 'tempering'")]
pub enum StatisticsKind {
    /// `cd`: CD-k, k block Gibbs steps from each training image of the batch.
    ContrastiveDivergence,
    /// `persistent`: K persistent particles, k steps per update.
    Persistent,
    /// `tempering`: K particles in each of R tempered replicas, k steps per update.
    Tempering,
}

impl StatisticsKind {
    pub const ALL: [StatisticsKind; 3] = [
        StatisticsKind::ContrastiveDivergence,
        StatisticsKind::Persistent,
        StatisticsKind::Tempering,
    ];

    pub fn name(self) -> &'static str {
        match self {
            StatisticsKind::ContrastiveDivergence => "cd",
            StatisticsKind::Persistent => "persistent",
            StatisticsKind::Tempering => "tempering",
        }
    }

    /// The statistics called `name`; any other is refused, naming the field `statistics`.
    pub fn parse(name: &str) -> Result<StatisticsKind, ParamError> {
        StatisticsKind::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "statistics",
                value: name.into(),
                allowed: "cd, persistent, tempering",
            })
    }

    /// Whether these statistics keep particles (and so need K).
    pub fn has_particles(self) -> bool {
        self != StatisticsKind::ContrastiveDivergence
    }

    /// Whether these statistics keep tempered replicas (and so need R).
    pub fn has_replicas(self) -> bool {
        self == StatisticsKind::Tempering
    }
}

impl Named for StatisticsKind {
    const ALL: &'static [Self] = &StatisticsKind::ALL;
    fn name(self) -> &'static str {
        StatisticsKind::name(self)
    }
    fn parse(name: &str) -> Result<Self, ParamError> {
        StatisticsKind::parse(name)
    }
}

/// The learning options a command carries. On the wire: `{"statistics": "persistent",
/// "steps": 1, "particles": 100, "replicas": null, "batch": 100, "rate": 0.05,
/// "momentum": 0.5, "decay": 0}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(deny_unknown_fields)]
#[tsify(missing_as_null)]
pub struct Training {
    #[serde(with = "by_name")]
    pub statistics: StatisticsKind,
    /// k, block Gibbs steps per update (1 to 1000).
    #[serde(deserialize_with = "wire::gibbs_steps")]
    pub steps: u64,
    /// K, persistent particles (per replica for tempering; 1 to 10 000); `None` for CD-k.
    #[serde(default, deserialize_with = "wire::particles")]
    pub particles: Option<u64>,
    /// R, tempered replicas (2 to 64); `None` unless tempering.
    #[serde(default, deserialize_with = "wire::replicas")]
    pub replicas: Option<u64>,
    /// B, the mini-batch size (1 to the number of training images).
    #[serde(deserialize_with = "wire::batch")]
    pub batch: u64,
    /// ε, the learning rate (constant; 0 to 100).
    pub rate: f64,
    /// μ, momentum (0 to 0.99).
    pub momentum: f64,
    /// λ, weight decay (0 to 0.99).
    pub decay: f64,
}

/// How a count of the options is read on the wire: through its [`Count`].
mod wire {
    use super::super::{BATCH, Count, GIBBS_STEPS, PARTICLES, REPLICAS};
    use serde::{Deserialize, Deserializer, de::Error};

    fn optional<'de, D: Deserializer<'de>>(d: D, count: Count) -> Result<Option<u64>, D::Error> {
        Option::<f64>::deserialize(d)?
            .map(|x| count.read(x).map_err(D::Error::custom))
            .transpose()
    }

    pub fn gibbs_steps<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        GIBBS_STEPS
            .read(f64::deserialize(d)?)
            .map_err(D::Error::custom)
    }

    /// B: up to the number of training images, which the run checks.
    pub fn batch<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        BATCH
            .read_before(f64::deserialize(d)?, "the number of training images")
            .map_err(D::Error::custom)
    }

    pub fn particles<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        optional(d, PARTICLES)
    }

    pub fn replicas<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        optional(d, REPLICAS)
    }
}

impl Training {
    /// The engine's options for `seed`, each value checked (errors name the field and its
    /// range), in the order k, K, R, B, ε, μ, λ; the batch is at most the number of training
    /// vectors and the whole update within the engine's work limit
    /// ([`TrainingOptions::check`]). K is needed by persistent and tempering statistics, R by
    /// tempering; either is ignored where the statistics have none.
    pub fn options(
        &self,
        seed: u64,
        patterns: usize,
        visible: usize,
        hidden: usize,
    ) -> Result<TrainingOptions, ParamError> {
        let steps = GIBBS_STEPS.check(self.steps)? as usize;
        let kind = self.statistics;
        let needed = |count: Count, value: Option<u64>| {
            let value = value.ok_or_else(|| ParamError::Invalid {
                field: count.field,
                reason: format!(
                    "{} statistics need a number of {} ({} to {})",
                    kind.name(),
                    count.field,
                    count.min,
                    count.max
                ),
            })?;
            count.check(value).map(|n| n as usize)
        };
        let statistics = match kind {
            StatisticsKind::ContrastiveDivergence => Statistics::ContrastiveDivergence { steps },
            StatisticsKind::Persistent => Statistics::Persistent {
                particles: needed(PARTICLES, self.particles)?,
                steps,
            },
            StatisticsKind::Tempering => Statistics::ParallelTempering {
                particles: needed(PARTICLES, self.particles)?,
                steps,
                replicas: needed(REPLICAS, self.replicas)?,
            },
        };
        let options = TrainingOptions {
            statistics,
            batch: BATCH.up_to(patterns as u64).check(self.batch)? as usize,
            rate: finite_in("learning rate", self.rate, f64::MIN_POSITIVE, 100.0)?,
            schedule: RateSchedule::Constant,
            momentum: finite_in("momentum", self.momentum, 0.0, 0.99)?,
            weight_decay: finite_in("weight decay", self.decay, 0.0, 0.99)?,
            seed,
        };
        options.check(patterns, visible, hidden)?;
        Ok(options)
    }

    /// The options the engine is learning with, as a command would give them.
    pub fn of(options: &TrainingOptions) -> Training {
        let (statistics, particles, replicas) = match options.statistics {
            Statistics::ContrastiveDivergence { .. } => {
                (StatisticsKind::ContrastiveDivergence, None, None)
            }
            Statistics::Persistent { particles, .. } => {
                (StatisticsKind::Persistent, Some(particles as u64), None)
            }
            Statistics::ParallelTempering {
                particles,
                replicas,
                ..
            } => (
                StatisticsKind::Tempering,
                Some(particles as u64),
                Some(replicas as u64),
            ),
        };
        Training {
            statistics,
            steps: options.statistics.steps() as u64,
            particles,
            replicas,
            batch: options.batch as u64,
            rate: options.rate,
            momentum: options.momentum,
            decay: options.weight_decay,
        }
    }
}

/// The learning options as the page gives them: every value a number (NaN where the
/// statistics have none), the statistics by name; read by [`RbmTraining::typed`].
#[derive(Debug, Clone, PartialEq)]
pub struct RbmTraining {
    /// `cd`, `persistent` or `tempering`.
    pub statistics: String,
    /// k, block Gibbs steps per update.
    pub steps: f64,
    /// K, persistent particles (per replica for tempering).
    pub particles: f64,
    /// R, tempered replicas.
    pub replicas: f64,
    /// B, the mini-batch size.
    pub batch: f64,
    /// ε, the learning rate (constant).
    pub rate: f64,
    /// μ, momentum.
    pub momentum: f64,
    /// λ, weight decay.
    pub decay: f64,
}

impl Default for RbmTraining {
    /// Persistent particles (100, k = 1), batch 100, ε = 0.05, μ = 0.5, λ = 0.
    fn default() -> Self {
        RbmTraining {
            statistics: "persistent".into(),
            steps: 1.0,
            particles: 100.0,
            replicas: 4.0,
            batch: 100.0,
            rate: 0.05,
            momentum: 0.5,
            decay: 0.0,
        }
    }
}

impl RbmTraining {
    /// The typed options for a set of `patterns` training images: k, then the statistics'
    /// name, K and R where the statistics have them, then B (1 to `patterns`), each read
    /// through its [`Count`]; ε, μ and λ are checked by [`Training::options`]. K or R where
    /// the statistics have none (K for CD-k, R for all but tempering) is left out, but checked
    /// all the same unless NaN, the page's "none" (`used_count`).
    pub fn typed(&self, patterns: usize) -> Result<Training, ParamError> {
        let steps = GIBBS_STEPS.read(self.steps)?;
        let statistics = StatisticsKind::parse(&self.statistics)?;
        let particles = used_count(statistics.has_particles(), PARTICLES, self.particles)?;
        let replicas = used_count(statistics.has_replicas(), REPLICAS, self.replicas)?;
        Ok(Training {
            statistics,
            steps,
            particles,
            replicas,
            batch: BATCH.up_to(patterns as u64).read(self.batch)?,
            rate: self.rate,
            momentum: self.momentum,
            decay: self.decay,
        })
    }

    /// The engine's options for `seed` ([`RbmTraining::typed`], then [`Training::options`]).
    pub fn options(
        &self,
        seed: u64,
        patterns: usize,
        visible: usize,
        hidden: usize,
    ) -> Result<TrainingOptions, ParamError> {
        self.typed(patterns)?
            .options(seed, patterns, visible, hidden)
    }
}

/// A count the statistics use (`used`) is read through `count`; one they do not use is
/// `None`, but a number given for it (anything but NaN, the page's "none") must still be one
/// `count` accepts: a script's bad value is refused when it is sent, not once statistics that
/// use it are chosen.
fn used_count(used: bool, count: Count, value: f64) -> Result<Option<u64>, ParamError> {
    match (used, value.is_nan()) {
        (true, _) => count.read(value).map(Some),
        (false, true) => Ok(None),
        (false, false) => count.read(value).map(|_| None),
    }
}

impl From<Training> for RbmTraining {
    /// The page's form: K and R are NaN where the statistics have none.
    fn from(t: Training) -> RbmTraining {
        let number = |n: Option<u64>| n.map_or(f64::NAN, |n| n as f64);
        RbmTraining {
            statistics: t.statistics.name().into(),
            steps: t.steps as f64,
            particles: number(t.particles),
            replicas: number(t.replicas),
            batch: t.batch as f64,
            rate: t.rate,
            momentum: t.momentum,
            decay: t.decay,
        }
    }
}

impl RbmLab {
    /// The trainer's options for `training`, with every check [`RbmLab::set_options`]
    /// makes, changing nothing.
    fn checked_options(&self, training: &Training) -> Result<TrainingOptions, ParamError> {
        let options = training.options(
            self.seed,
            self.images.train.len(),
            self.visible(),
            self.hidden,
        )?;
        options.check(self.trainer.patterns(), self.visible(), self.hidden)?;
        Ok(options)
    }

    /// Whether `training` would be taken by [`RbmLab::set_training`], refused for the same
    /// reason, without setting it: the page checks the options waiting for Apply options as
    /// learning is run. Setting them and setting them back would not do: new particle counts
    /// draw new particles, a new batch size reshuffles.
    pub fn check_training(&self, training: &RbmTraining) -> Result<(), ParamError> {
        let training = training.typed(self.images.train.len())?;
        self.checked_options(&training).map(|_| ())
    }

    /// Replaces the learning options from the next update on (see
    /// [`crate::learn::rbm::RbmTrainer::set_options`]: new statistics or particle counts
    /// start new particles); refused, with nothing changed, if any value is out of range.
    pub(super) fn set_options(&mut self, training: &Training) -> Result<(), ParamError> {
        let options = self.checked_options(training)?;
        self.trainer.set_options(options)?;
        self.reshape_shown();
        self.refresh();
        Ok(())
    }

    /// Up to `updates` mini-batch updates ([`UPDATES`]); returns the updates done. On a
    /// divergence the updates before it stay and the error says which parameter left the
    /// allowed range (every later call returns it).
    pub(super) fn run_updates(&mut self, updates: u64) -> Result<u64, ParamError> {
        let updates = UPDATES.check(updates)?;
        let before = self.trainer.updates();
        let result = self.trainer.run(updates);
        if self.trainer.updates() != before {
            self.version += 1;
        }
        result.map(|()| self.trainer.updates() - before)
    }

    /// Learns for about `work` multiply-adds ([`LEARNING_WORK`]), in slices of an update
    /// ([`crate::learn::rbm::RbmTrainer::work`]): an update is resumed where the last call
    /// stopped, so no call runs longer than its budget by more than one block Gibbs step of
    /// one chain, whatever k × particles. Returns the updates completed; errors as
    /// [`RbmLab::run_updates`].
    pub(super) fn learn_for(&mut self, work: u64) -> Result<u64, ParamError> {
        let work = LEARNING_WORK.check(work)?;
        let (mut spent, mut completed) = (0, 0);
        while spent < work {
            let (done, used) = match self.trainer.work(work - spent) {
                Ok(step) => step,
                Err(e) => {
                    if completed > 0 {
                        self.version += 1;
                    }
                    return Err(e);
                }
            };
            spent += used.max(1);
            completed += u64::from(done);
        }
        if completed > 0 {
            self.version += 1;
        }
        Ok(completed)
    }

    // --- The commands as methods -------------------------------------------------------------

    /// [`RbmCommand::SetTraining`](super::RbmCommand::SetTraining), from the options as the
    /// wire carries them.
    pub fn set_training(&mut self, training: &RbmTraining) -> Result<(), ParamError> {
        let training = training.typed(self.images.train.len())?;
        self.apply(super::RbmCommand::SetTraining { training })
            .map(|_| ())
    }

    /// [`RbmCommand::Advance`](super::RbmCommand::Advance): up to `updates` updates (1 to
    /// 10 000); returns the updates done.
    pub fn advance(&mut self, updates: u64) -> Result<u64, ParamError> {
        self.run_updates(updates)
    }

    /// [`RbmCommand::Learn`](super::RbmCommand::Learn): about `work` multiply-adds (1 to
    /// 2^40); returns the updates completed.
    pub fn learn(&mut self, work: u64) -> Result<u64, ParamError> {
        self.learn_for(work)
    }

    // --- What the page shows of the learning -----------------------------------------------

    /// Multiply-adds of one whole update (the clamped phase B·V·H plus the free phase's
    /// chains·(2k + 1)·V·H), for the page to size its slices.
    pub fn update_work(&self) -> f64 {
        let o = self.trainer.options();
        let chains = o.statistics.chains(o.batch) as f64;
        let k = o.statistics.steps() as f64;
        (o.batch as f64 + chains * (2.0 * k + 1.0)) * (self.visible() * self.hidden) as f64
    }

    /// `cd`, `persistent` or `tempering`.
    pub fn statistics(&self) -> &'static str {
        self.trainer.options().statistics.name()
    }

    pub fn options(&self) -> &TrainingOptions {
        self.trainer.options()
    }

    /// The options as a command gives them.
    pub fn typed_training(&self) -> Training {
        Training::of(self.trainer.options())
    }

    /// The options as the page gives them ([`RbmTraining`]); K and R are NaN where the
    /// statistics have none (CD-k has no particles, only tempering has replicas).
    pub fn training(&self) -> RbmTraining {
        self.typed_training().into()
    }
}
