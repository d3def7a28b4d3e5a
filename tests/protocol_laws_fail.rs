//! The protocol laws (tests/protocol_laws/mod.rs) can fail: a toy engine whose dispatcher
//! leaves one command unhandled (it answers, but nothing reaches the state), and a case list
//! that forgets a command, each make `every_command_reaches_the_engine_state` fail; a refused
//! command that changes the state makes `a_refused_command_leaves_the_state_unchanged` fail;
//! TypeScript types with a renamed or a missing field make
//! `the_typescript_types_name_every_command_and_reply` fail, and a choice's union that misses
//! or misspells a name makes `a_choice_type_names_every_choice` fail.
//! The real engines' files (tests/protocol*.rs) call the same functions.

use boltzlab::ParamError;
use protocol_laws::{Case, Engine, case, refusal};
use serde::{Deserialize, Serialize};

// Not every law is tried here.
#[allow(dead_code)]
mod protocol_laws;

/// A counter with three commands; `Forgotten` is the deliberately unhandled one. Its wire
/// form is tagged as the engines' are (`{"command": "add", "by": 2}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "kebab-case")]
enum Command {
    Add { by: i64 },
    Reset,
    Forgotten { to: i64 },
}

const VARIANTS: usize = 3;

fn index(command: &Command) -> usize {
    match command {
        Command::Add { .. } => 0,
        Command::Reset => 1,
        Command::Forgotten { .. } => 2,
    }
}

#[derive(Clone, Debug)]
struct Counter {
    value: i64,
    /// Whether the dispatcher handles `Forgotten` (the engine as it should be) or drops it.
    handles_all: bool,
    /// Whether a refused `Add` still changes the value before it is refused.
    leaks_refusals: bool,
}

impl Engine for Counter {
    type Command = Command;
    type Reply = i64;

    fn apply(&mut self, command: Command) -> Result<i64, ParamError> {
        match command {
            Command::Add { by } => {
                if by.abs() > 100 {
                    if self.leaks_refusals {
                        self.value += 1;
                    }
                    return Err(ParamError::Invalid {
                        field: "by",
                        reason: "at most 100".into(),
                    });
                }
                self.value += by;
            }
            Command::Reset => self.value = 0,
            // The deliberately unhandled command: answered, but the state never sees it.
            Command::Forgotten { to } => {
                if self.handles_all {
                    self.value = to;
                }
            }
        }
        Ok(self.value)
    }

    fn state(&self) -> String {
        self.value.to_string()
    }
}

fn counter(handles_all: bool, leaks_refusals: bool) -> impl Fn() -> Counter {
    move || Counter {
        value: 5,
        handles_all,
        leaks_refusals,
    }
}

fn cases() -> Vec<Case<Counter>> {
    vec![
        case(vec![], Command::Add { by: 2 }, |b: &Counter, a, _| {
            a.value == b.value + 2
        }),
        case(vec![], Command::Reset, |_, a: &Counter, _| a.value == 0),
        case(vec![], Command::Forgotten { to: 9 }, |_, a: &Counter, _| {
            a.value == 9
        }),
    ]
}

/// The message of the panic `walk` ends in, or None if it passes.
fn failure(walk: impl FnOnce()) -> Option<String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(walk))
        .err()
        .map(|e| {
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
}

#[test]
fn the_walk_passes_an_engine_that_handles_every_command() {
    protocol_laws::every_command_reaches_the_engine_state(
        counter(true, false),
        cases(),
        index,
        VARIANTS,
    );
}

#[test]
fn a_deliberately_unhandled_command_fails_the_walk() {
    let message = failure(|| {
        protocol_laws::every_command_reaches_the_engine_state(
            counter(false, false),
            cases(),
            index,
            VARIANTS,
        )
    })
    .expect("the walk must fail on the unhandled command");
    assert!(message.contains("Forgotten"), "{message}");
}

#[test]
fn a_command_without_a_case_fails_the_walk() {
    let mut two = cases();
    two.pop();
    let message = failure(|| {
        protocol_laws::every_command_reaches_the_engine_state(
            counter(true, false),
            two,
            index,
            VARIANTS,
        )
    })
    .expect("the walk must fail on the command with no case");
    assert!(message.contains("commands with no case: [2]"), "{message}");
}

#[test]
fn a_refusal_that_changes_the_state_fails_its_law() {
    let refused = || vec![refusal(vec![], Command::Add { by: 1000 }, "by")];
    protocol_laws::a_refused_command_leaves_the_state_unchanged(counter(true, false), refused());
    let message = failure(|| {
        protocol_laws::a_refused_command_leaves_the_state_unchanged(counter(true, true), refused())
    })
    .expect("a refusal that leaks must fail");
    assert!(
        message.contains("changed the state though refused"),
        "{message}"
    );
}

/// The toy's TypeScript types with `members` (its command union's members), written as the
/// derive writes them.
fn typescript(members: &str) -> String {
    format!("export type Command = {members};")
}

const RIGHT: &str = r#"{ command: "add"; by: number } | { command: "reset"; hard?: boolean } | { command: "forgotten"; to: number }"#;

#[test]
fn typescript_types_with_a_renamed_or_missing_field_fail_their_law() {
    let law = |members: &str| {
        failure(|| {
            protocol_laws::the_typescript_types_name_every_command_and_reply(
                &typescript(members),
                cases(),
                &[],
            )
        })
    };
    // Right (an optional field the wire form leaves out is allowed).
    assert_eq!(law(RIGHT), None);
    let renamed = law(&RIGHT.replace("by: number", "step: number"));
    assert!(
        renamed
            .as_ref()
            .is_some_and(|m| m.contains("the wire field by is not in its TypeScript member")),
        "{renamed:?}"
    );
    let required = law(&RIGHT.replace("hard?: boolean", "hard: boolean"));
    assert!(
        required
            .as_ref()
            .is_some_and(|m| m.contains("requires hard")),
        "{required:?}"
    );
    let dropped = law(&RIGHT.replace(
        r#"{ command: "forgotten"; to: number }"#,
        r#"{ command: "other" }"#,
    ));
    assert!(
        dropped
            .as_ref()
            .is_some_and(|m| m.contains("forgotten is not in the TypeScript types")),
        "{dropped:?}"
    );
}

/// A choice with its TypeScript union right, and two with it wrong.
macro_rules! toy_choice {
    ($name:ident, $union:literal) => {
        #[derive(Debug, Clone, Copy, PartialEq, tsify::Tsify)]
        #[tsify(type = $union)]
        enum $name {
            Up,
            Down,
        }
        impl boltzlab::app::lattice::wire::Named for $name {
            const ALL: &'static [Self] = &[$name::Up, $name::Down];
            fn name(self) -> &'static str {
                match self {
                    $name::Up => "up",
                    $name::Down => "down",
                }
            }
            fn parse(name: &str) -> Result<Self, ParamError> {
                match name {
                    "up" => Ok($name::Up),
                    "down" => Ok($name::Down),
                    _ => Err(ParamError::UnknownChoice {
                        field: "toy",
                        value: name.into(),
                        allowed: "up, down",
                    }),
                }
            }
        }
    };
}
toy_choice!(RightChoice, "'up' | 'down'");
toy_choice!(MissingChoice, "'up'");
toy_choice!(MisspeltChoice, "'up' | 'dwn'");

#[test]
fn a_choice_union_that_misses_or_misspells_a_name_fails_its_law() {
    protocol_laws::a_choice_type_names_every_choice::<RightChoice>();
    for message in [
        failure(protocol_laws::a_choice_type_names_every_choice::<MissingChoice>),
        failure(protocol_laws::a_choice_type_names_every_choice::<MisspeltChoice>),
    ] {
        assert!(
            message.as_ref().is_some_and(|m| m.contains("assertion")),
            "{message:?}"
        );
    }
}
