//! The labelled side of the MNIST run: the joint machine's training vectors [v, e_y], the
//! drawing pad classified by p(y | v) (exactly: ten free energies,
//! [`LabelledRbm::classify`]), a gallery that generates a chosen digit (the label clamped,
//! [`LabelledChain`] with [`Clamp::Label`]), and the pad's completion: the pixels of a mask
//! clamped to the pad, the others (and, with labels, the label) drawn by block Gibbs steps
//!
//!   h ~ p(h | v, y),   v_free ~ p(v | h),   y ~ p(y | h)
//!
//! (without labels, h ~ p(h | v) and v_free ~ p(v | h)). Everything here draws from the
//! view stream, never from learning's.

use super::{Count, Gallery, MnistLab, PAD_STEPS};
use crate::app::rbm::completion::Mask;
use crate::dynamics::rbm::sample_bits;
use crate::dynamics::rbm_labels::{Clamp, LabelledChain, sample_label};
use crate::error::ParamError;
use crate::learn::mnist::Mnist;
use crate::learn::rbm::labels::most_probable;
use crate::learn::rbm::{BatchTrainer, LabelledRbm, Rbm, TrainingOptions};
use crate::model::rbm::check_bits;
use crate::model::rbm_labels::joint_vector;
use crate::rng::uniform;
use std::sync::Arc;

/// Labels of a run that learns them: the digits 0 to 9.
pub const LABELS: usize = 10;

/// A label chosen on the page: 0 to 9.
pub const LABEL: Count = Count {
    field: "label",
    min: 0,
    max: LABELS as u64 - 1,
};

/// The training vectors: the images, or with `labels` the joint vectors [v, e_y] (error
/// names `labels` when the file has none).
pub(super) fn training_vectors(data: &Mnist, labels: bool) -> Result<Vec<Vec<u8>>, ParamError> {
    if !labels {
        return Ok(data.train.vectors(data.train.len()));
    }
    let Some(ys) = data.train.labels() else {
        return Err(ParamError::Invalid {
            field: "labels",
            reason: "this MNIST file has no labels to learn".into(),
        });
    };
    crate::learn::rbm::labels::check_labels(data.train.len(), ys, LABELS)?;
    Ok(ys
        .iter()
        .enumerate()
        .map(|(k, &y)| joint_vector(data.train.image(k), usize::from(y), LABELS))
        .collect())
}

/// The batch trainer of `start` on `train`, with the label group when `labels`. CD-k or
/// persistent chains: tempering is refused (error names `statistics`), since the run's
/// learning workers share each update ([`BatchTrainer::shard_chains`]), which tempering
/// cannot (it runs in the 8×8 machine and `boltzlab reproduce salakhutdinov2008`).
pub(super) fn trainer(
    start: &Rbm,
    train: &[Vec<u8>],
    options: TrainingOptions,
    labels: bool,
) -> Result<BatchTrainer, ParamError> {
    if let crate::learn::rbm::Statistics::ParallelTempering { .. } = options.statistics {
        return Err(ParamError::Invalid {
            field: "statistics",
            reason: "an MNIST run learns by CD-k or persistent chains, not tempering".into(),
        });
    }
    let trainer = BatchTrainer::new(start, train, options, crate::linalg::page_threads())?;
    if labels {
        trainer.with_label_group(LABELS)
    } else {
        Ok(trainer)
    }
}

/// Checks a pad image: `pixels` values 0 or 1 (error names `pad image`).
pub(super) fn check_pad(pad: &[u8], pixels: usize) -> Result<Vec<u8>, ParamError> {
    check_bits("pad image", pad, pixels)?;
    Ok(pad.to_vec())
}

fn needs_labels(field: &'static str) -> ParamError {
    ParamError::Invalid {
        field,
        reason: "this run does not learn the labels: start one with \"learn the labels too\""
            .into(),
    }
}

/// The pad's completion chain: the clamped pixels, the pad they hold, the chain's image and
/// label, and p(v | h) of its last step (clamped pixels shown as their value).
#[derive(Debug, Clone)]
pub(super) struct PadCompletion {
    mask: Vec<u8>,
    original: Vec<u8>,
    v: Vec<u8>,
    label: usize,
    mean: Vec<f32>,
    steps: u64,
    target: u64,
    clamped: bool,
}

impl MnistLab {
    /// Whether the run learns the labels.
    pub fn labelled(&self) -> bool {
        self.labels
    }

    /// The labelled machine in f64 (each f32 parameter exactly), for a run with labels: made
    /// once per version of the weights, since a pad stroke, each gallery or completion step
    /// and the gallery's classes read it, and converting the 794 × H weights cost about as
    /// much as a completion step.
    pub(super) fn labelled_machine(&mut self) -> Option<Arc<LabelledRbm>> {
        let machine = self.current_labelled_machine()?;
        self.labelled_cache = Some((self.version, Arc::clone(&machine)));
        Some(machine)
    }

    /// The labelled machine of these weights: the one kept if it is of this version, else
    /// made now (and not kept).
    fn current_labelled_machine(&self) -> Option<Arc<LabelledRbm>> {
        if !self.labels {
            return None;
        }
        if let Some((version, machine)) = &self.labelled_cache
            && *version == self.version
        {
            return Some(Arc::clone(machine));
        }
        Some(Arc::new(
            LabelledRbm::new(self.trainer.rbm(), LABELS).expect("the joint machine has 10 labels"),
        ))
    }

    /// The pad (784 values 0/1).
    pub fn pad(&self) -> &[u8] {
        &self.pad
    }

    /// p(y | pad) for y = 0..9 (empty without labels), as of the last pad change or redraw.
    pub fn classification(&self) -> &[f64] {
        &self.classified
    }

    /// The completion's p(v | h) of its last step, its steps done and to do, and whether it
    /// is clamped; empty when none was started.
    pub fn completion(&self) -> (&[f32], u64, u64, bool) {
        self.completion.as_ref().map_or((&[][..], 0, 0, true), |c| {
            (&c.mean[..], c.steps, c.target, c.clamped)
        })
    }

    /// The most probable label argmax_y p(y | v) of each gallery chain's image (empty
    /// without labels): what the machine itself reads in what it generated.
    pub fn gallery_classes(&self) -> Vec<u8> {
        let Some(machine) = self.current_labelled_machine() else {
            return Vec::new();
        };
        let mut scratch = vec![0.0; self.hidden];
        let mut p = vec![0.0; LABELS];
        self.gallery
            .chains
            .iter()
            .map(|chain| {
                machine.classify_with(chain.image(), &mut scratch, &mut p);
                most_probable(&p) as u8
            })
            .collect()
    }

    /// p(y | pad) again (with labels).
    pub(super) fn classify_pad(&mut self) {
        self.classified = match self.labelled_machine() {
            Some(machine) => machine.classify(&self.pad).expect("the pad is checked"),
            None => Vec::new(),
        };
    }

    pub(super) fn set_pad(&mut self, image: Vec<u8>) -> Result<(), ParamError> {
        self.pad = check_pad(&image, self.visible())?;
        self.classify_pad();
        Ok(())
    }

    /// The 0/1 mask of `kind` on the pad: the pixels drawn on, or the top or left half; it
    /// must clamp at least one pixel (error names `pad image`: draw something first).
    fn pad_mask(&self, kind: Mask) -> Result<Vec<u8>, ParamError> {
        let (nv, width) = (self.visible(), self.width());
        let rows = nv / width;
        let mask: Vec<u8> = match kind {
            Mask::Painted => self.pad.clone(),
            Mask::Top => (0..nv).map(|i| u8::from(i / width < rows / 2)).collect(),
            Mask::Left => (0..nv).map(|i| u8::from(i % width < width / 2)).collect(),
        };
        if kind == Mask::Painted && !mask.contains(&1) {
            return Err(ParamError::Invalid {
                field: "pad image",
                reason: "draw some pixels to clamp first".into(),
            });
        }
        Ok(mask)
    }

    pub(super) fn complete_pad(&mut self, kind: Mask, steps: u64) -> Result<(), ParamError> {
        let target = PAD_STEPS.check(steps)?;
        let mask = self.pad_mask(kind)?;
        let v: Vec<u8> = mask
            .iter()
            .zip(&self.pad)
            .map(|(&m, &p)| {
                if m == 1 {
                    p
                } else {
                    u8::from(uniform(&mut self.view_rng) < 0.5)
                }
            })
            .collect();
        let label = (uniform(&mut self.view_rng) * LABELS as f64) as usize % LABELS;
        let mean = v.iter().map(|&x| f32::from(x)).collect();
        self.completion = Some(PadCompletion {
            mask,
            original: self.pad.clone(),
            v,
            label,
            mean,
            steps: 0,
            target,
            clamped: true,
        });
        Ok(())
    }

    pub(super) fn clamp_pad(&mut self, clamped: bool) -> Result<(), ParamError> {
        let c = self.completion.as_mut().ok_or_else(no_completion)?;
        if c.clamped != clamped {
            c.clamped = clamped;
            c.steps = 0;
        }
        Ok(())
    }

    /// Up to `steps` block Gibbs steps of the completion (the module's formulas); whether
    /// it is done.
    pub(super) fn advance_pad(&mut self, steps: u64) -> Result<bool, ParamError> {
        let steps = PAD_STEPS.check(steps)?;
        let mut c = self.completion.take().ok_or_else(no_completion)?;
        let todo = steps.min(c.target - c.steps.min(c.target));
        let (nv, nh) = (self.visible(), self.hidden);
        let machine = self.labelled_machine();
        let mut p_h = vec![0.0; nh];
        let mut h = vec![0u8; nh];
        let mut p_v = vec![0.0f64; nv];
        let mut p_v32 = vec![0.0f32; nv];
        let mut q = vec![0.0; LABELS];
        let mut drawn = vec![0u8; nv];
        for _ in 0..todo {
            match &machine {
                Some(m) => {
                    m.hidden_probabilities(&c.v, c.label, &mut p_h);
                    sample_bits(&p_h, &mut h, &mut self.view_rng);
                    m.image_probabilities(&h, &mut p_v);
                    m.label_probabilities(&h, &mut q);
                    c.label = sample_label(&q, &mut self.view_rng);
                }
                None => {
                    self.hidden_probabilities(&c.v, &mut p_h);
                    sample_bits(&p_h, &mut h, &mut self.view_rng);
                    self.visible_probabilities(&h, &mut p_v32);
                    p_v.iter_mut()
                        .zip(&p_v32)
                        .for_each(|(a, &b)| *a = f64::from(b));
                }
            }
            sample_bits(&p_v, &mut drawn, &mut self.view_rng);
            for i in 0..nv {
                if c.clamped && c.mask[i] == 1 {
                    c.v[i] = c.original[i];
                    c.mean[i] = f32::from(c.original[i]);
                } else {
                    c.v[i] = drawn[i];
                    c.mean[i] = p_v[i] as f32;
                }
            }
            c.steps += 1;
        }
        let done = c.steps >= c.target;
        self.completion = Some(c);
        Ok(done)
    }

    /// A gallery of `count` joint chains from random images (and, unclamped, random labels),
    /// with the label clamped to `label` when given (0 to 9; error names `label`, and a run
    /// without labels refuses one).
    pub(super) fn start_labelled_gallery(
        &mut self,
        count: usize,
        steps: u64,
        label: Option<u64>,
    ) -> Result<(), ParamError> {
        let Some(machine) = self.labelled_machine() else {
            return Err(needs_labels("label"));
        };
        let label = label.map(|y| LABEL.check(y)).transpose()?;
        let nv = self.visible();
        let mut chains = Vec::with_capacity(count);
        for _ in 0..count {
            let v: Vec<u8> = (0..nv)
                .map(|_| u8::from(uniform(&mut self.view_rng) < 0.5))
                .collect();
            let y = match label {
                Some(y) => y as usize,
                None => (uniform(&mut self.view_rng) * LABELS as f64) as usize % LABELS,
            };
            chains.push(LabelledChain::new(&machine, &v, y)?);
        }
        self.gallery = Gallery {
            states: Vec::new(),
            means: vec![0.0; count * nv],
            steps: 0,
            target: steps,
            chains,
            label: label.map(|y| y as usize),
        };
        Ok(())
    }

    /// Up to `steps` steps of every joint gallery chain (the label clamped if chosen, else
    /// drawn from p(y | h)); whether it is done.
    pub(super) fn advance_labelled_gallery(&mut self, steps: u64) -> bool {
        let todo = steps.min(self.gallery.target - self.gallery.steps);
        if let Some(machine) = self.labelled_machine() {
            let clamp = if self.gallery.label.is_some() {
                Clamp::Label
            } else {
                Clamp::Nothing
            };
            let nv = self.visible();
            for _ in 0..todo {
                for (chain, means) in self
                    .gallery
                    .chains
                    .iter_mut()
                    .zip(self.gallery.means.chunks_exact_mut(nv))
                {
                    chain.step(&machine, clamp, &mut self.view_rng);
                    for (m, &p) in means.iter_mut().zip(chain.image_probabilities()) {
                        *m = p as f32;
                    }
                }
                self.gallery.steps += 1;
            }
        }
        self.gallery.steps >= self.gallery.target
    }
}

fn no_completion() -> ParamError {
    ParamError::Invalid {
        field: "completion",
        reason: "start a completion of the pad first".into(),
    }
}
