//! The generation gallery: fresh chains started from uniformly random images and run a
//! chosen number of block Gibbs steps of the current machine, a slice at a time, each shown
//! as p(v | h) at its last hidden state. Draws from the lab's view stream.

use super::{CHAIN_STEPS, GALLERY_IMAGES, GALLERY_STEPS, RbmLab};
use crate::dynamics::rbm::{Particles, visible_probabilities};
use crate::error::ParamError;

/// The gallery's chains, the steps they have done and are to do, and their mean images.
#[derive(Debug, Clone, Default)]
pub(super) struct Gallery {
    chains: Option<Particles>,
    steps: u64,
    target: u64,
    mean: Vec<f64>,
}

impl RbmLab {
    /// Starts `count` fresh chains ([`GALLERY_IMAGES`]) from uniformly random images, to be
    /// advanced `steps` block Gibbs steps ([`GALLERY_STEPS`]) of the current machine by
    /// [`RbmLab::advance_gallery`].
    pub(super) fn start_gallery(&mut self, count: u64, steps: u64) -> Result<(), ParamError> {
        let count = GALLERY_IMAGES.check(count)? as usize;
        let steps = GALLERY_STEPS.check(steps)?;
        let (nv, nh) = (self.visible(), self.hidden);
        self.gallery = Gallery {
            chains: Some(Particles::random(count, nv, nh, &mut self.view_rng)),
            steps: 0,
            target: steps,
            mean: vec![0.0; count * nv],
        };
        Ok(())
    }

    /// Advances the gallery's chains by up to `steps` steps ([`CHAIN_STEPS`]); returns
    /// whether they have done all theirs (also when no gallery was started).
    pub(super) fn advance_gallery(&mut self, steps: u64) -> Result<bool, ParamError> {
        let steps = CHAIN_STEPS.check(steps)?;
        let nv = self.visible();
        let g = &mut self.gallery;
        let Some(chains) = &mut g.chains else {
            return Ok(true);
        };
        let steps = steps.min(g.target - g.steps);
        if steps > 0 {
            chains.advance(self.trainer.rbm(), steps as usize, &mut self.view_rng);
            g.steps += steps;
            for k in 0..chains.count() {
                visible_probabilities(
                    self.trainer.rbm(),
                    chains.hidden_state(k),
                    &mut g.mean[k * nv..(k + 1) * nv],
                );
            }
        }
        Ok(g.steps >= g.target)
    }

    // --- The commands as methods -------------------------------------------------------------

    /// [`RbmCommand::StartGallery`](super::RbmCommand::StartGallery): `count` images (1 to
    /// 100), `steps` steps (1 to 100 000).
    pub fn gallery_start(&mut self, count: u64, steps: u64) -> Result<(), ParamError> {
        self.start_gallery(count, steps)
    }

    /// [`RbmCommand::AdvanceGallery`](super::RbmCommand::AdvanceGallery): `steps` steps (1 to
    /// 100 000); returns whether the chains are done.
    pub fn gallery_step(&mut self, steps: u64) -> Result<bool, ParamError> {
        self.advance_gallery(steps)
    }

    // --- What the page shows ---------------------------------------------------------------

    /// The gallery's images (count × V), empty before a gallery starts.
    pub fn gallery_states(&self) -> &[u8] {
        self.gallery
            .chains
            .as_ref()
            .map_or(&[], Particles::visible_states)
    }

    /// p(v | h) of each gallery image (count × V).
    pub fn gallery_mean(&self) -> &[f64] {
        &self.gallery.mean
    }

    /// The gallery's steps done so far.
    pub fn gallery_done(&self) -> u64 {
        self.gallery.steps
    }

    /// The steps the gallery is to run (0 before one starts).
    pub fn gallery_target(&self) -> u64 {
        self.gallery.target
    }
}
