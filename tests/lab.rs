//! The lattice laboratory the page drives: explained ticks leave the chain alone and tell
//! the truth, snapshots continue runs exactly, bad files and links change nothing, painting
//! and the phase switch do what they say.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

use boltzlab::app::{Brush, LatticeLab, LatticeModel, LatticeSetup, Reset, StepReport};
use boltzlab::dynamics::rules::threshold;
use boltzlab::{Boundary, Dynamics, Lattice, LatticeSampler, Order, Rule};

/// Every lattice variant with a distinct code path in the sampler.
fn variants() -> Vec<(&'static str, Lattice)> {
    let base = || Lattice::new(9.0, 7.0, 1.0, 0.2).unwrap();
    vec![
        ("periodic ferromagnet, h = 0", Lattice::square(8).unwrap()),
        ("periodic ferromagnet in a field", base()),
        (
            "open antiferromagnet",
            Lattice::new(9.0, 7.0, -1.0, 0.1)
                .unwrap()
                .with_boundary(Boundary::Open)
                .unwrap(),
        ),
        (
            "±J glass, fixed-up border",
            base()
                .with_boundary(Boundary::Fixed(1))
                .unwrap()
                .with_plus_minus_bonds(4)
                .unwrap(),
        ),
        ("Gaussian glass", base().with_gaussian_bonds(4).unwrap()),
    ]
}

fn single_spin() -> Vec<(Dynamics, Order)> {
    Rule::ALL
        .into_iter()
        .flat_map(|r| Order::ALL.map(|o| (Dynamics::Single(r), o)))
        .collect()
}

#[test]
fn explained_ticks_follow_the_same_chain_and_report_the_decision_they_took() {
    for (name, lattice) in variants() {
        for (dynamics, order) in single_spin() {
            for temperature in [0.0, 1.3, f64::INFINITY] {
                let make = || {
                    let mut s = LatticeSampler::new(lattice.clone(), temperature, 5).unwrap();
                    s.set_dynamics(dynamics).unwrap();
                    s.set_order(order);
                    for i in (0..lattice.len()).step_by(11) {
                        s.set_clamped(i, true).unwrap();
                    }
                    s
                };
                let (mut plain, mut explained) = (make(), make());
                for _ in 0..3 * lattice.len() {
                    let site = explained.next_site();
                    plain.tick();
                    let e = explained.explained_tick().unwrap();
                    assert_eq!(e.site, site);
                    let i = e.site;
                    assert_eq!(
                        plain.spins(),
                        explained.spins(),
                        "{name} {dynamics:?} {order:?}"
                    );
                    // The local field is the engine's, and ΔE = 2 s h_i.
                    let h = lattice.local_field(
                        &{
                            let mut before = explained.spins().to_vec();
                            before[i] = e.spin_before;
                            before
                        },
                        i,
                    );
                    assert_eq!(e.local_field, h);
                    assert_eq!(e.energy_change, 2.0 * f64::from(e.spin_before) * h);
                    let Dynamics::Single(rule) = dynamics else {
                        unreachable!()
                    };
                    assert_eq!(
                        e.probability_up,
                        rule.probability_high(e.spin_before > 0, 2.0 * h, temperature)
                    );
                    if e.clamped {
                        assert_eq!(e.random, None);
                        assert_eq!(e.spin_after, e.spin_before);
                    } else {
                        // The decision: up exactly when r < round(P(up) · 2^32).
                        let r = e.random.unwrap() * 4_294_967_296.0;
                        assert_eq!(r.fract(), 0.0);
                        let up = (r as u64) < threshold(e.probability_up);
                        assert_eq!(e.spin_after == 1, up, "{name} {dynamics:?} {order:?}");
                    }
                }
                assert_eq!(plain.ticks(), explained.ticks());
            }
        }
    }
}

#[test]
fn the_heat_bath_flip_probability_is_one_over_one_plus_exp_delta_e_over_t() {
    let mut sampler =
        LatticeSampler::new(Lattice::new(16.0, 16.0, 1.0, 0.3).unwrap(), 2.269, 3).unwrap();
    for _ in 0..1000 {
        let e = sampler.explained_tick().unwrap();
        let formula = 1.0 / (1.0 + (e.energy_change / e.temperature).exp());
        assert!((e.flip_probability - formula).abs() < 1e-14, "{e:?}");
    }
    sampler
        .set_dynamics(Dynamics::Single(Rule::Metropolis))
        .unwrap();
    for _ in 0..1000 {
        let e = sampler.explained_tick().unwrap();
        let formula = (-e.energy_change / e.temperature).exp().min(1.0);
        assert!((e.flip_probability - formula).abs() < 1e-14, "{e:?}");
    }
    sampler.set_dynamics(Dynamics::Wolff).unwrap_err();
}

fn setups() -> Vec<LatticeSetup> {
    let base = LatticeSetup {
        size: 12,
        temperature: 1.7,
        ..LatticeSetup::default()
    };
    vec![
        base,
        LatticeSetup {
            model: LatticeModel::Antiferromagnet,
            order: Order::Checkerboard,
            boundary: Boundary::Open,
            field: 0.4,
            ..base
        },
        LatticeSetup {
            model: LatticeModel::PlusMinusGlass,
            dynamics: Dynamics::Single(Rule::Metropolis),
            order: Order::Random,
            boundary: Boundary::Fixed(-1),
            seed: 77,
            ..base
        },
        LatticeSetup {
            model: LatticeModel::GaussianGlass,
            temperature: 0.6,
            size: 7,
            ..base
        },
        LatticeSetup {
            dynamics: Dynamics::Wolff,
            temperature: 2.3,
            ..base
        },
    ]
}

#[test]
fn an_exported_state_continues_exactly_as_the_run_it_came_from() {
    for setup in setups() {
        let mut lab = LatticeLab::new(setup).unwrap();
        lab.advance(1234, false).unwrap();
        if setup.dynamics != Dynamics::Wolff {
            lab.paint((1.0, 1.0), (5.0, 3.0), 1, Brush::Clamp).unwrap();
        }
        lab.advance(777, false).unwrap();
        let json = lab.export_state();
        let mut copy = LatticeLab::new(LatticeSetup::default()).unwrap();
        copy.import_state(&json).unwrap();
        assert_eq!(copy.setup(), lab.setup(), "{setup:?}");
        assert_eq!(copy.sampler().lattice(), lab.sampler().lattice());
        assert_eq!(copy.sampler().state(), lab.sampler().state());
        assert_eq!(copy.export_state(), json);
        for _ in 0..5 {
            lab.advance(999, false).unwrap();
            copy.advance(999, false).unwrap();
            assert_eq!(copy.sampler().spins(), lab.sampler().spins(), "{setup:?}");
        }
        // Integer couplings keep E exactly; real ones to rounding (the copy recounted it).
        let (a, b) = (copy.sampler().energy(), lab.sampler().energy());
        assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} {b}");
    }
}

#[test]
fn a_bad_state_file_is_refused_with_its_reason_and_changes_nothing() {
    let mut source = LatticeLab::new(LatticeSetup {
        model: LatticeModel::PlusMinusGlass,
        size: 4,
        ..LatticeSetup::default()
    })
    .unwrap();
    source.advance(10, false).unwrap();
    let good = source.export_state();
    let edit = |from: &str, to: &str| {
        assert!(good.contains(from), "{from}");
        good.replacen(from, to, 1)
    };
    let cases = [
        ("{not json".to_string(), "not a boltzlab lattice state"),
        ("[]".to_string(), "not a boltzlab lattice state"),
        (
            edit("\"boltzlab-lattice\"", "\"boltzlab-network\""),
            "format",
        ),
        (edit("\"version\": 1", "\"version\": 9"), "reads version 1"),
        (edit("\"size\": 4", "\"size\": 5"), "need 5 rows"),
        (
            edit("\"size\": 4", "\"size\": 4.5"),
            "size must be a whole number",
        ),
        (
            edit("\"temperature\": 2.269", "\"temperature\": -1"),
            "temperature must be",
        ),
        (
            edit("\"rule\": \"heat-bath\"", "\"rule\": \"glauber\""),
            "dynamics must be one of",
        ),
        (
            edit("\"rule\": \"heat-bath\"", "\"rule\": \"wolff\""),
            "Wolff cluster moves need",
        ),
        (
            edit("\"model\": \"spin-glass-pm\"", "\"model\": \"ferromagnet\""),
            "leave 'bonds' out",
        ),
        (
            edit("\"phase\": \"clamped\"", "\"phase\": \"frozen\""),
            "phase must be one of",
        ),
        (
            edit("\"clamped\": []", "\"clamped\": [16]"),
            "clamped must be between 0 and 15",
        ),
        (
            edit("\"next_site\": ", "\"next_site\": 99"),
            "next site must be between",
        ),
        (
            edit("\"format\"", "\"colour\": 1, \"format\""),
            "file field must be one of format, version",
        ),
    ];
    let mut lab = LatticeLab::new(LatticeSetup::default()).unwrap();
    lab.advance(5000, false).unwrap();
    let before = lab.export_state();
    for (text, needle) in cases {
        let err = lab.import_state(&text).unwrap_err().to_string();
        assert!(err.contains(needle), "{needle}: {err}");
        assert_eq!(lab.export_state(), before);
    }
    // Rows: a wrong character and a wrong length, in the spins and in the bonds.
    let value: serde_json::Value = serde_json::from_str(&good).unwrap();
    for (key, row, needle) in [
        ("spins", "+x+-", "a spin is '+' or '-'"),
        ("spins", "+-+", "need 4 spins, got 3"),
        ("bonds", "+-+-+-+", "need 8 bond factors"),
        ("bonds", "+-+-+-+0", "a ±J bond is '+' or '-'"),
    ] {
        let mut v = value.clone();
        v[key][2] = row.into();
        let err = lab.import_state(&v.to_string()).unwrap_err().to_string();
        assert!(err.contains(needle), "{needle}: {err}");
    }
    let mut v = value.clone();
    v["random_state"] = serde_json::json!([0, 0, 0, 0]);
    let err = lab.import_state(&v.to_string()).unwrap_err().to_string();
    assert!(err.contains("must not be all zero"), "{err}");
    assert_eq!(lab.export_state(), before);
}

#[test]
fn a_share_link_restarts_the_same_run_and_a_bad_one_changes_nothing() {
    for setup in setups() {
        let mut lab = LatticeLab::new(setup).unwrap();
        lab.advance(500, false).unwrap();
        let link = lab.fragment();
        let mut other = LatticeLab::new(LatticeSetup::default()).unwrap();
        other.apply_fragment(&format!("#{link}")).unwrap();
        assert_eq!(other.setup(), lab.setup());
        let mut fresh = LatticeLab::new(lab.setup()).unwrap();
        other.advance(500, false).unwrap();
        fresh.advance(500, false).unwrap();
        assert_eq!(other.sampler().spins(), fresh.sampler().spins());
    }
    let mut lab = LatticeLab::new(LatticeSetup::default()).unwrap();
    lab.advance(100, false).unwrap();
    let before = lab.export_state();
    for bad in [
        "#T=banana",
        "#size=0",
        "#model=ferromagnet&rule=wolff&h=1",
        "#what=ever",
    ] {
        assert!(lab.apply_fragment(bad).is_err(), "{bad}");
        assert_eq!(lab.export_state(), before);
    }
}

#[test]
fn parameter_changes_keep_the_spins_or_are_refused_and_change_nothing() {
    let mut lab = LatticeLab::new(LatticeSetup {
        size: 16,
        ..LatticeSetup::default()
    })
    .unwrap();
    lab.advance(4000, false).unwrap();
    let spins = lab.sampler().spins().to_vec();
    lab.set_field(0.5).unwrap();
    lab.set_boundary("fixed-up").unwrap();
    lab.set_model("spin-glass-gaussian").unwrap();
    assert_eq!(lab.sampler().spins(), &spins[..]);
    assert_eq!(lab.sampler().lattice().field(), 0.5);
    assert!(lab.bond_window().frustrated_count > 0);
    let exact = lab.sampler().lattice().energy(lab.sampler().spins());
    assert!((lab.sampler().energy() - exact).abs() < 1e-9);
    // Wolff is refused here (glass, field, fixed border); nothing changes.
    let err = lab.set_dynamics("wolff").unwrap_err().to_string();
    assert!(err.contains("Wolff"), "{err}");
    lab.set_model("ferromagnet").unwrap();
    lab.set_boundary("periodic").unwrap();
    lab.set_field(0.0).unwrap();
    assert_eq!(lab.bond_window().frustrated_count, 0);
    lab.set_dynamics("wolff").unwrap();
    let err = lab.set_field(0.1).unwrap_err().to_string();
    assert!(err.contains("zero field"), "{err}");
    assert_eq!(lab.sampler().lattice().field(), 0.0);
    assert!(lab.set_temperature(-2.0).is_err());
    assert!(lab.set_temperature(101.0).is_err());
    assert!(lab.set_size(1).is_err());
    assert!(lab.set_size(4096).is_err());
    assert!(lab.set_seed((1 << 53) + 1).is_err());
    assert!(lab.set_order("spiral").is_err());
    assert_eq!(lab.setup().size, 16);
    lab.set_size(32).unwrap();
    assert_eq!(lab.sampler().spins().len(), 1024);
    assert_eq!(lab.setup().dynamics, Dynamics::Wolff);
    assert_eq!(lab.trace().len(), 1);
}

#[test]
fn painting_sets_spins_and_clamps_and_the_phase_switch_frees_them() {
    let mut lab = LatticeLab::new(LatticeSetup {
        size: 20,
        temperature: 100.0,
        ..LatticeSetup::default()
    })
    .unwrap();
    lab.reset(Reset::AllDown);
    // A horizontal stroke of radius 1 (a plus-shaped brush) with centres (2, 5) to (12, 5):
    // columns 2 to 12 in rows 4 and 6, and 1 to 13 in row 5.
    lab.paint((2.5, 5.5), (12.5, 5.5), 1, Brush::Up).unwrap();
    let up: Vec<usize> = (0..400)
        .filter(|&i| lab.sampler().spins()[i] == 1)
        .collect();
    assert_eq!(up.len(), 11 * 3 + 2, "{up:?}");
    assert!(
        up.iter()
            .all(|&i| (4..=6).contains(&(i / 20)) && (1..=13).contains(&(i % 20)))
    );
    lab.paint((2.5, 5.5), (12.5, 5.5), 1, Brush::Clamp).unwrap();
    assert_eq!(lab.clamped_count(), up.len());
    // T = 100: free spins are nearly coin flips; clamped ones never move.
    for _ in 0..50 {
        lab.advance(400, false).unwrap();
        assert!(up.iter().all(|&i| lab.sampler().spins()[i] == 1));
    }
    lab.set_clamps_on(false).unwrap();
    lab.advance(4000, false).unwrap();
    assert!(up.iter().any(|&i| lab.sampler().spins()[i] == -1));
    // Clamp brush under Wolff with the phase clamped: refused, nothing painted.
    lab.release_all();
    lab.set_clamps_on(true).unwrap();
    lab.set_dynamics("wolff").unwrap();
    assert!(
        lab.paint((0.0, 0.0), (19.0, 19.0), 2, Brush::Clamp)
            .is_err()
    );
    assert_eq!(lab.clamped_count(), 0);
    assert!(lab.paint((0.0, 0.0), (1.0, 1.0), 65, Brush::Up).is_err());
    // Strokes off the lattice are clipped, not errors.
    lab.paint((-50.0, -50.0), (-40.0, -45.0), 3, Brush::Up)
        .unwrap();
}

#[test]
fn an_explained_advance_reports_a_tick_or_a_cluster() {
    let mut lab = LatticeLab::new(LatticeSetup {
        size: 8,
        ..LatticeSetup::default()
    })
    .unwrap();
    lab.advance(10, true).unwrap();
    match lab.report() {
        Some(StepReport::Tick(e)) => assert_eq!(e.tick, 9),
        other => panic!("{other:?}"),
    }
    assert_eq!(lab.sampler().ticks(), 10);
    lab.set_dynamics("wolff").unwrap();
    lab.advance(1, true).unwrap();
    assert!(matches!(lab.report(), Some(StepReport::Cluster { flipped }) if *flipped >= 1));
    lab.advance(100, false).unwrap();
    assert_eq!(lab.report(), None);
    let csv = lab.trace_csv();
    assert!(csv.starts_with("sweeps,energy_per_spin,magnetization_per_spin\n"));
    assert_eq!(csv.lines().count(), 1 + lab.trace().len());
}
