//! The dense products and one batch update of a restricted machine, natively (medians of
//! repeated runs; speed is never asserted in tests):
//! - the five products of a 784-500 CD-1 update on a batch of 100, and the whole update
//!   (f32 [`BatchTrainer`]) on 1 and 2 threads, on random binary data of MNIST's density;
//! - the crossover: one update of machines from 64-16 to 784-500 on 1 and 2 threads
//!   (wall-clock medians, and the CPU ms per update of all the process's threads);
//! - the 64-16 digits machine's default update (persistent, 100 particles, k = 1, batch
//!   100), by the page's f64 trainer and by the f32 batch trainer;
//! - the effect of f32: exact test ln p(v) of the 64-16 machine trained in f64 and in f32
//!   from the same seed.
//!
//! `cargo bench --bench rbm_products` (make bench runs it); `-- --quick` times fewer runs
//! and skips the f32/f64 comparison; `-- --json` prints one JSON object last;
//! `-- --only products|784|crossover|64|f32` runs one part; `-- --threads N` times the
//! 784-500 update on N threads only (for `perf stat`).
//!
//! The update and its products are defined once, in tests/linalg_checks (shared with the
//! tests that time them in wasm).

#[path = "../tests/linalg_checks/mod.rs"]
mod linalg_checks;

use boltzlab::learn::digits;
use boltzlab::learn::rbm::{
    BatchTrainer, RateSchedule, Rbm, RbmTrainer, Statistics, TrainingOptions,
};
use boltzlab::linalg::elementwise::levels;
use boltzlab::linalg::{Kernel, ThreadPair, multiply_rows, multiply_with};
use boltzlab::rng::seeded_rng;
use linalg_checks::{mnist_sized_products, mnist_sized_trainer, random_patterns, summary};
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
    summary(&mut samples)
}

/// A product to time: its name and shape, A and B.
#[cfg(feature = "bench-faer")]
type Timed<'a> = (
    (&'a str, boltzlab::linalg::Product),
    &'a Vec<f32>,
    &'a Vec<f32>,
);

/// The same three products by the `faer` crate, the other well-kept Rust kernel the choice
/// of `gemm` was measured against (`cargo bench --bench rbm_products --features bench-faer`;
/// make bench passes it). Without the feature this says how to get the comparison.
#[cfg(feature = "bench-faer")]
fn faer_products(
    products: &[Timed<'_>; 3],
    out: &mut [f32],
    repeats: usize,
    json: &mut BTreeMap<String, f64>,
) {
    use boltzlab::linalg::Layout;
    use faer::linalg::matmul::matmul;
    use faer::{Accum, MatMut, MatRef, Par};
    println!(
        "native f32 products (faer {}), median of {repeats} runs",
        FAER_VERSION
    );
    for ((name, p), a, bm) in products {
        let mut row = Vec::new();
        for threads in [1, 2] {
            let par = if threads == 1 {
                Par::Seq
            } else {
                Par::rayon(threads)
            };
            let (median, _, _) = time_seconds(repeats * 5, || {
                let lhs = match p.a {
                    Layout::AsStored => MatRef::from_row_major_slice(a, p.m, p.k),
                    Layout::Transposed => MatRef::from_row_major_slice(a, p.k, p.m).transpose(),
                };
                let rhs = match p.b {
                    Layout::AsStored => MatRef::from_row_major_slice(bm, p.k, p.n),
                    Layout::Transposed => MatRef::from_row_major_slice(bm, p.n, p.k).transpose(),
                };
                let dst = MatMut::from_row_major_slice_mut(&mut out[..p.m * p.n], p.m, p.n);
                matmul(dst, Accum::Replace, lhs, rhs, p.alpha, par);
            });
            row.push((median * 1e3, 2.0 * p.work() as f64 / median / 1e9));
        }
        println!(
            "{:<28} {:>10.3} {:>8.1} {:>10.3} {:>8.1}",
            name, row[0].0, row[0].1, row[1].0, row[1].1
        );
        let key = product_key(name);
        json.insert(format!("native_product_{key}_faer_1_thread_ms"), row[0].0);
        json.insert(format!("native_product_{key}_faer_2_threads_ms"), row[1].0);
    }
}

/// A product's layout tag for the JSON keys: `nn`, `nt` or `tn` (from "…, NN)").
fn product_key(name: &str) -> String {
    name.rsplit(", ")
        .next()
        .unwrap_or(name)
        .trim_end_matches(')')
        .to_lowercase()
}

/// The faer release the comparison is built with (Cargo.toml).
#[cfg(feature = "bench-faer")]
const FAER_VERSION: &str = "0.24";

#[cfg(not(feature = "bench-faer"))]
fn faer_products<T>(_: &T, _: &mut [f32], _: usize, _: &mut BTreeMap<String, f64>) {
    println!("(faer's times: cargo bench --bench rbm_products --features bench-faer)");
}

/// CPU seconds this process's threads have run so far (Linux: the sum over
/// /proc/self/task/*/schedstat, in ns; NaN elsewhere). Other processes' load inflates it
/// far less than wall time, and it counts a waiting thread's spinning.
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut ns = 0u64;
    for task in tasks.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        ns += stat
            .split_whitespace()
            .next()
            .and_then(|t| t.parse::<u64>().ok())
            .unwrap_or(0);
    }
    ns as f64 * 1e-9
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
    let [nn, nt, tn] = mnist_sized_products();
    let products = [(nn, &x, &w), (nt, &p, &w), (tn, &x, &p)];
    if part("products") {
        // Two threads two ways: gemm's own (rayon), and C's rows in two halves, each by gemm
        // on one thread, on the caller's thread and a ThreadPair's (as the batch trainer
        // splits an update; each row has the same bits either way, tests/batch_threads.rs).
        println!("native f32 products (gemm), median of {repeats} runs");
        println!(
            "{:<28} {:>10} {:>8} {:>10} {:>8} {:>10} {:>8}",
            "product", "1 thr ms", "GFLOP/s", "2 thr ms", "GFLOP/s", "halves ms", "GFLOP/s"
        );
        let mut pair = ThreadPair::new();
        for ((name, product), a, bm) in products {
            let mut row = Vec::new();
            for threads in [1, 2] {
                let (median, _, _) = time_seconds(repeats * 5, || {
                    multiply_with(Kernel::Fast, &mut out, a, bm, &product, threads)
                });
                row.push(median);
            }
            let (m, n) = (product.m, product.n);
            let half = m.div_ceil(2);
            let (median, _, _) = time_seconds(repeats * 5, || {
                let (top, bottom) = out[..m * n].split_at_mut(half * n);
                pair.join(
                    || multiply_rows(top, a, bm, &product, 0..half, 1),
                    || multiply_rows(bottom, a, bm, &product, half..m, 1),
                );
            });
            row.push(median);
            let gflops = |s: f64| 2.0 * product.work() as f64 / s / 1e9;
            println!(
                "{:<28} {:>10.3} {:>8.1} {:>10.3} {:>8.1} {:>10.3} {:>8.1}",
                name,
                row[0] * 1e3,
                gflops(row[0]),
                row[1] * 1e3,
                gflops(row[1]),
                row[2] * 1e3,
                gflops(row[2])
            );
            let key = product_key(name);
            json.insert(
                format!("native_product_{key}_gemm_1_thread_ms"),
                row[0] * 1e3,
            );
            json.insert(
                format!("native_product_{key}_gemm_2_threads_ms"),
                row[1] * 1e3,
            );
            json.insert(format!("native_product_{key}_gemm_halves_ms"), row[2] * 1e3);
        }
        faer_products(&products, &mut out, repeats, &mut json);
    }

    // One whole 784-500 CD-1 update, batch 100 (random data of MNIST's density).
    let only_threads: Option<usize> = args
        .iter()
        .position(|a| a == "--threads")
        .and_then(|k| args.get(k + 1)?.parse().ok());
    if part("784") {
        println!("\n784-500 CD-1 update, batch 100 (f32 BatchTrainer), median of {repeats} runs");
        for threads in [1, 2] {
            if only_threads.is_some_and(|t| t != threads) {
                continue;
            }
            let mut trainer = mnist_sized_trainer(threads);
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

    // Where two threads start to pay: one CD-1 update (batch 100) of machines from the
    // digits' 64-16 to MNIST's 784-500, on 1 and 2 threads (an update splits from
    // SPLIT_WORK multiply-adds per product).
    if part("crossover") {
        println!(
            "\nCD-1 update, batch 100, 1 and 2 threads (split from {} multiply-adds per product), median of {repeats} runs",
            boltzlab::learn::rbm::batch::SPLIT_WORK
        );
        println!(
            "{:<10} {:>12} {:>10} {:>10} {:>8} {:>10} {:>10}",
            "machine", "B·V·H", "1 thr ms", "2 thr ms", "2/1", "1 thr CPU", "2 thr CPU"
        );
        for (nv, nh) in [
            (64, 16),
            (64, 100),
            (64, 500),
            (196, 100),
            (784, 25),
            (784, 100),
            (196, 500),
            (784, 500),
        ] {
            let patterns = random_patterns(1000, nv, 0.13, 2);
            let start = Rbm::random(nv, nh, 0.01, 3).expect("machine");
            let cd1 = options(Statistics::ContrastiveDivergence { steps: 1 }, 0.05, 0.5, 4);
            let updates = (20_000_000 / (100 * nv * nh)).clamp(1, 200) as u64;
            let mut ms = [0.0; 2];
            let mut cpu = [0.0; 2];
            for threads in [1, 2] {
                let mut trainer =
                    BatchTrainer::new(&start, &patterns, cd1, threads).expect("trainer");
                let cpu_start = cpu_seconds();
                let (median, _, _) =
                    time_seconds(repeats, || trainer.run(updates).expect("finite"));
                let runs = (repeats + 1) as f64 * updates as f64;
                cpu[threads - 1] = (cpu_seconds() - cpu_start) / runs * 1e3;
                ms[threads - 1] = median / updates as f64 * 1e3;
            }
            println!(
                "{:<10} {:>12} {:>10.4} {:>10.4} {:>8.2} {:>10.4} {:>10.4}",
                format!("{nv}-{nh}"),
                100 * nv * nh,
                ms[0],
                ms[1],
                ms[1] / ms[0],
                cpu[0],
                cpu[1]
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
        // The same trainer with its loops at each SIMD level (the page's wasm has 2 f64
        // lanes, as the baseline's SSE2).
        for level in levels() {
            let mut t = RbmTrainer::new(start.clone(), train.images(), pcd).expect("trainer");
            let (median, _, _) = time_seconds(repeats, || {
                for _ in 0..updates {
                    t.update_at(level).expect("finite");
                }
            });
            println!("    at {level:?}: {:.4} ms per update", per(median));
            json.insert(
                format!("native_rbm_64_16_f64_update_{level:?}_ms").to_lowercase(),
                per(median),
            );
        }
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
    merge_into_bench_json(&json);
}

/// Adds these medians to target/bench.json (which `cargo bench --bench ticks` writes first in
/// `make bench`), so that the bench page's table (benches/browser.mjs) shows the native
/// 784-500 update beside the wasm one. (Said on stderr: with `--json` the last line of stdout
/// is the JSON, which `make bench-peer` reads.)
fn merge_into_bench_json(figures: &BTreeMap<String, f64>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench.json");
    let mut all: BTreeMap<String, serde_json::Value> = std::fs::read_to_string(&path)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    for (key, value) in figures {
        all.insert(key.clone(), serde_json::json!(value));
    }
    let text = serde_json::to_string_pretty(&all).expect("figures serialise");
    match std::fs::write(&path, text) {
        Ok(()) => eprintln!("medians added to {}", path.display()),
        Err(err) => eprintln!("could not write {}: {err}", path.display()),
    }
}
