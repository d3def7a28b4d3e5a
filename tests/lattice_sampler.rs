//! The lattice sampler's laws that need no statistics: bookkeeping, determinism, bounds.

use boltzlab::{Lattice, LatticeSampler};

#[test]
fn energy_and_magnetization_bookkeeping_equal_recomputation_after_many_ticks() {
    for (side, temperature, field) in [(16, 2.269, 0.0), (31, 1.0, 0.3), (8, 5.0, -0.7)] {
        let lattice = Lattice::new(side as f64, side as f64, 1.0, field).unwrap();
        let mut sampler = LatticeSampler::new(lattice, temperature, 7).unwrap();
        for _ in 0..50 {
            sampler.run(9_973); // not a multiple of N: the cursor wraps mid-call
            let lattice = sampler.lattice();
            assert_eq!(sampler.energy(), lattice.energy(sampler.spins()));
            assert_eq!(
                sampler.magnetization(),
                lattice.magnetization(sampler.spins())
            );
        }
        assert_eq!(sampler.ticks(), 50 * 9_973);
    }
}

#[test]
fn a_seed_fixes_the_whole_trajectory() {
    let run = |seed| {
        let mut s = LatticeSampler::new(Lattice::square(32).unwrap(), 2.0, seed).unwrap();
        s.run(100_000);
        s.spins().to_vec()
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

#[test]
fn zero_temperature_never_raises_the_energy() {
    let mut sampler = LatticeSampler::new(Lattice::square(24).unwrap(), 0.0, 11).unwrap();
    let mut last = sampler.energy();
    for _ in 0..20_000 {
        sampler.tick();
        assert!(sampler.energy() <= last);
        last = sampler.energy();
    }
}

#[test]
fn bad_temperatures_are_rejected_and_leave_the_sampler_unchanged() {
    let mut sampler = LatticeSampler::new(Lattice::square(8).unwrap(), 2.0, 1).unwrap();
    for bad in [f64::NAN, -1.0, f64::NEG_INFINITY] {
        let err = sampler.set_temperature(bad).unwrap_err();
        assert!(err.to_string().starts_with("temperature"), "{err}");
        assert_eq!(sampler.temperature(), 2.0);
    }
    assert!(LatticeSampler::new(Lattice::square(8).unwrap(), f64::NAN, 1).is_err());
    sampler.set_temperature(f64::INFINITY).unwrap();
}

#[test]
fn infinite_temperature_makes_each_spin_a_fair_coin() {
    // At T = ∞ each tick draws s = ±1 with probability ½ independently, so after whole
    // sweeps M = Σ s_i is a sum of N independent ±1: mean 0, variance N.
    let n = 64 * 64;
    let mut sampler = LatticeSampler::new(Lattice::square(64).unwrap(), f64::INFINITY, 5).unwrap();
    let samples = 2_000;
    let mut sum = 0.0;
    let mut sum_sq = 0.0;
    for _ in 0..samples {
        sampler.sweep();
        let m = sampler.magnetization() as f64;
        sum += m;
        sum_sq += m * m;
    }
    let mean = sum / samples as f64;
    let variance = sum_sq / samples as f64 - mean * mean;
    // Mean: standard error √(N / samples) ≈ 1.43; allow 4 of them.
    assert!(
        mean.abs() < 4.0 * (n as f64 / samples as f64).sqrt(),
        "{mean}"
    );
    // Variance of a sample variance of Gaussians: 2N²/samples, standard error ≈ 130.
    let se = (2.0 / samples as f64).sqrt() * n as f64;
    assert!((variance - n as f64).abs() < 4.0 * se, "{variance}");
}

mod fingerprint;

#[test]
fn the_lanes_fingerprint_is_the_one_wasm_reproduces() {
    let fingerprint = fingerprint::lanes_fingerprint();
    assert_eq!(
        fingerprint,
        fingerprint::EXPECTED_LANES,
        "fingerprint {fingerprint:#018x}"
    );
}

#[test]
fn the_trajectory_fingerprint_is_the_one_wasm_reproduces() {
    let fingerprint = fingerprint::trajectory_fingerprint();
    assert_eq!(
        fingerprint,
        fingerprint::EXPECTED,
        "fingerprint {fingerprint:#018x}"
    );
}

use boltzlab::{Boundary, Dynamics, Order, Rule};

/// Every lattice variant the sampler has a distinct code path for.
fn variants() -> Vec<(String, Lattice)> {
    let base = || Lattice::new(12.0, 10.0, 1.0, 0.2).unwrap();
    vec![
        ("periodic ferromagnet".into(), base()),
        (
            "open antiferromagnet".into(),
            Lattice::new(12.0, 10.0, -1.0, 0.1)
                .unwrap()
                .with_boundary(Boundary::Open)
                .unwrap(),
        ),
        (
            "±J glass, fixed-up border".into(),
            base()
                .with_boundary(Boundary::Fixed(1))
                .unwrap()
                .with_plus_minus_bonds(4)
                .unwrap(),
        ),
        (
            "Gaussian glass, fixed-down border".into(),
            base()
                .with_boundary(Boundary::Fixed(-1))
                .unwrap()
                .with_gaussian_bonds(4)
                .unwrap(),
        ),
    ]
}

fn all_single_spin() -> Vec<(Dynamics, Order)> {
    Rule::ALL
        .into_iter()
        .flat_map(|r| Order::ALL.map(|o| (Dynamics::Single(r), o)))
        .collect()
}

#[test]
fn bookkeeping_equals_recomputation_for_every_variant_rule_and_order() {
    for (name, lattice) in variants() {
        for (dynamics, order) in all_single_spin() {
            let mut sampler = LatticeSampler::new(lattice.clone(), 1.3, 3).unwrap();
            sampler.set_dynamics(dynamics).unwrap();
            sampler.set_order(order);
            for _ in 0..30 {
                sampler.run(997);
                let exact = sampler.lattice().energy(sampler.spins());
                // Integer couplings: exact equality. Real couplings: float sums in a
                // different order, so agreement to rounding (1e-9 of the energy scale).
                let tolerance = if sampler.lattice().has_integer_couplings() {
                    0.0
                } else {
                    1e-9 * (1.0 + exact.abs())
                };
                assert!(
                    (sampler.energy() - exact).abs() <= tolerance,
                    "{name} {dynamics:?} {order:?}"
                );
                assert_eq!(
                    sampler.magnetization(),
                    sampler.lattice().magnetization(sampler.spins())
                );
            }
        }
    }
}

#[test]
fn clamped_spins_never_move_and_move_again_once_the_phase_is_free() {
    for (name, lattice) in variants() {
        for (dynamics, order) in all_single_spin() {
            // T = ∞: every free spin is a coin flip each tick, the hardest case for a clamp.
            let mut sampler = LatticeSampler::new(lattice.clone(), f64::INFINITY, 8).unwrap();
            sampler.set_dynamics(dynamics).unwrap();
            sampler.set_order(order);
            let clamped: Vec<usize> = (0..lattice.len()).filter(|i| i % 7 == 0).collect();
            for &i in &clamped {
                sampler.set_spin(i, 1).unwrap();
                sampler.set_clamped(i, true).unwrap();
            }
            sampler.fill(-1);
            sampler.randomize();
            for _ in 0..50 {
                sampler.sweep();
                assert!(clamped.iter().all(|&i| sampler.spins()[i] == 1), "{name}");
            }
            sampler.set_clamps_on(false).unwrap();
            // (Metropolis at T = ∞ flips every visit, so look after each sweep.)
            let moved = (0..10).any(|_| {
                sampler.sweep();
                clamped.iter().any(|&i| sampler.spins()[i] == -1)
            });
            assert!(moved, "{name}: free spins at T = ∞ must move");
        }
    }
}

#[test]
fn zero_temperature_never_raises_the_energy_for_any_variant() {
    for (name, lattice) in variants() {
        for (dynamics, order) in all_single_spin() {
            let mut sampler = LatticeSampler::new(lattice.clone(), 0.0, 12).unwrap();
            sampler.set_dynamics(dynamics).unwrap();
            sampler.set_order(order);
            let mut last = sampler.energy();
            for _ in 0..3_000 {
                sampler.tick();
                assert!(
                    sampler.energy() <= last + 1e-9,
                    "{name} {dynamics:?} {order:?}"
                );
                last = sampler.energy();
            }
        }
    }
}

#[test]
fn wolff_is_refused_where_it_would_be_wrong_and_nothing_changes() {
    let glass = Lattice::square(8)
        .unwrap()
        .with_plus_minus_bonds(1)
        .unwrap();
    let field = Lattice::new(8.0, 8.0, 1.0, 0.5).unwrap();
    let fixed = Lattice::square(8)
        .unwrap()
        .with_boundary(Boundary::Fixed(1))
        .unwrap();
    for lattice in [glass, field, fixed] {
        let mut sampler = LatticeSampler::new(lattice, 2.0, 1).unwrap();
        let err = sampler.set_dynamics(Dynamics::Wolff).unwrap_err();
        assert!(err.to_string().starts_with("dynamics"), "{err}");
        assert_eq!(sampler.dynamics(), Dynamics::Single(Rule::HeatBath));
    }
    let mut sampler = LatticeSampler::new(Lattice::square(8).unwrap(), 2.0, 1).unwrap();
    sampler.set_clamped(3, true).unwrap();
    assert!(sampler.set_dynamics(Dynamics::Wolff).is_err());
    assert!(sampler.set_spin(64, 1).is_err());
    assert!(sampler.set_spin(0, 0).is_err());
}

/// The vector kernel (SSE2 natively) makes the same decisions as the scalar group: the
/// same spins after every sweep, for both rules, both signs of J, fields, T = 0 and ∞,
/// widths whose rows are one group (all wrap-around), several, and a partial last group.
#[test]
fn the_vector_lanes_kernel_follows_the_scalar_lanes_chain() {
    use boltzlab::Rule;
    use boltzlab::dynamics::lanes::CheckerboardLanes;
    let mut vectorised_cases = 0;
    for (w, h) in [
        (32.0, 4.0),
        (64.0, 6.0),
        (96.0, 2.0),
        (40.0, 4.0),
        (128.0, 8.0),
    ] {
        for (j, field, temperature) in [
            (1.0, 0.0, 2.269),
            (1.0, 0.3, 1.2),
            (-1.0, -0.2, 1.7),
            (0.0, 0.4, 1.0),
            (1.0, 0.0, 0.0),
            (0.5, 0.1, f64::INFINITY),
        ] {
            for rule in Rule::ALL {
                let lattice = Lattice::new(w, h, j, field).unwrap();
                let mut fast =
                    CheckerboardLanes::new(lattice.clone(), temperature, rule, 3).unwrap();
                let mut reference = CheckerboardLanes::new(lattice, temperature, rule, 3)
                    .unwrap()
                    .scalar_only();
                vectorised_cases += usize::from(fast.vectorised());
                for sweep in 0..20 {
                    fast.run(1);
                    reference.run(1);
                    assert_eq!(
                        fast.spins(),
                        reference.spins(),
                        "{w}x{h} J={j} h={field} T={temperature} {rule:?} sweep {sweep}"
                    );
                }
            }
        }
    }
    // Natively (x86-64) every case above goes through the vector kernel.
    if cfg!(target_arch = "x86_64") {
        assert_eq!(vectorised_cases, 5 * 6 * 2);
    }
}

#[test]
fn the_sampler_row_streams_fingerprint_is_the_one_wasm_reproduces() {
    let fingerprint = fingerprint::sampler_row_streams_fingerprint();
    assert_eq!(
        fingerprint,
        fingerprint::EXPECTED_SAMPLER_ROW_STREAMS,
        "fingerprint {fingerprint:#018x}"
    );
}

#[test]
fn the_sampler_lanes_fingerprint_is_the_one_wasm_reproduces() {
    let fingerprint = fingerprint::sampler_lanes_fingerprint();
    assert_eq!(
        fingerprint,
        fingerprint::EXPECTED_SAMPLER_LANES,
        "fingerprint {fingerprint:#018x}"
    );
}

/// With lanes on, the bookkeeping (E, M) still equals recomputation, chunks that end
/// inside rows keep the cursor, and a saved state (with the lane streams) continues
/// exactly; switching lanes on is deterministic (seeded from the sampler's state).
#[test]
fn lanes_on_keep_the_bookkeeping_and_the_state_continues_exactly() {
    use boltzlab::{Dynamics, Order, Rule};
    for rule in Rule::ALL {
        let lattice = Lattice::new(64.0, 6.0, 1.0, 0.1).unwrap();
        let mut sampler = LatticeSampler::new(lattice.clone(), 2.0, 5).unwrap();
        sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
        sampler.set_order(Order::Checkerboard);
        let mut twin = sampler.clone();
        sampler.set_lanes(true);
        twin.set_lanes(true);
        assert!(sampler.lanes_apply());
        for chunk in [5, 32, 1_000, 384, 77] {
            sampler.run(chunk);
            twin.run(chunk);
            assert_eq!(sampler.spins(), twin.spins());
            assert_eq!(sampler.energy(), lattice.energy(sampler.spins()));
            assert_eq!(
                sampler.magnetization(),
                lattice.magnetization(sampler.spins())
            );
        }
        assert_eq!(sampler.ticks(), 5 + 32 + 1_000 + 384 + 77);
        let state = sampler.state();
        assert_eq!(state.lane_random_state.as_ref().map(Vec::len), Some(64));
        let mut copy = LatticeSampler::from_state(lattice.clone(), state.clone()).unwrap();
        assert_eq!(copy.state(), state);
        for _ in 0..4 {
            sampler.run(999);
            copy.run(999);
            assert_eq!(copy.spins(), sampler.spins(), "{rule:?}");
        }
        // A lane state with a lane of zeros is refused.
        let mut bad = state.clone();
        let words = bad.lane_random_state.as_mut().unwrap();
        for w in 0..4 {
            words[16 * w + 2] = 0;
        }
        let error = LatticeSampler::from_state(lattice.clone(), bad).unwrap_err();
        assert!(error.to_string().contains("lane random state"), "{error}");
        let mut short = state;
        short.lane_random_state.as_mut().unwrap().pop();
        assert!(LatticeSampler::from_state(lattice, short).is_err());
    }
}

/// The page's lab runs with lanes on; its exported file carries the lane streams and an
/// imported file continues exactly. A file from before lanes (no `lane_random_state`)
/// still imports, and continues deterministically (the same file twice, the same run).
#[test]
fn the_lab_exports_the_lane_streams_and_imports_files_without_them() {
    use boltzlab::app::{LatticeLab, LatticeSetup};
    use boltzlab::{Dynamics, Order, Rule};
    let setup = LatticeSetup {
        size: 64,
        order: Order::Checkerboard,
        dynamics: Dynamics::Single(Rule::HeatBath),
        ..LatticeSetup::default()
    };
    let mut lab = LatticeLab::new(setup).unwrap();
    assert!(lab.sampler().lanes_apply());
    lab.advance(5_000, false).unwrap();
    let json = lab.export_state();
    assert!(json.contains("\"lane_random_state\""));
    let mut copy = LatticeLab::new(LatticeSetup::default()).unwrap();
    copy.import_state(&json).unwrap();
    assert_eq!(copy.sampler().state(), lab.sampler().state());
    for _ in 0..3 {
        lab.advance(4_096, false).unwrap();
        copy.advance(4_096, false).unwrap();
        assert_eq!(copy.sampler().spins(), lab.sampler().spins());
    }
    // An old file: the same JSON without the lane streams.
    let start = json.find(",\n  \"lane_random_state\"").unwrap();
    let end = start + json[start..].find(']').unwrap() + 1;
    let old = format!("{}{}", &json[..start], &json[end..]);
    assert!(!old.contains("lane_random_state"));
    let (mut a, mut b) = (copy.clone(), copy);
    a.import_state(&old).unwrap();
    b.import_state(&old).unwrap();
    assert!(a.sampler().lanes_apply());
    for _ in 0..3 {
        a.advance(4_096, false).unwrap();
        b.advance(4_096, false).unwrap();
        assert_eq!(a.sampler().spins(), b.sampler().spins());
    }
    // A damaged lane state is refused by name and changes nothing.
    let before = a.export_state();
    let damaged = json.replacen("\"lane_random_state\": [", "\"lane_random_state\": [1, ", 1);
    let error = a.import_state(&damaged).unwrap_err();
    assert!(error.to_string().contains("lane random state"), "{error}");
    assert_eq!(a.export_state(), before);
}
