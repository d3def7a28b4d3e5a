//! `boltzlab score --run FILE …`: a run the page saved ("Save the run to a file", a
//! `.bzmn` file: [`boltzlab::app::rbm::mnist::MnistLab::save`]) scored natively.
//!
//! First the page's own point for the run, by the same code as the page's second worker
//! ([`MnistLikelihood`]), so the same numbers: without labels, mean ln p(v) of the first
//! 1000 training and test images, ln Z exact up to 25 hidden units and else by AIS with
//! the page's runs, schedule and seed; with labels, the test error on every test image.
//! Then the run measured as a paper would: without labels, the mean test ln p(v) of all
//! the test images, ln Z exact up to 25 hidden units, else by AIS from the training
//! images' base rates (Salakhutdinov & Murray's schedule and 100 runs by default); with
//! labels, the confusion matrix.

use crate::args::Args;
use crate::images;
use crate::learn_labels::{classification_json, print_confusion};
use crate::reproduce_sm2008::base_rate;
use boltzlab::app::rbm::Training;
use boltzlab::app::rbm::mnist::{LABELS, MnistCommand, MnistLab, MnistLikelihood};
use boltzlab::learn::mnist;
use boltzlab::learn::rbm::exact::{log_z_threads, mean_free_energy};
use boltzlab::learn::rbm::{AisRuns, AisSchedule, LabelledRbm, Rbm, classify_set};
use serde_json::{Value, json};
use std::time::Instant;

/// Hidden units up to which ln Z is summed exactly (over the hidden states).
const MAX_EXACT_HIDDEN: usize = 25;

/// The run in `bytes` restored on the MNIST file `data` (both checked by the engine's
/// validating readers; errors name the file).
fn restore(data: &[u8], bytes: Vec<u8>, file: &str) -> Result<MnistLab, String> {
    let mut lab = MnistLab::from_file(data, 1, 1, None, false).map_err(|e| e.to_string())?;
    lab.apply(MnistCommand::RestoreRun { bytes })
        .map_err(|e| format!("{file}: {e}"))?;
    Ok(lab)
}

/// The run's machine in f64: W, a, b of [`MnistLab::parameters`] over its visible units
/// (784, or 794 with the label group last).
fn machine(lab: &MnistLab) -> Result<Rbm, String> {
    let nh = lab.hidden();
    let nv = lab.visible() + if lab.labelled() { LABELS } else { 0 };
    let p: Vec<f64> = lab.parameters().iter().map(|&x| f64::from(x)).collect();
    let (w, rest) = p.split_at(nv * nh);
    let (a, b) = rest.split_at(nv);
    Rbm::new(nv, nh, w.to_vec(), a.to_vec(), b.to_vec()).map_err(|e| e.to_string())
}

/// The page's point for the run, by the page's own scorer: JSON fields.
fn page_point(data: &[u8], lab: &MnistLab) -> Result<Value, String> {
    let labelled = lab.labelled();
    let mut scorer = MnistLikelihood::from_file(data, lab.seed()).map_err(|e| e.to_string())?;
    scorer
        .start(lab.hidden(), labelled, &lab.parameters(), lab.updates())
        .map_err(|e| e.to_string())?;
    let exact = scorer.exact().unwrap_or(false);
    let point = loop {
        if let Some(point) = scorer.step(1 << 20).map_err(|e| e.to_string())? {
            break point;
        }
    };
    let nan_to_null = |x: f64| if x.is_finite() { json!(x) } else { Value::Null };
    Ok(if labelled {
        json!({
            "test_error": scorer.curve(4)[0],
            "test_error_stderr": scorer.curve(5)[0],
        })
    } else {
        json!({
            "train_log_likelihood": nan_to_null(point.train),
            "test_log_likelihood": nan_to_null(point.test),
            "stderr": nan_to_null(point.stderr),
            "exact": exact,
        })
    })
}

/// ln Z of `rbm`: exact up to [`MAX_EXACT_HIDDEN`] hidden units, else AIS from the
/// logits `base` on `schedule` with `runs` runs seeded by `seed`. (ln Z, stderr, exact,
/// effective runs).
fn log_partition(
    rbm: &Rbm,
    base: &[f64],
    schedule: &AisSchedule,
    runs: u64,
    seed: u64,
    threads: usize,
) -> Result<(f64, f64, bool, Option<f64>), String> {
    if rbm.hidden() <= MAX_EXACT_HIDDEN {
        let log_z = log_z_threads(rbm, threads).map_err(|e| e.to_string())?;
        return Ok((log_z, 0.0, true, None));
    }
    let mut ais = AisRuns::new(rbm, base, schedule, runs, seed)
        .map_err(|e| e.to_string())?
        .with_threads(threads);
    ais.advance(rbm, u64::MAX);
    let e = ais.estimate().expect("every run is done");
    Ok((e.log_z, e.stderr, false, Some(e.effective_runs)))
}

fn training_json(t: &Training) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

/// `boltzlab score --run FILE [--data FILE] [--ais-schedule paper|page] [--ais-runs M]
/// [--seed S] [--threads K] [--json]`.
pub fn score(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(
        raw,
        &["run", "data", "ais-schedule", "ais-runs", "seed", "threads"],
        &["json"],
    )?;
    let file = args.text("run").ok_or("--run FILE is required")?;
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let data_path = args
        .text("data")
        .map_or_else(images::shipped_mnist, std::path::PathBuf::from);
    let data = std::fs::read(&data_path)
        .map_err(|e| format!("cannot read {}: {e}", data_path.display()))?;
    let schedule = match args.choice("ais-schedule", &["paper", "page"])?.as_str() {
        "page" => AisSchedule::PAGE,
        _ => AisSchedule::SALAKHUTDINOV_MURRAY,
    };
    let runs = args.count("ais-runs", 100, 2, 1_000_000)?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let threads = args.count("threads", cores.min(64), 1, 64)? as usize;

    let clock = Instant::now();
    let lab = restore(&data, bytes, file)?;
    let labelled = lab.labelled();
    let mut report = json!({
        "run": file,
        "hidden": lab.hidden(),
        "labels": labelled,
        "seed": lab.seed(),
        "updates": lab.updates(),
        "training": training_json(&lab.training()),
        "page_point": page_point(&data, &lab)?,
    });
    let parsed = mnist::parse(&data).map_err(|e| e.to_string())?;
    let rbm = machine(&lab)?;
    if labelled {
        let test = parsed.test.vectors(parsed.test.len());
        let labels = parsed
            .test
            .labels()
            .ok_or("the MNIST file has no test labels")?;
        let machine = LabelledRbm::new(rbm, LABELS).map_err(|e| e.to_string())?;
        let c = classify_set(&machine, &test, labels, threads).map_err(|e| e.to_string())?;
        report["test"] = classification_json(&c);
        report["seconds"] = json!(clock.elapsed().as_secs_f64());
        if args.flag("json") {
            println!("{report}");
        } else {
            print_header(&report);
            print_confusion(&c);
        }
        return Ok(());
    }
    let train = parsed.train.vectors(parsed.train.len());
    let test = parsed.test.vectors(parsed.test.len());
    let base: Vec<f64> = base_rate(&train)
        .iter()
        .map(|&p| libm::log(p / (1.0 - p)))
        .collect();
    let (log_z, stderr, exact, effective) =
        log_partition(&rbm, &base, &schedule, runs, seed, threads)?;
    let free_energy = mean_free_energy(&rbm, &test).map_err(|e| e.to_string())?;
    report["test"] = json!({
        "images": test.len(),
        "test_log_likelihood": -free_energy - log_z,
        "stderr": stderr,
        "exact": exact,
        "log_z": log_z,
        "ais_schedule": if exact { Value::Null } else { json!(if schedule == AisSchedule::PAGE { "page" } else { "paper" }) },
        "ais_runs": if exact { Value::Null } else { json!(runs) },
        "ais_effective_runs": effective,
    });
    report["seconds"] = json!(clock.elapsed().as_secs_f64());
    if args.flag("json") {
        println!("{report}");
    } else {
        print_header(&report);
        let t = &report["test"];
        println!(
            "all {} test images: ln p(v) {:.3} nats ± {:.3} ({}), ln Z {:.3}",
            t["images"],
            t["test_log_likelihood"].as_f64().unwrap_or(f64::NAN),
            stderr,
            if exact {
                "ln Z exact".to_string()
            } else {
                format!(
                    "AIS, {runs} runs, {:.1} effective",
                    effective.unwrap_or(f64::NAN)
                )
            },
            log_z
        );
    }
    Ok(())
}

/// The run and the page's point, as text.
fn print_header(report: &Value) {
    println!(
        "{}: a 784-{} machine{} at update {} (seed {})",
        report["run"].as_str().unwrap_or(""),
        report["hidden"],
        if report["labels"] == json!(true) {
            " with labels"
        } else {
            ""
        },
        report["updates"],
        report["seed"]
    );
    let p = &report["page_point"];
    if report["labels"] == json!(true) {
        println!(
            "the page's point: test error {:.2} % ± {:.2} % (all test images)",
            100.0 * p["test_error"].as_f64().unwrap_or(f64::NAN),
            100.0 * p["test_error_stderr"].as_f64().unwrap_or(f64::NAN)
        );
    } else {
        println!(
            "the page's point: ln p(v) train {:.3}, test {:.3} nats ± {:.3} (first 1000 images of each; {})",
            p["train_log_likelihood"].as_f64().unwrap_or(f64::NAN),
            p["test_log_likelihood"].as_f64().unwrap_or(f64::NAN),
            p["stderr"].as_f64().unwrap_or(f64::NAN),
            if p["exact"] == json!(true) {
                "ln Z exact"
            } else {
                "ln Z by the page's AIS"
            }
        );
    }
}
