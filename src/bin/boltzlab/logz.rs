//! `boltzlab logz`: ln Z of a network file by enumeration, AIS, mean field or the sampled
//! lower bound.

use crate::args::Args;
use boltzlab::Network;
use boltzlab::error::{ParamError, TemperatureDomain, check_temperature, number};
use boltzlab::estimate::bipartite;
use boltzlab::estimate::log_z::{
    self, Bound, Facts, LogZ, LogZMethod, MAX_AIS_RUNS, MAX_AIS_STEPS, MAX_SAMPLED_SWEEPS,
    MIN_AIS_RUNS,
};
use boltzlab::estimate::rbm_ais::AisSchedule;
use std::io::Read;

/// Defaults: 100 AIS runs of 1000 steps, 10000 sampled sweeps, seed 1.
const DEFAULT_RUNS: u64 = 100;
const DEFAULT_STEPS: u64 = 1000;
const DEFAULT_SWEEPS: u64 = 10_000;
const DEFAULT_SEED: u64 = 1;

pub fn logz(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(
        raw,
        &[
            "network",
            "temperature",
            "method",
            "runs",
            "steps",
            "schedule",
            "sweeps",
            "seed",
        ],
        &["json"],
    )?;
    let allowed: Vec<&str> = LogZMethod::ALL.iter().map(|m| m.name()).collect();
    if !args.has("method") {
        return Err(format!(
            "--method is required: one of {}",
            allowed.join(", ")
        ));
    }
    let method = LogZMethod::parse(&args.choice("method", &allowed)?).map_err(|e| e.to_string())?;
    for (option, owner) in [
        ("runs", LogZMethod::Ais),
        ("steps", LogZMethod::Ais),
        ("schedule", LogZMethod::Ais),
        ("sweeps", LogZMethod::Sampled),
    ] {
        if args.has(option) && method != owner {
            return Err(format!(
                "--{option} applies to --method {} only, not {}",
                owner.name(),
                method.name()
            ));
        }
    }
    if args.has("seed") && !matches!(method, LogZMethod::Ais | LogZMethod::Sampled) {
        return Err(format!(
            "--seed applies to --method ais and sampled only, not {}",
            method.name()
        ));
    }
    let path = args
        .text("network")
        .ok_or("--network is required: a network JSON file")?;
    let temperature = args.required("temperature")?;
    check_temperature(temperature, TemperatureDomain::LogZ)
        .map_err(|e| args.refused("temperature", e))?;
    let runs = args.count("runs", DEFAULT_RUNS, MIN_AIS_RUNS, MAX_AIS_RUNS)?;
    let steps = args.count("steps", DEFAULT_STEPS, 1, MAX_AIS_STEPS)?;
    let sweeps = args.count("sweeps", DEFAULT_SWEEPS, 1, MAX_SAMPLED_SWEEPS)?;
    let seed = args.count("seed", DEFAULT_SEED, 0, u64::MAX)?;
    if args.has("schedule") && args.has("steps") {
        return Err(
            "--schedule and --steps: give one (--steps is the general network's linear \
             schedule, --schedule the bipartite network's)"
                .to_string(),
        );
    }
    let schedule = match args
        .choice("schedule", &["page", "salakhutdinov-murray"])?
        .as_str()
    {
        "page" => AisSchedule::PAGE,
        _ => AisSchedule::SALAKHUTDINOV_MURRAY,
    };
    let network = read_network(path)?;
    let clock = std::time::Instant::now();
    // A bipartite network is a restricted machine: exact over its smaller group (≤ 25
    // units), and AIS with one group summed out (unless --steps asks for the general AIS).
    let bipartite = match method {
        LogZMethod::Exact => bipartite::exact_log_z(&network, temperature),
        LogZMethod::Ais if !args.has("steps") => {
            bipartite::ais_log_z_bipartite(&network, temperature, &schedule, runs, seed)
        }
        _ => Ok(None),
    }
    .map_err(|e| format!("--method {}: {e}", method.name()))?;
    // A bipartite network whose restricted machine at T would pass the machine's ±10⁶
    // goes the general way (exact: all 2^n states, n ≤ 30; ais: the general AIS); why.
    let declined = match (&bipartite, method) {
        (None, LogZMethod::Exact) | (None, LogZMethod::Ais) if !args.has("steps") => {
            bipartite::groups(&network)
                .and_then(|g| bipartite::check_machine(&network, &g, temperature).err())
                .map(|e| match e {
                    ParamError::Invalid { reason, .. } => reason,
                    other => other.to_string(),
                })
        }
        _ => None,
    };
    if bipartite.is_none() && args.has("schedule") {
        return Err(match &declined {
            Some(e) => format!(
                "--schedule: the bipartite AIS cannot take '{path}' at this temperature ({e}); \
                 without --schedule the general AIS takes it"
            ),
            None => format!(
                "--schedule: '{path}' is not bipartite; the general AIS takes --steps instead"
            ),
        });
    }
    let grouped = bipartite.is_some();
    let result = match bipartite {
        Some(mut r) => {
            r.seconds = Some(clock.elapsed().as_secs_f64());
            Ok(r)
        }
        None => match method {
            LogZMethod::Exact => log_z::exact_log_z(&network, temperature),
            LogZMethod::Ais => log_z::ais_log_z(&network, temperature, runs, steps, seed),
            LogZMethod::MeanField => log_z::mean_field_log_z(&network, temperature),
            LogZMethod::Sampled => log_z::sampled_log_z(&network, temperature, sweeps, seed),
        },
    }
    .map_err(|e| format!("--method {}: {e}", method.name()))?;
    if args.flag("json") {
        let mut report = serde_json::to_value(&result).map_err(|e| e.to_string())?;
        report["bipartite"] = serde_json::json!(grouped);
        println!("{report}");
    } else {
        print_text(path, &result);
        if grouped {
            println!(
                "{:<18} yes: the units split into two groups with no connection inside \
                 either; one group summed out in closed form",
                "bipartite"
            );
        } else if let Some(e) = &declined {
            println!(
                "{:<18} yes, but no group summed out ({e}): the general {}",
                "bipartite",
                match method {
                    LogZMethod::Exact => "enumeration of all 2^n states",
                    _ => "AIS",
                }
            );
        }
    }
    Ok(())
}

/// Reads and checks a network file (at most [`Network::MAX_JSON_BYTES`]); every error names
/// the file.
fn read_network(path: &str) -> Result<Network, String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("--network: cannot open '{path}': {e}"))?;
    let limit = Network::MAX_JSON_BYTES as u64;
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("--network: cannot read '{path}': {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "--network: '{path}' is longer than {limit} bytes, the most a network file may be"
        ));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("--network: '{path}' is not UTF-8 text: {e}"))?;
    Network::from_json(&text).map_err(|e| format!("--network: '{path}' is not a network: {e}"))
}

fn print_text(path: &str, result: &LogZ) {
    println!(
        "network '{path}': {} {} unit{}, T = {}, ln Z by {}",
        result.units,
        result.spin.name(),
        if result.units == 1 { "" } else { "s" },
        number(result.temperature),
        result.method.name()
    );
    // 12 decimals in a 22-character column, as error::number beyond it (ln Z = 10³⁰⁰ at
    // T = 10⁻³⁰⁰ is 1e300, not 301 digits).
    let fixed = format!("{:.12}", result.log_z);
    let value = if fixed.len() <= 22 {
        fixed
    } else {
        number(result.log_z)
    };
    match result.stderr {
        Some(stderr) => println!("{:<18} {value:>22} ± {stderr:.3e}", "log z"),
        None => println!("{:<18} {value:>22}", "log z"),
    }
    let bound = match result.bound {
        Bound::Exact => "exact (up to rounding)",
        Bound::Lower => "a lower bound on ln Z",
        Bound::None => "an estimate (unbiased for Z; within a few stderr of ln Z)",
    };
    println!("{:<18} {bound}", "bound");
    match &result.facts {
        Facts::Exact { states } => println!("{:<18} {states}", "states"),
        Facts::Kaufman { formula } => println!("{:<18} {formula}", "formula"),
        Facts::Sampled {
            sweeps,
            ticks,
            distinct_states,
            state_fraction,
            capped,
            seed,
        } => {
            println!("{:<18} {sweeps} ({ticks} ticks), seed {seed}", "sweeps");
            match state_fraction {
                Some(f) => {
                    let f = if *f >= 1e-3 {
                        format!("{f:.4}")
                    } else {
                        format!("{f:.3e}")
                    };
                    println!(
                        "{:<18} {distinct_states} (fraction {f} of the 2^{} states)",
                        "distinct states", result.units
                    )
                }
                None => println!("{:<18} {distinct_states}", "distinct states"),
            }
            if *capped {
                println!(
                    "{:<18} stopped early at the cap on distinct states",
                    "capped"
                );
            }
        }
        Facts::MeanField {
            converged,
            passes,
            residual,
            annealed,
        } => {
            println!("{:<18} {converged}", "converged");
            let start = if *annealed {
                "annealed from 10T"
            } else {
                "solved at T from q = ½"
            };
            println!(
                "{:<18} {passes} at T ({start}), residual {residual:.3e}",
                "passes"
            );
        }
        Facts::Ais {
            runs,
            steps,
            effective_runs,
            seed,
        } => {
            println!("{:<18} {runs} × {steps} steps, seed {seed}", "runs");
            println!("{:<18} {effective_runs:.1}", "effective runs");
        }
    }
    if let Some(seconds) = result.seconds {
        println!("{:<18} {seconds:.3}", "seconds");
    }
}
