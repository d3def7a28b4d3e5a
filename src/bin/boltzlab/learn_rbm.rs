//! `boltzlab learn --machine rbm …` and `boltzlab reproduce statistics`: restricted
//! machines trained on bars and stripes, the 8×8 digits, MNIST or an image file the user
//! brings ([`crate::images`]) with a chosen way of getting the statistics, scored by the
//! exact log-likelihood (AIS where the smaller layer is beyond 25 units).

use crate::args::Args;
use crate::images::{self, ImageData};
use crate::learn_full::{counted, field, step_text};
use crate::trainer::Trainer;
use boltzlab::learn::Dataset;
use boltzlab::learn::digits;
use boltzlab::learn::rbm::exact::{log_z, mean_free_energy};
use boltzlab::learn::rbm::{
    AisSchedule, RateSchedule, Rbm, Statistics, TrainingOptions, ais_log_z, base_rate_biases,
};
use boltzlab::{Network, ParamError};
use serde_json::{Value, json};
use std::time::Instant;

/// One training run: the problem, the machine's size and the options.
struct Run {
    problem: String,
    hidden: usize,
    options: TrainingOptions,
    updates: u64,
    /// Exact train NLL every this many updates (0: only at the end).
    every: u64,
    /// The f64 trainer (else the f32 batch trainer on `threads`).
    f64: bool,
    threads: usize,
}

/// The training and test vectors of a built-in `problem`: `bars-4x4` (30 patterns, no
/// test set) or `digits8` (the fixed 1500/297 split).
fn data(problem: &str) -> ImageData {
    let (train, test) = match problem {
        "digits8" => {
            let (train, test) = digits::split();
            (train.images().to_vec(), Some(test.images().to_vec()))
        }
        _ => (Dataset::bars_and_stripes(4, 0).patterns().to_vec(), None),
    };
    ImageData {
        name: problem.to_string(),
        train,
        test,
    }
}

/// ln Z, exact where the smaller layer has at most 25 units, else AIS (page schedule, 100
/// runs, from the data's base rates): (ln Z, exact?).
fn log_partition(m: &Rbm, train: &[Vec<u8>]) -> Result<(f64, bool), ParamError> {
    match log_z(m) {
        Ok(z) => Ok((z, true)),
        Err(_) => {
            let base = base_rate_biases(train, m.visible())?;
            Ok((
                ais_log_z(m, &base, &AisSchedule::PAGE, 100, 1)?.log_z,
                false,
            ))
        }
    }
}

/// Trains as `run` says on `data`; returns the row of `reproduce statistics` and the
/// machine.
fn train(run: &Run, data: &ImageData) -> Result<(Value, Rbm), ParamError> {
    let (train, test) = (&data.train, &data.test);
    let mut start = Rbm::random(train[0].len(), run.hidden, 0.01, run.options.seed)?;
    start.set_base_rate_biases(train)?;
    let clock = Instant::now();
    let mut trainer = Trainer::new(&start, train, run.options, run.threads, run.f64)?;
    let mut curve = Vec::new();
    while trainer.updates() < run.updates {
        let chunk = if run.every == 0 {
            run.updates
        } else {
            run.every
        };
        trainer.run(chunk.min(run.updates - trainer.updates()))?;
        if run.every > 0 {
            let m = trainer.rbm();
            let nll = mean_free_energy(&m, train)? + log_partition(&m, train)?.0;
            curve.push(json!([trainer.updates(), nll]));
        }
    }
    let seconds = clock.elapsed().as_secs_f64();
    let m = trainer.rbm();
    let (z, exact) = log_partition(&m, train)?;
    let test_ll = match test {
        Some(t) => Some(-mean_free_energy(&m, t)? - z),
        None => None,
    };
    let s = run.options.statistics;
    let mut row = json!({
        "problem": run.problem,
        "machine": "rbm",
        "hidden": run.hidden,
        "statistics": s.name(),
        "gibbs_steps": s.steps(),
        "train_nll_per_pattern": mean_free_energy(&m, train)? + z,
        "train_images": train.len(),
        "test_images": test.as_ref().map(Vec::len),
        "test_log_likelihood": test_ll,
        "exact": exact,
        "updates": trainer.updates(),
        "seconds": seconds,
        "rate": run.options.rate,
        "momentum": run.options.momentum,
        "batch": run.options.batch,
        "seed": run.options.seed,
        "trainer": trainer.name(),
        "threads": if run.f64 { 1 } else { run.threads },
    });
    match s {
        Statistics::Persistent { particles, .. } => row["particles"] = json!(particles),
        Statistics::ParallelTempering {
            particles,
            replicas,
            ..
        } => {
            row["particles"] = json!(particles);
            row["replicas"] = json!(replicas);
        }
        Statistics::ContrastiveDivergence { .. } => {}
    }
    if !curve.is_empty() {
        row["curve"] = json!(curve);
    }
    Ok((row, m))
}

/// Engine field → option, for error messages.
const FIELDS: &[(&str, &str)] = &[
    ("hidden", "hidden"),
    ("particles", "particles"),
    ("gibbs steps", "gibbs-steps"),
    ("replicas", "replicas"),
    ("batch", "batch"),
    ("learning rate", "rate"),
    ("momentum", "momentum"),
    ("weight decay", "weight-decay"),
    ("decay updates", "updates"),
    ("particles × gibbs steps", "particles"),
    ("threads", "threads"),
];

/// `boltzlab learn --machine rbm|full …`: `full` goes to [`crate::learn_full::learn`].
pub fn learn(raw: &[String]) -> Result<(), String> {
    let machine = raw
        .iter()
        .position(|a| a == "--machine")
        .and_then(|i| raw.get(i + 1));
    if machine.is_some_and(|m| m == "full") {
        return crate::learn_full::learn(raw);
    }
    let args = Args::parse(
        raw,
        &[
            "machine",
            "dataset",
            "data",
            "train-subset",
            "test-subset",
            "hidden",
            "statistics",
            "particles",
            "gibbs-steps",
            "replicas",
            "batch",
            "rate",
            "momentum",
            "weight-decay",
            "decay",
            "updates",
            "every",
            "seed",
            "save",
            "threads",
        ],
        &["json", "f64"],
    )?;
    args.choice("machine", &["rbm", "full"])?;
    args.check_save()?;
    let statistics_name = args.choice("statistics", &["persistent", "cd", "tempering"])?;
    refuse_unused_chains(&args, &statistics_name)?;
    let data = training_data(&args)?;
    // The 8×8 digits and image files learn in batches of 100 for 15000 updates by default.
    let digits = args.has("data") || dataset(&args)? != "bars-4x4";
    let hidden = args.count("hidden", 16, 0, u64::MAX)? as usize;
    let steps = args.count("gibbs-steps", 1, 0, u64::MAX)? as usize;
    let particles = args.count("particles", 100, 0, u64::MAX)? as usize;
    let replicas = args.count("replicas", 4, 0, u64::MAX)? as usize;
    let statistics = match statistics_name.as_str() {
        "cd" => Statistics::ContrastiveDivergence { steps },
        "tempering" => Statistics::ParallelTempering {
            particles,
            steps,
            replicas,
        },
        _ => Statistics::Persistent { particles, steps },
    };
    let updates = args.count(
        "updates",
        if digits { 15_000 } else { 50_000 },
        1,
        1_000_000_000,
    )?;
    let schedule = match args.choice("decay", &["linear", "none"])?.as_str() {
        "linear" => RateSchedule::LinearDecay { updates },
        _ => RateSchedule::Constant,
    };
    let number = |name: &str, default: f64| args.number(name).unwrap_or(default);
    let options = TrainingOptions {
        statistics,
        // Batches of 100 (or the whole set, if smaller) for the digits and image files.
        batch: args.count(
            "batch",
            if digits {
                100.min(data.train.len() as u64)
            } else {
                30
            },
            0,
            u64::MAX,
        )? as usize,
        rate: number("rate", 0.02),
        schedule,
        momentum: number("momentum", 0.5),
        weight_decay: number("weight-decay", 0.0),
        seed: args.count("seed", 1, 0, u64::MAX)?,
    };
    // MNIST and image files learn with the f32 batch trainer on every core (or --threads K);
    // the built-in bars and digits, and --f64, with the f64 trainer their documented figures
    // come from.
    let f64 = args.flag("f64") || !(args.has("data") || dataset(&args)? == "mnist");
    if f64 && args.has("threads") {
        return Err(format!(
            "--threads applies to the f32 batch trainer only (MNIST and image files, without \
             --f64); {} learns with the f64 trainer on one thread",
            if args.flag("f64") {
                "--f64".to_string()
            } else {
                format!("--dataset {}", data.name)
            }
        ));
    }
    let run = Run {
        problem: data.name.clone(),
        hidden,
        options,
        updates,
        every: args.count("every", 0, 0, 1_000_000_000)?,
        f64,
        threads: crate::learn_labels::threads(&args)?,
    };
    // --save writes the machine as the page's network JSON (with its bipartite mask), which
    // holds at most Network::MAX_UNITS units: a machine too large for it is refused before
    // it learns, not after.
    let units = data.train[0].len() + hidden;
    if args.has("save") && units > Network::MAX_UNITS {
        return Err(format!(
            "--save writes a network of at most {} units, and this machine has {units} ({} \
             and {}); learn without --save, or with fewer hidden units",
            Network::MAX_UNITS,
            counted((units - hidden) as u64, "pixel"),
            counted(hidden as u64, "hidden unit"),
        ));
    }
    let (row, m) = train(&run, &data).map_err(|e| args.engine_error(e, FIELDS))?;
    let network = match args.has("save") {
        true => Some(m.to_network().map_err(|e| e.to_string())?),
        false => None,
    };
    crate::learn_full::save_and_print(&args, &row, network.as_ref(), print_row)
}

/// Refuses --particles under CD-k (no persistent chains) and --replicas unless tempering,
/// as `learn --machine full` does: an option that does not apply is not silently ignored.
pub fn refuse_unused_chains(args: &Args, statistics: &str) -> Result<(), String> {
    if statistics == "cd" && args.has("particles") {
        return Err("--particles applies to persistent chains, not --statistics cd".into());
    }
    if statistics != "tempering" && args.has("replicas") {
        return Err("--replicas applies to --statistics tempering only".into());
    }
    Ok(())
}

/// The data `--dataset` and `--data` choose: a built-in problem (`bars-4x4`, the default,
/// or `digits8`), the shipped MNIST (`--dataset mnist`, or the packed file `--data` names),
/// or the image file `--data` names alone; `--train-subset N` and `--test-subset N` keep
/// the first N images of a file's sets.
fn training_data(args: &Args) -> Result<ImageData, String> {
    let dataset = dataset(args)?;
    let file = args.text("data");
    let from_file = dataset == "mnist" || file.is_some();
    if file.is_some() && args.has("dataset") && dataset != "mnist" {
        return Err(format!(
            "--data goes alone or with --dataset mnist, not with --dataset {dataset}"
        ));
    }
    let subset = |name: &str| -> Result<Option<usize>, String> {
        if !args.has(name) {
            return Ok(None);
        }
        if !from_file {
            return Err(format!(
                "--{name} goes with --dataset mnist or --data FILE, not with --dataset {dataset}"
            ));
        }
        Ok(Some(
            args.count(name, 0, 1, boltzlab::learn::mnist::MAX_IMAGES as u64)? as usize,
        ))
    };
    let (train_subset, test_subset) = (subset("train-subset")?, subset("test-subset")?);
    if !from_file {
        return Ok(data(&dataset));
    }
    let (path, name) = match file {
        Some(f) => (std::path::PathBuf::from(f), f.to_string()),
        None => (images::shipped_mnist(), "mnist".to_string()),
    };
    let data = images::load(&path, name, train_subset, test_subset, dataset == "mnist")?;
    if data.test.is_none() && test_subset.is_some() {
        return Err(no_test_set(&data.name));
    }
    Ok(data)
}

/// The refusal of --test-subset for an image file with no test set (a text image file).
pub fn no_test_set(file: &str) -> String {
    format!(
        "--test-subset applies to a file with a test set only (a packed file); '{file}' has \
         none (a text image file holds training images only)"
    )
}

/// `--dataset`: bars-4x4 (the default), digits8 or mnist.
fn dataset(args: &Args) -> Result<String, String> {
    args.choice("dataset", &["bars-4x4", "digits8", "mnist"])
}

fn print_row(row: &Value) {
    let test = match row["test_log_likelihood"].as_f64() {
        Some(t) => format!("{t:.3}"),
        None => "—".into(),
    };
    // The lowest point of the curve, if any: where CD's NLL turns and rises again.
    let best = row["curve"]
        .as_array()
        .and_then(|curve| {
            curve
                .iter()
                .filter_map(|p| Some((p[0].as_u64()?, p[1].as_f64()?)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
        })
        .map_or(String::new(), |(at, nll)| {
            format!("  (lowest {nll:.3} at {at})")
        });
    println!(
        "{:<9} rbm {:>2} hidden  {:<10} k={:<2} {:<9} train NLL {:>7.3}  test LL {:>8}  {} {:>14} {:>6.1} s{best}",
        row["problem"].as_str().unwrap_or(""),
        field(row, "hidden"),
        row["statistics"].as_str().unwrap_or(""),
        field(row, "gibbs_steps"),
        step_text(row),
        row["train_nll_per_pattern"].as_f64().unwrap_or(f64::NAN),
        test,
        if row["exact"] == json!(true) {
            "exact"
        } else {
            "AIS  "
        },
        counted(row["updates"].as_u64().unwrap_or(0), "update"),
        row["seconds"].as_f64().unwrap_or(f64::NAN),
    );
}

/// `boltzlab reproduce statistics [--json] [--quick]`: one table, every row one seeded
/// run. `--quick` divides every run's updates by 100 (for tests).
pub fn reproduce(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(raw, &["seed"], &["json", "quick"])?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;
    let scale = if args.flag("quick") { 100 } else { 1 };
    let options = |statistics, batch, rate, momentum, schedule| TrainingOptions {
        statistics,
        batch,
        rate,
        schedule,
        momentum,
        weight_decay: 0.0,
        seed,
    };
    let pcd = Statistics::Persistent {
        particles: 100,
        steps: 1,
    };
    let cd = |steps| Statistics::ContrastiveDivergence { steps };
    let linear = |updates: u64| RateSchedule::LinearDecay {
        updates: updates / scale,
    };
    let constant = RateSchedule::Constant;
    let mut runs = vec![
        (
            "bars-4x4",
            16,
            options(cd(1), 30, 0.1, 0.0, constant),
            20_000,
            1_000,
        ),
        (
            "bars-4x4",
            16,
            options(cd(10), 30, 0.1, 0.0, constant),
            20_000,
            2_000,
        ),
        (
            "bars-4x4",
            16,
            options(pcd, 30, 0.02, 0.5, linear(50_000)),
            50_000,
            5_000,
        ),
        (
            "bars-4x4",
            16,
            options(
                Statistics::ParallelTempering {
                    particles: 100,
                    steps: 1,
                    replicas: 4,
                },
                30,
                0.02,
                0.5,
                linear(50_000),
            ),
            50_000,
            5_000,
        ),
    ];
    for hidden in [16, 20] {
        runs.push((
            "digits8",
            hidden,
            options(cd(1), 100, 0.05, 0.5, constant),
            15_000,
            0,
        ));
        runs.push((
            "digits8",
            hidden,
            options(pcd, 100, 0.02, 0.5, linear(15_000)),
            15_000,
            0,
        ));
    }
    let mut rows = Vec::new();
    for (problem, hidden, options, updates, every) in runs {
        let run = Run {
            problem: problem.to_string(),
            hidden,
            options,
            updates: updates / scale,
            every: every / scale,
            f64: true,
            threads: 1,
        };
        let (row, _) = train(&run, &data(problem)).map_err(|e| e.to_string())?;
        if !args.flag("json") {
            print_row(&row);
        }
        rows.push(row);
    }
    let json_only = args.flag("json");
    rows.extend(
        crate::learn_full::reproduce_rows(seed, scale, &mut |row| {
            if !json_only {
                crate::learn_full::print_row(row);
            }
        })
        .map_err(|e| e.to_string())?,
    );
    if args.flag("json") {
        println!("{}", json!({ "rows": rows }));
    }
    Ok(())
}
