//! Ways to get the statistics of a restricted machine's learning rule.
//!
//! The gradient of the mean log-likelihood L = (1/N) Σ_d ln p(v⁽ᵈ⁾) is a difference of two
//! phases' statistics (docs/references.md §5):
//!
//!   ∂L/∂W_ij = ⟨v_i h_j⟩_data − ⟨v_i h_j⟩_model,
//!   ∂L/∂a_i = ⟨v_i⟩_data − ⟨v_i⟩_model,   ∂L/∂b_j = ⟨h_j⟩_data − ⟨h_j⟩_model.
//!
//! The *clamped* phase is exact for a restricted machine: p(h | v) factorises, so
//! ⟨v_i h_j⟩_data = (1/B) Σ_d v_i⁽ᵈ⁾ σ(b_j + (v⁽ᵈ⁾W)_j) over a batch of B vectors, with no
//! sampling and no failure mode ([`add_clamped`]). The *free* phase needs samples of the
//! model, and [`Statistics`] says how to get them. Every free-phase sample v enters as
//! v_i p(h_j | v) (the hidden layer summed out, same mean as v_i h_j, less noise).

use super::{MAX_GIBBS_STEPS, MAX_PARTICLES, MAX_REPLICAS};
use crate::dynamics::rbm::{Particles, gibbs_chain, hidden_probabilities};
use crate::dynamics::rbm_tempering::Replicas;
use crate::error::{ParamError, whole_in};
use crate::model::rbm::{Rbm, for_each_on};
use crate::rng::SpinRng;

/// How the free phase is sampled: a choice independent of the data, the batch and the
/// update rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "statistics")]
pub enum Statistics {
    /// CD-k (Hinton 2002): one chain per vector of the batch, started *at the data*
    /// vector and run k block Gibbs steps; ⟨v_i h_j⟩_model ≈ (1/B) Σ_d v_i⁽ᵏ⁾ p(h_j | v⁽ᵏ⁾).
    ///
    /// Failure mode: the chain is far from equilibrium after k steps, so the update is
    /// biased; it is not the gradient of the likelihood (nor of any function, Sutskever &
    /// Tieleman 2010). Modes far from the data are never visited, so their probability is
    /// never pushed down, and as the weights grow the chain mixes ever more slowly, so the
    /// bias grows: the likelihood rises, then falls (Fischer & Igel 2010). With a large
    /// rate CD-1 can diverge. On 4×4 bars and stripes (16 hidden, rate 0.1) CD-1 reached
    /// 4.96 nats per pattern and rose again to 5.76 (docs/references.md §5); larger k shrinks
    /// the bias at k times the cost.
    ContrastiveDivergence {
        /// k, block Gibbs steps per update (1 ≤ k ≤ [`MAX_GIBBS_STEPS`]).
        steps: usize,
    },
    /// Persistent contrastive divergence (Tieleman 2008; Neal 1992's persistent free
    /// phase): K fantasy particles are kept from update to update, each advanced k block
    /// Gibbs steps under the current weights; ⟨v_i h_j⟩_model ≈ (1/K) Σ_p v_i⁽ᵖ⁾ p(h_j | v⁽ᵖ⁾).
    ///
    /// Failure mode: the particles sample the model only while the weights change slowly
    /// compared with the chains' mixing. With a large learning rate they lag behind the
    /// model, the estimate is biased and learning oscillates or diverges; hence a small
    /// rate, decayed to 0 (Tieleman & Hinton 2009). The interplay also helps: learning
    /// raises the energy where the particles are, pushing them on to other modes. With few
    /// particles the estimate is noisy (variance ∝ 1/K).
    Persistent {
        /// K, the fantasy particles (1 ≤ K ≤ [`MAX_PARTICLES`]).
        particles: usize,
        /// k, block Gibbs steps per update (1 ≤ k ≤ [`MAX_GIBBS_STEPS`]).
        steps: usize,
    },
    /// Parallel tempering for the free phase ([`crate::dynamics::rbm_tempering`]): R replicas of K
    /// persistent particles at β_r = 1 − r/R, each advanced k block Gibbs steps per update,
    /// then swaps between neighbouring replicas; the statistics are those of the β = 1
    /// particles, as for [`Statistics::Persistent`].
    ///
    /// Failure mode: it costs R times as much per update as persistent chains with the
    /// same K, and it helps only if neighbouring replicas overlap (swaps are accepted):
    /// with too few replicas for the machine's energy range, the acceptance falls towards
    /// zero and it is R independent persistent runs of which one is used. It still needs a
    /// small learning rate, like any persistent method.
    ParallelTempering {
        /// K, the particles per replica (1 ≤ K ≤ [`MAX_PARTICLES`]).
        particles: usize,
        /// k, block Gibbs steps per update (1 ≤ k ≤ [`MAX_GIBBS_STEPS`]).
        steps: usize,
        /// R, the replicas (2 ≤ R ≤ [`MAX_REPLICAS`]).
        replicas: usize,
    },
}

impl Statistics {
    /// The command line's names: `cd`, `persistent` and `tempering`.
    pub fn name(self) -> &'static str {
        match self {
            Statistics::ContrastiveDivergence { .. } => "cd",
            Statistics::Persistent { .. } => "persistent",
            Statistics::ParallelTempering { .. } => "tempering",
        }
    }

    /// k, block Gibbs steps per update.
    pub fn steps(self) -> usize {
        match self {
            Statistics::ContrastiveDivergence { steps }
            | Statistics::Persistent { steps, .. }
            | Statistics::ParallelTempering { steps, .. } => steps,
        }
    }

    /// Checks 1 ≤ k ≤ [`MAX_GIBBS_STEPS`] (`gibbs steps`), 1 ≤ K ≤ [`MAX_PARTICLES`]
    /// (`particles`) and 2 ≤ R ≤ [`MAX_REPLICAS`] (`replicas`).
    pub fn check(self) -> Result<(), ParamError> {
        whole_in(
            "gibbs steps",
            self.steps() as f64,
            1,
            MAX_GIBBS_STEPS as u64,
        )?;
        match self {
            Statistics::ContrastiveDivergence { .. } => {}
            Statistics::Persistent { particles, .. } => {
                whole_in("particles", particles as f64, 1, MAX_PARTICLES as u64)?;
            }
            Statistics::ParallelTempering {
                particles,
                replicas,
                ..
            } => {
                whole_in("particles", particles as f64, 1, MAX_PARTICLES as u64)?;
                whole_in("replicas", replicas as f64, 2, MAX_REPLICAS as u64)?;
            }
        }
        Ok(())
    }

    /// Free-phase chains per update: K for persistent, R·K for tempering, the batch size
    /// B for CD-k.
    pub fn chains(self, batch: usize) -> usize {
        match self {
            Statistics::ContrastiveDivergence { .. } => batch,
            Statistics::Persistent { particles, .. } => particles,
            Statistics::ParallelTempering {
                particles,
                replicas,
                ..
            } => particles * replicas,
        }
    }
}

/// A gradient (or its statistics) in the machine's shape: ΔW (V × H, row-major), Δa, Δb.
#[derive(Debug, Clone, PartialEq)]
pub struct Gradient {
    /// ∂L/∂W_ij at `i·H + j`.
    pub weights: Vec<f64>,
    /// ∂L/∂a_i.
    pub visible: Vec<f64>,
    /// ∂L/∂b_j.
    pub hidden: Vec<f64>,
}

impl Gradient {
    /// Zeros in the shape of a V-H machine.
    pub fn zeros(visible: usize, hidden: usize) -> Gradient {
        Gradient {
            weights: vec![0.0; visible * hidden],
            visible: vec![0.0; visible],
            hidden: vec![0.0; hidden],
        }
    }

    /// Sets every entry to 0.
    pub fn clear(&mut self) {
        self.weights.fill(0.0);
        self.visible.fill(0.0);
        self.hidden.fill(0.0);
    }

    /// Adds s·v ⊗ p_h to ΔW, s·v to Δa and s·p_h to Δb (only the rows of units that are
    /// on are touched).
    // Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    pub fn add(&mut self, v: &[u8], p_h: &[f64], scale: f64) {
        let h = p_h.len();
        for_each_on(v, |i| {
            self.visible[i] += scale;
            for (g, &p) in self.weights[i * h..(i + 1) * h].iter_mut().zip(p_h) {
                *g += scale * p;
            }
        });
        for (g, &p) in self.hidden.iter_mut().zip(p_h) {
            *g += scale * p;
        }
    }
}

/// The clamped phase, exact: adds (1/B) Σ_d v⁽ᵈ⁾ ⊗ p(h | v⁽ᵈ⁾) (and the means) for the B
/// vectors of `batch` to `gradient`; `p_h` is scratch of length H.
pub fn add_clamped<'a>(
    rbm: &Rbm,
    batch: impl ExactSizeIterator<Item = &'a [u8]>,
    gradient: &mut Gradient,
    p_h: &mut [f64],
) {
    let size = batch.len();
    for v in batch {
        add_clamped_vector(rbm, v, size, gradient, p_h);
    }
}

/// One vector's share of the clamped phase, (1/B) v ⊗ p(h | v) (and the means), for a
/// batch of B vectors (so that the phase can be done in slices).
#[inline(always)]
pub fn add_clamped_vector(
    rbm: &Rbm,
    v: &[u8],
    batch: usize,
    gradient: &mut Gradient,
    p_h: &mut [f64],
) {
    hidden_probabilities(rbm, v, p_h);
    gradient.add(v, p_h, 1.0 / batch as f64);
}

/// The running state of a [`Statistics`] choice: the persistent particles, the tempered
/// replicas, or the scratch of CD-k's one chain at a time. Allocated once; an update
/// allocates nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct FreeChains {
    statistics: Statistics,
    particles: Option<Particles>,
    replicas: Option<Replicas>,
    v: Vec<u8>,
    h: Vec<u8>,
    p_h: Vec<f64>,
    p_v: Vec<f64>,
}

impl FreeChains {
    /// The state for `statistics` (checked by the caller) on a V-H machine; persistent
    /// particles and replicas start uniformly random (from `rng`).
    pub fn new(statistics: Statistics, rbm: &Rbm, rng: &mut SpinRng) -> FreeChains {
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        let (particles, replicas) = match statistics {
            Statistics::Persistent { particles, .. } => {
                (Some(Particles::random(particles, nv, nh, rng)), None)
            }
            Statistics::ParallelTempering {
                particles,
                replicas,
                ..
            } => (None, Some(Replicas::random(replicas, particles, rbm, rng))),
            Statistics::ContrastiveDivergence { .. } => (None, None),
        };
        FreeChains::with(statistics, particles, replicas, nv, nh)
    }

    /// A copy of the chains' states alone, for a saved run: the particles' or replicas' v
    /// and h without their cached p(h | v) ([`Particles::states_only`]).
    pub fn states_only(&self) -> FreeChains {
        FreeChains {
            statistics: self.statistics,
            particles: self.particles.as_ref().map(Particles::states_only),
            replicas: self.replicas.as_ref().map(Replicas::states_only),
            v: self.v.clone(),
            h: self.h.clone(),
            p_h: self.p_h.clone(),
            p_v: self.p_v.clone(),
        }
    }

    /// Recomputes the caches a [`FreeChains::states_only`] copy left out, under `rbm`.
    pub fn restore_probabilities(&mut self, rbm: &Rbm) {
        if let Some(particles) = &mut self.particles {
            particles.restore_probabilities(rbm);
        }
        if let Some(replicas) = &mut self.replicas {
            replicas.restore_probabilities(rbm);
        }
    }

    /// The chains of `statistics` with their work buffers for a V-H machine.
    fn with(
        statistics: Statistics,
        particles: Option<Particles>,
        replicas: Option<Replicas>,
        nv: usize,
        nh: usize,
    ) -> FreeChains {
        FreeChains {
            statistics,
            particles,
            replicas,
            v: vec![0; nv],
            h: vec![0; nh],
            p_h: vec![0.0; nh],
            p_v: vec![0.0; nv],
        }
    }

    /// The state of `statistics` (checked by the caller) on `rbm` for a saved run: the
    /// persistent particles (persistent statistics), or the replicas (tempering), or
    /// neither (CD-k), each of the shape the choice says; errors name `field`.
    pub fn from_parts(
        field: &'static str,
        statistics: Statistics,
        rbm: &Rbm,
        particles: Option<Particles>,
        replicas: Option<Replicas>,
    ) -> Result<FreeChains, ParamError> {
        let bad = |reason: String| ParamError::Invalid { field, reason };
        let shape = |p: &Particles, k: usize| p.count() == k;
        match (statistics, &particles, &replicas) {
            (Statistics::ContrastiveDivergence { .. }, None, None) => {}
            (Statistics::Persistent { particles: k, .. }, Some(p), None) if shape(p, k) => {}
            (
                Statistics::ParallelTempering {
                    particles: k,
                    replicas: r,
                    ..
                },
                None,
                Some(t),
            ) if t.count() == r && (0..r).all(|i| shape(t.replica(i), k)) => {}
            _ => {
                return Err(bad(format!(
                    "the particles and replicas do not match the statistics {statistics:?}"
                )));
            }
        }
        Ok(FreeChains::with(
            statistics,
            particles,
            replicas,
            rbm.visible(),
            rbm.hidden(),
        ))
    }

    /// The persistent particles of persistent statistics only (not tempering's).
    pub fn own_particles(&self) -> Option<&Particles> {
        self.particles.as_ref()
    }

    /// The choice this state serves.
    pub fn statistics(&self) -> Statistics {
        self.statistics
    }

    /// The persistent particles (the β = 1 replica for tempering; none for CD-k).
    pub fn particles(&self) -> Option<&Particles> {
        self.particles
            .as_ref()
            .or(self.replicas.as_ref().map(Replicas::coldest))
    }

    /// The tempered replicas (tempering only).
    pub fn replicas(&self) -> Option<&Replicas> {
        self.replicas.as_ref()
    }

    /// Changes k (the particles are kept).
    pub(crate) fn set_steps(&mut self, steps: usize) {
        self.statistics = match self.statistics {
            Statistics::ContrastiveDivergence { .. } => Statistics::ContrastiveDivergence { steps },
            Statistics::Persistent { particles, .. } => Statistics::Persistent { particles, steps },
            Statistics::ParallelTempering {
                particles,
                replicas,
                ..
            } => Statistics::ParallelTempering {
                particles,
                steps,
                replicas,
            },
        };
    }

    /// The free phase: subtracts the model statistics, estimated as the choice says, from
    /// `gradient`. CD-k starts one chain at each vector of `batch`; persistent chains
    /// ignore the batch. It is [`FreeChains::subtract_free_in_slices`] done at once.
    pub fn subtract_free(
        &mut self,
        rbm: &Rbm,
        batch: Batch<'_>,
        gradient: &mut Gradient,
        rng: &mut SpinRng,
    ) {
        let mut progress = FreeProgress::default();
        self.subtract_free_in_slices(rbm, batch, gradient, rng, &mut progress, u64::MAX);
    }

    /// The CD chain's visible state while a chain is under way (the saved part of an update
    /// in slices; persistent chains keep theirs in the particles).
    pub fn chain_visible(&self) -> &[u8] {
        &self.v
    }

    /// Sets the CD chain's visible state (a saved update in slices; V values 0/1, checked
    /// by the caller).
    pub(crate) fn set_chain_visible(&mut self, v: &[u8]) {
        self.v.copy_from_slice(v);
    }

    /// The free phase in slices of about `budget` multiply-adds (at least one block Gibbs
    /// step): continues from `progress` and returns the work done; the phase is complete
    /// when `progress.stage` is [`FreeStage::Done`]. The draws and sums are those of the
    /// phase done at once, in the same order, so the result is the same bit for bit:
    /// - persistent: advance particle 0, 1, … each k steps (a chain's steps may be split,
    ///   [`Particles::advance_one_at`]), then subtract their statistics one by one;
    /// - tempering: advance replica 0's particles, then replica 1's, …, subtract the β = 1
    ///   particles' statistics, then the swap proposals pair by pair;
    /// - CD-k: for each batch vector, a chain started at it, k steps, then its statistics.
    ///
    /// Work units: a block Gibbs step 2VH, a chain's start VH, a particle's statistics VH,
    /// a swap proposal 2VH.
    #[inline(always)]
    pub fn subtract_free_in_slices(
        &mut self,
        rbm: &Rbm,
        batch: Batch<'_>,
        gradient: &mut Gradient,
        rng: &mut SpinRng,
        progress: &mut FreeProgress,
        budget: u64,
    ) -> u64 {
        let vh = (rbm.visible() * rbm.hidden()) as u64;
        let steps = self.statistics.steps();
        let (replica_count, chain_count) = match (&self.replicas, &self.particles) {
            (Some(r), _) => (r.count(), r.coldest().count()),
            (None, Some(p)) => (1, p.count()),
            (None, None) => (1, batch.len()),
        };
        let mut spent = 0u64;
        while progress.stage != FreeStage::Done && spent < budget {
            match progress.stage {
                FreeStage::Advance => {
                    let affordable = ((budget - spent) / (2 * vh).max(1)).max(1);
                    let n = (steps - progress.step).min(affordable.min(usize::MAX as u64) as usize);
                    let (r, k) = (progress.replica, progress.chain);
                    if let Some(replicas) = &mut self.replicas {
                        let beta = replicas.betas()[r];
                        replicas.replica_mut(r).advance_one_at(rbm, beta, k, n, rng);
                    } else if let Some(particles) = &mut self.particles {
                        particles.advance_one_at(rbm, 1.0, k, n, rng);
                    } else {
                        if progress.step == 0 {
                            self.v.copy_from_slice(batch.vector(k));
                        }
                        gibbs_chain(
                            rbm,
                            n,
                            &mut self.v,
                            &mut self.h,
                            &mut self.p_h,
                            &mut self.p_v,
                            rng,
                        );
                    }
                    spent += (2 * n as u64 + 1) * vh;
                    progress.step += n;
                    if progress.step == steps {
                        if self.particles.is_none() && self.replicas.is_none() {
                            gradient.add(&self.v, &self.p_h, -1.0 / batch.len() as f64);
                        }
                        progress.step = 0;
                        progress.chain += 1;
                        if progress.chain == chain_count {
                            progress.chain = 0;
                            progress.replica += 1;
                            if progress.replica == replica_count {
                                progress.replica = 0;
                                progress.stage =
                                    if self.particles.is_none() && self.replicas.is_none() {
                                        FreeStage::Done
                                    } else {
                                        FreeStage::Subtract
                                    };
                            }
                        }
                    }
                }
                FreeStage::Subtract => {
                    let particles = self.particles().expect("persistent or tempering");
                    subtract_particle(rbm, particles, progress.chain, gradient);
                    spent += vh;
                    progress.chain += 1;
                    if progress.chain == chain_count {
                        progress.chain = 0;
                        progress.stage = if self.replicas.is_some() {
                            FreeStage::Swap
                        } else {
                            FreeStage::Done
                        };
                    }
                }
                FreeStage::Swap => {
                    let replicas = self.replicas.as_mut().expect("tempering");
                    replicas.swap_pair(rbm, progress.chain, rng);
                    spent += 2 * vh;
                    progress.chain += 1;
                    if progress.chain == replicas.pairs() {
                        progress.chain = 0;
                        progress.stage = FreeStage::Done;
                    }
                }
                FreeStage::Done => {}
            }
        }
        spent
    }

    /// Whether `progress` is a place the free phase can stand for a batch of `batch`
    /// vectors (every index within its stage's range).
    pub fn progress_fits(&self, progress: &FreeProgress, batch: usize) -> bool {
        let steps = self.statistics.steps();
        let (replica_count, chain_count) = match (&self.replicas, &self.particles) {
            (Some(r), _) => (r.count(), r.coldest().count()),
            (None, Some(p)) => (1, p.count()),
            (None, None) => (1, batch),
        };
        let persistent = self.particles.is_some() || self.replicas.is_some();
        let at_start = progress.replica == 0 && progress.chain == 0 && progress.step == 0;
        match progress.stage {
            FreeStage::Advance => {
                progress.replica < replica_count
                    && progress.chain < chain_count
                    && progress.step < steps
            }
            FreeStage::Subtract => {
                persistent
                    && progress.replica == 0
                    && progress.step == 0
                    && progress.chain < chain_count
            }
            FreeStage::Swap => {
                self.replicas
                    .as_ref()
                    .is_some_and(|r| progress.chain < r.pairs())
                    && progress.replica == 0
                    && progress.step == 0
            }
            FreeStage::Done => at_start,
        }
    }
}

/// A mini-batch: the training vectors `data` (N × V, flat) at positions `order` (borrowed,
/// so that a slice of an update allocates nothing).
#[derive(Debug, Clone, Copy)]
pub struct Batch<'a> {
    pub data: &'a [u8],
    pub order: &'a [usize],
    pub visible: usize,
}

impl<'a> Batch<'a> {
    /// B, the vectors in the batch.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The batch's vector k.
    pub fn vector(&self, k: usize) -> &'a [u8] {
        let i = self.order[k];
        &self.data[i * self.visible..(i + 1) * self.visible]
    }
}

/// The stage of a free phase done in slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FreeStage {
    /// Advancing the chains.
    #[default]
    Advance,
    /// Subtracting the particles' statistics.
    Subtract,
    /// Proposing the tempering swaps.
    Swap,
    /// Complete.
    Done,
}

/// Where a free phase done in slices stands: in `stage`, chain (or particle, or swap
/// pair) `chain` of replica `replica`, which has done `step` of its k steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FreeProgress {
    pub stage: FreeStage,
    pub replica: usize,
    pub chain: usize,
    pub step: usize,
}

/// Subtracts particle k's share (1/K) v⁽ᵏ⁾ ⊗ p(h | v⁽ᵏ⁾) (and the means) of the K
/// particles' statistics, just advanced.
// Inlined natively, a function of its own in wasm (see `RbmTrainer::gradient_slice_at`).
#[cfg_attr(not(target_arch = "wasm32"), inline(always))]
#[cfg_attr(target_arch = "wasm32", inline(never))]
fn subtract_particle(rbm: &Rbm, particles: &Particles, k: usize, gradient: &mut Gradient) {
    let scale = -1.0 / particles.count() as f64;
    let nh = rbm.hidden();
    gradient.add(
        particles.visible_state(k),
        &particles.hidden_probabilities()[k * nh..(k + 1) * nh],
        scale,
    );
}
