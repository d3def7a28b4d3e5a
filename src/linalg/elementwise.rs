//! Elementwise f32 work of batch learning, written as plain loops over slices that the
//! compiler turns into SIMD (AVX2/AVX-512 natively, SIMD128 in wasm).
//!
//! Every function is IEEE f32 arithmetic only (no fused multiply-add, no library call), so
//! it gives the same bits natively and in wasm, and at every SIMD width: std's `f32::exp`
//! is not promised to. Natively the slice loops are compiled three times (baseline SSE2,
//! AVX2, AVX-512) and the widest the processor has is picked at run time ([`Level`]); the
//! tests run each level and compare the bits.

/// A native SIMD level the slice loops are compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// The target's baseline (SSE2 on x86-64; SIMD128 in wasm).
    Baseline,
    /// AVX2 (8 f32 lanes).
    Avx2,
    /// AVX-512F (16 f32 lanes).
    Avx512,
}

/// The levels this processor can run, baseline first.
pub fn levels() -> Vec<Level> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut out = vec![Level::Baseline];
        if std::arch::is_x86_feature_detected!("avx2") {
            out.push(Level::Avx2);
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            out.push(Level::Avx512);
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        vec![Level::Baseline]
    }
}

/// The widest level this processor runs (detected once).
pub fn best_level() -> Level {
    static BEST: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
    *BEST.get_or_init(|| *levels().last().expect("the baseline is always there"))
}

/// Defines `pub fn $name(args)` running `$body` at [`best_level`] and
/// `pub fn $at(level, args)` running it at a chosen level (panics if the processor lacks
/// it).
macro_rules! at_every_level {
    ($(#[$doc:meta])* fn $name:ident / $at:ident ($($arg:ident : $ty:ty),*) $body:block) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) {
            $at(best_level(), $($arg),*)
        }

        #[doc = concat!("[`", stringify!($name), "`] at a chosen SIMD level (the tests force each).")]
        pub fn $at(level: Level, $($arg: $ty),*) {
            #[inline(always)]
            fn body($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) { body($($arg),*) }
                #[target_feature(enable = "avx512f")]
                fn avx512($($arg: $ty),*) { body($($arg),*) }
                match level {
                    Level::Baseline => body($($arg),*),
                    Level::Avx2 => {
                        assert!(std::arch::is_x86_feature_detected!("avx2"));
                        // SAFETY: the processor has AVX2 (checked just above).
                        unsafe { avx2($($arg),*) }
                    }
                    Level::Avx512 => {
                        assert!(std::arch::is_x86_feature_detected!("avx512f"));
                        // SAFETY: the processor has AVX-512F (checked just above).
                        unsafe { avx512($($arg),*) }
                    }
                }
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                let _ = level;
                body($($arg),*)
            }
        }
    };
}

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

at_every_level! {
    /// out_j ← σ(out_j + bias_j) for every row of `out` (rows of bias.len() values): the
    /// conditional probabilities of a layer from its inputs.
    fn add_bias_sigmoid / add_bias_sigmoid_at(out: &mut [f32], bias: &[f32]) {
        for row in out.chunks_exact_mut(bias.len()) {
            for (x, &b) in row.iter_mut().zip(bias) {
                *x = sigmoid(*x + b);
            }
        }
    }
}

at_every_level! {
    /// out_j ← σ(β (out_j + bias_j)) for every row of `out` (rows of bias.len() values): a
    /// layer's conditional probabilities at inverse temperature β (a tempered replica).
    fn add_bias_sigmoid_scaled / add_bias_sigmoid_scaled_at(out: &mut [f32], bias: &[f32], beta: f32) {
        for row in out.chunks_exact_mut(bias.len()) {
            for (x, &b) in row.iter_mut().zip(bias) {
                *x = sigmoid(beta * (*x + b));
            }
        }
    }
}

at_every_level! {
    /// out_j ← σ(β u_j) from the inputs u (the same length): the probabilities of inputs
    /// kept, at inverse temperature β (β = 1 gives σ(u_j)'s bits).
    fn scaled_sigmoid / scaled_sigmoid_at(inputs: &[f32], beta: f32, out: &mut [f32]) {
        for (x, &u) in out.iter_mut().zip(inputs) {
            *x = sigmoid(beta * u);
        }
    }
}

at_every_level! {
    /// s_i ← 1 if u_i < p_i else 0, with u_i = (r_i >> 8)·2⁻²⁴ (a 24-bit uniform on
    /// [0, 1), exact in f32) from the 32-bit draws r_i: P(s_i = 1) = ⌈p_i·2²⁴⌉ / 2²⁴,
    /// within 6·10⁻⁸ of p_i.
    fn sample_below / sample_below_at(probabilities: &[f32], draws: &[u32], out: &mut [f32]) {
        const SCALE: f32 = 1.0 / 16_777_216.0;
        for ((s, &p), &r) in out.iter_mut().zip(probabilities).zip(draws) {
            let u = (r >> 8) as f32 * SCALE;
            *s = if u < p { 1.0 } else { 0.0 };
        }
    }
}

at_every_level! {
    /// The momentum step u ← μ u + ε (g − λ w) into `step` (the new u), and whether every
    /// w + u is finite with |w + u| ≤ `limit` (written to `ok[0]`), for the all-or-nothing
    /// update: nothing is changed here.
    fn momentum_step / momentum_step_at(
        weights: &[f32],
        gradient: &[f32],
        velocity: &[f32],
        step: &mut [f32],
        scalars: [f32; 4],
        ok: &mut [bool; 1]
    ) {
        let [momentum, rate, decay, limit] = scalars;
        let mut all = true;
        for (((s, &w), &g), &u) in step.iter_mut().zip(weights).zip(gradient).zip(velocity) {
            *s = momentum * u + rate * (g - decay * w);
            // NaN fails the comparison, so non-finite values are caught too.
            all &= (w + *s).abs() <= limit;
        }
        ok[0] = all;
    }
}

at_every_level! {
    /// w ← w + u and the velocity ← u, from the `step` of [`momentum_step`].
    fn apply_step / apply_step_at(weights: &mut [f32], velocity: &mut [f32], step: &[f32]) {
        for ((w, u), &s) in weights.iter_mut().zip(velocity.iter_mut()).zip(step) {
            *u = s;
            *w += s;
        }
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
