//! Statistics shared by the integration tests: Pearson's χ² against an exact distribution
//! with a threshold derived from the sample size and degrees of freedom.
#![allow(dead_code)]

/// The χ² quantile with `dof` degrees of freedom at upper-tail probability p, by the
/// Wilson–Hilferty approximation: χ²_p ≈ k (1 − 2/(9k) + z_p √(2/(9k)))³, z_p the standard
/// normal quantile. Accurate to a few percent for k ≥ 3, and conservative enough at the
/// tiny p used here.
pub fn chi_square_quantile(dof: usize, z: f64) -> f64 {
    let k = dof as f64;
    let a = 2.0 / (9.0 * k);
    k * (1.0 - a + z * a.sqrt()).powi(3)
}

/// z for an upper-tail probability of 10⁻⁶: a test with this threshold fails by chance
/// once in a million runs.
pub const Z_ONE_IN_A_MILLION: f64 = 4.753;

/// Result of a Pearson χ² test of observed counts against exact probabilities.
#[derive(Debug)]
pub struct ChiSquare {
    pub statistic: f64,
    pub dof: usize,
    pub threshold: f64,
    pub total_variation: f64,
}

/// Pearson's χ² of `counts` (K samples) against `probabilities`, pooling every state whose
/// expected count is below 5 into one bin (so the χ² approximation holds).
pub fn pearson(counts: &[u64], probabilities: &[f64]) -> ChiSquare {
    assert_eq!(counts.len(), probabilities.len());
    let total: u64 = counts.iter().sum();
    let k = total as f64;
    let mut statistic = 0.0;
    let mut bins = 0;
    let (mut pooled_observed, mut pooled_expected) = (0.0, 0.0);
    let mut total_variation = 0.0;
    for (&c, &p) in counts.iter().zip(probabilities) {
        let expected = p * k;
        total_variation += (c as f64 / k - p).abs() / 2.0;
        if expected < 5.0 {
            pooled_observed += c as f64;
            pooled_expected += expected;
        } else {
            statistic += (c as f64 - expected).powi(2) / expected;
            bins += 1;
        }
    }
    if pooled_expected > 0.0 {
        statistic += (pooled_observed - pooled_expected).powi(2) / pooled_expected;
        bins += 1;
    }
    let dof = bins - 1;
    ChiSquare {
        statistic,
        dof,
        threshold: chi_square_quantile(dof, Z_ONE_IN_A_MILLION),
        total_variation,
    }
}

/// Exact Boltzmann probabilities e^{−E(s)/T} / Z of all 2^n states given their energies.
pub fn boltzmann(energies: &[f64], temperature: f64) -> Vec<f64> {
    let lowest = energies.iter().cloned().fold(f64::INFINITY, f64::min);
    let weights: Vec<f64> = energies
        .iter()
        .map(|e| (-(e - lowest) / temperature).exp())
        .collect();
    let z: f64 = weights.iter().sum();
    weights.iter().map(|w| w / z).collect()
}

#[test]
fn wilson_hilferty_matches_tabulated_quantiles() {
    // χ² quantiles at p = 10⁻⁶ from the regularised incomplete gamma function:
    // 10 dof → 46.863, 100 dof → 182.127, 266 dof → 390.363.
    assert!((chi_square_quantile(10, Z_ONE_IN_A_MILLION) / 46.863 - 1.0).abs() < 0.03);
    assert!((chi_square_quantile(100, Z_ONE_IN_A_MILLION) / 182.127 - 1.0).abs() < 0.005);
    assert!((chi_square_quantile(266, Z_ONE_IN_A_MILLION) / 390.363 - 1.0).abs() < 0.002);
}
