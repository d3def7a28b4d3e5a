//! The MNIST run's protocol (src/app/rbm/mnist.rs): every `MnistCommand` reaches the engine's
//! state and does what it says, a refused command changes nothing (the saved bytes and the
//! views are the same before and after), the wire form round-trips, and the TypeScript types
//! name every tag; a saved run restores and continues with the same bits as the run never
//! stopped; a truncated or damaged data file is refused; a likelihood point of a small
//! machine equals the exact mean ln p(v).
//!
//! Completeness: `index` matches every variant without a wildcard.
//! Deterministic: every run is seeded, so no test here can fail by chance.

use boltzlab::app::rbm::mnist::{
    FilterOrder, LIKELIHOOD_IMAGES, MnistCommand, MnistLab, MnistLikelihood, MnistReply,
};
use boltzlab::app::rbm::{StatisticsKind, Training};
use boltzlab::estimate::rbm_exact;
use boltzlab::learn::mnist;
use protocol_laws::{Case, Engine, refusal};
use std::sync::OnceLock;

mod protocol_laws;

const VARIANTS: usize = 8;

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
        let mut lab = MnistLab::from_file(file(), 12, 3, None).unwrap();
        lab.apply(MnistCommand::Advance { updates: 2 }).unwrap();
        lab
    })
    .clone()
}

fn persistent() -> Training {
    Training {
        statistics: StatisticsKind::Persistent,
        particles: Some(20),
        ..MnistLab::default_training()
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
    format!(
        "{} {} {} {:?} {} {} {} {} {done} {target} {:?}",
        bytes.len(),
        bytes.iter().map(|&b| u64::from(b)).fold(0, mix),
        bits(filters),
        units,
        bits(lab.chains()),
        bits(originals),
        bits(recon),
        bits(gallery),
        lab.filter_view().0,
    )
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
        let mut other = MnistLab::from_file(file(), 20, 9, Some(persistent())).unwrap();
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
                page: 0,
                order: FilterOrder::Norm,
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
            C::StartGallery { count: 3, steps: 2 },
            move |_, a, r| changed(r) && a.gallery().0.len() == 3 * 784 && a.gallery().2 == 2,
        ),
        case(
            vec![C::StartGallery { count: 3, steps: 2 }],
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
    ]
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
    let training = |batch, statistics| Training {
        batch,
        statistics,
        particles: Some(10),
        replicas: Some(4),
        ..MnistLab::default_training()
    };
    let refused = vec![
        refusal(
            vec![],
            C::NewRun {
                hidden: 0,
                seed: 1,
                training: None,
            },
            "hidden units",
        ),
        refusal(
            vec![],
            C::NewRun {
                hidden: 501,
                seed: 1,
                training: None,
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
        // 12 hidden units: one page (0).
        refusal(
            vec![],
            C::ShowFilters {
                page: 1,
                order: FilterOrder::Unit,
            },
            "filter page",
        ),
        refusal(
            vec![],
            C::StartGallery {
                count: 31,
                steps: 1,
            },
            "gallery images",
        ),
        refusal(
            vec![],
            C::StartGallery { count: 1, steps: 0 },
            "gallery steps",
        ),
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
            r#"{"command":"show-filters","page":0,"order":"size"}"#,
            "filter order",
        ),
        (
            r#"{"command":"start-gallery","count":31,"steps":1}"#,
            "gallery images",
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
        "src/web/rbm.rs",
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
        ],
    );
}

/// A run saved at update 5 and restored learns the same bits as the run never stopped.
#[test]
fn a_restored_run_continues_bit_for_bit() {
    for training in [MnistLab::default_training(), persistent()] {
        let mut never = MnistLab::from_file(file(), 16, 7, Some(training)).unwrap();
        never.apply(MnistCommand::Advance { updates: 5 }).unwrap();
        let saved = never.save();
        let mut restored = lab();
        restored
            .apply(MnistCommand::RestoreRun { bytes: saved })
            .unwrap();
        assert_eq!(restored.updates(), 5);
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
        let error = MnistLab::from_file(bytes, 10, 1, None).unwrap_err();
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
    let mut lab = MnistLab::from_file(file(), 10, 2, None).unwrap();
    lab.apply(MnistCommand::Advance { updates: 30 }).unwrap();
    let mut scorer = MnistLikelihood::from_file(file(), 2).unwrap();
    scorer.start(10, &lab.parameters(), 30).unwrap();
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
    let error = scorer.start(10, &[0.0; 5], 31).unwrap_err();
    assert_eq!(error.field(), "snapshot");
    assert_eq!(scorer.progress(), None);
}

/// Beyond 25 units in each layer the point is AIS: it carries a standard error.
#[test]
fn a_point_of_a_larger_machine_has_an_error_bar() {
    let lab = MnistLab::from_file(file(), 30, 2, None).unwrap();
    let mut scorer = MnistLikelihood::from_file(file(), 2).unwrap();
    scorer.start(30, &lab.parameters(), 0).unwrap();
    assert_eq!(scorer.exact(), Some(false));
    let point = loop {
        if let Some(point) = scorer.step(1 << 16).unwrap() {
            break point;
        }
    };
    assert!(point.stderr > 0.0 && point.stderr.is_finite(), "{point:?}");
    assert!(point.train.is_finite() && point.test.is_finite());
}
