//! Sequential single-unit dynamics on a dense [`Network`], with clamping and annealing.
//!
//! A tick picks one free unit i (in index order or uniformly at random), computes its
//! local field h_i = Σ_j w_ij s_j + θ_i (O(n), from the current state), and redraws it by
//! the [`Rule`]: the unit becomes high with probability p = P(high | current value,
//! Δ_i = (s_high − s_low)·h_i, T), decided by one 32-bit random number r as
//! r < round(p·2^32). Exactly one random number is drawn per tick (two or more only when
//! Lemire's rejection step for the random order fires), whatever the outcome, so a seed
//! fixes the trajectory. Fields are real numbers, so the probability is computed per tick
//! with `libm` (bit-identical natively and in wasm) rather than read from a table.
//!
//! Clamped units never change (the paper's clamped phase); ticks and sweeps visit only the
//! free units, so a sweep is as many ticks as there are free units (the paper's "time
//! unit"; n ticks when nothing is clamped). The energy is kept incrementally:
//! when unit i goes from s_old to s_new, ΔE = −(s_new − s_old)·h_i.

use super::anneal::{Schedule, Thermal};
use super::rules::{Rule, threshold};
use crate::error::{ParamError, TemperatureDomain, check_temperature};
use crate::model::Network;
use crate::rng::{SpinRng, random_index, seeded_rng};
use rand::Rng;
use std::sync::Arc;

/// The order in which ticks visit the free units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkOrder {
    /// The free units in index order, cyclically: 0, 1, …, n − 1, 0, … (clamped skipped).
    Sequential,
    /// A free unit chosen uniformly at random each tick (the paper's "random probes").
    Random,
}

impl NetworkOrder {
    /// Both orders.
    pub const ALL: [NetworkOrder; 2] = [NetworkOrder::Sequential, NetworkOrder::Random];

    /// The order's name on the command line and in files: `sequential` or `random`.
    pub fn name(self) -> &'static str {
        match self {
            NetworkOrder::Sequential => "sequential",
            NetworkOrder::Random => "random",
        }
    }

    /// Parses an order name; the error names the field `order` and the allowed values.
    pub fn parse(name: &str) -> Result<NetworkOrder, ParamError> {
        NetworkOrder::ALL
            .into_iter()
            .find(|o| o.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "order",
                value: name.to_string(),
                allowed: "sequential, random",
            })
    }
}

/// A network, its state, the temperature, the rule, the order, the clamps and the random
/// stream: everything a tick needs. The network is shared, not copied, among samplers made
/// from one [`Arc`] ([`NetworkSampler::shared`]: the runs of an AIS estimate) and among
/// clones; a change through [`NetworkSampler::with_network_mut`] copies it first if shared.
#[derive(Debug, Clone)]
pub struct NetworkSampler {
    network: Arc<Network>,
    state: Vec<i8>,
    clamped: Vec<bool>,
    /// The free units in increasing order.
    free: Vec<u32>,
    temperature: f64,
    rule: Rule,
    order: NetworkOrder,
    rng: SpinRng,
    /// Sequential order: the position in `free` of the next unit to visit.
    cursor: usize,
    ticks: u64,
    energy: f64,
}

impl NetworkSampler {
    /// A sampler with independent random units (each low or high with probability ½,
    /// drawn from `seed`), nothing clamped, at `temperature` (0 ≤ T ≤ ∞).
    pub fn new(
        network: Network,
        temperature: f64,
        rule: Rule,
        order: NetworkOrder,
        seed: u64,
    ) -> Result<Self, ParamError> {
        NetworkSampler::shared(Arc::new(network), temperature, rule, order, seed)
    }

    /// [`NetworkSampler::new`] on a network shared with other samplers.
    pub fn shared(
        network: Arc<Network>,
        temperature: f64,
        rule: Rule,
        order: NetworkOrder,
        seed: u64,
    ) -> Result<Self, ParamError> {
        let temperature = check_temperature(temperature, TemperatureDomain::Sampling)?;
        let n = network.len();
        let mut sampler = NetworkSampler {
            state: vec![network.kind().low(); n],
            clamped: vec![false; n],
            free: (0..n as u32).collect(),
            network,
            temperature,
            rule,
            order,
            rng: seeded_rng(seed),
            cursor: 0,
            ticks: 0,
            energy: 0.0,
        };
        sampler.randomize_free_units();
        Ok(sampler)
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// Changes the network through its own checked mutators (weights, biases), then
    /// recomputes the energy. The number of units and their kind cannot change.
    pub fn with_network_mut<R>(&mut self, change: impl FnOnce(&mut Network) -> R) -> R {
        let result = change(Arc::make_mut(&mut self.network));
        self.energy = self.network.energy(&self.state);
        result
    }

    /// The state: s_i ∈ {s_low, s_high} for each unit.
    pub fn state(&self) -> &[i8] {
        &self.state
    }

    /// The visible part of the state, units 0..visible.
    pub fn visible_state(&self) -> &[i8] {
        &self.state[..self.network.visible()]
    }

    /// Sets the whole state. Refused (nothing changes) if it has the wrong length, a value
    /// that is neither s_low nor s_high, or changes a clamped unit.
    pub fn set_state(&mut self, state: &[i8]) -> Result<(), ParamError> {
        self.network.check_state("state", state)?;
        if let Some(i) = (0..state.len()).find(|&i| self.clamped[i] && state[i] != self.state[i]) {
            return Err(ParamError::Invalid {
                field: "state",
                reason: format!("unit {i} is clamped to {}", self.state[i]),
            });
        }
        self.state.copy_from_slice(state);
        self.energy = self.network.energy(&self.state);
        Ok(())
    }

    /// The temperature T.
    pub fn temperature(&self) -> f64 {
        self.temperature
    }

    /// Sets the temperature (0 ≤ T ≤ ∞); on error nothing changes.
    pub fn set_temperature(&mut self, temperature: f64) -> Result<(), ParamError> {
        self.temperature = check_temperature(temperature, TemperatureDomain::Sampling)?;
        Ok(())
    }

    /// The update rule.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Sets the update rule.
    pub fn set_rule(&mut self, rule: Rule) {
        self.rule = rule;
    }

    /// The visiting order.
    pub fn order(&self) -> NetworkOrder {
        self.order
    }

    /// Sets the visiting order (the sequential cursor is kept).
    pub fn set_order(&mut self, order: NetworkOrder) {
        self.order = order;
    }

    /// Ticks done since creation (a tick with no free unit counts but does nothing).
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// E, from the incremental bookkeeping (ΔE = −(s_new − s_old)·h_i per change).
    pub fn energy(&self) -> f64 {
        self.energy
    }

    /// E(s) recomputed from scratch, O(n²).
    pub fn recomputed_energy(&self) -> f64 {
        self.network.energy(&self.state)
    }

    /// Whether unit i is clamped. Panics if i ≥ n.
    pub fn is_clamped(&self, i: usize) -> bool {
        self.clamped[i]
    }

    /// The free (unclamped) units, in increasing order.
    pub fn free_units(&self) -> &[u32] {
        &self.free
    }

    /// Clamps `units[k]` to `values[k]` for every k (adding to any clamps already set).
    /// Refused (nothing changes) if the lengths differ, a unit is ≥ n or listed twice, or
    /// a value is neither s_low nor s_high.
    pub fn clamp(&mut self, units: &[usize], values: &[i8]) -> Result<(), ParamError> {
        let n = self.network.len();
        if units.len() != values.len() {
            return Err(ParamError::Invalid {
                field: "clamp values",
                reason: format!(
                    "need one value per clamped unit: {} units, {} values",
                    units.len(),
                    values.len()
                ),
            });
        }
        let kind = self.network.kind();
        for (k, (&i, &v)) in units.iter().zip(values).enumerate() {
            if i >= n {
                return Err(ParamError::OutOfRange {
                    field: "clamp units",
                    value: i as f64,
                    min: 0.0,
                    max: (n - 1) as f64,
                });
            }
            if units[..k].contains(&i) {
                return Err(ParamError::Invalid {
                    field: "clamp units",
                    reason: format!("unit {i} is listed twice"),
                });
            }
            if !kind.is_value(v) {
                return Err(ParamError::Invalid {
                    field: "clamp values",
                    reason: format!(
                        "{} units take the values {} and {}, got {v} for unit {i}",
                        kind.name(),
                        kind.low(),
                        kind.high()
                    ),
                });
            }
        }
        for (&i, &v) in units.iter().zip(values) {
            self.state[i] = v;
            self.clamped[i] = true;
        }
        self.energy = self.network.energy(&self.state);
        self.rebuild_free_units();
        Ok(())
    }

    /// Clamps the visible units 0..visible to `values` (length = visible); checked like
    /// [`NetworkSampler::clamp`].
    pub fn clamp_visible(&mut self, values: &[i8]) -> Result<(), ParamError> {
        let units: Vec<usize> = (0..self.network.visible()).collect();
        self.clamp(&units, values)
    }

    /// Releases every clamp; the units keep their values and are free again.
    pub fn release_all(&mut self) {
        self.clamped.fill(false);
        self.rebuild_free_units();
    }

    /// Releases the clamps on `units` (units not clamped are fine; a unit ≥ n is refused
    /// and nothing changes).
    pub fn release(&mut self, units: &[usize]) -> Result<(), ParamError> {
        let n = self.network.len();
        if let Some(&i) = units.iter().find(|&&i| i >= n) {
            return Err(ParamError::OutOfRange {
                field: "release units",
                value: i as f64,
                min: 0.0,
                max: (n - 1) as f64,
            });
        }
        for &i in units {
            self.clamped[i] = false;
        }
        self.rebuild_free_units();
        Ok(())
    }

    /// Keeps the sequential cursor on the same unit, or the next free one after it.
    fn rebuild_free_units(&mut self) {
        let next_unit = self.free.get(self.cursor).copied().unwrap_or(0);
        self.free.clear();
        self.free
            .extend((0..self.clamped.len() as u32).filter(|&i| !self.clamped[i as usize]));
        self.cursor = self.free.partition_point(|&i| i < next_unit);
        if self.cursor == self.free.len() {
            self.cursor = 0;
        }
    }

    /// Sets every free unit independently to low or high with probability ½ (one 32-bit
    /// draw per free unit, in index order: high when its top bit is 1).
    pub fn randomize_free_units(&mut self) {
        let kind = self.network.kind();
        for &i in &self.free {
            self.state[i as usize] = kind.value(self.rng.next_u32() >> 31 == 1);
        }
        self.energy = self.network.energy(&self.state);
    }

    /// One tick: pick a free unit (by the order), redraw it by the rule at temperature T,
    /// and update the energy by ΔE = −(s_new − s_old)·h_i.
    #[inline]
    pub fn tick(&mut self) {
        self.ticks += 1;
        let free = self.free.len();
        if free == 0 {
            return;
        }
        let i = match self.order {
            NetworkOrder::Sequential => {
                let i = self.free[self.cursor];
                self.cursor = if self.cursor + 1 == free {
                    0
                } else {
                    self.cursor + 1
                };
                i
            }
            NetworkOrder::Random => self.free[random_index(&mut self.rng, free as u32) as usize],
        } as usize;
        self.redraw(i);
    }

    /// Redraws unit `i` by the rule at temperature T and updates the energy by
    /// ΔE = −(s_new − s_old)·h_i (one 32-bit draw).
    #[inline]
    fn redraw(&mut self, i: usize) {
        let kind = self.network.kind();
        let field = self.network.local_field(&self.state, i);
        let old = self.state[i];
        let p =
            self.rule
                .probability_high(old == kind.high(), kind.span() * field, self.temperature);
        let new = kind.value(u64::from(self.rng.next_u32()) < threshold(p));
        if new != old {
            self.state[i] = new;
            self.energy -= f64::from(new - old) * field;
        }
    }

    /// `ticks` ticks in a row.
    pub fn run(&mut self, ticks: u64) {
        for _ in 0..ticks {
            self.tick();
        }
    }

    /// One sweep: as many ticks as there are free units (n when nothing is clamped).
    pub fn sweep(&mut self) {
        self.run(self.free.len() as u64);
    }

    /// One sweep exactly as [`Self::sweep`] (the same ticks and random numbers), calling
    /// `after_each` with the state after every tick: for statistics gathered probe by
    /// probe.
    pub fn sweep_observed(&mut self, mut after_each: impl FnMut(&[i8])) {
        for _ in 0..self.free.len() {
            self.tick();
            after_each(&self.state);
        }
    }

    /// One sweep in a fresh random permutation: every free unit is redrawn exactly once,
    /// in an order drawn uniformly from the n! orders ([`shuffle`]); `after_each` gets the
    /// state after every redraw. The order setting is not used; counts n ticks.
    pub fn sweep_permuted(&mut self, mut after_each: impl FnMut(&[i8])) {
        let mut order = self.free.clone();
        shuffle(&mut self.rng, &mut order);
        for i in order {
            self.ticks += 1;
            self.redraw(i as usize);
            after_each(&self.state);
        }
    }

    /// Simulated annealing: for each step (T, sweeps) of the schedule in turn, set the
    /// temperature to T and do that many sweeps; the temperature stays at the last step's.
    /// The whole schedule is checked first ([`Schedule::new`]); on error nothing changes.
    pub fn anneal(&mut self, schedule: &[(f64, f64)]) -> Result<(), ParamError> {
        Schedule::new(schedule)?.run(self);
        Ok(())
    }

    /// Replica exchange (Swendsen & Wang 1986; Geyer 1991) between the chains `replicas`
    /// at `temperatures` (rising; one per replica): for r = 0 … R − 2 in turn, replicas r
    /// and r + 1 swap their states with probability
    ///
    ///   min(1, exp((1/T_r − 1/T_{r+1}) (E_r − E_{r+1}))),
    ///
    /// E the network's energy. This is Metropolis on the product Π_r e^{−E(s_r)/T_r}/Z_r,
    /// which the swap leaves invariant (detailed balance), so each chain keeps sampling its
    /// own temperature's Boltzmann distribution. One 32-bit draw per pair from the
    /// sampler's own stream. Returns the number of swaps made.
    pub fn exchange_replicas(&mut self, replicas: &mut [Vec<i8>], temperatures: &[f64]) -> usize {
        debug_assert_eq!(replicas.len(), temperatures.len());
        let mut energies: Vec<f64> = replicas.iter().map(|s| self.network.energy(s)).collect();
        let mut swaps = 0;
        for r in 0..replicas.len().saturating_sub(1) {
            let log_ratio = (1.0 / temperatures[r] - 1.0 / temperatures[r + 1])
                * (energies[r] - energies[r + 1]);
            let u = crate::rng::uniform(&mut self.rng);
            if u < libm::exp(log_ratio.min(0.0)) {
                replicas.swap(r, r + 1);
                energies.swap(r, r + 1);
                swaps += 1;
            }
        }
        swaps
    }
}

/// Shuffles `items` uniformly (Fisher–Yates): for k = len − 1 down to 1, swap item k
/// with item j, j uniform on 0..=k (one [`random_index`] draw each), so each of the len!
/// orders has probability 1/len!.
pub fn shuffle(rng: &mut SpinRng, items: &mut [u32]) {
    for k in (1..items.len()).rev() {
        let j = random_index(rng, k as u32 + 1) as usize;
        items.swap(k, j);
    }
}

/// Everything that, with the network, fixes a [`NetworkSampler`]'s future: for a saved
/// run that continues exactly.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkSamplerState {
    /// s_i per unit.
    pub state: Vec<i8>,
    /// The clamp flags.
    pub clamped: Vec<bool>,
    pub temperature: f64,
    pub rule: Rule,
    pub order: NetworkOrder,
    /// The Xoshiro128++ state words ([`crate::rng::random_words`]).
    pub random_state: [u32; 4],
    /// Sequential order: the position in the free units of the next unit to visit.
    pub cursor: usize,
    pub ticks: u64,
    /// The incrementally kept energy (kept as it is, bit for bit).
    pub energy: f64,
}

impl NetworkSampler {
    /// The state that, with the network, fixes the sampler's future.
    pub fn saved_state(&self) -> NetworkSamplerState {
        NetworkSamplerState {
            state: self.state.clone(),
            clamped: self.clamped.clone(),
            temperature: self.temperature,
            rule: self.rule,
            order: self.order,
            random_state: crate::rng::random_words(&self.rng),
            cursor: self.cursor,
            ticks: self.ticks,
            energy: self.energy,
        }
    }

    /// A sampler on `network` that continues exactly where the one that gave `saved`
    /// left off. Checked: lengths, unit values, temperature, cursor, a finite energy and a
    /// random state that is not all zero; errors name `sampler state`, `sampler clamps`,
    /// `sampler cursor`, `sampler energy` or `sampler random state`.
    pub fn from_saved_state(
        network: Network,
        saved: NetworkSamplerState,
    ) -> Result<Self, ParamError> {
        let n = network.len();
        network.check_state("sampler state", &saved.state)?;
        if saved.clamped.len() != n {
            return Err(ParamError::Invalid {
                field: "sampler clamps",
                reason: format!("need {n} flags, got {}", saved.clamped.len()),
            });
        }
        if !saved.energy.is_finite() {
            return Err(ParamError::Invalid {
                field: "sampler energy",
                reason: format!("must be a finite number, got {}", saved.energy),
            });
        }
        let rng = crate::rng::rng_from_words("sampler random state", saved.random_state)?;
        let mut sampler =
            NetworkSampler::new(network, saved.temperature, saved.rule, saved.order, 0)?;
        sampler.state = saved.state;
        sampler.clamped = saved.clamped;
        sampler.free = (0..n as u32)
            .filter(|&i| !sampler.clamped[i as usize])
            .collect();
        if saved.cursor > 0 && saved.cursor >= sampler.free.len() {
            return Err(ParamError::OutOfRange {
                field: "sampler cursor",
                value: saved.cursor as f64,
                min: 0.0,
                max: sampler.free.len().saturating_sub(1) as f64,
            });
        }
        sampler.cursor = saved.cursor;
        sampler.rng = rng;
        sampler.ticks = saved.ticks;
        sampler.energy = saved.energy;
        Ok(sampler)
    }
}

impl Thermal for NetworkSampler {
    fn set_temperature(&mut self, temperature: f64) -> Result<(), ParamError> {
        NetworkSampler::set_temperature(self, temperature)
    }

    fn sweep(&mut self) {
        NetworkSampler::sweep(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::SpinKind;

    #[test]
    fn sequential_order_visits_free_units_in_index_order() {
        let net = Network::zeros(SpinKind::Ising, 5).unwrap();
        let mut sampler =
            NetworkSampler::new(net, 1.0, Rule::HeatBath, NetworkOrder::Sequential, 1).unwrap();
        sampler.clamp(&[1, 3], &[1, -1]).unwrap();
        assert_eq!(sampler.free_units(), &[0, 2, 4]);
        sampler.run(2); // visits 0 and 2; the cursor is now on unit 4
        sampler.release(&[3]).unwrap();
        assert_eq!(sampler.free_units(), &[0, 2, 3, 4]);
        assert_eq!(sampler.free_units()[sampler.cursor], 4);
    }

    #[test]
    fn bad_schedules_are_refused_before_anything_runs() {
        let net = Network::random(4, SpinKind::Binary, 1.0, 1.0, 5).unwrap();
        let mut sampler =
            NetworkSampler::new(net, 2.0, Rule::Metropolis, NetworkOrder::Random, 1).unwrap();
        let before = sampler.state().to_vec();
        for schedule in [
            vec![],
            vec![(1.0, 2.0), (f64::NAN, 1.0)],
            vec![(1.0, 2.0), (-1.0, 1.0)],
            vec![(1.0, 2.5)],
            vec![(1.0, -1.0)],
            vec![(1.0, 600_000.0), (0.5, 600_000.0)],
        ] {
            let err = sampler.anneal(&schedule).unwrap_err();
            assert!(err.to_string().starts_with("schedule"), "{err}");
        }
        assert_eq!(sampler.state(), &before[..]);
        assert_eq!((sampler.ticks(), sampler.temperature()), (0, 2.0));
        sampler.anneal(&[(20.0, 2.0), (10.0, 3.0)]).unwrap();
        assert_eq!((sampler.ticks(), sampler.temperature()), (20, 10.0));
    }

    /// One permuted sweep at T = 0 with every field positive turns every free unit high:
    /// each free unit is redrawn exactly once (random probes with replacement would miss
    /// one of 6 with probability 1 − 6!/6⁶ ≈ 0.98), the clamped units stay, and the sweep
    /// counts one tick per free unit. Exact, for many seeds.
    #[test]
    fn a_permuted_sweep_redraws_every_free_unit_once() {
        let mut net = Network::zeros(SpinKind::Binary, 8).unwrap();
        for i in 0..8 {
            net.set_bias(i, 1.0).unwrap();
        }
        for seed in 0..50 {
            let mut sampler =
                NetworkSampler::new(net.clone(), 0.0, Rule::HeatBath, NetworkOrder::Random, seed)
                    .unwrap();
            sampler.clamp(&[2, 5], &[0, 0]).unwrap();
            sampler.set_state(&[0; 8]).unwrap();
            let mut seen = 0;
            sampler.sweep_permuted(|_| seen += 1);
            assert_eq!(sampler.state(), &[1, 1, 0, 1, 1, 0, 1, 1], "seed {seed}");
            assert_eq!((seen, sampler.ticks()), (6, 6));
        }
    }

    /// Observing a sweep changes nothing: the same states and random stream as `sweep`,
    /// one call per tick, the last with the final state.
    #[test]
    fn an_observed_sweep_is_the_plain_sweep() {
        let net = Network::random(7, SpinKind::Binary, 1.0, 1.0, 3).unwrap();
        let mut plain =
            NetworkSampler::new(net.clone(), 1.0, Rule::HeatBath, NetworkOrder::Random, 9).unwrap();
        let mut observed =
            NetworkSampler::new(net, 1.0, Rule::HeatBath, NetworkOrder::Random, 9).unwrap();
        for _ in 0..20 {
            plain.sweep();
            let mut states = Vec::new();
            observed.sweep_observed(|s| states.push(s.to_vec()));
            assert_eq!(states.len(), 7);
            assert_eq!(states.last().unwrap().as_slice(), plain.state());
            assert_eq!(observed.state(), plain.state());
        }
        assert_eq!(observed.saved_state(), plain.saved_state());
    }

    /// Fisher–Yates is uniform: 24 000 shuffles of 4 items, χ² over the 24 orders against
    /// 1000 each, 23 degrees of freedom; the bound 71.2 is the 1 − 10⁻⁶ quantile
    /// (Wilson–Hilferty), so a correct shuffle fails with probability 10⁻⁶.
    #[test]
    fn shuffle_draws_every_order_equally_often() {
        let mut rng = seeded_rng(11);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..24_000 {
            let mut items = [0u32, 1, 2, 3];
            shuffle(&mut rng, &mut items);
            *counts.entry(items).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 24);
        let chi2: f64 = counts
            .values()
            .map(|&c| (f64::from(c) - 1000.0).powi(2) / 1000.0)
            .sum();
        assert!(chi2 < 71.2, "χ² = {chi2}");
    }
}
