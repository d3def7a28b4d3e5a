//! Long runs: 10^9 ticks on a 256×256 lattice keep the incremental energy
//! and magnetisation bookkeeping equal to a recomputation from the spins, and the trace the
//! page draws stays bounded however long it runs.
//!
//! Each 10^9-tick run is a few seconds in release mode (make test runs these in release).

use boltzlab::estimate::trace::Trace;
use boltzlab::{Boundary, Dynamics, Lattice, LatticeSampler, Order, Rule};

const SIDE: usize = 256;
const TICKS: u64 = 1_000_000_000;
/// Checked every CHUNK ticks as well as at the end, so a drift is caught where it starts.
/// 10^9 / 2^26 ≈ 15 calls of the largest run the facade accepts in one call.
const CHUNK: u64 = 1 << 26;

fn run_and_check(mut sampler: LatticeSampler, exact: bool) {
    let mut done = 0;
    while done < TICKS {
        let step = CHUNK.min(TICKS - done);
        sampler.run(step);
        done += step;
        let lattice = sampler.lattice();
        assert_eq!(
            sampler.magnetization(),
            lattice.magnetization(sampler.spins()),
            "magnetisation after {done} ticks"
        );
        let (kept, recomputed) = (sampler.energy(), lattice.energy(sampler.spins()));
        if exact {
            // Integer couplings: E is kept as integer sums, so it must be equal, not close.
            assert_eq!(kept, recomputed, "energy after {done} ticks");
        } else {
            // Real couplings: the bond sum is a float updated once per flip. Each update
            // rounds by at most half an ulp of |Σ| ≤ 2N·max|J| ≈ 5·10^5 (ulp ≈ 1.2·10^-10),
            // and ≤ 10^9 roundings of either sign add up like a random walk: ≈ 3·10^4 half-ulps
            // ≈ 2·10^-6 typical, 10^-4 even if every rounding went the same way over 10^6
            // flips. 10^-4 absolute on |E| ~ 10^5 is a relative 10^-9.
            let tolerance = 1e-4;
            assert!(
                (kept - recomputed).abs() <= tolerance,
                "energy after {done} ticks: kept {kept}, recomputed {recomputed}"
            );
        }
    }
    let lattice = sampler.lattice();
    eprintln!(
        "after {TICKS} ticks: E kept − recomputed = {:e}, E/N = {:.6}, M/N = {:.6}",
        sampler.energy() - lattice.energy(sampler.spins()),
        sampler.energy_per_spin(),
        sampler.magnetization_per_spin()
    );
    assert_eq!(sampler.ticks(), TICKS);
    assert_eq!(sampler.sweeps(), TICKS as f64 / (SIDE * SIDE) as f64);
}

#[test]
fn ferromagnet_heat_bath_checkerboard_at_the_critical_point_1e9_ticks() {
    // The uniform periodic fast path (row kernel).
    let lattice = Lattice::square(SIDE).unwrap();
    let mut sampler = LatticeSampler::new(lattice, 2.269_185_314, 1).unwrap();
    sampler.set_order(Order::Checkerboard);
    run_and_check(sampler, true);
}

#[test]
fn plus_minus_glass_in_a_field_metropolis_random_order_1e9_ticks() {
    // The general tick: ±J bonds, field, random site order.
    let lattice = Lattice::new(SIDE as f64, SIDE as f64, 1.0, 0.3)
        .unwrap()
        .with_plus_minus_bonds(5)
        .unwrap();
    let mut sampler = LatticeSampler::new(lattice, 1.2, 2).unwrap();
    sampler
        .set_dynamics(Dynamics::Single(Rule::Metropolis))
        .unwrap();
    sampler.set_order(Order::Random);
    run_and_check(sampler, true);
}

#[test]
fn gaussian_glass_with_a_fixed_border_heat_bath_sequential_1e9_ticks() {
    // Real couplings: float bookkeeping.
    let lattice = Lattice::new(SIDE as f64, SIDE as f64, 1.0, -0.2)
        .unwrap()
        .with_boundary(Boundary::Fixed(1))
        .unwrap()
        .with_gaussian_bonds(9)
        .unwrap();
    let sampler = LatticeSampler::new(lattice, 0.8, 3).unwrap();
    run_and_check(sampler, false);
}

#[test]
fn the_trace_never_grows_past_its_capacity_however_long_it_runs() {
    let capacity = 1000;
    let mut trace = Trace::new(capacity);
    let mut longest = 0;
    for i in 0..10_000_000u64 {
        trace.push(i as f64, -1.0, 0.5);
        longest = longest.max(trace.len());
    }
    assert_eq!(longest, capacity);
    assert!(trace.len() > capacity / 2);
    // The newest point is always the last, and the kept points are the newest ones in order.
    let sweeps = trace.sweeps();
    assert_eq!(*sweeps.last().unwrap(), 9_999_999.0);
    assert!(sweeps.windows(2).all(|w| w[1] == w[0] + 1.0));
    assert_eq!(trace.energy().len(), trace.len());
    assert_eq!(trace.magnetization().len(), trace.len());
}

#[test]
fn the_pages_trace_stays_bounded_over_a_long_run_of_small_steps() {
    // The page calls `advance` once a frame: 200 000 frames is almost an hour at 60 fps.
    use boltzlab::app::{LatticeLab, LatticeSetup, TRACE_CAPACITY};
    let setup = LatticeSetup {
        size: 16,
        ..LatticeSetup::default()
    };
    let mut lab = LatticeLab::new(setup).unwrap();
    let mut longest = 0;
    for _ in 0..200_000 {
        lab.advance(7, false).unwrap();
        longest = longest.max(lab.trace().len());
    }
    assert_eq!(longest, TRACE_CAPACITY);
    assert_eq!(lab.sampler().ticks(), 7 * 200_000);
    assert_eq!(
        *lab.trace().sweeps().last().unwrap(),
        lab.sampler().sweeps()
    );
}
