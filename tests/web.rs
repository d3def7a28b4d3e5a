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

#[wasm_bindgen_test]
fn an_explained_tick_reaches_javascript_with_the_heat_bath_probability() {
    let mut lab = IsingLab::new(16.0, 2.269, 3.0).unwrap();
    lab.advance_explained(7.0).unwrap();
    let step = lab.last_step();
    let get = |key: &str| js_sys::Reflect::get(&step, &key.into()).unwrap();
    assert_eq!(get("kind").as_string().as_deref(), Some("tick"));
    assert_eq!(get("tick").as_f64(), Some(6.0));
    let delta_e = get("energy_change").as_f64().unwrap();
    let p = get("flip_probability").as_f64().unwrap();
    assert!((p - 1.0 / (1.0 + (delta_e / 2.269).exp())).abs() < 1e-14);
    assert_eq!(js_sys::Array::from(&get("neighbours")).length(), 4);
    lab.advance(10.0).unwrap();
    assert!(lab.last_step().is_null());
}

#[wasm_bindgen_test]
fn state_files_and_share_links_round_trip_and_bad_ones_change_nothing() {
    let mut lab = IsingLab::new(24.0, 1.8, 5.0).unwrap();
    lab.set_model("spin-glass-pm").unwrap();
    lab.paint(2.0, 2.0, 9.0, 4.0, 1.0, "clamp").unwrap();
    lab.advance(5000.0).unwrap();
    let json = lab.export_state();
    let mut copy = IsingLab::new(8.0, 1.0, 1.0).unwrap();
    copy.import_state(&json).unwrap();
    assert_eq!(copy.export_state(), json);
    lab.advance(3000.0).unwrap();
    copy.advance(3000.0).unwrap();
    assert_eq!(copy.export_state(), lab.export_state());
    assert!(copy.import_state("{\"format\": 3}").is_err());
    assert!(copy.apply_fragment("#T=warm").is_err());
    assert_eq!(copy.export_state(), lab.export_state());

    let link = lab.fragment();
    let from_link = IsingLab::from_fragment(&link).unwrap();
    assert_eq!(from_link.fragment(), link);
    assert_eq!(from_link.model(), "spin-glass-pm");
    assert_eq!(from_link.temperature(), 1.8);
}

#[wasm_bindgen_test]
fn the_clamp_mask_and_the_bonds_are_readable_through_wasm_memory() {
    let mut lab = IsingLab::new(16.0, 2.0, 1.0).unwrap();
    lab.paint(0.0, 0.0, 0.0, 0.0, 0.0, "clamp").unwrap();
    let memory: js_sys::WebAssembly::Memory = boltzlab::web::wasm_memory().into();
    let clamps = js_sys::Uint8Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        lab.clamp_ptr() as u32,
        256,
    )
    .to_vec();
    assert_eq!(clamps.iter().map(|&c| u32::from(c)).sum::<u32>(), 1);
    assert_eq!(clamps[0], 1);
    lab.set_model("spin-glass-gaussian").unwrap();
    let side = lab.bond_window_side() as u32;
    let bonds = js_sys::Float64Array::new_with_byte_offset_and_length(
        &memory.buffer(),
        lab.bond_window_ptr() as u32,
        2 * side * side,
    )
    .to_vec();
    assert!(bonds.iter().any(|&b| b < 0.0) && bonds.iter().any(|&b| b > 0.0));
    assert!(lab.frustrated_count() > 0);
    assert_eq!(lab.matrix_units(), 256);
}

#[wasm_bindgen_test]
fn a_short_temperature_sweep_runs_in_bounded_steps() {
    let mut lab = IsingLab::new(12.0, 2.0, 1.0).unwrap();
    assert!(lab.start_scan(1.0, 3.0, 4.0, 10.0, 20.0).is_err());
    assert!(!lab.has_scan());
    lab.start_scan(3.0, 1.0, 4.0, 10.0, 20.0).unwrap();
    let mut calls = 0;
    while !lab.scan_done() {
        assert!(lab.advance_scan(7.0).unwrap() <= 7.0);
        calls += 1;
    }
    assert_eq!(calls, 120_usize.div_ceil(7));
    assert_eq!(lab.scan_len(), 4);
    assert!(lab.scan_is_onsager());
    assert_eq!(lab.ticks(), 0.0, "the live lattice is left alone");
    assert_eq!(lab.scan_csv().lines().count(), 5);
}

#[path = "fingerprint/mod.rs"]
mod fingerprint;

#[wasm_bindgen_test]
fn wasm_follows_the_same_trajectories_as_native() {
    // The native test asserts the same constant: equal here means bit-identical chains.
    assert_eq!(fingerprint::trajectory_fingerprint(), fingerprint::EXPECTED);
    assert_eq!(
        fingerprint::lanes_fingerprint(),
        fingerprint::EXPECTED_LANES
    );
}

#[wasm_bindgen_test]
fn wasm_follows_the_same_sampler_lanes_trajectories_as_native() {
    // The page's sampler with checkerboard lanes on: SIMD128 here, SSE2 natively.
    assert_eq!(
        fingerprint::sampler_lanes_fingerprint(),
        fingerprint::EXPECTED_SAMPLER_LANES
    );
}
