//! The learning options a run can change while it learns: the update rule and its size, the
//! weight decay, the annealing schedule and the collection sweeps, and the way the stochastic
//! machine gets its statistics. Each change is a fresh cycle from the current weights (the
//! cycle count and the curves go on); a refused change leaves the run as it was.

use super::{COLLECT_SWEEPS, GIBBS_STEPS, MachineLab, PARTICLES, REPLICAS};
use crate::app::parse::parse_schedule;
use crate::error::ParamError;
use crate::learn::{GeneralStatistics, Update};

/// The learning rule's kind, chosen by name: `gradient` or `sign`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'gradient' | 'sign'")]
pub enum UpdateRule {
    /// g_ij = ε (p_ij − p′_ij), 0 < ε ≤ 100.
    Gradient,
    /// g_ij = k · sign(p_ij − p′_ij), 0 < k ≤ 1000.
    Sign,
}

impl UpdateRule {
    pub const ALL: [UpdateRule; 2] = [UpdateRule::Gradient, UpdateRule::Sign];

    /// `gradient` or `sign`.
    pub fn name(self) -> &'static str {
        match self {
            UpdateRule::Gradient => "gradient",
            UpdateRule::Sign => "sign",
        }
    }

    /// A rule by its name; the error names the field `rule`.
    pub fn parse(name: &str) -> Result<UpdateRule, ParamError> {
        [UpdateRule::Gradient, UpdateRule::Sign]
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "rule",
                value: crate::error::shorten(name),
                allowed: "gradient, sign",
            })
    }

    /// The rule with its size: the rate ε (`gradient`) or the step k (`sign`).
    pub fn with_size(self, size: f64) -> Update {
        match self {
            UpdateRule::Gradient => Update::Gradient { rate: size },
            UpdateRule::Sign => Update::Sign { step: size },
        }
    }

    /// The kind and size of `update`.
    pub fn of(update: Update) -> (UpdateRule, f64) {
        match update {
            Update::Gradient { rate } => (UpdateRule::Gradient, rate),
            Update::Sign { step } => (UpdateRule::Sign, step),
        }
    }
}

/// The named ways of getting the statistics ([`crate::learn::statistics`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(
    type = "'anneal' | 'persistent' | 'persistent-free' | 'mean-field-persistent' | 'tempering'"
)]
pub enum StatisticsWay {
    /// Both phases annealed (the paper's method).
    Anneal,
    /// Warm-started clamped phase, persistent free chains.
    Persistent,
    /// Annealed clamped phase, persistent free chains.
    PersistentFree,
    /// Mean-field clamped phase, persistent free chains.
    MeanFieldPersistent,
    /// Warm-started clamped phase, free chains in tempered ladders of R replicas.
    Tempering,
}

impl StatisticsWay {
    pub const ALL: [StatisticsWay; 5] = [
        StatisticsWay::Anneal,
        StatisticsWay::Persistent,
        StatisticsWay::PersistentFree,
        StatisticsWay::MeanFieldPersistent,
        StatisticsWay::Tempering,
    ];

    /// `anneal`, `persistent`, `persistent-free`, `mean-field-persistent` or `tempering`.
    pub fn name(self) -> &'static str {
        match self {
            StatisticsWay::Anneal => "anneal",
            StatisticsWay::Persistent => "persistent",
            StatisticsWay::PersistentFree => "persistent-free",
            StatisticsWay::MeanFieldPersistent => "mean-field-persistent",
            StatisticsWay::Tempering => "tempering",
        }
    }

    /// A way by its name; the error names the field `statistics`.
    pub fn parse(name: &str) -> Result<StatisticsWay, ParamError> {
        StatisticsWay::ALL
            .into_iter()
            .find(|w| w.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "statistics",
                value: crate::error::shorten(name),
                allowed: crate::learn::statistics::STATISTICS_NAMES,
            })
    }
}

impl MachineLab {
    /// The learning rule: `gradient` with its rate ε, or `sign` with its step k.
    pub fn update(&self) -> Update {
        self.protocol.options.update
    }

    /// Weight decay λ.
    pub fn weight_decay(&self) -> f64 {
        self.protocol.options.weight_decay
    }

    /// Sets the rule: `gradient` (ε in (0, 100]) or `sign` (k in (0, 1000]).
    pub fn set_update(&mut self, update: Update) -> Result<(), ParamError> {
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
    /// the learning temperature) and the collection sweeps (1 to 10⁶).
    pub fn set_schedule(&mut self, text: &str, collect: u64) -> Result<(), ParamError> {
        let steps = parse_schedule(text)?;
        let collect = COLLECT_SWEEPS.check(collect)?;
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

    /// Sets the way the stochastic machine gets its statistics ([`StatisticsWay`]), with K
    /// particles and k sweeps per chain and cycle (ignored by `anneal`) and R replicas per
    /// particle (used by `tempering` only). A fresh cycle from the current weights; on
    /// error nothing changes.
    pub fn set_statistics(
        &mut self,
        way: StatisticsWay,
        particles: u64,
        sweeps: u64,
        replicas: u64,
    ) -> Result<(), ParamError> {
        let particles = PARTICLES.check(particles)?;
        let sweeps = GIBBS_STEPS.check(sweeps)?;
        let replicas = REPLICAS.check(replicas)?;
        let statistics = GeneralStatistics::parse(way.name(), particles, sweeps, replicas)?;
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
}
