//! The protocol of Ackley, Hinton & Sejnowski (1985) as laws (docs/ackley1985-audit.md,
//! docs/references.md §2): how many settlings each cycle makes per training vector, that
//! every weight and bias moves by ±2 in the direction of sign(p_ij − p′_ij) and a tie
//! leaves it exactly unchanged, the 40-10-40 test anneal (twice as long at each
//! temperature, ending at half the learning temperature), the 40-10-40 stages, and the
//! reading of codes from the weights. Every check is exact (counts, integers, a single
//! deterministic seed): none can fail by chance. The long runs are in
//! `boltzlab reproduce ackley1985`, not here.

use boltzlab::learn::encoder::{TestAnneal, weight_codes};
use boltzlab::learn::experiment::{LearningMethod, Protocol, random_weights};
use boltzlab::learn::{
    ClampNoise, Learner, Phase, Problem, Progress, Settling, StochasticLearner, Update,
};
use boltzlab::model::SpinKind;

/// The paper's settlings per training vector in the clamped phase: "the network was
/// allowed to reach equilibrium twice" (4-2-4, p. 158; 4-3-4 and 8-3-8 "with the same
/// parameters"), and for 40-10-40 "annealing once with each of the 40 environmental
/// vectors clamped, and the same number of times without clamping" (p. 162).
fn paper_settlings(problem: Problem) -> u64 {
    match problem {
        Problem::Encoder40x10 => 1,
        _ => 2,
    }
}

const ENCODERS: [Problem; 4] = [
    Problem::Encoder4x2,
    Problem::Encoder4x3,
    Problem::Encoder8x3,
    Problem::Encoder40x10,
];

fn learner(problem: Problem, seed: u64) -> StochasticLearner {
    let protocol = Protocol::standard(problem, LearningMethod::Stochastic);
    let dataset = problem.dataset();
    let mut options = protocol.options.clone();
    options.seed = seed;
    StochasticLearner::new(dataset.network(protocol.kind), dataset.patterns(), options)
        .expect("the standard protocol is valid")
}

/// Counted, one settling at a time through a whole cycle: every training vector is
/// clamped exactly s times in the clamped phase (s = 2, or 1 for 40-10-40), the free
/// phase settles as many times with nothing clamped, and each phase's statistics average
/// s × vectors × (collection time units) states.
#[test]
fn each_cycle_settles_each_vector_as_often_as_the_paper_says() {
    for problem in ENCODERS {
        let s = paper_settlings(problem);
        for method in LearningMethod::ALL {
            assert_eq!(
                Protocol::standard(problem, method).options.settlings,
                s,
                "{} {}",
                problem.name(),
                method.name()
            );
        }
        let mut learner = learner(problem, 7);
        let vectors = problem.dataset().patterns().len();
        let mut clamped_per_vector = vec![0u64; vectors];
        let mut free = 0u64;
        loop {
            let at = learner.position();
            match at.phase {
                Phase::Clamped => {
                    clamped_per_vector[at.pattern.expect("a clamped settling clamps a vector")] += 1
                }
                Phase::Free => {
                    assert_eq!(at.pattern, None, "{}: nothing clamped", problem.name());
                    free += 1;
                }
            }
            if learner.settle().expect("settles") == Progress::Cycle {
                break;
            }
        }
        assert!(
            clamped_per_vector.iter().all(|&c| c == s),
            "{}: {clamped_per_vector:?}",
            problem.name()
        );
        assert_eq!(free, s * vectors as u64, "{}", problem.name());
        let report = learner.last_cycle().expect("a cycle was completed");
        let states = s * vectors as u64 * Settling::ackley1985().collect_sweeps;
        assert_eq!(report.clamped.samples, states, "{}", problem.name());
        assert_eq!(report.free.samples, states, "{}", problem.name());
    }
}

/// Over 30 cycles of 4-2-4 and one of 40-10-40 (with its hidden units connected, and
/// disconnected as in its cycles 1–300), every allowed weight changes by exactly
/// 2·sign(p_ij − p′_ij) with sign(0) = 0, every bias by 2·sign(p_i − p′_i) (a threshold
/// is a link to an always-on unit, p. 150), except that nothing touching a disconnected
/// hidden unit moves; no disallowed weight moves. The runs must contain ties and moving
/// biases, so the law is exercised on both.
#[test]
fn every_weight_and_bias_steps_two_by_the_sign_and_ties_leave_it_unchanged() {
    assert_eq!(Update::ACKLEY_1985.change(0.25, 0.25), 0.0);
    assert_eq!(Update::ACKLEY_1985.change(0.0, 0.0), 0.0);
    assert_eq!(Update::ACKLEY_1985.change(0.26, 0.25), 2.0);
    assert_eq!(Update::ACKLEY_1985.change(0.25, 0.26), -2.0);
    let step = |p: f64, q: f64| 2.0 * (i8::from(p > q) - i8::from(p < q)) as f64;
    let (mut ties, mut moved_biases) = (0, 0);
    for (problem, cycles, connected) in [
        (Problem::Encoder4x2, 30, true),
        (Problem::Encoder40x10, 1, true),
        (Problem::Encoder40x10, 1, false),
    ] {
        let mut learner = learner(problem, 3);
        learner.set_hidden_connected(connected);
        let hidden = problem.encoder().expect("an encoder").hidden_units();
        let frozen = |i: usize| !connected && hidden.contains(&i);
        for _ in 0..cycles {
            let before = learner.network().clone();
            let report = learner.cycle().expect("learns");
            let after = learner.network();
            let n = after.len();
            for i in 0..n {
                for j in i + 1..n {
                    let change = after.weight(i, j) - before.weight(i, j);
                    if !after.is_allowed(i, j) {
                        assert_eq!(after.weight(i, j), 0.0);
                        continue;
                    }
                    let (p, q) = (report.clamped.pair(i, j), report.free.pair(i, j));
                    let expected = if frozen(i) || frozen(j) {
                        0.0
                    } else {
                        ties += u64::from(p == q);
                        step(p, q)
                    };
                    assert_eq!(change, expected, "w[{i}][{j}]: p = {p}, p' = {q}");
                }
                let change = after.bias(i) - before.bias(i);
                let (p, q) = (report.clamped.means[i], report.free.means[i]);
                let expected = if frozen(i) { 0.0 } else { step(p, q) };
                assert_eq!(change, expected, "θ[{i}]: p = {p}, p' = {q}");
                moved_biases += u64::from(change != 0.0);
            }
        }
    }
    assert!(ties > 0, "no tie to check");
    assert!(moved_biases > 0, "no bias moved");
}

/// The 40-10-40 test anneal, p. 163: "the schedule spent twice as long at each
/// temperature and went down to half the final temperature of the schedule used during
/// learning". For every reading and several learning settlings: each temperature of the
/// learning anneal appears with at least twice its time (exactly twice, except where the
/// reading counts the collection period as part of the schedule: 2 × (anneal +
/// collection)), the temperatures never rise, and the last is half the learning
/// temperature.
#[test]
fn the_test_anneal_is_twice_as_long_and_ends_at_half_the_temperature() {
    let settlings = [
        Settling::ackley1985(),
        Settling::constant(1.0, 5, 10).expect("valid"),
        Settling::constant(8.0, 3, 1).expect("valid"),
    ];
    for settling in &settlings {
        let learn = settling.anneal.steps();
        let (final_t, _) = learn[learn.len() - 1];
        let c = settling.collect_sweeps;
        for anneal in TestAnneal::ALL {
            let test = anneal.schedule(settling);
            let steps = test.steps();
            for (k, &(t, s)) in learn.iter().enumerate() {
                let expected = if anneal == TestAnneal::CollectionDoubled && k == learn.len() - 1 {
                    2 * (s + c)
                } else {
                    2 * s
                };
                assert_eq!(steps[k], (t, expected), "{anneal:?} step {k}");
            }
            assert!(steps.windows(2).all(|w| w[1].0 <= w[0].0), "{anneal:?}");
            assert_eq!(steps[steps.len() - 1].0, final_t / 2.0, "{anneal:?}");
            assert!(
                steps[learn.len()..]
                    .iter()
                    .all(|&(t, s)| t < final_t && s > 0)
            );
        }
    }
    assert_eq!(
        TestAnneal::Doubled
            .schedule(&Settling::ackley1985())
            .steps(),
        &[(20.0, 4), (15.0, 4), (12.0, 4), (10.0, 8), (5.0, 8)]
    );
}

/// The 40-10-40 stages of Fig. 5's caption and the 8-3-8 noise, against the paper's
/// numbers: hidden units disconnected for cycles 1–300; noisy clamping on → off 0.1,
/// off → on 0.0025 for cycles 301–800; no noise after; 10 test trials per input. 8-3-8:
/// on → off 0.15, off → on 0.02, 4000 cycles. 4-2-4 and 4-3-4: 0.15 and 0.05.
#[test]
fn the_stages_and_noise_are_the_papers() {
    let p = Protocol::standard(Problem::Encoder40x10, LearningMethod::Stochastic);
    let at = |cycle: u64| {
        *p.stages
            .iter()
            .find(|s| cycle <= s.until)
            .expect("the last stage runs to the end")
    };
    for cycle in [1, 150, 300] {
        assert!(!at(cycle).hidden_connected && at(cycle).noise.is_none());
    }
    let noisy = ClampNoise {
        on_to_off: 0.1,
        off_to_on: 0.0025,
    };
    for cycle in [301, 500, 800] {
        assert!(at(cycle).hidden_connected);
        assert_eq!(at(cycle).noise, noisy);
    }
    for cycle in [801, 1800, 100_000] {
        assert!(at(cycle).hidden_connected && at(cycle).noise.is_none());
    }
    assert_eq!(p.accuracy_trials, 10);
    let p = Protocol::standard(Problem::Encoder8x3, LearningMethod::Stochastic);
    assert_eq!(
        (p.stages[0].noise.on_to_off, p.stages[0].noise.off_to_on),
        (0.15, 0.02)
    );
    assert_eq!(p.max_cycles, 4000);
    for problem in [Problem::Encoder4x2, Problem::Encoder4x3] {
        let p = Protocol::standard(problem, LearningMethod::Stochastic);
        assert_eq!(
            (p.options.noise.on_to_off, p.options.noise.off_to_on),
            (0.15, 0.05)
        );
    }
}

/// Codes read from the weights: bit j of input k is on exactly when hidden unit j's field
/// with V1 and V2 clamped to pattern k, Σ_{i ∈ V1 ∪ V2} w_ij s_i + θ_j (for 0/1 units
/// w(V1_k, h_j) + w(V2_k, h_j) + θ_j; for ±1 units every off unit counts −w), is positive,
/// and a zero field leaves the input without a code.
#[test]
fn weight_codes_are_the_signs_of_the_clamped_hidden_fields() {
    for kind in [SpinKind::Binary, SpinKind::Ising] {
        for problem in [Problem::Encoder4x3, Problem::Encoder8x3] {
            let e = problem.encoder().expect("an encoder");
            let network = random_weights(problem.dataset().network(kind), 5.0, 11).expect("valid");
            let codes = weight_codes(&network, e).expect("fits");
            for (k, code) in codes.iter().enumerate() {
                let expected: Option<Vec<bool>> = e
                    .hidden_units()
                    .map(|h| {
                        let f = (0..e.group)
                            .map(|i| {
                                let s = f64::from(kind.value(i == k));
                                s * (network.weight(e.v1().start + i, h)
                                    + network.weight(e.v2().start + i, h))
                            })
                            .sum::<f64>()
                            + network.bias(h);
                        (f != 0.0).then_some(f > 0.0)
                    })
                    .collect();
                assert_eq!(code, &expected, "{kind:?} {} input {k}", problem.name());
            }
        }
    }
    let e = Problem::Encoder4x2.encoder().expect("an encoder");
    let mut network = Problem::Encoder4x2.dataset().network(SpinKind::Binary);
    let h0 = e.hidden_units().start;
    network.set_weight(0, h0, 2.0).expect("allowed");
    network.set_bias(h0, -2.0).expect("valid");
    network.set_bias(h0 + 1, -4.0).expect("valid");
    let codes = weight_codes(&network, e).expect("fits");
    assert_eq!(codes[0], None, "a zero field has no sign");
    assert_eq!(codes[1], Some(vec![false, false]));
}
