//! `boltzlab memory`: the capacity of a Hopfield memory (boltzlab::learn::memory), stored by
//! Hebb's rule, Hebb minus unlearning, or the Boltzmann rule, over one or several numbers
//! of patterns (a sweep over α = P/N).

use crate::args::Args;
use boltzlab::learn::memory::{Capacity, Experiment, Recalling, Storage};
use serde_json::{Value, json};
use std::time::Instant;

/// α_c ≈ 0.138, where retrieval states of Hebbian storage vanish as N → ∞ (Amit, Gutfreund
/// & Sompolinsky 1985).
const ALPHA_C: f64 = 0.138;

pub fn memory(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(
        raw,
        &[
            "units",
            "patterns",
            "runs",
            "temperature",
            "sweeps",
            "rule",
            "unlearning-steps",
            "epsilon",
            "updates",
            "rate",
            "chains",
            "learning-temperature",
            "random-starts",
            "seed",
            "threads",
        ],
        &["json"],
    )?;
    let units = args.count("units", 500, 1, 2048)? as usize;
    let counts = pattern_counts(&args, units)?;
    let runs = args.count("runs", 20, 1, 10_000)?;
    let threads = args.count("threads", 2, 1, 64)?;
    let storage = storage(&args, units)?;
    let recalling = Recalling {
        temperature: args.number("temperature").unwrap_or(0.0),
        sweeps: args.count("sweeps", 50, 1, 1_000_000)? as usize,
    };
    if recalling.temperature == 0.0 && args.has("sweeps") {
        return Err(
            "--sweeps applies to --temperature T > 0 only (at T = 0 recall runs until stable)"
                .into(),
        );
    }
    let options = [
        ("units", "units"),
        ("patterns", "patterns"),
        ("temperature", "temperature"),
        ("epsilon", "epsilon"),
        ("rate", "rate"),
        ("learning temperature", "learning-temperature"),
    ];
    let mut rows = Vec::new();
    for &patterns in &counts {
        let experiment = Experiment {
            units,
            patterns,
            storage,
            recalling,
            random_starts: args.count("random-starts", 10, 0, 10_000)? as usize,
            seed: args.count("seed", 1, 0, u64::MAX >> 11)?,
        }
        .check()
        .map_err(|e| args.engine_error(e, &options))?;
        let start = Instant::now();
        let result = spread(&experiment, runs, threads).map_err(|e| e.to_string())?;
        rows.push(row(&experiment, &result, start.elapsed().as_secs_f64()));
    }
    if args.flag("json") {
        if rows.len() == 1 {
            println!("{}", rows[0]);
        } else {
            println!("{}", json!({ "rows": rows }));
        }
        return Ok(());
    }
    println!(
        "Hopfield memory, N = {units}, rule {}, T = {}, {runs} run{} each; α_c ≈ {ALPHA_C} (Amit, Gutfreund & Sompolinsky 1985)",
        storage.name(),
        boltzlab::error::number(recalling.temperature),
        if runs == 1 { "" } else { "s" },
    );
    println!(
        "{:>6} {:>7} {:>19} {:>9} {:>32} {:>8}",
        "P", "α", "overlap", "recalled", "random starts: pat/rev/mix/other", "seconds"
    );
    for row in &rows {
        let from = &row["from_random"];
        // One run has no standard error: "—", as learn --problem's text shows.
        let stderr = match row["overlap"]["stderr"].as_f64() {
            Some(e) => format!("{e:.4}"),
            None => "—".into(),
        };
        println!(
            "{:>6} {:>7.4} {:>10.4} ± {:<6} {:>9.4} {:>32} {:>8.2}",
            row["patterns"].as_u64().unwrap_or(0),
            row["alpha"].as_f64().unwrap_or(f64::NAN),
            row["overlap"]["mean"].as_f64().unwrap_or(f64::NAN),
            stderr,
            row["recalled_fraction"].as_f64().unwrap_or(f64::NAN),
            format!(
                "{}/{}/{}/{}",
                from["pattern"], from["reversed"], from["mixture"], from["other"]
            ),
            row["seconds"].as_f64().unwrap_or(f64::NAN),
        );
    }
    Ok(())
}

/// `--patterns P` or a list `P1,P2,…` (a sweep over α); default 0.1·N.
fn pattern_counts(args: &Args, units: usize) -> Result<Vec<usize>, String> {
    let Some(text) = args.text("patterns") else {
        return Ok(vec![(units / 10).max(1)]);
    };
    text.split(',')
        .map(|p| {
            p.trim()
                .parse::<usize>()
                .ok()
                .filter(|&p| (1..=units).contains(&p))
                .ok_or_else(|| {
                    format!(
                        "--patterns must be whole numbers from 1 to the {units} unit{}, got '{}'",
                        if units == 1 { "" } else { "s" },
                        boltzlab::error::shorten(p)
                    )
                })
        })
        .collect()
}

/// Each rule's own options: given with another rule, they are refused.
const RULE_OPTIONS: [(&str, &str); 6] = [
    ("unlearning-steps", "unlearning"),
    ("epsilon", "unlearning"),
    ("updates", "boltzmann"),
    ("rate", "boltzmann"),
    ("chains", "boltzmann"),
    ("learning-temperature", "boltzmann"),
];

/// The storage rule and its settings from `--rule` and the options it takes.
fn storage(args: &Args, units: usize) -> Result<Storage, String> {
    let rule = args.choice("rule", &["hebb", "unlearning", "boltzmann"])?;
    if let Some((name, owner)) = RULE_OPTIONS
        .iter()
        .find(|(name, owner)| args.has(name) && *owner != rule)
    {
        return Err(format!("--{name} is an option of --rule {owner} only"));
    }
    let mut storage = Storage::parse(&rule, units).map_err(|e| e.to_string())?;
    match &mut storage {
        Storage::Hebb => {}
        Storage::Unlearning { steps, epsilon } => {
            *steps = args.count("unlearning-steps", *steps as u64, 0, 1_000_000)? as usize;
            *epsilon = args.number("epsilon").unwrap_or(*epsilon);
        }
        Storage::Boltzmann {
            updates,
            rate,
            chains,
            temperature,
        } => {
            *updates = args.count("updates", *updates as u64, 0, 1_000_000)? as usize;
            *rate = args.number("rate").unwrap_or(*rate);
            *chains = args.count("chains", *chains as u64, 1, 1000)? as usize;
            *temperature = args.number("learning-temperature").unwrap_or(*temperature);
        }
    }
    Ok(storage)
}

/// The runs spread over `threads` threads in contiguous blocks, merged in run order: the
/// same result for any number of threads.
fn spread(
    experiment: &Experiment,
    runs: u64,
    threads: u64,
) -> Result<Capacity, boltzlab::error::ParamError> {
    let threads = threads.min(runs);
    let per = runs.div_ceil(threads);
    let parts: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut part = Capacity::default();
                    for run in t * per..((t + 1) * per).min(runs) {
                        part.merge(experiment.run(run)?);
                    }
                    Ok(part)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a capacity run panicked"))
            .collect()
    });
    let mut total = Capacity::default();
    for part in parts {
        total.merge(part?);
    }
    Ok(total)
}

fn row(experiment: &Experiment, result: &Capacity, seconds: f64) -> Value {
    let (mean, stderr) = result.overlap_estimate();
    let [pattern, reversed, mixture, other] = result.from_random;
    let settings: serde_json::Map<String, Value> = experiment
        .storage
        .settings()
        .into_iter()
        .map(|(name, value)| (name.to_string(), json!(value)))
        .collect();
    json!({
        "units": experiment.units,
        "patterns": experiment.patterns,
        "alpha": experiment.patterns as f64 / experiment.units as f64,
        "rule": experiment.storage.name(),
        "rule_settings": settings,
        "temperature": experiment.recalling.temperature,
        "runs": result.run_overlaps.len(),
        "overlap": { "mean": mean, "stderr": stderr },
        "recalled_fraction": result.recalled as f64 / result.recalls as f64,
        "from_random": { "pattern": pattern, "reversed": reversed, "mixture": mixture, "other": other },
        "alpha_c": ALPHA_C,
        "seconds": seconds,
    })
}
