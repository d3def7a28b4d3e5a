//! A machine started from random couplings is the Sherrington–Kirkpatrick glass on its
//! units: written back as ±1 spins its weights are exactly N(0, 1/n) draws of the seed's
//! stream (Network::sherrington_kirkpatrick), pairs its wiring forbids stay zero, the
//! biases vanish, learning starts again at cycle 0, the session keeps it, and a bad seed
//! changes nothing.

use boltzlab::app::{MachineCommand, MachineLab};
use boltzlab::model::{Network, SpinKind};

/// The lab's network written as ±1 spins.
fn as_spins(lab: &MachineLab) -> Network {
    lab.network().to_kind(SpinKind::Ising).0
}

#[test]
fn random_couplings_are_the_sherrington_kirkpatrick_glass_on_the_machines_units() {
    let mut lab = MachineLab::new("4-2-4", "stochastic", 3).unwrap();
    for _ in 0..3 {
        lab.step_cycle().unwrap();
    }
    lab.random_couplings(7).unwrap();
    assert_eq!(lab.cycles(), 0);
    let n = lab.network().len();
    let glass = Network::sherrington_kirkpatrick(n, 7).unwrap();
    let spins = as_spins(&lab);
    for i in 0..n {
        // Exact up to the rounding of two changes of variables.
        assert!(spins.bias(i).abs() < 1e-12, "θ_{i} = {}", spins.bias(i));
        for j in i + 1..n {
            let want = if lab.network().is_allowed(i, j) {
                glass.weight(i, j)
            } else {
                0.0
            };
            assert!((spins.weight(i, j) - want).abs() < 1e-12, "w_{i}{j}");
        }
    }
}

#[test]
fn the_couplings_have_mean_zero_and_variance_one_over_n() {
    // 40-10-40: 90 units; the allowed pairs' weights are m independent N(0, 1/n) draws.
    // Mean: standard error 1/√(n m); variance: standard error (1/n)√(2/m). Within 4.5
    // standard errors each: a false failure at most ~1e-5 per run.
    let mut lab = MachineLab::new("40-10-40", "stochastic", 1).unwrap();
    lab.random_couplings(11).unwrap();
    let spins = as_spins(&lab);
    let n = spins.len();
    let w: Vec<f64> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|&(i, j)| lab.network().is_allowed(i, j))
        .map(|(i, j)| spins.weight(i, j))
        .collect();
    let m = w.len() as f64;
    let mean = w.iter().sum::<f64>() / m;
    let variance = w.iter().map(|x| x * x).sum::<f64>() / m;
    let n = n as f64;
    assert!(mean.abs() < 4.5 / (n * m).sqrt(), "mean {mean}");
    assert!(
        (variance - 1.0 / n).abs() < 4.5 * (2.0 / m).sqrt() / n,
        "variance {variance}"
    );
}

#[test]
fn the_session_keeps_random_couplings_and_a_bad_seed_changes_nothing() {
    let mut lab = MachineLab::new("pixels-10", "stochastic", 2).unwrap();
    lab.random_couplings(5).unwrap();
    let before = lab.export_network();
    // A seed from outside is read at the wire (JSON here; a JavaScript object in the page):
    // not a whole number from 0 to 2^53 is refused there, naming the seed.
    for bad in ["-1", "0.5", "1e300", "1e17"] {
        let json = format!(r#"{{"command": "random-couplings", "seed": {bad}}}"#);
        let err = serde_json::from_str::<MachineCommand>(&json).unwrap_err();
        assert!(err.to_string().contains("seed"), "{bad}: {err}");
    }
    for bad in ["null", "\"5\""] {
        let json = format!(r#"{{"command": "random-couplings", "seed": {bad}}}"#);
        assert!(
            serde_json::from_str::<MachineCommand>(&json).is_err(),
            "{bad}"
        );
    }
    let err = lab
        .apply(MachineCommand::RandomCouplings {
            seed: (1 << 53) + 1,
        })
        .unwrap_err();
    assert!(err.to_string().contains("seed"), "{err}");
    assert_eq!(lab.export_network(), before);
    let restored = MachineLab::from_session(&lab.session()).unwrap();
    assert_eq!(restored.export_network(), before);
}
