//! The learning experiments behind `boltzlab learn` and `boltzlab reproduce`: a
//! [`Protocol`] per problem and method, and [`run`], one seeded run of it.
//!
//! Encoders (the protocol of Ackley, Hinton & Sejnowski 1985, docs/references.md §2): binary
//! units, weights from 0, the sign rule with step 2, noisy clamping 0.15 (on → off) and
//! 0.05 (off → on), 0.02 off → on for 8-3-8, two settlings per training vector (one for
//! 40-10-40, as the paper says there), the
//! paper's settling (2 time units at T = 20, 2 at 15, 2 at 12, 4 at 10, statistics for 10
//! at 10), nothing clamped in the free phase. After every cycle the hidden codes are read
//! ([`super::encoder`]) and the run stops at the first cycle where the criterion holds:
//! all codes distinct (4-2-4, 8-3-8), well spaced (4-3-4). The 8-3-8 run also records the
//! first cycle with 7 distinct codes. 40-10-40: hidden units disconnected for cycles
//! 1–300, noisy clamping (on → off 0.1, off → on 0.0025) for cycles 301–800, then no
//! noise (no noise in cycles 1–300 either: REFERENCES names noise only for the 500
//! cycles); the run goes on to the cycle limit, with the accuracy test (10 trials per
//! input) every 100 cycles from cycle 800 and distinct codes checked at the same points.
//!
//! Details the paper does not state are fields of [`Protocol`] with boltzlab's reading as
//! the default: how codes are read ([`CodeReading`]: by settling, from the weights, or
//! both side by side), how the 40-10-40 test anneal is read
//! ([`encoder::TestAnneal`]), and how the stochastic machine probes, collects and copies
//! noisy vectors ([`Sampling`]). Every run records the growth of the weights
//! ([`RunOutcome::growth`]). docs/ackley1985.md measures each of them.
//!
//! The mean-field machine runs the same protocol (sign rule, schedule, noise, settlings,
//! stages) with mean-field statistics ([`super::deterministic`]: one pass over the units
//! per time unit of the schedule) and mean-field code reading, with three differences,
//! all as in Peterson & Anderson (1987):
//! - ±1 units ([`SpinKind::Ising`]; patterns map 0 → −1, 1 → +1);
//! - initial weights uniform on [−1, 1] (allowed pairs only): a deterministic machine
//!   cannot break the symmetry between hidden units that start with equal weights (from
//!   all-zero weights every hidden unit gets the same statistics and changes forever);
//! - the input group V1 stays clamped in the free phase ([`FreePhase::Inputs`]): the
//!   machine learns p(V2 | V1). One mean-field solution cannot represent the several
//!   modes of the unclamped distribution; with nothing clamped in the free phase the
//!   mean-field machine still solves 4-2-4 but fails on 8-3-8.
//!
//! With ±1 units the sign rule does not carry over to 40-10-40: the 39 "off" units of a
//! one-of-40 group contribute −Σ w to every field they feed, so one ±2 step on their
//! weights moves a field by up to 78 at T = 10. The V2 group oscillates with period 2
//! while the hidden units are disconnected, and afterwards each hidden unit's 40 input
//! weights move together until the shared field saturates every hidden unit the same way
//! for every input (one code for all 40: 0 % correct). This is measured and reported
//! (README), not worked around.
//!
//! Density problems (bars and stripes, 10-pixel images; boltzlab's own protocol, not a
//! published one): binary units, the gradient rule with ε = 0.5 and momentum 0.5, no
//! noise, two settlings per training vector, each 5 sweeps at T = 1 then 10 collection
//! sweeps at T = 1. Every 10 cycles (and at the end) the exact visible distribution is
//! computed: the run is *solved* from the first check at which the distinct training
//! vectors are the most probable visible vectors (each more probable than every vector
//! outside the set). The run goes on to the cycle limit and reports the final exact
//! KL(data ‖ model). The mean-field machine uses random starts for these.

use super::datasets::{Dataset, Problem};
use super::deterministic::{MeanFieldLearner, MeanFieldSettings, MeanFieldStart};
use super::encoder::{self, CodeSummary, Codes, TestAnneal};
use super::likelihood::{kl_divergence, visible_distribution};
use super::stochastic::{Sampling, StochasticLearner};
use super::{ClampNoise, FreePhase, Learner, LearningOptions, Settling, Update};
use crate::error::ParamError;
use crate::model::{Network, SpinKind};

/// Runs report the final exact KL for networks of at most 24 units (2^24 states: well
/// under a second).
pub const KL_REPORT_UNITS: usize = 24;

/// The two machines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, tsify::Tsify)]
#[serde(rename_all = "kebab-case")]
#[tsify(type = "'stochastic' | 'mean-field'")]
pub enum LearningMethod {
    /// Sampled statistics (Ackley, Hinton & Sejnowski 1985).
    Stochastic,
    /// Mean-field statistics (Peterson & Anderson 1987).
    MeanField,
}

impl LearningMethod {
    /// Both methods.
    pub const ALL: [LearningMethod; 2] = [LearningMethod::Stochastic, LearningMethod::MeanField];

    /// `stochastic` or `mean-field`.
    pub fn name(self) -> &'static str {
        match self {
            LearningMethod::Stochastic => "stochastic",
            LearningMethod::MeanField => "mean-field",
        }
    }

    /// Parses a method name; the error names the field `method`.
    pub fn parse(name: &str) -> Result<LearningMethod, ParamError> {
        LearningMethod::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "method",
                value: name.to_string(),
                allowed: "stochastic, mean-field",
            })
    }
}

/// How an encoder's hidden codes are read at each check. The paper does not say how it
/// read the codes of 4-2-4, 4-3-4 and 8-3-8; both readings are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CodeReading {
    /// By settling with V1 clamped ([`encoder::sampled_codes`], or
    /// [`encoder::mean_field_codes`] for the mean-field machine): boltzlab's default.
    Settle,
    /// From the signs of each visible unit's weights to the hidden units
    /// ([`encoder::weight_codes`]).
    Weights,
    /// Both: the run's criterion is read by settling, the weights reading is recorded
    /// beside it, and a run that stops when solved stops once both are solved.
    Both,
}

impl CodeReading {
    /// All readings.
    pub const ALL: [CodeReading; 3] =
        [CodeReading::Settle, CodeReading::Weights, CodeReading::Both];

    /// `settle`, `weights` or `both`.
    pub fn name(self) -> &'static str {
        match self {
            CodeReading::Settle => "settle",
            CodeReading::Weights => "weights",
            CodeReading::Both => "both",
        }
    }

    /// Parses a name; the error names the field `code reading`.
    pub fn parse(name: &str) -> Result<CodeReading, ParamError> {
        CodeReading::ALL
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "code reading",
                value: name.to_string(),
                allowed: "settle, weights, both",
            })
    }
}

/// A stretch of cycles with its own noise and hidden wiring.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Stage {
    /// The stage covers cycles up to and including this one (1-based; `u64::MAX` for
    /// "to the end").
    pub until: u64,
    /// Noisy clamping in this stage.
    pub noise: ClampNoise,
    /// Whether the hidden units are connected (learn their weights).
    pub hidden_connected: bool,
}

/// A complete learning experiment: the training set, the machine and how success is
/// judged.
#[derive(Debug, Clone, PartialEq)]
pub struct Protocol {
    /// The training set.
    pub problem: Problem,
    /// The machine.
    pub method: LearningMethod,
    /// The kind of units.
    pub kind: SpinKind,
    /// The learning options (the seed is replaced by each run's).
    pub options: LearningOptions,
    /// The mean-field solver (mean-field machine only).
    pub settings: MeanFieldSettings,
    /// Initial weights: each allowed w_ij uniform on [−a, a] from the run's seed (a = 0:
    /// all zero, the paper's start). Biases start at 0.
    pub initial_weights: f64,
    /// Stages in order; the options' noise is replaced by each stage's.
    pub stages: Vec<Stage>,
    /// Most cycles per run.
    pub max_cycles: u64,
    /// Cycles between checks of the criterion.
    pub check_every: u64,
    /// Whether a run stops at its first solved check.
    pub stop_when_solved: bool,
    /// Settlings per input when hidden codes are read by sampling.
    pub code_trials: u64,
    /// Trials per input of the accuracy test (40-10-40; 0 for none).
    pub accuracy_trials: u64,
    /// The first cycle at which the accuracy test runs (then every `check_every`).
    pub accuracy_from: u64,
    /// How encoder codes are read.
    pub code_reading: CodeReading,
    /// How the 40-10-40 test anneal is read.
    pub test_anneal: TestAnneal,
    /// The stochastic machine's probes, collection and noisy copies (ignored by the
    /// mean-field machine).
    pub sampling: Sampling,
    /// An experiment, not the paper's machine: the stochastic machine's statistics
    /// computed exactly by enumeration in place of sampled ([`run_exact`]).
    pub exact_statistics: bool,
}

impl Protocol {
    /// The protocol for `problem` and `method` described in the module docs.
    pub fn standard(problem: Problem, method: LearningMethod) -> Protocol {
        let encoder = problem.encoder();
        let mut options = LearningOptions::ackley1985(1);
        let mut settings = MeanFieldSettings::default();
        let paper_noise = options.noise;
        let mut stages = vec![Stage {
            until: u64::MAX,
            noise: paper_noise,
            hidden_connected: true,
        }];
        let (mut max_cycles, mut check_every, mut stop_when_solved) = (4000, 1, true);
        let (mut accuracy_trials, mut accuracy_from) = (0, 0);
        match problem {
            Problem::Encoder4x2 | Problem::Encoder4x3 => {}
            Problem::Encoder8x3 => {
                stages[0].noise = ClampNoise {
                    on_to_off: 0.15,
                    off_to_on: 0.02,
                };
            }
            Problem::Encoder40x10 => {
                // p. 162: "annealing once with each of the 40 environmental vectors
                // clamped, and the same number of times without clamping".
                options.settlings = 1;
                stages = vec![
                    Stage {
                        until: 300,
                        noise: ClampNoise::NONE,
                        hidden_connected: false,
                    },
                    Stage {
                        until: 800,
                        noise: ClampNoise {
                            on_to_off: 0.1,
                            off_to_on: 0.0025,
                        },
                        hidden_connected: true,
                    },
                    Stage {
                        until: u64::MAX,
                        noise: ClampNoise::NONE,
                        hidden_connected: true,
                    },
                ];
                max_cycles = 1800;
                check_every = 100;
                stop_when_solved = false;
                accuracy_trials = 10;
                accuracy_from = 800;
            }
            Problem::Bars3 | Problem::Bars4 | Problem::Pixels10 => {
                options.update = Update::Gradient { rate: 0.5 };
                options.momentum = 0.5;
                options.settling = Settling::constant(1.0, 5, 10).expect("valid");
                stages[0].noise = ClampNoise::NONE;
                max_cycles = 500;
                check_every = 10;
                stop_when_solved = false;
                settings.start = MeanFieldStart::Random;
            }
        }
        let (mut kind, mut initial_weights) = (SpinKind::Binary, 0.0);
        if let (Some(e), LearningMethod::MeanField) = (encoder, method) {
            kind = SpinKind::Ising;
            initial_weights = 1.0;
            options.free_phase = FreePhase::Inputs(e.group);
        }
        options.noise = stages[0].noise;
        Protocol {
            problem,
            method,
            kind,
            options,
            settings,
            initial_weights,
            stages,
            max_cycles,
            check_every,
            stop_when_solved,
            code_trials: 2,
            accuracy_trials,
            accuracy_from,
            code_reading: CodeReading::Settle,
            test_anneal: TestAnneal::Doubled,
            sampling: Sampling::default(),
            exact_statistics: false,
        }
    }

    fn stage(&self, cycle: u64) -> Stage {
        *self
            .stages
            .iter()
            .find(|s| cycle <= s.until)
            .unwrap_or(&self.stages[self.stages.len() - 1])
    }
}

/// What one run found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunOutcome {
    /// The run's seed.
    pub seed: u64,
    /// Cycles run.
    pub cycles: u64,
    /// The first checked cycle at which the criterion held.
    pub solved_at: Option<u64>,
    /// 8-3-8: the first cycle with at least 7 distinct codes.
    pub seven_codes_at: Option<u64>,
    /// Encoders: the codes at the last check.
    pub codes: Option<CodeSummary>,
    /// With [`CodeReading::Both`]: the first checked cycle at which the criterion held
    /// for the codes read from the weights.
    pub solved_at_by_weights: Option<u64>,
    /// With [`CodeReading::Both`], 8-3-8: the first cycle with at least 7 distinct codes
    /// read from the weights.
    pub seven_codes_at_by_weights: Option<u64>,
    /// With [`CodeReading::Both`]: the codes read from the weights at the last check.
    pub codes_by_weights: Option<CodeSummary>,
    /// 40-10-40: (cycle, fraction correct) at each accuracy test.
    pub accuracy: Vec<(u64, f64)>,
    /// Exact KL(data ‖ model) at the end, in nats, for networks of at most
    /// [`KL_REPORT_UNITS`] units.
    pub final_kl: Option<f64>,
    /// Mean-field solves (learning and tests) that did not converge.
    pub nonconverged: u64,
    /// Every [`GROWTH_EVERY`] cycles (and at the last): the cycle, the mean |w| over the
    /// allowed pairs, and the fraction of allowed pairs whose clamped and free statistics
    /// tied in that cycle (so the sign rule left the weight alone).
    pub growth: Vec<(u64, f64, f64)>,
    /// Exact statistics only ([`run_exact`]): `(cycle, period)` when the weights and
    /// biases after `cycle` equal those `period` cycles earlier (period ≤
    /// [`MAX_PERIOD`]). The rule is then a deterministic map on a cycle of states, so
    /// nothing new can happen and the run stops there.
    pub periodic_from: Option<(u64, u64)>,
}

impl RunOutcome {
    /// The outcome of run `seed` before its first cycle: nothing found, nothing recorded.
    fn starting(seed: u64) -> RunOutcome {
        RunOutcome {
            seed,
            cycles: 0,
            solved_at: None,
            seven_codes_at: None,
            codes: None,
            solved_at_by_weights: None,
            seven_codes_at_by_weights: None,
            codes_by_weights: None,
            accuracy: Vec::new(),
            final_kl: None,
            nonconverged: 0,
            growth: Vec::new(),
            periodic_from: None,
        }
    }

    /// Whether the run stops here: it is solved and the protocol stops when solved (with
    /// both code readings, once each reading has been solved).
    fn finished(&self, protocol: &Protocol) -> bool {
        protocol.stop_when_solved
            && self.solved_at.is_some()
            && (protocol.code_reading != CodeReading::Both || self.solved_at_by_weights.is_some())
    }
}

/// The longest period [`run_exact`] looks for.
pub const MAX_PERIOD: usize = 16;

/// Cycles between the records of [`RunOutcome::growth`].
pub const GROWTH_EVERY: u64 = 100;

/// Mean |w_ij| over the allowed pairs, and the fraction of them whose statistics tied
/// in the last cycle (`report`).
pub fn weight_growth(network: &Network, report: &super::CycleReport) -> (f64, f64) {
    let n = network.len();
    let (mut pairs, mut total, mut ties) = (0u64, 0.0, 0u64);
    for i in 0..n {
        for j in i + 1..n {
            if network.is_allowed(i, j) {
                pairs += 1;
                total += network.weight(i, j).abs();
                ties += u64::from(report.clamped.pair(i, j) == report.free.pair(i, j));
            }
        }
    }
    let pairs = pairs.max(1) as f64;
    (total / pairs, ties as f64 / pairs)
}

/// Runs `protocol` once with `seed`; `progress` is called after every check with the
/// outcome so far (for long runs).
pub fn run(
    protocol: &Protocol,
    seed: u64,
    mut progress: impl FnMut(&RunOutcome),
) -> Result<RunOutcome, ParamError> {
    if protocol.exact_statistics && protocol.method == LearningMethod::Stochastic {
        return run_exact(protocol, seed, progress);
    }
    let dataset = protocol.problem.dataset();
    let mut network = dataset.network(protocol.kind);
    if protocol.initial_weights > 0.0 {
        network = random_weights(network, protocol.initial_weights, seed)?;
    }
    let mut options = protocol.options.clone();
    options.seed = seed;
    let mut learner: Box<dyn Learner> = match protocol.method {
        LearningMethod::Stochastic => {
            let mut learner = StochasticLearner::new(network, dataset.patterns(), options.clone())?;
            learner.set_sampling(protocol.sampling);
            Box::new(learner)
        }
        LearningMethod::MeanField => Box::new(MeanFieldLearner::new(
            network,
            dataset.patterns(),
            options.clone(),
            protocol.settings,
        )?),
    };
    let mut outcome = RunOutcome::starting(seed);
    let mut test_nonconverged = 0;
    for cycle in 1..=protocol.max_cycles {
        let stage = protocol.stage(cycle);
        learner.set_noise(stage.noise)?;
        learner.set_hidden_connected(stage.hidden_connected);
        learner.cycle()?;
        outcome.cycles = cycle;
        if (cycle % GROWTH_EVERY == 0 || cycle == protocol.max_cycles)
            && let Some(report) = learner.last_cycle()
        {
            let (w, ties) = weight_growth(learner.network(), report);
            outcome.growth.push((cycle, w, ties));
        }
        if cycle % protocol.check_every != 0 && cycle != protocol.max_cycles {
            continue;
        }
        let check_seed = seed ^ cycle.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let solved = match dataset.encoder() {
            Some(e) => {
                let meets = |summary: &CodeSummary| {
                    if protocol.problem == Problem::Encoder4x3 {
                        summary.well_spaced(e.group)
                    } else {
                        summary.solved(e.group)
                    }
                };
                let codes: Codes = match (protocol.code_reading, protocol.method) {
                    (CodeReading::Weights, _) => encoder::weight_codes(learner.network(), e)?,
                    (_, LearningMethod::Stochastic) => encoder::sampled_codes(
                        learner.network(),
                        e,
                        &options.settling,
                        protocol.code_trials,
                        check_seed,
                    )?,
                    (_, LearningMethod::MeanField) => {
                        let (codes, bad) = encoder::mean_field_codes(
                            learner.network(),
                            e,
                            &options.settling,
                            &protocol.settings,
                        )?;
                        test_nonconverged += bad;
                        codes
                    }
                };
                let summary = encoder::summarize(&codes);
                outcome.codes = Some(summary);
                if summary.distinct + 1 >= e.group && outcome.seven_codes_at.is_none() {
                    outcome.seven_codes_at = Some(cycle);
                }
                let solved = meets(&summary);
                if protocol.code_reading == CodeReading::Both {
                    let by_weights =
                        encoder::summarize(&encoder::weight_codes(learner.network(), e)?);
                    outcome.codes_by_weights = Some(by_weights);
                    if by_weights.distinct + 1 >= e.group
                        && outcome.seven_codes_at_by_weights.is_none()
                    {
                        outcome.seven_codes_at_by_weights = Some(cycle);
                    }
                    if meets(&by_weights) && outcome.solved_at_by_weights.is_none() {
                        outcome.solved_at_by_weights = Some(cycle);
                    }
                }
                if protocol.accuracy_trials > 0 && cycle >= protocol.accuracy_from {
                    let fraction = match protocol.method {
                        LearningMethod::Stochastic => encoder::sampled_accuracy_with(
                            learner.network(),
                            e,
                            &options.settling,
                            protocol.test_anneal,
                            protocol.accuracy_trials,
                            check_seed.rotate_left(17),
                        )?
                        .fraction(),
                        LearningMethod::MeanField => {
                            let (a, bad) = encoder::mean_field_accuracy_with(
                                learner.network(),
                                e,
                                &options.settling,
                                protocol.test_anneal,
                                &protocol.settings,
                            )?;
                            test_nonconverged += bad;
                            a.fraction()
                        }
                    };
                    outcome.accuracy.push((cycle, fraction));
                }
                solved
            }
            None => ranks_training_set_first(learner.network(), options.temperature(), &dataset)?,
        };
        outcome.nonconverged = learner.nonconverged() + test_nonconverged;
        if solved && outcome.solved_at.is_none() {
            outcome.solved_at = Some(cycle);
        }
        progress(&outcome);
        if outcome.finished(protocol) {
            break;
        }
    }
    if learner.network().len() <= KL_REPORT_UNITS {
        outcome.final_kl = Some(kl_divergence(
            learner.network(),
            options.temperature(),
            dataset.patterns(),
        )?);
    }
    outcome.nonconverged = learner.nonconverged() + test_nonconverged;
    Ok(outcome)
}

/// Whether the distinct training vectors are the most probable visible vectors: the
/// least probable of them is more probable than the most probable vector outside the
/// set (exact visible distribution; visible ≤
/// [`super::likelihood::MAX_DISTRIBUTION_VISIBLE`]).
pub fn ranks_training_set_first(
    network: &Network,
    temperature: f64,
    dataset: &Dataset,
) -> Result<bool, ParamError> {
    let p = visible_distribution(network, temperature)?;
    let index = |v: &[u8]| {
        v.iter()
            .enumerate()
            .filter(|&(_, &b)| b == 1)
            .fold(0usize, |i, (k, _)| i | 1 << k)
    };
    let mut inside = vec![false; p.len()];
    for v in dataset.patterns() {
        inside[index(v)] = true;
    }
    let least_inside = (0..p.len())
        .filter(|&i| inside[i])
        .map(|i| p[i])
        .fold(f64::INFINITY, f64::min);
    let most_outside = (0..p.len())
        .filter(|&i| !inside[i])
        .map(|i| p[i])
        .fold(0.0, f64::max);
    Ok(least_inside > most_outside)
}

/// `network` with every allowed weight w_ij (i < j) drawn uniform on [−a, a]:
/// w = a(2u − 1), u = r/2^32 from one 32-bit draw r of the stream of `seed` split off
/// for this purpose, pairs in the order (0,1), (0,2), …
pub fn random_weights(network: Network, scale: f64, seed: u64) -> Result<Network, ParamError> {
    crate::error::finite_in("initial weights", scale, 0.0, Network::MAX_PARAMETER)?;
    let mut rng = crate::rng::seeded_rng(seed ^ 0x5EED_0F3E_1641_7500);
    let mut network = network;
    let n = network.len();
    for i in 0..n {
        for j in i + 1..n {
            let u = crate::rng::uniform(&mut rng);
            if network.is_allowed(i, j) {
                network.set_weight(i, j, scale * (2.0 * u - 1.0))?;
            }
        }
    }
    Ok(network)
}

/// Differences of exact statistics at most this large count as ties (rounding of sums of
/// products of probabilities, ≈ 10⁻¹⁶ each).
pub const EXACT_TIE: f64 = 1e-12;

/// One cycle of the sign rule on exact statistics: every allowed w_ij changes by
/// k·sign(p_ij − p′_ij) and every θ_i by k·sign(p_i − p′_i) ([`Update::change`]), where a
/// difference within ±[`EXACT_TIE`] is a tie (no change). Returns the fraction of allowed
/// pairs that tied.
pub fn exact_sign_step(
    network: &mut Network,
    update: Update,
    clamped: &super::PhaseStatistics,
    free: &super::PhaseStatistics,
) -> Result<f64, ParamError> {
    let n = network.len();
    let change = |p: f64, q: f64| {
        if (p - q).abs() <= EXACT_TIE {
            0.0
        } else {
            update.change(p, q)
        }
    };
    let (mut pairs, mut ties) = (0u64, 0u64);
    for i in 0..n {
        for j in i + 1..n {
            if network.is_allowed(i, j) {
                let d = change(clamped.pair(i, j), free.pair(i, j));
                pairs += 1;
                ties += u64::from(d == 0.0);
                network.set_weight(i, j, network.weight(i, j) + d)?;
            }
        }
        let b = network.bias(i) + change(clamped.means[i], free.means[i]);
        network.set_bias(i, b)?;
    }
    Ok(ties as f64 / pairs.max(1) as f64)
}

/// An experiment, not the paper's machine: the encoder protocol with the
/// sampled statistics replaced by exact ones ([`encoder::exact_statistics`]: every
/// noisy clamp and every state enumerated), so whatever remains is the sign rule's own
/// doing and not sampling noise. Same stages, noise, temperature (the settling's final
/// T), rule and stopping as [`run`]; codes read exactly ([`encoder::exact_codes`], or
/// from the weights with [`CodeReading::Weights`], both with [`CodeReading::Both`]).
/// Exact statistics are deterministic: from zero weights every hidden unit gets the same
/// statistics forever, so `seed` only matters through `initial_weights` (> 0 needed to
/// break the symmetry). 4-2-4, 4-3-4 and 8-3-8 (each visible vector's noisy copies are
/// enumerated: 2^(2n) per training vector). The rule on exact statistics is a
/// deterministic map of the weights: when they repeat within [`MAX_PERIOD`] cycles
/// ([`RunOutcome::periodic_from`]) the run stops, since every later cycle repeats
/// states already checked. The stage's hidden wiring is not applied (the small
/// encoders have one stage).
pub fn run_exact(
    protocol: &Protocol,
    seed: u64,
    mut progress: impl FnMut(&RunOutcome),
) -> Result<RunOutcome, ParamError> {
    let dataset = protocol.problem.dataset();
    let e = dataset.encoder().ok_or_else(|| ParamError::Invalid {
        field: "exact statistics",
        reason: "only for the encoders".into(),
    })?;
    let mut network = dataset.network(SpinKind::Binary);
    if protocol.initial_weights > 0.0 {
        network = random_weights(network, protocol.initial_weights, seed)?;
    }
    let temperature = protocol.options.temperature();
    let mut outcome = RunOutcome::starting(seed);
    let meets = |summary: &CodeSummary| {
        if protocol.problem == Problem::Encoder4x3 {
            summary.well_spaced(e.group)
        } else {
            summary.solved(e.group)
        }
    };
    let mut recent: std::collections::VecDeque<(Vec<f64>, Vec<f64>)> =
        std::collections::VecDeque::with_capacity(MAX_PERIOD);
    for cycle in 1..=protocol.max_cycles {
        let stage = protocol.stage(cycle);
        let (clamped, free) =
            encoder::exact_statistics(&network, e, temperature, dataset.patterns(), stage.noise)?;
        let ties = exact_sign_step(&mut network, protocol.options.update, &clamped, &free)?;
        outcome.cycles = cycle;
        let now = (network.weights().to_vec(), network.biases().to_vec());
        if let Some(back) = recent.iter().rev().position(|past| *past == now) {
            outcome.periodic_from = Some((cycle, back as u64 + 1));
        }
        if recent.len() == MAX_PERIOD {
            recent.pop_front();
        }
        recent.push_back(now);
        if cycle % GROWTH_EVERY == 0
            || cycle == protocol.max_cycles
            || outcome.periodic_from.is_some()
        {
            let (w, _) = weight_growth(
                &network,
                &super::CycleReport {
                    cycle,
                    clamped,
                    free,
                    nonconverged: 0,
                },
            );
            outcome.growth.push((cycle, w, ties));
        }
        let codes = match protocol.code_reading {
            CodeReading::Weights => encoder::weight_codes(&network, e)?,
            _ => encoder::exact_codes(&network, e, temperature)?,
        };
        let summary = encoder::summarize(&codes);
        outcome.codes = Some(summary);
        if summary.distinct + 1 >= e.group && outcome.seven_codes_at.is_none() {
            outcome.seven_codes_at = Some(cycle);
        }
        if meets(&summary) && outcome.solved_at.is_none() {
            outcome.solved_at = Some(cycle);
        }
        if protocol.code_reading == CodeReading::Both {
            let by_weights = encoder::summarize(&encoder::weight_codes(&network, e)?);
            outcome.codes_by_weights = Some(by_weights);
            if by_weights.distinct + 1 >= e.group && outcome.seven_codes_at_by_weights.is_none() {
                outcome.seven_codes_at_by_weights = Some(cycle);
            }
            if meets(&by_weights) && outcome.solved_at_by_weights.is_none() {
                outcome.solved_at_by_weights = Some(cycle);
            }
        }
        progress(&outcome);
        if outcome.finished(protocol) {
            break;
        }
        if outcome.periodic_from.is_some() {
            break;
        }
    }
    outcome.final_kl = Some(kl_divergence(&network, temperature, dataset.patterns())?);
    Ok(outcome)
}
