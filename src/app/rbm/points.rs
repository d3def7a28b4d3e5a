//! Log-likelihood points apart from learning: a [`PointScorer`] holds the images a run is
//! scored on and, for each frozen machine a learning front end hands it, runs the same job
//! the run itself would ([`PointJob`]: ln Z exact over the smaller layer up to 25 units,
//! else the engine's AIS driver seeded by the run's seed and the update; then the free
//! energies), in slices. The page's digits run keeps its points this way in a second worker
//! ([`RbmLab::start_point`](super::RbmLab) → here → `finish-point`), so learning never
//! shares its worker with a point; the values are the ones the run's own
//! `likelihood-step` gives, bit for bit (tests/rbm_points.rs).
//!
//! ln p(v) = −F(v) − ln Z, averaged over each set; AIS starts from the base rates of the
//! training images, a_i = ln(p_i / (1 − p_i)), as the run's own job does.

use super::likelihood::{Point, PointJob};
use super::{HIDDEN, LIKELIHOOD_WORK, MAX_VISIBLE, SEED};
use crate::error::ParamError;
use crate::model::rbm::{Rbm, base_rate_biases};

/// The images of one run and the point under way.
#[derive(Debug, Clone)]
pub struct PointScorer {
    train: Vec<Vec<u8>>,
    test: Vec<Vec<u8>>,
    /// The base rates of the training images (AIS's starting machine).
    base: Vec<f64>,
    seed: u64,
    job: Option<PointJob>,
}

impl PointScorer {
    /// The scorer of a run of `seed` (0 to 2^53) on the images `train` and `test` (each
    /// image 0/1 values, all of one length, 1 to 1024, neither set empty). Errors name
    /// `seed`, `training images` or `test images`.
    pub fn new(
        train: Vec<Vec<u8>>,
        test: Vec<Vec<u8>>,
        seed: u64,
    ) -> Result<PointScorer, ParamError> {
        let seed = SEED.check(seed)?;
        let visible = train.first().map_or(0, Vec::len);
        for (field, set) in [("training images", &train), ("test images", &test)] {
            if set.is_empty() || !(1..=MAX_VISIBLE).contains(&visible) {
                return Err(ParamError::Invalid {
                    field,
                    reason: format!(
                        "{} images of {visible} pixels; at least one image of 1 to {MAX_VISIBLE}",
                        set.len()
                    ),
                });
            }
            crate::model::patterns::check_patterns(set, visible).map_err(|e| {
                ParamError::Invalid {
                    field,
                    reason: e.to_string(),
                }
            })?;
        }
        let base = base_rate_biases(&train, visible)?;
        Ok(PointScorer {
            train,
            test,
            base,
            seed,
            job: None,
        })
    }

    /// As [`PointScorer::new`], the images of `visible` pixels one after the other (the
    /// form a worker receives them in). Errors name `visible`, `training images` or `test
    /// images` when the lengths do not fit.
    pub fn from_pixels(
        visible: usize,
        train: &[u8],
        test: &[u8],
        seed: u64,
    ) -> Result<PointScorer, ParamError> {
        if !(1..=MAX_VISIBLE).contains(&visible) {
            return Err(ParamError::OutOfRange {
                field: "visible",
                value: visible as f64,
                min: 1.0,
                max: MAX_VISIBLE as f64,
            });
        }
        let split = |field, pixels: &[u8]| {
            if pixels.is_empty() || !pixels.len().is_multiple_of(visible) {
                return Err(ParamError::Invalid {
                    field,
                    reason: format!(
                        "{} pixels are not a whole, non-zero number of {visible}-pixel images",
                        pixels.len()
                    ),
                });
            }
            Ok(pixels.chunks(visible).map(<[u8]>::to_vec).collect())
        };
        PointScorer::new(
            split("training images", train)?,
            split("test images", test)?,
            seed,
        )
    }

    /// A new run's points, for runs of `seed` (0 to 2^53): the point under way is dropped.
    pub fn reset(&mut self, seed: u64) -> Result<(), ParamError> {
        self.seed = SEED.check(seed)?;
        self.job = None;
        Ok(())
    }

    /// Pixels per image.
    pub fn visible(&self) -> usize {
        self.base.len()
    }

    /// Starts the point of `rbm`, frozen at `update`, replacing any under way. Refused,
    /// nothing changed, when its visible layer is not the images' (names `snapshot`).
    pub fn start(&mut self, rbm: Rbm, update: u64) -> Result<(), ParamError> {
        if rbm.visible() != self.visible() {
            return Err(ParamError::Invalid {
                field: "snapshot",
                reason: format!(
                    "a machine of {} visible units for images of {} pixels",
                    rbm.visible(),
                    self.visible()
                ),
            });
        }
        self.job = Some(PointJob::new(rbm, update, &self.base, self.seed)?);
        Ok(())
    }

    /// As [`PointScorer::start`] for a machine whose last `labels` visible units are a
    /// one-of-K label group beside the images' pixels: ln p(v) with the label summed out
    /// ([`PointJob::new_labelled`]). Refused, nothing changed, when its visible layer is not
    /// the pixels and the labels (names `snapshot`) or the group is not 2 ≤ K < V (`labels`).
    pub fn start_labelled(
        &mut self,
        rbm: Rbm,
        labels: usize,
        update: u64,
    ) -> Result<(), ParamError> {
        if rbm.visible() != self.visible() + labels {
            return Err(ParamError::Invalid {
                field: "snapshot",
                reason: format!(
                    "a machine of {} visible units for images of {} pixels and {labels} labels",
                    rbm.visible(),
                    self.visible()
                ),
            });
        }
        self.job = Some(PointJob::new_labelled(
            rbm, labels, update, &self.base, self.seed,
        )?);
        Ok(())
    }

    /// As [`PointScorer::start`], the machine as W (V × H row-major), a and b one after the
    /// other, with `hidden` units (1 to 500). Errors name `hidden units`, `snapshot` (the
    /// length) or the part that is not finite.
    pub fn start_from_parameters(
        &mut self,
        hidden: u64,
        parameters: &[f64],
        update: u64,
    ) -> Result<(), ParamError> {
        let hidden = HIDDEN.check(hidden)? as usize;
        let nv = self.visible();
        let expected = nv * hidden + nv + hidden;
        if parameters.len() != expected {
            return Err(ParamError::Invalid {
                field: "snapshot",
                reason: format!(
                    "a {nv}-{hidden} machine has {expected} parameters, got {}",
                    parameters.len()
                ),
            });
        }
        let (w, rest) = parameters.split_at(nv * hidden);
        let (a, b) = rest.split_at(nv);
        let rbm = Rbm::new(nv, hidden, w.to_vec(), a.to_vec(), b.to_vec())?;
        self.start(rbm, update)
    }

    /// Does at most `work` units of the point under way ([`LIKELIHOOD_WORK`]: 1 to 2^24);
    /// the point once it is done (the job then ends). A point whose work fails is dropped
    /// and the error returned.
    pub fn step(&mut self, work: u64) -> Result<Option<Point>, ParamError> {
        let work = LIKELIHOOD_WORK.check(work)?;
        let Some(job) = self.job.as_mut() else {
            return Ok(None);
        };
        match job.advance(work, &self.train, &self.test) {
            Ok(None) => Ok(None),
            Ok(Some(point)) => {
                self.job = None;
                Ok(Some(point))
            }
            Err(e) => {
                self.job = None;
                Err(e)
            }
        }
    }

    /// Drops the point under way, if any.
    pub fn stop(&mut self) {
        self.job = None;
    }

    /// The fraction of the point under way that is done (ln Z 95 %, the free energies 5 %),
    /// `None` when none is.
    pub fn progress(&self) -> Option<f64> {
        self.job.as_ref().map(PointJob::progress)
    }

    /// The update of the point under way.
    pub fn job_update(&self) -> Option<u64> {
        self.job.as_ref().map(PointJob::update)
    }

    /// Whether the point under way is exact (else AIS); `None` when none is.
    pub fn exact(&self) -> Option<bool> {
        self.job.as_ref().map(PointJob::exact)
    }
}
