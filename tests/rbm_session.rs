//! The restricted machine's session text (src/app/rbm/session.rs): a run saved after N
//! updates and restored continues bit for bit as the uninterrupted run (N + M updates ≡
//! N, save, restore, M: the weights, the particles or replicas and the whole session text
//! equal), for every way of getting the statistics, the user's own images and a
//! log-likelihood point under way; and every malformed text (truncated, wrong format or
//! version, wrong shapes, NaN, ±∞, huge sizes, a broken permutation, a zero random state)
//! is refused with a ParamError naming the field, leaving the running lab unchanged.
//! Deterministic: no test here can fail by chance.

use boltzlab::app::RbmLab;
use boltzlab::app::packing::pack_numbers;
use boltzlab::app::rbm::RbmTraining;
use boltzlab::error::ParamError;
use serde_json::{Value, json};

fn training(statistics: &str, particles: f64, steps: f64, batch: f64) -> RbmTraining {
    RbmTraining {
        statistics: statistics.into(),
        steps,
        particles,
        replicas: 3.0,
        batch,
        rate: 0.05,
        momentum: 0.5,
        decay: 0.001,
    }
}

/// Runs `n` updates, saves, restores into a fresh lab, runs `m` more in both the restored
/// and the uninterrupted lab, and checks they are the same run.
fn continues_exactly(mut lab: RbmLab, n: u64, m: u64) {
    lab.advance(n).unwrap();
    let text = lab.session();
    let mut restored = RbmLab::from_session(&text).unwrap();
    assert_eq!(restored.session(), text, "the text reads back to itself");
    lab.advance(m).unwrap();
    restored.advance(m).unwrap();
    assert_eq!(restored.updates(), lab.updates());
    assert_eq!(
        restored.weights(),
        lab.weights(),
        "W after {n} + {m} updates"
    );
    assert_eq!(restored.rbm(), lab.rbm());
    lab.refresh();
    restored.refresh();
    assert_eq!(restored.fantasy(), lab.fantasy(), "the particles");
    assert_eq!(
        restored.session(),
        lab.session(),
        "everything the session keeps"
    );
}

#[test]
fn every_statistics_continues_bit_for_bit_after_a_restore() {
    for (statistics, particles, steps, batch) in [
        ("persistent", 20.0, 2.0, 7.0),
        ("cd", 1.0, 3.0, 10.0),
        ("tempering", 8.0, 1.0, 30.0),
    ] {
        let mut lab = RbmLab::new("bars-4x4", 6, 11).unwrap();
        lab.set_training(&training(statistics, particles, steps, batch))
            .unwrap();
        // N = 9 stops inside an epoch (batch 7 of 30: cursor 21 after 3 updates of the
        // second epoch's order).
        continues_exactly(lab, 9, 13);
    }
}

#[test]
fn digits_with_persistent_particles_continue_bit_for_bit() {
    let mut lab = RbmLab::new("digits8", 30, 5).unwrap();
    lab.set_training(&training("persistent", 100.0, 1.0, 100.0))
        .unwrap();
    continues_exactly(lab, 17, 20);
}

#[test]
fn the_users_images_are_kept_in_the_session() {
    let lab = RbmLab::from_bytes(b"110\n011\n101\n000\n111\n", 2, 3).unwrap();
    continues_exactly(lab, 4, 5);
}

#[test]
fn a_likelihood_point_under_way_gives_the_same_curve() {
    // 25 hidden and 16 visible units: exact ln Z over 2^16 states, summed in slices.
    let mut lab = RbmLab::new("bars-4x4", 25, 2).unwrap();
    lab.set_likelihood_every(5).unwrap();
    lab.advance(7).unwrap();
    assert!(!lab.likelihood_step(1000).unwrap());
    let mut restored = RbmLab::from_session(&lab.session()).unwrap();
    while !lab.likelihood_step(4096).unwrap() {}
    while !restored.likelihood_step(4096).unwrap() {}
    assert_eq!(restored.curve_updates(), lab.curve_updates());
    assert_eq!(restored.curve_train(), lab.curve_train());
    assert_eq!(restored.curve_test(), lab.curve_test());
}

// --- Malformed texts --------------------------------------------------------------------------

fn saved() -> (RbmLab, Value) {
    let mut lab = RbmLab::new("bars-4x4", 4, 1).unwrap();
    lab.set_training(&training("tempering", 5.0, 1.0, 10.0))
        .unwrap();
    lab.advance(3).unwrap();
    let value = serde_json::from_str(&lab.session()).unwrap();
    (lab, value)
}

/// The text is refused with a ParamError whose message names `field`, and a running lab
/// that tries to restore it is left as it was.
fn refused(text: &str, field: &str) {
    let (mut lab, _) = saved();
    let before = lab.session();
    let err: ParamError = lab.restore_session(text).unwrap_err();
    assert!(
        err.to_string().contains(field),
        "expected an error naming '{field}', got: {err}"
    );
    assert_eq!(lab.session(), before, "the lab is unchanged");
}

fn edited(edit: impl FnOnce(&mut Value)) -> String {
    let (_, mut value) = saved();
    edit(&mut value);
    value.to_string()
}

#[test]
fn truncated_texts_are_refused() {
    let (lab, _) = saved();
    let text = lab.session();
    for cut in [0, 1, text.len() / 3, text.len() / 2, text.len() - 1] {
        refused(&text[..cut], "restricted session");
    }
    refused("", "restricted session");
    refused("[1, 2]", "format");
}

#[test]
fn wrong_format_or_version_is_refused() {
    refused(&edited(|v| v["version"] = json!(2)), "version");
    refused(&edited(|v| v["version"] = json!("1")), "version");
    refused(
        &edited(|v| v["format"] = json!("boltzlab-machine")),
        "format",
    );
    refused(&edited(|v| v["unknown"] = json!(1)), "unknown field");
    refused(
        &edited(|v| {
            v.as_object_mut().unwrap().remove("weights");
        }),
        "weights",
    );
}

#[test]
fn wrong_shapes_are_refused() {
    // 4 hidden units of 16 visible: 64 weights; give 63.
    refused(
        &edited(|v| v["weights"] = json!(pack_numbers(&[0.1; 63]))),
        "weights",
    );
    refused(
        &edited(|v| v["velocity"]["hidden"] = json!(pack_numbers(&[0.0; 5]))),
        "velocity",
    );
    refused(&edited(|v| v["hidden"] = json!(5)), "weights");
    refused(&edited(|v| v["width"] = json!(8)), "width");
    refused(
        &edited(|v| v["replicas"]["states"][0]["count"] = json!(6)),
        "replicas",
    );
    refused(
        &edited(|v| {
            let states = v["replicas"]["states"].as_array_mut().unwrap();
            states.pop();
        }),
        "replicas",
    );
    refused(
        &edited(|v| v["replicas"]["betas"][1] = json!(0.7)),
        "replicas",
    );
    refused(&edited(|v| v["replicas"] = Value::Null), "particles");
    refused(&edited(|v| v["order"][0] = v["order"][1].clone()), "order");
    refused(
        &edited(|v| v["order"].as_array_mut().unwrap().truncate(29)),
        "order",
    );
    refused(&edited(|v| v["cursor"] = json!(5)), "cursor");
    refused(
        &edited(|v| v["curve"]["train"] = json!([1.0, 2.0])),
        "curve",
    );
    refused(&edited(|v| v["dataset"] = json!("custom")), "images");
    refused(&edited(|v| v["dataset"] = json!("mnist")), "dataset");
    refused(
        &edited(|v| v["random_state"] = json!([0, 0, 0, 0])),
        "random state",
    );
}

#[test]
fn non_finite_numbers_are_refused() {
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e300] {
        refused(
            &edited(|v| v["weights"] = json!(pack_numbers(&[x; 64]))),
            "weights",
        );
        refused(
            &edited(|v| v["velocity"]["weights"] = json!(pack_numbers(&[x; 64]))),
            "velocity",
        );
        refused(
            &edited(|v| v["point"]["hidden_biases"] = json!(pack_numbers(&[x; 4]))),
            "point",
        );
    }
    refused(
        &edited(|v| v["options"]["rate"] = json!(-1.0)),
        "learning rate",
    );
    // JSON has no NaN or infinity: 1e400 overflows and is refused as it is read.
    let text = edited(|_| {}).replacen("\"train\":[", "\"train\":[1e400,", 1);
    refused(&text, "restricted session");
}

#[test]
fn huge_sizes_are_refused() {
    refused(&edited(|v| v["hidden"] = json!(1_000_000_000u64)), "hidden");
    refused(&edited(|v| v["updates"] = json!(1u64 << 60)), "updates");
    refused(&edited(|v| v["changes"] = json!(u64::MAX)), "changes");
    refused(
        &edited(|v| v["options"]["statistics"]["particles"] = json!(1_000_000)),
        "particles",
    );
    refused(
        &edited(|v| v["likelihood_every"] = json!(0)),
        "likelihood_every",
    );
    refused(
        &edited(|v| {
            v["curve"] = json!({"updates": [7.0], "train": [-9.0], "test": [-9.0], "stderr": [0.0]})
        }),
        "curve",
    );
    let huge = " ".repeat(64 << 20) + "{}";
    refused(&huge, "restricted session");
}

// --- Updates in slices ------------------------------------------------------------------------

/// `updates` updates done in slices of `budget` multiply-adds by `lab.learn`.
fn learn_in_slices(lab: &mut RbmLab, updates: u64, budget: u64) {
    let target = lab.updates() + updates;
    while lab.updates() < target {
        lab.learn(budget).unwrap();
    }
}

#[test]
fn an_update_in_slices_is_the_update_at_once_bit_for_bit() {
    // Budgets from below one block Gibbs step (2VH = 192) to several chains: the slices
    // stop inside the clamped phase, inside a chain's k steps, between replicas, in the
    // statistics and in the swaps.
    for (statistics, particles, steps, batch) in [
        ("persistent", 20.0, 5.0, 7.0),
        ("cd", 1.0, 4.0, 10.0),
        ("tempering", 8.0, 3.0, 30.0),
    ] {
        for budget in [1, 700, 5000] {
            let mut whole = RbmLab::new("bars-4x4", 6, 4).unwrap();
            whole
                .set_training(&training(statistics, particles, steps, batch))
                .unwrap();
            let mut sliced = whole.clone();
            whole.advance(12).unwrap();
            learn_in_slices(&mut sliced, 12, budget);
            assert_eq!(sliced.rbm(), whole.rbm(), "{statistics}, budget {budget}");
            // The last slice may have begun update 13: finishing it at once gives the same
            // update 13 as doing it whole.
            sliced.advance(1).unwrap();
            whole.advance(1).unwrap();
            // Everything but the count of weight changes the page redraws by.
            let state = |lab: &RbmLab| {
                let mut v: Value = serde_json::from_str(&lab.session()).unwrap();
                v.as_object_mut().unwrap().remove("changes");
                v
            };
            assert_eq!(
                state(&sliced),
                state(&whole),
                "{statistics}, budget {budget}"
            );
        }
    }
}

#[test]
fn a_session_saved_inside_an_update_continues_bit_for_bit() {
    for (statistics, particles, steps, batch) in [
        ("persistent", 20.0, 5.0, 7.0),
        ("cd", 1.0, 4.0, 10.0),
        ("tempering", 8.0, 3.0, 30.0),
    ] {
        let mut lab = RbmLab::new("bars-4x4", 6, 8).unwrap();
        lab.set_training(&training(statistics, particles, steps, batch))
            .unwrap();
        lab.advance(3).unwrap();
        // Part of an update: the session carries where it stands.
        lab.learn(1500).unwrap();
        let text = lab.session();
        assert!(
            !text.contains("\"pending\":null"),
            "{statistics}: an update is under way"
        );
        let mut restored = RbmLab::from_session(&text).unwrap();
        assert_eq!(restored.session(), text);
        learn_in_slices(&mut lab, 5, 900);
        learn_in_slices(&mut restored, 5, 900);
        assert_eq!(restored.rbm(), lab.rbm(), "{statistics}");
        assert_eq!(restored.session(), lab.session(), "{statistics}");
        // A place that is not in an update is refused.
        let mut value: Value = serde_json::from_str(&text).unwrap();
        value["pending"]["progress"]["free"]["step"] = json!(99);
        let err = RbmLab::from_session(&value.to_string()).unwrap_err();
        assert!(err.to_string().contains("pending"), "{err}");
    }
}
