//! Boltzmann learning: the two-phase rule of Ackley, Hinton & Sejnowski (1985) and its
//! deterministic (mean-field) form of Peterson & Anderson (1987).
//!
//! A learning cycle has two phases. In the *clamped* phase the visible units are held at
//! each training vector in turn (each vector `settlings` times), the free units are
//! randomised and the network is annealed, and then the statistics
//!
//!   p_i = ⟨s_i⟩_clamped,   p_ij = ⟨s_i s_j⟩_clamped
//!
//! are collected at the final temperature T. In the *free* phase nothing is clamped (or,
//! for an input → output task, only the input units: [`FreePhase::Inputs`]), the same
//! number of settlings is done, and p′_i, p′_ij are collected the same way. Then every
//! allowed connection (the wiring mask's structural zeros stay zero) changes by
//!
//!   Δw_ij = ε (p_ij − p′_ij),   Δθ_i = ε (p_i − p′_i)                  ([`Update::Gradient`])
//!
//! or by the paper's fixed step, Δw_ij = k · sign(p_ij − p′_ij) with k = 2
//! ([`Update::Sign`]). Since ∂⟨ln p(v)⟩_data/∂w_ij = (p_ij − p′_ij)/T
//! ([`likelihood::exact_gradient`]), the gradient rule climbs the log-likelihood of the
//! training vectors, i.e. descends G = KL(data ‖ model). Momentum μ and weight decay λ are
//! optional: the change applied in cycle t is
//!
//!   v_ij(t) = μ v_ij(t − 1) + g_ij − λ w_ij,   w_ij ← w_ij + v_ij(t)
//!
//! (g the ε- or sign-rule change; biases take the same form without decay).
//!
//! Modules:
//! - [`datasets`]: the training sets (encoders, bars and stripes, 10-pixel images, user
//!   patterns) and the wiring each implies;
//! - [`stochastic`]: the stochastic machine (sampled statistics), step by step, and
//!   free-running samples from a trained machine;
//! - [`deterministic`]: the mean-field machine (statistics m_i, m_i m_j from
//!   [`crate::estimate::mean_field::solve`]);
//! - [`statistics`]: the ways the stochastic machine gets each phase's statistics
//!   (annealed, warm-started, mean-field clamped, persistent free chains);
//! - [`likelihood`]: exact p(v), KL(data ‖ model), log-likelihood and its exact gradient
//!   for machines small enough to enumerate;
//! - [`encoder`]: the encoder tests (hidden codes, well-spaced codes, the 40-10-40 test);
//! - [`experiment`]: the published protocols, one seeded run at a time.
//! - [`memory`]: pattern memory (Hopfield): Hebb's rule, unlearning, the Boltzmann rule with
//!   no hidden units, and the capacity experiment that compares them.

pub mod datasets;
pub mod deterministic;
pub mod digits;
pub mod encoder;
pub mod experiment;
pub mod likelihood;
pub mod memory;
pub mod mnist;
pub mod rbm;
pub mod statistics;
pub mod stochastic;

pub use datasets::{Dataset, Encoder, Problem};
pub use deterministic::{MeanFieldLearner, MeanFieldStart};
pub use statistics::{ClampedStatistics, FreeStatistics, GeneralStatistics};
pub use stochastic::StochasticLearner;

use crate::dynamics::Schedule;
use crate::dynamics::rules::threshold;
use crate::error::{ParamError, finite_in, whole_in};
use crate::model::Network;
use crate::model::network::{pair_count, pair_index};
pub use crate::model::patterns::{MAX_PATTERNS, check_patterns};
use crate::rng::SpinRng;
use rand::Rng;

/// The two phases of a learning cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    /// Visible units held at a training vector: statistics p_i, p_ij.
    Clamped,
    /// Nothing clamped (or only the inputs): statistics p′_i, p′_ij.
    Free,
}

impl Phase {
    /// `clamped` or `free`.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Clamped => "clamped",
            Phase::Free => "free",
        }
    }
}

/// How the statistics turn into a weight change g_ij.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "rule")]
pub enum Update {
    /// g_ij = ε (p_ij − p′_ij), g_i = ε (p_i − p′_i): gradient ascent on the mean
    /// log-likelihood with step ε·T (0 < ε ≤ 100).
    Gradient { rate: f64 },
    /// g_ij = k · sign(p_ij − p′_ij), with sign(0) = 0: the paper's fixed step (k = 2,
    /// weights from 0; 0 < k ≤ 1000).
    Sign { step: f64 },
}

impl Update {
    /// The paper's rule: a step of 2 in the direction of sign(p_ij − p′_ij).
    pub const ACKLEY_1985: Update = Update::Sign { step: 2.0 };

    /// g for one statistic: ε·(clamped − free) or k·sign(clamped − free).
    pub fn change(self, clamped: f64, free: f64) -> f64 {
        let difference = clamped - free;
        match self {
            Update::Gradient { rate } => rate * difference,
            Update::Sign { step } => {
                if difference > 0.0 {
                    step
                } else if difference < 0.0 {
                    -step
                } else {
                    0.0
                }
            }
        }
    }

    fn check(self) -> Result<(), ParamError> {
        match self {
            Update::Gradient { rate } => positive("learning rate", rate, 100.0),
            Update::Sign { step } => positive("step", step, 1000.0),
        }
    }
}

/// `value` finite with 0 < value ≤ max; every refusal (NaN, 0, below 0, above max) says
/// "above 0 and at most max".
fn positive(field: &'static str, value: f64, max: f64) -> Result<(), ParamError> {
    finite_in(field, value, f64::MIN_POSITIVE, max).map(|_| ())
}

/// `value` finite with 0 ≤ value < 1; every refusal (NaN, ±∞, below 0, 1 or more) states that
/// one range.
fn below_one(field: &'static str, value: f64) -> Result<(), ParamError> {
    if (0.0..1.0).contains(&value) {
        return Ok(());
    }
    Err(ParamError::Invalid {
        field,
        reason: format!(
            "must be a number at least 0 and below 1, got {}",
            crate::error::given(value)
        ),
    })
}

/// Noisy clamping: each clamped bit is presented flipped, an "on" bit off with probability
/// `on_to_off` and an "off" bit on with probability `off_to_on`, drawn afresh for every
/// settling. The paper used 0.15 and 0.05 for the 4-2-4 encoder, so that the clamped
/// statistics never sit at exactly 0 or 1 and the weights stay finite.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ClampNoise {
    /// P(an on bit is presented off), in [0, 1].
    pub on_to_off: f64,
    /// P(an off bit is presented on), in [0, 1].
    pub off_to_on: f64,
}

impl ClampNoise {
    /// No noise: the training vectors are clamped exactly.
    pub const NONE: ClampNoise = ClampNoise {
        on_to_off: 0.0,
        off_to_on: 0.0,
    };

    /// Checks both probabilities are in [0, 1]; errors name `noise on to off` or
    /// `noise off to on`.
    pub fn check(&self) -> Result<(), ParamError> {
        finite_in("noise on to off", self.on_to_off, 0.0, 1.0)?;
        finite_in("noise off to on", self.off_to_on, 0.0, 1.0)?;
        Ok(())
    }

    /// Whether both probabilities are zero.
    pub fn is_none(&self) -> bool {
        self.on_to_off == 0.0 && self.off_to_on == 0.0
    }

    /// A noisy copy of `pattern` (0/1): each bit is flipped with its probability, decided
    /// by one 32-bit draw per bit r < round(p·2^32) (one draw per bit whatever the noise,
    /// so the stream does not depend on the pattern).
    pub fn present(&self, pattern: &[u8], rng: &mut SpinRng) -> Vec<u8> {
        let (on_off, off_on) = (threshold(self.on_to_off), threshold(self.off_to_on));
        pattern
            .iter()
            .map(|&bit| {
                let r = u64::from(rng.next_u32());
                match bit {
                    1 if r < on_off => 0,
                    0 if r < off_on => 1,
                    _ => bit,
                }
            })
            .collect()
    }
}

/// What is clamped in the free phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FreePhase {
    /// Nothing clamped: the machine learns the distribution of the visible vectors
    /// (Ackley, Hinton & Sejnowski 1985).
    Nothing,
    /// The first k visible units (the inputs) stay clamped to the same (noisy) vector as
    /// in the clamped phase: the machine learns p(outputs | inputs), the input → output
    /// form Peterson & Anderson (1987) used (1 ≤ k < visible).
    Inputs(usize),
}

/// One settling: randomise the free units, anneal, then collect statistics for
/// `collect_sweeps` time units at the schedule's final temperature (the learning
/// temperature T). A time unit (sweep) is as many random single-unit probes as there are
/// free units.
#[derive(Debug, Clone, PartialEq)]
pub struct Settling {
    /// The annealing steps (T, sweeps).
    pub anneal: Schedule,
    /// Time units of collection at the final temperature (1 ≤ c ≤ 10⁶).
    pub collect_sweeps: u64,
}

impl Settling {
    /// The paper's settling: 2 time units at T = 20, 2 at 15, 2 at 12, 4 at 10, then
    /// statistics collected for 10 time units at T = 10.
    pub fn ackley1985() -> Settling {
        Settling {
            anneal: Schedule::new(&[(20.0, 2.0), (15.0, 2.0), (12.0, 2.0), (10.0, 4.0)])
                .expect("the paper's schedule is valid"),
            collect_sweeps: 10,
        }
    }

    /// A settling at one temperature: `burn_in` sweeps, then `collect` sweeps, at T.
    pub fn constant(temperature: f64, burn_in: u64, collect: u64) -> Result<Settling, ParamError> {
        let settling = Settling {
            anneal: Schedule::new(&[(temperature, burn_in as f64)])?,
            collect_sweeps: collect,
        };
        settling.check()?;
        Ok(settling)
    }

    /// The learning temperature T: the schedule's last temperature, where statistics are
    /// collected.
    pub fn temperature(&self) -> f64 {
        self.anneal.final_temperature()
    }

    /// Sweeps per settling: Σ anneal sweeps + collect sweeps.
    pub fn sweeps(&self) -> u64 {
        self.anneal.total_sweeps() + self.collect_sweeps
    }

    /// The whole settling as one schedule: the anneal steps, then the collection step.
    pub fn schedule(&self) -> Schedule {
        let mut steps: Vec<(f64, f64)> = self
            .anneal
            .steps()
            .iter()
            .map(|&(t, s)| (t, s as f64))
            .collect();
        steps.push((self.temperature(), self.collect_sweeps as f64));
        Schedule::new(&steps).expect("a checked settling is a valid schedule")
    }

    /// The temperature of each sweep and whether it collects statistics.
    pub(crate) fn plan(&self) -> Vec<(f64, bool)> {
        let mut plan = Vec::with_capacity(self.sweeps() as usize);
        for &(t, sweeps) in self.anneal.steps() {
            plan.extend((0..sweeps).map(|_| (t, false)));
        }
        plan.extend((0..self.collect_sweeps).map(|_| (self.temperature(), true)));
        plan
    }

    /// Checks 1 ≤ collect sweeps ≤ 10⁶, a finite learning temperature above 0, and at
    /// most 10⁶ sweeps in all.
    pub fn check(&self) -> Result<(), ParamError> {
        whole_in("collect sweeps", self.collect_sweeps as f64, 1, 1_000_000)?;
        let t = self.temperature();
        if !(t > 0.0 && t.is_finite()) {
            return Err(ParamError::Invalid {
                field: "schedule",
                reason: format!(
                    "the learning temperature (the last step's) must be finite and above 0, got {t}"
                ),
            });
        }
        whole_in("settling sweeps", self.sweeps() as f64, 1, 1_000_000)?;
        Ok(())
    }
}

/// Everything a learning run needs besides the network and the training vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct LearningOptions {
    /// The rule turning statistics into changes.
    pub update: Update,
    /// Momentum μ in [0, 1).
    pub momentum: f64,
    /// Weight decay λ in [0, 1): each cycle removes λ w_ij from every weight.
    pub weight_decay: f64,
    /// Noisy clamping of the visible units.
    pub noise: ClampNoise,
    /// Settlings per training vector in the clamped phase (1 ≤ s ≤ 1000); the free phase
    /// does as many settlings in all.
    pub settlings: u64,
    /// The settling: annealing schedule and collection period.
    pub settling: Settling,
    /// What stays clamped in the free phase.
    pub free_phase: FreePhase,
    /// How the stochastic machine gets each phase's statistics ([`GeneralStatistics`];
    /// [`GeneralStatistics::ANNEAL`], the paper's, by default). The mean-field machine's
    /// statistics are its own and it ignores this.
    pub statistics: GeneralStatistics,
    /// The seed that fixes the whole run.
    pub seed: u64,
}

impl LearningOptions {
    /// The 4-2-4 protocol of Ackley, Hinton & Sejnowski (1985): the sign rule with step 2,
    /// no momentum or decay, noisy clamping 0.15 (on → off) and 0.05 (off → on), two
    /// settlings per training vector, the paper's settling, nothing clamped in the free
    /// phase.
    pub fn ackley1985(seed: u64) -> LearningOptions {
        LearningOptions {
            update: Update::ACKLEY_1985,
            momentum: 0.0,
            weight_decay: 0.0,
            noise: ClampNoise {
                on_to_off: 0.15,
                off_to_on: 0.05,
            },
            settlings: 2,
            settling: Settling::ackley1985(),
            free_phase: FreePhase::Nothing,
            statistics: GeneralStatistics::ANNEAL,
            seed,
        }
    }

    /// The learning temperature T (the settling's final temperature).
    pub fn temperature(&self) -> f64 {
        self.settling.temperature()
    }

    /// Checks every option; the error names the field and its allowed range.
    pub fn check(&self) -> Result<(), ParamError> {
        self.update.check()?;
        below_one("momentum", self.momentum)?;
        below_one("weight decay", self.weight_decay)?;
        self.noise.check()?;
        whole_in("settlings", self.settlings as f64, 1, 1000)?;
        self.settling.check()?;
        self.statistics.check()?;
        if matches!(self.statistics.free, FreeStatistics::Persistent { .. })
            && self.free_phase != FreePhase::Nothing
        {
            return Err(ParamError::Invalid {
                field: "statistics",
                reason: "persistent free-phase chains need nothing clamped in the free phase"
                    .into(),
            });
        }
        Ok(())
    }

    /// Settlings in `phase` for `patterns` training vectors: patterns × settlings, except
    /// a persistent free phase, which advances each of its K particles once.
    pub fn settlings_in(&self, phase: Phase, patterns: usize) -> u64 {
        match (phase, self.statistics.free) {
            (Phase::Free, FreeStatistics::Persistent { particles, .. }) => particles,
            _ => patterns as u64 * self.settlings,
        }
    }

    /// The sweeps of a settling in `phase`, each with its temperature and whether it
    /// collects: the annealing plan ([`Settling::plan`]); k sweeps at T, all collecting,
    /// for a warm-started or persistent chain; one step (the solve) for the mean-field
    /// clamped phase.
    pub(crate) fn plan_of(&self, phase: Phase) -> Vec<(f64, bool)> {
        let t = self.temperature();
        let chain = |k: u64| vec![(t, true); k as usize];
        match phase {
            Phase::Clamped => match self.statistics.clamped {
                ClampedStatistics::Anneal => self.settling.plan(),
                ClampedStatistics::WarmStarted { sweeps } => chain(sweeps),
                ClampedStatistics::MeanField => vec![(t, false)],
            },
            Phase::Free => match self.statistics.free {
                FreeStatistics::Anneal => self.settling.plan(),
                FreeStatistics::Persistent { sweeps, .. } => chain(sweeps),
            },
        }
    }

    /// Checks the free phase against the number of visible units.
    fn check_free_phase(&self, visible: usize) -> Result<(), ParamError> {
        if let FreePhase::Inputs(k) = self.free_phase
            && !(1..visible).contains(&k)
        {
            return Err(ParamError::OutOfRange {
                field: "free phase inputs",
                value: k as f64,
                min: 1.0,
                max: visible.saturating_sub(1) as f64,
            });
        }
        Ok(())
    }
}

/// Averages over one phase: p_i = ⟨s_i⟩ and p_ij = ⟨s_i s_j⟩ (i < j, in
/// [`pair_index`] order), over `samples` states (stochastic) or solutions (mean field).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PhaseStatistics {
    /// States or mean-field solutions averaged.
    pub samples: u64,
    /// ⟨s_i⟩ per unit.
    pub means: Vec<f64>,
    /// ⟨s_i s_j⟩ per pair, i < j.
    pub pairs: Vec<f64>,
}

impl PhaseStatistics {
    /// Zero statistics of `units` units (no samples).
    pub fn empty(units: usize) -> Self {
        PhaseStatistics {
            samples: 0,
            means: vec![0.0; units],
            pairs: vec![0.0; pair_count(units)],
        }
    }

    /// ⟨s_i s_j⟩ for i ≠ j. Panics if i = j or either is out of range.
    pub fn pair(&self, i: usize, j: usize) -> f64 {
        self.pairs[pair_index(self.means.len(), i, j)]
    }
}

/// What one learning cycle measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CycleReport {
    /// Cycles completed, this one included.
    pub cycle: u64,
    /// The clamped-phase statistics p_i, p_ij.
    pub clamped: PhaseStatistics,
    /// The free-phase statistics p′_i, p′_ij.
    pub free: PhaseStatistics,
    /// Mean-field solves of this cycle that did not converge (always 0 when sampling).
    pub nonconverged: u64,
}

/// Where a learner is inside its cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Position {
    /// Cycles completed.
    pub cycle: u64,
    /// The phase under way.
    pub phase: Phase,
    /// The settling under way within the phase (0-based).
    pub settling: u64,
    /// The training vector clamped in this settling (`None` in a free phase that clamps
    /// nothing).
    pub pattern: Option<usize>,
    /// Sweeps (time units) done within the settling (always 0 for the mean-field machine,
    /// whose settling is one solve).
    pub sweep: u64,
}

/// How far one step of a learner went: the largest unit of work it completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Progress {
    /// A sweep inside a settling.
    Sweep,
    /// A settling (the phase goes on).
    Settling,
    /// The clamped phase (the free phase starts next).
    Phase,
    /// A whole cycle: the weights have changed.
    Cycle,
}

/// A learning machine, stochastic or mean-field, one cycle at a time.
pub trait Learner {
    /// One whole learning cycle (the rest of the current one if it is under way). Errors
    /// when learning diverges ([`diverged`]).
    fn cycle(&mut self) -> Result<CycleReport, ParamError>;
    /// One settling; reports whether it ended the phase or the cycle.
    fn settle(&mut self) -> Result<Progress, ParamError>;
    /// The network being trained.
    fn network(&self) -> &Network;
    /// The state every learner keeps the same way (options, place in the cycle, updater,
    /// last report, divergence): the methods below read and set it once for both.
    #[doc(hidden)]
    fn core(&self) -> &LearnerCore;
    #[doc(hidden)]
    fn core_mut(&mut self) -> &mut LearnerCore;
    /// Cycles completed.
    fn cycles(&self) -> u64 {
        self.core().position.cycle
    }
    /// Where the learner is inside its cycle.
    fn position(&self) -> Position {
        self.core().position
    }
    /// The options.
    fn options(&self) -> &LearningOptions {
        &self.core().options
    }
    /// Changes the clamping noise from the next settling on; refused (nothing changes) if
    /// a probability is outside [0, 1].
    fn set_noise(&mut self, noise: ClampNoise) -> Result<(), ParamError> {
        noise.check()?;
        self.core_mut().options.noise = noise;
        Ok(())
    }
    /// Connects or disconnects the hidden units from the next weight change on: while
    /// disconnected, no weight to a hidden unit and no hidden bias is learned (they keep
    /// their values: zero when disconnected from the start).
    fn set_hidden_connected(&mut self, connected: bool) {
        self.core_mut().updater.set_hidden_connected(connected);
    }
    /// The statistics of the last completed cycle.
    fn last_cycle(&self) -> Option<&CycleReport> {
        self.core().last.as_ref()
    }
    /// Mean-field solves that did not converge, over the whole run (0 when sampling).
    fn nonconverged(&self) -> u64 {
        0
    }
    /// The divergence that stopped learning, if any ([`diverged`]): once set, every
    /// further cycle, settling or step returns it and the network keeps the last finite
    /// weights.
    fn diverged(&self) -> Option<&ParamError> {
        self.core().diverged.as_ref()
    }
}

/// The weight changes of the rule with momentum and decay, over allowed pairs only.
#[derive(Debug, Clone)]
pub(crate) struct Updater {
    weight_velocity: Vec<f64>,
    bias_velocity: Vec<f64>,
    hidden_connected: bool,
}

impl Updater {
    pub(crate) fn new(units: usize) -> Self {
        Updater {
            weight_velocity: vec![0.0; pair_count(units)],
            bias_velocity: vec![0.0; units],
            hidden_connected: true,
        }
    }

    pub(crate) fn set_hidden_connected(&mut self, connected: bool) {
        self.hidden_connected = connected;
    }

    /// Applies v(t) = μ v(t − 1) + g − λ w, w ← w + v(t) to every allowed pair (and the
    /// biases, without decay), completing learning cycle `cycle` (1-based). All-or-nothing:
    /// if a new weight or bias would be non-finite or beyond ±[`DIVERGENCE_LIMIT`], nothing
    /// changes (weights, biases and velocities stay as they were before the update) and
    /// the error ([`diverged`]) names the cycle, the parameter, its value and the limit.
    pub(crate) fn apply(
        &mut self,
        network: &mut Network,
        options: &LearningOptions,
        clamped: &PhaseStatistics,
        free: &PhaseStatistics,
        cycle: u64,
    ) -> Result<(), ParamError> {
        let n = network.len();
        let visible = network.visible();
        let learns = |i: usize| self.hidden_connected || i < visible;
        let mut weight_velocity = self.weight_velocity.clone();
        let mut bias_velocity = self.bias_velocity.clone();
        for i in 0..n {
            for j in i + 1..n {
                let k = pair_index(n, i, j);
                weight_velocity[k] = if network.is_allowed(i, j) && learns(i) && learns(j) {
                    options.momentum * weight_velocity[k]
                        + options.update.change(clamped.pairs[k], free.pairs[k])
                        - options.weight_decay * network.weight(i, j)
                } else {
                    0.0
                };
                let w = network.weight(i, j) + weight_velocity[k];
                if weight_velocity[k] != 0.0 && !within_limit(w) {
                    return Err(diverged(cycle, format!("weight w[{i}][{j}]"), w));
                }
            }
        }
        for (i, v) in bias_velocity.iter_mut().enumerate() {
            *v = if learns(i) {
                options.momentum * *v + options.update.change(clamped.means[i], free.means[i])
            } else {
                0.0
            };
            let b = network.bias(i) + *v;
            if *v != 0.0 && !within_limit(b) {
                return Err(diverged(cycle, format!("bias θ[{i}]"), b));
            }
        }
        let mut changed = network.clone();
        changed.add_to_weights(&weight_velocity)?;
        changed.add_to_biases(&bias_velocity)?;
        *network = changed;
        self.weight_velocity = weight_velocity;
        self.bias_velocity = bias_velocity;
        Ok(())
    }
}

/// The largest |w_ij| or |θ_i| learning may reach: 10⁶ (= [`Network::MAX_PARAMETER`], the
/// bound every network keeps). A change that would take a weight or bias beyond it, or
/// make it NaN or ±∞, is *divergence*: the learner stops ([`diverged`]).
///
/// Why this bound: below it every local field of a network of up to 10⁴ units is at most
/// 10¹⁰ in magnitude, so fields, energies, e^{−Δ/T} (which saturates to exactly 0 or 1,
/// never NaN) and the mean-field σ(·) stay finite and meaningful, and the network can
/// still be saved and loaded (files refuse larger values). The paper's protocol never
/// comes near it: the ±2 sign rule moves a weight by at most 2 per cycle, so at most
/// 8 000 in the 4 000 cycles of its longest runs (measured: |w| ≈ 534 after 3 000 cycles
/// of 4-2-4), 125 times below the bound. Long before the bound the heat-bath acceptance
/// is already all-or-nothing (|Δ|/T > ln 2³² ≈ 22 rounds P to exactly 0 or 1), which is
/// a property of the learned machine, not divergence, so it is reported by the
/// statistics, not stopped.
pub const DIVERGENCE_LIMIT: f64 = Network::MAX_PARAMETER;

fn within_limit(x: f64) -> bool {
    x.is_finite() && x.abs() <= DIVERGENCE_LIMIT
}

/// The divergence error: `learning: diverged at cycle N: weight w[i][j] = … (limit
/// ±1000000); the last finite weights are kept`.
pub fn diverged(cycle: u64, parameter: String, value: f64) -> ParamError {
    ParamError::Invalid {
        field: "learning",
        reason: format!(
            "diverged at cycle {cycle}: {parameter} = {value} (limit ±{DIVERGENCE_LIMIT}); \
             the last finite weights are kept"
        ),
    }
}

/// Two independent seeds for a run's streams, drawn from `seed` by SplitMix64.
pub(crate) fn split_seed(seed: u64) -> (u64, u64) {
    let mut rng = crate::rng::seeded_rng(seed);
    (rng.next_u64(), rng.next_u64())
}

/// The values of a 0/1 pattern in a network's kind: 1 → s_high, 0 → s_low.
pub(crate) fn to_kind(kind: crate::model::SpinKind, pattern: &[u8]) -> Vec<i8> {
    pattern.iter().map(|&b| kind.value(b == 1)).collect()
}

/// What every learner keeps besides its network, its statistics and its way of settling:
/// the options, the noisy-clamping stream and the vectors presented this cycle, where it is
/// in its cycle, the weight updater, the last cycle's report and a divergence.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct LearnerCore {
    pub(crate) options: LearningOptions,
    pub(crate) noise_rng: SpinRng,
    pub(crate) presented: Vec<Vec<u8>>,
    pub(crate) position: Position,
    pub(crate) updater: Updater,
    pub(crate) last: Option<CycleReport>,
    pub(crate) diverged: Option<ParamError>,
}

impl LearnerCore {
    /// A learner of `units` units at the start of its first cycle.
    pub(crate) fn new(options: LearningOptions, noise_rng: SpinRng, units: usize) -> LearnerCore {
        LearnerCore {
            options,
            noise_rng,
            presented: Vec::new(),
            position: Position {
                cycle: 0,
                phase: Phase::Clamped,
                settling: 0,
                pattern: Some(0),
                sweep: 0,
            },
            updater: Updater::new(units),
            last: None,
            diverged: None,
        }
    }
}

/// The part of a learner's state that the options, the network and the training vectors
/// do not fix, shared by both learners: for a saved run that continues exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnerCommonState {
    /// The noisy-clamping stream's state words.
    pub noise_random_state: [u32; 4],
    /// The (noisy) vectors clamped so far in this cycle, one per clamped settling begun.
    pub presented: Vec<Vec<u8>>,
    pub position: Position,
    /// The momentum terms v_ij (pairs i < j) and v_i.
    pub weight_velocity: Vec<f64>,
    pub bias_velocity: Vec<f64>,
    /// Whether hidden units learn (see [`Learner::set_hidden_connected`]).
    pub hidden_connected: bool,
    /// The last completed cycle's report.
    pub last: Option<CycleReport>,
    /// The divergence message, if learning diverged ([`diverged`]).
    pub diverged: Option<String>,
}

impl LearnerCommonState {
    /// Checks the saved state against a learner of `network` on `patterns` with
    /// `options`, whose settlings take `sweeps_per_settling` sweeps (1 for the mean-field
    /// machine, whose position never counts sweeps), and where `presented_now` vectors
    /// belong to a clamped-phase position (stochastic: the settling under way counts once
    /// its first sweep is done). Errors name the field as a machine session does
    /// (`learner.position`, `learner.presented`, `learner.weight_velocity`, …).
    pub(crate) fn check(
        &self,
        network: &Network,
        patterns: &[Vec<u8>],
        options: &LearningOptions,
        sweeps_per_settling: u64,
        presented_now: impl Fn(&Position) -> usize,
    ) -> Result<(), ParamError> {
        let per_phase = patterns.len() as u64 * options.settlings;
        self.check_phases(
            network,
            options,
            |_| (per_phase, sweeps_per_settling),
            presented_now,
        )
    }

    /// [`Self::check`] where each phase has its own (settlings, sweeps per settling).
    pub(crate) fn check_phases(
        &self,
        network: &Network,
        options: &LearningOptions,
        shape: impl Fn(Phase) -> (u64, u64),
        presented_now: impl Fn(&Position) -> usize,
    ) -> Result<(), ParamError> {
        let n = network.len();
        let invalid = |field: &'static str, reason: String| ParamError::Invalid { field, reason };
        let p = self.position;
        let (per_phase, sweeps_per_settling) = shape(p.phase);
        let clamped_settlings = shape(Phase::Clamped).0;
        let expected_pattern = match (p.phase, options.free_phase) {
            (Phase::Free, FreePhase::Nothing) => None,
            _ => Some((p.settling / options.settlings) as usize),
        };
        if p.settling >= per_phase || p.sweep >= sweeps_per_settling.max(1) {
            return Err(invalid(
                "learner.position",
                format!(
                    "settling {} and sweep {} are beyond the {per_phase} settlings of \
                     {sweeps_per_settling} sweeps a phase has",
                    p.settling, p.sweep
                ),
            ));
        }
        if p.pattern != expected_pattern || p.cycle > 1 << 53 {
            return Err(invalid(
                "learner.position",
                format!(
                    "pattern {:?} at settling {} of cycle {} does not fit the run",
                    p.pattern, p.settling, p.cycle
                ),
            ));
        }
        let count = match p.phase {
            Phase::Clamped => presented_now(&p),
            Phase::Free => clamped_settlings as usize,
        };
        if self.presented.len() != count {
            return Err(invalid(
                "learner.presented",
                format!(
                    "need {count} presented vectors at this position, got {}",
                    self.presented.len()
                ),
            ));
        }
        if !self.presented.is_empty() {
            check_patterns(&self.presented, network.visible())
                .map_err(|e| invalid("learner.presented", e.to_string()))?;
        }
        for (field, velocity, count) in [
            (
                "learner.weight_velocity",
                &self.weight_velocity,
                pair_count(n),
            ),
            ("learner.bias_velocity", &self.bias_velocity, n),
        ] {
            if velocity.len() != count || !velocity.iter().all(|v| v.is_finite()) {
                return Err(invalid(
                    field,
                    format!("need {count} finite numbers, got {}", velocity.len()),
                ));
            }
        }
        if let Some(last) = &self.last {
            let fits = |s: &PhaseStatistics| {
                s.means.len() == n
                    && s.pairs.len() == pair_count(n)
                    && s.means.iter().chain(&s.pairs).all(|x| x.is_finite())
            };
            if !fits(&last.clamped) || !fits(&last.free) || last.cycle > p.cycle {
                return Err(invalid(
                    "learner.last",
                    format!(
                        "need {n} finite means and {} finite pairs per phase, of a cycle \
                         already done",
                        pair_count(n)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The divergence error again.
    /// The common state of a learner made of these parts.
    pub(crate) fn save(core: &LearnerCore) -> LearnerCommonState {
        LearnerCommonState {
            noise_random_state: crate::rng::random_words(&core.noise_rng),
            presented: core.presented.clone(),
            position: core.position,
            weight_velocity: core.updater.weight_velocity.clone(),
            bias_velocity: core.updater.bias_velocity.clone(),
            hidden_connected: core.updater.hidden_connected,
            last: core.last.clone(),
            diverged: core.diverged.as_ref().map(diverged_reason),
        }
    }

    /// Puts the saved parts back into a learner's (checked first by [`Self::check`]); the
    /// error names the noise stream's field if its words are the generator's fixed point.
    pub(crate) fn restore(self, core: &mut LearnerCore) -> Result<(), ParamError> {
        core.noise_rng =
            crate::rng::rng_from_words("learner.noise_random_state", self.noise_random_state)?;
        core.diverged = self.diverged_error();
        core.presented = self.presented;
        core.position = self.position;
        core.updater.weight_velocity = self.weight_velocity;
        core.updater.bias_velocity = self.bias_velocity;
        core.updater.hidden_connected = self.hidden_connected;
        core.last = self.last;
        Ok(())
    }

    pub(crate) fn diverged_error(&self) -> Option<ParamError> {
        self.diverged.clone().map(|reason| ParamError::Invalid {
            field: "learning",
            reason,
        })
    }
}

/// The divergence message of a learner's error (its reason).
pub(crate) fn diverged_reason(error: &ParamError) -> String {
    match error {
        ParamError::Invalid { reason, .. } => reason.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded_rng;

    #[test]
    fn sign_rule_steps_by_k_and_stands_still_on_ties() {
        let rule = Update::ACKLEY_1985;
        assert_eq!(rule.change(0.3, 0.1), 2.0);
        assert_eq!(rule.change(0.1, 0.3), -2.0);
        assert_eq!(rule.change(0.25, 0.25), 0.0);
        assert_eq!(
            Update::Gradient { rate: 0.5 }.change(0.3, 0.1),
            0.5 * (0.3 - 0.1)
        );
    }

    #[test]
    fn noise_flips_bits_at_its_rates() {
        // 200 000 on bits and 200 000 off bits: binomial standard errors
        // √(p(1−p)/N) ≈ 8e-4 and 4.9e-4; 6σ bands.
        let noise = ClampNoise {
            on_to_off: 0.15,
            off_to_on: 0.05,
        };
        let mut rng = seeded_rng(3);
        let (mut on_off, mut off_on) = (0, 0);
        for _ in 0..100_000 {
            let shown = noise.present(&[1, 0, 1, 0], &mut rng);
            on_off += usize::from(shown[0] == 0) + usize::from(shown[2] == 0);
            off_on += usize::from(shown[1] == 1) + usize::from(shown[3] == 1);
        }
        let (a, b) = (on_off as f64 / 2e5, off_on as f64 / 2e5);
        assert!((a - 0.15).abs() < 6.0 * 8e-4, "{a}");
        assert!((b - 0.05).abs() < 6.0 * 4.9e-4, "{b}");
        assert_eq!(
            ClampNoise::NONE.present(&[1, 0, 1], &mut rng),
            vec![1, 0, 1]
        );
    }

    #[test]
    fn a_change_to_a_non_finite_or_too_large_parameter_is_divergence_and_changes_nothing() {
        // Three units, all pairs allowed; the gradient rule passes a NaN statistic through
        // (ε·NaN), the sign rule cannot (sign(NaN) = 0), so NaN is tested with the former.
        let mut network = Network::zeros(crate::SpinKind::Binary, 3).unwrap();
        network.set_weight(0, 2, 0.5).unwrap();
        network.set_bias(1, DIVERGENCE_LIMIT - 1.0).unwrap();
        let stats = |x: f64| PhaseStatistics {
            samples: 1,
            means: vec![x; 3],
            pairs: vec![x; 3],
        };
        let options = |update| LearningOptions {
            update,
            ..LearningOptions::ackley1985(1)
        };
        let before = network.clone();
        let mut updater = Updater::new(3);
        let gradient = options(Update::Gradient { rate: 1.0 });
        let mut nan = stats(0.0);
        nan.pairs[pair_index(3, 1, 2)] = f64::NAN;
        let e = updater
            .apply(&mut network, &gradient, &nan, &stats(0.0), 7)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "learning: diverged at cycle 7: weight w[1][2] = NaN (limit ±1000000); \
             the last finite weights are kept"
        );
        assert_eq!(network, before);
        // θ₁ = limit − 1 and the sign rule's +2: beyond the limit.
        let e = updater
            .apply(
                &mut network,
                &options(Update::ACKLEY_1985),
                &stats(1.0),
                &stats(0.0),
                9,
            )
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("diverged at cycle 9: bias θ[1] = 1000001 (limit ±1000000)"),
            "{e}"
        );
        assert_eq!(network, before);
        assert_eq!(updater.weight_velocity, vec![0.0; 3]);
        // A change that stays inside the limit goes through.
        updater
            .apply(
                &mut network,
                &options(Update::ACKLEY_1985),
                &stats(0.0),
                &stats(1.0),
                9,
            )
            .unwrap();
        assert_eq!(network.weight(0, 2), 0.5 - 2.0);
        assert_eq!(network.bias(1), DIVERGENCE_LIMIT - 3.0);
    }

    #[test]
    fn the_papers_settling_is_twenty_time_units_ending_at_t_10() {
        let s = Settling::ackley1985();
        assert_eq!(s.sweeps(), 20);
        assert_eq!(s.temperature(), 10.0);
        let plan = s.plan();
        assert_eq!(plan.iter().filter(|p| p.1).count(), 10);
        assert_eq!(plan[0], (20.0, false));
        assert_eq!(plan[9], (10.0, false));
        assert_eq!(plan[10], (10.0, true));
        assert_eq!(s.schedule().total_sweeps(), 20);
    }
}
