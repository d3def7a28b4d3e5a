//! The temperature-sweep experiment: a lattice cooled from T_high to T_low through equally
//! spaced temperatures, burnt in and then measured at each.
//!
//! At each temperature T the sampler (continuing from the previous temperature's state) does
//! `burn_in` sweeps unmeasured, then `measure` sweeps with one measurement after each, and
//! reports, per spin (e = E/N, m = M/N, β = 1/T):
//!
//! - ⟨|m|⟩ and u = ⟨e⟩, with standard errors σ·√(2τ_int/N) from their autocorrelation
//!   times;
//! - c = β² N (⟨e²⟩ − ⟨e⟩²) and χ = β N (⟨m²⟩ − ⟨|m|⟩²), with jackknife errors over blocks
//!   at least 4τ_int long,
//!
//! each with its τ_int (in sweeps) and a flag, `converged`, false when the measurement was
//! shorter than [`MIN_TAUS`]·τ_int: then the error bar is a lower bound. All from the one
//! accumulator `boltzlab ising` uses too ([`ThermalSeries`]). With Wolff
//! dynamics a "sweep" is a number of cluster moves that flips about N spins, calibrated in
//! the burn-in and fixed for the measurement ([`WolffCalibration`], also the CLI's).
//!
//! The work is cut into [`TemperatureScan::advance`] calls of a bounded number of sweeps, so
//! a page can run a scan a little per animation frame and cancel it at any time.

use crate::app::count::Count;
use crate::dynamics::LatticeSampler;
use crate::error::{ParamError, finite_in};
#[cfg(doc)]
use crate::estimate::observables::MIN_TAUS;
use crate::estimate::observables::{Estimate, ThermalSeries, WolffCalibration};

/// Lowest temperature a scan may visit (c and χ need β = 1/T).
pub const MIN_SCAN_TEMPERATURE: f64 = 0.01;
/// Highest temperature a scan may visit.
pub const MAX_SCAN_TEMPERATURE: f64 = 100.0;
/// Most temperatures in one scan.
pub const MAX_POINTS: u64 = 200;
/// Most burn-in or measurement sweeps per temperature.
pub const MAX_SWEEPS_PER_POINT: u64 = 1_000_000;

/// Temperatures in one scan: 2 to [`MAX_POINTS`].
pub const POINTS: Count = Count {
    field: "points",
    min: 2,
    max: MAX_POINTS,
};
/// Burn-in sweeps per temperature: 0 to [`MAX_SWEEPS_PER_POINT`].
pub const BURN_IN: Count = Count {
    field: "burn-in sweeps",
    min: 0,
    max: MAX_SWEEPS_PER_POINT,
};
/// Measurement sweeps per temperature: 2 to [`MAX_SWEEPS_PER_POINT`].
pub const MEASURE: Count = Count {
    field: "measurement sweeps",
    min: 2,
    max: MAX_SWEEPS_PER_POINT,
};

/// A checked plan: from `t_high` down to `t_low` in `points` equal steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScanPlan {
    pub t_high: f64,
    pub t_low: f64,
    pub points: usize,
    pub burn_in: u64,
    pub measure: u64,
}

impl ScanPlan {
    /// Checks a plan: MIN ≤ T_low < T_high ≤ MAX, [`POINTS`] temperatures, [`BURN_IN`]
    /// burn-in sweeps and [`MEASURE`] measurement sweeps per temperature.
    pub fn new(
        t_high: f64,
        t_low: f64,
        points: u64,
        burn_in: u64,
        measure: u64,
    ) -> Result<ScanPlan, ParamError> {
        let t_high = finite_in("T high", t_high, MIN_SCAN_TEMPERATURE, MAX_SCAN_TEMPERATURE)?;
        let t_low = finite_in("T low", t_low, MIN_SCAN_TEMPERATURE, MAX_SCAN_TEMPERATURE)?;
        if t_low >= t_high {
            return Err(ParamError::Invalid {
                field: "T high",
                reason: format!(
                    "not above T low (got T high = {t_high}, T low = {t_low}): the sweep cools \
                     from T high down to T low"
                ),
            });
        }
        Ok(ScanPlan {
            t_high,
            t_low,
            points: POINTS.check(points)? as usize,
            burn_in: BURN_IN.check(burn_in)?,
            measure: MEASURE.check(measure)?,
        })
    }

    /// The temperatures, from T_high down to T_low.
    pub fn temperatures(&self) -> Vec<f64> {
        let last = (self.points - 1) as f64;
        (0..self.points)
            .map(|k| self.t_high + (self.t_low - self.t_high) * k as f64 / last)
            .collect()
    }

    /// Sweeps per temperature.
    pub fn sweeps_per_point(&self) -> u64 {
        self.burn_in + self.measure
    }

    /// Sweeps in the whole scan.
    pub fn total_sweeps(&self) -> u64 {
        self.sweeps_per_point() * self.points as u64
    }
}

/// The results so far, one entry per finished temperature, as columns: for each of ⟨|m|⟩,
/// u, c and χ the value, its standard error, τ_int in sweeps (`_tau`) and whether the
/// measurement was long enough to trust the error (`_converged`, [`Estimate::converged`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScanResults {
    pub temperature: Vec<f64>,
    pub abs_magnetization: Vec<f64>,
    pub abs_magnetization_error: Vec<f64>,
    pub abs_magnetization_tau: Vec<f64>,
    pub abs_magnetization_converged: Vec<bool>,
    pub energy: Vec<f64>,
    pub energy_error: Vec<f64>,
    pub energy_tau: Vec<f64>,
    pub energy_converged: Vec<bool>,
    pub specific_heat: Vec<f64>,
    pub specific_heat_error: Vec<f64>,
    pub specific_heat_tau: Vec<f64>,
    pub specific_heat_converged: Vec<bool>,
    pub susceptibility: Vec<f64>,
    pub susceptibility_error: Vec<f64>,
    pub susceptibility_tau: Vec<f64>,
    pub susceptibility_converged: Vec<bool>,
}

/// One observable's columns in [`ScanResults`]: per finished temperature its value, standard
/// error, τ_int in sweeps and whether the error can be trusted.
#[derive(Debug, Clone, Copy)]
pub struct Column<'a> {
    pub value: &'a [f64],
    pub error: &'a [f64],
    pub tau: &'a [f64],
    pub converged: &'a [bool],
}

impl ScanResults {
    pub fn len(&self) -> usize {
        self.temperature.len()
    }

    pub fn is_empty(&self) -> bool {
        self.temperature.is_empty()
    }

    fn push(&mut self, t: f64, abs_m: Estimate, u: Estimate, c: Estimate, chi: Estimate) {
        self.temperature.push(t);
        self.abs_magnetization.push(abs_m.mean);
        self.abs_magnetization_error.push(abs_m.stderr);
        self.abs_magnetization_tau.push(abs_m.tau);
        self.abs_magnetization_converged.push(abs_m.converged);
        self.energy.push(u.mean);
        self.energy_error.push(u.stderr);
        self.energy_tau.push(u.tau);
        self.energy_converged.push(u.converged);
        self.specific_heat.push(c.mean);
        self.specific_heat_error.push(c.stderr);
        self.specific_heat_tau.push(c.tau);
        self.specific_heat_converged.push(c.converged);
        self.susceptibility.push(chi.mean);
        self.susceptibility_error.push(chi.stderr);
        self.susceptibility_tau.push(chi.tau);
        self.susceptibility_converged.push(chi.converged);
    }

    /// The four observables' columns, in the order ⟨|m|⟩, u, c, χ (the CSV's and the
    /// page's order).
    pub fn columns(&self) -> [Column<'_>; 4] {
        let column = |value, error, tau, converged| Column {
            value,
            error,
            tau,
            converged,
        };
        [
            column(
                &self.abs_magnetization,
                &self.abs_magnetization_error,
                &self.abs_magnetization_tau,
                &self.abs_magnetization_converged,
            ),
            column(
                &self.energy,
                &self.energy_error,
                &self.energy_tau,
                &self.energy_converged,
            ),
            column(
                &self.specific_heat,
                &self.specific_heat_error,
                &self.specific_heat_tau,
                &self.specific_heat_converged,
            ),
            column(
                &self.susceptibility,
                &self.susceptibility_error,
                &self.susceptibility_tau,
                &self.susceptibility_converged,
            ),
        ]
    }

    /// Whether every estimate at point k was measured long enough to trust its error.
    pub fn converged(&self, k: usize) -> bool {
        self.columns().iter().all(|column| column.converged[k])
    }

    /// The results as CSV, one row per temperature, with a header line: per observable the
    /// value, `_stderr`, `_tau` (τ_int in sweeps) and `_converged` (`true`, or `false` when
    /// the measurement was shorter than [`MIN_TAUS`]·τ and the error is a lower bound).
    pub fn to_csv(&self) -> String {
        let mut csv = String::from(
            "temperature,abs_magnetization_per_spin,abs_magnetization_stderr,\
             abs_magnetization_tau,abs_magnetization_converged,\
             energy_per_spin,energy_stderr,energy_tau,energy_converged,\
             specific_heat_per_spin,specific_heat_stderr,specific_heat_tau,\
             specific_heat_converged,\
             susceptibility_per_spin,susceptibility_stderr,susceptibility_tau,\
             susceptibility_converged\n",
        );
        for k in 0..self.len() {
            let mut row = vec![self.temperature[k].to_string()];
            for column in self.columns() {
                row.extend([
                    column.value[k].to_string(),
                    column.error[k].to_string(),
                    column.tau[k].to_string(),
                    column.converged[k].to_string(),
                ]);
            }
            csv.push_str(&row.join(","));
            csv.push('\n');
        }
        csv
    }
}

/// A scan in progress: its own sampler, the position in the plan and the results so far.
#[derive(Debug, Clone)]
pub struct TemperatureScan {
    plan: ScanPlan,
    temperatures: Vec<f64>,
    sampler: LatticeSampler,
    /// The temperature being run (== temperatures.len() when done).
    point: usize,
    /// Sweeps done at this temperature.
    sweeps_here: u64,
    /// This temperature's measurements.
    series: ThermalSeries,
    /// Wolff only: cluster moves per sweep.
    calibration: WolffCalibration,
    results: ScanResults,
    cancelled: bool,
}

impl TemperatureScan {
    /// A scan of `plan` that runs `sampler` (a copy of the live one, say) from its state.
    pub fn new(plan: ScanPlan, sampler: LatticeSampler) -> TemperatureScan {
        TemperatureScan {
            temperatures: plan.temperatures(),
            plan,
            sampler,
            point: 0,
            sweeps_here: 0,
            series: ThermalSeries::new(),
            calibration: WolffCalibration::new(),
            results: ScanResults::default(),
            cancelled: false,
        }
    }

    pub fn plan(&self) -> &ScanPlan {
        &self.plan
    }

    pub fn sampler(&self) -> &LatticeSampler {
        &self.sampler
    }

    pub fn results(&self) -> &ScanResults {
        &self.results
    }

    /// True once every temperature is measured, or the scan was cancelled.
    pub fn is_done(&self) -> bool {
        self.cancelled || self.point == self.temperatures.len()
    }

    /// Stops the scan for good, keeping the temperatures finished so far.
    pub fn cancel(&mut self) {
        self.cancelled = true;
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled
    }

    /// The temperature being run (the last one once done).
    pub fn temperature(&self) -> f64 {
        self.temperatures[self.point.min(self.temperatures.len() - 1)]
    }

    /// Fraction of the planned sweeps done, 0 to 1.
    pub fn progress(&self) -> f64 {
        let done = self.point as u64 * self.plan.sweeps_per_point() + self.sweeps_here;
        done as f64 / self.plan.total_sweeps().max(1) as f64
    }

    /// Runs at most `sweeps` sweeps of the plan (fewer if it finishes); returns how many.
    pub fn advance(&mut self, sweeps: u64) -> u64 {
        let mut done = 0;
        while done < sweeps && !self.is_done() {
            if self.sweeps_here == 0 {
                self.sampler
                    .set_temperature(self.temperatures[self.point])
                    .expect("scan temperatures were checked");
                self.series = ThermalSeries::new();
                self.calibration.restart();
            }
            let measuring = self.sweeps_here >= self.plan.burn_in;
            self.calibration.sweep(&mut self.sampler, measuring);
            if measuring {
                self.series.push(&self.sampler);
            }
            self.sweeps_here += 1;
            done += 1;
            if self.sweeps_here == self.plan.sweeps_per_point() {
                self.finish_point();
            }
        }
        done
    }

    fn finish_point(&mut self) {
        let t = self.temperatures[self.point];
        let e = self.series.estimates(t, self.sampler.lattice().len());
        self.results.push(
            t,
            e.abs_magnetization,
            e.energy,
            e.specific_heat,
            e.susceptibility,
        );
        self.point += 1;
        self.sweeps_here = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::Dynamics;
    use crate::exact::closed_form::CRITICAL_TEMPERATURE;
    use crate::model::Lattice;

    #[test]
    fn plans_are_checked_and_name_the_bad_value() {
        assert!(ScanPlan::new(3.5, 1.5, 12, 100, 200).is_ok());
        // (Whole numbers from outside are read at the wire: tests/protocol.rs.)
        for (plan, needle) in [
            ((1.5, 3.5, 12, 100, 200), "T high: not above T low"),
            ((3.5, 0.0, 12, 100, 200), "T low must be between 0.01"),
            ((f64::NAN, 1.0, 12, 100, 200), "T high must be a finite"),
            ((3.5, 1.5, 1, 100, 200), "points must be between 2"),
            ((3.5, 1.5, 201, 100, 200), "points must be between 2"),
            (
                (3.5, 1.5, 4, 1_000_001, 200),
                "burn-in sweeps must be between 0",
            ),
            ((3.5, 1.5, 4, 10, 1), "measurement sweeps must be between 2"),
        ] {
            let (a, b, c, d, e) = plan;
            let err = ScanPlan::new(a, b, c, d, e).unwrap_err().to_string();
            assert!(err.contains(needle), "{plan:?}: {err}");
        }
        let plan = ScanPlan::new(3.0, 1.0, 5, 1, 2).unwrap();
        assert_eq!(plan.temperatures(), [3.0, 2.5, 2.0, 1.5, 1.0]);
        assert_eq!(plan.total_sweeps(), 15);
    }

    #[test]
    fn a_scan_finishes_in_bounded_steps_and_its_magnetisation_falls_through_t_c() {
        for dynamics in [Dynamics::Single(crate::Rule::HeatBath), Dynamics::Wolff] {
            let mut sampler = LatticeSampler::new(Lattice::square(24).unwrap(), 4.0, 2).unwrap();
            sampler.set_dynamics(dynamics).unwrap();
            let plan = ScanPlan::new(3.4, 1.4, 6, 200, 400).unwrap();
            let mut scan = TemperatureScan::new(plan, sampler);
            let mut calls = 0;
            while !scan.is_done() {
                assert!(scan.advance(37) <= 37);
                calls += 1;
            }
            assert_eq!(calls, plan.total_sweeps().div_ceil(37));
            assert_eq!(scan.progress(), 1.0);
            let r = scan.results();
            assert_eq!(r.len(), 6);
            // Far above T_c a 24² lattice has ⟨|m|⟩ ≈ a few χ/√N; far below, near Onsager's
            // m(1.4) = 0.9993.
            let (hot, cold) = (r.abs_magnetization[0], r.abs_magnetization[5]);
            assert!(hot < 0.3 && cold > 0.95, "{dynamics:?}: {hot} {cold}");
            assert!(
                r.temperature[0] > CRITICAL_TEMPERATURE && r.temperature[5] < CRITICAL_TEMPERATURE
            );
            assert!(r.energy_error.iter().all(|e| e.is_finite() && *e >= 0.0));
            assert!(r.specific_heat.iter().all(|c| c.is_finite() && *c > 0.0));
            let csv = r.to_csv();
            assert_eq!(csv.lines().count(), 7);
            assert!(csv.starts_with("temperature,abs_magnetization_per_spin"));
        }
    }

    #[test]
    fn a_cancelled_scan_stops_and_keeps_what_it_finished() {
        let sampler = LatticeSampler::new(Lattice::square(8).unwrap(), 4.0, 2).unwrap();
        let plan = ScanPlan::new(3.0, 1.0, 5, 2, 2).unwrap();
        let mut scan = TemperatureScan::new(plan, sampler);
        scan.advance(9);
        scan.cancel();
        assert!(scan.is_done() && scan.is_cancelled());
        assert_eq!(scan.advance(100), 0);
        assert_eq!(scan.results().len(), 2);
    }

    /// Whether the lesson's point at T (32×32 periodic, heat bath, 200 burn-in and 500
    /// measured sweeps) is flagged, for each of `seeds`; `ordered`: start all up.
    fn lesson_point_flagged(
        t: f64,
        ordered: bool,
        seeds: std::ops::RangeInclusive<u64>,
    ) -> Vec<bool> {
        seeds
            .map(|seed| {
                let mut sampler = LatticeSampler::new(Lattice::square(32).unwrap(), t, seed).unwrap();
                if ordered {
                    sampler.fill(1);
                }
                let plan = ScanPlan::new(t, 1.0, 2, 200, 500).unwrap();
                let mut scan = TemperatureScan::new(plan, sampler);
                scan.advance(plan.sweeps_per_point());
                let r = scan.results();
                println!(
                    "T = {t} seed {seed}: |m| = {:.4} ± {:.4}, τ = {:.1}; χ = {:.3} ± {:.3}, τ = {:.1}",
                    r.abs_magnetization[0],
                    r.abs_magnetization_error[0],
                    r.abs_magnetization_tau[0],
                    r.susceptibility[0],
                    r.susceptibility_error[0],
                    r.susceptibility_tau[0]
                );
                !r.converged(0)
            })
            .collect()
    }

    #[test]
    fn the_lessons_short_sweep_is_flagged_near_t_c_and_not_far_from_it() {
        // Law: 500 sweeps are fewer than MIN_TAUS = 100 autocorrelation times at T = 2.5 on
        // 32×32 (τ(|m|) ≈ 20–40 sweeps), and many more at T = 4 or deep in the ordered phase
        // (τ ≈ 1–2). Flagged when τ̂ > 5 for some observable. Measured over 60 seeds: at
        // T = 2.5, τ̂(|m|) ran from 5.5 to 96 (median 23), every run flagged; at T = 4 the
        // largest τ̂ of any observable was 2.6, at T = 1.5 (ordered start) 2.8.
        // Rates: at T = 2.5 a run escapes the flag with probability p < 5 % (95 % bound from
        // 0 of 60); "at least 4 of 7 seeds flagged" then fails with < 2·10⁻⁴. At T = 4 and
        // 1.5 a flag needs τ̂ ≈ 3.7× its median, ≈ 10 of its standard deviations
        // (√(2(2M+1)/N) ≈ 0.27 relative): < 10⁻⁵ per run even allowing for τ̂'s skew.
        // T = 1.5 starts ordered: cooled from a random start the lattice may stay striped,
        // and then the flag is rightly raised (17 of 60 seeds).
        let near = lesson_point_flagged(2.5, false, 1..=7);
        assert!(near.iter().filter(|&&f| f).count() >= 4, "{near:?}");
        for (t, ordered) in [(4.0, false), (1.5, true)] {
            let far = lesson_point_flagged(t, ordered, 1..=7);
            assert!(far.iter().all(|&f| !f), "T = {t}: {far:?}");
        }
    }
}
