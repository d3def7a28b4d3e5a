//! `boltzlab exact`: exact values of a lattice by enumeration or Kaufman's formula.

use crate::args::Args;
use boltzlab::Boundary;
use boltzlab::error::number;
use boltzlab::exact::enumeration::{MAX_ENUMERATION_UNITS, enumerate};
use boltzlab::exact::{
    KAUFMAN_MAX_TEMPERATURE, KAUFMAN_MIN_TEMPERATURE, kaufman_energy_per_spin, kaufman_log_z,
    kaufman_specific_heat_per_spin,
};
use serde_json::json;

pub fn exact(raw: &[String]) -> Result<(), String> {
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
    let (lattice, temperature, options) = crate::args::lattice_options(&args, &[])?;
    let engine = |e| args.engine_error(e, &options);
    let (field, coupling, boundary) = (lattice.field(), lattice.coupling(), lattice.boundary());
    boltzlab::error::check_temperature(temperature, boltzlab::error::TemperatureDomain::LogZ)
        .map_err(engine)?;
    let (w, h) = (lattice.width(), lattice.height());
    let n = lattice.len() as f64;
    let beta = 1.0 / temperature;
    let report = if args.flag("kaufman") {
        if field != 0.0 || coupling != 1.0 || boundary != Boundary::Periodic {
            return Err(
                "--kaufman is exact for the periodic lattice with J = 1 and h = 0 only".into(),
            );
        }
        // Outside this range Kaufman's energy and specific heat are differences of rounded
        // numbers with no digit left (see KAUFMAN_MIN_TEMPERATURE): refuse, don't print them.
        if !(KAUFMAN_MIN_TEMPERATURE..=KAUFMAN_MAX_TEMPERATURE).contains(&temperature) {
            return Err(args.refused(
                "temperature",
                format!(
                    "with --kaufman the temperature must be between {} and {} (where \
                     Kaufman's formula is good to 1e-8), got {}; without --kaufman, exact \
                     enumeration takes any T > 0 on up to {MAX_ENUMERATION_UNITS} spins",
                    number(KAUFMAN_MIN_TEMPERATURE),
                    number(KAUFMAN_MAX_TEMPERATURE),
                    number(temperature)
                ),
            ));
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
    // Never print a value that is not a number (JSON would show null).
    for (key, value) in report.as_object().into_iter().flatten() {
        if value.is_null() || value.as_f64().is_some_and(|v| !v.is_finite()) {
            return Err(args.refused(
                "temperature",
                format!(
                    "{} is not a finite number at T = {}",
                    key.replace('_', " "),
                    number(temperature)
                ),
            ));
        }
    }
    if args.flag("json") {
        println!("{report}");
    } else {
        println!(
            "Ising {w}×{h} {}, T = {}, h = {}, J = {}, exact by {}",
            boundary.name(),
            number(temperature),
            number(field),
            number(coupling),
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
