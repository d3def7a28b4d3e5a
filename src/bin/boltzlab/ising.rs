//! `boltzlab ising`: sample a lattice and report observables with error bars.

use crate::args::Args;
use boltzlab::error::number;
use boltzlab::estimate::observables::{
    Estimate, MIN_TAUS, ThermalEstimates, ThermalSeries, WolffCalibration,
};
use boltzlab::{Dynamics, LatticeSampler, Order};
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
    // Dynamics and order first, as before: a refusal names the first bad option.
    let dynamics = args.choice("dynamics", &["heat-bath", "metropolis", "wolff"])?;
    let order = args.choice("order", &["sequential", "random", "checkerboard"])?;
    let (lattice, temperature, options) =
        crate::args::lattice_options(&args, &[("dynamics", "dynamics"), ("order", "order")])?;
    let engine = |e| args.engine_error(e, &options);
    let (size, height) = (lattice.width(), lattice.height());
    let (field, coupling, boundary) = (lattice.field(), lattice.coupling(), lattice.boundary());
    let dynamics = Dynamics::parse(&dynamics).map_err(engine)?;
    let order = Order::parse(&order).map_err(engine)?;
    let sweeps = args.count("sweeps", 10_000, 64, 100_000_000)?;
    let burn_in = args.count("burn-in", 1_000, 0, 100_000_000)?;
    let seed = args.count("seed", 1, 0, u64::MAX)?;

    let spins = lattice.len();
    let mut sampler = LatticeSampler::new(lattice, temperature, seed).map_err(engine)?;
    sampler.set_dynamics(dynamics).map_err(engine)?;
    sampler.set_order(order);
    let started = Instant::now();
    // The page's sweep measures the same way: one accumulator, one Wolff calibration.
    let mut calibration = WolffCalibration::new();
    for _ in 0..burn_in {
        calibration.sweep(&mut sampler, false);
    }
    let mut series = ThermalSeries::new();
    for _ in 0..sweeps {
        calibration.sweep(&mut sampler, true);
        series.push(&sampler);
    }
    let seconds = started.elapsed().as_secs_f64();
    let ThermalEstimates {
        energy,
        magnetization,
        abs_magnetization,
        specific_heat,
        susceptibility,
    } = series.estimates(temperature, spins);
    // c = β²N·Var(e) and χ = βN·Var(|m|) are 0 when nothing varied (the T → 0 limit) and
    // overflow when the run still varied at T = 0 or a tiny T: refuse rather than print ∞.
    // At T = 1 the same estimates are N·Var, which gives the lowest T where they are finite
    // (with a factor 2 of margin).
    let at_one = series.estimates(1.0, spins);
    let largest = |e: Estimate| e.mean.max(e.stderr);
    let lowest = 2.0
        * (largest(at_one.specific_heat) / f64::MAX)
            .sqrt()
            .max(largest(at_one.susceptibility) / f64::MAX);
    for (name, e) in [
        ("specific heat c = β²N·Var(e)", specific_heat),
        ("susceptibility χ = βN·Var(|m|)", susceptibility),
    ] {
        if !(e.mean.is_finite() && e.stderr.is_finite()) {
            return Err(args.refused(
                "temperature",
                format!(
                    "the {name} overflows at T = {}: the sampled values still varied (the \
                     T → 0 limit is 0 only for a run that has settled); this run needs a \
                     temperature of at least {}, or a longer --burn-in",
                    number(temperature),
                    number(lowest)
                ),
            ));
        }
    }
    let estimates = [
        energy,
        magnetization,
        abs_magnetization,
        specific_heat,
        susceptibility,
    ];
    let report = json!({
        "energy_per_spin": energy,
        "magnetization_per_spin": magnetization,
        "abs_magnetization_per_spin": abs_magnetization,
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
        // Each line ends with τ_int in sweeps; a run shorter than MIN_TAUS·τ is marked '*'
        // and explained below (its error bar is a lower bound).
        let line = |name: &str, e: Estimate| {
            println!(
                "{name:<28} {:>12.6} ± {:.6}  τ = {}{}",
                e.mean,
                e.stderr,
                number(round_tau(e.tau)),
                if e.converged { "" } else { " *" }
            )
        };
        println!(
            "Ising {size}×{height} {}, T = {}, h = {}, J = {}, {} {}, seed {seed}",
            boundary.name(),
            number(temperature),
            number(field),
            number(coupling),
            dynamics.name(),
            order.name()
        );
        line("energy per spin", energy);
        line("magnetization per spin", magnetization);
        line("|magnetization| per spin", abs_magnetization);
        line("specific heat per spin", specific_heat);
        line("susceptibility per spin", susceptibility);
        println!(
            "{sweeps} sweeps after {burn_in} burn-in, {:.3e} updates/s",
            report["updates_per_second"].as_f64().unwrap_or(0.0)
        );
        if !estimates.iter().all(|e| e.converged) {
            println!(
                "* fewer than {} autocorrelation times τ (in sweeps) of the slowest observable \
                 measured: the error bars are lower bounds; measure longer (--sweeps, --burn-in)",
                number(MIN_TAUS)
            );
        }
    }
    Ok(())
}

/// τ to three significant figures for the text output (the JSON has every digit).
fn round_tau(tau: f64) -> f64 {
    if !(tau.is_finite() && tau > 0.0) {
        return tau;
    }
    let scale = libm::pow(10.0, 2.0 - libm::floor(libm::log10(tau)));
    (tau * scale).round() / scale
}
