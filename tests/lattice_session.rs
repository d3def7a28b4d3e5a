//! The lattice's compact session: the state file's content with spins, clamps and bonds
//! packed as base64 by the engine. Restored, a run continues exactly as the saved one; a
//! bad or damaged session is refused naming the field and changes nothing; a 2048²
//! lattice's session takes milliseconds; a glass's bonds drawn from its seed are stored as
//! the seed, and every lattice the menus offer fits the page's storage.

use boltzlab::app::packing::{pack_bits, pack_numbers};
use boltzlab::app::session::{MAX_SESSION_BYTES, session_bound};
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
        lab.advance(1234, false).unwrap();
        if setup.dynamics != Dynamics::Wolff {
            lab.paint((1.0, 1.0), (5.0, 3.0), 1, Brush::Clamp).unwrap();
        }
        lab.advance(777, false).unwrap();
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
            lab.advance(999, false).unwrap();
            copy.advance(999, false).unwrap();
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
    lab.paint((1.0, 1.0), (3.0, 1.0), 1, Brush::Clamp).unwrap();
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
    source.advance(10, false).unwrap();
    let good = source.session();
    let mut lab = LatticeLab::new(LatticeSetup::default()).unwrap();
    lab.advance(5000, false).unwrap();

    for cut in [0, 1, good.len() / 2, good.len() - 1] {
        refused_text(&mut lab, &good[..cut], "session");
    }
    refused_text(&mut lab, &" ".repeat(MAX_SESSION_BYTES + 1), "session");
    // The JSON state file is not a session.
    refused_text(&mut lab, &source.export_state(), "format");
    refused(&mut lab, &good, "version", |v| v["version"] = json!(3));
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
    // "seed" stands for the bonds only in a glass's version-2 session.
    refused(&mut lab, &good, "bonds", |v| {
        v["model"] = json!("ferromagnet");
        v["bonds"] = json!("seed");
    });
    refused(&mut lab, &good, "bonds", |v| {
        v["version"] = json!(1);
        v["bonds"] = json!("seed");
    });
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
    lab.advance(1000000, false).unwrap();
    lab.paint((10.0, 10.0), (200.0, 90.0), 8, Brush::Clamp)
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
    // Over a lab of the same setup (as the page's mirror after a run): the bonds are copied.
    let mut same = LatticeLab::new(lab.setup()).unwrap();
    let begin = Instant::now();
    same.restore_session(&text).unwrap();
    let restore_same = begin.elapsed().as_secs_f64();
    let begin = Instant::now();
    let json = lab.export_state();
    let export = begin.elapsed().as_secs_f64();
    println!(
        "2048² ±J glass: session() {:.1} ms ({} characters); restore_session {:.1} ms \
         (over the same setup {:.1} ms); export_state {:.1} ms ({} characters)",
        best * 1e3,
        text.len(),
        restore * 1e3,
        restore_same * 1e3,
        export * 1e3,
        json.len()
    );
    assert_eq!(copy.sampler().state(), lab.sampler().state());
    assert_eq!(same.sampler().state(), lab.sampler().state());
    // Spins, clamps and 2 bonds per site, one bit each, in base64: 4 × 2048² / 6 chars.
    assert!(text.len() < 2_900_000, "{}", text.len());
}

/// A lab whose glass bonds came from a state file: `setup`'s, with bond 0 set to `bond`
/// (+1 or −1 for the ±J glass).
fn imported(setup: LatticeSetup, bond: f64) -> LatticeLab {
    let mut lab = LatticeLab::new(setup).unwrap();
    let mut state: Value = serde_json::from_str(&lab.export_state()).unwrap();
    if setup.model == LatticeModel::PlusMinusGlass {
        let row = state["bonds"][0].as_str().unwrap().to_string();
        let sign = if bond > 0.0 { "+" } else { "-" };
        state["bonds"][0] = json!(format!("{sign}{}", &row[1..]));
    } else {
        state["bonds"][0][0] = json!(bond);
    }
    lab.import_state(&state.to_string()).unwrap();
    lab
}

fn glasses() -> [LatticeSetup; 2] {
    let base = LatticeSetup {
        size: 9,
        seed: 31,
        temperature: 0.9,
        boundary: Boundary::Open,
        ..LatticeSetup::default()
    };
    [
        LatticeSetup {
            model: LatticeModel::PlusMinusGlass,
            ..base
        },
        LatticeSetup {
            model: LatticeModel::GaussianGlass,
            ..base
        },
    ]
}

#[test]
fn a_glass_made_from_its_seed_stores_the_seed_and_restores_the_same_bonds() {
    for setup in glasses() {
        let mut lab = LatticeLab::new(setup).unwrap();
        lab.advance(500, false).unwrap();
        // A change of field or boundary keeps the seed's bonds.
        lab.set_field(0.3).unwrap();
        let text = lab.session();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["bonds"], json!("seed"), "{setup:?}");
        assert_eq!(value["version"], json!(2));
        // Restored into a lab of another seed (bonds drawn again) and into one of the same
        // setup (bonds copied): the same lattice, state and session either way.
        for start in [LatticeSetup::default(), setup] {
            let mut copy = LatticeLab::new(start).unwrap();
            copy.restore_session(&text).unwrap();
            assert_eq!(
                copy.sampler().lattice(),
                lab.sampler().lattice(),
                "{setup:?}"
            );
            assert_eq!(copy.sampler().state(), lab.sampler().state());
            assert_eq!(copy.session(), text);
            assert_eq!(copy.export_state(), lab.export_state());
        }
        // A state file whose bonds are the seed's is stored as the seed too.
        let mut copy = LatticeLab::new(LatticeSetup::default()).unwrap();
        copy.import_state(&lab.export_state()).unwrap();
        assert_eq!(copy.session(), text);
    }
}

#[test]
fn imported_bonds_are_stored_in_full_and_kept_through_every_change_that_keeps_them() {
    for setup in glasses() {
        // Bond 0 of the seed's bonds, changed.
        let drawn = LatticeLab::new(setup).unwrap();
        let first =
            serde_json::from_str::<Value>(&drawn.export_state()).unwrap()["bonds"][0].clone();
        let other = match setup.model {
            LatticeModel::PlusMinusGlass if first.as_str().unwrap().starts_with('+') => -1.0,
            LatticeModel::PlusMinusGlass => 1.0,
            _ => first[0].as_f64().unwrap() + 0.5,
        };
        let mut lab = imported(setup, other);
        assert_ne!(lab.sampler().lattice(), drawn.sampler().lattice());
        lab.set_boundary("periodic").unwrap();
        lab.advance(300, false).unwrap();
        let text = lab.session();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_ne!(value["bonds"], json!("seed"), "{setup:?}");
        // Restored over a lab of the same setup (whose seed's bonds it must not take).
        let mut copy = LatticeLab::new(setup).unwrap();
        copy.restore_session(&text).unwrap();
        assert_eq!(
            copy.sampler().lattice(),
            lab.sampler().lattice(),
            "{setup:?}"
        );
        assert_eq!(copy.session(), text);
        // Choosing the model again draws the seed's bonds.
        copy.set_model(setup.model.name()).unwrap();
        let value: Value = serde_json::from_str(&copy.session()).unwrap();
        assert_eq!(value["bonds"], json!("seed"));
    }
}

#[test]
fn a_version_1_session_still_restores_and_is_written_again_as_version_2() {
    for setup in glasses() {
        let mut lab = LatticeLab::new(setup).unwrap();
        lab.advance(200, false).unwrap();
        let v2 = lab.session();
        // Version 1 of the same session: the bonds in full.
        let mut v1: Value = serde_json::from_str(&v2).unwrap();
        let state: Value = serde_json::from_str(&lab.export_state()).unwrap();
        let rows = state["bonds"].as_array().unwrap();
        v1["version"] = json!(1);
        v1["bonds"] = json!(if setup.model == LatticeModel::PlusMinusGlass {
            let signs: Vec<char> = rows
                .iter()
                .flat_map(|r| r.as_str().unwrap().chars().collect::<Vec<_>>())
                .collect();
            pack_bits(&signs, |&c| c == '+')
        } else {
            let numbers: Vec<f64> = rows
                .iter()
                .flat_map(|r| {
                    r.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect::<Vec<_>>()
                })
                .collect();
            pack_numbers(&numbers)
        });
        let mut copy = LatticeLab::new(LatticeSetup::default()).unwrap();
        copy.restore_session(&v1.to_string()).unwrap();
        assert_eq!(
            copy.sampler().lattice(),
            lab.sampler().lattice(),
            "{setup:?}"
        );
        assert_eq!(copy.sampler().state(), lab.sampler().state());
        assert_eq!(
            copy.session(),
            v2,
            "its bonds are the seed's: written as the seed"
        );
    }
}

/// Every lattice the menus offer, at the largest side, fits the page's storage (2.5 million
/// characters with the rest of the record); the largest session of all (imported Gaussian
/// bonds, every site clamped, the lanes' random state) stays within the bound the reader
/// accepts.
#[test]
fn every_menu_lattice_fits_and_the_largest_session_is_within_the_bound() {
    for model in LatticeModel::ALL {
        let mut lab = LatticeLab::new(LatticeSetup {
            model,
            size: 2048,
            ..LatticeSetup::default()
        })
        .unwrap();
        lab.paint((0.0, 0.0), (2047.0, 2047.0), 4, Brush::Clamp)
            .unwrap();
        let text = lab.session();
        println!("2048² {}: {} characters", model.name(), text.len());
        // Spins and clamps at one bit a site in base64, and the small fields.
        assert!(
            text.len() < 2 * 699_052 + 2_000,
            "{}: {}",
            model.name(),
            text.len()
        );
    }
    for side in [2, 3, 17, 64] {
        let setup = LatticeSetup {
            model: LatticeModel::GaussianGlass,
            size: side,
            order: Order::Checkerboard,
            ..LatticeSetup::default()
        };
        let mut lab = imported(setup, 0.123_456_789_012_345_6);
        lab.paint(
            (0.0, 0.0),
            (side as f64, side as f64),
            side as u64,
            Brush::Clamp,
        )
        .unwrap();
        lab.advance(10000, false).unwrap();
        let text = lab.session();
        assert!(text.contains("lane_random_state"));
        assert!(
            text.len() <= session_bound(side),
            "{side}: {} > {}",
            text.len(),
            session_bound(side)
        );
    }
    assert!(MAX_SESSION_BYTES >= session_bound(2048));
}
