//! The protocol of Ackley, Hinton & Sejnowski (1985) as laws (docs/ackley1985-audit.md,
//! docs/references.md §2): how many settlings each cycle makes per training vector, that
//! every weight and bias moves by ±2 in the direction of sign(p_ij − p′_ij) and a tie
//! leaves it exactly unchanged, the 40-10-40 test anneal (twice as long at each
//! temperature, ending at half the learning temperature), the 40-10-40 stages, and the
//! reading of codes from the weights. Every check is exact (counts, integers, a single
//! deterministic seed): none can fail by chance. The long runs are in
//! `boltzlab reproduce ackley1985`, not here.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

use boltzlab::dynamics::NetworkOrder;
use boltzlab::learn::encoder::{TestAnneal, exact_codes, exact_statistics, weight_codes};
use boltzlab::learn::experiment::{LearningMethod, Protocol, random_weights};
use boltzlab::learn::stochastic::{CollectAt, NoisyCopy, ProbeOrder, Sampling};
use boltzlab::learn::{
    ClampNoise, Learner, Phase, Problem, Progress, Settling, StochasticLearner, Update,
};
use boltzlab::model::{Network, SpinKind};

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

/// A learner of the paper's protocol for `problem` with the sampling details `sampling`.
fn learner_with(problem: Problem, seed: u64, sampling: Sampling) -> StochasticLearner {
    let mut l = learner(problem, seed);
    l.set_sampling(sampling);
    l
}

/// Runs the learner through the clamped phase and returns the clamped visible vector of
/// each clamped settling in order; stops at the start of the free phase.
fn clamped_vectors_of_one_cycle(l: &mut StochasticLearner) -> Vec<Vec<i8>> {
    let mut shown = Vec::new();
    while l.position().phase == Phase::Clamped {
        l.settle().expect("settles");
        shown.push(l.sampler().visible_state().to_vec());
    }
    shown
}

/// `--noisy-copy vector`: the two settlings of one training vector clamp the same noisy
/// copy, in every cycle; the default draws a fresh copy per settling. With 8-3-8's noise
/// two fresh copies of one vector agree with probability (0.85² + 0.15²)²(0.98² +
/// 0.02²)¹⁴ ≈ 0.32, so all 160 pairs of 20 cycles agree by chance with probability
/// ≈ 10⁻⁸⁰: the default's check cannot fail falsely.
#[test]
fn one_shared_noisy_copy_per_vector_or_a_fresh_one_per_settling() {
    for noisy_copy in [NoisyCopy::PerVector, NoisyCopy::PerSettling] {
        let sampling = Sampling {
            noisy_copy,
            ..Sampling::default()
        };
        let mut l = learner_with(Problem::Encoder8x3, 3, sampling);
        let mut differing = 0;
        for _ in 0..20 {
            let shown = clamped_vectors_of_one_cycle(&mut l);
            assert_eq!(shown.len(), 16);
            differing += shown.chunks(2).filter(|p| p[0] != p[1]).count();
            while l.settle().expect("settles") != Progress::Cycle {}
        }
        match noisy_copy {
            NoisyCopy::PerVector => assert_eq!(differing, 0),
            NoisyCopy::PerSettling => assert!(differing > 0),
        }
    }
}

/// `--collect-at`: how many states each phase of one cycle averages. Per time unit:
/// s·K·10 in both phases (s settlings of K vectors, 10 collection time units); per probe:
/// n_free states per time unit (the hidden units in the clamped phase, all units in the
/// free phase); at the end: one per settling.
#[test]
fn the_states_collected_per_settling_follow_the_collection_reading() {
    for problem in [Problem::Encoder4x2, Problem::Encoder8x3] {
        let e = problem.encoder().expect("an encoder");
        let settlings = 2 * e.group as u64;
        for collect_at in [CollectAt::TimeUnit, CollectAt::Probe, CollectAt::End] {
            let sampling = Sampling {
                collect_at,
                ..Sampling::default()
            };
            let mut l = learner_with(problem, 5, sampling);
            while l.position().phase == Phase::Clamped {
                l.settle().expect("settles");
            }
            let clamped = l.statistics(Phase::Clamped).samples;
            while l.settle().expect("settles") != Progress::Cycle {}
            let free = l.last_cycle().expect("a cycle").free.samples;
            let expected = match collect_at {
                CollectAt::TimeUnit => (settlings * 10, settlings * 10),
                CollectAt::Probe => (
                    settlings * 10 * e.hidden as u64,
                    settlings * 10 * e.units() as u64,
                ),
                CollectAt::End => (settlings, settlings),
            };
            assert_eq!(
                (clamped, free),
                expected,
                "{} {collect_at:?}",
                problem.name()
            );
        }
    }
}

/// `--probes`: every order makes n probes per time unit (footnote 4: "a time period of 1
/// involves n random probes"), n the free units: the ticks of one cycle are
/// s·K·20·(hidden) in the clamped phase and s·K·20·(all units) in the free phase (20 time
/// units per settling); typewriter order is the sampler's sequential order.
#[test]
fn every_probe_order_makes_n_probes_per_time_unit() {
    let problem = Problem::Encoder4x3;
    let e = problem.encoder().expect("an encoder");
    let settlings = 2 * e.group as u64;
    for probes in [
        ProbeOrder::Random,
        ProbeOrder::Permutation,
        ProbeOrder::Typewriter,
    ] {
        let sampling = Sampling {
            probes,
            ..Sampling::default()
        };
        let mut l = learner_with(problem, 9, sampling);
        let before = l.sampler().ticks();
        while l.settle().expect("settles") != Progress::Cycle {}
        let ticks = l.sampler().ticks() - before;
        assert_eq!(
            ticks,
            settlings * 20 * (e.hidden + e.units()) as u64,
            "{probes:?}"
        );
        assert_eq!(
            l.sampler().order() == NetworkOrder::Sequential,
            probes == ProbeOrder::Typewriter
        );
    }
}

/// A 4-2-4 with random weights on its wiring and random biases.
fn random_encoder_network(seed: u64) -> Network {
    let dataset = Problem::Encoder4x2.dataset();
    let mut network = random_weights(dataset.network(SpinKind::Binary), 3.0, seed).unwrap();
    for i in 0..network.len() {
        network
            .set_bias(i, (i as f64 * 0.7 + seed as f64).sin() * 2.0)
            .unwrap();
    }
    network
}

/// exp(−E(s)/T) over all 2^n states with `fixed` units held (None: free).
fn brute_force_moments(network: &Network, t: f64, fixed: &[Option<i8>]) -> (Vec<f64>, Vec<f64>) {
    let n = network.len();
    let (mut z, mut means, mut pairs) = (0.0, vec![0.0; n], vec![0.0; n * n]);
    for s in 0..1usize << n {
        let state: Vec<i8> = (0..n).map(|i| (s >> i & 1) as i8).collect();
        if fixed
            .iter()
            .enumerate()
            .any(|(i, f)| f.is_some_and(|v| v != state[i]))
        {
            continue;
        }
        let w = (-network.energy(&state) / t).exp();
        z += w;
        for i in (0..n).filter(|&i| state[i] == 1) {
            means[i] += w;
            for j in (0..n).filter(|&j| state[j] == 1) {
                pairs[i * n + j] += w;
            }
        }
    }
    (
        means.iter().map(|m| m / z).collect(),
        pairs.iter().map(|p| p / z).collect(),
    )
}

/// The exact statistics (by groups: hidden given the clamp, V1 and V2 given the hidden
/// state) equal plain enumeration of every state and every noisy clamp, to rounding
/// (1e−12), for random 4-2-4 networks.
#[test]
fn exact_statistics_equal_brute_force_enumeration() {
    let dataset = Problem::Encoder4x2.dataset();
    let e = dataset.encoder().expect("an encoder");
    let noise = ClampNoise {
        on_to_off: 0.15,
        off_to_on: 0.05,
    };
    let t = 3.0;
    for seed in 1..4 {
        let network = random_encoder_network(seed);
        let n = network.len();
        let (clamped, free) = exact_statistics(&network, e, t, dataset.patterns(), noise).unwrap();
        let (means, pairs) = brute_force_moments(&network, t, &vec![None; n]);
        let (mut c_means, mut c_pairs) = (vec![0.0; n], vec![0.0; n * n]);
        let patterns = dataset.patterns();
        for pattern in patterns {
            for v in 0..1usize << 8 {
                let p: f64 = (0..8)
                    .map(|i| {
                        let on = v >> i & 1 == 1;
                        let q = if pattern[i] == 1 {
                            1.0 - noise.on_to_off
                        } else {
                            noise.off_to_on
                        };
                        if on { q } else { 1.0 - q }
                    })
                    .product::<f64>()
                    / patterns.len() as f64;
                let fixed: Vec<Option<i8>> = (0..n)
                    .map(|i| (i < 8).then_some((v >> i & 1) as i8))
                    .collect();
                let (m, pp) = brute_force_moments(&network, t, &fixed);
                for i in 0..n {
                    c_means[i] += p * m[i];
                    for j in 0..n {
                        c_pairs[i * n + j] += p * pp[i * n + j];
                    }
                }
            }
        }
        for i in 0..n {
            assert!((free.means[i] - means[i]).abs() < 1e-12);
            assert!((clamped.means[i] - c_means[i]).abs() < 1e-12);
            for j in i + 1..n {
                assert!(
                    (free.pair(i, j) - pairs[i * n + j]).abs() < 1e-12,
                    "{i} {j}"
                );
                assert!((clamped.pair(i, j) - c_pairs[i * n + j]).abs() < 1e-12);
            }
        }
    }
}

/// The exact codes are the modes of P(h | V1 = k) by plain enumeration, decided when the
/// mode's probability exceeds ½.
#[test]
fn exact_codes_are_the_modes_of_the_enumerated_hidden_distribution() {
    let e = Problem::Encoder4x2.encoder().expect("an encoder");
    let mut decided = 0;
    for seed in 1..20 {
        let network = random_encoder_network(seed);
        let n = network.len();
        let codes = exact_codes(&network, e, 1.0).unwrap();
        for (k, code) in codes.iter().enumerate() {
            let fixed: Vec<Option<i8>> = (0..n)
                .map(|i| (i < 4).then_some(i8::from(i == k)))
                .collect();
            let mut p = [0.0; 4];
            let mut z = 0.0;
            for s in 0..1usize << n {
                let state: Vec<i8> = (0..n).map(|i| (s >> i & 1) as i8).collect();
                if (0..4).any(|i| fixed[i] != Some(state[i])) {
                    continue;
                }
                let w = (-network.energy(&state)).exp();
                z += w;
                p[usize::from(state[8] == 1) | usize::from(state[9] == 1) << 1] += w;
            }
            let (best, pb) = (0..4).fold((0, 0.0), |b, h| if p[h] > b.1 { (h, p[h]) } else { b });
            let expected = (pb / z > 0.5).then(|| vec![best & 1 == 1, best & 2 == 2]);
            decided += usize::from(expected.is_some());
            assert_eq!(code, &expected, "seed {seed} input {k}");
        }
    }
    assert!(decided > 0, "the check compares some decided codes");
}
