//! The pattern memory's protocol (src/app/memory.rs): every `MemoryCommand` reaches the
//! engine's state and does what it says, a refused command changes nothing (the session text
//! is the witness), the wire form decodes to the same command and reads numbers through the
//! engine's checks, a cue below capacity comes back to its pattern, and a session continues
//! exactly.
//!
//! Completeness: `index` matches every variant without a wildcard (a new variant does not
//! compile until it has an index), and `every_command_reaches_the_engine_state` fails until
//! the new index has a case. The laws are shared by every engine (tests/protocol_laws/mod.rs).
//! Deterministic: every run is seeded, so no test here can fail by chance.

use boltzlab::app::memory::{MemoryCommand as C, MemoryLab, MemoryReply, StorageChoice};
use boltzlab::model::memory::Recall;
use protocol_laws::{Case, Engine, refusal};
use serde_json::json;

mod protocol_laws;

const VARIANTS: usize = 13;

fn index(command: &C) -> usize {
    match command {
        C::New { .. } => 0,
        C::AddPattern { .. } => 1,
        C::AddRandom { .. } => 2,
        C::AddDigits => 3,
        C::Clear => 4,
        C::SetStorage { .. } => 5,
        C::SetTemperature { .. } => 6,
        C::Cue { .. } => 7,
        C::RandomState => 8,
        C::SetState { .. } => 9,
        C::Advance { .. } => 10,
        C::Settle => 11,
        C::RestoreSession { .. } => 12,
    }
}

impl Engine for MemoryLab {
    type Command = C;
    type Reply = MemoryReply;

    fn apply(&mut self, command: C) -> Result<MemoryReply, boltzlab::ParamError> {
        MemoryLab::apply(self, command)
    }

    fn state(&self) -> String {
        self.session()
    }
}

/// A 10 × 10 memory holding five random pictures, its state cued from the third with 10 %
/// of its pixels flipped.
fn lab() -> MemoryLab {
    let mut lab = MemoryLab::new(10, 10, 7, StorageChoice::Hebb).unwrap();
    lab.apply(C::AddRandom { count: 5 }).unwrap();
    lab.apply(C::Cue {
        pattern: 2,
        flip: 0.1,
        hide: 0.0,
    })
    .unwrap();
    lab
}

fn flipped(a: &[i8], b: &[i8]) -> usize {
    a.iter().zip(b).filter(|(x, y)| x != y).count()
}

fn case(
    prepare: Vec<C>,
    command: C,
    law: impl Fn(&MemoryLab, &MemoryLab, &MemoryReply) -> bool + 'static,
) -> Case<MemoryLab> {
    protocol_laws::case(prepare, command, law)
}

fn cases() -> Vec<Case<MemoryLab>> {
    let eight = C::New {
        width: 8,
        height: 8,
        seed: 1,
        storage: StorageChoice::Hebb,
    };
    let other = {
        let mut other = MemoryLab::new(6, 6, 2, StorageChoice::Hebb).unwrap();
        other.apply(C::AddRandom { count: 3 }).unwrap();
        other.session()
    };
    vec![
        case(
            vec![],
            C::New {
                width: 12,
                height: 9,
                seed: 3,
                storage: StorageChoice::Hebb,
            },
            |_, a, r| {
                (a.width(), a.height(), a.patterns().len()) == (12, 9, 0)
                    && *r == MemoryReply::Changed
            },
        ),
        case(
            vec![],
            C::AddPattern {
                pixels: [1, 0].repeat(50),
            },
            |b, a, r| {
                a.patterns().len() == b.patterns().len() + 1
                    && a.patterns()[5] == [1, -1].repeat(50)
                    && *r == MemoryReply::Stored { patterns: 6 }
            },
        ),
        case(vec![], C::AddRandom { count: 4 }, |b, a, r| {
            a.patterns()[..5] == b.patterns()[..] && *r == MemoryReply::Stored { patterns: 9 }
        }),
        case(vec![eight], C::AddDigits, |_, a, r| {
            a.patterns().len() == 10
                && a.weights().iter().any(|&w| w != 0.0)
                && *r == MemoryReply::Stored { patterns: 10 }
        }),
        case(vec![], C::Clear, |_, a, _| {
            a.patterns().is_empty() && a.weights().iter().all(|&w| w == 0.0) && a.recall().is_none()
        }),
        case(
            vec![],
            C::SetStorage {
                storage: StorageChoice::Unlearning {
                    steps: Some(20),
                    epsilon: None,
                },
            },
            |b, a, _| {
                a.storage().name() == "unlearning"
                    && a.weights() != b.weights()
                    && a.patterns() == b.patterns()
            },
        ),
        case(vec![], C::SetTemperature { temperature: 0.5 }, |_, a, _| {
            a.temperature() == 0.5
        }),
        case(
            vec![],
            C::Cue {
                pattern: 4,
                flip: 0.0,
                hide: 0.5,
            },
            |_, a, _| {
                // The lower half of the rows hidden (−1), the upper half the pattern itself.
                let p = &a.patterns()[4];
                a.state()[..50] == p[..50] && a.state()[50..].iter().all(|&s| s == -1)
            },
        ),
        case(vec![], C::RandomState, |b, a, _| {
            flipped(a.state(), b.state()) > 20
        }),
        case(
            vec![],
            C::SetState {
                pixels: vec![-1; 100],
            },
            |_, a, _| a.state().iter().all(|&s| s == -1),
        ),
        case(vec![], C::Advance { ticks: 250 }, |b, a, r| {
            a.ticks() == b.ticks() + 250 && matches!(r, MemoryReply::Advanced { ticks: 250, .. })
        }),
        case(vec![], C::Settle, |_, a, r| {
            // Five pictures in 100 pixels: the cue comes back to its pattern and stays.
            matches!(r, MemoryReply::Advanced { stable: true, .. })
                && a.stable()
                && a.recall()
                    == Some(Recall::Pattern {
                        index: 2,
                        reversed: false,
                    })
        }),
        case(
            vec![],
            C::RestoreSession {
                text: other.clone(),
            },
            move |_, a, _| a.session() == other,
        ),
    ]
}

#[test]
fn every_command_reaches_the_engine_state() {
    protocol_laws::every_command_reaches_the_engine_state(lab, cases(), index, VARIANTS);
}

/// `session` with the value at JSON pointer `at` replaced by `value`.
fn edited(session: &str, at: &str, value: serde_json::Value) -> String {
    let mut v: serde_json::Value = serde_json::from_str(session).unwrap();
    *v.pointer_mut(at).unwrap() = value;
    v.to_string()
}

#[test]
fn a_refused_command_leaves_the_state_unchanged() {
    let session = lab().session();
    let hebb = StorageChoice::Hebb;
    let refused = vec![
        refusal(
            vec![],
            C::New {
                width: 0,
                height: 8,
                seed: 1,
                storage: hebb,
            },
            "width",
        ),
        refusal(
            vec![],
            C::New {
                width: 64,
                height: 64,
                seed: 1,
                storage: hebb,
            },
            "height",
        ),
        refusal(
            vec![],
            C::New {
                width: 8,
                height: 8,
                seed: (1 << 53) + 1,
                storage: hebb,
            },
            "seed",
        ),
        refusal(
            vec![],
            C::AddPattern {
                pixels: vec![1; 99],
            },
            "pattern",
        ),
        refusal(
            vec![],
            C::AddPattern {
                pixels: vec![2; 100],
            },
            "pattern",
        ),
        refusal(vec![], C::AddRandom { count: 96 }, "count"),
        refusal(vec![], C::AddRandom { count: 100_000 }, "count"),
        refusal(vec![], C::AddRandom { count: 0 }, "count"),
        // A full memory (as many patterns as pixels) takes none more, and says why.
        refusal(
            vec![C::AddRandom { count: 95 }],
            C::AddRandom { count: 1 },
            "patterns",
        ),
        refusal(vec![], C::AddDigits, "patterns"),
        refusal(
            vec![],
            C::SetStorage {
                storage: StorageChoice::Unlearning {
                    steps: None,
                    epsilon: Some(1.5),
                },
            },
            "epsilon",
        ),
        refusal(
            vec![],
            C::SetStorage {
                storage: StorageChoice::Boltzmann {
                    updates: None,
                    rate: Some(f64::NAN),
                },
            },
            "rate",
        ),
        refusal(
            vec![],
            C::SetTemperature { temperature: -1.0 },
            "temperature",
        ),
        refusal(
            vec![],
            C::SetTemperature {
                temperature: f64::INFINITY,
            },
            "temperature",
        ),
        refusal(
            vec![],
            C::Cue {
                pattern: 5,
                flip: 0.0,
                hide: 0.0,
            },
            "pattern",
        ),
        refusal(
            vec![],
            C::Cue {
                pattern: 0,
                flip: 1.5,
                hide: 0.0,
            },
            "flip",
        ),
        refusal(
            vec![],
            C::Cue {
                pattern: 0,
                flip: 0.0,
                hide: f64::NAN,
            },
            "hide",
        ),
        refusal(vec![], C::SetState { pixels: vec![] }, "state"),
        refusal(
            vec![],
            C::Advance {
                ticks: (1 << 22) + 1,
            },
            "ticks",
        ),
        refusal(
            vec![C::SetTemperature { temperature: 0.5 }],
            C::Settle,
            "temperature",
        ),
        refusal(vec![], C::RestoreSession { text: "{".into() }, "session"),
        refusal(
            vec![],
            C::RestoreSession {
                text: session.replace("\"version\":1", "\"version\":9"),
            },
            "session",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: session.replacen('+', "x", 1),
            },
            "session",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: session.replacen("\"energy\":", "\"energy\":1", 1),
            },
            "session",
        ),
        // A state link carries the session text: whatever an edited link changes in it is
        // refused by the engine, naming the part.
        refusal(
            vec![],
            C::RestoreSession {
                text: edited(&session, "/width", json!(0)),
            },
            "width",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: edited(&session, "/seed", json!(1u64 << 60)),
            },
            "seed",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: edited(&session, "/temperature", json!(-1.0)),
            },
            "temperature",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: edited(&session, "/temperature", json!(101.0)),
            },
            "temperature",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: edited(&session, "/patterns/0", json!("+-+")),
            },
            "pattern",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: edited(&session, "/storage", json!({"rule": "oja"})),
            },
            "session",
        ),
        refusal(
            vec![],
            C::RestoreSession {
                text: edited(&session, "/state", json!("")),
            },
            "state",
        ),
    ];
    protocol_laws::a_refused_command_leaves_the_state_unchanged(lab, refused);
}

#[test]
fn every_command_goes_through_json_and_back_unchanged() {
    protocol_laws::every_command_goes_through_json_and_back_unchanged(cases());
}

#[test]
fn the_wire_reads_numbers_through_the_engine_checks() {
    let read = |text: &str| serde_json::from_str::<C>(text);
    let ok = read(r#"{"command":"new","width":8,"height":8,"seed":2,"storage":{"rule":"unlearning","epsilon":0.02}}"#).unwrap();
    let storage = StorageChoice::Unlearning {
        steps: None,
        epsilon: Some(0.02),
    };
    assert_eq!(
        ok,
        C::New {
            width: 8,
            height: 8,
            seed: 2,
            storage
        }
    );
    for (text, needle) in [
        (
            r#"{"command":"new","width":3.5,"height":8,"seed":2,"storage":{"rule":"hebb"}}"#,
            "width must be a whole number between 1 and 64, got 3.5",
        ),
        (
            r#"{"command":"new","width":8,"height":65,"seed":2,"storage":{"rule":"hebb"}}"#,
            "height must be between 1 and 64, got 65",
        ),
        (r#"{"command":"advance","ticks":-1}"#, "ticks"),
        // Counts whose bound is the memory's (the room left, the last pattern) name that
        // bound in words on the wire; the memory refuses a whole number beyond it with its
        // number.
        (
            r#"{"command":"add-random","count":0.5}"#,
            "count must be a whole number from 1 to the room left, got 0.5",
        ),
        (
            r#"{"command":"cue","pattern":1e300}"#,
            "pattern must be a whole number from 0 to the last stored pattern, got 1e300",
        ),
        (r#"{"command":"teleport"}"#, "teleport"),
        (r#"{"command":"advance","ticks":1,"extra":1}"#, "extra"),
    ] {
        let err = read(text).unwrap_err().to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
    let reply = serde_json::to_string(&MemoryReply::Advanced {
        ticks: 5,
        stable: true,
    })
    .unwrap();
    assert_eq!(reply, r#"{"reply":"advanced","ticks":5,"stable":true}"#);
    // A count out of its range is refused with one message, on the wire or by the engine.
    for (text, command) in [
        (
            r#"{"command":"new","width":0,"height":8,"seed":2,"storage":{"rule":"hebb"}}"#,
            C::New {
                width: 0,
                height: 8,
                seed: 2,
                storage: StorageChoice::Hebb,
            },
        ),
        (
            r#"{"command":"new","width":8,"height":8,"seed":9007199254740994,"storage":{"rule":"hebb"}}"#,
            C::New {
                width: 8,
                height: 8,
                seed: (1 << 53) + 2,
                storage: StorageChoice::Hebb,
            },
        ),
        (
            r#"{"command":"advance","ticks":4194305}"#,
            C::Advance {
                ticks: (1 << 22) + 1,
            },
        ),
    ] {
        let wire = read(text).unwrap_err().to_string();
        let engine = lab().apply(command).unwrap_err().to_string();
        assert_eq!(wire, engine, "{text}");
    }
}

#[test]
fn a_session_continues_exactly() {
    let storage = StorageChoice::Boltzmann {
        updates: Some(20),
        rate: None,
    };
    let mut m = MemoryLab::new(12, 12, 11, storage).unwrap();
    m.apply(C::AddRandom { count: 8 }).unwrap();
    m.apply(C::SetTemperature { temperature: 0.3 }).unwrap();
    m.apply(C::Cue {
        pattern: 3,
        flip: 0.25,
        hide: 0.0,
    })
    .unwrap();
    m.apply(C::Advance { ticks: 333 }).unwrap();
    let mut copy = MemoryLab::from_session(&m.session()).unwrap();
    for lab in [&mut m, &mut copy] {
        lab.apply(C::Advance { ticks: 1000 }).unwrap();
        lab.apply(C::RandomState).unwrap();
        lab.apply(C::Advance { ticks: 50 }).unwrap();
    }
    assert_eq!(m.session(), copy.session());
    assert_eq!(m.energy().to_bits(), copy.energy().to_bits());
}

/// The TypeScript types the page is checked against (derived from the enums) name every
/// command and reply the engine knows, each with its wire fields.
#[test]
fn the_typescript_types_name_every_command_and_reply() {
    protocol_laws::the_typescript_types_name_every_command_and_reply(
        &protocol_laws::declarations::<C, MemoryReply>(),
        cases(),
        &[
            MemoryReply::Changed,
            MemoryReply::Stored { patterns: 1 },
            MemoryReply::Advanced {
                ticks: 1,
                stable: true,
            },
        ],
    );
}

/// The page's capacity curve (one run at a time, in its worker) is the engine's capacity
/// experiment for the memory's rule, exactly; the memory itself is not changed by it, and bad
/// shapes are refused by name.
#[test]
fn a_capacity_run_is_the_experiment_for_the_memorys_rule() {
    use boltzlab::learn::memory::{Experiment, Recalling, Storage};
    for (choice, storage) in [
        (StorageChoice::Hebb, Storage::Hebb),
        (
            StorageChoice::Unlearning {
                steps: None,
                epsilon: None,
            },
            Storage::unlearning(40),
        ),
    ] {
        let mut lab = MemoryLab::new(8, 8, 11, choice).unwrap();
        lab.apply(C::AddDigits).unwrap();
        let before = lab.session();
        let run = lab.capacity_run(40, 6, 5, 2).unwrap();
        let expected = Experiment {
            units: 40,
            patterns: 6,
            storage,
            recalling: Recalling {
                temperature: 0.0,
                sweeps: 1,
            },
            random_starts: 5,
            seed: 11,
        }
        .run(2)
        .unwrap();
        assert_eq!(run, expected);
        assert_eq!(run.recalls, 6);
        assert_eq!(run.from_random.iter().sum::<usize>(), 5);
        assert_eq!(lab.session(), before);
        let err = lab.capacity_run(40, 41, 0, 0).unwrap_err().to_string();
        assert!(err.contains("patterns") || err.contains("pattern"), "{err}");
        assert_eq!(lab.session(), before);
    }
}
