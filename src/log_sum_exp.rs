//! Log-sum-exp, the one careful way the engine adds numbers it holds as logarithms.
//!
//!   ln Σ_k e^{x_k} = x_max + ln Σ_k e^{x_k − x_max}
//!
//! Every ln Z (exact enumeration, clamped, sampled, AIS) and every log-mean of importance
//! weights goes through [`LogSumExp`] or [`log_mean_and_spread`]. A leaf, below the exact
//! results and the estimates that both need it: the sum is kept relative to the
//! largest exponent, so nothing overflows, with Neumaier's compensation, so a sum of 2^30
//! terms loses no digits, and `libm` does the arithmetic, so the result is the same
//! natively and in WebAssembly.

/// ln Σ_k e^{x_k}, one term at a time: the sum is kept relative to the largest exponent so
/// far (rescaled when a larger one arrives), with Neumaier's compensation.
///
/// ```
/// use boltzlab::log_sum_exp::LogSumExp;
/// let mut sum = LogSumExp::new();
/// for x in [1000.0, 1000.0] {
///     sum.push(x);
/// }
/// assert!((sum.value() - (1000.0 + 2f64.ln())).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogSumExp {
    max: f64,
    sum: f64,
    compensation: f64,
}

impl Default for LogSumExp {
    fn default() -> Self {
        LogSumExp::new()
    }
}

impl LogSumExp {
    /// The empty sum (its value is ln 0 = −∞).
    pub fn new() -> LogSumExp {
        LogSumExp {
            max: f64::NEG_INFINITY,
            sum: 0.0,
            compensation: 0.0,
        }
    }

    /// Adds the term e^{exponent}.
    #[inline]
    pub fn push(&mut self, exponent: f64) {
        if exponent > self.max {
            let scale = libm::exp(self.max - exponent);
            self.sum *= scale;
            self.compensation *= scale;
            self.max = exponent;
        }
        let x = libm::exp(exponent - self.max);
        let t = self.sum + x;
        self.compensation += if self.sum.abs() >= x {
            (self.sum - t) + x
        } else {
            (x - t) + self.sum
        };
        self.sum = t;
    }

    /// ln Σ_k e^{x_k} of the terms so far.
    pub fn value(&self) -> f64 {
        self.max + libm::log(self.sum + self.compensation)
    }
}

/// ln Σ_k e^{x_k} of all the exponents, by [`LogSumExp`].
pub fn log_sum_exp(exponents: impl IntoIterator<Item = f64>) -> f64 {
    let mut sum = LogSumExp::new();
    for x in exponents {
        sum.push(x);
    }
    sum.value()
}

/// For log weights ln w_r (at least two): (ln mean(w), sd(w)/mean(w), (Σ w)²/Σ w²), all
/// from r_r = e^{ln w_r − max ln w} ∈ (0, 1], so nothing overflows. sd is the sample
/// standard deviation (M − 1 in the denominator); the last value is the effective number
/// of weights, M when they are even, near 1 when one dominates.
pub fn log_mean_and_spread(log_weights: &[f64]) -> (f64, f64, f64) {
    let m = log_weights.len() as f64;
    let max = log_weights
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let ratios: Vec<f64> = log_weights.iter().map(|&l| libm::exp(l - max)).collect();
    let sum: f64 = ratios.iter().sum();
    let mean = sum / m;
    let squares: f64 = ratios.iter().map(|r| (r - mean) * (r - mean)).sum();
    let sd = libm::sqrt(squares / (m - 1.0));
    let sum_of_squares: f64 = ratios.iter().map(|r| r * r).sum();
    (max + libm::log(mean), sd / mean, sum * sum / sum_of_squares)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sum_exp_neither_overflows_nor_underflows() {
        // ln(e^{1000} + e^{1000}) = 1000 + ln 2; ln(2^20 · e^{−1000}) = −1000 + 20 ln 2.
        assert!((log_sum_exp([1000.0, 1000.0]) - (1000.0 + 2f64.ln())).abs() < 1e-12);
        let many = log_sum_exp(std::iter::repeat_n(-1000.0, 1 << 20));
        assert!((many - (-1000.0 + 20.0 * 2f64.ln())).abs() < 1e-9, "{many}");
        assert_eq!(log_sum_exp([]), f64::NEG_INFINITY);
    }

    #[test]
    fn the_order_of_the_terms_does_not_matter_beyond_rounding() {
        let terms: Vec<f64> = (0..1000).map(|k| (k as f64 * 0.37).sin() * 50.0).collect();
        let forward = log_sum_exp(terms.iter().copied());
        let backward = log_sum_exp(terms.iter().rev().copied());
        assert!((forward - backward).abs() < 1e-13 * forward.abs().max(1.0));
    }

    #[test]
    fn log_sum_exp_is_stable_far_beyond_the_range_of_f64() {
        let mut sum = LogSumExp::new();
        for x in [1000.0, 1001.0, -5.0, 1002.0] {
            sum.push(x);
        }
        let expected = 1002.0 + (1.0 + (-1.0f64).exp() + (-2.0f64).exp()).ln();
        assert!((sum.value() - expected).abs() < 1e-12);
        assert_eq!(LogSumExp::new().value(), f64::NEG_INFINITY);
    }

    #[test]
    fn log_mean_and_spread_match_the_direct_formulas() {
        let log_w: [f64; 4] = [0.1, -0.3, 0.7, 0.2];
        let w: Vec<f64> = log_w.iter().map(|l| l.exp()).collect();
        let mean = w.iter().sum::<f64>() / 4.0;
        let sd = (w.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        let ess = w.iter().sum::<f64>().powi(2) / w.iter().map(|x| x * x).sum::<f64>();
        // Shifting every log weight by 800 (e^800 overflows) changes only ln mean.
        let shifted: Vec<f64> = log_w.iter().map(|l| l + 800.0).collect();
        let (log_mean, relative_sd, effective) = log_mean_and_spread(&shifted);
        assert!((log_mean - 800.0 - mean.ln()).abs() < 1e-12);
        assert!((relative_sd - sd / mean).abs() < 1e-12);
        assert!((effective - ess).abs() < 1e-12);
    }
}
