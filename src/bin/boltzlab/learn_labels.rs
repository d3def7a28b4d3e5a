//! `boltzlab learn --machine rbm --labels …` and `boltzlab classify --model FILE …`: the
//! restricted machine with a one-of-10 label group beside the image
//! ([`boltzlab::learn::rbm::LabelledRbm`]), trained on the joint (image, label) vectors
//! by the f32 batch trainer and scored by its test error, each image classified by
//! argmax_y p(y | v) computed exactly from the ten free energies.

use crate::args::Args;
use crate::images::{self, LabelledData};
use crate::learn_full::{counted, field};
use boltzlab::ParamError;
use boltzlab::learn::digits;
use boltzlab::learn::rbm::labels::starting_machine;
use boltzlab::learn::rbm::{
    Classification, LabelledRbm, LabelledTrainer, RateSchedule, Statistics, TrainingOptions,
    classify_set,
};
use serde_json::{Value, json};
use std::time::Instant;

/// Labels of the digit sets: 0–9.
const LABELS: usize = 10;

/// Training images scored each epoch for the train error: the first 10,000 (all if fewer).
const TRAIN_SCORED: usize = 10_000;

/// Engine field → option, for error messages.
const FIELDS: &[(&str, &str)] = &[
    ("hidden", "hidden"),
    ("particles", "particles"),
    ("gibbs steps", "gibbs-steps"),
    ("batch", "batch"),
    ("learning rate", "rate"),
    ("momentum", "momentum"),
    ("weight decay", "weight-decay"),
    ("threads", "threads"),
    ("particles × gibbs steps", "particles"),
];

/// The labelled sets `--dataset` (mnist, the default, or digits8) or `--data FILE` name,
/// with `--train-subset N` and `--test-subset N` (first N images of a file's sets).
fn labelled_data(args: &Args) -> Result<LabelledData, String> {
    let dataset = args.choice("dataset", &["mnist", "digits8"])?;
    let subset = |name: &str| -> Result<Option<usize>, String> {
        if !args.has(name) {
            return Ok(None);
        }
        Ok(Some(
            args.count(name, 0, 1, boltzlab::learn::mnist::MAX_IMAGES as u64)? as usize,
        ))
    };
    let (train_subset, test_subset) = (subset("train-subset")?, subset("test-subset")?);
    if dataset == "digits8" {
        if args.has("data") {
            return Err(
                "--data goes alone or with --dataset mnist, not with --dataset digits8".into(),
            );
        }
        let (train, test) = digits::split();
        let keep = |images: &[Vec<u8>], labels: &[u8], n: Option<usize>| {
            let n = n.unwrap_or(usize::MAX).min(images.len());
            (images[..n].to_vec(), labels[..n].to_vec())
        };
        return Ok(LabelledData {
            name: dataset,
            train: keep(train.images(), train.labels(), train_subset),
            test: keep(test.images(), test.labels(), test_subset),
        });
    }
    let (path, name) = match args.text("data") {
        Some(f) => (std::path::PathBuf::from(f), f.to_string()),
        None => (images::shipped_mnist(), "mnist".to_string()),
    };
    let data = images::load_labelled(&path, name, train_subset, test_subset, !args.has("data"))?;
    if data.test.0.is_empty() && test_subset.is_some() {
        return Err(crate::learn_rbm::no_test_set(&data.name));
    }
    Ok(data)
}

/// The threads option: 1 ≤ K ≤ 64, default the machine's cores.
pub fn threads(args: &Args) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    Ok(args.count("threads", cores.min(64), 1, 64)? as usize)
}

/// A classification as JSON fields: error, errors, images, cross-entropy, confusion rows.
pub(crate) fn classification_json(c: &Classification) -> Value {
    let k = (c.confusion.len() as f64).sqrt() as usize;
    json!({
        "error": c.error_rate(),
        "errors": c.errors,
        "images": c.images,
        "cross_entropy": c.cross_entropy,
        "confusion": c.confusion.chunks(k.max(1)).collect::<Vec<_>>(),
    })
}

/// `boltzlab learn --machine rbm --labels …`.
pub fn learn(raw: &[String]) -> Result<(), String> {
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
            "batch",
            "rate",
            "momentum",
            "final-momentum",
            "momentum-epochs",
            "weight-decay",
            "epochs",
            "seed",
            "threads",
            "save",
        ],
        &["labels", "json"],
    )?;
    args.choice("machine", &["rbm"])?;
    args.check_save()?;
    let statistics_name = args.choice("statistics", &["cd", "persistent"])?;
    crate::learn_rbm::refuse_unused_chains(&args, &statistics_name)?;
    let data = labelled_data(&args)?;
    let (train, train_labels) = &data.train;
    let (test, test_labels) = &data.test;
    let hidden = args.count("hidden", 500, 0, u64::MAX)? as usize;
    let steps = args.count("gibbs-steps", 1, 0, u64::MAX)? as usize;
    let particles = args.count("particles", 100, 0, u64::MAX)? as usize;
    let statistics = match statistics_name.as_str() {
        "persistent" => Statistics::Persistent { particles, steps },
        _ => Statistics::ContrastiveDivergence { steps },
    };
    let epochs = args.count("epochs", 10, 1, 100_000)?;
    let batch = args.count("batch", 100.min(train.len() as u64), 0, u64::MAX)? as usize;
    let number = |name: &str, default: f64| args.number(name).unwrap_or(default);
    let momentum = number("momentum", 0.5);
    let final_momentum = number("final-momentum", 0.9);
    let momentum_epochs = args.count("momentum-epochs", 5, 0, 100_000)?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;
    let threads = threads(&args)?;
    let options = TrainingOptions {
        statistics,
        batch,
        rate: number("rate", 0.05),
        schedule: RateSchedule::Constant,
        momentum,
        weight_decay: number("weight-decay", 0.0),
        seed,
    };
    let engine = |e: ParamError| args.engine_error(e, FIELDS);
    // A momentum out of range is refused before any work, with the option named.
    TrainingOptions {
        momentum: final_momentum,
        ..options
    }
    .check(
        train.len().max(1),
        train.first().map_or(1, Vec::len) + LABELS,
        hidden.max(1),
    )
    .map_err(|e| match e.field() {
        "momentum" => args.refused("final-momentum", e),
        _ => engine(e),
    })?;
    let start =
        starting_machine(train, train_labels, LABELS, hidden, 0.01, seed).map_err(engine)?;
    let mut trainer =
        LabelledTrainer::new(&start, train, train_labels, options, threads).map_err(engine)?;
    let per_epoch = train.len().div_ceil(batch.max(1)) as u64;
    let scored = TRAIN_SCORED.min(train.len());
    let clock = Instant::now();
    let mut training_seconds = 0.0;
    let mut rows = Vec::new();
    let mut last = None;
    for epoch in 1..=epochs {
        if epoch == momentum_epochs + 1 {
            trainer
                .batch_trainer_mut()
                .set_momentum(final_momentum)
                .map_err(|e| args.refused("final-momentum", e))?;
        }
        let started = Instant::now();
        trainer.run(per_epoch).map_err(engine)?;
        training_seconds += started.elapsed().as_secs_f64();
        let machine = trainer.machine();
        let on_train = classify_set(&machine, &train[..scored], &train_labels[..scored], threads)
            .map_err(engine)?;
        let on_test = if test.is_empty() {
            None
        } else {
            Some(classify_set(&machine, test, test_labels, threads).map_err(engine)?)
        };
        let row = json!({
            "epoch": epoch,
            "updates": trainer.updates(),
            "training_seconds": training_seconds,
            "seconds": clock.elapsed().as_secs_f64(),
            "train_error": on_train.error_rate(),
            "test_error": on_test.as_ref().map(Classification::error_rate),
            "test_cross_entropy": on_test.as_ref().map(|c| c.cross_entropy),
        });
        if !args.flag("json") {
            print_epoch(&row);
        }
        rows.push(row);
        last = on_test;
    }
    let machine = trainer.machine();
    args.write_save(&machine.to_json())?;
    let report = json!({
        "problem": data.name,
        "machine": "rbm",
        "labels": LABELS,
        "hidden": hidden,
        "statistics": statistics.name(),
        "gibbs_steps": statistics.steps(),
        "particles": matches!(statistics, Statistics::Persistent { .. }).then_some(particles),
        "batch": batch,
        "rate": options.rate,
        "momentum": momentum,
        "final_momentum": final_momentum,
        "momentum_epochs": momentum_epochs,
        "weight_decay": options.weight_decay,
        "seed": seed,
        "threads": threads,
        "train_images": train.len(),
        "train_images_scored": scored,
        "test_images": test.len(),
        "epochs": rows,
        "test": last.as_ref().map(classification_json),
        "seconds": clock.elapsed().as_secs_f64(),
    });
    if args.flag("json") {
        println!("{report}");
    } else if let Some(c) = &last {
        print_confusion(c);
    }
    Ok(())
}

fn percent(x: &Value) -> String {
    x.as_f64()
        .map_or("—".into(), |e| format!("{:.2} %", 100.0 * e))
}

fn print_epoch(row: &Value) {
    println!(
        "epoch {:>3}  {:>15}  train error {:>8}  test error {:>8}  {:>7.1} s",
        field(row, "epoch"),
        counted(row["updates"].as_u64().unwrap_or(0), "update"),
        percent(&row["train_error"]),
        percent(&row["test_error"]),
        row["seconds"].as_f64().unwrap_or(f64::NAN),
    );
}

/// The test error and the confusion matrix, rows the true label, columns the classified.
pub(crate) fn print_confusion(c: &Classification) {
    println!(
        "test error {:.2} % ({} of {}), cross-entropy {:.4} nats",
        100.0 * c.error_rate(),
        c.errors,
        c.images,
        c.cross_entropy
    );
    let k = (c.confusion.len() as f64).sqrt() as usize;
    println!(
        "true\\classified {}",
        (0..k).map(|y| format!("{y:>6}")).collect::<String>()
    );
    for (t, row) in c.confusion.chunks(k.max(1)).enumerate() {
        println!(
            "{t:>15} {}",
            row.iter().map(|n| format!("{n:>6}")).collect::<String>()
        );
    }
}

/// `boltzlab classify --model FILE [--dataset mnist|digits8] [--data FILE]
/// [--test-subset N] [--threads K] [--json]`: the saved labelled machine's test error and
/// confusion on the data's test set.
pub fn classify(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(
        raw,
        &["model", "dataset", "data", "test-subset", "threads"],
        &["json"],
    )?;
    let file = args.text("model").ok_or("--model FILE is required")?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let machine = LabelledRbm::from_json(&text).map_err(|e| {
        // A network file (learn --machine … --save without --labels) is the likely mix-up.
        if boltzlab::model::network::Network::from_json(&text).is_ok() {
            format!(
                "{file} is a network file (as learn --machine … --save writes, for logz); \
                 classify takes a labelled machine, saved by learn --machine rbm --labels --save"
            )
        } else {
            format!("{file}: {e}")
        }
    })?;
    let threads = threads(&args)?;
    let data = labelled_data(&args)?;
    let (test, labels) = &data.test;
    if test.is_empty() {
        return Err(format!("{}: no test set to classify", data.name));
    }
    if machine.pixels() != test[0].len() || machine.labels() != LABELS {
        return Err(format!(
            "{file}: a machine of {} pixels and {} labels cannot classify {} images of {} pixels with labels 0–9",
            machine.pixels(),
            machine.labels(),
            data.name,
            test[0].len()
        ));
    }
    let clock = Instant::now();
    let c = classify_set(&machine, test, labels, threads).map_err(|e| e.to_string())?;
    if args.flag("json") {
        let mut report = classification_json(&c);
        report["model"] = json!(file);
        report["problem"] = json!(data.name);
        report["hidden"] = json!(machine.hidden());
        report["seconds"] = json!(clock.elapsed().as_secs_f64());
        println!("{report}");
    } else {
        print_confusion(&c);
    }
    Ok(())
}
