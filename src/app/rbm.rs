//! The restricted-machine laboratory: one learning run of a restricted Boltzmann machine
//! on images (4×4 bars and stripes, the 8×8 digits, or the user's own), the way the page
//! drives it (docs/references.md §5).
//!
//! [`RbmLab`] wraps the engine's [`RbmTrainer`] and adds what a page needs to watch it:
//! - the fantasy particles (persistent and tempering statistics) or, for CD-k, k-step
//!   reconstructions of fixed training images, with p(v | h) of each as its mean image;
//! - the reconstructions p(v | h), h ~ p(h | v), of a few training and test images;
//! - the log-likelihood of the training and test sets, exact (by [`LogZSum`], spread over
//!   calls) while the smaller layer has at most 25 units, else by the engine's AIS
//!   driver ([`AisRuns`], 32 runs spread over calls), with its standard error; every point is computed for a frozen copy of the
//!   machine at one update, so learning goes on while it is under way;
//! - a generation gallery: fresh chains from random images, advanced in slices;
//! - completion: a test image with the units of a mask clamped, the others (and the
//!   hidden layer) sampled by block Gibbs; the clamps can be released (free phase) and
//!   set again (clamped phase), and the mean of p(v | h) over the steps is shown.
//!
//! Every value that enters is checked; a call that returns an error leaves the lab as it
//! was. The page reads the buffers through typed-array views (pointers from `web/rbm.rs`).

pub mod session;

use crate::dynamics::rbm::{Particles, hidden_probabilities, sample_bits, visible_probabilities};
use crate::error::{ParamError, finite_in, whole_in};
use crate::estimate::rbm_ais::{AisRuns, AisSchedule};
use crate::estimate::rbm_exact::{LogZSum, MAX_EXACT_LAYER};
use crate::estimate::trace::{Eviction, History};
use crate::learn::Dataset;
use crate::learn::digits;
use crate::learn::rbm::{RateSchedule, Rbm, RbmTrainer, Statistics, TrainingOptions};
use crate::rng::{SpinRng, seeded_rng};
use rand::Rng;

/// Most hidden units on the page: 500 (a slice of AIS run-steps stays a few frames long).
pub const MAX_HIDDEN: usize = 500;
/// Most fantasy particles (or reconstructions) shown: 100.
pub const MAX_SHOWN: usize = 100;
/// Training and test images whose reconstructions are shown: 8 of each.
pub const RECONSTRUCTIONS: usize = 8;
/// Most images in the generation gallery: 100.
pub const MAX_GALLERY: usize = 100;
/// Most block Gibbs steps of a gallery or a completion: 100 000.
pub const MAX_CHAIN_STEPS: u64 = 100_000;
/// Most updates per [`RbmLab::advance`] call: 10 000.
pub const MAX_UPDATES_PER_CALL: u64 = 10_000;
/// Points kept on the log-likelihood curves (the oldest is dropped): 500.
pub const CURVE_CAPACITY: usize = 500;
/// AIS runs per log-likelihood point beyond 25 units: [`AIS_CHUNKS`] ×
/// [`AIS_RUNS_PER_CHUNK`] = 32, stepping through the page's schedule together.
pub const AIS_RUNS: u64 = AIS_CHUNKS as u64 * AIS_RUNS_PER_CHUNK;
/// The AIS runs of a point counted in pairs, as the page's progress counts them: 2.
pub const AIS_RUNS_PER_CHUNK: u64 = 2;
/// Pairs of AIS runs per point: 16 (32 runs).
pub const AIS_CHUNKS: usize = 16;
/// Most visible units of a dataset of the user's: 1024.
pub const MAX_VISIBLE: usize = 1024;

/// The learning options as the page gives them (checked by [`RbmTraining::options`]).
#[derive(Debug, Clone, PartialEq)]
pub struct RbmTraining {
    /// `cd`, `persistent` or `tempering`.
    pub statistics: String,
    /// k, block Gibbs steps per update.
    pub steps: f64,
    /// K, persistent particles (per replica for tempering).
    pub particles: f64,
    /// R, tempered replicas.
    pub replicas: f64,
    /// B, the mini-batch size.
    pub batch: f64,
    /// ε, the learning rate (constant).
    pub rate: f64,
    /// μ, momentum.
    pub momentum: f64,
    /// λ, weight decay.
    pub decay: f64,
}

impl Default for RbmTraining {
    /// Persistent particles (100, k = 1), batch 100, ε = 0.05, μ = 0.5, λ = 0.
    fn default() -> Self {
        RbmTraining {
            statistics: "persistent".into(),
            steps: 1.0,
            particles: 100.0,
            replicas: 4.0,
            batch: 100.0,
            rate: 0.05,
            momentum: 0.5,
            decay: 0.0,
        }
    }
}

impl RbmTraining {
    /// The engine's options for `seed`, each value checked (errors name the field and its
    /// range); the batch is at most the number of training vectors and the whole update
    /// within the engine's work limit ([`TrainingOptions::check`]).
    pub fn options(
        &self,
        seed: u64,
        patterns: usize,
        visible: usize,
        hidden: usize,
    ) -> Result<TrainingOptions, ParamError> {
        let steps = whole_in("gibbs steps", self.steps, 1, 1000)? as usize;
        let statistics = match self.statistics.as_str() {
            "cd" => Statistics::ContrastiveDivergence { steps },
            "persistent" => Statistics::Persistent {
                particles: whole_in("particles", self.particles, 1, 10_000)? as usize,
                steps,
            },
            "tempering" => Statistics::ParallelTempering {
                particles: whole_in("particles", self.particles, 1, 10_000)? as usize,
                steps,
                replicas: whole_in("replicas", self.replicas, 2, 64)? as usize,
            },
            other => {
                return Err(ParamError::UnknownChoice {
                    field: "statistics",
                    value: other.into(),
                    allowed: "cd, persistent, tempering",
                });
            }
        };
        let options = TrainingOptions {
            statistics,
            batch: whole_in("batch", self.batch, 1, patterns as u64)? as usize,
            rate: finite_in("learning rate", self.rate, 0.0, 100.0)?,
            schedule: RateSchedule::Constant,
            momentum: finite_in("momentum", self.momentum, 0.0, 0.99)?,
            weight_decay: finite_in("weight decay", self.decay, 0.0, 0.99)?,
            seed,
        };
        options.check(patterns, visible, hidden)?;
        Ok(options)
    }
}

/// A log-likelihood point under way: the machine frozen at one update, its ln Z sum, then
/// the sums of the free energies F(v) of the training and the test images, both in slices.
#[derive(Debug, Clone)]
struct LikelihoodJob {
    update: u64,
    rbm: Rbm,
    method: LogZJob,
    /// (ln Z, its standard error), once the sum is done.
    log_z: Option<(f64, f64)>,
    /// Σ F(v) over the training images, then over the test images, how many of the two
    /// sets' images (training first) are summed, and how many there are (0 until known).
    free_energy: [f64; 2],
    summed: usize,
    images: usize,
}

/// What a finished log-likelihood point gives: (1/N) Σ F(v) of the training and the test
/// images, ln Z and its standard error.
struct PointValues {
    train_free_energy: f64,
    test_free_energy: f64,
    log_z: f64,
    stderr: f64,
}

impl LikelihoodJob {
    fn new(update: u64, rbm: Rbm, method: LogZJob) -> LikelihoodJob {
        LikelihoodJob {
            update,
            rbm,
            method,
            log_z: None,
            free_energy: [0.0; 2],
            summed: 0,
            images: 0,
        }
    }

    /// Does up to `work` units: first of ln Z ([`LikelihoodJob::advance_log_z`]), then, from
    /// the next call on, of the free energies of `sets` (training, test), as many images as
    /// cost about what `work` units of ln Z cost (an AIS step 2·V·H multiply-adds, a state
    /// of the smaller layer about as many as the larger layer has units; an image V·H).
    /// The point's values once every image is summed.
    fn advance(
        &mut self,
        work: u64,
        sets: [&[Vec<u8>]; 2],
    ) -> Result<Option<PointValues>, ParamError> {
        let Some((log_z, stderr)) = self.log_z else {
            self.log_z = self.advance_log_z(work)?;
            return Ok(None);
        };
        let (nv, nh) = (self.rbm.visible(), self.rbm.hidden());
        let images = match self.method {
            LogZJob::Ais { .. } => work.saturating_mul(2),
            LogZJob::Exact(_) => work / nv.min(nh) as u64,
        }
        .max(1);
        let mut scratch = vec![0.0; nh];
        let total = sets[0].len() + sets[1].len();
        self.images = total;
        let end = (self.summed as u64)
            .saturating_add(images)
            .min(total as u64) as usize;
        for k in self.summed..end {
            let (set, v) = match k < sets[0].len() {
                true => (0, &sets[0][k]),
                false => (1, &sets[1][k - sets[0].len()]),
            };
            self.free_energy[set] += self.rbm.free_energy_with(v, &mut scratch);
        }
        self.summed = end;
        Ok((end == total).then(|| PointValues {
            train_free_energy: self.free_energy[0] / sets[0].len() as f64,
            test_free_energy: self.free_energy[1] / sets[1].len() as f64,
            log_z,
            stderr,
        }))
    }

    /// Does up to `work` units (exact: states of the smaller layer; AIS: intermediate
    /// steps of one run, [`AisRuns::advance`]); (ln Z, its standard error) once complete.
    fn advance_log_z(&mut self, work: u64) -> Result<Option<(f64, f64)>, ParamError> {
        match &mut self.method {
            LogZJob::Exact(sum) => Ok(sum
                .advance(work)
                .then(|| (sum.value().expect("complete"), 0.0))),
            LogZJob::Ais(runs) => Ok(runs.advance(&self.rbm, work).then(|| {
                let estimate = runs.estimate().expect("every run is done");
                (estimate.log_z, estimate.stderr)
            })),
        }
    }

    /// The fraction of the point that is done: ln Z counts for 95 %, the free energies
    /// (much cheaper) for the last 5 %.
    fn progress(&self) -> f64 {
        if self.log_z.is_some() {
            return 0.95 + 0.05 * self.summed as f64 / self.images.max(1) as f64;
        }
        0.95 * self.log_z_progress()
    }

    /// The fraction of ln Z's sum that is done.
    fn log_z_progress(&self) -> f64 {
        match &self.method {
            LogZJob::Exact(sum) => sum.done() as f64 / sum.states() as f64,
            LogZJob::Ais(runs) => runs.steps_done() as f64 / runs.total_steps() as f64,
        }
    }
}

#[derive(Debug, Clone)]
enum LogZJob {
    Exact(LogZSum),
    /// [`AIS_RUNS`] runs of the engine's AIS driver on the page's schedule, each run on
    /// its own stream, so the value does not depend on how the work is sliced.
    Ais(AisRuns),
}

/// What [`RbmLab::completion_start`] clamps: the top half, the left half, or painted units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mask {
    Top,
    Left,
    Painted,
}

/// The completion chain: the original test image, the clamps, the chain's state and the
/// running sum of p(v | h).
#[derive(Debug, Clone)]
struct Completion {
    image: usize,
    original: Vec<u8>,
    mask: Vec<u8>,
    v: Vec<u8>,
    h: Vec<u8>,
    p_h: Vec<f64>,
    p_v: Vec<f64>,
    sum: Vec<f64>,
    mean: Vec<f64>,
    steps: u64,
    clamped: bool,
}

/// One restricted-machine learning run the page drives.
#[derive(Debug, Clone)]
pub struct RbmLab {
    name: String,
    width: usize,
    train: Vec<Vec<u8>>,
    test: Vec<Vec<u8>>,
    hidden: usize,
    seed: u64,
    trainer: RbmTrainer,
    view_rng: SpinRng,
    shown: usize,
    fantasy: Vec<u8>,
    fantasy_mean: Vec<f64>,
    cd_chains: Vec<u8>,
    reconstructions: Vec<f64>,
    scratch_v: Vec<u8>,
    scratch_h: Vec<u8>,
    p_h: Vec<f64>,
    p_v: Vec<f64>,
    curve: History<4>,
    job: Option<LikelihoodJob>,
    every: u64,
    last_point: Option<u64>,
    gallery: Option<Particles>,
    gallery_steps: u64,
    gallery_target: u64,
    gallery_mean: Vec<f64>,
    completion: Option<Completion>,
    version: u64,
}

impl RbmLab {
    /// A run on a built-in dataset (`bars-4x4`: the 30 patterns, trained and tested on the
    /// same set; `digits8`: the fixed 1500/297 split) with `hidden` units (1 to 500), the
    /// default training ([`RbmTraining::default`], batch limited to the set) and `seed`.
    pub fn new(dataset: &str, hidden: f64, seed: f64) -> Result<RbmLab, ParamError> {
        let (train, test, width) = match dataset {
            "bars-4x4" => {
                let set = Dataset::bars_and_stripes(4, 0);
                (set.patterns().to_vec(), set.patterns().to_vec(), 4)
            }
            "digits8" => {
                let (train, test) = digits::split();
                (train.images().to_vec(), test.images().to_vec(), 8)
            }
            other => {
                return Err(ParamError::UnknownChoice {
                    field: "dataset",
                    value: other.into(),
                    allowed: "bars-4x4, digits8",
                });
            }
        };
        RbmLab::build(dataset.into(), train, test, width, hidden, seed)
    }

    /// A run on the user's dataset: either a file in the digits' own format (`DIGITS8`
    /// header, checksummed; its images are both the training and the test set) or text,
    /// one image per line of 0s and 1s, all of one length (at most 1024; drawn as a
    /// square when the length is a square, else as one row). Errors name `dataset`.
    pub fn from_bytes(bytes: &[u8], hidden: f64, seed: f64) -> Result<RbmLab, ParamError> {
        let dataset = |reason: String| ParamError::Invalid {
            field: "dataset",
            reason,
        };
        let images = if bytes.starts_with(b"DIGITS8") {
            digits::parse(bytes)
                .map_err(|e| dataset(format!("not a valid digits file: {e}")))?
                .images()
                .to_vec()
        } else {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| dataset("neither a digits file nor text of 0s and 1s".into()))?;
            super::parse::parse_patterns(text).map_err(|e| dataset(e.to_string()))?
        };
        let visible = images[0].len();
        if visible > MAX_VISIBLE {
            return Err(dataset(format!(
                "images of {visible} pixels; at most {MAX_VISIBLE}"
            )));
        }
        let side = (visible as f64).sqrt() as usize;
        let width = if side * side == visible {
            side
        } else {
            visible
        };
        RbmLab::build("custom".into(), images.clone(), images, width, hidden, seed)
    }

    fn build(
        name: String,
        train: Vec<Vec<u8>>,
        test: Vec<Vec<u8>>,
        width: usize,
        hidden: f64,
        seed: f64,
    ) -> Result<RbmLab, ParamError> {
        let hidden = whole_in("hidden units", hidden, 1, MAX_HIDDEN as u64)? as usize;
        let seed = super::setup::check_seed(seed)?;
        let visible = train[0].len();
        let mut training = RbmTraining::default();
        training.batch = training.batch.min(train.len() as f64);
        let options = training.options(seed, train.len(), visible, hidden)?;
        let mut start = Rbm::random(visible, hidden, 0.01, seed)?;
        start.set_base_rate_biases(&train)?;
        let trainer = RbmTrainer::new(start, &train, options)?;
        let mut lab = RbmLab {
            name,
            width,
            hidden,
            seed,
            trainer,
            view_rng: seeded_rng(seed ^ 0x5eed_71e3),
            shown: 0,
            fantasy: Vec::new(),
            fantasy_mean: Vec::new(),
            cd_chains: Vec::new(),
            reconstructions: vec![0.0; 2 * RECONSTRUCTIONS * visible],
            scratch_v: vec![0; visible],
            scratch_h: vec![0; hidden],
            p_h: vec![0.0; hidden],
            p_v: vec![0.0; visible],
            curve: History::with_eviction(CURVE_CAPACITY, Eviction::Oldest),
            job: None,
            every: 50,
            last_point: None,
            gallery: None,
            gallery_steps: 0,
            gallery_target: 0,
            gallery_mean: Vec::new(),
            completion: None,
            version: 0,
            train,
            test,
        };
        lab.reshape_shown();
        lab.refresh();
        // The first log-likelihood point is the machine before learning.
        lab.job = Some(lab.new_job()?);
        Ok(lab)
    }

    /// Replaces the learning options from the next update on (see
    /// [`RbmTrainer::set_options`]: new statistics or particle counts start new particles);
    /// refused, with nothing changed, if any value is out of range.
    pub fn set_training(&mut self, training: &RbmTraining) -> Result<(), ParamError> {
        let options = training.options(self.seed, self.train.len(), self.visible(), self.hidden)?;
        self.trainer.set_options(options)?;
        self.reshape_shown();
        self.refresh();
        Ok(())
    }

    /// A log-likelihood point every `every` updates (1 to 10⁶).
    pub fn set_likelihood_every(&mut self, every: f64) -> Result<(), ParamError> {
        self.every = whole_in("likelihood every", every, 1, 1_000_000)?;
        Ok(())
    }

    /// Up to `updates` mini-batch updates (1 to 10 000); returns the updates done. On a
    /// divergence the updates before it stay and the error says which parameter left the
    /// allowed range (every later call returns it).
    pub fn advance(&mut self, updates: f64) -> Result<u64, ParamError> {
        let updates = whole_in("updates", updates, 1, MAX_UPDATES_PER_CALL)?;
        let before = self.trainer.updates();
        let result = self.trainer.run(updates);
        if self.trainer.updates() != before {
            self.version += 1;
        }
        result.map(|()| self.trainer.updates() - before)
    }

    /// Learns for about `work` multiply-adds (1 to 2^40), in slices of an update
    /// ([`RbmTrainer::work`]): an update is resumed where the last call stopped, so no call
    /// runs longer than its budget by more than one block Gibbs step of one chain, whatever
    /// k × particles. Returns the updates completed; errors as [`RbmLab::advance`].
    pub fn learn(&mut self, work: f64) -> Result<u64, ParamError> {
        let work = whole_in("learning work", work, 1, 1 << 40)?;
        let (mut spent, mut completed) = (0, 0);
        while spent < work {
            let (done, used) = match self.trainer.work(work - spent) {
                Ok(step) => step,
                Err(e) => {
                    if completed > 0 {
                        self.version += 1;
                    }
                    return Err(e);
                }
            };
            spent += used.max(1);
            completed += u64::from(done);
        }
        if completed > 0 {
            self.version += 1;
        }
        Ok(completed)
    }

    /// Multiply-adds of one whole update (the clamped phase B·V·H plus the free phase's
    /// chains·(2k + 1)·V·H), for the page to size its slices.
    pub fn update_work(&self) -> f64 {
        let o = self.trainer.options();
        let chains = o.statistics.chains(o.batch) as f64;
        let k = o.statistics.steps() as f64;
        (o.batch as f64 + chains * (2.0 * k + 1.0)) * (self.visible() * self.hidden) as f64
    }

    // --- What the page shows --------------------------------------------------------------

    /// The dataset's name: `bars-4x4`, `digits8` or `custom`.
    pub fn dataset(&self) -> &str {
        &self.name
    }

    /// Pixels per row of an image.
    pub fn width(&self) -> usize {
        self.width
    }

    pub fn visible(&self) -> usize {
        self.trainer.rbm().visible()
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Updates done.
    pub fn updates(&self) -> u64 {
        self.trainer.updates()
    }

    /// Updates per epoch, ⌈N / B⌉.
    pub fn updates_per_epoch(&self) -> usize {
        self.trainer.updates_per_epoch()
    }

    /// Changes whenever the weights change.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// `cd`, `persistent` or `tempering`.
    pub fn statistics(&self) -> &'static str {
        self.trainer.options().statistics.name()
    }

    pub fn options(&self) -> &TrainingOptions {
        self.trainer.options()
    }

    /// The options as the page gives them ([`RbmTraining`]); K and R are NaN where the
    /// statistics have none (CD-k has no particles, only tempering has replicas).
    pub fn training(&self) -> RbmTraining {
        let o = self.trainer.options();
        let (particles, replicas) = match o.statistics {
            Statistics::ContrastiveDivergence { .. } => (f64::NAN, f64::NAN),
            Statistics::Persistent { particles, .. } => (particles as f64, f64::NAN),
            Statistics::ParallelTempering {
                particles,
                replicas,
                ..
            } => (particles as f64, replicas as f64),
        };
        RbmTraining {
            statistics: o.statistics.name().into(),
            steps: o.statistics.steps() as f64,
            particles,
            replicas,
            batch: o.batch as f64,
            rate: o.rate,
            momentum: o.momentum,
            decay: o.weight_decay,
        }
    }

    /// The machine as trained so far.
    pub fn rbm(&self) -> &Rbm {
        self.trainer.rbm()
    }

    pub fn training_images(&self) -> &[Vec<u8>] {
        &self.train
    }

    pub fn test_images(&self) -> &[Vec<u8>] {
        &self.test
    }

    /// The images shown in the particle grid: the first min(K, 100) fantasy particles, or
    /// (CD-k) as many k-step reconstructions of training images.
    pub fn shown(&self) -> usize {
        self.shown
    }

    /// Their states, shown × V (0/1).
    pub fn fantasy(&self) -> &[u8] {
        &self.fantasy
    }

    /// p(v | h) of each, at the h its state was drawn from, shown × V.
    pub fn fantasy_mean(&self) -> &[f64] {
        &self.fantasy_mean
    }

    /// Whether the grid shows fantasy particles (not CD-k's reconstructions).
    pub fn has_particles(&self) -> bool {
        self.trainer.particles().is_some()
    }

    /// p(v | h), h ~ p(h | v), of the first 8 training then the first 8 test images (16 × V).
    pub fn reconstructions(&self) -> &[f64] {
        &self.reconstructions
    }

    /// The weights W (V × H, row-major): column j is hidden unit j's filter.
    pub fn weights(&self) -> &[f64] {
        self.trainer.rbm().weights()
    }

    /// The updates of the log-likelihood points.
    pub fn curve_updates(&self) -> &[f64] {
        self.curve.column(0)
    }

    /// Mean ln p(v) of the training set, nats per image.
    pub fn curve_train(&self) -> &[f64] {
        self.curve.column(1)
    }

    /// Mean ln p(v) of the test set.
    pub fn curve_test(&self) -> &[f64] {
        self.curve.column(2)
    }

    /// The standard error of ln Z (0 when exact), shared by both curves.
    pub fn curve_stderr(&self) -> &[f64] {
        self.curve.column(3)
    }

    /// Whether ln Z is exact (the smaller layer has at most 25 units), else AIS.
    pub fn likelihood_exact(&self) -> bool {
        self.visible().min(self.hidden) <= MAX_EXACT_LAYER
    }

    /// The fraction of the point under way that is done, or −1 when none is.
    pub fn likelihood_progress(&self) -> f64 {
        self.job.as_ref().map_or(-1.0, LikelihoodJob::progress)
    }

    /// Works on the log-likelihood: starts a point when `every` updates have passed since
    /// the last (and at update 0), then does at most `work` units of it (exact: states of
    /// the smaller layer; AIS: intermediate steps of one run, each about 2·V·H
    /// multiply-adds). Returns whether a point joined the curves. `work` is 1 to 2^24.
    pub fn likelihood_step(&mut self, work: f64) -> Result<bool, ParamError> {
        let work = whole_in("likelihood work", work, 1, 1 << 24)?;
        if self.job.is_none() {
            let due = self
                .last_point
                .is_none_or(|last| self.updates() >= last + self.every);
            if !due {
                return Ok(false);
            }
            self.job = Some(self.new_job()?);
        }
        let job = self.job.as_mut().expect("a job is under way");
        let point = match job.advance(work, [&self.train, &self.test]) {
            Ok(None) => return Ok(false),
            Ok(Some(point)) => point,
            Err(e) => {
                // Dropped, so that a later call starts a fresh point.
                self.job = None;
                return Err(e);
            }
        };
        let job = self.job.take().expect("a job is under way");
        let train = -point.train_free_energy - point.log_z;
        let test = -point.test_free_energy - point.log_z;
        self.curve
            .push_point([job.update as f64, train, test, point.stderr]);
        self.last_point = Some(job.update);
        Ok(true)
    }

    fn new_job(&self) -> Result<LikelihoodJob, ParamError> {
        self.job_for(self.trainer.rbm().clone(), self.updates())
    }

    /// The log-likelihood point of `rbm`, the machine frozen at `update`: an exact ln Z sum
    /// or AIS runs seeded by the run's seed and the update.
    fn job_for(&self, rbm: Rbm, update: u64) -> Result<LikelihoodJob, ParamError> {
        let method = if self.likelihood_exact() {
            LogZJob::Exact(LogZSum::new(&rbm)?)
        } else {
            LogZJob::Ais(AisRuns::new(
                &rbm,
                &crate::model::rbm::base_rate_biases(&self.train, self.visible())?,
                &AisSchedule::PAGE,
                AIS_RUNS,
                self.seed.wrapping_mul(0x9e37_79b9).wrapping_add(update),
            )?)
        };
        Ok(LikelihoodJob::new(update, rbm, method))
    }

    // --- The generation gallery ------------------------------------------------------------

    /// Starts `count` (1 to 100) fresh chains from uniformly random images, to be advanced
    /// `steps` (1 to 100 000) block Gibbs steps of the current machine by
    /// [`RbmLab::gallery_step`].
    pub fn gallery_start(&mut self, count: f64, steps: f64) -> Result<(), ParamError> {
        let count = whole_in("gallery images", count, 1, MAX_GALLERY as u64)? as usize;
        let steps = whole_in("gallery steps", steps, 1, MAX_CHAIN_STEPS)?;
        let (nv, nh) = (self.visible(), self.hidden);
        self.gallery = Some(Particles::random(count, nv, nh, &mut self.view_rng));
        self.gallery_steps = 0;
        self.gallery_target = steps;
        self.gallery_mean = vec![0.0; count * nv];
        Ok(())
    }

    /// Advances the gallery's chains by up to `steps` steps (1 to 100 000); returns whether
    /// they have done all theirs.
    pub fn gallery_step(&mut self, steps: f64) -> Result<bool, ParamError> {
        let steps = whole_in("steps", steps, 1, MAX_CHAIN_STEPS)?;
        let nv = self.visible();
        let Some(gallery) = &mut self.gallery else {
            return Ok(true);
        };
        let steps = steps.min(self.gallery_target - self.gallery_steps);
        if steps > 0 {
            gallery.advance(self.trainer.rbm(), steps as usize, &mut self.view_rng);
            self.gallery_steps += steps;
            for k in 0..gallery.count() {
                visible_probabilities(
                    self.trainer.rbm(),
                    gallery.hidden_state(k),
                    &mut self.gallery_mean[k * nv..(k + 1) * nv],
                );
            }
        }
        Ok(self.gallery_steps >= self.gallery_target)
    }

    /// The gallery's images (count × V), empty before [`RbmLab::gallery_start`].
    pub fn gallery_states(&self) -> &[u8] {
        self.gallery.as_ref().map_or(&[], Particles::visible_states)
    }

    /// p(v | h) of each gallery image (count × V).
    pub fn gallery_mean(&self) -> &[f64] {
        &self.gallery_mean
    }

    /// The gallery's steps done so far.
    pub fn gallery_done(&self) -> u64 {
        self.gallery_steps
    }

    // --- Completion ------------------------------------------------------------------------

    /// Starts completing test image `image` (0-based): the units of the mask are clamped to
    /// the image (`top` or `left`: the top rows or left columns, half of them rounded up;
    /// `paint`: the units where `painted` is 1, V values 0/1), the rest start random.
    pub fn completion_start(
        &mut self,
        image: f64,
        mask: &str,
        painted: &[u8],
    ) -> Result<(), ParamError> {
        let index = whole_in("test image", image, 0, self.test.len() as u64 - 1)? as usize;
        let kind = match mask {
            "top" => Mask::Top,
            "left" => Mask::Left,
            "paint" => Mask::Painted,
            other => {
                return Err(ParamError::UnknownChoice {
                    field: "mask",
                    value: other.into(),
                    allowed: "top, left, paint",
                });
            }
        };
        let mask = self.mask(kind, painted)?;
        let (nv, nh) = (self.visible(), self.hidden);
        let original = self.test[index].clone();
        let mut v = vec![0; nv];
        for (i, s) in v.iter_mut().enumerate() {
            *s = if mask[i] == 1 {
                original[i]
            } else {
                u8::from(self.view_rng.next_u32() >> 31 == 1)
            };
        }
        self.completion = Some(Completion {
            image: index,
            original,
            mask,
            v,
            h: vec![0; nh],
            p_h: vec![0.0; nh],
            p_v: vec![0.0; nv],
            sum: vec![0.0; nv],
            mean: vec![0.0; nv],
            steps: 0,
            clamped: true,
        });
        Ok(())
    }

    /// The 0/1 mask of `kind`: the top ⌈rows/2⌉ rows, the left ⌈width/2⌉ columns, or
    /// `painted` (V values 0/1; field `painted mask`); it must clamp at least one unit and
    /// leave one free (a one-row image has no top half: field `mask`).
    pub fn mask(&self, kind: Mask, painted: &[u8]) -> Result<Vec<u8>, ParamError> {
        let nv = self.visible();
        let width = self.width;
        let rows = nv.div_ceil(width);
        let mask: Vec<u8> = match kind {
            Mask::Top => (0..nv)
                .map(|i| u8::from(i / width < rows.div_ceil(2)))
                .collect(),
            Mask::Left => (0..nv)
                .map(|i| u8::from(i % width < width.div_ceil(2)))
                .collect(),
            Mask::Painted => {
                if painted.len() != nv || painted.iter().any(|&b| b > 1) {
                    return Err(ParamError::Invalid {
                        field: "painted mask",
                        reason: format!("need {nv} values 0 or 1, got {}", painted.len()),
                    });
                }
                painted.to_vec()
            }
        };
        if !mask.contains(&1) || !mask.contains(&0) {
            return Err(match kind {
                Mask::Painted => ParamError::Invalid {
                    field: "painted mask",
                    reason: "paint some pixels to clamp and leave some free".into(),
                },
                _ => ParamError::Invalid {
                    field: "mask",
                    reason: "these images have one row: paint the pixels to clamp instead".into(),
                },
            });
        }
        Ok(mask)
    }

    /// Runs `steps` (1 to 100 000) block Gibbs steps of the completion: h ~ p(h | v), then
    /// each visible unit not clamped ~ p(v_i | h) (in the clamped phase the clamped units
    /// keep the image's values; in the free phase every unit is sampled). p(v | h) is
    /// averaged over the steps since the last phase switch (clamped units count as their
    /// value in the clamped phase).
    pub fn completion_step(&mut self, steps: f64) -> Result<(), ParamError> {
        let steps = whole_in("steps", steps, 1, MAX_CHAIN_STEPS)?;
        let Some(c) = &mut self.completion else {
            return Err(ParamError::Invalid {
                field: "completion",
                reason: "choose a test image and a mask first".into(),
            });
        };
        let rbm = self.trainer.rbm();
        for _ in 0..steps {
            hidden_probabilities(rbm, &c.v, &mut c.p_h);
            sample_bits(&c.p_h, &mut c.h, &mut self.view_rng);
            visible_probabilities(rbm, &c.h, &mut c.p_v);
            sample_bits(&c.p_v, &mut self.scratch_v, &mut self.view_rng);
            for i in 0..c.v.len() {
                let held = c.clamped && c.mask[i] == 1;
                if held {
                    c.v[i] = c.original[i];
                    c.sum[i] += f64::from(c.original[i]);
                } else {
                    c.v[i] = self.scratch_v[i];
                    c.sum[i] += c.p_v[i];
                }
            }
            c.steps += 1;
        }
        let n = c.steps as f64;
        c.mean.iter_mut().zip(&c.sum).for_each(|(m, &s)| *m = s / n);
        Ok(())
    }

    /// Clamped phase (`true`: the mask's units hold the image) or free phase (every unit
    /// sampled); the average of p(v | h) starts again.
    pub fn set_completion_clamped(&mut self, clamped: bool) -> Result<(), ParamError> {
        let Some(c) = &mut self.completion else {
            return Err(ParamError::Invalid {
                field: "completion",
                reason: "choose a test image and a mask first".into(),
            });
        };
        if c.clamped != clamped {
            c.clamped = clamped;
            c.sum.fill(0.0);
            c.steps = 0;
        }
        Ok(())
    }

    pub fn completion_clamped(&self) -> bool {
        self.completion.as_ref().is_some_and(|c| c.clamped)
    }

    /// The test image being completed, or −1.
    pub fn completion_image(&self) -> f64 {
        self.completion.as_ref().map_or(-1.0, |c| c.image as f64)
    }

    /// Steps since the completion started or its phase last switched.
    pub fn completion_steps(&self) -> u64 {
        self.completion.as_ref().map_or(0, |c| c.steps)
    }

    /// The original test image (V values), empty before a completion starts.
    pub fn completion_original(&self) -> &[u8] {
        self.completion.as_ref().map_or(&[], |c| &c.original)
    }

    /// The clamped units (1) of the completion.
    pub fn completion_mask(&self) -> &[u8] {
        self.completion.as_ref().map_or(&[], |c| &c.mask)
    }

    /// The chain's visible state.
    pub fn completion_state(&self) -> &[u8] {
        self.completion.as_ref().map_or(&[], |c| &c.v)
    }

    /// The mean of p(v | h) over the steps (clamped units: their value, in the clamped
    /// phase).
    pub fn completion_mean(&self) -> &[f64] {
        self.completion.as_ref().map_or(&[], |c| &c.mean)
    }

    // --- Internals -------------------------------------------------------------------------

    /// Sizes the particle grid to the statistics: min(K, 100) particles, or (CD-k) chains
    /// started at evenly spaced training images, min(100, N, max(4, 1000/k)) of them so
    /// that a refresh stays cheap.
    fn reshape_shown(&mut self) {
        let nv = self.visible();
        self.shown = match self.trainer.particles() {
            Some(p) => p.count().min(MAX_SHOWN),
            None => {
                let k = self.trainer.options().statistics.steps();
                MAX_SHOWN.min(self.train.len()).min((1000 / k).max(4))
            }
        };
        self.fantasy = vec![0; self.shown * nv];
        self.fantasy_mean = vec![0.0; self.shown * nv];
        if self.trainer.particles().is_none() {
            let n = self.train.len();
            self.cd_chains = (0..self.shown)
                .flat_map(|k| self.train[k * n / self.shown].iter().copied())
                .collect();
        } else {
            self.cd_chains.clear();
        }
    }

    /// Brings the particle grid and the reconstructions up to date (the page calls it once
    /// per drawn frame): copies the particles, or runs CD-k's display chains k steps from
    /// their training images, and computes p(v | h) of each and the reconstructions.
    pub fn refresh(&mut self) {
        let rbm = self.trainer.rbm();
        let nv = rbm.visible();
        if let Some(particles) = self.trainer.particles() {
            self.fantasy
                .copy_from_slice(&particles.visible_states()[..self.shown * nv]);
            for k in 0..self.shown {
                visible_probabilities(
                    rbm,
                    particles.hidden_state(k),
                    &mut self.fantasy_mean[k * nv..(k + 1) * nv],
                );
            }
        } else {
            let steps = self.trainer.options().statistics.steps();
            for k in 0..self.shown {
                self.scratch_v
                    .copy_from_slice(&self.cd_chains[k * nv..(k + 1) * nv]);
                for _ in 0..steps {
                    hidden_probabilities(rbm, &self.scratch_v, &mut self.p_h);
                    sample_bits(&self.p_h, &mut self.scratch_h, &mut self.view_rng);
                    visible_probabilities(rbm, &self.scratch_h, &mut self.p_v);
                    sample_bits(&self.p_v, &mut self.scratch_v, &mut self.view_rng);
                }
                self.fantasy[k * nv..(k + 1) * nv].copy_from_slice(&self.scratch_v);
                self.fantasy_mean[k * nv..(k + 1) * nv].copy_from_slice(&self.p_v);
            }
        }
        let sources = self
            .train
            .iter()
            .take(RECONSTRUCTIONS)
            .chain(self.test.iter().take(RECONSTRUCTIONS));
        for (k, image) in sources.enumerate() {
            hidden_probabilities(rbm, image, &mut self.p_h);
            sample_bits(&self.p_h, &mut self.scratch_h, &mut self.view_rng);
            visible_probabilities(
                rbm,
                &self.scratch_h,
                &mut self.reconstructions[k * nv..(k + 1) * nv],
            );
        }
    }
}
