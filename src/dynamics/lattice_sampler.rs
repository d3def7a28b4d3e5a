//! Single-spin and cluster sampling of the square-lattice Ising model.
//!
//! The sampler owns the spins, the temperature, the update [`Dynamics`] (heat-bath,
//! Metropolis or Wolff clusters), the visiting [`Order`], a clamp mask and the random
//! stream. The energy and magnetisation are kept up to date incrementally: in integer
//! arithmetic for uniform and ±J couplings (the bond sum Σ c_b s_i s_j and M = Σ s_i, so
//! they never drift from a full recomputation), in floating point for real couplings.

use super::anneal::{Schedule, Thermal};
use super::cluster::WolffClusters;
use super::lanes::{self, LaneChange, LaneStreams, LaneTable};
use super::rules::{acceptance_table, threshold};
use super::wavefront::{Decision, Wavefront, Words};
use super::{Order, Rule};
use crate::error::{ParamError, TemperatureDomain, check_temperature};
use crate::model::Lattice;
use crate::model::lattice::{Boundary, Couplings, Neighbour};
use crate::rng::{SpinRng, random_index, seeded_rng};
use rand::{Rng, SeedableRng};

/// How a lattice state changes: single-spin updates by a rule, or Wolff cluster flips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'heat-bath' | 'metropolis' | 'wolff'")]
pub enum Dynamics {
    Single(Rule),
    /// Wolff single-cluster moves (uniform J, h = 0, no fixed border, nothing clamped).
    Wolff,
}

impl Dynamics {
    pub const ALL: [Dynamics; 3] = [
        Dynamics::Single(Rule::HeatBath),
        Dynamics::Single(Rule::Metropolis),
        Dynamics::Wolff,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Dynamics::Single(rule) => rule.name(),
            Dynamics::Wolff => "wolff",
        }
    }

    pub fn parse(name: &str) -> Result<Dynamics, ParamError> {
        Dynamics::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "dynamics",
                value: name.to_string(),
                allowed: "heat-bath, metropolis, wolff",
            })
    }
}

/// One neighbour of the site a tick visits, as the tick inspector shows it.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct NeighbourTerm {
    /// The neighbouring site; `None` for a border spin or a missing bond.
    pub site: Option<usize>,
    /// Its spin s_j (a border spin's fixed value; 0 where there is no bond).
    pub spin: i8,
    /// The bond's coupling J·c_b (0 where there is no bond).
    pub coupling: f64,
}

/// Why one single-spin tick did what it did: everything the tick inspector shows.
///
/// With the local field h_i = Σ_j J c_b s_j + h, flipping s_i would change the energy by
/// ΔE = 2 s_i h_i; the rule gives P(s_i' = +1) from the gap 2h_i and T, and the tick sets
/// s_i' = +1 exactly when its 32-bit random number r satisfies r < round(P · 2^32)
/// (shown as u = r / 2^32 < P). A clamped spin draws no random number and stays.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TickExplanation {
    /// Ticks done before this one.
    pub tick: u64,
    pub site: usize,
    pub x: usize,
    pub y: usize,
    /// Left, right, up, down.
    pub neighbours: [NeighbourTerm; 4],
    /// h_i = Σ_j J c_b s_j + h.
    pub local_field: f64,
    pub temperature: f64,
    pub rule: Rule,
    pub spin_before: i8,
    /// ΔE = E(s_i flipped) − E(s) = 2 s_i h_i.
    pub energy_change: f64,
    /// P(s_i' = +1), as the engine's rule computes it.
    pub probability_up: f64,
    /// P(s_i' = −s_i): heat-bath 1 / (1 + e^{ΔE/T}), Metropolis min(1, e^{−ΔE/T}).
    pub flip_probability: f64,
    /// Held by a clamp (only while the phase is clamped).
    pub clamped: bool,
    /// The random number drawn, u = r / 2^32 ∈ [0, 1); `None` for a clamped spin.
    pub random: Option<f64>,
    pub spin_after: i8,
}

/// Everything that fixes a sampler's future besides its lattice: saved in snapshots and
/// restored by [`LatticeSampler::from_state`], after which the chain continues exactly as
/// the saved one would have.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerState {
    pub temperature: f64,
    pub dynamics: Dynamics,
    pub order: Order,
    /// s_i = ±1, site x + W·y.
    pub spins: Vec<i8>,
    /// The clamp mask (true = clamped).
    pub clamp: Vec<bool>,
    /// The phase switch: clamped (true) or free.
    pub clamps_on: bool,
    pub ticks: u64,
    /// The site the next tick visits.
    pub next_site: usize,
    /// The Xoshiro128++ state words (never all zero).
    pub random_state: [u32; 4],
    /// With lanes on (see [`LatticeSampler::set_lanes`]): the 16 lane streams' state, 64
    /// words ([`LaneStreams::to_words`]).
    pub lane_random_state: Option<Vec<u32>>,
}

/// The next site a tick visits, as (x, y), index and checkerboard colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cursor {
    x: usize,
    y: usize,
    index: usize,
    colour: usize,
}

impl Cursor {
    /// The first site of the row after row `y` of a W×H lattice, in an order that visits
    /// every `step`-th site of a row: 1 for sequential, 2 for checkerboard (whose colour
    /// changes after the last row).
    fn next_row(y: usize, colour: usize, step: usize, (w, h): (usize, usize)) -> Cursor {
        let (mut y, mut colour) = (y + 1, colour);
        if y == h {
            y = 0;
            colour ^= step - 1;
        }
        let x = if step == 2 { (colour + y) & 1 } else { 0 };
        Cursor {
            x,
            y,
            index: x + w * y,
            colour,
        }
    }
}

/// A lattice, its spins, the temperature and the random stream: everything a tick needs.
#[derive(Debug, Clone)]
pub struct LatticeSampler {
    lattice: Lattice,
    spins: Vec<i8>,
    temperature: f64,
    dynamics: Dynamics,
    order: Order,
    rng: SpinRng,
    /// Thresholds for P(next spin = +1), indexed by [current spin is +1][S + 4], with
    /// S = Σ_{b∋i} c_b s_j the integer neighbour sum (integer couplings only).
    table: [[u64; 9]; 2],
    clamp: Vec<bool>,
    /// How many sites the mask clamps (so a run need not scan the mask).
    clamped_sites: usize,
    clamps_on: bool,
    cursor: Cursor,
    ticks: u64,
    bond_sum: i64,
    magnetization: i64,
    /// Σ c_b s_i s_j for real couplings (kept incrementally in floating point).
    real_bond_sum: f64,
    wolff: WolffClusters,
    /// Checkerboard lanes, when switched on: their streams and decision table.
    lanes: Option<Box<Lanes>>,
    /// Whole bands of rows of the sequential order go through the wavefront kernel
    /// (bit-identical to the scalar ticks; see [`Self::set_wavefront`]).
    wavefront_on: bool,
    /// The lattice laid out for wavefront bands, built at the first band (dropped when the
    /// lattice changes).
    wavefront: Option<Box<Wavefront>>,
}

/// The state of the checkerboard-lanes path of [`LatticeSampler`].
#[derive(Debug, Clone)]
struct Lanes {
    streams: LaneStreams,
    table: LaneTable,
}

impl LatticeSampler {
    /// A sampler with independent random spins (each ±1 with probability ½) drawn from
    /// `seed`, at `temperature` (0 ≤ T ≤ ∞), heat-bath rule, sequential order.
    pub fn new(lattice: Lattice, temperature: f64, seed: u64) -> Result<Self, ParamError> {
        let temperature = check_temperature(temperature, TemperatureDomain::Sampling)?;
        let mut rng = seeded_rng(seed);
        let spins: Vec<i8> = (0..lattice.len())
            .map(|_| if rng.next_u32() >> 31 == 1 { 1 } else { -1 })
            .collect();
        let n = lattice.len();
        let mut sampler = LatticeSampler {
            lattice,
            spins,
            temperature,
            dynamics: Dynamics::Single(Rule::HeatBath),
            order: Order::Sequential,
            rng,
            table: [[0; 9]; 2],
            clamp: vec![false; n],
            clamped_sites: 0,
            clamps_on: true,
            cursor: Cursor {
                x: 0,
                y: 0,
                index: 0,
                colour: 0,
            },
            ticks: 0,
            bond_sum: 0,
            magnetization: 0,
            real_bond_sum: 0.0,
            wolff: WolffClusters::new(n),
            lanes: None,
            wavefront_on: true,
            wavefront: None,
        };
        sampler.recount();
        sampler.rebuild_tables();
        Ok(sampler)
    }

    /// Recomputes the bookkeeping sums from the spins.
    fn recount(&mut self) {
        self.magnetization = self.lattice.magnetization(&self.spins);
        if self.lattice.has_integer_couplings() {
            self.bond_sum = self.lattice.bond_sum(&self.spins);
        } else {
            self.real_bond_sum = self.lattice.real_bond_sum(&self.spins);
        }
    }

    fn rebuild_tables(&mut self) {
        let (j, h, t) = (
            self.lattice.coupling(),
            self.lattice.field(),
            self.temperature,
        );
        let rule = match self.dynamics {
            Dynamics::Single(rule) => rule,
            Dynamics::Wolff => Rule::HeatBath,
        };
        self.table = acceptance_table(rule, j, h, t);
        if let Some(lanes) = &mut self.lanes {
            lanes.table = LaneTable::new(rule, j, h, t);
        }
        self.wolff.set_temperature(j, t);
    }

    /// Sets the temperature (0 ≤ T ≤ ∞); on error nothing changes.
    pub fn set_temperature(&mut self, temperature: f64) -> Result<(), ParamError> {
        self.temperature = check_temperature(temperature, TemperatureDomain::Sampling)?;
        self.rebuild_tables();
        Ok(())
    }

    /// Why Wolff moves are not valid for this lattice and clamp state, if they are not.
    fn wolff_refusal(&self) -> Option<String> {
        if !matches!(self.lattice.couplings(), Couplings::Uniform) {
            Some("Wolff cluster moves need a uniform coupling J (no spin glass)".into())
        } else if self.lattice.field() != 0.0 {
            Some("Wolff cluster moves need zero field h".into())
        } else if matches!(self.lattice.boundary(), Boundary::Fixed(_)) {
            Some("Wolff cluster moves cannot flip a fixed border".into())
        } else if self.clamps_on && self.clamp.iter().any(|&c| c) {
            Some("Wolff cluster moves cannot respect clamped spins; release them, or switch to the free phase".into())
        } else {
            None
        }
    }

    /// Chooses heat-bath, Metropolis or Wolff; on error nothing changes.
    pub fn set_dynamics(&mut self, dynamics: Dynamics) -> Result<(), ParamError> {
        if dynamics == Dynamics::Wolff
            && let Some(reason) = self.wolff_refusal()
        {
            return Err(ParamError::Invalid {
                field: "dynamics",
                reason,
            });
        }
        self.dynamics = dynamics;
        self.rebuild_tables();
        Ok(())
    }

    /// Replaces the lattice by another of the same width and height (another field,
    /// boundary or couplings), keeping the spins, clamps, clock and random stream. Refused
    /// when the current dynamics cannot run on the new lattice (Wolff moves on a spin
    /// glass, in a field or with a fixed border); on error nothing changes.
    pub fn set_lattice(&mut self, lattice: Lattice) -> Result<(), ParamError> {
        let (w, h) = (self.lattice.width(), self.lattice.height());
        if (lattice.width(), lattice.height()) != (w, h) {
            return Err(ParamError::Invalid {
                field: "lattice",
                reason: format!(
                    "a new lattice must be {w}×{h} like the old one, got {}×{}",
                    lattice.width(),
                    lattice.height()
                ),
            });
        }
        let previous = std::mem::replace(&mut self.lattice, lattice);
        if self.dynamics == Dynamics::Wolff
            && let Some(reason) = self.wolff_refusal()
        {
            self.lattice = previous;
            return Err(ParamError::Invalid {
                field: "dynamics",
                reason: format!("{reason}; choose heat-bath or Metropolis first"),
            });
        }
        self.wavefront = None;
        self.recount();
        self.rebuild_tables();
        Ok(())
    }

    /// Chooses the visiting order; the next tick starts that order from its first site.
    pub fn set_order(&mut self, order: Order) {
        self.order = order;
        self.cursor = Cursor {
            x: 0,
            y: 0,
            index: 0,
            colour: 0,
        };
        if order == Order::Random {
            self.draw_random_site();
        }
    }

    pub fn temperature(&self) -> f64 {
        self.temperature
    }

    pub fn dynamics(&self) -> Dynamics {
        self.dynamics
    }

    pub fn order(&self) -> Order {
        self.order
    }

    pub fn lattice(&self) -> &Lattice {
        &self.lattice
    }

    /// The spins, s_i = ±1, site i = x + W·y.
    pub fn spins(&self) -> &[i8] {
        &self.spins
    }

    /// Number of ticks done since creation (a Wolff move counts its cluster's size).
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Sweeps done: ticks / N.
    pub fn sweeps(&self) -> f64 {
        self.ticks as f64 / self.lattice.len() as f64
    }

    /// The site the next tick will visit.
    pub fn next_site(&self) -> usize {
        self.cursor.index
    }

    /// E, from the incremental bookkeeping.
    pub fn energy(&self) -> f64 {
        if self.lattice.has_integer_couplings() {
            self.lattice
                .energy_from_sums(self.bond_sum, self.magnetization)
        } else {
            -self.lattice.coupling() * self.real_bond_sum
                - self.lattice.field() * self.magnetization as f64
        }
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

    /// Sets every unclamped spin to `spin` (+1 if `spin` ≥ 0, else −1).
    pub fn fill(&mut self, spin: i8) {
        let spin = if spin >= 0 { 1 } else { -1 };
        for (s, &clamped) in self.spins.iter_mut().zip(&self.clamp) {
            if !(clamped && self.clamps_on) {
                *s = spin;
            }
        }
        self.recount();
    }

    /// Sets every unclamped spin to ±1 at random (from the sampler's stream).
    pub fn randomize(&mut self) {
        for (s, &clamped) in self.spins.iter_mut().zip(&self.clamp) {
            let coin = if self.rng.next_u32() >> 31 == 1 {
                1
            } else {
                -1
            };
            if !(clamped && self.clamps_on) {
                *s = coin;
            }
        }
        self.recount();
    }

    /// Site indices run from 0 to N − 1.
    fn check_site(&self, i: usize) -> Result<(), ParamError> {
        if i >= self.spins.len() {
            return Err(ParamError::OutOfRange {
                field: "site",
                value: i as f64,
                min: 0.0,
                max: (self.spins.len() - 1) as f64,
            });
        }
        Ok(())
    }

    /// Sets spin i to `spin` (±1), for painting; clamped spins can be painted too.
    pub fn set_spin(&mut self, i: usize, spin: i8) -> Result<(), ParamError> {
        self.check_site(i)?;
        if spin != 1 && spin != -1 {
            return Err(ParamError::Invalid {
                field: "spin",
                reason: format!("a spin is +1 or −1, got {spin}"),
            });
        }
        self.flip_to(i, spin);
        Ok(())
    }

    /// Marks site i clamped (never changed by ticks while clamps are on) or free.
    pub fn set_clamped(&mut self, i: usize, clamped: bool) -> Result<(), ParamError> {
        self.check_site(i)?;
        if clamped && self.clamps_on && self.dynamics == Dynamics::Wolff {
            return Err(ParamError::Invalid {
                field: "clamp",
                reason: "Wolff cluster moves cannot respect clamped spins".into(),
            });
        }
        if self.clamp[i] != clamped {
            self.clamp[i] = clamped;
            if clamped {
                self.clamped_sites += 1;
            } else {
                self.clamped_sites -= 1;
            }
        }
        Ok(())
    }

    /// The clamp mask (true = clamped), whether or not clamps are on.
    pub fn clamp_mask(&self) -> &[bool] {
        &self.clamp
    }

    /// How many sites are clamped (kept as the clamps change, not counted).
    pub fn clamped_count(&self) -> usize {
        self.clamped_sites
    }

    /// Frees every site.
    pub fn release_all(&mut self) {
        self.clamp.fill(false);
        self.clamped_sites = 0;
    }

    /// The phase switch: with clamps on, clamped spins never change; with clamps off the
    /// mask is kept but ignored.
    pub fn set_clamps_on(&mut self, on: bool) -> Result<(), ParamError> {
        if on && self.dynamics == Dynamics::Wolff && self.clamp.iter().any(|&c| c) {
            return Err(ParamError::Invalid {
                field: "phase",
                reason: "Wolff cluster moves cannot respect clamped spins".into(),
            });
        }
        self.clamps_on = on;
        Ok(())
    }

    pub fn clamps_on(&self) -> bool {
        self.clamps_on
    }

    /// The random streams' state as [`Self::state`] gives it (the Xoshiro128++ words, and
    /// the 64 lane words with lanes on), without copying the spins.
    pub fn random_state(&self) -> ([u32; 4], Option<Vec<u32>>) {
        (
            crate::rng::random_words(&self.rng),
            self.lanes.as_ref().map(|l| l.streams.to_words()),
        )
    }

    /// Sets s_i to `new`, keeping the bookkeeping exact.
    #[inline]
    fn flip_to(&mut self, i: usize, new: i8) {
        let old = self.spins[i];
        if new == old {
            return;
        }
        let (x, y) = (i % self.lattice.width(), i / self.lattice.width());
        let change = i64::from(new - old);
        if self.lattice.has_integer_couplings() {
            let lattice = &self.lattice;
            let sum = lattice.neighbour_sum(&self.spins, x, y, |b| lattice.integer_bond(b));
            self.bond_sum += change * i64::from(sum);
        } else {
            let lattice = &self.lattice;
            let sum = lattice.neighbour_sum(&self.spins, x, y, |b| lattice.bond(b));
            self.real_bond_sum += change as f64 * sum;
        }
        self.magnetization += change;
        self.spins[i] = new;
    }

    fn draw_random_site(&mut self) {
        let w = self.lattice.width();
        let i = random_index(&mut self.rng, self.lattice.len() as u32) as usize;
        self.cursor = Cursor {
            x: i % w,
            y: i / w,
            index: i,
            colour: 0,
        };
    }

    /// Moves the cursor to the next site of the order.
    #[inline]
    fn advance_cursor(&mut self) {
        let (w, h) = (self.lattice.width(), self.lattice.height());
        let c = &mut self.cursor;
        match self.order {
            Order::Sequential => {
                if c.x + 1 < w {
                    c.x += 1;
                    c.index += 1;
                } else if c.y + 1 < h {
                    c.x = 0;
                    c.y += 1;
                    c.index += 1;
                } else {
                    *c = Cursor {
                        x: 0,
                        y: 0,
                        index: 0,
                        colour: 0,
                    };
                }
            }
            Order::Checkerboard => {
                // Sites of colour (x + y) mod 2 = c.colour, row by row, x stepping by 2.
                if c.x + 2 < w {
                    c.x += 2;
                } else {
                    if c.y + 1 < h {
                        c.y += 1;
                    } else {
                        c.y = 0;
                        c.colour ^= 1;
                    }
                    c.x = (c.colour + c.y) & 1;
                }
                c.index = c.x + w * c.y;
            }
            Order::Random => self.draw_random_site(),
        }
    }

    /// Whether the sequential ticks draw from the lane streams, row y from lane y mod 16
    /// (lanes on; see [`Self::set_lanes`]), rather than from the sampler's stream.
    #[inline(always)]
    fn row_streams(&self) -> bool {
        self.lanes.is_some() && self.order == Order::Sequential
    }

    /// The word the tick at the cursor draws: with row streams the next of lane y mod 16,
    /// otherwise the next of the sampler's stream.
    #[inline(always)]
    fn next_word(&mut self) -> u32 {
        match &mut self.lanes {
            Some(lanes) if self.order == Order::Sequential => {
                lanes.streams.next_lane(self.cursor.y % lanes::LANES)
            }
            _ => self.rng.next_u32(),
        }
    }

    /// The word [`Self::next_word`] would draw, without drawing it.
    fn peek_word(&self) -> u32 {
        match &self.lanes {
            Some(lanes) if self.row_streams() => lanes
                .streams
                .clone()
                .next_lane(self.cursor.y % lanes::LANES),
            _ => self.rng.clone().next_u32(),
        }
    }

    /// One tick with integer couplings: the threshold for (current spin, S) decides.
    #[inline]
    fn tick_integer(&mut self) {
        let Cursor { x, y, index: i, .. } = self.cursor;
        if !(self.clamps_on && self.clamp[i]) {
            let lattice = &self.lattice;
            let sum = lattice.neighbour_sum(&self.spins, x, y, |b| lattice.integer_bond(b));
            let s = self.spins[i];
            let r = u64::from(self.next_word());
            let new = if r < self.table[usize::from(s > 0)][(sum + 4) as usize] {
                1
            } else {
                -1
            };
            if new != s {
                let change = i64::from(new - s);
                self.bond_sum += change * i64::from(sum);
                self.magnetization += change;
                self.spins[i] = new;
            }
        }
        self.ticks += 1;
        self.advance_cursor();
    }

    /// One tick with real couplings: P(+1) from the rule with the real local field.
    #[inline]
    fn tick_real(&mut self, rule: Rule) {
        let Cursor { x, y, index: i, .. } = self.cursor;
        if !(self.clamps_on && self.clamp[i]) {
            let lattice = &self.lattice;
            let sum = lattice.neighbour_sum(&self.spins, x, y, |b| lattice.bond(b));
            let field = lattice.coupling() * sum + lattice.field();
            let s = self.spins[i];
            let p = rule.probability_high(s > 0, 2.0 * field, self.temperature);
            let r = u64::from(self.next_word());
            let new = if r < threshold(p) { 1 } else { -1 };
            if new != s {
                let change = new - s;
                self.real_bond_sum += f64::from(change) * sum;
                self.magnetization += i64::from(change);
                self.spins[i] = new;
            }
        }
        self.ticks += 1;
        self.advance_cursor();
    }

    /// The fast path for the commonest case: uniform J, periodic, nothing clamped,
    /// sequential or checkerboard order. Whole rows go through [`update_row`]; a chunk
    /// that starts or ends inside a row finishes it with [`Self::tick_integer`]. Same
    /// sites, same random numbers, same decisions as the general tick, so the same chain.
    fn run_uniform_periodic_rows(&mut self, mut ticks: u64) {
        let (w, h) = (self.lattice.width(), self.lattice.height());
        let step = if self.order == Order::Checkerboard {
            2
        } else {
            1
        };
        let mut table = [0u64; 32];
        for (current, row) in self.table.iter().enumerate() {
            table[9 * current..9 * current + 9].copy_from_slice(row);
        }
        let mut rng = self.rng.clone();
        let mut change = RowChange::default();
        while ticks > 0 {
            let Cursor { x, y, colour, .. } = self.cursor;
            let first = if step == 2 { (colour + y) & 1 } else { 0 };
            let row_ticks = (w - first).div_ceil(step) as u64;
            if x != first || ticks < row_ticks || row_ticks == 0 {
                // Inside a row: the general tick, with the stream handed over and back.
                std::mem::swap(&mut self.rng, &mut rng);
                self.tick_integer();
                std::mem::swap(&mut self.rng, &mut rng);
                ticks -= 1;
                continue;
            }
            let spins = &mut self.spins;
            match self.lanes.as_mut().filter(|_| step == 1) {
                // Lanes on, sequential order: row y draws from lane y mod 16.
                Some(lanes) => {
                    let lane = y % lanes::LANES;
                    let mut next = || lanes.streams.next_lane(lane);
                    update_row(
                        spins,
                        (w, h),
                        y,
                        first,
                        step,
                        &table,
                        &mut next,
                        &mut change,
                    );
                }
                None => {
                    let mut next = || rng.next_u32();
                    update_row(
                        spins,
                        (w, h),
                        y,
                        first,
                        step,
                        &table,
                        &mut next,
                        &mut change,
                    );
                }
            }
            ticks -= row_ticks;
            self.ticks += row_ticks;
            self.cursor = Cursor::next_row(y, colour, step, (w, h));
        }
        self.rng = rng;
        self.bond_sum += change.bond_sum;
        self.magnetization += change.magnetization;
    }

    /// [`Self::run_uniform_periodic_rows`] with the lanes kernel for the whole rows of the
    /// checkerboard order (see [`Self::set_lanes`]); ticks inside a row are general ticks.
    fn run_lanes_rows(&mut self, mut ticks: u64) {
        let (w, h) = (self.lattice.width(), self.lattice.height());
        let row_ticks = (w / 2) as u64;
        let mut lanes = self.lanes.take().expect("lanes_apply checked");
        let mut change = LaneChange::default();
        while ticks > 0 {
            let Cursor { x, y, colour, .. } = self.cursor;
            let first = (colour + y) & 1;
            if x != first || ticks < row_ticks {
                self.tick_integer();
                ticks -= 1;
                continue;
            }
            lanes::update_row(
                &mut self.spins,
                (w, h),
                y,
                first,
                &lanes.table,
                &mut lanes.streams,
                &mut change,
            );
            ticks -= row_ticks;
            self.ticks += row_ticks;
            self.cursor = Cursor::next_row(y, colour, 2, (w, h));
        }
        self.lanes = Some(lanes);
        self.bond_sum += change.bond_sum;
        self.magnetization += change.magnetization;
    }

    /// One single-spin tick, explained: does exactly what [`Self::tick`] does (same site,
    /// same random number, same decision, so the chain is unchanged) and reports why.
    /// `None` (and no tick) for Wolff dynamics, whose moves are clusters, not ticks.
    pub fn explained_tick(&mut self) -> Option<TickExplanation> {
        let Dynamics::Single(rule) = self.dynamics else {
            return None;
        };
        let Cursor {
            x, y, index: site, ..
        } = self.cursor;
        let lattice = &self.lattice;
        let neighbours = lattice.neighbours_at(x, y).map(|slot| {
            let coupling = lattice.slot_coupling(slot).unwrap_or(0.0);
            match slot {
                Neighbour::Site { site, .. } => NeighbourTerm {
                    site: Some(site),
                    spin: self.spins[site],
                    coupling,
                },
                Neighbour::Border { spin, .. } => NeighbourTerm {
                    site: None,
                    spin,
                    coupling,
                },
                Neighbour::None => NeighbourTerm {
                    site: None,
                    spin: 0,
                    coupling,
                },
            }
        });
        // The same arithmetic as the ticks: J·(Σ c_b s_j) + h, then the rule of the gap 2h_i.
        let local_field = lattice.local_field(&self.spins, site);
        let spin_before = self.spins[site];
        let probability_up =
            rule.probability_high(spin_before > 0, 2.0 * local_field, self.temperature);
        let clamped = self.clamps_on && self.clamp[site];
        // The tick's own random number: the word it is about to draw, as u = r/2^32.
        let random = (!clamped).then(|| f64::from(self.peek_word()) * (1.0 / 4_294_967_296.0));
        let tick = self.ticks;
        self.tick();
        Some(TickExplanation {
            tick,
            site,
            x,
            y,
            neighbours,
            local_field,
            temperature: self.temperature,
            rule,
            spin_before,
            energy_change: 2.0 * f64::from(spin_before) * local_field,
            probability_up,
            flip_probability: if spin_before > 0 {
                1.0 - probability_up
            } else {
                probability_up
            },
            clamped,
            random,
            spin_after: self.spins[site],
        })
    }

    /// The state that, with the lattice, fixes the sampler's future.
    pub fn state(&self) -> SamplerState {
        let bytes = self.rng.state();
        let word = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap());
        SamplerState {
            temperature: self.temperature,
            dynamics: self.dynamics,
            order: self.order,
            spins: self.spins.clone(),
            clamp: self.clamp.clone(),
            clamps_on: self.clamps_on,
            ticks: self.ticks,
            next_site: self.cursor.index,
            random_state: [word(0), word(1), word(2), word(3)],
            lane_random_state: self.lanes.as_ref().map(|l| l.streams.to_words()),
        }
    }

    /// A sampler that continues exactly where the one that gave `state` left off. Every
    /// part is checked against the lattice (lengths, spin values, the site, a random state
    /// that is not all zero, Wolff's conditions).
    pub fn from_state(lattice: Lattice, state: SamplerState) -> Result<Self, ParamError> {
        let n = lattice.len();
        let invalid = |field, reason: String| Err(ParamError::Invalid { field, reason });
        if state.spins.len() != n {
            return invalid(
                "spins",
                format!("need {n} spins, got {}", state.spins.len()),
            );
        }
        if let Some(s) = state.spins.iter().find(|&&s| s != 1 && s != -1) {
            return invalid("spins", format!("a spin is +1 or −1, got {s}"));
        }
        if state.clamp.len() != n {
            return invalid(
                "clamp",
                format!("need {n} clamp flags, got {}", state.clamp.len()),
            );
        }
        if state.next_site >= n {
            return Err(ParamError::OutOfRange {
                field: "next site",
                value: state.next_site as f64,
                min: 0.0,
                max: (n - 1) as f64,
            });
        }
        if state.random_state == [0; 4] {
            return invalid(
                "random state",
                "the generator's state must not be all zero".into(),
            );
        }
        let mut sampler = LatticeSampler::new(lattice, state.temperature, 0)?;
        sampler.spins = state.spins;
        sampler.clamped_sites = state.clamp.iter().filter(|&&c| c).count();
        sampler.clamp = state.clamp;
        sampler.clamps_on = state.clamps_on;
        sampler.set_dynamics(state.dynamics)?;
        sampler.order = state.order;
        let w = sampler.lattice.width();
        let (x, y) = (state.next_site % w, state.next_site / w);
        sampler.cursor = Cursor {
            x,
            y,
            index: state.next_site,
            colour: (x + y) & 1,
        };
        sampler.ticks = state.ticks;
        let mut bytes = [0u8; 16];
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(state.random_state) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        sampler.rng = SpinRng::from_seed(bytes);
        if let Some(words) = &state.lane_random_state {
            sampler.set_lanes(true);
            if let Some(lanes) = &mut sampler.lanes {
                lanes.streams = LaneStreams::from_words(words)?;
            }
        }
        sampler.recount();
        Ok(sampler)
    }

    /// Switches lanes on or off: 16 independent Xoshiro128++ lane streams beside the
    /// sampler's stream, for SIMD kernels.
    /// - Checkerboard order: whole rows on a uniform periodic lattice of even width and
    ///   height with nothing clamped go through the SIMD lanes kernel ([`super::lanes`]),
    ///   site j of a row's colour drawing from lane j mod 16; the ticks inside a row and
    ///   every other lattice keep the sampler's stream.
    /// - Sequential order: every tick of row y, scalar or in a wavefront band
    ///   ([`super::wavefront`]), explained or not, draws from lane y mod 16 ("row
    ///   streams"), so the wavefront's lanes step their own rows' streams.
    /// - Random order and Wolff moves keep the sampler's stream.
    ///
    /// Each tick still uses a fresh uniform number independent of the past, so the
    /// transition kernel, and the chain's law, is that of the order; the realisation
    /// differs from the one with lanes off.
    /// Switched on, the lane streams are seeded from the sampler's stream state (without
    /// advancing it), so a state with lanes off continues deterministically.
    pub fn set_lanes(&mut self, on: bool) {
        if !on {
            self.lanes = None;
        } else if self.lanes.is_none() {
            let bytes = self.rng.state();
            let seed = u64::from_le_bytes(bytes[..8].try_into().unwrap())
                ^ u64::from_le_bytes(bytes[8..].try_into().unwrap()).rotate_left(32)
                ^ 0x6c61_6e65_735f_3136; // "lanes_16": another stream than the sampler's
            self.lanes = Some(Box::new(Lanes {
                streams: LaneStreams::new(seed),
                table: LaneTable::new(Rule::HeatBath, 0.0, 0.0, 1.0),
            }));
            self.rebuild_tables();
        }
    }

    /// Whether checkerboard lanes are switched on ([`Self::set_lanes`]).
    pub fn lanes_on(&self) -> bool {
        self.lanes.is_some()
    }

    /// Whether the next whole rows would go through the lanes kernel (lanes on,
    /// checkerboard order, a single-spin rule, uniform periodic lattice of even width and
    /// height, nothing clamped).
    pub fn lanes_apply(&self) -> bool {
        self.lanes.is_some()
            && self.order == Order::Checkerboard
            && matches!(self.dynamics, Dynamics::Single(_))
            && lanes::check_lattice(&self.lattice).is_ok()
            && (!self.clamps_on || self.clamped_sites == 0)
    }

    /// One tick (for Wolff dynamics: one cluster move).
    pub fn tick(&mut self) {
        self.run_ticks(1);
    }

    /// Runs at least `ticks` ticks: exactly that many single-spin updates, or Wolff moves
    /// until their cluster sizes add up to `ticks` or more.
    ///
    /// For measurements with Wolff dynamics use [`Self::wolff_moves`] with a fixed count:
    /// stopping when the cluster sizes reach a target is a state-dependent stopping time,
    /// and the state it stops in is not Boltzmann-distributed.
    pub fn run(&mut self, ticks: u64) {
        self.run_ticks(ticks);
    }

    fn run_ticks(&mut self, ticks: u64) {
        match self.dynamics {
            Dynamics::Wolff => {
                let target = self.ticks + ticks;
                while self.ticks < target {
                    self.wolff_move();
                }
            }
            Dynamics::Single(_) if self.lanes_apply() => self.run_lanes_rows(ticks),
            Dynamics::Single(rule) if self.wavefront_apply() => self.run_wavefront(rule, ticks),
            Dynamics::Single(rule) => self.run_single(rule, ticks),
        }
    }

    /// `ticks` single-spin ticks by the scalar paths.
    fn run_single(&mut self, rule: Rule, ticks: u64) {
        let unclamped = !self.clamps_on || self.clamped_sites == 0;
        if matches!(self.lattice.couplings(), Couplings::Uniform)
            && self.lattice.boundary() == Boundary::Periodic
            && self.order != Order::Random
            && unclamped
        {
            self.run_uniform_periodic_rows(ticks);
        } else if self.lattice.has_integer_couplings() {
            for _ in 0..ticks {
                self.tick_integer();
            }
        } else {
            for _ in 0..ticks {
                self.tick_real(rule);
            }
        }
    }

    /// Switches the wavefront kernel on (the default) or off. With it on, whole bands of
    /// rows of the sequential order on a lattice with integer couplings (uniform or ±J,
    /// any boundary) with nothing clamped go through [`super::wavefront`]: the same sites
    /// seeing the same states, the same random words in the same order and the same
    /// decisions as the scalar ticks, so the chain, its spins and its stream are identical
    /// bit for bit; only the speed differs. Off, every tick is scalar (for comparison).
    pub fn set_wavefront(&mut self, on: bool) {
        self.wavefront_on = on;
    }

    /// Whether the wavefront kernel is switched on ([`Self::set_wavefront`]).
    pub fn wavefront_on(&self) -> bool {
        self.wavefront_on
    }

    /// Whether whole bands of rows would go through the wavefront kernel (switched on,
    /// sequential order, a single-spin rule, integer couplings, nothing clamped).
    pub fn wavefront_apply(&self) -> bool {
        self.wavefront_on
            && self.order == Order::Sequential
            && matches!(self.dynamics, Dynamics::Single(_))
            && self.lattice.has_integer_couplings()
            && (!self.clamps_on || self.clamped_sites == 0)
    }

    /// Sequential ticks with whole bands of rows through the wavefront kernel: from the
    /// start of a row, as many rows as the band and the remaining ticks allow; ticks inside
    /// a row, and everything when the thresholds are not monotone, go the scalar way.
    fn run_wavefront(&mut self, rule: Rule, mut ticks: u64) {
        let (w, h) = (self.lattice.width(), self.lattice.height());
        if self.wavefront.is_none() {
            self.wavefront = Wavefront::new(&self.lattice).map(Box::new);
        }
        let Some(mut wavefront) = self.wavefront.take() else {
            return self.run_single(rule, ticks);
        };
        let Some(decision) = Decision::new(&self.table, wavefront.even_sums()) else {
            self.wavefront = Some(wavefront);
            return self.run_single(rule, ticks);
        };
        let mut change = LaneChange::default();
        while ticks > 0 {
            let Cursor { x, y, .. } = self.cursor;
            let rows = wavefront
                .band_rows(y)
                .min(usize::try_from(ticks / w as u64).unwrap_or(usize::MAX));
            if x != 0 || rows == 0 {
                let scalar = if x != 0 {
                    ticks.min((w - x) as u64)
                } else {
                    ticks
                };
                self.run_single(rule, scalar);
                ticks -= scalar;
                continue;
            }
            let words = match &mut self.lanes {
                Some(lanes) => Words::Lanes(&mut lanes.streams),
                None => Words::Stream(&mut self.rng),
            };
            let band = wavefront.band(&mut self.spins, y, rows, &decision, words);
            change.bond_sum += band.bond_sum;
            change.magnetization += band.magnetization;
            let done = (rows * w) as u64;
            ticks -= done;
            self.ticks += done;
            self.cursor = Cursor::next_row(y + rows - 1, 0, 1, (w, h));
        }
        self.wavefront = Some(wavefront);
        self.bond_sum += change.bond_sum;
        self.magnetization += change.magnetization;
    }

    /// `moves` Wolff cluster flips (whatever the dynamics setting); returns the total
    /// number of spins flipped.
    pub fn wolff_moves(&mut self, moves: u64) -> Result<u64, ParamError> {
        if let Some(reason) = self.wolff_refusal() {
            return Err(ParamError::Invalid {
                field: "dynamics",
                reason,
            });
        }
        Ok((0..moves).map(|_| self.wolff_move() as u64).sum())
    }

    /// One Wolff cluster flip; returns the cluster's size.
    fn wolff_move(&mut self) -> usize {
        let size = self.wolff.flip_cluster(
            &self.lattice,
            &mut self.spins,
            &mut self.rng,
            &mut self.bond_sum,
            &mut self.magnetization,
        );
        self.ticks += size as u64;
        size
    }

    /// One sweep: N ticks.
    pub fn sweep(&mut self) {
        self.run(self.lattice.len() as u64);
    }

    /// Simulated annealing by a validated schedule (quench, slow cooling, heating).
    pub fn anneal(&mut self, schedule: &Schedule) {
        schedule.run(self);
    }
}

/// Changes of the bookkeeping sums over a run of rows.
#[derive(Debug, Default)]
struct RowChange {
    bond_sum: i64,
    magnetization: i64,
}

/// Updates sites x = first, first + step, … < W of row y of a uniform periodic lattice, in
/// that order: per site the neighbour sum S, one 32-bit random number r, and
/// s_i' = +1 exactly when r < table[9·(s_i > 0) + S + 4] (no division, no modulo, no
/// branch on the outcome, nothing allocated), r the next word of `next`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn update_row(
    spins: &mut [i8],
    (w, h): (usize, usize),
    y: usize,
    first: usize,
    step: usize,
    table: &[u64; 32],
    next: &mut impl FnMut() -> u32,
    change: &mut RowChange,
) {
    let row = y * w;
    let up = if y == 0 { (h - 1) * w } else { row - w };
    let down = if y + 1 == h { 0 } else { row + w };
    let (mut bond_sum, mut magnetization) = (0i32, 0i32);
    let mut x = first;
    while x < w {
        let left = if x == 0 { w - 1 } else { x - 1 };
        let right = if x + 1 == w { 0 } else { x + 1 };
        let sum = i32::from(spins[row + left])
            + i32::from(spins[row + right])
            + i32::from(spins[up + x])
            + i32::from(spins[down + x]);
        let old = i32::from(spins[row + x]);
        let index = (usize::from(old > 0) * 9 + (sum + 4) as usize) & 31;
        let r = u64::from(next());
        let new = if r < table[index] { 1 } else { -1 };
        let delta = new - old;
        bond_sum += delta * sum;
        magnetization += delta;
        spins[row + x] = new as i8;
        x += step;
    }
    change.bond_sum += i64::from(bond_sum);
    change.magnetization += i64::from(magnetization);
}

impl Thermal for LatticeSampler {
    fn set_temperature(&mut self, temperature: f64) -> Result<(), ParamError> {
        LatticeSampler::set_temperature(self, temperature)
    }

    fn sweep(&mut self) {
        LatticeSampler::sweep(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkerboard_visits_every_site_once_per_sweep_even_first() {
        for (w, h) in [(4.0, 4.0), (5.0, 3.0), (2.0, 7.0)] {
            let lattice = Lattice::new(w, h, 1.0, 0.0).unwrap();
            let n = lattice.len();
            let mut sampler = LatticeSampler::new(lattice, 1.0, 1).unwrap();
            sampler.set_order(Order::Checkerboard);
            let mut seen = vec![0; n];
            let mut order = Vec::new();
            for _ in 0..n {
                let i = sampler.next_site();
                seen[i] += 1;
                order.push(i);
                sampler.tick();
            }
            assert!(seen.iter().all(|&k| k == 1), "{w}x{h}: {seen:?}");
            let width = w as usize;
            let colours: Vec<usize> = order.iter().map(|i| (i % width + i / width) & 1).collect();
            let evens = colours.iter().filter(|&&c| c == 0).count();
            assert!(colours[..evens].iter().all(|&c| c == 0));
            assert_eq!(sampler.next_site(), 0, "a new sweep starts at site 0");
        }
    }

    #[test]
    fn clamped_spins_hold_on_the_fast_lattice_until_released() {
        let lattice = Lattice::square(8).unwrap();
        let mut sampler = LatticeSampler::new(lattice.clone(), 3.0, 5).unwrap();
        let held = sampler.spins()[9];
        sampler.set_clamped(9, true).unwrap();
        sampler.set_clamped(9, true).unwrap();
        sampler.set_clamped(10, true).unwrap();
        sampler.set_clamped(10, false).unwrap();
        sampler.run(64 * 50);
        assert_eq!(sampler.spins()[9], held);
        let restored = LatticeSampler::from_state(lattice, sampler.state()).unwrap();
        assert_eq!(restored.clamped_sites, 1);
        sampler.release_all();
        assert_eq!(sampler.clamped_sites, 0);
    }

    #[test]
    fn the_fast_path_follows_the_same_chain_as_the_general_one() {
        for (w, h) in [(6.0, 5.0), (7.0, 4.0), (2.0, 3.0), (3.0, 2.0)] {
            for rule in Rule::ALL {
                for order in [Order::Sequential, Order::Checkerboard] {
                    let lattice = Lattice::new(w, h, 1.0, 0.2).unwrap();
                    let mut fast = LatticeSampler::new(lattice.clone(), 1.7, 9).unwrap();
                    let mut general = LatticeSampler::new(lattice, 1.7, 9).unwrap();
                    for sampler in [&mut fast, &mut general] {
                        sampler.set_dynamics(Dynamics::Single(rule)).unwrap();
                        sampler.set_order(order);
                    }
                    // Chunks that start and end inside rows, and whole sweeps.
                    for chunk in [3, 17, 1, 60, 5_000] {
                        fast.run(chunk);
                        for _ in 0..chunk {
                            general.tick_integer();
                        }
                        let case = format!("{w}x{h} {rule:?} {order:?} after {chunk}");
                        assert_eq!(fast.spins(), general.spins(), "{case}");
                        assert_eq!(fast.energy(), general.energy(), "{case}");
                        assert_eq!(fast.magnetization(), general.magnetization(), "{case}");
                        assert_eq!(fast.next_site(), general.next_site(), "{case}");
                        assert_eq!(fast.state(), general.state(), "{case}");
                    }
                }
            }
        }
    }
}
