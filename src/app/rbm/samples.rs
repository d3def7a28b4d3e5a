//! What the page shows of the machine's own samples: the particle grid (the first fantasy
//! particles of persistent and tempering statistics, or, for CD-k, display chains run k
//! steps from evenly spaced training images) with p(v | h) of each as its mean image, and
//! the reconstructions p(v | h), h ~ p(h | v), of the first training and test images.
//!
//! Everything here draws from the lab's view stream, never from learning's, so watching
//! does not change what is learnt.

use super::{MAX_SHOWN, RECONSTRUCTIONS, RbmLab};
use crate::dynamics::rbm::{hidden_probabilities, sample_bits, visible_probabilities};

/// The particle grid, the reconstructions and the scratch their chains use.
#[derive(Debug, Clone)]
pub(super) struct Samples {
    shown: usize,
    fantasy: Vec<u8>,
    fantasy_mean: Vec<f64>,
    /// CD-k's display chains start here (shown × V), empty with particles.
    cd_chains: Vec<u8>,
    reconstructions: Vec<f64>,
    scratch_v: Vec<u8>,
    scratch_h: Vec<u8>,
    p_h: Vec<f64>,
    p_v: Vec<f64>,
}

impl Samples {
    /// Empty grids for V visible and H hidden units (sized by [`RbmLab::reshape_shown`]).
    pub(super) fn new(visible: usize, hidden: usize) -> Samples {
        Samples {
            shown: 0,
            fantasy: Vec::new(),
            fantasy_mean: Vec::new(),
            cd_chains: Vec::new(),
            reconstructions: vec![0.0; 2 * RECONSTRUCTIONS * visible],
            scratch_v: vec![0; visible],
            scratch_h: vec![0; hidden],
            p_h: vec![0.0; hidden],
            p_v: vec![0.0; visible],
        }
    }
}

impl RbmLab {
    /// Sizes the particle grid to the statistics: min(K, 100) particles, or (CD-k) chains
    /// started at evenly spaced training images, min(100, N, max(4, 1000/k)) of them so
    /// that a refresh stays cheap.
    pub(super) fn reshape_shown(&mut self) {
        let nv = self.visible();
        let train = &self.images.train;
        let s = &mut self.samples;
        s.shown = match self.trainer.particles() {
            Some(p) => p.count().min(MAX_SHOWN),
            None => {
                let k = self.trainer.options().statistics.steps();
                MAX_SHOWN.min(train.len()).min((1000 / k).max(4))
            }
        };
        s.fantasy = vec![0; s.shown * nv];
        s.fantasy_mean = vec![0.0; s.shown * nv];
        if self.trainer.particles().is_none() {
            let n = train.len();
            let shown = s.shown;
            s.cd_chains = (0..shown)
                .flat_map(|k| train[k * n / shown].iter().copied())
                .collect();
        } else {
            s.cd_chains.clear();
        }
    }

    /// Brings the particle grid and the reconstructions up to date (the page does it once
    /// per drawn frame): copies the particles, or runs CD-k's display chains k steps from
    /// their training images, and computes p(v | h) of each and the reconstructions.
    pub fn refresh(&mut self) {
        self.refresh_views(true);
    }

    /// [`Self::refresh`], with p(v | h) of the persistent particles computed only if `means`
    /// (else they keep their last values: at 64-500 they were most of a refresh, and the
    /// page draws them only when asked). The view stream is drawn from alike either way.
    pub fn refresh_views(&mut self, means: bool) {
        let rbm = self.trainer.rbm();
        let nv = rbm.visible();
        let s = &mut self.samples;
        let rng = &mut self.view_rng;
        if let Some(particles) = self.trainer.particles() {
            s.fantasy
                .copy_from_slice(&particles.visible_states()[..s.shown * nv]);
            if means {
                for k in 0..s.shown {
                    visible_probabilities(
                        rbm,
                        particles.hidden_state(k),
                        &mut s.fantasy_mean[k * nv..(k + 1) * nv],
                    );
                }
            }
        } else {
            let steps = self.trainer.options().statistics.steps();
            for k in 0..s.shown {
                s.scratch_v
                    .copy_from_slice(&s.cd_chains[k * nv..(k + 1) * nv]);
                for _ in 0..steps {
                    hidden_probabilities(rbm, &s.scratch_v, &mut s.p_h);
                    sample_bits(&s.p_h, &mut s.scratch_h, rng);
                    visible_probabilities(rbm, &s.scratch_h, &mut s.p_v);
                    sample_bits(&s.p_v, &mut s.scratch_v, rng);
                }
                s.fantasy[k * nv..(k + 1) * nv].copy_from_slice(&s.scratch_v);
                s.fantasy_mean[k * nv..(k + 1) * nv].copy_from_slice(&s.p_v);
            }
        }
        let sources = self
            .images
            .train
            .iter()
            .take(RECONSTRUCTIONS)
            .chain(self.images.test.iter().take(RECONSTRUCTIONS));
        for (k, image) in sources.enumerate() {
            hidden_probabilities(rbm, image, &mut s.p_h);
            sample_bits(&s.p_h, &mut s.scratch_h, rng);
            visible_probabilities(
                rbm,
                &s.scratch_h,
                &mut s.reconstructions[k * nv..(k + 1) * nv],
            );
        }
    }

    /// The images shown in the particle grid: the first min(K, 100) fantasy particles, or
    /// (CD-k) as many k-step reconstructions of training images.
    pub fn shown(&self) -> usize {
        self.samples.shown
    }

    /// Their states, shown × V (0/1).
    pub fn fantasy(&self) -> &[u8] {
        &self.samples.fantasy
    }

    /// p(v | h) of each, at the h its state was drawn from, shown × V.
    pub fn fantasy_mean(&self) -> &[f64] {
        &self.samples.fantasy_mean
    }

    /// Whether the grid shows fantasy particles (not CD-k's reconstructions).
    pub fn has_particles(&self) -> bool {
        self.trainer.particles().is_some()
    }

    /// p(v | h), h ~ p(h | v), of the first 8 training then the first 8 test images (16 × V).
    pub fn reconstructions(&self) -> &[f64] {
        &self.samples.reconstructions
    }
}
