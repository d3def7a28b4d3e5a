//! Bad input never panics and never changes state: property tests that throw random and
//! boundary values (NaN, ±∞, zero, negative, fractional, huge, wrong lengths, garbage
//! text) at every public constructor and setter of the engine. Each call must either
//! succeed with its invariants intact or return a typed error — and after an error the
//! object it was called on must be exactly as before.
#![cfg(not(target_arch = "wasm32"))]

use boltzlab::dynamics::anneal::Schedule;
use boltzlab::estimate::mean_field::{MeanFieldOptions, solve};
use boltzlab::exact::enumeration::enumerate;
use boltzlab::{
    Boundary, Couplings, Dynamics, Lattice, LatticeSampler, Network, NetworkOrder, NetworkSampler,
    Order, Rule, SpinKind,
};
use proptest::prelude::*;

/// Any number, with the boundary values weighted in.
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        3 => prop::sample::select(vec![
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            -1.0,
            1.0,
            0.5,
            2.5,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            1e300,
            -1e-300,
        ]),
        3 => -1e4..1e4f64,
        1 => any::<f64>(),
    ]
}

/// Mostly a value from the valid `range`, sometimes any number at all.
fn mostly(range: std::ops::Range<f64>) -> impl Strategy<Value = f64> {
    prop_oneof![4 => range, 1 => number()]
}

/// A lattice side: mostly small and valid, with the limits and nonsense mixed in.
fn side() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => (2u32..12).prop_map(f64::from),
        1 => prop::sample::select(vec![
            0.0, 1.0, -2.0, 2.5, 4097.0, 1e9, f64::NAN, f64::INFINITY, -0.0,
        ]),
    ]
}

/// A count: the refusal boundaries (0, 1, the limits and beyond) or a small valid value,
/// so that every accepted call stays cheap.
fn count() -> impl Strategy<Value = u64> {
    use boltzlab::estimate::log_z::{MAX_AIS_RUNS, MAX_AIS_STEPS, MAX_SAMPLED_SWEEPS};
    prop_oneof![
        1 => prop::sample::select(vec![
            0,
            1,
            2,
            MAX_AIS_RUNS + 1,
            MAX_AIS_STEPS + 1,
            MAX_SAMPLED_SWEEPS + 1,
            u64::MAX,
        ]),
        3 => 2u64..200,
    ]
}

fn boundary() -> impl Strategy<Value = Boundary> {
    prop_oneof![
        Just(Boundary::Periodic),
        Just(Boundary::Open),
        any::<i8>().prop_map(Boundary::Fixed),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn lattice_constructors_return_a_valid_lattice_or_a_typed_error(
        w in side(), h in side(), j in number(), f in number(), b in boundary(),
        bonds in prop::collection::vec(number(), 0..300), signs in prop::collection::vec(any::<i8>(), 0..300),
    ) {
        if let Ok(lattice) = Lattice::new(w, h, j, f) {
            prop_assert_eq!(lattice.len() as f64, w * h);
            prop_assert!(lattice.coupling().is_finite() && lattice.field().is_finite());
            if let Ok(l) = lattice.clone().with_boundary(b) {
                prop_assert!(l.energy(&vec![1; l.len()]).is_finite());
            }
            if let Ok(l) = lattice.clone().with_couplings(Couplings::Real(bonds)) {
                prop_assert!(l.energy(&vec![-1; l.len()]).is_finite());
            }
            if let Ok(l) = lattice.with_couplings(Couplings::PlusMinus(signs)) {
                prop_assert!(l.energy(&vec![1; l.len()]).is_finite());
            }
        }
    }
}

/// One call on a lattice sampler.
#[derive(Debug, Clone)]
enum LatticeOp {
    Temperature(f64),
    Spin(usize, i8),
    Clamp(usize, bool),
    Dynamics(usize),
    Order(usize),
    ClampsOn(bool),
    Run(u16),
    Fill(i8),
}

fn lattice_op() -> impl Strategy<Value = LatticeOp> {
    prop_oneof![
        number().prop_map(LatticeOp::Temperature),
        (0usize..80, any::<i8>()).prop_map(|(i, s)| LatticeOp::Spin(i, s)),
        (0usize..80, any::<bool>()).prop_map(|(i, c)| LatticeOp::Clamp(i, c)),
        (0usize..3).prop_map(LatticeOp::Dynamics),
        (0usize..3).prop_map(LatticeOp::Order),
        any::<bool>().prop_map(LatticeOp::ClampsOn),
        any::<u16>().prop_map(LatticeOp::Run),
        any::<i8>().prop_map(LatticeOp::Fill),
    ]
}

/// Everything observable about a lattice sampler.
fn lattice_snapshot(s: &LatticeSampler) -> (Vec<i8>, u64, Vec<bool>, bool, String, String, u64) {
    (
        s.spins().to_vec(),
        s.temperature().to_bits(),
        s.clamp_mask().to_vec(),
        s.clamps_on(),
        format!("{:?}", s.dynamics()),
        format!("{:?}", s.order()),
        s.ticks(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn lattice_sampler_calls_never_panic_and_errors_change_nothing(
        w in 2u32..9, h in 2u32..9, glass in any::<bool>(), field in -1.0..1.0f64,
        b in prop::sample::select(vec![Boundary::Periodic, Boundary::Open, Boundary::Fixed(1)]),
        seed in any::<u64>(), ops in prop::collection::vec(lattice_op(), 1..40),
    ) {
        let mut lattice = Lattice::new(w.into(), h.into(), 1.0, field).unwrap().with_boundary(b).unwrap();
        if glass {
            lattice = lattice.with_plus_minus_bonds(seed).unwrap();
        }
        let mut sampler = LatticeSampler::new(lattice, 2.0, seed).unwrap();
        for op in ops {
            let before = lattice_snapshot(&sampler);
            let result = match op.clone() {
                LatticeOp::Temperature(t) => sampler.set_temperature(t),
                LatticeOp::Spin(i, s) => sampler.set_spin(i, s),
                LatticeOp::Clamp(i, c) => sampler.set_clamped(i, c),
                LatticeOp::Dynamics(k) => sampler.set_dynamics(Dynamics::ALL[k]),
                LatticeOp::Order(k) => { sampler.set_order(Order::ALL[k]); Ok(()) }
                LatticeOp::ClampsOn(on) => sampler.set_clamps_on(on),
                LatticeOp::Run(t) => { sampler.run(u64::from(t)); Ok(()) }
                LatticeOp::Fill(s) => { sampler.fill(s); Ok(()) }
            };
            if let Err(err) = result {
                prop_assert!(!err.to_string().is_empty());
                prop_assert_eq!(lattice_snapshot(&sampler), before, "{:?} changed state: {}", op, err);
            }
            let exact = sampler.lattice().energy(sampler.spins());
            prop_assert!((sampler.energy() - exact).abs() <= 1e-9 * (1.0 + exact.abs()));
        }
    }

    #[test]
    fn network_constructors_return_a_valid_network_or_a_typed_error(
        kind in prop::sample::select(SpinKind::ALL.to_vec()),
        n in 0usize..7, extra in 0usize..3, symmetric in any::<bool>(),
        values in prop::collection::vec(number(), 0..64), biases in prop::collection::vec(number(), 0..9),
        visible in 0usize..9, mask in prop::collection::vec(any::<bool>(), 0..64),
    ) {
        let mut weights: Vec<f64> = if values.is_empty() {
            vec![0.0; n * n + extra]
        } else {
            values.iter().cycle().take(n * n + extra).cloned().collect()
        };
        if symmetric && extra == 0 {
            for i in 0..n {
                weights[i * n + i] = 0.0;
                for j in 0..i {
                    weights[i * n + j] = weights[j * n + i];
                }
            }
        }
        if let Ok(network) = Network::new(kind, weights, biases) {
            prop_assert!(network.energy(&vec![kind.high(); network.len()]).is_finite());
            let _ = network.clone().with_visible(visible);
            let _ = network.with_mask(mask);
        }
    }

    #[test]
    fn schedules_and_mean_field_options_refuse_nonsense(
        steps in prop::collection::vec((number(), number()), 0..6), text in ".{0,40}",
        damping in number(), tolerance in number(), t in number(),
        clamp in prop::collection::vec(prop::option::of(any::<i8>()), 0..8),
        start in prop::option::of(prop::collection::vec(number(), 0..8)),
    ) {
        if let Ok(schedule) = Schedule::new(&steps) {
            prop_assert!(schedule.steps().iter().all(|&(t, _)| t >= 0.0));
        }
        let _ = Schedule::parse(&text);
        let network = Network::random(6, SpinKind::Binary, 1.0, 0.5, 1).unwrap();
        let options = MeanFieldOptions { damping, tolerance, max_passes: 50, anneal: vec![] };
        if let Ok(mf) = solve(&network, t, &clamp, start.as_deref(), &options) {
            prop_assert!(mf.probabilities.iter().all(|q| (0.0..=1.0).contains(q)));
        }
        if let Ok(e) = enumerate(&network, t) {
            prop_assert!(e.log_z.is_finite());
        }
    }

    #[test]
    fn every_log_z_method_returns_a_finite_estimate_or_a_typed_error(
        t in number(), runs in count(), steps in count(), sweeps in count(), seed in any::<u64>(),
    ) {
        use boltzlab::estimate::log_z::{ais_log_z, exact_log_z, mean_field_log_z, sampled_log_z};
        let network = Network::random(5, SpinKind::Ising, 1.0, 0.5, seed).unwrap();
        for estimate in [
            exact_log_z(&network, t),
            mean_field_log_z(&network, t),
            sampled_log_z(&network, t, sweeps, seed),
            ais_log_z(&network, t, runs, steps, seed),
        ] {
            match estimate {
                Ok(e) => prop_assert!(e.log_z.is_finite()),
                Err(err) => prop_assert!(!err.to_string().is_empty()),
            }
        }
    }
}

/// One call on a network sampler.
#[derive(Debug, Clone)]
enum NetworkOp {
    Temperature(f64),
    State(Vec<i8>),
    Clamp(Vec<usize>, Vec<i8>),
    Release(Vec<usize>),
    ReleaseAll,
    Anneal(Vec<(f64, f64)>),
    Run(u16),
    Randomize,
    Order(bool),
}

fn network_op() -> impl Strategy<Value = NetworkOp> {
    let small = prop::collection::vec(any::<i8>(), 0..8);
    prop_oneof![
        number().prop_map(NetworkOp::Temperature),
        small.clone().prop_map(NetworkOp::State),
        (
            prop::collection::vec(0usize..9, 0..5),
            prop::collection::vec(any::<i8>(), 0..5)
        )
            .prop_map(|(u, v)| NetworkOp::Clamp(u, v)),
        prop::collection::vec(0usize..9, 0..5).prop_map(NetworkOp::Release),
        Just(NetworkOp::ReleaseAll),
        prop::collection::vec((number(), number()), 0..4).prop_map(NetworkOp::Anneal),
        any::<u16>().prop_map(NetworkOp::Run),
        Just(NetworkOp::Randomize),
        any::<bool>().prop_map(NetworkOp::Order),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn network_sampler_calls_never_panic_and_errors_change_nothing(
        kind in prop::sample::select(SpinKind::ALL.to_vec()), seed in any::<u64>(),
        ops in prop::collection::vec(network_op(), 1..30),
    ) {
        let network = Network::random(7, kind, 1.0, 0.5, seed).unwrap();
        let mut sampler = NetworkSampler::new(network, 1.0, Rule::HeatBath, NetworkOrder::Random, seed).unwrap();
        for op in ops {
            let before = (sampler.state().to_vec(), sampler.temperature().to_bits(), sampler.ticks(), sampler.free_units().to_vec());
            let result = match op.clone() {
                NetworkOp::Temperature(t) => sampler.set_temperature(t),
                NetworkOp::State(s) => sampler.set_state(&s),
                NetworkOp::Clamp(u, v) => sampler.clamp(&u, &v),
                NetworkOp::Release(u) => sampler.release(&u),
                NetworkOp::ReleaseAll => { sampler.release_all(); Ok(()) }
                NetworkOp::Anneal(steps) => sampler.anneal(&steps),
                NetworkOp::Run(t) => { sampler.run(u64::from(t)); Ok(()) }
                NetworkOp::Randomize => { sampler.randomize_free_units(); Ok(()) }
                NetworkOp::Order(random) => {
                    sampler.set_order(if random { NetworkOrder::Random } else { NetworkOrder::Sequential });
                    Ok(())
                }
            };
            if let Err(err) = result {
                let after = (sampler.state().to_vec(), sampler.temperature().to_bits(), sampler.ticks(), sampler.free_units().to_vec());
                prop_assert_eq!(after, before, "{:?} changed state: {}", op, err);
            }
            let exact = sampler.recomputed_energy();
            prop_assert!((sampler.energy() - exact).abs() <= 1e-9 * (1.0 + exact.abs()));
        }
    }
}

/// A valid network file to mutate.
fn network_file() -> String {
    Network::random(4, SpinKind::Binary, 1.0, 0.5, 3)
        .unwrap()
        .with_visible(3)
        .unwrap()
        .to_json()
}

proptest! {
    // The importer's fuzz run: thousands of damaged files, bounded so it fits `make test`.
    #![proptest_config(ProptestConfig { cases: 20_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn the_network_importer_never_panics_on_damaged_files(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, any::<char>()), 1..6),
    ) {
        let mut text: Vec<char> = network_file().chars().collect();
        for (at, kind, c) in edits {
            if text.is_empty() { break; }
            let i = at.index(text.len());
            match kind {
                0 => { text.remove(i); }
                1 => text.insert(i, c),
                2 => text[i] = c,
                _ => text.truncate(i),
            }
        }
        let text: String = text.into_iter().collect();
        match Network::from_json(&text) {
            Ok(network) => {
                // Whatever parsed is a valid network that survives a round trip.
                prop_assert_eq!(Network::from_json(&network.to_json()).unwrap(), network);
            }
            Err(err) => prop_assert!(!err.to_string().is_empty()),
        }
    }

    #[test]
    fn the_network_importer_never_panics_on_garbage(text in ".{0,200}") {
        let _ = Network::from_json(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn learners_accept_valid_options_and_patterns_or_refuse_by_name(
        (visible, patterns) in (0usize..7).prop_flat_map(|v| (
            Just(v),
            // Mostly well-formed patterns (right length, 0/1), sometimes a wrong length or
            // a value other than 0 and 1.
            prop::collection::vec(
                prop_oneof![
                    6 => prop::collection::vec(0u8..2, v),
                    1 => prop::collection::vec(0u8..3, 0..8),
                ],
                0..5,
            ),
        )),
        hidden in 0usize..4,
        rate in mostly(0.01..3.0), momentum in mostly(0.0..0.9), decay in mostly(0.0..0.1),
        on_to_off in mostly(0.0..0.3), off_to_on in mostly(0.0..0.3), settlings in 0u64..4,
        sign in any::<bool>(),
    ) {
        use boltzlab::learn::datasets::Dataset;
        use boltzlab::learn::stochastic::StochasticLearner;
        use boltzlab::learn::{ClampNoise, LearningOptions, Learner, Update};
        let mut options = LearningOptions::ackley1985(1);
        options.update = if sign { Update::Sign { step: rate } } else { Update::Gradient { rate } };
        options.momentum = momentum;
        options.weight_decay = decay;
        options.noise = ClampNoise { on_to_off, off_to_on };
        options.settlings = settlings;
        match Dataset::custom(visible, hidden, patterns.clone()) {
            Ok(dataset) => {
                prop_assert!(dataset.patterns().iter().all(|p| p.len() == visible && p.iter().all(|&b| b <= 1)));
                let network = dataset.network(SpinKind::Binary);
                if let Ok(mut learner) = StochasticLearner::new(network, dataset.patterns(), options) {
                    learner.cycle().unwrap();
                    prop_assert!(learner.network().weights().iter().all(|w| w.is_finite()));
                }
            }
            Err(err) => prop_assert!(!err.to_string().is_empty()),
        }
    }
}
