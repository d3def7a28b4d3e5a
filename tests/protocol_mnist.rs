#![allow(clippy::disallowed_methods)]
//! The MNIST run's protocol (src/app/rbm/mnist.rs): every `MnistCommand` reaches the engine's
//! state and does what it says, a refused command changes nothing (the saved bytes and the
//! views are the same before and after), the wire form round-trips, and the TypeScript types
//! name every tag; a saved run restores and continues with the same bits as the run never
//! stopped; a truncated or damaged data file is refused; a likelihood point of a small
//! machine equals the exact mean ln p(v).
//!
//! With labels: the pad's classification is p(y | v) of the labelled machine built from the
//! run's parameters ([`LabelledRbm::classify`], tested against enumeration in
//! tests/labels.rs), a labelled run restores bit for bit, a format-1 save still restores,
//! and the test error point equals [`classify_set`]'s on the 10 000 test images.
//!
//! Completeness: `index` matches every variant without a wildcard.
//! Deterministic: every run is seeded, so no test here can fail by chance.

use boltzlab::app::rbm::completion::Mask;
use boltzlab::app::rbm::mnist::{
    FilterOrder, LABELS, LIKELIHOOD_IMAGES, MnistCommand, MnistLab, MnistLikelihood, MnistReply,
};
use boltzlab::app::rbm::{StatisticsKind, Training};
use boltzlab::estimate::rbm_exact;
use boltzlab::learn::mnist;
use boltzlab::learn::rbm::exact::log_z_with_label_group;
use boltzlab::learn::rbm::{LabelledRbm, Rbm, classify_set};
use boltzlab::log_sum_exp::LogSumExp;
use protocol_laws::{Case, Engine, refusal};
use std::sync::OnceLock;

mod protocol_laws;

const VARIANTS: usize = 13;

fn index(command: &MnistCommand) -> usize {
    use MnistCommand as C;
    match command {
        C::NewRun { .. } => 0,
        C::SetTraining { .. } => 1,
        C::Advance { .. } => 2,
        C::ShowFilters { .. } => 3,
        C::Refresh => 4,
        C::StartGallery { .. } => 5,
        C::AdvanceGallery { .. } => 6,
        C::RestoreRun { .. } => 7,
        C::SetPad { .. } => 8,
        C::PadFromTest { .. } => 9,
        C::CompletePad { .. } => 10,
        C::ClampPad { .. } => 11,
        C::AdvancePad { .. } => 12,
    }
}

/// The shipped file, read once.
fn file() -> &'static [u8] {
    static FILE: OnceLock<Vec<u8>> = OnceLock::new();
    FILE.get_or_init(|| {
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/data/mnist/mnist.bin")).unwrap()
    })
}

/// The run every case starts from: 784-12, seed 3, two updates learned.
fn lab() -> MnistLab {
    static LAB: OnceLock<MnistLab> = OnceLock::new();
    LAB.get_or_init(|| {
        let mut lab = MnistLab::from_file(file(), 12, 3, None, false).unwrap();
        lab.apply(MnistCommand::Advance { updates: 2 }).unwrap();
        lab
    })
    .clone()
}

fn persistent() -> Training {
    Training {
        statistics: StatisticsKind::Persistent,
        particles: Some(20),
        ..MnistLab::default_training(false)
    }
}

/// Everything a command may change: the saved run (options, parameters, velocities, chains,
/// order, batch position, streams) and the views (filters, chains, reconstructions, gallery).
fn state(lab: &MnistLab) -> String {
    let bits = |x: &[f32]| x.iter().map(|v| v.to_bits() as u64).fold(0u64, mix);
    let bytes = lab.save();
    let (filters, units) = lab.filters();
    let (originals, recon) = lab.reconstructions();
    let (gallery, done, target) = lab.gallery();
    let (completion, steps, to_do, clamped) = lab.completion();
    format!(
        "{} {} {} {:?} {} {} {} {} {done} {target} {:?} {:?} {:?} {} {steps} {to_do} {clamped}",
        bytes.len(),
        bytes.iter().map(|&b| u64::from(b)).fold(0, mix),
        bits(filters),
        units,
        bits(&lab.chains()),
        bits(originals),
        bits(recon),
        bits(gallery),
        lab.filter_view(),
        lab.pad(),
        lab.classification(),
        bits(completion),
    )
}

/// The labelled machine of a run, built from its parameters (W;U, a;c, b in f32), not
/// through the run's own conversion.
fn machine_of(lab: &MnistLab) -> LabelledRbm {
    let p = lab.parameters();
    let (nv, nh) = (784 + LABELS, lab.hidden());
    let f = |x: &[f32]| x.iter().map(|&w| f64::from(w)).collect::<Vec<f64>>();
    let rbm = Rbm::new(
        nv,
        nh,
        f(&p[..nv * nh]),
        f(&p[nv * nh..nv * nh + nv]),
        f(&p[nv * nh + nv..]),
    )
    .unwrap();
    LabelledRbm::new(rbm, LABELS).unwrap()
}

/// A new run that learns the labels: 784-12, seed 3.
fn labelled() -> MnistCommand {
    MnistCommand::NewRun {
        hidden: 12,
        seed: 3,
        training: None,
        labels: true,
    }
}

fn mix(h: u64, x: u64) -> u64 {
    (h ^ x).wrapping_mul(0x0100_0000_01b3).rotate_left(5)
}

impl Engine for MnistLab {
    type Command = MnistCommand;
    type Reply = MnistReply;

    fn apply(&mut self, command: MnistCommand) -> Result<MnistReply, boltzlab::ParamError> {
        MnistLab::apply(self, command)
    }

    fn state(&self) -> String {
        state(self)
    }
}

fn case(
    prepare: Vec<MnistCommand>,
    command: MnistCommand,
    law: impl Fn(&MnistLab, &MnistLab, &MnistReply) -> bool + 'static,
) -> Case<MnistLab> {
    protocol_laws::case(prepare, command, law)
}

fn cases() -> Vec<Case<MnistLab>> {
    use MnistCommand as C;
    let changed = |r: &MnistReply| *r == MnistReply::Changed;
    let saved = {
        let mut other = MnistLab::from_file(file(), 20, 9, Some(persistent()), false).unwrap();
        other.apply(C::Advance { updates: 3 }).unwrap();
        other.save()
    };
    vec![
        case(
            vec![],
            C::NewRun {
                hidden: 20,
                seed: 4,
                training: Some(persistent()),
                labels: false,
            },
            |_, a, r| {
                a.hidden() == 20
                    && a.seed() == 4
                    && a.updates() == 0
                    && a.training() == persistent()
                    && matches!(
                        r,
                        MnistReply::Restarted {
                            visible: 784,
                            hidden: 20,
                            width: 28,
                            updates: 0,
                            updates_per_epoch: 600
                        }
                    )
            },
        ),
        case(
            vec![],
            C::SetTraining {
                training: persistent(),
            },
            move |b, a, r| changed(r) && a.training() == persistent() && a.updates() == b.updates(),
        ),
        case(vec![], C::Advance { updates: 3 }, |b, a, r| {
            *r == MnistReply::Learned { updates: 3 } && a.updates() == b.updates() + 3
        }),
        case(
            vec![],
            C::ShowFilters {
                page: 1,
                order: FilterOrder::Norm,
                all: false,
            },
            move |_, a, r| {
                // By norm: the shown units' ‖W_·j‖ decrease.
                let (filters, units) = a.filters();
                let w = a.parameters();
                let norm = |j: u32| -> f64 {
                    (0..784)
                        .map(|i| f64::from(w[i * 12 + j as usize]))
                        .map(|x| x * x)
                        .sum()
                };
                changed(r)
                    && units.len() == 12
                    && filters.len() == 12 * 784
                    && units.windows(2).all(|p| norm(p[0]) >= norm(p[1]))
                    && filters
                        .chunks(784)
                        .all(|f| f.iter().map(|x| x.abs()).fold(0.0f32, f32::max) == 1.0)
            },
        ),
        case(vec![], C::Refresh, move |b, a, r| {
            // The reconstructions are drawn again from the view stream.
            changed(r) && a.reconstructions().1 != b.reconstructions().1
        }),
        case(
            vec![],
            C::StartGallery {
                count: 3,
                steps: 2,
                label: None,
            },
            move |_, a, r| changed(r) && a.gallery().0.len() == 3 * 784 && a.gallery().2 == 2,
        ),
        // With labels: the gallery's label clamped to 7 (its chains' images are drawn from
        // p(v | h), h ~ p(h | v, y = 7)).
        case(
            vec![
                labelled(),
                C::StartGallery {
                    count: 3,
                    steps: 2,
                    label: Some(7),
                },
            ],
            C::AdvanceGallery { steps: 1 },
            |b, a, r| {
                *r == MnistReply::GalleryAdvanced { done: false }
                    && a.gallery().1 == 1
                    && b.gallery().1 == 0
                    && a.gallery_classes().len() == 3
            },
        ),
        case(
            vec![C::StartGallery {
                count: 3,
                steps: 2,
                label: None,
            }],
            C::AdvanceGallery { steps: 5 },
            |_, a, r| {
                *r == MnistReply::GalleryAdvanced { done: true }
                    && a.gallery().1 == 2
                    && a.gallery().0.iter().all(|p| (0.0..=1.0).contains(p))
            },
        ),
        case(
            vec![],
            C::RestoreRun {
                bytes: saved.clone(),
            },
            move |_, a, _| a.hidden() == 20 && a.updates() == 3 && a.save() == saved,
        ),
        case(
            vec![labelled(), C::Advance { updates: 2 }],
            C::SetPad {
                image: test_image(3),
            },
            move |_, a, r| {
                let p = machine_of(a).classify(&test_image(3)).unwrap();
                changed(r)
                    && a.pad() == test_image(3).as_slice()
                    && a.classification() == p.as_slice()
                    && (p.iter().sum::<f64>() - 1.0).abs() < 1e-12
            },
        ),
        // Without labels the pad is kept but not classified.
        case(vec![], C::PadFromTest { image: 5 }, move |_, a, r| {
            changed(r) && a.pad() == test_image(5).as_slice() && a.classification().is_empty()
        }),
        case(
            vec![C::PadFromTest { image: 0 }],
            C::CompletePad {
                mask: Mask::Painted,
                steps: 3,
            },
            move |_, a, r| {
                let (mean, steps, target, clamped) = a.completion();
                changed(r) && mean.len() == 784 && steps == 0 && target == 3 && clamped
            },
        ),
        case(
            vec![
                C::PadFromTest { image: 0 },
                C::CompletePad {
                    mask: Mask::Top,
                    steps: 3,
                },
                C::AdvancePad { steps: 3 },
            ],
            C::ClampPad { clamped: false },
            move |_, a, r| changed(r) && a.completion().1 == 0 && !a.completion().3,
        ),
        // With labels, the top half clamped: those pixels hold the pad, the others are
        // p(v | h) of the last step.
        case(
            vec![
                labelled(),
                C::PadFromTest { image: 1 },
                C::CompletePad {
                    mask: Mask::Top,
                    steps: 3,
                },
            ],
            C::AdvancePad { steps: 5 },
            |_, a, r| {
                let (mean, steps, _, _) = a.completion();
                let pad = test_image(1);
                *r == MnistReply::CompletionAdvanced { done: true }
                    && steps == 3
                    && (0..14 * 28).all(|i| mean[i] == f32::from(pad[i]))
                    && mean[14 * 28..].iter().all(|p| (0.0..=1.0).contains(p))
            },
        ),
    ]
}

/// Test image `k` of the shipped file.
fn test_image(k: usize) -> Vec<u8> {
    mnist::parse(file()).unwrap().test.image(k)
}

#[test]
fn every_command_reaches_the_engine_state() {
    protocol_laws::every_command_reaches_the_engine_state(lab, cases(), index, VARIANTS);
}

#[test]
fn a_refused_command_leaves_the_state_unchanged() {
    use MnistCommand as C;
    let good = lab().save();
    let mut damaged = good.clone();
    damaged[100] ^= 1;
    let truncated = good[..good.len() - 9].to_vec();
    // A save of a newer format (3), its checksum made good.
    let mut newer = good[..good.len() - 4].to_vec();
    newer[7] = 3;
    let crc = mnist::crc32(&newer);
    newer.extend_from_slice(&crc.to_le_bytes());
    let training = |batch, statistics| Training {
        batch,
        statistics,
        particles: Some(10),
        replicas: Some(4),
        ..MnistLab::default_training(false)
    };
    let refused = vec![
        refusal(
            vec![],
            C::NewRun {
                hidden: 0,
                seed: 1,
                training: None,
                labels: true,
            },
            "hidden units",
        ),
        refusal(
            vec![],
            C::NewRun {
                hidden: 501,
                seed: 1,
                training: None,
                labels: false,
            },
            "hidden units",
        ),
        // A batch larger than the 60 000 training images.
        refusal(
            vec![],
            C::NewRun {
                hidden: 10,
                seed: 1,
                training: Some(training(60_001, StatisticsKind::ContrastiveDivergence)),
                labels: false,
            },
            "batch",
        ),
        refusal(
            vec![],
            C::SetTraining {
                training: training(60_001, StatisticsKind::ContrastiveDivergence),
            },
            "batch",
        ),
        refusal(
            vec![],
            C::SetTraining {
                training: training(100, StatisticsKind::Tempering),
            },
            "statistics",
        ),
        refusal(vec![], C::Advance { updates: 0 }, "updates"),
        refusal(vec![], C::Advance { updates: 601 }, "updates"),
        // 12 hidden units: one page (1); pages are numbered from 1.
        refusal(
            vec![],
            C::ShowFilters {
                page: 0,
                order: FilterOrder::Unit,
                all: false,
            },
            "filter page",
        ),
        refusal(
            vec![],
            C::ShowFilters {
                page: 2,
                order: FilterOrder::Unit,
                all: false,
            },
            "filter page",
        ),
        refusal(
            vec![],
            C::StartGallery {
                count: 31,
                steps: 1,
                label: None,
            },
            "gallery images",
        ),
        refusal(
            vec![],
            C::StartGallery {
                count: 1,
                steps: 0,
                label: None,
            },
            "gallery steps",
        ),
        // A label on a run without labels, and one beyond 9.
        refusal(
            vec![],
            C::StartGallery {
                count: 1,
                steps: 1,
                label: Some(3),
            },
            "label",
        ),
        refusal(
            vec![labelled()],
            C::StartGallery {
                count: 1,
                steps: 1,
                label: Some(10),
            },
            "label",
        ),
        // A pad of the wrong size or with a value that is not 0 or 1.
        refusal(
            vec![labelled()],
            C::SetPad {
                image: vec![0; 783],
            },
            "pad image",
        ),
        refusal(
            vec![],
            C::SetPad {
                image: [vec![2], vec![0; 783]].concat(),
            },
            "pad image",
        ),
        refusal(vec![], C::PadFromTest { image: 10_000 }, "test image"),
        // Nothing drawn: nothing to clamp.
        refusal(
            vec![],
            C::CompletePad {
                mask: Mask::Painted,
                steps: 1,
            },
            "pad image",
        ),
        refusal(vec![], C::ClampPad { clamped: false }, "completion"),
        refusal(vec![], C::AdvancePad { steps: 1 }, "completion"),
        refusal(vec![], C::RestoreRun { bytes: newer }, "saved run"),
        refusal(vec![], C::RestoreRun { bytes: damaged }, "saved run"),
        refusal(vec![], C::RestoreRun { bytes: truncated }, "saved run"),
        refusal(
            vec![],
            C::RestoreRun {
                bytes: vec![1, 2, 3],
            },
            "saved run",
        ),
    ];
    protocol_laws::a_refused_command_leaves_the_state_unchanged(lab, refused);
}

#[test]
fn every_command_goes_through_json_and_back_unchanged() {
    protocol_laws::every_command_goes_through_json_and_back_unchanged(cases());
}

#[test]
fn bad_wire_values_are_refused_with_the_engines_message() {
    for (json, field) in [
        (r#"{"command":"advance","updates":0.5}"#, "updates"),
        (
            r#"{"command":"new-run","hidden":501,"seed":1}"#,
            "hidden units",
        ),
        (
            r#"{"command":"show-filters","page":1,"order":"size"}"#,
            "filter order",
        ),
        (
            r#"{"command":"start-gallery","count":31,"steps":1}"#,
            "gallery images",
        ),
        (r#"{"command":"pad-from-test","image":10000}"#, "test image"),
        (
            r#"{"command":"complete-pad","mask":"middle","steps":1}"#,
            "mask",
        ),
        (r#"{"command":"set-pad","image":[0,1,256]}"#, "256"),
        // The gallery's digit and the completion's steps by their own names, never the
        // wire's ("invalid value: integer `-1`, expected u64") or another control's.
        (
            r#"{"command":"start-gallery","count":3,"steps":1,"label":-1}"#,
            "label must be between 0 and 9, got -1",
        ),
        (
            r#"{"command":"start-gallery","count":3,"steps":1,"label":0.5}"#,
            "label must be a whole number between 0 and 9, got 0.5",
        ),
        (
            r#"{"command":"complete-pad","mask":"top","steps":0}"#,
            "settling steps must be",
        ),
        (
            r#"{"command":"advance-pad","steps":20000}"#,
            "settling steps must be",
        ),
    ] {
        let error = serde_json::from_str::<MnistCommand>(json)
            .unwrap_err()
            .to_string();
        assert!(error.contains(field), "{json}: {error}");
    }
}

#[test]
fn the_typescript_types_name_every_command_and_reply() {
    protocol_laws::the_typescript_types_name_every_command_and_reply(
        &protocol_laws::declarations::<MnistCommand, MnistReply>(),
        cases(),
        &[
            MnistReply::Changed,
            MnistReply::Restarted {
                visible: 1,
                hidden: 1,
                width: 1,
                updates: 0,
                updates_per_epoch: 1,
            },
            MnistReply::Learned { updates: 1 },
            MnistReply::GalleryAdvanced { done: true },
            MnistReply::CompletionAdvanced { done: true },
        ],
    );
}

/// A run saved at update 5 and restored learns the same bits as the run never stopped, with
/// and without labels.
#[test]
fn a_restored_run_continues_bit_for_bit() {
    for (training, labels) in [
        (MnistLab::default_training(false), false),
        (persistent(), false),
        (MnistLab::default_training(true), true),
        (persistent(), true),
    ] {
        let mut never = MnistLab::from_file(file(), 16, 7, Some(training), labels).unwrap();
        never.apply(MnistCommand::Advance { updates: 5 }).unwrap();
        never.apply(MnistCommand::PadFromTest { image: 2 }).unwrap();
        let saved = never.save();
        let mut restored = lab();
        restored
            .apply(MnistCommand::RestoreRun { bytes: saved })
            .unwrap();
        assert_eq!(restored.updates(), 5);
        assert_eq!(restored.labelled(), labels);
        // The reconstructions are images (784 pixels each), with or without labels: the page
        // draws them as such.
        let (originals, shown) = restored.reconstructions();
        assert_eq!((originals.len(), shown.len()), (10 * 784, 10 * 784));
        assert_eq!(restored.pad(), never.pad());
        assert_eq!(restored.classification(), never.classification());
        for lab in [&mut never, &mut restored] {
            lab.apply(MnistCommand::Advance { updates: 7 }).unwrap();
        }
        assert!(never.save() == restored.save(), "{training:?}");
        assert!(never.parameters() == restored.parameters(), "{training:?}");
    }
}

/// Redrawing the views (as the page does whenever a frame is due, however many that is) is not
/// a change of the run: the saved bytes stay equal, and so does what a restore shows.
#[test]
fn redrawing_the_views_leaves_the_saved_run_unchanged() {
    let mut lab = lab();
    lab.apply(MnistCommand::Refresh).unwrap();
    let saved = lab.save();
    let shown = lab.reconstructions().1.to_vec();
    for _ in 0..3 {
        lab.apply(MnistCommand::Refresh).unwrap();
    }
    assert!(lab.save() == saved, "a redraw changed the saved run");
    assert!(
        lab.reconstructions().1 == shown.as_slice(),
        "a redraw of the same machine differs"
    );
    let mut restored = lab.clone();
    restored
        .apply(MnistCommand::RestoreRun {
            bytes: saved.clone(),
        })
        .unwrap();
    assert!(restored.save() == saved);
    assert!(restored.reconstructions().1 == shown.as_slice());
}

/// The validating reader refuses a truncated file and a damaged one (checksum), naming the
/// file.
#[test]
fn a_truncated_or_damaged_file_is_refused() {
    let truncated = &file()[..file().len() - 1000];
    let mut damaged = file().to_vec();
    damaged[5000] ^= 0x10;
    for bytes in [truncated, &damaged[..], &[][..]] {
        let error = MnistLab::from_file(bytes, 10, 1, None, false).unwrap_err();
        assert_eq!(error.field(), "mnist file", "{error}");
        let error = MnistLikelihood::from_file(bytes, 1).unwrap_err();
        assert_eq!(error.field(), "mnist file", "{error}");
    }
}

/// A likelihood point of a 784-10 machine (ln Z exact over the 2^10 hidden states) is the
/// mean of −F(v) − ln Z over the first 1000 training and test images, computed here from the
/// engine's exact ln Z and free energy: the same sums, so equal to rounding.
#[test]
fn a_point_of_a_small_machine_is_the_exact_mean_log_likelihood() {
    let mut lab = MnistLab::from_file(file(), 10, 2, None, false).unwrap();
    lab.apply(MnistCommand::Advance { updates: 30 }).unwrap();
    let mut scorer = MnistLikelihood::from_file(file(), 2).unwrap();
    scorer.start(10, false, &lab.parameters(), 30).unwrap();
    let point = loop {
        if let Some(point) = scorer.step(1 << 12).unwrap() {
            break point;
        }
    };
    let data = mnist::parse(file()).unwrap();
    let rbm = boltzlab::learn::rbm::Rbm::new(
        784,
        10,
        lab.parameters()[..7840]
            .iter()
            .map(|&x| f64::from(x))
            .collect(),
        lab.parameters()[7840..7840 + 784]
            .iter()
            .map(|&x| f64::from(x))
            .collect(),
        lab.parameters()[7840 + 784..]
            .iter()
            .map(|&x| f64::from(x))
            .collect(),
    )
    .unwrap();
    let log_z = rbm_exact::log_z(&rbm).unwrap();
    let mean = |images: &boltzlab::learn::mnist::Images| {
        let v = images.vectors(LIKELIHOOD_IMAGES);
        -v.iter().map(|x| rbm.free_energy(x)).sum::<f64>() / v.len() as f64 - log_z
    };
    let (train, test) = (mean(&data.train), mean(&data.test));
    assert_eq!(point.update, 30);
    assert_eq!(point.stderr, 0.0);
    assert!(
        (point.train - train).abs() < 1e-9 * train.abs(),
        "{} {train}",
        point.train
    );
    assert!(
        (point.test - test).abs() < 1e-9 * test.abs(),
        "{} {test}",
        point.test
    );
    assert_eq!(scorer.curve(0), &[30.0]);
    // A snapshot of the wrong length is refused, naming it, and changes nothing.
    let error = scorer.start(10, false, &[0.0; 5], 31).unwrap_err();
    assert_eq!(error.field(), "snapshot");
    assert_eq!(scorer.progress(), None);
}

/// Beyond 25 units in each layer the point is AIS: it carries a standard error.
#[test]
fn a_point_of_a_larger_machine_has_an_error_bar() {
    let lab = MnistLab::from_file(file(), 30, 2, None, false).unwrap();
    let mut scorer = MnistLikelihood::from_file(file(), 2).unwrap();
    scorer.start(30, false, &lab.parameters(), 0).unwrap();
    assert_eq!(scorer.exact(), Some(false));
    let point = loop {
        if let Some(point) = scorer.step(1 << 16).unwrap() {
            break point;
        }
    };
    assert!(point.stderr > 0.0 && point.stderr.is_finite(), "{point:?}");
    assert!(point.train.is_finite() && point.test.is_finite());
}

/// A run saved in format 1 (before labels and the pad: magic byte 1, a header without
/// `labels` and `pad`) restores as the same run, with a blank pad.
#[test]
fn a_format_1_save_still_restores() {
    let lab = lab();
    let v2 = lab.save();
    let length = u32::from_le_bytes(v2[8..12].try_into().unwrap()) as usize;
    let mut header: serde_json::Value = serde_json::from_slice(&v2[12..12 + length]).unwrap();
    let object = header.as_object_mut().unwrap();
    assert_eq!(
        object.remove("labels"),
        Some(serde_json::Value::Bool(false))
    );
    assert!(object.remove("pad").is_some());
    let json = serde_json::to_vec(&header).unwrap();
    let mut v1 = b"BZMNRUN\x01".to_vec();
    v1.extend_from_slice(&(json.len() as u32).to_le_bytes());
    v1.extend_from_slice(&json);
    v1.extend_from_slice(&v2[12 + length..v2.len() - 4]);
    let crc = mnist::crc32(&v1);
    v1.extend_from_slice(&crc.to_le_bytes());
    let mut restored = MnistLab::from_file(file(), 5, 1, None, true).unwrap();
    restored
        .apply(MnistCommand::RestoreRun { bytes: v1 })
        .unwrap();
    assert!(!restored.labelled());
    assert!(
        restored.save() == v2,
        "the format-1 save restored as another run"
    );
}

/// The test error point of a labelled run is classify_set's error on the 10 000 test images
/// (the same argmax, counted independently), with the binomial standard error
/// √(e(1 − e)/n); its ln p(v) columns are the label-summed ln Σ_y e^{−F(v, y)} − ln Z of
/// the first 1000 training and test images, ln Z exact over images and labels (16 hidden
/// units), to 10⁻⁹.
#[test]
fn a_labelled_point_is_the_test_error_of_the_whole_test_set() {
    let mut lab = MnistLab::from_file(file(), 16, 5, None, true).unwrap();
    lab.apply(MnistCommand::Advance { updates: 40 }).unwrap();
    let mut scorer = MnistLikelihood::from_file(file(), 5).unwrap();
    // The unlabelled length is refused for a labelled snapshot, naming it.
    let short = &lab.parameters()[..784 * 16 + 784 + 16];
    assert_eq!(
        scorer.start(16, true, short, 40).unwrap_err().field(),
        "snapshot"
    );
    scorer.start(16, true, &lab.parameters(), 40).unwrap();
    assert_eq!(scorer.exact(), Some(true));
    let point = loop {
        if let Some(point) = scorer.step(777).unwrap() {
            break point;
        }
    };
    let data = mnist::parse(file()).unwrap();
    let machine = machine_of(&lab);
    let log_z = log_z_with_label_group(machine.rbm(), 10, 2).unwrap();
    let mean = |images: Vec<Vec<u8>>| {
        let total: f64 = images
            .iter()
            .map(|v| {
                let mut sum = LogSumExp::new();
                for y in 0..10 {
                    sum.push(-machine.free_energy(v, y));
                }
                sum.value() - log_z
            })
            .sum();
        total / images.len() as f64
    };
    for (got, want) in [
        (point.train, mean(data.train.vectors(1000))),
        (point.test, mean(data.test.vectors(1000))),
    ] {
        assert!(
            (got - want).abs() < 1e-9 * want.abs(),
            "{got} against {want}"
        );
    }
    assert_eq!(point.stderr, 0.0);
    let images = data.test.vectors(data.test.len());
    let expected =
        classify_set(&machine_of(&lab), &images, data.test.labels().unwrap(), 2).unwrap();
    let e = expected.error_rate();
    assert_eq!(scorer.curve(4), &[e]);
    assert_eq!(scorer.curve(5), &[(e * (1.0 - e) / 10_000.0).sqrt()]);
    assert!(e < 0.9, "40 updates learned nothing: {e}");
}

/// A run made without options learns by the page's defaults for its kind: a weight cost
/// λ = LABELLED_DECAY when it learns the labels, none when it does not; the rest the same.
#[test]
fn the_default_learning_has_a_weight_cost_only_with_labels() {
    use boltzlab::app::rbm::mnist::LABELLED_DECAY;
    let plain = MnistLab::from_file(file(), 8, 1, None, false).unwrap();
    let labelled = MnistLab::from_file(file(), 8, 1, None, true).unwrap();
    assert_eq!(plain.training().decay, 0.0);
    assert_eq!(labelled.training().decay, LABELLED_DECAY);
    assert_eq!(
        Training {
            decay: 0.0,
            ..labelled.training()
        },
        plain.training()
    );
}

#[test]
fn filters_show_a_page_of_100_or_all_of_them_in_either_order() {
    // 150 hidden units: page 1 holds units 0–99, page 2 units 100–149 (numbered from 1, as
    // the page's box; `filter_view` gives the page from 0); `all` shows the 150 (in the order
    // asked, the page number still checked) and a later page brings the page back.
    let mut lab = MnistLab::from_file(file(), 150, 3, None, false).unwrap();
    lab.apply(MnistCommand::Advance { updates: 2 }).unwrap();
    let show = |lab: &mut MnistLab, page, order, all| {
        lab.apply(MnistCommand::ShowFilters { page, order, all })
            .unwrap();
        let (filters, units) = lab.filters();
        assert_eq!(filters.len(), units.len() * 784);
        units.to_vec()
    };
    let units = show(&mut lab, 2, FilterOrder::Unit, false);
    assert_eq!(units, (100..150).collect::<Vec<u32>>());
    let units = show(&mut lab, 2, FilterOrder::Unit, true);
    assert_eq!(units, (0..150).collect::<Vec<u32>>());
    assert_eq!(lab.filter_view(), (1, FilterOrder::Unit, true));
    let w = lab.parameters();
    let norm = |j: u32| -> f64 {
        (0..784)
            .map(|i| f64::from(w[i * 150 + j as usize]).powi(2))
            .sum()
    };
    let by_norm = show(&mut lab, 1, FilterOrder::Norm, true);
    assert_eq!(by_norm.len(), 150);
    assert!(by_norm.windows(2).all(|p| norm(p[0]) >= norm(p[1])));
    let mut sorted = by_norm.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..150).collect::<Vec<u32>>());
    // A page beyond the last is refused with all too, and nothing changes.
    let before = lab.filter_view();
    let refused = lab.apply(MnistCommand::ShowFilters {
        page: 3,
        order: FilterOrder::Unit,
        all: true,
    });
    let message = refused.unwrap_err().to_string();
    assert_eq!(message, "filter page must be between 1 and 2, got 3");
    assert_eq!(lab.filter_view(), before);
    assert_eq!(
        show(&mut lab, 1, FilterOrder::Unit, false),
        (0..100).collect::<Vec<u32>>()
    );
    // On the wire `all` may be left out (false).
    let command: MnistCommand =
        serde_json::from_str(r#"{"command":"show-filters","page":1,"order":"unit"}"#).unwrap();
    assert_eq!(
        command,
        MnistCommand::ShowFilters {
            page: 1,
            order: FilterOrder::Unit,
            all: false
        }
    );
}

/// Each choice a command names has a TypeScript union of exactly its names.
#[test]
fn the_choice_types_name_every_choice() {
    protocol_laws::a_choice_type_names_every_choice::<FilterOrder>();
}
