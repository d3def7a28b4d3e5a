//! The deterministic (mean-field) Boltzmann machine of Peterson & Anderson (1987): the
//! two-phase rule with the sampled ⟨s_i⟩, ⟨s_i s_j⟩ replaced by the mean-field averages
//! m_i and the products m_i m_j (i ≠ j).
//!
//! A settling is one annealed solution of the mean-field equations
//! m_i = s_low + (s_high − s_low)·σ((s_high − s_low)·h_i/T), h_i = Σ_j w_ij m_j + θ_i
//! ([`crate::estimate::mean_field::solve`]), with the same clamps as the stochastic machine's
//! settling (noisy training vector in the clamped phase; nothing, or the inputs, in the
//! free phase), annealed by the same schedule with one pass over the free units (one
//! sequential update of each q_i) in place of each time unit: s passes at each anneal
//! step (T, s) (fewer if they converge), then passes at the learning temperature T until
//! convergence or the pass limit ([`annealed_solve`]). Its m_i and m_i m_j are added to
//! the phase's statistics, so a phase's statistics are averages over its settlings, as in
//! the stochastic machine.
//!
//! Convergence is never silent: every solve whose final-temperature iteration did not
//! reach the tolerance is counted ([`Learner::nonconverged`], [`CycleReport::nonconverged`])
//! and its (unconverged) averages are still used, as the stochastic machine uses its
//! finite samples.
//!
//! With [`MeanFieldStart::Symmetric`] a solve depends only on the weights and the clamps,
//! so a settling whose clamps equal the previous one's within the same cycle reuses that
//! solution (the same numbers, computed once).

use super::Settling;
use super::{
    CycleReport, FreePhase, Learner, LearnerCommonState, LearnerCore, LearningOptions, Phase,
    PhaseStatistics, Position, Progress, check_patterns, split_seed, to_kind,
};
use crate::error::ParamError;
use crate::estimate::mean_field::{MeanField, MeanFieldOptions, check_solver, solve};
use crate::model::Network;
use crate::rng::{SpinRng, seeded_rng, uniform};

/// One annealed mean-field solution for a settling: for each anneal step (T, s) of the
/// schedule in turn, at most s passes at T (stopping early if converged), each step
/// starting from the last one's q; then passes at the learning temperature until
/// max |Δq| < tolerance or `max_passes`. `converged` and `passes` of the result describe
/// the final temperature. `start` as in [`crate::estimate::mean_field::solve`] (`None`: ½ nudged).
pub fn annealed_solve(
    network: &Network,
    settling: &Settling,
    clamp: &[Option<i8>],
    start: Option<&[f64]>,
    settings: &MeanFieldSettings,
) -> Result<MeanField, ParamError> {
    let mut q: Option<Vec<f64>> = start.map(<[f64]>::to_vec);
    for &(t, sweeps) in settling.anneal.steps() {
        if sweeps == 0 {
            continue;
        }
        let options = MeanFieldOptions {
            damping: settings.damping,
            tolerance: settings.tolerance,
            max_passes: sweeps as usize,
            anneal: Vec::new(),
        };
        q = Some(solve(network, t, clamp, q.as_deref(), &options)?.probabilities);
    }
    let options = MeanFieldOptions {
        damping: settings.damping,
        tolerance: settings.tolerance,
        max_passes: settings.max_passes,
        anneal: Vec::new(),
    };
    solve(
        network,
        settling.temperature(),
        clamp,
        q.as_deref(),
        &options,
    )
}

/// Where each mean-field solve starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MeanFieldStart {
    /// q_i = ½ nudged by a fixed ±10⁻³ pattern ([`crate::estimate::mean_field::solve`]'s default):
    /// deterministic.
    Symmetric,
    /// q_i uniform on [0, 1) from the run's seed, afresh for every settling: the analogue
    /// of randomising the free units, so that settlings can find different solutions.
    Random,
}

/// How the learner solves the mean-field equations.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct MeanFieldSettings {
    /// Damping d in (0, 1]: q_i ← (1 − d) q_i + d σ(…).
    pub damping: f64,
    /// Converged when max_i |Δq_i| over a pass is below this (10⁻¹⁵ to 1).
    pub tolerance: f64,
    /// Most passes at each temperature (1 to 10⁷).
    pub max_passes: usize,
    /// Where each solve starts.
    pub start: MeanFieldStart,
}

impl Default for MeanFieldSettings {
    /// Undamped sequential updates (each a descent step on the mean-field free energy),
    /// tolerance 10⁻⁶, at most 1000 passes per temperature, symmetric start.
    fn default() -> Self {
        MeanFieldSettings {
            damping: 1.0,
            tolerance: 1e-6,
            max_passes: 1000,
            start: MeanFieldStart::Symmetric,
        }
    }
}

/// A network learning by the deterministic (mean-field) two-phase rule.
#[derive(Debug, Clone)]
pub struct MeanFieldLearner {
    network: Network,
    patterns: Vec<Vec<u8>>,
    settings: MeanFieldSettings,
    start_rng: SpinRng,
    clamped: PhaseStatistics,
    free: PhaseStatistics,
    /// The last solve of this cycle and its clamps (reused when the clamps repeat).
    last_solve: Option<(Vec<Option<i8>>, MeanField)>,
    nonconverged: u64,
    cycle_nonconverged: u64,
    /// The options, the place in the cycle, the updater, the last report, a divergence.
    core: LearnerCore,
}

impl MeanFieldLearner {
    /// A learner for `network` and the training vectors `patterns` (0/1 per visible
    /// unit). Checks the options ([`LearningOptions::check`]), the vectors (field
    /// `patterns`), the settings (fields `damping`, `tolerance`, `max passes`) and that
    /// every temperature of the schedule is finite and above 0 (field `schedule`).
    pub fn new(
        network: Network,
        patterns: &[Vec<u8>],
        options: LearningOptions,
        settings: MeanFieldSettings,
    ) -> Result<Self, ParamError> {
        options.check()?;
        check_patterns(patterns, network.visible())?;
        options.check_free_phase(network.visible())?;
        check_solver(settings.damping, settings.tolerance, settings.max_passes)?;
        let steps = options.settling.anneal.steps();
        if let Some(&(t, _)) = steps.iter().find(|&&(t, _)| !(t > 0.0 && t.is_finite())) {
            return Err(ParamError::Invalid {
                field: "schedule",
                reason: format!(
                    "the mean-field machine needs temperatures finite and above 0, got {t}"
                ),
            });
        }
        let (noise_seed, start_seed) = split_seed(options.seed);
        let n = network.len();
        Ok(MeanFieldLearner {
            network,
            patterns: patterns.to_vec(),
            settings,
            start_rng: seeded_rng(start_seed),
            clamped: PhaseStatistics::empty(n),
            free: PhaseStatistics::empty(n),
            last_solve: None,
            nonconverged: 0,
            cycle_nonconverged: 0,
            core: LearnerCore::new(options, seeded_rng(noise_seed), n),
        })
    }

    /// The training vectors.
    pub fn patterns(&self) -> &[Vec<u8>] {
        &self.patterns
    }

    /// The settings of the solver.
    pub fn settings(&self) -> &MeanFieldSettings {
        &self.settings
    }

    /// The last solution (q_i, m_i, convergence) of the current cycle, for the live view.
    pub fn last_solution(&self) -> Option<&MeanField> {
        self.last_solve.as_ref().map(|(_, mf)| mf)
    }

    /// The averages gathered so far in the current cycle for `phase` (sums divided by the
    /// number of settlings done).
    pub fn statistics(&self, phase: Phase) -> PhaseStatistics {
        average(match phase {
            Phase::Clamped => &self.clamped,
            Phase::Free => &self.free,
        })
    }

    fn settlings_per_phase(&self) -> u64 {
        self.patterns.len() as u64 * self.core.options.settlings
    }

    fn pattern_of(&self, s: u64) -> usize {
        (s / self.core.options.settlings) as usize
    }

    /// The clamps of the current settling.
    fn clamps(&mut self) -> Vec<Option<i8>> {
        let kind = self.network.kind();
        let n = self.network.len();
        let s = self.core.position.settling;
        let shown: Option<Vec<u8>> = match (self.core.position.phase, self.core.options.free_phase)
        {
            (Phase::Clamped, _) => {
                let k = self.pattern_of(s);
                let shown = self
                    .core
                    .options
                    .noise
                    .present(&self.patterns[k], &mut self.core.noise_rng);
                self.core.presented.push(shown.clone());
                Some(shown)
            }
            (Phase::Free, FreePhase::Nothing) => None,
            (Phase::Free, FreePhase::Inputs(k)) => {
                Some(self.core.presented[s as usize][..k].to_vec())
            }
        };
        let values = shown.map(|v| to_kind(kind, &v)).unwrap_or_default();
        (0..n).map(|i| values.get(i).copied()).collect()
    }

    /// One settling: one annealed mean-field solve. At the end of the free phase the
    /// weights change. If that change diverges (a weight or bias non-finite or beyond
    /// ±[`super::DIVERGENCE_LIMIT`]), the network keeps the weights from before the change
    /// and this and every later call return the error ([`super::diverged`]) until a new
    /// learner is made.
    pub fn step(&mut self) -> Result<Progress, ParamError> {
        if let Some(e) = &self.core.diverged {
            return Err(e.clone());
        }
        let clamp = self.clamps();
        let reuse = self.settings.start == MeanFieldStart::Symmetric
            && self.last_solve.as_ref().is_some_and(|(c, _)| *c == clamp);
        if !reuse {
            let start: Option<Vec<f64>> = match self.settings.start {
                MeanFieldStart::Symmetric => None,
                MeanFieldStart::Random => Some(
                    (0..self.network.len())
                        .map(|_| uniform(&mut self.start_rng))
                        .collect(),
                ),
            };
            let solution = annealed_solve(
                &self.network,
                &self.core.options.settling,
                &clamp,
                start.as_deref(),
                &self.settings,
            )?;
            self.last_solve = Some((clamp, solution));
        }
        let solution = &self.last_solve.as_ref().expect("just solved").1;
        if !solution.converged {
            self.nonconverged += 1;
            self.cycle_nonconverged += 1;
        }
        let sums = match self.core.position.phase {
            Phase::Clamped => &mut self.clamped,
            Phase::Free => &mut self.free,
        };
        add_solution(sums, &solution.means);
        self.core.position.settling += 1;
        if self.core.position.settling < self.settlings_per_phase() {
            self.core.position.pattern = self.pattern_in_phase();
            return Ok(Progress::Settling);
        }
        match self.core.position.phase {
            Phase::Clamped => {
                self.core.position.phase = Phase::Free;
                self.core.position.settling = 0;
                self.core.position.pattern = self.pattern_in_phase();
                Ok(Progress::Phase)
            }
            Phase::Free => self.end_cycle(),
        }
    }

    fn end_cycle(&mut self) -> Result<Progress, ParamError> {
        let clamped = average(&self.clamped);
        let free = average(&self.free);
        let cycle = self.core.position.cycle + 1;
        if let Err(e) = self.core.updater.apply(
            &mut self.network,
            &self.core.options,
            &clamped,
            &free,
            cycle,
        ) {
            self.core.diverged = Some(e.clone());
            return Err(e);
        }
        let n = self.network.len();
        self.clamped = PhaseStatistics::empty(n);
        self.free = PhaseStatistics::empty(n);
        self.core.presented.clear();
        self.last_solve = None;
        self.core.position = Position {
            cycle: self.core.position.cycle + 1,
            phase: Phase::Clamped,
            settling: 0,
            pattern: Some(0),
            sweep: 0,
        };
        self.core.last = Some(CycleReport {
            cycle: self.core.position.cycle,
            clamped,
            free,
            nonconverged: self.cycle_nonconverged,
        });
        self.cycle_nonconverged = 0;
        Ok(Progress::Cycle)
    }

    fn pattern_in_phase(&self) -> Option<usize> {
        match (self.core.position.phase, self.core.options.free_phase) {
            (Phase::Free, FreePhase::Nothing) => None,
            _ => Some(self.pattern_of(self.core.position.settling)),
        }
    }
}

/// Adds m_i and m_i m_j (i < j) to running sums.
fn add_solution(sums: &mut PhaseStatistics, means: &[f64]) {
    sums.samples += 1;
    let mut pair = 0;
    for (i, &mi) in means.iter().enumerate() {
        sums.means[i] += mi;
        for &mj in &means[i + 1..] {
            sums.pairs[pair] += mi * mj;
            pair += 1;
        }
    }
}

/// Sums divided by the number of solutions (zero before any).
fn average(sums: &PhaseStatistics) -> PhaseStatistics {
    let scale = if sums.samples == 0 {
        0.0
    } else {
        1.0 / sums.samples as f64
    };
    PhaseStatistics {
        samples: sums.samples,
        means: sums.means.iter().map(|s| s * scale).collect(),
        pairs: sums.pairs.iter().map(|s| s * scale).collect(),
    }
}

/// Everything a [`MeanFieldLearner`] holds besides its network, training vectors, options
/// and settings: for a saved run that continues exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanFieldState {
    /// The random-start stream's state words.
    pub start_random_state: [u32; 4],
    /// The running sums of m_i and m_i m_j of this cycle's phases.
    pub clamped: PhaseStatistics,
    pub free: PhaseStatistics,
    /// The last solve of this cycle and its clamps.
    pub last_solve: Option<(Vec<Option<i8>>, MeanField)>,
    /// Solves that did not converge: in the whole run, in this cycle.
    pub nonconverged: u64,
    pub cycle_nonconverged: u64,
    pub common: LearnerCommonState,
}

impl MeanFieldLearner {
    /// The state that, with the network, the training vectors, the options and the
    /// settings, fixes the learner's future.
    pub fn saved_state(&self) -> MeanFieldState {
        MeanFieldState {
            start_random_state: crate::rng::random_words(&self.start_rng),
            clamped: self.clamped.clone(),
            free: self.free.clone(),
            last_solve: self.last_solve.clone(),
            nonconverged: self.nonconverged,
            cycle_nonconverged: self.cycle_nonconverged,
            common: LearnerCommonState::save(&self.core),
        }
    }

    /// A learner that continues exactly where the one that gave `saved` left off, for the
    /// arguments of [`MeanFieldLearner::new`] (checked as there); every part of `saved` is
    /// checked against them and the error names the field.
    pub fn from_saved_state(
        network: Network,
        patterns: &[Vec<u8>],
        options: LearningOptions,
        settings: MeanFieldSettings,
        saved: MeanFieldState,
    ) -> Result<Self, ParamError> {
        let mut learner = MeanFieldLearner::new(network, patterns, options, settings)?;
        let n = learner.network.len();
        saved
            .common
            .check(&learner.network, patterns, &learner.core.options, 1, |p| {
                p.settling as usize
            })?;
        let per_phase = learner.settlings_per_phase();
        for (field, sums) in [
            ("learner.clamped_sums", &saved.clamped),
            ("learner.free_sums", &saved.free),
        ] {
            let fits = sums.means.len() == n
                && sums.pairs.len() == super::pair_count(n)
                && sums.means.iter().chain(&sums.pairs).all(|x| x.is_finite())
                && sums.samples <= per_phase;
            if !fits {
                return Err(ParamError::Invalid {
                    field,
                    reason: format!(
                        "need {n} finite mean sums and {} finite pair sums, over at most \
                         the {per_phase} settlings of a phase",
                        super::pair_count(n)
                    ),
                });
            }
        }
        if let Some((clamp, solution)) = &saved.last_solve {
            let kind = learner.network.kind();
            let values_fit = clamp.len() == n && clamp.iter().flatten().all(|&v| kind.is_value(v));
            let solution_fits = solution.probabilities.len() == n
                && solution.means.len() == n
                && solution
                    .probabilities
                    .iter()
                    .all(|q| (0.0..=1.0).contains(q))
                && solution.means.iter().all(|m| m.is_finite());
            if !values_fit || !solution_fits {
                return Err(ParamError::Invalid {
                    field: "learner.last_solve",
                    reason: format!(
                        "need {n} clamps (empty or a {} value), {n} probabilities in [0, 1] \
                         and {n} finite means",
                        kind.name()
                    ),
                });
            }
        }
        if saved.cycle_nonconverged > saved.nonconverged {
            return Err(ParamError::Invalid {
                field: "learner.cycle_nonconverged",
                reason: "this cycle's count exceeds the run's".into(),
            });
        }
        saved.common.restore(&mut learner.core)?;
        learner.start_rng =
            crate::rng::rng_from_words("learner.start_random_state", saved.start_random_state)?;
        learner.clamped = saved.clamped;
        learner.free = saved.free;
        learner.last_solve = saved.last_solve;
        learner.nonconverged = saved.nonconverged;
        learner.cycle_nonconverged = saved.cycle_nonconverged;
        Ok(learner)
    }
}

impl Learner for MeanFieldLearner {
    fn cycle(&mut self) -> Result<CycleReport, ParamError> {
        while self.step()? != Progress::Cycle {}
        Ok(self.core.last.clone().expect("a cycle was just completed"))
    }

    fn settle(&mut self) -> Result<Progress, ParamError> {
        self.step()
    }

    fn network(&self) -> &Network {
        &self.network
    }

    fn core(&self) -> &LearnerCore {
        &self.core
    }

    fn core_mut(&mut self) -> &mut LearnerCore {
        &mut self.core
    }

    fn nonconverged(&self) -> u64 {
        self.nonconverged
    }
}
