//! The restricted machine with labels: an image v (V units 0/1), a label y (one of K,
//! a softmax group) and hidden units h (H units 0/1), at T = 1 (the top level of Hinton,
//! Osindero & Teh's 2006 digit model; Larochelle & Bengio 2008; docs/references.md §6):
//!
//!   E(v, y, h) = −vᵀW h − yᵀU h − aᵀv − cᵀy − bᵀh,   y one-hot (e_y),
//!   F(v, y) = −ln Σ_h e^{−E(v, y, h)} = −aᵀv − c_y − Σ_j softplus(b_j + (vᵀW)_j + U_yj),
//!   p(y | v) = e^{−F(v, y)} / Σ_{y′} e^{−F(v, y′)}   (K free energies, exact).
//!
//! It is held as an ordinary [`Rbm`] over V + K visible units, the image's V first and the
//! label's K last (rows of W then rows of U; biases a then c), whose visible vectors are
//! restricted to those with exactly one label unit on: E(v, y, h) is that machine's
//! E([v, e_y], h) term by term, so its energy, its hidden conditional and its trainers'
//! products serve unchanged, and only the label group's conditional differs (a softmax
//! instead of K independent sigmoids).

use crate::error::ParamError;
use crate::log_sum_exp::LogSumExp;
use crate::model::rbm::{Rbm, check_bits, sigmoid, softplus, sum_of_rows_on};

/// Most labels K: 1000.
pub const MAX_LABELS: usize = 1000;

/// A restricted machine over an image and a one-of-K label (the module's formulas).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledRbm {
    rbm: Rbm,
    labels: usize,
}

/// Checks 2 ≤ K ≤ [`MAX_LABELS`] and K < the machine's visible units (at least one image
/// unit); errors name `labels`.
fn check_labels(labels: usize, visible: usize) -> Result<usize, ParamError> {
    if !(2..=MAX_LABELS).contains(&labels) || labels >= visible {
        return Err(ParamError::OutOfRange {
            field: "labels",
            value: labels as f64,
            min: 2.0,
            max: MAX_LABELS.min(visible.saturating_sub(1)) as f64,
        });
    }
    Ok(labels)
}

impl LabelledRbm {
    /// The machine whose last `labels` visible units of `rbm` are the label group.
    pub fn new(rbm: Rbm, labels: usize) -> Result<LabelledRbm, ParamError> {
        check_labels(labels, rbm.visible())?;
        Ok(LabelledRbm { rbm, labels })
    }

    /// The usual start: W and U ~ N(0, σ²) with σ = `weight_scale`, biases zero
    /// ([`Rbm::random`] over `pixels + labels` visible units).
    pub fn random(
        pixels: usize,
        labels: usize,
        hidden: usize,
        weight_scale: f64,
        seed: u64,
    ) -> Result<LabelledRbm, ParamError> {
        check_labels(labels, pixels.saturating_add(labels))?;
        LabelledRbm::new(
            Rbm::random(pixels + labels, hidden, weight_scale, seed)?,
            labels,
        )
    }

    /// The joint machine over [v, e_y] (V + K visible units).
    pub fn rbm(&self) -> &Rbm {
        &self.rbm
    }

    /// The joint machine, mutable (for base-rate biases and trainers).
    pub fn rbm_mut(&mut self) -> &mut Rbm {
        &mut self.rbm
    }

    /// Image units V.
    pub fn pixels(&self) -> usize {
        self.rbm.visible() - self.labels
    }

    /// Labels K.
    pub fn labels(&self) -> usize {
        self.labels
    }

    /// Hidden units H.
    pub fn hidden(&self) -> usize {
        self.rbm.hidden()
    }

    /// Checks an image (V values 0/1; error names `field`) and a label (0 ≤ y < K; error
    /// names `label`).
    pub fn check(&self, field: &'static str, v: &[u8], y: usize) -> Result<(), ParamError> {
        check_bits(field, v, self.pixels())?;
        self.check_label(y).map(|_| ())
    }

    /// Checks 0 ≤ y < K (error names `label`).
    pub fn check_label(&self, y: usize) -> Result<usize, ParamError> {
        if y >= self.labels {
            return Err(ParamError::OutOfRange {
                field: "label",
                value: y as f64,
                min: 0.0,
                max: (self.labels - 1) as f64,
            });
        }
        Ok(y)
    }

    /// The joint visible vector [v, e_y]: the image, then K label units with only unit y
    /// on. Panics if y ≥ K.
    pub fn joint(&self, v: &[u8], y: usize) -> Vec<u8> {
        let mut image = Vec::with_capacity(self.rbm.visible());
        image.extend_from_slice(v);
        joint_vector(image, y, self.labels)
    }

    /// E(v, y, h) = −vᵀW h − U_y·h − aᵀv − c_y − bᵀh. Panics on wrong lengths or y ≥ K.
    pub fn energy(&self, v: &[u8], y: usize, h: &[u8]) -> f64 {
        assert_eq!(v.len(), self.pixels());
        self.rbm.energy(&self.joint(v, y), h)
    }

    /// The image's hidden inputs b_j + (vᵀW)_j, into `out` (length H), added in f64 from
    /// the rows of W of the pixels that are on ([`sum_of_rows_on`]). Panics on wrong lengths.
    pub fn image_input(&self, v: &[u8], out: &mut [f64]) {
        assert_eq!((v.len(), out.len()), (self.pixels(), self.hidden()));
        sum_of_rows_on(v, self.rbm.hidden_biases(), |i| self.rbm.weight_row(i), out);
    }

    /// −aᵀv, the image's own share of every free energy.
    fn image_energy(&self, v: &[u8]) -> f64 {
        -v.iter()
            .zip(self.rbm.visible_biases())
            .map(|(&vi, &a)| f64::from(vi) * a)
            .sum::<f64>()
    }

    /// The label's share given the image's hidden inputs x = b + vᵀW:
    /// −c_y − Σ_j softplus(x_j + U_yj).
    fn label_free_energy(&self, image_input: &[f64], y: usize) -> f64 {
        let row = self.pixels() + y;
        let softplus_sum: f64 = image_input
            .iter()
            .zip(self.rbm.weight_row(row))
            .map(|(&x, &u)| softplus(x + u))
            .sum();
        -self.rbm.visible_biases()[row] - softplus_sum
    }

    /// F(v, y) = −aᵀv − c_y − Σ_j softplus(b_j + (vᵀW)_j + U_yj). Panics on wrong lengths
    /// or y ≥ K.
    pub fn free_energy(&self, v: &[u8], y: usize) -> f64 {
        assert!(y < self.labels);
        let mut input = vec![0.0; self.hidden()];
        self.image_input(v, &mut input);
        self.image_energy(v) + self.label_free_energy(&input, y)
    }

    /// The K free energies F(v, y), y = 0..K, into `out`, with `scratch` (length H) for
    /// the image's hidden inputs, computed once. Panics on wrong lengths.
    pub fn free_energies_with(&self, v: &[u8], scratch: &mut [f64], out: &mut [f64]) {
        assert_eq!(out.len(), self.labels);
        self.image_input(v, scratch);
        let image = self.image_energy(v);
        for (y, f) in out.iter_mut().enumerate() {
            *f = image + self.label_free_energy(scratch, y);
        }
    }

    /// The image's free energy with the label summed out, F(v) = −ln Σ_y e^{−F(v, y)}
    /// (log-sum-exp in f64), with `scratch` (length H) and `out` (length K, left holding the
    /// K free energies F(v, y)). Panics on wrong lengths.
    pub fn summed_free_energy_with(&self, v: &[u8], scratch: &mut [f64], out: &mut [f64]) -> f64 {
        self.free_energies_with(v, scratch, out);
        let mut sum = LogSumExp::new();
        for &f in out.iter() {
            sum.push(-f);
        }
        -sum.value()
    }

    /// p(y | v) = e^{−F(v, y)} / Σ_{y′} e^{−F(v, y′)} into `out` (length K), exactly (the
    /// normaliser by log-sum-exp in f64), with `scratch` of length H. Panics on wrong
    /// lengths.
    pub fn classify_with(&self, v: &[u8], scratch: &mut [f64], out: &mut [f64]) {
        self.free_energies_with(v, scratch, out);
        softmax_of_negated(out);
    }

    /// p(y | v) for y = 0..K (allocates; see [`LabelledRbm::classify_with`]). The image is
    /// checked (V values 0/1; error names `image`).
    pub fn classify(&self, v: &[u8]) -> Result<Vec<f64>, ParamError> {
        check_bits("image", v, self.pixels())?;
        let mut out = vec![0.0; self.labels];
        self.classify_with(v, &mut vec![0.0; self.hidden()], &mut out);
        Ok(out)
    }

    /// p(h_j = 1 | v, y) = σ(b_j + (vᵀW)_j + U_yj), into `out` (length H).
    pub fn hidden_probabilities(&self, v: &[u8], y: usize, out: &mut [f64]) {
        self.image_input(v, out);
        for (p, &u) in out.iter_mut().zip(self.rbm.weight_row(self.pixels() + y)) {
            *p = sigmoid(*p + u);
        }
    }

    /// p(v_i = 1 | h) = σ(a_i + (W h)_i), into `out` (length V): the image given h does
    /// not depend on y.
    pub fn image_probabilities(&self, h: &[u8], out: &mut [f64]) {
        let pixels = self.pixels();
        for (i, p) in out.iter_mut().enumerate().take(pixels) {
            let field = row_field(self.rbm.weight_row(i), h);
            *p = sigmoid(self.rbm.visible_biases()[i] + field);
        }
    }

    /// p(y | h) = softmax_y(c_y + U_y·h), into `out` (length K): the label group's
    /// conditional, one of K rather than K independent bits.
    pub fn label_probabilities(&self, h: &[u8], out: &mut [f64]) {
        let pixels = self.pixels();
        for (y, q) in out.iter_mut().enumerate() {
            let field = row_field(self.rbm.weight_row(pixels + y), h);
            // Negated, so that the shared softmax of −x gives softmax(x).
            *q = -(self.rbm.visible_biases()[pixels + y] + field);
        }
        softmax_of_negated(out);
    }
}

/// Σ_j w_j h_j for one row w of W or U: the weights of the hidden units that are on.
fn row_field(row: &[f64], h: &[u8]) -> f64 {
    row.iter()
        .zip(h)
        .filter(|&(_, &hj)| hj == 1)
        .map(|(&w, _)| w)
        .sum()
}

/// The joint visible vector [v, e_y] of an image `image` and its label y among `labels`: the
/// image, then K label units with only unit y on. Panics if y ≥ K.
pub fn joint_vector(mut image: Vec<u8>, y: usize, labels: usize) -> Vec<u8> {
    assert!(y < labels);
    image.extend((0..labels).map(|k| u8::from(k == y)));
    image
}

/// x_k ← e^{−x_k} / Σ_l e^{−x_l} in place: the Boltzmann weights of the energies x, the
/// normaliser by [`LogSumExp`] so nothing overflows.
pub fn softmax_of_negated(x: &mut [f64]) {
    let mut sum = LogSumExp::new();
    for &f in x.iter() {
        sum.push(-f);
    }
    let log_z = sum.value();
    for f in x.iter_mut() {
        *f = libm::exp(-*f - log_z);
    }
}

/// Checks a joint training vector's label group: exactly one of its last `labels` values
/// on (error names `field`, the vector's index and what it found).
pub fn check_one_hot(field: &'static str, k: usize, group: &[u8]) -> Result<(), ParamError> {
    let on = group.iter().filter(|&&b| b == 1).count();
    if on != 1 {
        return Err(ParamError::Invalid {
            field,
            reason: format!("vector {k}: the label group has {on} units on; exactly one must be"),
        });
    }
    Ok(())
}

/// The labelled machine's file, `{"machine": "rbm-labels", "pixels": V, "labels": K,
/// "hidden": H, "weights": […], "visible_biases": […], "hidden_biases": […]}`: `weights`
/// the (V + K) × H matrix row by row (W's rows, then U's), `visible_biases` a then c.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    machine: String,
    pixels: usize,
    labels: usize,
    hidden: usize,
    weights: Vec<f64>,
    visible_biases: Vec<f64>,
    hidden_biases: Vec<f64>,
}

/// The `machine` value of a labelled machine's file.
pub const FILE_MACHINE: &str = "rbm-labels";

/// Most bytes of a labelled machine's file: 64 MiB.
pub const MAX_FILE_BYTES: usize = 64 << 20;

impl LabelledRbm {
    /// The machine as JSON (the format of [`LabelledRbm::from_json`]); numbers in the
    /// shortest form that reads back to the same f64.
    pub fn to_json(&self) -> String {
        let file = File {
            machine: FILE_MACHINE.into(),
            pixels: self.pixels(),
            labels: self.labels,
            hidden: self.hidden(),
            weights: self.rbm.weights().to_vec(),
            visible_biases: self.rbm.visible_biases().to_vec(),
            hidden_biases: self.rbm.hidden_biases().to_vec(),
        };
        serde_json::to_string(&file).expect("a machine always serialises")
    }

    /// Reads a machine written by [`LabelledRbm::to_json`]. Refused, with the field named:
    /// malformed JSON, unknown keys, another `machine`, a size out of range, arrays of the
    /// wrong length (e.g. `weights` needs (V + K)·H values), values that are not finite or
    /// beyond ±10⁶, or more than [`MAX_FILE_BYTES`].
    pub fn from_json(text: &str) -> Result<LabelledRbm, ParamError> {
        if text.len() > MAX_FILE_BYTES {
            return Err(ParamError::Invalid {
                field: "machine file",
                reason: format!(
                    "{} bytes; at most {MAX_FILE_BYTES} are accepted",
                    text.len()
                ),
            });
        }
        let file: File = serde_json::from_str(text).map_err(|e| ParamError::Invalid {
            field: "machine file",
            reason: e.to_string(),
        })?;
        if file.machine != FILE_MACHINE {
            return Err(ParamError::Invalid {
                field: "machine",
                reason: format!(
                    "is \"{}\"; a labelled machine is \"{FILE_MACHINE}\"",
                    file.machine
                ),
            });
        }
        crate::model::rbm::check_layer("pixels", file.pixels)?;
        check_labels(file.labels, file.pixels.saturating_add(file.labels))?;
        let rbm = Rbm::new(
            file.pixels + file.labels,
            file.hidden,
            file.weights,
            file.visible_biases,
            file.hidden_biases,
        )?;
        LabelledRbm::new(rbm, file.labels)
    }
}
