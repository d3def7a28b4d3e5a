//! The restricted machine itself: weights, biases, energy and free energy, and its form as
//! a general [`Network`] with a bipartite mask.

use crate::error::{ParamError, finite_in};
use crate::model::{Network, SpinKind};
use crate::rng::{seeded_rng, standard_normal_pair};

/// Most units in one layer: 4096.
pub const MAX_LAYER_UNITS: usize = 4096;
/// Most weights V·H: 2^22 (32 MiB of f64).
pub const MAX_WEIGHTS: usize = 1 << 22;

/// A restricted Boltzmann machine with 0/1 units at T = 1: V visible units v, H hidden
/// units h, weights W (V × H, row-major: `weights[i·H + j]` = W_ij), visible biases a and
/// hidden biases b. Energy and free energy:
///
///   E(v, h) = −a·v − b·h − vᵀ W h,
///   F(v) = −ln Σ_h e^{−E(v, h)} = −a·v − Σ_j ln(1 + e^{b_j + (vW)_j}),
///
/// so p(v) = e^{−F(v)} / Z. Every parameter is finite with |x| ≤ [`Network::MAX_PARAMETER`].
///
/// A copy of W by hidden unit (H × V) is kept beside it, so that both conditionals add
/// contiguous rows of the units that are on.
#[derive(Debug, Clone, PartialEq)]
pub struct Rbm {
    visible: usize,
    hidden: usize,
    weights: Vec<f64>,
    weights_by_hidden: Vec<f64>,
    visible_biases: Vec<f64>,
    hidden_biases: Vec<f64>,
}

/// Checks a layer size: 1 ≤ units ≤ [`MAX_LAYER_UNITS`]; the error names `field`.
pub fn check_layer(field: &'static str, units: usize) -> Result<usize, ParamError> {
    if !(1..=MAX_LAYER_UNITS).contains(&units) {
        return Err(ParamError::OutOfRange {
            field,
            value: units as f64,
            min: 1.0,
            max: MAX_LAYER_UNITS as f64,
        });
    }
    Ok(units)
}

fn check_shape(visible: usize, hidden: usize) -> Result<(), ParamError> {
    check_layer("visible", visible)?;
    check_layer("hidden", hidden)?;
    if visible * hidden > MAX_WEIGHTS {
        return Err(ParamError::Invalid {
            field: "hidden",
            reason: format!(
                "{visible} × {hidden} weights is beyond the limit of {MAX_WEIGHTS} (2^22); \
                 with {visible} visible units at most {} hidden units",
                MAX_WEIGHTS / visible
            ),
        });
    }
    Ok(())
}

fn check_values(field: &'static str, values: &[f64], len: usize) -> Result<(), ParamError> {
    if values.len() != len {
        return Err(ParamError::Invalid {
            field,
            reason: format!("need {len} values, got {}", values.len()),
        });
    }
    for &x in values {
        finite_in(field, x, -Network::MAX_PARAMETER, Network::MAX_PARAMETER)?;
    }
    Ok(())
}

impl Rbm {
    /// A machine with every weight and bias zero (p(v) uniform). Sizes: 1 ≤ V, H ≤
    /// [`MAX_LAYER_UNITS`] and V·H ≤ [`MAX_WEIGHTS`]; errors name `visible` or `hidden`.
    pub fn zeros(visible: usize, hidden: usize) -> Result<Rbm, ParamError> {
        check_shape(visible, hidden)?;
        Ok(Rbm {
            visible,
            hidden,
            weights: vec![0.0; visible * hidden],
            weights_by_hidden: vec![0.0; visible * hidden],
            visible_biases: vec![0.0; visible],
            hidden_biases: vec![0.0; hidden],
        })
    }

    /// A machine with the given parameters (W row-major V × H, a of length V, b of length
    /// H), each checked for shape, finiteness and |x| ≤ 10⁶.
    pub fn new(
        visible: usize,
        hidden: usize,
        weights: Vec<f64>,
        visible_biases: Vec<f64>,
        hidden_biases: Vec<f64>,
    ) -> Result<Rbm, ParamError> {
        check_shape(visible, hidden)?;
        check_values("weights", &weights, visible * hidden)?;
        check_values("visible biases", &visible_biases, visible)?;
        check_values("hidden biases", &hidden_biases, hidden)?;
        let mut rbm = Rbm {
            visible,
            hidden,
            weights,
            weights_by_hidden: vec![0.0; visible * hidden],
            visible_biases,
            hidden_biases,
        };
        rbm.refresh_weights_by_hidden();
        Ok(rbm)
    }

    /// The usual start of training: W_ij ~ N(0, σ²) with σ = `weight_scale` (Hinton's
    /// guide: 0.01), biases zero; the normals come from [`standard_normal_pair`] on the
    /// stream of `seed`, in row-major order. 0 ≤ σ ≤ 100.
    pub fn random(
        visible: usize,
        hidden: usize,
        weight_scale: f64,
        seed: u64,
    ) -> Result<Rbm, ParamError> {
        let scale = finite_in("weight scale", weight_scale, 0.0, 100.0)?;
        let mut rbm = Rbm::zeros(visible, hidden)?;
        let mut rng = seeded_rng(seed);
        for pair in rbm.weights.chunks_mut(2) {
            let z = standard_normal_pair(&mut rng);
            for (w, z) in pair.iter_mut().zip(z) {
                *w = scale * z;
            }
        }
        rbm.refresh_weights_by_hidden();
        Ok(rbm)
    }

    /// Sets the visible biases to the log base rates of the data, a_i = ln(p_i / (1 − p_i))
    /// with p_i = (n_i + 1)/(N + 2) (n_i of N vectors have unit i on; the +1/+2 keeps a_i
    /// finite): the independent-pixel model, the usual start (Hinton's guide) and the base
    /// of AIS. `patterns` as for [`crate::model::patterns::check_patterns`].
    pub fn set_base_rate_biases(&mut self, patterns: &[Vec<u8>]) -> Result<(), ParamError> {
        self.visible_biases = base_rate_biases(patterns, self.visible)?;
        Ok(())
    }

    /// Visible units V.
    pub fn visible(&self) -> usize {
        self.visible
    }

    /// Hidden units H.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// W, row-major V × H: W_ij at `i·H + j`.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// W_ij.
    pub fn weight(&self, i: usize, j: usize) -> f64 {
        self.weights[i * self.hidden + j]
    }

    /// Row i of W: the weights from visible unit i to every hidden unit.
    pub fn weight_row(&self, i: usize) -> &[f64] {
        &self.weights[i * self.hidden..(i + 1) * self.hidden]
    }

    /// Column j of W: the weights from hidden unit j to every visible unit (its filter,
    /// drawn as an image of the visible layer).
    pub fn weight_column(&self, j: usize) -> &[f64] {
        &self.weights_by_hidden[j * self.visible..(j + 1) * self.visible]
    }

    /// a.
    pub fn visible_biases(&self) -> &[f64] {
        &self.visible_biases
    }

    /// b.
    pub fn hidden_biases(&self) -> &[f64] {
        &self.hidden_biases
    }

    /// All three parameter arrays, mutable (for the trainer, which keeps them finite and
    /// calls [`Rbm::refresh_weights_by_hidden`] after changing W).
    pub(crate) fn parameters_mut(&mut self) -> (&mut [f64], &mut [f64], &mut [f64]) {
        (
            &mut self.weights,
            &mut self.visible_biases,
            &mut self.hidden_biases,
        )
    }

    /// Copies W into its by-hidden-unit form (after W changed).
    pub(crate) fn refresh_weights_by_hidden(&mut self) {
        let (nv, nh) = (self.visible, self.hidden);
        for i in 0..nv {
            for j in 0..nh {
                self.weights_by_hidden[j * nv + i] = self.weights[i * nh + j];
            }
        }
    }

    /// Checks a visible vector: V values, each 0 or 1; errors name `field`.
    pub fn check_visible(&self, field: &'static str, v: &[u8]) -> Result<(), ParamError> {
        check_bits(field, v, self.visible)
    }

    /// E(v, h) = −a·v − b·h − vᵀ W h. Panics on wrong lengths.
    pub fn energy(&self, v: &[u8], h: &[u8]) -> f64 {
        assert_eq!((v.len(), h.len()), (self.visible, self.hidden));
        let mut e = 0.0;
        for (i, &vi) in v.iter().enumerate() {
            if vi == 1 {
                e -= self.visible_biases[i];
                for (j, &hj) in h.iter().enumerate() {
                    e -= self.weights[i * self.hidden + j] * f64::from(hj);
                }
            }
        }
        for (j, &hj) in h.iter().enumerate() {
            e -= self.hidden_biases[j] * f64::from(hj);
        }
        e
    }

    /// F(v) = −a·v − Σ_j ln(1 + e^{b_j + (vW)_j}), with `scratch` (length H) for the hidden
    /// inputs. Panics on wrong lengths.
    pub fn free_energy_with(&self, v: &[u8], scratch: &mut [f64]) -> f64 {
        hidden_input(self, v, scratch);
        let visible: f64 = v
            .iter()
            .zip(&self.visible_biases)
            .map(|(&vi, &a)| f64::from(vi) * a)
            .sum();
        -visible - scratch.iter().map(|&c| softplus(c)).sum::<f64>()
    }

    /// F(v) (allocates its scratch; see [`Rbm::free_energy_with`]).
    pub fn free_energy(&self, v: &[u8]) -> f64 {
        self.free_energy_with(v, &mut vec![0.0; self.hidden])
    }

    /// The same machine as a general [`Network`]: V + H binary (0/1) units, the first V
    /// visible, w[i][V + j] = W_ij, θ = (a, b), and a wiring mask that allows only
    /// visible–hidden connections. Its E(s) is E(v, h) term by term, so its exact
    /// distribution is this machine's. Needs V + H ≤ [`Network::MAX_UNITS`] (error names
    /// `units`).
    pub fn to_network(&self) -> Result<Network, ParamError> {
        let (v, n) = (self.visible, self.visible + self.hidden);
        if n > Network::MAX_UNITS {
            return Err(ParamError::OutOfRange {
                field: "units",
                value: n as f64,
                min: 1.0,
                max: Network::MAX_UNITS as f64,
            });
        }
        let mut weights = vec![0.0; n * n];
        let mut mask = vec![false; n * n];
        for i in 0..v {
            for j in 0..self.hidden {
                let w = self.weight(i, j);
                for (a, b) in [(i, v + j), (v + j, i)] {
                    weights[a * n + b] = w;
                    mask[a * n + b] = true;
                }
            }
        }
        let biases = self
            .visible_biases
            .iter()
            .chain(&self.hidden_biases)
            .copied()
            .collect();
        Network::new(SpinKind::Binary, weights, biases)?
            .with_visible(v)?
            .with_mask(mask)
    }
}

/// Checks a 0/1 vector of `len` values; errors name `field`.
pub(crate) fn check_bits(field: &'static str, bits: &[u8], len: usize) -> Result<(), ParamError> {
    if bits.len() != len {
        return Err(ParamError::Invalid {
            field,
            reason: format!("need {len} values, got {}", bits.len()),
        });
    }
    if let Some(k) = bits.iter().position(|&b| b > 1) {
        return Err(ParamError::Invalid {
            field,
            reason: format!("value {k} is {}: values are 0 (off) or 1 (on)", bits[k]),
        });
    }
    Ok(())
}

/// The log base rates a_i = ln(p_i / (1 − p_i)), p_i = (n_i + 1)/(N + 2), of `patterns`
/// (checked like training vectors of length `visible`).
pub fn base_rate_biases(patterns: &[Vec<u8>], visible: usize) -> Result<Vec<f64>, ParamError> {
    crate::model::patterns::check_patterns(patterns, visible)?;
    let n = patterns.len() as f64;
    Ok((0..visible)
        .map(|i| {
            let on = patterns.iter().filter(|p| p[i] == 1).count() as f64;
            let p = (on + 1.0) / (n + 2.0);
            libm::log(p / (1.0 - p))
        })
        .collect())
}

/// σ(x) = 1/(1 + e^{−x}).
#[inline]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-x))
}

/// softplus(x) = ln(1 + e^x), as max(x, 0) + ln(1 + e^{−|x|}) so it never overflows.
#[inline]
pub fn softplus(x: f64) -> f64 {
    x.max(0.0) + libm::log1p(libm::exp(-x.abs()))
}

/// The hidden inputs c_j = b_j + Σ_i v_i W_ij, into `out` (length H): the rows of W of
/// the visible units that are on, added to b ([`sum_of_rows_on`]).
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn hidden_input(rbm: &Rbm, v: &[u8], out: &mut [f64]) {
    sum_of_rows_on(v, rbm.hidden_biases(), |i| rbm.weight_row(i), out);
}

/// The visible inputs a_i + Σ_j W_ij h_j, into `out` (length V): the columns of W of the
/// hidden units that are on, added to a ([`sum_of_rows_on`]).
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn visible_input(rbm: &Rbm, h: &[u8], out: &mut [f64]) {
    sum_of_rows_on(h, rbm.visible_biases(), |j| rbm.weight_column(j), out);
}

/// Rows this long or shorter are summed a block of columns at a time ([`sum_of_rows_on`]).
const SHORT_ROWS: usize = 64;

/// out = base + Σ_{k : bits\[k\] = 1} row(k), each entry summed from its base through the rows
/// in increasing k: the bits of adding the rows one after another into `out`.
///
/// Rows of up to `SHORT_ROWS` (64) values are summed a block of columns at a time (16,
/// then 8, 4 and single columns), the block's sums held in registers while the rows are
/// read: added into `out` in memory, each short row waited for the previous row's stores
/// (the 64-16 update took 13 % longer). A long row's additions are many independent
/// vectors, which keep the processor busy from memory, and a block at a time reads the bits
/// once per block (the f64 784-500 learning command took 7 % longer so); docs/speed.md.
#[inline(always)]
pub fn sum_of_rows_on<'a>(
    bits: &[u8],
    base: &[f64],
    row: impl Fn(usize) -> &'a [f64] + Copy,
    out: &mut [f64],
) {
    let n = out.len();
    if n > SHORT_ROWS {
        out.copy_from_slice(base);
        for_each_on(bits, |k| {
            for (s, &w) in out.iter_mut().zip(row(k)) {
                *s += w;
            }
        });
        return;
    }
    let mut start = 0;
    while start + 16 <= n {
        sum_block::<16>(bits, base, row, out, start);
        start += 16;
    }
    if start + 8 <= n {
        sum_block::<8>(bits, base, row, out, start);
        start += 8;
    }
    if start + 4 <= n {
        sum_block::<4>(bits, base, row, out, start);
        start += 4;
    }
    while start < n {
        sum_block::<1>(bits, base, row, out, start);
        start += 1;
    }
}

/// Columns `start..start + B` of [`sum_of_rows_on`].
#[inline(always)]
fn sum_block<'a, const B: usize>(
    bits: &[u8],
    base: &[f64],
    row: impl Fn(usize) -> &'a [f64],
    out: &mut [f64],
    start: usize,
) {
    let mut sums: [f64; B] = base[start..start + B].try_into().unwrap();
    for_each_on(bits, |k| {
        let values: &[f64; B] = row(k)[start..start + B].try_into().unwrap();
        for j in 0..B {
            sums[j] += values[j];
        }
    });
    out[start..start + B].copy_from_slice(&sums);
}

/// Calls `f(k)` for every k with `bits[k] == 1`, in increasing order. A block of 64 bits
/// is first read into the bits of one word (without a branch), whose ones are then visited
/// lowest first, so the calls do not wait on a guess of random bits.
#[inline(always)]
pub fn for_each_on(bits: &[u8], mut f: impl FnMut(usize)) {
    for (b, block) in bits.chunks(64).enumerate() {
        let mut word = 0u64;
        for (k, &bit) in block.iter().enumerate() {
            word |= u64::from(bit == 1) << k;
        }
        while word != 0 {
            f(b * 64 + word.trailing_zeros() as usize);
            word &= word - 1;
        }
    }
}
