//! Exact conditionals and block Gibbs sampling of a restricted machine.
//!
//! With no visible–visible and no hidden–hidden connections, the units of one layer are
//! independent given the other, and each conditional is a product of sigmoids:
//!
//!   p(h_j = 1 | v) = σ(b_j + (vW)_j),   p(v_i = 1 | h) = σ(a_i + (W h)_i),
//!   σ(x) = 1/(1 + e^{−x}).
//!
//! A block Gibbs step draws the whole hidden layer from p(h | v), then the whole visible
//! layer from p(v | h): it leaves p(v, h) invariant, and if (v, h) is a sample of p, so is
//! (v′, h) after the step. A bit is drawn from one 32-bit number r: on when
//! r < round(p·2^32) (as [`crate::dynamics::rules::threshold`]), so a seed fixes the
//! trajectory natively and in WebAssembly alike.

use crate::linalg::exp64::{sigmoid_in_place, sigmoid_scaled_in_place};
use crate::model::rbm::Rbm;
use crate::rng::SpinRng;
use rand::Rng;

// The local fields and the two smooth functions of them live with the model.
pub use crate::model::rbm::{hidden_input, sigmoid, softplus, visible_input};

/// p(h_j = 1 | v) = σ(b_j + (vW)_j), into `out` (length H).
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn hidden_probabilities(rbm: &Rbm, v: &[u8], out: &mut [f64]) {
    hidden_input(rbm, v, out);
    sigmoid_in_place(out);
}

/// p(v_i = 1 | h) = σ(a_i + (W h)_i), into `out` (length V).
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn visible_probabilities(rbm: &Rbm, h: &[u8], out: &mut [f64]) {
    visible_input(rbm, h, out);
    sigmoid_in_place(out);
}

/// Independent bits s_k = 1 with probability p_k: s_k = [r_k < round(p_k·2^32)], one
/// 32-bit draw r_k per bit (`drawn_on`: one comparison of doubles).
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn sample_bits(probabilities: &[f64], out: &mut [u8], rng: &mut SpinRng) {
    for (s, &p) in out.iter_mut().zip(probabilities) {
        *s = u8::from(drawn_on(rng.next_u32(), p));
    }
}

/// Independent bits s_k = 1 with probability σ(β·x_k), from the fields x_k: the bits
/// [`sample_bits`] draws from p_k = σ(β·x_k), one 32-bit draw r_k per bit in the same order,
/// with σ computed only where the draw needs it. r_k's top ten bits name one of 1024 ranges
/// of r; for each, `Decided` holds a field below which every r in the range is off and one
/// above which every r in it is on, so σ (about 60 instructions and two divisions) is
/// computed exactly ([`sigmoid`], the bits of `sample_bits`' p_k) only for the fields
/// between the two: about one draw in a thousand.
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn sample_sigmoid_bits(fields: &[f64], beta: f64, out: &mut [u8], rng: &mut SpinRng) {
    let decided = Decided::table();
    // 64 bits at a time: each draw decided by its bounds or left open, with no branch on the
    // data (one would be mispredicted at random), then σ for the few left open.
    for (out, fields) in out.chunks_mut(64).zip(fields.chunks(64)) {
        let mut draws = [0u32; 64];
        let mut open = 0u64;
        for (k, (s, &x)) in out.iter_mut().zip(fields).enumerate() {
            let r = rng.next_u32();
            let (on, left_open) = decided_draw(r, beta * x, decided);
            open |= u64::from(left_open) << k;
            *s = u8::from(on);
            draws[k] = r;
        }
        while open != 0 {
            let k = open.trailing_zeros() as usize;
            open &= open - 1;
            let p = crate::linalg::exp64::sigmoid(beta * fields[k]);
            out[k] = u8::from(drawn_on(draws[k], p));
        }
    }
}

/// The draw r for the field y as `decided`'s bounds for r's range give it: (on, open), where
/// `on` is [`drawn_on`](r, σ(y)) unless `open`, when σ(y) must decide.
#[inline(always)]
fn decided_draw(r: u32, y: f64, decided: &[[f64; 2]; DECIDED_RANGES]) -> (bool, bool) {
    let [off_below, on_above] = decided[(r >> DECIDED_SHIFT) as usize];
    let on = y > on_above;
    let off = y < off_below;
    // Neither: open (NaN too, as neither comparison holds for it).
    (on, !(on | off))
}

/// r's bits below the ten that name its range in [`Decided`], and the number of ranges.
const DECIDED_SHIFT: u32 = 22;
const DECIDED_RANGES: usize = 1 << (32 - DECIDED_SHIFT);

/// For each range R_i = [i·2²², (i + 1)·2²²) of a 32-bit draw r, the fields y where the draw
/// on = [r + ½ ≤ s·2³²], s = [`sigmoid`](y), is the same for every r in R_i:
///
///   off for y < logit(p_lo/(1 + η)) − Δ,  p_lo = (i·2²² + ½)/2³²,
///   on  for y > logit(p_hi/(1 − η)) + Δ,  p_hi = ((i + 1)·2²² − ½)/2³²,
///
/// logit(q) = ln q − ln(1 − q). Why: the computed s is within a relative η = 10⁻¹⁴ of the
/// true σ(y) (libm's e^x is within 1 ulp, and 1 + e^{−y} and the division round once each:
/// about 2 ulp, 4.4·10⁻¹⁶), and σ is increasing. So below the first bound σ(y) < p_lo/(1 + η)
/// and s < p_lo, which is off for the smallest r of R_i and so for all; above the second
/// s ≥ p_hi, on for the largest r and so for all. Where e^{−y} leaves the normal range, s is
/// 0 (y below about −709.8, an overflow) or 1 (above about 708.4), which the bounds (all
/// within ±23) give too. Δ = 10⁻⁴ covers the rounding of the bounds themselves (at most
/// about 10⁻⁶, at the top range, where 1 − q is 2⁻³³).
struct Decided;

impl Decided {
    /// The bounds, [off below, on above] for each of the 1024 ranges (16 KiB), made once.
    fn table() -> &'static [[f64; 2]; DECIDED_RANGES] {
        static TABLE: std::sync::OnceLock<[[f64; 2]; DECIDED_RANGES]> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| {
            const ETA: f64 = 1e-14;
            const DELTA: f64 = 1e-4;
            let width = f64::from(1u32 << DECIDED_SHIFT);
            std::array::from_fn(|i| {
                let low = (i as f64 * width + 0.5) / 4_294_967_296.0;
                let high = ((i + 1) as f64 * width - 0.5) / 4_294_967_296.0;
                [
                    logit(low / (1.0 + ETA)) - DELTA,
                    logit(high / (1.0 - ETA)) + DELTA,
                ]
            })
        })
    }
}

/// logit(q) = ln q − ln(1 − q), the field y whose σ(y) is q (libm's log: the same bits natively
/// and in wasm).
fn logit(q: f64) -> f64 {
    libm::log(q) - libm::log(1.0 - q)
}

/// r < [`crate::dynamics::rules::threshold`](p) = round(p·2³²) (p clamped to [0, 1], halves
/// rounded up), bit for bit, as one comparison of doubles: for an integer r and y = p·2³² ≥ 0,
/// r < ⌊y + ½⌋ exactly when r + 1 ≤ y + ½, that is r + ½ ≤ y, and r + ½ and p·2³² are exact
/// doubles. Out of [0, 1] the comparison gives what clamping would (never below 0, always
/// above 1), and NaN is never on, as its threshold is 0.
#[inline(always)]
fn drawn_on(r: u32, probability: f64) -> bool {
    f64::from(r) + 0.5 <= probability * 4_294_967_296.0
}

/// K persistent chains ("fantasy particles"): their visible and hidden states and
/// p(h | v) at their visible state, flat (K × V, K × H, K × H), with scratch for one
/// visible probability vector. Advancing them allocates nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct Particles {
    count: usize,
    hidden_units: usize,
    visible: Vec<u8>,
    hidden: Vec<u8>,
    hidden_probabilities: Vec<f64>,
    visible_scratch: Vec<f64>,
}

impl Particles {
    /// K particles of a V-H machine, each visible unit on with probability ½ (one 32-bit
    /// draw per unit from `rng`, particle by particle), hidden units off. The caller checks
    /// K (at most `learn::rbm::MAX_PARTICLES`).
    pub fn random(count: usize, visible: usize, hidden: usize, rng: &mut SpinRng) -> Particles {
        let v = (0..count * visible)
            .map(|_| u8::from(rng.next_u32() >> 31 == 1))
            .collect();
        Particles {
            count,
            hidden_units: hidden,
            visible: v,
            hidden: vec![0; count * hidden],
            hidden_probabilities: vec![0.0; count * hidden],
            visible_scratch: vec![0.0; visible],
        }
    }

    /// K particles of `rbm` in the given states (K × V visible and K × H hidden bits, as
    /// [`Particles::visible_states`] and [`Particles::hidden_states`] give them), for a
    /// saved run; p(h | v) is recomputed under `rbm` (the next advance overwrites it before
    /// anything reads it). Errors name `field` and say which part is wrong; the caller
    /// checks K.
    pub fn from_states(
        field: &'static str,
        rbm: &Rbm,
        count: usize,
        visible: Vec<u8>,
        hidden: Vec<u8>,
    ) -> Result<Particles, crate::error::ParamError> {
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        crate::model::rbm::check_bits(field, &visible, count * nv)?;
        crate::model::rbm::check_bits(field, &hidden, count * nh)?;
        let mut particles = Particles {
            count,
            hidden_units: nh,
            visible,
            hidden,
            hidden_probabilities: Vec::new(),
            visible_scratch: vec![0.0; nv],
        };
        particles.restore_probabilities(rbm);
        Ok(particles)
    }

    /// A copy of the states alone, for a saved run: v and h, without the cached p(h | v)
    /// (K × H numbers: 40 MB for 10⁴ particles of 500 hidden units, which a save must not
    /// copy); [`Particles::restore_probabilities`] recomputes it.
    pub fn states_only(&self) -> Particles {
        Particles {
            count: self.count,
            hidden_units: self.hidden_units,
            visible: self.visible.clone(),
            hidden: self.hidden.clone(),
            hidden_probabilities: Vec::new(),
            visible_scratch: vec![0.0; self.visible_scratch.len()],
        }
    }

    /// Recomputes the cached p(h | v) under `rbm` if it is missing ([`Particles::states_only`]):
    /// a deterministic function of v and the machine, so the same numbers as before.
    pub fn restore_probabilities(&mut self, rbm: &Rbm) {
        let (nv, nh) = (self.visible_scratch.len(), self.hidden_units);
        if self.hidden_probabilities.len() == self.count * nh {
            return;
        }
        self.hidden_probabilities = vec![0.0; self.count * nh];
        for k in 0..self.count {
            hidden_probabilities(
                rbm,
                &self.visible[k * nv..(k + 1) * nv],
                &mut self.hidden_probabilities[k * nh..(k + 1) * nh],
            );
        }
    }

    /// K.
    pub fn count(&self) -> usize {
        self.count
    }

    /// All visible states, K × V (particle k at `k·V..(k + 1)·V`): what the page draws.
    pub fn visible_states(&self) -> &[u8] {
        &self.visible
    }

    /// All hidden states, K × H: the h each particle's visible state was last drawn from.
    pub fn hidden_states(&self) -> &[u8] {
        &self.hidden
    }

    /// p(h | v) at each particle's visible state, K × H (as of the last [`advance`]).
    ///
    /// [`advance`]: Particles::advance
    pub fn hidden_probabilities(&self) -> &[f64] {
        &self.hidden_probabilities
    }

    /// Particle k's visible state.
    pub fn visible_state(&self, k: usize) -> &[u8] {
        let v = self.visible_scratch.len();
        &self.visible[k * v..(k + 1) * v]
    }

    /// Particle k's hidden state.
    pub fn hidden_state(&self, k: usize) -> &[u8] {
        let h = self.hidden_units;
        &self.hidden[k * h..(k + 1) * h]
    }

    /// E(v, h) of particle k under `rbm`.
    pub fn energy(&self, rbm: &Rbm, k: usize) -> f64 {
        rbm.energy(self.visible_state(k), self.hidden_state(k))
    }

    /// Exchanges the states (v, h and the cached p(h | v)) of particle k here and in
    /// `other` (a set of the same shape).
    pub fn exchange(&mut self, other: &mut Particles, k: usize) {
        let (nv, nh) = (self.visible_scratch.len(), self.hidden_units);
        self.visible[k * nv..(k + 1) * nv]
            .swap_with_slice(&mut other.visible[k * nv..(k + 1) * nv]);
        self.hidden[k * nh..(k + 1) * nh].swap_with_slice(&mut other.hidden[k * nh..(k + 1) * nh]);
        self.hidden_probabilities[k * nh..(k + 1) * nh]
            .swap_with_slice(&mut other.hidden_probabilities[k * nh..(k + 1) * nh]);
    }

    /// Advances every particle by `steps` block Gibbs steps of `rbm` (h ~ p(h | v), then
    /// v ~ p(v | h)), particle by particle, and leaves p(h | v) at the final v in
    /// [`Particles::hidden_probabilities`] (so a caller averages v_i p(h_j | v), which has
    /// the same mean as v_i h_j and less noise). The machine must have this V and H.
    pub fn advance(&mut self, rbm: &Rbm, steps: usize, rng: &mut SpinRng) {
        self.advance_at(rbm, 1.0, steps, rng);
    }

    /// [`Particles::advance`] for the machine at inverse temperature β, p ∝ e^{−βE}
    /// ([`gibbs_chain_at`]).
    pub fn advance_at(&mut self, rbm: &Rbm, beta: f64, steps: usize, rng: &mut SpinRng) {
        for k in 0..self.count {
            self.advance_one_at(rbm, beta, k, steps, rng);
        }
    }

    /// Advances particle k alone by `steps` block Gibbs steps at β ([`gibbs_chain_at`]).
    /// Its k steps done in parts (a steps, then b) are the same draws as done at once
    /// (a + b): between steps the chain's state is its v alone, and p(h | v) is recomputed
    /// from it. That is what lets an update be done in slices.
    #[inline(always)]
    pub fn advance_one_at(
        &mut self,
        rbm: &Rbm,
        beta: f64,
        k: usize,
        steps: usize,
        rng: &mut SpinRng,
    ) {
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        debug_assert_eq!(self.visible_scratch.len(), nv);
        gibbs_chain_at(
            rbm,
            beta,
            steps,
            &mut self.visible[k * nv..(k + 1) * nv],
            &mut self.hidden[k * nh..(k + 1) * nh],
            &mut self.hidden_probabilities[k * nh..(k + 1) * nh],
            &mut self.visible_scratch,
            rng,
        );
    }
}

/// `steps` block Gibbs steps of one chain from visible state `v`: p_h ← p(h | v); then
/// `steps` times h ~ p_h, v ~ p(v | h), p_h ← p(h | v). On return `v`, `h` hold the last
/// states and `p_h` holds p(h | v) at the last v. `p_v` is scratch of length V.
#[inline(always)]
pub fn gibbs_chain(
    rbm: &Rbm,
    steps: usize,
    v: &mut [u8],
    h: &mut [u8],
    p_h: &mut [f64],
    p_v: &mut [f64],
    rng: &mut SpinRng,
) {
    gibbs_chain_at(rbm, 1.0, steps, v, h, p_h, p_v, rng);
}

/// [`gibbs_chain`] for the machine at inverse temperature β, p_β(v, h) ∝ e^{−β E(v, h)}:
/// p_β(h_j = 1 | v) = σ(β (b_j + (vW)_j)), p_β(v_i = 1 | h) = σ(β (a_i + (W h)_i)). At
/// β = 1 it is [`gibbs_chain`] bit for bit (β·x = x).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn gibbs_chain_at(
    rbm: &Rbm,
    beta: f64,
    steps: usize,
    v: &mut [u8],
    h: &mut [u8],
    p_h: &mut [f64],
    p_v: &mut [f64],
    rng: &mut SpinRng,
) {
    // The fields are kept, and each draw takes σ from them only where it must
    // (sample_sigmoid_bits: the bits of drawing from σ(β·field)); p(h | v) at the last v is
    // computed whole, for the caller's statistics.
    hidden_input(rbm, v, p_h);
    for _ in 0..steps {
        sample_sigmoid_bits(p_h, beta, h, rng);
        visible_input(rbm, h, p_v);
        sample_sigmoid_bits(p_v, beta, v, rng);
        hidden_input(rbm, v, p_h);
    }
    sigmoid_scaled_in_place(p_h, beta);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::rules::threshold;
    use crate::rng::{seeded_rng, uniform};

    #[test]
    fn softplus_and_sigmoid_stay_finite_far_out() {
        assert_eq!(softplus(1000.0), 1000.0);
        assert_eq!(softplus(-1000.0), 0.0);
        assert!((softplus(0.0) - 2f64.ln()).abs() < 1e-15);
        assert!((softplus(3.0) - (1.0 + 3f64.exp()).ln()).abs() < 1e-14);
        assert_eq!(sigmoid(-1000.0), 0.0);
        assert_eq!(sigmoid(1000.0), 1.0);
        // σ(x) = e^{softplus(x) − softplus(−x) − x}·… : σ(x)/σ(−x) = e^x.
        assert!((sigmoid(1.3) / sigmoid(-1.3) - 1.3f64.exp()).abs() < 1e-12);
    }

    #[test]
    fn a_draw_is_on_below_the_rules_threshold_bit_for_bit() {
        // Halves, their neighbours, the ends, outside [0, 1], NaN and a dense sweep of (0, 1);
        // for each, the draws at and around its threshold and at the ends of their range.
        let mut ps = vec![
            0.0,
            1.0,
            -0.5,
            1.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            0.5,
            1.0 - f64::EPSILON,
        ];
        for k in [1u64, 3, 12345, (1 << 31) + 1, (1 << 32) - 1] {
            let half = (k as f64 - 0.5) / 4_294_967_296.0;
            ps.extend([
                half,
                f64::from_bits(half.to_bits() - 1),
                f64::from_bits(half.to_bits() + 1),
            ]);
        }
        ps.extend((0..100_000).map(|i| (i as f64 + 0.37) / 100_000.0));
        for p in ps {
            let t = threshold(p);
            let mut rs = vec![0u32, 1, u32::MAX - 1, u32::MAX];
            for r in [t.saturating_sub(2), t.saturating_sub(1), t, t + 1] {
                rs.extend(u32::try_from(r).ok());
            }
            for r in rs {
                assert_eq!(drawn_on(r, p), u64::from(r) < t, "p = {p:e}, r = {r}");
            }
        }
    }

    #[test]
    fn a_draw_from_a_field_is_the_draw_from_its_sigmoid_bit_for_bit() {
        // For every range of r: its first, second, middle and last r, and fields at and a few
        // ulps around both of its bounds, at the exact σ⁻¹ of each r's threshold, and far out;
        // then random pairs. Each must decide as drawn_on(r, σ(y)) does.
        let decided = Decided::table();
        let near = |y: f64| {
            let mut ys = vec![y];
            for k in 1..4u64 {
                ys.push(f64::from_bits(y.to_bits().wrapping_add(k)));
                ys.push(f64::from_bits(y.to_bits().wrapping_sub(k)));
            }
            ys
        };
        let mut open = 0u64;
        let mut checked = 0u64;
        let mut check = |r: u32, y: f64| {
            let (on, left_open) = decided_draw(r, y, decided);
            if !left_open {
                assert_eq!(on, drawn_on(r, sigmoid(y)), "r = {r}, y = {y:e}");
            }
            open += u64::from(left_open);
            checked += 1;
        };
        for (i, &[low, high]) in decided.iter().enumerate() {
            assert!(low < high, "range {i}: {low} {high}");
            let first = (i as u32) << DECIDED_SHIFT;
            for r in [
                first,
                first + 1,
                first + (1 << 21),
                first + ((1 << DECIDED_SHIFT) - 1),
            ] {
                let mut ys = near(low);
                ys.extend(near(high));
                ys.extend(near(logit((f64::from(r) + 0.5) / 4_294_967_296.0)));
                ys.extend([0.0, -40.0, 40.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
                for y in ys {
                    check(r, y);
                }
            }
        }
        let mut rng = seeded_rng(11);
        for _ in 0..2_000_000 {
            let r = rng.next_u32();
            let y = 30.0 * (uniform(&mut rng) - 0.5);
            check(r, y);
        }
        eprintln!("{open} of {checked} draws needed σ");
    }

    #[test]
    fn bits_drawn_from_fields_are_the_bits_drawn_from_their_sigmoids() {
        // The same seed through both: the same bits and the same generator state after, at
        // β = 1 and β ≠ 1, on fields from far negative to far positive.
        let mut field_rng = seeded_rng(12);
        let fields: Vec<f64> = (0..4099)
            .map(|_| 50.0 * (uniform(&mut field_rng) - 0.5))
            .collect();
        for beta in [1.0, 0.37, 2.5] {
            let p: Vec<f64> = fields.iter().map(|&x| sigmoid(beta * x)).collect();
            let (mut a, mut b) = (seeded_rng(13), seeded_rng(13));
            let (mut bits_a, mut bits_b) = (vec![0u8; fields.len()], vec![0u8; fields.len()]);
            for _ in 0..50 {
                sample_bits(&p, &mut bits_a, &mut a);
                sample_sigmoid_bits(&fields, beta, &mut bits_b, &mut b);
                assert_eq!(bits_a, bits_b, "beta = {beta}");
            }
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn sampled_bits_are_on_at_their_probability() {
        // 10⁵ draws per bit: binomial standard error ≤ 1.6·10⁻³; 6σ bands.
        let p = [0.0, 0.1, 0.5, 0.9, 1.0];
        let mut rng = seeded_rng(4);
        let mut on = [0u32; 5];
        let mut bits = [0u8; 5];
        for _ in 0..100_000 {
            sample_bits(&p, &mut bits, &mut rng);
            on.iter_mut()
                .zip(bits)
                .for_each(|(n, b)| *n += u32::from(b));
        }
        assert_eq!((on[0], on[4]), (0, 100_000));
        for k in 1..4 {
            let f = f64::from(on[k]) / 1e5;
            assert!(
                (f - p[k]).abs() < 6.0 * (p[k] * (1.0 - p[k]) / 1e5).sqrt(),
                "{k}: {f}"
            );
        }
    }

    #[test]
    fn both_inputs_agree_with_the_weights_entry_by_entry() {
        let rbm = Rbm::random(5, 3, 1.0, 9).unwrap();
        let (v, h) = ([1u8, 0, 1, 1, 0], [0u8, 1, 1]);
        let (mut c, mut x) = ([0.0; 3], [0.0; 5]);
        hidden_input(&rbm, &v, &mut c);
        visible_input(&rbm, &h, &mut x);
        for (j, &cj) in c.iter().enumerate() {
            let direct: f64 = (0..5).map(|i| f64::from(v[i]) * rbm.weight(i, j)).sum();
            assert!((cj - rbm.hidden_biases()[j] - direct).abs() < 1e-14);
        }
        for (i, &xi) in x.iter().enumerate() {
            let direct: f64 = (0..3).map(|j| f64::from(h[j]) * rbm.weight(i, j)).sum();
            assert!((xi - rbm.visible_biases()[i] - direct).abs() < 1e-14);
        }
    }
}
