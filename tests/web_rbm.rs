//! Restricted machines in WebAssembly (headless Chromium through wasm-bindgen-test): the
//! same seeded training gives the same machine bit for bit as natively, and the time per
//! update of a 64-16 machine (batch 100, 100 persistent particles) is reported.
//!
//!   CHROMEDRIVER=/usr/bin/chromedriver cargo test --release --target wasm32-unknown-unknown \
//!     --no-default-features --test web_rbm
#![cfg(target_arch = "wasm32")]

use boltzlab::learn::digits;
use boltzlab::learn::rbm::{RateSchedule, Rbm, RbmTrainer, Statistics, TrainingOptions};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// FNV-1a over the bits of every weight and bias (the native twin is in tests/rbm.rs).
fn fingerprint(m: &Rbm) -> u32 {
    let bytes: Vec<u8> = m
        .weights()
        .iter()
        .chain(m.visible_biases())
        .chain(m.hidden_biases())
        .flat_map(|x| x.to_bits().to_le_bytes())
        .collect();
    digits::fnv1a32(&bytes)
}

fn trainer() -> RbmTrainer {
    let (train, _) = digits::split();
    let mut m = Rbm::random(64, 16, 0.01, 1).unwrap();
    m.set_base_rate_biases(train.images()).unwrap();
    let options = TrainingOptions {
        statistics: Statistics::Persistent {
            particles: 100,
            steps: 1,
        },
        batch: 100,
        rate: 0.02,
        schedule: RateSchedule::Constant,
        momentum: 0.5,
        weight_decay: 0.0,
        seed: 1,
    };
    RbmTrainer::new(m, train.images(), options).unwrap()
}

#[wasm_bindgen_test]
fn training_in_wasm_gives_the_native_machine_bit_for_bit() {
    let mut t = trainer();
    t.run(50).unwrap();
    assert_eq!(fingerprint(t.rbm()), NATIVE_FINGERPRINT);
}

#[wasm_bindgen_test]
fn time_per_update_of_a_64_16_machine_in_wasm() {
    let mut t = trainer();
    t.run(100).unwrap();
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = js_sys::Date::now();
        t.run(500).unwrap();
        best = best.min((js_sys::Date::now() - start) / 500.0);
    }
    web_sys::console::log_1(
        &format!(
            "target: wasm 64-16 update, batch 100, 100 particles: {best:.3} ms (best of 5 × 500)"
        )
        .into(),
    );
}

/// The native fingerprint after 50 updates (tests/rbm.rs pins the same number).
const NATIVE_FINGERPRINT: u32 = 1_192_079_894;

/// The restricted run's session in WebAssembly: saved inside an update done in slices,
/// restored, and continued, it is the uninterrupted run bit for bit (natively:
/// tests/rbm_session.rs).
#[wasm_bindgen_test]
fn a_session_saved_inside_an_update_continues_bit_for_bit() {
    use boltzlab::app::RbmLab;
    let mut lab = RbmLab::new("digits8", 16, 3).unwrap();
    lab.advance(5).unwrap();
    lab.learn(50_000).unwrap();
    let text = lab.session();
    assert!(!text.contains("\"pending\":null"), "an update is under way");
    let mut restored = RbmLab::from_session(&text).unwrap();
    lab.advance(3).unwrap();
    restored.advance(3).unwrap();
    assert_eq!(fingerprint(restored.rbm()), fingerprint(lab.rbm()));
    assert_eq!(restored.session(), lab.session());
}
