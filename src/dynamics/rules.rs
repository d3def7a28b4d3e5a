//! Update rules: each one small function of the local field h_i and the temperature T.
//!
//! Acceptance is decided by comparing one 32-bit random number r (uniform on 0..2^32)
//! with a threshold ⌊p·2^32⌉ precomputed per local field, so a tick does no floating
//! point. Probabilities come from `libm`, pure Rust, so tables are bit-identical natively
//! and in WebAssembly.

/// 2^32: a threshold of this size accepts every 32-bit random number.
pub const ALWAYS: u64 = 1 << 32;

/// Heat-bath (Glauber, "Boltzmann–Gibbs") rule: the new spin is +1 with probability
/// P(s_i = +1) = 1 / (1 + e^{−2 h_i / T}), whatever it was before.
///
/// At T = 0 this is energy descent: +1 if h_i > 0, −1 if h_i < 0, a fair coin if h_i = 0.
/// At T = ∞ it is a fair coin.
pub fn heat_bath_up_probability(local_field: f64, temperature: f64) -> f64 {
    if temperature == 0.0 {
        return if local_field > 0.0 {
            1.0
        } else if local_field < 0.0 {
            0.0
        } else {
            0.5
        };
    }
    1.0 / (1.0 + libm::exp(-2.0 * local_field / temperature))
}

/// The integer threshold t = round(p · 2^32) in 0..=2^32, so that P(r < t) = t / 2^32
/// for r uniform on 0..2^32 differs from p by at most 2^−33.
pub fn threshold(probability: f64) -> u64 {
    let p = probability.clamp(0.0, 1.0);
    libm::round(p * ALWAYS as f64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heat_bath_probabilities_satisfy_detailed_balance() {
        // P(+)/P(−) must equal e^{2h/T}, the Boltzmann ratio of the two spin states.
        for &(h, t) in &[(0.7, 1.3), (-2.0, 0.5), (4.0, 2.269), (0.0, 1.0)] {
            let up = heat_bath_up_probability(h, t);
            let ratio = up / (1.0 - up);
            assert!((ratio / (2.0 * h / t).exp() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn zero_temperature_descends_and_breaks_ties_at_random() {
        assert_eq!(heat_bath_up_probability(0.1, 0.0), 1.0);
        assert_eq!(heat_bath_up_probability(-0.1, 0.0), 0.0);
        assert_eq!(heat_bath_up_probability(0.0, 0.0), 0.5);
        assert_eq!(heat_bath_up_probability(3.0, f64::INFINITY), 0.5);
    }

    #[test]
    fn thresholds_span_never_to_always() {
        assert_eq!(threshold(0.0), 0);
        assert_eq!(threshold(1.0), ALWAYS);
        assert_eq!(threshold(0.5), ALWAYS / 2);
    }
}
