//! Completion: a test image with the units of a mask clamped to it, the others (and the
//! hidden layer) sampled by block Gibbs steps of the current machine; the clamps can be
//! released (free phase) and set again (clamped phase), and the mean of p(v | h) over the
//! steps since the last switch is shown. Draws from the lab's view stream.

use super::{CHAIN_STEPS, RbmLab, TEST_IMAGE};
use crate::app::lattice::wire::Named;
use crate::dynamics::rbm::{hidden_probabilities, sample_bits, visible_probabilities};
use crate::error::ParamError;
use rand::Rng;

/// What a completion clamps: the top half, the left half, or painted units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'top' | 'left' | 'paint'")]
pub enum Mask {
    /// `top`: the top ⌈rows/2⌉ rows.
    Top,
    /// `left`: the left ⌈width/2⌉ columns.
    Left,
    /// `paint`: the units the user painted.
    Painted,
}

impl Mask {
    pub const ALL: [Mask; 3] = [Mask::Top, Mask::Left, Mask::Painted];

    pub fn name(self) -> &'static str {
        match self {
            Mask::Top => "top",
            Mask::Left => "left",
            Mask::Painted => "paint",
        }
    }

    /// The mask called `name`; any other is refused, naming the field `mask`.
    pub fn parse(name: &str) -> Result<Mask, ParamError> {
        Mask::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "mask",
                value: name.into(),
                allowed: "top, left, paint",
            })
    }
}

impl Named for Mask {
    const ALL: &'static [Self] = &Mask::ALL;
    fn name(self) -> &'static str {
        Mask::name(self)
    }
    fn parse(name: &str) -> Result<Self, ParamError> {
        Mask::parse(name)
    }
}

/// The completion chain: the original test image, the clamps, the chain's state and the
/// running sum of p(v | h).
#[derive(Debug, Clone)]
pub(super) struct Completion {
    image: usize,
    original: Vec<u8>,
    mask: Vec<u8>,
    v: Vec<u8>,
    h: Vec<u8>,
    p_h: Vec<f64>,
    p_v: Vec<f64>,
    /// The visible units drawn at each step, before the clamps are put back.
    drawn: Vec<u8>,
    sum: Vec<f64>,
    mean: Vec<f64>,
    steps: u64,
    clamped: bool,
}

fn no_completion() -> ParamError {
    ParamError::Invalid {
        field: "completion",
        reason: "choose a test image and a mask first".into(),
    }
}

impl RbmLab {
    /// Starts completing test image `image` (0-based, [`TEST_IMAGE`] up to the last): the
    /// units of the mask are clamped to the image ([`RbmLab::mask`]), the rest start random.
    pub(super) fn start_completion(
        &mut self,
        image: u64,
        kind: Mask,
        painted: &[u8],
    ) -> Result<(), ParamError> {
        let last = self.images.test.len() as u64 - 1;
        let index = TEST_IMAGE.up_to(last).check(image)? as usize;
        let mask = self.mask(kind, painted)?;
        let (nv, nh) = (self.visible(), self.hidden);
        let original = self.images.test[index].clone();
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
            drawn: vec![0; nv],
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
        let width = self.images.width;
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

    /// Runs `steps` ([`CHAIN_STEPS`]) block Gibbs steps of the completion: h ~ p(h | v), then
    /// each visible unit not clamped ~ p(v_i | h) (in the clamped phase the clamped units
    /// keep the image's values; in the free phase every unit is sampled). p(v | h) is
    /// averaged over the steps since the last phase switch (clamped units count as their
    /// value in the clamped phase).
    pub(super) fn advance_completion(&mut self, steps: u64) -> Result<(), ParamError> {
        let steps = CHAIN_STEPS.check(steps)?;
        let Some(c) = &mut self.completion else {
            return Err(no_completion());
        };
        let rbm = self.trainer.rbm();
        for _ in 0..steps {
            hidden_probabilities(rbm, &c.v, &mut c.p_h);
            sample_bits(&c.p_h, &mut c.h, &mut self.view_rng);
            visible_probabilities(rbm, &c.h, &mut c.p_v);
            sample_bits(&c.p_v, &mut c.drawn, &mut self.view_rng);
            for i in 0..c.v.len() {
                let held = c.clamped && c.mask[i] == 1;
                if held {
                    c.v[i] = c.original[i];
                    c.sum[i] += f64::from(c.original[i]);
                } else {
                    c.v[i] = c.drawn[i];
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
    /// sampled); on a switch the average of p(v | h) starts again.
    pub(super) fn clamp_completion(&mut self, clamped: bool) -> Result<(), ParamError> {
        let Some(c) = &mut self.completion else {
            return Err(no_completion());
        };
        if c.clamped != clamped {
            c.clamped = clamped;
            c.sum.fill(0.0);
            c.steps = 0;
        }
        Ok(())
    }

    // --- Starting and advancing ---------------------------------------------------------------

    /// [`RbmCommand::StartCompletion`](super::RbmCommand::StartCompletion): test image
    /// `image` (0-based), mask `kind` (`painted`: V values 0/1 for [`Mask::Painted`]).
    pub fn completion_start(
        &mut self,
        image: u64,
        kind: Mask,
        painted: &[u8],
    ) -> Result<(), ParamError> {
        self.start_completion(image, kind, painted)
    }

    /// [`RbmCommand::AdvanceCompletion`](super::RbmCommand::AdvanceCompletion): `steps`
    /// steps (1 to 100 000).
    pub fn completion_step(&mut self, steps: u64) -> Result<(), ParamError> {
        self.advance_completion(steps)
    }

    /// [`RbmCommand::SetCompletionClamped`](super::RbmCommand::SetCompletionClamped).
    pub fn set_completion_clamped(&mut self, clamped: bool) -> Result<(), ParamError> {
        self.clamp_completion(clamped)
    }

    // --- What the page shows ---------------------------------------------------------------

    pub fn completion_clamped(&self) -> bool {
        self.completion.as_ref().is_some_and(|c| c.clamped)
    }

    /// The test image being completed, if any.
    pub fn completion_index(&self) -> Option<usize> {
        self.completion.as_ref().map(|c| c.image)
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
}
