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

/// 2^k for −1022 ≤ k ≤ 1023, from its bits.
#[inline(always)]
fn two_to(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// e^x with `libm::exp`'s bits, branch-free.
///
/// x = k·ln 2 + r with |r| ≤ ½ ln 2 (k = 0 when |x| ≤ ½ ln 2, ±1 up to 1.5 ln 2, else
/// x/ln 2 rounded half away from zero), r = hi − lo exactly as libm splits it; then
/// c = r − z(P1 + z(P2 + …)), z = r², e^r = 1 + (r·c/(2 − c) − lo + hi), and e^x = 2^k·e^r
/// by two exact multiplications by powers of two (one rounding, as libm's `scalbn`, where
/// the result is subnormal). |x| ≤ 2⁻²⁸ gives 1 + x; x > 709.78… gives ∞, x < −745.13… gives
/// 0, NaN gives NaN.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    // The high word of |x|, which libm compares with its thresholds.
    let hx = ((x.to_bits() >> 32) as u32) & 0x7fff_ffff;
    // Far out the result is settled below; clamping keeps k's arithmetic in range.
    let xc = x.clamp(-746.0, 710.0);
    let half = if xc < 0.0 { -0.5 } else { 0.5 };
    let rounded = (INVLN2 * xc + half) as i32;
    let one = if xc < 0.0 { -1 } else { 1 };
    let k = if hx >= 0x3ff0_a2b2 {
        rounded
    } else if hx > 0x3fd6_2e42 {
        one
    } else {
        0
    };
    let kf = f64::from(k);
    let hi = xc - kf * LN2HI;
    let lo = kf * LN2LO;
    let r = hi - lo;
    let z = r * r;
    let c = r - z * (P1 + z * (P2 + z * (P3 + z * (P4 + z * P5))));
    let y = 1.0 + (r * c / (2.0 - c) - lo + hi);
    let k1 = k >> 1;
    let scaled = y * two_to(k1) * two_to(k - k1);
    if x.is_nan() {
        x
    } else if x > 709.782_712_893_384 {
        f64::INFINITY
    } else if x < -745.133_219_101_941_1 {
        0.0
    } else if hx <= 0x3e30_0000 {
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
#[inline(always)]
pub fn sigmoid_scaled_in_place(values: &mut [f64], beta: f64) {
    for p in values {
        *p = sigmoid(beta * *p);
    }
}

/// Every p ← σ(p).
#[inline(always)]
pub fn sigmoid_in_place(values: &mut [f64]) {
    for p in values {
        *p = sigmoid(*p);
    }
}
