//! The speed and quality targets set for restricted machines, run by hand and reported, never
//! asserted (timings depend on the machine):
//!
//!   cargo test --release --test rbm_targets -- --ignored --nocapture --test-threads 1
//!
//! Each run is seeded; the figures go to stderr as lines `target: …`.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

use boltzlab::learn::Dataset;
use boltzlab::learn::digits;
use boltzlab::learn::rbm::exact::{log_z, mean_free_energy};
use boltzlab::learn::rbm::{RateSchedule, Rbm, RbmTrainer, Statistics, TrainingOptions};
use std::time::Instant;

/// A V-H machine to start from: W ~ N(0, 0.01²), visible biases at the data's base rates,
/// hidden biases 0 (Hinton's guide).
fn start(visible: usize, hidden: usize, patterns: &[Vec<u8>], seed: u64) -> Rbm {
    let mut m = Rbm::random(visible, hidden, 0.01, seed).unwrap();
    m.set_base_rate_biases(patterns).unwrap();
    m
}

/// Trains for `updates`, printing the exact mean NLL of `train` (and the test
/// log-likelihood of `test`, if any) every `every` updates; returns the last NLL.
fn curve(
    label: &str,
    mut trainer: RbmTrainer,
    train: &[Vec<u8>],
    test: Option<&[Vec<u8>]>,
    updates: u64,
    every: u64,
) -> (f64, Option<f64>) {
    let clock = Instant::now();
    let mut last = (f64::NAN, None);
    let mut points = Vec::new();
    while trainer.updates() < updates {
        trainer.run(every.min(updates - trainer.updates())).unwrap();
        let m = trainer.rbm();
        let z = log_z(m).unwrap();
        let nll = mean_free_energy(m, train).unwrap() + z;
        let test_ll = test.map(|t| -mean_free_energy(m, t).unwrap() - z);
        points.push(format!(
            "{}:{nll:.3}{}",
            trainer.updates(),
            test_ll.map_or(String::new(), |t| format!("/{t:.2}"))
        ));
        last = (nll, test_ll);
    }
    eprintln!(
        "target: {label}: {:.1} s; updates:train NLL[/test LL] {}",
        clock.elapsed().as_secs_f64(),
        points.join(" ")
    );
    last
}

fn options(statistics: Statistics, batch: usize, rate: f64) -> TrainingOptions {
    TrainingOptions {
        statistics,
        batch,
        rate,
        schedule: RateSchedule::Constant,
        momentum: 0.0,
        weight_decay: 0.0,
        seed: 14,
    }
}

#[test]
#[ignore = "a measurement: run by hand in release mode"]
fn bars_and_stripes_4x4_with_16_hidden_units() {
    let bas = Dataset::bars_and_stripes(4, 16).patterns().to_vec();
    eprintln!("target: BAS 4×4 floor ln 30 = {:.3}", 30f64.ln());
    let pcd = TrainingOptions {
        momentum: 0.5,
        schedule: RateSchedule::LinearDecay { updates: 50_000 },
        ..options(
            Statistics::Persistent {
                particles: 100,
                steps: 1,
            },
            30,
            0.02,
        )
    };
    let trainer = RbmTrainer::new(start(16, 16, &bas, 1), &bas, pcd).unwrap();
    curve(
        "BAS PCD-1 (100 particles, rate 0.02, momentum 0.5, linear decay over 50k full-batch updates)",
        trainer,
        &bas,
        None,
        50_000,
        5_000,
    );
    let cd1 = options(Statistics::ContrastiveDivergence { steps: 1 }, 30, 0.1);
    let trainer = RbmTrainer::new(start(16, 16, &bas, 1), &bas, cd1).unwrap();
    curve(
        "BAS CD-1 (rate 0.1, full batch)",
        trainer,
        &bas,
        None,
        20_000,
        1_000,
    );
    let cd10 = options(Statistics::ContrastiveDivergence { steps: 10 }, 30, 0.1);
    let trainer = RbmTrainer::new(start(16, 16, &bas, 1), &bas, cd10).unwrap();
    curve(
        "BAS CD-10 (rate 0.1, full batch)",
        trainer,
        &bas,
        None,
        20_000,
        2_000,
    );
}

#[test]
#[ignore = "a measurement: run by hand in release mode"]
fn digits_64_16_exact_test_log_likelihood() {
    let (train, test) = digits::split();
    let (train, test) = (train.images(), test.images());
    let pixels = start(64, 1, train, 1);
    let independent = Rbm::new(
        64,
        1,
        vec![0.0; 64],
        pixels.visible_biases().to_vec(),
        vec![0.0],
    )
    .unwrap();
    let z = log_z(&independent).unwrap();
    eprintln!(
        "target: digits independent pixels (base rates, +1/+2 smoothing): test LL {:.2}",
        -mean_free_energy(&independent, test).unwrap() - z
    );
    let cd1 = TrainingOptions {
        momentum: 0.5,
        ..options(Statistics::ContrastiveDivergence { steps: 1 }, 100, 0.05)
    };
    let trainer = RbmTrainer::new(start(64, 16, train, 1), train, cd1).unwrap();
    curve(
        "digits 64-16 CD-1 (rate 0.05, momentum 0.5, batch 100, 1000 epochs)",
        trainer,
        train,
        Some(test),
        15_000,
        1_500,
    );
    let pcd = TrainingOptions {
        momentum: 0.5,
        schedule: RateSchedule::LinearDecay { updates: 15_000 },
        ..options(
            Statistics::Persistent {
                particles: 100,
                steps: 1,
            },
            100,
            0.02,
        )
    };
    let trainer = RbmTrainer::new(start(64, 16, train, 1), train, pcd).unwrap();
    curve(
        "digits 64-16 PCD-1 (100 particles, rate 0.02, momentum 0.5, batch 100, linear decay over 1000 epochs)",
        trainer,
        train,
        Some(test),
        15_000,
        1_500,
    );
}

#[test]
#[ignore = "a measurement: run by hand in release mode"]
fn time_per_update_of_a_64_16_machine() {
    let (train, _) = digits::split();
    let train = train.images();
    for statistics in [
        Statistics::Persistent {
            particles: 100,
            steps: 1,
        },
        Statistics::ContrastiveDivergence { steps: 1 },
    ] {
        let o = TrainingOptions {
            momentum: 0.5,
            ..options(statistics, 100, 0.02)
        };
        let mut trainer = RbmTrainer::new(start(64, 16, train, 1), train, o).unwrap();
        trainer.run(1_500).unwrap();
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let clock = Instant::now();
            trainer.run(3_000).unwrap();
            best = best.min(clock.elapsed().as_secs_f64() / 3000.0);
        }
        eprintln!(
            "target: 64-16 update, batch 100, {statistics:?}: {:.1} µs (best of 5 × 3000 updates)",
            best * 1e6
        );
    }
}

#[test]
#[ignore = "a measurement: run by hand in release mode"]
fn bars_and_stripes_pcd_over_seeds() {
    // The PCD protocol of the first measurement, with five seeds (of the run and of the
    // initial weights): the spread of the final exact NLL.
    let bas = Dataset::bars_and_stripes(4, 16).patterns().to_vec();
    let mut finals = Vec::new();
    for seed in 1..=5 {
        let pcd = TrainingOptions {
            momentum: 0.5,
            schedule: RateSchedule::LinearDecay { updates: 50_000 },
            seed,
            ..options(
                Statistics::Persistent {
                    particles: 100,
                    steps: 1,
                },
                30,
                0.02,
            )
        };
        let mut trainer = RbmTrainer::new(start(16, 16, &bas, seed), &bas, pcd).unwrap();
        trainer.run(50_000).unwrap();
        let m = trainer.rbm();
        finals.push(mean_free_energy(m, &bas).unwrap() + log_z(m).unwrap());
    }
    eprintln!("target: BAS PCD-1 final NLL over seeds 1–5: {finals:.3?}");
}

#[test]
#[ignore = "a measurement: run by hand in release mode"]
fn ais_on_the_trained_digits_machine() {
    // AIS (page schedule and the paper's, 100 runs) against exact ln Z on the 64-16
    // machine after 1000 epochs of CD-1.
    use boltzlab::learn::rbm::{AisSchedule, ais_log_z, base_rate_biases};
    let (train, _) = digits::split();
    let train = train.images();
    let cd1 = TrainingOptions {
        momentum: 0.5,
        ..options(Statistics::ContrastiveDivergence { steps: 1 }, 100, 0.05)
    };
    let mut trainer = RbmTrainer::new(start(64, 16, train, 1), train, cd1).unwrap();
    trainer.run(15_000).unwrap();
    let m = trainer.rbm();
    let rms = (m.weights().iter().map(|w| w * w).sum::<f64>() / 1024.0).sqrt();
    let exact = log_z(m).unwrap();
    let base = base_rate_biases(train, 64).unwrap();
    for (name, schedule) in [
        ("page (1450 steps)", AisSchedule::PAGE),
        (
            "Salakhutdinov & Murray (14500 steps)",
            AisSchedule::SALAKHUTDINOV_MURRAY,
        ),
    ] {
        let clock = Instant::now();
        let e = ais_log_z(m, &base, &schedule, 100, 7).unwrap();
        eprintln!(
            "target: AIS {name}, 100 runs, trained 64-16 (rms weight {rms:.3}): exact ln Z {exact:.4}, \
             AIS {:.4} ± {:.4} ({:+.2}σ), effective runs {:.1}, {:.2} s",
            e.log_z,
            e.stderr,
            (e.log_z - exact) / e.stderr,
            e.effective_runs,
            clock.elapsed().as_secs_f64()
        );
    }
}

#[test]
#[ignore = "a measurement: run by hand in release mode"]
fn bars_and_stripes_tempering_over_seeds() {
    // The PCD protocol on BAS 4×4 (16 hidden, rate 0.02, momentum 0.5, linear decay over
    // 50k full-batch updates) with parallel tempering (4 replicas of 100 particles) for
    // the free phase, seeds 1–3. (Base-rate and zero initial biases are the same here:
    // every pixel is on in exactly half of the 30 patterns.)
    let bas = Dataset::bars_and_stripes(4, 16).patterns().to_vec();
    let statistics = Statistics::ParallelTempering {
        particles: 100,
        steps: 1,
        replicas: 4,
    };
    let clock = Instant::now();
    let mut finals = Vec::new();
    for seed in 1..=3 {
        let o = TrainingOptions {
            momentum: 0.5,
            schedule: RateSchedule::LinearDecay { updates: 50_000 },
            seed,
            ..options(statistics, 30, 0.02)
        };
        let mut trainer = RbmTrainer::new(start(16, 16, &bas, seed), &bas, o).unwrap();
        trainer.run(50_000).unwrap();
        let m = trainer.rbm();
        finals.push(mean_free_energy(m, &bas).unwrap() + log_z(m).unwrap());
    }
    eprintln!(
        "target: BAS tempering (4 replicas × 100 particles): final NLL over seeds 1–3 \
         {finals:.3?} ({:.0} s)",
        clock.elapsed().as_secs_f64()
    );
}
