//! The trajectory fingerprint: a hash of the states reached by a fixed set of seeded runs
//! (every lattice dynamics and order, integer and real couplings). The native tests and the
//! wasm tests (in Chromium) both compare it with [`EXPECTED`], so the two builds follow
//! bit-identical trajectories. A change to any Markov chain changes it: update it only
//! for a deliberate change of the chain, never to silence a difference between builds.

use boltzlab::{
    Boundary, Dynamics, Lattice, LatticeSampler, Network, NetworkOrder, NetworkSampler, Order,
    Rule, SpinKind,
};

pub const EXPECTED: u64 = 0xfff4_3622_90cf_cae5;

/// FNV-1a over the spins, folded into `hash`.
fn fold(hash: u64, spins: &[i8]) -> u64 {
    spins.iter().fold(hash, |h, &s| {
        (h ^ u64::from(s as u8)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

pub fn trajectory_fingerprint() -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325;
    let ferromagnet = Lattice::square(32).unwrap();
    let glass = Lattice::new(24.0, 16.0, 1.0, 0.3)
        .unwrap()
        .with_plus_minus_bonds(7)
        .unwrap();
    let gaussian = Lattice::new(16.0, 16.0, 0.9, -0.1)
        .unwrap()
        .with_boundary(Boundary::Fixed(-1))
        .unwrap()
        .with_gaussian_bonds(3)
        .unwrap();
    let cases = [
        (
            &ferromagnet,
            Dynamics::Single(Rule::HeatBath),
            Order::Sequential,
            2.269,
        ),
        (
            &ferromagnet,
            Dynamics::Single(Rule::Metropolis),
            Order::Checkerboard,
            1.8,
        ),
        (&glass, Dynamics::Single(Rule::HeatBath), Order::Random, 1.2),
        (
            &glass,
            Dynamics::Single(Rule::Metropolis),
            Order::Sequential,
            0.0,
        ),
        (
            &gaussian,
            Dynamics::Single(Rule::HeatBath),
            Order::Checkerboard,
            0.7,
        ),
        (
            &gaussian,
            Dynamics::Single(Rule::Metropolis),
            Order::Random,
            2.5,
        ),
        (&ferromagnet, Dynamics::Wolff, Order::Sequential, 2.269),
    ];
    for (seed, (lattice, dynamics, order, temperature)) in cases.into_iter().enumerate() {
        let mut sampler = LatticeSampler::new(lattice.clone(), temperature, seed as u64).unwrap();
        sampler.set_dynamics(dynamics).unwrap();
        sampler.set_order(order);
        for _ in 0..20 {
            sampler.run(7_919);
            hash = fold(hash, sampler.spins());
        }
        hash ^= sampler.ticks();
    }
    // Networks: SK in both conventions, both rules and orders, one with clamped units.
    let sk = Network::sherrington_kirkpatrick(40, 11).unwrap();
    let (binary, _) = sk.to_kind(SpinKind::Binary);
    let cases = [
        (&sk, Rule::HeatBath, NetworkOrder::Sequential, 0.6),
        (&sk, Rule::Metropolis, NetworkOrder::Random, 1.5),
        (&binary, Rule::HeatBath, NetworkOrder::Random, 2.0),
        (&binary, Rule::Metropolis, NetworkOrder::Sequential, 0.0),
    ];
    for (seed, (network, rule, order, temperature)) in cases.into_iter().enumerate() {
        let mut sampler =
            NetworkSampler::new(network.clone(), temperature, rule, order, seed as u64).unwrap();
        if seed == 1 {
            sampler.clamp(&[0, 5, 9], &[1, -1, 1]).unwrap();
        }
        for _ in 0..20 {
            sampler.run(1_009);
            hash = fold(hash, sampler.state());
        }
        hash ^= sampler.ticks();
    }
    hash
}

/// The checkerboard-lanes chain's own fingerprint (a different chain from the ones above).
pub const EXPECTED_LANES: u64 = 0xf1e2_36f8_8e8c_061f;

pub fn lanes_fingerprint() -> u64 {
    use boltzlab::dynamics::lanes::CheckerboardLanes;
    let mut hash = 0xcbf2_9ce4_8422_2325;
    let cases = [
        (Lattice::square(32).unwrap(), Rule::HeatBath, 2.269),
        (
            Lattice::new(48.0, 10.0, 1.0, 0.2).unwrap(),
            Rule::Metropolis,
            1.8,
        ),
        (
            Lattice::new(6.0, 4.0, -1.0, 0.0).unwrap(),
            Rule::HeatBath,
            0.0,
        ),
    ];
    for (seed, (lattice, rule, temperature)) in cases.into_iter().enumerate() {
        let mut lanes = CheckerboardLanes::new(lattice, temperature, rule, seed as u64).unwrap();
        for _ in 0..10 {
            lanes.run(3);
            hash = fold(hash, lanes.spins());
        }
    }
    hash
}

/// The page's sampler with checkerboard lanes on (whole rows from the lane streams, ticks
/// inside rows from the sampler's stream), through a state export and import midway.
pub const EXPECTED_SAMPLER_LANES: u64 = 0x2573_9dac_9805_914b;

pub fn sampler_lanes_fingerprint() -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325;
    let cases = [
        (Lattice::square(64).unwrap(), Rule::HeatBath, 2.269),
        (
            Lattice::new(96.0, 10.0, 1.0, 0.2).unwrap(),
            Rule::Metropolis,
            1.8,
        ),
        (
            Lattice::new(40.0, 6.0, -1.0, -0.3).unwrap(),
            Rule::HeatBath,
            1.2,
        ),
    ];
    for (seed, (lattice, rule, temperature)) in cases.into_iter().enumerate() {
        let mut sampler = LatticeSampler::new(lattice.clone(), temperature, seed as u64).unwrap();
        sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
        sampler.set_order(Order::Checkerboard);
        sampler.set_lanes(true);
        for step in 0..12 {
            sampler.run(1_000 + 37 * step);
            hash = fold(hash, sampler.spins());
            if step == 6 {
                sampler = LatticeSampler::from_state(lattice.clone(), sampler.state()).unwrap();
            }
        }
        hash ^= sampler.ticks();
    }
    hash
}

/// The page's sampler in sequential order with lanes on (row y draws from lane stream
/// y mod 16): whole bands through the wavefront kernel, which steps the streams in SIMD
/// lanes, ticks inside rows and the explained tick scalar; a ferromagnet, an open ±J glass
/// and a fixed-border lattice with a field, through a state export and import midway.
pub const EXPECTED_SAMPLER_ROW_STREAMS: u64 = 0xcdd6_eb82_d031_7ee7;

pub fn sampler_row_streams_fingerprint() -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325;
    let cases = [
        (Lattice::square(64).unwrap(), Rule::HeatBath, 2.269),
        (
            Lattice::new(45.0, 37.0, 1.0, 0.0)
                .unwrap()
                .with_boundary(Boundary::Open)
                .unwrap()
                .with_plus_minus_bonds(3)
                .unwrap(),
            Rule::Metropolis,
            1.1,
        ),
        (
            Lattice::new(30.0, 19.0, -1.0, 0.3)
                .unwrap()
                .with_boundary(Boundary::Fixed(-1))
                .unwrap(),
            Rule::HeatBath,
            1.6,
        ),
    ];
    for (seed, (lattice, rule, temperature)) in cases.into_iter().enumerate() {
        let mut sampler = LatticeSampler::new(lattice.clone(), temperature, seed as u64).unwrap();
        sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
        sampler.set_order(Order::Sequential);
        sampler.set_lanes(true);
        for step in 0..12 {
            sampler.run(1_000 + 997 * step);
            sampler.explained_tick().unwrap();
            hash = fold(hash, sampler.spins());
            if step == 6 {
                sampler = LatticeSampler::from_state(lattice.clone(), sampler.state()).unwrap();
            }
        }
        hash ^= sampler.ticks();
    }
    hash
}
