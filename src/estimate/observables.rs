//! Observables with error bars.
//!
//! [`Series`] turns a time series of measurements (one per sweep, correlated) into a mean
//! with an honest standard error by binning: the series is cut into [`Series::BINS`]
//! consecutive blocks, and the error is the spread of the block means. Blocks much longer
//! than the autocorrelation time are independent, so the error includes the correlations.

/// A mean and its standard error, as the CLI reports them: `{"mean": x, "stderr": e}`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Estimate {
    pub mean: f64,
    pub stderr: f64,
}

/// A series of measurements with error bars from binning.
#[derive(Debug, Clone, Default)]
pub struct Series {
    values: Vec<f64>,
}

impl Series {
    /// Number of blocks the series is cut into for error bars.
    pub const BINS: usize = 32;

    pub fn new() -> Self {
        Series::default()
    }

    pub fn push(&mut self, value: f64) {
        self.values.push(value);
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The block means (at most [`Series::BINS`] equal blocks; a remainder at the start is
    /// dropped so every block has the same length).
    fn block_means(&self, f: impl Fn(&[f64]) -> f64) -> Vec<f64> {
        let bins = Self::BINS.min(self.values.len());
        if bins == 0 {
            return Vec::new();
        }
        let size = self.values.len() / bins;
        let skip = self.values.len() - size * bins;
        self.values[skip..].chunks_exact(size).map(f).collect()
    }

    /// ⟨x⟩ with the standard error of the block means, σ_blocks / √B.
    pub fn mean(&self) -> Estimate {
        self.estimate(|block| block.iter().sum::<f64>() / block.len() as f64)
    }

    /// A statistic of the whole series with a jackknife error over the blocks: the
    /// statistic is recomputed leaving each block out in turn, and the error is
    /// √((B−1)/B · Σ (f_(b) − f̄)²). Used for fluctuations such as ⟨x²⟩ − ⟨x⟩².
    pub fn jackknife(&self, statistic: impl Fn(&[f64]) -> f64) -> Estimate {
        let bins = Self::BINS.min(self.values.len());
        let full = statistic(&self.values);
        if bins < 2 {
            return Estimate {
                mean: full,
                stderr: f64::NAN,
            };
        }
        let size = self.values.len() / bins;
        let skip = self.values.len() - size * bins;
        let kept = &self.values[skip..];
        let mut rest = Vec::with_capacity(kept.len());
        let leave_one_out: Vec<f64> = (0..bins)
            .map(|b| {
                rest.clear();
                rest.extend_from_slice(&kept[..b * size]);
                rest.extend_from_slice(&kept[(b + 1) * size..]);
                statistic(&rest)
            })
            .collect();
        let average = leave_one_out.iter().sum::<f64>() / bins as f64;
        let spread: f64 = leave_one_out.iter().map(|v| (v - average).powi(2)).sum();
        Estimate {
            mean: full,
            stderr: ((bins as f64 - 1.0) / bins as f64 * spread).sqrt(),
        }
    }

    fn estimate(&self, f: impl Fn(&[f64]) -> f64) -> Estimate {
        let means = self.block_means(f);
        let bins = means.len();
        if bins == 0 {
            return Estimate {
                mean: f64::NAN,
                stderr: f64::NAN,
            };
        }
        let mean = means.iter().sum::<f64>() / bins as f64;
        let stderr = if bins < 2 {
            f64::NAN
        } else {
            let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (bins as f64 - 1.0);
            (var / bins as f64).sqrt()
        };
        Estimate { mean, stderr }
    }
}

/// The variance ⟨x²⟩ − ⟨x⟩² of a slice (population form).
pub fn variance(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn binned_error_of_independent_values_matches_sigma_over_root_n() {
        // Uniform on [0, 1): σ² = 1/12. With 2^16 independent values the standard error of
        // the mean is √(1/12/65536) = 0.00113; the binned estimate of it has a relative
        // spread of 1/√(2·31) ≈ 13%, so 0.5..1.6 times the truth is a > 4σ band.
        let mut rng = rand_xoshiro::Xoshiro128PlusPlus::seed_from_u64(9);
        let mut series = Series::new();
        for _ in 0..1 << 16 {
            series.push(f64::from(rng.next_u32()) / 4_294_967_296.0);
        }
        let estimate = series.mean();
        let truth = (1.0 / 12.0 / 65536.0_f64).sqrt();
        assert!((estimate.mean - 0.5).abs() < 4.0 * truth);
        assert!(estimate.stderr > 0.5 * truth && estimate.stderr < 1.6 * truth);
        let var = series.jackknife(variance);
        assert!((var.mean - 1.0 / 12.0).abs() < 4.0 * var.stderr, "{var:?}");
    }

    #[test]
    fn binning_sees_correlations_a_naive_error_misses() {
        // Each value repeated 64 times: the naive σ/√n is 8× too small; binning is not fooled.
        let mut rng = rand_xoshiro::Xoshiro128PlusPlus::seed_from_u64(3);
        let mut series = Series::new();
        for _ in 0..1024 {
            let v = f64::from(rng.next_u32()) / 4_294_967_296.0;
            for _ in 0..64 {
                series.push(v);
            }
        }
        let truth = (1.0 / 12.0 / 1024.0_f64).sqrt();
        let estimate = series.mean();
        assert!(estimate.stderr > 0.5 * truth && estimate.stderr < 1.6 * truth);
    }
}
