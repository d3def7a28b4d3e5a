//! The protocol's stages: which clamping noise and hidden–hidden wiring each learning cycle
//! has (one stage for every problem but the 40-10-40 encoder, which has the paper's three).

use super::MachineLab;
use crate::error::ParamError;

impl MachineLab {
    /// The protocol stage (0-based) that learning cycle `cycle` (1-based) belongs to: the
    /// first whose `until` is at least `cycle`, as the CLI's `reproduce` runs them.
    pub fn stage_of(&self, cycle: u64) -> usize {
        let stages = &self.protocol.stages;
        stages
            .iter()
            .position(|s| cycle <= s.until)
            .unwrap_or(stages.len() - 1)
    }

    /// Sets the clamping noise and hidden–hidden connections of the stage of the next
    /// cycle.
    pub(super) fn apply_stage(&mut self) -> Result<(), ParamError> {
        let stage = self.protocol.stages[self.stage_of(self.cycles() + 1)];
        let learner = self.machine.learner_mut();
        learner.set_noise(stage.noise)?;
        learner.set_hidden_connected(stage.hidden_connected);
        Ok(())
    }

    /// Stages of the protocol (1 for all but the 40-10-40 encoder).
    pub fn stage_count(&self) -> usize {
        self.protocol.stages.len()
    }

    /// The stage of the cycle under way, described: "stage 2 of 3 (cycles 301–800): …";
    /// empty when the protocol has one stage.
    pub fn stage_text(&self) -> String {
        let stages = &self.protocol.stages;
        if stages.len() <= 1 {
            return String::new();
        }
        let k = self.stage_of(self.cycles() + 1);
        let stage = stages[k];
        let first = if k == 0 { 1 } else { stages[k - 1].until + 1 };
        let span = if stage.until == u64::MAX {
            format!("cycles {first} on")
        } else {
            format!("cycles {first}–{}", stage.until)
        };
        let noise = if stage.noise.is_none() {
            "noise-free clamping".to_string()
        } else {
            format!(
                "noisy clamping (on→off {}, off→on {})",
                stage.noise.on_to_off, stage.noise.off_to_on
            )
        };
        let hidden = if stage.hidden_connected {
            "hidden units connected to each other"
        } else {
            "no hidden–hidden connections"
        };
        format!(
            "stage {} of {} ({span}): {noise}, {hidden}; the paper's protocol ends at cycle {}",
            k + 1,
            stages.len(),
            self.protocol.max_cycles
        )
    }
}
