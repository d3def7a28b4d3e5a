//! Checkerboard sweeps in lanes: the opt-in data-parallel chain for SIMD.
//!
//! On a periodic lattice of even width and height the two checkerboard colours are
//! independent given each other, so all the sites of one colour can be updated at once.
//! [`CheckerboardLanes`] does so in groups of [`LANES`] sites of a row: site j of a row's
//! colour (x = first + 2j) draws its 32-bit number from generator j mod [`LANES`], each
//! lane an independent Xoshiro128++ stream. This is a different (equally valid) Markov
//! chain from [`super::LatticeSampler`]'s checkerboard order, with its own fingerprint;
//! its loops over lanes are plain Rust that the compiler turns into SIMD (SSE natively,
//! SIMD128 in wasm with `+simd128`), so native and wasm follow the same trajectory.

use super::lattice_sampler::acceptance_table;
use super::{Rule, check_temperature, seeded_rng};
use crate::error::ParamError;
use crate::model::{Boundary, Couplings, Lattice};
use rand::Rng;

/// Sites updated together: one random stream each.
pub const LANES: usize = 16;

/// [`LANES`] Xoshiro128++ generators, stored word-major so each step is lane-parallel.
#[derive(Debug, Clone)]
struct LaneStreams {
    words: [[u32; LANES]; 4],
}

impl LaneStreams {
    /// Lane k's state: four words drawn from the stream of `seed` (never all zero).
    fn new(seed: u64) -> LaneStreams {
        let mut master = seeded_rng(seed);
        let mut words = [[0; LANES]; 4];
        for lane in 0..LANES {
            loop {
                for word in words.iter_mut() {
                    word[lane] = master.next_u32();
                }
                if words.iter().any(|w| w[lane] != 0) {
                    break;
                }
            }
        }
        LaneStreams { words }
    }

    /// The next number of every lane.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn next(&mut self) -> [u32; LANES] {
        let [s0, s1, s2, s3] = &mut self.words;
        let mut out = [0; LANES];
        for k in 0..LANES {
            out[k] = s0[k].wrapping_add(s3[k]).rotate_left(7).wrapping_add(s0[k]);
            let t = s1[k] << 9;
            s2[k] ^= s0[k];
            s3[k] ^= s1[k];
            s1[k] ^= s2[k];
            s0[k] ^= s3[k];
            s2[k] ^= t;
            s3[k] = s3[k].rotate_left(11);
        }
        out
    }
}

/// A uniform periodic ferromagnet (or antiferromagnet) of even width and height, swept in
/// checkerboard order with one random stream per lane.
#[derive(Debug, Clone)]
pub struct CheckerboardLanes {
    lattice: Lattice,
    spins: Vec<i8>,
    /// round(P(s' = +1) · 2^32) at [9 · (s > 0) + S + 4]; padded to 32 entries.
    table: [u64; 32],
    /// The same thresholds t in 32 bits, at [5 · (s > 0) + (S + 4) / 2] (S is even): r < t
    /// exactly when `positive` is all ones (t ≥ 1) and r ≤ `below` = t − 1.
    below: [u32; 16],
    positive: [u32; 16],
    streams: LaneStreams,
    sweeps: u64,
}

impl CheckerboardLanes {
    /// A full group away from the row's ends: the neighbours are fixed-size windows of
    /// the rows (no wrap), so every step is a lane-parallel loop. Same decisions as the
    /// general group.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn update_inner_group(
        &mut self,
        row: usize,
        up: usize,
        down: usize,
        x0: usize,
        draws: &[u32; LANES],
    ) {
        const SPAN: usize = 2 * LANES;
        let spins = &mut self.spins;
        let up_row: [i8; SPAN] = spins[up + x0..up + x0 + SPAN].try_into().unwrap();
        let down_row: [i8; SPAN] = spins[down + x0..down + x0 + SPAN].try_into().unwrap();
        let here: [i8; SPAN + 2] = spins[row + x0 - 1..row + x0 + SPAN + 1].try_into().unwrap();
        let mut out: [i8; SPAN] = here[1..SPAN + 1].try_into().unwrap();
        for k in 0..LANES {
            // here[2k] is the left neighbour, here[2k + 1] the spin, here[2k + 2] the right.
            let sum = i32::from(here[2 * k])
                + i32::from(here[2 * k + 2])
                + i32::from(up_row[2 * k])
                + i32::from(down_row[2 * k]);
            let index = (usize::from(here[2 * k + 1] > 0) * 5 + ((sum + 4) >> 1) as usize) & 15;
            let accept = (draws[k] <= self.below[index]) & (self.positive[index] != 0);
            out[2 * k] = if accept { 1 } else { -1 };
        }
        spins[row + x0..row + x0 + SPAN].copy_from_slice(&out);
    }

    /// Random spins (each ±1 with probability ½, from `seed`) on `lattice`, which must be
    /// uniform, periodic, of even width and height, at `temperature` (0 ≤ T ≤ ∞).
    pub fn new(
        lattice: Lattice,
        temperature: f64,
        rule: Rule,
        seed: u64,
    ) -> Result<CheckerboardLanes, ParamError> {
        let temperature = check_temperature(temperature)?;
        if !matches!(lattice.couplings(), Couplings::Uniform)
            || lattice.boundary() != Boundary::Periodic
            || !lattice.width().is_multiple_of(2)
            || !lattice.height().is_multiple_of(2)
        {
            return Err(ParamError::Invalid {
                field: "lattice",
                reason: "checkerboard lanes need uniform couplings, a periodic boundary and \
                         an even width and height"
                    .into(),
            });
        }
        let mut sampler = CheckerboardLanes {
            table: [0; 32],
            below: [0; 16],
            positive: [0; 16],
            spins: vec![0; lattice.len()],
            streams: LaneStreams::new(seed),
            sweeps: 0,
            lattice,
        };
        // Site i's initial spin: the top bit of lane i mod LANES of a fresh draw.
        let mut draws = [0u32; LANES];
        for i in 0..sampler.spins.len() {
            if i % LANES == 0 {
                draws = sampler.streams.next();
            }
            sampler.spins[i] = if draws[i % LANES] >> 31 == 1 { 1 } else { -1 };
        }
        sampler.set_temperature_and_rule(temperature, rule);
        Ok(sampler)
    }

    fn set_temperature_and_rule(&mut self, temperature: f64, rule: Rule) {
        let rows = acceptance_table(
            rule,
            self.lattice.coupling(),
            self.lattice.field(),
            temperature,
        );
        for (current, row) in rows.iter().enumerate() {
            self.table[9 * current..9 * current + 9].copy_from_slice(row);
            for half in 0..5 {
                let t = row[2 * half];
                self.below[5 * current + half] = t.saturating_sub(1) as u32;
                self.positive[5 * current + half] = if t > 0 { u32::MAX } else { 0 };
            }
        }
    }

    /// The spins, s_i = ±1, site i = x + W·y.
    pub fn spins(&self) -> &[i8] {
        &self.spins
    }

    pub fn lattice(&self) -> &Lattice {
        &self.lattice
    }

    /// Sweeps done.
    pub fn sweeps(&self) -> u64 {
        self.sweeps
    }

    /// E, recomputed from the spins.
    pub fn energy(&self) -> f64 {
        self.lattice.energy(&self.spins)
    }

    /// `sweeps` sweeps: every site of colour 0 (x + y even), row by row, then colour 1.
    pub fn run(&mut self, sweeps: u64) {
        let (w, h) = (self.lattice.width(), self.lattice.height());
        let half = w / 2;
        for _ in 0..sweeps {
            for colour in 0..2 {
                for y in 0..h {
                    let first = (colour + y) & 1;
                    let row = y * w;
                    let up = if y == 0 { (h - 1) * w } else { row - w };
                    let down = if y + 1 == h { 0 } else { row + w };
                    let mut j = 0;
                    while j < half {
                        let group = LANES.min(half - j);
                        self.update_group(w, row, up, down, first, j, group);
                        j += group;
                    }
                }
            }
            self.sweeps += 1;
        }
    }

    /// Sites j..j + group of the row's colour (x = first + 2j); lane k takes site j + k.
    #[inline(always)]
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    fn update_group(
        &mut self,
        w: usize,
        row: usize,
        up: usize,
        down: usize,
        first: usize,
        j: usize,
        group: usize,
    ) {
        let draws = self.streams.next();
        let x0 = first + 2 * j;
        if group == LANES && x0 >= 1 && x0 + 2 * LANES < w {
            self.update_inner_group(row, up, down, x0, &draws);
            return;
        }
        let spins = &mut self.spins;
        let mut index = [0usize; LANES];
        for k in 0..group {
            let x = first + 2 * (j + k);
            let left = if x == 0 { w - 1 } else { x - 1 };
            let right = if x + 1 == w { 0 } else { x + 1 };
            let sum = i32::from(spins[row + left])
                + i32::from(spins[row + right])
                + i32::from(spins[up + x])
                + i32::from(spins[down + x]);
            index[k] = (usize::from(spins[row + x] > 0) * 9 + (sum + 4) as usize) & 31;
        }
        for k in 0..group {
            let x = first + 2 * (j + k);
            spins[row + x] = if u64::from(draws[k]) < self.table[index[k]] {
                1
            } else {
                -1
            };
        }
    }
}
