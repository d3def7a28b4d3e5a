//! The restricted-machine laboratory the page drives (src/app/rbm.rs) against exact
//! results: completion keeps its clamped pixels and samples the exact conditional of the
//! free ones, fantasy particles and the generation gallery sample the exact p(v) of a tiny
//! machine (χ², fails by chance once in a million runs each), the log-likelihood computed
//! in slices equals the exact one of the machine frozen at its update, and bad input gets
//! a typed error and leaves the lab unchanged.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;

use boltzlab::app::RbmLab;
use boltzlab::app::rbm::{AIS_CHUNKS, AIS_RUNS_PER_CHUNK, Mask, RbmTraining};
use boltzlab::learn::rbm::exact::{log_z, mean_free_energy};
use boltzlab::learn::rbm::{AisSchedule, Rbm};
use common::{chi_square_threshold, pearson_chi_square};

/// Two complementary 2×2 images and the two diagonals: pixels strongly correlated.
const TINY: &str = "1100\n0011\n1001\n0110\n1100\n0011\n";

/// The index of a 0/1 vector (bit i = unit i).
fn index(v: &[u8]) -> usize {
    v.iter()
        .enumerate()
        .map(|(i, &b)| usize::from(b) << i)
        .sum()
}

/// Exact p(v) of a small machine over all 2^V visible vectors, by the free energy.
fn exact_p_v(m: &Rbm) -> Vec<f64> {
    let z = log_z(m).unwrap();
    (0..1usize << m.visible())
        .map(|k| {
            let v: Vec<u8> = (0..m.visible()).map(|i| (k >> i & 1) as u8).collect();
            (-m.free_energy(&v) - z).exp()
        })
        .collect()
}

fn training(statistics: &str, particles: f64, rate: f64, steps: f64, batch: f64) -> RbmTraining {
    RbmTraining {
        statistics: statistics.into(),
        steps,
        particles,
        replicas: 4.0,
        batch,
        rate,
        momentum: 0.0,
        decay: 0.0,
    }
}

/// A 4-2 machine trained a little on [`TINY`] (weights of order one).
fn tiny_lab() -> RbmLab {
    let mut lab = RbmLab::from_bytes(TINY.as_bytes(), 2, 7).unwrap();
    lab.set_training(&training("persistent", 100.0, 0.1, 1.0, 6.0))
        .unwrap();
    lab.advance(400).unwrap();
    let largest = lab
        .rbm()
        .weights()
        .iter()
        .fold(0.0f64, |a, w| a.max(w.abs()));
    assert!(largest > 0.5, "the weights grew ({largest})");
    lab
}

#[test]
fn completion_never_changes_the_clamped_pixels_and_fills_the_rest() {
    let mut lab = RbmLab::new("digits8", 16, 3).unwrap();
    lab.advance(100).unwrap();
    for (mask, painted) in [
        ("top", vec![]),
        ("left", vec![]),
        ("paint", {
            let mut p = vec![0u8; 64];
            p[10..30].fill(1);
            p
        }),
    ] {
        lab.completion_start(5, Mask::parse(mask).unwrap(), &painted)
            .unwrap();
        let original = lab.test_images()[5].clone();
        assert_eq!(lab.completion_original(), &original[..]);
        let clamps = lab.completion_mask().to_vec();
        if mask == "top" {
            assert!(clamps[..32].iter().all(|&c| c == 1) && clamps[32..].iter().all(|&c| c == 0));
        }
        if mask == "left" {
            assert!((0..64).all(|i| clamps[i] == u8::from(i % 8 < 4)));
        }
        for _ in 0..50 {
            lab.completion_step(3).unwrap();
            for i in 0..64 {
                if clamps[i] == 1 {
                    assert_eq!(lab.completion_state()[i], original[i], "{mask}: pixel {i}");
                    assert_eq!(lab.completion_mean()[i], f64::from(original[i]));
                } else {
                    let p = lab.completion_mean()[i];
                    assert!((0.0..=1.0).contains(&p) && p > 0.0 && p < 1.0, "{p}");
                }
            }
        }
        // The free phase releases the clamps; the clamped phase holds them again.
        lab.set_completion_clamped(false).unwrap();
        lab.completion_step(20).unwrap();
        lab.set_completion_clamped(true).unwrap();
        lab.completion_step(1).unwrap();
        for i in (0..64).filter(|&i| clamps[i] == 1) {
            assert_eq!(lab.completion_state()[i], original[i]);
        }
    }
}

#[test]
fn completion_samples_the_exact_conditional_of_the_free_pixels() {
    // Test image 0 of TINY (1100) with its top row clamped (pixels 0, 1); the free pixels
    // 2, 3 follow p(v_2, v_3 | v_0, v_1) ∝ e^{−F(v)}. 20 000 independent completions from
    // random free pixels, each 30 block Gibbs steps (a 4-2 machine with weights of order
    // one mixes in a few steps); Pearson χ² over the 4 outcomes with the 10⁻⁶ threshold:
    // fails by chance once in a million runs.
    let mut lab = tiny_lab();
    let m = lab.rbm().clone();
    let original = lab.test_images()[0].clone();
    let exact: Vec<f64> = {
        let weights: Vec<f64> = (0..4)
            .map(|k| {
                let mut v = original.clone();
                v[2] = (k & 1) as u8;
                v[3] = (k >> 1 & 1) as u8;
                (-m.free_energy(&v)).exp()
            })
            .collect();
        let total: f64 = weights.iter().sum();
        weights.iter().map(|w| w / total).collect()
    };
    let mut counts = vec![0u64; 4];
    for _ in 0..20_000 {
        lab.completion_start(0, Mask::parse("top").unwrap(), &[])
            .unwrap();
        lab.completion_step(30).unwrap();
        let v = lab.completion_state();
        counts[usize::from(v[2]) + 2 * usize::from(v[3])] += 1;
    }
    assert_eq!(lab.rbm(), &m, "completion leaves the machine alone");
    let (chi2, df) = pearson_chi_square(&counts, &exact);
    eprintln!("completion: χ² = {chi2:.1}, {df} df, counts {counts:?}, exact {exact:?}");
    assert!(chi2 < chi_square_threshold(df), "χ² = {chi2} ({df} df)");
}

#[test]
fn the_generation_gallery_samples_the_exact_p_v() {
    // 200 galleries of 100 fresh chains, 40 steps each, on the trained 4-2 machine (no
    // learning in between): 20 000 independent samples of p(v) over 16 outcomes; χ² with
    // the 10⁻⁶ threshold fails by chance once in a million runs.
    let mut lab = tiny_lab();
    let exact = exact_p_v(lab.rbm());
    let mut counts = vec![0u64; 16];
    for _ in 0..200 {
        lab.gallery_start(100, 40).unwrap();
        while !lab.gallery_step(7).unwrap() {}
        assert_eq!(lab.gallery_done(), 40);
        for v in lab.gallery_states().chunks(4) {
            counts[index(v)] += 1;
        }
    }
    let (chi2, df) = pearson_chi_square(&counts, &exact);
    eprintln!("gallery: χ² = {chi2:.1}, {df} df");
    assert!(chi2 < chi_square_threshold(df), "χ² = {chi2} ({df} df)");
}

#[test]
fn fantasy_particles_with_the_weights_held_sample_the_exact_p_v() {
    // The trained 4-2 machine, then learning with ε = 10⁻¹² (the weights move by less
    // than 10⁻⁹ in all): 100 persistent particles advanced k = 25 steps per update. After
    // 40 updates of burn-in, the particles are read every 8 updates (200 steps apart,
    // far beyond this machine's mixing time, so the reads are independent) 200 times:
    // 20 000 samples; χ² against exact p(v) of the final machine, 10⁻⁶ threshold.
    let mut lab = tiny_lab();
    lab.set_training(&training("persistent", 100.0, 1e-12, 25.0, 6.0))
        .unwrap();
    lab.advance(40).unwrap();
    let mut counts = vec![0u64; 16];
    for _ in 0..200 {
        lab.advance(8).unwrap();
        lab.refresh();
        assert_eq!(lab.shown(), 100);
        for v in lab.fantasy().chunks(4) {
            counts[index(v)] += 1;
        }
    }
    let exact = exact_p_v(lab.rbm());
    let (chi2, df) = pearson_chi_square(&counts, &exact);
    eprintln!("fantasy particles: χ² = {chi2:.1}, {df} df");
    assert!(chi2 < chi_square_threshold(df), "χ² = {chi2} ({df} df)");
}

#[test]
fn the_sliced_log_likelihood_is_the_exact_one_of_the_machine_at_its_update() {
    // 64-16 on the digits: the point started at update 0 is summed 5000 states at a time
    // while learning goes on, then its free energies 5000/16 = 312 images at a time; it
    // equals −mean F − ln Z of the machine as it was at update 0, bit for bit (the same
    // sums in the same order).
    let mut lab = RbmLab::new("digits8", 16, 11).unwrap();
    assert!(lab.likelihood_exact());
    let frozen = lab.rbm().clone();
    assert!(!lab.likelihood_step(5000).unwrap());
    let mut slices = 1;
    while !lab.likelihood_step(5000).unwrap() {
        lab.advance(1).unwrap();
        slices += 1;
        let progress = lab.point_progress().unwrap();
        assert!((0.0..1.0).contains(&progress));
    }
    assert_eq!(
        slices + 1,
        65_536usize.div_ceil(5000) + 1797usize.div_ceil(5000 / 16),
        "ln Z's calls, then the free energies' calls; the last completes the point"
    );
    assert_eq!(lab.point_progress(), None);
    let z = log_z(&frozen).unwrap();
    let train = -mean_free_energy(&frozen, lab.training_images()).unwrap() - z;
    let test = -mean_free_energy(&frozen, lab.test_images()).unwrap() - z;
    assert_eq!(lab.curve_updates(), &[0.0]);
    assert_eq!(lab.curve_train(), &[train]);
    assert_eq!(lab.curve_test(), &[test]);
    assert_eq!(lab.curve_stderr(), &[0.0]);
    // The next point waits for `every` updates after the last.
    lab.set_likelihood_every(100).unwrap();
    assert!(lab.updates() < 100);
    assert!(!lab.likelihood_step(1).unwrap());
    assert_eq!(lab.point_progress(), None);
}

#[test]
fn beyond_24_units_the_log_likelihood_is_estimated_by_ais_with_an_error_bar() {
    // 64-30 on the digits: the smaller layer has 30 units, beyond exact enumeration. The
    // estimate at update 0 (W ~ N(0, 0.01²), visible biases at the base rates) is close to
    // the independent-pixel model's: |ln p − ln p_base| is at most Σ_j |b_j + (vW)_j|-sized
    // terms, a few hundredths per image here; the AIS error bar is reported and positive.
    let mut lab = RbmLab::new("digits8", 30, 2).unwrap();
    assert!(!lab.likelihood_exact());
    // The work is AIS steps of one run, 1000 a call, crossing runs and chunks: 16 chunks
    // × 2 runs × 1450 steps take 47 calls (the last completes ln Z), then one call sums
    // the 1797 images' free energies (2 images a step) and completes the point.
    let total = AIS_CHUNKS as u64 * AIS_RUNS_PER_CHUNK * AisSchedule::PAGE.steps() as u64;
    assert_eq!(total, 46_400);
    let mut calls = 0;
    let mut last = 0.0;
    while !lab.likelihood_step(1000).unwrap() {
        calls += 1;
        let progress = lab.point_progress().unwrap();
        assert!(progress > last && progress < 1.0, "{progress} after {last}");
        last = progress;
    }
    assert_eq!(
        calls,
        total.div_ceil(1000),
        "ln Z's calls; the next one ends the point"
    );
    // The same point, one step a call: bit for bit the same value (each chunk is seeded by
    // its index, and a run's draws do not depend on the slicing).
    let mut one_by_one = RbmLab::new("digits8", 30, 2).unwrap();
    while !one_by_one.likelihood_step(1).unwrap() {}
    assert_eq!(one_by_one.curve_train(), lab.curve_train());
    assert_eq!(one_by_one.curve_test(), lab.curve_test());
    assert_eq!(one_by_one.curve_stderr(), lab.curve_stderr());
    let (train, stderr) = (lab.curve_train()[0], lab.curve_stderr()[0]);
    assert!(stderr > 0.0 && stderr < 0.05, "stderr {stderr}");
    let base = Rbm::new(
        64,
        1,
        vec![0.0; 64],
        lab.rbm().visible_biases().to_vec(),
        vec![0.0],
    )
    .unwrap();
    let independent =
        -mean_free_energy(&base, lab.training_images()).unwrap() - log_z(&base).unwrap();
    assert!(
        (train - independent).abs() < 0.1,
        "{train} vs {independent}"
    );
}

/// Everything the lab holds, as text: equal before and after a refused call.
fn state(lab: &RbmLab) -> String {
    format!("{lab:?}")
}

#[test]
fn bad_input_gets_a_typed_error_and_leaves_the_lab_unchanged() {
    let mut lab = RbmLab::new("bars-4x4", 8, 1).unwrap();
    lab.advance(10).unwrap();
    lab.completion_start(0, Mask::parse("top").unwrap(), &[])
        .unwrap();
    lab.gallery_start(4, 10).unwrap();
    let before = state(&lab);
    let good = training("persistent", 100.0, 0.05, 1.0, 10.0);
    let cases: Vec<(RbmTraining, &str)> = vec![
        (training("persistent", 0.0, 0.05, 1.0, 10.0), "particles"),
        (training("persistent", 1e9, 0.05, 1.0, 10.0), "particles"),
        (
            training("persistent", f64::NAN, 0.05, 1.0, 10.0),
            "particles",
        ),
        (training("persistent", 100.0, 0.05, 1.0, 0.0), "batch"),
        (training("persistent", 100.0, 0.05, 1.0, 31.0), "batch"),
        (
            training("persistent", 100.0, 0.05, 0.0, 10.0),
            "gibbs steps",
        ),
        (
            training("persistent", 100.0, f64::INFINITY, 1.0, 10.0),
            "learning rate",
        ),
        (
            training("persistent", 100.0, 0.0, 1.0, 10.0),
            "learning rate",
        ),
        (training("annealed", 100.0, 0.05, 1.0, 10.0), "statistics"),
        (training("tempering", 100.0, 0.05, 1.0, 10.0), "replicas"),
        (
            training("tempering", 10_000.0, 0.05, 1000.0, 10.0),
            "particles × gibbs steps",
        ),
    ];
    for (mut bad, field) in cases {
        if field == "replicas" {
            bad.replicas = 1.0;
        }
        if field == "particles × gibbs steps" {
            bad.replicas = 64.0;
        }
        let err = lab.set_training(&bad).expect_err(field);
        assert_eq!(err.field(), field, "{err}");
        assert_eq!(state(&lab), before, "{field}");
    }
    // A bad K or R is refused even where the statistics do not use it; NaN is the page's
    // "none" there and passes.
    for (bad, field) in [
        (training("cd", 0.0, 0.05, 1.0, 10.0), "particles"),
        (training("cd", 1e9, 0.05, 1.0, 10.0), "particles"),
        (
            RbmTraining {
                replicas: 1.0,
                ..good.clone()
            },
            "replicas",
        ),
        (
            RbmTraining {
                replicas: -5.0,
                ..good.clone()
            },
            "replicas",
        ),
    ] {
        let err = lab.set_training(&bad).expect_err(field);
        assert_eq!(err.field(), field, "{err}");
        assert_eq!(state(&lab), before, "{field}");
    }
    let none = RbmTraining {
        replicas: f64::NAN,
        ..training("cd", f64::NAN, 0.05, 1.0, 10.0)
    };
    lab.clone().set_training(&none).unwrap();
    let mut momentum = good.clone();
    momentum.momentum = 1.0;
    assert_eq!(lab.set_training(&momentum).unwrap_err().field(), "momentum");
    for (call, field) in [
        (lab.clone().advance(0).unwrap_err(), "updates"),
        (lab.clone().advance(1000000000).unwrap_err(), "updates"),
        (
            lab.clone().gallery_start(0, 10).unwrap_err(),
            "gallery images",
        ),
        (
            lab.clone().gallery_start(101, 10).unwrap_err(),
            "gallery images",
        ),
        (
            lab.clone().gallery_start(4, 0).unwrap_err(),
            "gallery steps",
        ),
        (
            lab.clone()
                .completion_start(30, Mask::parse("top").unwrap(), &[])
                .unwrap_err(),
            "test image",
        ),
        (Mask::parse("diagonal").unwrap_err(), "mask"),
        (
            lab.clone()
                .completion_start(0, Mask::parse("paint").unwrap(), &[1; 15])
                .unwrap_err(),
            "painted mask",
        ),
        (
            lab.clone()
                .completion_start(0, Mask::parse("paint").unwrap(), &[0; 16])
                .unwrap_err(),
            "painted mask",
        ),
        (
            lab.clone()
                .completion_start(0, Mask::parse("paint").unwrap(), &[2; 16])
                .unwrap_err(),
            "painted mask",
        ),
        (lab.clone().completion_step(0).unwrap_err(), "steps"),
        (
            lab.clone().likelihood_step(0).unwrap_err(),
            "likelihood work",
        ),
        (
            lab.clone().set_likelihood_every(0).unwrap_err(),
            "likelihood every",
        ),
    ] {
        assert_eq!(call.field(), field, "{call}");
    }
    // The same calls on the lab itself change nothing.
    assert!(lab.advance(0).is_err());
    assert!(lab.gallery_start(0, 10).is_err());
    assert!(
        lab.completion_start(0, Mask::parse("paint").unwrap(), &[1; 15])
            .is_err()
    );
    assert!(lab.completion_step(0).is_err());
    assert!(lab.set_likelihood_every(0).is_err());
    assert_eq!(state(&lab), before);
    // Datasets, sizes and seeds.
    for (result, field) in [
        (RbmLab::new("digits9", 16, 1).err(), "dataset"),
        (RbmLab::new("digits8", 0, 1).err(), "hidden units"),
        (RbmLab::new("digits8", 1000000, 1).err(), "hidden units"),
        (RbmLab::new("digits8", 501, 1).err(), "hidden units"),
        (RbmLab::new("digits8", 16, (1 << 53) + 1).err(), "seed"),
        (RbmLab::from_bytes(b"1100\n012\n", 2, 1).err(), "dataset"),
        (RbmLab::from_bytes(b"1100\n011\n", 2, 1).err(), "dataset"),
        (RbmLab::from_bytes(b"", 2, 1).err(), "dataset"),
        (
            RbmLab::from_bytes(&[0xff, 0xfe, 0x00], 2, 1).err(),
            "dataset",
        ),
    ] {
        let err = result.expect("refused");
        assert_eq!(err.field(), field, "{err}");
    }
    // A digits file with one byte changed fails its checksum.
    let mut file = boltzlab::learn::digits::DIGITS_FILE.to_vec();
    let middle = file.len() / 2;
    file[middle] ^= 1;
    let err = RbmLab::from_bytes(&file, 16, 1).unwrap_err();
    assert_eq!(err.field(), "dataset");
    // The shipped file itself loads, as one set used for training and testing.
    let lab = RbmLab::from_bytes(boltzlab::learn::digits::DIGITS_FILE, 16, 1).unwrap();
    assert_eq!((lab.training_images().len(), lab.width()), (1797, 8));
}

#[test]
fn cd_shows_reconstructions_and_tempering_its_coldest_particles() {
    let mut lab = RbmLab::new("bars-4x4", 8, 4).unwrap();
    lab.set_training(&training("cd", f64::NAN, 0.05, 5.0, 10.0))
        .unwrap();
    assert!(!lab.has_particles());
    assert_eq!(
        lab.shown(),
        30,
        "one display chain per bars pattern (N = 30 < 100)"
    );
    lab.advance(3).unwrap();
    lab.refresh();
    assert_eq!(lab.fantasy().len(), 30 * 16);
    assert!(lab.fantasy_mean().iter().all(|p| (0.0..=1.0).contains(p)));
    lab.set_training(&training("tempering", 20.0, 0.05, 1.0, 10.0))
        .unwrap();
    assert!(lab.has_particles());
    assert_eq!(lab.shown(), 20);
    lab.advance(2).unwrap();
    lab.refresh();
    assert_eq!(lab.fantasy().len(), 20 * 16);
    assert_eq!(lab.reconstructions().len(), 16 * 16);
}

/// The page's check of options waiting for Apply options (`check_training`) takes exactly what
/// `set_training` takes, refuses the rest with the same message, and changes nothing, even for
/// good options that `set_training` would act on (new particles, a new batch size). A grid of
/// 4 × 4 × 3 × 4 × 4 × 3 options, good and bad. Deterministic.
#[test]
fn checking_options_takes_what_setting_them_takes_and_changes_nothing() {
    let mut lab = RbmLab::new("bars-4x4", 8, 1).unwrap();
    lab.advance(10).unwrap();
    let before = state(&lab);
    let (mut taken, mut refused) = (0, 0);
    for statistics in ["cd", "persistent", "tempering", "annealed"] {
        for particles in [f64::NAN, 0.0, 37.0, 1e9] {
            for steps in [0.0, 1.0, 2.5] {
                for batch in [1.0, 7.0, 31.0, f64::INFINITY] {
                    for rate in [f64::NAN, -1.0, 0.01, 1e300] {
                        for momentum in [0.0, 0.5, 1.0] {
                            let t = RbmTraining {
                                replicas: 5.0,
                                momentum,
                                ..training(statistics, particles, rate, steps, batch)
                            };
                            let checked = lab.check_training(&t).map_err(|e| e.to_string());
                            assert_eq!(state(&lab), before, "checking {t:?} changed the lab");
                            let set = lab.clone().set_training(&t).map_err(|e| e.to_string());
                            assert_eq!(checked, set, "{t:?}");
                            if set.is_ok() {
                                taken += 1;
                            } else {
                                refused += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    // Taken: cd with no or 37 particles, persistent and tempering with 37; one step; a batch
    // of 1 or 7; rate 0.01; momentum 0 or 0.5: (2 + 1 + 1) × 2 × 2 = 16.
    assert_eq!((taken, refused), (16, 4 * 4 * 3 * 4 * 4 * 3 - 16));
}
