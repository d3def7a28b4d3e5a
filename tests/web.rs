//! The web facade, driven in headless Chromium by wasm-bindgen-test.
#![cfg(target_arch = "wasm32")]

use boltzlab::web::{IsingLab, heat_bath_up_probability};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn advancing_keeps_the_bookkeeping_equal_to_recomputation() {
    let mut lab = IsingLab::new(64.0, 2.269, 42.0).unwrap();
    for _ in 0..20 {
        lab.advance(12_345.0).unwrap();
        assert_eq!(lab.energy_per_spin(), lab.recomputed_energy_per_spin());
    }
    assert_eq!(lab.ticks(), 20.0 * 12_345.0);
    assert_eq!(lab.trace_len(), 21);
}

#[wasm_bindgen_test]
fn spins_are_readable_through_wasm_memory() {
    let lab = IsingLab::new(32.0, 2.0, 1.0).unwrap();
    let memory: js_sys::WebAssembly::Memory = boltzlab::web::wasm_memory().into();
    let view = js_sys::Int8Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        lab.spins_ptr() as u32,
        lab.spin_count() as u32,
    );
    let spins = view.to_vec();
    assert!(spins.iter().all(|&s| s == 1 || s == -1));
    let m: i32 = spins.iter().map(|&s| i32::from(s)).sum();
    assert_eq!(f64::from(m) / 1024.0, lab.magnetization_per_spin());
}

#[wasm_bindgen_test]
fn bad_parameters_throw_and_change_nothing() {
    assert!(IsingLab::new(0.0, 2.0, 1.0).is_err());
    assert!(IsingLab::new(16.5, 2.0, 1.0).is_err());
    assert!(IsingLab::new(16.0, f64::NAN, 1.0).is_err());
    assert!(IsingLab::new(16.0, 2.0, -1.0).is_err());
    let mut lab = IsingLab::new(16.0, 2.0, 1.0).unwrap();
    assert!(lab.set_temperature(-1.0).is_err());
    assert_eq!(lab.temperature(), 2.0);
    assert!(lab.advance(f64::INFINITY).is_err());
    assert!(lab.advance(1.5).is_err());
    assert_eq!(lab.ticks(), 0.0);
}

#[wasm_bindgen_test]
fn heat_bath_probability_is_the_logistic_of_twice_the_field_over_t() {
    let p = heat_bath_up_probability(1.0, 2.0);
    assert!((p - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-15);
}

#[path = "fingerprint/mod.rs"]
mod fingerprint;

#[wasm_bindgen_test]
fn wasm_follows_the_same_trajectories_as_native() {
    // The native test asserts the same constant: equal here means bit-identical chains.
    assert_eq!(fingerprint::trajectory_fingerprint(), fingerprint::EXPECTED);
}
