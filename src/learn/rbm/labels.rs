//! Learning and scoring the restricted machine with labels
//! ([`crate::model::rbm_labels`]): the joint (image, label) vectors [v, e_y] are
//! ordinary training vectors of a machine with V + K visible units, so the
//! [`BatchTrainer`] learns them with its f32 products (CD-k or persistent chains), the
//! label group sampled from its softmax in the chains' step
//! ([`super::label_group`]); the test error classifies each image by
//! argmax_y p(y | v), exactly (K free energies in f64).

use super::batch::BatchTrainer;
use super::training::TrainingOptions;
use crate::error::ParamError;
use crate::model::rbm::Rbm;
use crate::model::rbm_labels::LabelledRbm;

/// Checks labelled data: one label per image (error names `labels`), each 0 ≤ y < K
/// (error names `labels` and the image).
pub fn check_labels(images: usize, labels: &[u8], count: usize) -> Result<(), ParamError> {
    if labels.len() != images {
        return Err(ParamError::Invalid {
            field: "labels",
            reason: format!("need {images} labels, one per image, got {}", labels.len()),
        });
    }
    if let Some(k) = labels.iter().position(|&y| usize::from(y) >= count) {
        return Err(ParamError::Invalid {
            field: "labels",
            reason: format!(
                "image {k} has label {}; labels are 0–{}",
                labels[k],
                count - 1
            ),
        });
    }
    Ok(())
}

/// The labelled machine's trainer: a [`BatchTrainer`] of the joint machine on the joint
/// vectors [v, e_y], with its label group ([`BatchTrainer::with_label_group`]). The same
/// seed, data and options give the same bits, on any number of threads.
#[derive(Debug, Clone)]
pub struct LabelledTrainer {
    trainer: BatchTrainer,
    labels: usize,
}

impl LabelledTrainer {
    /// A trainer of `start` on `images` (each V values 0/1) with `labels` (one per image,
    /// each below K), `options` as for [`BatchTrainer::new`], on up to `threads` threads.
    /// Errors name the field (`labels`, `patterns`, or an option's).
    pub fn new(
        start: &LabelledRbm,
        images: &[Vec<u8>],
        labels: &[u8],
        options: TrainingOptions,
        threads: usize,
    ) -> Result<LabelledTrainer, ParamError> {
        check_labels(images.len(), labels, start.labels())?;
        crate::learn::check_patterns(images, start.pixels())?;
        let joint: Vec<Vec<u8>> = images
            .iter()
            .zip(labels)
            .map(|(v, &y)| start.joint(v, usize::from(y)))
            .collect();
        let trainer = BatchTrainer::new(start.rbm(), &joint, options, threads)?
            .with_label_group(start.labels())?;
        Ok(LabelledTrainer {
            trainer,
            labels: start.labels(),
        })
    }

    /// The machine as trained so far, in f64.
    pub fn machine(&self) -> LabelledRbm {
        LabelledRbm::new(self.trainer.rbm(), self.labels)
            .expect("the joint machine keeps its label group")
    }

    /// The batch trainer underneath (its options, updates, weights and chains).
    pub fn batch_trainer(&self) -> &BatchTrainer {
        &self.trainer
    }

    /// The batch trainer, mutable (momentum, threads).
    pub fn batch_trainer_mut(&mut self) -> &mut BatchTrainer {
        &mut self.trainer
    }

    /// `count` updates (stops at the first error; see [`BatchTrainer::update`]).
    pub fn run(&mut self, count: u64) -> Result<(), ParamError> {
        self.trainer.run(count)
    }

    /// Updates done.
    pub fn updates(&self) -> u64 {
        self.trainer.updates()
    }
}

/// The classification of a labelled set: errors, the count, and the confusion matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    /// Images whose most probable label, argmax_y p(y | v), is not their label.
    pub errors: u64,
    /// Images classified.
    pub images: u64,
    /// K × K counts, row-major: `confusion[t·K + y]` images of label t classified as y.
    pub confusion: Vec<u64>,
    /// Mean of −ln p(label | v) over the images (nats), the cross-entropy.
    pub cross_entropy: f64,
}

impl Classification {
    /// errors / images.
    pub fn error_rate(&self) -> f64 {
        self.errors as f64 / self.images as f64
    }
}

/// The most probable label argmax_y p(y | v) (the first of equals).
pub fn most_probable(probabilities: &[f64]) -> usize {
    let mut best = 0;
    for (y, &p) in probabilities.iter().enumerate() {
        if p > probabilities[best] {
            best = y;
        }
    }
    best
}

/// Classifies every image by argmax_y p(y | v) ([`LabelledRbm::classify_with`]) and
/// counts the errors against `labels` (checked as for training: one per image, each below
/// K, error names `labels`; images V values 0/1, error names `patterns`). Natively the
/// images are split over up to `threads` threads (1 ≤ threads ≤ 64, error names
/// `threads`); the counts do not depend on it.
pub fn classify_set(
    machine: &LabelledRbm,
    images: &[Vec<u8>],
    labels: &[u8],
    threads: usize,
) -> Result<Classification, ParamError> {
    check_labels(images.len(), labels, machine.labels())?;
    crate::learn::check_patterns(images, machine.pixels())?;
    let threads = crate::error::whole_in("threads", threads as f64, 1, 64)? as usize;
    let k = machine.labels();
    // Each part's confusion counts and −ln p(label | v) per image, so the cross-entropy is
    // summed in image order whatever the threads.
    let part = |images: &[Vec<u8>], labels: &[u8]| {
        let mut confusion = vec![0u64; k * k];
        let mut losses = Vec::with_capacity(images.len());
        let mut scratch = vec![0.0; machine.hidden()];
        let mut p = vec![0.0; k];
        for (v, &t) in images.iter().zip(labels) {
            machine.classify_with(v, &mut scratch, &mut p);
            let t = usize::from(t);
            confusion[t * k + most_probable(&p)] += 1;
            losses.push(-libm::log(p[t]));
        }
        (confusion, losses)
    };
    let chunk = images.len().div_ceil(threads).max(1);
    let parts: Vec<(Vec<u64>, Vec<f64>)> = if threads == 1 || cfg!(target_arch = "wasm32") {
        vec![part(images, labels)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = images
                .chunks(chunk)
                .zip(labels.chunks(chunk))
                .map(|(i, l)| scope.spawn(move || part(i, l)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a classifying thread does not panic"))
                .collect()
        })
    };
    let mut confusion = vec![0u64; k * k];
    let mut losses = Vec::with_capacity(images.len());
    for (c, l) in parts {
        confusion.iter_mut().zip(c).for_each(|(a, b)| *a += b);
        losses.extend(l);
    }
    let cross_entropy: f64 = losses.iter().sum();
    let errors = (0..k * k)
        .filter(|i| i / k != i % k)
        .map(|i| confusion[i])
        .sum();
    let n = images.len().max(1) as f64;
    Ok(Classification {
        errors,
        images: images.len() as u64,
        confusion,
        cross_entropy: cross_entropy / n,
    })
}

/// A starting machine for `images` with `labels`: W, U ~ N(0, σ²) (σ = `weight_scale`),
/// a and c the log base rates of the joint vectors ([`Rbm::set_base_rate_biases`]), b = 0.
pub fn starting_machine(
    images: &[Vec<u8>],
    labels: &[u8],
    count: usize,
    hidden: usize,
    weight_scale: f64,
    seed: u64,
) -> Result<LabelledRbm, ParamError> {
    check_labels(images.len(), labels, count)?;
    let pixels = images.first().map_or(0, Vec::len);
    crate::learn::check_patterns(images, pixels)?;
    let mut machine = LabelledRbm::random(pixels, count, hidden, weight_scale, seed)?;
    let joint: Vec<Vec<u8>> = images
        .iter()
        .zip(labels)
        .map(|(v, &y)| machine.joint(v, usize::from(y)))
        .collect();
    let rbm: &mut Rbm = machine.rbm_mut();
    rbm.set_base_rate_biases(&joint)?;
    Ok(machine)
}
