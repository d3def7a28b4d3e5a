//! Statistics shared by the integration tests: Pearson's χ² against an exact distribution
//! with a threshold from the sample size and degrees of freedom, and the exact
//! distribution a chain reaches after a burn-in (to prove the burn-in long enough).

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]
#![allow(dead_code)]

/// Φ⁻¹(1 − 10⁻⁶): the standard normal quantile for a one-sided p = 10⁻⁶.
pub const Z_ONE_IN_A_MILLION: f64 = 4.753_424_308_822_899;

/// The χ² quantile exceeded with probability 10⁻⁶ for k degrees of freedom, by
/// Wilson–Hilferty: (χ²/k)^{1/3} is nearly normal with mean 1 − 2/(9k) and variance
/// 2/(9k), so χ²_{1−p}(k) ≈ k · (1 − 2/(9k) + z_p √(2/(9k)))³. A test with this
/// threshold fails by chance once in a million runs.
pub fn chi_square_threshold(k: usize) -> f64 {
    let k = k as f64;
    let a = 2.0 / (9.0 * k);
    k * (1.0 - a + Z_ONE_IN_A_MILLION * a.sqrt()).powi(3)
}

/// Pearson's χ² = Σ (observed − expected)² / expected over the bins, with N·p < 5 bins
/// pooled into one (merged with the smallest other bin if still below 5); returns
/// (χ², degrees of freedom = bins − 1).
pub fn pearson_chi_square(counts: &[u64], probabilities: &[f64]) -> (f64, usize) {
    let total = counts.iter().sum::<u64>() as f64;
    let mut bins: Vec<(f64, f64)> = Vec::new();
    let mut pooled = (0.0, 0.0);
    for (&count, &p) in counts.iter().zip(probabilities) {
        let expected = total * p;
        if expected < 5.0 {
            pooled.0 += count as f64;
            pooled.1 += expected;
        } else {
            bins.push((count as f64, expected));
        }
    }
    if pooled.1 > 0.0 {
        if pooled.1 < 5.0 {
            let smallest = (0..bins.len())
                .min_by(|&a, &b| bins[a].1.total_cmp(&bins[b].1))
                .expect("some bin holds at least 5 expected samples");
            bins[smallest].0 += pooled.0;
            bins[smallest].1 += pooled.1;
        } else {
            bins.push(pooled);
        }
    }
    let chi2 = bins.iter().map(|(o, e)| (o - e) * (o - e) / e).sum();
    (chi2, bins.len() - 1)
}

/// The order in which a sweep applies single-unit kernels.
pub enum Visits {
    /// These units in this order (sequential, checkerboard).
    Fixed(Vec<usize>),
    /// n ticks, each a uniformly random unit.
    Random,
}

/// The exact distribution over the 2^n states after `sweeps` sweeps started from the
/// uniform distribution, by applying single-unit kernels to the probability vector:
/// K_i sets unit i high with probability `p_high(state, i)` (bit i of `state` = unit i
/// high). A fixed sweep is the product of its units' kernels; a random tick is
/// (1/n) Σ_i K_i, and a random sweep n of them.
pub fn distribution_after_burn_in(
    units: usize,
    visits: &Visits,
    p_high: impl Fn(usize, usize) -> f64,
    sweeps: usize,
) -> Vec<f64> {
    let states = 1usize << units;
    let table: Vec<f64> = (0..states * units)
        .map(|k| p_high(k / units, k % units))
        .collect();
    let kernel = |unit: usize, p: &[f64], out: &mut [f64], weight: f64| {
        for (index, &mass) in p.iter().enumerate() {
            let up = table[index * units + unit];
            out[index | 1 << unit] += weight * mass * up;
            out[index & !(1 << unit)] += weight * mass * (1.0 - up);
        }
    };
    let mut p = vec![1.0 / states as f64; states];
    let mut next = vec![0.0; states];
    for _ in 0..sweeps {
        match visits {
            Visits::Fixed(order) => {
                for &unit in order {
                    next.fill(0.0);
                    kernel(unit, &p, &mut next, 1.0);
                    std::mem::swap(&mut p, &mut next);
                }
            }
            Visits::Random => {
                for _ in 0..units {
                    next.fill(0.0);
                    for unit in 0..units {
                        kernel(unit, &p, &mut next, 1.0 / units as f64);
                    }
                    std::mem::swap(&mut p, &mut next);
                }
            }
        }
    }
    p
}

/// N Σ (a − p)²/p: how far the χ² statistic's mean is shifted (above its degrees of
/// freedom) when N samples come from `after` rather than `exact`. Below 0.01 the burn-in
/// bias is invisible to the test.
pub fn noncentrality(samples: u64, after: &[f64], exact: &[f64]) -> f64 {
    samples as f64
        * after
            .iter()
            .zip(exact)
            .map(|(a, p)| (a - p) * (a - p) / p)
            .sum::<f64>()
}

/// Exact Boltzmann probabilities e^{−E(s)/T} / Z of all states given their energies.
pub fn boltzmann(energies: &[f64], temperature: f64) -> Vec<f64> {
    let lowest = energies.iter().cloned().fold(f64::INFINITY, f64::min);
    let weights: Vec<f64> = energies
        .iter()
        .map(|e| (-(e - lowest) / temperature).exp())
        .collect();
    let z: f64 = weights.iter().sum();
    weights.iter().map(|w| w / z).collect()
}

/// Runs the `boltzlab` binary with `args`: (exit status, stdout, stderr).
pub fn boltzlab(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_boltzlab"))
        .args(args)
        .output()
        .expect("the boltzlab binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `boltzlab` expecting success and one JSON object on stdout.
pub fn boltzlab_json(args: &[&str]) -> serde_json::Value {
    let (code, stdout, stderr) = boltzlab(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).expect("one JSON object")
}

/// A file in the temporary directory, unique to this test binary, this process and `name`,
/// holding `bytes`; removed when dropped.
pub struct TempFile(std::path::PathBuf);

/// A path in the temporary directory unique to this test binary, this process and `name`.
fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "boltzlab-{}-{}-{name}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ))
}

impl TempFile {
    pub fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path = temp_path(name);
        std::fs::write(&path, bytes).unwrap();
        TempFile(path)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        std::fs::remove_file(&self.0).ok();
    }
}

/// A directory in the temporary directory, unique to this test binary, this process and
/// `name`; removed with its contents when dropped.
pub struct TempDir(std::path::PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let path = temp_path(name);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    /// Writes `bytes` to the file `name` in this directory; its path.
    pub fn write(&self, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

#[test]
fn chi_square_pools_bins_expected_below_five() {
    // 100 samples over 4 states; the last two expect 2 and 1 samples, so they are pooled
    // (3 expected, still below 5) and merged into the smallest other bin (47 expected).
    let counts = [50, 44, 4, 2];
    let probabilities = [0.50, 0.47, 0.02, 0.01];
    let (chi2, df) = pearson_chi_square(&counts, &probabilities);
    assert_eq!(df, 1);
    assert!(chi2.abs() < 1e-12, "{chi2}");
    // Wilson–Hilferty against the exact quantiles at p = 10⁻⁶ (from the regularised
    // incomplete gamma function: k = 10: 46.863, k = 63: 131.370, k = 266: 390.363). It
    // errs on the safe side.
    for (k, exact) in [(10, 46.863), (63, 131.370), (266, 390.363)] {
        let approximate = chi_square_threshold(k);
        assert!(
            approximate > exact && approximate < 1.03 * exact,
            "{k}: {approximate}"
        );
    }
}
