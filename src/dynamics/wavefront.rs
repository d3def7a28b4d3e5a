//! Sequential (typewriter) sweeps as a wavefront: the same chain as the scalar ticks, bit
//! for bit, with the sites of an anti-diagonal updated together in SIMD lanes.
//!
//! In typewriter order site (x, y) reads its left and upper neighbours after their update
//! and its right and lower neighbours before theirs. Site (x − 1, y + 1) reads neither
//! (x, y) nor anything (x, y) writes, so the sites of one anti-diagonal x + y = d of a band
//! of rows are independent and may be updated at once, as long as anti-diagonal d − 1 is
//! done first. Every pair of neighbours is then updated in the same relative order as by
//! the scalar sweep, wrap-around pairs included: (0, y) before (W − 1, y) and row 0 before
//! row H − 1, because W, H ≥ 2. So each site sees exactly the values it sees in the scalar
//! sweep.
//!
//! A band is up to [`ROWS`] = 14 rows, stored skewed and row-interleaved: lane k of slot
//! j holds column j − k − 1 of the band's row k − 1 (lane 0 and lane rows + 1 hold the rows
//! above and below, never updated), so slot j is one anti-diagonal, the left and right
//! neighbours are slots j ∓ 1 of the same lane, and the upper and lower neighbours are
//! slots j ∓ 1 moved one lane over. Columns −1 and W of each row hold what the scalar
//! tick reads there: for a periodic lattice the other end of the row (column 0 is copied
//! to column W as soon as it is updated: column W − 1 reads it new), for a fixed border
//! the border spin, for an open edge a spin with coupling 0.
//!
//! The random numbers: every unclamped scalar tick draws one 32-bit word r and sets
//! s' = +1 exactly when r < t(s, S) (heat-bath and Metropolis alike; see
//! [`super::rules::acceptance_table`]). Where the word comes from ([`Words`]):
//! - lanes off, the sampler's one stream: the band draws its ticks' words first, in tick
//!   order, so the stream ends where the scalar sweep leaves it, and counts them as below;
//! - lanes on (the page's setting), row y's own stream, lane y mod 16 of the 16 lane
//!   streams: each lane of the band steps its row's stream inside the sweep, four lanes
//!   to a vector, exactly as the scalar ticks of that row would, and decides by the words'
//!   top bytes (module `generate`). No serial pre-draw: about 1.7 ns a tick in wasm against
//!   2.9 with the one stream.
//!
//! Counting (lanes off): each word is turned into a small count at once. Where the
//! thresholds never decrease in σS (σ = ±1; true of both rules for either sign of J, and checked), the
//! sums S that can occur, listed by σS ascending, have their thresholds in
//! non-decreasing order, so {S : t(s, S) ≤ r} is a prefix of the list and
//! r < t(s, S) ⇔ position(S) ≥ K(r) = #{S : t(s, S) ≤ r}. With position(S) = (σS + 4)/step
//! (step 2 where only even sums occur, 1 otherwise) that is σS ≥ step·K(r) − 4, one byte
//! compare per lane. Metropolis has a count per current spin.
//!
//! Integer couplings only (uniform and ±J); a Gaussian glass keeps the scalar ticks, whose
//! cost is the per-tick exponential of its real local field, not the visiting order. So do
//! lattices with clamped spins (a clamped site draws no word).

use super::lanes::{LaneChange, LaneStreams};
use crate::model::{Boundary, Couplings, Lattice};
use crate::rng::SpinRng;
use rand::Rng;

/// Lanes of a slot: one byte each.
pub const LANES: usize = 16;
/// Rows a band updates at most (lanes 1..=ROWS; lanes 0 and rows + 1 are the rows around).
pub const ROWS: usize = LANES - 2;

type Lane = [i8; LANES];

/// Where a band's random words come from.
pub enum Words<'a> {
    /// The sampler's one stream, in tick order (lanes off).
    Stream(&'a mut SpinRng),
    /// Row y from lane y mod 16 of the lane streams, left to right (lanes on).
    Lanes(&'a mut LaneStreams),
}

/// The decision r < t(s, S) in counting form (see the module notes).
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// σ = −1.
    negate: bool,
    /// Thresholds differ between current spins (Metropolis).
    spin_dependent: bool,
    /// Per current spin: (t − 1) ⊕ 2^31 as i32 for each threshold 1 ≤ t < 2^32 of a sum
    /// that occurs (r > t − 1 is t ≤ r), i32::MAX (never exceeded) in the other entries:
    /// t = 0 is counted in `base`, t = 2^32 never.
    above: [[i32; 9]; 2],
    /// Per current spin: step · #{zero thresholds} − 4 (always counted).
    base: [i8; 2],
    step: i8,
    /// The thresholds t(s, S) themselves, [current spin is +1][S + 4].
    table: [[u64; 9]; 2],
}

impl Decision {
    /// The counting form of `table` ([current spin is +1][S + 4]) for the sums that
    /// occur (even only when `even_sums`); `None` where the thresholds are not monotone in
    /// σS (no rule of this crate does that).
    pub fn new(table: &[[u64; 9]; 2], even_sums: bool) -> Option<Decision> {
        let step = if even_sums { 2 } else { 1 };
        let reach: Vec<usize> = (0..9).filter(|k| k % step == 0).collect();
        [false, true].into_iter().find_map(|negate| {
            let ordered = |current: usize| -> Vec<u64> {
                let mut t: Vec<u64> = reach.iter().map(|&k| table[current][k]).collect();
                if negate {
                    t.reverse();
                }
                t
            };
            let monotone = (0..2).all(|c| ordered(c).windows(2).all(|p| p[0] <= p[1]));
            monotone.then(|| {
                let mut above = [[i32::MAX; 9]; 2];
                let mut counted = [0; 2];
                let mut base = [0i8; 2];
                for current in 0..2 {
                    let mut zeros = 0i8;
                    for t in ordered(current) {
                        if t == 0 {
                            zeros += 1;
                        } else if t <= u64::from(u32::MAX) {
                            above[current][counted[current]] =
                                ((t - 1) as u32 ^ 0x8000_0000) as i32;
                            counted[current] += 1;
                        }
                        // t = 2^32: r < t always, never counted.
                    }
                    base[current] = step as i8 * zeros - 4;
                }
                Decision {
                    negate,
                    spin_dependent: table[0] != table[1],
                    above,
                    base,
                    step: step as i8,
                    table: *table,
                }
            })
        })
    }
}

/// L = base + step · #{i : r > above_i} for each word of a row (the sums occur at N
/// thresholds: 5 even sums or all 9).
#[inline(always)]
fn counts<const N: usize>(draws: &[i32], above: &[i32; N], base: i8, step: i8, out: &mut [i8]) {
    for (level, &r) in out.iter_mut().zip(draws) {
        let count = above.iter().map(|&a| i32::from(r > a)).sum::<i32>();
        *level = base + step * count as i8;
    }
}

/// What the lattice puts in the columns and rows beyond its edge.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Edge {
    Periodic,
    /// A fixed border spin.
    Border(i8),
    /// No bond: any spin, coupling 0.
    Open,
}

/// A lattice laid out for wavefront bands, with its work buffers.
#[derive(Debug, Clone)]
pub struct Wavefront {
    w: usize,
    h: usize,
    edge: Edge,
    /// Whether every neighbour sum is even (four bonds of c_b = ±1).
    even_sums: bool,
    /// Per site: the couplings c_b to the left, right, upper and lower neighbour (0 for no
    /// bond); `None` when they are all 1 (uniform J with a periodic or fixed edge).
    weights: Option<Vec<[i8; 4]>>,
    /// The band's spins, skewed: slot j, lane k (see the module notes).
    spins: Vec<Lane>,
    /// The band's counts L for current spin −1 and +1, skewed like the spins.
    levels: [Vec<Lane>; 2],
    /// The band's couplings, skewed like the spins (weighted lattices only).
    skewed_weights: Vec<[Lane; 4]>,
    /// One row's random words r, as r ⊕ 2^31 (signed order is r's order).
    draws: Vec<i32>,
    /// One row's counts L.
    counts: Vec<i8>,
}

impl Wavefront {
    /// The layout of `lattice`; `None` for real (Gaussian) couplings.
    pub fn new(lattice: &Lattice) -> Option<Wavefront> {
        let (w, h) = (lattice.width(), lattice.height());
        let edge = match lattice.boundary() {
            Boundary::Periodic => Edge::Periodic,
            Boundary::Fixed(spin) => Edge::Border(spin),
            Boundary::Open => Edge::Open,
        };
        let uniform = match lattice.couplings() {
            Couplings::Uniform => true,
            Couplings::PlusMinus(_) => false,
            Couplings::Real(_) => return None,
        };
        let weights = (!uniform || edge == Edge::Open).then(|| {
            (0..w * h)
                .map(|i| {
                    lattice.neighbours(i).map(|slot| match slot {
                        crate::model::lattice::Neighbour::Site { bond, .. }
                        | crate::model::lattice::Neighbour::Border { bond, .. } => {
                            lattice.integer_bond(bond) as i8
                        }
                        crate::model::lattice::Neighbour::None => 0,
                    })
                })
                .collect::<Vec<[i8; 4]>>()
        });
        let even_sums = weights
            .as_ref()
            .is_none_or(|ws| ws.iter().flatten().all(|&c| c == 1 || c == -1));
        let slots = w + LANES + 2;
        Some(Wavefront {
            w,
            h,
            edge,
            even_sums,
            skewed_weights: if weights.is_some() {
                vec![[[0; LANES]; 4]; slots]
            } else {
                Vec::new()
            },
            weights,
            spins: vec![[1; LANES]; slots],
            levels: [vec![[0; LANES]; slots], vec![[0; LANES]; slots]],
            draws: vec![0; w],
            counts: vec![0; w],
        })
    }

    /// Whether only even neighbour sums occur (for [`Decision::new`]).
    pub fn even_sums(&self) -> bool {
        self.even_sums
    }

    /// How many rows a band starting at row `y` may take: up to [`ROWS`], not past the
    /// last row, and fewer than H (the rows above and below must lie outside the band).
    pub fn band_rows(&self, y: usize) -> usize {
        ROWS.min(self.h - y).min(self.h - 1)
    }

    /// Updates rows y0, …, y0 + rows − 1 in typewriter order, exactly as that many rows
    /// of scalar ticks would: same sites seen in the same states, the same words drawn
    /// from the same streams in the same order, the same decisions.
    /// 1 ≤ rows ≤ [`Self::band_rows`].
    pub fn band(
        &mut self,
        spins: &mut [i8],
        y0: usize,
        rows: usize,
        decision: &Decision,
        words: Words<'_>,
    ) -> LaneChange {
        debug_assert!(rows >= 1 && rows <= self.band_rows(y0));
        self.load(spins, y0, rows);
        let change = match words {
            Words::Stream(rng) => {
                self.draw(rows, decision, |_| rng.next_u32());
                self.sweep_drawn(rows, decision)
            }
            #[cfg(any(
                target_arch = "x86_64",
                all(target_arch = "wasm32", target_feature = "simd128")
            ))]
            Words::Lanes(streams) => generate::sweep(self, y0, rows, decision, streams),
            #[cfg(not(any(
                target_arch = "x86_64",
                all(target_arch = "wasm32", target_feature = "simd128")
            )))]
            Words::Lanes(streams) => {
                self.draw(rows, decision, |k| streams.next_lane((y0 + k - 1) % LANES));
                self.sweep_drawn(rows, decision)
            }
        };
        self.store(spins, y0, rows);
        change
    }

    /// The sweep with the counts drawn beforehand ([`Self::draw`]).
    fn sweep_drawn(&mut self, rows: usize, decision: &Decision) -> LaneChange {
        let [low, high] = &self.levels;
        let weighted = self.weights.is_some();
        let parts = (
            &mut self.spins[..],
            &self.skewed_weights[..],
            self.w,
            self.edge,
        );
        match (decision.spin_dependent, decision.negate) {
            (false, false) => sweep_any(
                parts,
                rows,
                weighted,
                &mut Drawn::<false, false> { low, high },
            ),
            (false, true) => sweep_any(
                parts,
                rows,
                weighted,
                &mut Drawn::<false, true> { low, high },
            ),
            (true, false) => sweep_any(
                parts,
                rows,
                weighted,
                &mut Drawn::<true, false> { low, high },
            ),
            (true, true) => sweep_any(
                parts,
                rows,
                weighted,
                &mut Drawn::<true, true> { low, high },
            ),
        }
    }

    /// Copies the band's rows and the rows around it into the skewed buffer, with the
    /// columns −1 and W the edge gives, and the couplings of the band's sites.
    fn load(&mut self, spins: &[i8], y0: usize, rows: usize) {
        let (w, h) = (self.w, self.h);
        for k in 0..rows + 2 {
            let y = y0 as isize + k as isize - 1;
            let row = match self.edge {
                Edge::Periodic => Some(y.rem_euclid(h as isize) as usize),
                _ if y < 0 || y >= h as isize => None,
                _ => Some(y as usize),
            };
            let outside = match self.edge {
                Edge::Border(spin) => spin,
                _ => 1,
            };
            let lane = &mut self.spins;
            match row {
                Some(row) => {
                    let line = &spins[row * w..row * w + w];
                    for (slot, &s) in lane[k + 1..k + 1 + w].iter_mut().zip(line) {
                        slot[k] = s;
                    }
                    let (before, after) = if self.edge == Edge::Periodic {
                        (line[w - 1], line[0])
                    } else {
                        (outside, outside)
                    };
                    lane[k][k] = before;
                    lane[w + k + 1][k] = after;
                }
                None => {
                    for slot in &mut lane[k..w + k + 2] {
                        slot[k] = outside;
                    }
                }
            }
            if let Some(weights) = &self.weights
                && (1..=rows).contains(&k)
            {
                let row = y as usize;
                let skewed = &mut self.skewed_weights[k + 1..k + 1 + w];
                for (slot, ws) in skewed.iter_mut().zip(&weights[row * w..row * w + w]) {
                    for (side, &wt) in ws.iter().enumerate() {
                        slot[side][k] = wt;
                    }
                }
            }
        }
    }

    /// Draws the band's words in tick order (row by row, left to right; row k of the band,
    /// 1 ≤ k ≤ rows, from `next(k)`) and stores each as its count L, skewed like the spins.
    fn draw(&mut self, rows: usize, decision: &Decision, mut next: impl FnMut(usize) -> u32) {
        for k in 1..=rows {
            for r in self.draws.iter_mut() {
                // r ⊕ 2^31 as i32: unsigned order as signed order.
                *r = (next(k) ^ 0x8000_0000) as i32;
            }
            for current in 0..1 + usize::from(decision.spin_dependent) {
                let (above, base) = (&decision.above[current], decision.base[current]);
                if decision.step == 2 {
                    counts::<5>(
                        &self.draws,
                        above[..5].try_into().unwrap(),
                        base,
                        2,
                        &mut self.counts,
                    );
                } else {
                    counts::<9>(&self.draws, above, base, 1, &mut self.counts);
                }
                let levels = &mut self.levels[current][k + 1..k + 1 + self.w];
                for (slot, &level) in levels.iter_mut().zip(&self.counts) {
                    slot[k] = level;
                }
            }
        }
    }

    /// Copies the band's rows back.
    fn store(&self, spins: &mut [i8], y0: usize, rows: usize) {
        let w = self.w;
        for k in 1..=rows {
            let row = y0 + k - 1;
            let line = &mut spins[row * w..row * w + w];
            for (s, slot) in line.iter_mut().zip(&self.spins[k + 1..k + 1 + w]) {
                *s = slot[k];
            }
        }
    }
}

/// How a sweep decides each slot's new spins: `down(j, S, s, active, full)` is −1 (all
/// bits) in the lanes whose new spin is −1, for slot j with neighbour sums S and current
/// spins s; `active` are the lanes that update there (a byte mask), `full` is true when
/// all the band's rows do. (A trait rather than a closure, so that it is always inlined.)
trait Decide {
    fn down(&mut self, j: usize, sum: V, old: V, active: V, full: bool) -> V;
}

/// The counts L drawn before the sweep ([`Wavefront::draw`]), skewed like the spins: the
/// new spin is −1 exactly when L > σS, with L for the current spin (SPIN) or not.
struct Drawn<'a, const SPIN: bool, const NEGATE: bool> {
    low: &'a [Lane],
    high: &'a [Lane],
}

impl<const SPIN: bool, const NEGATE: bool> Decide for Drawn<'_, SPIN, NEGATE> {
    #[inline(always)]
    fn down(&mut self, j: usize, sum: V, old: V, _: V, _: bool) -> V {
        let zero = ops::splat(0);
        let signed = if NEGATE { ops::sub(zero, sum) } else { sum };
        let level = if SPIN {
            ops::select(
                ops::gt(old, zero),
                ops::load(&self.high[j]),
                ops::load(&self.low[j]),
            )
        } else {
            ops::load(&self.low[j])
        };
        ops::gt(level, signed)
    }
}

/// [`sweep`] for a weighted lattice or not.
#[inline(always)]
fn sweep_any(
    parts: Parts<'_>,
    rows: usize,
    weighted: bool,
    decide: &mut impl Decide,
) -> LaneChange {
    if weighted {
        sweep::<true>(parts, rows, decide)
    } else {
        sweep::<false>(parts, rows, decide)
    }
}

/// The parts of a [`Wavefront`] a sweep works on: the skewed spins and couplings, W and
/// the edge.
type Parts<'a> = (&'a mut [Lane], &'a [[Lane; 4]], usize, Edge);

/// The anti-diagonals of the band, one slot at a time, all lanes at once, each slot's new
/// spins decided by `decide`.
#[inline(always)]
fn sweep<const WEIGHTED: bool>(
    (spins, skewed_weights, w, edge): Parts<'_>,
    rows: usize,
    decide: &mut impl Decide,
) -> LaneChange {
    let periodic = edge == Edge::Periodic;
    let mut change = LaneChange::default();
    // Lane k (1 ≤ k ≤ rows) updates column j − k − 1 at slot j: slots 2 ..= w + rows.
    let last = w + rows;
    let mut j = 2;
    while j <= last {
        // |Δ bond| ≤ 8 and |Δs| ≤ 2 per slot: flush the byte sums every 15 slots.
        let end = last.min(j + 14);
        let (mut bond, mut magnet) = (ops::splat(0), ops::splat(0));
        while j <= end {
            let (low, high) = (1.max(j.saturating_sub(w)), rows.min(j - 1));
            let active = active_lanes(low, high);
            let weights = if WEIGHTED {
                &skewed_weights[j]
            } else {
                &[[1; LANES]; 4]
            };
            let full = low == 1 && high == rows;
            let (done, rest) = spins.split_at_mut(j);
            let (current, later) = rest.split_at_mut(1);
            slot::<WEIGHTED>(
                &done[j - 1],
                &mut current[0],
                &later[0],
                weights,
                (decide, j, active, full),
                (&mut bond, &mut magnet),
            );
            if periodic && j - 1 <= rows {
                // Lane j − 1 has just updated column 0: its column W reads it new.
                let k = j - 1;
                spins[w + j][k] = spins[j][k];
            }
            j += 1;
        }
        change.bond_sum += ops::to_lane(bond)
            .iter()
            .map(|&b| i64::from(b))
            .sum::<i64>();
        change.magnetization += ops::to_lane(magnet)
            .iter()
            .map(|&m| i64::from(m))
            .sum::<i64>();
    }
    change
}

/// One anti-diagonal: each lane k in low..=high computes its neighbour sum S from the slot
/// before (left, and the lane above's column: up) and after (right, and the lane below's:
/// down), and sets its spin as `decide` says; other lanes keep their byte. The
/// changes of Σ c_b s_i s_j (Δs · S = 2 s' S on a flip) and of Σ s_i (Δs) are added per lane
/// to byte sums (at most 15 slots before they are flushed).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn slot<const WEIGHTED: bool>(
    before: &Lane,
    current: &mut Lane,
    after: &Lane,
    weights: &[Lane; 4],
    (decide, j, active, full): (&mut impl Decide, usize, V, bool),
    (bond, magnet): (&mut V, &mut V),
) {
    let zero = ops::splat(0);
    let left = ops::load(before);
    let right = ops::load(after);
    let old = ops::load(current);
    let up = ops::lane_up(left);
    let down = ops::lane_down(right);
    let sum = if WEIGHTED {
        // c·s for c ∈ {−1, 0, 1}, s = ±1: c negated where s < 0.
        let times = |c: &Lane, s: V| {
            let negative = ops::gt(zero, s);
            ops::sub(ops::xor(ops::load(c), negative), negative)
        };
        ops::add(
            ops::add(times(&weights[0], left), times(&weights[1], right)),
            ops::add(times(&weights[2], up), times(&weights[3], down)),
        )
    } else {
        ops::add(ops::add(left, right), ops::add(up, down))
    };
    // −1 (all bits) where the new spin is −1, else +1.
    let decided = ops::or(decide.down(j, sum, old, active, full), ops::splat(1));
    let new = ops::select(active, decided, old);
    ops::store(current, new);
    let kept = ops::eq(new, old);
    let negative = ops::gt(zero, new);
    let new_times_sum = ops::sub(ops::xor(sum, negative), negative);
    *bond = ops::add(
        *bond,
        ops::and_not(kept, ops::add(new_times_sum, new_times_sum)),
    );
    *magnet = ops::add(*magnet, ops::sub(new, old));
}

/// The active lanes low..=high as a mask (all bits set).
#[inline(always)]
fn active_lanes(low: usize, high: usize) -> V {
    const RAMP: [i8; 2 * LANES] = {
        let mut ramp = [0; 2 * LANES];
        let mut k = LANES;
        while k < 2 * LANES {
            ramp[k] = -1;
            k += 1;
        }
        ramp
    };
    // Lanes ≥ low: the ramp from LANES − low; lanes ≤ high: lanes < high + 1.
    let from = ops::load_at(&RAMP, LANES - low);
    let beyond = ops::load_at(&RAMP, LANES - (high + 1).min(LANES));
    ops::and_not(beyond, from)
}

#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod generate {
    //! Lanes on: each lane of the band draws its own words inside the sweep, from its
    //! row's lane stream, as the slot needs them. Lane k of a band starting at row y0 is
    //! row y0 + k − 1, which draws from lane (y0 + k − 1) mod 16 of the streams, one word
    //! per site from left to right: exactly the words the scalar ticks draw there. The 16
    //! streams are held in vectors with lane k's stream in lane k (Xoshiro128++ four lanes
    //! to a vector, [`Streams`]); at the slots where some of the band's lanes are not yet
    //! or no longer updating (the first and last `rows` slots), only the updating lanes'
    //! streams step. The lanes around the band hold a dummy stream that is never written
    //! back.
    //!
    //! The decision r < t(s, S) is taken on the top bytes first: with r̂ = ⌊r/2^24⌋ and
    //! t̂ = min(⌊t/2^24⌋, 255), r̂ < t̂ means r < t and r̂ > t̂ means r ≥ t (t = 2^32 has
    //! t̂ = 255, t = 0 has t̂ = 0, so neither is ever wrongly decided), one byte compare per
    //! lane with t̂ looked up by S. Only where r̂ = t̂ (about one lane in 256) is the whole
    //! word compared, lane by lane.
    use super::{Decide, Decision, LANES, Lane, LaneChange, V, Wavefront, ops as bytes, sweep_any};
    use crate::dynamics::lanes::LaneStreams;
    use crate::dynamics::lanes::vector::Streams;
    use crate::dynamics::lanes::vector::ops::*;

    /// Sweeps the band loaded in `wave` (rows y0 ..) with its words from `streams`.
    pub fn sweep(
        wave: &mut Wavefront,
        y0: usize,
        rows: usize,
        decision: &Decision,
        streams: &mut LaneStreams,
    ) -> LaneChange {
        let stream_of = |k: usize| (y0 + k - 1) % LANES;
        let mut words = [[0u32; LANES]; 4];
        for k in 0..LANES {
            let state = if (1..=rows).contains(&k) {
                streams.lane(stream_of(k))
            } else {
                [1, 2, 3, 4]
            };
            for (word, value) in words.iter_mut().zip(state) {
                word[k] = value;
            }
        }
        let change = if decision.spin_dependent {
            run::<true>(wave, rows, decision, &mut words)
        } else {
            run::<false>(wave, rows, decision, &mut words)
        };
        for k in 1..=rows {
            streams.set_lane(stream_of(k), words.map(|word| word[k]));
        }
        change
    }

    /// The sweep, with thresholds per current spin (SPIN) or not.
    #[inline(never)]
    fn run<const SPIN: bool>(
        wave: &mut Wavefront,
        rows: usize,
        decision: &Decision,
        words: &mut [[u32; LANES]; 4],
    ) -> LaneChange {
        let top = decision.table.map(|row| {
            std::array::from_fn(|i| {
                if i < 9 {
                    (row[i] >> 24).min(255) as u8 as i8
                } else {
                    0
                }
            })
        });
        let mut decide = Generated::<SPIN> {
            lanes: Streams::from_words(words),
            top,
            table: decision.table,
        };
        let weighted = wave.weights.is_some();
        let parts = (
            &mut wave.spins[..],
            &wave.skewed_weights[..],
            wave.w,
            wave.edge,
        );
        let change = sweep_any(parts, rows, weighted, &mut decide);
        decide.lanes.to_words(words);
        change
    }

    /// The band's streams and the thresholds: their top bytes t̂ by S + 4 (a 16-byte
    /// table per current spin) and the whole t(s, S).
    struct Generated<const SPIN: bool> {
        lanes: Streams,
        top: [Lane; 2],
        table: [[u64; 9]; 2],
    }

    impl<const SPIN: bool> Decide for Generated<SPIN> {
        #[inline(always)]
        fn down(&mut self, _: usize, sum: V, old: V, active: V, full: bool) -> V {
            let words = if full {
                self.lanes.next()
            } else {
                self.lanes.next_where(widen_mask(active))
            };
            // r̂ per lane, as a byte 0..=255.
            let high = narrow16_unsigned(
                narrow32(shr32::<24>(words[0]), shr32::<24>(words[1])),
                narrow32(shr32::<24>(words[2]), shr32::<24>(words[3])),
            );
            let index = bytes::add(sum, bytes::splat(4));
            let top = if SPIN {
                bytes::select(
                    bytes::gt(old, bytes::splat(0)),
                    bytes::lookup(&self.top[1], index),
                    bytes::lookup(&self.top[0], index),
                )
            } else {
                bytes::lookup(&self.top[0], index)
            };
            // r̂ > t̂: r ≥ t, the new spin is −1.
            let down = bytes::gt_unsigned(high, top);
            let tie = bytes::and(bytes::eq(high, top), active);
            if bytes::any(tie) {
                self.whole_words(words, sum, old, tie, down)
            } else {
                down
            }
        }
    }

    impl<const SPIN: bool> Generated<SPIN> {
        /// `down` with the lanes of `tie` decided by the whole word: r < t(s, S).
        #[cold]
        #[inline(never)]
        fn whole_words(&self, words: [V; 4], sum: V, old: V, tie: V, down: V) -> V {
            let mut r = [[0u32; 4]; 4];
            for (q, &v) in words.iter().enumerate() {
                store_words(&mut r[q], v);
            }
            let (sum, old, tie) = (
                bytes::to_lane(sum),
                bytes::to_lane(old),
                bytes::to_lane(tie),
            );
            let mut out = bytes::to_lane(down);
            for k in (0..LANES).filter(|&k| tie[k] != 0) {
                let t = self.table[usize::from(old[k] > 0)][(sum[k] + 4) as usize];
                out[k] = if u64::from(r[k / 4][k % 4]) < t {
                    0
                } else {
                    -1
                };
            }
            bytes::load(&out)
        }
    }
}

use ops::V;

#[cfg(target_arch = "x86_64")]
mod ops {
    //! The byte operations of the kernel, SSE2 (part of every x86-64).
    use super::{LANES, Lane};
    use core::arch::x86_64::*;
    pub type V = __m128i;
    #[inline(always)]
    pub fn load(lane: &Lane) -> V {
        // SAFETY: a Lane is 16 readable bytes; unaligned load.
        unsafe { _mm_loadu_si128(lane.as_ptr().cast()) }
    }
    #[inline(always)]
    pub fn load_at(bytes: &[i8; 2 * LANES], at: usize) -> V {
        assert!(at <= LANES);
        // SAFETY: 16 readable bytes at `at` (checked above).
        unsafe { _mm_loadu_si128(bytes.as_ptr().add(at).cast()) }
    }
    #[inline(always)]
    pub fn store(lane: &mut Lane, v: V) {
        // SAFETY: a Lane is 16 writable bytes; unaligned store.
        unsafe { _mm_storeu_si128(lane.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    pub fn to_lane(v: V) -> Lane {
        let mut lane = [0; LANES];
        store(&mut lane, v);
        lane
    }
    #[inline(always)]
    pub fn splat(x: i8) -> V {
        // SAFETY: SSE2 is part of x86-64.
        unsafe { _mm_set1_epi8(x) }
    }
    #[inline(always)]
    pub fn add(a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_add_epi8(a, b) }
    }
    #[inline(always)]
    pub fn sub(a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_sub_epi8(a, b) }
    }
    #[inline(always)]
    pub fn xor(a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_xor_si128(a, b) }
    }
    #[inline(always)]
    pub fn or(a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_or_si128(a, b) }
    }
    /// !a & b.
    #[inline(always)]
    pub fn and_not(a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_andnot_si128(a, b) }
    }
    /// Signed a > b, all bits per lane.
    #[inline(always)]
    pub fn gt(a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_cmpgt_epi8(a, b) }
    }
    #[inline(always)]
    pub fn eq(a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_cmpeq_epi8(a, b) }
    }
    /// a where mask, else b.
    #[inline(always)]
    pub fn select(mask: V, a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b)) }
    }
    /// Lane k gets lane k − 1 (lane 0 gets 0).
    #[inline(always)]
    pub fn lane_up(a: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_slli_si128::<1>(a) }
    }
    /// Lane k gets lane k + 1 (the last lane gets 0).
    #[inline(always)]
    pub fn lane_down(a: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_srli_si128::<1>(a) }
    }
    #[inline(always)]
    pub fn and(a: V, b: V) -> V {
        // SAFETY: as above.
        unsafe { _mm_and_si128(a, b) }
    }
    /// Unsigned a > b, all bits per lane.
    #[inline(always)]
    pub fn gt_unsigned(a: V, b: V) -> V {
        let bias = splat(i8::MIN);
        gt(xor(a, bias), xor(b, bias))
    }
    /// Whether any bit is set.
    #[inline(always)]
    pub fn any(a: V) -> bool {
        // SAFETY: as above.
        unsafe { _mm_movemask_epi8(a) != 0 }
    }
    /// `table[index]` per lane, for indices 0..=8 (SSE2 has no byte shuffle: nine compares).
    #[inline(always)]
    pub fn lookup(table: &Lane, index: V) -> V {
        let mut out = splat(0);
        for (e, &value) in table.iter().enumerate().take(9) {
            out = or(
                out,
                select(eq(index, splat(e as i8)), splat(value), splat(0)),
            );
        }
        out
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod ops {
    //! The byte operations of the kernel, SIMD128.
    use super::{LANES, Lane};
    use core::arch::wasm32::*;
    pub type V = v128;
    #[inline(always)]
    pub fn load(lane: &Lane) -> V {
        // SAFETY: a Lane is 16 readable bytes (wasm loads need no alignment).
        unsafe { v128_load(lane.as_ptr().cast()) }
    }
    #[inline(always)]
    pub fn load_at(bytes: &[i8; 2 * LANES], at: usize) -> V {
        assert!(at <= LANES);
        // SAFETY: 16 readable bytes at `at` (checked above).
        unsafe { v128_load(bytes.as_ptr().add(at).cast()) }
    }
    #[inline(always)]
    pub fn store(lane: &mut Lane, v: V) {
        // SAFETY: a Lane is 16 writable bytes.
        unsafe { v128_store(lane.as_mut_ptr().cast(), v) }
    }
    #[inline(always)]
    pub fn to_lane(v: V) -> Lane {
        let mut lane = [0; LANES];
        store(&mut lane, v);
        lane
    }
    #[inline(always)]
    pub fn splat(x: i8) -> V {
        i8x16_splat(x)
    }
    #[inline(always)]
    pub fn add(a: V, b: V) -> V {
        i8x16_add(a, b)
    }
    #[inline(always)]
    pub fn sub(a: V, b: V) -> V {
        i8x16_sub(a, b)
    }
    #[inline(always)]
    pub fn xor(a: V, b: V) -> V {
        v128_xor(a, b)
    }
    #[inline(always)]
    pub fn or(a: V, b: V) -> V {
        v128_or(a, b)
    }
    /// !a & b.
    #[inline(always)]
    pub fn and_not(a: V, b: V) -> V {
        v128_andnot(b, a)
    }
    /// Signed a > b, all bits per lane.
    #[inline(always)]
    pub fn gt(a: V, b: V) -> V {
        i8x16_gt(a, b)
    }
    #[inline(always)]
    pub fn eq(a: V, b: V) -> V {
        i8x16_eq(a, b)
    }
    /// a where mask, else b.
    #[inline(always)]
    pub fn select(mask: V, a: V, b: V) -> V {
        v128_bitselect(a, b, mask)
    }
    /// Lane k gets lane k − 1 (lane 0 gets 0).
    #[inline(always)]
    pub fn lane_up(a: V) -> V {
        i8x16_shuffle::<16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14>(a, i8x16_splat(0))
    }
    /// Lane k gets lane k + 1 (the last lane gets 0).
    #[inline(always)]
    pub fn lane_down(a: V) -> V {
        i8x16_shuffle::<1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16>(a, i8x16_splat(0))
    }
    #[inline(always)]
    pub fn and(a: V, b: V) -> V {
        v128_and(a, b)
    }
    /// Unsigned a > b, all bits per lane.
    #[inline(always)]
    pub fn gt_unsigned(a: V, b: V) -> V {
        u8x16_gt(a, b)
    }
    /// Whether any bit is set.
    #[inline(always)]
    pub fn any(a: V) -> bool {
        v128_any_true(a)
    }
    /// `table[index]` per lane (indices 0..16).
    #[inline(always)]
    pub fn lookup(table: &Lane, index: V) -> V {
        i8x16_swizzle(load(table), index)
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
mod ops {
    //! The byte operations of the kernel on 16-byte arrays (targets without SIMD here).
    use super::{LANES, Lane};
    pub type V = Lane;
    fn map(a: V, b: V, f: impl Fn(i8, i8) -> i8) -> V {
        std::array::from_fn(|k| f(a[k], b[k]))
    }
    pub fn load(lane: &Lane) -> V {
        *lane
    }
    pub fn load_at(bytes: &[i8; 2 * LANES], at: usize) -> V {
        bytes[at..at + LANES].try_into().unwrap()
    }
    pub fn store(lane: &mut Lane, v: V) {
        *lane = v;
    }
    pub fn to_lane(v: V) -> Lane {
        v
    }
    pub fn splat(x: i8) -> V {
        [x; LANES]
    }
    pub fn add(a: V, b: V) -> V {
        map(a, b, i8::wrapping_add)
    }
    pub fn sub(a: V, b: V) -> V {
        map(a, b, i8::wrapping_sub)
    }
    pub fn xor(a: V, b: V) -> V {
        map(a, b, |x, y| x ^ y)
    }
    pub fn or(a: V, b: V) -> V {
        map(a, b, |x, y| x | y)
    }
    pub fn and_not(a: V, b: V) -> V {
        map(a, b, |x, y| !x & y)
    }
    pub fn gt(a: V, b: V) -> V {
        map(a, b, |x, y| -i8::from(x > y))
    }
    pub fn eq(a: V, b: V) -> V {
        map(a, b, |x, y| -i8::from(x == y))
    }
    pub fn select(mask: V, a: V, b: V) -> V {
        std::array::from_fn(|k| (mask[k] & a[k]) | (!mask[k] & b[k]))
    }
    pub fn lane_up(a: V) -> V {
        std::array::from_fn(|k| if k == 0 { 0 } else { a[k - 1] })
    }
    pub fn lane_down(a: V) -> V {
        std::array::from_fn(|k| if k + 1 == LANES { 0 } else { a[k + 1] })
    }
}
