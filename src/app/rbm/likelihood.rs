//! The log-likelihood job: ln p(v) of the training and test sets, one point every so many
//! updates, each computed for a copy of the machine frozen at its update and spread over
//! calls, so that learning goes on while a point is under way.
//!
//! ln p(v) = −F(v) − ln Z, averaged over a set. ln Z is exact (by [`LogZSum`], over the
//! states of the smaller layer) while that layer has at most 25 units, else estimated by the
//! engine's AIS driver ([`AisRuns`], [`AIS_RUNS`] runs on the page's schedule), with its
//! standard error; then the free energies F(v) of the images are summed. A machine with a
//! label group (the MNIST run that learns the labels) is scored with the label summed out:
//! ln Z over images and labels ([`crate::estimate::rbm_exact::log_z_with_label_group`]'s
//! sum, or AIS with the group), F(v) = −ln Σ_y e^{−F(v, y)}.

use super::{AIS_RUNS, CURVE_CAPACITY, LIKELIHOOD_EVERY, LIKELIHOOD_WORK, RbmLab};
use crate::error::ParamError;
use crate::estimate::rbm_ais::{AisRuns, AisSchedule};
use crate::estimate::rbm_exact::{LogZSum, MAX_EXACT_LAYER, label_terms};
use crate::estimate::trace::{Eviction, History};
use crate::learn::rbm::Rbm;
use crate::log_sum_exp::LogSumExp;
use crate::model::rbm_labels::LabelledRbm;

/// The curves, the point under way and when the next is due.
#[derive(Debug, Clone)]
pub(super) struct Likelihood {
    /// (update, train, test, stderr) of each finished point.
    pub(super) curve: History<4>,
    pub(super) job: Option<LikelihoodJob>,
    /// A point every `every` updates.
    pub(super) every: u64,
    /// The update of the last finished point.
    pub(super) last_point: Option<u64>,
}

impl Likelihood {
    /// No points yet, one due every 50 updates.
    pub(super) fn new() -> Likelihood {
        Likelihood {
            curve: History::with_eviction(CURVE_CAPACITY, Eviction::Oldest),
            job: None,
            every: 50,
            last_point: None,
        }
    }
}

/// A log-likelihood point under way: the machine frozen at one update, its ln Z sum, then
/// the sums of the free energies F(v) of the training and the test images, both in slices.
#[derive(Debug, Clone)]
pub(super) struct LikelihoodJob {
    pub(super) update: u64,
    machine: Frozen,
    method: LogZJob,
    /// (ln Z, its standard error), once the sum is done.
    log_z: Option<(f64, f64)>,
    /// Σ F(v) over the training images, then over the test images, how many of the two
    /// sets' images (training first) are summed, and how many there are (0 until known).
    free_energy: [f64; 2],
    summed: usize,
    images: usize,
}

/// The machine a point is for, frozen at its update: a plain one, or one with a label group
/// (its last K visible units), whose images' free energies are F(v) = −ln Σ_y e^{−F(v, y)}.
#[derive(Debug, Clone)]
enum Frozen {
    Plain(Rbm),
    Labelled(LabelledRbm),
}

impl Frozen {
    fn rbm(&self) -> &Rbm {
        match self {
            Frozen::Plain(rbm) => rbm,
            Frozen::Labelled(m) => m.rbm(),
        }
    }
}

/// What a finished log-likelihood point gives: (1/N) Σ F(v) of the training and the test
/// images, ln Z and its standard error.
struct PointValues {
    train_free_energy: f64,
    test_free_energy: f64,
    log_z: f64,
    stderr: f64,
}

#[derive(Debug, Clone)]
enum LogZJob {
    Exact(LogZSum),
    /// A machine with a label group, exactly: Z = Σ_y e^{c_y} Z_y, each Z_y the image
    /// machine's with hidden biases b + U_y (the sum of
    /// [`crate::estimate::rbm_exact::log_z_with_label_group`], in slices).
    ExactLabelled(LabelledSum),
    /// [`AIS_RUNS`] runs of the engine's AIS driver on the page's schedule, each run on
    /// its own stream, so the value does not depend on how the work is sliced.
    Ais(AisRuns),
}

/// The page's AIS runs for a point: [`AIS_RUNS`] runs on the page's schedule from the base
/// `base`, seeded by the run's `seed` and the point's `update`.
fn page_ais(rbm: &Rbm, base: &[f64], seed: u64, update: u64) -> Result<AisRuns, ParamError> {
    AisRuns::new(
        rbm,
        base,
        &AisSchedule::PAGE,
        AIS_RUNS,
        seed.wrapping_mul(0x9e37_79b9).wrapping_add(update),
    )
}

impl LikelihoodJob {
    /// The point of `rbm`, frozen at `update`: an exact ln Z sum while the smaller layer has
    /// at most 25 units, else [`AIS_RUNS`] AIS runs on the page's schedule from the base
    /// `base` (the data's base rates; unused when exact), seeded by `seed` and the update.
    fn for_machine(rbm: Rbm, update: u64, base: &[f64], seed: u64) -> Result<Self, ParamError> {
        let method = if rbm.visible().min(rbm.hidden()) <= MAX_EXACT_LAYER {
            LogZJob::Exact(LogZSum::new(&rbm)?)
        } else {
            LogZJob::Ais(page_ais(&rbm, base, seed, update)?)
        };
        Ok(LikelihoodJob::new(update, Frozen::Plain(rbm), method))
    }

    /// The point of `rbm` whose last `labels` visible units are a one-of-K label group:
    /// ln Z over images and labels, exactly ([`LabelledSum`]) while the hidden layer has at
    /// most 25 units, else by [`AIS_RUNS`] AIS runs with the label group from the image base
    /// `base` (the labels' base uniform), seeded as [`LikelihoodJob::for_machine`] seeds;
    /// the images' free energies sum the label out.
    fn for_labelled_machine(
        rbm: Rbm,
        labels: usize,
        update: u64,
        base: &[f64],
        seed: u64,
    ) -> Result<Self, ParamError> {
        let method = if rbm.hidden() <= MAX_EXACT_LAYER {
            LogZJob::ExactLabelled(LabelledSum::new(&rbm, labels)?)
        } else {
            let mut joint = base.to_vec();
            joint.resize(base.len() + labels, 0.0);
            LogZJob::Ais(page_ais(&rbm, &joint, seed, update)?.with_label_group(labels)?)
        };
        let machine = Frozen::Labelled(LabelledRbm::new(rbm, labels)?);
        Ok(LikelihoodJob::new(update, machine, method))
    }

    fn new(update: u64, machine: Frozen, method: LogZJob) -> LikelihoodJob {
        LikelihoodJob {
            update,
            machine,
            method,
            log_z: None,
            free_energy: [0.0; 2],
            summed: 0,
            images: 0,
        }
    }

    /// The machine the point is for (with a label group, the joint one).
    pub(super) fn rbm(&self) -> &Rbm {
        self.machine.rbm()
    }

    /// Does up to `work` units: first of ln Z ([`LikelihoodJob::advance_log_z`]), then, from
    /// the next call on, of the free energies of `sets` (training, test), as many images as
    /// cost about what `work` units of ln Z cost (an AIS step 2·V·H multiply-adds, a state
    /// of the smaller layer about as many as the larger layer has units; an image V·H).
    /// The point's values once every image is summed.
    fn advance(
        &mut self,
        work: u64,
        sets: [&[Vec<u8>]; 2],
    ) -> Result<Option<PointValues>, ParamError> {
        let Some((log_z, stderr)) = self.log_z else {
            self.log_z = self.advance_log_z(work)?;
            return Ok(None);
        };
        let (nv, nh) = (self.rbm().visible(), self.rbm().hidden());
        let images = match self.method {
            LogZJob::Ais { .. } => work.saturating_mul(2),
            LogZJob::Exact(_) | LogZJob::ExactLabelled(_) => work / nv.min(nh) as u64,
        }
        .max(1);
        let mut scratch = vec![0.0; nh];
        let mut label_free_energies = match &self.machine {
            Frozen::Plain(_) => Vec::new(),
            Frozen::Labelled(m) => vec![0.0; m.labels()],
        };
        let total = sets[0].len() + sets[1].len();
        self.images = total;
        let end = (self.summed as u64)
            .saturating_add(images)
            .min(total as u64) as usize;
        for k in self.summed..end {
            let (set, v) = match k < sets[0].len() {
                true => (0, &sets[0][k]),
                false => (1, &sets[1][k - sets[0].len()]),
            };
            self.free_energy[set] += match &self.machine {
                Frozen::Plain(rbm) => rbm.free_energy_with(v, &mut scratch),
                Frozen::Labelled(m) => {
                    m.summed_free_energy_with(v, &mut scratch, &mut label_free_energies)
                }
            };
        }
        self.summed = end;
        Ok((end == total).then(|| PointValues {
            train_free_energy: self.free_energy[0] / sets[0].len() as f64,
            test_free_energy: self.free_energy[1] / sets[1].len() as f64,
            log_z,
            stderr,
        }))
    }

    /// Does up to `work` units (exact: states of the smaller layer; AIS: intermediate
    /// steps of one run, [`AisRuns::advance`]); (ln Z, its standard error) once complete.
    fn advance_log_z(&mut self, work: u64) -> Result<Option<(f64, f64)>, ParamError> {
        match &mut self.method {
            LogZJob::Exact(sum) => Ok(sum
                .advance(work)
                .then(|| (sum.value().expect("complete"), 0.0))),
            LogZJob::ExactLabelled(sum) => Ok(sum.advance(work).then(|| (sum.value(), 0.0))),
            LogZJob::Ais(runs) => Ok(runs.advance(self.machine.rbm(), work).then(|| {
                let estimate = runs.estimate().expect("every run is done");
                (estimate.log_z, estimate.stderr)
            })),
        }
    }

    /// The fraction of the point that is done: ln Z counts for 95 %, the free energies
    /// (much cheaper) for the last 5 %.
    fn progress(&self) -> f64 {
        if self.log_z.is_some() {
            return 0.95 + 0.05 * self.summed as f64 / self.images.max(1) as f64;
        }
        0.95 * self.log_z_progress()
    }

    /// The fraction of ln Z's sum that is done.
    fn log_z_progress(&self) -> f64 {
        match &self.method {
            LogZJob::Exact(sum) => sum.done() as f64 / sum.states() as f64,
            LogZJob::ExactLabelled(sum) => sum.progress(),
            LogZJob::Ais(runs) => runs.steps_done() as f64 / runs.total_steps() as f64,
        }
    }
}

impl RbmLab {
    /// A log-likelihood point every `every` updates ([`LIKELIHOOD_EVERY`]).
    pub(super) fn set_every(&mut self, every: u64) -> Result<(), ParamError> {
        self.likelihood.every = LIKELIHOOD_EVERY.check(every)?;
        Ok(())
    }

    /// Works on the log-likelihood: starts a point when `every` updates have passed since
    /// the last (and at update 0), then does at most `work` units of it ([`LIKELIHOOD_WORK`];
    /// exact: states of the smaller layer; AIS: intermediate steps of one run, each about
    /// 2·V·H multiply-adds). Returns whether a point joined the curves. A point whose work
    /// fails is dropped (so that a later call starts a fresh one) and the error returned.
    pub(super) fn work_on_likelihood(&mut self, work: u64) -> Result<bool, ParamError> {
        let work = LIKELIHOOD_WORK.check(work)?;
        if self.start_point()?.is_none() {
            return Ok(false);
        }
        let job = self.likelihood.job.as_mut().expect("a job is under way");
        let point = match job.advance(work, [&self.images.train, &self.images.test]) {
            Ok(None) => return Ok(false),
            Ok(Some(point)) => point,
            Err(e) => {
                self.likelihood.job = None;
                return Err(e);
            }
        };
        let update = self.likelihood.job.as_ref().expect("a job").update;
        self.record_point(Point {
            update,
            train: -point.train_free_energy - point.log_z,
            test: -point.test_free_energy - point.log_z,
            stderr: point.stderr,
        });
        Ok(true)
    }

    /// Starts the log-likelihood point when one is due (`every` updates after the last, and
    /// at update 0), without working on it; the update of the point under way (`None` when
    /// none is). A front end that computes points apart from learning takes the frozen
    /// machine ([`RbmLab::point_machine`]) to a [`PointScorer`](super::points::PointScorer)
    /// and hands the values back with [`RbmLab::finish_point`].
    pub(super) fn start_point(&mut self) -> Result<Option<u64>, ParamError> {
        if self.likelihood.job.is_none() {
            let due = self
                .likelihood
                .last_point
                .is_none_or(|last| self.updates() >= last + self.likelihood.every);
            if !due {
                return Ok(None);
            }
            self.likelihood.job = Some(self.new_job()?);
        }
        Ok(self.likelihood.job.as_ref().map(|job| job.update))
    }

    /// Records `point`, computed elsewhere for the point under way (the same job, so the
    /// same values as [`RbmLab::work_on_likelihood`] gives). Refused, nothing changed, when
    /// no point is under way at `point.update` (error names `point`), or a value is not
    /// finite or the standard error is negative (names `train`, `test` or `stderr`).
    pub(super) fn finish_point(&mut self, point: Point) -> Result<(), ParamError> {
        self.check_point_update(point.update)?;
        for (field, x) in [("train", point.train), ("test", point.test)] {
            if !x.is_finite() {
                return Err(ParamError::Invalid {
                    field,
                    reason: format!("{x} is not a finite number"),
                });
            }
        }
        if !(point.stderr.is_finite() && point.stderr >= 0.0) {
            return Err(ParamError::Invalid {
                field: "stderr",
                reason: format!("{}; a finite number ≥ 0", point.stderr),
            });
        }
        self.record_point(point);
        Ok(())
    }

    /// Drops the point under way at `update` (its work failed elsewhere), so that the next
    /// [`RbmLab::start_point`] starts a fresh one. Refused (names `point`) when none is.
    pub(super) fn drop_point(&mut self, update: u64) -> Result<(), ParamError> {
        self.check_point_update(update)?;
        self.likelihood.job = None;
        Ok(())
    }

    fn check_point_update(&self, update: u64) -> Result<(), ParamError> {
        match &self.likelihood.job {
            Some(job) if job.update == update => Ok(()),
            Some(job) => Err(ParamError::Invalid {
                field: "point",
                reason: format!(
                    "the point under way is at update {}, not {update}",
                    job.update
                ),
            }),
            None => Err(ParamError::Invalid {
                field: "point",
                reason: format!("no point is under way (asked for update {update})"),
            }),
        }
    }

    /// The finished point joins the curves; the job is done.
    fn record_point(&mut self, point: Point) {
        self.likelihood.curve.push_point([
            point.update as f64,
            point.train,
            point.test,
            point.stderr,
        ]);
        self.likelihood.last_point = Some(point.update);
        self.likelihood.job = None;
    }

    pub(super) fn new_job(&self) -> Result<LikelihoodJob, ParamError> {
        self.job_for(self.trainer.rbm().clone(), self.updates())
    }

    /// The log-likelihood point of `rbm`, the machine frozen at `update`: an exact ln Z sum
    /// or AIS runs seeded by the run's seed and the update.
    pub(super) fn job_for(&self, rbm: Rbm, update: u64) -> Result<LikelihoodJob, ParamError> {
        let base = match self.likelihood_exact() {
            true => Vec::new(),
            false => crate::model::rbm::base_rate_biases(&self.images.train, self.visible())?,
        };
        LikelihoodJob::for_machine(rbm, update, &base, self.seed)
    }

    // --- The commands as methods -------------------------------------------------------------

    /// [`RbmCommand::SetLikelihoodEvery`](super::RbmCommand::SetLikelihoodEvery).
    pub fn set_likelihood_every(&mut self, every: u64) -> Result<(), ParamError> {
        self.set_every(every)
    }

    /// [`RbmCommand::LikelihoodStep`](super::RbmCommand::LikelihoodStep): `work` units (1 to
    /// 2^24); returns whether a point joined the curves.
    pub fn likelihood_step(&mut self, work: u64) -> Result<bool, ParamError> {
        self.work_on_likelihood(work)
    }

    // --- What the page shows ---------------------------------------------------------------

    /// Whether ln Z is exact (the smaller layer has at most 25 units), else AIS.
    pub fn likelihood_exact(&self) -> bool {
        self.visible().min(self.hidden) <= MAX_EXACT_LAYER
    }

    /// The fraction of the point under way that is done, `None` when none is.
    pub fn point_progress(&self) -> Option<f64> {
        self.likelihood.job.as_ref().map(LikelihoodJob::progress)
    }

    /// The machine of the point under way, frozen at its update, and that update.
    pub fn point_machine(&self) -> Option<(&Rbm, u64)> {
        self.likelihood
            .job
            .as_ref()
            .map(|job| (job.rbm(), job.update))
    }

    /// Updates between points.
    pub fn likelihood_every(&self) -> u64 {
        self.likelihood.every
    }

    /// The updates of the log-likelihood points.
    pub fn curve_updates(&self) -> &[f64] {
        self.likelihood.curve.column(0)
    }

    /// Mean ln p(v) of the training set, nats per image.
    pub fn curve_train(&self) -> &[f64] {
        self.likelihood.curve.column(1)
    }

    /// Mean ln p(v) of the test set.
    pub fn curve_test(&self) -> &[f64] {
        self.likelihood.curve.column(2)
    }

    /// The standard error of ln Z (0 when exact), shared by both curves.
    pub fn curve_stderr(&self) -> &[f64] {
        self.likelihood.curve.column(3)
    }
}

/// One log-likelihood point on its own, for a front end that computes points apart from
/// learning (the page's second worker): the machine frozen at an update, the images it is
/// scored on, and `LikelihoodJob`'s work (ln Z exact or by AIS, then the free energies),
/// advanced in slices.
#[derive(Debug, Clone)]
pub struct PointJob {
    job: LikelihoodJob,
}

/// A finished point: the update, mean ln p(v) of the training and the test images, and the
/// standard error of ln Z (0 when exact), shared by both.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub update: u64,
    pub train: f64,
    pub test: f64,
    pub stderr: f64,
}

impl PointJob {
    /// The point of `rbm` at `update` (`LikelihoodJob::for_machine`: exact while the
    /// smaller layer has at most 25 units, else AIS from the base rates `base`, seeded by
    /// `seed` and the update).
    pub fn new(rbm: Rbm, update: u64, base: &[f64], seed: u64) -> Result<PointJob, ParamError> {
        Ok(PointJob {
            job: LikelihoodJob::for_machine(rbm, update, base, seed)?,
        })
    }

    /// Does at most `work` units ([`LIKELIHOOD_WORK`]: exact, states of the smaller layer;
    /// AIS, steps of one run; then the images' free energies) on the sets `train` and
    /// `test`, which must be the same at every call; the point once it is done.
    pub fn advance(
        &mut self,
        work: u64,
        train: &[Vec<u8>],
        test: &[Vec<u8>],
    ) -> Result<Option<Point>, ParamError> {
        let work = LIKELIHOOD_WORK.check(work)?;
        Ok(self.job.advance(work, [train, test])?.map(|p| Point {
            update: self.job.update,
            train: -p.train_free_energy - p.log_z,
            test: -p.test_free_energy - p.log_z,
            stderr: p.stderr,
        }))
    }

    /// The fraction done (ln Z 95 %, the free energies 5 %).
    pub fn progress(&self) -> f64 {
        self.job.progress()
    }

    /// The update the machine was frozen at.
    pub fn update(&self) -> u64 {
        self.job.update
    }

    /// The point of `rbm` whose last `labels` visible units are a label group
    /// (`LikelihoodJob::for_labelled_machine`: ln Z exact up to 25 hidden units, else AIS
    /// with the label group from the image base rates `base`).
    pub fn new_labelled(
        rbm: Rbm,
        labels: usize,
        update: u64,
        base: &[f64],
        seed: u64,
    ) -> Result<PointJob, ParamError> {
        Ok(PointJob {
            job: LikelihoodJob::for_labelled_machine(rbm, labels, update, base, seed)?,
        })
    }

    /// Whether ln Z is exact (else AIS).
    pub fn exact(&self) -> bool {
        matches!(
            self.job.method,
            LogZJob::Exact(_) | LogZJob::ExactLabelled(_)
        )
    }
}

/// Exact ln Z of a machine with a label group in slices: Z = Σ_y e^{c_y} Z_y over
/// [`label_terms`], each label's image machine summed by its own [`LogZSum`] in turn (the
/// sum of [`crate::estimate::rbm_exact::log_z_with_label_group`]).
#[derive(Debug, Clone)]
struct LabelledSum {
    /// Each label's c_y and image machine, and the sum under way over the current one.
    labels: Vec<(f64, Rbm)>,
    current: Option<LogZSum>,
    next: usize,
    total: LogSumExp,
}

impl LabelledSum {
    fn new(rbm: &Rbm, labels: usize) -> Result<LabelledSum, ParamError> {
        let labels = label_terms(rbm, labels)?;
        let current = Some(LogZSum::new(&labels[0].1)?);
        Ok(LabelledSum {
            labels,
            current,
            next: 0,
            total: LogSumExp::new(),
        })
    }

    /// Sums up to `states` more states (of the label under way, then the next); whether all
    /// are done.
    fn advance(&mut self, states: u64) -> bool {
        while let Some(sum) = self.current.as_mut() {
            if !sum.advance(states) {
                return false;
            }
            let (c, _) = self.labels[self.next];
            self.total.push(c + sum.value().expect("complete"));
            self.next += 1;
            self.current = self
                .labels
                .get(self.next)
                .map(|(_, m)| LogZSum::new(m).expect("checked as the first"));
            if self.current.is_some() {
                return false;
            }
        }
        true
    }

    fn value(&self) -> f64 {
        self.total.value()
    }

    fn progress(&self) -> f64 {
        let within = self
            .current
            .as_ref()
            .map_or(0.0, |s| s.done() as f64 / s.states() as f64);
        (self.next as f64 + within) / self.labels.len() as f64
    }
}
