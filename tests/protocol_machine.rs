//! The general machine's protocol (src/app/machine/command.rs): every `MachineCommand`
//! reaches the engine's state and does what it says, a refused command changes nothing (the
//! session text and the views not in it are the same before and after), the wire form (JSON
//! here, a JavaScript object in the page) decodes to the same command and refuses bad values
//! with the engine's messages, and learning through commands gives the same network, bit for
//! bit, as the engine's learner stepped directly.
//!
//! Completeness: `index` matches every `MachineCommand` variant without a wildcard, so a new
//! variant does not compile until it has an index here, and
//! `every_command_reaches_the_engine_state` fails until the new index has a case. The laws
//! themselves are shared by every engine's protocol (tests/protocol_laws/mod.rs).
//! Deterministic: every run is seeded, so no test here can fail by chance.

use boltzlab::app::machine::{
    COLLECT_SWEEPS, EXPLORE_SWEEPS, GIBBS_STEPS, HIDDEN, PATTERN, REPLICAS, REPLICAS_UP_TO, SEED,
    STEPS, StatisticsWay, UpdateRule,
};
use boltzlab::app::{Count, MachineCommand, MachineLab, MachineReply};
use boltzlab::learn::experiment::{LearningMethod, Protocol, random_weights};
use boltzlab::learn::{Learner, MeanFieldLearner, Problem, Progress, StochasticLearner, Update};
use boltzlab::model::Network;
use protocol_laws::{Case, Engine, refusal};

mod protocol_laws;

/// Number of `MachineCommand` variants.
const VARIANTS: usize = 16;

/// Each variant's place in `0..VARIANTS`: exhaustive, so adding a variant breaks the build here.
fn index(command: &MachineCommand) -> usize {
    use MachineCommand as C;
    match command {
        C::NewRun { .. } => 0,
        C::NewCustomRun { .. } => 1,
        C::RestoreSession { .. } => 2,
        C::SetUpdate { .. } => 3,
        C::SetWeightDecay { .. } => 4,
        C::SetSchedule { .. } => 5,
        C::SetStatistics { .. } => 6,
        C::Advance { .. } => 7,
        C::StepCycle => 8,
        C::ResetWeights => 9,
        C::EstimateStep { .. } => 10,
        C::Explore { .. } => 11,
        C::StopExploring => 12,
        C::ExploreSweeps { .. } => 13,
        C::ImportNetwork { .. } => 14,
        C::RandomCouplings { .. } => 15,
    }
}

/// The run every case starts from: the 4-2-4 encoder (8 units, 4 patterns), stochastic,
/// two cycles learned.
fn lab() -> MachineLab {
    let mut lab = MachineLab::new("4-2-4", "stochastic", 5).unwrap();
    lab.apply(MachineCommand::StepCycle).unwrap();
    lab.apply(MachineCommand::StepCycle).unwrap();
    lab
}

/// Another run of the same shape (other seed, advanced), for the commands that replace a run
/// or its network.
fn other() -> MachineLab {
    let mut other = MachineLab::new("4-2-4", "stochastic", 77).unwrap();
    for _ in 0..3 {
        other.apply(MachineCommand::StepCycle).unwrap();
    }
    other
}

/// Everything a command may change: the session text (options, network, learner and its
/// random streams, curves, the estimate, the hand-run sampler), and the views derived from
/// it (clamps, weights, statistics).
fn state(lab: &MachineLab) -> String {
    format!(
        "{}\n{:?}\n{:?}\n{:?}\n{:?}",
        lab.session(),
        lab.clamps(),
        lab.weights(),
        lab.clamped_pairs(),
        lab.free_pairs(),
    )
}

impl Engine for MachineLab {
    type Command = MachineCommand;
    type Reply = MachineReply;

    fn apply(&mut self, command: MachineCommand) -> Result<MachineReply, boltzlab::ParamError> {
        MachineLab::apply(self, command)
    }

    fn state(&self) -> String {
        state(self)
    }
}

fn case(
    prepare: Vec<MachineCommand>,
    command: MachineCommand,
    law: impl Fn(&MachineLab, &MachineLab, &MachineReply) -> bool + 'static,
) -> Case<MachineLab> {
    protocol_laws::case(prepare, command, law)
}

fn restarted(lab: &MachineLab) -> MachineReply {
    MachineReply::Restarted {
        units: lab.units(),
        visible: lab.visible(),
        patterns: lab.patterns().len(),
    }
}

/// The 8-3-8 encoder (19 units): too big for exact KL on the page, so an AIS estimate of KL
/// is under way from its start.
fn estimated_run() -> MachineCommand {
    MachineCommand::NewRun {
        problem: Problem::Encoder8x3,
        method: LearningMethod::Stochastic,
        seed: 2,
    }
}

fn dream() -> MachineCommand {
    MachineCommand::Explore { pattern: None }
}

fn cases() -> Vec<Case<MachineLab>> {
    use MachineCommand as C;
    let changed = |r: &MachineReply| *r == MachineReply::Changed;
    let other = other();
    let (text, network) = (other.session(), other.export_network());
    let (text2, network2) = (text.clone(), network.clone());
    vec![
        case(
            vec![],
            C::NewRun {
                problem: Problem::Bars3,
                method: LearningMethod::MeanField,
                seed: 9,
            },
            |_, a, r| {
                a.dataset_name() == "bars-3x3"
                    && a.method() == "mean-field"
                    && a.seed() == 9
                    && a.cycles() == 0
                    && a.units() == 9
                    && *r == restarted(a)
            },
        ),
        case(
            vec![],
            C::NewCustomRun {
                patterns: "1100\n0011\n1010".into(),
                hidden: 2,
                method: LearningMethod::Stochastic,
                seed: 4,
            },
            |_, a, r| {
                a.dataset_name() == "patterns"
                    && a.patterns() == [vec![1, 1, 0, 0], vec![0, 0, 1, 1], vec![1, 0, 1, 0]]
                    && a.units() == 6
                    && a.visible() == 4
                    && *r == restarted(a)
            },
        ),
        case(vec![], C::RestoreSession { text }, move |_, a, r| {
            a.session() == text2 && a.cycles() == 3 && *r == restarted(a)
        }),
        case(
            vec![],
            C::SetUpdate {
                rule: UpdateRule::Gradient,
                size: 0.5,
            },
            move |b, a, r| {
                b.update() == Update::Sign { step: 2.0 }
                    && a.update() == Update::Gradient { rate: 0.5 }
                    && a.cycles() == b.cycles()
                    && a.network() == b.network()
                    && changed(r)
            },
        ),
        case(vec![], C::SetWeightDecay { decay: 0.01 }, move |b, a, r| {
            b.weight_decay() == 0.0 && a.weight_decay() == 0.01 && changed(r)
        }),
        case(
            vec![],
            C::SetSchedule {
                schedule: "15:2, 10:3".into(),
                collect: 4,
            },
            move |_, a, r| {
                a.schedule_text() == "15:2, 10:3"
                    && a.collect_sweeps() == 4
                    && a.temperature() == 10.0
                    && changed(r)
            },
        ),
        case(
            vec![],
            C::SetStatistics {
                statistics: StatisticsWay::Tempering,
                particles: 6,
                sweeps: 2,
                replicas: 3,
            },
            move |b, a, r| {
                b.statistics_way().0 == "anneal"
                    && a.statistics_way() == ("tempering".to_string(), 6, 2, 3)
                    && changed(r)
            },
        ),
        // Enough sweeps for at least one whole cycle: the reply counts the cycles completed.
        case(vec![], C::Advance { steps: 2000 }, |b, a, r| {
            let done = a.cycles() - b.cycles();
            done > 0
                && a.network() != b.network()
                && a.curve_cycles().len() == b.curve_cycles().len() + done as usize
                && *r == MachineReply::Advanced { cycles: done }
        }),
        case(vec![], C::StepCycle, |b, a, r| {
            a.cycles() == b.cycles() + 1
                && a.curve_cycles().last() == Some(&(a.cycles() as f64))
                && *r == MachineReply::Advanced { cycles: 1 }
        }),
        // Back to the seed's start: the weights of a fresh run, and one point on the curve.
        case(vec![], C::ResetWeights, move |b, a, r| {
            let fresh = MachineLab::new("4-2-4", "stochastic", 5).unwrap();
            b.cycles() == 2
                && a.cycles() == 0
                && a.network() == fresh.network()
                && a.curve_cycles() == [0.0]
                && a.version() == b.version() + 1
                && changed(r)
        }),
        // The whole estimate (48 chunks) in one step: its point joins the AIS curve.
        case(
            vec![estimated_run()],
            C::EstimateStep { chunks: 1000 },
            |b, a, r| {
                b.estimating()
                    && !a.estimating()
                    && b.curve_ais_cycles().is_empty()
                    && a.curve_ais_cycles() == [0.0]
                    && a.curve_ais_kl()[0].is_finite()
                    && *r == MachineReply::Estimated { added: true }
            },
        ),
        case(vec![], C::Explore { pattern: Some(2) }, move |b, a, r| {
            let pattern = &a.patterns()[2];
            !b.exploring()
                && a.exploring()
                && a.pattern() == Some(2)
                && (0..a.visible())
                    .all(|i| a.clamps()[i] == 1 && a.activations()[i] == f64::from(pattern[i]))
                && changed(r)
        }),
        case(vec![dream()], C::StopExploring, move |b, a, r| {
            b.exploring() && b.pattern().is_none() && !a.exploring() && changed(r)
        }),
        case(
            vec![dream()],
            C::ExploreSweeps { sweeps: 5 },
            move |b, a, r| {
                a.exploring()
                    && a.clamps().iter().all(|&c| c == 0)
                    && a.network() == b.network()
                    && a.cycles() == b.cycles()
                    && changed(r)
            },
        ),
        case(
            vec![],
            C::ImportNetwork { text: network },
            move |b, a, r| {
                b.export_network() != network2
                    && a.export_network() == network2
                    && a.cycles() == 0
                    && changed(r)
            },
        ),
        // The glass on the machine's own wiring: pairs it forbids stay unconnected.
        case(vec![], C::RandomCouplings { seed: 5 }, move |b, a, r| {
            let n = a.units();
            let wiring = (0..n).all(|i| {
                (0..n).all(|j| {
                    i == j || a.network().is_allowed(i, j) || a.weights()[i * n + j] == 0.0
                })
            });
            wiring
                && a.network() != b.network()
                && a.cycles() == 0
                && a.version() == b.version() + 1
                && changed(r)
        }),
    ]
}

#[test]
fn every_command_reaches_the_engine_state() {
    protocol_laws::every_command_reaches_the_engine_state(lab, cases(), index, VARIANTS);
}

/// Commands with well-typed values the engine refuses (range, combination or content), with
/// the field the refusal must name.
fn refused() -> Vec<protocol_laws::Refusal<MachineCommand>> {
    use MachineCommand as C;
    let statistics = |statistics, particles, sweeps, replicas| C::SetStatistics {
        statistics,
        particles,
        sweeps,
        replicas,
    };
    vec![
        refusal(
            vec![],
            C::NewRun {
                problem: Problem::Encoder4x2,
                method: LearningMethod::Stochastic,
                seed: (1 << 53) + 1,
            },
            "seed",
        ),
        refusal(
            vec![],
            C::NewCustomRun {
                patterns: "1010\n101".into(),
                hidden: 1,
                method: LearningMethod::Stochastic,
                seed: 1,
            },
            "patterns",
        ),
        refusal(
            vec![],
            C::NewCustomRun {
                patterns: "1010\n0101".into(),
                hidden: 65,
                method: LearningMethod::MeanField,
                seed: 1,
            },
            "hidden units",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: "not a session".into(),
            },
            "session",
        ),
        refusal(
            vec![],
            C::SetUpdate {
                rule: UpdateRule::Gradient,
                size: -1.0,
            },
            "learning rate",
        ),
        refusal(vec![], C::SetWeightDecay { decay: 1.0 }, "weight decay"),
        refusal(
            vec![],
            C::SetSchedule {
                schedule: "10".into(),
                collect: 5,
            },
            "schedule",
        ),
        refusal(
            vec![],
            C::SetSchedule {
                schedule: "10:2".into(),
                collect: 0,
            },
            "collect sweeps",
        ),
        refusal(
            vec![],
            statistics(StatisticsWay::Persistent, 0, 1, 1),
            "particles",
        ),
        refusal(
            vec![],
            statistics(StatisticsWay::Persistent, 10, 10_001, 1),
            "gibbs steps",
        ),
        refusal(
            vec![],
            statistics(StatisticsWay::Tempering, 10, 1, 1),
            "replicas",
        ),
        refusal(
            vec![],
            C::Advance {
                steps: (1 << 20) + 1,
            },
            "steps",
        ),
        refusal(
            vec![estimated_run()],
            C::EstimateStep { chunks: 0 },
            "chunks",
        ),
        refusal(vec![], C::Explore { pattern: Some(4) }, "pattern"),
        refusal(vec![dream()], C::ExploreSweeps { sweeps: 0 }, "sweeps"),
        refusal(
            vec![],
            C::ImportNetwork {
                text: MachineLab::new("8-3-8", "stochastic", 1)
                    .unwrap()
                    .export_network(),
            },
            "network file",
        ),
        refusal(
            vec![],
            C::RandomCouplings {
                seed: (1 << 53) + 1,
            },
            "seed",
        ),
    ]
}

#[test]
fn a_refused_command_leaves_the_state_unchanged() {
    protocol_laws::a_refused_command_leaves_the_state_unchanged(lab, refused());
}

#[test]
fn every_command_goes_through_json_and_back_unchanged() {
    protocol_laws::every_command_goes_through_json_and_back_unchanged(cases());
}

#[test]
fn the_wire_form_is_plain_names_and_numbers() {
    let command: MachineCommand = serde_json::from_str(
        r#"{"command": "set-statistics", "statistics": "mean-field-persistent",
            "particles": 20, "sweeps": 3, "replicas": 1}"#,
    )
    .unwrap();
    assert_eq!(
        command,
        MachineCommand::SetStatistics {
            statistics: StatisticsWay::MeanFieldPersistent,
            particles: 20,
            sweeps: 3,
            replicas: 1
        }
    );
    let command: MachineCommand = serde_json::from_str(
        r#"{"command": "new-run", "problem": "40-10-40", "method": "mean-field", "seed": 8}"#,
    )
    .unwrap();
    assert_eq!(
        command,
        MachineCommand::NewRun {
            problem: Problem::Encoder40x10,
            method: LearningMethod::MeanField,
            seed: 8
        }
    );
    for (json, pattern) in [
        (r#"{"command": "explore"}"#, None),
        (r#"{"command": "explore", "pattern": null}"#, None),
        (r#"{"command": "explore", "pattern": 3}"#, Some(3)),
    ] {
        let command: MachineCommand = serde_json::from_str(json).unwrap();
        assert_eq!(command, MachineCommand::Explore { pattern }, "{json}");
    }
    let reply = serde_json::to_string(&MachineReply::Advanced { cycles: 2 }).unwrap();
    assert_eq!(reply, r#"{"reply":"advanced","cycles":2}"#);
}

/// The message a decoding error gives, for a command object written as JSON.
fn decode_error(json: &str) -> String {
    serde_json::from_str::<MachineCommand>(json)
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_wire_values_are_refused_with_the_engines_message() {
    let message = |count: Count, x: f64| count.read(x).unwrap_err().to_string();
    for (json, expected) in [
        (r#"{"command":"advance","steps":2.5}"#, message(STEPS, 2.5)),
        (r#"{"command":"advance","steps":-1}"#, message(STEPS, -1.0)),
        (
            r#"{"command":"new-run","problem":"4-2-4","method":"stochastic","seed":1e300}"#,
            message(SEED, 1e300),
        ),
        (
            r#"{"command":"new-custom-run","patterns":"10","hidden":0.5,"method":"stochastic","seed":1}"#,
            message(HIDDEN, 0.5),
        ),
        (
            r#"{"command":"set-schedule","schedule":"10:2","collect":0}"#,
            message(COLLECT_SWEEPS, 0.0),
        ),
        (
            r#"{"command":"set-statistics","statistics":"persistent","particles":4,"sweeps":1.5,"replicas":1}"#,
            message(GIBBS_STEPS, 1.5),
        ),
        (
            r#"{"command":"set-statistics","statistics":"tempering","particles":4,"sweeps":1,"replicas":33}"#,
            REPLICAS
                .read_before(33.0, REPLICAS_UP_TO)
                .unwrap_err()
                .to_string(),
        ),
        (
            r#"{"command":"explore","pattern":-1}"#,
            message(PATTERN, -1.0),
        ),
        (
            r#"{"command":"explore-sweeps","sweeps":1e5}"#,
            message(EXPLORE_SWEEPS, 1e5),
        ),
        (
            r#"{"command":"new-run","problem":"5-2-5","method":"stochastic","seed":1}"#,
            Problem::parse("5-2-5").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"new-run","problem":"4-2-4","method":"annealed","seed":1}"#,
            LearningMethod::parse("annealed").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-update","rule":"hebb","size":1}"#,
            UpdateRule::parse("hebb").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-statistics","statistics":"pcd","particles":4,"sweeps":1,"replicas":1}"#,
            StatisticsWay::parse("pcd").unwrap_err().to_string(),
        ),
    ] {
        let error = decode_error(json);
        assert!(
            error.contains(&expected),
            "{json}: {error:?} does not say {expected:?}"
        );
    }
    assert!(decode_error(r#"{"command":"step_cycle"}"#).contains("unknown variant"));
    assert!(decode_error(r#"{"command":"advance","sweeps":1}"#).contains("sweeps"));
}

/// The weights and biases of a network, bit for bit.
fn bits(network: &Network) -> Vec<u64> {
    let n = network.len();
    (0..n)
        .flat_map(|i| (0..n).map(move |j| network.weight(i, j).to_bits()))
        .chain(network.biases().iter().map(|b| b.to_bits()))
        .collect()
}

/// The engine's learner built and stepped by hand, as `MachineLab` builds it (the standard
/// protocol, its one stage's clamping noise and wiring, the initial weights from the seed),
/// for `cycles` whole cycles.
fn direct_network(problem: Problem, method: LearningMethod, seed: u64, cycles: u64) -> Network {
    let mut protocol = Protocol::standard(problem, method);
    protocol.options.seed = seed;
    assert_eq!(
        protocol.stages.len(),
        1,
        "one stage: its options hold throughout"
    );
    let stage = protocol.stages[0];
    let dataset = problem.dataset();
    let network = random_weights(
        dataset.network(protocol.kind),
        protocol.initial_weights,
        seed,
    )
    .unwrap();
    let options = protocol.options.clone();
    let (mut done, mut step): (u64, Box<dyn FnMut() -> (Progress, Network)>) = match method {
        LearningMethod::Stochastic => {
            let mut l = StochasticLearner::new(network, dataset.patterns(), options).unwrap();
            l.set_noise(stage.noise).unwrap();
            l.set_hidden_connected(stage.hidden_connected);
            (
                0,
                Box::new(move || (l.sweep().unwrap(), l.network().clone())),
            )
        }
        LearningMethod::MeanField => {
            let mut l =
                MeanFieldLearner::new(network, dataset.patterns(), options, protocol.settings)
                    .unwrap();
            l.set_noise(stage.noise).unwrap();
            l.set_hidden_connected(stage.hidden_connected);
            (
                0,
                Box::new(move || (l.step().unwrap(), l.network().clone())),
            )
        }
    };
    loop {
        let (progress, network) = step();
        if progress == Progress::Cycle {
            done += 1;
            if done == cycles {
                return network;
            }
        }
    }
}

#[test]
fn commands_learn_the_network_the_engines_learner_learns_bit_for_bit() {
    for (problem, method) in [
        (Problem::Encoder4x2, LearningMethod::Stochastic),
        (Problem::Bars3, LearningMethod::MeanField),
    ] {
        let direct = direct_network(problem, method, 3, 6);
        let new_run = MachineCommand::NewRun {
            problem,
            method,
            seed: 3,
        };
        // Whole cycles.
        let mut whole = MachineLab::new("pixels-10", "stochastic", 1).unwrap();
        whole.apply(new_run.clone()).unwrap();
        for _ in 0..6 {
            whole.apply(MachineCommand::StepCycle).unwrap();
        }
        assert_eq!(
            bits(whole.network()),
            bits(&direct),
            "{problem:?}: whole cycles"
        );
        // Slices of 7 sweeps (fewer than a cycle, so the loop ends inside cycle 7, where the
        // weights are still those after cycle 6), with a look by hand after cycle 2 (the
        // hand-run sampler has its own stream and leaves learning alone) and the page's AIS
        // steps.
        let mut sliced = MachineLab::new("pixels-10", "stochastic", 1).unwrap();
        sliced.apply(new_run).unwrap();
        let mut looked = false;
        while sliced.cycles() < 6 {
            let reply = sliced.apply(MachineCommand::Advance { steps: 7 }).unwrap();
            assert!(
                reply == MachineReply::Advanced { cycles: 0 }
                    || reply == MachineReply::Advanced { cycles: 1 }
            );
            if sliced.cycles() == 2 && !looked {
                looked = true;
                for command in [
                    MachineCommand::Explore { pattern: Some(1) },
                    MachineCommand::ExploreSweeps { sweeps: 3 },
                    MachineCommand::StopExploring,
                ] {
                    sliced.apply(command).unwrap();
                }
            }
            if sliced.estimating() {
                sliced
                    .apply(MachineCommand::EstimateStep { chunks: 1 })
                    .unwrap();
            }
        }
        assert!(looked);
        assert_eq!(sliced.cycles(), 6);
        assert_eq!(bits(sliced.network()), bits(&direct), "{problem:?}: slices");
    }
}

/// The TypeScript types the page is checked against (derived from the enums) name every
/// command and reply the engine knows, each with its wire fields.
#[test]
fn the_typescript_types_name_every_command_and_reply() {
    protocol_laws::the_typescript_types_name_every_command_and_reply(
        &protocol_laws::declarations::<MachineCommand, MachineReply>(),
        cases(),
        &[
            MachineReply::Changed,
            MachineReply::Restarted {
                units: 1,
                visible: 1,
                patterns: 1,
            },
            MachineReply::Advanced { cycles: 1 },
            MachineReply::Estimated { added: true },
        ],
    );
}

/// Each choice a command names has a TypeScript union of exactly its names.
#[test]
fn the_choice_types_name_every_choice() {
    protocol_laws::a_choice_type_names_every_choice::<Problem>();
    protocol_laws::a_choice_type_names_every_choice::<LearningMethod>();
    protocol_laws::a_choice_type_names_every_choice::<UpdateRule>();
    protocol_laws::a_choice_type_names_every_choice::<StatisticsWay>();
}
