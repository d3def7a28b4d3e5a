//! The lattice engine's protocol: every command reaches the engine's state and does what it
//! says, a refused command changes nothing, and the wire form (JSON here, a JavaScript object
//! in the page) decodes to the same command, refusing bad values with the engine's messages.
//!
//! Completeness: `index` matches every `LatticeCommand` variant without a wildcard, so a new
//! variant does not compile until it has an index here, and
//! `every_command_reaches_the_engine_state` fails until the new index has a case. The laws
//! themselves are shared by every engine's protocol (tests/protocol_laws/mod.rs).

use boltzlab::app::{
    Brush, LatticeCommand, LatticeLab, LatticeModel, LatticeReply, LatticeSetup, Point, Reset,
};
use boltzlab::{Boundary, Dynamics, Order};
use protocol_laws::{Case, Engine, Refusal};

mod protocol_laws;

/// Number of `LatticeCommand` variants.
const VARIANTS: usize = 19;

/// Each variant's place in `0..VARIANTS`: exhaustive, so adding a variant breaks the build here.
fn index(command: &LatticeCommand) -> usize {
    use LatticeCommand as C;
    match command {
        C::SetTemperature { .. } => 0,
        C::SetField { .. } => 1,
        C::SetModel { .. } => 2,
        C::SetSize { .. } => 3,
        C::SetSeed { .. } => 4,
        C::SetDynamics { .. } => 5,
        C::SetOrder { .. } => 6,
        C::SetBoundary { .. } => 7,
        C::Reset { .. } => 8,
        C::Paint { .. } => 9,
        C::SetClampsOn { .. } => 10,
        C::ReleaseAll => 11,
        C::ApplyFragment { .. } => 12,
        C::ImportState { .. } => 13,
        C::RestoreSession { .. } => 14,
        C::Advance { .. } => 15,
        C::StartScan { .. } => 16,
        C::AdvanceScan { .. } => 17,
        C::CancelScan => 18,
    }
}

fn lab() -> LatticeLab {
    LatticeLab::new(LatticeSetup {
        size: 8,
        temperature: 2.0,
        seed: 7,
        ..LatticeSetup::default()
    })
    .unwrap()
}

/// Another run (other size, seed, temperature, advanced), for the commands that replace one.
fn other() -> LatticeLab {
    let mut other = LatticeLab::new(LatticeSetup {
        size: 6,
        temperature: 3.0,
        seed: 99,
        ..LatticeSetup::default()
    })
    .unwrap();
    other.advance(500, false).unwrap();
    other
}

/// Everything a command may change: the state file (parameters, couplings, spins, clamps,
/// phase, clock, generator), the trace, the lattice version, the last report and the scan.
fn state(lab: &LatticeLab) -> String {
    let scan = lab.scan().map(|s| {
        format!(
            "{:?} {} {} {} {}",
            s.plan(),
            s.progress(),
            s.is_cancelled(),
            s.is_done(),
            s.results().len()
        )
    });
    format!(
        "{}\n{}\n{}\n{:?}\n{:?}",
        lab.export_state(),
        lab.trace_csv(),
        lab.lattice_version(),
        lab.report(),
        scan
    )
}

fn spins(lab: &LatticeLab) -> Vec<i8> {
    lab.sampler().spins().to_vec()
}

fn scan_plan() -> LatticeCommand {
    LatticeCommand::StartScan {
        t_high: 3.0,
        t_low: 1.5,
        points: 4,
        burn_in: 2,
        measure: 5,
    }
}

fn clamp_stroke() -> LatticeCommand {
    LatticeCommand::Paint {
        from: Point { x: 0.5, y: 0.5 },
        to: Point { x: 4.5, y: 0.5 },
        radius: 1,
        brush: Brush::Clamp,
    }
}

impl Engine for LatticeLab {
    type Command = LatticeCommand;
    type Reply = LatticeReply;

    fn apply(&mut self, command: LatticeCommand) -> Result<LatticeReply, boltzlab::ParamError> {
        LatticeLab::apply(self, command)
    }

    fn state(&self) -> String {
        state(self)
    }
}

fn case(
    prepare: Vec<LatticeCommand>,
    command: LatticeCommand,
    law: impl Fn(&LatticeLab, &LatticeLab, &LatticeReply) -> bool + 'static,
) -> Case<LatticeLab> {
    protocol_laws::case(prepare, command, law)
}

fn cases() -> Vec<Case<LatticeLab>> {
    use LatticeCommand as C;
    let changed = |r: &LatticeReply| *r == LatticeReply::Changed;
    let other = other();
    let (fragment, json, text) = (other.fragment(), other.export_state(), other.session());
    let (json2, text2) = (json.clone(), text.clone());
    vec![
        case(
            vec![],
            C::SetTemperature { temperature: 1.5 },
            move |b, a, r| {
                b.sampler().temperature() == 2.0 && a.sampler().temperature() == 1.5 && changed(r)
            },
        ),
        case(vec![], C::SetField { field: 0.25 }, move |b, a, r| {
            a.sampler().lattice().field() == 0.25 && spins(a) == spins(b) && changed(r)
        }),
        case(
            vec![],
            C::SetModel {
                model: LatticeModel::PlusMinusGlass,
            },
            move |b, a, r| {
                a.setup().model == LatticeModel::PlusMinusGlass
                    && a.bond_window().frustrated_count > 0
                    && spins(a) == spins(b)
                    && changed(r)
            },
        ),
        case(vec![], C::SetSize { size: 12 }, |_, a, r| {
            a.sampler().lattice().width() == 12 && *r == LatticeReply::Restarted { side: 12 }
        }),
        case(vec![], C::SetSeed { seed: 1234 }, |b, a, r| {
            a.setup().seed == 1234
                && spins(a) != spins(b)
                && *r == LatticeReply::Restarted { side: 8 }
        }),
        case(
            vec![],
            C::SetDynamics {
                dynamics: Dynamics::parse("metropolis").unwrap(),
            },
            move |_, a, r| a.sampler().dynamics().name() == "metropolis" && changed(r),
        ),
        case(
            vec![],
            C::SetOrder {
                order: Order::Checkerboard,
            },
            move |_, a, r| a.sampler().order() == Order::Checkerboard && changed(r),
        ),
        case(
            vec![],
            C::SetBoundary {
                boundary: Boundary::Open,
            },
            move |b, a, r| {
                a.sampler().lattice().boundary() == Boundary::Open
                    && a.lattice_version() == b.lattice_version() + 1
                    && changed(r)
            },
        ),
        case(vec![], C::Reset { to: Reset::AllDown }, move |b, a, r| {
            spins(b).contains(&1) && spins(a).iter().all(|&s| s == -1) && changed(r)
        }),
        // From all up, a radius-0 stroke along row 1 from x = 1 to x = 5 turns exactly those
        // five sites down.
        case(
            vec![C::Reset { to: Reset::AllUp }],
            C::Paint {
                from: Point { x: 1.5, y: 1.5 },
                to: Point { x: 5.5, y: 1.5 },
                radius: 0,
                brush: Brush::Down,
            },
            move |_, a, r| {
                let down: Vec<usize> = (0..64).filter(|&i| spins(a)[i] == -1).collect();
                down == vec![9, 10, 11, 12, 13] && changed(r)
            },
        ),
        case(vec![], C::SetClampsOn { on: false }, move |b, a, r| {
            b.sampler().clamps_on() && !a.sampler().clamps_on() && changed(r)
        }),
        case(vec![clamp_stroke()], C::ReleaseAll, move |b, a, r| {
            b.clamped_count() > 0 && a.clamped_count() == 0 && changed(r)
        }),
        case(
            vec![],
            C::ApplyFragment {
                fragment: fragment.clone(),
            },
            move |_, a, r| a.fragment() == fragment && *r == LatticeReply::Restarted { side: 6 },
        ),
        case(vec![], C::ImportState { json }, move |_, a, r| {
            a.export_state() == json2 && *r == LatticeReply::Restarted { side: 6 }
        }),
        case(vec![], C::RestoreSession { text }, move |_, a, r| {
            a.session() == text2 && *r == LatticeReply::Restarted { side: 6 }
        }),
        case(
            vec![],
            C::Advance {
                ticks: 100,
                explain: true,
            },
            |b, a, r| {
                a.sampler().ticks() == b.sampler().ticks() + 100
                    && a.report().is_some()
                    && a.trace().len() == b.trace().len() + 1
                    && *r == LatticeReply::Advanced { ticks: 100 }
            },
        ),
        case(vec![], scan_plan(), move |b, a, r| {
            b.scan().is_none()
                && a.scan()
                    .is_some_and(|s| s.plan().points == 4 && s.progress() == 0.0)
                && a.export_state() == b.export_state()
                && changed(r)
        }),
        case(
            vec![scan_plan()],
            C::AdvanceScan { sweeps: 5 },
            |b, a, r| {
                a.scan().unwrap().progress() > b.scan().unwrap().progress()
                    && a.export_state() == b.export_state()
                    && *r == LatticeReply::ScanAdvanced { sweeps: 5 }
            },
        ),
        case(vec![scan_plan()], C::CancelScan, move |b, a, r| {
            !b.scan().unwrap().is_cancelled() && a.scan().unwrap().is_cancelled() && changed(r)
        }),
    ]
}

#[test]
fn every_command_reaches_the_engine_state() {
    protocol_laws::every_command_reaches_the_engine_state(lab, cases(), index, VARIANTS);
}

/// Commands with well-typed values the engine refuses (range, combination or content).
fn refused() -> Vec<(Vec<LatticeCommand>, LatticeCommand)> {
    use LatticeCommand as C;
    let wolff = Dynamics::parse("wolff").unwrap();
    vec![
        (vec![], C::SetTemperature { temperature: -1.0 }),
        (
            vec![],
            C::SetTemperature {
                temperature: f64::NAN,
            },
        ),
        (vec![], C::SetField { field: 10.5 }),
        (vec![], C::SetSize { size: 1 }),
        (vec![], C::SetSize { size: 4096 }),
        (
            vec![],
            C::SetSeed {
                seed: (1 << 53) + 1,
            },
        ),
        (vec![clamp_stroke()], C::SetDynamics { dynamics: wolff }),
        (
            vec![],
            C::Paint {
                from: Point { x: 0.0, y: 0.0 },
                to: Point { x: 1.0, y: 1.0 },
                radius: 65,
                brush: Brush::Up,
            },
        ),
        (
            vec![],
            C::Paint {
                from: Point {
                    x: f64::INFINITY,
                    y: 0.0,
                },
                to: Point { x: 1.0, y: 1.0 },
                radius: 1,
                brush: Brush::Up,
            },
        ),
        (
            vec![
                C::SetClampsOn { on: false },
                clamp_stroke(),
                C::SetDynamics { dynamics: wolff },
            ],
            C::SetClampsOn { on: true },
        ),
        (vec![C::SetDynamics { dynamics: wolff }], clamp_stroke()),
        (
            vec![],
            C::ApplyFragment {
                fragment: "size=3.5".into(),
            },
        ),
        (vec![], C::ImportState { json: "{}".into() }),
        (
            vec![],
            C::RestoreSession {
                text: "not a session".into(),
            },
        ),
        (
            vec![],
            C::Advance {
                ticks: (1 << 26) + 1,
                explain: false,
            },
        ),
        (
            vec![],
            C::StartScan {
                t_high: 1.0,
                t_low: 2.0,
                points: 4,
                burn_in: 2,
                measure: 5,
            },
        ),
        (
            vec![scan_plan()],
            C::AdvanceScan {
                sweeps: (1 << 20) + 1,
            },
        ),
    ]
}

#[test]
fn a_refused_command_leaves_the_state_unchanged() {
    let refused = refused()
        .into_iter()
        .map(|(prepare, command)| Refusal {
            prepare,
            command,
            field: None,
        })
        .collect();
    protocol_laws::a_refused_command_leaves_the_state_unchanged(lab, refused);
}

#[test]
fn every_command_goes_through_json_and_back_unchanged() {
    protocol_laws::every_command_goes_through_json_and_back_unchanged(cases());
}

#[test]
fn the_wire_form_is_plain_names_and_numbers() {
    let command: LatticeCommand = serde_json::from_str(
        r#"{"command": "paint", "from": {"x": 1.5, "y": 2}, "to": {"x": 3, "y": 4}, "radius": 2, "brush": "clamp"}"#,
    )
    .unwrap();
    assert_eq!(
        command,
        LatticeCommand::Paint {
            from: Point { x: 1.5, y: 2.0 },
            to: Point { x: 3.0, y: 4.0 },
            radius: 2,
            brush: Brush::Clamp
        }
    );
    let reply = serde_json::to_string(&LatticeReply::Restarted { side: 64 }).unwrap();
    assert_eq!(reply, r#"{"reply":"restarted","side":64}"#);
}

/// The message a decoding error gives, for a command object written as JSON.
fn decode_error(json: &str) -> String {
    serde_json::from_str::<LatticeCommand>(json)
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_wire_values_are_refused_with_the_engines_message() {
    use boltzlab::app::setup::{check_seed, check_size};
    for (json, message) in [
        (
            r#"{"command":"set-size","size":3.5}"#,
            check_size(3.5).unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-size","size":1}"#,
            check_size(1.0).unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-seed","seed":-1}"#,
            check_seed(-1.0).unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-model","model":"Ferromagnet"}"#,
            LatticeModel::parse("Ferromagnet").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-dynamics","dynamics":"glauber"}"#,
            Dynamics::parse("glauber").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-order","order":"spiral"}"#,
            Order::parse("spiral").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"set-boundary","boundary":"twisted"}"#,
            Boundary::parse("twisted").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"reset","to":"sideways"}"#,
            Reset::parse("sideways").unwrap_err().to_string(),
        ),
        (
            r#"{"command":"paint","from":{"x":0,"y":0},"to":{"x":1,"y":1},"radius":0.5,"brush":"up"}"#,
            "brush radius".into(),
        ),
        (
            r#"{"command":"advance","ticks":1e300,"explain":false}"#,
            "ticks".into(),
        ),
        (
            r#"{"command":"start-scan","t_high":3,"t_low":1,"points":1,"burn_in":0,"measure":2}"#,
            "points".into(),
        ),
        (
            r#"{"command":"start-scan","t_high":3,"t_low":1,"points":4.5,"burn_in":0,"measure":2}"#,
            "points must be a whole number".into(),
        ),
        (
            r#"{"command":"start-scan","t_high":3,"t_low":1,"points":4,"burn_in":-1,"measure":2}"#,
            "burn-in sweeps must be".into(),
        ),
        (
            r#"{"command":"advance-scan","sweeps":2.5}"#,
            "sweeps must be a whole number".into(),
        ),
    ] {
        let error = decode_error(json);
        assert!(
            error.contains(&message),
            "{json}: {error:?} does not say {message:?}"
        );
    }
    assert!(decode_error(r#"{"command":"set_size","size":8}"#).contains("unknown variant"));
    assert!(decode_error(r#"{"command":"set-size","side":8}"#).contains("side"));
}

#[test]
fn scan_commands_alone_leave_the_run_as_it_is() {
    for Case { command, .. } in cases() {
        let scan = matches!(
            command,
            LatticeCommand::StartScan { .. }
                | LatticeCommand::AdvanceScan { .. }
                | LatticeCommand::CancelScan
        );
        assert_eq!(command.changes_run(), !scan, "{command:?}");
    }
}

/// The TypeScript types the page is checked against (derived from the enums) name every
/// command and reply the engine knows, each with its wire fields.
#[test]
fn the_typescript_types_name_every_command_and_reply() {
    protocol_laws::the_typescript_types_name_every_command_and_reply(
        &protocol_laws::declarations::<LatticeCommand, LatticeReply>(),
        cases(),
        &[
            LatticeReply::Changed,
            LatticeReply::Restarted { side: 2 },
            LatticeReply::Advanced { ticks: 1 },
            LatticeReply::ScanAdvanced { sweeps: 1 },
        ],
    );
}

/// Each choice a command names has a TypeScript union of exactly its names.
#[test]
fn the_choice_types_name_every_choice() {
    protocol_laws::a_choice_type_names_every_choice::<LatticeModel>();
    protocol_laws::a_choice_type_names_every_choice::<Dynamics>();
    protocol_laws::a_choice_type_names_every_choice::<Order>();
    protocol_laws::a_choice_type_names_every_choice::<Boundary>();
    protocol_laws::a_choice_type_names_every_choice::<Reset>();
    protocol_laws::a_choice_type_names_every_choice::<Brush>();
}
