//! `boltzlab`: the command-line face of the engine. Every number the page shows can be
//! reproduced here. Human-readable text by default, one JSON object with `--json`;
//! observables are reported as `{"mean": x, "stderr": e}`.

use boltzlab::exact::enumeration::{MAX_ENUMERATION_UNITS, enumerate};
use boltzlab::exact::{kaufman_energy_per_spin, kaufman_log_z, kaufman_specific_heat_per_spin};
use boltzlab::measure::{Estimate, Series, variance};
use boltzlab::{Boundary, Dynamics, Lattice, LatticeSampler, Order};
use serde_json::json;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "\
boltzlab: an interactive laboratory for Ising models and Boltzmann machines

USAGE:
  boltzlab ising --size L [--height H] --temperature T [--field h] [--coupling J]
                 [--dynamics heat-bath|metropolis|wolff]
                 [--order sequential|random|checkerboard]
                 [--boundary periodic|open|fixed-up|fixed-down]
                 [--sweeps N] [--burn-in N] [--seed S] [--json]
      Sample an L×H Ising lattice; report E/N, M/N, |M|/N, c and χ per spin with error
      bars from 32 bins (defaults: H = L, h = 0, J = 1, heat-bath, sequential, periodic,
      10000 sweeps after 1000 burn-in sweeps, seed 1). With Wolff, a 'sweep' is a fixed
      number of cluster moves flipping about N spins on average (fixed after burn-in).
  boltzlab exact --size L [--height H] --temperature T [--field h] [--coupling J]
                 [--boundary periodic|open|fixed-up|fixed-down] [--kaufman] [--json]
      Exact values for an L×H lattice by enumerating all 2^N states (N ≤ 30): log_z,
      energy_per_spin, abs_magnetization_per_spin, specific_heat_per_spin. With
      --kaufman: log_z, energy_per_spin and specific_heat_per_spin from Kaufman's formula,
      for a periodic lattice of any size (J = 1, h = 0).
  boltzlab help
      This text.
";

/// Parsed `--name value` and `--flag` arguments, checked against what a command accepts.
struct Args {
    values: BTreeMap<String, String>,
    flags: Vec<String>,
}

impl Args {
    fn parse(raw: &[String], valued: &[&str], switches: &[&str]) -> Result<Args, String> {
        let mut values = BTreeMap::new();
        let mut flags = Vec::new();
        let mut iter = raw.iter();
        while let Some(arg) = iter.next() {
            let name = arg
                .strip_prefix("--")
                .ok_or_else(|| format!("unexpected argument '{arg}' (options start with --)"))?;
            if switches.contains(&name) {
                flags.push(name.to_string());
            } else if valued.contains(&name) {
                let value = iter
                    .next()
                    .ok_or_else(|| format!("--{name} needs a value"))?;
                if values.insert(name.to_string(), value.clone()).is_some() {
                    return Err(format!("--{name} is given twice"));
                }
            } else {
                return Err(format!("unknown option --{name}"));
            }
        }
        Ok(Args { values, flags })
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    /// A number option; `None` if absent, an error naming the option if malformed.
    fn number(&self, name: &str) -> Result<Option<f64>, String> {
        self.values
            .get(name)
            .map(|v| {
                v.parse::<f64>()
                    .map_err(|_| format!("--{name} must be a number, got '{v}'"))
            })
            .transpose()
    }

    fn required(&self, name: &str) -> Result<f64, String> {
        self.number(name)?
            .ok_or_else(|| format!("--{name} is required"))
    }

    /// A whole-number option in [min, max], or `default`.
    fn count(&self, name: &str, default: u64, min: u64, max: u64) -> Result<u64, String> {
        match self.values.get(name) {
            None => Ok(default),
            Some(v) => v
                .parse::<u64>()
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    format!("--{name} must be a whole number from {min} to {max}, got '{v}'")
                }),
        }
    }

    /// An option that takes one of `allowed` (the first is the default).
    fn choice(&self, name: &str, allowed: &[&str]) -> Result<String, String> {
        match self.values.get(name) {
            None => Ok(allowed[0].to_string()),
            Some(v) if allowed.contains(&v.as_str()) => Ok(v.clone()),
            Some(v) => Err(format!(
                "--{name} must be one of {}, got '{v}'",
                allowed.join(", ")
            )),
        }
    }
}

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let result = match raw.first().map(String::as_str) {
        Some("ising") => ising(&raw[1..]),
        Some("exact") => exact(&raw[1..]),
        Some("help") | Some("--help") | Some("-h") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'; see 'boltzlab help'")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("boltzlab: {message}");
            ExitCode::from(2)
        }
    }
}

fn ising(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(
        raw,
        &[
            "size",
            "height",
            "temperature",
            "field",
            "coupling",
            "dynamics",
            "order",
            "boundary",
            "sweeps",
            "burn-in",
            "seed",
        ],
        &["json"],
    )?;
    let size = args.required("size")?;
    let height = args.number("height")?.unwrap_or(size);
    let temperature = args.required("temperature")?;
    let field = args.number("field")?.unwrap_or(0.0);
    let coupling = args.number("coupling")?.unwrap_or(1.0);
    let dynamics =
        Dynamics::parse(&args.choice("dynamics", &["heat-bath", "metropolis", "wolff"])?)
            .map_err(|e| e.to_string())?;
    let order = Order::parse(&args.choice("order", &["sequential", "random", "checkerboard"])?)
        .map_err(|e| e.to_string())?;
    let boundary =
        Boundary::parse(&args.choice("boundary", &["periodic", "open", "fixed-up", "fixed-down"])?)
            .map_err(|e| e.to_string())?;
    let sweeps = args.count("sweeps", 10_000, 64, 100_000_000)?;
    let burn_in = args.count("burn-in", 1_000, 0, 100_000_000)?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;

    let lattice = Lattice::new(size, height, coupling, field)
        .and_then(|l| l.with_boundary(boundary))
        .map_err(|e| e.to_string())?;
    let n = lattice.len() as f64;
    let mut sampler = LatticeSampler::new(lattice, temperature, seed).map_err(|e| e.to_string())?;
    sampler.set_dynamics(dynamics).map_err(|e| e.to_string())?;
    sampler.set_order(order);
    let started = Instant::now();
    // Wolff: measure after a fixed number of moves (stopping at a flip-count target would
    // bias the measured states), chosen from the mean cluster size in a trial run.
    let mut moves_per_sweep = 0;
    if dynamics == Dynamics::Wolff {
        let trial = 1_000;
        let flipped = sampler.wolff_moves(trial).map_err(|e| e.to_string())?;
        moves_per_sweep = ((n * trial as f64 / flipped as f64).ceil() as u64).max(1);
    }
    let sweep = |s: &mut LatticeSampler| {
        if moves_per_sweep > 0 {
            let _ = s.wolff_moves(moves_per_sweep);
        } else {
            s.sweep();
        }
    };
    for _ in 0..burn_in {
        sweep(&mut sampler);
    }
    let (mut energy, mut magnetization, mut abs_magnetization) =
        (Series::new(), Series::new(), Series::new());
    for _ in 0..sweeps {
        sweep(&mut sampler);
        let m = sampler.magnetization_per_spin();
        energy.push(sampler.energy_per_spin());
        magnetization.push(m);
        abs_magnetization.push(m.abs());
    }
    let seconds = started.elapsed().as_secs_f64();
    let beta = 1.0 / temperature;
    // c = β² N (⟨e²⟩ − ⟨e⟩²), χ = β N (⟨m²⟩ − ⟨|m|⟩²), e = E/N, m = M/N (per spin).
    let scaled = |e: Estimate, k: f64| Estimate {
        mean: e.mean * k,
        stderr: e.stderr * k,
    };
    let specific_heat = scaled(energy.jackknife(variance), beta * beta * n);
    let susceptibility = scaled(abs_magnetization.jackknife(variance), beta * n);
    let report = json!({
        "energy_per_spin": energy.mean(),
        "magnetization_per_spin": magnetization.mean(),
        "abs_magnetization_per_spin": abs_magnetization.mean(),
        "specific_heat_per_spin": specific_heat,
        "susceptibility_per_spin": susceptibility,
        "sweeps": sweeps,
        "burn_in": burn_in,
        "updates_per_second": sampler.ticks() as f64 / seconds,
        "dynamics": dynamics.name(),
        "order": order.name(),
        "boundary": boundary.name(),
    });
    if args.flag("json") {
        println!("{report}");
    } else {
        let line =
            |name: &str, e: Estimate| println!("{name:<28} {:>12.6} ± {:.6}", e.mean, e.stderr);
        println!(
            "Ising {size}×{height} {}, T = {temperature}, h = {field}, J = {coupling}, {} {}, seed {seed}",
            boundary.name(),
            dynamics.name(),
            order.name()
        );
        line("energy per spin", energy.mean());
        line("magnetization per spin", magnetization.mean());
        line("|magnetization| per spin", abs_magnetization.mean());
        line("specific heat per spin", specific_heat);
        line("susceptibility per spin", susceptibility);
        println!(
            "{sweeps} sweeps after {burn_in} burn-in, {:.3e} updates/s",
            report["updates_per_second"].as_f64().unwrap_or(0.0)
        );
    }
    Ok(())
}

fn exact(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(
        raw,
        &[
            "size",
            "height",
            "temperature",
            "field",
            "coupling",
            "boundary",
        ],
        &["json", "kaufman"],
    )?;
    let size = args.required("size")?;
    let height = args.number("height")?.unwrap_or(size);
    let temperature = args.required("temperature")?;
    let field = args.number("field")?.unwrap_or(0.0);
    let coupling = args.number("coupling")?.unwrap_or(1.0);
    let boundary =
        Boundary::parse(&args.choice("boundary", &["periodic", "open", "fixed-up", "fixed-down"])?)
            .map_err(|e| e.to_string())?;
    let lattice = Lattice::new(size, height, coupling, field)
        .and_then(|l| l.with_boundary(boundary))
        .map_err(|e| e.to_string())?;
    if !(temperature > 0.0 && temperature.is_finite()) {
        return Err(format!(
            "temperature must be a finite number above 0 for exact values, got {temperature}"
        ));
    }
    let (w, h) = (lattice.width(), lattice.height());
    let n = lattice.len() as f64;
    let beta = 1.0 / temperature;
    let report = if args.flag("kaufman") {
        if field != 0.0 || coupling != 1.0 || boundary != Boundary::Periodic {
            return Err(
                "--kaufman is exact for the periodic lattice with J = 1 and h = 0 only".into(),
            );
        }
        json!({
            "method": "kaufman",
            "log_z": kaufman_log_z(w, h, temperature),
            "energy_per_spin": kaufman_energy_per_spin(w, h, temperature),
            "specific_heat_per_spin": kaufman_specific_heat_per_spin(w, h, temperature),
        })
    } else {
        if lattice.len() > MAX_ENUMERATION_UNITS {
            return Err(format!(
                "exact enumeration takes at most {MAX_ENUMERATION_UNITS} spins, this lattice has {} \
                 (use --kaufman for a periodic lattice of any size)",
                lattice.len()
            ));
        }
        let network = lattice.to_network().map_err(|e| e.to_string())?;
        let e = enumerate(&network, temperature).map_err(|e| e.to_string())?;
        json!({
            "method": "enumeration",
            "log_z": e.log_z,
            "energy_per_spin": e.mean_energy / n,
            "abs_magnetization_per_spin": e.mean_abs_magnetization / n,
            "specific_heat_per_spin": beta * beta * e.energy_variance / n,
        })
    };
    if args.flag("json") {
        println!("{report}");
    } else {
        println!(
            "Ising {w}×{h} {}, T = {temperature}, h = {field}, J = {coupling}, exact by {}",
            boundary.name(),
            report["method"].as_str().unwrap_or("")
        );
        for key in [
            "log_z",
            "energy_per_spin",
            "abs_magnetization_per_spin",
            "specific_heat_per_spin",
        ] {
            if let Some(value) = report[key].as_f64() {
                println!("{:<28} {value:>20.12}", key.replace('_', " "));
            }
        }
    }
    Ok(())
}
