//! The restricted-machine facade: `RbmLab` for the page's digits view.
//!
//! A thin wrapper over [`crate::app::RbmLab`]. The run changes through one door,
//! `RbmLab::dispatch`, which decodes an `RbmCommand` object (serde-wasm-bindgen) and returns
//! the `RbmReply` (the protocol: `app::rbm::command`). The older exported methods that change
//! the run stay for the page: each reads its numbers once, through the same counts as the
//! wire, builds its command and goes through the same dispatcher. Values from the page are
//! checked by the engine (errors are thrown as `Error`s naming the field, and nothing
//! changes); the views read particles, reconstructions, filters, curves, the gallery and the
//! completion through typed-array views over wasm memory from the pointers below.

use super::{decoding_error, js_error};
use crate::app::rbm::mnist::{MnistCommand, MnistLab, MnistLikelihood};
use crate::app::rbm::points::PointScorer;
use crate::app::rbm::{
    CHAIN_STEPS, GALLERY_IMAGES, GALLERY_STEPS, LEARNING_WORK, LIKELIHOOD_EVERY, LIKELIHOOD_WORK,
    Mask, RbmTraining, TEST_IMAGE, UPDATES,
};
use crate::app::rbm::{HIDDEN, SEED};
use crate::app::{RbmCommand, RbmLab, RbmReply};
use wasm_bindgen::prelude::*;

/// The MNIST run's update shared by several learning workers.
mod shared;

/// Whether `steps` is a step count a completion or gallery call takes (CHAIN_STEPS: 1 to
/// 100 000), refused with the engine's reason otherwise: the page checks the completion's
/// steps before it starts one, which then advances by them.
#[wasm_bindgen]
pub fn check_chain_steps(steps: f64) -> Result<(), JsError> {
    CHAIN_STEPS.read(steps).map(|_| ()).map_err(js_error)
}

/// Whether `every` is a number of updates between log-likelihood points (LIKELIHOOD_EVERY:
/// 1 to 10⁶), refused with the engine's reason otherwise: the MNIST page checks its box before
/// it tells the learning worker, which only keeps the number.
#[wasm_bindgen]
pub fn check_likelihood_every(every: f64) -> Result<(), JsError> {
    LIKELIHOOD_EVERY.read(every).map(|_| ()).map_err(js_error)
}

/// One restricted-machine learning run.
#[wasm_bindgen(js_name = RbmLab)]
pub struct WebRbmLab {
    lab: RbmLab,
}

/// The older changing methods, as Rust: each builds its command and goes through the one
/// dispatcher, as the page's command objects do.
impl WebRbmLab {
    fn command(&mut self, command: RbmCommand) -> Result<RbmReply, JsError> {
        self.lab.apply(command).map_err(js_error)
    }

    /// A number from the page read as a count (the wire's reading).
    fn count(count: crate::app::rbm::Count, value: f64) -> Result<u64, JsError> {
        count.read(value).map_err(js_error)
    }

    fn learned(reply: RbmReply) -> f64 {
        match reply {
            RbmReply::Learned { updates } => updates as f64,
            other => unreachable!("learning answers learned, not {other:?}"),
        }
    }
}

/// Public methods, exported to JavaScript.
#[wasm_bindgen(js_class = RbmLab)]
impl WebRbmLab {
    /// A run on `bars-4x4` or `digits8` with `hidden` units from `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(dataset: &str, hidden: f64, seed: f64) -> Result<WebRbmLab, JsError> {
        let (hidden, seed) = (Self::count(HIDDEN, hidden)?, Self::count(SEED, seed)?);
        let lab = RbmLab::new(dataset, hidden, seed).map_err(js_error)?;
        Ok(WebRbmLab { lab })
    }

    /// A run on the user's file: a digits file (`DIGITS8` format) or text, one image per
    /// line of 0s and 1s.
    pub fn from_bytes(bytes: &[u8], hidden: f64, seed: f64) -> Result<WebRbmLab, JsError> {
        let (hidden, seed) = (Self::count(HIDDEN, hidden)?, Self::count(SEED, seed)?);
        let lab = RbmLab::from_bytes(bytes, hidden, seed).map_err(js_error)?;
        Ok(WebRbmLab { lab })
    }

    /// The one door for changes: decodes an `RbmCommand` object (`{command: "learn", work:
    /// 100000}`, see the TypeScript types), makes it, and returns the `RbmReply`; a command
    /// that cannot be decoded or is refused is thrown as an `Error` naming the field, and
    /// nothing changes.
    #[wasm_bindgen(unchecked_return_type = "RbmReply")]
    pub fn dispatch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "RbmCommand")] command: JsValue,
    ) -> Result<JsValue, JsError> {
        let command: RbmCommand =
            serde_wasm_bindgen::from_value(command).map_err(decoding_error)?;
        let reply = self.command(command)?;
        serde_wasm_bindgen::to_value(&reply).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The run as the engine's session text (opaque, exact: see `app::rbm::session`).
    pub fn session(&self) -> String {
        self.lab.session()
    }

    /// The run a session text describes, continuing exactly where it was saved; a bad text
    /// is refused with an `Error` naming the field.
    pub fn from_session(text: &str) -> Result<WebRbmLab, JsError> {
        let lab = RbmLab::from_session(text).map_err(js_error)?;
        Ok(WebRbmLab { lab })
    }

    /// The learning options as JSON with the page's names (`statistics`, `steps`,
    /// `particles`, `replicas`, `batch`, `rate`, `momentum`, `decay`); `null` where the
    /// statistics have no such number.
    pub fn training_json(&self) -> String {
        let t = self.lab.training();
        let number = |x: f64| {
            if x.is_nan() {
                serde_json::Value::Null
            } else {
                serde_json::json!(x)
            }
        };
        serde_json::json!({
            "statistics": t.statistics,
            "steps": t.steps,
            "particles": number(t.particles),
            "replicas": number(t.replicas),
            "batch": t.batch,
            "rate": t.rate,
            "momentum": t.momentum,
            "decay": t.decay,
        })
        .to_string()
    }

    /// The learning options as the `training` of an `RbmCommand` (`set-training`, `new-run`):
    /// what a checked `set_training` made of the page's numbers, ready to send to the worker.
    #[wasm_bindgen(unchecked_return_type = "Training")]
    pub fn training(&self) -> Result<JsValue, JsError> {
        serde_wasm_bindgen::to_value(&self.lab.typed_training())
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// Updates between log-likelihood points.
    pub fn likelihood_every(&self) -> f64 {
        self.lab.likelihood_every() as f64
    }

    /// The learning options (`cd`, `persistent` or `tempering`; k, particles, replicas,
    /// batch, rate, momentum, weight decay); refused with nothing changed if any is bad.
    #[allow(clippy::too_many_arguments)]
    pub fn set_training(
        &mut self,
        statistics: &str,
        steps: f64,
        particles: f64,
        replicas: f64,
        batch: f64,
        rate: f64,
        momentum: f64,
        decay: f64,
    ) -> Result<(), JsError> {
        let training = RbmTraining {
            statistics: statistics.into(),
            steps,
            particles,
            replicas,
            batch,
            rate,
            momentum,
            decay,
        }
        .typed(self.lab.training_images().len())
        .map_err(js_error)?;
        self.command(RbmCommand::SetTraining { training })
            .map(|_| ())
    }

    /// Whether `set_training` would take these options, refused for the same reason, with
    /// nothing set (the check of the options waiting for Apply options, as learning is run).
    #[allow(clippy::too_many_arguments)]
    pub fn check_training(
        &self,
        statistics: &str,
        steps: f64,
        particles: f64,
        replicas: f64,
        batch: f64,
        rate: f64,
        momentum: f64,
        decay: f64,
    ) -> Result<(), JsError> {
        self.lab
            .check_training(&RbmTraining {
                statistics: statistics.into(),
                steps,
                particles,
                replicas,
                batch,
                rate,
                momentum,
                decay,
            })
            .map_err(js_error)
    }

    pub fn set_likelihood_every(&mut self, every: f64) -> Result<(), JsError> {
        let every = Self::count(LIKELIHOOD_EVERY, every)?;
        self.command(RbmCommand::SetLikelihoodEvery { every })
            .map(|_| ())
    }

    /// Up to `updates` mini-batch updates; returns the updates done.
    pub fn advance(&mut self, updates: f64) -> Result<f64, JsError> {
        let updates = Self::count(UPDATES, updates)?;
        self.command(RbmCommand::Advance { updates })
            .map(Self::learned)
    }

    /// Learns for about `work` multiply-adds, in slices of an update (resumed by the next
    /// call); returns the updates completed.
    pub fn learn(&mut self, work: f64) -> Result<f64, JsError> {
        let work = Self::count(LEARNING_WORK, work)?;
        self.command(RbmCommand::Learn { work }).map(Self::learned)
    }

    /// Multiply-adds of one whole update.
    pub fn update_work(&self) -> f64 {
        self.lab.update_work()
    }

    /// Brings the particle grid and the reconstructions up to date.
    pub fn refresh(&mut self) {
        self.lab
            .apply(RbmCommand::Refresh { means: true })
            .expect("a refresh is never refused");
    }

    pub fn dataset(&self) -> String {
        self.lab.dataset().into()
    }

    pub fn width(&self) -> usize {
        self.lab.width()
    }

    pub fn visible(&self) -> usize {
        self.lab.visible()
    }

    pub fn hidden(&self) -> usize {
        self.lab.hidden()
    }

    pub fn seed(&self) -> f64 {
        self.lab.seed() as f64
    }

    pub fn updates(&self) -> f64 {
        self.lab.updates() as f64
    }

    pub fn updates_per_epoch(&self) -> usize {
        self.lab.updates_per_epoch()
    }

    pub fn version(&self) -> f64 {
        self.lab.version() as f64
    }

    pub fn statistics(&self) -> String {
        self.lab.statistics().into()
    }

    pub fn test_count(&self) -> usize {
        self.lab.test_images().len()
    }

    pub fn shown(&self) -> usize {
        self.lab.shown()
    }

    pub fn has_particles(&self) -> bool {
        self.lab.has_particles()
    }

    pub fn fantasy_ptr(&self) -> *const u8 {
        self.lab.fantasy().as_ptr()
    }

    pub fn fantasy_mean_ptr(&self) -> *const f64 {
        self.lab.fantasy_mean().as_ptr()
    }

    /// 16 × V: 8 training, then 8 test reconstructions.
    pub fn reconstructions_ptr(&self) -> *const f64 {
        self.lab.reconstructions().as_ptr()
    }

    /// The first 8 training then the first 8 test images, concatenated (16 × V).
    pub fn reconstruction_sources(&self) -> Vec<u8> {
        let n = crate::app::rbm::RECONSTRUCTIONS;
        let train = self.lab.training_images().iter().take(n);
        train
            .chain(self.lab.test_images().iter().take(n))
            .flatten()
            .copied()
            .collect()
    }

    /// W, V × H row-major.
    pub fn weights_ptr(&self) -> *const f64 {
        self.lab.weights().as_ptr()
    }

    pub fn curve_len(&self) -> usize {
        self.lab.curve_updates().len()
    }

    /// The machine of the log-likelihood point under way, frozen at its update: W (V × H
    /// row-major), a and b one after the other; empty when no point is under way.
    pub fn point_parameters(&self) -> Vec<f64> {
        self.lab.point_machine().map_or_else(Vec::new, |(rbm, _)| {
            [rbm.weights(), rbm.visible_biases(), rbm.hidden_biases()].concat()
        })
    }

    /// The update of the point under way, or −1.
    pub fn point_update(&self) -> f64 {
        self.lab
            .point_machine()
            .map_or(-1.0, |(_, update)| update as f64)
    }

    /// The training images one after the other (N × V), as a points worker takes them.
    pub fn training_pixels(&self) -> Vec<u8> {
        self.lab.training_images().concat()
    }

    /// The test images one after the other.
    pub fn test_pixels(&self) -> Vec<u8> {
        self.lab.test_images().concat()
    }

    pub fn curve_updates_ptr(&self) -> *const f64 {
        self.lab.curve_updates().as_ptr()
    }

    pub fn curve_train_ptr(&self) -> *const f64 {
        self.lab.curve_train().as_ptr()
    }

    pub fn curve_test_ptr(&self) -> *const f64 {
        self.lab.curve_test().as_ptr()
    }

    pub fn curve_stderr_ptr(&self) -> *const f64 {
        self.lab.curve_stderr().as_ptr()
    }

    pub fn likelihood_exact(&self) -> bool {
        self.lab.likelihood_exact()
    }

    /// The fraction of the point under way that is done, or −1 when none is.
    pub fn likelihood_progress(&self) -> f64 {
        self.lab.point_progress().unwrap_or(-1.0)
    }

    /// Up to `work` units of the log-likelihood point (states of the smaller layer, or
    /// AIS steps of one run; then the images' free energies); returns whether a point
    /// joined the curves.
    pub fn likelihood_step(&mut self, work: f64) -> Result<bool, JsError> {
        let work = Self::count(LIKELIHOOD_WORK, work)?;
        match self.command(RbmCommand::LikelihoodStep { work })? {
            RbmReply::LikelihoodWorked { added } => Ok(added),
            other => unreachable!("likelihood work answers likelihood-worked, not {other:?}"),
        }
    }

    pub fn gallery_start(&mut self, count: f64, steps: f64) -> Result<(), JsError> {
        let count = Self::count(GALLERY_IMAGES, count)?;
        let steps = Self::count(GALLERY_STEPS, steps)?;
        self.command(RbmCommand::StartGallery { count, steps })
            .map(|_| ())
    }

    pub fn gallery_step(&mut self, steps: f64) -> Result<bool, JsError> {
        let steps = Self::count(CHAIN_STEPS, steps)?;
        match self.command(RbmCommand::AdvanceGallery { steps })? {
            RbmReply::GalleryAdvanced { done } => Ok(done),
            other => unreachable!("the gallery answers gallery-advanced, not {other:?}"),
        }
    }

    pub fn gallery_count(&self) -> usize {
        self.lab.gallery_states().len() / self.lab.visible()
    }

    pub fn gallery_done(&self) -> f64 {
        self.lab.gallery_done() as f64
    }

    pub fn gallery_ptr(&self) -> *const u8 {
        self.lab.gallery_states().as_ptr()
    }

    pub fn gallery_mean_ptr(&self) -> *const f64 {
        self.lab.gallery_mean().as_ptr()
    }

    /// Starts completing test image `image` (0-based) with mask `top`, `left` or `paint`
    /// (`painted`: V values 0/1).
    pub fn completion_start(
        &mut self,
        image: f64,
        mask: &str,
        painted: &[u8],
    ) -> Result<(), JsError> {
        let last = self.lab.test_images().len() as u64 - 1;
        let image = Self::count(TEST_IMAGE.up_to(last), image)?;
        let mask = Mask::parse(mask).map_err(js_error)?;
        self.command(RbmCommand::StartCompletion {
            image,
            mask,
            painted: painted.to_vec(),
        })
        .map(|_| ())
    }

    pub fn completion_step(&mut self, steps: f64) -> Result<(), JsError> {
        let steps = Self::count(CHAIN_STEPS, steps)?;
        self.command(RbmCommand::AdvanceCompletion { steps })
            .map(|_| ())
    }

    pub fn set_completion_clamped(&mut self, clamped: bool) -> Result<(), JsError> {
        self.command(RbmCommand::SetCompletionClamped { clamped })
            .map(|_| ())
    }

    pub fn completion_clamped(&self) -> bool {
        self.lab.completion_clamped()
    }

    /// The test image being completed, or −1.
    pub fn completion_image(&self) -> f64 {
        self.lab.completion_index().map_or(-1.0, |k| k as f64)
    }

    pub fn completion_steps(&self) -> f64 {
        self.lab.completion_steps() as f64
    }

    pub fn completion_original_ptr(&self) -> *const u8 {
        self.lab.completion_original().as_ptr()
    }

    pub fn completion_mask_ptr(&self) -> *const u8 {
        self.lab.completion_mask().as_ptr()
    }

    pub fn completion_state_ptr(&self) -> *const u8 {
        self.lab.completion_state().as_ptr()
    }

    pub fn completion_mean_ptr(&self) -> *const f64 {
        self.lab.completion_mean().as_ptr()
    }

    /// Test image `image` (0-based), V values 0/1.
    pub fn test_image(&self, image: f64) -> Result<Vec<u8>, JsError> {
        let last = self.lab.test_images().len() as u64 - 1;
        let k = Self::count(TEST_IMAGE.up_to(last), image)?;
        Ok(self.lab.test_images()[k as usize].clone())
    }
}

/// A restricted machine learning MNIST with the f32 batch trainer (`app::rbm::mnist`).
#[wasm_bindgen(js_name = MnistLab)]
pub struct WebMnistLab {
    lab: MnistLab,
    /// Whether the last shared step's block is within the divergence limit ([`shared`]).
    step_within: bool,
}

/// Public methods, exported to JavaScript.
#[wasm_bindgen(js_class = MnistLab)]
impl WebMnistLab {
    /// A run on the packed file `bytes` (the validating reader: a truncated, damaged or
    /// wrong-sized file is refused with the reason) with `hidden` units from `seed` and the
    /// default training.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8], hidden: f64, seed: f64) -> Result<WebMnistLab, JsError> {
        let hidden = HIDDEN.read(hidden).map_err(js_error)?;
        let seed = SEED.read(seed).map_err(js_error)?;
        let lab = MnistLab::from_file(bytes, hidden, seed, None, false).map_err(js_error)?;
        Ok(WebMnistLab {
            lab,
            step_within: true,
        })
    }

    /// The one door for changes: an `MnistCommand` object, answered by an `MnistReply`; a
    /// refused command is thrown as an `Error` naming the field, and nothing changes.
    #[wasm_bindgen(unchecked_return_type = "MnistReply")]
    pub fn dispatch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "MnistCommand")] command: JsValue,
    ) -> Result<JsValue, JsError> {
        let command: MnistCommand =
            serde_wasm_bindgen::from_value(command).map_err(decoding_error)?;
        let reply = self.lab.apply(command).map_err(js_error)?;
        serde_wasm_bindgen::to_value(&reply).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The default learning options of an MNIST run, with or without the labels.
    #[wasm_bindgen(unchecked_return_type = "Training")]
    pub fn default_training(labels: bool) -> Result<JsValue, JsError> {
        serde_wasm_bindgen::to_value(&MnistLab::default_training(labels))
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The learning options of this run.
    #[wasm_bindgen(unchecked_return_type = "Training")]
    pub fn training(&self) -> Result<JsValue, JsError> {
        serde_wasm_bindgen::to_value(&self.lab.training()).map_err(|e| JsError::new(&e.to_string()))
    }

    /// The run as bytes (options, the trainer's whole state, a CRC-32).
    pub fn save(&self) -> Vec<u8> {
        self.lab.save()
    }

    pub fn visible(&self) -> usize {
        self.lab.visible()
    }

    pub fn hidden(&self) -> usize {
        self.lab.hidden()
    }

    pub fn width(&self) -> usize {
        self.lab.width()
    }

    pub fn seed(&self) -> f64 {
        self.lab.seed() as f64
    }

    pub fn updates(&self) -> f64 {
        self.lab.updates() as f64
    }

    pub fn updates_per_epoch(&self) -> usize {
        self.lab.updates_per_epoch()
    }

    /// The training images: the largest batch.
    pub fn training_images(&self) -> usize {
        self.lab.training_images()
    }

    pub fn version(&self) -> f64 {
        self.lab.version() as f64
    }

    /// The shown page of filters (count × 784, each scaled to [−1, 1]), a copy.
    pub fn filters(&self) -> Vec<f32> {
        self.lab.filters().0.to_vec()
    }

    /// The hidden units of the shown filters.
    pub fn filter_units(&self) -> Vec<u32> {
        self.lab.filters().1.to_vec()
    }

    /// The shown page of filters.
    pub fn filter_page(&self) -> f64 {
        self.lab.filter_view().0 as f64
    }

    /// Whether every filter is shown (not a page of 100).
    pub fn filter_all(&self) -> bool {
        self.lab.filter_view().2
    }

    /// The free chains shown (up to 100 × 784, 0/1), a copy.
    pub fn chains(&self) -> Vec<f32> {
        self.lab.chains().to_vec()
    }

    /// The reconstructed test images and their reconstructions, one after the other.
    pub fn reconstructions(&self) -> Vec<f32> {
        let (a, b) = self.lab.reconstructions();
        [a, b].concat()
    }

    /// The gallery's mean images.
    pub fn gallery(&self) -> Vec<f32> {
        self.lab.gallery().0.to_vec()
    }

    /// The gallery's steps done.
    pub fn gallery_steps(&self) -> f64 {
        self.lab.gallery().1 as f64
    }

    /// The gallery's steps to run.
    pub fn gallery_target(&self) -> f64 {
        self.lab.gallery().2 as f64
    }

    /// W, a and b in f32, one after the other: the snapshot a likelihood point scores.
    pub fn parameters(&self) -> Vec<f32> {
        self.lab.parameters()
    }

    /// Whether the run learns the labels.
    pub fn labelled(&self) -> bool {
        self.lab.labelled()
    }

    /// The drawing pad (784 values 0/1), a copy.
    pub fn pad(&self) -> Vec<u8> {
        self.lab.pad().to_vec()
    }

    /// p(y | pad) for y = 0..9, exactly (empty without labels).
    pub fn classification(&self) -> Vec<f64> {
        self.lab.classification().to_vec()
    }

    /// The pad's completion: p(v | h) of its last step (empty before one starts).
    pub fn completion(&self) -> Vec<f32> {
        self.lab.completion().0.to_vec()
    }

    /// The completion's steps done.
    pub fn completion_steps(&self) -> f64 {
        self.lab.completion().1 as f64
    }

    /// The completion's steps to run.
    pub fn completion_target(&self) -> f64 {
        self.lab.completion().2 as f64
    }

    /// Whether the completion is in its clamped phase.
    pub fn completion_clamped(&self) -> bool {
        self.lab.completion().3
    }

    /// argmax_y p(y | v) of each gallery chain's image (empty without labels).
    pub fn gallery_classes(&self) -> Vec<u8> {
        self.lab.gallery_classes()
    }
}

/// The log-likelihood points of MNIST runs, for the page's second worker
/// (`app::rbm::mnist::MnistLikelihood`).
#[wasm_bindgen(js_name = MnistLikelihood)]
pub struct WebMnistLikelihood {
    scorer: MnistLikelihood,
}

/// Public methods, exported to JavaScript.
#[wasm_bindgen(js_class = MnistLikelihood)]
impl WebMnistLikelihood {
    /// The scorer of the packed file `bytes` (the validating reader) for runs of `seed`.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8], seed: f64) -> Result<WebMnistLikelihood, JsError> {
        let seed = SEED.read(seed).map_err(js_error)?;
        let scorer = MnistLikelihood::from_file(bytes, seed).map_err(js_error)?;
        Ok(WebMnistLikelihood { scorer })
    }

    /// A new run's points (the curve starts again).
    pub fn reset(&mut self, seed: f64) -> Result<(), JsError> {
        let seed = SEED.read(seed).map_err(js_error)?;
        self.scorer.reset(seed).map_err(js_error)
    }

    /// Starts the point of the snapshot `parameters` (W, a, b) of a 784-`hidden` machine
    /// (with `labels`, the joint 794-`hidden` one: its test error) at `update`, replacing
    /// any under way.
    pub fn start(
        &mut self,
        hidden: f64,
        labels: bool,
        parameters: &[f32],
        update: f64,
    ) -> Result<(), JsError> {
        let hidden = HIDDEN.read(hidden).map_err(js_error)?;
        let update = UPDATES_SO_FAR.read(update).map_err(js_error)?;
        self.scorer
            .start(hidden as usize, labels, parameters, update)
            .map_err(js_error)
    }

    /// Does at most `work` units of the point under way; whether a point joined the curve.
    pub fn step(&mut self, work: f64) -> Result<bool, JsError> {
        let work = LIKELIHOOD_WORK.read(work).map_err(js_error)?;
        Ok(self.scorer.step(work).map_err(js_error)?.is_some())
    }

    /// The fraction of the point under way that is done, or −1 when none is.
    pub fn progress(&self) -> f64 {
        self.scorer.progress().unwrap_or(-1.0)
    }

    /// Whether the point under way is exact (false for AIS or none).
    pub fn exact(&self) -> bool {
        self.scorer.exact().unwrap_or(false)
    }

    /// The update of the point under way, or −1.
    pub fn job_update(&self) -> f64 {
        self.scorer.job_update().map_or(-1.0, |u| u as f64)
    }

    /// Column `k` of the curve (0 updates, 1 train, 2 test, 3 stderr, 4 test error, 5 its
    /// standard error), a copy.
    pub fn curve(&self, k: usize) -> Vec<f64> {
        self.scorer.curve(k.min(5)).to_vec()
    }
}

/// The log-likelihood points of a restricted-machine run, apart from learning, for the
/// page's second worker (`app::rbm::points::PointScorer`).
#[wasm_bindgen(js_name = RbmPoints)]
pub struct WebRbmPoints {
    scorer: PointScorer,
}

/// Public methods, exported to JavaScript.
#[wasm_bindgen(js_class = RbmPoints)]
impl WebRbmPoints {
    /// The scorer of a run of `seed` on its images (`visible` pixels each, one after the
    /// other: `RbmLab.training_pixels` and `test_pixels`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        visible: f64,
        train: &[u8],
        test: &[u8],
        seed: f64,
    ) -> Result<WebRbmPoints, JsError> {
        let visible = VISIBLE.read(visible).map_err(js_error)? as usize;
        let seed = SEED.read(seed).map_err(js_error)?;
        let scorer = PointScorer::from_pixels(visible, train, test, seed).map_err(js_error)?;
        Ok(WebRbmPoints { scorer })
    }

    /// Starts the point of the frozen machine `parameters` (`RbmLab.point_parameters`) with
    /// `hidden` units at `update`, replacing any under way.
    pub fn start(&mut self, hidden: f64, parameters: &[f64], update: f64) -> Result<(), JsError> {
        let hidden = HIDDEN.read(hidden).map_err(js_error)?;
        let update = UPDATES_SO_FAR.read(update).map_err(js_error)?;
        self.scorer
            .start_from_parameters(hidden, parameters, update)
            .map_err(js_error)
    }

    /// Does at most `work` units of the point under way; the finished point as [update,
    /// train, test, stderr], or undefined while it is under way (or none is).
    pub fn step(&mut self, work: f64) -> Result<Option<Vec<f64>>, JsError> {
        let work = LIKELIHOOD_WORK.read(work).map_err(js_error)?;
        let point = self.scorer.step(work).map_err(js_error)?;
        Ok(point.map(|p| vec![p.update as f64, p.train, p.test, p.stderr]))
    }

    /// Drops the point under way, if any.
    pub fn stop(&mut self) {
        self.scorer.stop();
    }

    /// The fraction of the point under way that is done, or −1 when none is.
    pub fn progress(&self) -> f64 {
        self.scorer.progress().unwrap_or(-1.0)
    }

    /// The update of the point under way, or −1.
    pub fn job_update(&self) -> f64 {
        self.scorer.job_update().map_or(-1.0, |u| u as f64)
    }

    /// Whether the point under way is exact (false for AIS or none).
    pub fn exact(&self) -> bool {
        self.scorer.exact().unwrap_or(false)
    }
}

/// Pixels per image of a points worker's run: 1 to 1024.
const VISIBLE: crate::app::rbm::Count = crate::app::rbm::Count {
    field: "visible",
    min: 1,
    max: crate::app::rbm::MAX_VISIBLE as u64,
};

/// The update a snapshot was taken at: 0 to 2^53.
const UPDATES_SO_FAR: crate::app::rbm::Count = crate::app::rbm::Count {
    field: "update",
    min: 0,
    max: 1 << 53,
};

/// The protocol through real JavaScript objects (headless Chromium): the page's command
/// objects decode (numbers, names, a `Uint8Array` of the user's file), replies come back as
/// objects, and a bad value is thrown with the engine's message, changing nothing.
///
///   CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown \
///     --no-default-features --lib
#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::WebRbmLab;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    fn object(json: &str) -> JsValue {
        js_sys::JSON::parse(json).expect("valid JSON")
    }

    fn field(value: &JsValue, name: &str) -> JsValue {
        js_sys::Reflect::get(value, &JsValue::from_str(name)).expect("a field")
    }

    #[wasm_bindgen_test]
    fn page_objects_decode_and_replies_come_back_as_objects() {
        let mut lab = WebRbmLab::new("bars-4x4", 8.0, 1.0).unwrap();
        let reply = lab
            .dispatch(object(r#"{"command": "advance", "updates": 3}"#))
            .unwrap();
        assert_eq!(field(&reply, "reply"), JsValue::from_str("learned"));
        assert_eq!(field(&reply, "updates"), JsValue::from_f64(3.0));
        assert_eq!(lab.updates(), 3.0);

        let command = object(r#"{"command": "new-run-from-file", "hidden": 2, "seed": 7}"#);
        let bytes = js_sys::Uint8Array::from(&b"1100\n0011\n1001\n0110\n"[..]);
        js_sys::Reflect::set(&command, &JsValue::from_str("bytes"), &bytes).unwrap();
        let reply = lab.dispatch(command).unwrap();
        assert_eq!(field(&reply, "reply"), JsValue::from_str("restarted"));
        assert_eq!(field(&reply, "visible"), JsValue::from_f64(4.0));
        assert_eq!(lab.dataset(), "custom");

        let command = object(r#"{"command": "start-completion", "image": 1, "mask": "paint"}"#);
        let painted = js_sys::Uint8Array::from(&[1u8, 0, 0, 1][..]);
        js_sys::Reflect::set(&command, &JsValue::from_str("painted"), &painted).unwrap();
        lab.dispatch(command).unwrap();
        assert_eq!(lab.completion_image(), 1.0);
    }

    #[wasm_bindgen_test]
    fn the_checked_training_goes_back_as_a_command_that_changes_nothing_more() {
        // What the page does: the options checked on its mirror, then sent to the worker as
        // `training()` and `likelihood_every()` in a command; the worker's run is the mirror's.
        let mut mirror = WebRbmLab::new("digits8", 16.0, 3.0).unwrap();
        mirror
            .set_training("cd", 2.0, f64::NAN, f64::NAN, 50.0, 0.03, 0.4, 0.001)
            .unwrap();
        mirror.set_likelihood_every(7.0).unwrap();
        let command =
            object(r#"{"command": "new-run", "dataset": "digits8", "hidden": 16, "seed": 3}"#);
        js_sys::Reflect::set(
            &command,
            &JsValue::from_str("training"),
            &mirror.training().unwrap(),
        )
        .unwrap();
        js_sys::Reflect::set(
            &command,
            &JsValue::from_str("likelihood_every"),
            &JsValue::from_f64(mirror.likelihood_every()),
        )
        .unwrap();
        let mut worker = WebRbmLab::new("bars-4x4", 1.0, 1.0).unwrap();
        worker.dispatch(command).unwrap();
        assert_eq!(worker.training_json(), mirror.training_json());
        assert_eq!(worker.likelihood_every(), 7.0);
        assert_eq!(worker.session(), mirror.session());
    }

    #[wasm_bindgen_test]
    fn a_bad_value_is_thrown_with_the_engines_message_and_changes_nothing() {
        let mut lab = WebRbmLab::new("bars-4x4", 8.0, 1.0).unwrap();
        let before = lab.session();
        let error = lab
            .dispatch(object(r#"{"command": "advance", "updates": 2.5}"#))
            .unwrap_err();
        let message = JsValue::from(error)
            .unchecked_into::<js_sys::Error>()
            .message();
        let expected = crate::app::rbm::UPDATES.read(2.5).unwrap_err().to_string();
        assert_eq!(String::from(message), expected);
        assert_eq!(lab.session(), before);
    }
}
