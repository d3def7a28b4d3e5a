//! The restricted machine's protocol: every change a front end can make to an [`RbmLab`] is
//! one [`RbmCommand`], and [`RbmLab::apply`] is the one dispatcher that makes it and answers
//! with an [`RbmReply`] (the lattice's shape: `app::lattice::command`).
//!
//! On the wire a command is a plain object tagged by `command` (kebab-case), its choices by
//! name and its counts as numbers: `{"command": "learn", "work": 100000}`. Decoding reads each
//! count through its [`Count`](super::Count), the same range the dispatcher checks, so a bad
//! value gets the same message at the boundary as here; the dispatcher checks again for Rust
//! callers that build commands directly. A refused command leaves the lab as it was, except
//! where said: learning that diverges keeps the updates before the divergence, and a
//! likelihood point whose work fails is dropped.
//!
//! Reading (the images, the curves, the counters) stays with plain getters: only commands
//! change the lab.

use super::completion::Mask;
use super::dataset::{DatasetChoice, Images};
use super::likelihood::Point;
use super::training::Training;
use super::{LIKELIHOOD_EVERY, POINT_UPDATE, RbmLab};
use crate::app::lattice::wire::by_name;
use crate::error::ParamError;
use serde::{Deserialize, Serialize};

/// Every change a front end can make to the restricted-machine engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "command", rename_all = "kebab-case", deny_unknown_fields)]
#[tsify(missing_as_null)]
pub enum RbmCommand {
    /// Replaces the run by a new one on a built-in dataset: `hidden` units (1 to 500) from
    /// `seed` (0 to 2^53), with `training` (the default when `None`: persistent, 100
    /// particles, k = 1, batch min(100, N), ε = 0.05, μ = 0.5) and a log-likelihood point
    /// every `likelihood_every` updates (when `None`: every two epochs, 2⌈N / B⌉). Nothing
    /// changes if any value is refused.
    NewRun {
        #[serde(with = "by_name")]
        dataset: DatasetChoice,
        #[serde(deserialize_with = "wire::hidden")]
        hidden: u64,
        #[serde(deserialize_with = "wire::seed")]
        seed: u64,
        #[serde(default)]
        training: Option<Training>,
        #[serde(default, deserialize_with = "wire::likelihood_every_or_none")]
        likelihood_every: Option<u64>,
    },
    /// As [`RbmCommand::NewRun`] on the user's file (a digits file or text, one image per
    /// line of 0s and 1s; its images are the training and the test set).
    NewRunFromFile {
        #[tsify(type = "Uint8Array | number[]")]
        #[serde(deserialize_with = "wire::bytes")]
        bytes: Vec<u8>,
        #[serde(deserialize_with = "wire::hidden")]
        hidden: u64,
        #[serde(deserialize_with = "wire::seed")]
        seed: u64,
        #[serde(default)]
        training: Option<Training>,
        #[serde(default, deserialize_with = "wire::likelihood_every_or_none")]
        likelihood_every: Option<u64>,
    },
    /// Replaces the run by the one a session text describes (continuing exactly).
    RestoreSession { text: String },
    /// The learning options from the next update on (new statistics or particle counts
    /// start new particles).
    SetTraining { training: Training },
    /// A log-likelihood point every `every` updates (1 to 10⁶).
    SetLikelihoodEvery {
        #[serde(deserialize_with = "wire::likelihood_every")]
        every: u64,
    },
    /// Up to `updates` whole mini-batch updates (1 to 10 000).
    Advance {
        #[serde(deserialize_with = "wire::updates")]
        updates: u64,
    },
    /// Learns for about `work` multiply-adds (1 to 2^40), in slices of an update resumed by
    /// the next call.
    Learn {
        #[serde(deserialize_with = "wire::learning_work")]
        work: u64,
    },
    /// Brings the particle grid and the reconstructions up to date (drawing from the view
    /// stream, which the session keeps). `means` (default true): also p(v | h) of each
    /// shown persistent particle; a page that shows only their states sends false, and the
    /// means keep their last values. The stream is drawn from alike either way.
    Refresh {
        #[serde(default = "wire::yes")]
        means: bool,
    },
    /// Works on the log-likelihood: starts a point when one is due, then does at most
    /// `work` units of it (1 to 2^24; exact: states of the smaller layer, AIS: steps of one
    /// run; then the images' free energies).
    LikelihoodStep {
        #[serde(deserialize_with = "wire::likelihood_work")]
        work: u64,
    },
    /// Starts the log-likelihood point when one is due, without working on it: for a front
    /// end that computes points apart from learning, from the frozen machine
    /// ([`RbmLab::point_machine`]), and hands the values back with
    /// [`RbmCommand::FinishPoint`]. Answers the update of the point under way.
    StartPoint,
    /// The values of the point under way at `update` (0 to 2^53), computed elsewhere by the
    /// same job ([`PointScorer`](super::points::PointScorer)): mean ln p(v) of the training
    /// and the test images, finite, and the standard error of ln Z (0 when exact, ≥ 0).
    FinishPoint {
        #[serde(deserialize_with = "wire::point_update")]
        update: u64,
        train: f64,
        test: f64,
        stderr: f64,
    },
    /// Drops the point under way at `update` (its work failed elsewhere), so that a fresh
    /// one starts when [`RbmCommand::StartPoint`] comes next.
    DropPoint {
        #[serde(deserialize_with = "wire::point_update")]
        update: u64,
    },
    /// Starts `count` fresh gallery chains (1 to 100) from random images, to run `steps`
    /// block Gibbs steps (1 to 100 000).
    StartGallery {
        #[serde(deserialize_with = "wire::gallery_images")]
        count: u64,
        #[serde(deserialize_with = "wire::gallery_steps")]
        steps: u64,
    },
    /// Advances the gallery's chains by up to `steps` steps (1 to 100 000).
    AdvanceGallery {
        #[serde(deserialize_with = "wire::chain_steps")]
        steps: u64,
    },
    /// Starts completing test image `image` (0-based) with `mask` clamped (`top`, `left`, or
    /// `paint` with `painted`: V values 0/1, ignored for the other masks).
    StartCompletion {
        #[serde(deserialize_with = "wire::test_image")]
        image: u64,
        #[serde(with = "by_name")]
        mask: Mask,
        #[tsify(type = "Uint8Array | number[]")]
        #[serde(default, deserialize_with = "wire::bytes")]
        painted: Vec<u8>,
    },
    /// Runs `steps` block Gibbs steps of the completion (1 to 100 000).
    AdvanceCompletion {
        #[serde(deserialize_with = "wire::chain_steps")]
        steps: u64,
    },
    /// The completion's phase: clamped (the mask holds the image) or free.
    SetCompletionClamped { clamped: bool },
}

/// What the engine answers to a command it accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "reply", rename_all = "kebab-case")]
pub enum RbmReply {
    /// The change was made.
    Changed,
    /// A new run replaced the old (new run or session): its shape, for the page to lay out
    /// its views again.
    Restarted {
        visible: usize,
        hidden: usize,
        width: usize,
        test_images: usize,
    },
    /// Learning completed `updates` updates (fewer than asked on a slice of an update).
    Learned { updates: u64 },
    /// The likelihood work was done; `added`: a point joined the curves.
    LikelihoodWorked { added: bool },
    /// The gallery's chains moved; `done`: they have run all their steps.
    GalleryAdvanced { done: bool },
    /// The update of the log-likelihood point under way, `None` when none is (none due).
    PointUnderWay { update: Option<u64> },
}

/// How a command's counts are read on the wire: each through its [`Count`](super::Count).
pub(super) mod wire {
    use crate::app::lattice::wire::counts;
    use serde::{Deserialize, Deserializer, de::Error};

    counts! {
        hidden: HIDDEN;
        seed: SEED;
        likelihood_every: LIKELIHOOD_EVERY;
        updates: UPDATES;
        learning_work: LEARNING_WORK;
        likelihood_work: LIKELIHOOD_WORK;
        gallery_images: GALLERY_IMAGES;
        gallery_steps: GALLERY_STEPS;
        chain_steps: CHAIN_STEPS;
        point_update: POINT_UPDATE;
    }

    /// A test image: up to the last one, which the run checks.
    pub fn test_image<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        crate::app::lattice::wire::read_count_before(
            d,
            super::super::TEST_IMAGE,
            "the last test image",
        )
    }

    /// The default of a flag that is on unless it is sent off.
    pub fn yes() -> bool {
        true
    }

    /// Bytes written as a `Uint8Array` (which serde-wasm-bindgen hands over as a byte
    /// buffer) or as an array of numbers (JSON).
    pub fn bytes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl<'de> serde::de::Visitor<'de> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes (a Uint8Array or an array of numbers 0 to 255)")
            }
            fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
                while let Some(b) = seq.next_element::<u8>()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_byte_buf(Bytes)
    }

    pub fn likelihood_every_or_none<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<u64>, D::Error> {
        Option::<f64>::deserialize(d)?
            .map(|x| {
                super::super::LIKELIHOOD_EVERY
                    .read(x)
                    .map_err(D::Error::custom)
            })
            .transpose()
    }
}

impl RbmLab {
    /// The one dispatcher: makes `command` or refuses it (with the reason, changing nothing
    /// but what the module docs say).
    pub fn apply(&mut self, command: RbmCommand) -> Result<RbmReply, ParamError> {
        use RbmCommand as C;
        match command {
            C::NewRun {
                dataset,
                hidden,
                seed,
                training,
                likelihood_every,
            } => {
                let images = Images::built_in(dataset);
                *self = RbmLab::new_run(images, hidden, seed, training, likelihood_every)?;
                return Ok(self.restarted());
            }
            C::NewRunFromFile {
                bytes,
                hidden,
                seed,
                training,
                likelihood_every,
            } => {
                let images = Images::from_bytes(&bytes)?;
                *self = RbmLab::new_run(images, hidden, seed, training, likelihood_every)?;
                return Ok(self.restarted());
            }
            C::RestoreSession { text } => {
                self.restore_session(&text)?;
                return Ok(self.restarted());
            }
            C::SetTraining { training } => self.set_options(&training)?,
            C::SetLikelihoodEvery { every } => self.set_every(every)?,
            C::Advance { updates } => {
                let updates = self.run_updates(updates)?;
                return Ok(RbmReply::Learned { updates });
            }
            C::Learn { work } => {
                let updates = self.learn_for(work)?;
                return Ok(RbmReply::Learned { updates });
            }
            C::Refresh { means } => self.refresh_views(means),
            C::LikelihoodStep { work } => {
                let added = self.work_on_likelihood(work)?;
                return Ok(RbmReply::LikelihoodWorked { added });
            }
            C::StartPoint => {
                let update = self.start_point()?;
                return Ok(RbmReply::PointUnderWay { update });
            }
            C::FinishPoint {
                update,
                train,
                test,
                stderr,
            } => {
                let update = POINT_UPDATE.check(update)?;
                self.finish_point(Point {
                    update,
                    train,
                    test,
                    stderr,
                })?;
                return Ok(RbmReply::LikelihoodWorked { added: true });
            }
            C::DropPoint { update } => self.drop_point(POINT_UPDATE.check(update)?)?,
            C::StartGallery { count, steps } => self.start_gallery(count, steps)?,
            C::AdvanceGallery { steps } => {
                let done = self.advance_gallery(steps)?;
                return Ok(RbmReply::GalleryAdvanced { done });
            }
            C::StartCompletion {
                image,
                mask,
                painted,
            } => self.start_completion(image, mask, &painted)?,
            C::AdvanceCompletion { steps } => self.advance_completion(steps)?,
            C::SetCompletionClamped { clamped } => self.clamp_completion(clamped)?,
        }
        Ok(RbmReply::Changed)
    }

    /// A new run on `images` ([`RbmCommand::NewRun`]), built whole before it replaces
    /// anything.
    fn new_run(
        images: Images,
        hidden: u64,
        seed: u64,
        training: Option<Training>,
        likelihood_every: Option<u64>,
    ) -> Result<RbmLab, ParamError> {
        let mut lab = RbmLab::build(images, hidden, seed)?;
        if let Some(training) = training {
            lab.set_options(&training)?;
        }
        let every = match likelihood_every {
            Some(every) => every,
            None => (2 * lab.updates_per_epoch() as u64).clamp(1, LIKELIHOOD_EVERY.max),
        };
        lab.set_every(every)?;
        Ok(lab)
    }

    fn restarted(&self) -> RbmReply {
        RbmReply::Restarted {
            visible: self.visible(),
            hidden: self.hidden,
            width: self.images.width,
            test_images: self.images.test.len(),
        }
    }
}
