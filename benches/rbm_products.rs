//! The dense products and one batch update of a restricted machine, natively (medians of
//! repeated runs; speed is never asserted in tests):
//! - the five products of a 784-500 CD-1 update on a batch of 100, and the whole update
//!   (f32 [`BatchTrainer`]) on 1 and 2 threads, on random binary data of MNIST's density;
//! - the 64-16 digits machine's default update (persistent, 100 particles, k = 1, batch
//!   100), by the page's f64 trainer and by the f32 batch trainer;
//! - the effect of f32: exact test ln p(v) of the 64-16 machine trained in f64 and in f32
//!   from the same seed.
//!
//! `cargo bench --bench rbm_products` (make bench runs it); `-- --quick` times fewer runs
//! and skips the f32/f64 comparison; `-- --json` prints one JSON object last.

use boltzlab::learn::digits;
use boltzlab::learn::rbm::{
    BatchTrainer, RateSchedule, Rbm, RbmTrainer, Statistics, TrainingOptions,
};
use boltzlab::linalg::{Kernel, Layout, Product, multiply_with};
use boltzlab::rng::seeded_rng;
use rand::Rng;
use std::collections::BTreeMap;
use std::time::Instant;

/// Seconds of one call of `f`: median, min and max of `repeats` timed runs after a
/// warm-up.
fn time_seconds(repeats: usize, mut f: impl FnMut()) -> (f64, f64, f64) {
    f();
    let mut samples: Vec<f64> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    (samples[repeats / 2], samples[0], samples[repeats - 1])
}

/// `count` random binary vectors of length `visible`, each unit on with probability
/// `density` (binarized MNIST: about 0.13).
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

fn options(statistics: Statistics, rate: f64, momentum: f64, seed: u64) -> TrainingOptions {
    TrainingOptions {
        statistics,
        batch: 100,
        rate,
        schedule: RateSchedule::Constant,
        momentum,
        weight_decay: 0.0,
        seed,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let json_out = args.iter().any(|a| a == "--json");
    let repeats = if quick { 5 } else { 21 };
    // `-- --only products|784|64|f32` runs one part (for perf stat).
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|k| args.get(k + 1).cloned());
    let part = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let mut json = BTreeMap::new();

    // The five products of a 784-500 CD-1 update, batch 100.
    let (b, v, h) = (100, 784, 500);
    let mut rng = seeded_rng(1);
    let mut fill = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|_| (rng.next_u32() >> 8) as f32 / 16_777_216.0)
            .collect()
    };
    let (x, w, p) = (fill(b * v), fill(v * h), fill(b * h));
    let mut out = vec![0.0f32; v * h];
    let products = [
        (
            "V W (100×784 · 784×500)",
            Product::new(b, v, h, Layout::AsStored, Layout::AsStored),
            &x,
            &w,
        ),
        (
            "H Wᵀ (100×500 · 500×784)",
            Product::new(b, h, v, Layout::AsStored, Layout::Transposed),
            &p,
            &w,
        ),
        (
            "Vᵀ P (784×100 · 100×500)",
            Product::new(v, b, h, Layout::Transposed, Layout::AsStored),
            &x,
            &p,
        ),
    ];
    if part("products") {
        println!("native f32 products (gemm), median of {repeats} runs");
        println!(
            "{:<28} {:>10} {:>10} {:>10} {:>10}",
            "product", "1 thr ms", "GFLOP/s", "2 thr ms", "GFLOP/s"
        );
        for (name, product, a, bm) in products {
            let mut row = Vec::new();
            for threads in [1, 2] {
                let (median, _, _) = time_seconds(repeats * 5, || {
                    multiply_with(Kernel::Fast, &mut out, a, bm, &product, threads)
                });
                row.push((median * 1e3, 2.0 * product.work() as f64 / median / 1e9));
            }
            println!(
                "{:<28} {:>10.3} {:>10.1} {:>10.3} {:>10.1}",
                name, row[0].0, row[0].1, row[1].0, row[1].1
            );
        }
    }

    // One whole 784-500 CD-1 update, batch 100 (random data of MNIST's density).
    if part("784") {
        let patterns = random_patterns(1000, v, 0.13, 2);
        let start = Rbm::random(v, h, 0.01, 3).expect("784-500");
        let cd1 = options(Statistics::ContrastiveDivergence { steps: 1 }, 0.05, 0.5, 4);
        println!("\n784-500 CD-1 update, batch 100 (f32 BatchTrainer), median of {repeats} runs");
        for threads in [1, 2] {
            let mut trainer = BatchTrainer::new(&start, &patterns, cd1, threads).expect("trainer");
            let updates = 10;
            let (median, min, max) =
                time_seconds(repeats, || trainer.run(updates).expect("finite"));
            let per = |s: f64| s / updates as f64 * 1e3;
            println!(
                "  {threads} thread(s): {:.3} ms per update (min {:.3}, max {:.3})",
                per(median),
                per(min),
                per(max)
            );
            json.insert(
                format!("native_rbm_784_500_cd1_{threads}_threads_ms"),
                per(median),
            );
        }
    }

    // The 64-16 digits machine's default update: persistent, 100 particles, k = 1.
    let (train, test) = digits::split();
    let pcd = options(
        Statistics::Persistent {
            particles: 100,
            steps: 1,
        },
        0.05,
        0.5,
        5,
    );
    let mut start = Rbm::random(64, 16, 0.01, 5).expect("64-16");
    start
        .set_base_rate_biases(train.images())
        .expect("the digits");
    if part("64") {
        println!(
            "\n64-16 digits, persistent (100 particles, k = 1), batch 100, median of {repeats} runs"
        );
        let updates = 200;
        let mut f64_trainer = RbmTrainer::new(start.clone(), train.images(), pcd).expect("trainer");
        let (median, min, max) =
            time_seconds(repeats, || f64_trainer.run(updates).expect("finite"));
        let per = |s: f64| s / updates as f64 * 1e3;
        println!(
            "  f64 RbmTrainer (the page's): {:.4} ms per update (min {:.4}, max {:.4})",
            per(median),
            per(min),
            per(max)
        );
        json.insert("native_rbm_64_16_f64_update_ms".into(), per(median));
        let mut f32_trainer = BatchTrainer::new(&start, train.images(), pcd, 1).expect("trainer");
        let (median, min, max) =
            time_seconds(repeats, || f32_trainer.run(updates).expect("finite"));
        println!(
            "  f32 BatchTrainer, 1 thread: {:.4} ms per update (min {:.4}, max {:.4})",
            per(median),
            per(min),
            per(max)
        );
        json.insert("native_rbm_64_16_f32_update_ms".into(), per(median));
    }

    if !quick && part("f32") {
        // The effect of f32: the same run in f64 and f32, exact test ln p(v).
        let updates = 15_000;
        println!(
            "\n64-16 digits, {updates} updates as above: exact test ln p(v) (nats per image), f64 vs f32"
        );
        for seed in [1, 2, 3] {
            let mut start = Rbm::random(64, 16, 0.01, seed).expect("64-16");
            start
                .set_base_rate_biases(train.images())
                .expect("the digits");
            let o = TrainingOptions { seed, ..pcd };
            let mut a = RbmTrainer::new(start.clone(), train.images(), o).expect("trainer");
            a.run(updates).expect("finite");
            let mut b = BatchTrainer::new(&start, train.images(), o, 1).expect("trainer");
            b.run(updates).expect("finite");
            let ll = |rbm: &Rbm| {
                boltzlab::learn::rbm::exact::mean_log_likelihood(rbm, test.images()).expect("exact")
            };
            let (la, lb) = (ll(a.rbm()), ll(&b.rbm()));
            println!(
                "  seed {seed}: f64 {la:.3}, f32 {lb:.3}, difference {:+.3}",
                lb - la
            );
            json.insert(format!("rbm_64_16_test_ll_f64_seed_{seed}"), la);
            json.insert(format!("rbm_64_16_test_ll_f32_seed_{seed}"), lb);
        }
    }
    if json_out {
        println!(
            "{}",
            serde_json::to_string(&json).expect("numbers serialise")
        );
    }
}
