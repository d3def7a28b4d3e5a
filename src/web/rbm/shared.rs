//! The MNIST run's update shared by K learning workers, exported to JavaScript (the page's
//! www/machine/mnist_team.js drives the three steps; `app::rbm::mnist`'s `shared` module
//! says what each does).

use super::WebMnistLab;
use crate::web::js_error;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(js_class = MnistLab)]
impl WebMnistLab {
    /// Step 1 as shard `index` of `count`: this replica's chains; returns its rows (P₀, X, P)
    /// for the other replicas.
    pub fn share_chains(&mut self, index: usize, count: usize) -> Result<Vec<f32>, JsError> {
        self.lab.share_chains(index, count).map_err(js_error)
    }

    /// Shard `from`'s rows of step 1.
    pub fn share_rows(&mut self, from: usize, values: &[f32]) -> Result<(), JsError> {
        self.lab.share_rows(from, values).map_err(js_error)
    }

    /// Step 2: this replica's block of W's next velocities (whether all of them are within
    /// the divergence limit: [`WebMnistLab::step_within`]).
    pub fn share_step(&mut self) -> Result<Vec<f32>, JsError> {
        let (block, within) = self.lab.share_step().map_err(js_error)?;
        self.step_within = within;
        Ok(block)
    }

    /// Whether the block of the last `share_step` is within the divergence limit.
    pub fn step_within(&self) -> bool {
        self.step_within
    }

    /// Shard `from`'s block of step 2 with its `within` flag.
    pub fn share_block(&mut self, from: usize, block: &[f32], within: bool) -> Result<(), JsError> {
        self.lab.share_block(from, block, within).map_err(js_error)
    }

    /// Step 3: the update made (or the divergence that stops the run).
    pub fn finish_shared_update(&mut self) -> Result<(), JsError> {
        self.lab.finish_shared_update().map_err(js_error)
    }

    /// Puts back what an unfinished shared update changed.
    pub fn abandon_shared_update(&mut self) {
        self.lab.abandon_shared_update();
    }

    /// Whether a shared update is under way.
    pub fn sharing(&self) -> bool {
        self.lab.sharing()
    }
}
