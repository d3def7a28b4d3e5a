//! ln Z, the log of the normalising constant, four ways (docs/references.md §4).
//!
//! For a [`Network`] at temperature T (β = 1/T),
//!
//!   Z = Σ_s e^{−E(s)/T},   E(s) = −Σ_{i<j} w_ij s_i s_j − Σ_i θ_i s_i,
//!
//! summed over all 2^n states. Four routes, each returning a [`LogZ`]:
//!
//! - [`exact_log_z`](fn@exact_log_z): brute force over all 2^n states (n ≤ 30), ln Z itself
//!   (for a lattice, [`lattice_exact_log_z`] adds Kaufman's formula for the periodic
//!   ferromagnet of any size);
//! - [`sampled_log_z`]: the seeds' sequential dynamics: run heat-bath sweeps at T, keep each
//!   distinct state visited once, and sum their Boltzmann weights. Every term is a term of
//!   Z, so ln Σ_{visited} e^{−E(s)/T} ≤ ln Z: a lower bound by construction;
//! - [`mean_field_log_z`]: ln Z ≈ −F/T with the mean-field free energy
//!   F = E(m) − T S(q) (Peterson & Anderson 1987); also a lower bound, by Gibbs–Bogoliubov;
//! - [`ais_log_z`]: annealed importance sampling (Neal 2001; Salakhutdinov & Murray 2008),
//!   an unbiased estimate of Z with a standard error for ln Ẑ.
//!
//! Every function takes a finite T > 0 (T = 0 has no finite ln Z; at T = ∞, ln Z = n ln 2
//! needs no estimator) and checks its counts against documented limits that bound its
//! memory and time, returning a [`ParamError`] naming the field otherwise. A seed fixes
//! every random choice (the [`NetworkSampler`] streams), and all arithmetic that enters a
//! result uses `libm`, so the numbers are the same natively and in WebAssembly — except
//! [`LogZ::seconds`], the wall-clock time, which is measured natively only.

use super::ais::{Ais, AisPath};
use super::exact_log_z;
use super::mean_field::{self, MeanFieldOptions};
use super::rbm_exact::available_threads;
use crate::dynamics::{NetworkOrder, NetworkSampler, Rule};
use crate::error::{ParamError, TemperatureDomain, check_temperature, number};
use crate::exact::enumeration::MAX_ENUMERATION_UNITS;
use crate::log_sum_exp::LogSumExp;
use crate::model::{Boundary, Couplings, Lattice};
use crate::model::{Network, SpinKind};
use std::collections::HashSet;
use std::sync::Arc;

/// Most sweeps [`sampled_log_z`] runs: 10⁷.
pub const MAX_SAMPLED_SWEEPS: u64 = 10_000_000;
/// Most distinct states [`sampled_log_z`] keeps: 2^20 (≈ 10⁶). With n > 128 units the cap
/// is lower, 2^22 / ⌈n/64⌉, so that the keys never take more than 32 MiB.
pub const MAX_SAMPLED_STATES: usize = 1 << 20;
/// Fewest independent runs [`ais_log_z`] accepts: 2 (a standard error needs two).
pub const MIN_AIS_RUNS: u64 = 2;
/// Most independent runs [`ais_log_z`] accepts: 10⁶ (8 MB of log weights).
pub const MAX_AIS_RUNS: u64 = 1_000_000;
/// Most intermediate distributions K [`ais_log_z`] accepts: 10⁶.
pub const MAX_AIS_STEPS: u64 = 1_000_000;
/// Runs [`ais_log_z`] takes through the temperatures together (a batch of the driver's; the
/// runs of a batch are shared among threads natively).
const AIS_BATCH: usize = 64;
/// Most multiply-adds a sampling estimate may cost: 2^40 ≈ 1.1·10¹² (minutes, not hours).
/// A sweep of n units costs n² (n local fields of n terms), so sweeps × n² ≤ 2^40.
pub const MAX_WORK: u128 = 1 << 40;

/// Distinct-state keys in 64-bit words for [`sampled_log_z`]: 2^22 words, 32 MiB.
const MAX_KEY_WORDS: usize = 1 << 22;
/// Mean field anneals through T·10^{j/J} for j = J, J − 1, …, 1, with J = this.
const MEAN_FIELD_ANNEAL_STEPS: usize = 10;

/// How ln Z was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogZMethod {
    /// Enumeration of all 2^n states.
    Exact,
    /// The sum over the distinct states visited by heat-bath dynamics.
    Sampled,
    /// −F/T at a solution of the mean-field equations.
    MeanField,
    /// Annealed importance sampling.
    Ais,
}

impl LogZMethod {
    /// All four, in the order of the command line's list.
    pub const ALL: [LogZMethod; 4] = [
        LogZMethod::Exact,
        LogZMethod::Ais,
        LogZMethod::MeanField,
        LogZMethod::Sampled,
    ];

    /// The name on the command line and in JSON: `exact`, `sampled`, `mean-field`, `ais`.
    pub fn name(self) -> &'static str {
        match self {
            LogZMethod::Exact => "exact",
            LogZMethod::Sampled => "sampled",
            LogZMethod::MeanField => "mean-field",
            LogZMethod::Ais => "ais",
        }
    }

    /// Parses a method name; the error names the field `method` and the allowed values.
    pub fn parse(name: &str) -> Result<LogZMethod, ParamError> {
        LogZMethod::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "method",
                value: name.to_string(),
                allowed: "exact, ais, mean-field, sampled",
            })
    }
}

/// What a reported ln Z is guaranteed to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    /// ln Z itself, up to rounding.
    Exact,
    /// At most ln Z (up to rounding), whatever the seed or the number of sweeps.
    Lower,
    /// An estimate with an error bar, on either side of ln Z.
    None,
}

/// The facts one method adds to its [`LogZ`]. In JSON they are fields of the same object.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Facts {
    /// [`exact_log_z`](fn@exact_log_z): every state was visited.
    Exact {
        /// 2^n.
        states: u64,
    },
    /// [`sampled_log_z`].
    Sampled {
        /// Whole sweeps run (fewer than asked for only when the state cap was reached).
        sweeps: u64,
        /// Single-unit updates run: sweeps × n (or fewer, at the cap).
        ticks: u64,
        /// Distinct states visited and summed, the random start included.
        distinct_states: u64,
        /// distinct_states / 2^n, given for n ≤ 64.
        state_fraction: Option<f64>,
        /// Whether the run stopped early at the cap on distinct states.
        capped: bool,
        /// The seed of the start state and of every update.
        seed: u64,
    },
    /// [`lattice_exact_log_z`] by Kaufman's formula: no state was visited.
    Kaufman {
        /// `Kaufman 1949`.
        formula: &'static str,
    },
    /// [`mean_field_log_z`].
    MeanField {
        /// Whether the mean-field equations converged at T (−F/T is a lower bound either way).
        converged: bool,
        /// Passes over all units at T.
        passes: usize,
        /// The last pass's max_i |Δq_i|.
        residual: f64,
        /// Whether the reported solution was annealed down from higher temperatures.
        annealed: bool,
    },
    /// [`ais_log_z`].
    Ais {
        /// Independent runs M.
        runs: u64,
        /// Intermediate distributions K (β_1 … β_K).
        steps: u64,
        /// Effective number of runs, (Σ w)² / Σ w²: near M when the weights are even, near
        /// 1 when one run dominates (then the standard error is not to be trusted).
        effective_runs: f64,
        /// The seed of every run.
        seed: u64,
    },
}

/// ln Z of a network at one temperature by one [`LogZMethod`], with what the method knows about
/// its own accuracy.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LogZ {
    /// The method.
    pub method: LogZMethod,
    /// The estimate of ln Z = ln Σ_s e^{−E(s)/T}.
    pub log_z: f64,
    /// The standard error of `log_z` where the method has one (AIS), else `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<f64>,
    /// What `log_z` is guaranteed to be.
    pub bound: Bound,
    /// T.
    pub temperature: f64,
    /// n.
    pub units: usize,
    /// The convention of the units.
    pub spin: SpinKind,
    /// Facts particular to the method.
    #[serde(flatten)]
    pub facts: Facts,
    /// Wall-clock seconds the computation took; `None` in WebAssembly, which has no clock
    /// in `std` (time it in the caller there).
    pub seconds: Option<f64>,
}

/// Exact ln Z = ln Σ_s e^{−E(s)/T} by enumerating all 2^n states
/// ([`crate::exact::enumeration::enumerate`]; n ≤ [`MAX_ENUMERATION_UNITS`] = 30, finite
/// T > 0). Cost O(n 2^n). More than 30 units is refused with an error naming `units`.
pub fn exact_log_z(network: &Network, temperature: f64) -> Result<LogZ, ParamError> {
    let temperature = check_temperature(temperature, TemperatureDomain::LogZ)?;
    let n = network.len();
    if n > MAX_ENUMERATION_UNITS {
        return Err(ParamError::Invalid {
            field: "units",
            reason: format!(
                "exact ln Z enumerates all 2^n states and handles at most \
                 {MAX_ENUMERATION_UNITS} units, got {n} (try ais, mean-field or sampled)"
            ),
        });
    }
    let clock = Stopwatch::start();
    let log_z = exact_log_z::log_z(network, temperature, None)?;
    finite(LogZ {
        method: LogZMethod::Exact,
        log_z,
        stderr: None,
        bound: Bound::Exact,
        temperature,
        units: n,
        spin: network.kind(),
        facts: Facts::Exact { states: 1 << n },
        seconds: clock.seconds(),
    })
}

/// Exact ln Z of a lattice model at T: Kaufman's formula ([`crate::exact::kaufman_log_z`])
/// for a periodic ferromagnet (uniform J > 0, h = 0, both sides at least 3) of more than
/// [`MAX_ENUMERATION_UNITS`] spins at 0.35 ≤ T/J ≤ 5000, where the formula is good to 1e-8
/// ([`crate::exact::KAUFMAN_MIN_TEMPERATURE`], [`crate::exact::KAUFMAN_MAX_TEMPERATURE`]);
/// ln Z(J, T) = ln Z(1, T/J) as only K = J/T enters. Any smaller lattice is enumerated
/// ([`exact_log_z`](fn@exact_log_z) on its network). Anything else is refused, naming both
/// routes' limits (field `spins`).
pub fn lattice_exact_log_z(lattice: &Lattice, temperature: f64) -> Result<LogZ, ParamError> {
    use crate::exact::{KAUFMAN_MAX_TEMPERATURE, KAUFMAN_MIN_TEMPERATURE, kaufman_log_z};
    let temperature = check_temperature(temperature, TemperatureDomain::LogZ)?;
    let n = lattice.len();
    if n <= MAX_ENUMERATION_UNITS {
        return exact_log_z(&lattice.to_network()?, temperature);
    }
    let j = lattice.coupling();
    let reduced = temperature / j;
    let kaufman = matches!(lattice.couplings(), Couplings::Uniform)
        && lattice.field() == 0.0
        && lattice.boundary() == Boundary::Periodic
        && lattice.width() >= 3
        && lattice.height() >= 3
        && j > 0.0
        && (KAUFMAN_MIN_TEMPERATURE..=KAUFMAN_MAX_TEMPERATURE).contains(&reduced);
    if !kaufman {
        return Err(ParamError::Invalid {
            field: "spins",
            reason: format!(
                "no exact ln Z for this lattice: enumeration handles at most \
                 {MAX_ENUMERATION_UNITS} spins (a 5×5 lattice), got {n}, and Kaufman's formula \
                 covers the periodic ferromagnet at h = 0 and {KAUFMAN_MIN_TEMPERATURE} ≤ T/J ≤ \
                 {KAUFMAN_MAX_TEMPERATURE}"
            ),
        });
    }
    let clock = Stopwatch::start();
    finite(LogZ {
        method: LogZMethod::Exact,
        log_z: kaufman_log_z(lattice.width(), lattice.height(), reduced),
        stderr: None,
        bound: Bound::Exact,
        temperature,
        units: n,
        spin: SpinKind::Ising,
        facts: Facts::Kaufman {
            formula: "Kaufman 1949",
        },
        seconds: clock.seconds(),
    })
}

/// The sampled lower bound of the seeds (docs/references.md §4):
///
///   ln Z ≥ ln Σ_{s ∈ V} e^{−E(s)/T},
///
/// where V is the set of distinct states visited by sequential heat-bath dynamics at T
/// (a [`NetworkSampler`] with [`Rule::HeatBath`] and [`NetworkOrder::Sequential`]),
/// started from a uniformly random state drawn from `seed` and run for `sweeps` sweeps
/// (n ticks each). The state after every tick counts, the start included; each distinct
/// state enters the sum once, with its energy recomputed from scratch. Because V is a
/// subset of all states, the result never exceeds ln Z (up to rounding);
/// it approaches ln Z as V covers the states that carry the probability. The sum is a
/// running log-sum-exp relative to the largest exponent so far, with compensated
/// summation.
///
/// States are kept as bit-packed keys (bit i set when unit i is high) in a hash set of at
/// most [`MAX_SAMPLED_STATES`] entries (2^22 / ⌈n/64⌉ for n > 128, 32 MiB of keys); when
/// the set is full the run stops early and says so (`capped`). Limits: finite T > 0,
/// 1 ≤ sweeps ≤ [`MAX_SAMPLED_SWEEPS`], sweeps × n² ≤ [`MAX_WORK`].
pub fn sampled_log_z(
    network: &Network,
    temperature: f64,
    sweeps: u64,
    seed: u64,
) -> Result<LogZ, ParamError> {
    let temperature = check_temperature(temperature, TemperatureDomain::LogZ)?;
    let n = network.len();
    let max_sweeps = MAX_SAMPLED_SWEEPS.min(work_limit(n));
    check_count("sweeps", sweeps, 1, max_sweeps)?;
    let clock = Stopwatch::start();
    let kind = network.kind();
    let cap = state_cap(n);
    let mut sampler = NetworkSampler::new(
        network.clone(),
        temperature,
        Rule::HeatBath,
        NetworkOrder::Sequential,
        seed,
    )?;
    let mut visited = Visited::new(n);
    let mut sum = LogSumExp::new();
    let mut visit = |state: &[i8]| {
        if visited.insert(kind, state) {
            sum.push(-network.energy(state) / temperature);
        }
        visited.len() >= cap
    };
    let mut capped = visit(sampler.state());
    let mut sweeps_run = 0;
    while !capped && sweeps_run < sweeps {
        for _ in 0..n {
            sampler.tick();
            if visit(sampler.state()) {
                capped = true;
                break;
            }
        }
        if !capped {
            sweeps_run += 1;
        }
    }
    let distinct = visited.len() as u64;
    finite(LogZ {
        method: LogZMethod::Sampled,
        log_z: sum.value(),
        stderr: None,
        bound: Bound::Lower,
        temperature,
        units: n,
        spin: kind,
        facts: Facts::Sampled {
            sweeps: sweeps_run,
            ticks: sampler.ticks(),
            distinct_states: distinct,
            state_fraction: (n <= 64).then(|| distinct as f64 * libm::exp2(-(n as f64))),
            capped,
            seed,
        },
        seconds: clock.seconds(),
    })
}

/// The mean-field options [`mean_field_log_z`] uses at temperature T: the defaults of
/// [`MeanFieldOptions`] (undamped, tolerance 10⁻¹⁰, at most 10⁴ passes per temperature),
/// annealed through T·10^{j/10} for j = 10, 9, …, 1 (from 10T down to ≈ 1.26T), so that
/// the solution is followed down from the high-temperature phase rather than found from
/// q = ½ at T.
pub fn mean_field_options(temperature: f64) -> MeanFieldOptions {
    let steps = MEAN_FIELD_ANNEAL_STEPS;
    MeanFieldOptions {
        anneal: (1..=steps)
            .rev()
            .map(|j| temperature * libm::pow(10.0, j as f64 / steps as f64))
            .filter(|t| t.is_finite())
            .collect(),
        ..MeanFieldOptions::default()
    }
}

/// The mean-field estimate ln Z ≈ −F(q)/T, F(q) = E(m) − T S(q) (docs/references.md §4), at a
/// solution q of the mean-field equations q_i = σ((s_high − s_low) h_i / T),
/// h_i = Σ_j w_ij m_j + θ_i, found by [`super::mean_field::solve`].
///
/// For every product distribution q, ln Z ≥ −F(q)/T (Gibbs–Bogoliubov), so any q gives a
/// lower bound, converged or not, and the larger of two is the better one. Two solutions
/// are tried and the larger −F/T reported: one annealed from 10T with
/// [`mean_field_options`], which follows the high-temperature solution down, and one
/// solved at T directly from q ≈ ½. Both are needed: with no biases (the SK model, say)
/// annealing settles on the symmetric fixed point q = ½ so precisely that it still counts
/// as converged below the temperature where that point turns into a saddle, while the
/// direct start, nudged off ½ by 10⁻³, descends to a minimum of F. `annealed` says which
/// was reported, `converged` whether it converged. Finite T > 0.
pub fn mean_field_log_z(network: &Network, temperature: f64) -> Result<LogZ, ParamError> {
    let temperature = check_temperature(temperature, TemperatureDomain::LogZ)?;
    let clock = Stopwatch::start();
    let annealed = mean_field_result(network, temperature, &mean_field_options(temperature))?;
    let direct = mean_field_result(network, temperature, &MeanFieldOptions::default())?;
    let mut best = if direct.log_z > annealed.log_z {
        direct
    } else {
        annealed
    };
    best.seconds = clock.seconds();
    finite(best)
}

/// [`mean_field_log_z`] from one solution, with the solver's options given (checked by
/// [`MeanFieldOptions::check`]); `annealed` is true when the options anneal. Finite T > 0.
pub fn mean_field_log_z_with(
    network: &Network,
    temperature: f64,
    options: &MeanFieldOptions,
) -> Result<LogZ, ParamError> {
    let temperature = check_temperature(temperature, TemperatureDomain::LogZ)?;
    let clock = Stopwatch::start();
    let mut result = mean_field_result(network, temperature, options)?;
    result.seconds = clock.seconds();
    finite(result)
}

fn mean_field_result(
    network: &Network,
    temperature: f64,
    options: &MeanFieldOptions,
) -> Result<LogZ, ParamError> {
    let n = network.len();
    let solution = mean_field::solve(network, temperature, &vec![None; n], None, options)?;
    Ok(LogZ {
        method: LogZMethod::MeanField,
        log_z: solution.log_z,
        stderr: None,
        bound: Bound::Lower,
        temperature,
        units: n,
        spin: network.kind(),
        facts: Facts::MeanField {
            converged: solution.converged,
            passes: solution.passes,
            residual: solution.residual,
            annealed: !options.anneal.is_empty(),
        },
        seconds: None,
    })
}

/// The inverse temperatures of [`ais_log_z`]: β_k = (k/K)·β for k = 0 … K, linear in β
/// from β_0 = 0 (the uniform distribution) to β_K = β = 1/T. A T so small that 1/T
/// overflows an f64 (a subnormal T) is refused, naming `temperature`.
pub fn ais_schedule(temperature: f64, steps: u64) -> Result<Vec<f64>, ParamError> {
    let beta = 1.0 / temperature;
    if !beta.is_finite() {
        return Err(ParamError::Invalid {
            field: "temperature",
            reason: format!(
                "at T = {} the inverse temperature 1/T overflows an f64; raise the \
                 temperature",
                number(temperature)
            ),
        });
    }
    Ok((0..=steps)
        .map(|k| beta * (k as f64 / steps as f64))
        .collect())
}

/// Annealed importance sampling (Neal 2001; Salakhutdinov & Murray 2008), by the engine's
/// one AIS driver ([`Ais`]) on the general network's path ([`NetworkPath`]).
///
/// Intermediate distributions p_k(s) ∝ e^{−β_k E(s)} with the linear schedule
/// β_k = (k/K)·β ([`ais_schedule`]), K = `steps`: p_0 is uniform over the 2^n states,
/// Z_0 = 2^n, and p_K is the Boltzmann distribution at T. Each of M = `runs` independent
/// runs draws s uniformly, then for k = 1 … K adds −(β_k − β_{k−1}) E(s) to its log weight
/// ln w and, for k < K, applies one sequential heat-bath sweep at β_k (a transition that
/// leaves p_k invariant; the one at β_K would not change the weight and is skipped). Then
/// E\[w\] = Z/Z_0 and
///
///   ln Ẑ = n ln 2 + ln((1/M) Σ_r w_r),
///
/// computed relative to the largest ln w. Its standard error by the delta method is
/// sd(w) / (√M · mean(w)) (sample sd, M − 1 in the denominator), computed from
/// w_r / max w, so it never overflows. Ẑ is unbiased for Z; ln Ẑ is biased low by about
/// stderr²/2, and P(ln Ẑ > ln Z + t) ≤ e^{−t} (Markov), so it is a stochastic lower bound
/// but not a bound ([`Bound::None`]). The error bar is honest when the weights are even:
/// check `effective_runs`, (Σ w)² / Σ w², which should be a good fraction of M.
///
/// Run r draws only from its own stream, seeded by (`seed`, r) ([`super::ais::run_seed`]),
/// so a seed fixes everything, and the result is the same bit for bit natively, where the
/// runs are shared among the cores, and in WebAssembly, on one. Limits: finite T > 0,
/// [`MIN_AIS_RUNS`] ≤ runs ≤ [`MAX_AIS_RUNS`], 1 ≤ steps ≤ [`MAX_AIS_STEPS`],
/// runs × steps × n² ≤ [`MAX_WORK`].
pub fn ais_log_z(
    network: &Network,
    temperature: f64,
    runs: u64,
    steps: u64,
    seed: u64,
) -> Result<LogZ, ParamError> {
    let temperature = check_temperature(temperature, TemperatureDomain::LogZ)?;
    check_count("runs", runs, MIN_AIS_RUNS, MAX_AIS_RUNS)?;
    check_count("steps", steps, 1, MAX_AIS_STEPS)?;
    let n = network.len();
    let work = u128::from(runs) * u128::from(steps) * (n as u128) * (n as u128);
    if work > MAX_WORK {
        return Err(ParamError::Invalid {
            field: "runs × steps",
            reason: format!(
                "{runs} × {steps} sweeps of {n} units cost {runs} × {steps} × {n}² \
                 multiply-adds, beyond the limit 2^40; with {n} units, runs × steps may be at \
                 most {}",
                work_limit(n)
            ),
        });
    }
    let clock = Stopwatch::start();
    let path = NetworkPath::new(network);
    let mut ais = Ais::new(ais_schedule(temperature, steps)?, runs, AIS_BATCH, seed)
        .with_threads(available_threads());
    ais.advance(&path, ais.total_steps());
    let estimate = ais
        .estimate(path.log_z_base())
        .expect("every run is done, and there are at least two");
    finite(LogZ {
        method: LogZMethod::Ais,
        log_z: estimate.log_z,
        stderr: Some(estimate.stderr),
        bound: Bound::None,
        temperature,
        units: n,
        spin: network.kind(),
        facts: Facts::Ais {
            runs,
            steps,
            effective_runs: estimate.effective_runs,
            seed,
        },
        seconds: clock.seconds(),
    })
}

/// The AIS path of a general network at temperature T: from the uniform distribution
/// (β = 0, Z_0 = 2^n) to e^{−E(s)/T} through p*_β(s) = e^{−β E(s)}; the weight increment
/// is −(β_to − β_from) E(s) and the transition one sequential heat-bath sweep at
/// T = 1/β_to. A run is a [`NetworkSampler`] (its state and its stream) on the path's one
/// copy of the network, shared by every run.
#[derive(Debug, Clone)]
pub struct NetworkPath {
    network: Arc<Network>,
}

impl NetworkPath {
    /// The path of `network` (copied once, for all the runs).
    pub fn new(network: &Network) -> NetworkPath {
        NetworkPath {
            network: Arc::new(network.clone()),
        }
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.network
    }
}

impl AisPath for NetworkPath {
    type Run = NetworkSampler;
    type Scratch = ();

    fn log_z_base(&self) -> f64 {
        self.network.len() as f64 * core::f64::consts::LN_2
    }

    fn start(&self, seed: u64) -> NetworkSampler {
        // A state drawn uniformly from the run's stream (the sampler starts random).
        NetworkSampler::shared(
            Arc::clone(&self.network),
            f64::INFINITY,
            Rule::HeatBath,
            NetworkOrder::Sequential,
            seed,
        )
        .expect("T = ∞ is a valid sampling temperature")
    }

    fn scratch(&self, _runs: usize) {}

    fn step(
        &self,
        runs: &mut [NetworkSampler],
        log_weights: &mut [f64],
        from: f64,
        to: f64,
        transition: bool,
        _scratch: &mut (),
    ) {
        for (run, weight) in runs.iter_mut().zip(log_weights) {
            *weight -= (to - from) * run.energy();
            if transition {
                run.set_temperature(1.0 / to)
                    .expect("β > 0 on the path after its start");
                run.sweep();
            }
        }
    }

    fn cost(&self) -> u64 {
        (self.network.len() * self.network.len()) as u64
    }
}

/// Refuses a result that overflowed: a temperature so low for these weights that −E/T
/// leaves the range of an f64 (|E|/T > ~10³⁰⁸) gives an error naming `temperature`.
pub(crate) fn finite(result: LogZ) -> Result<LogZ, ParamError> {
    if result.log_z.is_finite() && result.stderr.is_none_or(f64::is_finite) {
        Ok(result)
    } else {
        Err(ParamError::Invalid {
            field: "temperature",
            reason: format!(
                "at T = {} the Boltzmann weights of this network overflow an f64 (ln Z came \
                 out as {}); {} the temperature",
                number(result.temperature),
                number(result.log_z),
                if result.temperature < 1.0 {
                    "raise"
                } else {
                    "lower"
                }
            ),
        })
    }
}

/// Most sweeps of n units within [`MAX_WORK`]: ⌊2^40 / n²⌋.
fn work_limit(units: usize) -> u64 {
    let per_sweep = (units as u128) * (units as u128);
    u64::try_from(MAX_WORK / per_sweep.max(1)).unwrap_or(u64::MAX)
}

/// The cap on distinct states for n units: min(2^20, 2^22 / ⌈n/64⌉).
fn state_cap(units: usize) -> usize {
    MAX_SAMPLED_STATES.min(MAX_KEY_WORDS / units.div_ceil(64))
}

/// A count in [min, max]; the error names the field and the range.
fn check_count(field: &'static str, value: u64, min: u64, max: u64) -> Result<u64, ParamError> {
    if !(min..=max).contains(&value) {
        return Err(ParamError::OutOfRange {
            field,
            value: value as f64,
            min: min as f64,
            max: max as f64,
        });
    }
    Ok(value)
}

/// The distinct states seen, as bit-packed keys (bit i set when unit i is high).
enum Visited {
    /// n ≤ 128: one `u128` per state, no allocation per key.
    Narrow(HashSet<u128>),
    /// n > 128: ⌈n/64⌉ words per state, and a scratch key for lookups.
    Wide(HashSet<Box<[u64]>>, Vec<u64>),
}

impl Visited {
    fn new(units: usize) -> Visited {
        if units <= 128 {
            Visited::Narrow(HashSet::new())
        } else {
            Visited::Wide(HashSet::new(), vec![0; units.div_ceil(64)])
        }
    }

    /// Adds the state; true if it was not there before.
    fn insert(&mut self, kind: SpinKind, state: &[i8]) -> bool {
        let high = kind.high();
        match self {
            Visited::Narrow(set) => {
                let key = state
                    .iter()
                    .enumerate()
                    .filter(|&(_, &s)| s == high)
                    .fold(0u128, |key, (i, _)| key | 1 << i);
                set.insert(key)
            }
            Visited::Wide(set, key) => {
                key.fill(0);
                for (i, &s) in state.iter().enumerate() {
                    if s == high {
                        key[i / 64] |= 1 << (i % 64);
                    }
                }
                if set.contains(&key[..]) {
                    false
                } else {
                    set.insert(key.clone().into_boxed_slice())
                }
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Visited::Narrow(set) => set.len(),
            Visited::Wide(set, _) => set.len(),
        }
    }
}

/// ln Z of `network` at `temperature` by `method` (`exact`, `sampled`, `mean-field`,
/// `ais`) with the page's fixed effort: 2000 sweeps for the sampled bound, 64 AIS runs of
/// 1000 steps. The machine's Z panel and the lattice's ln Z card both call this.
pub fn page_log_z(
    network: &Network,
    method: &str,
    temperature: f64,
    seed: u64,
) -> Result<LogZ, ParamError> {
    let method = LogZMethod::parse(method)?;
    match method {
        LogZMethod::Exact => exact_log_z(network, temperature),
        LogZMethod::Sampled => sampled_log_z(network, temperature, 2000, seed),
        LogZMethod::MeanField => mean_field_log_z(network, temperature),
        LogZMethod::Ais => ais_log_z(network, temperature, 64, 1000, seed),
    }
}

/// Wall-clock time, natively; `std::time::Instant` panics in wasm32-unknown-unknown, so
/// there it measures nothing.
struct Stopwatch {
    #[cfg(not(target_arch = "wasm32"))]
    start: std::time::Instant,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch {
            #[cfg(not(target_arch = "wasm32"))]
            start: std::time::Instant::now(),
        }
    }

    fn seconds(&self) -> Option<f64> {
        #[cfg(not(target_arch = "wasm32"))]
        {
            Some(self.start.elapsed().as_secs_f64())
        }
        #[cfg(target_arch = "wasm32")]
        {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_and_narrow_keys_tell_states_apart() {
        for units in [3, 130] {
            let mut visited = Visited::new(units);
            let mut state = vec![-1i8; units];
            assert!(visited.insert(SpinKind::Ising, &state));
            assert!(!visited.insert(SpinKind::Ising, &state));
            state[units - 1] = 1;
            assert!(visited.insert(SpinKind::Ising, &state));
            state[0] = 1;
            assert!(visited.insert(SpinKind::Ising, &state));
            assert_eq!(visited.len(), 3);
        }
        assert_eq!(state_cap(10), MAX_SAMPLED_STATES);
        assert_eq!(state_cap(2048), (1 << 22) / 32);
    }

    #[test]
    fn overflow_messages_show_the_temperature_in_exponent_form() {
        let message = ais_schedule(1e-320, 10).unwrap_err().to_string();
        assert!(
            message.starts_with("temperature: at T = 1e-320 the inverse temperature"),
            "{message}"
        );
        let overflowed = LogZ {
            method: LogZMethod::Exact,
            log_z: f64::INFINITY,
            stderr: None,
            bound: Bound::Exact,
            temperature: 1e-300,
            units: 2,
            spin: SpinKind::Ising,
            facts: Facts::Exact { states: 4 },
            seconds: None,
        };
        let message = finite(overflowed).unwrap_err().to_string();
        assert!(
            message.contains("at T = 1e-300 the Boltzmann weights") && message.len() < 200,
            "{message}"
        );
    }
}
