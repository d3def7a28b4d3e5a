//! Annealing schedules: a list of (T, sweeps) steps, run in order.
//!
//! Simulated annealing lowers the temperature step by step so that a sampler settles into
//! low-energy states instead of freezing into the first local minimum: Ackley, Hinton and
//! Sejnowski's Boltzmann machine settles with 2 sweeps at T = 20, 2 at 15, 2 at 12 and 4 at
//! 10. A schedule is validated once, when it is made, so running it cannot fail.

use crate::error::{ParamError, TemperatureDomain, check_temperature, whole_in};

/// Longest schedule: 1024 steps.
pub const MAX_SCHEDULE_STEPS: usize = 1024;
/// Most sweeps a schedule may ask for in total: 10⁶.
pub const MAX_SCHEDULE_SWEEPS: u64 = 1_000_000;

/// Something with a temperature that can be swept: a lattice or a network sampler.
pub trait Thermal {
    fn set_temperature(&mut self, temperature: f64) -> Result<(), ParamError>;
    fn sweep(&mut self);
}

/// A validated annealing schedule: steps (T, sweeps) with 0 ≤ T ≤ ∞.
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    steps: Vec<(f64, u64)>,
}

impl Schedule {
    /// Checks every step: 1 to [`MAX_SCHEDULE_STEPS`] steps, each T with 0 ≤ T ≤ ∞, each
    /// sweep count a whole number, at most [`MAX_SCHEDULE_SWEEPS`] in total. Sweep counts
    /// are `f64` so that values from outside get a typed error, not a silent cast.
    pub fn new(steps: &[(f64, f64)]) -> Result<Schedule, ParamError> {
        if !(1..=MAX_SCHEDULE_STEPS).contains(&steps.len()) {
            return Err(ParamError::OutOfRange {
                field: "schedule steps",
                value: steps.len() as f64,
                min: 1.0,
                max: MAX_SCHEDULE_STEPS as f64,
            });
        }
        let mut checked = Vec::with_capacity(steps.len());
        let mut total = 0;
        for (k, &(temperature, sweeps)) in steps.iter().enumerate() {
            let step_error = |e: ParamError| ParamError::Invalid {
                field: "schedule",
                reason: format!("step {}: {e}", k + 1),
            };
            let temperature =
                check_temperature(temperature, TemperatureDomain::Sampling).map_err(step_error)?;
            let sweeps = whole_in("sweeps", sweeps, 0, MAX_SCHEDULE_SWEEPS).map_err(step_error)?;
            total += sweeps;
            checked.push((temperature, sweeps));
        }
        if total > MAX_SCHEDULE_SWEEPS {
            return Err(ParamError::OutOfRange {
                field: "schedule sweeps",
                value: total as f64,
                min: 0.0,
                max: MAX_SCHEDULE_SWEEPS as f64,
            });
        }
        Ok(Schedule { steps: checked })
    }

    /// Parses `T:sweeps,T:sweeps,…`, e.g. `20:2,15:2,12:2,10:4`.
    pub fn parse(text: &str) -> Result<Schedule, ParamError> {
        let bad = |part: &str| ParamError::Invalid {
            field: "schedule",
            reason: format!("'{part}' is not T:sweeps (for example 20:2,15:2,12:2,10:4)"),
        };
        let steps = text
            .split(',')
            .map(|part| {
                let (t, s) = part.trim().split_once(':').ok_or_else(|| bad(part))?;
                let t = t.trim().parse::<f64>().map_err(|_| bad(part))?;
                let s = s.trim().parse::<f64>().map_err(|_| bad(part))?;
                Ok((t, s))
            })
            .collect::<Result<Vec<_>, ParamError>>()?;
        Schedule::new(&steps)
    }

    /// The steps (T, sweeps).
    pub fn steps(&self) -> &[(f64, u64)] {
        &self.steps
    }

    /// Σ sweeps.
    pub fn total_sweeps(&self) -> u64 {
        self.steps.iter().map(|&(_, s)| s).sum()
    }

    /// The last step's temperature.
    pub fn final_temperature(&self) -> f64 {
        self.steps[self.steps.len() - 1].0
    }

    /// Runs the steps in order; the sampler stays at the last step's temperature.
    pub fn run(&self, sampler: &mut impl Thermal) {
        for &(temperature, sweeps) in &self.steps {
            sampler
                .set_temperature(temperature)
                .expect("schedule temperatures were validated");
            for _ in 0..sweeps {
                sampler.sweep();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_schedule_parses_and_bad_ones_are_refused_by_step() {
        let s = Schedule::parse("20:2, 15:2,12:2,10:4").unwrap();
        assert_eq!(s.steps(), &[(20.0, 2), (15.0, 2), (12.0, 2), (10.0, 4)]);
        assert_eq!(s.total_sweeps(), 10);
        assert_eq!(s.final_temperature(), 10.0);
        for (text, needle) in [
            ("20:2,-1:3", "step 2: temperature"),
            ("20:2.5", "step 1: sweeps must be a whole number"),
            ("20", "not T:sweeps"),
            ("", "not T:sweeps"),
            ("nan:2", "step 1: temperature"),
            ("10:2000000", "sweeps must be between"),
        ] {
            let err = Schedule::parse(text).unwrap_err().to_string();
            assert!(err.contains(needle), "{text}: {err}");
        }
        assert!(Schedule::new(&[]).is_err());
        assert!(Schedule::new(&[(1.0, 600_000.0), (1.0, 600_000.0)]).is_err());
    }
}
