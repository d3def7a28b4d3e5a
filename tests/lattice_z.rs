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
