//! `boltzlab learn --machine full …` and the general machine's rows of `boltzlab reproduce
//! statistics`: the stochastic machine on a problem of `learn::Problem` with a chosen way
//! of getting the statistics (`learn::statistics`), scored by the exact NLL per training
//! pattern.

use crate::args::Args;
use boltzlab::learn::encoder::{sampled_codes, summarize};
use boltzlab::learn::experiment::{KL_REPORT_UNITS, LearningMethod, Protocol, run as run_protocol};
use boltzlab::learn::likelihood::mean_log_likelihood;
use boltzlab::learn::statistics::STATISTICS_NAMES;
use boltzlab::learn::{
    Dataset, GeneralStatistics, Learner, LearningOptions, Problem, StochasticLearner, Update,
};
use boltzlab::{Network, ParamError, SpinKind};
use serde_json::{Value, json};
use std::time::Instant;

/// The problems the general machine learns here (all small enough for the exact NLL).
const DATASETS: &[&str] = &[
    "pixels-10",
    "4-2-4",
    "4-3-4",
    "8-3-8",
    "bars-3x3",
    "bars-4x4",
];

/// Options of `learn --machine rbm` that the general machine does not take.
const RBM_ONLY: &[&str] = &["batch", "decay", "every", "weight-decay"];

/// One run of the general machine: the problem, its dataset (with any added hidden
/// units), the options and the number of learning cycles.
pub struct FullRun {
    pub problem: Problem,
    pub dataset: Dataset,
    pub options: LearningOptions,
    pub cycles: u64,
}

impl FullRun {
    /// The problem's standard stochastic protocol ([`Protocol::standard`]) with
    /// `statistics`, `seed` and `cycles` cycles; `hidden` adds hidden units to a problem
    /// without a wiring (pixels, bars), fully connected.
    pub fn new(
        problem: Problem,
        hidden: Option<usize>,
        statistics: GeneralStatistics,
        seed: u64,
        cycles: Option<u64>,
    ) -> Result<FullRun, ParamError> {
        let protocol = Protocol::standard(problem, LearningMethod::Stochastic);
        let mut dataset = problem.dataset();
        if let Some(h) = hidden.filter(|&h| h != dataset.hidden()) {
            if dataset.mask().is_some() {
                return Err(ParamError::Invalid {
                    field: "hidden",
                    reason: format!(
                        "{} has {} hidden units by its wiring",
                        problem.name(),
                        dataset.hidden()
                    ),
                });
            }
            dataset = Dataset::custom(dataset.visible(), h, dataset.patterns().to_vec())?;
        }
        if dataset.units() > KL_REPORT_UNITS {
            return Err(ParamError::OutOfRange {
                field: "hidden",
                value: dataset.hidden() as f64,
                min: 0.0,
                max: (KL_REPORT_UNITS - dataset.visible()) as f64,
            });
        }
        let mut options = protocol.options.clone();
        options.statistics = statistics;
        options.seed = seed;
        Ok(FullRun {
            problem,
            dataset,
            options,
            cycles: cycles.unwrap_or(protocol.max_cycles),
        })
    }
}

/// −(1/N) Σ ln p(v⁽ᵈ⁾) of the training vectors, exact by enumeration.
fn nll(network: &Network, temperature: f64, patterns: &[Vec<u8>]) -> Result<f64, ParamError> {
    Ok(-mean_log_likelihood(network, temperature, patterns)?)
}

/// The common part of a row of `reproduce statistics`.
fn row(run: &FullRun, nll: f64, cycles: u64, seconds: f64) -> Value {
    let s = run.options.statistics;
    let (rule, size) = match run.options.update {
        Update::Gradient { rate } => ("gradient", rate),
        Update::Sign { step } => ("sign", step),
    };
    let (name, particles, sweeps, replicas) = describe(s);
    json!({
        "problem": run.problem.name(),
        "machine": "full",
        "hidden": run.dataset.hidden(),
        "statistics": name,
        "particles": particles,
        "gibbs_steps": sweeps,
        "replicas": replicas,
        "train_nll_per_pattern": nll,
        "test_log_likelihood": null,
        "exact": true,
        "updates": cycles,
        "seconds": seconds,
        "rule": rule,
        "rate": size,
        "momentum": run.options.momentum,
        "temperature": run.options.temperature(),
        "seed": run.options.seed,
    })
}

/// A way's name, particles (null if none), sweeps per chain (null for `anneal`) and
/// replicas per particle (null unless tempering).
fn describe(s: GeneralStatistics) -> (String, Value, Value, Value) {
    use boltzlab::learn::{ClampedStatistics, FreeStatistics};
    let sweeps = match (s.free, s.clamped) {
        (FreeStatistics::Persistent { sweeps, .. }, _) => json!(sweeps),
        (_, ClampedStatistics::WarmStarted { sweeps }) => json!(sweeps),
        _ => Value::Null,
    };
    let particles = match s.particles() {
        0 => Value::Null,
        k => json!(k),
    };
    let replicas = match s.replicas() {
        0 | 1 => Value::Null,
        r => json!(r),
    };
    (s.name(), particles, sweeps, replicas)
}

/// Trains for `run.cycles` cycles from zero weights; the row and the trained network.
/// Encoders also get `solved` (every input its own code, by the paper's test).
pub fn train(run: &FullRun) -> Result<(Value, Network), ParamError> {
    let network = run.dataset.network(SpinKind::Binary);
    let patterns = run.dataset.patterns();
    let clock = Instant::now();
    let mut learner = StochasticLearner::new(network, patterns, run.options.clone())?;
    for _ in 0..run.cycles {
        learner.cycle()?;
    }
    let seconds = clock.elapsed().as_secs_f64();
    let t = run.options.temperature();
    let trained = learner.network().clone();
    let mut v = row(run, nll(&trained, t, patterns)?, run.cycles, seconds);
    if let Some(e) = run.dataset.encoder() {
        let codes = sampled_codes(&trained, e, &run.options.settling, 10, run.options.seed)?;
        v["solved"] = json!(summarize(&codes).solved(e.group));
    }
    Ok((v, trained))
}

/// The entropy −Σ_v p_data(v) ln p_data(v) of the training vectors, in nats.
fn data_entropy(patterns: &[Vec<u8>]) -> f64 {
    let mut sorted = patterns.to_vec();
    sorted.sort();
    let n = patterns.len() as f64;
    let mut h = 0.0;
    let mut i = 0;
    while i < sorted.len() {
        let j = i + sorted[i..].iter().take_while(|p| **p == sorted[i]).count();
        let p = (j - i) as f64 / n;
        h -= p * libm::log(p);
        i = j;
    }
    h
}

/// An encoder run by the paper's protocol (`learn::experiment::run`: it stops once
/// solved, at most `run.cycles` cycles): the row with `solved_at`, its NLL from the final
/// exact KL, NLL = KL(data ‖ model) + H(data).
pub fn encoder_row(run: &FullRun) -> Result<Value, ParamError> {
    let mut protocol = Protocol::standard(run.problem, LearningMethod::Stochastic);
    protocol.options = run.options.clone();
    protocol.max_cycles = run.cycles;
    let clock = Instant::now();
    let outcome = run_protocol(&protocol, run.options.seed, |_| {})?;
    let seconds = clock.elapsed().as_secs_f64();
    let kl = outcome.final_kl.unwrap_or(f64::NAN);
    let mut v = row(
        run,
        kl + data_entropy(run.dataset.patterns()),
        outcome.cycles,
        seconds,
    );
    v["solved_at"] = json!(outcome.solved_at);
    Ok(v)
}

/// Engine field → option, for error messages.
const FIELDS: &[(&str, &str)] = &[
    ("hidden", "hidden"),
    ("hidden units", "hidden"),
    ("units", "hidden"),
    ("particles", "particles"),
    ("gibbs steps", "gibbs-steps"),
    ("particles × gibbs steps", "particles"),
    ("particles × gibbs steps × replicas", "particles"),
    ("replicas", "replicas"),
    ("learning rate", "rate"),
    ("momentum", "momentum"),
    ("statistics", "statistics"),
];

/// `boltzlab learn --machine full …`.
pub fn learn(raw: &[String]) -> Result<(), String> {
    let mut valued = vec![
        "machine",
        "dataset",
        "hidden",
        "statistics",
        "particles",
        "gibbs-steps",
        "replicas",
        "rate",
        "momentum",
        "updates",
        "seed",
        "save",
    ];
    valued.extend_from_slice(RBM_ONLY);
    let args = Args::parse(raw, &valued, &["json"])?;
    args.check_save()?;
    if let Some(option) = RBM_ONLY.iter().find(|o| args.has(o)) {
        return Err(format!(
            "--{option} applies to --machine rbm only (the general machine shows every \
             training vector in every cycle)"
        ));
    }
    let problem = Problem::parse(&args.choice("dataset", DATASETS)?).map_err(|e| e.to_string())?;
    let name = args.text("statistics").unwrap_or("anneal");
    if name == "cd" {
        return Err(format!(
            "--statistics {name} needs --machine rbm (a restricted machine); the general \
             machine takes {STATISTICS_NAMES}"
        ));
    }
    let particles = args.count("particles", 20, 0, u64::MAX)?;
    let sweeps = args.count("gibbs-steps", 1, 0, u64::MAX)?;
    let replicas = args.count("replicas", 4, 0, u64::MAX)?;
    if name != "tempering" && args.has("replicas") {
        return Err("--replicas applies to --statistics tempering only".into());
    }
    let statistics = GeneralStatistics::parse(name, particles, sweeps, replicas)
        .map_err(|e| args.engine_error(e, FIELDS))?;
    if statistics == GeneralStatistics::ANNEAL {
        for option in ["particles", "gibbs-steps"] {
            if args.has(option) {
                return Err(format!(
                    "--{option} applies to persistent chains, not --statistics anneal"
                ));
            }
        }
    }
    let hidden = match args.has("hidden") {
        true => Some(args.count("hidden", 0, 0, 64)? as usize),
        false => None,
    };
    let seed = args.count("seed", 1, 0, u64::MAX)?;
    let cycles = match args.has("updates") {
        true => Some(args.count("updates", 1, 1, 10_000_000)?),
        false => None,
    };
    let mut run = FullRun::new(problem, hidden, statistics, seed, cycles)
        .map_err(|e| args.engine_error(e, FIELDS))?;
    if let Some(rate) = args.number("rate") {
        run.options.update = Update::Gradient { rate };
    }
    if let Some(momentum) = args.number("momentum") {
        run.options.momentum = momentum;
    }
    run.options
        .check()
        .map_err(|e| args.engine_error(e, FIELDS))?;
    let (v, network) = train(&run).map_err(|e| args.engine_error(e, FIELDS))?;
    save_and_print(&args, &v, Some(&network), print_row)
}

/// `n noun` with the noun plural unless n = 1: `1 update`, `2 updates`.
pub fn counted(n: u64, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

/// What both machines' `learn` end with: `--save FILE` writes the trained network as the
/// page's network JSON (`network`: made only when --save is given), then the row is printed
/// (`--json`, or as text by `print`).
pub fn save_and_print(
    args: &Args,
    row: &Value,
    network: Option<&Network>,
    print: fn(&Value),
) -> Result<(), String> {
    if let Some(network) = network {
        args.write_save(&network.to_json())?;
    }
    if args.flag("json") {
        println!("{row}");
    } else {
        print(row);
    }
    Ok(())
}

/// A row's gradient step as text: `ε=0.05` (gradient rule) or `sign ±2` (sign rule).
pub fn step_text(row: &Value) -> String {
    let rate = boltzlab::error::number(row["rate"].as_f64().unwrap_or(f64::NAN));
    match row["rule"].as_str() {
        Some("sign") => format!("sign ±{rate}"),
        _ => format!("ε={rate}"),
    }
}

/// A whole-number field of a row as text (`—` if absent), for padding (a JSON value's own
/// `Display` ignores widths).
pub fn field(row: &Value, key: &str) -> String {
    match &row[key] {
        Value::Null => "—".into(),
        v => v.to_string(),
    }
}

/// One row of the table as text.
pub fn print_row(row: &Value) {
    let solved = match (row.get("solved_at"), row.get("solved")) {
        (Some(Value::Null), _) | (None, Some(Value::Bool(false))) => "  not solved".to_string(),
        (Some(at), _) => format!("  solved at {at}"),
        (None, Some(_)) => "  solved".to_string(),
        (None, None) => String::new(),
    };
    let updates = row["updates"].as_u64().unwrap_or(0);
    println!(
        "{:<9} full {:>2} hidden {:<22} K={:<4} k={:<4} R={:<2} {:<9} train NLL {:>7.3}  test LL {:>8}  exact {:>14} {:>6.1} s{solved}",
        row["problem"].as_str().unwrap_or(""),
        field(row, "hidden"),
        row["statistics"].as_str().unwrap_or(""),
        field(row, "particles"),
        field(row, "gibbs_steps"),
        field(row, "replicas"),
        step_text(row),
        row["train_nll_per_pattern"].as_f64().unwrap_or(f64::NAN),
        "—",
        counted(updates, "update"),
        row["seconds"].as_f64().unwrap_or(f64::NAN),
    );
}

/// One row's problem, added hidden units, way, gradient step (None: the protocol's rule)
/// and cycles.
type RowPlan = (Problem, Option<usize>, GeneralStatistics, Option<f64>, u64);

/// The general machine's rows of `reproduce statistics`, one seeded run each (cycles
/// divided by `scale`): pixels-10 with no hidden units and with 4, by annealing (its
/// protocol: ε = 0.5, μ = 0.5) and by persistent chains (ε = 0.05, and once at ε = 0.5 to
/// show the chains' failure at a large rate); the encoders by the paper's protocol (sign
/// rule, stopping when solved) with annealed and with persistent statistics.
pub fn reproduce_rows(
    seed: u64,
    scale: u64,
    each: &mut dyn FnMut(&Value),
) -> Result<Vec<Value>, ParamError> {
    let persistent = GeneralStatistics::persistent(50, 1);
    let mut runs: Vec<RowPlan> = vec![];
    for hidden in [None, Some(4)] {
        runs.push((
            Problem::Pixels10,
            hidden,
            GeneralStatistics::ANNEAL,
            None,
            500,
        ));
        if hidden.is_none() {
            runs.push((Problem::Pixels10, hidden, persistent, Some(0.5), 2000));
        }
        runs.push((Problem::Pixels10, hidden, persistent, Some(0.05), 2000));
        if hidden.is_some() {
            runs.push((
                Problem::Pixels10,
                hidden,
                GeneralStatistics::persistent_free(50, 1),
                Some(0.05),
                2000,
            ));
            runs.push((
                Problem::Pixels10,
                hidden,
                GeneralStatistics::tempering(50, 1, 4),
                Some(0.05),
                2000,
            ));
        }
        runs.push((
            Problem::Pixels10,
            hidden,
            GeneralStatistics::mean_field_persistent(50, 1),
            Some(0.05),
            2000,
        ));
    }
    let chains = GeneralStatistics::persistent(20, 2);
    for problem in [
        Problem::Encoder4x2,
        Problem::Encoder4x3,
        Problem::Encoder8x3,
    ] {
        runs.push((problem, None, GeneralStatistics::ANNEAL, None, 4000));
        runs.push((problem, None, chains, None, 4000));
        runs.push((
            problem,
            None,
            GeneralStatistics::tempering(20, 2, 4),
            None,
            4000,
        ));
        if problem == Problem::Encoder4x2 {
            runs.push((
                problem,
                None,
                GeneralStatistics::mean_field_persistent(20, 2),
                None,
                4000,
            ));
        }
    }
    let mut rows = Vec::new();
    for (problem, hidden, statistics, rate, cycles) in runs {
        let mut run = FullRun::new(
            problem,
            hidden,
            statistics,
            seed,
            Some((cycles / scale).max(1)),
        )?;
        if let Some(rate) = rate {
            run.options.update = Update::Gradient { rate };
        }
        let row = match problem.encoder() {
            Some(_) => encoder_row(&run)?,
            None => train(&run)?.0,
        };
        each(&row);
        rows.push(row);
    }
    Ok(rows)
}
