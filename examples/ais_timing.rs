//! Times one AIS estimate of ln Z with Salakhutdinov & Murray's schedule (14 500 β, 100
//! runs) for a 784-H machine (H = 500 by default, or the first argument), natively on every
//! core, and prints it with its standard error.
//!
//! Run: `cargo run --release --example ais_timing [H] [--page]` (`--page`: the page's
//! schedule, 1 450 β).

use boltzlab::estimate::rbm_ais::{AisSchedule, ais_log_z};
use boltzlab::estimate::rbm_exact::available_threads;
use boltzlab::model::rbm::Rbm;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let hidden: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(500);
    let schedule = if args.iter().any(|a| a == "--page") {
        AisSchedule::PAGE
    } else {
        AisSchedule::SALAKHUTDINOV_MURRAY
    };
    // Weights N(0, 0.05²), visible biases −1 (most pixels off), hidden biases 0; the base
    // model has the same visible biases.
    let random = Rbm::random(784, hidden, 0.05, 3).expect("a valid machine");
    let base = vec![-1.0; 784];
    let rbm = Rbm::new(
        784,
        hidden,
        random.weights().to_vec(),
        base.clone(),
        vec![0.0; hidden],
    )
    .expect("a valid machine");
    let start = Instant::now();
    let estimate = ais_log_z(&rbm, &base, &schedule, 100, 1).expect("within the limits");
    println!(
        "AIS ln Z of a 784-{hidden} machine ({} β, 100 runs): {:.4} ± {:.4} (effective runs \
         {:.1}), {:.1} s on {} thread(s)",
        estimate.steps,
        estimate.log_z,
        estimate.stderr,
        estimate.effective_runs,
        start.elapsed().as_secs_f64(),
        available_threads()
    );
}
