//! Training a restricted machine: mini-batches, a decaying learning rate, momentum and
//! weight decay, from one seed.
//!
//! Update t (t = 0, 1, …) takes the next mini-batch of B training vectors (the vectors
//! are shuffled at the start of every epoch; the last batch of an epoch is shorter if B
//! does not divide N; with B = N there is no shuffle), estimates the gradient g (the exact
//! clamped phase minus the free phase of the chosen [`Statistics`]) and applies
//!
//!   u_W(t) = μ u_W(t − 1) + ε_t (g_W − λ W),   W ← W + u_W(t),
//!   u_a(t) = μ u_a(t − 1) + ε_t g_a,           a ← a + u_a(t)   (and b likewise),
//!
//! with ε_t from the [`RateSchedule`], momentum μ and weight decay λ (on weights only).

use super::MAX_UPDATE_WORK;
use super::statistics::{
    Batch, FreeChains, FreeProgress, FreeStage, Gradient, Statistics, add_clamped_vector,
};
use crate::dynamics::rbm::Particles;
use crate::error::{ParamError, whole_in};
use crate::learn::{DIVERGENCE_LIMIT, MAX_PATTERNS, below_one, check_patterns, diverged, positive};
use crate::linalg::elementwise::{Level, best_level};
use crate::model::rbm::Rbm;
use crate::rng::{SpinRng, random_index, seeded_rng};

/// How the learning rate changes over the run.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "schedule")]
pub enum RateSchedule {
    /// ε_t = ε.
    Constant,
    /// ε_t = ε (1 − t/T) for update t < T, then 0: linear decay to zero over T updates
    /// (1 ≤ T ≤ 10⁹), which lets persistent chains catch up with the model at the end.
    LinearDecay { updates: u64 },
}

impl RateSchedule {
    /// ε_t for update t (0-based) with base rate ε.
    pub fn rate(self, base: f64, update: u64) -> f64 {
        match self {
            RateSchedule::Constant => base,
            RateSchedule::LinearDecay { updates } => {
                base * (1.0 - update as f64 / updates as f64).max(0.0)
            }
        }
    }
}

/// Everything a training run needs besides the machine and the data.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainingOptions {
    /// How the free phase is sampled.
    pub statistics: Statistics,
    /// Mini-batch size B, 1 ≤ B ≤ N (B = N: full batch).
    pub batch: usize,
    /// Base learning rate ε, 0 < ε ≤ 100.
    pub rate: f64,
    /// How ε changes over the run.
    pub schedule: RateSchedule,
    /// Momentum μ, 0 ≤ μ < 1.
    pub momentum: f64,
    /// Weight decay λ, 0 ≤ λ < 1 (an L2 penalty λ|W|²/2 on the weights).
    pub weight_decay: f64,
    /// The seed that fixes the run (shuffles, particles and every sample).
    pub seed: u64,
}

impl TrainingOptions {
    /// Checks every option for `patterns` training vectors on a V-H machine; errors name
    /// the field and its range. Beyond the single ranges, one update may cost at most
    /// [`MAX_UPDATE_WORK`] multiply-adds: (B + chains·(2k + 1))·V·H, so that a step of the
    /// page stays bounded (error names `particles × gibbs steps`).
    pub fn check(&self, patterns: usize, visible: usize, hidden: usize) -> Result<(), ParamError> {
        self.statistics.check()?;
        whole_in(
            "batch",
            self.batch as f64,
            1,
            patterns.clamp(1, MAX_PATTERNS) as u64,
        )?;
        positive("learning rate", self.rate, 100.0)?;
        below_one("momentum", self.momentum)?;
        below_one("weight decay", self.weight_decay)?;
        if let RateSchedule::LinearDecay { updates } = self.schedule {
            whole_in("decay updates", updates as f64, 1, 1_000_000_000)?;
        }
        let chains = self.statistics.chains(self.batch) as u128;
        let steps = self.statistics.steps() as u128;
        let work = (self.batch as u128 + chains * (2 * steps + 1)) * (visible * hidden) as u128;
        if work > MAX_UPDATE_WORK {
            return Err(ParamError::Invalid {
                field: "particles × gibbs steps",
                reason: format!(
                    "one update would cost about {work} multiply-adds, beyond the limit \
                     {MAX_UPDATE_WORK} (2^32): use fewer particles, steps or hidden units"
                ),
            });
        }
        Ok(())
    }
}

/// Everything an [`RbmTrainer`] is besides its training data, for a saved run: a trainer
/// rebuilt from it ([`RbmTrainer::from_state`]) continues bit for bit as the one it was
/// taken from ([`RbmTrainer::state`]). The scratch buffers and the last gradient are not
/// in it: every update overwrites them before reading them.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainerState {
    /// The machine (W, a, b).
    pub rbm: Rbm,
    /// The options (statistics, batch, rate and schedule, momentum, decay, seed).
    pub options: TrainingOptions,
    /// The epoch's order of the training vectors (a permutation of 0 … N − 1).
    pub order: Vec<usize>,
    /// The position of the next mini-batch in `order` (a multiple of B below N).
    pub cursor: usize,
    /// The momentum velocities u_W, u_a, u_b.
    pub velocity: Gradient,
    /// The run's generator, four 32-bit words (see [`crate::rng::random_words`]).
    pub random_state: [u32; 4],
    /// Updates done (drives the schedule).
    pub updates: u64,
    /// The divergence message that stopped learning, if any.
    pub diverged: Option<String>,
    /// The free-phase chains: persistent particles or tempered replicas, their states
    /// without the cached p(h | v) ([`FreeChains::states_only`]; restored on the way back).
    pub chains: FreeChains,
    /// An update under way in slices: where it stands, the gradient summed so far and (CD-k)
    /// the visible state of the chain under way.
    pub pending: Option<(UpdateProgress, Gradient, Vec<u8>)>,
}

/// A restricted machine being trained on fixed data, one mini-batch update at a time.
/// Nothing is allocated per update.
#[derive(Debug, Clone)]
pub struct RbmTrainer {
    rbm: Rbm,
    options: TrainingOptions,
    data: Vec<u8>,
    order: Vec<usize>,
    cursor: usize,
    chains: FreeChains,
    gradient: Gradient,
    velocity: Gradient,
    p_h: Vec<f64>,
    rng: SpinRng,
    updates: u64,
    diverged: Option<ParamError>,
    pending: Option<UpdateProgress>,
}

/// Where an update done in slices stands: the clamped statistics of the first `clamped`
/// batch vectors are summed, then the free phase stands at `free`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UpdateProgress {
    pub clamped: usize,
    pub free: FreeProgress,
}

impl RbmTrainer {
    /// A trainer of `rbm` on `patterns` (each V values 0/1, 1 to 65 536 of them) with
    /// `options` ([`TrainingOptions::check`]). The generator of `seed` first draws the
    /// persistent particles (if any), then the first shuffle.
    pub fn new(
        rbm: Rbm,
        patterns: &[Vec<u8>],
        options: TrainingOptions,
    ) -> Result<RbmTrainer, ParamError> {
        check_patterns(patterns, rbm.visible())?;
        options.check(patterns.len(), rbm.visible(), rbm.hidden())?;
        let mut rng = seeded_rng(options.seed);
        let chains = FreeChains::new(options.statistics, &rbm, &mut rng);
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        let mut trainer = RbmTrainer {
            data: patterns.concat(),
            order: (0..patterns.len()).collect(),
            cursor: 0,
            chains,
            gradient: Gradient::zeros(nv, nh),
            velocity: Gradient::zeros(nv, nh),
            p_h: vec![0.0; nh],
            rng,
            updates: 0,
            diverged: None,
            pending: None,
            options,
            rbm,
        };
        trainer.shuffle();
        Ok(trainer)
    }

    /// The trainer's state (see [`TrainerState`]).
    pub fn state(&self) -> TrainerState {
        TrainerState {
            rbm: self.rbm.clone(),
            options: self.options,
            order: self.order.clone(),
            cursor: self.cursor,
            velocity: self.velocity.clone(),
            random_state: crate::rng::random_words(&self.rng),
            updates: self.updates,
            diverged: self.diverged.as_ref().map(|e| match e {
                ParamError::Invalid { reason, .. } => reason.clone(),
                other => other.to_string(),
            }),
            chains: self.chains.states_only(),
            pending: self.pending.map(|p| {
                (
                    p,
                    self.gradient.clone(),
                    self.chains.chain_visible().to_vec(),
                )
            }),
        }
    }

    /// The trainer `state` describes, on `patterns` (the run's own training vectors),
    /// continuing exactly where it was taken. Every part is checked against the patterns
    /// and the options (errors name `order`, `cursor`, `velocity`, `random state`,
    /// `updates` or the option); the chains' shapes are the caller's
    /// ([`FreeChains::from_parts`]) and must match the options' statistics.
    pub fn from_state(patterns: &[Vec<u8>], state: TrainerState) -> Result<RbmTrainer, ParamError> {
        let TrainerState {
            rbm,
            options,
            order,
            cursor,
            velocity,
            random_state,
            updates,
            diverged,
            mut chains,
            pending,
        } = state;
        check_patterns(patterns, rbm.visible())?;
        options.check(patterns.len(), rbm.visible(), rbm.hidden())?;
        let n = patterns.len();
        let bad = |field: &'static str, reason: String| ParamError::Invalid { field, reason };
        let mut seen = vec![false; n];
        if order.len() != n {
            return Err(bad(
                "order",
                format!("need {n} positions, got {}", order.len()),
            ));
        }
        for &k in &order {
            if k >= n || std::mem::replace(&mut seen[k], true) {
                return Err(bad(
                    "order",
                    format!("not a permutation of 0 … {}: {k}", n - 1),
                ));
            }
        }
        if cursor >= n || !cursor.is_multiple_of(options.batch) {
            return Err(bad(
                "cursor",
                format!(
                    "{cursor} is not a batch start (a multiple of {} below {n})",
                    options.batch
                ),
            ));
        }
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        let shapes = [
            (velocity.weights.len(), nv * nh),
            (velocity.visible.len(), nv),
            (velocity.hidden.len(), nh),
        ];
        if shapes.iter().any(|(got, need)| got != need) {
            return Err(bad(
                "velocity",
                format!("need {nv}×{nh}, {nv} and {nh} values"),
            ));
        }
        let all = velocity
            .weights
            .iter()
            .chain(&velocity.visible)
            .chain(&velocity.hidden);
        if let Some(x) = all.into_iter().find(|x| !within_limit(**x)) {
            return Err(bad(
                "velocity",
                format!("{x} is not a finite number within ±{DIVERGENCE_LIMIT}"),
            ));
        }
        whole_in("updates", updates as f64, 0, 1 << 53)?;
        if chains.statistics() != options.statistics {
            return Err(bad(
                "chains",
                "the chains do not serve the options' statistics".into(),
            ));
        }
        chains.restore_probabilities(&rbm);
        let rng = crate::rng::rng_from_words("random state", random_state)?;
        let mut gradient = Gradient::zeros(nv, nh);
        let pending = match pending {
            None => None,
            Some((progress, g, v)) => {
                let batch = options.batch.min(n - cursor);
                let fits = progress.clamped <= batch
                    && (progress.clamped == batch || progress.free == FreeProgress::default())
                    && progress.free.stage != FreeStage::Done
                    && chains.progress_fits(&progress.free, batch);
                if !fits {
                    return Err(bad(
                        "pending",
                        format!("{progress:?} is not a place in an update"),
                    ));
                }
                let shapes = [
                    (g.weights.len(), nv * nh),
                    (g.visible.len(), nv),
                    (g.hidden.len(), nh),
                ];
                let all = g.weights.iter().chain(&g.visible).chain(&g.hidden);
                if shapes.iter().any(|(got, need)| got != need)
                    || all.into_iter().any(|x| !x.is_finite())
                {
                    return Err(bad(
                        "pending",
                        "the gradient under way is not finite numbers of the machine's shape"
                            .into(),
                    ));
                }
                crate::model::rbm::check_bits("pending", &v, nv)?;
                chains.set_chain_visible(&v);
                gradient = g;
                Some(progress)
            }
        };
        Ok(RbmTrainer {
            data: patterns.concat(),
            order,
            cursor,
            chains,
            gradient,
            velocity,
            p_h: vec![0.0; nh],
            rng,
            pending,
            updates,
            diverged: diverged.map(|reason| ParamError::Invalid {
                field: "learning",
                reason,
            }),
            options,
            rbm,
        })
    }

    /// The machine as trained so far.
    pub fn rbm(&self) -> &Rbm {
        &self.rbm
    }

    /// The options.
    pub fn options(&self) -> &TrainingOptions {
        &self.options
    }

    /// Updates done.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// Training vectors N.
    pub fn patterns(&self) -> usize {
        self.order.len()
    }

    /// Updates per epoch: ⌈N / B⌉.
    pub fn updates_per_epoch(&self) -> usize {
        self.patterns().div_ceil(self.options.batch)
    }

    /// The persistent particles (the β = 1 replica for tempering; none for CD-k).
    pub fn particles(&self) -> Option<&Particles> {
        self.chains.particles()
    }

    /// The free-phase state: particles, replicas and the choice they serve.
    pub fn chains(&self) -> &FreeChains {
        &self.chains
    }

    /// The divergence that stopped learning, if any: once set, [`RbmTrainer::update`]
    /// returns it and the machine keeps its last finite parameters.
    pub fn diverged(&self) -> Option<&ParamError> {
        self.diverged.as_ref()
    }

    /// Replaces the options from the next update on; refused (nothing changes) if they do
    /// not pass [`TrainingOptions::check`]. An update under way in slices is dropped. Changing the kind of statistics or the number
    /// of particles starts new particles (drawn from the run's generator); changing only k
    /// keeps them. Changing the batch size or seed restarts the epoch; the velocities and
    /// the update count (which drives the schedule) are kept.
    pub fn set_options(&mut self, options: TrainingOptions) -> Result<(), ParamError> {
        options.check(self.patterns(), self.rbm.visible(), self.rbm.hidden())?;
        let old = self.options;
        let same_chains = match (old.statistics, options.statistics) {
            (
                Statistics::ContrastiveDivergence { .. },
                Statistics::ContrastiveDivergence { .. },
            ) => true,
            (
                Statistics::Persistent { particles: a, .. },
                Statistics::Persistent { particles: b, .. },
            ) => a == b,
            _ => false,
        };
        if options.seed != old.seed {
            self.rng = seeded_rng(options.seed);
        }
        if same_chains {
            self.chains.set_steps(options.statistics.steps());
        } else {
            self.chains = FreeChains::new(options.statistics, &self.rbm, &mut self.rng);
        }
        self.options = options;
        // An update under way in slices is dropped (its chains keep the steps they made);
        // the next update starts at the same batch.
        self.pending = None;
        if options.batch != old.batch || options.seed != old.seed {
            self.cursor = 0;
            self.shuffle();
        }
        Ok(())
    }

    /// Estimates the gradient for the next mini-batch (the exact clamped phase minus the
    /// free phase) without changing the machine: it advances the batch position and the
    /// free chains. [`RbmTrainer::update`] is this plus the parameter change. An update
    /// under way in slices is completed first.
    pub fn estimate_gradient(&mut self) -> &Gradient {
        while !self.gradient_slice(u64::MAX).0 {}
        &self.gradient
    }

    /// The update under way in slices, if any ([`RbmTrainer::work`]).
    pub fn pending(&self) -> Option<&UpdateProgress> {
        self.pending.as_ref()
    }

    /// One slice of the next update: about `budget` multiply-adds of it (at least one
    /// block Gibbs step of one chain, or one vector's clamped statistics), continuing where
    /// the last slice stopped. Returns whether an update was completed (the parameters
    /// changed) and the work done. An update done in slices is the same, bit for bit, as
    /// one done at once ([`RbmTrainer::update`]): the same draws and sums in the same order
    /// ([`FreeChains::subtract_free_in_slices`]); so the page can learn with the largest
    /// allowed k × particles and never block a frame for longer than one block Gibbs step
    /// of one chain (2VH ≤ 10⁶ multiply-adds). Errors as for [`RbmTrainer::update`].
    pub fn work(&mut self, budget: u64) -> Result<(bool, u64), ParamError> {
        if let Some(e) = &self.diverged {
            return Err(e.clone());
        }
        let (done, spent) = self.gradient_slice(budget.max(1));
        if done {
            self.apply()?;
        }
        Ok((done, spent))
    }

    /// A slice of the gradient's estimate: (whether it is complete, work done). On
    /// completion the batch position moves on (and the next epoch's order is drawn).
    fn gradient_slice(&mut self, budget: u64) -> (bool, u64) {
        self.gradient_slice_at(best_level(), budget)
    }

    /// [`RbmTrainer::update`] with the gradient's loops at a chosen SIMD level (the tests
    /// force each: the same bits at every level, tests/linalg.rs).
    pub fn update_at(&mut self, level: Level) -> Result<(), ParamError> {
        if let Some(e) = &self.diverged {
            return Err(e.clone());
        }
        while !self.gradient_slice_at(level, u64::MAX).0 {}
        self.apply()
    }

    /// [`RbmTrainer::gradient_slice`] with its loops (the local fields, σ, the draws, the
    /// statistics) compiled at a chosen SIMD level (panics if the processor lacks it), each
    /// level's loops inlined into a function of its own. IEEE arithmetic in the same order
    /// has the same bits at every width. Wasm has one level, and there the phases stay
    /// functions of their own (`#[inline(never)]` on the wasm target): V8 ran the update
    /// inlined whole 20–25 % slower (docs/speed.md).
    fn gradient_slice_at(&mut self, level: Level, budget: u64) -> (bool, u64) {
        #[cfg(target_arch = "x86_64")]
        {
            #[target_feature(enable = "avx2")]
            fn avx2(t: &mut RbmTrainer, budget: u64) -> (bool, u64) {
                t.gradient_slice_here(budget)
            }
            #[target_feature(enable = "avx512f")]
            fn avx512(t: &mut RbmTrainer, budget: u64) -> (bool, u64) {
                t.gradient_slice_here(budget)
            }
            match level {
                Level::Baseline => self.gradient_slice_here(budget),
                Level::Avx2 => {
                    assert!(std::arch::is_x86_feature_detected!("avx2"));
                    // SAFETY: the processor has AVX2 (checked just above).
                    unsafe { avx2(self, budget) }
                }
                Level::Avx512 => {
                    assert!(std::arch::is_x86_feature_detected!("avx512f"));
                    // SAFETY: the processor has AVX-512F (checked just above).
                    unsafe { avx512(self, budget) }
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = level;
            self.gradient_slice_here(budget)
        }
    }

    #[inline(always)]
    fn gradient_slice_here(&mut self, budget: u64) -> (bool, u64) {
        let nv = self.rbm.visible();
        let vh = (nv * self.rbm.hidden()) as u64;
        let n = self.order.len();
        let start = self.cursor;
        let end = (start + self.options.batch).min(n);
        let batch = Batch {
            data: &self.data,
            order: &self.order[start..end],
            visible: nv,
        };
        let progress = match &mut self.pending {
            Some(p) => p,
            None => {
                self.gradient.clear();
                self.pending.insert(UpdateProgress::default())
            }
        };
        let mut spent = 0;
        while progress.clamped < batch.len() && spent < budget {
            let v = batch.vector(progress.clamped);
            add_clamped_vector(&self.rbm, v, batch.len(), &mut self.gradient, &mut self.p_h);
            progress.clamped += 1;
            spent += vh;
        }
        if progress.clamped == batch.len() && spent < budget {
            spent += self.chains.subtract_free_in_slices(
                &self.rbm,
                batch,
                &mut self.gradient,
                &mut self.rng,
                &mut progress.free,
                budget - spent,
            );
        }
        if progress.free.stage != FreeStage::Done {
            return (false, spent);
        }
        self.pending = None;
        self.cursor = end;
        if self.cursor == n {
            self.cursor = 0;
            self.shuffle();
        }
        (true, spent)
    }

    /// One mini-batch update (see the module's formulas), at once (an update under way in
    /// slices is completed). All-or-nothing: if a new weight or bias would be non-finite or
    /// beyond ±[`DIVERGENCE_LIMIT`], the parameters and velocities stay as they were (the
    /// chains and batch position have moved), the error names the update and the
    /// parameter, and every later call returns it.
    pub fn update(&mut self) -> Result<(), ParamError> {
        self.update_at(best_level())
    }

    /// Applies the estimated gradient (momentum, rate, decay), all or nothing.
    fn apply(&mut self) -> Result<(), ParamError> {
        let TrainingOptions {
            momentum,
            weight_decay,
            ..
        } = self.options;
        let rate = self.options.schedule.rate(self.options.rate, self.updates);
        let number = self.updates + 1;
        let nh = self.rbm.hidden();
        let (g, u) = (&self.gradient, &mut self.velocity);
        let (weights, visible, hidden) = self.rbm.parameters_mut();
        // First pass: check every new value; second pass: apply.
        let step_w =
            |k: usize, w: f64| momentum * u.weights[k] + rate * (g.weights[k] - weight_decay * w);
        for (k, &w) in weights.iter().enumerate() {
            let new = w + step_w(k, w);
            if !within_limit(new) {
                let e = diverged(number, format!("weight W[{}][{}]", k / nh, k % nh), new);
                self.diverged = Some(e.clone());
                return Err(e);
            }
        }
        for (name, params, grads, velocities) in [
            ("visible bias a", &*visible, &g.visible, &u.visible),
            ("hidden bias b", &*hidden, &g.hidden, &u.hidden),
        ] {
            for (k, &x) in params.iter().enumerate() {
                let new = x + momentum * velocities[k] + rate * grads[k];
                if !within_limit(new) {
                    let e = diverged(number, format!("{name}[{k}]"), new);
                    self.diverged = Some(e.clone());
                    return Err(e);
                }
            }
        }
        for (k, w) in weights.iter_mut().enumerate() {
            u.weights[k] = momentum * u.weights[k] + rate * (g.weights[k] - weight_decay * *w);
            *w += u.weights[k];
        }
        for (params, grads, velocities) in [
            (visible, &g.visible, &mut u.visible),
            (hidden, &g.hidden, &mut u.hidden),
        ] {
            for ((x, &gk), uk) in params.iter_mut().zip(grads).zip(velocities.iter_mut()) {
                *uk = momentum * *uk + rate * gk;
                *x += *uk;
            }
        }
        self.rbm.refresh_weights_by_hidden();
        self.updates = number;
        Ok(())
    }

    /// `count` updates (stops at the first error).
    pub fn run(&mut self, count: u64) -> Result<(), ParamError> {
        for _ in 0..count {
            self.update()?;
        }
        Ok(())
    }

    /// A new epoch order (Fisher–Yates with the run's generator); none at full batch.
    fn shuffle(&mut self) {
        if self.options.batch >= self.order.len() {
            return;
        }
        for i in (1..self.order.len()).rev() {
            let j = random_index(&mut self.rng, (i + 1) as u32) as usize;
            self.order.swap(i, j);
        }
    }
}

fn within_limit(x: f64) -> bool {
    x.is_finite() && x.abs() <= DIVERGENCE_LIMIT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_decay_reaches_zero_and_stays_there() {
        let s = RateSchedule::LinearDecay { updates: 4 };
        let rates: Vec<f64> = (0..6).map(|t| s.rate(0.2, t)).collect();
        assert_eq!(rates, vec![0.2, 0.15000000000000002, 0.1, 0.05, 0.0, 0.0]);
        assert_eq!(RateSchedule::Constant.rate(0.2, 1_000_000), 0.2);
    }

    #[test]
    fn mini_batches_cover_every_vector_once_per_epoch() {
        // 7 vectors, batch 3: batches of 3, 3, 1 per epoch; each vector once (its clamped
        // statistic ⟨v_i⟩ sums to 1 over the epoch when only vector k has unit k on).
        let patterns: Vec<Vec<u8>> = (0..7)
            .map(|k| (0..7).map(|i| u8::from(i == k)).collect())
            .collect();
        let options = TrainingOptions {
            statistics: Statistics::Persistent {
                particles: 1,
                steps: 1,
            },
            batch: 3,
            rate: 0.1,
            schedule: RateSchedule::Constant,
            momentum: 0.0,
            weight_decay: 0.0,
            seed: 3,
        };
        let mut trainer = RbmTrainer::new(Rbm::zeros(7, 2).unwrap(), &patterns, options).unwrap();
        assert_eq!(trainer.updates_per_epoch(), 3);
        for _ in 0..2 {
            let mut seen = [0.0; 7];
            for size in [3.0, 3.0, 1.0] {
                trainer.estimate_gradient();
                // The data part of Δa_i is v_i / B; the particle part is −v_i / K.
                let particle = trainer.particles().unwrap().visible_state(0).to_vec();
                for (i, s) in seen.iter_mut().enumerate() {
                    *s += (trainer.gradient.visible[i] + f64::from(particle[i])) * size;
                }
            }
            assert!(seen.iter().all(|&s| (s - 1.0).abs() < 1e-12), "{seen:?}");
        }
    }
}
