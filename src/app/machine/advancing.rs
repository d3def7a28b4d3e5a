//! Learning: the learner stepped a bounded number of sweeps (stochastic) or settlings (mean
//! field) at a time, a whole cycle at once, or started again from the initial weights. Each
//! completed cycle moves to its protocol stage and adds a point to the curves.

use super::{MAX_STEPS_PER_CALL, Machine, MachineLab, STEPS};
use crate::error::ParamError;
use crate::learn::Progress;

impl MachineLab {
    /// Puts every weight back to its start (the same seed gives the same start); the
    /// curves start again.
    pub fn reset_weights(&mut self) -> Result<(), ParamError> {
        let next = MachineLab::build(self.dataset.clone(), self.protocol.clone(), self.seed, None)?;
        let version = self.version + 1;
        *self = next;
        self.version = version;
        Ok(())
    }

    /// Advances by up to `steps` sweeps (stochastic) or settlings (mean field), 0 to
    /// [`MAX_STEPS_PER_CALL`], stopping early at the end of a cycle when `to_cycle_end`.
    /// Returns the cycles completed. Learning that fails keeps the sweeps before the failure.
    pub fn advance(&mut self, steps: u64, to_cycle_end: bool) -> Result<u64, ParamError> {
        let steps = STEPS.check(steps)?;
        self.explore = None;
        let mut completed = 0;
        for _ in 0..steps {
            self.shown = self.machine.learner().position();
            let progress = match &mut self.machine {
                Machine::Stochastic(l) => l.sweep()?,
                Machine::MeanField(l) => l.step()?,
            };
            if progress == Progress::Cycle {
                completed += 1;
                self.version += 1;
                self.apply_stage()?;
                self.record()?;
                if to_cycle_end {
                    break;
                }
            }
        }
        self.refresh();
        Ok(completed)
    }

    /// One whole learning cycle (the rest of the current one).
    pub fn step_cycle(&mut self) -> Result<(), ParamError> {
        self.advance(MAX_STEPS_PER_CALL, true).map(|_| ())
    }
}
