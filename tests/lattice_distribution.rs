//! Every lattice dynamics samples the exact Boltzmann distribution.
//!
//! For small lattices the distribution over all 2^9 states is known exactly (enumerated
//! here from the model's energy function). Each sample is an independent chain: random
//! spins, then enough sweeps to forget them, then one state is recorded. Pearson's χ²
//! with a threshold at p = 10⁻⁶ for its degrees of freedom decides. For single-spin
//! dynamics the exact distribution after the burn-in is computed too (the chain's
//! kernels applied to the probability vector), and its bias must be invisible to the test;
//! and every test must reject the same counts against the distribution at 1.05 T, so it
//! has the power to see a wrong temperature.
//!
//! One exception is a law of its own: Metropolis with a deterministic order (sequential or
//! checkerboard) is *not* ergodic on the zero-field 3×3 ferromagnet. Some states have
//! ΔE ≤ 0 at every site, so every move is a forced flip and a sweep maps them to their
//! mirror image and back (the exact 512×512 sweep matrix has eigenvalues +1 and −1 twice
//! each). A small field breaks the ties; those combinations are tested at h = 0.1.

mod common;

use boltzlab::dynamics::lanes::CheckerboardLanes;
use boltzlab::{Boundary, Dynamics, Lattice, LatticeSampler, Order, Rule};
use common::{
    Visits, boltzmann, chi_square_threshold, distribution_after_burn_in, noncentrality,
    pearson_chi_square,
};

const SAMPLES: usize = 40_000;
/// Most burn-in sweeps a chain may need; the burn-in of each single-spin chain is the
/// smallest power of two (from 16) whose exact bias N Σ δ²/p is below 0.01.
const MAX_BURN_IN: usize = 4096;
/// Burn-in for Wolff (no kernel to compute; 3×3 and 4×2 lattices mix in a few moves).
/// Wolff moves per sample (a fixed count: see `LatticeSampler::wolff_moves`).
const WOLFF_MOVES_PER_SAMPLE: u64 = 40;

fn state_index(spins: &[i8]) -> usize {
    spins
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 0)
        .map(|(i, _)| 1 << i)
        .sum()
}

fn exact_distribution(lattice: &Lattice, temperature: f64) -> Vec<f64> {
    let n = lattice.len();
    let energies: Vec<f64> = (0..1usize << n)
        .map(|state| lattice.energy(&spins_of(state, n)))
        .collect();
    boltzmann(&energies, temperature)
}

/// The units a sweep of a deterministic order visits, in order.
fn visits(lattice: &Lattice, order: Order) -> Visits {
    let (w, n) = (lattice.width(), lattice.len());
    match order {
        Order::Sequential => Visits::Fixed((0..n).collect()),
        Order::Checkerboard => Visits::Fixed(
            (0..2)
                .flat_map(|colour| (0..n).filter(move |i| (i % w + i / w) % 2 == colour))
                .collect(),
        ),
        Order::Random => Visits::Random,
    }
}

fn spins_of(state: usize, n: usize) -> Vec<i8> {
    (0..n)
        .map(|i| if state >> i & 1 == 1 { 1 } else { -1 })
        .collect()
}

/// The smallest burn-in (sweeps, a power of two from 16) whose exact bias is invisible.
fn proven_burn_in(
    name: &str,
    lattice: &Lattice,
    temperature: f64,
    rule: Rule,
    order: Order,
) -> usize {
    let exact = exact_distribution(lattice, temperature);
    let n = lattice.len();
    let p_high = |state: usize, i: usize| {
        let spins = spins_of(state, n);
        let gap = 2.0 * lattice.local_field(&spins, i);
        rule.probability_high(spins[i] > 0, gap, temperature)
    };
    let plan = visits(lattice, order);
    let mut burn_in = 16;
    loop {
        let after = distribution_after_burn_in(n, &plan, p_high, burn_in);
        if noncentrality(SAMPLES as u64, &after, &exact) < 0.01 {
            return burn_in;
        }
        burn_in *= 2;
        assert!(
            burn_in <= MAX_BURN_IN,
            "{name}: the chain does not converge"
        );
    }
}

/// Pearson's χ² of `counts` against the exact distribution at T, and the power check
/// against 1.05 T.
fn judge(name: &str, label: &str, lattice: &Lattice, temperature: f64, counts: &[u64]) {
    let exact = exact_distribution(lattice, temperature);
    let (chi2, dof) = pearson_chi_square(counts, &exact);
    let threshold = chi_square_threshold(dof);
    let warmer = exact_distribution(lattice, 1.05 * temperature);
    let (chi2_warmer, dof_warmer) = pearson_chi_square(counts, &warmer);
    println!(
        "{name} {label}: χ² = {chi2:.1} on {dof} dof (threshold {threshold:.1}); \
         against 1.05 T: χ² = {chi2_warmer:.1} (threshold {:.1})",
        chi_square_threshold(dof_warmer),
    );
    assert!(chi2 < threshold, "{name}: χ² = {chi2} on {dof} dof");
    assert!(
        chi2_warmer > chi_square_threshold(dof_warmer),
        "{name}: the test cannot tell T from 1.05 T"
    );
}

/// The kernel of every single-spin run: the row kernel (uniform periodic sequential and
/// checkerboard), the integer tick (±J bonds, fixed borders, random order) and the real
/// tick (Gaussian bonds) are each reached by the lattices of the tests below.
fn check(name: &str, lattice: &Lattice, temperature: f64, dynamics: Dynamics, order: Order) {
    let exact = exact_distribution(lattice, temperature);
    let n = lattice.len();
    let mut burn_in = 0;
    if let Dynamics::Single(rule) = dynamics {
        burn_in = proven_burn_in(name, lattice, temperature, rule, order);
    }
    let mut sampler = LatticeSampler::new(lattice.clone(), temperature, 2024).unwrap();
    sampler.set_dynamics(dynamics).unwrap();
    sampler.set_order(order);
    let mut counts = vec![0u64; exact.len()];
    for _ in 0..SAMPLES {
        sampler.randomize();
        if dynamics == Dynamics::Wolff {
            sampler.wolff_moves(WOLFF_MOVES_PER_SAMPLE).unwrap();
        } else {
            sampler.run(burn_in as u64 * n as u64);
        }
        counts[state_index(sampler.spins())] += 1;
    }
    let burn_in_label = if dynamics == Dynamics::Wolff {
        format!("{WOLFF_MOVES_PER_SAMPLE} cluster moves")
    } else {
        format!("{burn_in} sweeps")
    };
    let label = format!(
        "{} {} (burn-in {burn_in_label})",
        dynamics.name(),
        order.name()
    );
    judge(name, &label, lattice, temperature, &counts);
}

/// The lane kernel: each sample is a fresh chain (its own seed, so its own random spins
/// and lane streams). A lane sweep applies the same per-site kernels as a checkerboard
/// sweep (sites of one colour do not interact), so the checkerboard burn-in proof holds.
fn check_lanes(name: &str, lattice: &Lattice, temperature: f64, rule: Rule) {
    let burn_in = proven_burn_in(name, lattice, temperature, rule, Order::Checkerboard);
    let mut counts = vec![0u64; 1 << lattice.len()];
    for seed in 0..SAMPLES as u64 {
        let mut lanes = CheckerboardLanes::new(lattice.clone(), temperature, rule, seed).unwrap();
        lanes.run(burn_in as u64);
        counts[state_index(lanes.spins())] += 1;
    }
    let label = format!(
        "{} checkerboard lanes (burn-in {burn_in} sweeps)",
        rule.name()
    );
    judge(name, &label, lattice, temperature, &counts);
}

#[test]
fn checkerboard_lanes_sample_a_4x2_ferromagnet_exactly() {
    let lattice = Lattice::new(4.0, 2.0, 1.0, 0.1).unwrap();
    for rule in Rule::ALL {
        check_lanes("4x2 ferromagnet h=0.1 T=2.5", &lattice, 2.5, rule);
    }
    let zero_field = Lattice::new(4.0, 2.0, 1.0, 0.0).unwrap();
    check_lanes("4x2 ferromagnet T=2", &zero_field, 2.0, Rule::HeatBath);
}

fn single_spin_dynamics() -> impl Iterator<Item = (Dynamics, Order)> {
    Rule::ALL
        .into_iter()
        .flat_map(|rule| Order::ALL.map(|order| (Dynamics::Single(rule), order)))
}

#[test]
fn every_ergodic_rule_and_order_samples_the_zero_field_3x3_ferromagnet_exactly() {
    let lattice = Lattice::square(3).unwrap();
    let metropolis = Dynamics::Single(Rule::Metropolis);
    for (dynamics, order) in single_spin_dynamics() {
        if dynamics == metropolis && order != Order::Random {
            continue; // reducible here: see the next two tests
        }
        check("3x3 ferromagnet T=2.5", &lattice, 2.5, dynamics, order);
    }
    let wolff = Dynamics::Wolff;
    check(
        "3x3 ferromagnet T=2.5",
        &lattice,
        2.5,
        wolff,
        Order::Sequential,
    );
}

#[test]
fn every_rule_and_order_samples_the_3x3_ferromagnet_in_a_small_field_exactly() {
    let lattice = Lattice::new(3.0, 3.0, 1.0, 0.1).unwrap();
    for (dynamics, order) in single_spin_dynamics() {
        check(
            "3x3 ferromagnet h=0.1 T=2.5",
            &lattice,
            2.5,
            dynamics,
            order,
        );
    }
}

#[test]
fn deterministic_order_metropolis_traps_mirror_states_of_the_zero_field_3x3_ferromagnet() {
    // Rows −++ / −−+ / −−− (sequential) and −+− / ++− / −−− (checkerboard): every site has
    // ΔE ≤ 0 when its turn comes, whatever the random numbers, so one sweep flips every
    // spin and the next flips them back. (Each order has 8 such states; these are one each,
    // found from the exact sweep matrix.)
    let spins = |text: &str| -> Vec<i8> {
        text.chars()
            .map(|c| if c == '+' { 1 } else { -1 })
            .collect()
    };
    for (order, state) in [
        (Order::Sequential, "-++--+---"),
        (Order::Checkerboard, "-+-++----"),
    ] {
        let trapped = spins(state);
        let mirror: Vec<i8> = trapped.iter().map(|s| -s).collect();
        for seed in 0..20 {
            let mut sampler = LatticeSampler::new(Lattice::square(3).unwrap(), 2.5, seed).unwrap();
            sampler
                .set_dynamics(Dynamics::Single(Rule::Metropolis))
                .unwrap();
            sampler.set_order(order);
            for (i, &s) in trapped.iter().enumerate() {
                sampler.set_spin(i, s).unwrap();
            }
            for sweep in 1..=10 {
                sampler.sweep();
                let expected = if sweep % 2 == 1 { &mirror } else { &trapped };
                assert_eq!(
                    sampler.spins(),
                    expected.as_slice(),
                    "{order:?} seed {seed}"
                );
            }
        }
    }
    // Heat-bath is not trapped: from the same state, sweeps lead elsewhere.
    let trapped = spins("-++--+---");
    let mirror: Vec<i8> = trapped.iter().map(|s| -s).collect();
    let mut sampler = LatticeSampler::new(Lattice::square(3).unwrap(), 2.5, 1).unwrap();
    for (i, &s) in trapped.iter().enumerate() {
        sampler.set_spin(i, s).unwrap();
    }
    let escaped = (0..10).any(|_| {
        sampler.sweep();
        sampler.spins() != trapped.as_slice() && sampler.spins() != mirror.as_slice()
    });
    assert!(escaped);
}

#[test]
fn every_rule_and_order_samples_a_3x3_plus_minus_j_glass_in_a_field_exactly() {
    let lattice = Lattice::new(3.0, 3.0, 1.0, 0.4)
        .unwrap()
        .with_plus_minus_bonds(17)
        .unwrap();
    for (dynamics, order) in single_spin_dynamics() {
        check("3x3 ±J glass h=0.4 T=1.5", &lattice, 1.5, dynamics, order);
    }
}

#[test]
fn every_rule_and_order_samples_a_gaussian_glass_with_a_fixed_border_exactly() {
    // Real couplings take the floating-point path; the border adds a field on edge spins.
    let lattice = Lattice::new(3.0, 3.0, 0.8, -0.2)
        .unwrap()
        .with_boundary(Boundary::Fixed(1))
        .unwrap()
        .with_gaussian_bonds(5)
        .unwrap();
    for (dynamics, order) in single_spin_dynamics() {
        check(
            "3x3 Gaussian glass, fixed-up border",
            &lattice,
            1.2,
            dynamics,
            order,
        );
    }
}

#[test]
fn wolff_samples_an_open_antiferromagnet_exactly() {
    let lattice = Lattice::new(4.0, 2.0, -1.0, 0.0)
        .unwrap()
        .with_boundary(Boundary::Open)
        .unwrap();
    check(
        "4x2 open antiferromagnet T=1.5",
        &lattice,
        1.5,
        Dynamics::Wolff,
        Order::Sequential,
    );
}

/// The page's sampler with checkerboard lanes on: whole rows from the lane streams, the
/// ticks of a chunk that starts inside a row from the sampler's stream (each sample's
/// chain starts with a 3-tick chunk so both kinds of tick are mixed in every sweep).
#[test]
fn the_sampler_with_lanes_on_samples_a_4x2_ferromagnet_exactly() {
    let lattice = Lattice::new(4.0, 2.0, 1.0, 0.1).unwrap();
    let name = "4x2 ferromagnet h=0.1 T=2.5";
    for rule in Rule::ALL {
        let burn_in = proven_burn_in(name, &lattice, 2.5, rule, Order::Checkerboard);
        let mut sampler = LatticeSampler::new(lattice.clone(), 2.5, 77).unwrap();
        sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
        sampler.set_order(Order::Checkerboard);
        sampler.set_lanes(true);
        assert!(sampler.lanes_apply());
        let mut counts = vec![0u64; 1 << lattice.len()];
        for _ in 0..SAMPLES {
            sampler.randomize();
            sampler.run(3);
            sampler.run(burn_in as u64 * 8 - 3);
            counts[state_index(sampler.spins())] += 1;
        }
        let label = format!(
            "{} checkerboard, lanes on (burn-in {burn_in} sweeps)",
            rule.name()
        );
        judge(name, &label, &lattice, 2.5, &counts);
    }
}

/// The vector lanes kernel's transition law, checked directly on a lattice wide enough
/// for it (64×4: two full groups per row, one at the wrap-around): from one fixed
/// configuration, a half-sweep of colour 0 sets each of its sites to +1 independently
/// with the rule's probability P(+1 | s, S). Many half-sweeps with independent lane
/// streams give per-site frequencies; Σ (c − N p)² / (N p (1 − p)) over the sites is χ²
/// with one degree of freedom per site (p = 0 or 1 sites must match exactly), and the
/// same counts must be rejected against the probabilities at 1.05 T.
/// The page's sampler in sequential order with lanes on: row y draws its words from lane
/// stream y mod 16, whole bands through the wavefront kernel (which steps the streams in
/// SIMD lanes and decides most ticks by the words' top bytes), ticks inside a row scalar.
/// Each sample's chain starts with a 3-tick chunk so both kinds of tick are mixed.
#[test]
fn the_sampler_with_lanes_on_samples_in_sequential_order_exactly() {
    let ferromagnet = Lattice::new(3.0, 3.0, 1.0, 0.1).unwrap();
    let glass = Lattice::new(3.0, 3.0, 1.0, 0.4)
        .unwrap()
        .with_plus_minus_bonds(17)
        .unwrap();
    for (name, lattice, temperature) in [
        ("3x3 ferromagnet h=0.1 T=2.5", &ferromagnet, 2.5),
        ("3x3 ±J glass h=0.4 T=1.5", &glass, 1.5),
    ] {
        for rule in Rule::ALL {
            let burn_in = proven_burn_in(name, lattice, temperature, rule, Order::Sequential);
            let mut sampler = LatticeSampler::new(lattice.clone(), temperature, 91).unwrap();
            sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
            sampler.set_order(Order::Sequential);
            sampler.set_lanes(true);
            assert!(sampler.wavefront_apply());
            let mut counts = vec![0u64; 1 << lattice.len()];
            for _ in 0..SAMPLES {
                sampler.randomize();
                sampler.run(3);
                sampler.run(burn_in as u64 * 9 - 3);
                counts[state_index(sampler.spins())] += 1;
            }
            let label = format!(
                "{} sequential, lanes on (burn-in {burn_in} sweeps)",
                rule.name()
            );
            judge(name, &label, lattice, temperature, &counts);
        }
    }
}

#[test]
fn the_vector_lanes_kernel_sets_each_site_by_the_rule_probability() {
    use boltzlab::dynamics::lanes::{LaneChange, LaneStreams, LaneTable, update_row};
    const HALF_SWEEPS: u64 = 20_000;
    let (w, h) = (64, 4);
    for (j, field, temperature) in [(1.0, 0.0, 2.269), (1.0, 0.3, 1.5), (-1.0, 0.2, 2.0)] {
        for rule in Rule::ALL {
            let lattice = Lattice::new(w as f64, h as f64, j, field).unwrap();
            let start: Vec<i8> = (0..w * h)
                .map(|i| if (i * 7919 + i / 3) % 5 < 2 { 1 } else { -1 })
                .collect();
            let table = LaneTable::new(rule, j, field, temperature);
            assert!(table.vectorised() || !cfg!(target_arch = "x86_64"));
            let mut ups = vec![0u64; w * h];
            for seed in 0..HALF_SWEEPS {
                let mut spins = start.clone();
                let mut streams = LaneStreams::new(seed);
                let mut change = LaneChange::default();
                for y in 0..h {
                    update_row(
                        &mut spins,
                        (w, h),
                        y,
                        y & 1,
                        &table,
                        &mut streams,
                        &mut change,
                    );
                }
                for (count, &s) in ups.iter_mut().zip(&spins) {
                    *count += u64::from(s > 0);
                }
            }
            let chi_square_at = |t: f64| {
                let (mut chi2, mut dof) = (0.0, 0);
                for i in (0..w * h).filter(|i| (i % w + i / w) % 2 == 0) {
                    let gap = 2.0 * lattice.local_field(&start, i);
                    let p = rule.probability_high(start[i] > 0, gap, t);
                    let expected = HALF_SWEEPS as f64 * p;
                    let variance = expected * (1.0 - p);
                    let miss = ups[i] as f64 - expected;
                    if variance > 0.0 {
                        chi2 += miss * miss / variance;
                        dof += 1;
                    } else if miss != 0.0 {
                        chi2 = f64::INFINITY;
                    }
                }
                (chi2, dof)
            };
            let (chi2, dof) = chi_square_at(temperature);
            let (warmer, warmer_dof) = chi_square_at(1.05 * temperature);
            let case = format!("64x4 J={j} h={field} T={temperature} {rule:?}");
            println!("{case}: χ² = {chi2:.1} on {dof} dof; at 1.05 T: {warmer:.1}");
            assert!(
                chi2 < chi_square_threshold(dof),
                "{case}: χ² = {chi2} on {dof} dof"
            );
            assert!(
                warmer > chi_square_threshold(warmer_dof),
                "{case}: the test cannot tell T from 1.05 T"
            );
            // The other colour is untouched by this half-sweep.
            let untouched = (0..w * h).filter(|i| (i % w + i / w) % 2 == 1);
            for i in untouched {
                assert_eq!(
                    ups[i],
                    HALF_SWEEPS * u64::from(start[i] > 0),
                    "{case} site {i}"
                );
            }
        }
    }
}
