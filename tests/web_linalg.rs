//! The dense products and the f32 batch trainer in WebAssembly (headless Chromium through
//! wasm-bindgen-test): the same laws as natively (tests/linalg.rs), against f64
//! computations within proven rounding bounds, and the time of one 784-500 CD-1 update on
//! a batch of 100 (printed, never asserted).
//!
//!   CHROMEDRIVER=/usr/bin/chromedriver cargo test --release --target wasm32-unknown-unknown \
//!     --no-default-features --test web_linalg
#![cfg(target_arch = "wasm32")]
// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod linalg_checks;
mod shard_checks;

use boltzlab::learn::rbm::{BatchTrainer, Rbm, Statistics};
use boltzlab::linalg::elementwise::{exp, sigmoid};
use boltzlab::linalg::{
    Kernel, LARGE_PRODUCT_KERNEL, Layout, Product, multiply, multiply_indicator, multiply_with,
};
use linalg_checks::{
    LAYOUTS, check_gradient, check_product, mnist_sized_products, mnist_sized_trainer, options,
    random_patterns, summary, values,
};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn exp64_has_libms_bits_in_wasm_one_value_at_a_time_and_over_a_slice() {
    linalg_checks::check_exp64(&linalg_checks::exp64_inputs());
}

#[wasm_bindgen_test]
fn every_wasm_kernel_agrees_with_an_f64_product_within_the_rounding_bound() {
    let mut seed = 100;
    for (m, k, n) in [(1, 1, 1), (3, 5, 7), (97, 131, 33)] {
        for (a, b) in LAYOUTS {
            for (alpha, beta) in [(1.0, 0.0), (-0.01, 1.0)] {
                for kernel in [Kernel::Reference, Kernel::Fast, Kernel::Simd128] {
                    check_product(
                        kernel,
                        1,
                        Product::new(m, k, n, a, b).scaled(alpha, beta),
                        seed,
                    );
                    seed += 3;
                }
            }
        }
    }
    // One product of the 784-500 update's shape.
    check_product(
        Kernel::Fast,
        1,
        Product::new(100, 500, 784, Layout::AsStored, Layout::Transposed),
        7,
    );
}

#[wasm_bindgen_test]
fn the_simd128_kernel_agrees_with_an_f64_product_on_odd_shapes_layouts_and_scalars() {
    // Shapes below one tile (1×1×1), across the 4 × 8 tile's edges (3×5×7, 5×9×17), over
    // many tiles with ragged edges (97×131×33), the update's (100×784×500: three full k
    // blocks of 256 and a ragged one), and one past every block (m > 128, k > 256,
    // n > 512). (α, β): plain product, a scaled update of C, β ≠ 1 and β = 0 with a C of
    // NaN (never read).
    let mut seed = 1000;
    for (m, k, n) in [
        (1, 1, 1),
        (3, 5, 7),
        (5, 9, 17),
        (97, 131, 33),
        (100, 784, 500),
        (133, 261, 517),
    ] {
        for (a, b) in LAYOUTS {
            for (alpha, beta) in [(1.0, 0.0), (-0.01, 1.0), (0.5, -0.75)] {
                let product = Product::new(m, k, n, a, b).scaled(alpha, beta);
                check_product(Kernel::Simd128, 1, product, seed);
                seed += 3;
            }
        }
    }
    // β = 0: the old C is overwritten, never read (NaN stays out).
    let product = Product::new(5, 9, 17, Layout::Transposed, Layout::Transposed).scaled(2.0, 0.0);
    let (a, b) = (values(5 * 9, 1), values(9 * 17, 2));
    let mut nan = vec![f32::NAN; 5 * 17];
    let mut zero = vec![0.0; 5 * 17];
    multiply_with(Kernel::Simd128, &mut nan, &a, &b, &product, 1);
    multiply_with(Kernel::Simd128, &mut zero, &a, &b, &product, 1);
    assert_eq!(nan, zero);
    // k = 0: C ← β·C (the sum is empty).
    let c0 = values(4 * 8, 3);
    let mut c = c0.clone();
    let empty = Product::new(4, 0, 8, Layout::AsStored, Layout::AsStored).scaled(1.0, 0.5);
    multiply_with(Kernel::Simd128, &mut c, &[], &[], &empty, 1);
    assert!(c.iter().zip(&c0).all(|(x, y)| *x == 0.5 * y));
}

#[wasm_bindgen_test]
fn multiply_in_wasm_uses_the_simd128_kernel_for_large_products() {
    assert_eq!(LARGE_PRODUCT_KERNEL, Kernel::Simd128);
    // And gives its bits: a 100×784×500 product through `multiply` equals the forced one.
    let product = Product::new(100, 784, 500, Layout::AsStored, Layout::AsStored);
    let (a, b) = (values(100 * 784, 4), values(784 * 500, 5));
    let mut chosen = vec![0.0; 100 * 500];
    let mut forced = vec![0.0; 100 * 500];
    multiply(&mut chosen, &a, &b, &product, 1);
    multiply_with(Kernel::Simd128, &mut forced, &a, &b, &product, 1);
    assert_eq!(chosen, forced);
}

#[wasm_bindgen_test]
fn a_0_1_product_in_wasm_has_the_reference_kernels_bits() {
    // Sums of rows of op(B) in order of p: the reference kernel's bits (and so its
    // rounding bound), both layouts of A, across the 32-column chunk's edge (n = 70) and
    // at the update's shapes.
    let mut seed = 2000;
    for (m, k, n) in [(3, 5, 7), (5, 9, 70), (100, 784, 500), (784, 100, 500)] {
        for a_layout in [Layout::AsStored, Layout::Transposed] {
            for (alpha, beta) in [(1.0, 0.0), (-0.01, 1.0)] {
                let product = Product::new(m, k, n, a_layout, Layout::AsStored).scaled(alpha, beta);
                let a: Vec<f32> = values(m * k, seed)
                    .iter()
                    .map(|&x| f32::from(u8::from(x > 0.5)))
                    .collect();
                let b = values(k * n, seed + 1);
                let c0 = values(m * n, seed + 2);
                seed += 3;
                let (mut c, mut reference) = (c0.clone(), c0);
                multiply_with(Kernel::Reference, &mut reference, &a, &b, &product, 1);
                multiply_indicator(&mut c, &a, &b, &product);
                let bits = |c: &[f32]| c.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&c), bits(&reference), "{product:?}");
            }
        }
    }
}

#[wasm_bindgen_test]
fn f32_exp_and_sigmoid_give_the_native_accuracy_in_wasm() {
    // Every 9973rd f32 of [−87, 88] (the native test walks a finer grid).
    let ulp = |x: f64| f64::from(f32::EPSILON) * x.abs();
    let mut worst: f64 = 0.0;
    for step in 0..=17_500 {
        let x = -87.0 + step as f32 * 0.01;
        let e = f64::from(x).exp();
        worst = worst.max((f64::from(exp(x)) - e).abs() / ulp(e));
        let s = 1.0 / (1.0 + (-f64::from(x)).exp());
        assert!((f64::from(sigmoid(x)) - s).abs() <= 3.0 * ulp(s), "σ({x})");
    }
    assert!(worst <= 2.0, "exp: {worst} ulp");
}

#[wasm_bindgen_test]
fn the_batch_gradient_in_wasm_equals_a_direct_f64_computation() {
    let patterns = random_patterns(23, 9, 0.5, 1);
    for (statistics, batch) in [
        (Statistics::ContrastiveDivergence { steps: 2 }, 10),
        (
            Statistics::Persistent {
                particles: 7,
                steps: 1,
            },
            10,
        ),
    ] {
        let start = Rbm::random(9, 4, 0.5, 3).unwrap();
        let mut trainer =
            BatchTrainer::new(&start, &patterns, options(statistics, batch, 8), 1).unwrap();
        for rows in [10, 10, 3] {
            let rbm = trainer.rbm();
            trainer.update().unwrap();
            check_gradient(&trainer, &rbm, rows, statistics.chains(rows));
        }
    }
    // And on a machine whose products take the SIMD128 kernels (above the small-product
    // threshold).
    let patterns = random_patterns(40, 131, 0.13, 2);
    let start = Rbm::random(131, 97, 0.05, 4).unwrap();
    let cd = options(Statistics::ContrastiveDivergence { steps: 1 }, 40, 5);
    let mut trainer = BatchTrainer::new(&start, &patterns, cd, 1).unwrap();
    let rbm = trainer.rbm();
    trainer.update().unwrap();
    check_gradient(&trainer, &rbm, 40, 40);
}

#[wasm_bindgen_test]
fn time_of_one_784_500_cd_1_update_batch_100_in_wasm_and_of_gemm_beside_simd128() {
    const REPS: usize = 25;
    let kernels = [Kernel::Fast, Kernel::Simd128];
    let names = ["gemm", "simd128"];
    let mut trainer = mnist_sized_trainer(1);
    // The update's three products: V·W (NN), H·Wᵀ (NT), Vᵀ·P (TN).
    let [(_, nn), (_, nt), (_, tn)] = mnist_sized_products();
    let (a, b) = (values(100 * 784, 6), values(784 * 500, 7));
    let mut c = vec![0.0; 784 * 500];
    let mut time_product = |kernel: Kernel, product: &Product| {
        let t0 = js_sys::Date::now();
        for _ in 0..4 {
            multiply_with(kernel, &mut c, &a, &b, product, 1);
        }
        (js_sys::Date::now() - t0) / 4.0
    };
    // Warm-up: V8 tiers each kernel up after a few calls.
    trainer.run(3).unwrap();
    for kernel in kernels {
        for product in [&nn, &tn, &nt] {
            time_product(kernel, product);
        }
    }
    // Interleaved: each rep times the update (its products are 0/1 sums of rows, whatever
    // the large-product kernel) and both kernels' products, the first alternating.
    let mut update = Vec::new();
    let mut times: [[Vec<f64>; 2]; 3] = Default::default();
    for rep in 0..REPS {
        let t0 = js_sys::Date::now();
        trainer.run(2).unwrap();
        update.push((js_sys::Date::now() - t0) / 2.0);
        for q in [rep % 2, 1 - rep % 2] {
            for (w, product) in [&nn, &tn, &nt].into_iter().enumerate() {
                times[w][q].push(time_product(kernels[q], product));
            }
        }
    }
    let (median, min, max) = summary(&mut update);
    let line = format!(
        "wasm, one thread, 784-500 CD-1 update, batch 100 (four products as 0/1 sums of rows), \
         median (min–max) of {REPS}: {median:.2} ms ({min:.2}–{max:.2})"
    );
    web_sys::console::log_1(&line.into());
    let [nn, tn, nt] = &mut times;
    for (what, times) in [
        ("one 100×784×500 product V·W (NN)", nn),
        ("one 784×100×500 product Vᵀ·P (TN)", tn),
        ("one 100×500×784 product H·Wᵀ (NT)", nt),
    ] {
        let mut line =
            format!("wasm, one thread, {what}, median (min–max) of {REPS}, interleaved:");
        for q in 0..2 {
            let (median, min, max) = summary(&mut times[q]);
            line += &format!("  {} {median:.2} ms ({min:.2}–{max:.2})", names[q]);
        }
        web_sys::console::log_1(&line.into());
    }
    assert!(trainer.rbm().weights().iter().all(|w| w.is_finite()));
}

/// An update shared by K replicas (src/learn/rbm/batch/shard.rs; the page's learning
/// workers) has one trainer's bits in wasm for any parts, however few rows each holds: the
/// row sums and the SIMD128 kernel compute each row of a product alone. Exact: never fails by
/// chance.
#[wasm_bindgen_test]
fn an_update_shared_by_k_replicas_has_one_trainers_bits_in_wasm() {
    shard_checks::assert_shared_like_one(&|| mnist_sized_trainer(1), 2, 2);
    // 30 images, batch 8 (parts of 1 to 3 rows, a short last batch of 6), CD-2 and
    // persistent chains.
    for statistics in [
        Statistics::ContrastiveDivergence { steps: 2 },
        Statistics::Persistent {
            particles: 5,
            steps: 1,
        },
    ] {
        let make = || {
            let start = Rbm::random(40, 20, 0.1, 51).unwrap();
            let patterns = random_patterns(30, 40, 0.2, 52);
            BatchTrainer::new(&start, &patterns, options(statistics, 8, 53), 1).unwrap()
        };
        for count in [3, 4] {
            shard_checks::assert_shared_like_one(&make, count, 6);
        }
    }
}
