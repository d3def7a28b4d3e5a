//! The restricted machine's protocol (src/app/rbm/command.rs): every `RbmCommand` reaches the
//! engine's state and does what it says, a refused command changes nothing (the session text
//! and the views not in it are the same before and after), the wire form (JSON here, a
//! JavaScript object in the page) decodes to the same command and refuses bad values with the
//! engine's messages, and a seeded command sequence learns the same machine, bit for bit, as
//! the engine's trainer called directly and as the page's number-form calls.
//!
//! Completeness: `index` matches every `RbmCommand` variant without a wildcard, so a new
//! variant does not compile until it has an index here, and
//! `every_command_reaches_the_engine_state` fails until the new index has a case.
//! The laws themselves are shared by every engine's protocol (tests/protocol_laws/mod.rs).
//! Deterministic: every run is seeded, so no test here can fail by chance.

use boltzlab::app::rbm::{
    Count, DatasetChoice, GIBBS_STEPS, HIDDEN, LIKELIHOOD_WORK, Mask, StatisticsKind, Training,
    UPDATES,
};
use boltzlab::app::{RbmCommand, RbmLab, RbmReply};
use boltzlab::learn::digits;
use boltzlab::learn::rbm::{RateSchedule, Rbm, RbmTrainer, Statistics, TrainingOptions};
use protocol_laws::{Case, Engine, refusal};

mod protocol_laws;

/// Number of `RbmCommand` variants.
const VARIANTS: usize = 17;

/// Each variant's place in `0..VARIANTS`: exhaustive, so adding a variant breaks the build here.
fn index(command: &RbmCommand) -> usize {
    use RbmCommand as C;
    match command {
        C::NewRun { .. } => 0,
        C::NewRunFromFile { .. } => 1,
        C::RestoreSession { .. } => 2,
        C::SetTraining { .. } => 3,
        C::SetLikelihoodEvery { .. } => 4,
        C::Advance { .. } => 5,
        C::Learn { .. } => 6,
        C::Refresh { .. } => 7,
        C::LikelihoodStep { .. } => 8,
        C::StartGallery { .. } => 9,
        C::AdvanceGallery { .. } => 10,
        C::StartCompletion { .. } => 11,
        C::AdvanceCompletion { .. } => 12,
        C::SetCompletionClamped { .. } => 13,
        C::StartPoint => 14,
        C::FinishPoint { .. } => 15,
        C::DropPoint { .. } => 16,
    }
}

/// Two complementary 2×2 images and the two diagonals.
const TINY: &str = "1100\n0011\n1001\n0110\n1100\n0011\n";

/// The run every case starts from: bars and stripes 4×4 (30 images, V = 16), 8 hidden units.
fn lab() -> RbmLab {
    let mut lab = RbmLab::new("bars-4x4", 8, 5).unwrap();
    lab.apply(RbmCommand::Advance { updates: 3 }).unwrap();
    lab
}

/// Another run (digits, advanced), for the commands that replace one.
fn other() -> RbmLab {
    let mut other = RbmLab::new("digits8", 12, 99).unwrap();
    other.apply(RbmCommand::Advance { updates: 4 }).unwrap();
    other
}

fn training(statistics: StatisticsKind, batch: u64) -> Training {
    Training {
        statistics,
        steps: 2,
        particles: Some(20),
        replicas: Some(3),
        batch,
        rate: 0.03,
        momentum: 0.4,
        decay: 0.001,
    }
}

/// Everything a command may change: the session text (machine, learning state, both random
/// streams, the likelihood job and curves, options), and the views the session does not keep
/// (particle grid, reconstructions, gallery, completion).
fn state(lab: &RbmLab) -> String {
    format!(
        "{}\n{:?} {:?} {:?}\n{:?} {:?} {} {}\n{:?} {:?} {:?} {:?} {} {}",
        lab.session(),
        lab.fantasy(),
        lab.fantasy_mean(),
        lab.reconstructions(),
        lab.gallery_states(),
        lab.gallery_mean(),
        lab.gallery_done(),
        lab.gallery_target(),
        lab.completion_index(),
        lab.completion_mask(),
        lab.completion_state(),
        lab.completion_mean(),
        lab.completion_steps(),
        lab.completion_clamped(),
    )
}

fn start_gallery() -> RbmCommand {
    RbmCommand::StartGallery {
        count: 5,
        steps: 10,
    }
}

fn start_completion() -> RbmCommand {
    RbmCommand::StartCompletion {
        image: 2,
        mask: Mask::Top,
        painted: vec![],
    }
}

impl Engine for RbmLab {
    type Command = RbmCommand;
    type Reply = RbmReply;

    fn apply(&mut self, command: RbmCommand) -> Result<RbmReply, boltzlab::ParamError> {
        RbmLab::apply(self, command)
    }

    fn state(&self) -> String {
        state(self)
    }
}

fn case(
    prepare: Vec<RbmCommand>,
    command: RbmCommand,
    law: impl Fn(&RbmLab, &RbmLab, &RbmReply) -> bool + 'static,
) -> Case<RbmLab> {
    protocol_laws::case(prepare, command, law)
}

fn cases() -> Vec<Case<RbmLab>> {
    use RbmCommand as C;
    let changed = |r: &RbmReply| *r == RbmReply::Changed;
    let text = other().session();
    let text2 = text.clone();
    let tempering = training(StatisticsKind::Tempering, 10);
    let work = 10 * lab().update_work() as u64;
    vec![
        // Digits, CD-2 with batch 50: a point every two epochs, 2 ⌈1500 / 50⌉ = 60 updates.
        case(
            vec![],
            C::NewRun {
                dataset: DatasetChoice::Digits8,
                hidden: 16,
                seed: 3,
                training: Some(training(StatisticsKind::ContrastiveDivergence, 50)),
                likelihood_every: None,
            },
            |_, a, r| {
                a.dataset() == "digits8"
                    && a.seed() == 3
                    && a.updates() == 0
                    && a.statistics() == "cd"
                    && a.options().batch == 50
                    && a.likelihood_every() == 60
                    && *r
                        == RbmReply::Restarted {
                            visible: 64,
                            hidden: 16,
                            width: 8,
                            test_images: 297,
                        }
            },
        ),
        case(
            vec![],
            C::NewRunFromFile {
                bytes: TINY.as_bytes().to_vec(),
                hidden: 2,
                seed: 7,
                training: None,
                likelihood_every: Some(5),
            },
            |_, a, r| {
                a.dataset() == "custom"
                    && a.training_images().len() == 6
                    && a.likelihood_every() == 5
                    && a.options().batch == 6
                    && *r
                        == RbmReply::Restarted {
                            visible: 4,
                            hidden: 2,
                            width: 2,
                            test_images: 6,
                        }
            },
        ),
        case(vec![], C::RestoreSession { text }, move |_, a, r| {
            a.session() == text2
                && *r
                    == RbmReply::Restarted {
                        visible: 64,
                        hidden: 12,
                        width: 8,
                        test_images: 297,
                    }
        }),
        case(
            vec![],
            C::SetTraining {
                training: tempering,
            },
            move |b, a, r| {
                b.statistics() == "persistent"
                    && a.typed_training() == tempering
                    && a.shown() == 20
                    && a.rbm() == b.rbm()
                    && changed(r)
            },
        ),
        case(
            vec![],
            C::SetLikelihoodEvery { every: 7 },
            move |b, a, r| b.likelihood_every() != 7 && a.likelihood_every() == 7 && changed(r),
        ),
        case(vec![], C::Advance { updates: 4 }, |b, a, r| {
            a.updates() == b.updates() + 4
                && a.version() == b.version() + 1
                && a.rbm() != b.rbm()
                && *r == RbmReply::Learned { updates: 4 }
        }),
        // Ten times the page's estimate of an update's work: some updates are completed,
        // and the reply counts them.
        case(vec![], C::Learn { work }, |b, a, r| {
            let done = a.updates() - b.updates();
            done > 0 && a.version() == b.version() + 1 && *r == RbmReply::Learned { updates: done }
        }),
        // After learning the grid is stale; a refresh shows the particles as they are now
        // and leaves the machine alone.
        case(
            vec![C::Advance { updates: 20 }],
            C::Refresh { means: true },
            move |b, a, r| {
                a.fantasy() != b.fantasy()
                    && a.fantasy_mean() != b.fantasy_mean()
                    && a.rbm() == b.rbm()
                    && changed(r)
            },
        ),
        // Without the means (a page showing the states only) they keep their last values.
        case(
            vec![C::Advance { updates: 20 }],
            C::Refresh { means: false },
            move |b, a, r| {
                a.fantasy() != b.fantasy()
                    && a.fantasy_mean() == b.fantasy_mean()
                    && a.rbm() == b.rbm()
                    && changed(r)
            },
        ),
        // The first point (update 0) is exact here: ln Z in one call, then the images.
        case(
            vec![C::LikelihoodStep { work: 1 << 20 }],
            C::LikelihoodStep { work: 1 << 20 },
            |b, a, r| {
                b.curve_updates().is_empty()
                    && a.curve_updates() == [0.0]
                    && a.point_progress().is_none()
                    && *r == RbmReply::LikelihoodWorked { added: true }
            },
        ),
        // A run starts with its first point (update 0) under way; once it is finished, the
        // next is due `every` updates later: here at update 3, frozen, not yet worked on.
        case(
            vec![
                C::FinishPoint {
                    update: 0,
                    train: -9.5,
                    test: -10.25,
                    stderr: 0.0,
                },
                C::SetLikelihoodEvery { every: 2 },
            ],
            C::StartPoint,
            |b, a, r| {
                b.point_machine().is_none()
                    && a.point_machine() == Some((b.rbm(), 3))
                    && a.point_progress() == Some(0.0)
                    && a.curve_updates() == [0.0]
                    && *r == RbmReply::PointUnderWay { update: Some(3) }
            },
        ),
        // The values computed elsewhere join the curves; the job is done.
        case(
            vec![],
            C::FinishPoint {
                update: 0,
                train: -9.5,
                test: -10.25,
                stderr: 0.0,
            },
            |b, a, r| {
                b.point_machine().is_some()
                    && a.point_machine().is_none()
                    && a.curve_updates() == [0.0]
                    && a.curve_train() == [-9.5]
                    && a.curve_test() == [-10.25]
                    && *r == RbmReply::LikelihoodWorked { added: true }
            },
        ),
        case(vec![], C::DropPoint { update: 0 }, move |b, a, r| {
            b.point_machine().is_some()
                && a.point_machine().is_none()
                && a.curve_updates().is_empty()
                && changed(r)
        }),
        case(vec![], start_gallery(), move |b, a, r| {
            b.gallery_states().is_empty()
                && a.gallery_states().len() == 5 * 16
                && a.gallery_done() == 0
                && a.gallery_target() == 10
                && changed(r)
        }),
        case(
            vec![start_gallery()],
            C::AdvanceGallery { steps: 4 },
            |b, a, r| {
                a.gallery_done() == b.gallery_done() + 4
                    && a.gallery_states() != b.gallery_states()
                    && *r == RbmReply::GalleryAdvanced { done: false }
            },
        ),
        // The top mask of a 4×4 image: its first two rows, held at the image's values.
        case(vec![], start_completion(), move |b, a, r| {
            let image = &a.test_images()[2];
            let top: Vec<u8> = (0..16).map(|i| u8::from(i < 8)).collect();
            b.completion_index().is_none()
                && a.completion_index() == Some(2)
                && a.completion_mask() == top
                && a.completion_state()[..8] == image[..8]
                && a.completion_clamped()
                && changed(r)
        }),
        case(
            vec![start_completion()],
            C::AdvanceCompletion { steps: 3 },
            move |b, a, r| {
                b.completion_steps() == 0
                    && a.completion_steps() == 3
                    && a.completion_mean()
                        .iter()
                        .all(|&p| (0.0..=1.0).contains(&p))
                    && changed(r)
            },
        ),
        case(
            vec![start_completion(), C::AdvanceCompletion { steps: 3 }],
            C::SetCompletionClamped { clamped: false },
            move |b, a, r| {
                b.completion_clamped()
                    && !a.completion_clamped()
                    && a.completion_steps() == 0
                    && changed(r)
            },
        ),
    ]
}

#[test]
fn every_command_reaches_the_engine_state() {
    protocol_laws::every_command_reaches_the_engine_state(lab, cases(), index, VARIANTS);
}

/// Commands with well-typed values the engine refuses (range, combination or content), with
/// the field the refusal must name.
fn refused() -> Vec<(Vec<RbmCommand>, RbmCommand, &'static str)> {
    use RbmCommand as C;
    let new_run = |hidden, seed, training| C::NewRun {
        dataset: DatasetChoice::BarsAndStripes4,
        hidden,
        seed,
        training,
        likelihood_every: None,
    };
    let persistent = training(StatisticsKind::Persistent, 10);
    let set = |training| C::SetTraining { training };
    let finish = |update, train, test, stderr| C::FinishPoint {
        update,
        train,
        test,
        stderr,
    };
    vec![
        (vec![], new_run(0, 1, None), "hidden units"),
        (vec![], new_run(501, 1, None), "hidden units"),
        (vec![], new_run(8, (1 << 53) + 1, None), "seed"),
        // Built whole, then refused: the batch is beyond the 30 images.
        (
            vec![],
            new_run(
                8,
                1,
                Some(training(StatisticsKind::ContrastiveDivergence, 31)),
            ),
            "batch",
        ),
        (
            vec![],
            C::NewRunFromFile {
                bytes: b"0120\n".to_vec(),
                hidden: 2,
                seed: 1,
                training: None,
                likelihood_every: None,
            },
            "dataset",
        ),
        (
            vec![],
            C::NewRunFromFile {
                bytes: TINY.as_bytes().to_vec(),
                hidden: 2,
                seed: 1,
                training: None,
                likelihood_every: Some(0),
            },
            "likelihood every",
        ),
        (
            vec![],
            C::RestoreSession {
                text: "not a session".into(),
            },
            "restricted session",
        ),
        (
            vec![],
            set(Training {
                steps: 0,
                ..persistent
            }),
            "gibbs steps",
        ),
        (
            vec![],
            set(Training {
                particles: None,
                ..persistent
            }),
            "particles",
        ),
        (
            vec![],
            set(Training {
                statistics: StatisticsKind::Tempering,
                replicas: Some(1),
                ..persistent
            }),
            "replicas",
        ),
        (
            vec![],
            set(Training {
                batch: 0,
                ..persistent
            }),
            "batch",
        ),
        (
            vec![],
            set(Training {
                rate: f64::NAN,
                ..persistent
            }),
            "learning rate",
        ),
        (
            vec![],
            set(Training {
                momentum: 1.0,
                ..persistent
            }),
            "momentum",
        ),
        (
            vec![],
            C::SetLikelihoodEvery { every: 0 },
            "likelihood every",
        ),
        (vec![], C::Advance { updates: 0 }, "updates"),
        (vec![], C::Advance { updates: 10_001 }, "updates"),
        (vec![], C::Learn { work: 0 }, "learning work"),
        (vec![], C::LikelihoodStep { work: 0 }, "likelihood work"),
        (
            vec![],
            C::LikelihoodStep {
                work: (1 << 24) + 1,
            },
            "likelihood work",
        ),
        // No point under way, or another update's (the run's first is at 0): nothing is
        // recorded.
        (
            vec![C::DropPoint { update: 0 }],
            finish(0, -9.0, -10.0, 0.0),
            "point",
        ),
        (vec![], finish(4, -9.0, -10.0, 0.0), "point"),
        (vec![], finish(0, f64::NAN, -10.0, 0.0), "train"),
        (vec![], finish(0, -9.0, f64::INFINITY, 0.0), "test"),
        (vec![], finish(0, -9.0, -10.0, -1.0), "stderr"),
        (vec![], finish((1 << 53) + 1, -9.0, -10.0, 0.0), "update"),
        (
            vec![C::DropPoint { update: 0 }],
            C::DropPoint { update: 0 },
            "point",
        ),
        (vec![], C::DropPoint { update: 2 }, "point"),
        (
            vec![],
            C::StartGallery {
                count: 101,
                steps: 10,
            },
            "gallery images",
        ),
        (
            vec![start_gallery()],
            C::StartGallery { count: 5, steps: 0 },
            "gallery steps",
        ),
        (
            vec![start_gallery()],
            C::AdvanceGallery { steps: 0 },
            "steps",
        ),
        (
            vec![],
            C::StartCompletion {
                image: 30,
                mask: Mask::Top,
                painted: vec![],
            },
            "test image",
        ),
        (
            vec![start_completion()],
            C::StartCompletion {
                image: 1,
                mask: Mask::Painted,
                painted: vec![1; 15],
            },
            "painted mask",
        ),
        (
            vec![],
            C::StartCompletion {
                image: 1,
                mask: Mask::Painted,
                painted: vec![0; 16],
            },
            "painted mask",
        ),
        (vec![], C::AdvanceCompletion { steps: 1 }, "completion"),
        (
            vec![start_completion()],
            C::AdvanceCompletion { steps: 100_001 },
            "steps",
        ),
        (
            vec![],
            C::SetCompletionClamped { clamped: false },
            "completion",
        ),
    ]
}

#[test]
fn a_refused_command_leaves_the_state_unchanged() {
    let refused = refused()
        .into_iter()
        .map(|(prepare, command, field)| refusal(prepare, command, field))
        .collect();
    protocol_laws::a_refused_command_leaves_the_state_unchanged(lab, refused);
}

#[test]
fn every_command_goes_through_json_and_back_unchanged() {
    protocol_laws::every_command_goes_through_json_and_back_unchanged(cases());
}

#[test]
fn the_wire_form_is_plain_names_and_numbers() {
    let command: RbmCommand = serde_json::from_str(
        r#"{"command": "set-training", "training": {"statistics": "cd", "steps": 3,
            "batch": 20, "rate": 0.1, "momentum": 0.5, "decay": 0}}"#,
    )
    .unwrap();
    assert_eq!(
        command,
        RbmCommand::SetTraining {
            training: Training {
                statistics: StatisticsKind::ContrastiveDivergence,
                steps: 3,
                particles: None,
                replicas: None,
                batch: 20,
                rate: 0.1,
                momentum: 0.5,
                decay: 0.0,
            }
        }
    );
    let command: RbmCommand = serde_json::from_str(
        r#"{"command": "start-completion", "image": 4, "mask": "paint", "painted": [1, 0, 1]}"#,
    )
    .unwrap();
    assert_eq!(
        command,
        RbmCommand::StartCompletion {
            image: 4,
            mask: Mask::Painted,
            painted: vec![1, 0, 1]
        }
    );
    let command: RbmCommand = serde_json::from_str(
        r#"{"command": "new-run", "dataset": "digits8", "hidden": 16, "seed": 1}"#,
    )
    .unwrap();
    assert_eq!(
        command,
        RbmCommand::NewRun {
            dataset: DatasetChoice::Digits8,
            hidden: 16,
            seed: 1,
            training: None,
            likelihood_every: None
        }
    );
    let reply = serde_json::to_string(&RbmReply::Learned { updates: 3 }).unwrap();
    assert_eq!(reply, r#"{"reply":"learned","updates":3}"#);
}

/// The message a decoding error gives, for a command object written as JSON.
fn decode_error(json: &str) -> String {
    serde_json::from_str::<RbmCommand>(json)
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_wire_values_are_refused_with_the_engines_message() {
    let message = |count: Count, x: f64| count.read(x).unwrap_err().to_string();
    for (json, expected) in [
        (
            r#"{"command":"advance","updates":2.5}"#,
            message(UPDATES, 2.5),
        ),
        (
            r#"{"command":"advance","updates":-1}"#,
            message(UPDATES, -1.0),
        ),
        (
            r#"{"command":"likelihood-step","work":1e300}"#,
            message(LIKELIHOOD_WORK, 1e300),
        ),
        (
            r#"{"command":"new-run","dataset":"digits8","hidden":0.5,"seed":1}"#,
            message(HIDDEN, 0.5),
        ),
        (
            r#"{"command":"start-completion","image":-2,"mask":"top"}"#,
            // Its bound is the run's last test image, named in words on the wire.
            "test image must be a whole number from 0 to the last test image, got -2".into(),
        ),
        (
            r#"{"command":"set-training","training":{"statistics":"cd","steps":1.5,"batch":2,"rate":0.1,"momentum":0,"decay":0}}"#,
            message(GIBBS_STEPS, 1.5),
        ),
        (
            r#"{"command":"set-training","training":{"statistics":"cd","steps":1,"batch":0,"rate":0.1,"momentum":0,"decay":0}}"#,
            "batch must be a whole number from 1 to the number of training images, got 0".into(),
        ),
        (
            r#"{"command":"new-run","dataset":"digits16","hidden":8,"seed":1}"#,
            DatasetChoice::parse("digits16").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"start-completion","image":0,"mask":"bottom"}"#,
            Mask::parse("bottom").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-training","training":{"statistics":"pcd","steps":1,"batch":2,"rate":0.1,"momentum":0,"decay":0}}"#,
            StatisticsKind::parse("pcd").unwrap_err().to_string(),
        ),
    ] {
        let error = decode_error(json);
        assert!(
            error.contains(&expected),
            "{json}: {error:?} does not say {expected:?}"
        );
    }
    assert!(decode_error(r#"{"command":"advance_by","updates":1}"#).contains("unknown variant"));
    assert!(decode_error(r#"{"command":"advance","steps":1}"#).contains("steps"));
}

/// FNV-1a over the bits of every weight and bias (as tests/rbm.rs and tests/web_rbm.rs).
fn fingerprint(m: &Rbm) -> u32 {
    let bytes: Vec<u8> = m
        .weights()
        .iter()
        .chain(m.visible_biases())
        .chain(m.hidden_biases())
        .flat_map(|x| x.to_bits().to_le_bytes())
        .collect();
    digits::fnv1a32(&bytes)
}

/// FNV-1a of the digits machine after 50 persistent updates from seed 1 (pinned in
/// tests/rbm.rs, and equal in WebAssembly: tests/web_rbm.rs).
const PINNED_MACHINE: u32 = 1_192_079_894;

/// The pinned run's options: 100 persistent particles, k = 1, batch 100, ε = 0.02, μ = 0.5.
fn pinned_training() -> Training {
    Training {
        statistics: StatisticsKind::Persistent,
        steps: 1,
        particles: Some(100),
        replicas: None,
        batch: 100,
        rate: 0.02,
        momentum: 0.5,
        decay: 0.0,
    }
}

fn pinned_run() -> RbmCommand {
    RbmCommand::NewRun {
        dataset: DatasetChoice::Digits8,
        hidden: 16,
        seed: 1,
        training: Some(pinned_training()),
        likelihood_every: None,
    }
}

#[test]
fn commands_learn_the_machine_the_engines_trainer_learns_bit_for_bit() {
    // The engine called directly, as tests/rbm.rs does.
    let (train, _) = digits::split();
    let mut start = Rbm::random(64, 16, 0.01, 1).unwrap();
    start.set_base_rate_biases(train.images()).unwrap();
    let options = TrainingOptions {
        statistics: Statistics::Persistent {
            particles: 100,
            steps: 1,
        },
        batch: 100,
        rate: 0.02,
        schedule: RateSchedule::Constant,
        momentum: 0.5,
        weight_decay: 0.0,
        seed: 1,
    };
    let mut direct = RbmTrainer::new(start, train.images(), options).unwrap();
    direct.run(50).unwrap();

    // Whole updates.
    let mut lab = RbmLab::new("bars-4x4", 4, 9).unwrap();
    lab.apply(pinned_run()).unwrap();
    lab.apply(RbmCommand::Advance { updates: 20 }).unwrap();
    lab.apply(RbmCommand::Advance { updates: 30 }).unwrap();
    assert_eq!(lab.rbm(), direct.rbm());
    assert_eq!(fingerprint(lab.rbm()), PINNED_MACHINE);

    // Slices of a seventh of an update (each completes at most one), watched all along.
    let mut sliced = RbmLab::new("bars-4x4", 4, 9).unwrap();
    sliced.apply(pinned_run()).unwrap();
    let work = (sliced.update_work() / 7.0) as u64;
    while sliced.updates() < 50 {
        sliced.apply(RbmCommand::Learn { work }).unwrap();
        sliced.apply(RbmCommand::Refresh { means: true }).unwrap();
        sliced
            .apply(RbmCommand::LikelihoodStep { work: 4096 })
            .unwrap();
    }
    assert_eq!(sliced.updates(), 50);
    assert_eq!(fingerprint(sliced.rbm()), PINNED_MACHINE);
}

/// The page's number-form calls (the older app API, the one tests/rbm_lab.rs and
/// tests/rbm_session.rs use) and the commands make the same run: the same session text and
/// the same views after the same sequence.
#[test]
fn the_page_calls_and_the_commands_make_the_same_run() {
    use boltzlab::app::rbm::RbmTraining;
    let mut page = RbmLab::new("digits8", 16, 1).unwrap();
    page.set_training(&RbmTraining::from(pinned_training()))
        .unwrap();
    page.set_likelihood_every((2 * page.updates_per_epoch()) as u64)
        .unwrap();
    page.advance(7).unwrap();
    page.learn(50_000).unwrap();
    page.refresh();
    page.likelihood_step(5000).unwrap();
    page.gallery_start(6, 20).unwrap();
    page.gallery_step(5).unwrap();
    page.completion_start(3, Mask::parse("left").unwrap(), &[])
        .unwrap();
    page.completion_step(4).unwrap();
    page.set_completion_clamped(false).unwrap();
    page.completion_step(2).unwrap();

    use RbmCommand as C;
    let mut commands = RbmLab::new("bars-4x4", 4, 9).unwrap();
    for command in [
        pinned_run(),
        C::Advance { updates: 7 },
        C::Learn { work: 50_000 },
        C::Refresh { means: true },
        C::LikelihoodStep { work: 5000 },
        C::StartGallery {
            count: 6,
            steps: 20,
        },
        C::AdvanceGallery { steps: 5 },
        C::StartCompletion {
            image: 3,
            mask: Mask::Left,
            painted: vec![],
        },
        C::AdvanceCompletion { steps: 4 },
        C::SetCompletionClamped { clamped: false },
        C::AdvanceCompletion { steps: 2 },
    ] {
        commands.apply(command).unwrap();
    }
    assert_eq!(state(&commands), state(&page));
}

/// The TypeScript types the page is checked against (derived from the enums) name every
/// command and reply the engine knows, each with its wire fields.
#[test]
fn the_typescript_types_name_every_command_and_reply() {
    protocol_laws::the_typescript_types_name_every_command_and_reply(
        &protocol_laws::declarations::<RbmCommand, RbmReply>(),
        cases(),
        &[
            RbmReply::Changed,
            RbmReply::Restarted {
                visible: 1,
                hidden: 1,
                width: 1,
                test_images: 1,
            },
            RbmReply::Learned { updates: 1 },
            RbmReply::LikelihoodWorked { added: true },
            RbmReply::GalleryAdvanced { done: true },
            RbmReply::PointUnderWay { update: Some(1) },
        ],
    );
}

/// A refresh without the means (the page shows the particles' states) draws from the view
/// stream as one with them: after either, the same commands give the same particles,
/// reconstructions and session, and the same means once they are asked for again.
#[test]
fn a_refresh_without_the_means_leaves_the_run_as_one_with_them() {
    use RbmCommand as C;
    let make = || {
        let mut lab = RbmLab::new("digits8", 16, 1).unwrap();
        lab.apply(pinned_run()).unwrap();
        lab.apply(C::Advance { updates: 9 }).unwrap();
        lab
    };
    let (mut with, mut without) = (make(), make());
    with.apply(C::Refresh { means: true }).unwrap();
    without.apply(C::Refresh { means: false }).unwrap();
    assert_eq!(with.fantasy(), without.fantasy());
    assert_eq!(with.reconstructions(), without.reconstructions());
    for lab in [&mut with, &mut without] {
        lab.apply(C::Advance { updates: 5 }).unwrap();
        lab.apply(C::Refresh { means: true }).unwrap();
    }
    assert_eq!(with.fantasy_mean(), without.fantasy_mean());
    assert_eq!(with.reconstructions(), without.reconstructions());
    assert_eq!(with.session(), without.session());
}

/// Each choice a command names has a TypeScript union of exactly its names.
#[test]
fn the_choice_types_name_every_choice() {
    protocol_laws::a_choice_type_names_every_choice::<DatasetChoice>();
    protocol_laws::a_choice_type_names_every_choice::<Mask>();
    protocol_laws::a_choice_type_names_every_choice::<StatisticsKind>();
}
