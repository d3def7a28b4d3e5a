//! How states change: one sequential single-spin update ("tick") at a time.
//!
//! A tick visits one site and redraws its spin by an update [`rules`] from the local field
//! and the temperature; a sweep is N ticks. The random stream is [`SpinRng`], a 32-bit
//! generator whose output is the same on every platform, so a seed fixes the whole
//! trajectory natively and in WebAssembly alike.

pub mod lattice_sampler;
pub mod network_sampler;
pub mod rules;

pub use lattice_sampler::LatticeSampler;
pub use network_sampler::{NetworkOrder, NetworkSampler};

use rand::SeedableRng;

/// The generator behind every trajectory: Xoshiro128++ (32-bit words, fast in wasm, no
/// 128-bit multiplies), seeded from a `u64` by the portable `seed_from_u64` expansion.
pub type SpinRng = rand_xoshiro::Xoshiro128PlusPlus;

/// A generator whose stream is fixed by `seed`.
pub fn seeded_rng(seed: u64) -> SpinRng {
    SpinRng::seed_from_u64(seed)
}

/// Validates a temperature: 0 ≤ T ≤ ∞ (T = 0 is energy descent, T = ∞ a coin flip).
pub fn check_temperature(temperature: f64) -> Result<f64, crate::ParamError> {
    use crate::ParamError;
    if temperature.is_nan() {
        return Err(ParamError::NotFinite {
            field: "temperature",
            value: temperature,
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
