//! How states change: one sequential single-spin update ("tick") at a time.
//!
//! A tick visits one site and redraws its spin by an update [`rules`] from the local field
//! and the temperature; a sweep is N ticks. Sites are visited in an [`Order`]. The random
//! stream is [`SpinRng`], a 32-bit generator whose output is the same on every platform,
//! and every random choice is made from its 32-bit words with integer arithmetic (or
//! `libm`), so a seed fixes the whole trajectory natively and in WebAssembly alike.

pub mod anneal;
pub mod cluster;
pub mod lanes;
pub mod lattice_sampler;
pub mod network_sampler;
pub mod rules;

pub use anneal::Schedule;
pub use lattice_sampler::{Dynamics, LatticeSampler, SamplerState, TickExplanation};
pub use network_sampler::{NetworkOrder, NetworkSampler};
pub use rules::Rule;

use crate::error::ParamError;
use rand::{Rng, SeedableRng};

/// The generator behind every trajectory: Xoshiro128++ (32-bit words, fast in wasm, no
/// 128-bit multiplies), seeded from a `u64` by the portable SplitMix64 expansion.
pub type SpinRng = rand_xoshiro::Xoshiro128PlusPlus;

/// A generator whose stream is fixed by `seed`.
pub fn seeded_rng(seed: u64) -> SpinRng {
    SpinRng::seed_from_u64(seed)
}

/// A uniform index in 0..n (n ≥ 1), by Lemire's multiply-shift with rejection: exact
/// and platform-independent (u32 words, u64 products).
#[inline]
pub fn random_index(rng: &mut SpinRng, n: u32) -> u32 {
    debug_assert!(n > 0);
    let mut product = u64::from(rng.next_u32()) * u64::from(n);
    let mut low = product as u32;
    if low < n {
        let floor = n.wrapping_neg() % n;
        while low < floor {
            product = u64::from(rng.next_u32()) * u64::from(n);
            low = product as u32;
        }
    }
    (product >> 32) as u32
}

/// A uniform number in [0, 1) with 32 random bits.
#[inline]
pub fn uniform(rng: &mut SpinRng) -> f64 {
    f64::from(rng.next_u32()) * (1.0 / 4_294_967_296.0)
}

/// A pair of independent standard normal numbers from two 32-bit draws by the Box–Muller
/// transform: with u₁ = (a + 1)/2^32 ∈ (0, 1] and u₂ = b/2^32 ∈ [0, 1),
/// z₁ = √(−2 ln u₁) cos(2π u₂), z₂ = √(−2 ln u₁) sin(2π u₂).
/// `libm` does the arithmetic, so the numbers are the same on every platform. (The
/// 32-bit u₁ truncates the tails at |z| ≤ √(64 ln 2) ≈ 6.66.)
pub fn standard_normal_pair(rng: &mut SpinRng) -> [f64; 2] {
    const TWO_TO_32: f64 = 4_294_967_296.0;
    let u1 = (f64::from(rng.next_u32()) + 1.0) / TWO_TO_32;
    let u2 = f64::from(rng.next_u32()) / TWO_TO_32;
    let radius = libm::sqrt(-2.0 * libm::log(u1));
    let angle = 2.0 * std::f64::consts::PI * u2;
    [radius * libm::cos(angle), radius * libm::sin(angle)]
}

/// The order in which ticks visit sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Typewriter order: x fastest, then y; the seeds' sequential dynamics.
    Sequential,
    /// A uniformly random site each tick.
    Random,
    /// All sites with x + y even (typewriter order), then all with x + y odd.
    Checkerboard,
}

impl Order {
    pub const ALL: [Order; 3] = [Order::Sequential, Order::Random, Order::Checkerboard];

    pub fn name(self) -> &'static str {
        match self {
            Order::Sequential => "sequential",
            Order::Random => "random",
            Order::Checkerboard => "checkerboard",
        }
    }

    pub fn parse(name: &str) -> Result<Order, ParamError> {
        Order::ALL
            .into_iter()
            .find(|o| o.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "order",
                value: name.to_string(),
                allowed: "sequential, random, checkerboard",
            })
    }
}

/// Validates a temperature: 0 ≤ T ≤ ∞ (T = 0 is energy descent, T = ∞ a coin flip).
pub fn check_temperature(temperature: f64) -> Result<f64, ParamError> {
    if temperature.is_nan() {
        return Err(ParamError::NotFinite {
            field: "temperature",
            value: temperature,
            min: 0.0,
            max: f64::INFINITY,
        });
    }
    if temperature < 0.0 {
        return Err(ParamError::OutOfRange {
            field: "temperature",
            value: temperature,
            min: 0.0,
            max: f64::INFINITY,
        });
    }
    Ok(temperature)
}

/// The generator's state as four 32-bit words (Xoshiro128++'s s₀…s₃), for a saved run.
pub fn random_words(rng: &SpinRng) -> [u32; 4] {
    let bytes = rng.state();
    let word = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().unwrap());
    [word(0), word(1), word(2), word(3)]
}

/// The generator whose state is `words` (from [`random_words`]); refuses all zeros (the
/// generator's fixed point), naming `field`.
pub fn rng_from_words(field: &'static str, words: [u32; 4]) -> Result<SpinRng, ParamError> {
    if words == [0; 4] {
        return Err(ParamError::Invalid {
            field,
            reason: "the generator's state must not be all zero".into(),
        });
    }
    let mut bytes = [0u8; 16];
    for (chunk, word) in bytes.chunks_exact_mut(4).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    Ok(SpinRng::from_seed(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_index_is_uniform() {
        // 7 bins, 70 000 draws: Pearson χ² with 6 degrees of freedom; 35 is beyond the
        // p = 1e-5 quantile (≈ 33.1).
        let mut rng = seeded_rng(1);
        let mut counts = [0u32; 7];
        for _ in 0..70_000 {
            counts[random_index(&mut rng, 7) as usize] += 1;
        }
        let chi2: f64 = counts
            .iter()
            .map(|&c| (f64::from(c) - 10_000.0).powi(2) / 10_000.0)
            .sum();
        assert!(chi2 < 35.0, "{chi2} {counts:?}");
    }

    #[test]
    fn standard_normal_pairs_have_unit_variance() {
        let mut rng = seeded_rng(1);
        let (mut sum, mut sum_sq, n) = (0.0, 0.0, 100_000);
        for _ in 0..n / 2 {
            for z in standard_normal_pair(&mut rng) {
                sum += z;
                sum_sq += z * z;
            }
        }
        // Standard errors: 1/√n for the mean, √(2/n) for the variance.
        let n = n as f64;
        assert!((sum / n).abs() < 5.0 / n.sqrt());
        assert!((sum_sq / n - 1.0).abs() < 5.0 * (2.0 / n).sqrt());
    }
}
