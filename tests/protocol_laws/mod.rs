//! The laws every engine's protocol obeys, written once for any engine (the lattice, the
//! restricted machine, the general machine): each test file says what its engine's state is,
//! gives one case per command and a list of refused commands, and calls these.
//!
//! - [`every_command_reaches_the_engine_state`]: each case's command, applied after its
//!   preparation, obeys its law and changes the state; every variant has a case (a missing
//!   case fails here, at run time; a new variant fails to compile in the file's exhaustive
//!   `index`).
//! - [`a_refused_command_leaves_the_state_unchanged`]: each refused command is refused (naming
//!   the field when one is given) and the state is the same before and after.
//! - [`every_command_goes_through_json_and_back_unchanged`]: the wire form decodes to the same
//!   command.
//! - [`the_typescript_types_name_every_command_and_reply`]: the TypeScript types the page is
//!   checked against (generated from the enums by `#[derive(Tsify)]`) name every command and
//!   reply tag, each with the fields of its wire form.
//! - [`a_choice_type_names_every_choice`]: a choice's TypeScript union lists its names.
//!
//! Every engine here is seeded, so no law can fail by chance.

use boltzlab::ParamError;
use boltzlab::app::lattice::wire::Named;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use tsify::Tsify;

/// An engine behind a protocol: its commands, its replies, its one dispatcher, and
/// everything a command may change, written out for comparison.
pub trait Engine: Clone {
    type Command: Clone + Debug + PartialEq + Serialize + DeserializeOwned;
    type Reply: Debug;

    /// The one dispatcher.
    fn apply(&mut self, command: Self::Command) -> Result<Self::Reply, ParamError>;

    /// Everything a command may change (the session or state file, and the views it
    /// does not keep).
    fn state(&self) -> String;
}

/// A law a command obeys: true if (before, after, reply) is what it says.
pub type Law<E> = Box<dyn Fn(&E, &E, &<E as Engine>::Reply) -> bool>;

/// One command, what to do first, and the law it obeys.
pub struct Case<E: Engine> {
    pub prepare: Vec<E::Command>,
    pub command: E::Command,
    pub law: Law<E>,
}

/// A [`Case`].
pub fn case<E: Engine>(
    prepare: Vec<E::Command>,
    command: E::Command,
    law: impl Fn(&E, &E, &E::Reply) -> bool + 'static,
) -> Case<E> {
    Case {
        prepare,
        command,
        law: Box::new(law),
    }
}

/// A command with well-typed values the engine refuses (range, combination or content),
/// what to do first, and the field the refusal must name (None: any).
pub struct Refusal<C> {
    pub prepare: Vec<C>,
    pub command: C,
    pub field: Option<&'static str>,
}

/// A [`Refusal`] that must name `field` (the lattice's refusals name none).
#[allow(dead_code)]
pub fn refusal<C>(prepare: Vec<C>, command: C, field: &'static str) -> Refusal<C> {
    Refusal {
        prepare,
        command,
        field: Some(field),
    }
}

/// Each case, from a fresh `start()` and its preparation, obeys its law and changes the
/// state; `index` places each command among the `variants`, and every place must be taken.
pub fn every_command_reaches_the_engine_state<E: Engine>(
    start: impl Fn() -> E,
    cases: Vec<Case<E>>,
    index: fn(&E::Command) -> usize,
    variants: usize,
) {
    let mut covered = vec![false; variants];
    for Case {
        prepare,
        command,
        law,
    } in cases
    {
        let mut before = start();
        for p in prepare {
            before.apply(p).unwrap();
        }
        let mut after = before.clone();
        let reply = after.apply(command.clone()).unwrap();
        assert!(
            law(&before, &after, &reply),
            "{command:?} did not do what it says (reply {reply:?})"
        );
        assert_ne!(before.state(), after.state(), "{command:?} changed nothing");
        covered[index(&command)] = true;
    }
    let missing: Vec<usize> = (0..variants).filter(|&k| !covered[k]).collect();
    assert!(missing.is_empty(), "commands with no case: {missing:?}");
}

/// Each refused command, from a fresh `start()` and its preparation, is refused (naming its
/// field) and leaves the state as it was.
pub fn a_refused_command_leaves_the_state_unchanged<E: Engine>(
    start: impl Fn() -> E,
    refused: Vec<Refusal<E::Command>>,
) {
    for Refusal {
        prepare,
        command,
        field,
    } in refused
    {
        let mut lab = start();
        for p in prepare {
            lab.apply(p).unwrap();
        }
        let before = lab.state();
        let error = lab
            .apply(command.clone())
            .expect_err(&format!("{command:?} was accepted"));
        if let Some(field) = field {
            assert_eq!(error.field(), field, "{command:?}: {error}");
        }
        assert_eq!(
            lab.state(),
            before,
            "{command:?} changed the state though refused"
        );
    }
}

/// Each command, written as JSON and read back, is the same command.
pub fn every_command_goes_through_json_and_back_unchanged<E: Engine>(cases: Vec<Case<E>>) {
    for Case { command, .. } in cases {
        let json = serde_json::to_string(&command).unwrap();
        let back: E::Command = serde_json::from_str(&json).unwrap();
        assert_eq!(back, command, "{json}");
    }
}

/// The declarations of an engine's command and reply types as the page is checked against
/// them: what `#[derive(Tsify)]` puts into wasm-bindgen's `.d.ts`.
pub fn declarations<C: Tsify, R: Tsify>() -> String {
    format!("{}\n{}", C::DECL, R::DECL)
}

/// The TypeScript declarations `types` (generated: [`declarations`]) name every command the
/// cases make and every reply given, each with the fields its wire form has: every field the
/// JSON carries is in the type's member, and every field the member requires (no `?`) is in
/// the JSON. The derive reads the Rust types, the wire reads serde's attributes and the
/// wire readers (`deserialize_with`, defaults, type overrides): a field the two see
/// differently fails here, as a renamed or dropped one would.
pub fn the_typescript_types_name_every_command_and_reply<E: Engine>(
    types: &str,
    cases: Vec<Case<E>>,
    replies: &[E::Reply],
) where
    E::Reply: Serialize,
{
    for Case { command, .. } in cases {
        same_fields(types, &command, "command");
    }
    for reply in replies {
        same_fields(types, reply, "reply");
    }
}

/// A choice's TypeScript type (a union of names, `#[tsify(type = …)]` on the enum) lists
/// exactly the names of its choices, in order, and each parses back to its choice.
#[allow(dead_code)] // the memory's commands name no choice
pub fn a_choice_type_names_every_choice<T: Named + Tsify + PartialEq + Debug>() {
    let decl = T::DECL;
    // After the doc comment: `export type Name = 'a' | 'b';`.
    let union = decl
        .split_once("export type ")
        .and_then(|(_, alias)| alias.split_once(" = "))
        .and_then(|(_, u)| u.strip_suffix(';'))
        .unwrap_or_else(|| panic!("not a type alias: {decl}"));
    let listed: Vec<&str> = union
        .split(" | ")
        .map(|n| n.trim().trim_matches('\''))
        .collect();
    let names: Vec<&str> = T::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(listed, names, "{decl}");
    for &choice in T::ALL {
        assert_eq!(T::parse(choice.name()).ok(), Some(choice), "{decl}");
    }
}

/// The wire form of `value` (tagged by `key`) against its member in the TypeScript types.
fn same_fields(types: &str, value: &impl Serialize, key: &str) {
    let json = serde_json::to_value(value).unwrap();
    let name = json[key].as_str().unwrap();
    let (required, all) = member_fields(types, &format!("{{ {key}: \"{name}\""))
        .unwrap_or_else(|| panic!("{name} is not in the TypeScript types:\n{types}"));
    let sent: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for field in &sent {
        assert!(
            all.contains(&field.to_string()),
            "{key} {name}: the wire field {field} is not in its TypeScript member ({all:?})"
        );
    }
    for field in &required {
        assert!(
            sent.contains(&field.as_str()),
            "{key} {name}: the TypeScript member requires {field}, which the wire form {json} lacks"
        );
    }
}

/// The top-level fields of the object type that starts with `start` in `web`: (required,
/// all), or None if there is none. Nested object types are skipped whole.
fn member_fields(web: &str, start: &str) -> Option<(Vec<String>, Vec<String>)> {
    let at = web.find(start)?;
    let body = &web[at + 1..];
    let (mut depth, mut required, mut all) = (0usize, Vec::new(), Vec::new());
    let mut word = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' | '(' | '[' | '<' => depth += 1,
            '}' | ')' | ']' | '>' if depth == 0 => break,
            '}' | ')' | ']' | '>' => depth -= 1,
            '\'' | '"' => {
                // A string literal: skipped whole.
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
            }
            _ => {}
        }
        if depth == 0 && (c.is_alphanumeric() || c == '_') {
            word.push(c);
            continue;
        }
        if depth == 0 && !word.is_empty() {
            let optional = c == '?';
            let next = if optional {
                chars.peek().copied()
            } else {
                Some(c)
            };
            if next == Some(':') && (all.is_empty() || !all.contains(&word)) {
                // Only a name in key position (after `{` or `;`) is a field.
                all.push(word.clone());
                if !optional {
                    required.push(word.clone());
                }
            }
        }
        word.clear();
    }
    Some((required, all))
}
