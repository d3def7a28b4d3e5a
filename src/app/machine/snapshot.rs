//! A machine run's session: everything a [`MachineLab`] is, as versioned JSON text that
//! the page stores opaquely and restores exactly. A run saved at cycle N (anywhere inside
//! a cycle) and restored continues bit for bit as the same run uninterrupted would have:
//! the options, the training set, the cycle and protocol stage, the curves, the network,
//! the learner's statistics and momentum and its random streams, the AIS estimate under
//! way and the hand-run sampler are all in it.
//!
//! ```json
//! {
//!   "format": "boltzlab-machine", "version": 1,
//!   "problem": "4-2-4", "method": "stochastic", "seed": 1,
//!   "rule": "sign", "rule_size": 2, "weight_decay": 0,
//!   "schedule": [[20, 2], [15, 2], [12, 2], [10, 4]], "collect_sweeps": 10,
//!   "cycles": 48, "stage": 1, "cycle_offset": 0, "changes": 48,
//!   "network": { "units": 10, "spin": "binary", "weights": [[…]], … },
//!   "learner": { "position": {…}, "noise_random_state": [1, 2, 3, 4], … },
//!   "shown": {…}, "activations": […],
//!   "curves": { "cycles": […], "kl": […], "solved": […],
//!               "ais_cycles": […], "ais_kl": […], "ais_stderr": […] },
//!   "estimate": null, "estimate_started": null, "explore": null
//! }
//! ```
//!
//! `problem` is a built-in problem's name or `patterns`; then `patterns` (one string of
//! 0s and 1s per training vector) and `hidden` say what the user drew. `cycles` and
//! `stage` (1-based) are written for the reader and checked against the rest. NaN in a
//! curve (KL not enumerable, not an encoder) is written as `null`. The random states are
//! the four 32-bit words of each Xoshiro128++ stream. [`MachineLab::from_session`] checks
//! every field, names the first bad one (`learner.position`, `curves.kl`, …) and builds
//! nothing on error.

use super::{CURVE_CAPACITY, Machine, MachineLab};
use crate::dynamics::NetworkSampler;
use crate::dynamics::network_sampler::NetworkSamplerState;
use crate::dynamics::{NetworkOrder, Rule};
use crate::error::{ParamError, finite_in, shorten, shorten_to, whole_in};
use crate::estimate::correlations::CorrelationSums;
use crate::estimate::kl::KlEstimate;
use crate::estimate::kl::KlEstimateState;
use crate::estimate::mean_field::MeanField;
use crate::estimate::trace::{Eviction, History};
use crate::learn::deterministic::MeanFieldState;
use crate::learn::experiment::{LearningMethod, Protocol};
use crate::learn::stochastic::StochasticState;
use crate::learn::{
    CycleReport, Dataset, LearnerCommonState, PhaseStatistics, Position, Problem, Settling, Update,
};
use crate::learn::{MeanFieldLearner, StochasticLearner};
use crate::model::Network;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// The value of the session's `format` field.
pub const FORMAT: &str = "boltzlab-machine";
/// The version of the session layout this build reads and writes.
pub const VERSION: u32 = 1;
/// Largest session text accepted: 64 MiB (the largest machine, 2048 units, with its
/// network, statistics, momentum and an estimate under way, fits several times over).
pub const MAX_SESSION_BYTES: usize = 64 << 20;
/// The `problem` of a run on the user's own patterns.
pub const CUSTOM_PROBLEM: &str = "patterns";
/// Largest count (cycles, ticks, changes) a session may carry: 2^53, exact in a JS number.
const MAX_COUNT: u64 = 1 << 53;

/// What a run is, in parts, between the lab and its text (see
/// [`MachineLab::session_parts`]).
pub(super) struct SessionParts {
    pub dataset: Dataset,
    pub protocol: Protocol,
    pub seed: u64,
    pub network: Network,
    pub learner: LearnerState,
    pub activations: Vec<f64>,
    pub curves: Curves,
    pub estimate: Option<KlEstimateState>,
    pub estimate_started: Option<u64>,
    pub cycle_offset: u64,
    pub version: u64,
    pub explore: Option<(NetworkSamplerState, Option<usize>)>,
    pub shown: Position,
}

/// The learner's own state, by method.
pub(super) enum LearnerState {
    Stochastic(StochasticState),
    MeanField(MeanFieldState),
}

/// The learning curves.
pub(super) struct Curves {
    pub cycles: Vec<f64>,
    pub kl: Vec<f64>,
    pub solved: Vec<f64>,
    pub ais_cycles: Vec<f64>,
    pub ais_kl: Vec<f64>,
    pub ais_stderr: Vec<f64>,
}

impl Curves {
    /// The learning curve as the run keeps it: (cycle, KL, solved) points, oldest evicted.
    pub(super) fn learning_history(&self) -> History<3> {
        history([&self.cycles, &self.kl, &self.solved])
    }

    /// The AIS curve as the run keeps it: (cycle, KL estimate, standard error) points.
    pub(super) fn ais_history(&self) -> History<3> {
        history([&self.ais_cycles, &self.ais_kl, &self.ais_stderr])
    }
}

/// A bounded history holding the columns' points in order (the columns were checked to
/// have one length, at most [`CURVE_CAPACITY`]).
fn history(columns: [&[f64]; 3]) -> History<3> {
    let mut history = History::with_eviction(CURVE_CAPACITY, Eviction::Oldest);
    let [a, b, c] = columns;
    for ((&x, &y), &z) in a.iter().zip(b).zip(c) {
        history.push_point([x, y, z]);
    }
    history
}

impl MachineLab {
    /// The run as session text (JSON, see the module docs), read back exactly by
    /// [`MachineLab::from_session`].
    pub fn session(&self) -> String {
        write(self, &self.session_parts())
    }

    /// The run a session text describes, continuing exactly where it was saved. Every
    /// field is checked; a bad or damaged text is refused with an error naming the field.
    pub fn from_session(text: &str) -> Result<MachineLab, ParamError> {
        MachineLab::from_session_parts(read(text)?)
    }

    /// Replaces this run by the one a session text describes; on error nothing changes.
    pub fn restore_session(&mut self, text: &str) -> Result<(), ParamError> {
        *self = MachineLab::from_session(text)?;
        Ok(())
    }
}

fn invalid(field: &'static str, reason: impl Into<String>) -> ParamError {
    ParamError::Invalid {
        field,
        reason: reason.into(),
    }
}

// --- Writing ------------------------------------------------------------------------------

/// NaN as `null` (JSON has no NaN).
fn nullable(values: &[f64]) -> Value {
    values
        .iter()
        .map(|&x| if x.is_nan() { Value::Null } else { json!(x) })
        .collect()
}

fn bits(pattern: &[u8]) -> String {
    pattern
        .iter()
        .map(|&b| if b == 1 { '1' } else { '0' })
        .collect()
}

fn sampler_json(s: &NetworkSamplerState) -> Value {
    json!({
        "state": s.state,
        "clamped": s.clamped,
        "temperature": s.temperature,
        "rule": s.rule.name(),
        "order": s.order.name(),
        "random_state": s.random_state,
        "cursor": s.cursor,
        "ticks": s.ticks,
        "energy": s.energy,
    })
}

fn sums_json(s: &CorrelationSums) -> Value {
    json!({
        "count": s.count,
        "sums": s.sums,
        "square_sums": s.square_sums,
        "pair_sums": s.pair_sums,
    })
}

fn common_json(c: &LearnerCommonState, into: &mut Map<String, Value>) {
    let presented: Vec<String> = c.presented.iter().map(|p| bits(p)).collect();
    into.insert("position".into(), json!(c.position));
    into.insert("noise_random_state".into(), json!(c.noise_random_state));
    into.insert("presented".into(), json!(presented));
    into.insert("weight_velocity".into(), json!(c.weight_velocity));
    into.insert("bias_velocity".into(), json!(c.bias_velocity));
    into.insert("hidden_connected".into(), json!(c.hidden_connected));
    into.insert("last".into(), json!(c.last));
    into.insert("diverged".into(), json!(c.diverged));
}

fn learner_json(learner: &LearnerState) -> Value {
    let mut map = Map::new();
    match learner {
        LearnerState::Stochastic(s) => {
            common_json(&s.common, &mut map);
            map.insert("sampler".into(), sampler_json(&s.sampler));
            map.insert("clamped_sums".into(), sums_json(&s.clamped));
            map.insert("free_sums".into(), sums_json(&s.free));
            map.insert("warm".into(), json!(s.warm));
            map.insert("particles".into(), json!(s.particles));
        }
        LearnerState::MeanField(s) => {
            common_json(&s.common, &mut map);
            map.insert("start_random_state".into(), json!(s.start_random_state));
            map.insert("clamped_sums".into(), json!(s.clamped));
            map.insert("free_sums".into(), json!(s.free));
            let last_solve = s.last_solve.as_ref().map(|(clamp, mf)| {
                json!({
                    "clamp": clamp,
                    "probabilities": mf.probabilities,
                    "means": mf.means,
                    "converged": mf.converged,
                    "passes": mf.passes,
                    "residual": nullable(&[mf.residual])[0],
                    "free_energy": nullable(&[mf.free_energy])[0],
                    "log_z": nullable(&[mf.log_z])[0],
                })
            });
            map.insert("last_solve".into(), json!(last_solve));
            map.insert("nonconverged".into(), json!(s.nonconverged));
            map.insert("cycle_nonconverged".into(), json!(s.cycle_nonconverged));
        }
    }
    Value::Object(map)
}

fn network_json(network: &Network) -> Value {
    serde_json::from_str(&network.to_json()).expect("a network's JSON reads back")
}

fn write(lab: &MachineLab, parts: &SessionParts) -> String {
    let options = &parts.protocol.options;
    let (rule, rule_size) = match options.update {
        Update::Gradient { rate } => ("gradient", rate),
        Update::Sign { step } => ("sign", step),
    };
    let custom = parts.dataset.name() == CUSTOM_PROBLEM;
    let mut file = Map::new();
    let mut put = |key: &str, value: Value| {
        file.insert(key.into(), value);
    };
    put("format", json!(FORMAT));
    put("version", json!(VERSION));
    put("problem", json!(parts.dataset.name()));
    if custom {
        let rows: Vec<String> = parts.dataset.patterns().iter().map(|p| bits(p)).collect();
        put("patterns", json!(rows));
        put("hidden", json!(parts.dataset.hidden()));
    }
    put("method", json!(parts.protocol.method.name()));
    put("seed", json!(parts.seed));
    put("rule", json!(rule));
    put("rule_size", json!(rule_size));
    put("weight_decay", json!(options.weight_decay));
    put("schedule", json!(options.settling.anneal.steps()));
    put("collect_sweeps", json!(options.settling.collect_sweeps));
    put("statistics", json!(options.statistics));
    put("cycles", json!(lab.cycles()));
    put("stage", json!(lab.stage_of(lab.cycles() + 1) + 1));
    put("cycle_offset", json!(parts.cycle_offset));
    put("changes", json!(parts.version));
    put("network", network_json(&parts.network));
    put("learner", learner_json(&parts.learner));
    put("shown", json!(parts.shown));
    put("activations", json!(parts.activations));
    let c = &parts.curves;
    put(
        "curves",
        json!({
            "cycles": c.cycles,
            "kl": nullable(&c.kl),
            "solved": nullable(&c.solved),
            "ais_cycles": c.ais_cycles,
            "ais_kl": nullable(&c.ais_kl),
            "ais_stderr": nullable(&c.ais_stderr),
        }),
    );
    let estimate = parts.estimate.as_ref().map(|e| {
        json!({
            "network": network_json(&e.network),
            "temperature": e.temperature,
            "seed": e.seed,
            "chunks": e.chunks,
            "cycle": e.cycle,
            "chunk_log_z": e.chunk_log_z,
        })
    });
    put("estimate", json!(estimate));
    put("estimate_started", json!(parts.estimate_started));
    let explore = parts
        .explore
        .as_ref()
        .map(|(sampler, pattern)| json!({ "pattern": pattern, "sampler": sampler_json(sampler) }));
    put("explore", json!(explore));
    serde_json::to_string(&Value::Object(file)).expect("a session serialises")
}

// --- Reading ------------------------------------------------------------------------------

/// The fields of one JSON object, taken one by one by their full names (`learner.last`:
/// the key `last`), each error naming the field; unknown keys are refused at the end.
struct Fields {
    map: Map<String, Value>,
}

impl Fields {
    fn of(value: Value, field: &'static str) -> Result<Fields, ParamError> {
        match value {
            Value::Object(map) => Ok(Fields { map }),
            other => Err(invalid(
                field,
                format!("expected an object, got {}", shorten(&other.to_string())),
            )),
        }
    }

    fn key(name: &'static str) -> &'static str {
        name.rsplit('.').next().unwrap_or(name)
    }

    fn value(&mut self, name: &'static str) -> Result<Value, ParamError> {
        self.map
            .remove(Self::key(name))
            .ok_or_else(|| invalid(name, "missing from the session"))
    }

    fn take<T: DeserializeOwned>(&mut self, name: &'static str) -> Result<T, ParamError> {
        let value = self.value(name)?;
        serde_json::from_value(value).map_err(|e| invalid(name, shorten_to(&e.to_string(), 160)))
    }

    fn object(&mut self, name: &'static str) -> Result<Fields, ParamError> {
        Fields::of(self.value(name)?, name)
    }

    /// A field that older sessions do not have: `None` if absent.
    fn maybe<T: DeserializeOwned>(&mut self, name: &'static str) -> Result<Option<T>, ParamError> {
        if self.map.contains_key(Self::key(name)) {
            self.take(name).map(Some)
        } else {
            Ok(None)
        }
    }

    /// An object that may be `null`.
    fn optional_object(&mut self, name: &'static str) -> Result<Option<Fields>, ParamError> {
        match self.value(name)? {
            Value::Null => Ok(None),
            value => Fields::of(value, name).map(Some),
        }
    }

    /// A whole number in [0, 2^53].
    fn count(&mut self, name: &'static str) -> Result<u64, ParamError> {
        let n: u64 = self.take(name)?;
        if n > MAX_COUNT {
            return Err(ParamError::OutOfRange {
                field: name,
                value: n as f64,
                min: 0.0,
                max: MAX_COUNT as f64,
            });
        }
        Ok(n)
    }

    /// Numbers, `null` read as NaN.
    fn nullable(&mut self, name: &'static str) -> Result<Vec<f64>, ParamError> {
        let values: Vec<Option<f64>> = self.take(name)?;
        Ok(values.into_iter().map(|x| x.unwrap_or(f64::NAN)).collect())
    }

    fn finish(self, object: &'static str) -> Result<(), ParamError> {
        match self.map.keys().next() {
            None => Ok(()),
            Some(key) => Err(invalid(object, format!("unknown field '{}'", shorten(key)))),
        }
    }
}

/// A 0/1 string as a pattern.
fn pattern_of(field: &'static str, text: &str) -> Result<Vec<u8>, ParamError> {
    text.chars()
        .map(|c| match c {
            '0' => Ok(0),
            '1' => Ok(1),
            other => Err(invalid(field, format!("'{other}' is not 0 or 1"))),
        })
        .collect()
}

fn all_finite(field: &'static str, values: &[f64]) -> Result<(), ParamError> {
    match values.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(k) => Err(invalid(
            field,
            format!("entry {k} must be a finite number, got {}", values[k]),
        )),
    }
}

fn read_network(value: Value, field: &'static str) -> Result<Network, ParamError> {
    if !value.is_object() {
        return Err(invalid(field, "expected a network object"));
    }
    Network::from_json(&value.to_string())
}

/// The network must be this run's: its units, visible count, kind and wiring.
fn check_network(
    field: &'static str,
    network: &Network,
    dataset: &Dataset,
    protocol: &Protocol,
) -> Result<(), ParamError> {
    let expected = dataset.network(protocol.kind);
    if network.len() != expected.len()
        || network.visible() != expected.visible()
        || network.kind() != expected.kind()
        || network.mask() != expected.mask()
    {
        return Err(invalid(
            field,
            format!(
                "this run needs {} {} units ({} visible) with its wiring; the session has {} \
                 ({} visible, {} units)",
                expected.len(),
                expected.kind().name(),
                expected.visible(),
                network.len(),
                network.visible(),
                network.kind().name()
            ),
        ));
    }
    Ok(())
}

fn read_sampler(mut f: Fields, prefix: &'static str) -> Result<NetworkSamplerState, ParamError> {
    // Each name is spelled out so that errors name the whole path.
    let names: [&'static str; 9] = match prefix {
        "explore.sampler" => [
            "explore.sampler.state",
            "explore.sampler.clamped",
            "explore.sampler.temperature",
            "explore.sampler.rule",
            "explore.sampler.order",
            "explore.sampler.random_state",
            "explore.sampler.cursor",
            "explore.sampler.ticks",
            "explore.sampler.energy",
        ],
        _ => [
            "learner.sampler.state",
            "learner.sampler.clamped",
            "learner.sampler.temperature",
            "learner.sampler.rule",
            "learner.sampler.order",
            "learner.sampler.random_state",
            "learner.sampler.cursor",
            "learner.sampler.ticks",
            "learner.sampler.energy",
        ],
    };
    let rule: String = f.take(names[3])?;
    let order: String = f.take(names[4])?;
    let state = NetworkSamplerState {
        state: f.take(names[0])?,
        clamped: f.take(names[1])?,
        temperature: f.take(names[2])?,
        rule: Rule::parse(&rule).map_err(|e| invalid(names[3], e.to_string()))?,
        order: NetworkOrder::parse(&order).map_err(|e| invalid(names[4], e.to_string()))?,
        random_state: f.take(names[5])?,
        cursor: f.take(names[6])?,
        ticks: f.count(names[7])?,
        energy: f.take(names[8])?,
    };
    f.finish(prefix)?;
    Ok(state)
}

fn read_correlation_sums(mut f: Fields, clamped: bool) -> Result<CorrelationSums, ParamError> {
    let (object, names) = if clamped {
        (
            "learner.clamped_sums",
            [
                "learner.clamped_sums.count",
                "learner.clamped_sums.sums",
                "learner.clamped_sums.square_sums",
                "learner.clamped_sums.pair_sums",
            ],
        )
    } else {
        (
            "learner.free_sums",
            [
                "learner.free_sums.count",
                "learner.free_sums.sums",
                "learner.free_sums.square_sums",
                "learner.free_sums.pair_sums",
            ],
        )
    };
    let sums = CorrelationSums {
        count: f.count(names[0])?,
        sums: f.take(names[1])?,
        square_sums: f.take(names[2])?,
        pair_sums: f.take(names[3])?,
    };
    f.finish(object)?;
    Ok(sums)
}

fn read_common(f: &mut Fields) -> Result<LearnerCommonState, ParamError> {
    let presented: Vec<String> = f.take("learner.presented")?;
    let presented = presented
        .iter()
        .map(|p| pattern_of("learner.presented", p))
        .collect::<Result<_, _>>()?;
    let last: Option<CycleReport> = f.take("learner.last")?;
    let diverged: Option<String> = f.take("learner.diverged")?;
    Ok(LearnerCommonState {
        position: f.take("learner.position")?,
        noise_random_state: f.take("learner.noise_random_state")?,
        presented,
        weight_velocity: f.take("learner.weight_velocity")?,
        bias_velocity: f.take("learner.bias_velocity")?,
        hidden_connected: f.take("learner.hidden_connected")?,
        last,
        diverged: diverged.map(|d| shorten_to(&d, 400)),
    })
}

/// A mean-field learner's last solve: its clamps and its solution.
type LastSolve = (Vec<Option<i8>>, MeanField);

fn read_last_solve(f: Option<Fields>) -> Result<Option<LastSolve>, ParamError> {
    let Some(mut f) = f else {
        return Ok(None);
    };
    let clamp: Vec<Option<i8>> = f.take("learner.last_solve.clamp")?;
    let scalar = |f: &mut Fields, name| -> Result<f64, ParamError> {
        let v: Option<f64> = f.take(name)?;
        Ok(v.unwrap_or(f64::NAN))
    };
    let solution = MeanField {
        probabilities: f.take("learner.last_solve.probabilities")?,
        means: f.take("learner.last_solve.means")?,
        converged: f.take("learner.last_solve.converged")?,
        passes: f.take("learner.last_solve.passes")?,
        residual: scalar(&mut f, "learner.last_solve.residual")?,
        free_energy: scalar(&mut f, "learner.last_solve.free_energy")?,
        log_z: scalar(&mut f, "learner.last_solve.log_z")?,
    };
    f.finish("learner.last_solve")?;
    Ok(Some((clamp, solution)))
}

fn read_learner(mut f: Fields, method: LearningMethod) -> Result<LearnerState, ParamError> {
    let common = read_common(&mut f)?;
    let state = match method {
        LearningMethod::Stochastic => {
            let sampler = read_sampler(f.object("learner.sampler")?, "learner.sampler")?;
            let clamped = read_correlation_sums(f.object("learner.clamped_sums")?, true)?;
            let free = read_correlation_sums(f.object("learner.free_sums")?, false)?;
            // Sessions written before the persistent chains have neither field.
            let warm = f.maybe("learner.warm")?.unwrap_or_default();
            let particles = f.maybe("learner.particles")?.unwrap_or_default();
            LearnerState::Stochastic(StochasticState {
                sampler,
                clamped,
                free,
                warm,
                particles,
                common,
            })
        }
        LearningMethod::MeanField => {
            let clamped: PhaseStatistics = f.take("learner.clamped_sums")?;
            let free: PhaseStatistics = f.take("learner.free_sums")?;
            let last_solve = read_last_solve(f.optional_object("learner.last_solve")?)?;
            LearnerState::MeanField(MeanFieldState {
                start_random_state: f.take("learner.start_random_state")?,
                clamped,
                free,
                last_solve,
                nonconverged: f.count("learner.nonconverged")?,
                cycle_nonconverged: f.count("learner.cycle_nonconverged")?,
                common,
            })
        }
    };
    f.finish("learner")?;
    Ok(state)
}

fn read_curves(mut f: Fields, cycles_done: u64) -> Result<Curves, ParamError> {
    let curves = Curves {
        cycles: f.take("curves.cycles")?,
        kl: f.nullable("curves.kl")?,
        solved: f.nullable("curves.solved")?,
        ais_cycles: f.take("curves.ais_cycles")?,
        ais_kl: f.take("curves.ais_kl")?,
        ais_stderr: f.take("curves.ais_stderr")?,
    };
    f.finish("curves")?;
    let n = curves.cycles.len();
    if n > CURVE_CAPACITY {
        return Err(ParamError::OutOfRange {
            field: "curves.cycles",
            value: n as f64,
            min: 0.0,
            max: CURVE_CAPACITY as f64,
        });
    }
    if curves.kl.len() != n || curves.solved.len() != n {
        return Err(invalid(
            "curves",
            format!(
                "cycles, kl and solved need one entry per point: {n}, {} and {}",
                curves.kl.len(),
                curves.solved.len()
            ),
        ));
    }
    let m = curves.ais_cycles.len();
    if m > CURVE_CAPACITY || curves.ais_kl.len() != m || curves.ais_stderr.len() != m {
        return Err(invalid(
            "curves",
            format!(
                "ais_cycles, ais_kl and ais_stderr need one entry per point (at most \
                 {CURVE_CAPACITY}): {m}, {} and {}",
                curves.ais_kl.len(),
                curves.ais_stderr.len()
            ),
        ));
    }
    for (field, cycles) in [
        ("curves.cycles", &curves.cycles),
        ("curves.ais_cycles", &curves.ais_cycles),
    ] {
        for &c in cycles {
            whole_in(field, c, 0, cycles_done)?;
        }
    }
    if let Some(k) = curves.kl.iter().position(|x| x.is_infinite()) {
        return Err(invalid("curves.kl", format!("entry {k} is not finite")));
    }
    for &s in curves.solved.iter().filter(|s| !s.is_nan()) {
        finite_in("curves.solved", s, 0.0, 1.0)?;
    }
    all_finite("curves.ais_kl", &curves.ais_kl)?;
    for &s in &curves.ais_stderr {
        finite_in("curves.ais_stderr", s, 0.0, f64::MAX)?;
    }
    Ok(curves)
}

/// The dataset and protocol of the session's options.
fn read_options(f: &mut Fields) -> Result<(Dataset, Protocol, u64), ParamError> {
    let problem: String = f.take("problem")?;
    let method: String = f.take("method")?;
    let method = LearningMethod::parse(&method)?;
    let seed: u64 = f.take("seed")?;
    crate::app::setup::check_seed(seed as f64)?;
    let (dataset, mut protocol) = if problem == CUSTOM_PROBLEM {
        let rows: Vec<String> = f.take("patterns")?;
        let patterns: Vec<Vec<u8>> = rows
            .iter()
            .map(|r| pattern_of("patterns", r))
            .collect::<Result<_, _>>()?;
        if patterns.is_empty() {
            return Err(invalid("patterns", "need at least one training vector"));
        }
        let hidden: f64 = f.take("hidden")?;
        let hidden = whole_in("hidden", hidden, 0, 64)? as usize;
        let visible = patterns.first().map_or(0, Vec::len);
        let dataset = Dataset::custom(visible, hidden, patterns)?;
        (dataset, Protocol::standard(Problem::Pixels10, method))
    } else {
        let problem = Problem::parse(&problem)?;
        (problem.dataset(), Protocol::standard(problem, method))
    };
    protocol.options.seed = seed;
    let rule: String = f.take("rule")?;
    let size: f64 = f.take("rule_size")?;
    protocol.options.update = match rule.as_str() {
        "gradient" => Update::Gradient { rate: size },
        "sign" => Update::Sign { step: size },
        other => {
            return Err(ParamError::UnknownChoice {
                field: "rule",
                value: shorten(other),
                allowed: "gradient, sign",
            });
        }
    };
    protocol.options.weight_decay = f.take("weight_decay")?;
    let steps: Vec<(f64, f64)> = f.take("schedule")?;
    let collect: f64 = f.take("collect_sweeps")?;
    protocol.options.settling = Settling {
        anneal: crate::dynamics::Schedule::new(&steps)?,
        collect_sweeps: whole_in("collect_sweeps", collect, 1, 1_000_000)?,
    };
    // Sessions written before the ways of getting statistics were a choice anneal.
    if let Some(statistics) = f.maybe("statistics")? {
        protocol.options.statistics = statistics;
    }
    protocol.options.check()?;
    Ok((dataset, protocol, seed))
}

fn read(text: &str) -> Result<SessionParts, ParamError> {
    if text.len() > MAX_SESSION_BYTES {
        return Err(invalid(
            "session",
            format!(
                "{} bytes is more than the {MAX_SESSION_BYTES} bytes a machine session may have",
                text.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        invalid(
            "session",
            format!(
                "not a boltzlab machine session: {}",
                shorten_to(&e.to_string(), 160)
            ),
        )
    })?;
    let mut f = Fields::of(value, "session")?;
    let format: String = f.take("format")?;
    if format != FORMAT {
        return Err(invalid(
            "format",
            format!("expected '{FORMAT}', got '{}'", shorten(&format)),
        ));
    }
    let version: u32 = f.take("version")?;
    if version != VERSION {
        return Err(invalid(
            "version",
            format!("this page reads version {VERSION}, got {version}"),
        ));
    }
    let (dataset, protocol, seed) = read_options(&mut f)?;
    let cycles = f.count("cycles")?;
    let stage: u64 = f.take("stage")?;
    let cycle_offset = f.count("cycle_offset")?;
    let version = f.count("changes")?;
    let network = read_network(f.value("network")?, "network")?;
    check_network("network", &network, &dataset, &protocol)?;
    let learner = read_learner(f.object("learner")?, protocol.method)?;
    let learner_cycles = match &learner {
        LearnerState::Stochastic(s) => s.common.position.cycle,
        LearnerState::MeanField(s) => s.common.position.cycle,
    };
    if cycle_offset.checked_add(learner_cycles) != Some(cycles) {
        return Err(invalid(
            "cycles",
            format!(
                "{cycles} is not the cycles before the learner ({cycle_offset}) plus its own \
                 ({learner_cycles})"
            ),
        ));
    }
    let expected_stage = protocol
        .stages
        .iter()
        .position(|s| cycles < s.until)
        .unwrap_or(protocol.stages.len() - 1)
        + 1;
    if stage != expected_stage as u64 {
        return Err(invalid(
            "stage",
            format!(
                "cycle {} belongs to stage {expected_stage}, not {stage}",
                cycles + 1
            ),
        ));
    }
    let shown: Position = f.take("shown")?;
    if shown.cycle > learner_cycles || shown.pattern.is_some_and(|k| k >= dataset.patterns().len())
    {
        return Err(invalid(
            "shown",
            "a position after the learner's, or a pattern the run does not have",
        ));
    }
    let activations: Vec<f64> = f.take("activations")?;
    if activations.len() != dataset.units() || !activations.iter().all(|q| (0.0..=1.0).contains(q))
    {
        return Err(invalid(
            "activations",
            format!(
                "need {} values in [0, 1], one per unit, got {}",
                dataset.units(),
                activations.len()
            ),
        ));
    }
    let curves = read_curves(f.object("curves")?, cycles)?;
    let estimate = match f.optional_object("estimate")? {
        None => None,
        Some(mut e) => {
            let network = read_network(e.value("estimate.network")?, "estimate.network")?;
            check_network("estimate.network", &network, &dataset, &protocol)?;
            let chunks: f64 = e.take("estimate.chunks")?;
            let parts = KlEstimateState {
                network,
                temperature: e.take("estimate.temperature")?,
                seed: e.take("estimate.seed")?,
                chunks: whole_in("estimate.chunks", chunks, 2, 1_000_000)? as usize,
                cycle: e.count("estimate.cycle")?,
                chunk_log_z: e.take("estimate.chunk_log_z")?,
            };
            e.finish("estimate")?;
            if parts.cycle > cycles {
                return Err(invalid("estimate.cycle", "after the run's cycles"));
            }
            Some(parts)
        }
    };
    let estimate_started: Option<u64> = f.take("estimate_started")?;
    if estimate_started.is_some_and(|c| c > cycles) {
        return Err(invalid("estimate_started", "after the run's cycles"));
    }
    let explore = match f.optional_object("explore")? {
        None => None,
        Some(mut e) => {
            let pattern: Option<usize> = e.take("explore.pattern")?;
            let sampler = read_sampler(e.object("explore.sampler")?, "explore.sampler")?;
            e.finish("explore")?;
            Some((sampler, pattern))
        }
    };
    f.finish("session")?;
    Ok(SessionParts {
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
    })
}

// The run taken apart into its session's parts and built back from them.
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
