//! ln Z of a restricted machine with a one-of-K label group, exactly and by AIS, against
//! brute-force enumeration of every (image, label) pair on tiny machines:
//! Z = Σ_v Σ_y e^{−F([v, e_y])}.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

use boltzlab::ParamError;
use boltzlab::learn::rbm::ais::log_z_base_with_labels;
use boltzlab::learn::rbm::exact::log_z_with_label_group;
use boltzlab::learn::rbm::{AisRuns, AisSchedule, Rbm};
use boltzlab::rng::seeded_rng;

const PIXELS: usize = 6;
const LABELS: usize = 3;
const HIDDEN: usize = 4;

/// A machine over 6 pixels and 3 labels with 4 hidden units, every parameter uniform in
/// [−`scale`, `scale`], from `seed`.
fn tiny(seed: u64, scale: f64) -> Rbm {
    let nv = PIXELS + LABELS;
    let mut rng = seeded_rng(seed);
    let mut draw = |n: usize| -> Vec<f64> {
        (0..n)
            .map(|_| (boltzlab::rng::uniform(&mut rng) * 2.0 - 1.0) * scale)
            .collect()
    };
    let (w, a, b) = (draw(nv * HIDDEN), draw(nv), draw(HIDDEN));
    Rbm::new(nv, HIDDEN, w, a, b).unwrap()
}

/// ln Σ_v Σ_y e^{−F([v, e_y])} by enumerating the 2^6 images and 3 labels.
fn brute_force(m: &Rbm) -> f64 {
    let mut scratch = vec![0.0; HIDDEN];
    let mut terms = Vec::new();
    for v in 0..1usize << PIXELS {
        for y in 0..LABELS {
            let mut joint: Vec<u8> = (0..PIXELS).map(|i| ((v >> i) & 1) as u8).collect();
            joint.extend((0..LABELS).map(|k| u8::from(k == y)));
            terms.push(-m.free_energy_with(&joint, &mut scratch));
        }
    }
    let top = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln()
}

/// Base logits for the AIS start: the image's from `seed`, the labels' unequal.
fn base(seed: u64) -> Vec<f64> {
    let mut rng = seeded_rng(seed);
    let mut b: Vec<f64> = (0..PIXELS)
        .map(|_| boltzlab::rng::uniform(&mut rng) * 2.0 - 1.0)
        .collect();
    b.extend([0.5, -0.3, 0.1]);
    b
}

#[test]
fn the_exact_sum_over_labels_equals_enumeration() {
    for seed in 0..5 {
        let m = tiny(seed, 1.5);
        let exact = log_z_with_label_group(&m, LABELS, 2).unwrap();
        let brute = brute_force(&m);
        assert!(
            (exact - brute).abs() < 1e-10,
            "seed {seed}: {exact} against {brute}"
        );
    }
}

/// Five machines, one AIS estimate each (400 runs on the page's schedule, from an uneven
/// base): each lies within 4 of its own standard errors of the enumerated ln Z. ln Ẑ is
/// nearly normal about ln Z (biased low by about stderr²/2, here < 10⁻³), so a correct
/// estimator fails this with probability about 5 · 6·10⁻⁵ = 3·10⁻⁴ over the five; the seeds
/// are fixed, so the test is deterministic. A label drawn as independent bits, or a base
/// ln Z_A without the softmax's log-sum, is off by tens of standard errors.
#[test]
fn ais_with_a_label_group_lies_within_four_standard_errors_of_enumeration() {
    for seed in 0..5 {
        let m = tiny(10 + seed, 1.5);
        let exact = brute_force(&m);
        let base = base(seed);
        let mut runs = AisRuns::new(&m, &base, &AisSchedule::PAGE, 400, 7 + seed)
            .unwrap()
            .with_label_group(LABELS)
            .unwrap();
        runs.advance(&m, u64::MAX);
        let e = runs.estimate().unwrap();
        let deviation = (e.log_z - exact) / e.stderr;
        eprintln!(
            "seed {seed}: exact {exact:.5}, AIS {:.5} ± {:.5} ({deviation:+.2}σ), {:.0} effective runs",
            e.log_z, e.stderr, e.effective_runs
        );
        assert!(e.stderr > 0.0 && deviation.abs() < 4.0, "{deviation}σ");
    }
}

/// With W = 0, b = 0 and the machine's biases equal to the base's, every importance weight
/// is 1: ln Ẑ is ln Z_A exactly, and that is the enumerated ln Z.
#[test]
fn ais_with_a_label_group_is_exact_for_a_machine_equal_to_its_base() {
    let base = base(3);
    let m = Rbm::new(
        PIXELS + LABELS,
        HIDDEN,
        vec![0.0; (PIXELS + LABELS) * HIDDEN],
        base.clone(),
        vec![0.0; HIDDEN],
    )
    .unwrap();
    let mut runs = AisRuns::new(&m, &base, &AisSchedule::PAGE, 4, 1)
        .unwrap()
        .with_label_group(LABELS)
        .unwrap();
    runs.advance(&m, u64::MAX);
    let e = runs.estimate().unwrap();
    assert!((e.log_z - brute_force(&m)).abs() < 1e-10);
    assert!((e.log_z - log_z_base_with_labels(&base, HIDDEN, LABELS)).abs() < 1e-12);
    assert!(e.stderr.abs() < 1e-12);
}

/// Advanced 1, 13 or 10 000 steps at a time, the labelled runs give the same estimate bit
/// for bit (each run draws from its own stream).
#[test]
fn labelled_ais_in_slices_is_bit_for_bit_the_whole_estimate() {
    let m = tiny(4, 1.0);
    let base = base(4);
    let make = || {
        AisRuns::new(&m, &base, &AisSchedule::PAGE, 6, 2)
            .unwrap()
            .with_label_group(LABELS)
            .unwrap()
    };
    let mut whole = make();
    whole.advance(&m, u64::MAX);
    for slice in [1, 13, 10_000] {
        let mut runs = make();
        while !runs.advance(&m, slice) {}
        assert_eq!(runs.estimate(), whole.estimate(), "slices of {slice}");
    }
}

#[test]
fn a_label_group_of_fewer_than_two_or_all_units_is_refused_by_name() {
    let m = tiny(1, 1.0);
    let base = base(1);
    for labels in [0, 1, PIXELS + LABELS] {
        let e = AisRuns::new(&m, &base, &AisSchedule::PAGE, 4, 1)
            .unwrap()
            .with_label_group(labels)
            .expect_err("must be refused");
        assert!(
            matches!(
                e,
                ParamError::OutOfRange {
                    field: "labels",
                    ..
                }
            ),
            "{e}"
        );
    }
    assert!(log_z_with_label_group(&m, 0, 1).is_err());
    assert!(log_z_with_label_group(&m, PIXELS + LABELS, 1).is_err());
}
