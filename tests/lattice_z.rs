//! The page's "normalising constant" panel for lattices: ln Z of the lattice model through
//! its dense network ([`Lattice::to_network`]) and the page's effort
//! ([`boltzlab::estimate::log_z::page_log_z`]) against Kaufman's exact finite-lattice formula
//! and against a sum over every state of the lattice's own energy.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

use boltzlab::estimate::log_z::page_log_z;
use boltzlab::exact::kaufman_log_z;
use boltzlab::model::Boundary;
use boltzlab::{Lattice, ParamError};

/// ln Σ_s e^{−E(s)/T} with E from [`Lattice::energy`], over all 2^n spin states.
fn lattice_log_z(lattice: &Lattice, temperature: f64) -> f64 {
    let n = lattice.len();
    let exponents: Vec<f64> = (0..1u64 << n)
        .map(|index| {
            let spins: Vec<i8> = (0..n)
                .map(|i| if index >> i & 1 == 1 { 1 } else { -1 })
                .collect();
            -lattice.energy(&spins) / temperature
        })
        .collect();
    let top = exponents.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    top + exponents.iter().map(|x| (x - top).exp()).sum::<f64>().ln()
}

#[test]
fn exact_ln_z_of_a_periodic_4x4_lattice_is_kaufman() {
    let lattice = Lattice::square(4)
        .unwrap()
        .with_boundary(Boundary::Periodic)
        .unwrap();
    let network = lattice.to_network().unwrap();
    let exact = page_log_z(&network, "exact", 2.0, 1).unwrap().log_z;
    let kaufman = kaufman_log_z(4, 4, 2.0);
    assert!((exact - kaufman).abs() < 1e-9, "{exact} vs {kaufman}");
    // Z = 26839013.6123… (the brief's value, checked here rather than trusted).
    assert!((exact - 26_839_013.612_3_f64.ln()).abs() < 1e-9, "{exact}");
    assert!((exact - lattice_log_z(&lattice, 2.0)).abs() < 1e-9);
}

#[test]
fn every_method_brackets_exact_ln_z_of_a_small_frustrated_lattice_in_a_field() {
    let lattice = Lattice::new(4.0, 4.0, 1.0, 0.3)
        .unwrap()
        .with_boundary(Boundary::Open)
        .unwrap()
        .with_plus_minus_bonds(5)
        .unwrap();
    let t = 1.5;
    let network = lattice.to_network().unwrap();
    let truth = lattice_log_z(&lattice, t);
    let exact = page_log_z(&network, "exact", t, 1).unwrap();
    assert!((exact.log_z - truth).abs() < 1e-9);
    let sampled = page_log_z(&network, "sampled", t, 1).unwrap();
    assert!(sampled.log_z <= truth + 1e-9 && sampled.log_z > truth - 1.0);
    let mean_field = page_log_z(&network, "mean-field", t, 1).unwrap();
    assert!(mean_field.log_z <= truth + 1e-9);
    let ais = page_log_z(&network, "ais", t, 1).unwrap();
    let stderr = ais.stderr.unwrap();
    assert!(stderr > 0.0 && (ais.log_z - truth).abs() < 5.0 * stderr + stderr * stderr);
}

#[test]
fn exact_is_refused_above_thirty_spins_and_bad_temperatures_are_named() {
    let network = Lattice::square(6).unwrap().to_network().unwrap();
    let err = page_log_z(&network, "exact", 2.0, 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("30"), "{err}");
    let lattice = Lattice::square(4).unwrap().to_network().unwrap();
    for t in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let err = page_log_z(&lattice, "ais", t, 1).unwrap_err();
        assert!(err.to_string().contains("temperature"), "{err}");
    }
    assert!(matches!(
        page_log_z(&lattice, "guess", 2.0, 1),
        Err(ParamError::UnknownChoice { .. })
    ));
}

#[test]
fn exact_ln_z_of_a_large_periodic_ferromagnet_is_kaufman_and_other_large_lattices_are_refused() {
    use boltzlab::estimate::log_z::{Bound, lattice_exact_log_z};
    // Up to 30 spins the lattice is enumerated, whatever it is: 5 × 5 at T = 2.
    let small = Lattice::square(5)
        .unwrap()
        .with_boundary(Boundary::Periodic)
        .unwrap();
    let enumerated = lattice_exact_log_z(&small, 2.0).unwrap();
    assert!((enumerated.log_z - lattice_log_z(&small, 2.0)).abs() < 1e-9);
    // Beyond, the periodic ferromagnet at h = 0 is Kaufman's formula at T/J: J = 1 and J = ½
    // at T = 2.269 (sides 8, 64 and a 12 × 40 rectangle), exact by construction.
    for (width, height, j) in [(8, 8, 1.0), (64, 64, 1.0), (12, 40, 0.5)] {
        let lattice = Lattice::new(width as f64, height as f64, j, 0.0)
            .unwrap()
            .with_boundary(Boundary::Periodic)
            .unwrap();
        let result = lattice_exact_log_z(&lattice, 2.269).unwrap();
        assert_eq!(result.bound, Bound::Exact);
        assert_eq!(result.log_z, kaufman_log_z(width, height, 2.269 / j));
    }
    // The J scaling that route relies on, on the lattice's own energies (5 × 5, enumerated):
    // ln Z(J, T) = ln Z(1, T/J), Kaufman's at T/J (the 4 × 4 test above ties the two at J = 1).
    let half = Lattice::new(5.0, 5.0, 0.5, 0.0)
        .unwrap()
        .with_boundary(Boundary::Periodic)
        .unwrap();
    assert!((lattice_log_z(&half, 1.0) - kaufman_log_z(5, 5, 2.0)).abs() < 1e-9);
    // Anything else beyond 30 spins: a field, a glass, open edges, T/J outside the formula's
    // accurate range, an antiferromagnet. Refused, naming both routes.
    let periodic = |l: Lattice| l.with_boundary(Boundary::Periodic).unwrap();
    let refused = [
        (periodic(Lattice::new(8.0, 8.0, 1.0, 0.1).unwrap()), 2.0),
        (
            periodic(Lattice::square(8).unwrap())
                .with_plus_minus_bonds(3)
                .unwrap(),
            2.0,
        ),
        (
            Lattice::square(8)
                .unwrap()
                .with_boundary(Boundary::Open)
                .unwrap(),
            2.0,
        ),
        (periodic(Lattice::square(8).unwrap()), 0.3),
        (periodic(Lattice::square(8).unwrap()), 6000.0),
        (periodic(Lattice::new(8.0, 8.0, -1.0, 0.0).unwrap()), 2.0),
    ];
    for (lattice, t) in refused {
        let err = lattice_exact_log_z(&lattice, t).unwrap_err();
        assert_eq!(err.field(), "spins");
        let message = err.to_string();
        assert!(
            message.contains("at most 30 spins") && message.contains("Kaufman's formula"),
            "{message}"
        );
    }
}
