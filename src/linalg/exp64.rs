//! f64 e^x and σ over whole slices, with `libm::exp`'s bits.
//!
//! The f64 restricted machine ([`crate::learn::rbm::RbmTrainer`], the small images' trainer)
//! promises the same bits natively and in wasm, so its σ(x) = 1/(1 + e^{−x}) calls
//! `libm::exp` (std's `exp` may differ between platforms) one value at a time: about 60
//! instructions and a branch per value, a quarter of a 64-16 update. [`exp`] here is the
//! same algorithm (FreeBSD's `e_exp.c`, which `libm` ports) written without branches: every
//! special case is a select, so the compiler turns a loop over a slice into SIMD (SSE2, AVX2
//! or AVX-512 natively, SIMD128 in wasm). It is IEEE f64 arithmetic only (no fused multiply-add),
//! so its bits are `libm::exp`'s on every input (tests/linalg.rs, `exp64`), at every SIMD
//! width, natively and in wasm.

// FreeBSD's constants, by their bits as libm writes them: ln 2 = LN2HI + LN2LO (LN2HI's
// low 32 bits are zero, so k·LN2HI is exact), 1/ln 2, and the Remez polynomial
// R(z) ≈ 2 + P1 z + … + P5 z⁵ of r(e^r + 1)/(e^r − 1), z = r².
const LN2HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const INVLN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
const P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e);
const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);

// 1.5·2⁵²: for an integer-valued m with |m| < 2⁵¹, m + ROUND is exact and its bits are
// ROUND's plus m; for any y with |y| < 2⁵¹, (y + ROUND) − ROUND is y rounded to an integer
// (ties to even).
const ROUND: f64 = 6_755_399_441_055_744.0;

// libm's thresholds on the high word of |x|, as values of |x|: hx ≥ 0x3ff0a2b2 (|x| ≥ 1.5
// ln 2 or so: k from x/ln 2), hx > 0x3fd62e42 (|x| > ½ ln 2 or so: k = ±1), hx ≤ 0x3e300000
// (|x| ≤ 2⁻²⁸ or so: 1 + x). For a number that is not NaN, the order of |x| is the order of
// its bits, so "the high word is at least w" is "|x| is at least the double with high word w".
const K_FROM_X: f64 = f64::from_bits(0x3ff0_a2b2_0000_0000);
const K_IS_ONE: f64 = f64::from_bits(0x3fd6_2e43_0000_0000);
const TINY: f64 = f64::from_bits(0x3e30_0001_0000_0000);

/// 2^m for an integer-valued m, −1022 ≤ m ≤ 1023, from its bits: m + 1023 is the exponent
/// field (m's bits read from m + [`ROUND`], so every step is an integer or bit operation that
/// vectorises, SIMD128 included).
#[inline(always)]
fn two_to(m: f64) -> f64 {
    f64::from_bits((m + ROUND).to_bits().wrapping_add(1023) << 52)
}

/// y rounded to the nearest integer (ties to even), for |y| < 2⁵¹.
#[inline(always)]
fn nearest(y: f64) -> f64 {
    (y + ROUND) - ROUND
}

/// y rounded toward zero, as `y as i32` is, for |y| < 2⁵¹: the nearest integer, then one
/// step back toward zero where that went past y.
#[inline(always)]
fn truncated(y: f64) -> f64 {
    let t = nearest(y);
    if y >= 0.0 && t > y {
        t - 1.0
    } else if y < 0.0 && t < y {
        t + 1.0
    } else {
        t
    }
}

/// e^x with `libm::exp`'s bits, branch-free.
///
/// x = k·ln 2 + r with |r| ≤ ½ ln 2 (k = 0 when |x| ≤ ½ ln 2, ±1 up to 1.5 ln 2, else
/// x/ln 2 rounded half away from zero), r = hi − lo exactly as libm splits it; then
/// c = r − z(P1 + z(P2 + …)), z = r², e^r = 1 + (r·c/(2 − c) − lo + hi), and e^x = 2^k·e^r
/// by two exact multiplications by powers of two (one rounding, as libm's `scalbn`, where
/// the result is subnormal). |x| ≤ 2⁻²⁸ gives 1 + x; x > 709.78… gives ∞, x < −745.13… gives
/// 0, NaN gives NaN. k is carried as an integer-valued double and libm's thresholds on the
/// high word are compared as doubles, so a loop over a slice is SIMD with no conversion
/// between doubles and 32-bit integers (the compiler made those lane by lane in wasm, and
/// natively the update is 12 % faster without them: docs/speed.md).
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    let ax = x.abs();
    // Far out the result is settled below; clamping keeps k's arithmetic in range.
    let xc = x.clamp(-746.0, 710.0);
    let half = if xc < 0.0 { -0.5 } else { 0.5 };
    let rounded = truncated(INVLN2 * xc + half);
    let one = if xc < 0.0 { -1.0 } else { 1.0 };
    let k = if ax >= K_FROM_X {
        rounded
    } else if ax >= K_IS_ONE {
        one
    } else {
        0.0
    };
    let hi = xc - k * LN2HI;
    let lo = k * LN2LO;
    let r = hi - lo;
    let z = r * r;
    let c = r - z * (P1 + z * (P2 + z * (P3 + z * (P4 + z * P5))));
    let y = 1.0 + (r * c / (2.0 - c) - lo + hi);
    // 2^k as two powers of two in the normal range: y·2^k1 is exact and ·2^(k − k1) rounds
    // once, whichever k1 near k/2 is taken (libm takes ⌊k/2⌋).
    let k1 = nearest(0.5 * k);
    let scaled = y * two_to(k1) * two_to(k - k1);
    if x.is_nan() {
        x
    } else if x > 709.782_712_893_384 {
        f64::INFINITY
    } else if x < -745.133_219_101_941_1 {
        0.0
    } else if ax < TINY {
        1.0 + x
    } else {
        scaled
    }
}

/// σ(x) = 1/(1 + e^{−x}) with [`exp`]: the bits of `crate::model::rbm::sigmoid`.
#[inline(always)]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + exp(-x))
}

/// Every p ← σ(β·p) ([`sigmoid`]; β = 1 leaves β·p = p, so it is σ(p)).
///
/// Eight values at a time: one σ is a long chain of dependent steps (two divisions among
/// them), and with wasm's two lanes one chain at a time left the processor waiting.
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn sigmoid_scaled_in_place(values: &mut [f64], beta: f64) {
    let mut chunks = values.chunks_exact_mut(8);
    for chunk in &mut chunks {
        for p in chunk {
            *p = sigmoid(beta * *p);
        }
    }
    for p in chunks.into_remainder() {
        *p = sigmoid(beta * *p);
    }
}

/// Every p ← σ(p).
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
pub fn sigmoid_in_place(values: &mut [f64]) {
    sigmoid_scaled_in_place(values, 1.0);
}
