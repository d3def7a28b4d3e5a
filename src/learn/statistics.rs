//! Ways of getting the statistics of the general (stochastic) machine, a choice
//! independent of the update rule (sign rule or gradient, [`super::Update`]).
//!
//! The learning rule needs p_ij = ⟨s_i s_j⟩ with the data clamped and p′_ij = ⟨s_i s_j⟩
//! of the model. Each phase has its own way of estimating its averages:
//!
//! Clamped phase ([`ClampedStatistics`]):
//! - [`ClampedStatistics::Anneal`]: the paper's way and today's default, unchanged: every
//!   settling starts the free units at random, anneals by the schedule and collects at T.
//! - [`ClampedStatistics::WarmStarted`]: one persistent state of the hidden units per
//!   training vector, continued from where it was left the last time that vector was
//!   shown, k heat-bath sweeps at T per presentation, each state after a sweep counted.
//! - [`ClampedStatistics::MeanField`]: damped mean-field settling of the hidden units with
//!   the vector clamped, started from q = ½ ([`mean_field_clamped`]).
//!
//! Free phase ([`FreeStatistics`]):
//! - [`FreeStatistics::Anneal`]: as the paper.
//! - [`FreeStatistics::Persistent`]: K fantasy particles kept from cycle to cycle, each
//!   advanced k sequential heat-bath sweeps at T per cycle (Tieleman 2008's persistent
//!   chains, docs/references.md §5), every state after a sweep counted; with R ≥ 2 replicas
//!   each particle is a ladder of R chains at rising temperatures that swap states
//!   (parallel tempering, [`replica_temperature`]).
//!
//! A restricted machine's ways (CD-k, persistent block Gibbs, tempering) are in
//! [`super::rbm`].

use crate::error::{ParamError, whole_in};
use crate::estimate::mean_field::{MeanFieldOptions, solve};
use crate::model::Network;
use crate::model::network::pair_count;

/// Most fantasy particles: 10 000.
pub const MAX_PARTICLES: u64 = 10_000;
/// Most sweeps per particle or warm state per cycle: 10 000.
pub const MAX_CHAIN_SWEEPS: u64 = 10_000;
/// Most particles × sweeps × replicas per cycle: 10⁶ (as a settling's sweeps).
pub const MAX_CHAIN_WORK: u64 = 1_000_000;
/// Most replicas in a tempering ladder: 32.
pub const MAX_REPLICAS: u64 = 32;

/// The damping d of the clamped mean-field settling: q_i ← (1 − d) q_i + d σ(…).
pub const MEAN_FIELD_DAMPING: f64 = 0.5;
/// Its convergence tolerance on max |Δq| over a pass.
pub const MEAN_FIELD_TOLERANCE: f64 = 1e-8;
/// Its most passes.
pub const MEAN_FIELD_PASSES: usize = 1000;

/// How the clamped-phase statistics p_i, p_ij are estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "way")]
pub enum ClampedStatistics {
    /// Each settling anneals from random free units by the schedule, then collects
    /// `collect_sweeps` states at T (Ackley, Hinton & Sejnowski 1985).
    ///
    /// Failure mode: slow (most sweeps are spent annealing) and, with few settlings, noisy;
    /// at a low T the anneal can end in a local minimum, biasing p_ij.
    Anneal,
    /// Warm start: training vector m keeps its own state of the free units, h^(m). When m
    /// is shown, the units continue from h^(m) (random the first time), do `sweeps`
    /// heat-bath sweeps at T with v^(m) clamped, every state after a sweep is counted, and
    /// the last state is kept as the new h^(m). Since the weights change little per cycle
    /// each chain stays near its equilibrium p(h | v^(m)), so p_ij = ⟨s_i s_j⟩ over the
    /// chains estimates the clamped average without annealing.
    ///
    /// Failure mode: the states are correlated from cycle to cycle; if the weights move
    /// fast (a large step, or the sign rule's fixed ±k) the chains lag behind
    /// p(h | v) and the estimate is biased, and a chain stuck in one mode of p(h | v) stays
    /// stuck: keep ε small or raise `sweeps`.
    WarmStarted {
        /// Sweeps per presentation (1 ≤ k ≤ 10⁴).
        sweeps: u64,
    },
    /// Damped mean-field settling (Peterson & Anderson 1987; Salakhutdinov & Hinton 2009
    /// pair it with persistent chains): with v^(m) clamped, q_h starts at ½ and the
    /// equations q_h = σ((s_high − s_low) h_h / T), h_h = Σ_j w_hj m_j + θ_h are solved by
    /// damped sweeps (d = [`MEAN_FIELD_DAMPING`]); p_i = m_i and p_ij = m_i m_j (exact
    /// for the clamped units, factorised for the hidden ones). Deterministic: it draws no
    /// random numbers.
    ///
    /// Failure mode: the factorised posterior is unimodal, so it cannot represent hidden
    /// units that are correlated given v (explaining away), which biases p_ij of hidden
    /// pairs; at low T the equations can have several solutions and the one found depends
    /// on the start. Solves that do not converge in [`MEAN_FIELD_PASSES`] passes are
    /// counted in the cycle's `nonconverged`.
    MeanField,
}

/// How the free-phase statistics p′_i, p′_ij are estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "way")]
pub enum FreeStatistics {
    /// As many annealed settlings as the clamped phase does (the paper's way).
    Anneal,
    /// Persistent chains: K fantasy particles s^(1..K), random at the start, each advanced
    /// `sweeps` sequential-probe heat-bath sweeps at T per cycle (nothing clamped) and
    /// never reset; p′_ij = ⟨s_i s_j⟩ over the K·k states after each sweep. With the
    /// weights fixed the particles are Markov chains with the Boltzmann distribution as
    /// their stationary law, so the estimate is consistent (tests/general_statistics.rs
    /// checks the χ² of the sampled distribution against enumeration).
    ///
    /// Failure mode: the chains need the weights to move slowly compared with their mixing:
    /// with a large learning rate (or the sign rule's ±k) the particles lag the model,
    /// the learning signal then comes from a distribution that is no longer the model's
    /// and learning can oscillate or diverge; a small ε (and momentum) keeps them close.
    /// With few particles p′ is noisy; at low T the particles mix slowly between modes.
    ///
    /// With `replicas` R ≥ 2 it is parallel tempering (Swendsen & Wang 1986; Geyer 1991;
    /// Desjardins et al. 2010 for Boltzmann machines): each particle is a ladder of R
    /// chains at T_r = T / (1 − r/R), r = 0 … R − 1 ([`replica_temperature`]; the same
    /// ladder as the restricted machine's). Per cycle every chain of the ladder does k
    /// sweeps at its own T_r, then neighbouring chains swap states with probability
    /// min(1, e^{(1/T_r − 1/T_{r+1})(E_r − E_{r+1})})
    /// ([`crate::dynamics::NetworkSampler::exchange_replicas`]); only the chain at T is
    /// counted. The hot chains cross energy barriers that the chain at T cannot, and hand
    /// their states down. Failure mode: it costs R times the sweeps of plain persistent
    /// chains, and it helps only while neighbouring temperatures overlap (swaps are
    /// accepted): with too few replicas for the machine's energy range the swaps stop
    /// and it is R separate runs of which one is used. Like every persistent way it still
    /// needs a small learning rate.
    Persistent {
        /// Fantasy particles K (1 ≤ K ≤ 10⁴).
        particles: u64,
        /// Sweeps per particle per cycle (1 ≤ k ≤ 10⁴); K·k·R ≤ 10⁶.
        sweeps: u64,
        /// Chains per particle R (1 ≤ R ≤ [`MAX_REPLICAS`]; 1: plain persistent chains;
        /// sessions saved before tempering existed have none and read as 1).
        #[serde(default = "one_replica")]
        replicas: u64,
    },
}

fn one_replica() -> u64 {
    1
}

/// The temperature of chain r of a tempering ladder of R chains whose coldest is at T:
/// T_r = T / (1 − r/R), so the inverse temperatures 1/T_r = (1 − r/R)/T fall evenly from
/// 1/T to 1/(R T) (r = 0 is T itself).
pub fn replica_temperature(temperature: f64, r: u64, replicas: u64) -> f64 {
    temperature / (1.0 - r as f64 / replicas as f64)
}

/// The way of getting each phase's statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GeneralStatistics {
    /// The clamped phase's way.
    pub clamped: ClampedStatistics,
    /// The free phase's way.
    pub free: FreeStatistics,
}

impl Default for GeneralStatistics {
    fn default() -> Self {
        GeneralStatistics::ANNEAL
    }
}

/// The names of the combinations the command line and the page offer.
pub const STATISTICS_NAMES: &str =
    "anneal, persistent, persistent-free, mean-field-persistent, tempering";

impl GeneralStatistics {
    /// Both phases annealed: the paper's method, unchanged.
    pub const ANNEAL: GeneralStatistics = GeneralStatistics {
        clamped: ClampedStatistics::Anneal,
        free: FreeStatistics::Anneal,
    };

    /// `persistent`: warm-started clamped phase and persistent free phase, both with k
    /// sweeps per cycle.
    pub fn persistent(particles: u64, sweeps: u64) -> GeneralStatistics {
        GeneralStatistics {
            clamped: ClampedStatistics::WarmStarted { sweeps },
            free: FreeStatistics::Persistent {
                particles,
                sweeps,
                replicas: 1,
            },
        }
    }

    /// `tempering`: warm-started clamped phase, as `persistent`, and a free phase of K
    /// ladders of R tempered chains, each chain k sweeps per cycle.
    pub fn tempering(particles: u64, sweeps: u64, replicas: u64) -> GeneralStatistics {
        GeneralStatistics {
            clamped: ClampedStatistics::WarmStarted { sweeps },
            free: FreeStatistics::Persistent {
                particles,
                sweeps,
                replicas,
            },
        }
    }

    /// `persistent-free`: the annealed clamped phase and a persistent free phase.
    pub fn persistent_free(particles: u64, sweeps: u64) -> GeneralStatistics {
        GeneralStatistics {
            clamped: ClampedStatistics::Anneal,
            free: FreeStatistics::Persistent {
                particles,
                sweeps,
                replicas: 1,
            },
        }
    }

    /// `mean-field-persistent`: mean-field clamped phase and persistent free phase.
    pub fn mean_field_persistent(particles: u64, sweeps: u64) -> GeneralStatistics {
        GeneralStatistics {
            clamped: ClampedStatistics::MeanField,
            free: FreeStatistics::Persistent {
                particles,
                sweeps,
                replicas: 1,
            },
        }
    }

    /// A named combination ([`STATISTICS_NAMES`]) with K particles, k sweeps (unused by
    /// `anneal`) and R replicas (used by `tempering` only, 2 ≤ R ≤ [`MAX_REPLICAS`]); the
    /// error names `statistics` or `replicas`.
    pub fn parse(
        name: &str,
        particles: u64,
        sweeps: u64,
        replicas: u64,
    ) -> Result<Self, ParamError> {
        let s = match name {
            "anneal" => GeneralStatistics::ANNEAL,
            "persistent" => GeneralStatistics::persistent(particles, sweeps),
            "tempering" => {
                whole_in("replicas", replicas as f64, 2, MAX_REPLICAS)?;
                GeneralStatistics::tempering(particles, sweeps, replicas)
            }
            "persistent-free" => GeneralStatistics::persistent_free(particles, sweeps),
            "mean-field-persistent" => GeneralStatistics::mean_field_persistent(particles, sweeps),
            other => {
                return Err(ParamError::UnknownChoice {
                    field: "statistics",
                    value: crate::error::shorten(other),
                    allowed: STATISTICS_NAMES,
                });
            }
        };
        s.check()?;
        Ok(s)
    }

    /// The combination's name, or `clamped+free` ways for one without a name.
    pub fn name(&self) -> String {
        use ClampedStatistics as C;
        use FreeStatistics as F;
        match (self.clamped, self.free) {
            (C::Anneal, F::Anneal) => "anneal".into(),
            (
                C::WarmStarted { sweeps: a },
                F::Persistent {
                    sweeps: b,
                    replicas: 1,
                    ..
                },
            ) if a == b => "persistent".into(),
            (
                C::WarmStarted { sweeps: a },
                F::Persistent {
                    sweeps: b,
                    replicas: 2..,
                    ..
                },
            ) if a == b => "tempering".into(),
            (C::Anneal, F::Persistent { replicas: 1, .. }) => "persistent-free".into(),
            (C::MeanField, F::Persistent { replicas: 1, .. }) => "mean-field-persistent".into(),
            (c, f) => format!("{}+{}", c.name(), f.name()),
        }
    }

    /// Fantasy particles K (0 for an annealed free phase).
    pub fn particles(&self) -> u64 {
        match self.free {
            FreeStatistics::Persistent { particles, .. } => particles,
            FreeStatistics::Anneal => 0,
        }
    }

    /// Chains per fantasy particle R (1 unless tempering; 0 for an annealed free phase).
    pub fn replicas(&self) -> u64 {
        match self.free {
            FreeStatistics::Persistent { replicas, .. } => replicas,
            FreeStatistics::Anneal => 0,
        }
    }

    /// Checks 1 ≤ sweeps ≤ 10⁴, 1 ≤ K ≤ 10⁴, 1 ≤ R ≤ [`MAX_REPLICAS`] and K·k·R ≤ 10⁶;
    /// errors name `gibbs steps`, `particles`, `replicas` or `particles × gibbs steps`
    /// (`… × replicas` when R ≥ 2).
    pub fn check(&self) -> Result<(), ParamError> {
        if let ClampedStatistics::WarmStarted { sweeps } = self.clamped {
            whole_in("gibbs steps", sweeps as f64, 1, MAX_CHAIN_SWEEPS)?;
        }
        if let FreeStatistics::Persistent {
            particles,
            sweeps,
            replicas,
        } = self.free
        {
            whole_in("particles", particles as f64, 1, MAX_PARTICLES)?;
            whole_in("gibbs steps", sweeps as f64, 1, MAX_CHAIN_SWEEPS)?;
            whole_in("replicas", replicas as f64, 1, MAX_REPLICAS)?;
            let field = if replicas == 1 {
                "particles × gibbs steps"
            } else {
                "particles × gibbs steps × replicas"
            };
            whole_in(
                field,
                (particles * sweeps * replicas) as f64,
                1,
                MAX_CHAIN_WORK,
            )?;
        }
        Ok(())
    }
}

impl ClampedStatistics {
    /// `anneal`, `warm-started` or `mean-field`.
    pub fn name(self) -> &'static str {
        match self {
            ClampedStatistics::Anneal => "anneal",
            ClampedStatistics::WarmStarted { .. } => "warm-started",
            ClampedStatistics::MeanField => "mean-field",
        }
    }
}

impl FreeStatistics {
    /// `anneal`, `persistent` or `tempering`.
    pub fn name(self) -> &'static str {
        match self {
            FreeStatistics::Anneal => "anneal",
            FreeStatistics::Persistent { replicas: 1, .. } => "persistent",
            FreeStatistics::Persistent { .. } => "tempering",
        }
    }
}

/// The clamped mean-field settling's solver: damping [`MEAN_FIELD_DAMPING`], tolerance
/// [`MEAN_FIELD_TOLERANCE`], at most [`MEAN_FIELD_PASSES`] passes, no annealing.
pub fn mean_field_options() -> MeanFieldOptions {
    MeanFieldOptions {
        damping: MEAN_FIELD_DAMPING,
        tolerance: MEAN_FIELD_TOLERANCE,
        max_passes: MEAN_FIELD_PASSES,
        anneal: Vec::new(),
    }
}

/// The mean-field clamped statistics of `network` at T over the clamped vectors
/// `presented` (0/1, one per visible unit; one solution each, averaged):
///
///   p_i = (1/M) Σ_m m_i^(m),   p_ij = (1/M) Σ_m m_i^(m) m_j^(m),
///
/// with m^(m) the damped mean-field solution started from q = ½ with v^(m) clamped
/// ([`ClampedStatistics::MeanField`]). Returns (Σ means, Σ pairs, solves that did not
/// converge); the caller divides by M.
pub fn mean_field_clamped(
    network: &Network,
    temperature: f64,
    presented: &[Vec<u8>],
) -> Result<(Vec<f64>, Vec<f64>, u64), ParamError> {
    let n = network.len();
    let kind = network.kind();
    let options = mean_field_options();
    let mut means = vec![0.0; n];
    let mut pairs = vec![0.0; pair_count(n)];
    let mut nonconverged = 0;
    let mut clamp = vec![None; n];
    let start = vec![0.5; n];
    for v in presented {
        for (c, &bit) in clamp.iter_mut().zip(v) {
            *c = Some(kind.value(bit == 1));
        }
        let solution = solve(network, temperature, &clamp, Some(&start), &options)?;
        nonconverged += u64::from(!solution.converged);
        let m = &solution.means;
        let mut k = 0;
        for i in 0..n {
            means[i] += m[i];
            for j in i + 1..n {
                pairs[k] += m[i] * m[j];
                k += 1;
            }
        }
    }
    Ok((means, pairs, nonconverged))
}
