//! `boltzlab reproduce ackley1985`: the encoder results of Ackley, Hinton & Sejnowski
//! (1985) beside boltzlab's, run with the paper's protocol, and the mean-field machine
//! (Peterson & Anderson 1987) on the same problems with its speed-up.

use crate::args::Args;
use crate::learn::{Batch, median, run_batch, run_line, summary, threads};
use boltzlab::learn::encoder::TestAnneal;
use boltzlab::learn::experiment::{CodeReading, LearningMethod, Protocol, RunOutcome};
use boltzlab::learn::stochastic::{CollectAt, NoisyCopy, ProbeOrder, Sampling};
use boltzlab::learn::{FreePhase, Problem, Update};
use boltzlab::model::SpinKind;
use serde_json::{Value, json};

/// The paper's result and its number of runs, per encoder (docs/references.md §2).
fn paper(problem: Problem) -> (&'static str, u64) {
    match problem {
        Problem::Encoder4x2 => ("250/250 solved; median 110; longest 1810", 250),
        Problem::Encoder4x3 => ("well-spaced: median 270; longest 1090 (200 runs)", 200),
        Problem::Encoder8x3 => (
            "8 codes 16/20, 7 in the rest; median 210 to 7, 1570 to 8",
            20,
        ),
        Problem::Encoder40x10 => ("accuracy levels off at 98.6 %", 1),
        _ => unreachable!("only encoders are reproduced"),
    }
}

/// Peterson & Anderson's claim for the mean-field machine.
const MEAN_FIELD_CLAIM: &str = "P&A 1987: 10–30× faster, equal or better";

fn show(x: Option<f64>) -> String {
    x.map_or("—".into(), |v| format!("{v}"))
}

/// boltzlab's result in the paper's terms.
fn ours(problem: Problem, batch: &Batch) -> String {
    let n = batch.outcomes.len();
    let solved = batch.solved_cycles();
    match problem {
        Problem::Encoder4x2 => format!(
            "{}/{n} solved; median {}; longest {}",
            solved.len(),
            show(median(&solved)),
            show(solved.last().map(|&c| c as f64))
        ),
        Problem::Encoder4x3 => format!(
            "{}/{n} well-spaced; median {}; longest {}",
            solved.len(),
            show(median(&solved)),
            show(solved.last().map(|&c| c as f64))
        ),
        Problem::Encoder8x3 => {
            let seven = batch.seven_codes_cycles();
            format!(
                "8 codes {}/{n}, ≥ 7 codes {}/{n}; median {} to 7, {} to 8",
                solved.len(),
                seven.len(),
                show(median(&seven)),
                show(median(&solved))
            )
        }
        Problem::Encoder40x10 => {
            let finals: Vec<String> = batch
                .outcomes
                .iter()
                .map(|o: &RunOutcome| match o.accuracy.last() {
                    Some(&(cycle, a)) => {
                        let best = o.accuracy.iter().map(|a| a.1).fold(0.0, f64::max);
                        format!(
                            "{:.1} % at cycle {cycle} (best {:.1} %)",
                            100.0 * a,
                            100.0 * best
                        )
                    }
                    None => format!("no test (stopped at cycle {})", o.cycles),
                })
                .collect();
            format!("accuracy {}", finals.join("; "))
        }
        _ => unreachable!("only encoders are reproduced"),
    }
}

/// The weights reading's result beside the settling one (`--code-reading both`).
fn ours_by_weights(problem: Problem, batch: &Batch) -> String {
    let n = batch.outcomes.len();
    let mut solved: Vec<u64> = batch
        .outcomes
        .iter()
        .filter_map(|o| o.solved_at_by_weights)
        .collect();
    solved.sort_unstable();
    let mut seven: Vec<u64> = batch
        .outcomes
        .iter()
        .filter_map(|o| o.seven_codes_at_by_weights)
        .collect();
    seven.sort_unstable();
    match problem {
        Problem::Encoder8x3 => format!(
            "by weights: 8 codes {}/{n}, ≥ 7 codes {}/{n}; median {} to 7, {} to 8",
            solved.len(),
            seven.len(),
            show(median(&seven)),
            show(median(&solved))
        ),
        _ => format!(
            "by weights: {}/{n} {}; median {}; longest {}",
            solved.len(),
            if problem == Problem::Encoder4x3 {
                "well-spaced"
            } else {
                "solved"
            },
            show(median(&solved)),
            show(solved.last().map(|&c| c as f64))
        ),
    }
}

/// The value given to `--name` (the arguments were already checked by [`Args::parse`]).
fn value_of<'a>(raw: &'a [String], name: &str) -> Option<&'a str> {
    let flag = format!("--{name}");
    raw.windows(2).find(|w| w[0] == flag).map(|w| w[1].as_str())
}

pub fn reproduce(raw: &[String]) -> Result<(), String> {
    match raw.first().map(String::as_str) {
        Some("ackley1985") => {}
        Some("salakhutdinov2008") => return crate::reproduce_sm2008::reproduce(&raw[1..]),
        Some(other) => {
            return Err(format!(
                "unknown paper '{}'; known: ackley1985, salakhutdinov2008, statistics",
                boltzlab::error::shorten(other)
            ));
        }
        None => {
            return Err(
                "reproduce needs a paper: boltzlab reproduce ackley1985|salakhutdinov2008|statistics"
                    .into(),
            );
        }
    }
    let args = Args::parse(
        &raw[1..],
        &[
            "problems",
            "methods",
            "runs",
            "max-cycles",
            "seed",
            "threads",
            "free-phase",
            "settlings",
            "collect",
            "code-reading",
            "test-anneal",
            "mean-field-units",
            "update",
            "probes",
            "collect-at",
            "noisy-copy",
            "statistics",
            "initial-weights",
        ],
        &["json", "verbose"],
    )?;
    let problems: Vec<Problem> = match value_of(raw, "problems") {
        None => vec![
            Problem::Encoder4x2,
            Problem::Encoder4x3,
            Problem::Encoder8x3,
            Problem::Encoder40x10,
        ],
        Some(list) => list
            .split(',')
            .map(|name| {
                let p = Problem::parse(name.trim()).map_err(|e| format!("--problems: {e}"))?;
                p.encoder().map(|_| p).ok_or_else(|| {
                    format!(
                        "--problems takes encoders (4-2-4, 4-3-4, 8-3-8, 40-10-40), got '{name}'"
                    )
                })
            })
            .collect::<Result<_, String>>()?,
    };
    let methods: Vec<LearningMethod> = match value_of(raw, "methods") {
        None => LearningMethod::ALL.to_vec(),
        Some(list) => list
            .split(',')
            .map(|name| LearningMethod::parse(name.trim()).map_err(|e| format!("--methods: {e}")))
            .collect::<Result<_, String>>()?,
    };
    let runs_override = value_of(raw, "runs")
        .map(|_| args.count("runs", 1, 1, 100_000))
        .transpose()?;
    let max_cycles = value_of(raw, "max-cycles")
        .map(|_| args.count("max-cycles", 1, 1, 10_000_000))
        .transpose()?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;
    // An experiment, not the paper's protocol as boltzlab reads it: what stays clamped in
    // the free phase (`nothing`, or `inputs`: V1 clamped, learning p(V2 | V1)).
    let free_phase = match value_of(raw, "free-phase") {
        None => None,
        Some(v @ ("nothing" | "inputs")) => Some(v),
        Some(v) => {
            return Err(format!(
                "--free-phase must be one of nothing, inputs, got '{v}'"
            ));
        }
    };
    // Protocol details the paper leaves open ("readings"), and departures from the paper
    // ("variants", labelled as such in the output).
    let settlings = value_of(raw, "settlings")
        .map(|_| args.count("settlings", 1, 1, 1000))
        .transpose()?;
    let collect = value_of(raw, "collect")
        .map(|_| args.count("collect", 10, 1, 100_000))
        .transpose()?;
    let code_reading = value_of(raw, "code-reading")
        .map(|v| CodeReading::parse(v).map_err(|e| format!("--code-reading: {e}")))
        .transpose()?;
    let test_anneal = value_of(raw, "test-anneal")
        .map(|v| TestAnneal::parse(v).map_err(|e| format!("--test-anneal: {e}")))
        .transpose()?;
    let mean_field_units = match value_of(raw, "mean-field-units") {
        None => None,
        Some("binary") => Some(SpinKind::Binary),
        Some("ising") => Some(SpinKind::Ising),
        Some(v) => {
            return Err(format!(
                "--mean-field-units must be one of binary, ising, got '{}'",
                boltzlab::error::shorten(v)
            ));
        }
    };
    let update = match value_of(raw, "update") {
        None => None,
        Some("sign") => Some(Update::ACKLEY_1985),
        Some(v) => match v.strip_prefix("gradient:").map(str::parse::<f64>) {
            Some(Ok(rate)) if rate.is_finite() && rate > 0.0 && rate <= 100.0 => {
                Some(Update::Gradient { rate })
            }
            _ => {
                return Err(format!(
                    "--update must be sign or gradient:RATE with 0 < RATE ≤ 100, got '{}'",
                    boltzlab::error::shorten(v)
                ));
            }
        },
    };
    // The stochastic machine's sampling details (the paper is silent on all but the
    // randomness of the probes: typewriter order departs from "random probes").
    let mut sampling = Sampling::default();
    if let Some(v) = value_of(raw, "probes") {
        sampling.probes = ProbeOrder::parse(v).map_err(|e| format!("--probes: {e}"))?;
    }
    if let Some(v) = value_of(raw, "collect-at") {
        sampling.collect_at = CollectAt::parse(v).map_err(|e| format!("--collect-at: {e}"))?;
    }
    if let Some(v) = value_of(raw, "noisy-copy") {
        sampling.noisy_copy = NoisyCopy::parse(v).map_err(|e| format!("--noisy-copy: {e}"))?;
    }
    let exact = match value_of(raw, "statistics") {
        None | Some("sampled") => false,
        Some("exact") => true,
        Some(v) => {
            return Err(format!(
                "--statistics must be one of sampled, exact, got '{}'",
                boltzlab::error::shorten(v)
            ));
        }
    };
    let initial_weights = args
        .number("initial-weights")
        .map(|a| {
            boltzlab::error::finite_in("initial weights", a, 0.0, 100.0)
                .map_err(|e| args.refused("initial-weights", e))
        })
        .transpose()?;
    let mut variants: Vec<String> = Vec::new();
    let mut readings: Vec<String> = Vec::new();
    if exact {
        variants.push(
            "--statistics exact (the stochastic machine's statistics by enumeration, not \
             sampled; 4-2-4, 4-3-4, 8-3-8)"
                .to_string(),
        );
    }
    if let Some(a) = initial_weights.filter(|&a| a > 0.0) {
        variants.push(format!(
            "--initial-weights {a} (weights from U[−{a}, {a}]; the paper: 0; P&A: 1)"
        ));
    }
    match value_of(raw, "probes") {
        Some(_) if sampling.probes == ProbeOrder::Typewriter => variants.push(
            "--probes typewriter (the paper: \"n random probes\"; stochastic machine only)"
                .to_string(),
        ),
        Some(_) => readings.push(format!(
            "--probes {} (stochastic machine only)",
            sampling.probes.name()
        )),
        None => {}
    }
    if value_of(raw, "collect-at").is_some() {
        readings.push(format!(
            "--collect-at {} (stochastic machine only)",
            sampling.collect_at.name()
        ));
    }
    if value_of(raw, "noisy-copy").is_some() {
        readings.push(format!(
            "--noisy-copy {} (stochastic machine only)",
            sampling.noisy_copy.name()
        ));
    }
    if let Some(v) = free_phase {
        variants.push(format!("--free-phase {v}"));
    }
    if let Some(c) = collect.filter(|&c| c != 10) {
        variants.push(format!("--collect {c} (the paper: 10 time units)"));
    }
    if let Some(u) = update.filter(|&u| u != Update::ACKLEY_1985) {
        let given = match u {
            Update::Gradient { rate } => format!("gradient:{rate}"),
            Update::Sign { step } => format!("sign (step {step})"),
        };
        variants.push(format!("--update {given} (the paper: sign, step 2)"));
    }
    if mean_field_units == Some(SpinKind::Binary) {
        variants.push("--mean-field-units binary (P&A 1987: ±1 units)".to_string());
    }
    if let Some(r) = code_reading {
        readings.push(format!("--code-reading {}", r.name()));
    }
    if let Some(a) = test_anneal {
        readings.push(format!("--test-anneal {}", a.name()));
    }
    let verbose = args.flag("verbose");
    let json_out = args.flag("json");
    let report = |r: u64, o: &RunOutcome, s: f64| {
        if verbose {
            eprintln!("  {}", run_line(r, o, s));
        }
    };
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    let mut used_threads = 1;
    for &problem in &problems {
        let (paper_result, paper_runs) = paper(problem);
        let runs = runs_override.unwrap_or(paper_runs);
        let threads = threads(&args, runs)?;
        used_threads = used_threads.max(threads);
        let mut stochastic_pace: Option<(f64, f64)> = None;
        for &method in &methods {
            let mut protocol = Protocol::standard(problem, method);
            if let Some(c) = max_cycles {
                protocol.max_cycles = c;
            }
            match free_phase {
                Some("inputs") => {
                    let group = problem
                        .encoder()
                        .expect("only encoders are reproduced")
                        .group;
                    protocol.options.free_phase = FreePhase::Inputs(group);
                }
                Some(_) => protocol.options.free_phase = FreePhase::Nothing,
                None => {}
            }
            if let Some(s) = settlings {
                if s != protocol.options.settlings {
                    let variant = format!(
                        "--settlings {s} for {} (the paper: {})",
                        problem.name(),
                        protocol.options.settlings
                    );
                    if !variants.contains(&variant) {
                        variants.push(variant);
                    }
                }
                protocol.options.settlings = s;
            }
            if let Some(c) = collect {
                protocol.options.settling.collect_sweeps = c;
            }
            if let Some(r) = code_reading {
                protocol.code_reading = r;
            }
            if let Some(a) = test_anneal {
                protocol.test_anneal = a;
            }
            if let Some(u) = update {
                protocol.options.update = u;
            }
            protocol.sampling = sampling;
            protocol.exact_statistics = exact;
            if let Some(a) = initial_weights {
                protocol.initial_weights = a;
            }
            if let (Some(k), LearningMethod::MeanField) = (mean_field_units, method) {
                protocol.kind = k;
            }
            if verbose {
                eprintln!("{} {}: {runs} runs", problem.name(), method.name());
            }
            let batch = run_batch(&protocol, runs, seed, threads, &report)?;
            let per_run = batch.run_seconds_total() / runs as f64;
            let per_cycle = batch.run_seconds_total() / batch.cycles_total().max(1) as f64;
            let mut result = ours(problem, &batch);
            if protocol.code_reading == CodeReading::Both && problem != Problem::Encoder40x10 {
                result.push_str(&format!("; {}", ours_by_weights(problem, &batch)));
            }
            let mut speedup = Value::Null;
            match method {
                LearningMethod::Stochastic => stochastic_pace = Some((per_run, per_cycle)),
                LearningMethod::MeanField => {
                    if let Some((run_s, cycle_s)) = stochastic_pace {
                        result.push_str(&format!(
                            "; {:.1}× faster per run, {:.1}× per cycle",
                            run_s / per_run,
                            cycle_s / per_cycle
                        ));
                        speedup =
                            json!({"per_run": run_s / per_run, "per_cycle": cycle_s / per_cycle});
                    }
                    let nonconverged: u64 = batch.outcomes.iter().map(|o| o.nonconverged).sum();
                    result.push_str(&format!("; {nonconverged} unconverged solves"));
                }
            }
            let paper_text = match method {
                LearningMethod::Stochastic => paper_result,
                LearningMethod::MeanField => MEAN_FIELD_CLAIM,
            };
            lines.push(format!(
                "{:<9} {:<11} {:>5}  {:<58} {}  [{:.4} s/run]",
                problem.name(),
                method.name(),
                runs,
                paper_text,
                result,
                per_run
            ));
            let mut row = summary(&protocol, &batch, seed);
            row["paper"] = json!(paper_text);
            row["ours"] = json!(result);
            row["speedup"] = speedup;
            row["seconds_per_cycle"] = json!(per_cycle);
            row["settlings"] = json!(protocol.options.settlings);
            row["collect"] = json!(protocol.options.settling.collect_sweeps);
            row["code_reading"] = json!(protocol.code_reading);
            row["test_anneal"] = json!(protocol.test_anneal);
            row["update"] = json!(protocol.options.update);
            row["sampling"] = json!(protocol.sampling);
            row["exact_statistics"] = json!(protocol.exact_statistics);
            row["initial_weights"] = json!(protocol.initial_weights);
            row["units"] = json!(match protocol.kind {
                SpinKind::Binary => "binary",
                SpinKind::Ising => "ising",
            });
            row["weights_reading"] = json!(
                batch
                    .outcomes
                    .iter()
                    .map(
                        |o| json!({"seed": o.seed, "solved_at": o.solved_at_by_weights,
                        "seven_codes_at": o.seven_codes_at_by_weights, "codes": o.codes_by_weights})
                    )
                    .collect::<Vec<_>>()
            );
            row["growth"] = json!(
                batch
                    .outcomes
                    .iter()
                    .map(|o| json!({"seed": o.seed, "solved_at": o.solved_at,
                        "seven_codes_at": o.seven_codes_at, "codes": o.codes,
                        "periodic_from": o.periodic_from,
                        "cycle_mean_abs_w_ties": o.growth}))
                    .collect::<Vec<_>>()
            );
            row["free_phase"] = json!(match protocol.options.free_phase {
                FreePhase::Nothing => "nothing",
                FreePhase::Inputs(_) => "inputs",
            });
            if let Some(results) = row.as_object_mut() {
                results.remove("results");
            }
            rows.push(row);
        }
    }
    if json_out {
        println!(
            "{}",
            json!({"paper": "ackley1985", "seed": seed, "free_phase_override": free_phase,
                "variants": variants, "readings": readings, "rows": rows})
        );
        return Ok(());
    }
    for v in &variants {
        println!("VARIANT, not the paper's protocol: {v}");
    }
    for r in &readings {
        println!("reading of a detail the paper does not state: {r}");
    }
    let protocol_text = if variants.is_empty() {
        "the paper's protocol"
    } else {
        "the paper's protocol with the variants above"
    };
    println!(
        "Ackley, Hinton & Sejnowski (1985) beside boltzlab: {protocol_text}, seeds {seed}…, \
         {used_threads} threads"
    );
    println!(
        "{:<9} {:<11} {:>5}  {:<58} boltzlab",
        "problem", "machine", "runs", "paper"
    );
    for line in lines {
        println!("{line}");
    }
    Ok(())
}
