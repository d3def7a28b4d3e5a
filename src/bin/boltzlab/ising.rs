//! `boltzlab ising`: sample a lattice and report observables with error bars.

use crate::args::Args;
use boltzlab::estimate::observables::{Estimate, Series, variance};
use boltzlab::{Boundary, Dynamics, Lattice, LatticeSampler, Order};
use serde_json::json;
use std::time::Instant;

pub fn ising(raw: &[String]) -> Result<(), String> {
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
    let height = args.number("height").unwrap_or(size);
    let temperature = args.required("temperature")?;
    let field = args.number("field").unwrap_or(0.0);
    let coupling = args.number("coupling").unwrap_or(1.0);
    // The engine's field names → the options they came from.
    let options = [
        ("width", "size"),
        ("height", if args.has("height") { "height" } else { "size" }),
        ("coupling", "coupling"),
        ("field", "field"),
        ("temperature", "temperature"),
        ("dynamics", "dynamics"),
        ("order", "order"),
        ("boundary", "boundary"),
    ];
    let engine = |e| args.engine_error(e, &options);
    let dynamics =
        Dynamics::parse(&args.choice("dynamics", &["heat-bath", "metropolis", "wolff"])?)
            .map_err(engine)?;
    let order = Order::parse(&args.choice("order", &["sequential", "random", "checkerboard"])?)
        .map_err(engine)?;
    let boundary =
        Boundary::parse(&args.choice("boundary", &["periodic", "open", "fixed-up", "fixed-down"])?)
            .map_err(engine)?;
    let sweeps = args.count("sweeps", 10_000, 64, 100_000_000)?;
    let burn_in = args.count("burn-in", 1_000, 0, 100_000_000)?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;

    let lattice = Lattice::new(size, height, coupling, field)
        .and_then(|l| l.with_boundary(boundary))
        .map_err(engine)?;
    let n = lattice.len() as f64;
    let mut sampler = LatticeSampler::new(lattice, temperature, seed).map_err(engine)?;
    sampler.set_dynamics(dynamics).map_err(engine)?;
    sampler.set_order(order);
    let started = Instant::now();
    // Wolff: measure after a fixed number of moves (stopping at a flip-count target would
    // bias the measured states), chosen from the mean cluster size in a trial run.
    let mut moves_per_sweep = 0;
    if dynamics == Dynamics::Wolff {
        let trial = 1_000;
        let flipped = sampler.wolff_moves(trial).map_err(engine)?;
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
