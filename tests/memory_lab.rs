//! The pattern-memory laboratory (`app::memory`): every command does what it says, refused
//! commands change nothing (the session text is the witness), recall from a cue finds the
//! pattern below capacity, sessions continue exactly, and the wire reads numbers through the
//! engine's checks.

use boltzlab::app::memory::{MemoryCommand as C, MemoryLab, MemoryReply, StorageChoice};
use boltzlab::model::memory::Recall;

fn lab(width: usize, height: usize) -> MemoryLab {
    MemoryLab::new(width, height, 7, StorageChoice::Hebb).unwrap()
}

/// Every command once, with what it must have done. The match has no wildcard: a new
/// command fails to compile here until it has a case.
#[test]
fn every_command_does_what_it_says() {
    let commands = vec![
        C::New { width: 10, height: 10, seed: 3, storage: StorageChoice::Hebb },
        C::AddRandom { count: 5 },
        C::AddPattern { pixels: vec![1; 100] },
        C::SetStorage { storage: StorageChoice::Unlearning { steps: Some(20), epsilon: None } },
        C::SetTemperature { temperature: 0.0 },
        C::Cue { pattern: 2, flip: 0.1, hide: 0.0 },
        C::Advance { ticks: 100 },
        C::Settle,
        C::RandomState,
        C::SetState { pixels: vec![-1; 100] },
        C::Clear,
        C::AddDigits,
        C::RestoreSession { text: String::new() },
    ];
    let mut m = lab(10, 10);
    for command in commands {
        let before = m.session();
        match command.clone() {
            C::New { .. } => {
                assert_eq!(m.apply(command).unwrap(), MemoryReply::Changed);
                assert_eq!((m.width(), m.height(), m.patterns().len()), (10, 10, 0));
            }
            C::AddRandom { count } => {
                assert_eq!(m.apply(command).unwrap(), MemoryReply::Stored { patterns: count });
                assert!(m.weights().iter().any(|&w| w != 0.0));
            }
            C::AddPattern { pixels } => {
                m.apply(command).unwrap();
                assert_eq!(m.patterns().last().unwrap(), &pixels);
            }
            C::SetStorage { .. } => {
                let hebb = m.weights().to_vec();
                m.apply(command).unwrap();
                assert_eq!(m.storage().name(), "unlearning");
                assert_ne!(m.weights(), &hebb[..], "unlearning changed the weights");
            }
            C::SetTemperature { temperature } => {
                m.apply(command).unwrap();
                assert_eq!(m.temperature(), temperature);
            }
            C::Cue { pattern, .. } => {
                m.apply(command).unwrap();
                let flipped = m.state().iter().zip(&m.patterns()[pattern]).filter(|(a, b)| a != b).count();
                assert!(flipped > 0 && flipped < 30, "about 10 of 100 pixels flipped: {flipped}");
            }
            C::Advance { ticks } => {
                let t = m.ticks();
                assert!(matches!(m.apply(command).unwrap(), MemoryReply::Advanced { ticks: 100, .. }));
                assert_eq!(m.ticks(), t + ticks);
            }
            C::Settle => {
                let MemoryReply::Advanced { stable, .. } = m.apply(command).unwrap() else { panic!() };
                assert!(stable && m.stable());
                // Six patterns in 100 pixels: the cue came back to its pattern.
                assert_eq!(m.recall(), Some(Recall::Pattern { index: 2, reversed: false }));
            }
            C::RandomState => {
                m.apply(command).unwrap();
                assert_ne!(m.session(), before);
            }
            C::SetState { pixels } => {
                m.apply(command).unwrap();
                assert_eq!(m.state(), &pixels[..]);
            }
            C::Clear => {
                m.apply(command).unwrap();
                assert!(m.patterns().is_empty() && m.weights().iter().all(|&w| w == 0.0));
                assert_eq!(m.recall(), None);
                assert!(m.overlaps().is_empty());
            }
            C::AddDigits => {
                // Refused on a 10 × 10 memory; stored on an 8 × 8 one.
                assert_eq!(m.apply(command.clone()).unwrap_err().field(), "patterns");
                let mut eight = lab(8, 8);
                assert_eq!(eight.apply(command).unwrap(), MemoryReply::Stored { patterns: 10 });
            }
            C::RestoreSession { .. } => {
                let text = m.session();
                let mut other = lab(4, 4);
                other.apply(C::RestoreSession { text: text.clone() }).unwrap();
                assert_eq!(other.session(), text);
            }
        }
    }
}

#[test]
fn refused_commands_change_nothing() {
    let mut m = lab(8, 8);
    m.apply(C::AddRandom { count: 4 }).unwrap();
    m.apply(C::Cue { pattern: 1, flip: 0.2, hide: 0.0 }).unwrap();
    let before = m.session();
    for (command, field) in [
        (C::New { width: 0, height: 8, seed: 1, storage: StorageChoice::Hebb }, "width"),
        (C::New { width: 64, height: 64, seed: 1, storage: StorageChoice::Hebb }, "height"),
        (C::New { width: 8, height: 8, seed: (1 << 53) + 1, storage: StorageChoice::Hebb }, "seed"),
        (C::AddPattern { pixels: vec![1; 63] }, "pattern"),
        (C::AddPattern { pixels: vec![2; 64] }, "pattern"),
        (C::AddRandom { count: 61 }, "count"),
        (C::AddRandom { count: 0 }, "count"),
        (C::SetStorage { storage: StorageChoice::Unlearning { steps: None, epsilon: Some(1.5) } }, "epsilon"),
        (C::SetStorage { storage: StorageChoice::Boltzmann { updates: None, rate: Some(f64::NAN) } }, "rate"),
        (C::SetTemperature { temperature: -1.0 }, "temperature"),
        (C::SetTemperature { temperature: f64::INFINITY }, "temperature"),
        (C::Cue { pattern: 4, flip: 0.0, hide: 0.0 }, "pattern"),
        (C::Cue { pattern: 0, flip: 1.5, hide: 0.0 }, "flip"),
        (C::Cue { pattern: 0, flip: 0.0, hide: f64::NAN }, "hide"),
        (C::SetState { pixels: vec![] }, "state"),
        (C::Advance { ticks: (1 << 22) + 1 }, "ticks"),
        (C::RestoreSession { text: "{".into() }, "session"),
        (C::RestoreSession { text: before.replace("\"version\":1", "\"version\":9") }, "session"),
        (C::RestoreSession { text: before.replacen('+', "x", 1) }, "session"),
    ] {
        let err = m.apply(command.clone()).unwrap_err();
        assert_eq!(err.field(), field, "{command:?}: {err}");
        assert_eq!(m.session(), before, "{command:?} changed the memory");
    }
    // Settling needs T = 0.
    m.apply(C::SetTemperature { temperature: 0.5 }).unwrap();
    let before = m.session();
    assert_eq!(m.apply(C::Settle).unwrap_err().field(), "temperature");
    assert_eq!(m.session(), before);
}

#[test]
fn a_session_continues_exactly() {
    let mut m = MemoryLab::new(12, 12, 11, StorageChoice::Boltzmann { updates: Some(20), rate: None }).unwrap();
    m.apply(C::AddRandom { count: 8 }).unwrap();
    m.apply(C::SetTemperature { temperature: 0.3 }).unwrap();
    m.apply(C::Cue { pattern: 3, flip: 0.25, hide: 0.0 }).unwrap();
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

#[test]
fn the_wire_reads_numbers_through_the_engine_checks() {
    let read = |text: &str| serde_json::from_str::<C>(text);
    let ok = read(r#"{"command":"new","width":8,"height":8,"seed":2,"storage":{"rule":"unlearning","epsilon":0.02}}"#).unwrap();
    assert_eq!(
        ok,
        C::New { width: 8, height: 8, seed: 2, storage: StorageChoice::Unlearning { steps: None, epsilon: Some(0.02) } }
    );
    for (text, needle) in [
        (r#"{"command":"new","width":3.5,"height":8,"seed":2,"storage":{"rule":"hebb"}}"#, "side"),
        (r#"{"command":"advance","ticks":-1}"#, "ticks"),
        (r#"{"command":"cue","pattern":1e300}"#, "count"),
        (r#"{"command":"teleport"}"#, "teleport"),
        (r#"{"command":"advance","ticks":1,"extra":1}"#, "extra"),
    ] {
        let err = read(text).unwrap_err().to_string();
        assert!(err.contains(needle), "{text}: {err}");
    }
    let reply = serde_json::to_string(&MemoryReply::Advanced { ticks: 5, stable: true }).unwrap();
    assert_eq!(reply, r#"{"reply":"advanced","ticks":5,"stable":true}"#);
}
