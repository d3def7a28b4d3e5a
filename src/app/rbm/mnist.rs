//! The restricted machine on MNIST, the way the page drives it: a 784-H machine learning the
//! shipped file's 60 000 training images with the fast f32 [`BatchTrainer`] (CD-k or
//! persistent chains; whole mini-batches through the dense products), and what the page
//! shows of it at 28×28.
//!
//! - The data is the packed file ([`crate::learn::mnist::parse`], the validating reader: a
//!   truncated, damaged or wrong-sized file is refused with the reason). The caller fetches
//!   it: the library does not embed it, so the wasm stays small.
//! - Views: the filters a page of [`FILTER_PAGE`] at a time (or all at once), each scaled to its own largest
//!   |W_ij| (its own contrast), in unit order or by decreasing norm ‖W_·j‖; the free chains'
//!   visible states (the persistent particles, or for CD-k the batch's chains after k steps);
//!   reconstructions p(v | h), h ~ p(h | v), of [`RECONSTRUCTED`] fixed test images; and a
//!   generation gallery, fresh chains from random images advanced by block Gibbs, drawn as
//!   p(v | h). Everything drawn only to be shown comes from the view stream, apart from
//!   learning's, so watching never changes learning.
//! - [`MnistLikelihood`]: the log-likelihood points of frozen copies of the machine (the
//!   engine's exact sum or its AIS driver, [`super::likelihood::PointJob`]) on the first
//!   [`LIKELIHOOD_IMAGES`] training and test images, for a second worker.
//! - The run saves as bytes ([`MnistLab::save`], [`MnistCommand::RestoreRun`]): the options, the
//!   trainer's whole state ([`BatchState`]) and a CRC-32, so a reload continues with the
//!   same bits (same build; the f32 trainer's promise, `learn::rbm::batch`).
//!
//! - With the labels ([`MnistCommand::NewRun`]'s `labels`), the machine is the joint one of
//!   [`crate::model::rbm_labels`]: 784 pixels and a one-of-10 label group (794 visible
//!   units) learned by the same trainer with its label group; a drawing pad is classified
//!   by p(y | v) exactly, a chosen digit is generated with its label clamped, and the pad is
//!   completed by block Gibbs with its pixels clamped (`mnist::pad`).
//!
//! Every change is one [`MnistCommand`] through [`MnistLab::apply`]; a refused command
//! changes nothing.

mod pad;

pub use pad::LABELS;

use super::completion::Mask;
use super::likelihood::Point;
use super::points::PointScorer;
use super::training::Training;
use super::{CURVE_CAPACITY, Count, HIDDEN, SEED, StatisticsKind};
use crate::app::lattice::wire::{Named, by_name};
use crate::dynamics::rbm_labels::LabelledChain;
use crate::error::ParamError;
use crate::estimate::trace::{Eviction, History};
use crate::learn::mnist::{self, Mnist};
use crate::learn::rbm::{BatchState, BatchTrainer, LabelledRbm, Rbm};
use crate::model::rbm::sigmoid;
use crate::rng::{SpinRng, seeded_rng, uniform};
use serde::{Deserialize, Serialize};

/// The update shared by several learning workers (one replica of the run each).
mod shared;

/// Filters shown at once: a page of 100.
pub const FILTER_PAGE: usize = 100;
/// Free chains shown: at most 100.
pub const SHOWN_CHAINS: usize = 100;
/// Test images whose reconstructions are shown: 10.
pub const RECONSTRUCTED: usize = 10;
/// Training and test images each log-likelihood point is scored on: the first 1000 of each
/// set (the whole sets would cost 70 000 free energies per point).
pub const LIKELIHOOD_IMAGES: usize = 1000;
/// Updates per epoch at the default batch: 60 000 / 100.
pub const EPOCH_UPDATES: u64 = 600;
/// The weight cost λ of a labelled run's default learning (u ← μu + ε(g − λW)). Without it
/// CD-1 at ε = 0.1 carries the joint machine past its best: the page's labelled 784-500 run
/// reaches 4.73 % test error at update 9,000 and ends 10 minutes at 8.38 %; with it, 4.08 %
/// (docs/labels.md).
pub const LABELLED_DECAY: f64 = 0.0002;

/// Updates of one [`MnistCommand::Advance`]: 1 to 600 (an epoch at batch 100).
pub const MNIST_UPDATES: Count = Count {
    field: "updates",
    min: 1,
    max: EPOCH_UPDATES,
};
/// Images of the generation gallery: 1 to 30 (each step of each chain is 2·784·H
/// multiply-adds, in f64 on one thread).
pub const MNIST_GALLERY: Count = Count {
    field: "gallery images",
    min: 1,
    max: 30,
};
/// Block Gibbs steps a gallery runs, or one call advances: 1 to 10 000.
pub const MNIST_GALLERY_STEPS: Count = Count {
    field: "gallery steps",
    min: 1,
    max: 10_000,
};
/// A page of filters, numbered from 1 as the page's box numbers it: 1 to the last one
/// ([`Count::up_to`]).
pub const FILTER_PAGES: Count = Count {
    field: "filter page",
    min: 1,
    max: (super::MAX_HIDDEN / FILTER_PAGE) as u64 + 1,
};

/// The order the filters are shown in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'unit' | 'norm'")]
pub enum FilterOrder {
    /// `unit`: hidden unit 0, 1, 2, …
    Unit,
    /// `norm`: by decreasing ‖W_·j‖ (the units that learned most first).
    Norm,
}

impl Named for FilterOrder {
    const ALL: &'static [Self] = &[FilterOrder::Unit, FilterOrder::Norm];
    fn name(self) -> &'static str {
        match self {
            FilterOrder::Unit => "unit",
            FilterOrder::Norm => "norm",
        }
    }
    fn parse(name: &str) -> Result<Self, ParamError> {
        match name {
            "unit" => Ok(FilterOrder::Unit),
            "norm" => Ok(FilterOrder::Norm),
            _ => Err(ParamError::UnknownChoice {
                field: "filter order",
                value: name.into(),
                allowed: "unit, norm",
            }),
        }
    }
}

/// Every change the page can make to the MNIST run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "command", rename_all = "kebab-case", deny_unknown_fields)]
#[tsify(missing_as_null)]
pub enum MnistCommand {
    /// Replaces the run by a new 784-`hidden` machine (1 to 500) from `seed` with `training`
    /// (the default when `None`: [`MnistLab::default_training`] for `labels`). Nothing changes if any
    /// value is refused.
    NewRun {
        #[serde(deserialize_with = "wire::hidden")]
        hidden: u64,
        #[serde(deserialize_with = "wire::seed")]
        seed: u64,
        #[serde(default)]
        training: Option<Training>,
        /// Learn the labels too: the joint machine over the image and a one-of-10 label.
        #[serde(default)]
        labels: bool,
    },
    /// The learning options from the next update on (the machine, velocities and batch
    /// position are kept; other statistics start new chains). Tempering is refused.
    SetTraining { training: Training },
    /// `updates` whole mini-batch updates (1 to 600).
    Advance {
        #[serde(deserialize_with = "wire::updates")]
        updates: u64,
    },
    /// Which filters are shown: page `page` (of 100, numbered from 1) in `order`, or with
    /// `all` every hidden unit's in `order` (`page` still checked; absent on the wire: false).
    ShowFilters {
        #[serde(deserialize_with = "wire::filter_page")]
        page: u64,
        #[serde(with = "by_name")]
        order: FilterOrder,
        #[serde(default)]
        all: bool,
    },
    /// Brings the filters and reconstructions up to date (the view stream draws).
    Refresh,
    /// Starts `count` gallery chains (1 to 30) from random images, to run `steps` steps;
    /// with `label` (0 to 9, a run with labels only) the label is clamped to it, so the
    /// chains generate that digit.
    StartGallery {
        #[serde(deserialize_with = "wire::gallery_images")]
        count: u64,
        #[serde(deserialize_with = "wire::gallery_steps")]
        steps: u64,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "wire::label"
        )]
        label: Option<u64>,
    },
    /// Advances the gallery by up to `steps` block Gibbs steps.
    AdvanceGallery {
        #[serde(deserialize_with = "wire::gallery_steps")]
        steps: u64,
    },
    /// The drawing pad's image: 784 values 0 or 1 (error names `pad image`); a run with
    /// labels classifies it at once.
    SetPad {
        #[tsify(type = "Uint8Array | number[]")]
        #[serde(deserialize_with = "super::command::wire::bytes")]
        image: Vec<u8>,
    },
    /// Copies test image `image` (0 to 9 999) onto the pad.
    PadFromTest {
        #[serde(deserialize_with = "wire::test_image")]
        image: u64,
    },
    /// Starts completing the pad: the pixels of `mask` (`paint`: the pixels drawn on; `top`
    /// or `left`: that half) are clamped to the pad, the rest (and the label) settle by
    /// block Gibbs for `steps` steps (1 to 10 000).
    CompletePad {
        #[serde(with = "by_name")]
        mask: Mask,
        #[serde(deserialize_with = "wire::settling_steps")]
        steps: u64,
    },
    /// The completion's phase: clamped (the mask's pixels hold the pad) or free (every
    /// pixel sampled); a switch runs the completion's steps again.
    ClampPad { clamped: bool },
    /// Advances the completion by up to `steps` block Gibbs steps.
    AdvancePad {
        #[serde(deserialize_with = "wire::settling_steps")]
        steps: u64,
    },
    /// Replaces the run by a saved one ([`MnistLab::save`]'s bytes), continuing exactly.
    RestoreRun {
        #[tsify(type = "Uint8Array | number[]")]
        #[serde(deserialize_with = "super::command::wire::bytes")]
        bytes: Vec<u8>,
    },
}

/// What the MNIST run answers to a command it accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "reply", rename_all = "kebab-case")]
pub enum MnistReply {
    Changed,
    /// A new run (or a restored one): its shape.
    Restarted {
        visible: usize,
        hidden: usize,
        width: usize,
        updates: u64,
        updates_per_epoch: usize,
    },
    Learned {
        updates: u64,
    },
    GalleryAdvanced {
        done: bool,
    },
    CompletionAdvanced {
        done: bool,
    },
}

/// How a command's counts are read on the wire: each through its [`Count`].
mod wire {
    use crate::app::lattice::wire::read_count;
    use serde::Deserializer;

    macro_rules! reads {
        ($($name:ident: $count:path;)*) => {$(
            pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
                read_count(d, $count)
            }
        )*};
    }

    reads! {
        hidden: super::HIDDEN;
        seed: super::SEED;
        updates: super::MNIST_UPDATES;
        filter_page: super::FILTER_PAGES;
        gallery_images: super::MNIST_GALLERY;
        gallery_steps: super::MNIST_GALLERY_STEPS;
        settling_steps: super::PAD_STEPS;
        test_image: super::PAD_TEST_IMAGE;
    }

    /// The gallery's digit when given: read as the label it is (0 to 9), so a wrong value is
    /// refused with that name, not the wire's.
    pub fn label<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        read_count(d, super::pad::LABEL).map(Some)
    }
}

/// Block Gibbs steps a completion runs, or one call advances: 1 to 10 000.
pub const PAD_STEPS: Count = Count {
    field: "settling steps",
    ..MNIST_GALLERY_STEPS
};

/// A test image copied onto the pad: 0 to 9 999.
pub const PAD_TEST_IMAGE: Count = Count {
    field: "test image",
    min: 0,
    max: 9_999,
};

/// The generation gallery: chains' visible states and the mean images p(v | h) last drawn;
/// in a run with labels, the joint chains (image, label, hidden) and the clamped label.
#[derive(Debug, Clone, Default)]
struct Gallery {
    states: Vec<u8>,
    means: Vec<f32>,
    steps: u64,
    target: u64,
    chains: Vec<LabelledChain>,
    label: Option<usize>,
}

/// The MNIST run the page drives.
#[derive(Debug, Clone)]
pub struct MnistLab {
    data: Mnist,
    hidden: usize,
    seed: u64,
    training: Training,
    trainer: BatchTrainer,
    view_rng: SpinRng,
    /// The filters shown: page, order, the units (ids) and their images scaled to [−1, 1].
    filter_page: u64,
    filter_order: FilterOrder,
    /// Every filter shown, not a page of [`FILTER_PAGE`].
    filter_all: bool,
    filter_units: Vec<u32>,
    filters: Vec<f32>,
    /// The test images reconstructed, and their reconstructions p(v | h).
    originals: Vec<f32>,
    reconstructions: Vec<f32>,
    gallery: Gallery,
    /// Whether the machine learns the labels (794 visible units: the image, then 10).
    labels: bool,
    /// The drawing pad (784 values 0/1), p(y | pad) (empty without labels), the completion.
    pad: Vec<u8>,
    classified: Vec<f64>,
    completion: Option<pad::PadCompletion>,
    /// Changes whenever the weights change.
    version: u64,
    /// The labelled machine in f64 and the version it is of ([`MnistLab::labelled_machine`]).
    labelled_cache: Option<(u64, std::sync::Arc<LabelledRbm>)>,
}

impl MnistLab {
    /// The page's default learning: CD-1, batch 100, ε = 0.1, μ = 0.5, and a weight cost
    /// λ = [`LABELLED_DECAY`] for a run that learns the labels, none without (each measured in
    /// docs/measured.md: visible strokes in the first minute; with labels, under 5 % test error
    /// from update 12,000 on to the end of 10 minutes).
    pub fn default_training(labels: bool) -> Training {
        Training {
            statistics: StatisticsKind::ContrastiveDivergence,
            steps: 1,
            particles: None,
            replicas: None,
            batch: 100,
            rate: 0.1,
            momentum: 0.5,
            decay: if labels { LABELLED_DECAY } else { 0.0 },
        }
    }

    /// A run on the packed file `bytes` (checked by the validating reader; a 28×28 file is
    /// required, error names `mnist file`): a 784-`hidden` machine from `seed` with
    /// `training` (the default when `None`).
    pub fn from_file(
        bytes: &[u8],
        hidden: u64,
        seed: u64,
        training: Option<Training>,
        labels: bool,
    ) -> Result<MnistLab, ParamError> {
        let data = mnist::parse(bytes)?;
        if (data.rows, data.cols) != (28, 28) || data.test.len() < RECONSTRUCTED {
            return Err(ParamError::Invalid {
                field: "mnist file",
                reason: format!(
                    "the page learns 28×28 images with at least {RECONSTRUCTED} test images; this file has {}×{} and {}",
                    data.rows,
                    data.cols,
                    data.test.len()
                ),
            });
        }
        MnistLab::build(data, hidden, seed, training, labels)
    }

    fn build(
        data: Mnist,
        hidden: u64,
        seed: u64,
        training: Option<Training>,
        labels: bool,
    ) -> Result<MnistLab, ParamError> {
        let hidden = HIDDEN.check(hidden)? as usize;
        let seed = SEED.check(seed)?;
        let training = training.unwrap_or_else(|| MnistLab::default_training(labels));
        let train = pad::training_vectors(&data, labels)?;
        let visible = data.train.pixels() + if labels { LABELS } else { 0 };
        let options = training.options(seed, train.len(), visible, hidden)?;
        let mut start = Rbm::random(visible, hidden, 0.01, seed)?;
        start.set_base_rate_biases(&train)?;
        let trainer = pad::trainer(&start, &train, options, labels)?;
        drop(train);
        let originals = data
            .test
            .vectors(RECONSTRUCTED)
            .concat()
            .into_iter()
            .map(f32::from)
            .collect();
        let mut lab = MnistLab {
            hidden,
            seed,
            training,
            trainer,
            view_rng: seeded_rng(seed ^ 0x5eed_71e3),
            filter_page: 0,
            filter_order: FilterOrder::Unit,
            filter_all: false,
            filter_units: Vec::new(),
            filters: Vec::new(),
            originals,
            // Images only: with labels the machine's visible layer has 10 more units, but a
            // reconstruction is the image's p(v | h), as `visible()` counts it.
            reconstructions: vec![0.0; RECONSTRUCTED * data.train.pixels()],
            gallery: Gallery::default(),
            labels,
            pad: vec![0; data.train.pixels()],
            classified: Vec::new(),
            completion: None,
            version: 0,
            labelled_cache: Default::default(),
            data,
        };
        lab.refresh();
        Ok(lab)
    }

    /// The one dispatcher: makes `command` or refuses it, changing nothing.
    pub fn apply(&mut self, command: MnistCommand) -> Result<MnistReply, ParamError> {
        use MnistCommand as C;
        match command {
            C::NewRun {
                hidden,
                seed,
                training,
                labels,
            } => {
                let next = MnistLab::build(self.data.clone(), hidden, seed, training, labels)?;
                *self = next;
                return Ok(self.restarted());
            }
            C::RestoreRun { bytes } => {
                *self = self.restored(&bytes)?;
                return Ok(self.restarted());
            }
            C::SetTraining { training } => self.set_training(training)?,
            C::Advance { updates } => {
                let updates = MNIST_UPDATES.check(updates)?;
                let before = self.trainer.updates();
                let result = self.trainer.run(updates);
                self.version += 1;
                result?;
                return Ok(MnistReply::Learned {
                    updates: self.trainer.updates() - before,
                });
            }
            C::ShowFilters { page, order, all } => {
                let pages = (self.hidden as u64).div_ceil(FILTER_PAGE as u64);
                self.filter_page = FILTER_PAGES.up_to(pages).check(page)? - 1;
                self.filter_order = order;
                self.filter_all = all;
                self.refresh_filters();
            }
            C::Refresh => self.refresh(),
            C::StartGallery {
                count,
                steps,
                label,
            } => {
                let count = MNIST_GALLERY.check(count)? as usize;
                let steps = MNIST_GALLERY_STEPS.check(steps)?;
                if label.is_some() || self.labels {
                    self.start_labelled_gallery(count, steps, label)?;
                    return Ok(MnistReply::Changed);
                }
                let nv = self.visible();
                let states = (0..count * nv)
                    .map(|_| u8::from(uniform(&mut self.view_rng) < 0.5))
                    .collect();
                self.gallery = Gallery {
                    states,
                    means: vec![0.0; count * nv],
                    steps: 0,
                    target: steps,
                    ..Gallery::default()
                };
            }
            C::AdvanceGallery { steps } => {
                let steps = MNIST_GALLERY_STEPS.check(steps)?;
                let done = if self.labels {
                    self.advance_labelled_gallery(steps)
                } else {
                    self.advance_gallery(steps)
                };
                return Ok(MnistReply::GalleryAdvanced { done });
            }
            C::SetPad { image } => self.set_pad(image)?,
            C::PadFromTest { image } => {
                let k = PAD_TEST_IMAGE
                    .up_to(self.data.test.len() as u64 - 1)
                    .check(image)?;
                self.set_pad(self.data.test.image(k as usize))?;
            }
            C::CompletePad { mask, steps } => self.complete_pad(mask, steps)?,
            C::ClampPad { clamped } => self.clamp_pad(clamped)?,
            C::AdvancePad { steps } => {
                return Ok(MnistReply::CompletionAdvanced {
                    done: self.advance_pad(steps)?,
                });
            }
        }
        Ok(MnistReply::Changed)
    }

    fn restarted(&self) -> MnistReply {
        MnistReply::Restarted {
            visible: self.visible(),
            hidden: self.hidden,
            width: self.data.cols,
            updates: self.updates(),
            updates_per_epoch: self.updates_per_epoch(),
        }
    }

    fn set_training(&mut self, training: Training) -> Result<(), ParamError> {
        let mut next = MnistLab::build_trainer_like(self, training)?;
        std::mem::swap(&mut self.trainer, &mut next);
        self.training = training;
        Ok(())
    }

    /// A trainer with `training` that goes on from `lab`'s machine, velocities and batch
    /// position (new chains when the statistics or their count change).
    fn build_trainer_like(lab: &MnistLab, training: Training) -> Result<BatchTrainer, ParamError> {
        let train = pad::training_vectors(&lab.data, lab.labels)?;
        let visible = lab.trainer.rbm().visible();
        let options = training.options(lab.seed, train.len(), visible, lab.hidden)?;
        let mut trainer = pad::trainer(&lab.trainer.rbm(), &train, options, lab.labels)?;
        let mut state = lab.trainer.state();
        let fresh = trainer.state();
        if state.chains.len() != fresh.chains.len()
            || training.statistics != lab.training.statistics
        {
            state.chains = fresh.chains;
        }
        trainer.restore(state)?;
        Ok(trainer)
    }

    // --- Views -------------------------------------------------------------------------------

    /// Brings the filters and the reconstructions up to date.
    fn refresh(&mut self) {
        self.refresh_filters();
        self.reconstruct();
        self.classify_pad();
    }

    /// The shown page of filters (or all of them), each scaled to its own largest |W_ij|.
    fn refresh_filters(&mut self) {
        let (nv, nh) = (self.visible(), self.hidden);
        let w = self.trainer.weights();
        let mut units: Vec<u32> = (0..nh as u32).collect();
        if self.filter_order == FilterOrder::Norm {
            let mut norms = vec![0.0f64; nh];
            for row in w[..nv * nh].chunks_exact(nh) {
                for (n, &x) in norms.iter_mut().zip(row) {
                    *n += f64::from(x) * f64::from(x);
                }
            }
            units.sort_by(|&a, &b| norms[b as usize].total_cmp(&norms[a as usize]));
        }
        let (start, end) = if self.filter_all {
            (0, nh)
        } else {
            let start = (self.filter_page as usize * FILTER_PAGE).min(nh);
            (start, (start + FILTER_PAGE).min(nh))
        };
        self.filter_units = units[start..end].to_vec();
        self.filters.resize(self.filter_units.len() * nv, 0.0);
        for (k, &j) in self.filter_units.iter().enumerate() {
            let image = &mut self.filters[k * nv..(k + 1) * nv];
            let mut top = 0.0f32;
            for (i, x) in image.iter_mut().enumerate() {
                *x = w[i * nh + j as usize];
                top = top.max(x.abs());
            }
            if top > 0.0 {
                image.iter_mut().for_each(|x| *x /= top);
            }
        }
    }

    /// p(h_j = 1 | v) for the 0/1 image `v` (only the rows of the units that are on).
    fn hidden_probabilities(&self, v: &[u8], out: &mut [f64]) {
        let nh = self.hidden;
        let w = self.trainer.weights();
        let (_, b) = self.trainer.biases();
        for (o, &bj) in out.iter_mut().zip(b) {
            *o = f64::from(bj);
        }
        for (i, _) in v.iter().enumerate().filter(|(_, x)| **x == 1) {
            for (o, &x) in out.iter_mut().zip(&w[i * nh..(i + 1) * nh]) {
                *o += f64::from(x);
            }
        }
        out.iter_mut().for_each(|x| *x = sigmoid(*x));
    }

    /// p(v_i = 1 | h) for the 0/1 hidden state `h`.
    fn visible_probabilities(&self, h: &[u8], out: &mut [f32]) {
        let nh = self.hidden;
        let w = self.trainer.weights();
        let (a, _) = self.trainer.biases();
        for (i, o) in out.iter_mut().enumerate() {
            let row = &w[i * nh..(i + 1) * nh];
            let mut sum = f64::from(a[i]);
            for (&x, _) in row.iter().zip(h).filter(|(_, s)| **s == 1) {
                sum += f64::from(x);
            }
            *o = sigmoid(sum) as f32;
        }
    }

    /// Reconstructions p(v | h), h ~ p(h | v), of the fixed test images. The h are drawn from
    /// a stream fixed by the seed and the update count, so redrawing the views never changes
    /// the run: the same machine shows the same reconstructions, and a saved run stays equal to
    /// the live one however often the page redraws.
    fn reconstruct(&mut self) {
        let mut rng = seeded_rng(
            self.seed ^ 0x7ec0_2578 ^ self.trainer.updates().wrapping_mul(0x9e37_79b9_7f4a_7c15),
        );
        let nv = self.visible();
        let mut p = vec![0.0; self.hidden];
        let mut h = vec![0u8; self.hidden];
        let mut out = vec![0.0f32; nv];
        for k in 0..RECONSTRUCTED {
            let v: Vec<u8> = self.originals[k * nv..(k + 1) * nv]
                .iter()
                .map(|&x| x as u8)
                .collect();
            self.hidden_probabilities(&v, &mut p);
            for (s, &q) in h.iter_mut().zip(&p) {
                *s = u8::from(uniform(&mut rng) < q);
            }
            self.visible_probabilities(&h, &mut out);
            self.reconstructions[k * nv..(k + 1) * nv].copy_from_slice(&out);
        }
    }

    /// Up to `steps` block Gibbs steps of every gallery chain; whether it is done.
    fn advance_gallery(&mut self, steps: u64) -> bool {
        let nv = self.visible();
        let count = self.gallery.states.len() / nv.max(1);
        let todo = steps.min(self.gallery.target - self.gallery.steps);
        let mut p = vec![0.0; self.hidden];
        let mut h = vec![0u8; self.hidden];
        let mut mean = vec![0.0f32; nv];
        for _ in 0..todo {
            for c in 0..count {
                let v = self.gallery.states[c * nv..(c + 1) * nv].to_vec();
                self.hidden_probabilities(&v, &mut p);
                for (s, &q) in h.iter_mut().zip(&p) {
                    *s = u8::from(uniform(&mut self.view_rng) < q);
                }
                self.visible_probabilities(&h, &mut mean);
                for (i, &q) in mean.iter().enumerate() {
                    self.gallery.states[c * nv + i] =
                        u8::from(uniform(&mut self.view_rng) < f64::from(q));
                }
                self.gallery.means[c * nv..(c + 1) * nv].copy_from_slice(&mean);
            }
            self.gallery.steps += 1;
        }
        self.gallery.steps >= self.gallery.target
    }

    // --- Saving ------------------------------------------------------------------------------

    /// The run as bytes: `BZMNRUN` and format 2, the length of a JSON header (u32 LE), the
    /// header (hidden, seed, training, batch position, generator words, updates, the view
    /// stream's words, whether it learns the labels, the pad), then W, a, b, their
    /// velocities and the chains as f32 LE (with labels, W's and a's rows run over the 794
    /// joint units), the order as u32 LE, and the CRC-32 of everything before it. Format 1
    /// (no labels, no pad) is still read.
    pub fn save(&self) -> Vec<u8> {
        let state = self.trainer.state();
        let header = SavedHeader {
            hidden: self.hidden as u64,
            seed: self.seed,
            training: self.training,
            cursor: state.cursor as u64,
            rng: state.rng,
            updates: state.updates,
            view_rng: crate::rng::random_words(&self.view_rng),
            chains: state.chains.len() as u64,
            labels: self.labels,
            pad: self.pad.iter().map(|&b| char::from(b'0' + b)).collect(),
        };
        let json = serde_json::to_vec(&header).expect("the header serializes");
        let mut out = Vec::with_capacity(16 + json.len() + 4 * (2 * state.weights.len() + 4096));
        out.extend_from_slice(SAVE_MAGIC);
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&json);
        for part in [
            &state.weights,
            &state.visible_biases,
            &state.hidden_biases,
            &state.velocity_weights,
            &state.velocity_visible,
            &state.velocity_hidden,
            &state.chains,
        ] {
            for x in part {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        for k in &state.order {
            out.extend_from_slice(&k.to_le_bytes());
        }
        let crc = mnist::crc32(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// The run saved in `bytes` ([`MnistLab::save`]) on this lab's data; errors name `saved
    /// run` and say what is wrong (a damaged or truncated save, another shape).
    fn restored(&self, bytes: &[u8]) -> Result<MnistLab, ParamError> {
        let bad = |reason: &str| ParamError::Invalid {
            field: "saved run",
            reason: reason.into(),
        };
        let stem = &SAVE_MAGIC[..SAVE_MAGIC.len() - 1];
        if bytes.len() < SAVE_MAGIC.len() + 8 || &bytes[..stem.len()] != stem {
            return Err(bad("not a saved MNIST run (no BZMNRUN header)"));
        }
        let format = bytes[stem.len()];
        if !(1..=SAVE_MAGIC[stem.len()]).contains(&format) {
            return Err(bad(&format!(
                "saved in format {format} by a newer page; this page reads formats 1 and 2"
            )));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if mnist::crc32(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err(bad("damaged or truncated (checksum)"));
        }
        let mut at = SAVE_MAGIC.len();
        let length = u32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes")) as usize;
        at += 4;
        let json = body
            .get(at..at + length)
            .ok_or_else(|| bad("the header is cut short"))?;
        at += length;
        let header: SavedHeader =
            serde_json::from_slice(json).map_err(|e| bad(&format!("header: {e}")))?;
        if format == 1 && (header.labels || !header.pad.is_empty()) {
            return Err(bad("a format-1 header with format-2 fields"));
        }
        let mut lab = MnistLab::build(
            self.data.clone(),
            header.hidden,
            header.seed,
            Some(header.training),
            header.labels,
        )?;
        if !header.pad.is_empty() {
            let pad: Vec<u8> = header.pad.bytes().map(|c| c.wrapping_sub(b'0')).collect();
            lab.pad = pad::check_pad(&pad, lab.visible()).map_err(|e| bad(&e.to_string()))?;
        }
        let (nv, nh) = (lab.trainer.rbm().visible(), lab.hidden);
        let mut take = |count: usize| -> Result<Vec<f32>, ParamError> {
            let part = body
                .get(at..at + 4 * count)
                .ok_or_else(|| bad("cut short"))?;
            at += 4 * count;
            Ok(part
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect())
        };
        let chains = usize::try_from(header.chains).map_err(|_| bad("chains"))?;
        if chains > 1 << 24 {
            return Err(bad("too many chains"));
        }
        let weights = take(nv * nh)?;
        let visible_biases = take(nv)?;
        let hidden_biases = take(nh)?;
        let velocity_weights = take(nv * nh)?;
        let velocity_visible = take(nv)?;
        let velocity_hidden = take(nh)?;
        let chains = take(chains)?;
        let order: Vec<u32> = body[at..]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        if !(body.len() - at).is_multiple_of(4) {
            return Err(bad("the order is cut short"));
        }
        lab.trainer.restore(BatchState {
            weights,
            visible_biases,
            hidden_biases,
            velocity_weights,
            velocity_visible,
            velocity_hidden,
            chains,
            order,
            cursor: usize::try_from(header.cursor).map_err(|_| bad("cursor"))?,
            rng: header.rng,
            updates: header.updates,
        })?;
        lab.view_rng = crate::rng::rng_from_words("saved run", header.view_rng)?;
        lab.version = 1;
        lab.refresh();
        Ok(lab)
    }

    // --- Readings ----------------------------------------------------------------------------

    pub fn visible(&self) -> usize {
        self.data.train.pixels()
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Pixels per row (28).
    pub fn width(&self) -> usize {
        self.data.cols
    }

    pub fn training(&self) -> Training {
        self.training
    }

    pub fn updates(&self) -> u64 {
        self.trainer.updates()
    }

    /// N, the training images (60 000): the largest batch.
    pub fn training_images(&self) -> usize {
        self.data.train.len()
    }

    /// ⌈N / B⌉ (600 at batch 100).
    pub fn updates_per_epoch(&self) -> usize {
        self.data.train.len().div_ceil(self.trainer.options().batch)
    }

    /// Changes whenever the weights change.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The shown filters (count × 784, each scaled to [−1, 1]) and their units.
    pub fn filters(&self) -> (&[f32], &[u32]) {
        (&self.filters, &self.filter_units)
    }

    /// The shown page of filters, its order, and whether all are shown instead.
    pub fn filter_view(&self) -> (u64, FilterOrder, bool) {
        (self.filter_page, self.filter_order, self.filter_all)
    }

    /// The first (up to) 100 free chains' images, 0/1 as f32 (with labels, each chain's
    /// label units left out).
    pub fn chains(&self) -> Vec<f32> {
        let nv = self.visible();
        let width = nv + if self.labels { LABELS } else { 0 };
        self.trainer
            .chain_visible()
            .chunks_exact(width)
            .take(SHOWN_CHAINS)
            .flat_map(|row| &row[..nv])
            .copied()
            .collect()
    }

    /// The reconstructed test images (0/1) and their reconstructions p(v | h).
    pub fn reconstructions(&self) -> (&[f32], &[f32]) {
        (&self.originals, &self.reconstructions)
    }

    /// The gallery's mean images p(v | h), its steps done and to do.
    pub fn gallery(&self) -> (&[f32], u64, u64) {
        (&self.gallery.means, self.gallery.steps, self.gallery.target)
    }

    /// W, a and b in f32 one after the other (V·H + V + H, V = 794 with labels): a snapshot
    /// for the likelihood worker.
    pub fn parameters(&self) -> Vec<f32> {
        let (a, b) = self.trainer.biases();
        [self.trainer.weights(), a, b].concat()
    }

    /// The packed data the run learns.
    pub fn data(&self) -> &Mnist {
        &self.data
    }
}

/// The save's magic and its newest format (the last byte).
const SAVE_MAGIC: &[u8; 8] = b"BZMNRUN\x02";

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedHeader {
    hidden: u64,
    seed: u64,
    training: Training,
    cursor: u64,
    rng: [u32; 4],
    updates: u64,
    view_rng: [u32; 4],
    chains: u64,
    /// Format 2: whether the run learns the labels, and the pad as 784 characters 0/1.
    #[serde(default)]
    labels: bool,
    #[serde(default)]
    pad: String,
}

/// The log-likelihood points of an MNIST run, computed apart from learning (the page's
/// second worker): each for a snapshot of the machine ([`MnistLab::parameters`]) at an
/// update, on the first [`LIKELIHOOD_IMAGES`] training and test images; AIS from the base
/// rates of those training images. A machine with labels is scored first by its test
/// error on all 10 000 test images, argmax_y p(y | v) against the label
/// ([`TestErrorJob`]), with its binomial standard error √(e(1 − e)/n), then by its ln p(v)
/// with the label summed out, ln Σ_y e^{−F(v, y)} − ln Z, ln Z over images and labels
/// (exact up to 25 hidden units, else AIS with the label group; the labels' base uniform);
/// the point joins the curve with both.
#[derive(Debug, Clone)]
pub struct MnistLikelihood {
    /// The ln p(v) points: the images they are scored on, the AIS base rates, the run's seed
    /// and the point under way (the digits' scorer, the same job).
    points: PointScorer,
    /// All test images and their labels (empty when the file has none).
    test_all: Vec<Vec<u8>>,
    test_labels: Vec<u8>,
    /// The test error under way (a run with labels), before its point.
    errors: Option<TestErrorJob>,
    /// The finished test error (and its standard error) of the point under way.
    error: Option<(f64, f64)>,
    /// (update, train, test, stderr, test error, its standard error) of each point.
    curve: History<6>,
}

/// The test error of a machine with labels, a few images per call: errors / n over the n
/// test images, each classified by argmax_y p(y | v) ([`LabelledRbm::classify_with`]).
#[derive(Debug, Clone)]
pub struct TestErrorJob {
    machine: LabelledRbm,
    next: usize,
    errors: u64,
    scratch: Vec<f64>,
    p: Vec<f64>,
}

impl TestErrorJob {
    /// Classifies up to `work` more images (one unit each); (error, its standard error)
    /// once all `images` are done.
    fn advance(&mut self, work: u64, images: &[Vec<u8>], labels: &[u8]) -> Option<(f64, f64)> {
        let end = (self.next + work as usize).min(images.len());
        for (v, &y) in images[self.next..end].iter().zip(&labels[self.next..end]) {
            self.machine
                .classify_with(v, &mut self.scratch, &mut self.p);
            if crate::learn::rbm::labels::most_probable(&self.p) != usize::from(y) {
                self.errors += 1;
            }
        }
        self.next = end;
        (end == images.len()).then(|| binomial_error(self.errors, images.len() as u64))
    }
}

/// The error rate e = errors / n and its binomial standard error √(e(1 − e)/n).
pub fn binomial_error(errors: u64, n: u64) -> (f64, f64) {
    let n = n.max(1) as f64;
    let e = errors as f64 / n;
    (e, libm::sqrt(e * (1.0 - e) / n))
}

impl MnistLikelihood {
    /// The scorer of the packed file `bytes` (the validating reader) for runs of `seed`.
    pub fn from_file(bytes: &[u8], seed: u64) -> Result<MnistLikelihood, ParamError> {
        let data = mnist::parse(bytes)?;
        let points = PointScorer::new(
            data.train.vectors(LIKELIHOOD_IMAGES),
            data.test.vectors(LIKELIHOOD_IMAGES),
            seed,
        )?;
        let test_labels = data.test.labels().map(<[u8]>::to_vec).unwrap_or_default();
        let test_all = if test_labels.is_empty() {
            Vec::new()
        } else {
            data.test.vectors(data.test.len())
        };
        Ok(MnistLikelihood {
            points,
            test_all,
            test_labels,
            errors: None,
            error: None,
            curve: History::with_eviction(CURVE_CAPACITY, Eviction::Oldest),
        })
    }

    /// A new run's points: the curve starts again, for runs of `seed`.
    pub fn reset(&mut self, seed: u64) -> Result<(), ParamError> {
        self.points.reset(seed)?;
        self.errors = None;
        self.error = None;
        self.curve = History::with_eviction(CURVE_CAPACITY, Eviction::Oldest);
        Ok(())
    }

    /// Starts the point of the machine `parameters` (W, a, b as [`MnistLab::parameters`]
    /// gives them) with `hidden` units at `update`, replacing any under way; with `labels`
    /// the machine is the joint one (794 visible units) and the point is its test error,
    /// then its ln p(v) with the label summed out.
    /// Error names `snapshot` when the lengths do not fit, `labels` when the file has none.
    pub fn start(
        &mut self,
        hidden: usize,
        labels: bool,
        parameters: &[f32],
        update: u64,
    ) -> Result<(), ParamError> {
        let nv = self.points.visible() + if labels { LABELS } else { 0 };
        let hidden = HIDDEN.check(hidden as u64)? as usize;
        if parameters.len() != nv * hidden + nv + hidden {
            return Err(ParamError::Invalid {
                field: "snapshot",
                reason: format!(
                    "a {nv}-{hidden} machine has {} parameters, got {}",
                    nv * hidden + nv + hidden,
                    parameters.len()
                ),
            });
        }
        if labels && self.test_labels.is_empty() {
            return Err(ParamError::Invalid {
                field: "labels",
                reason: "this MNIST file has no test labels to score".into(),
            });
        }
        let to_f64 = |x: &[f32]| x.iter().map(|&w| f64::from(w)).collect::<Vec<f64>>();
        let (w, rest) = parameters.split_at(nv * hidden);
        let (a, b) = rest.split_at(nv);
        let rbm = Rbm::new(nv, hidden, to_f64(w), to_f64(a), to_f64(b))?;
        if labels {
            let machine = LabelledRbm::new(rbm.clone(), LABELS)?;
            self.points.start_labelled(rbm, LABELS, update)?;
            self.errors = Some(TestErrorJob {
                machine,
                next: 0,
                errors: 0,
                scratch: vec![0.0; hidden],
                p: vec![0.0; LABELS],
            });
        } else {
            self.points.start(rbm, update)?;
            self.errors = None;
        }
        self.error = None;
        Ok(())
    }

    /// Does at most `work` units of the point under way (an image classified is one unit
    /// of a test error; then the ln p(v) point's units); the point once it joined the curve
    /// (without labels its test error is NaN). A point whose work fails is dropped and the
    /// error returned.
    pub fn step(&mut self, work: u64) -> Result<Option<Point>, ParamError> {
        if let Some(job) = self.errors.as_mut() {
            match job.advance(work, &self.test_all, &self.test_labels) {
                None => return Ok(None),
                Some(error) => {
                    self.error = Some(error);
                    self.errors = None;
                    return Ok(None);
                }
            }
        }
        let point = match self.points.step(work) {
            Ok(None) => return Ok(None),
            Ok(Some(point)) => point,
            Err(e) => {
                self.error = None;
                return Err(e);
            }
        };
        let error = self.error.take().unwrap_or((f64::NAN, f64::NAN));
        self.curve.push_point([
            point.update as f64,
            point.train,
            point.test,
            point.stderr,
            error.0,
            error.1,
        ]);
        Ok(Some(point))
    }

    /// The fraction of the point under way that is done (with labels the test error counts
    /// for the first 10 %), `None` when none is.
    pub fn progress(&self) -> Option<f64> {
        match &self.errors {
            Some(e) => Some(0.1 * e.next as f64 / self.test_all.len().max(1) as f64),
            None if self.error.is_some() => self.points.progress().map(|p| 0.1 + 0.9 * p),
            None => self.points.progress(),
        }
    }

    /// Whether the point under way's ln Z is exact (else AIS; a test error is exact);
    /// `None` when none is.
    pub fn exact(&self) -> Option<bool> {
        self.points.exact()
    }

    /// The update of the point under way.
    pub fn job_update(&self) -> Option<u64> {
        self.points.job_update()
    }

    /// Column `k` of the curve: 0 updates, 1 train, 2 test, 3 stderr, 4 test error (a
    /// fraction; NaN without labels), 5 its standard error.
    pub fn curve(&self, k: usize) -> &[f64] {
        self.curve.column(k)
    }
}
