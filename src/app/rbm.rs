//! The restricted-machine laboratory: one learning run of a restricted Boltzmann machine
//! on images (4×4 bars and stripes, the 8×8 digits, or the user's own), the way the page
//! drives it (docs/references.md §5).
//!
//! [`RbmLab`] is a small composition: the images it learns ([`dataset`]), the engine's
//! [`RbmTrainer`] and its options ([`training`]), and what a page needs to watch it, one
//! file per job:
//! - [`samples`]: the fantasy particles (persistent and tempering statistics) or, for CD-k,
//!   k-step reconstructions of fixed training images, with p(v | h) of each as its mean
//!   image, and the reconstructions p(v | h), h ~ p(h | v), of a few training and test images;
//! - [`likelihood`]: the log-likelihood of the training and test sets, exact (by
//!   [`crate::estimate::rbm_exact::LogZSum`], spread over calls) while the smaller layer has
//!   at most 25 units, else by the engine's AIS driver (32 runs spread over calls), with its
//!   standard error; every point is computed for a frozen copy of the machine at one update,
//!   so learning goes on while it is under way; a front end may compute it apart from
//!   learning ([`points`]: `start-point`, a [`points::PointScorer`], `finish-point`);
//! - [`gallery`]: a generation gallery, fresh chains from random images advanced in slices;
//! - [`completion`]: a test image with the units of a mask clamped, the others (and the
//!   hidden layer) sampled by block Gibbs; the clamps can be released (free phase) and
//!   set again (clamped phase), and the mean of p(v | h) over the steps is shown;
//! - [`session`]: the whole run as versioned text, restored exactly.
//!
//! The run changes only through its commands ([`command`]: [`RbmCommand`] →
//! [`RbmLab::apply`] → [`RbmReply`]); counts are integers, choices enums, "none" an `Option`,
//! and each count's range is one [`Count`] here, read once at the boundary and checked by the
//! dispatcher with the same message. Every value that enters is checked; a call that returns
//! an error leaves the lab as it was (the exceptions, a divergence while learning and a failed
//! likelihood point, are said where they happen). The page reads the buffers through
//! typed-array views (pointers from `web/rbm.rs`).

pub mod command;
pub mod completion;
pub mod dataset;
pub mod gallery;
pub mod likelihood;
pub mod mnist;
pub mod points;
pub mod samples;
pub mod session;
pub mod training;

pub use command::{RbmCommand, RbmReply};
pub use completion::Mask;
pub use dataset::DatasetChoice;
pub use training::{RbmTraining, StatisticsKind, Training};

use crate::error::ParamError;
use crate::learn::rbm::{Rbm, RbmTrainer};
use crate::rng::{SpinRng, seeded_rng};
use completion::Completion;
use dataset::Images;
use gallery::Gallery;
use likelihood::Likelihood;
use samples::Samples;

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
/// Most updates per [`RbmCommand::Advance`]: 10 000.
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

pub use crate::app::lattice::wire::Count;

/// A seed: 0 to 2^53 (every engine's).
pub use crate::app::lattice::wire::SEED;
/// Hidden units: 1 to [`MAX_HIDDEN`].
pub const HIDDEN: Count = Count {
    field: "hidden units",
    min: 1,
    max: MAX_HIDDEN as u64,
};
/// Block Gibbs steps per update, k: 1 to 1000.
pub const GIBBS_STEPS: Count = Count {
    field: "gibbs steps",
    min: 1,
    max: 1000,
};
/// Persistent particles, K: 1 to 10 000.
pub const PARTICLES: Count = Count {
    field: "particles",
    min: 1,
    max: 10_000,
};
/// Tempered replicas, R: 2 to 64.
pub const REPLICAS: Count = Count {
    field: "replicas",
    min: 2,
    max: 64,
};
/// The mini-batch, B: 1 to the number of training images ([`Count::up_to`]).
pub const BATCH: Count = Count {
    field: "batch",
    min: 1,
    max: crate::app::setup::MAX_SEED,
};
/// Updates between log-likelihood points: 1 to 10⁶.
pub const LIKELIHOOD_EVERY: Count = Count {
    field: "likelihood every",
    min: 1,
    max: 1_000_000,
};
/// Mini-batch updates of one [`RbmCommand::Advance`]: 1 to [`MAX_UPDATES_PER_CALL`].
pub const UPDATES: Count = Count {
    field: "updates",
    min: 1,
    max: MAX_UPDATES_PER_CALL,
};
/// Multiply-adds of one [`RbmCommand::Learn`]: 1 to 2^40.
pub const LEARNING_WORK: Count = Count {
    field: "learning work",
    min: 1,
    max: 1 << 40,
};
/// Units of one [`RbmCommand::LikelihoodStep`]: 1 to 2^24.
pub const LIKELIHOOD_WORK: Count = Count {
    field: "likelihood work",
    min: 1,
    max: 1 << 24,
};
/// The update a log-likelihood point was frozen at, as a front end hands it back
/// ([`RbmCommand::FinishPoint`]): 0 to 2^53.
pub const POINT_UPDATE: Count = Count {
    field: "update",
    min: 0,
    max: 1 << 53,
};
/// Images of the generation gallery: 1 to [`MAX_GALLERY`].
pub const GALLERY_IMAGES: Count = Count {
    field: "gallery images",
    min: 1,
    max: MAX_GALLERY as u64,
};
/// Block Gibbs steps a gallery is to run: 1 to [`MAX_CHAIN_STEPS`].
pub const GALLERY_STEPS: Count = Count {
    field: "gallery steps",
    min: 1,
    max: MAX_CHAIN_STEPS,
};
/// Block Gibbs steps of one gallery or completion call: 1 to [`MAX_CHAIN_STEPS`].
pub const CHAIN_STEPS: Count = Count {
    field: "steps",
    min: 1,
    max: MAX_CHAIN_STEPS,
};
/// A test image, 0-based: 0 to the last one ([`Count::up_to`]).
pub const TEST_IMAGE: Count = Count {
    field: "test image",
    min: 0,
    max: crate::app::setup::MAX_SEED,
};

/// One restricted-machine learning run the page drives.
#[derive(Debug, Clone)]
pub struct RbmLab {
    images: Images,
    hidden: usize,
    seed: u64,
    trainer: RbmTrainer,
    /// Changes whenever the weights change.
    version: u64,
    /// The stream of everything drawn only to be shown (display chains, reconstructions,
    /// gallery, completion), apart from learning's own, so watching never changes learning.
    view_rng: SpinRng,
    samples: Samples,
    likelihood: Likelihood,
    gallery: Gallery,
    completion: Option<Completion>,
}

impl RbmLab {
    /// A run on a built-in dataset (`bars-4x4`: the 30 patterns, trained and tested on the
    /// same set; `digits8`: the fixed 1500/297 split) with `hidden` units (1 to 500), the
    /// default training ([`RbmTraining::default`], batch limited to the set) and `seed`.
    /// [`RbmCommand::NewRun`].
    pub fn new(dataset: &str, hidden: u64, seed: u64) -> Result<RbmLab, ParamError> {
        let images = Images::built_in(DatasetChoice::parse(dataset)?);
        RbmLab::build(images, hidden, seed)
    }

    /// A run on the user's dataset ([`Images::from_bytes`]: a digits file or text, one image
    /// per line of 0s and 1s). [`RbmCommand::NewRunFromFile`].
    pub fn from_bytes(bytes: &[u8], hidden: u64, seed: u64) -> Result<RbmLab, ParamError> {
        RbmLab::build(Images::from_bytes(bytes)?, hidden, seed)
    }

    /// A run on `images` with `hidden` units from `seed`: W small and random, the visible
    /// biases at the base rates, the default training, a log-likelihood point every 50
    /// updates and the first one (the machine before learning) under way.
    fn build(images: Images, hidden: u64, seed: u64) -> Result<RbmLab, ParamError> {
        let hidden = HIDDEN.check(hidden)? as usize;
        let seed = SEED.check(seed)?;
        let visible = images.visible();
        let mut training = RbmTraining::default();
        training.batch = training.batch.min(images.train.len() as f64);
        let options = training.options(seed, images.train.len(), visible, hidden)?;
        let mut start = Rbm::random(visible, hidden, 0.01, seed)?;
        start.set_base_rate_biases(&images.train)?;
        let trainer = RbmTrainer::new(start, &images.train, options)?;
        let mut lab = RbmLab {
            hidden,
            seed,
            trainer,
            version: 0,
            view_rng: seeded_rng(seed ^ 0x5eed_71e3),
            samples: Samples::new(visible, hidden),
            likelihood: Likelihood::new(),
            gallery: Gallery::default(),
            completion: None,
            images,
        };
        lab.reshape_shown();
        lab.refresh();
        // The first log-likelihood point is the machine before learning.
        lab.likelihood.job = Some(lab.new_job()?);
        Ok(lab)
    }

    // --- What the page shows of the run ----------------------------------------------------

    /// The dataset's name: `bars-4x4`, `digits8` or `custom`.
    pub fn dataset(&self) -> &str {
        &self.images.name
    }

    /// Pixels per row of an image.
    pub fn width(&self) -> usize {
        self.images.width
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

    /// The machine as trained so far.
    pub fn rbm(&self) -> &Rbm {
        self.trainer.rbm()
    }

    /// The weights W (V × H, row-major): column j is hidden unit j's filter.
    pub fn weights(&self) -> &[f64] {
        self.trainer.rbm().weights()
    }

    pub fn training_images(&self) -> &[Vec<u8>] {
        &self.images.train
    }

    pub fn test_images(&self) -> &[Vec<u8>] {
        &self.images.test
    }
}
