//! `boltzlab logz` on an 809-unit bipartite network (a saved 784-25 restricted machine):
//! exact over the 25-unit side, and AIS on the page's or Salakhutdinov & Murray's schedule.
//!
//! The machine is built so that its ln Z has a closed form the enumeration knows nothing
//! of: each visible unit is connected to at most one hidden unit (unit i to i mod 25 for
//! i < 775; the last 9 to none), so Z factorises over the hidden units:
//!
//!   ln Z = Σ_{i free} ln(1 + e^{a_i}) + Σ_j ln(e^{A_j} + e^{b_j + B_j}),
//!   A_j = Σ_{i ∈ S_j} ln(1 + e^{a_i}),  B_j = Σ_{i ∈ S_j} ln(1 + e^{a_i + W_ij}).
//!
//! The command still walks all 2^25 hidden states (it does not look for the structure).

mod common;

use boltzlab::estimate::rbm_exact::error_bound;
use boltzlab::log_sum_exp::log_sum_exp;
use boltzlab::model::rbm::{Rbm, softplus};
use boltzlab::rng::{seeded_rng, standard_normal_pair};
use common::{TempDir, boltzlab, boltzlab_json};
use std::path::PathBuf;

const VISIBLE: usize = 784;
const HIDDEN: usize = 25;
/// Visible units connected to a hidden unit: 31 to each.
const CONNECTED: usize = 775;

/// The machine (module notes) and its ln Z in closed form.
fn machine() -> (Rbm, f64) {
    let mut rng = seeded_rng(26);
    let mut normals = std::iter::from_fn(|| Some(standard_normal_pair(&mut rng))).flatten();
    let mut weights = vec![0.0; VISIBLE * HIDDEN];
    for i in 0..CONNECTED {
        weights[i * HIDDEN + i % HIDDEN] = 0.8 * normals.next().unwrap();
    }
    let a: Vec<f64> = (0..VISIBLE)
        .map(|_| 0.5 * normals.next().unwrap() - 1.0)
        .collect();
    let b: Vec<f64> = (0..HIDDEN).map(|j| 0.2 * (j % 5) as f64 - 0.4).collect();
    let free: f64 = (CONNECTED..VISIBLE).map(|i| softplus(a[i])).sum();
    let per_hidden: f64 = (0..HIDDEN)
        .map(|j| {
            let members = (0..CONNECTED).filter(|i| i % HIDDEN == j);
            let off: f64 = members.clone().map(|i| softplus(a[i])).sum();
            let on: f64 = members
                .map(|i| softplus(a[i] + weights[i * HIDDEN + j]))
                .sum();
            log_sum_exp([off, b[j] + on])
        })
        .sum();
    let rbm = Rbm::new(VISIBLE, HIDDEN, weights, a, b).unwrap();
    (rbm, free + per_hidden)
}

/// Writes the machine as a network file (809 units for the 784-25 machine) in `dir`.
fn network_file(rbm: &Rbm, dir: &TempDir) -> PathBuf {
    dir.write("rbm.json", rbm.to_network().unwrap().to_json().as_bytes())
}

#[test]
fn logz_exact_of_an_809_unit_bipartite_network_equals_the_closed_form() {
    let (rbm, closed_form) = machine();
    let dir = TempDir::new("exact");
    let file = network_file(&rbm, &dir);
    let path = file.to_str().unwrap();
    let v = boltzlab_json(&[
        "logz",
        "--network",
        path,
        "--temperature",
        "1",
        "--method",
        "exact",
        "--json",
    ]);
    assert_eq!(v["bipartite"], true, "{v}");
    assert_eq!(v["units"], 809);
    assert_eq!(v["states"], 1u64 << 25);
    let got = v["log_z"].as_f64().unwrap();
    // The enumeration's derived bound (no false failures) and the closed form's own
    // rounding (a few hundred additions of magnitude ≤ 10³: below 10⁻¹¹).
    let bound = error_bound(&rbm) + 1e-10;
    eprintln!(
        "809 units: ln Z {got:.10}, closed form {closed_form:.10}, {:.2e} apart (bound \
         {bound:.1e}), {} s",
        got - closed_form,
        v["seconds"]
    );
    assert!((got - closed_form).abs() <= bound, "{got} vs {closed_form}");
}

#[test]
fn logz_ais_of_the_809_unit_network_is_within_5_standard_errors_of_the_closed_form() {
    // The page's schedule, 100 runs from the uniform base (a network file carries no data
    // for a base-rate model). 5σ: a false failure about once in 10⁶ seeds if the error bar
    // is honest (ln Ẑ's downward bias, about stderr²/2, is far inside).
    let (rbm, closed_form) = machine();
    let dir = TempDir::new("ais");
    let file = network_file(&rbm, &dir);
    let path = file.to_str().unwrap();
    let v = boltzlab_json(&[
        "logz",
        "--network",
        path,
        "--temperature",
        "1",
        "--method",
        "ais",
        "--schedule",
        "page",
        "--json",
    ]);
    assert_eq!(v["bipartite"], true, "{v}");
    assert_eq!(v["steps"], 1450);
    let (got, stderr) = (v["log_z"].as_f64().unwrap(), v["stderr"].as_f64().unwrap());
    eprintln!(
        "809 units by AIS: {got:.4} ± {stderr:.4}, closed form {closed_form:.4} ({:+.2}σ), {} s",
        (got - closed_form) / stderr,
        v["seconds"]
    );
    assert!(stderr > 0.0 && (got - closed_form).abs() < 5.0 * stderr);
}

#[test]
fn the_papers_schedule_is_an_option_of_bipartite_ais_and_is_refused_elsewhere() {
    // A small bipartite network (a 12-3 machine): the paper's 14 500 steps take a moment.
    let small = Rbm::random(12, 3, 0.5, 4).unwrap();
    let dir = TempDir::new("options");
    let file = network_file(&small, &dir);
    let path = file.to_str().unwrap();
    let base = ["logz", "--network", path, "--temperature", "1", "--json"];
    let with = |extra: &[&'static str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        args
    };
    let v = boltzlab_json(&with(&[
        "--method",
        "ais",
        "--schedule",
        "salakhutdinov-murray",
        "--runs",
        "20",
    ]));
    assert_eq!(v["steps"], 14_500, "{v}");
    for (extra, says) in [
        (
            vec!["--method", "exact", "--schedule", "page"],
            "--schedule applies to --method ais",
        ),
        (
            vec!["--method", "ais", "--schedule", "page", "--steps", "10"],
            "--schedule and --steps",
        ),
        (
            vec!["--method", "ais", "--schedule", "fast"],
            "--schedule must be one of page, salakhutdinov-murray",
        ),
    ] {
        let (code, stdout, stderr) = boltzlab(&with(&extra));
        assert_eq!(code, 2, "{extra:?}: {stderr}");
        assert!(
            stdout.is_empty() && stderr.contains(says),
            "{extra:?}: {stderr}"
        );
    }
}
