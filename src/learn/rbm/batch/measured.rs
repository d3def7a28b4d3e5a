//! The one definition of the measured MNIST-sized update (784-500 CD-1, batch 100), timed
//! natively by benches/rbm_products.rs, in wasm by the bench page (`BenchMnistRbm`,
//! src/web/bench.rs) and by tests/web_linalg.rs, so that the three figures are of the same
//! work.

use super::BatchTrainer;
use crate::learn::rbm::{RateSchedule, Rbm, Statistics, TrainingOptions};
use crate::rng::seeded_rng;
use rand::Rng;

/// `count` random binary vectors of length `visible`, each unit on with probability
/// `density` (binarized MNIST: about 0.13), from `seed`: unit on when a draw u < ⌊density·2³²⌋.
pub fn random_patterns(count: usize, visible: usize, density: f64, seed: u64) -> Vec<Vec<u8>> {
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

/// The measured MNIST-sized update: a 784-500 machine (weights ~ 0.01·N(0, 1), seed 3)
/// trained by CD-1 on batches of 100 of 1000 random images of MNIST's density (seed 2),
/// rate 0.05, momentum 0.5, no decay (seed 4), its products on `threads` threads.
pub fn mnist_sized_trainer(threads: usize) -> BatchTrainer {
    let patterns = random_patterns(1000, 784, 0.13, 2);
    let start = Rbm::random(784, 500, 0.01, 3).expect("784-500 is within the limits");
    let cd1 = TrainingOptions {
        statistics: Statistics::ContrastiveDivergence { steps: 1 },
        batch: 100,
        rate: 0.05,
        schedule: RateSchedule::Constant,
        momentum: 0.5,
        weight_decay: 0.0,
        seed: 4,
    };
    BatchTrainer::new(&start, &patterns, cd1, threads).expect("the options are valid")
}
