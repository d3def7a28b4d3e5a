//! The wavefront kernel (src/dynamics/wavefront.rs) runs sequential sweeps exactly as the
//! scalar ticks do: for every rule × boundary × coupling kind, size and temperature, a
//! sampler with it on and one with it off, started alike, hold the same spins, the same
//! random-stream state, clock, next site and bookkeeping after every chunk of 10 sweeps'
//! worth of ticks. Both ways of drawing the words are checked: the sampler's one stream
//! (lanes off), and with lanes on row y's own stream (lane y mod 16), which the kernel
//! steps inside the sweep. Deterministic: no statistics, no tolerance.

use boltzlab::{Boundary, Dynamics, Lattice, LatticeSampler, Order, Rule};

/// Sizes (W, H): the smallest, odd, non-square, one band, several bands with a partial last.
const SIZES: [(usize, usize); 9] = [
    (2, 2),
    (3, 5),
    (5, 3),
    (2, 17),
    (17, 2),
    (16, 16),
    (15, 29),
    (33, 47),
    (40, 31),
];

#[derive(Clone, Copy, Debug)]
enum Bonds {
    Ferromagnet,
    PlusMinus,
    Gaussian,
}

fn lattice(
    (w, h): (usize, usize),
    coupling: f64,
    field: f64,
    boundary: Boundary,
    bonds: Bonds,
) -> Lattice {
    let lattice = Lattice::new(w as f64, h as f64, coupling, field)
        .unwrap()
        .with_boundary(boundary)
        .unwrap();
    match bonds {
        Bonds::Ferromagnet => lattice,
        Bonds::PlusMinus => lattice.with_plus_minus_bonds(5).unwrap(),
        Bonds::Gaussian => lattice.with_gaussian_bonds(5).unwrap(),
    }
}

/// Two samplers started alike, the wavefront on in the first and off in the second, with
/// lanes (row streams) on or off in both.
fn pair(
    lattice: &Lattice,
    temperature: f64,
    rule: Rule,
    seed: u64,
    lanes: bool,
) -> [LatticeSampler; 2] {
    [true, false].map(|on| {
        let mut s = LatticeSampler::new(lattice.clone(), temperature, seed).unwrap();
        s.set_dynamics(Dynamics::Single(rule)).unwrap();
        s.set_order(Order::Sequential);
        s.set_wavefront(on);
        s.set_lanes(lanes);
        s
    })
}

fn assert_same(a: &LatticeSampler, b: &LatticeSampler, what: &str) {
    let (sa, sb) = (a.state(), b.state());
    if let Some(i) = (0..sa.spins.len()).find(|&i| sa.spins[i] != sb.spins[i]) {
        panic!(
            "{what}: spin {i} differs ({} vs {})",
            sa.spins[i], sb.spins[i]
        );
    }
    assert_eq!(sa.random_state, sb.random_state, "{what}: random state");
    assert_eq!(
        sa.lane_random_state, sb.lane_random_state,
        "{what}: lane random state"
    );
    assert_eq!(sa, sb, "{what}");
    assert_eq!(a.energy().to_bits(), b.energy().to_bits(), "{what}");
    assert_eq!(a.magnetization(), b.magnetization(), "{what}");
    // The bookkeeping stays exact (integer sums), checked against a recount.
    assert_eq!(
        a.magnetization(),
        a.lattice().magnetization(a.spins()),
        "{what}"
    );
    if a.lattice().has_integer_couplings() {
        assert_eq!(a.energy(), a.lattice().energy(a.spins()), "{what}");
    }
}

/// Runs both samplers by the same chunks (ticks) and compares them after each chunk.
fn compare(pair: &mut [LatticeSampler; 2], chunks: &[u64], what: &str) {
    for (k, &ticks) in chunks.iter().enumerate() {
        for s in pair.iter_mut() {
            s.run(ticks);
        }
        assert_same(&pair[0], &pair[1], &format!("{what}, after chunk {k}"));
    }
}

#[test]
fn ten_sweeps_are_bit_identical_to_the_scalar_ticks_for_every_combination() {
    let boundaries = [
        Boundary::Periodic,
        Boundary::Open,
        Boundary::Fixed(1),
        Boundary::Fixed(-1),
    ];
    let mut banded = 0;
    for (rule, lanes) in Rule::ALL.into_iter().flat_map(|r| [(r, false), (r, true)]) {
        for boundary in boundaries {
            for bonds in [Bonds::Ferromagnet, Bonds::PlusMinus, Bonds::Gaussian] {
                for (k, &size) in SIZES.iter().enumerate() {
                    // Ferromagnet and antiferromagnet (σ = −1), with and without a field,
                    // near T_c and at the ends T = 0 (thresholds 0 and 2^32) and T = ∞.
                    let (coupling, field, temperature) = [
                        (1.0, 0.0, 2.269),
                        (-1.0, 0.3, 1.5),
                        (1.0, -0.2, 0.0),
                        (0.7, 0.1, f64::INFINITY),
                        (1.0, 0.0, 3.5),
                    ][k % 5];
                    let lattice = lattice(size, coupling, field, boundary, bonds);
                    let n = lattice.len() as u64;
                    let mut samplers = pair(&lattice, temperature, rule, 11 + k as u64, lanes);
                    let integer = !matches!(bonds, Bonds::Gaussian);
                    assert_eq!(samplers[0].wavefront_apply(), integer);
                    assert!(!samplers[1].wavefront_apply());
                    banded += usize::from(integer);
                    let what = format!(
                        "{} lanes {lanes} {} {bonds:?} {}×{} J={coupling} h={field} T={temperature}",
                        rule.name(),
                        boundary.name(),
                        size.0,
                        size.1
                    );
                    // 10 sweeps: whole sweeps, then the same again in chunks that start
                    // and end inside rows and bands.
                    compare(&mut samplers, &[n; 10], &what);
                    let odd = (n / 3).max(1) + 1;
                    let mut chunks = vec![odd; (10 * n / odd) as usize];
                    chunks.push(10 * n - odd * chunks.len() as u64);
                    compare(&mut samplers, &chunks, &format!("{what}, chunks of {odd}"));
                }
            }
        }
    }
    assert!(banded > 0);
}

#[test]
fn sweeps_after_a_single_tick_or_an_explained_tick_continue_identically() {
    // The page's inspector runs explained ticks (always scalar) between chunks: a sweep
    // then starts mid-row, and the two samplers must still agree.
    let lattice = lattice((21, 33), 1.0, 0.0, Boundary::Periodic, Bonds::PlusMinus);
    let n = lattice.len() as u64;
    for (rule, lanes) in Rule::ALL.into_iter().flat_map(|r| [(r, false), (r, true)]) {
        let mut samplers = pair(&lattice, 2.0, rule, 3, lanes);
        let what = format!("{} lanes {lanes}", rule.name());
        for s in samplers.iter_mut() {
            s.tick();
            s.explained_tick().unwrap();
            s.run(5 * 21 + 4);
            s.explained_tick().unwrap();
        }
        assert_same(&samplers[0], &samplers[1], &what);
        compare(&mut samplers, &[n; 10], &what);
    }
}

#[test]
fn a_clamped_or_restored_sampler_follows_the_same_chain_either_way() {
    let lattice = lattice((24, 30), 1.0, 0.1, Boundary::Fixed(1), Bonds::Ferromagnet);
    let n = lattice.len() as u64;
    for (rule, lanes) in Rule::ALL.into_iter().flat_map(|r| [(r, false), (r, true)]) {
        let mut samplers = pair(&lattice, 2.269, rule, 9, lanes);
        for s in samplers.iter_mut() {
            s.set_clamped(100, true).unwrap();
        }
        assert!(!samplers[0].wavefront_apply());
        compare(&mut samplers, &[n; 3], "clamped");
        for s in samplers.iter_mut() {
            s.release_all();
        }
        assert!(samplers[0].wavefront_apply());
        compare(&mut samplers, &[n; 3], "released");
        // A sampler restored from a state continues like the original.
        let mut restored =
            LatticeSampler::from_state(lattice.clone(), samplers[1].state()).unwrap();
        restored.set_wavefront(true);
        samplers[1].run(4 * n + 7);
        restored.run(4 * n + 7);
        assert_same(&samplers[1], &restored, "restored");
    }
}

#[test]
fn changing_the_lattice_mid_run_rebuilds_the_wavefront_layout() {
    let periodic = lattice((20, 20), 1.0, 0.0, Boundary::Periodic, Bonds::Ferromagnet);
    let glass = lattice((20, 20), 1.0, 0.0, Boundary::Open, Bonds::PlusMinus);
    for lanes in [false, true] {
        let mut samplers = pair(&periodic, 2.5, Rule::Metropolis, 4, lanes);
        compare(&mut samplers, &[400; 2], "periodic ferromagnet");
        for s in samplers.iter_mut() {
            s.set_lattice(glass.clone()).unwrap();
            s.set_temperature(1.2).unwrap();
        }
        compare(&mut samplers, &[400; 2], "open ±J glass");
    }
}
