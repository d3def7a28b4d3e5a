//! Elementwise f32 work of batch learning, written as plain loops over slices that the
//! compiler turns into SIMD (AVX2/AVX-512 natively, SIMD128 in wasm).
//!
//! Every function is IEEE f32 arithmetic only (no fused multiply-add, no library call), so
//! it gives the same bits natively and in wasm: std's `f32::exp` is not promised to.

/// e^x in f32, to about 2 ulp for −87 ≤ x ≤ 88 (outside, x is clamped there: e^{−87} ≈
/// 1.6·10⁻³⁸, e^{88} ≈ 1.7·10³⁸).
///
/// x = n·ln 2 + r with n = round(x / ln 2) and |r| ≤ ln 2 / 2 (ln 2 split in two parts so
/// r is exact), e^r by its Taylor polynomial to r⁷/7! (truncation ≤ 0.35⁸/8! ≈ 5·10⁻⁹,
/// below half an ulp), then e^x = 2ⁿ·e^r by building 2ⁿ's bits.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    // ln 2 = LN2_HI − LN2_LO (Cephes' split): LN2_HI = 355/512 has 9 bits, so n·LN2_HI is
    // exact for |n| ≤ 128.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = 2.121_944_4e-4;
    // 1.5·2²³: adding and subtracting it rounds to the nearest integer (ties to even).
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * LOG2_E + ROUND) - ROUND;
    let r = (x - n * LN2_HI) + n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0
                        + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r * (1.0 / 5040.0)))))));
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    p * scale
}

/// σ(x) = 1/(1 + e^{−x}) in f32 with [`exp`]: within 3 ulp of the true value (σ's
/// relative condition number is |x|·σ(−x) ≤ |x| but the error of e^{−x} enters divided by
/// 1 + e^{−x}, so the relative error stays that of [`exp`] plus two roundings).
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp(-x))
}

/// out_j ← σ(out_j + bias_j) for every row of `out` (rows of bias.len() values): the
/// conditional probabilities of a layer from its inputs.
pub fn add_bias_sigmoid(out: &mut [f32], bias: &[f32]) {
    for row in out.chunks_exact_mut(bias.len()) {
        for (x, &b) in row.iter_mut().zip(bias) {
            *x = sigmoid(*x + b);
        }
    }
}

/// s_i ← 1 if u_i < p_i else 0, with u_i = (r_i >> 8)·2⁻²⁴ (a 24-bit uniform on
/// [0, 1), exact in f32) from the 32-bit draws r_i: P(s_i = 1) = ⌈p_i·2²⁴⌉ / 2²⁴, within
/// 6·10⁻⁸ of p_i.
pub fn sample_below(probabilities: &[f32], draws: &[u32], out: &mut [f32]) {
    const SCALE: f32 = 1.0 / 16_777_216.0;
    for ((s, &p), &r) in out.iter_mut().zip(probabilities).zip(draws) {
        let u = (r >> 8) as f32 * SCALE;
        *s = if u < p { 1.0 } else { 0.0 };
    }
}

/// Column sums of a row-major matrix with `sums.len()` columns, scaled: out_j ← out_j·keep +
/// scale·Σ_r m_rj, summed in f64 in `sums` (the means of a batch) then rounded once.
pub fn add_column_sums(matrix: &[f32], sums: &mut [f64], scale: f64, keep: f32, out: &mut [f32]) {
    let columns = sums.len();
    sums.fill(0.0);
    for row in matrix.chunks_exact(columns) {
        for (s, &x) in sums.iter_mut().zip(row) {
            *s += f64::from(x);
        }
    }
    for (o, &s) in out.iter_mut().zip(sums.iter()) {
        *o = *o * keep + (scale * s) as f32;
    }
}
