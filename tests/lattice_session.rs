//! The lattice's compact session: the state file's content with spins, clamps and bonds
//! packed as base64 by the engine. Restored, a run continues exactly as the saved one; a
//! bad or damaged session is refused naming the field and changes nothing; a 2048²
//! lattice's session takes milliseconds.

use boltzlab::app::session::MAX_SESSION_BYTES;
use boltzlab::app::{Brush, LatticeLab, LatticeModel, LatticeSetup};
use boltzlab::{Boundary, Dynamics, Order, Rule};
use serde_json::{Value, json};
use std::time::Instant;

/// One setup per distinct path: each model, open and fixed borders, every order (the
/// checkerboard one in SIMD lanes), Metropolis and Wolff, an odd side (bits that do not
/// fill the last byte).
fn setups() -> Vec<LatticeSetup> {
    let base = LatticeSetup {
        size: 12,
        temperature: 1.7,
        ..LatticeSetup::default()
    };
    vec![
        base,
        LatticeSetup {
            model: LatticeModel::Antiferromagnet,
            order: Order::Checkerboard,
            boundary: Boundary::Open,
            field: 0.4,
            ..base
        },
        LatticeSetup {
            model: LatticeModel::PlusMinusGlass,
            dynamics: Dynamics::Single(Rule::Metropolis),
            order: Order::Random,
            boundary: Boundary::Fixed(-1),
            seed: 77,
            size: 13,
            ..base
        },
        LatticeSetup {
            model: LatticeModel::GaussianGlass,
            temperature: 0.6,
            size: 7,
            ..base
        },
        LatticeSetup {
            dynamics: Dynamics::Wolff,
            temperature: 2.3,
            ..base
        },
    ]
}

#[test]
fn a_restored_session_continues_exactly_as_the_run_it_came_from() {
    for setup in setups() {
        let mut lab = LatticeLab::new(setup).unwrap();
        lab.advance(1234.0, false).unwrap();
        if setup.dynamics != Dynamics::Wolff {
            lab.paint((1.0, 1.0), (5.0, 3.0), 1.0, Brush::Clamp)
                .unwrap();
        }
        lab.advance(777.0, false).unwrap();
        let text = lab.session();
        let mut copy = LatticeLab::new(LatticeSetup::default()).unwrap();
        copy.restore_session(&text).unwrap();
        assert_eq!(copy.setup(), lab.setup(), "{setup:?}");
        assert_eq!(copy.sampler().lattice(), lab.sampler().lattice());
        assert_eq!(copy.sampler().state(), lab.sampler().state());
        assert_eq!(copy.session(), text);
        // The session carries exactly what the state file does.
        assert_eq!(copy.export_state(), lab.export_state());
        for _ in 0..5 {
            lab.advance(999.0, false).unwrap();
            copy.advance(999.0, false).unwrap();
            assert_eq!(copy.sampler().state(), lab.sampler().state(), "{setup:?}");
        }
        // Integer couplings keep E exactly; real ones to rounding (the copy recounted it),
        // as with the state file.
        let (a, b) = (copy.sampler().energy(), lab.sampler().energy());
        assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{a} {b}");
    }
}

/// Applies `damage` to a good session's JSON and checks the text is refused with an error
/// starting with `field`, and that the lab asked to restore it is unchanged.
#[test]
fn the_clamps_are_stored_only_when_a_site_is_clamped() {
    let mut lab = LatticeLab::new(LatticeSetup::default()).unwrap();
    let bare: Value = serde_json::from_str(&lab.session()).unwrap();
    assert!(bare.get("clamped").is_none(), "no clamps, no field");
    lab.paint((1.0, 1.0), (3.0, 1.0), 1.0, Brush::Clamp)
        .unwrap();
    let clamped_count = lab.clamped_count();
    assert!(clamped_count > 0);
    let text = lab.session();
    let with: Value = serde_json::from_str(&text).unwrap();
    assert!(with["clamped"].is_string(), "clamps are stored as bits");
    let mut copy = LatticeLab::new(LatticeSetup::default()).unwrap();
    copy.restore_session(&text).unwrap();
    assert_eq!(copy.clamped_count(), clamped_count);
    copy.restore_session(&serde_json::to_string(&bare).unwrap())
        .unwrap();
    assert_eq!(
        copy.clamped_count(),
        0,
        "a session without the field has no clamps"
    );
}

fn refused(lab: &mut LatticeLab, good: &str, field: &str, damage: impl Fn(&mut Value)) {
    let mut value: Value = serde_json::from_str(good).unwrap();
    damage(&mut value);
    refused_text(lab, &value.to_string(), field);
}

fn refused_text(lab: &mut LatticeLab, bad: &str, field: &str) {
    let before = lab.session();
    let err = lab.restore_session(bad).unwrap_err().to_string();
    assert!(err.starts_with(field), "expected {field}: {err}");
    assert_eq!(lab.session(), before, "a refused session changes nothing");
}

#[test]
fn a_damaged_session_is_refused_naming_the_field_and_changes_nothing() {
    let mut source = LatticeLab::new(LatticeSetup {
        model: LatticeModel::PlusMinusGlass,
        size: 5,
        ..LatticeSetup::default()
    })
    .unwrap();
    source.advance(10.0, false).unwrap();
    let good = source.session();
    let mut lab = LatticeLab::new(LatticeSetup::default()).unwrap();
    lab.advance(5000.0, false).unwrap();

    for cut in [0, 1, good.len() / 2, good.len() - 1] {
        refused_text(&mut lab, &good[..cut], "session");
    }
    refused_text(&mut lab, &" ".repeat(MAX_SESSION_BYTES + 1), "session");
    // The JSON state file is not a session.
    refused_text(&mut lab, &source.export_state(), "format");
    refused(&mut lab, &good, "version", |v| v["version"] = json!(2));
    refused(&mut lab, &good, "version", |v| v["version"] = json!("1"));
    refused(&mut lab, &good, "size", |v| v["size"] = json!(4.5));
    refused(&mut lab, &good, "size", |v| v["size"] = json!(1e12));
    refused(&mut lab, &good, "temperature", |v| {
        v["temperature"] = json!(-1)
    });
    refused(&mut lab, &good, "temperature", |v| {
        v["temperature"] = json!("hot")
    });
    refused(&mut lab, &good, "dynamics", |v| {
        v["rule"] = json!("glauber")
    });
    refused(&mut lab, &good, "phase", |v| v["phase"] = json!("frozen"));
    refused(&mut lab, &good, "bonds", |v| {
        v["model"] = json!("ferromagnet")
    });
    refused(&mut lab, &good, "bonds", |v| {
        v.as_object_mut().unwrap().remove("bonds");
    });
    // Packed fields: wrong length, not base64, a stray bit past the last site, a type.
    refused(&mut lab, &good, "spins", |v| v["spins"] = json!("AAAA"));
    refused(&mut lab, &good, "spins", |v| v["spins"] = json!("!!!!!!"));
    refused(&mut lab, &good, "spins", |v| v["spins"] = json!(["+-+-+"]));
    refused(&mut lab, &good, "clamped", |v| {
        // 25 sites: 4 bytes, the last one's top 7 bits unused.
        v["clamped"] = json!("AAAA/w==")
    });
    refused(&mut lab, &good, "bonds", |v| v["bonds"] = json!("AA=="));
    refused(&mut lab, &good, "bonds", |v| v["bonds"] = json!(7));
    refused(&mut lab, &good, "random state", |v| {
        v["random_state"] = json!([0, 0, 0, 0])
    });
    refused(&mut lab, &good, "next site", |v| v["next_site"] = json!(99));
    refused(&mut lab, &good, "ticks", |v| v["ticks"] = json!(-1));
    refused(&mut lab, &good, "session field", |v| v["colour"] = json!(1));
}

/// The page saves a 2048² lattice from its session text: printed here (run with
/// `--nocapture`), it takes a few milliseconds natively.
#[test]
fn a_2048_squared_session_takes_milliseconds() {
    let mut lab = LatticeLab::new(LatticeSetup {
        model: LatticeModel::PlusMinusGlass,
        size: 2048,
        ..LatticeSetup::default()
    })
    .unwrap();
    lab.advance(1e6, false).unwrap();
    lab.paint((10.0, 10.0), (200.0, 90.0), 8.0, Brush::Clamp)
        .unwrap();
    let mut best = f64::INFINITY;
    let mut text = String::new();
    for _ in 0..5 {
        let begin = Instant::now();
        text = lab.session();
        best = best.min(begin.elapsed().as_secs_f64());
    }
    let begin = Instant::now();
    let mut copy = LatticeLab::new(LatticeSetup::default()).unwrap();
    copy.restore_session(&text).unwrap();
    let restore = begin.elapsed().as_secs_f64();
    let begin = Instant::now();
    let json = lab.export_state();
    let export = begin.elapsed().as_secs_f64();
    println!(
        "2048² ±J glass: session() {:.1} ms ({} characters); restore_session {:.1} ms; \
         export_state {:.1} ms ({} characters)",
        best * 1e3,
        text.len(),
        restore * 1e3,
        export * 1e3,
        json.len()
    );
    assert_eq!(copy.sampler().state(), lab.sampler().state());
    // Spins, clamps and 2 bonds per site, one bit each, in base64: 4 × 2048² / 6 chars.
    assert!(text.len() < 2_900_000, "{}", text.len());
}
