//! `make bench`: native nanoseconds per tick on a 1024×1024 periodic lattice at T_c, for
//! heat-bath and Metropolis in sequential and checkerboard order (the app's checkerboard:
//! SIMD lanes; and the same order on the sampler's single stream), run as the app runs
//! them (chunks of 2^16 ticks), and the bare lanes kernel in whole sweeps. Each figure is the
//! median of repeated timed runs (after a warm-up), with the min–max beside it, all
//! measured in the same run; then exact ln Z of dense random networks of 20, 24 and 28
//! units (tabled-suffix enumeration, and the plain Gray-code walk up to 24 units). Writes
//! the medians to target/bench.json too; and one update of the page's default restricted
//! machine on the digits.

use boltzlab::app::rbm::RbmLab;
use boltzlab::dynamics::lanes::CheckerboardLanes;
use boltzlab::estimate::exact_log_z;
use boltzlab::exact::enumeration::enumerate;
use boltzlab::{Dynamics, Lattice, LatticeSampler, Network, Order, Rule, SpinKind};
use std::collections::BTreeMap;
use std::time::Instant;

const SIDE: usize = 1024;
const REPEATS: usize = 11;
const SWEEPS_PER_REPEAT: u64 = 3;

struct Figure {
    median: f64,
    min: f64,
    max: f64,
}

/// Ticks as the app runs them: `LatticeSampler::run` in chunks of 2^16 ticks (the page's
/// chunk), checkerboard lanes on or off.
fn time_ticks(rule: Rule, order: Order, lanes: bool) -> Figure {
    time_sequential(SIDE, rule, order, lanes, true)
}

/// [`time_ticks`] on a side×side lattice, with the sequential order's wavefront kernel on
/// (the app) or off (every tick scalar).
fn time_sequential(side: usize, rule: Rule, order: Order, lanes: bool, wavefront: bool) -> Figure {
    const CHUNK: u64 = 1 << 16;
    let lattice = Lattice::square(side).unwrap();
    let n = lattice.len() as u64;
    let mut sampler =
        LatticeSampler::new(lattice, boltzlab::exact::CRITICAL_TEMPERATURE, 1).unwrap();
    sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
    sampler.set_order(order);
    sampler.set_lanes(lanes);
    sampler.set_wavefront(wavefront);
    sampler.run(2 * n); // warm-up: caches, branch predictors, page faults
    let mut samples: Vec<f64> = (0..REPEATS)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..(SWEEPS_PER_REPEAT * n).div_ceil(CHUNK) {
                sampler.run(CHUNK);
            }
            let ticks = (SWEEPS_PER_REPEAT * n).div_ceil(CHUNK) * CHUNK;
            start.elapsed().as_secs_f64() * 1e9 / ticks as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    Figure {
        median: samples[REPEATS / 2],
        min: samples[0],
        max: samples[REPEATS - 1],
    }
}

/// Median (min–max) seconds of `repeats` calls of `f`.
fn time_seconds(repeats: usize, mut f: impl FnMut()) -> Figure {
    f(); // warm-up
    let mut samples: Vec<f64> = (0..repeats)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    Figure {
        median: samples[repeats / 2],
        min: samples[0],
        max: samples[repeats - 1],
    }
}

/// Updates per timed run of [`time_rbm_update`].
const RBM_UPDATES: u64 = 50;

/// Seconds per update of the page's default restricted machine on the digits
/// (`RbmLab::new("digits8", 16, 1)`: 64 visible, 16 hidden, batch 100, 100 persistent
/// particles advanced k = 1 block Gibbs step), the page's own call (the page's budget:
/// ≤ 1 ms in wasm).
fn time_rbm_update() -> Figure {
    let mut lab = RbmLab::new("digits8", 16, 1).expect("the digits machine");
    let f = time_seconds(REPEATS, || {
        std::hint::black_box(lab.advance(RBM_UPDATES).expect("no divergence"));
    });
    let per = |x: f64| x / RBM_UPDATES as f64;
    Figure {
        median: per(f.median),
        min: per(f.min),
        max: per(f.max),
    }
}

fn main() {
    // `cargo bench` passes --bench; nothing else to parse.
    let mut json = BTreeMap::new();
    println!(
        "native, {SIDE}×{SIDE} periodic lattice at T_c, median of {REPEATS} runs of {SWEEPS_PER_REPEAT} sweeps"
    );
    println!(
        "{:<12} {:<13} {:>12} {:>18}",
        "rule", "order", "ns/tick", "min–max"
    );
    // "sequential" and "checkerboard" are the app's (lanes on: row streams, lane streams),
    // "seq-1-stream" and "cb-1-stream" the same orders with the sampler's single stream.
    for rule in Rule::ALL {
        for (label, order, lanes, suffix) in [
            ("sequential", Order::Sequential, true, "sequential"),
            (
                "seq-1-stream",
                Order::Sequential,
                false,
                "sequential_one_stream",
            ),
            ("checkerboard", Order::Checkerboard, true, "checkerboard"),
            (
                "cb-1-stream",
                Order::Checkerboard,
                false,
                "checkerboard_one_stream",
            ),
        ] {
            let f = time_ticks(rule, order, lanes);
            println!(
                "{:<12} {:<13} {:>12.2} {:>8.2}–{:<8.2}",
                rule.name(),
                label,
                f.median,
                f.min,
                f.max
            );
            let key = format!(
                "native_{}_{suffix}_ns_per_tick",
                rule.name().replace('-', "_"),
            );
            json.insert(key, f.median);
        }
    }
    // Sequential order: every tick scalar, and whole bands of rows through the wavefront
    // kernel (bit-identical, see src/dynamics/wavefront.rs), with the sampler's one stream
    // (lanes off) and with row y drawing from lane stream y mod 16 (lanes on: the app's).
    for side in [256, SIDE] {
        for rule in Rule::ALL {
            for (label, lanes, wavefront, suffix) in [
                ("seq-scalar", false, false, "sequential_scalar"),
                ("seq-wavefront", false, true, "sequential_wavefront"),
                ("seq-lanes-sc", true, false, "sequential_lanes_scalar"),
                ("seq-lanes", true, true, "sequential_lanes_wavefront"),
            ] {
                let f = time_sequential(side, rule, Order::Sequential, lanes, wavefront);
                println!(
                    "{:<12} {:<13} {:>12.2} {:>8.2}–{:<8.2} ({side}×{side})",
                    rule.name(),
                    label,
                    f.median,
                    f.min,
                    f.max
                );
                let key = format!(
                    "native_{}_{suffix}_{side}_ns_per_tick",
                    rule.name().replace('-', "_"),
                );
                json.insert(key, f.median);
            }
        }
    }
    {
        let lattice = Lattice::square(SIDE).unwrap();
        let n = lattice.len() as f64;
        for rule in Rule::ALL {
            let mut lanes = CheckerboardLanes::new(
                lattice.clone(),
                boltzlab::exact::CRITICAL_TEMPERATURE,
                rule,
                1,
            )
            .unwrap();
            let f = time_seconds(REPEATS, || lanes.run(SWEEPS_PER_REPEAT));
            let scale = 1e9 / (SWEEPS_PER_REPEAT as f64 * n);
            println!(
                "{:<12} {:<13} {:>12.2} {:>8.2}–{:<8.2}",
                rule.name(),
                "lanes-kernel",
                f.median * scale,
                f.min * scale,
                f.max * scale
            );
            json.insert(
                format!(
                    "native_{}_checkerboard_lanes_ns_per_tick",
                    rule.name().replace('-', "_")
                ),
                f.median * scale,
            );
        }
    }
    println!();
    println!("native, exact ln Z of a dense random Ising network (w ~ U, T = 1), median of 5 runs");
    println!(
        "{:<8} {:>16} {:>22}",
        "units", "tabled (s)", "plain Gray walk (s)"
    );
    for n in [20usize, 24, 28] {
        let network = Network::random(n, SpinKind::Ising, 1.0, 0.5, 1).unwrap();
        let tabled = time_seconds(5, || {
            std::hint::black_box(exact_log_z::log_z(&network, 1.0, None).unwrap());
        });
        let plain = (n <= 24).then(|| {
            time_seconds(3, || {
                std::hint::black_box(enumerate(&network, 1.0).unwrap());
            })
        });
        println!(
            "{n:<8} {:>9.4} ({:.4}–{:.4}) {:>12}",
            tabled.median,
            tabled.min,
            tabled.max,
            plain.map_or("—".to_string(), |p| format!("{:.4}", p.median))
        );
        json.insert(format!("native_exact_logz_{n}_units_s"), tabled.median);
    }
    println!();
    let rbm = time_rbm_update();
    println!(
        "native, one update of a 64-16 RBM on the digits (batch 100, 100 persistent particles, \
         k = 1), as the page runs it: {:.3} ms ({:.3}–{:.3}), median of {REPEATS} runs of {RBM_UPDATES}",
        rbm.median * 1e3,
        rbm.min * 1e3,
        rbm.max * 1e3
    );
    json.insert("native_rbm_64_16_update_ms".to_string(), rbm.median * 1e3);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench.json");
    let text = serde_json::to_string_pretty(&json).expect("figures serialise");
    match std::fs::write(&path, text) {
        Ok(()) => println!("medians written to {}", path.display()),
        Err(err) => eprintln!("could not write {}: {err}", path.display()),
    }
}
