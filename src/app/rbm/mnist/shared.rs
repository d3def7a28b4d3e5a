//! The MNIST run's update shared by K learning workers, each holding a replica of the run
//! (the page's data-parallel learning): the three steps of
//! [`crate::learn::rbm::batch`]'s shared update (its `shard` module) with the run's own
//! bookkeeping. A run learnt this way has the bits of one worker alone, so its saved form
//! does not say K and resumes with any K.

use super::MnistLab;
use crate::error::ParamError;
use crate::learn::rbm::batch::Shard;

impl MnistLab {
    /// Step 1 as shard `index` of `count` (1 ≤ count ≤ 64, index < count; errors name
    /// `shards`, `shard`): this replica's chains; returns its rows for the other replicas.
    pub fn share_chains(&mut self, index: usize, count: usize) -> Result<Vec<f32>, ParamError> {
        let shard = Shard::new(index, count)?;
        self.trainer.shard_chains(shard)?;
        self.trainer.shard_rows()
    }

    /// Another replica's rows of step 1 (from [`MnistLab::share_chains`] of shard `from`).
    pub fn share_rows(&mut self, from: usize, values: &[f32]) -> Result<(), ParamError> {
        self.trainer.receive_rows(from, values)
    }

    /// Step 2 (every replica's rows in): returns this replica's block of W's next
    /// velocities and whether all of them are within the divergence limit.
    pub fn share_step(&mut self) -> Result<(Vec<f32>, bool), ParamError> {
        self.trainer.shard_step()?;
        let (block, within) = self.trainer.step_block()?;
        Ok((block.to_vec(), within))
    }

    /// Another replica's block of step 2 (from [`MnistLab::share_step`] of shard `from`).
    pub fn share_block(
        &mut self,
        from: usize,
        block: &[f32],
        within: bool,
    ) -> Result<(), ParamError> {
        self.trainer.receive_step(from, block, within)
    }

    /// Step 3 (every block in): the update made, or the divergence that stops the run, as
    /// an `advance` of one update.
    pub fn finish_shared_update(&mut self) -> Result<(), ParamError> {
        let result = self.trainer.finish_shared_update();
        self.version += 1;
        result
    }

    /// Puts back what an unfinished shared update changed (a peer died): the run goes on
    /// with the bits it would have had.
    pub fn abandon_shared_update(&mut self) {
        self.trainer.abandon_shared_update();
    }

    /// Whether a shared update is under way.
    pub fn sharing(&self) -> bool {
        self.trainer.sharing()
    }
}
