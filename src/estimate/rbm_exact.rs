//! Exact ln Z and log-likelihood of a restricted machine by enumerating its smaller layer.
//!
//! Summing one layer out in closed form leaves a sum over the other:
//!
//!   Z = Σ_h e^{b·h} Π_i (1 + e^{a_i + (W h)_i})  = Σ_v e^{a·v} Π_j (1 + e^{b_j + (vW)_j}),
//!
//! so ln Z costs 2^n terms (n = min(V, H), at most [`MAX_EXACT_LAYER`] = 25) of
//! m = max(V, H) softplus each: 2^25 · 784 ≈ 2.6·10¹⁰ for a 784-25 machine.
//!
//! **The walk.** The 2^n states s of the smaller layer are split into a fixed number of
//! chunks ([`chunks`], 64 once n ≥ 6, whatever the number of threads). Inside a chunk the
//! states are visited in Gray-code order, g(k) = k ⊕ (k >> 1): one unit t flips per state
//! and the larger layer's inputs x = β + s M move by ±(row t of M), one add per unit, in
//! f64. The inputs are recomputed from scratch at the start of every chunk and every
//! [`REFRESH`] = 4096 states, so rounding cannot drift (at most 4096 f64 adds of error
//! ≤ 2^−53 |x| each: below 10⁻¹¹ for |x| < 10⁴).
//!
//! **The softplus sum** ([`softplus_sum`]): Σ_k ln(1 + e^{x_k}) = Σ_k max(x_k, 0) +
//! ln Π_k (1 + e^{−|x_k|}), all in f64. The factors 1 + e^{−|x|} ∈ (1, 2] come from
//! [`exp_neg`], a branch-free polynomial that vectorises (libm's exp and log1p do not),
//! and are multiplied in 8 lanes, 125 factors a lane per block (≤ 2^1000), with one
//! `libm::log` per block instead of one `log1p` per unit. Error, with u = 2^−53:
//!
//! - [`exp_neg`]'s relative error ε ≤ [`EXP_NEG_ERROR`] = 4u (checked in the unit tests
//!   over [0, 708]: Taylor truncation ≤ 2·10⁻¹⁶ plus rounding) moves ln(1 + y) by
//!   ≤ εy/(1 + y) ≤ ε/2; rounding 1 + y and the product's multiply add u each: per unit
//!   ≤ 4u ([`SOFTPLUS_ERROR_PER_UNIT`]);
//! - the additions (the Gray-code updates of x between refreshes, the lane sums, the
//!   linear term) are each off by at most u times the magnitudes they add.
//!
//! ln Σ_s e^{t_s} moves by at most max_s |Δt_s|, so [`error_bound`] bounds the error of
//! ln Z: about 10⁻⁹ nats for a 784-25 machine with weights of 0.1 (f32 factors, tried
//! first, gave 2·10⁻⁴ and were not faster once the inputs had to be converted). The
//! arithmetic is plain IEEE (no fused multiply-add, a fixed order of operations), so the
//! result is the same bit for bit with any SIMD width, in WebAssembly, and for any number
//! of threads: the chunks are summed in a fixed order by [`LogSumExp`].

use crate::error::ParamError;
use crate::log_sum_exp::{LogSumExp, log_sum_exp};
use crate::model::rbm::Rbm;

/// Most units the smaller layer may have for exact ln Z: 25 (2^25 ≈ 3.4·10⁷ terms).
pub const MAX_EXACT_LAYER: usize = 25;

/// States between recomputations of the inputs from scratch.
pub const REFRESH: u64 = 1 << 12;

/// log2 of the number of chunks the states are split into once n ≥ 6: 64 chunks.
const CHUNK_BITS: usize = 6;

/// Lanes of the softplus sums (two AVX2 vectors, one AVX-512 vector): [`softplus_sum`]
/// takes lengths that are multiples of it.
pub const LANES: usize = 8;

/// Units per product block: 125 per lane, so the block's product of factors in (1, 2]
/// stays below 2^1000 < f64::MAX.
const BLOCK: usize = LANES * 125;

/// Largest |x| whose e^{−|x|} [`exp_neg`] computes; beyond it 1 + e^{−|x|} rounds to 1.
const EXP_CLAMP: f64 = 708.0;

/// f64 rounding, u = 2^−53.
const U: f64 = f64::EPSILON / 2.0;

/// Bound on the relative error of [`exp_neg`] on [0, 708]: 4u (checked in the unit tests).
pub const EXP_NEG_ERROR: f64 = 4.0 * U;

/// Bound on the error of one unit's ln(1 + e^{−|x|}) in [`softplus_sum`]: ε/2 from
/// [`exp_neg`], u from rounding 1 + y, u from the product's multiply: 4u ≈ 4.4·10⁻¹⁶.
pub const SOFTPLUS_ERROR_PER_UNIT: f64 = 4.0 * U;

/// Bound on |ln Z computed − ln Z| (module notes): every term's exponent t_s = α·s +
/// Σ_k softplus(x_k) is off by at most m · 4u (the factors) plus u · (4096 + m/8 + n + 2)
/// · S, with S = Σ_k (|β_k| + Σ_t |M_tk|) ≥ Σ_k |x_k| + Σ_t |α_t| for every state (the
/// Gray-code updates of x between refreshes, the lane sums and the linear term, each
/// addition off by u times the magnitudes it adds), and ln Σ_s e^{t_s} moves by at most
/// max_s |Δt_s|.
pub fn error_bound(rbm: &Rbm) -> f64 {
    let (nv, nh) = (rbm.visible(), rbm.hidden());
    let (n, m) = (nv.min(nh), nv.max(nh));
    let magnitudes: f64 = rbm.weights().iter().map(|w| w.abs()).sum::<f64>()
        + rbm.visible_biases().iter().map(|a| a.abs()).sum::<f64>()
        + rbm.hidden_biases().iter().map(|b| b.abs()).sum::<f64>();
    let additions = REFRESH as f64 + (m / LANES) as f64 + n as f64 + 2.0;
    m as f64 * SOFTPLUS_ERROR_PER_UNIT + U * additions * magnitudes
}

/// Checks min(V, H) ≤ [`MAX_EXACT_LAYER`]; the error names `units` and the limit.
pub fn check_exact(rbm: &Rbm) -> Result<(), ParamError> {
    let smaller = rbm.visible().min(rbm.hidden());
    if smaller > MAX_EXACT_LAYER {
        return Err(ParamError::Invalid {
            field: "units",
            reason: format!(
                "exact ln Z enumerates the smaller layer, which may have at most \
                 {MAX_EXACT_LAYER} units, but this machine has {} visible and {} hidden \
                 units; use AIS instead",
                rbm.visible(),
                rbm.hidden()
            ),
        });
    }
    Ok(())
}

/// Exact ln Z of `rbm` (min(V, H) ≤ 25, else an error naming `units`), on every core
/// natively (one thread in WebAssembly). Cost O(2^{min(V, H)} · max(V, H)); the same
/// value bit for bit as [`log_z_threads`] with any thread count and as [`LogZSum`].
pub fn log_z(rbm: &Rbm) -> Result<f64, ParamError> {
    log_z_threads(rbm, available_threads())
}

/// The threads [`log_z`] uses: the machine's parallelism natively, 1 in WebAssembly.
pub fn available_threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
}

/// Exact ln Z of `rbm` with its fixed chunks shared among `threads` threads (at least 1;
/// WebAssembly always uses one): the chunks' sums are combined in chunk order, so the
/// value does not depend on `threads`.
pub fn log_z_threads(rbm: &Rbm, threads: usize) -> Result<f64, ParamError> {
    let layers = Layers::new(rbm)?;
    let count = chunks(layers.n);
    let sums = chunk_sums(&layers, count, threads.max(1));
    Ok(log_sum_exp(sums))
}

/// The machines of a label group's terms: for `rbm` whose last `labels` visible units are a
/// one-of-K label (the machine with labels, [`crate::model::rbm_labels`]), each label y's
/// (c_y, image machine), the image machine being W's and a's image part with hidden biases
/// b + U_y; then Z = Σ_y e^{c_y} Z_y. Error names `labels` unless 1 ≤ K < V.
pub fn label_terms(rbm: &Rbm, labels: usize) -> Result<Vec<(f64, Rbm)>, ParamError> {
    let (nv, nh) = (rbm.visible(), rbm.hidden());
    if labels == 0 || labels >= nv {
        return Err(ParamError::OutOfRange {
            field: "labels",
            value: labels as f64,
            min: 1.0,
            max: nv.saturating_sub(1) as f64,
        });
    }
    let image = nv - labels;
    (image..nv)
        .map(|y| {
            let hidden = rbm
                .hidden_biases()
                .iter()
                .zip(rbm.weight_row(y))
                .map(|(b, u)| b + u)
                .collect();
            let machine = Rbm::new(
                image,
                nh,
                rbm.weights()[..image * nh].to_vec(),
                rbm.visible_biases()[..image].to_vec(),
                hidden,
            )?;
            Ok((rbm.visible_biases()[y], machine))
        })
        .collect()
}

/// Exact ln Z = ln Σ_{v, y} e^{−F(v, y)} of `rbm` whose last `labels` visible units are a
/// one-of-K label group: Z = Σ_y e^{c_y} Z_y over [`label_terms`], each Z_y by
/// [`log_z_threads`] (the smaller layer at most [`MAX_EXACT_LAYER`] units). Error names
/// `labels` unless 1 ≤ K < V.
pub fn log_z_with_label_group(rbm: &Rbm, labels: usize, threads: usize) -> Result<f64, ParamError> {
    let mut sum = crate::log_sum_exp::LogSumExp::new();
    for (c, machine) in label_terms(rbm, labels)? {
        sum.push(c + log_z_threads(&machine, threads)?);
    }
    Ok(sum.value())
}

/// The number of chunks of 2^n states: 2^min(n, 6), fixed whatever the threads.
pub fn chunks(n: usize) -> u64 {
    1 << n.min(CHUNK_BITS)
}

/// ln Σ over each chunk's states, in chunk order, the chunks shared among `threads`.
#[cfg(not(target_arch = "wasm32"))]
fn chunk_sums(layers: &Layers, count: u64, threads: usize) -> Vec<f64> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let threads = threads.min(count as usize);
    if threads <= 1 {
        return (0..count).map(|c| layers.chunk_sum(c, count)).collect();
    }
    let next = AtomicU64::new(0);
    let mut sums = vec![f64::NAN; count as usize];
    let done: Vec<Vec<(u64, f64)>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let c = next.fetch_add(1, Ordering::Relaxed);
                        if c >= count {
                            break mine;
                        }
                        mine.push((c, layers.chunk_sum(c, count)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("a chunk thread panicked"))
            .collect()
    });
    for (c, sum) in done.into_iter().flatten() {
        sums[c as usize] = sum;
    }
    sums
}

/// WebAssembly: the chunks one after another.
#[cfg(target_arch = "wasm32")]
fn chunk_sums(layers: &Layers, count: u64, _threads: usize) -> Vec<f64> {
    (0..count).map(|c| layers.chunk_sum(c, count)).collect()
}

/// The machine laid out for the walk: the smaller layer (n units, biases α) enumerated,
/// the larger (m units, biases β) summed out through the coupling M (n × m, row t the
/// weights of small unit t), the larger layer padded to a multiple of 8 units with
/// bias −10⁴ and no weights (each pad's factor 1 + e^{−708} rounds to 1).
#[derive(Debug, Clone, PartialEq)]
struct Layers {
    n: usize,
    padded: usize,
    small_bias: Vec<f64>,
    large_bias: Vec<f64>,
    coupling: Vec<f64>,
}

/// The input of a padding unit: its factor 1 + e^{−708} is 1 in f64 and max(x, 0) = 0,
/// so it adds exactly nothing to [`softplus_sum`].
pub const PAD_BIAS: f64 = -1e4;

impl Layers {
    fn new(rbm: &Rbm) -> Result<Layers, ParamError> {
        check_exact(rbm)?;
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        let small_is_hidden = nh <= nv;
        let (n, m) = if small_is_hidden { (nh, nv) } else { (nv, nh) };
        let padded = m.div_ceil(LANES).max(1) * LANES;
        let mut coupling = vec![0.0; n * padded];
        for t in 0..n {
            for k in 0..m {
                coupling[t * padded + k] = if small_is_hidden {
                    rbm.weight(k, t)
                } else {
                    rbm.weight(t, k)
                };
            }
        }
        let (small, large) = if small_is_hidden {
            (rbm.hidden_biases(), rbm.visible_biases())
        } else {
            (rbm.visible_biases(), rbm.hidden_biases())
        };
        let mut large_bias = large.to_vec();
        large_bias.resize(padded, PAD_BIAS);
        Ok(Layers {
            n,
            padded,
            small_bias: small.to_vec(),
            large_bias,
            coupling,
        })
    }

    fn row(&self, t: usize) -> &[f64] {
        &self.coupling[t * self.padded..(t + 1) * self.padded]
    }

    /// The 2^n states.
    fn states(&self) -> u64 {
        1 << self.n
    }

    /// The first state of chunk `c` of `count`.
    fn chunk_start(&self, c: u64, count: u64) -> u64 {
        c * (self.states() / count)
    }

    /// ln Σ of the terms of chunk `c` of `count`, by one [`Walk`].
    fn chunk_sum(&self, c: u64, count: u64) -> f64 {
        let mut walk = Walk::new(self);
        let mut sum = LogSumExp::new();
        let (start, end) = (self.chunk_start(c, count), self.chunk_start(c + 1, count));
        visit(&mut walk, self, start, end, &mut sum, true);
        sum.value()
    }
}

/// Where a walk stands: the Gray-code state g(k) of the smaller layer as bits, the
/// larger layer's inputs x = β + s M and α·s, for the last state visited.
#[derive(Debug, Clone, PartialEq)]
struct Walk {
    bits: u64,
    input: Vec<f64>,
    linear: f64,
    /// Scratch for [`softplus_sum`].
    factors: Vec<f64>,
}

impl Walk {
    fn new(layers: &Layers) -> Walk {
        Walk {
            bits: 0,
            input: layers.large_bias.clone(),
            linear: 0.0,
            factors: vec![0.0; layers.padded],
        }
    }

    /// Sets the walk to the state g(k) = k ⊕ (k >> 1), its inputs from scratch.
    fn reset(&mut self, layers: &Layers, k: u64) {
        self.bits = k ^ (k >> 1);
        self.input.copy_from_slice(&layers.large_bias);
        self.linear = 0.0;
        for t in (0..layers.n).filter(|t| self.bits >> t & 1 == 1) {
            self.linear += layers.small_bias[t];
            add_row(&mut self.input, layers.row(t), 1.0);
        }
    }

    /// Visits states k in `start..end` (Gray-code order), pushing each term α·s +
    /// Σ softplus(x) into `sum`. The walk must stand at state start − 1, unless `fresh`
    /// (start is a chunk's first state, where the inputs are computed from scratch).
    #[inline(always)]
    fn visit(&mut self, layers: &Layers, start: u64, end: u64, sum: &mut LogSumExp, fresh: bool) {
        for k in start..end {
            if (fresh && k == start) || k % REFRESH == 0 {
                self.reset(layers, k);
            } else {
                let t = k.trailing_zeros() as usize;
                self.bits ^= 1 << t;
                let sign = if self.bits >> t & 1 == 1 { 1.0 } else { -1.0 };
                self.linear += sign * layers.small_bias[t];
                add_row(&mut self.input, layers.row(t), sign);
            }
            sum.push(self.linear + softplus_sum(&self.input, &mut self.factors));
        }
    }
}

/// [`Walk::visit`], compiled for AVX-512F or AVX2 when the processor has them (x86-64):
/// the same IEEE operations in the same order on wider vectors, so the same result bit
/// for bit.
fn visit(walk: &mut Walk, layers: &Layers, start: u64, end: u64, sum: &mut LogSumExp, fresh: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor has AVX-512F (checked just above).
            unsafe { visit_avx512(walk, layers, start, end, sum, fresh) };
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above).
            unsafe { visit_avx2(walk, layers, start, end, sum, fresh) };
            return;
        }
    }
    walk.visit(layers, start, end, sum, fresh);
}

/// [`Walk::visit`] with AVX2 enabled (unsafe to call without it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn visit_avx2(
    walk: &mut Walk,
    layers: &Layers,
    start: u64,
    end: u64,
    sum: &mut LogSumExp,
    fresh: bool,
) {
    walk.visit(layers, start, end, sum, fresh);
}

/// [`Walk::visit`] with AVX-512F enabled (unsafe to call without it).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn visit_avx512(
    walk: &mut Walk,
    layers: &Layers,
    start: u64,
    end: u64,
    sum: &mut LogSumExp,
    fresh: bool,
) {
    walk.visit(layers, start, end, sum, fresh);
}

/// x ← x + sign · row (sign ±1, so the product is exact).
#[inline(always)]
fn add_row(x: &mut [f64], row: &[f64], sign: f64) {
    for (xi, &w) in x.iter_mut().zip(row) {
        *xi += sign * w;
    }
}

/// Σ_k ln(1 + e^{x_k}) = Σ_k max(x_k, 0) + ln Π_k (1 + e^{−|x_k|}) for x of a length that
/// is a multiple of 8 (`scratch` as long): the max summed in 8 lanes, the factors
/// 1 + e^{−|x_k|} ∈ (1, 2] by [`exp_neg`] (a simple loop that vectorises), multiplied in
/// 8 lanes of at most 125 factors each per block (the block's product ≤ 2^1000), and one
/// `libm::log` per block (module notes for the error).
#[inline(always)]
pub fn softplus_sum(x: &[f64], scratch: &mut [f64]) -> f64 {
    debug_assert!(x.len().is_multiple_of(LANES) && scratch.len() == x.len());
    let mut total = 0.0;
    for (block, factors) in x.chunks(BLOCK).zip(scratch.chunks_mut(BLOCK)) {
        let mut positive = [0.0f64; LANES];
        for group in block.chunks_exact(LANES) {
            for lane in 0..LANES {
                positive[lane] += group[lane].max(0.0);
            }
        }
        for (f, &v) in factors.iter_mut().zip(block) {
            *f = 1.0 + exp_neg(v.abs().min(EXP_CLAMP));
        }
        let mut product = [1.0f64; LANES];
        for group in factors.chunks_exact(LANES) {
            for lane in 0..LANES {
                product[lane] *= group[lane];
            }
        }
        let lanes = product.iter().product::<f64>();
        total += positive.iter().sum::<f64>() + libm::log(lanes);
    }
    total
}

/// e^{−a} for 0 ≤ a ≤ 708, branch-free: −a·log₂e = n + f with n the nearest integer (by
/// the 1.5·2^52 rounding trick), r = −a − n ln 2 (Cody–Waite, ln 2 in two parts, the
/// first with 32 trailing zero bits so n·ln2_hi is exact), e^r by its Taylor polynomial
/// of degree 12 on |r| ≤ ln2/2 (truncation ≤ 2·10⁻¹⁶), times 2^n built in the exponent
/// bits. Relative error ≤ [`EXP_NEG_ERROR`].
#[inline(always)]
pub fn exp_neg(a: f64) -> f64 {
    const LOG2_E: f64 = core::f64::consts::LOG2_E;
    // fdlibm's split of ln 2: 0.693147180369123816490 (32 trailing zero bits) and
    // 1.90821492927058770002e-10.
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76);
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5 · 2^52
    let shifted = -a * LOG2_E + MAGIC;
    let n = shifted - MAGIC;
    let r = (-a - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.0 / 479_001_600.0; // 1/12!
    for k in (1..12).rev() {
        p = p * r + INVERSE_FACTORIALS[k];
    }
    p = p * r + 1.0;
    // Wrapping integer arithmetic (the values never wrap) keeps overflow checks, which
    // would stop the loop from vectorising, out of builds that have them.
    let exponent = shifted.to_bits().wrapping_sub(MAGIC.to_bits());
    p * f64::from_bits(exponent.wrapping_add(1023) << 52)
}

/// 1/k! for k = 0 … 11.
const INVERSE_FACTORIALS: [f64; 12] = [
    1.0,
    1.0,
    1.0 / 2.0,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5_040.0,
    1.0 / 40_320.0,
    1.0 / 362_880.0,
    1.0 / 3_628_800.0,
    1.0 / 39_916_800.0,
];

/// The sum of [`log_z`] done a slice of states at a time, so that a front end can spread
/// it over frames: ln Σ_s e^{α·s} Π_k (1 + e^{β_k + (s M)_k}) over the 2^n states s of the
/// smaller layer (module notes). It holds its own copy of the machine's parameters, so
/// the machine may change while the sum is under way; the states are visited chunk by
/// chunk with the same arithmetic as [`log_z`], so the value is the same bit for bit
/// however it is sliced and however many threads [`log_z`] used.
#[derive(Debug, Clone, PartialEq)]
pub struct LogZSum {
    layers: Layers,
    walk: Walk,
    step: u64,
    chunk: LogSumExp,
    chunk_sums: Vec<f64>,
}

impl LogZSum {
    /// The sum for `rbm` (min(V, H) ≤ 25, else an error naming `units`), none done yet.
    pub fn new(rbm: &Rbm) -> Result<LogZSum, ParamError> {
        let layers = Layers::new(rbm)?;
        Ok(LogZSum {
            walk: Walk::new(&layers),
            layers,
            step: 0,
            chunk: LogSumExp::new(),
            chunk_sums: Vec::new(),
        })
    }

    /// The states to visit, 2^n.
    pub fn states(&self) -> u64 {
        self.layers.states()
    }

    /// The states visited so far.
    pub fn done(&self) -> u64 {
        self.step
    }

    /// Visits up to `states` more states; returns whether the sum is complete.
    pub fn advance(&mut self, states: u64) -> bool {
        let count = chunks(self.layers.n);
        let end = self.step.saturating_add(states).min(self.states());
        let per_chunk = self.states() / count;
        while self.step < end {
            let chunk_end = (self.step / per_chunk + 1) * per_chunk;
            let stop = chunk_end.min(end);
            let fresh = self.step.is_multiple_of(per_chunk);
            visit(
                &mut self.walk,
                &self.layers,
                self.step,
                stop,
                &mut self.chunk,
                fresh,
            );
            self.step = stop;
            if stop == chunk_end {
                self.chunk_sums.push(self.chunk.value());
                self.chunk = LogSumExp::new();
            }
        }
        self.step == self.states()
    }

    /// ln Z once every state is visited, else `None`.
    pub fn value(&self) -> Option<f64> {
        (self.step == self.states()).then(|| log_sum_exp(self.chunk_sums.iter().copied()))
    }
}

/// The mean free energy (1/N) Σ_d F(v⁽ᵈ⁾) of `patterns` (each checked: V values 0/1;
/// errors name `patterns`).
pub fn mean_free_energy(rbm: &Rbm, patterns: &[Vec<u8>]) -> Result<f64, ParamError> {
    crate::model::patterns::check_patterns(patterns, rbm.visible())?;
    let mut scratch = vec![0.0; rbm.hidden()];
    let total: f64 = patterns
        .iter()
        .map(|v| rbm.free_energy_with(v, &mut scratch))
        .sum();
    Ok(total / patterns.len() as f64)
}

/// The mean log-likelihood (1/N) Σ_d ln p(v⁽ᵈ⁾) = −(1/N) Σ_d F(v⁽ᵈ⁾) − ln Z, in nats per
/// vector, exact (min(V, H) ≤ 25). For several sets, compute [`log_z`] once and use
/// [`mean_free_energy`].
pub fn mean_log_likelihood(rbm: &Rbm, patterns: &[Vec<u8>]) -> Result<f64, ParamError> {
    let log_z = log_z(rbm)?;
    Ok(-mean_free_energy(rbm, patterns)? - log_z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_neg_is_within_its_error_bound_of_libm_on_0_to_708() {
        // A dense grid over [0, 708] and over [0, 1): the relative error against libm's
        // exp, itself correctly rounded to within 1 ulp here.
        let mut worst: f64 = 0.0;
        let mut check = |a: f64| {
            let exact = libm::exp(-a);
            worst = worst.max(((exp_neg(a) - exact) / exact).abs());
        };
        for k in 0..=(708 << 12) {
            check(k as f64 / 4096.0 + 1.0 / 8192.0 * (k % 3) as f64);
        }
        for k in 0..1_000_000 {
            check(k as f64 * 1e-6);
        }
        eprintln!("exp_neg: worst relative error {worst:e} (u = {U:e})");
        assert!(worst <= EXP_NEG_ERROR, "worst relative error {worst:e}");
    }

    #[test]
    fn softplus_sum_is_within_its_bound_of_libm_softplus() {
        use crate::model::rbm::softplus;
        let x: Vec<f64> = (0..2000)
            .map(|k| ((k * 7919) % 4001) as f64 / 40.0 - 50.0)
            .collect();
        let fast = softplus_sum(&x, &mut vec![0.0; x.len()]);
        let exact: f64 = x.iter().map(|&v| softplus(v)).sum();
        let magnitudes: f64 = x.iter().map(|v| v.abs()).sum();
        let bound = SOFTPLUS_ERROR_PER_UNIT * x.len() as f64
            + U * (x.len() / LANES + 2) as f64 * magnitudes;
        assert!((fast - exact).abs() <= bound, "{fast} vs {exact}");
    }

    #[test]
    fn the_wide_vector_path_equals_the_baseline_bit_for_bit() {
        // visit() takes AVX2 where the processor has it; Walk::visit called here is
        // compiled for the baseline target. Same operations, same order: same bits.
        let rbm = Rbm::random(50, 11, 1.5, 4).unwrap();
        let layers = Layers::new(&rbm).unwrap();
        let (mut fast, mut base) = (LogSumExp::new(), LogSumExp::new());
        visit(&mut Walk::new(&layers), &layers, 0, 2048, &mut fast, true);
        Walk::new(&layers).visit(&layers, 0, 2048, &mut base, true);
        assert_eq!(fast.value().to_bits(), base.value().to_bits());
    }

    #[test]
    fn the_sum_in_slices_equals_the_threaded_sum_bit_for_bit() {
        let (nv, nh) = (21, 9);
        let weights: Vec<f64> = (0..nv * nh)
            .map(|k| ((k * 37) % 101) as f64 / 50.0 - 1.0)
            .collect();
        let a: Vec<f64> = (0..nv).map(|i| (i % 5) as f64 * 0.3 - 0.6).collect();
        let b: Vec<f64> = (0..nh).map(|j| (j % 3) as f64 * 0.4 - 0.4).collect();
        let rbm = Rbm::new(nv, nh, weights, a, b).unwrap();
        let whole = log_z_threads(&rbm, 1).unwrap();
        assert_eq!(log_z_threads(&rbm, 3).unwrap().to_bits(), whole.to_bits());
        for slice in [1, 5, 8, 1000] {
            let mut sum = LogZSum::new(&rbm).unwrap();
            while !sum.advance(slice) {
                assert!(sum.value().is_none());
            }
            assert_eq!(sum.value().unwrap().to_bits(), whole.to_bits(), "{slice}");
        }
    }
}
