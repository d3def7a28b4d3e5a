//! Unit tests of the machine laboratory that read its private parts.

use super::*;
use crate::app::parse::parse_patterns;
use crate::estimate::kl::visible_log_z;
use crate::learn::Update;
use crate::learn::likelihood::kl_divergence;
use crate::log_sum_exp::log_sum_exp;

#[test]
fn clamped_phase_holds_the_visible_units_at_the_pattern() {
    let mut lab = MachineLab::new("pixels-10", "stochastic", 1).unwrap();
    for _ in 0..50 {
        lab.advance(1, false).unwrap();
        if lab.phase() == Phase::Clamped {
            let k = lab.pattern().unwrap();
            for (i, &bit) in lab.patterns()[k].iter().enumerate() {
                assert_eq!(lab.activations()[i], f64::from(bit));
                assert_eq!(lab.clamps()[i], 1);
            }
        }
    }
}

#[test]
fn exploring_clamps_the_chosen_pattern_and_dreaming_clamps_nothing() {
    let mut lab = MachineLab::new("bars-3x3", "stochastic", 2).unwrap();
    for _ in 0..5 {
        lab.step_cycle().unwrap();
    }
    lab.explore(Some(3)).unwrap();
    lab.explore_sweeps(10).unwrap();
    for (i, &bit) in lab.patterns()[3].iter().enumerate() {
        assert_eq!(lab.activations()[i], f64::from(bit));
    }
    assert!(lab.explore(Some(99)).is_err());
    lab.explore(None).unwrap();
    assert!(lab.clamps().iter().all(|&c| c == 0));
    let gallery = lab.gallery(200, 1).unwrap();
    let total: f64 = gallery.iter().map(|e| e.frequency).sum();
    assert!((total - 1.0).abs() < 1e-9);
    assert!(gallery.iter().all(|e| e.probability.is_some()));
    lab.stop_exploring();
    assert!(!lab.exploring());
}

#[test]
fn a_bad_value_changes_nothing() {
    let mut lab = MachineLab::new("4-2-4", "stochastic", 1).unwrap();
    let before = lab.update();
    assert!(lab.set_update(Update::Gradient { rate: -1.0 }).is_err());
    assert!(UpdateRule::parse("bogus").is_err());
    assert!(lab.set_schedule("10", 5).is_err());
    assert!(lab.import_network("{\"units\": 3}").is_err());
    assert_eq!(lab.update(), before);
    let json = lab.export_network();
    lab.import_network(&json).unwrap();
    assert!(
        MachineLab::custom(vec![vec![1, 0], vec![1]], 0, LearningMethod::Stochastic, 1).is_err()
    );
    let err = parse_patterns("1010\n101").unwrap_err().to_string();
    assert!(err.contains("same length"), "{err}");
    assert_eq!(
        parse_patterns("10 1\n\n011").unwrap(),
        vec![vec![1, 0, 1], vec![0, 1, 1]]
    );
}

#[test]
fn clamped_log_z_sums_to_the_exact_partition_function() {
    // Σ_v Z(v) over all visible vectors is Z.
    let network = crate::learn::experiment::random_weights(
        Problem::parse("4-2-4")
            .unwrap()
            .dataset()
            .network(crate::model::SpinKind::Binary),
        1.5,
        7,
    )
    .unwrap();
    let t = 0.8;
    let mut terms = Vec::new();
    for code in 0..(1u32 << network.visible()) {
        let v: Vec<u8> = (0..network.visible())
            .map(|i| ((code >> i) & 1) as u8)
            .collect();
        terms.push(visible_log_z(&network, t, &v).unwrap());
    }
    let total = log_sum_exp(terms);
    let exact = crate::estimate::log_z::exact_log_z(&network, t)
        .unwrap()
        .log_z;
    assert!((total - exact).abs() < 1e-9, "{total} vs {exact}");
}

#[test]
fn the_ais_kl_estimate_agrees_with_exact_kl() {
    // A trained small machine: the estimate is within 5 standard errors (plus the
    // small downward bias of ln Ẑ, about stderr²/2) of the exact value.
    // 8-3-8 (19 units) is one the page estimates; it can still be enumerated here.
    for (problem, cycles) in [("bars-3x3", 30), ("8-3-8", 15)] {
        let mut lab = MachineLab::new(problem, "stochastic", 3).unwrap();
        for _ in 0..cycles {
            lab.step_cycle().unwrap();
        }
        let exact = kl_divergence(lab.network(), lab.temperature(), lab.patterns()).unwrap();
        for seed in 0..4 {
            let mut estimate = KlEstimate::new(
                lab.network(),
                lab.temperature(),
                lab.patterns(),
                32,
                seed,
                0,
            )
            .unwrap();
            assert!(estimate.value().is_none());
            while !estimate.advance(5).unwrap() {}
            let (kl, stderr) = estimate.value().unwrap();
            assert!(stderr > 0.0 && stderr < 0.2, "stderr {stderr}");
            assert!(
                (kl - exact).abs() <= 5.0 * stderr + stderr * stderr,
                "{problem} seed {seed}: AIS {kl} ± {stderr}, exact {exact}"
            );
        }
    }
}

#[test]
fn a_big_machine_gets_ais_points_and_runs_every_stage() {
    let mut lab = MachineLab::new("40-10-40", "stochastic", 1).unwrap();
    assert!(lab.kl_estimated());
    assert!(lab.curve_kl()[0].is_nan());
    assert!(lab.estimating());
    while !lab.estimate_step(8).unwrap() {}
    // All weights zero at the start: the model is uniform over the 2^80 visible vectors
    // (V1 and V2, 40 each) and the data uniform over 40, so KL = 80 ln 2 − ln 40.
    let (kl, stderr) = (lab.curve_ais_kl()[0], lab.curve_ais_stderr()[0]);
    let exact = 80.0 * 2f64.ln() - 40f64.ln();
    assert!(
        (kl - exact).abs() < 1e-9 && stderr < 1e-9,
        "{kl} ± {stderr}"
    );
    assert!(lab.estimate_step(0).is_err());
    assert_eq!(lab.stage_count(), 3);
    assert!(
        lab.stage_text().starts_with("stage 1 of 3"),
        "{}",
        lab.stage_text()
    );
    assert_eq!(lab.stage_of(300), 0);
    assert_eq!(lab.stage_of(301), 1);
    assert_eq!(lab.stage_of(801), 2);
    assert_eq!(lab.stage_of(5000), 2);
    // Crossing into stage 2 gives the learner that stage's clamping noise.
    assert!(lab.machine.learner().options().noise.is_none());
    lab.cycle_offset = 300;
    lab.apply_stage().unwrap();
    assert_eq!(
        lab.machine.learner().options().noise,
        lab.protocol.stages[1].noise
    );
    assert!(!lab.machine.learner().options().noise.is_none());
    assert!(
        lab.stage_text()
            .starts_with("stage 2 of 3 (cycles 301–800)")
    );
    lab.cycle_offset = 800;
    lab.apply_stage().unwrap();
    assert!(lab.machine.learner().options().noise.is_none());
    // Too much work per step for a frame: no estimate (the page says so).
    let patterns: Vec<Vec<u8>> = (0..600u32)
        .map(|k| (0..40).map(|i| ((k * 7 + i * 13) % 5 == 0) as u8).collect())
        .collect();
    let heavy = MachineLab::custom(patterns, 16, LearningMethod::Stochastic, 1).unwrap();
    assert!(!heavy.kl_estimated() && !heavy.estimating());
    let mut short = MachineLab::new("4-2-4", "stochastic", 1).unwrap();
    assert_eq!(short.stage_text(), "");
    short.step_cycle().unwrap();
    short.set_weight_decay(0.001).unwrap();
    assert_eq!(short.cycles(), 1, "changed options keep the cycle count");
}
