//! Sequential heat-bath sampling of the square-lattice Ising model.
//!
//! The sampler owns the spins and visits sites in sequential (typewriter) order,
//! x fastest. The energy and magnetisation are kept up to date incrementally in integer
//! arithmetic (the bond sum Σ s_i s_j and M = Σ s_i), so E/N and M/N cost nothing to read
//! and never drift from a full recomputation.

use super::rules::{heat_bath_up_probability, threshold};
use super::{SpinRng, check_temperature, seeded_rng};
use crate::error::ParamError;
use crate::model::Lattice;
use rand::Rng;

/// A lattice, its spins, the temperature and the random stream: everything a tick needs.
#[derive(Debug, Clone)]
pub struct LatticeSampler {
    lattice: Lattice,
    spins: Vec<i8>,
    temperature: f64,
    rng: SpinRng,
    /// Heat-bath thresholds indexed by (S + 4) / 2, S = Σ_nb s_j ∈ {−4, −2, 0, 2, 4}.
    up_threshold: [u64; 5],
    /// The next site to visit, as (x, y) and as the index x + W·y.
    cursor: (usize, usize),
    cursor_index: usize,
    ticks: u64,
    bond_sum: i64,
    magnetization: i64,
}

impl LatticeSampler {
    /// A sampler with independent random spins (each ±1 with probability ½) drawn from
    /// `seed`, at `temperature` (0 ≤ T ≤ ∞).
    pub fn new(lattice: Lattice, temperature: f64, seed: u64) -> Result<Self, ParamError> {
        let temperature = check_temperature(temperature)?;
        let mut rng = seeded_rng(seed);
        let spins: Vec<i8> = (0..lattice.len())
            .map(|_| if rng.next_u32() >> 31 == 1 { 1 } else { -1 })
            .collect();
        let mut sampler = LatticeSampler {
            bond_sum: lattice.bond_sum(&spins),
            magnetization: lattice.magnetization(&spins),
            lattice,
            spins,
            temperature,
            rng,
            up_threshold: [0; 5],
            cursor: (0, 0),
            cursor_index: 0,
            ticks: 0,
        };
        sampler.rebuild_tables();
        Ok(sampler)
    }

    fn rebuild_tables(&mut self) {
        let (j, h, t) = (
            self.lattice.coupling(),
            self.lattice.field(),
            self.temperature,
        );
        for (k, slot) in self.up_threshold.iter_mut().enumerate() {
            let neighbour_sum = 2.0 * k as f64 - 4.0;
            *slot = threshold(heat_bath_up_probability(j * neighbour_sum + h, t));
        }
    }

    /// Sets the temperature (0 ≤ T ≤ ∞); on error nothing changes.
    pub fn set_temperature(&mut self, temperature: f64) -> Result<(), ParamError> {
        self.temperature = check_temperature(temperature)?;
        self.rebuild_tables();
        Ok(())
    }

    pub fn temperature(&self) -> f64 {
        self.temperature
    }

    pub fn lattice(&self) -> &Lattice {
        &self.lattice
    }

    /// The spins, s_i = ±1, site i = x + W·y.
    pub fn spins(&self) -> &[i8] {
        &self.spins
    }

    /// Number of ticks done since creation.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Sweeps done: ticks / N.
    pub fn sweeps(&self) -> f64 {
        self.ticks as f64 / self.lattice.len() as f64
    }

    /// The site the next tick will visit.
    pub fn next_site(&self) -> usize {
        self.cursor_index
    }

    /// E, from the incremental bookkeeping.
    pub fn energy(&self) -> f64 {
        self.lattice
            .energy_from_sums(self.bond_sum, self.magnetization)
    }

    /// M = Σ s_i, from the incremental bookkeeping.
    pub fn magnetization(&self) -> i64 {
        self.magnetization
    }

    /// E/N.
    pub fn energy_per_spin(&self) -> f64 {
        self.energy() / self.lattice.len() as f64
    }

    /// M/N.
    pub fn magnetization_per_spin(&self) -> f64 {
        self.magnetization as f64 / self.lattice.len() as f64
    }

    /// Sets every spin to `spin` (±1); the cursor and tick count are kept.
    pub fn fill(&mut self, spin: i8) {
        let spin = if spin >= 0 { 1 } else { -1 };
        self.spins.fill(spin);
        self.bond_sum = self.lattice.bond_sum(&self.spins);
        self.magnetization = self.lattice.magnetization(&self.spins);
    }

    /// One tick: the heat-bath rule at the cursor's site, then the cursor moves on.
    #[inline]
    pub fn tick(&mut self) {
        let (w, h) = (self.lattice.width(), self.lattice.height());
        let (x, y) = self.cursor;
        let i = self.cursor_index;
        let left = if x == 0 { i + w - 1 } else { i - 1 };
        let right = if x + 1 == w { i + 1 - w } else { i + 1 };
        let up = if y == 0 { i + w * (h - 1) } else { i - w };
        let down = if y + 1 == h { i - w * (h - 1) } else { i + w };
        let s = &self.spins;
        let neighbour_sum = i32::from(s[left] + s[right] + s[up] + s[down]);
        let r = u64::from(self.rng.next_u32());
        let new = if r < self.up_threshold[((neighbour_sum + 4) >> 1) as usize] {
            1
        } else {
            -1
        };
        let old = self.spins[i];
        if new != old {
            self.spins[i] = new;
            // Flipping s_i to `new` changes Σ s_i s_j by 2·new·S and M by 2·new.
            self.bond_sum += 2 * i64::from(new) * i64::from(neighbour_sum);
            self.magnetization += 2 * i64::from(new);
        }
        self.ticks += 1;
        if x + 1 < w {
            self.cursor = (x + 1, y);
            self.cursor_index = i + 1;
        } else if y + 1 < h {
            self.cursor = (0, y + 1);
            self.cursor_index = i + 1;
        } else {
            self.cursor = (0, 0);
            self.cursor_index = 0;
        }
    }

    /// `ticks` ticks in a row.
    pub fn run(&mut self, ticks: u64) {
        for _ in 0..ticks {
            self.tick();
        }
    }

    /// One sweep: N ticks.
    pub fn sweep(&mut self) {
        self.run(self.lattice.len() as u64);
    }
}
