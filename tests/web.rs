//! The web facade, driven in headless Chromium by wasm-bindgen-test.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]
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
fn lattice_sessions_round_trip_and_bad_ones_throw_naming_the_field() {
    let mut lab = IsingLab::new(37.0, 1.8, 5.0).unwrap();
    lab.set_model("spin-glass-pm").unwrap();
    lab.paint(2.0, 2.0, 9.0, 4.0, 1.0, "clamp").unwrap();
    lab.advance(5000.0).unwrap();
    let text = lab.session();
    let mut copy = IsingLab::new(8.0, 1.0, 1.0).unwrap();
    copy.restore_session(&text).unwrap();
    assert_eq!(copy.session(), text);
    assert_eq!(copy.export_state(), lab.export_state());
    lab.advance(3000.0).unwrap();
    copy.advance(3000.0).unwrap();
    assert_eq!(copy.session(), lab.session());
    let damaged = text.replacen("\"spins\":\"", "\"spins\":\"!", 1);
    let message = thrown(copy.restore_session(&damaged).unwrap_err());
    assert!(message.starts_with("spins"), "{message}");
    let message = thrown(copy.restore_session(&lab.export_state()).unwrap_err());
    assert!(message.starts_with("format"), "{message}");
    assert_eq!(copy.session(), lab.session());
}

/// The save stall's engine half: a 2048² ±J glass's session() in wasm, printed (the
/// page's Playwright test measures the whole save).
#[wasm_bindgen_test]
fn a_2048_squared_session_is_written_in_milliseconds() {
    let mut lab = IsingLab::new(2048.0, 1.5, 1.0).unwrap();
    lab.set_model("spin-glass-pm").unwrap();
    lab.advance(100_000.0).unwrap();
    let mut best = f64::INFINITY;
    let mut text = String::new();
    for _ in 0..5 {
        let begin = js_sys::Date::now();
        text = lab.session();
        best = best.min(js_sys::Date::now() - begin);
    }
    let begin = js_sys::Date::now();
    let json = lab.export_state();
    let export = js_sys::Date::now() - begin;
    web_sys_log(&format!(
        "wasm 2048² ±J glass: session() {best} ms ({} characters); export_state {export} ms \
         ({} characters)",
        text.len(),
        json.len()
    ));
    let mut copy = IsingLab::new(8.0, 1.0, 1.0).unwrap();
    copy.restore_session(&text).unwrap();
    assert_eq!(copy.ticks(), lab.ticks());
}

#[wasm_bindgen_test]
fn machine_sessions_round_trip_and_bad_ones_throw_naming_the_field() {
    use boltzlab::web::WebMachineLab;
    for (problem, method) in [("4-2-4", "stochastic"), ("bars-3x3", "mean-field")] {
        let mut lab = WebMachineLab::new(problem, method, 3.0).unwrap();
        for _ in 0..6 {
            lab.advance(37.0).unwrap();
        }
        let text = lab.session();
        let mut copy = WebMachineLab::from_session(&text).unwrap();
        assert_eq!(copy.session(), text);
        assert_eq!(
            (copy.cycles(), copy.version()),
            (lab.cycles(), lab.version())
        );
        for _ in 0..4 {
            lab.advance(37.0).unwrap();
            copy.advance(37.0).unwrap();
        }
        assert!(lab.cycles() > 0.0);
        assert_eq!(copy.session(), lab.session(), "{problem} {method}");
        let damaged = text.replacen("\"stage\":", "\"stage\":9", 1);
        let message = thrown(WebMachineLab::from_session(&damaged).err().unwrap());
        assert!(message.starts_with("stage"), "{message}");
        let message = thrown(
            WebMachineLab::from_session(&text[..text.len() / 2])
                .err()
                .unwrap(),
        );
        assert!(message.starts_with("session"), "{message}");
    }
    let custom = WebMachineLab::custom("1100\n0110\n0011", 2.0, "stochastic", 1.0).unwrap();
    let restored = WebMachineLab::from_session(&custom.session()).unwrap();
    assert_eq!(restored.dataset(), "patterns");
    assert_eq!(restored.patterns_flat(), custom.patterns_flat());
}

/// The message of an error thrown to JavaScript.
fn thrown(err: wasm_bindgen::JsError) -> String {
    let value: wasm_bindgen::JsValue = err.into();
    String::from(js_sys::Error::from(value).message())
}

/// Everything the lab would export, and its parameters.
fn fingerprint(lab: &IsingLab) -> (String, String) {
    (lab.export_state(), lab.fragment())
}

#[wasm_bindgen_test]
fn every_facade_call_refuses_bad_values_naming_the_field_and_range_and_changes_nothing() {
    const BAD: [f64; 18] = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -1.0,
        0.0,
        -0.0,
        1e12,
        99_999_999_999.0,
        2.5,
        1e-3,
        1e308,
        -1e308,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        9_007_199_254_740_994.0,
        4_294_967_296.0,
        1e-300,
        -2.5,
    ];
    let whole = |lo: f64, hi: f64| move |x: f64| x.fract() == 0.0 && x >= lo && x <= hi;
    let real = |lo: f64, hi: f64| move |x: f64| x.is_finite() && x >= lo && x <= hi;
    let mut lab = IsingLab::new(16.0, 2.0, 3.0).unwrap();
    lab.advance(1000.0).unwrap();
    let before = fingerprint(&lab);
    let mut tried = 0;
    type Setter = Box<dyn Fn(&mut IsingLab, f64) -> Result<(), wasm_bindgen::JsError>>;
    type Accepts = Box<dyn Fn(f64) -> bool>;
    let setters: Vec<(&str, Setter, Accepts, &[f64], &str)> = vec![
        (
            "temperature",
            Box::new(|l, x| l.set_temperature(x)),
            Box::new(real(0.0, 100.0)),
            &[100.001, -1e-9],
            "between 0 and 100",
        ),
        (
            "field h",
            Box::new(|l, x| l.set_field(x)),
            Box::new(real(-10.0, 10.0)),
            &[10.0001, -10.5],
            "between -10 and 10",
        ),
        (
            "size",
            Box::new(|l, x| l.set_size(x)),
            Box::new(whole(2.0, 2048.0)),
            &[1.0, 2049.0, 65_536.0],
            "between 2 and 2048",
        ),
        (
            "seed",
            Box::new(|l, x| l.set_seed(x)),
            Box::new(whole(0.0, 9_007_199_254_740_992.0)),
            &[-1.0, 1.5],
            "between 0 and 9007199254740992",
        ),
        (
            "ticks",
            Box::new(|l, x| l.advance(x)),
            Box::new(whole(0.0, 67_108_864.0)),
            &[67_108_865.0],
            "between 0 and 67108864",
        ),
        (
            "ticks",
            Box::new(|l, x| l.advance_explained(x)),
            Box::new(whole(0.0, 67_108_864.0)),
            &[67_108_865.0],
            "between 0 and 67108864",
        ),
        (
            "sweeps",
            Box::new(|l, x| l.advance_scan(x).map(|_| ())),
            Box::new(whole(0.0, 1_048_576.0)),
            &[1_048_577.0],
            "between 0 and 1048576",
        ),
        (
            "brush radius",
            Box::new(|l, x| l.paint(1.0, 1.0, 5.0, 5.0, x, "up")),
            Box::new(whole(0.0, 64.0)),
            &[65.0],
            "between 0 and 64",
        ),
        (
            "brush position",
            Box::new(|l, x| l.paint(x, 1.0, 5.0, 5.0, 1.0, "up")),
            Box::new(real(-1e6, 1e6)),
            &[1e6 + 1.0],
            "between -1000000 and 1000000",
        ),
        (
            "T high",
            Box::new(|l, x| l.start_scan(x, 1.5, 11.0, 10.0, 10.0)),
            Box::new(move |x: f64| real(0.01, 100.0)(x) && x > 1.5),
            &[0.009, 100.5, 1.5],
            "",
        ),
        (
            "T low",
            Box::new(|l, x| l.start_scan(3.5, x, 11.0, 10.0, 10.0)),
            Box::new(move |x: f64| real(0.01, 100.0)(x) && x < 3.5),
            &[0.009, 3.5],
            "",
        ),
        (
            "points",
            Box::new(|l, x| l.start_scan(3.5, 1.5, x, 10.0, 10.0)),
            Box::new(whole(2.0, 200.0)),
            &[1.0, 201.0],
            "between 2 and 200",
        ),
        (
            "burn-in sweeps",
            Box::new(|l, x| l.start_scan(3.5, 1.5, 11.0, x, 10.0)),
            Box::new(whole(0.0, 1e6)),
            &[1e6 + 1.0],
            "between 0 and 1000000",
        ),
        (
            "measurement sweeps",
            Box::new(|l, x| l.start_scan(3.5, 1.5, 11.0, 10.0, x)),
            Box::new(whole(2.0, 1e6)),
            &[1.0, 1e6 + 1.0],
            "between 2 and 1000000",
        ),
    ];
    for (field, set, accepts, outside, range) in &setters {
        let mut bad = 0;
        for &x in BAD.iter().chain(outside.iter()) {
            if accepts(x) {
                continue;
            }
            let message = thrown(set(&mut lab, x).expect_err(&format!("{field} = {x}")));
            assert!(message.contains(field), "{field} = {x}: {message}");
            // T high/T low: either their range or the order of the two.
            let ranged = if range.is_empty() {
                message.contains("between 0.01 and 100") || message.contains("above T low")
            } else {
                message.contains(range)
            };
            assert!(ranged, "{field} = {x}: {message}");
            assert_eq!(fingerprint(&lab), before, "{field} = {x}");
            assert!(!lab.has_scan(), "{field} = {x}");
            bad += 1;
        }
        assert!(bad >= 8, "{field}: {bad}");
        tried += bad;
    }

    // Names: every enum setter, with names it does not know.
    let names = [
        "",
        "NaN",
        "null",
        "Ferromagnet",
        " periodic",
        "heat_bath",
        "１",
        "<script>alert(1)</script>",
    ];
    let long = "x".repeat(100_000);
    type Chooser = Box<dyn Fn(&mut IsingLab, &str) -> Result<(), wasm_bindgen::JsError>>;
    let choosers: Vec<(&str, Chooser, &str)> = vec![
        (
            "model",
            Box::new(|l, v| l.set_model(v)),
            "one of ferromagnet",
        ),
        (
            "dynamics",
            Box::new(|l, v| l.set_dynamics(v)),
            "one of heat-bath",
        ),
        (
            "order",
            Box::new(|l, v| l.set_order(v)),
            "one of sequential",
        ),
        (
            "boundary",
            Box::new(|l, v| l.set_boundary(v)),
            "one of periodic",
        ),
        (
            "reset",
            Box::new(|l, v| l.reset(v)),
            "one of random, up, down",
        ),
        (
            "brush",
            Box::new(|l, v| l.paint(1.0, 1.0, 2.0, 2.0, 1.0, v)),
            "one of up, down, clamp, unclamp",
        ),
    ];
    for (field, choose, allowed) in &choosers {
        for name in names.iter().copied().chain([long.as_str()]) {
            let message = thrown(choose(&mut lab, name).expect_err(field));
            assert!(message.contains(field), "{field}: {message}");
            assert!(message.contains(allowed), "{field}: {message}");
            assert!(message.len() < 300, "{field}: {} bytes", message.len());
            assert_eq!(fingerprint(&lab), before, "{field} = '{name:.40}'");
            tried += 1;
        }
    }

    // Links and files through the facade (the page tests try many more).
    for fragment in [
        "T=NaN",
        "size=1e12",
        "seed=-1",
        "x",
        "T=1&T=1",
        long.as_str(),
    ] {
        let message = thrown(lab.apply_fragment(fragment).unwrap_err());
        assert!(message.len() < 300, "{}", message.len());
        assert_eq!(fingerprint(&lab), before);
        assert!(IsingLab::from_fragment(fragment).is_err());
        tried += 1;
    }
    for text in ["", "{", "[]", "null", long.as_str()] {
        assert!(lab.import_state(text).is_err());
        assert_eq!(fingerprint(&lab), before);
        tried += 1;
    }
    // Constructor and the file-size check.
    for (side, t, seed) in [
        (f64::NAN, 2.0, 1.0),
        (1e12, 2.0, 1.0),
        (16.0, f64::INFINITY, 1.0),
        (16.0, -1.0, 1.0),
        (16.0, 2.0, f64::NAN),
        (16.0, 2.0, 2.5),
    ] {
        assert!(IsingLab::new(side, t, seed).is_err());
        tried += 1;
    }
    for bytes in [f64::NAN, 536_870_913.0, 1e300, f64::INFINITY] {
        let message = thrown(boltzlab::web::check_state_file_size(bytes).unwrap_err());
        assert!(message.contains("536870912 bytes"), "{message}");
        tried += 1;
    }
    assert!(boltzlab::web::check_state_file_size(536_870_912.0).is_ok());
    // Still alive and unchanged: it runs on.
    assert_eq!(fingerprint(&lab), before);
    lab.advance(100.0).unwrap();
    assert_eq!(lab.ticks(), 1100.0);
    web_sys_log(&format!("facade bad inputs tried: {tried}"));
    assert!(tried > 250, "{tried}");
}

fn web_sys_log(text: &str) {
    wasm_bindgen_test::console_log!("{text}");
}

#[wasm_bindgen_test]
fn wasm_follows_the_same_sampler_lanes_trajectories_as_native() {
    // The page's sampler with checkerboard lanes on: SIMD128 here, SSE2 natively.
    assert_eq!(
        fingerprint::sampler_lanes_fingerprint(),
        fingerprint::EXPECTED_SAMPLER_LANES
    );
}

#[wasm_bindgen_test]
fn wasm_follows_the_same_sequential_row_stream_trajectories_as_native() {
    // Sequential order with lanes on: the wavefront steps the row streams in SIMD128 lanes
    // here and in SSE2 lanes natively.
    assert_eq!(
        fingerprint::sampler_row_streams_fingerprint(),
        fingerprint::EXPECTED_SAMPLER_ROW_STREAMS
    );
}
