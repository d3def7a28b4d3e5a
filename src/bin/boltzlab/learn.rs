//! `boltzlab learn`: seeded runs of a learning protocol on one problem, summarised.

use crate::args::Args;
use boltzlab::learn::Problem;
use boltzlab::learn::experiment::{LearningMethod, Protocol, RunOutcome, run};
use serde_json::{Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The outcomes of `runs` seeded runs, in seed order, with the time each took.
pub struct Batch {
    pub outcomes: Vec<RunOutcome>,
    /// Seconds per run, measured in the thread that ran it.
    pub run_seconds: Vec<f64>,
    /// Wall-clock seconds for the whole batch.
    pub seconds: f64,
}

impl Batch {
    /// Cycles to solution of the solved runs, sorted.
    pub fn solved_cycles(&self) -> Vec<u64> {
        self.sorted_cycles(|o| o.solved_at)
    }

    /// Cycles to seven distinct codes (8-3-8) of the runs that got there, sorted.
    pub fn seven_codes_cycles(&self) -> Vec<u64> {
        self.sorted_cycles(|o| o.seven_codes_at)
    }

    fn sorted_cycles(&self, at: impl Fn(&RunOutcome) -> Option<u64>) -> Vec<u64> {
        let mut cycles: Vec<u64> = self.outcomes.iter().filter_map(at).collect();
        cycles.sort_unstable();
        cycles
    }

    /// Σ seconds over runs (CPU time spent learning, whatever the number of threads).
    pub fn run_seconds_total(&self) -> f64 {
        self.run_seconds.iter().sum()
    }

    /// Σ cycles over runs.
    pub fn cycles_total(&self) -> u64 {
        self.outcomes.iter().map(|o| o.cycles).sum()
    }
}

/// The median of sorted values (the mean of the middle two for an even count).
pub fn median(sorted: &[u64]) -> Option<f64> {
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2] as f64),
        n => Some((sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0),
    }
}

/// One run's outcome and seconds, or its error.
type RunResult = Result<(RunOutcome, f64), String>;

/// Runs seeds `seed`, `seed + 1`, … (`runs` of them) on up to `threads` threads; each
/// run is fixed by its seed, so the outcomes do not depend on the number of threads.
/// `report` is called (from the worker threads, in completion order) after each run.
pub fn run_batch(
    protocol: &Protocol,
    runs: u64,
    seed: u64,
    threads: usize,
    report: &(dyn Fn(u64, &RunOutcome, f64) + Sync),
) -> Result<Batch, String> {
    if seed.checked_add(runs.saturating_sub(1)).is_none() {
        return Err(format!(
            "--seed {seed} with --runs {runs} would need seeds beyond {} (runs use seeds S, \
             S+1, …, S+N−1)",
            u64::MAX
        ));
    }
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<RunResult>>> = Mutex::new((0..runs).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let r = next.fetch_add(1, Ordering::Relaxed) as u64;
                    if r >= runs {
                        break;
                    }
                    let run_seed = seed + r;
                    let t = Instant::now();
                    let result = run(protocol, run_seed, |_| {})
                        .map(|o| (o, t.elapsed().as_secs_f64()))
                        .map_err(|e| e.to_string());
                    if let Ok((o, s)) = &result {
                        report(r, o, *s);
                    }
                    let failed = result.is_err();
                    results.lock().expect("no worker panics")[r as usize] = Some(result);
                    if failed {
                        break;
                    }
                }
            });
        }
    });
    let mut outcomes = Vec::new();
    let mut run_seconds = Vec::new();
    for result in results.into_inner().expect("no worker panics") {
        match result {
            Some(Ok((o, s))) => {
                outcomes.push(o);
                run_seconds.push(s);
            }
            Some(Err(e)) => return Err(e),
            None => return Err("a run was not completed (an earlier run failed)".into()),
        }
    }
    Ok(Batch {
        outcomes,
        run_seconds,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The number of worker threads: `--threads`, else the machine's parallelism (at most
/// the number of runs).
pub fn threads(args: &Args, runs: u64) -> Result<usize, String> {
    let default = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    Ok(args.count("threads", default.min(runs).max(1), 1, 256)? as usize)
}

/// mean and standard error of the mean of some values (`None` if empty; stderr `null`
/// for one value).
pub fn mean_and_stderr(values: &[f64]) -> Value {
    if values.is_empty() {
        return Value::Null;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let stderr = if values.len() > 1 {
        let var = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
        json!((var / n).sqrt())
    } else {
        Value::Null
    };
    json!({"mean": mean, "stderr": stderr})
}

/// The summary object of a batch: the keys docs/contract.md names and the rest.
pub fn summary(protocol: &Protocol, batch: &Batch, seed: u64) -> Value {
    let solved = batch.solved_cycles();
    let kls: Vec<f64> = batch.outcomes.iter().filter_map(|o| o.final_kl).collect();
    let mut v = json!({
        "problem": protocol.problem.name(),
        "method": protocol.method.name(),
        "runs": batch.outcomes.len(),
        "solved": solved.len(),
        "median_cycles": median(&solved),
        "max_cycles_seen": solved.last(),
        "seconds": batch.seconds,
        "seconds_per_run": batch.run_seconds_total() / batch.outcomes.len().max(1) as f64,
        "cycles_run": batch.cycles_total(),
        "max_cycles": protocol.max_cycles,
        "seed": seed,
        "final_kl": mean_and_stderr(&kls),
        "nonconverged_solves": batch.outcomes.iter().map(|o| o.nonconverged).sum::<u64>(),
    });
    if protocol.problem == Problem::Encoder8x3 {
        let seven = batch.seven_codes_cycles();
        v["seven_codes"] = json!(seven.len());
        v["median_cycles_to_seven"] = json!(median(&seven));
    }
    if protocol.accuracy_trials > 0 {
        let last: Vec<f64> = batch
            .outcomes
            .iter()
            .filter_map(|o| o.accuracy.last().map(|a| a.1))
            .collect();
        v["accuracy"] = mean_and_stderr(&last);
        v["accuracy_curves"] = json!(
            batch
                .outcomes
                .iter()
                .map(|o| &o.accuracy)
                .collect::<Vec<_>>()
        );
    }
    v["results"] = json!(batch.outcomes);
    v
}

const PROBLEMS: &str = "4-2-4, 4-3-4, 8-3-8, 40-10-40, bars-3x3, bars-4x4, pixels-10";

pub fn learn(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(
        raw,
        &["problem", "method", "runs", "max-cycles", "seed", "threads"],
        &["json", "verbose"],
    )?;
    if !raw.iter().any(|a| a == "--problem") {
        return Err(format!("--problem is required (one of {PROBLEMS})"));
    }
    let problem_name = args.choice(
        "problem",
        &[
            "4-2-4",
            "4-3-4",
            "8-3-8",
            "40-10-40",
            "bars-3x3",
            "bars-4x4",
            "pixels-10",
        ],
    )?;
    let problem = Problem::parse(&problem_name).map_err(|e| e.to_string())?;
    let method = LearningMethod::parse(&args.choice("method", &["stochastic", "mean-field"])?)
        .map_err(|e| e.to_string())?;
    let mut protocol = Protocol::standard(problem, method);
    let runs = args.count("runs", 10, 1, 100_000)?;
    protocol.max_cycles = args.count("max-cycles", protocol.max_cycles, 1, 10_000_000)?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;
    let threads = threads(&args, runs)?;
    let verbose = args.flag("verbose");
    let report = |r: u64, o: &RunOutcome, s: f64| {
        if verbose {
            eprintln!("{}", run_line(r, o, s));
        }
    };
    let batch = run_batch(&protocol, runs, seed, threads, &report)?;
    let v = summary(&protocol, &batch, seed);
    if args.flag("json") {
        println!("{v}");
        return Ok(());
    }
    println!(
        "{} ({} machine): {} runs from seed {seed}, at most {} cycles each",
        problem.name(),
        method.name(),
        runs,
        protocol.max_cycles
    );
    let show = |x: &Value| match x {
        Value::Null => "—".to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    };
    println!("{:<24} {} of {}", "solved", v["solved"], v["runs"]);
    println!("{:<24} {}", "median cycles", show(&v["median_cycles"]));
    println!(
        "{:<24} {}",
        "longest (solved runs)",
        show(&v["max_cycles_seen"])
    );
    if let Some(seven) = v.get("seven_codes") {
        println!("{:<24} {seven} of {}", "runs with ≥ 7 codes", v["runs"]);
        println!(
            "{:<24} {}",
            "median cycles to 7",
            show(&v["median_cycles_to_seven"])
        );
    }
    if let Some(acc) = v.get("accuracy").filter(|a| !a.is_null()) {
        println!(
            "{:<24} {:.4}",
            "final accuracy",
            acc["mean"].as_f64().unwrap_or(f64::NAN)
        );
    }
    if let Some(kl) = v["final_kl"].get("mean") {
        println!(
            "{:<24} {:.4} nats",
            "final exact KL (mean)",
            kl.as_f64().unwrap_or(f64::NAN)
        );
    }
    if method == LearningMethod::MeanField {
        println!(
            "{:<24} {}",
            "non-converged solves", v["nonconverged_solves"]
        );
    }
    println!(
        "{:<24} {:.2} wall, {:.4} per run ({threads} threads)",
        "seconds",
        batch.seconds,
        v["seconds_per_run"].as_f64().unwrap_or(f64::NAN)
    );
    Ok(())
}

/// `--verbose`'s line for run `r` that took `seconds`: "run 3 (seed 4): 120 cycles, solved at
/// cycle 8, 0.12 s", or "…, not solved, …".
pub fn run_line(r: u64, o: &RunOutcome, seconds: f64) -> String {
    let solved = match o.solved_at {
        Some(cycle) => format!("solved at cycle {cycle}"),
        None => "not solved".to_string(),
    };
    format!(
        "run {r} (seed {}): {} cycles, {solved}, {seconds:.2} s",
        o.seed, o.cycles
    )
}
