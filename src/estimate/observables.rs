//! Observables with error bars, and the one c/χ accumulator the page's sweep and the CLI's
//! `ising` share.
//!
//! [`Series`] turns a time series of measurements (one per sweep, correlated) into a mean
//! with an honest standard error by binning: the series is cut into [`Series::BINS`]
//! consecutive blocks, and the error is the spread of the block means. Blocks much longer
//! than the autocorrelation time are independent, so the error includes the correlations.
//!
//! [`ThermalSeries`] collects e = E/N, m = M/N and |m| once per sweep at one temperature and
//! gives, per spin (β = 1/T, N spins),
//!
//! - ⟨e⟩, ⟨m⟩ and ⟨|m|⟩ with binned standard errors ([`Series::mean`]);
//! - c = β² N (⟨e²⟩ − ⟨e⟩²) and χ = β N (⟨m²⟩ − ⟨|m|⟩²), with jackknife errors
//!   ([`Series::jackknife`]).
//!
//! [`WolffCalibration`] says what a "sweep" is with Wolff dynamics: a number of cluster
//! moves that flips about N spins, re-estimated from the cluster sizes seen in the burn-in
//! and then fixed for the whole measurement (stopping at a flip-count target would bias
//! the measured states; see [`LatticeSampler::wolff_moves`]).

use crate::dynamics::{Dynamics, LatticeSampler};

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
        let spread: f64 = leave_one_out
            .iter()
            .map(|v| (v - average) * (v - average))
            .sum();
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
            let var =
                means.iter().map(|m| (m - mean) * (m - mean)).sum::<f64>() / (bins as f64 - 1.0);
            (var / bins as f64).sqrt()
        };
        Estimate { mean, stderr }
    }
}

/// The variance ⟨x²⟩ − ⟨x⟩² of a slice (population form), of the values shifted by the
/// first one: a constant series gives exactly 0 (the plain mean of many copies of −2.1 is
/// not exactly −2.1, which would leave a variance of ~1e-32 that β² = ∞ turns into ∞).
pub fn variance(values: &[f64]) -> f64 {
    let Some(&first) = values.first() else {
        return f64::NAN;
    };
    let n = values.len() as f64;
    let mean = values.iter().map(|v| v - first).sum::<f64>() / n;
    values
        .iter()
        .map(|v| (v - first - mean) * (v - first - mean))
        .sum::<f64>()
        / n
}

/// One temperature's measurements (one per sweep) and what they give: ⟨e⟩, ⟨m⟩, ⟨|m|⟩,
/// c and χ per spin (module docs).
#[derive(Debug, Clone, Default)]
pub struct ThermalSeries {
    energy: Series,
    magnetization: Series,
    abs_magnetization: Series,
}

/// The estimates of a [`ThermalSeries`], per spin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThermalEstimates {
    /// ⟨e⟩, e = E/N.
    pub energy: Estimate,
    /// ⟨m⟩, m = M/N.
    pub magnetization: Estimate,
    /// ⟨|m|⟩.
    pub abs_magnetization: Estimate,
    /// c = β² N (⟨e²⟩ − ⟨e⟩²).
    pub specific_heat: Estimate,
    /// χ = β N (⟨m²⟩ − ⟨|m|⟩²).
    pub susceptibility: Estimate,
}

impl ThermalSeries {
    pub fn new() -> Self {
        ThermalSeries::default()
    }

    /// Records the sampler's e and m now.
    pub fn push(&mut self, sampler: &LatticeSampler) {
        let m = sampler.magnetization_per_spin();
        self.energy.push(sampler.energy_per_spin());
        self.magnetization.push(m);
        self.abs_magnetization.push(m.abs());
    }

    pub fn len(&self) -> usize {
        self.energy.len()
    }

    pub fn is_empty(&self) -> bool {
        self.energy.is_empty()
    }

    /// The estimates at temperature T for N = `spins` spins.
    ///
    /// c = β²N·Var(e) and χ = βN·Var(|m|) are exactly 0 ± 0 when the series did not vary
    /// (Var = 0 in every jackknife block), at any T ≥ 0: the T → 0 limit, so T = 0 (energy
    /// descent settled in a ground state) gives 0 rather than 0·∞ = NaN. When the series
    /// did vary and β²N·Var (or βN·Var) overflows, at T = 0 or T ≲ 1e-154, the value is +∞:
    /// the caller must not report it as an estimate.
    pub fn estimates(&self, temperature: f64, spins: usize) -> ThermalEstimates {
        let n = spins as f64;
        let beta = 1.0 / temperature;
        let scaled = |e: Estimate, k: f64| {
            if e.mean == 0.0 && e.stderr == 0.0 {
                e
            } else {
                Estimate {
                    mean: e.mean * k,
                    stderr: e.stderr * k,
                }
            }
        };
        ThermalEstimates {
            energy: self.energy.mean(),
            magnetization: self.magnetization.mean(),
            abs_magnetization: self.abs_magnetization.mean(),
            specific_heat: scaled(self.energy.jackknife(variance), beta * beta * n),
            susceptibility: scaled(self.abs_magnetization.jackknife(variance), beta * n),
        }
    }
}

/// Cluster moves per "sweep" with Wolff dynamics (module docs); with any other dynamics a
/// sweep is N single-spin ticks and the calibration does nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WolffCalibration {
    moves_per_sweep: u64,
    moves_seen: u64,
    flips_seen: u64,
}

impl Default for WolffCalibration {
    fn default() -> Self {
        WolffCalibration::new()
    }
}

impl WolffCalibration {
    /// One move per sweep until cluster sizes have been seen.
    pub fn new() -> Self {
        WolffCalibration {
            moves_per_sweep: 1,
            moves_seen: 0,
            flips_seen: 0,
        }
    }

    /// At a new temperature: forget the cluster sizes seen (the moves per sweep carry over
    /// as the first guess).
    pub fn restart(&mut self) {
        self.moves_seen = 0;
        self.flips_seen = 0;
    }

    /// One sweep of `sampler`: N single-spin ticks, or with Wolff dynamics
    /// M = ⌈N · moves seen / flips seen⌉ cluster moves. In the burn-in (`measuring` false)
    /// M is re-estimated after every sweep; the first measured sweep fixes it for the rest
    /// of the measurement (with no burn-in, from a 16-move trial).
    pub fn sweep(&mut self, sampler: &mut LatticeSampler, measuring: bool) {
        if sampler.dynamics() != Dynamics::Wolff {
            sampler.sweep();
            return;
        }
        let n = sampler.lattice().len() as u64;
        if measuring && self.flips_seen == 0 {
            // No burn-in at this temperature: estimate the cluster size from a short trial.
            self.count(sampler, 16);
        }
        if measuring {
            if self.moves_seen > 0 {
                self.moves_per_sweep = (n * self.moves_seen).div_ceil(self.flips_seen).max(1);
                self.moves_seen = 0; // freeze: the measurement uses one fixed count
            }
            wolff(sampler, self.moves_per_sweep);
        } else {
            self.count(sampler, self.moves_per_sweep);
            self.moves_per_sweep = (n * self.moves_seen).div_ceil(self.flips_seen).max(1);
        }
    }

    fn count(&mut self, sampler: &mut LatticeSampler, moves: u64) {
        let flips = wolff(sampler, moves);
        self.moves_seen += moves;
        self.flips_seen += flips;
    }
}

fn wolff(sampler: &mut LatticeSampler, moves: u64) -> u64 {
    sampler
        .wolff_moves(moves)
        .expect("the sampler accepted Wolff dynamics")
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

    /// A series of `len` sweeps whose energy and magnetization are given per sweep.
    fn thermal(len: usize, e: impl Fn(usize) -> f64, m: impl Fn(usize) -> f64) -> ThermalSeries {
        let mut series = ThermalSeries::new();
        for i in 0..len {
            series.energy.push(e(i));
            series.magnetization.push(m(i));
            series.abs_magnetization.push(m(i).abs());
        }
        series
    }

    #[test]
    fn a_constant_series_gives_zero_fluctuations_at_any_temperature_including_zero() {
        // −2.1 is not a double: summing 10000 copies does not give 10000·(−2.1) exactly, so an
        // unshifted variance is ~1e-32, not 0. Shifted, it is exactly 0, and c = χ = 0 ± 0
        // (the T → 0 limit) at T = 0, 1e-300 and 2 alike: equality, no tolerance.
        let series = thermal(10_000, |_| -2.1, |i| if i % 2 == 0 { 0.3 } else { -0.3 });
        assert_eq!(variance(series.energy.values()), 0.0);
        let zero = Estimate {
            mean: 0.0,
            stderr: 0.0,
        };
        for t in [0.0, 1e-300, 2.0] {
            let e = series.estimates(t, 64);
            assert_eq!(e.specific_heat, zero, "T = {t}");
            assert_eq!(e.susceptibility, zero, "T = {t}");
            // Block sums of 312 values: ≤ 312ε relative ≈ 7e-14 (tolerance 1e-12).
            assert!((e.energy.mean + 2.1).abs() <= 1e-12 && e.energy.stderr.is_finite());
        }
    }

    #[test]
    fn a_varying_series_at_zero_temperature_has_infinite_fluctuations_not_nan() {
        // Var(e) > 0 and β = ∞: c = +∞ (the caller refuses it), never NaN; at T = 2 the same
        // series gives the finite β²N·Var(e): values e = −2, −1.5 alternating, Var = 1/16,
        // c = 64/4/16 = 1 (rounding only: 1e-14).
        let series = thermal(1024, |i| if i % 2 == 0 { -2.0 } else { -1.5 }, |_| 1.0);
        let c = series.estimates(0.0, 64).specific_heat;
        assert_eq!(c.mean, f64::INFINITY);
        assert_eq!(
            series.estimates(1e-300, 64).specific_heat.mean,
            f64::INFINITY
        );
        assert!((series.estimates(2.0, 64).specific_heat.mean - 1.0).abs() <= 1e-14);
        assert_eq!(series.estimates(0.0, 64).susceptibility.mean, 0.0);
    }
}
