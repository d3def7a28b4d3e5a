//! The gallery: free-running samples of the visible units, each one whole settling of the
//! learning schedule from random units, grouped into distinct vectors with their frequencies
//! and (when the machine can be enumerated) their exact probabilities p(v). It reads the run
//! and changes nothing.

use super::curves::MAX_KL_STATES;
use super::{GALLERY_SAMPLES, GALLERY_SEED, MachineLab};
use crate::error::ParamError;
use crate::learn::stochastic::generate;

/// One distinct sample of the gallery.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct GalleryEntry {
    /// The visible vector (0/1).
    pub pattern: Vec<u8>,
    /// Its share of the samples.
    pub frequency: f64,
    /// The model's exact p(v), when enumerable.
    pub probability: Option<f64>,
    /// Whether it is a training vector.
    pub training: bool,
}

impl MachineLab {
    /// `count` free-running samples (1 to 10⁵) from `seed` (0 to 2^53 − 1), grouped: each
    /// distinct vector with its frequency, its exact probability p(v) when the machine can
    /// be enumerated, and whether it is a training vector; most frequent first.
    pub fn gallery(&self, count: u64, seed: u64) -> Result<Vec<GalleryEntry>, ParamError> {
        let count = GALLERY_SAMPLES.check(count)? as usize;
        let seed = GALLERY_SEED.check(seed)?;
        let samples = generate(
            self.network(),
            &self.protocol.options.settling.schedule(),
            count,
            seed,
        )?;
        let mut entries: Vec<GalleryEntry> = Vec::new();
        for sample in samples {
            match entries.iter_mut().find(|e| e.pattern == sample) {
                Some(e) => e.frequency += 1.0 / count as f64,
                None => entries.push(GalleryEntry {
                    training: self.patterns().contains(&sample),
                    pattern: sample,
                    frequency: 1.0 / count as f64,
                    probability: None,
                }),
            }
        }
        entries.sort_by(|a, b| b.frequency.total_cmp(&a.frequency));
        if self.dataset.units() <= crate::learn::likelihood::MAX_LIKELIHOOD_UNITS
            && (entries.len() as f64 + 1.0) * libm::exp2(self.dataset.units() as f64)
                <= 16.0 * MAX_KL_STATES
        {
            let vectors: Vec<Vec<u8>> = entries.iter().map(|e| e.pattern.clone()).collect();
            let logs = crate::learn::likelihood::log_probabilities(
                self.network(),
                self.temperature(),
                &vectors,
            )?;
            for (e, l) in entries.iter_mut().zip(logs) {
                e.probability = Some(libm::exp(l));
            }
        }
        Ok(entries)
    }
}
