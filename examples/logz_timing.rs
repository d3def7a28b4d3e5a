//! Times exact ln Z of a 784-k restricted machine (k = 25 by default, or the first
//! argument) natively on every core, and with one thread when `--one` is given: the figure
//! `make bench` reports beside the target (784-25 in ≤ 60 s on two cores).
//!
//! Run: `cargo run --release --example logz_timing [k] [--one]`.

use boltzlab::estimate::rbm_exact::{available_threads, error_bound, log_z_threads};
use boltzlab::model::rbm::Rbm;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let hidden: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(25);
    let threads = if args.iter().any(|a| a == "--one") {
        1
    } else {
        available_threads()
    };
    // Weights N(0, 0.1²), as a machine a few epochs into MNIST training; biases 0.
    let rbm = Rbm::random(784, hidden, 0.1, 7).expect("a valid machine");
    let start = Instant::now();
    let log_z = log_z_threads(&rbm, threads).expect("at most 25 hidden units");
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "exact ln Z of a 784-{hidden} machine: {log_z:.6} (error bound {:.1e}), \
         {seconds:.2} s on {threads} thread(s), {:.2} ns per unit-state",
        error_bound(&rbm),
        seconds * 1e9 / (784.0 * f64::from(1u32 << hidden))
    );
}
