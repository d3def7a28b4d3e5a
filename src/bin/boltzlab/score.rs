//! `boltzlab score --run FILE …`: a run the page saved ("Save the run to a file", a
//! `.bzmn` file: [`boltzlab::app::rbm::mnist::MnistLab::save`]) scored natively.
//!
//! First the page's own point for the run, by the same code as the page's second worker
//! ([`MnistLikelihood`]), so the same numbers: without labels, mean ln p(v) of the first
//! 1000 training and test images, ln Z exact up to 25 hidden units and else by AIS with
//! the page's runs, schedule and seed (with labels, the label summed out), and with labels
//! the test error on every test image.
//! Then the run measured as a paper would: the mean test ln p(v) of all the test images,
//! ln Z exact up to 25 hidden units, else by AIS from the training images' base rates
//! (Salakhutdinov & Murray's schedule and 100 runs by default); with labels the label is
//! summed out, ln p(v) = ln Σ_y e^{−F(v, y)} − ln Z with ln Z over images and labels
//! (exactly as Σ_y e^{c_y} Z_y, or by AIS with the label group), and the confusion matrix
//! is added.

use crate::args::Args;
use crate::images;
use crate::learn_labels::{classification_json, print_confusion};
use crate::reproduce_sm2008::base_rate;
use boltzlab::ParamError;
use boltzlab::app::rbm::Training;
use boltzlab::app::rbm::mnist::{LABELS, MnistCommand, MnistLab, MnistLikelihood};
use boltzlab::learn::rbm::exact::{
    MAX_EXACT_LAYER, log_z_threads, log_z_with_label_group, mean_free_energy,
};
use boltzlab::learn::rbm::{AisRuns, AisSchedule, LabelledRbm, Rbm, classify_set};
use serde_json::{Value, json};
use std::time::Instant;

/// The run in `bytes` (from the file `file`) restored on the MNIST file `data` (from
/// `data_file`), both checked by the engine's validating readers; errors name the file.
fn restore(data: &[u8], data_file: &str, bytes: Vec<u8>, file: &str) -> Result<MnistLab, String> {
    let mut lab =
        MnistLab::from_file(data, 1, 1, None, false).map_err(|e| format!("{data_file}: {e}"))?;
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
    let mut values = json!({
        "train_log_likelihood": nan_to_null(point.train),
        "test_log_likelihood": nan_to_null(point.test),
        "stderr": nan_to_null(point.stderr),
        "exact": exact,
    });
    if labelled {
        values["test_error"] = json!(scorer.curve(4)[0]);
        values["test_error_stderr"] = json!(scorer.curve(5)[0]);
    }
    Ok(values)
}

/// ln Z of `rbm` (its last `labels` visible units a one-of-K label group, 0 for none):
/// exact up to [`MAX_EXACT_LAYER`] hidden units (for a label group as Σ_y e^{c_y} Z_y),
/// else AIS from the logits `base` on `schedule` with `runs` runs seeded by `seed`, on
/// `threads` threads. (ln Z, stderr, exact, effective runs). `reproduce salakhutdinov2008`
/// scores its machines with it too.
pub(crate) fn log_partition(
    rbm: &Rbm,
    labels: usize,
    base: &[f64],
    schedule: &AisSchedule,
    runs: u64,
    seed: u64,
    threads: usize,
) -> Result<(f64, f64, bool, Option<f64>), ParamError> {
    if rbm.hidden() <= MAX_EXACT_LAYER {
        let log_z = if labels > 0 {
            log_z_with_label_group(rbm, labels, threads)?
        } else {
            log_z_threads(rbm, threads)?
        };
        return Ok((log_z, 0.0, true, None));
    }
    let mut ais = AisRuns::new(rbm, base, schedule, runs, seed)?;
    if labels > 0 {
        ais = ais.with_label_group(labels)?;
    }
    let mut ais = ais.with_threads(threads);
    ais.advance(rbm, u64::MAX);
    let e = ais.estimate().expect("every run is done");
    Ok((e.log_z, e.stderr, false, Some(e.effective_runs)))
}

/// Checks, before any training, that [`log_partition`] would take a machine of `visible` ×
/// `hidden` units with these AIS settings: the same refusals (runs, runs × steps, the base),
/// with no work done.
pub(crate) fn check_log_partition(
    visible: usize,
    hidden: usize,
    base: &[f64],
    schedule: &AisSchedule,
    runs: u64,
) -> Result<(), ParamError> {
    if hidden > MAX_EXACT_LAYER {
        AisRuns::new(&Rbm::zeros(visible, hidden)?, base, schedule, runs, 0)?;
    }
    Ok(())
}

/// The AIS base: the logits of the authors' base rates of the training images
/// ([`base_rate`]) and, with labels, ln of the labels' smoothed frequencies (whose softmax
/// is those frequencies).
fn base_logits(train: &[Vec<u8>], labels: Option<&[u8]>) -> Vec<f64> {
    let mut base: Vec<f64> = base_rate(train)
        .iter()
        .map(|&p| libm::log(p / (1.0 - p)))
        .collect();
    if let Some(labels) = labels {
        let n = labels.len() as f64;
        base.extend((0..LABELS).map(|k| {
            let count = labels.iter().filter(|&&y| usize::from(y) == k).count() as f64;
            libm::log((count + 0.05 * n / LABELS as f64) / (1.05 * n))
        }));
    }
    base
}

/// Mean ln p(v) = mean −F(v) − ln Z over `images`; with labels F(v) = −ln Σ_y e^{−F(v, y)}.
fn mean_log_likelihood(
    rbm: &Rbm,
    labels: usize,
    log_z: f64,
    images: &[Vec<u8>],
) -> Result<f64, String> {
    if labels == 0 {
        return Ok(-mean_free_energy(rbm, images).map_err(|e| e.to_string())? - log_z);
    }
    let machine = LabelledRbm::new(rbm.clone(), labels).map_err(|e| e.to_string())?;
    let mut scratch = vec![0.0; rbm.hidden()];
    let mut f = vec![0.0; labels];
    let total: f64 = images
        .iter()
        .map(|v| -machine.summed_free_energy_with(v, &mut scratch, &mut f))
        .sum();
    Ok(total / images.len() as f64 - log_z)
}

fn training_json(t: &Training) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

/// `boltzlab score --run FILE [--data FILE] [--ais-schedule paper|page|fine] [--ais-runs M]
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
    let names = AisSchedule::NAMED.map(|(name, _)| name);
    let schedule_name = args.choice("ais-schedule", &names)?;
    let schedule = AisSchedule::named(&schedule_name).unwrap_or(AisSchedule::SALAKHUTDINOV_MURRAY);
    let runs = args.count("ais-runs", 100, 2, 1_000_000)?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let threads = args.count("threads", cores.min(64), 1, 64)? as usize;

    let clock = Instant::now();
    let lab = restore(&data, &data_path.display().to_string(), bytes, file)?;
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
    let parsed = lab.data();
    let rbm = machine(&lab)?;
    let train = parsed.train.vectors(parsed.train.len());
    let test = parsed.test.vectors(parsed.test.len());
    let group = if labelled { LABELS } else { 0 };
    let base = base_logits(&train, labelled.then(|| parsed.train.labels()).flatten());
    let (log_z, stderr, exact, effective) =
        log_partition(&rbm, group, &base, &schedule, runs, seed, threads)
            .map_err(|e| e.to_string())?;
    let log_likelihood = mean_log_likelihood(&rbm, group, log_z, &test)?;
    let mut result = json!({
        "images": test.len(),
        "test_log_likelihood": log_likelihood,
        "stderr": stderr,
        "exact": exact,
        "log_z": log_z,
        "ais_schedule": if exact { Value::Null } else { json!(schedule_name) },
        "ais_runs": if exact { Value::Null } else { json!(runs) },
        "ais_effective_runs": effective,
    });
    let mut classification = None;
    if labelled {
        let labels = parsed
            .test
            .labels()
            .ok_or("the MNIST file has no test labels")?;
        let machine = LabelledRbm::new(rbm, LABELS).map_err(|e| e.to_string())?;
        let c = classify_set(&machine, &test, labels, threads).map_err(|e| e.to_string())?;
        for (key, value) in classification_json(&c).as_object().expect("an object") {
            result[key] = value.clone();
        }
        classification = Some(c);
    }
    report["test"] = result;
    report["seconds"] = json!(clock.elapsed().as_secs_f64());
    if args.flag("json") {
        println!("{report}");
        return Ok(());
    }
    print_header(&report);
    println!(
        "all {} test images: ln p(v) {:.3} nats ± {:.3} ({}), ln Z {:.3}",
        test.len(),
        log_likelihood,
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
    if let Some(c) = classification {
        print_confusion(&c);
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
    }
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
