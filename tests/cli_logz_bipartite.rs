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
//!
//! Below the 809-unit network: bipartite files whose restricted machine at T would pass the
//! machine's ±10⁶ (a valid file's ±10⁶ becomes 4·10⁶/T for ±1 units) go the general way
//! when it can take them, and are refused in the file's and the options' terms when it
//! cannot; and numbers in the messages and headers stay short at T = 10⁻³⁰⁰.

mod common;

use boltzlab::estimate::bipartite;
use boltzlab::estimate::exact_log_z;
use boltzlab::estimate::rbm_exact::error_bound;
use boltzlab::log_sum_exp::log_sum_exp;
use boltzlab::model::rbm::{Rbm, softplus};
use boltzlab::rng::{seeded_rng, standard_normal_pair};
use boltzlab::{Network, SpinKind};
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

/// `logz --network FILE --temperature T --method M --json` plus `extra`, on `network`
/// written to `dir`; T is written in its shortest round-trip digits, so it arrives exact.
fn logz_of(network: &Network, dir: &TempDir, t: f64, method: &str, extra: &[&str]) -> Cmd {
    let file = dir.write("net.json", network.to_json().as_bytes());
    let t = t.to_string();
    let mut args: Vec<String> = ["logz", "--network", file.to_str().unwrap()]
        .iter()
        .map(|a| a.to_string())
        .collect();
    args.extend(["--temperature".into(), t, "--method".into(), method.into()]);
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    boltzlab(&args)
}

type Cmd = (i32, String, String);

fn json(cmd: Cmd) -> serde_json::Value {
    let (code, stdout, stderr) = cmd;
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).expect("one JSON object")
}

/// Two ±1 units joined by weight `w`.
fn pair(w: f64) -> Network {
    let mut network = Network::zeros(SpinKind::Ising, 2).unwrap();
    network.set_weight(0, 1, w).unwrap();
    network
}

#[test]
fn logz_exact_takes_a_bipartite_file_whose_machine_would_pass_its_bound_and_agrees_with_enumeration()
 {
    // w = 1 at T = 10⁻⁶ (4w/T = 4·10⁶) and w = 3·10⁵ at T = 1 (1.2·10⁶): valid files whose
    // restricted machine would pass ±10⁶. ln Z = w/T + ln 2 + ln(1 + e^{−2w/T}) in closed
    // form; the enumeration's own rounding is a few ulps of |E|/T (10⁻⁹ here).
    let dir = TempDir::new("bound-pair");
    for (w, t) in [(1.0, 1e-6), (3e5, 1.0), (-3e5, 1.0)] {
        let network = pair(w);
        let closed =
            (w / t).abs() + std::f64::consts::LN_2 + libm::log1p(libm::exp(-2.0 * (w / t).abs()));
        let brute = exact_log_z::log_z(&network, t, None).unwrap();
        let v = json(logz_of(&network, &dir, t, "exact", &["--json"]));
        assert_eq!(v["bipartite"], false, "{v}");
        assert_eq!(v["states"], 4, "{v}");
        let got = v["log_z"].as_f64().unwrap();
        let tolerance = 1e-15 * closed;
        assert!(
            (got - closed).abs() <= tolerance && (got - brute).abs() <= tolerance,
            "w = {w}, T = {t}: {got} vs closed form {closed}, enumeration {brute}"
        );
        let (code, stdout, stderr) = logz_of(&network, &dir, t, "exact", &[]);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            stdout.contains("bipartite          yes, but no group summed out")
                && stdout.contains("beyond that machine's limit of ±1000000"),
            "{stdout}"
        );
    }
}

#[test]
fn at_the_quoted_least_temperature_the_bipartite_sum_agrees_with_enumeration_and_below_it_the_general_one()
 {
    // A 3 + 5 ±1 network with weights of ~10⁵ (4w/T passes 10⁶ below T ≈ 1): the least T the check quotes is the
    // boundary between the two routes, and both must give the enumeration's ln Z (to the
    // bipartite sum's derived bound plus the enumeration's rounding, 64 ulps of Σ|w|/T).
    let side = [true, false, false, true, false, false, true, false];
    let mut network = Network::zeros(SpinKind::Ising, side.len()).unwrap();
    let mut rng = seeded_rng(5);
    let mut normals = std::iter::from_fn(|| Some(standard_normal_pair(&mut rng))).flatten();
    for i in 0..side.len() {
        network.set_bias(i, 1e4 * normals.next().unwrap()).unwrap();
        for j in i + 1..side.len() {
            if side[i] != side[j] {
                network
                    .set_weight(i, j, 1e5 * normals.next().unwrap())
                    .unwrap();
            }
        }
    }
    let groups = bipartite::groups(&network).unwrap();
    let message = bipartite::check_machine(&network, &groups, 0.01)
        .unwrap_err()
        .to_string();
    let least: f64 = message
        .rsplit("T ≥ ")
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("{message}: {e}"));
    assert!(bipartite::check_machine(&network, &groups, least).is_ok());
    let dir = TempDir::new("bound-least");
    let magnitude: f64 = (0..side.len())
        .map(|i| {
            network.bias(i).abs()
                + (i + 1..side.len())
                    .map(|j| network.weight(i, j).abs())
                    .sum::<f64>()
        })
        .sum();
    for (t, summed) in [(least, true), (least.next_down(), false)] {
        let brute = exact_log_z::log_z(&network, t, None).unwrap();
        let v = json(logz_of(&network, &dir, t, "exact", &["--json"]));
        assert_eq!(v["bipartite"], summed, "T = {t}: {v}");
        let got = v["log_z"].as_f64().unwrap();
        let rounding = 64.0 * f64::EPSILON * magnitude / t;
        let tolerance = if summed {
            let (rbm, _) = bipartite::as_rbm(&network, &groups, t).unwrap();
            error_bound(&rbm) + rounding
        } else {
            rounding
        };
        eprintln!(
            "T = {t}: ln Z {got}, enumeration {brute}, {:.1e} apart (tolerance {tolerance:.1e})",
            got - brute
        );
        assert!(
            (got - brute).abs() <= tolerance,
            "T = {t}: {got} vs {brute} (tolerance {tolerance:.1e})"
        );
    }
}

#[test]
fn a_bipartite_file_beyond_both_routes_is_refused_naming_the_temperature_it_needs() {
    // A star: unit 0 joined to 30 ±1 units by w = 10⁵, no biases. Unit 0's machine bias is
    // 2(θ − Σ w)/T = 6·10⁶/T, so T ≥ 6; 31 units are beyond the general enumeration.
    // At T = 6: ln Z = ln 2 + 30 ln(2 cosh(w/T)) in closed form.
    let leaves = 30;
    let w = 1e5;
    let mut star = Network::zeros(SpinKind::Ising, leaves + 1).unwrap();
    for j in 1..=leaves {
        star.set_weight(0, j, w).unwrap();
    }
    let dir = TempDir::new("bound-star");
    let (code, stdout, stderr) = logz_of(&star, &dir, 1.0, "exact", &[]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stdout.is_empty()
            && stderr.contains("--method exact: temperature: at T = 1 ")
            && stderr.contains("= 6000000")
            && stderr.contains("it needs T ≥ 6")
            && stderr.contains("at most 30 units, got 31"),
        "{stderr}"
    );
    let x = w / 6.0;
    let closed = std::f64::consts::LN_2 + leaves as f64 * (x + libm::log1p(libm::exp(-2.0 * x)));
    let v = json(logz_of(&star, &dir, 6.0, "exact", &["--json"]));
    assert_eq!(v["bipartite"], true, "{v}");
    let groups = bipartite::groups(&star).unwrap();
    let (rbm, _) = bipartite::as_rbm(&star, &groups, 6.0).unwrap();
    // The derived bound plus the closed form's rounding (31 terms of size 2·10⁴).
    let tolerance = error_bound(&rbm) + 1e-9;
    let got = v["log_z"].as_f64().unwrap();
    assert!((got - closed).abs() <= tolerance, "{got} vs {closed}");
}

#[test]
fn logz_ais_on_a_bipartite_file_beyond_the_machine_bound_is_the_general_ais() {
    // w = 3·10⁵ at T = 1: the general AIS (linear schedule, 1000 steps) within 5 standard
    // errors of the closed form (a false failure about once in 10⁶ seeds if the error bar
    // is honest); --schedule, which only the bipartite AIS takes, is refused.
    let w = 3e5;
    let network = pair(w);
    let dir = TempDir::new("bound-ais");
    let v = json(logz_of(&network, &dir, 1.0, "ais", &["--json"]));
    assert_eq!(v["bipartite"], false, "{v}");
    assert_eq!(v["steps"], 1000, "{v}");
    let closed = w + std::f64::consts::LN_2;
    let (got, stderr) = (v["log_z"].as_f64().unwrap(), v["stderr"].as_f64().unwrap());
    assert!(
        (got - closed).abs() < 5.0 * stderr,
        "{got} ± {stderr} vs {closed}"
    );
    let (code, stdout, stderr) = logz_of(&network, &dir, 1.0, "ais", &["--schedule", "page"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.starts_with("boltzlab: --schedule: the bipartite AIS cannot take")
            && stderr.contains("it needs T ≥ 1.2")
            && stderr.contains("without --schedule the general AIS takes it"),
        "{stderr}"
    );
}

#[test]
fn a_bipartite_file_with_two_groups_over_25_units_is_refused_naming_the_25_unit_limit() {
    let (half, n) = (30, 60);
    let mut network = Network::zeros(SpinKind::Binary, n).unwrap();
    for i in 0..half {
        for j in half..n {
            network.set_weight(i, j, 0.01).unwrap();
        }
    }
    let dir = TempDir::new("bound-60");
    let (code, stdout, stderr) = logz_of(&network, &dir, 1.0, "exact", &[]);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.contains(
            "--method exact: units: this network is bipartite with groups of 30 and 30 units"
        ) && stderr.contains("at most 25 units"),
        "{stderr}"
    );
}

#[test]
fn messages_and_headers_at_tiny_temperatures_show_numbers_in_exponent_form() {
    // T = 10⁻³⁰⁰ and 10⁻³²⁰ are 300-odd digits written out; ln Z = 10³⁰⁰ too.
    let network = pair(1.0);
    let dir = TempDir::new("bound-tiny");
    let (code, stdout, stderr) = logz_of(&network, &dir, 1e-300, "mean-field", &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("T = 1e-300,"), "{stdout}");
    let log_z = stdout.lines().find(|l| l.starts_with("log z")).unwrap();
    assert!(log_z.len() < 50 && log_z.contains("e299"), "{log_z}");
    for (method, extra) in [("exact", vec![]), ("ais", vec!["--steps", "10"])] {
        let (code, stdout, stderr) = logz_of(&network, &dir, 1e-320, method, &extra);
        assert_eq!(code, 2, "{stdout}");
        assert!(
            stderr.contains("T = 1e-320") && stderr.len() < 200,
            "{method}: {stderr}"
        );
    }
    // An ordinary ln Z keeps its 12 decimals.
    let (_, stdout, _) = logz_of(&network, &dir, 1.0, "exact", &[]);
    let log_z = stdout.lines().find(|l| l.starts_with("log z")).unwrap();
    let decimals = log_z.rsplit('.').next().unwrap();
    assert!(log_z.len() == 41 && decimals.len() == 12, "{log_z}");
}
