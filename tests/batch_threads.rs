//! The batch trainer on two threads: an update split in halves (each half of the batch's
//! rows runs its chains on one thread, each half of g_W's rows is summed on one thread)
//! gives the bits of one thread, for CD-k, persistent chains and parallel tempering, short
//! last batches and more threads; small machines do not split (no second thread is started); the row
//! blocks of a product give the whole product's bits; and the thread pair itself returns
//! both results and hands a panic back.
//!
//! Every check here is exact (bit equality or a thread count; the count is read until it
//! settles, for up to 5 s): none fails by chance.

// Threads are native: in wasm the trainer runs on one thread and has no worker to count.
#![cfg(not(target_arch = "wasm32"))]

use boltzlab::learn::rbm::batch::SPLIT_WORK;
use boltzlab::learn::rbm::{BatchTrainer, Rbm, Statistics, TrainingOptions};
use boltzlab::linalg::{
    Kernel, Layout, Product, ThreadPair, kernel_for, multiply_rows, multiply_with,
    splits_like_the_whole,
};
use boltzlab::rng::seeded_rng;
use linalg_checks::{LAYOUTS, options, random_patterns};
use rand::Rng;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

mod linalg_checks;

/// The tests of this file count the process's pair threads, so they run one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Threads of this process named as the pair's worker (Linux: /proc/self/task/*/comm).
fn pair_threads_now() -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
                .filter(|name| name.trim() == "boltzlab-pair")
                .count()
        })
        .unwrap_or(0)
}

/// The pair threads once they number `expected`, or after 5 s: a new thread names itself
/// a moment after it starts, and a joined one leaves /proc a moment after it ends.
fn pair_threads(expected: usize) -> usize {
    let start = Instant::now();
    loop {
        let now = pair_threads_now();
        if now == expected || start.elapsed().as_secs() >= 5 {
            return now;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Every parameter's bits and the chains' states after `updates` updates.
fn run_bits(
    start: &Rbm,
    data: &[Vec<u8>],
    o: TrainingOptions,
    threads: usize,
    updates: u64,
) -> (Vec<u64>, Vec<u32>) {
    let mut t = BatchTrainer::new(start, data, o, threads).unwrap();
    t.run(updates).unwrap();
    let rbm = t.rbm();
    let parameters = rbm
        .weights()
        .iter()
        .chain(rbm.visible_biases())
        .chain(rbm.hidden_biases())
        .map(|x| x.to_bits())
        .collect();
    let chains = t.chain_visible().iter().map(|x| x.to_bits()).collect();
    (parameters, chains)
}

#[test]
fn a_split_update_gives_the_bits_of_one_thread() {
    let _serial = one_at_a_time();
    // (visible, hidden, patterns, batch, statistics): 784-500 as MNIST; 200-100 with
    // batch 64 and 150 patterns (the last batch of an epoch, 22 rows, splits too) and
    // CD-3; persistent chains with an odd number of particles; a last batch of 10 rows
    // (halves of 5: that update runs whole, the others split).
    let cases = [
        (
            784,
            500,
            250,
            100,
            Statistics::ContrastiveDivergence { steps: 1 },
        ),
        (
            784,
            500,
            250,
            100,
            Statistics::Persistent {
                particles: 100,
                steps: 1,
            },
        ),
        (
            200,
            100,
            150,
            64,
            Statistics::ContrastiveDivergence { steps: 3 },
        ),
        (
            200,
            100,
            150,
            64,
            Statistics::Persistent {
                particles: 37,
                steps: 2,
            },
        ),
        (
            300,
            130,
            310,
            100,
            Statistics::ContrastiveDivergence { steps: 1 },
        ),
        // Tempering: 4 replicas of 25 particles (each half of the chains holds two
        // replicas at their own β), two steps, then the swaps on one thread.
        (
            784,
            500,
            250,
            100,
            Statistics::ParallelTempering {
                particles: 25,
                steps: 2,
                replicas: 4,
            },
        ),
    ];
    for (case, (nv, nh, count, batch, statistics)) in cases.into_iter().enumerate() {
        assert!((batch * nv * nh) as u64 >= SPLIT_WORK, "case {case} splits");
        let data = random_patterns(count, nv, 0.14, 10 + case as u64);
        let start = Rbm::random(nv, nh, 0.01, 20 + case as u64).unwrap();
        let o = options(statistics, batch, 30 + case as u64);
        let updates = (count.div_ceil(batch) + 1) as u64; // past an epoch's end
        let one = run_bits(&start, &data, o, 1, updates);
        for threads in [2, 3, 4] {
            let split = run_bits(&start, &data, o, threads, updates);
            assert!(
                one.0 == split.0,
                "case {case}: parameters differ on {threads} threads"
            );
            assert!(
                one.1 == split.1,
                "case {case}: chains differ on {threads} threads"
            );
        }
    }
}

#[test]
fn two_threads_start_one_worker_only_for_large_machines() {
    let _serial = one_at_a_time();
    assert_eq!(pair_threads(0), 0, "no pair before");
    let small = (64, 16);
    // Above SPLIT_WORK but not split (n = 25 ≤ 64 in V·W): the update rule must not start
    // the worker either (it once split whenever B·V·H ≥ SPLIT_WORK).
    let narrow = (784, 25);
    let large = (784, 500);
    const { assert!(100 * 784 * 25 >= SPLIT_WORK) };
    for ((nv, nh), expected) in [(small, 0), (narrow, 0), (large, 1)] {
        let data = random_patterns(200, nv, 0.14, 1);
        let start = Rbm::random(nv, nh, 0.01, 2).unwrap();
        let o = options(Statistics::ContrastiveDivergence { steps: 1 }, 100, 3);
        let mut t = BatchTrainer::new(&start, &data, o, 2).unwrap();
        assert_eq!(
            pair_threads(0),
            0,
            "{nv}-{nh}: started before the first update"
        );
        t.run(2).unwrap();
        assert_eq!(pair_threads(expected), expected, "{nv}-{nh} on two threads");
        // One thread never uses it (a clone starts its own, here none).
        let mut one = t.clone();
        one.set_threads(1).unwrap();
        one.run(1).unwrap();
        assert_eq!(
            pair_threads(expected),
            expected,
            "{nv}-{nh}: one thread starts none"
        );
        drop(t);
        drop(one);
        assert_eq!(
            pair_threads(0),
            0,
            "{nv}-{nh}: the worker stops with its trainer"
        );
    }
}

/// Values on a 2⁻⁸ grid in [−1, 1).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = seeded_rng(seed);
    (0..n)
        .map(|_| (rng.next_u32() >> 23) as f32 / 256.0 - 1.0)
        .collect()
}

#[test]
fn row_blocks_of_a_product_give_the_whole_products_bits() {
    let _serial = one_at_a_time();
    // The trainer's shapes (batch rows × 784 × 500, 784 × batch × 500) and odd ones, small
    // (the triple loop) and large (gemm); the row blocks cut inside gemm's tiles.
    let shapes = [
        (100, 784, 500),
        (784, 100, 500),
        (100, 500, 784),
        (97, 131, 65),
        (33, 17, 131),
        (25, 5, 101),
        (61, 1000, 77),
    ];
    for (m, k, n) in shapes {
        for (la, lb) in LAYOUTS {
            for (alpha, beta) in [(1.0, 0.0), (-0.01, 1.0)] {
                let product = Product::new(m, k, n, la, lb).scaled(alpha, beta);
                let (a, b) = (values(m * k, 1), values(k * n, 2));
                let c0 = values(m * n, 3);
                let mut whole = c0.clone();
                multiply_with(kernel_for(&product), &mut whole, &a, &b, &product, 1);
                for cuts in [vec![0, m / 2, m], vec![0, 8, m - 9, m]] {
                    let mut parts = c0.clone();
                    for w in cuts.windows(2) {
                        let rows = w[0]..w[1];
                        assert!(splits_like_the_whole(&product, &rows));
                        let c = &mut parts[rows.start * n..rows.end * n];
                        multiply_rows(c, &a, &b, &product, rows, 1);
                    }
                    let same = whole
                        .iter()
                        .zip(&parts)
                        .all(|(x, y)| x.to_bits() == y.to_bits());
                    assert!(same, "{product:?} in blocks {cuts:?}");
                }
            }
        }
    }
    // The two kernels are both exercised.
    let small = Product::new(25, 5, 101, Layout::AsStored, Layout::AsStored);
    let large = Product::new(100, 784, 500, Layout::AsStored, Layout::AsStored);
    assert_eq!(kernel_for(&small), Kernel::Reference);
    assert_eq!(kernel_for(&large), Kernel::Fast);
    // And a block that would leave gemm's path is refused by the rule.
    assert!(!splits_like_the_whole(&large, &(0..7)));
    let narrow = Product::new(100, 784, 64, Layout::AsStored, Layout::AsStored);
    assert!(!splits_like_the_whole(&narrow, &(0..50)));
}

#[test]
fn the_pair_returns_both_results_and_hands_a_panic_back() {
    let _serial = one_at_a_time();
    let mut pair = ThreadPair::new();
    assert!(!pair.started());
    let here = std::thread::current().id();
    for round in 0..50u64 {
        // `here` waits (up to 10 s) until `there` has started, so `there` cannot have been
        // taken back by this thread: it ran on the worker.
        let started = AtomicBool::new(false);
        let (a, (b, there)) = pair.join(
            || {
                let t0 = Instant::now();
                while !started.load(Ordering::Acquire) && t0.elapsed().as_secs() < 10 {
                    std::thread::yield_now();
                }
                round * 2
            },
            || {
                started.store(true, Ordering::Release);
                (round * 3, std::thread::current().id())
            },
        );
        assert_eq!((a, b), (round * 2, round * 3));
        assert_ne!(there, here, "the second closure runs on the worker");
    }
    // Without waiting, `there` runs on the worker or, not started yet, here: the same
    // results either way.
    for round in 0..200u64 {
        assert_eq!(pair.join(|| round, || round + 1), (round, round + 1));
    }
    assert!(pair.started());
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pair.join(|| 1, || -> u32 { panic!("on the worker") })
    }));
    assert!(caught.is_err(), "the worker's panic reaches the caller");
    // The worker survives its job's panic.
    assert_eq!(pair.join(|| 5, || 6), (5, 6));
    drop(pair);
}
