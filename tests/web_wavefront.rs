//! The wavefront kernel in WebAssembly (SIMD128, headless Chromium through
//! wasm-bindgen-test): sequential sweeps with it on follow the scalar ticks bit for bit,
//! for both rules, every boundary, a ferromagnet and a ±J glass (the native twin, with
//! more sizes, is tests/wavefront.rs), with the sampler's one stream (lanes off) and with
//! row streams (lanes on, the stream stepped in SIMD128 lanes). The words are the scalar
//! ticks' own, so a seed replays the same film natively and in wasm (tests/fingerprint/).
//!
//!   CHROMEDRIVER=/usr/bin/chromedriver cargo test --release --target wasm32-unknown-unknown \
//!     --no-default-features --test web_wavefront
#![cfg(target_arch = "wasm32")]

use boltzlab::{Boundary, Dynamics, Lattice, LatticeSampler, Order, Rule};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn ten_sweeps_in_wasm_are_bit_identical_to_the_scalar_ticks() {
    let mut banded = 0;
    for (rule, lanes) in Rule::ALL.into_iter().flat_map(|r| [(r, false), (r, true)]) {
        for boundary in [Boundary::Periodic, Boundary::Open, Boundary::Fixed(-1)] {
            for glass in [false, true] {
                for (k, (w, h)) in [(3, 5), (17, 2), (33, 47)].into_iter().enumerate() {
                    let (coupling, field, temperature) =
                        [(1.0, 0.0, 2.269), (-1.0, 0.3, 1.5), (1.0, -0.2, 0.0)][k];
                    let mut lattice = Lattice::new(w as f64, h as f64, coupling, field)
                        .unwrap()
                        .with_boundary(boundary)
                        .unwrap();
                    if glass {
                        lattice = lattice.with_plus_minus_bonds(5).unwrap();
                    }
                    let n = lattice.len() as u64;
                    let [mut on, mut off] = [true, false].map(|wavefront| {
                        let mut s = LatticeSampler::new(lattice.clone(), temperature, 7).unwrap();
                        s.set_dynamics(Dynamics::Single(rule)).unwrap();
                        s.set_order(Order::Sequential);
                        s.set_wavefront(wavefront);
                        s.set_lanes(lanes);
                        s
                    });
                    assert!(on.wavefront_apply() && !off.wavefront_apply());
                    banded += 1;
                    for chunk in [n, n, n, n, n / 3 + 1, n, n, n, n, n] {
                        on.run(chunk);
                        off.run(chunk);
                        let what = format!(
                            "{} lanes={lanes} {} glass={glass} {w}×{h}",
                            rule.name(),
                            boundary.name()
                        );
                        assert_eq!(on.state(), off.state(), "{what}");
                        assert_eq!(on.energy().to_bits(), off.energy().to_bits(), "{what}");
                        assert_eq!(on.energy(), on.lattice().energy(on.spins()), "{what}");
                    }
                }
            }
        }
    }
    assert_eq!(banded, 2 * 2 * 3 * 2 * 3);
}
