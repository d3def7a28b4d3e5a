//! A restricted-machine run whose log-likelihood points are computed apart from learning
//! (the page's second worker: `start-point` → [`PointScorer`] on the frozen machine →
//! `finish-point`) is the run whose points are computed in place (`likelihood-step`), bit
//! for bit: the same curves, the same session text, for an exact ln Z (64-16 on the
//! digits) and an AIS one (64-30: the same seeded runs). A scorer refuses what does not fit
//! and is left as it was. Deterministic: every run is seeded, so nothing here fails by
//! chance.

use boltzlab::app::rbm::points::PointScorer;
use boltzlab::app::{RbmCommand, RbmLab, RbmReply};

/// Learns `rounds` × 40 updates, making every point due as it goes, in place.
fn in_place(mut lab: RbmLab, rounds: usize) -> RbmLab {
    let step = |lab: &mut RbmLab| {
        while lab.point_machine().is_some()
            && lab
                .apply(RbmCommand::LikelihoodStep { work: 1 << 12 })
                .unwrap()
                == (RbmReply::LikelihoodWorked { added: false })
        {}
    };
    for _ in 0..rounds {
        step(&mut lab);
        lab.apply(RbmCommand::Advance { updates: 40 }).unwrap();
        lab.apply(RbmCommand::StartPoint).unwrap();
    }
    step(&mut lab);
    lab
}

/// The same, each point computed by a scorer of the run's images and seed (as the page's
/// second worker holds them: pixels one after the other, the frozen machine as W, a, b) and
/// handed back.
fn apart(mut lab: RbmLab, rounds: usize) -> RbmLab {
    let train = lab.training_images().concat();
    let test = lab.test_images().concat();
    let mut scorer = PointScorer::from_pixels(lab.visible(), &train, &test, lab.seed()).unwrap();
    let finish = |lab: &mut RbmLab, scorer: &mut PointScorer| {
        let Some((rbm, update)) = lab.point_machine() else {
            return;
        };
        let parameters = [rbm.weights(), rbm.visible_biases(), rbm.hidden_biases()].concat();
        scorer
            .start_from_parameters(rbm.hidden() as u64, &parameters, update)
            .unwrap();
        let point = loop {
            if let Some(point) = scorer.step(1 << 12).unwrap() {
                break point;
            }
        };
        assert_eq!(scorer.progress(), None, "the job ends with its point");
        let reply = lab
            .apply(RbmCommand::FinishPoint {
                update: point.update,
                train: point.train,
                test: point.test,
                stderr: point.stderr,
            })
            .unwrap();
        assert_eq!(reply, RbmReply::LikelihoodWorked { added: true });
    };
    for _ in 0..rounds {
        finish(&mut lab, &mut scorer);
        lab.apply(RbmCommand::Advance { updates: 40 }).unwrap();
        lab.apply(RbmCommand::StartPoint).unwrap();
    }
    finish(&mut lab, &mut scorer);
    lab
}

fn run(hidden: u64, every: u64) -> RbmLab {
    let mut lab = RbmLab::new("digits8", 1, 1).unwrap();
    lab.apply(RbmCommand::NewRun {
        dataset: boltzlab::app::rbm::DatasetChoice::Digits8,
        hidden,
        seed: 11,
        training: None,
        likelihood_every: Some(every),
    })
    .unwrap();
    lab
}

#[test]
fn exact_points_computed_apart_from_learning_are_the_runs_own_bit_for_bit() {
    // 64-16: ln Z summed over the 2^16 hidden states; a point every 30 updates, so the
    // 40-update rounds make points at updates 0, 40, 80, 120.
    let (a, b) = (in_place(run(16, 30), 3), apart(run(16, 30), 3));
    assert!(a.likelihood_exact());
    assert_eq!(a.curve_updates(), [0.0, 40.0, 80.0, 120.0]);
    assert_eq!(b.curve_updates(), a.curve_updates());
    assert_eq!(b.curve_train(), a.curve_train());
    assert_eq!(b.curve_test(), a.curve_test());
    assert_eq!(b.session(), a.session());
}

#[test]
fn ais_points_computed_apart_from_learning_are_the_runs_own_bit_for_bit() {
    // 64-30: AIS, 32 runs seeded by the run's seed and the point's update.
    let (a, b) = (in_place(run(30, 30), 1), apart(run(30, 30), 1));
    assert!(!a.likelihood_exact());
    assert_eq!(a.curve_updates(), [0.0, 40.0]);
    assert!(a.curve_stderr().iter().all(|&e| e > 0.0));
    assert_eq!(b.curve_stderr(), a.curve_stderr());
    assert_eq!(b.curve_train(), a.curve_train());
    assert_eq!(b.session(), a.session());
}

#[test]
fn a_point_restored_from_a_session_is_finished_apart_like_the_one_saved() {
    // The session keeps the point under way (its frozen machine); restored, the point is
    // computed apart and equals the one the saved run makes in place.
    let mut saved = run(16, 30);
    saved.apply(RbmCommand::Advance { updates: 35 }).unwrap();
    let restored = RbmLab::from_session(&saved.session()).unwrap();
    assert_eq!(restored.point_machine().map(|p| p.1), Some(0));
    assert_eq!(apart(restored, 0).session(), in_place(saved, 0).session());
}

fn field(e: boltzlab::ParamError) -> String {
    e.to_string()
}

#[test]
fn a_scorer_refuses_what_does_not_fit_and_keeps_its_point() {
    let lab = run(16, 30);
    let (train, test) = (lab.training_images().concat(), lab.test_images().concat());
    for (visible, train, test, seed, name) in [
        (0, &train[..], &test[..], 1, "visible"),
        (1025, &train[..], &test[..], 1, "visible"),
        (64, &train[..63], &test[..], 1, "training images"),
        (64, &train[..], &[][..], 1, "test images"),
        (64, &train[..], &test[..], (1 << 53) + 1, "seed"),
    ] {
        let e = field(PointScorer::from_pixels(visible, train, test, seed).unwrap_err());
        assert!(e.starts_with(name), "{e}");
    }
    let mut bad = train.clone();
    bad[5] = 2;
    let e = field(PointScorer::from_pixels(64, &bad, &test, 1).unwrap_err());
    assert!(e.starts_with("training images"), "{e}");

    let mut scorer = PointScorer::from_pixels(64, &train, &test, lab.seed()).unwrap();
    let (rbm, update) = lab.point_machine().unwrap();
    let parameters = [rbm.weights(), rbm.visible_biases(), rbm.hidden_biases()].concat();
    scorer
        .start_from_parameters(16, &parameters, update)
        .unwrap();
    scorer.step(100).unwrap();
    let progress = scorer.progress();
    let mut nan = parameters.clone();
    nan[3] = f64::NAN;
    for (hidden, parameters, name) in [
        (17, &parameters[..], "snapshot"),
        (16, &parameters[1..], "snapshot"),
        (0, &parameters[..], "hidden units"),
        (16, &nan[..], "weights"),
    ] {
        let e = field(
            scorer
                .start_from_parameters(hidden, parameters, 9)
                .unwrap_err(),
        );
        assert!(e.starts_with(name), "{e}");
        assert_eq!(scorer.progress(), progress, "the point under way is kept");
        assert_eq!(scorer.job_update(), Some(0));
    }
    let e = field(scorer.step(0).unwrap_err());
    assert!(e.starts_with("likelihood work"), "{e}");
    assert_eq!(scorer.progress(), progress);
}
