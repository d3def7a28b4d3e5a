//! Checkerboard sweeps in lanes: the data-parallel chain for SIMD.
//!
//! On a periodic lattice of even width and height the two checkerboard colours are
//! independent given each other, so all the sites of one colour can be updated at once.
//! The lanes kernel does so in groups of [`LANES`] sites of a row: site j of a row's
//! colour (x = first + 2j) draws its 32-bit number from generator j mod [`LANES`], each
//! lane an independent Xoshiro128++ stream ([`LaneStreams`]). This is a different
//! (equally valid) realisation of the checkerboard chain from [`super::LatticeSampler`]'s
//! single stream, with its own fingerprint.
//!
//! The vector kernel (`vector`, SSE2 natively, SIMD128 in wasm) works on a full group
//! with integer operations only, so native and wasm follow the same trajectory:
//! - the neighbour sums S of the 16 sites come from four unaligned 16-byte loads of the
//!   interleaved row (left, right, up, down neighbours line up with the site's byte), added
//!   as bytes and sign-extended from the even bytes into 16-bit lanes;
//! - the threshold t(S) is never looked up: for a rule whose thresholds are monotone in
//!   σS (σ = ±1, checked when the table is built) `r < t(S)` is the same as
//!   `rank(S) ≥ #{thresholds ≤ r}`, and that count is five 32-bit compares per random
//!   number, summed, narrowed to 16 bits and compared with rank(S) = (σS + 4)/2;
//! - the new spin byte is blended into the even bytes, the odd (other colour) bytes kept.
//!
//! Groups at the row's wrap-around edge go through the same vector code on a small copy
//! with the periodic neighbours filled in; a last partial group (W/2 not a multiple of
//! 16) and targets without SIMD use the scalar group with the same decisions.

use super::Rule;
use super::rules::acceptance_table;
use crate::error::{ParamError, TemperatureDomain, check_temperature};
use crate::model::{Boundary, Couplings, Lattice};
use crate::rng::seeded_rng;
use rand::Rng;

/// Sites updated together: one random stream each.
pub const LANES: usize = 16;

/// [`LANES`] Xoshiro128++ generators, stored word-major so each step is lane-parallel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaneStreams {
    words: [[u32; LANES]; 4],
}

impl LaneStreams {
    /// Lane k's state: four words drawn from the stream of `seed` (never all zero).
    pub fn new(seed: u64) -> LaneStreams {
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

    /// The state as 64 words: word w of lane k at 16·w + k.
    pub fn to_words(&self) -> Vec<u32> {
        self.words.iter().flatten().copied().collect()
    }

    /// The streams saved by [`Self::to_words`]; refuses a wrong length or a lane whose
    /// four words are all zero (a Xoshiro generator's fixed point).
    pub fn from_words(saved: &[u32]) -> Result<LaneStreams, ParamError> {
        let invalid = |reason: String| ParamError::Invalid {
            field: "lane random state",
            reason,
        };
        if saved.len() != 4 * LANES {
            return Err(invalid(format!(
                "need {} words, got {}",
                4 * LANES,
                saved.len()
            )));
        }
        let mut words = [[0; LANES]; 4];
        for (w, word) in words.iter_mut().enumerate() {
            word.copy_from_slice(&saved[LANES * w..LANES * (w + 1)]);
        }
        if let Some(lane) = (0..LANES).find(|&k| words.iter().all(|w| w[k] == 0)) {
            return Err(invalid(format!("lane {lane}'s words are all zero")));
        }
        Ok(LaneStreams { words })
    }

    /// The next number of lane `k` alone (the others keep their state): the scalar ticks
    /// of the sequential order with lanes on, where row y draws from lane y mod 16.
    #[inline(always)]
    pub fn next_lane(&mut self, k: usize) -> u32 {
        let [s0, s1, s2, s3] = &mut self.words;
        let out = s0[k].wrapping_add(s3[k]).rotate_left(7).wrapping_add(s0[k]);
        let t = s1[k] << 9;
        s2[k] ^= s0[k];
        s3[k] ^= s1[k];
        s1[k] ^= s2[k];
        s0[k] ^= s3[k];
        s2[k] ^= t;
        s3[k] = s3[k].rotate_left(11);
        out
    }

    /// Lane `k`'s four state words.
    pub fn lane(&self, k: usize) -> [u32; 4] {
        self.words.map(|w| w[k])
    }

    /// Sets lane `k`'s four state words (from [`Self::lane`] of streams that were valid).
    pub fn set_lane(&mut self, k: usize, state: [u32; 4]) {
        for (w, word) in self.words.iter_mut().zip(state) {
            w[k] = word;
        }
    }

    /// The next number of every lane.
    #[inline(always)]
    fn next(&mut self) -> [u32; LANES] {
        std::array::from_fn(|k| self.next_lane(k))
    }
}

/// The decision table of the lanes kernel for one rule, J, h and T.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneTable {
    /// round(P(s' = +1) · 2^32) at [9 · (s > 0) + S + 4]; padded to 32 entries.
    table: [u64; 32],
    /// The counting form for the vector kernel, when the thresholds allow it.
    counting: Option<Counting>,
}

/// `r < t(s, S)` as a count (see the module notes): with σ the direction in which the
/// thresholds of each current spin s never decrease, k(r) = #{S : t(s, S) ≤ r} and
/// rank(S) = (σS + 4)/2, the spin becomes +1 exactly when rank(S) ≥ k(r). With c₀ the
/// number of zero thresholds (always counted) and k′ = k − c₀ the count of the others,
/// that is σS/2 − k′(r) ≥ c₀ − 2: the spin becomes −1 exactly when
/// `level > σS/2 − k′(r)`, level = c₀ − 2.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Counting {
    /// σ = −1.
    negate: bool,
    /// Whether the thresholds depend on the current spin (Metropolis) or not (heat bath).
    spin_dependent: bool,
    /// Per current spin and even S: (t − 1) ⊕ 2^31 as i32 for t ≥ 1, so that
    /// `r ⊕ 2^31 > below` (signed) is `r ≥ t`; i32::MAX (never counted) for t = 0.
    below: [[i32; 5]; 2],
    /// Per current spin: c₀ − 2.
    level: [i16; 2],
}

impl LaneTable {
    pub fn new(rule: Rule, coupling: f64, field: f64, temperature: f64) -> LaneTable {
        let rows = acceptance_table(rule, coupling, field, temperature);
        let mut table = [0; 32];
        for (current, row) in rows.iter().enumerate() {
            table[9 * current..9 * current + 9].copy_from_slice(row);
        }
        // Thresholds at even S (the only sums four ±1 neighbours give), S = −4, −2, …, 4.
        let even = |current: usize| -> [u64; 5] { std::array::from_fn(|k| rows[current][2 * k]) };
        let sets = [even(0), even(1)];
        let rising = sets.iter().all(|t| t.windows(2).all(|p| p[0] <= p[1]));
        let falling = sets.iter().all(|t| t.windows(2).all(|p| p[0] >= p[1]));
        let counting = (rising || falling).then(|| {
            let mut below = [[0; 5]; 2];
            let mut level = [0; 2];
            for (current, set) in sets.iter().enumerate() {
                let mut zeros = 0;
                for (slot, &t) in below[current].iter_mut().zip(set) {
                    *slot = if t == 0 {
                        zeros += 1;
                        i32::MAX
                    } else {
                        (((t - 1) as u32) ^ 0x8000_0000) as i32
                    };
                }
                level[current] = zeros - 2;
            }
            Counting {
                negate: !rising,
                spin_dependent: sets[0] != sets[1],
                below,
                level,
            }
        });
        LaneTable { table, counting }
    }

    /// Whether full groups go through the vector kernel on this target.
    pub fn vectorised(&self) -> bool {
        vector::AVAILABLE && self.counting.is_some()
    }
}

/// Changes of the bookkeeping sums Σ s_i s_j (nearest-neighbour bonds) and Σ s_i.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LaneChange {
    pub bond_sum: i64,
    pub magnetization: i64,
}

/// Updates the sites x = first, first + 2, … of row y (the row's sites of one colour) of a
/// uniform periodic lattice of even width `w` and height `h`, in groups of [`LANES`]:
/// site j takes lane j mod 16 of its group's draw from `streams`.
#[allow(clippy::too_many_arguments)]
pub fn update_row(
    spins: &mut [i8],
    (w, h): (usize, usize),
    y: usize,
    first: usize,
    table: &LaneTable,
    streams: &mut LaneStreams,
    change: &mut LaneChange,
) {
    // The row and its neighbour rows, borrowed apart (h ≥ 2, so they are other rows).
    let (before, rest) = spins.split_at_mut(y * w);
    let (row, after) = rest.split_at_mut(w);
    let up: &[i8] = if y == 0 {
        &after[after.len() - w..]
    } else {
        &before[before.len() - w..]
    };
    let down: &[i8] = if y + 1 == h {
        &before[..w]
    } else {
        &after[..w]
    };
    let half = w / 2;
    let full = half / LANES;
    match (vector::AVAILABLE, table.counting) {
        (true, Some(counting)) if full > 0 => {
            vector::update_groups(row, up, down, first, full, &counting, streams, change)
        }
        _ => {
            for g in 0..full {
                let draws = streams.next();
                scalar_group(
                    row,
                    up,
                    down,
                    first + 2 * LANES * g,
                    LANES,
                    table,
                    &draws,
                    change,
                );
            }
        }
    }
    if full * LANES < half {
        let draws = streams.next();
        let x0 = first + 2 * LANES * full;
        scalar_group(
            row,
            up,
            down,
            x0,
            half - full * LANES,
            table,
            &draws,
            change,
        );
    }
}

/// Sites x0, x0 + 2, … (`group` of them) of `row`: lane k takes site x0 + 2k.
#[inline]
#[allow(clippy::too_many_arguments)]
fn scalar_group(
    row: &mut [i8],
    up: &[i8],
    down: &[i8],
    x0: usize,
    group: usize,
    table: &LaneTable,
    draws: &[u32; LANES],
    change: &mut LaneChange,
) {
    let w = row.len();
    for (k, &r) in draws.iter().enumerate().take(group) {
        let x = x0 + 2 * k;
        let left = if x == 0 { w - 1 } else { x - 1 };
        let right = if x + 1 == w { 0 } else { x + 1 };
        let sum =
            i32::from(row[left]) + i32::from(row[right]) + i32::from(up[x]) + i32::from(down[x]);
        let old = i32::from(row[x]);
        let index = (usize::from(old > 0) * 9 + (sum + 4) as usize) & 31;
        let new = if u64::from(r) < table.table[index] {
            1
        } else {
            -1
        };
        change.bond_sum += i64::from((new - old) * sum);
        change.magnetization += i64::from(new - old);
        row[x] = new as i8;
    }
}

#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
pub(crate) mod vector {
    //! The vector group: the same decisions as [`super::scalar_group`] for a full group.
    use super::{Counting, LANES, LaneChange, LaneStreams};

    pub const AVAILABLE: bool = true;

    #[cfg(target_arch = "x86_64")]
    pub(crate) mod ops {
        //! The few 128-bit operations the kernel needs, SSE2 (part of every x86-64).
        #![allow(unused_unsafe)]
        use core::arch::x86_64::*;
        pub type V = __m128i;
        /// 16 bytes of `bytes` from `at` (the caller's arrays make `at + 16` in range).
        #[inline(always)]
        pub fn load<const N: usize>(bytes: &[i8; N], at: usize) -> V {
            assert!(at + 16 <= N);
            // SAFETY: 16 readable bytes at `at` (checked above; the check folds away).
            unsafe { _mm_loadu_si128(bytes.as_ptr().add(at).cast()) }
        }
        #[inline(always)]
        pub fn store<const N: usize>(bytes: &mut [i8; N], at: usize, v: V) {
            assert!(at + 16 <= N);
            // SAFETY: 16 writable bytes at `at`.
            unsafe { _mm_storeu_si128(bytes.as_mut_ptr().add(at).cast(), v) }
        }
        #[inline(always)]
        pub fn load_words(words: &[u32; 4]) -> V {
            // SAFETY: 16 readable bytes.
            unsafe { _mm_loadu_si128(words.as_ptr().cast()) }
        }
        #[inline(always)]
        pub fn store_words(words: &mut [u32; 4], v: V) {
            // SAFETY: 16 writable bytes.
            unsafe { _mm_storeu_si128(words.as_mut_ptr().cast(), v) }
        }
        #[inline(always)]
        pub fn splat32(x: i32) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_set1_epi32(x) }
        }
        #[inline(always)]
        pub fn splat16(x: i16) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_set1_epi16(x) }
        }
        #[inline(always)]
        pub fn add8(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_add_epi8(a, b) }
        }
        #[inline(always)]
        pub fn add16(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_add_epi16(a, b) }
        }
        #[inline(always)]
        pub fn sub16(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_sub_epi16(a, b) }
        }
        #[inline(always)]
        pub fn mul16(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_mullo_epi16(a, b) }
        }
        #[inline(always)]
        pub fn add32(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_add_epi32(a, b) }
        }
        /// Each 16-bit lane's low byte, sign-extended and halved (for even values).
        #[inline(always)]
        pub fn low_bytes16_halved(a: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_srai_epi16::<9>(_mm_slli_epi16::<8>(a)) }
        }
        /// Each 16-bit lane's low byte, sign-extended.
        #[inline(always)]
        pub fn low_bytes16(a: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_srai_epi16::<8>(_mm_slli_epi16::<8>(a)) }
        }
        #[inline(always)]
        pub fn shl32<const N: i32>(a: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_slli_epi32::<N>(a) }
        }
        #[inline(always)]
        pub fn shr32<const N: i32>(a: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_srli_epi32::<N>(a) }
        }
        #[inline(always)]
        pub fn and(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_and_si128(a, b) }
        }
        #[inline(always)]
        pub fn or(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_or_si128(a, b) }
        }
        #[inline(always)]
        pub fn xor(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_xor_si128(a, b) }
        }
        /// a & !mask | b & mask.
        #[inline(always)]
        pub fn select(mask: V, a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_or_si128(_mm_andnot_si128(mask, a), _mm_and_si128(mask, b)) }
        }
        #[inline(always)]
        pub fn gt32(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_cmpgt_epi32(a, b) }
        }
        #[inline(always)]
        pub fn gt16(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_cmpgt_epi16(a, b) }
        }
        /// Two i32x4 to one i16x8 (saturating; the values here fit).
        #[inline(always)]
        pub fn narrow32(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_packs_epi32(a, b) }
        }
        /// Two i16x8 to one u8x16 (saturating; the values here fit).
        #[inline(always)]
        pub fn narrow16_unsigned(a: V, b: V) -> V {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe { _mm_packus_epi16(a, b) }
        }
        /// A byte mask (0 or −1 per byte) as four 32-bit masks: bytes 4q..4q + 4 in [q].
        #[inline(always)]
        pub fn widen_mask(m: V) -> [V; 4] {
            // SAFETY: SSE2 is part of every x86-64 target.
            unsafe {
                let (low, high) = (_mm_unpacklo_epi8(m, m), _mm_unpackhi_epi8(m, m));
                [
                    _mm_unpacklo_epi16(low, low),
                    _mm_unpackhi_epi16(low, low),
                    _mm_unpacklo_epi16(high, high),
                    _mm_unpackhi_epi16(high, high),
                ]
            }
        }
        /// The sum of the eight 16-bit lanes.
        #[inline(always)]
        pub fn sum16(a: V) -> i64 {
            let mut lanes = [0i16; 8];
            // SAFETY: 16 writable bytes.
            unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), a) };
            lanes.iter().map(|&x| i64::from(x)).sum()
        }
    }

    #[cfg(target_arch = "wasm32")]
    pub(crate) mod ops {
        //! The few 128-bit operations the kernel needs, SIMD128.
        use core::arch::wasm32::*;
        pub type V = v128;
        #[inline(always)]
        pub fn load<const N: usize>(bytes: &[i8; N], at: usize) -> V {
            assert!(at + 16 <= N);
            // SAFETY: 16 readable bytes at `at` (checked above; the check folds away).
            unsafe { v128_load(bytes.as_ptr().add(at).cast()) }
        }
        #[inline(always)]
        pub fn store<const N: usize>(bytes: &mut [i8; N], at: usize, v: V) {
            assert!(at + 16 <= N);
            // SAFETY: 16 writable bytes at `at`.
            unsafe { v128_store(bytes.as_mut_ptr().add(at).cast(), v) }
        }
        #[inline(always)]
        pub fn load_words(words: &[u32; 4]) -> V {
            // SAFETY: 16 readable bytes.
            unsafe { v128_load(words.as_ptr().cast()) }
        }
        #[inline(always)]
        pub fn store_words(words: &mut [u32; 4], v: V) {
            // SAFETY: 16 writable bytes.
            unsafe { v128_store(words.as_mut_ptr().cast(), v) }
        }
        #[inline(always)]
        pub fn splat32(x: i32) -> V {
            i32x4_splat(x)
        }
        #[inline(always)]
        pub fn splat16(x: i16) -> V {
            i16x8_splat(x)
        }
        #[inline(always)]
        pub fn add8(a: V, b: V) -> V {
            i8x16_add(a, b)
        }
        #[inline(always)]
        pub fn add16(a: V, b: V) -> V {
            i16x8_add(a, b)
        }
        #[inline(always)]
        pub fn sub16(a: V, b: V) -> V {
            i16x8_sub(a, b)
        }
        #[inline(always)]
        pub fn mul16(a: V, b: V) -> V {
            i16x8_mul(a, b)
        }
        #[inline(always)]
        pub fn add32(a: V, b: V) -> V {
            i32x4_add(a, b)
        }
        #[inline(always)]
        pub fn low_bytes16(a: V) -> V {
            i16x8_shr(i16x8_shl(a, 8), 8)
        }
        #[inline(always)]
        pub fn low_bytes16_halved(a: V) -> V {
            i16x8_shr(i16x8_shl(a, 8), 9)
        }
        #[inline(always)]
        pub fn shl32<const N: u32>(a: V) -> V {
            i32x4_shl(a, N)
        }
        #[inline(always)]
        pub fn shr32<const N: u32>(a: V) -> V {
            u32x4_shr(a, N)
        }
        #[inline(always)]
        pub fn and(a: V, b: V) -> V {
            v128_and(a, b)
        }
        #[inline(always)]
        pub fn or(a: V, b: V) -> V {
            v128_or(a, b)
        }
        #[inline(always)]
        pub fn xor(a: V, b: V) -> V {
            v128_xor(a, b)
        }
        #[inline(always)]
        pub fn select(mask: V, a: V, b: V) -> V {
            v128_bitselect(b, a, mask)
        }
        #[inline(always)]
        pub fn gt32(a: V, b: V) -> V {
            i32x4_gt(a, b)
        }
        #[inline(always)]
        pub fn gt16(a: V, b: V) -> V {
            i16x8_gt(a, b)
        }
        #[inline(always)]
        pub fn narrow32(a: V, b: V) -> V {
            i16x8_narrow_i32x4(a, b)
        }
        #[inline(always)]
        pub fn narrow16_unsigned(a: V, b: V) -> V {
            u8x16_narrow_i16x8(a, b)
        }
        #[inline(always)]
        pub fn widen_mask(m: V) -> [V; 4] {
            let (low, high) = (i16x8_extend_low_i8x16(m), i16x8_extend_high_i8x16(m));
            [
                i32x4_extend_low_i16x8(low),
                i32x4_extend_high_i16x8(low),
                i32x4_extend_low_i16x8(high),
                i32x4_extend_high_i16x8(high),
            ]
        }
        #[inline(always)]
        pub fn sum16(a: V) -> i64 {
            let wide = i32x4_extadd_pairwise_i16x8(a);
            i64::from(i32x4_extract_lane::<0>(wide))
                + i64::from(i32x4_extract_lane::<1>(wide))
                + i64::from(i32x4_extract_lane::<2>(wide))
                + i64::from(i32x4_extract_lane::<3>(wide))
        }
    }

    use ops::*;

    /// The lane streams in 16 vectors: word w of lanes 4q..4q + 4 at [w][q].
    pub(crate) struct Streams([[V; 4]; 4]);

    impl Streams {
        #[inline(always)]
        fn load(streams: &LaneStreams) -> Streams {
            Streams::from_words(&streams.words)
        }

        #[inline(always)]
        fn store(&self, streams: &mut LaneStreams) {
            self.to_words(&mut streams.words);
        }

        /// The streams whose state words are `words` (word w of lane k at [w][k]).
        #[inline(always)]
        pub(crate) fn from_words(words: &[[u32; LANES]; 4]) -> Streams {
            Streams(std::array::from_fn(|w| {
                std::array::from_fn(|q| load_words(words[w][4 * q..4 * q + 4].try_into().unwrap()))
            }))
        }

        /// Writes the state words back (the layout of [`Self::from_words`]).
        #[inline(always)]
        pub(crate) fn to_words(&self, words: &mut [[u32; LANES]; 4]) {
            for (w, word) in self.0.iter().enumerate() {
                for (q, &v) in word.iter().enumerate() {
                    store_words((&mut words[w][4 * q..4 * q + 4]).try_into().unwrap(), v);
                }
            }
        }

        /// Xoshiro128++ in every lane: the same numbers as [`LaneStreams::next`].
        #[inline(always)]
        pub(crate) fn next(&mut self) -> [V; 4] {
            let [s0, s1, s2, s3] = &mut self.0;
            std::array::from_fn(|q| {
                let sum = add32(s0[q], s3[q]);
                let out = add32(or(shl32::<7>(sum), shr32::<25>(sum)), s0[q]);
                let t = shl32::<9>(s1[q]);
                s2[q] = xor(s2[q], s0[q]);
                s3[q] = xor(s3[q], s1[q]);
                s1[q] = xor(s1[q], s2[q]);
                s0[q] = xor(s0[q], s3[q]);
                s2[q] = xor(s2[q], t);
                s3[q] = or(shl32::<11>(s3[q]), shr32::<21>(s3[q]));
                out
            })
        }

        /// [`Self::next`] in the lanes of `active` (all bits set per 32-bit lane, one
        /// vector per group of four); the other lanes keep their state (their numbers are
        /// returned but not drawn).
        #[inline(always)]
        pub(crate) fn next_where(&mut self, active: [V; 4]) -> [V; 4] {
            let before = Streams(self.0);
            let out = self.next();
            for (word, old) in self.0.iter_mut().zip(before.0) {
                for q in 0..4 {
                    word[q] = select(active[q], old[q], word[q]);
                }
            }
            out
        }
    }

    /// The counting table in vectors, and the constants of the group, made opaque to the
    /// compiler once per row (`black_box`) so that they stay in registers instead of being
    /// rematerialised in the loop (V8 builds a v128 constant with several instructions).
    struct Table {
        below: [[V; 5]; 2],
        level: [V; 2],
        sign_bit: V,
        zero: V,
        one: V,
        low_byte: V,
        high_byte: V,
    }

    /// Running sums of the changes, in 16-bit lanes (flushed before they could overflow).
    struct Sums {
        magnetization: V,
        bond_sum: V,
        groups: usize,
    }

    impl Sums {
        fn flush(&mut self, change: &mut LaneChange) {
            change.magnetization += sum16(self.magnetization);
            // The lanes hold Σ Δs · S/2.
            change.bond_sum += 2 * sum16(self.bond_sum);
            self.magnetization = splat16(0);
            self.bond_sum = splat16(0);
            self.groups = 0;
        }
    }

    /// The `full` full groups of a row (x0 = first + 32 g).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn update_groups(
        row: &mut [i8],
        up: &[i8],
        down: &[i8],
        first: usize,
        full: usize,
        counting: &Counting,
        streams: &mut LaneStreams,
        change: &mut LaneChange,
    ) {
        use std::hint::black_box;
        let table = Table {
            below: counting.below.map(|set| set.map(splat32)),
            level: counting.level.map(splat16),
            sign_bit: black_box(splat32(i32::MIN)),
            zero: black_box(splat16(0)),
            one: black_box(splat16(1)),
            low_byte: black_box(splat16(0x00ff)),
            high_byte: black_box(splat16(-256)),
        };
        let args = (row, up, down, first, full, &table, streams, change);
        // One copy of the loop per case, so the per-group code has no tests for them.
        match (counting.spin_dependent, counting.negate) {
            (false, false) => groups::<false, false>(args),
            (false, true) => groups::<false, true>(args),
            (true, false) => groups::<true, false>(args),
            (true, true) => groups::<true, true>(args),
        }
    }

    type GroupArgs<'a> = (
        &'a mut [i8],
        &'a [i8],
        &'a [i8],
        usize,
        usize,
        &'a Table,
        &'a mut LaneStreams,
        &'a mut LaneChange,
    );

    #[inline(never)]
    fn groups<const SPIN: bool, const NEGATE: bool>(
        (row, up, down, first, full, table, streams, change): GroupArgs,
    ) {
        const SPAN: usize = 2 * LANES;
        let w = row.len();
        let mut lanes = Streams::load(streams);
        let mut sums = Sums {
            magnetization: splat16(0),
            bond_sum: splat16(0),
            groups: 0,
        };
        for g in 0..full {
            let x0 = first + 2 * LANES * g;
            let draws = lanes.next();
            if x0 >= 1 && x0 + SPAN < w {
                let here: &mut [i8; SPAN + 2] =
                    (&mut row[x0 - 1..x0 + SPAN + 1]).try_into().unwrap();
                let up: &[i8; SPAN] = up[x0..x0 + SPAN].try_into().unwrap();
                let down: &[i8; SPAN] = down[x0..x0 + SPAN].try_into().unwrap();
                group::<SPIN, NEGATE>(here, up, down, &draws, table, &mut sums);
            } else {
                // At the wrap-around: the same group on copies with the periodic
                // neighbours in place; only the group's own sites are written back.
                let mut here = [0i8; SPAN + 2];
                let (mut up_copy, mut down_copy) = ([0i8; SPAN], [0i8; SPAN]);
                periodic_copy(&mut here, row, if x0 == 0 { w - 1 } else { x0 - 1 });
                periodic_copy(&mut up_copy, up, x0);
                periodic_copy(&mut down_copy, down, x0);
                group::<SPIN, NEGATE>(&mut here, &up_copy, &down_copy, &draws, table, &mut sums);
                for k in 0..LANES {
                    row[x0 + 2 * k] = here[1 + 2 * k];
                }
            }
            sums.groups += 1;
            if sums.groups == 1024 {
                sums.flush(change);
            }
        }
        sums.flush(change);
        lanes.store(streams);
    }

    /// `copy[i] = row[(start + i) mod W]` (start < W), by stepping and wrapping.
    fn periodic_copy(copy: &mut [i8], row: &[i8], start: usize) {
        let (mut filled, mut x) = (0, start);
        while filled < copy.len() {
            let n = (copy.len() - filled).min(row.len() - x);
            copy[filled..filled + n].copy_from_slice(&row[x..x + n]);
            filled += n;
            x = 0;
        }
    }

    /// One full group: `here` holds bytes x0 − 1 ..= x0 + 32 of the row, `up` and `down`
    /// bytes x0 .. x0 + 32 of the neighbour rows; lane k's site is x0 + 2k (byte 2k + 1 of
    /// `here`), its new spin is written there.
    #[inline(always)]
    fn group<const SPIN: bool, const NEGATE: bool>(
        here: &mut [i8; 2 * LANES + 2],
        up: &[i8; 2 * LANES],
        down: &[i8; 2 * LANES],
        draws: &[V; 4],
        table: &Table,
        sums: &mut Sums,
    ) {
        // −k′(r): the counts of the thresholds ≤ r, as sums of −1 masks, in 16 bits.
        let count = |below: &[V; 5]| -> [V; 2] {
            let counts: [V; 4] = std::array::from_fn(|q| {
                let r = xor(draws[q], table.sign_bit);
                let mut m = gt32(r, below[0]);
                for b in &below[1..] {
                    m = add32(m, gt32(r, *b));
                }
                m
            });
            [
                narrow32(counts[0], counts[1]),
                narrow32(counts[2], counts[3]),
            ]
        };
        let low = count(&table.below[0]);
        let high = if SPIN { count(&table.below[1]) } else { low };
        for half in 0..2 {
            let at = 16 * half;
            // Byte 2m of each sum is the neighbour sum S of lane 8·half + m.
            let sum8 = add8(
                add8(load(here, at), load(here, at + 2)),
                add8(load(up, at), load(down, at)),
            );
            let half_sum = low_bytes16_halved(sum8);
            let ranked = if NEGATE {
                sub16(table.zero, half_sum)
            } else {
                half_sum
            };
            let old_bytes = load(here, at + 1);
            let old = low_bytes16(old_bytes);
            // −1 where the new spin is −1, 0 where it is +1.
            let down_low = gt16(table.level[0], add16(ranked, low[half]));
            let down_mask = if SPIN {
                let down_high = gt16(table.level[1], add16(ranked, high[half]));
                select(gt16(old, table.zero), down_low, down_high)
            } else {
                down_low
            };
            let new = or(down_mask, table.one);
            // The new spins in the even bytes, the odd (other colour) bytes kept.
            store(
                here,
                at + 1,
                or(and(old_bytes, table.high_byte), and(new, table.low_byte)),
            );
            let delta = sub16(new, old);
            sums.magnetization = add16(sums.magnetization, delta);
            sums.bond_sum = add16(sums.bond_sum, mul16(delta, half_sum));
        }
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
mod vector {
    //! No vector kernel on this target: full groups take the scalar path.
    use super::{Counting, LaneChange, LaneStreams};

    pub const AVAILABLE: bool = false;

    #[allow(clippy::too_many_arguments)]
    pub fn update_groups(
        _row: &mut [i8],
        _up: &[i8],
        _down: &[i8],
        _first: usize,
        _full: usize,
        _counting: &Counting,
        _streams: &mut LaneStreams,
        _change: &mut LaneChange,
    ) {
        unreachable!("update_row checks vector::AVAILABLE")
    }
}

/// Checks that lanes can sweep `lattice`: uniform, periodic, even width and height.
pub fn check_lattice(lattice: &Lattice) -> Result<(), ParamError> {
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
    Ok(())
}

/// A uniform periodic ferromagnet (or antiferromagnet) of even width and height, swept in
/// checkerboard order with one random stream per lane.
#[derive(Debug, Clone)]
pub struct CheckerboardLanes {
    lattice: Lattice,
    spins: Vec<i8>,
    table: LaneTable,
    streams: LaneStreams,
    sweeps: u64,
    /// Forces the scalar group everywhere (to test the vector kernel against it).
    scalar_only: bool,
}

impl CheckerboardLanes {
    /// Random spins (each ±1 with probability ½, from `seed`) on `lattice`, which must be
    /// uniform, periodic, of even width and height, at `temperature` (0 ≤ T ≤ ∞).
    pub fn new(
        lattice: Lattice,
        temperature: f64,
        rule: Rule,
        seed: u64,
    ) -> Result<CheckerboardLanes, ParamError> {
        let temperature = check_temperature(temperature, TemperatureDomain::Sampling)?;
        check_lattice(&lattice)?;
        let mut streams = LaneStreams::new(seed);
        // Site i's initial spin: the top bit of lane i mod LANES of a fresh draw.
        let mut spins = vec![0; lattice.len()];
        let mut draws = [0u32; LANES];
        for (i, spin) in spins.iter_mut().enumerate() {
            if i % LANES == 0 {
                draws = streams.next();
            }
            *spin = if draws[i % LANES] >> 31 == 1 { 1 } else { -1 };
        }
        let table = LaneTable::new(rule, lattice.coupling(), lattice.field(), temperature);
        Ok(CheckerboardLanes {
            table,
            spins,
            streams,
            sweeps: 0,
            lattice,
            scalar_only: false,
        })
    }

    /// The same chain with the scalar group for every group (the reference for tests).
    pub fn scalar_only(mut self) -> CheckerboardLanes {
        self.scalar_only = true;
        self.table.counting = None;
        self
    }

    /// Whether full groups go through the vector kernel.
    pub fn vectorised(&self) -> bool {
        !self.scalar_only && self.table.vectorised()
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
        let mut change = LaneChange::default();
        for _ in 0..sweeps {
            for colour in 0..2 {
                for y in 0..h {
                    let first = (colour + y) & 1;
                    update_row(
                        &mut self.spins,
                        (w, h),
                        y,
                        first,
                        &self.table,
                        &mut self.streams,
                        &mut change,
                    );
                }
            }
            self.sweeps += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_streams_round_trip_and_refuse_a_zero_lane() {
        let streams = LaneStreams::new(4);
        let words = streams.to_words();
        assert_eq!(LaneStreams::from_words(&words).unwrap(), streams);
        let mut zero = words.clone();
        for w in 0..4 {
            zero[16 * w + 3] = 0;
        }
        assert!(LaneStreams::from_words(&zero).is_err());
        assert!(LaneStreams::from_words(&words[1..]).is_err());
    }

    #[test]
    fn counting_applies_to_both_rules_whatever_the_sign_of_j() {
        for rule in Rule::ALL {
            for (j, h, t) in [
                (1.0, 0.0, 2.269),
                (-1.0, 0.3, 1.5),
                (0.0, 0.2, 1.0),
                (1.0, -0.5, 0.0),
            ] {
                let table = LaneTable::new(rule, j, h, t);
                assert!(table.counting.is_some(), "{rule:?} J={j} h={h} T={t}");
            }
        }
    }
}
