//! The dense products and the f32 batch trainer in WebAssembly (headless Chromium through
//! wasm-bindgen-test): the same laws as natively (tests/linalg.rs), against f64
//! computations within proven rounding bounds, and the time of one 784-500 CD-1 update on
//! a batch of 100 (printed, never asserted).
//!
//!   CHROMEDRIVER=/usr/bin/chromedriver cargo test --release --target wasm32-unknown-unknown \
//!     --no-default-features --test web_linalg
#![cfg(target_arch = "wasm32")]

mod linalg_checks;

use boltzlab::learn::rbm::{BatchTrainer, RateSchedule, Rbm, Statistics, TrainingOptions};
use boltzlab::linalg::elementwise::{exp, sigmoid};
use boltzlab::linalg::{Kernel, Layout, Product};
use boltzlab::rng::seeded_rng;
use linalg_checks::{check_gradient, check_product};
use rand::Rng;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn every_wasm_kernel_agrees_with_an_f64_product_within_the_rounding_bound() {
    let layouts = [
        (Layout::AsStored, Layout::AsStored),
        (Layout::Transposed, Layout::AsStored),
        (Layout::AsStored, Layout::Transposed),
        (Layout::Transposed, Layout::Transposed),
    ];
    let mut seed = 100;
    for (m, k, n) in [(1, 1, 1), (3, 5, 7), (97, 131, 33)] {
        for (a, b) in layouts {
            for (alpha, beta) in [(1.0, 0.0), (-0.01, 1.0)] {
                for kernel in [Kernel::Reference, Kernel::Fast] {
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

fn options(statistics: Statistics, batch: usize, seed: u64) -> TrainingOptions {
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

fn random_patterns(count: usize, visible: usize, density: f64, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = seeded_rng(seed);
    let t = (density * 4_294_967_296.0) as u64;
    (0..count)
        .map(|_| {
            (0..visible)
                .map(|_| u8::from(u64::from(rng.next_u32()) < t))
                .collect()
        })
        .collect()
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
fn time_of_one_784_500_cd_1_update_batch_100_in_wasm() {
    let patterns = random_patterns(1000, 784, 0.13, 2);
    let start = Rbm::random(784, 500, 0.01, 3).unwrap();
    let cd1 = TrainingOptions {
        rate: 0.05,
        momentum: 0.5,
        weight_decay: 0.0,
        ..options(Statistics::ContrastiveDivergence { steps: 1 }, 100, 4)
    };
    let mut trainer = BatchTrainer::new(&start, &patterns, cd1, 1).unwrap();
    trainer.run(3).unwrap(); // warm-up (V8 tiers the kernels up)
    let mut times = Vec::new();
    for _ in 0..9 {
        let t0 = js_sys::Date::now();
        trainer.run(2).unwrap();
        times.push((js_sys::Date::now() - t0) / 2.0);
    }
    times.sort_by(f64::total_cmp);
    web_sys::console::log_1(
        &format!(
            "wasm, one thread: 784-500 CD-1 update, batch 100: median {:.2} ms (min {:.2}, max {:.2}) of 9 runs of 2",
            times[4], times[0], times[8]
        )
        .into(),
    );
    assert!(trainer.rbm().weights().iter().all(|w| w.is_finite()));
}
