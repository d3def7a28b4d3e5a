//! Exploring by hand: a heat-bath sampler on the current network at the learning
//! temperature, with the visible units clamped to a chosen training pattern or nothing
//! clamped (the machine dreams). Learning waits while it runs; the views show its state.

use super::{EXPLORE_SWEEPS, MachineLab, PATTERN};
use crate::dynamics::{NetworkOrder, NetworkSampler, Rule};
use crate::error::ParamError;

impl MachineLab {
    /// Starts watching the current network by hand at the learning temperature: with the
    /// visible units clamped to training pattern `pattern` (0-based), or (None) nothing
    /// clamped. The free units start random. Learning waits until [`Self::stop_exploring`].
    pub fn explore(&mut self, pattern: Option<u64>) -> Result<(), ParamError> {
        let pattern = pattern
            .map(|k| {
                self.pattern_count()
                    .and_then(|c| PATTERN.up_to(c - 1).check(k))
            })
            .transpose()?;
        let mut sampler = NetworkSampler::new(
            self.network().clone(),
            self.temperature(),
            Rule::HeatBath,
            NetworkOrder::Random,
            self.seed ^ 0xD2EA_u64 ^ self.cycles(),
        )?;
        let explored = pattern.map(|k| k as usize);
        if let Some(k) = explored {
            let kind = self.network().kind();
            let values: Vec<i8> = self.patterns()[k]
                .iter()
                .map(|&b| kind.value(b == 1))
                .collect();
            sampler.clamp_visible(&values)?;
        }
        sampler.randomize_free_units();
        self.explore = Some(sampler);
        self.explored = explored;
        self.refresh();
        Ok(())
    }

    /// The number of training patterns, refused (naming `pattern`) when there are none.
    fn pattern_count(&self) -> Result<u64, ParamError> {
        match self.patterns().len() as u64 {
            0 => Err(ParamError::Invalid {
                field: "pattern",
                reason: "the training set has no patterns".into(),
            }),
            count => Ok(count),
        }
    }

    /// Back to learning.
    pub fn stop_exploring(&mut self) {
        self.explore = None;
        self.refresh();
    }

    /// Whether a hand-run sampler is shown.
    pub fn exploring(&self) -> bool {
        self.explore.is_some()
    }

    /// Sweeps of the hand-run sampler (1 ≤ sweeps ≤ 10⁴); nothing but the refresh when not
    /// exploring.
    pub fn explore_sweeps(&mut self, sweeps: u64) -> Result<(), ParamError> {
        let sweeps = EXPLORE_SWEEPS.check(sweeps)?;
        if let Some(sampler) = &mut self.explore {
            for _ in 0..sweeps {
                sampler.sweep();
            }
        }
        self.refresh();
        Ok(())
    }
}
