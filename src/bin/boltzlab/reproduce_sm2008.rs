//! `boltzlab reproduce salakhutdinov2008`: the restricted machines of Salakhutdinov &
//! Murray (2008, Table 1) trained on MNIST by CD1, CD3 and CD25 with 25 hidden units (ln Z
//! exact) and 500 (ln Z by AIS with the paper's schedule), beside persistent chains and
//! parallel tempering at CD1's number of updates. The protocol and the measured table are
//! in docs/salakhutdinov2008.md.

use crate::args::Args;
use crate::images;
use crate::trainer::Trainer;
use boltzlab::ParamError;
use boltzlab::learn::rbm::exact::mean_free_energy;
use boltzlab::learn::rbm::{
    AisSchedule, BatchTrainer, RateSchedule, Rbm, Statistics, TrainingOptions,
};
use serde_json::{Value, json};
use std::time::Instant;

/// The training protocol of the authors' code (rbm.m): ε = 0.05 for weights and biases.
const RATE: f64 = 0.05;
/// Weight cost 0.0002, on the weights only, inside the momentum update.
const WEIGHT_COST: f64 = 0.0002;
/// Momentum 0.5 for the first [`EARLY_EPOCHS`] epochs, then 0.9.
const EARLY_MOMENTUM: f64 = 0.5;
const LATE_MOMENTUM: f64 = 0.9;
const EARLY_EPOCHS: u64 = 5;
/// Mini-batches of 100: 600 updates per epoch on the 60 000 training images.
const BATCH: usize = 100;
/// Initial weights 0.01·N(0, 1), biases 0.
const WEIGHT_SCALE: f64 = 0.01;
/// Epochs by default. The paper's count is not confirmed (docs/salakhutdinov2008.md); a
/// whole run at this count takes the time measured there.
const DEFAULT_EPOCHS: u64 = 10;
/// `--quick`: epochs, training and test images, AIS runs (on the page's 1450-step
/// schedule): a smoke run, not the paper's protocol.
const QUICK_EPOCHS: u64 = 5;
/// `--quick`: hidden units of the exactly scored rows (2^20 states instead of 2^25, 32
/// times less work for ln Z).
const QUICK_SMALL: u64 = 20;
const QUICK_TRAIN: usize = 2000;
const QUICK_TEST: usize = 1000;
const QUICK_AIS_RUNS: u64 = 20;
/// AIS runs of the paper (demo_rbm.m: numruns = 100).
const AIS_RUNS: u64 = 100;
/// Persistent particles and tempered replicas of the rows beside the paper's.
const PARTICLES: usize = 100;
const REPLICAS: usize = 4;
/// The only Table 1 value confirmed (from a secondary source): CD25(500), nats per image.
const PAPER_CD25_500: f64 = -86.34;

/// How a row gets the free-phase statistics.
#[derive(Clone, Copy)]
enum Method {
    /// CD-k in the f32 batch trainer.
    Cd(usize),
    /// Persistent chains (PCD-1, 100 particles) in the f32 batch trainer.
    Persistent,
    /// Parallel tempering (100 particles × 4 replicas, k = 1) in the f32 batch trainer.
    Tempering,
}

impl Method {
    /// The row's statistics, with `cd_steps` as k for CD-k (the others take one step).
    fn statistics(self, cd_steps: usize) -> Statistics {
        match self {
            Method::Cd(_) => Statistics::ContrastiveDivergence { steps: cd_steps },
            Method::Persistent => Statistics::Persistent {
                particles: PARTICLES,
                steps: 1,
            },
            Method::Tempering => Statistics::ParallelTempering {
                particles: PARTICLES,
                steps: 1,
                replicas: REPLICAS,
            },
        }
    }
}

/// One row of the table: its id for `--rows`, its method, whether it is a large (500)
/// machine, and the paper's value when confirmed.
struct RowSpec {
    id: &'static str,
    method: Method,
    large: bool,
    paper: Option<f64>,
}

const ROWS: [RowSpec; 8] = [
    RowSpec {
        id: "cd1-25",
        method: Method::Cd(1),
        large: false,
        paper: None,
    },
    RowSpec {
        id: "cd3-25",
        method: Method::Cd(3),
        large: false,
        paper: None,
    },
    RowSpec {
        id: "cd25-25",
        method: Method::Cd(25),
        large: false,
        paper: None,
    },
    RowSpec {
        id: "cd1-500",
        method: Method::Cd(1),
        large: true,
        paper: None,
    },
    RowSpec {
        id: "cd3-500",
        method: Method::Cd(3),
        large: true,
        paper: None,
    },
    RowSpec {
        id: "cd25-500",
        method: Method::Cd(25),
        large: true,
        paper: Some(PAPER_CD25_500),
    },
    RowSpec {
        id: "pcd-500",
        method: Method::Persistent,
        large: true,
        paper: None,
    },
    RowSpec {
        id: "pt-500",
        method: Method::Tempering,
        large: true,
        paper: None,
    },
];

/// Everything a run shares: the data, the sizes and the evaluation.
struct Setup {
    train: Vec<Vec<u8>>,
    test: Vec<Vec<u8>>,
    small: usize,
    large: usize,
    epochs: u64,
    seed: u64,
    threads: usize,
    /// Visible biases of the AIS base-rate model.
    base: Vec<f64>,
    /// ε for weights and biases (the paper's 0.05 unless `--rate`).
    rate: f64,
    /// The AIS schedules each large machine is scored with (the first for the table),
    /// each with its name, and the runs of each.
    ais: Vec<(&'static str, AisSchedule)>,
    ais_runs: u64,
}

impl Setup {
    /// The hidden units of `spec`'s machine: the large size (500) or the small one (25).
    fn hidden(&self, spec: &RowSpec) -> usize {
        if spec.large { self.large } else { self.small }
    }
}

/// The base-rate model of the authors' base_rate.m: p_i = (n_i + 5·batches) /
/// (100·batches + 5·batches) with batches = N/100, i.e. p_i = (n_i + 0.05 N)/(1.05 N)
/// ((n_i + 3000)/63000 on the 60 000 images); returns p.
pub(crate) fn base_rate(train: &[Vec<u8>]) -> Vec<f64> {
    let n = train.len() as f64;
    (0..train[0].len())
        .map(|i| {
            let on = train.iter().filter(|v| v[i] == 1).count() as f64;
            (on + 0.05 * n) / (1.05 * n)
        })
        .collect()
}

/// The base-rate model's exact mean test ln p(v) = (1/N) Σ_d Σ_i [v_i ln p_i + (1 − v_i)
/// ln(1 − p_i)] (independent pixels).
fn base_rate_log_likelihood(p: &[f64], test: &[Vec<u8>]) -> f64 {
    let total: f64 = test
        .iter()
        .map(|v| {
            v.iter()
                .zip(p)
                .map(|(&x, &p)| {
                    if x == 1 {
                        libm::log(p)
                    } else {
                        libm::log(1.0 - p)
                    }
                })
                .sum::<f64>()
        })
        .sum();
    total / test.len() as f64
}

/// The training options of the authors' rbm.m for `statistics` (momentum set per epoch by
/// [`train`]); persistent methods decay ε linearly to 0 over the run, so that the particles catch
/// up with the model (Tieleman & Hinton 2009).
fn options(statistics: Statistics, rate: f64, updates: u64, seed: u64) -> TrainingOptions {
    let schedule = match statistics {
        Statistics::ContrastiveDivergence { .. } => RateSchedule::Constant,
        _ => RateSchedule::LinearDecay { updates },
    };
    TrainingOptions {
        statistics,
        batch: BATCH,
        rate,
        schedule,
        momentum: EARLY_MOMENTUM,
        weight_decay: WEIGHT_COST,
        seed,
    }
}

/// Trains the row's machine with `hidden` units for the run's epochs: momentum 0.5 for
/// five epochs, then 0.9. Returns the machine and the updates made.
fn train(spec: &RowSpec, hidden: usize, setup: &Setup) -> Result<(Rbm, u64), ParamError> {
    let per_epoch = setup.train.len().div_ceil(BATCH) as u64;
    let updates = per_epoch * setup.epochs;
    let early = per_epoch * EARLY_EPOCHS.min(setup.epochs);
    let start = Rbm::random(setup.train[0].len(), hidden, WEIGHT_SCALE, setup.seed)?;
    let cd_steps = match spec.method {
        Method::Cd(k) => k,
        _ => 1,
    };
    let options = options(
        spec.method.statistics(cd_steps),
        setup.rate,
        updates,
        setup.seed,
    );
    let mut trainer = BatchTrainer::new(&start, &setup.train, options, setup.threads)?;
    trainer.run(early)?;
    trainer.set_momentum(LATE_MOMENTUM)?;
    trainer.run(updates - early)?;
    Ok((trainer.rbm(), updates))
}

/// ln Z of `rbm`: exact by enumerating the hidden layer when it has at most 25 units, else
/// AIS from the base-rate model on `schedule` with `setup.ais_runs` runs (by default the
/// paper's schedule and 100 runs; `--quick`: the page's schedule and 20 runs), by
/// [`crate::score::log_partition`]. Returns (ln Z, stderr, exact, effective runs).
fn log_partition(
    rbm: &Rbm,
    setup: &Setup,
    schedule: &AisSchedule,
) -> Result<(f64, f64, bool, Option<f64>), ParamError> {
    crate::score::log_partition(
        rbm,
        0,
        &setup.base,
        schedule,
        setup.ais_runs,
        setup.seed,
        setup.threads,
    )
}

/// The CD steps and rate of epoch `epoch` (1-based) of a CD-`k` row: k and ε as set, or,
/// annealed as in the authors' rbm.m (`anneal_lr = 1`), k_e = min(⌈epoch/10⌉, k) and
/// ε_e = ε/k_e (rbm.m has no cap; here k stops at the row's k).
fn cd_epoch(k: usize, rate: f64, epoch: u64, anneal: bool) -> (usize, f64) {
    if !anneal {
        return (k, rate);
    }
    let steps = (epoch.div_ceil(10) as usize).clamp(1, k);
    (steps, rate / steps as f64)
}

/// The epochs a curve scores: `--checkpoints` (comma-separated, each in 1..=epochs), or
/// 1, 2, 4, 8, … below `epochs`, and `epochs`.
fn checkpoints(list: Option<&str>, epochs: u64) -> Result<Vec<u64>, String> {
    let mut out: Vec<u64> = match list {
        Some(text) => text
            .split(',')
            .map(|t| {
                t.trim()
                    .parse::<u64>()
                    .ok()
                    .filter(|e| (1..=epochs).contains(e))
                    .ok_or_else(|| {
                        format!(
                            "--checkpoints: '{}' is not an epoch from 1 to {epochs} (--epochs)",
                            boltzlab::error::shorten(t)
                        )
                    })
            })
            .collect::<Result<_, _>>()?,
        None => (0..64)
            .map(|p| 1u64 << p)
            .take_while(|&e| e < epochs)
            .chain([epochs])
            .collect(),
    };
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Trains a batch-trainer row epoch by epoch and scores it at each checkpoint with every
/// AIS schedule of the run, handing `emit` one JSON object per checkpoint and schedule.
/// Without `anneal` the machine at epoch E is the one a plain run of E epochs trains (the
/// same seed, the same updates). With `anneal` (CD rows) k and ε change between epochs
/// as in rbm.m (k = ⌈epoch/10⌉, ε/k), and the velocities, chains, generator and batch
/// position go on, as rbm.m keeps them.
fn curve(
    spec: &RowSpec,
    setup: &Setup,
    marks: &[u64],
    anneal: bool,
    f64_trainer: bool,
    emit: &mut dyn FnMut(Value),
) -> Result<(), ParamError> {
    let hidden = setup.hidden(spec);
    let per_epoch = setup.train.len().div_ceil(BATCH) as u64;
    let updates = per_epoch * setup.epochs;
    let rbm = Rbm::random(setup.train[0].len(), hidden, WEIGHT_SCALE, setup.seed)?;
    let mut trainer: Option<(Trainer, usize)> = None;
    let clock = Instant::now();
    let mut train_seconds = 0.0;
    for epoch in 1..=setup.epochs {
        let tick = Instant::now();
        let (steps, rate) = match spec.method {
            Method::Cd(k) => cd_epoch(k, setup.rate, epoch, anneal),
            _ => (1, setup.rate),
        };
        let momentum = if epoch > EARLY_EPOCHS {
            LATE_MOMENTUM
        } else {
            EARLY_MOMENTUM
        };
        match &mut trainer {
            Some((t, k)) => {
                if epoch == EARLY_EPOCHS + 1 {
                    t.set_momentum(LATE_MOMENTUM)?;
                }
                if *k != steps {
                    t.set_cd_steps(steps, rate)?;
                    *k = steps;
                }
            }
            None => {
                let options = TrainingOptions {
                    momentum,
                    ..options(spec.method.statistics(steps), rate, updates, setup.seed)
                };
                let t = Trainer::new(&rbm, &setup.train, options, setup.threads, f64_trainer)?;
                trainer = Some((t, steps));
            }
        }
        let (t, _) = trainer.as_mut().expect("built above");
        t.run(per_epoch)?;
        train_seconds += tick.elapsed().as_secs_f64();
        if !marks.contains(&epoch) {
            continue;
        }
        let machine = t.rbm();
        let free = mean_free_energy(&machine, &setup.test)?;
        for (schedule_name, schedule) in &setup.ais {
            let tick = Instant::now();
            let (log_z, stderr, exact, effective_runs) = log_partition(&machine, setup, schedule)?;
            emit(json!({
                "id": spec.id,
                "name": name(spec.method, hidden),
                "hidden": hidden,
                "epoch": epoch,
                "updates": per_epoch * epoch,
                "cd_steps": matches!(spec.method, Method::Cd(_)).then_some(steps),
                "rate": rate,
                "anneal_k": anneal,
                "trainer": t.name(),
                "test_log_likelihood": -free - log_z,
                "stderr": stderr,
                "exact": exact,
                "log_z": log_z,
                "ais_schedule": if exact { None } else { Some(*schedule_name) },
                "ais_steps": (!exact).then(|| schedule.steps()),
                "ais_runs": (!exact).then_some(setup.ais_runs),
                "ais_effective_runs": effective_runs,
                "paper": if hidden == 500 { spec.paper } else { None },
                "train_seconds": train_seconds,
                "score_seconds": tick.elapsed().as_secs_f64(),
                "seconds": clock.elapsed().as_secs_f64(),
            }));
            if exact {
                break;
            }
        }
    }
    Ok(())
}

/// The row's display name: CD1(25), PCD(500), PT(500), …
fn name(method: Method, hidden: usize) -> String {
    match method {
        Method::Cd(k) => format!("CD{k}({hidden})"),
        Method::Persistent => format!("PCD({hidden})"),
        Method::Tempering => format!("PT({hidden})"),
    }
}

fn statistics_name(method: Method) -> String {
    match method {
        Method::Cd(k) => format!("cd-{k}"),
        Method::Persistent => format!("persistent ({PARTICLES} particles, k = 1)"),
        Method::Tempering => {
            format!("tempering ({PARTICLES} particles × {REPLICAS} replicas, k = 1)")
        }
    }
}

/// Trains and scores one row.
fn row(spec: &RowSpec, setup: &Setup) -> Result<Value, ParamError> {
    let hidden = setup.hidden(spec);
    let clock = Instant::now();
    let (rbm, updates) = train(spec, hidden, setup)?;
    let train_seconds = clock.elapsed().as_secs_f64();
    let (log_z, stderr, exact, effective_runs) = log_partition(&rbm, setup, &setup.ais[0].1)?;
    let test_ll = -mean_free_energy(&rbm, &setup.test)? - log_z;
    let paper_size = hidden == if spec.large { 500 } else { 25 };
    Ok(json!({
        "id": spec.id,
        "name": name(spec.method, hidden),
        "hidden": hidden,
        "statistics": statistics_name(spec.method),
        "epochs": setup.epochs,
        "updates": updates,
        "test_log_likelihood": test_ll,
        "stderr": stderr,
        "exact": exact,
        "log_z": log_z,
        "ais_effective_runs": effective_runs,
        "paper": if paper_size { spec.paper } else { None },
        "train_seconds": train_seconds,
        "seconds": clock.elapsed().as_secs_f64(),
    }))
}

/// The rows `--rows` names (comma-separated ids; all by default), in the table's order.
fn chosen_rows(args: &Args) -> Result<Vec<&'static RowSpec>, String> {
    let Some(list) = args.text("rows") else {
        return Ok(ROWS.iter().collect());
    };
    let ids: Vec<&str> = ROWS.iter().map(|r| r.id).collect();
    let wanted: Vec<String> = list.split(',').map(|s| s.trim().to_lowercase()).collect();
    for w in &wanted {
        if !ids.contains(&w.as_str()) {
            return Err(format!(
                "--rows: unknown row '{}'; known: {}",
                boltzlab::error::shorten(w),
                ids.join(", ")
            ));
        }
    }
    Ok(ROWS
        .iter()
        .filter(|r| wanted.iter().any(|w| w == r.id))
        .collect())
}

fn number(x: &Value) -> f64 {
    x.as_f64().unwrap_or(f64::NAN)
}

/// The human-readable table.
fn print_table(report: &Value) {
    println!(
        "Salakhutdinov & Murray (2008), RBMs on MNIST: {} training and {} test images, {} epochs{}",
        report["train_images"],
        report["test_images"],
        report["epochs"],
        if report["quick"] == true {
            " (--quick: NOT the paper's protocol)"
        } else {
            ""
        }
    );
    println!(
        "base-rate model (independent pixels), exact test ln p(v): {:.2}",
        number(&report["base_rate_test_log_likelihood"])
    );
    println!(
        "{:<10} {:>7} {:>9} {:>13} {:>8} {:>6} {:>8} {:>9}",
        "row", "hidden", "updates", "test ln p(v)", "stderr", "exact", "paper", "seconds"
    );
    for r in report["rows"].as_array().into_iter().flatten() {
        let paper = r["paper"]
            .as_f64()
            .map_or("—".to_string(), |p| format!("{p:.2}"));
        println!(
            "{:<10} {:>7} {:>9} {:>13.2} {:>8.2} {:>6} {:>8} {:>9.1}",
            r["name"].as_str().unwrap_or(""),
            r["hidden"].as_u64().unwrap_or(0),
            r["updates"].as_u64().unwrap_or(0),
            number(&r["test_log_likelihood"]),
            number(&r["stderr"]),
            if r["exact"] == true { "yes" } else { "AIS" },
            paper,
            number(&r["seconds"])
        );
    }
    println!("total {:.1} s", number(&report["seconds"]));
}

/// The AIS schedules named by `--ais-schedule` (comma-separated: `paper`, the paper's
/// 14 500 steps; `page`, the page's 1 450; `fine`, the paper's four times finer, 58 000;
/// [`AisSchedule::NAMED`]): by default `paper`, or `page` with `--quick`.
fn ais_schedules(
    list: Option<&str>,
    quick: bool,
) -> Result<Vec<(&'static str, AisSchedule)>, String> {
    let known = AisSchedule::NAMED;
    let Some(list) = list else {
        return Ok(vec![known[usize::from(quick)]]);
    };
    let mut out = Vec::new();
    for word in list.split(',').map(str::trim) {
        let found = known.iter().find(|(n, _)| *n == word).ok_or_else(|| {
            format!(
                "--ais-schedule: unknown schedule '{}'; known: {}",
                boltzlab::error::shorten(word),
                known.map(|(n, _)| n).join(", ")
            )
        })?;
        if !out.iter().any(|(n, _)| n == &found.0) {
            out.push(*found);
        }
    }
    Ok(out)
}

/// `--curve`: each row's checkpoints, as JSON lines (`--json`) or text lines, printed as
/// they come so that a long run leaves its curve behind even if stopped.
fn print_curve(
    rows: &[&RowSpec],
    setup: &Setup,
    marks: &[u64],
    anneal: bool,
    f64_trainer: bool,
    json_lines: bool,
    refusal: impl Fn(&RowSpec, ParamError) -> String,
) -> Result<(), String> {
    use std::io::Write;
    if !json_lines {
        println!(
            "{:<10} {:>6} {:>4} {:>7} {:>13} {:>7} {:>8} {:>10} {:>8}",
            "row", "epoch", "k", "rate", "test ln p(v)", "stderr", "AIS", "effective", "seconds"
        );
    }
    for spec in rows {
        let mut emit = |v: Value| {
            if json_lines {
                println!("{v}");
            } else {
                println!(
                    "{:<10} {:>6} {:>4} {:>7.4} {:>13.2} {:>7.2} {:>8} {:>10} {:>8.0}",
                    v["name"].as_str().unwrap_or(""),
                    v["epoch"].as_u64().unwrap_or(0),
                    v["cd_steps"].as_u64().map_or("—".into(), |k| k.to_string()),
                    number(&v["rate"]),
                    number(&v["test_log_likelihood"]),
                    number(&v["stderr"]),
                    v["ais_schedule"].as_str().unwrap_or("exact"),
                    // Exact rows have no AIS runs.
                    v["ais_effective_runs"]
                        .as_f64()
                        .map_or("—".into(), |n| format!("{n:.1}")),
                    number(&v["seconds"])
                );
            }
            let _ = std::io::stdout().flush();
        };
        curve(spec, setup, marks, anneal, f64_trainer, &mut emit).map_err(|e| refusal(spec, e))?;
    }
    Ok(())
}

/// `boltzlab reproduce salakhutdinov2008 [--rows …] [--quick] [--threads K] [--epochs E]
/// [--seed S] [--train-subset N] [--test-subset N] [--small H] [--large H] [--rate ε]
/// [--ais-runs M] [--ais-schedule paper,page,fine] [--curve [--checkpoints E1,E2,…]
/// [--anneal-k] [--f64]] [--json]`.
pub fn reproduce(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(
        raw,
        &[
            "rows",
            "threads",
            "epochs",
            "seed",
            "train-subset",
            "test-subset",
            "small",
            "large",
            "rate",
            "ais-runs",
            "ais-schedule",
            "checkpoints",
        ],
        &["quick", "json", "curve", "anneal-k", "f64"],
    )?;
    let quick = args.flag("quick");
    let rows = chosen_rows(&args)?;
    let default_threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let threads = args.count("threads", default_threads.min(64), 1, 64)? as usize;
    let epochs = args.count(
        "epochs",
        if quick { QUICK_EPOCHS } else { DEFAULT_EPOCHS },
        1,
        10_000,
    )?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;
    let max = boltzlab::learn::mnist::MAX_IMAGES as u64;
    let subset = |name: &str, quick_default: usize| -> Result<Option<usize>, String> {
        if args.has(name) {
            Ok(Some(args.count(name, 0, BATCH as u64, max)? as usize))
        } else {
            Ok(quick.then_some(quick_default))
        }
    };
    let train_subset = subset("train-subset", QUICK_TRAIN)?;
    let test_subset = subset("test-subset", QUICK_TEST)?;
    let small = args.count("small", if quick { QUICK_SMALL } else { 25 }, 1, 25)? as usize;
    let large = args.count("large", 500, 1, 2000)? as usize;
    let rate = args.number("rate").unwrap_or(RATE);
    if !(rate > 0.0 && rate <= 1.0) {
        return Err(args.refused("rate", "ε must be a number in (0, 1]"));
    }
    let ais_runs = args.count(
        "ais-runs",
        if quick { QUICK_AIS_RUNS } else { AIS_RUNS },
        2,
        100_000,
    )?;
    let ais = ais_schedules(args.text("ais-schedule"), quick)?;
    let curve_run = args.flag("curve");
    let anneal = args.flag("anneal-k");
    for option in ["checkpoints", "f64"] {
        if (args.has(option) || args.flag(option)) && !curve_run {
            return Err(format!("--{option} needs --curve"));
        }
    }
    if anneal {
        if !curve_run {
            return Err("--anneal-k needs --curve (k changes between epochs)".into());
        }
        if let Some(r) = rows.iter().find(|r| !matches!(r.method, Method::Cd(_))) {
            return Err(format!(
                "--anneal-k raises the CD steps: row {} does not run CD-k",
                r.id
            ));
        }
    }
    let marks = checkpoints(args.text("checkpoints"), epochs)?;

    let data = images::load(
        &images::shipped_mnist(),
        "mnist".into(),
        train_subset,
        test_subset,
        true,
    )?;
    let test = data
        .test
        .ok_or("the packed MNIST file has no test set".to_string())?;
    let p = base_rate(&data.train);
    let setup = Setup {
        base: p.iter().map(|&p| libm::log(p / (1.0 - p))).collect(),
        train: data.train,
        test,
        small,
        large,
        epochs,
        seed,
        threads,
        rate,
        ais,
        ais_runs,
    };
    let names = [
        ("threads", "threads"),
        ("hidden", "large"),
        ("runs × steps", "large"),
        ("rate", "rate"),
    ];
    // A row's refusal, named by the row and the option behind the engine's field.
    let refusal = |spec: &RowSpec, e| {
        format!(
            "row {}: {}",
            spec.id,
            args.engine_error(e, names.as_slice())
        )
    };
    // Every row's scoring is checked before the first is trained: a refused --ais-runs or
    // --large is told at once, not after minutes of training. (A plain run scores on the
    // first schedule only.)
    let scored = if curve_run {
        &setup.ais[..]
    } else {
        &setup.ais[..1]
    };
    for spec in &rows {
        for (_, schedule) in scored {
            crate::score::check_log_partition(
                setup.base.len(),
                setup.hidden(spec),
                &setup.base,
                schedule,
                setup.ais_runs,
            )
            .map_err(|e| refusal(spec, e))?;
        }
    }
    if curve_run {
        return print_curve(
            &rows,
            &setup,
            &marks,
            anneal,
            args.flag("f64"),
            args.flag("json"),
            refusal,
        );
    }
    let base_ll = base_rate_log_likelihood(&p, &setup.test);
    let clock = Instant::now();
    let mut table = Vec::new();
    for spec in rows {
        let value = row(spec, &setup).map_err(|e| refusal(spec, e))?;
        if !args.flag("json") {
            eprintln!(
                "{}: test ln p(v) {:.2} in {:.0} s",
                value["name"].as_str().unwrap_or(""),
                number(&value["test_log_likelihood"]),
                number(&value["seconds"])
            );
        }
        table.push(value);
    }
    let report = json!({
        "paper": "salakhutdinov2008",
        "quick": quick,
        "protocol": format!(
            "{}; AIS: {} runs of {}, base-rate model (n_i + 0.05 N)/(1.05 N)",
            if quick {
                "--quick, not the paper's protocol: by default 5 epochs on subsets and 20 hidden units for the exact rows (the fields say what ran)"
            } else {
                "rbm.m: batch 100, rate 0.05 (unless --rate), weight cost 0.0002, momentum 0.5 then 0.9 after 5 epochs, W ~ 0.01·N(0,1), biases 0"
            },
            ais_runs,
            setup
                .ais
                .iter()
                .map(|(name, schedule)| format!("{} steps ({name})", schedule.steps()))
                .collect::<Vec<_>>()
                .join(" and ")
        ),
        "train_images": setup.train.len(),
        "test_images": setup.test.len(),
        "epochs": epochs,
        "seed": seed,
        "rate": rate,
        "ais_runs": ais_runs,
        "ais_schedule": setup.ais[0].0,
        "threads": threads,
        "base_rate_test_log_likelihood": base_ll,
        "rows": table,
        "seconds": clock.elapsed().as_secs_f64(),
    });
    if args.flag("json") {
        println!("{report}");
    } else {
        print_table(&report);
    }
    Ok(())
}
