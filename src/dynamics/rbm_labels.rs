//! Block Gibbs sampling of the restricted machine with labels
//! ([`crate::model::rbm_labels`]): given h, the image's units are independent bits and
//! the label is one draw from a softmax; given (v, y), the hidden units are independent
//! bits:
//!
//!   p(h_j = 1 | v, y) = σ(b_j + (vᵀW)_j + U_yj),
//!   p(v_i = 1 | h) = σ(a_i + (W h)_i),   p(y | h) = e^{c_y + U_y·h} / Σ_{y′} e^{c_y′ + U_y′·h}.
//!
//! A step draws h, then whichever of v and y is not clamped ([`Clamp`]). Each leaves the
//! joint law restricted to the clamped part invariant: with the label clamped to y the
//! image's stationary law is p(v | y) (a chosen digit is generated); with the image
//! clamped the label's is p(y | v) (the image is classified by sampling).

use crate::dynamics::rbm::sample_bits;
use crate::error::ParamError;
use crate::model::rbm::check_bits;
use crate::model::rbm_labels::LabelledRbm;
use crate::rng::SpinRng;
use rand::Rng;

/// What a step leaves as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clamp {
    /// Nothing: h, then v and y, are drawn (the joint machine's free chain).
    Nothing,
    /// The label: h and v are drawn (generation of the label's images).
    Label,
    /// The image: h and y are drawn (classification by sampling).
    Image,
}

/// One draw from a categorical law q (Σ q = 1): the first k with r < round(Q_k·2³²),
/// Q_k = q_0 + … + q_k, for one 32-bit draw r (the last k if rounding leaves r above
/// every Q_k).
pub fn sample_label(probabilities: &[f64], rng: &mut SpinRng) -> usize {
    let r = f64::from(rng.next_u32());
    let mut cumulative = 0.0;
    for (k, &q) in probabilities.iter().enumerate() {
        cumulative += q;
        if r < (cumulative * 4_294_967_296.0).round() {
            return k;
        }
    }
    probabilities.len() - 1
}

/// One chain of the labelled machine: its image v, label y and hidden state h, with
/// scratch for the conditionals (a step allocates nothing).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledChain {
    image: Vec<u8>,
    label: usize,
    hidden: Vec<u8>,
    hidden_probabilities: Vec<f64>,
    image_probabilities: Vec<f64>,
    label_probabilities: Vec<f64>,
}

impl LabelledChain {
    /// A chain of `machine` at image `v` (V values 0/1; error names `image`) and label y
    /// (0 ≤ y < K; error names `label`), hidden units off.
    pub fn new(machine: &LabelledRbm, v: &[u8], y: usize) -> Result<LabelledChain, ParamError> {
        machine.check("image", v, y)?;
        Ok(LabelledChain {
            image: v.to_vec(),
            label: y,
            hidden: vec![0; machine.hidden()],
            hidden_probabilities: vec![0.0; machine.hidden()],
            image_probabilities: vec![0.0; machine.pixels()],
            label_probabilities: vec![0.0; machine.labels()],
        })
    }

    /// The image v.
    pub fn image(&self) -> &[u8] {
        &self.image
    }

    /// The label y.
    pub fn label(&self) -> usize {
        self.label
    }

    /// The hidden state h.
    pub fn hidden(&self) -> &[u8] {
        &self.hidden
    }

    /// p(v | h) at the last step's h (zeros before the first step that drew v): the mean
    /// image a generating chain shows.
    pub fn image_probabilities(&self) -> &[f64] {
        &self.image_probabilities
    }

    /// p(y | h) at the last step's h (zeros before the first step that drew y).
    pub fn label_probabilities(&self) -> &[f64] {
        &self.label_probabilities
    }

    /// Sets the label (0 ≤ y < K; error names `label`, nothing changes).
    pub fn set_label(&mut self, machine: &LabelledRbm, y: usize) -> Result<(), ParamError> {
        self.label = machine.check_label(y)?;
        Ok(())
    }

    /// Sets the image (V values 0/1; error names `image`, nothing changes).
    pub fn set_image(&mut self, machine: &LabelledRbm, v: &[u8]) -> Result<(), ParamError> {
        check_bits("image", v, machine.pixels())?;
        self.image.copy_from_slice(v);
        Ok(())
    }

    /// One block Gibbs step: h ~ p(h | v, y), then v ~ p(v | h) unless the image is
    /// clamped, then y ~ p(y | h) unless the label is clamped. `machine` must be the
    /// chain's (same sizes; panics otherwise).
    pub fn step(&mut self, machine: &LabelledRbm, clamp: Clamp, rng: &mut SpinRng) {
        machine.hidden_probabilities(&self.image, self.label, &mut self.hidden_probabilities);
        sample_bits(&self.hidden_probabilities, &mut self.hidden, rng);
        if clamp != Clamp::Image {
            machine.image_probabilities(&self.hidden, &mut self.image_probabilities);
            sample_bits(&self.image_probabilities, &mut self.image, rng);
        }
        if clamp != Clamp::Label {
            machine.label_probabilities(&self.hidden, &mut self.label_probabilities);
            self.label = sample_label(&self.label_probabilities, rng);
        }
    }

    /// `steps` steps with the same clamp.
    pub fn run(&mut self, machine: &LabelledRbm, clamp: Clamp, steps: usize, rng: &mut SpinRng) {
        for _ in 0..steps {
            self.step(machine, clamp, rng);
        }
    }
}
