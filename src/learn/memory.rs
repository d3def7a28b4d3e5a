//! Storing patterns in a Hopfield network, and reading them back: Hebb's rule, Hebb minus
//! unlearning (Hopfield, Feinstein & Palmer 1983), and the Boltzmann rule with no hidden
//! units (clamped minus free), and the capacity experiment that compares them.
//!
//! Every rule ends in an ordinary Ising [`Network`] with no biases, and recall is the same
//! sequential tick as every other network ([`NetworkSampler`], heat-bath; at T = 0 energy
//! descent, ties by a fair coin). The three rules are one family, w = (clamped statistics)
//! − (free statistics):
//!
//! - **Hebb:** w_ij = (1/N) Σ_μ ξ_i^μ ξ_j^μ, the clamped phase alone;
//! - **unlearning:** after Hebb, `steps` times: relax from a random state at T = 0 to a
//!   stable state s*, and w_ij ← w_ij − (ε/N) s*_i s*_j. The free phase of a T = 0 machine,
//!   which visits the spurious minima and raises them;
//! - **Boltzmann:** from w = 0, `updates` times: w_ij ← w_ij + η (⟨s_i s_j⟩_data −
//!   ⟨s_i s_j⟩_free), the free statistics from persistent heat-bath chains at temperature T
//!   (one sweep each per update). The full rule of Ackley, Hinton & Sejnowski (1985) with no
//!   hidden units.

use crate::dynamics::{NetworkOrder, NetworkSampler, Rule};
use crate::error::{ParamError, finite_in, whole_in};
use crate::model::memory::{Patterns, RECALLED_OVERLAP, Recall};
use crate::model::network::{Network, SpinKind, pair_count, pair_index};
use crate::rng::seeded_rng;

/// How the patterns are stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Storage {
    /// Hebb's rule alone.
    Hebb,
    /// Hebb, then `steps` unlearning steps of size ε (Hopfield, Feinstein & Palmer 1983).
    Unlearning { steps: usize, epsilon: f64 },
    /// The Boltzmann rule with no hidden units: `updates` updates of rate η, free statistics
    /// from `chains` persistent chains at `temperature`.
    Boltzmann {
        updates: usize,
        rate: f64,
        chains: usize,
        temperature: f64,
    },
}

impl Storage {
    /// The rule names on the command line.
    pub const NAMES: &'static str = "hebb, unlearning, boltzmann";

    /// Hopfield, Feinstein & Palmer's unlearning with ε = 0.01 and N/2 steps.
    pub fn unlearning(units: usize) -> Storage {
        Storage::Unlearning {
            steps: units / 2,
            epsilon: 0.01,
        }
    }

    /// The Boltzmann rule: 200 updates of rate 0.1, 20 chains at T = 1.
    pub fn boltzmann() -> Storage {
        Storage::Boltzmann {
            updates: 200,
            rate: 0.1,
            chains: 20,
            temperature: 1.0,
        }
    }

    /// A rule by its name, with its default settings for `units` units.
    pub fn parse(name: &str, units: usize) -> Result<Storage, ParamError> {
        match name {
            "hebb" => Ok(Storage::Hebb),
            "unlearning" => Ok(Storage::unlearning(units)),
            "boltzmann" => Ok(Storage::boltzmann()),
            _ => Err(ParamError::UnknownChoice {
                field: "rule",
                value: name.to_string(),
                allowed: Storage::NAMES,
            }),
        }
    }

    /// The rule's name.
    pub fn name(&self) -> &'static str {
        match self {
            Storage::Hebb => "hebb",
            Storage::Unlearning { .. } => "unlearning",
            Storage::Boltzmann { .. } => "boltzmann",
        }
    }

    /// The rule's settings by name (none for Hebb), for reports.
    pub fn settings(&self) -> Vec<(&'static str, f64)> {
        match *self {
            Storage::Hebb => vec![],
            Storage::Unlearning { steps, epsilon } => {
                vec![("steps", steps as f64), ("epsilon", epsilon)]
            }
            Storage::Boltzmann {
                updates,
                rate,
                chains,
                temperature,
            } => vec![
                ("updates", updates as f64),
                ("rate", rate),
                ("chains", chains as f64),
                ("temperature", temperature),
            ],
        }
    }

    /// Checks the settings: steps and updates ≤ 10⁶, 0 ≤ ε ≤ 1, 0 < η ≤ 10, 1 ≤ chains ≤ 1000,
    /// 0 < T ≤ 100.
    pub fn check(self) -> Result<Storage, ParamError> {
        match self {
            Storage::Hebb => {}
            Storage::Unlearning { steps, epsilon } => {
                whole_in("unlearning steps", steps as f64, 0, 1_000_000)?;
                finite_in("epsilon", epsilon, 0.0, 1.0)?;
            }
            Storage::Boltzmann {
                updates,
                rate,
                chains,
                temperature,
            } => {
                whole_in("updates", updates as f64, 0, 1_000_000)?;
                finite_in("rate", rate, 0.0, 10.0)?;
                whole_in("chains", chains as f64, 1, 1000)?;
                finite_in("learning temperature", temperature, 1e-6, 100.0)?;
                if rate == 0.0 {
                    return Err(ParamError::OutOfRange {
                        field: "rate",
                        value: 0.0,
                        min: f64::MIN_POSITIVE,
                        max: 10.0,
                    });
                }
            }
        }
        Ok(self)
    }

    /// The network that stores `patterns` by this rule; `seed` fixes the random starts
    /// (unlearning) and chains (Boltzmann).
    pub fn store(self, patterns: &Patterns, seed: u64) -> Result<Network, ParamError> {
        match self.check()? {
            Storage::Hebb => Ok(patterns.hebb_network()),
            Storage::Unlearning { steps, epsilon } => {
                Ok(unlearn(patterns.hebb_network(), steps, epsilon, seed))
            }
            Storage::Boltzmann {
                updates,
                rate,
                chains,
                temperature,
            } => Ok(boltzmann(
                patterns,
                updates,
                rate,
                chains,
                temperature,
                seed,
            )),
        }
    }
}

/// Most sweeps a zero-temperature relaxation may take before it is called unfinished.
pub const MAX_RELAX_SWEEPS: usize = 200;

/// Whether `state` is a fixed point of zero-temperature dynamics: every unit agrees with
/// its local field, s_i h_i ≥ 0 (a unit with h_i = 0 may flip by the fair coin without
/// changing the energy, and counts as stable).
pub fn is_stable(network: &Network, state: &[i8]) -> bool {
    (0..network.len()).all(|i| f64::from(state[i]) * network.local_field(state, i) >= 0.0)
}

/// Zero-temperature sequential sweeps until the state is stable (at most `max_sweeps`);
/// returns the sweeps done, or `None` if it was still moving. The sampler must be at T = 0.
pub fn relax(sampler: &mut NetworkSampler, max_sweeps: usize) -> Option<usize> {
    for sweeps in 0..=max_sweeps {
        if is_stable(sampler.network(), sampler.state()) {
            return Some(sweeps);
        }
        if sweeps < max_sweeps {
            sampler.sweep();
        }
    }
    None
}

/// A zero-temperature sequential sampler on `network` (heat-bath, whose T = 0 limit is
/// descent with fair-coin ties), random start from `seed`.
fn descent(network: Network, seed: u64) -> NetworkSampler {
    NetworkSampler::new(network, 0.0, Rule::HeatBath, NetworkOrder::Sequential, seed)
        .expect("T = 0 is a sampling temperature")
}

/// Unlearning: `steps` times, relax a random state at T = 0 to a stable state s* and
/// subtract w_ij ← w_ij − (ε/N) s*_i s*_j (Hopfield, Feinstein & Palmer 1983). A
/// relaxation still moving after [`MAX_RELAX_SWEEPS`] is unlearned where it stopped.
pub fn unlearn(network: Network, steps: usize, epsilon: f64, seed: u64) -> Network {
    let n = network.len();
    let scale = epsilon / n as f64;
    let mut sampler = descent(network, seed);
    let mut delta = vec![0.0; pair_count(n)];
    for _ in 0..steps {
        sampler.randomize_free_units();
        relax(&mut sampler, MAX_RELAX_SWEEPS);
        let s = sampler.state();
        for i in 0..n {
            for j in i + 1..n {
                delta[pair_index(n, i, j)] = -scale * f64::from(s[i] * s[j]);
            }
        }
        sampler
            .with_network_mut(|net| net.add_to_weights(&delta))
            .expect("an unlearning step moves each weight by ε/N ≤ 1");
    }
    sampler.network().clone()
}

/// The Boltzmann rule with no hidden units: from w = 0, `updates` times,
/// w_ij ← w_ij + η (⟨s_i s_j⟩_data − ⟨s_i s_j⟩_free), where ⟨s_i s_j⟩_data = (1/P) Σ_μ ξ_i^μ ξ_j^μ
/// and ⟨s_i s_j⟩_free is the mean over `chains` persistent heat-bath chains at
/// `temperature`, each swept once per update.
pub fn boltzmann(
    patterns: &Patterns,
    updates: usize,
    rate: f64,
    chains: usize,
    temperature: f64,
    seed: u64,
) -> Network {
    let n = patterns.units();
    let p = patterns.count() as f64;
    let hebb = patterns.hebb_weights();
    // (1/P) Σ ξξ = (N/P) · Hebb, per pair.
    let clamped: Vec<f64> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .map(|(i, j)| hebb[i * n + j] * n as f64 / p)
        .collect();
    let network = Network::zeros(SpinKind::Ising, n).expect("1 ≤ N ≤ the network limit");
    // One sampler carries every chain in turn: its state is swapped in, swept once, and
    // swapped out; the chains start independent and uniform.
    let mut sampler = NetworkSampler::new(
        network,
        temperature,
        Rule::HeatBath,
        NetworkOrder::Sequential,
        seed,
    )
    .expect("the learning temperature was checked");
    let mut states: Vec<Vec<i8>> = (0..chains)
        .map(|_| {
            sampler.randomize_free_units();
            sampler.state().to_vec()
        })
        .collect();
    let mut free = vec![0.0; pair_count(n)];
    let mut delta = vec![0.0; pair_count(n)];
    for _ in 0..updates {
        free.iter_mut().for_each(|f| *f = 0.0);
        for state in &mut states {
            sampler.set_state(state).expect("a chain's own state");
            sampler.sweep();
            state.copy_from_slice(sampler.state());
            for i in 0..n {
                let a = state[i];
                for j in i + 1..n {
                    free[pair_index(n, i, j)] += f64::from(a * state[j]);
                }
            }
        }
        let m = states.len() as f64;
        for ((d, &c), &f) in delta.iter_mut().zip(&clamped).zip(&free) {
            *d = rate * (c - f / m);
        }
        // Each update moves a weight by at most 2η ≤ 20: a run would need 50 000 updates in
        // one direction to reach the network's ±10⁶ limit; it stops there (the weights stay).
        if sampler
            .with_network_mut(|net| net.add_to_weights(&delta))
            .is_err()
        {
            break;
        }
    }
    sampler.network().clone()
}

/// How a capacity run recalls: at T = 0, sweeps until stable (at most [`MAX_RELAX_SWEEPS`]);
/// at T > 0, `sweeps` heat-bath sweeps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recalling {
    pub temperature: f64,
    pub sweeps: usize,
}

/// What a capacity experiment measured over its runs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Capacity {
    /// Each run's mean overlap m^μ of the state reached from stored pattern μ with μ.
    pub run_overlaps: Vec<f64>,
    /// Recalls (over all runs and patterns) that ended within 1 % of their pattern.
    pub recalled: usize,
    /// Recalls in all.
    pub recalls: usize,
    /// Where the relaxations from random states ended: a stored pattern, a reversed pattern,
    /// a three-pattern mixture, something else.
    pub from_random: [usize; 4],
}

impl Capacity {
    /// Mean and standard error of the runs' mean overlaps; no standard error (`None`) from
    /// one run, which has no spread to estimate it from.
    pub fn overlap_estimate(&self) -> (f64, Option<f64>) {
        let r = self.run_overlaps.len() as f64;
        let mean = self.run_overlaps.iter().sum::<f64>() / r;
        if self.run_overlaps.len() < 2 {
            return (mean, None);
        }
        let var = self
            .run_overlaps
            .iter()
            .map(|m| (m - mean) * (m - mean))
            .sum::<f64>()
            / (r - 1.0);
        (mean, Some((var / r).sqrt()))
    }

    /// [`Capacity::overlap_estimate`] as two numbers: the standard error is NaN for one run
    /// (not 0, which would claim certainty).
    pub fn overlap(&self) -> (f64, f64) {
        let (mean, stderr) = self.overlap_estimate();
        (mean, stderr.unwrap_or(f64::NAN))
    }
}

/// The settings of a capacity experiment (checked by [`Experiment::check`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Experiment {
    /// N.
    pub units: usize,
    /// P.
    pub patterns: usize,
    pub storage: Storage,
    pub recalling: Recalling,
    /// Relaxations from random states per run, at T = 0, to count the spurious states.
    pub random_starts: usize,
    /// Run r draws from three streams, seeds 3(seed + r), 3(seed + r) + 1 and 3(seed + r) + 2:
    /// its patterns, its storage rule's random starts or chains, its recall ties and starts.
    pub seed: u64,
}

impl Experiment {
    /// Checks every setting (1 ≤ P ≤ N ≤ 2048, the rule's settings, 1 ≤ sweeps ≤ 10⁶,
    /// random starts ≤ 10⁴, 0 ≤ T ≤ ∞).
    pub fn check(self) -> Result<Experiment, ParamError> {
        crate::model::memory::check_shape(self.units, self.patterns)?;
        whole_in("random starts", self.random_starts as f64, 0, 10_000)?;
        whole_in("sweeps", self.recalling.sweeps as f64, 1, 1_000_000)?;
        crate::error::check_temperature(
            self.recalling.temperature,
            crate::error::TemperatureDomain::Sampling,
        )?;
        self.storage.check()?;
        Ok(self)
    }

    /// One run: draw the patterns, store them, start at each stored pattern and recall (at
    /// T = 0 until stable; at T > 0 for the set sweeps), then relax the random starts at
    /// T = 0 and say where they end.
    pub fn run(&self, run: u64) -> Result<Capacity, ParamError> {
        let this = self.check()?;
        // Three unrelated streams per run (SplitMix64 expands each seed): the patterns, the
        // storage rule's starts or chains, and the recall's ties and random starts.
        let stream = |k: u64| this.seed.wrapping_add(run).wrapping_mul(3).wrapping_add(k);
        let stored = Patterns::random(this.units, this.patterns, &mut seeded_rng(stream(0)))?;
        let network = this.storage.store(&stored, stream(1))?;
        let mut sampler = NetworkSampler::new(
            network,
            this.recalling.temperature,
            Rule::HeatBath,
            NetworkOrder::Sequential,
            stream(2),
        )?;
        let mut result = Capacity::default();
        let mut sum = 0.0;
        for mu in 0..this.patterns {
            sampler.set_state(stored.pattern(mu))?;
            if this.recalling.temperature == 0.0 {
                relax(&mut sampler, MAX_RELAX_SWEEPS);
            } else {
                (0..this.recalling.sweeps).for_each(|_| sampler.sweep());
            }
            let m = stored.overlap(mu, sampler.state());
            sum += m;
            result.recalled += usize::from(m >= RECALLED_OVERLAP);
            result.recalls += 1;
        }
        result.run_overlaps.push(sum / this.patterns as f64);
        sampler.set_temperature(0.0)?;
        for _ in 0..this.random_starts {
            sampler.randomize_free_units();
            relax(&mut sampler, MAX_RELAX_SWEEPS);
            let kind = match stored.classify(sampler.state()) {
                Recall::Pattern {
                    reversed: false, ..
                } => 0,
                Recall::Pattern { reversed: true, .. } => 1,
                Recall::Mixture { .. } => 2,
                Recall::Other => 3,
            };
            result.from_random[kind] += 1;
        }
        Ok(result)
    }

    /// Runs 0..`runs` in order, merged ([`Capacity::merge`]); the same as any split of the
    /// runs merged in run order.
    pub fn runs(&self, runs: u64) -> Result<Capacity, ParamError> {
        whole_in("runs", runs as f64, 1, 10_000)?;
        let mut total = Capacity::default();
        for run in 0..runs {
            total.merge(self.run(run)?);
        }
        Ok(total)
    }
}

impl Capacity {
    /// Appends a later run's (or runs') results.
    pub fn merge(&mut self, other: Capacity) {
        self.run_overlaps.extend(other.run_overlaps);
        self.recalled += other.recalled;
        self.recalls += other.recalls;
        for (a, b) in self.from_random.iter_mut().zip(other.from_random) {
            *a += b;
        }
    }
}
