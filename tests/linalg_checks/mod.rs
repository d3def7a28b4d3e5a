//! Checks shared by the native (tests/linalg.rs, tests/batch_threads.rs) and wasm
//! (tests/web_linalg.rs) tests of the dense products and the batch trainer: each compares
//! with an f64 computation within a proven rounding bound, so none fails by chance. Also
//! the one definition of the measured MNIST-sized update (784-500 CD-1, batch 100) and its
//! products, which benches/rbm_products.rs and tests/web_linalg.rs time.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]
#![allow(dead_code)]

use boltzlab::learn::rbm::{BatchTrainer, RateSchedule, Rbm, Statistics, TrainingOptions};
use boltzlab::linalg::{Kernel, Layout, Product, multiply_with, rounding_bound};
use boltzlab::rng::seeded_rng;
use rand::Rng;

/// The four layout pairs of (A, B).
pub const LAYOUTS: [(Layout, Layout); 4] = [
    (Layout::AsStored, Layout::AsStored),
    (Layout::Transposed, Layout::AsStored),
    (Layout::AsStored, Layout::Transposed),
    (Layout::Transposed, Layout::Transposed),
];

/// Options for the tests' trainers: rate 0.1, momentum 0.5, weight decay 0.001.
pub fn options(statistics: Statistics, batch: usize, seed: u64) -> TrainingOptions {
    TrainingOptions {
        statistics,
        batch,
        rate: 0.1,
        schedule: RateSchedule::Constant,
        momentum: 0.5,
        weight_decay: 0.001,
        seed,
    }
}

/// The measured update and its random images are the library's (one definition for the
/// native bench, the bench page and these tests). Not every test file that includes this
/// module uses them.
#[allow(unused_imports)]
pub use boltzlab::learn::rbm::batch::measured::{mnist_sized_trainer, random_patterns};

/// The three kinds of product of that update (B = 100, V = 784, H = 500): V·W (NN; also
/// X·W), H·Wᵀ (NT) and Vᵀ·P (TN; twice, the second accumulating), with names.
pub fn mnist_sized_products() -> [(&'static str, Product); 3] {
    let (b, v, h) = (100, 784, 500);
    [
        (
            "V·W (100×784 · 784×500, NN)",
            Product::new(b, v, h, Layout::AsStored, Layout::AsStored),
        ),
        (
            "H·Wᵀ (100×500 · 500×784, NT)",
            Product::new(b, h, v, Layout::AsStored, Layout::Transposed),
        ),
        (
            "Vᵀ·P (784×100 · 100×500, TN)",
            Product::new(v, b, h, Layout::Transposed, Layout::AsStored),
        ),
    ]
}

/// The median, min and max of `times` (sorted in place; the median of an even count is
/// the mean of the middle two).
pub fn summary(times: &mut [f64]) -> (f64, f64, f64) {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    let median = if n % 2 == 1 {
        times[n / 2]
    } else {
        (times[n / 2 - 1] + times[n / 2]) / 2.0
    };
    (median, times[0], times[n - 1])
}

/// Uniform f32 values in [−1, 1) (24-bit grid).
pub fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = seeded_rng(seed);
    (0..n)
        .map(|_| (rng.next_u32() >> 8) as f32 / 8_388_608.0 - 1.0)
        .collect()
}

/// (op(A)_ip, op(B)_pj) read from the stored matrices as the product says.
fn op_a(a: &[f32], p: &Product, i: usize, q: usize) -> f64 {
    f64::from(match p.a {
        Layout::AsStored => a[i * p.k + q],
        Layout::Transposed => a[q * p.m + i],
    })
}
fn op_b(b: &[f32], p: &Product, q: usize, j: usize) -> f64 {
    f64::from(match p.b {
        Layout::AsStored => b[q * p.n + j],
        Layout::Transposed => b[j * p.k + q],
    })
}

/// Checks C from `kernel` against the f64 product entry by entry: |ĉ − c| ≤ γ_{k+2}·(|α|
/// Σ|a||b| + |β||c₀|) ([`rounding_bound`]; a proven bound, so the test has no false
/// failures). The f64 reference itself errs by at most k·2⁻⁵³ relative, 2²⁹ times less.
pub fn check_product(kernel: Kernel, threads: usize, product: Product, seed: u64) {
    let Product { m, k, n, .. } = product;
    let a = values(m * k, seed);
    let b = values(k * n, seed + 1);
    let c0 = values(m * n, seed + 2);
    let mut c = c0.clone();
    multiply_with(kernel, &mut c, &a, &b, &product, threads);
    let (alpha, beta) = (f64::from(product.alpha), f64::from(product.beta));
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let (mut exact, mut magnitude) = (0.0, 0.0);
            for q in 0..k {
                let t = op_a(&a, &product, i, q) * op_b(&b, &product, q, j);
                exact += t;
                magnitude += t.abs();
            }
            let old = f64::from(c0[i * n + j]);
            let exact = alpha * exact + beta * old;
            let magnitude = alpha.abs() * magnitude + beta.abs() * old.abs();
            let error = (f64::from(c[i * n + j]) - exact).abs();
            let bound = rounding_bound(k, magnitude);
            assert!(
                error <= bound,
                "{kernel:?} {threads} thr {product:?}: C[{i}][{j}] off by {error:e} > {bound:e}"
            );
            worst = worst.max(error / bound.max(f64::MIN_POSITIVE));
        }
    }
    assert!(worst <= 1.0);
}

/// p(h_j = 1 | x) = σ(b_j + Σ_i x_i W_ij) in f64, and the bound on its f32 value's error:
/// the input's |Δc| ≤ γ_{V+2}(Σ|x_i W_ij| + |b_j|) moves σ by at most |Δc|/4 (σ' ≤ ¼),
/// and the f32 σ adds at most 3 ulp of σ ≤ 1 (3·2⁻²³).
fn hidden_probability(rbm: &Rbm, x: &[f32], j: usize) -> (f64, f64) {
    let b = rbm.hidden_biases()[j];
    let (mut c, mut magnitude) = (b, b.abs());
    for (i, &xi) in x.iter().enumerate() {
        c += f64::from(xi) * rbm.weight(i, j);
        magnitude += (f64::from(xi) * rbm.weight(i, j)).abs();
    }
    let p = 1.0 / (1.0 + (-c).exp());
    (
        p,
        rounding_bound(x.len(), magnitude) / 4.0 + 3.0 * f64::from(f32::EPSILON),
    )
}

/// The gradient of the last batch and chains, computed directly in f64 from the states
/// the trainer reports, entry by entry against the trainer's f32 gradient. Bound per
/// entry: each phase's mean (1/n)Σ_d x_di p_dj errs by the p's error (≤ its largest
/// bound) plus the f32 product's rounding γ_{n+2}·(1/n)Σ|x p| (+ γ_2 of the sum of the
/// phases). A proven bound: no false failures.
pub fn check_gradient(trainer: &BatchTrainer, rbm: &Rbm, rows: usize, chains: usize) {
    let (nv, nh) = (rbm.visible(), rbm.hidden());
    let (gw, ga, gb) = trainer.gradient();
    let v0 = &trainer.batch_visible()[..rows * nv];
    let x = &trainer.chain_visible()[..chains * nv];
    let phase = |states: &[f32], n: usize| {
        let mut w = vec![(0.0, 0.0, 0.0); nv * nh];
        let mut hid = vec![(0.0, 0.0); nh];
        for d in 0..n {
            let s = &states[d * nv..(d + 1) * nv];
            for j in 0..nh {
                let (p, dp) = hidden_probability(rbm, s, j);
                hid[j].0 += p / n as f64;
                hid[j].1 = f64::max(hid[j].1, dp);
                for i in 0..nv {
                    let xi = f64::from(s[i]);
                    let e = &mut w[i * nh + j];
                    e.0 += xi * p / n as f64;
                    e.1 += xi * p / n as f64;
                    e.2 = f64::max(e.2, xi * dp);
                }
            }
        }
        let vis: Vec<f64> = (0..nv)
            .map(|i| (0..n).map(|d| f64::from(states[d * nv + i])).sum::<f64>() / n as f64)
            .collect();
        (w, vis, hid)
    };
    let (pw, pa, pb) = phase(v0, rows);
    let (nw, na, nb) = phase(x, chains);
    let gamma = |n: usize| rounding_bound(n, 1.0);
    for k in 0..nv * nh {
        let exact = pw[k].0 - nw[k].0;
        let bound = pw[k].2
            + nw[k].2
            + gamma(rows) * pw[k].1
            + gamma(chains) * nw[k].1
            + gamma(2) * (pw[k].1 + nw[k].1);
        let error = (f64::from(gw[k]) - exact).abs();
        assert!(
            error <= bound,
            "g_W[{k}] = {} vs {exact}: {error:e} > {bound:e}",
            gw[k]
        );
    }
    for i in 0..nv {
        // Means of 0/1 values summed in f64 and rounded once: half an ulp of each phase.
        let exact = pa[i] - na[i];
        let error = (f64::from(ga[i]) - exact).abs();
        assert!(
            error <= 4.0 * f64::from(f32::EPSILON),
            "g_a[{i}]: {error:e}"
        );
    }
    for j in 0..nh {
        let exact = pb[j].0 - nb[j].0;
        let bound = pb[j].1 + nb[j].1 + 4.0 * f64::from(f32::EPSILON);
        let error = (f64::from(gb[j]) - exact).abs();
        assert!(error <= bound, "g_b[{j}]: {error:e} > {bound:e}");
    }
}

/// The inputs of the f64 e^x checks: the special values, libm's thresholds (in x and in
/// the high word of |x|) and their neighbours, a dense sweep of [−750, 712], and random bit
/// patterns of every exponent.
pub fn exp64_inputs() -> Vec<f64> {
    let mut xs = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        5e-324,
        -5e-324,
        709.782_712_893_384,
        -708.396_418_532_264_1,
        -745.133_219_101_941_1,
    ];
    let high_words = [0x3ff0_a2b2_u64, 0x3fd6_2e42, 0x3e30_0000, 0x4086_232b];
    for hw in high_words {
        for low in [0u64, 1, 0xffff_ffff] {
            for sign in [0u64, 1 << 63] {
                let x = f64::from_bits(sign | hw << 32 | low);
                xs.extend([
                    x,
                    f64::from_bits(x.to_bits() - 1),
                    f64::from_bits(x.to_bits() + 1),
                ]);
            }
        }
    }
    for &t in &xs.clone() {
        if t.is_finite() && t != 0.0 {
            xs.extend((1..=4).flat_map(|d| {
                [
                    f64::from_bits(t.to_bits() - d),
                    f64::from_bits(t.to_bits() + d),
                ]
            }));
        }
    }
    xs.extend((0..1_000_000).map(|i| -750.0 + 1462.0 * (i as f64 + 0.5) / 1e6));
    let mut rng = seeded_rng(64);
    xs.extend((0..1_000_000).map(|_| f64::from_bits(rng.next_u64())));
    // Every exponent from 2⁻⁶⁰ to 2¹⁰, either sign, random mantissas.
    for e in (1023 - 60)..=(1023 + 10) {
        for _ in 0..2_000 {
            let sign = rng.next_u64() & (1 << 63);
            xs.push(f64::from_bits(sign | (e << 52) | (rng.next_u64() >> 12)));
        }
    }
    xs
}

/// Equal bits, or both NaN.
pub fn same_bits(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// [`boltzlab::linalg::exp64::exp`] has `libm::exp`'s bits on every one of `xs`, one value
/// at a time, and σ over the whole slice (the loops the compiler vectorises) has the bits of
/// the scalar σ the rest of the engine uses, at β = 1 and β ≠ 1.
pub fn check_exp64(xs: &[f64]) {
    use boltzlab::linalg::exp64;
    for &x in xs {
        let (got, want) = (exp64::exp(x), libm::exp(x));
        assert!(
            same_bits(got, want),
            "e^{x:e} ({:#018x}): {got:e}, libm {want:e}",
            x.to_bits()
        );
    }
    let mut ys = xs.to_vec();
    exp64::sigmoid_in_place(&mut ys);
    for (&x, &y) in xs.iter().zip(&ys) {
        let want = boltzlab::model::rbm::sigmoid(x);
        assert!(same_bits(y, want), "σ({x:e}): {y:e}, scalar {want:e}");
    }
    let beta = 0.37;
    let mut ys = xs.to_vec();
    exp64::sigmoid_scaled_in_place(&mut ys, beta);
    for (&x, &y) in xs.iter().zip(&ys) {
        let want = boltzlab::model::rbm::sigmoid(beta * x);
        assert!(
            same_bits(y, want),
            "σ({beta}·{x:e}): {y:e}, scalar {want:e}"
        );
    }
}
