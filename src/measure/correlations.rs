//! Unit statistics over samples of a network state: the means ⟨s_i⟩ and the pair
//! correlations ⟨s_i s_j⟩ that Boltzmann learning compares between the clamped phase
//! (p_ij) and the free phase (p′_ij).
//!
//! Units take integer values (±1 or 0/1), so the sums are kept in integers and are exact:
//! the order of the samples does not change the result by a single bit.

use crate::model::network::{pair_count, pair_index};

/// Running sums of s_i and s_i s_j (i < j) over samples of an n-unit state.
///
/// After N samples s⁽¹⁾ … s⁽ᴺ⁾: ⟨s_i⟩ = (1/N) Σ_k s_i⁽ᵏ⁾ and
/// ⟨s_i s_j⟩ = (1/N) Σ_k s_i⁽ᵏ⁾ s_j⁽ᵏ⁾. Pairs are stored in the upper-triangle order of
/// [`pair_index`] ((0,1), (0,2), …), the order [`crate::model::Network::add_to_weights`]
/// takes its changes in.
#[derive(Debug, Clone, PartialEq)]
pub struct Correlations {
    units: usize,
    count: u64,
    sums: Vec<i64>,
    square_sums: Vec<i64>,
    pair_sums: Vec<i64>,
}

impl Correlations {
    /// An empty accumulator for states of `units` units (n(n − 1)/2 pair sums).
    pub fn new(units: usize) -> Self {
        Correlations {
            units,
            count: 0,
            sums: vec![0; units],
            square_sums: vec![0; units],
            pair_sums: vec![0; pair_count(units)],
        }
    }

    /// Number of units n.
    pub fn units(&self) -> usize {
        self.units
    }

    /// Number of samples N added since creation or the last reset.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Forgets every sample.
    pub fn reset(&mut self) {
        self.count = 0;
        self.sums.fill(0);
        self.square_sums.fill(0);
        self.pair_sums.fill(0);
    }

    /// Adds one sample of the state (length n; panics otherwise). O(n²), allocation-free;
    /// units at 0 (binary units off) are skipped.
    pub fn add(&mut self, state: &[i8]) {
        assert_eq!(state.len(), self.units, "a state has one value per unit");
        self.count += 1;
        let mut pair = 0;
        for (i, &si) in state.iter().enumerate() {
            let rest = &state[i + 1..];
            let si = i64::from(si);
            self.sums[i] += si;
            self.square_sums[i] += si * si;
            if si != 0 {
                for (sum, &sj) in self.pair_sums[pair..pair + rest.len()].iter_mut().zip(rest) {
                    *sum += si * i64::from(sj);
                }
            }
            pair += rest.len();
        }
    }

    /// ⟨s_i⟩ (NaN before any sample).
    pub fn mean(&self, i: usize) -> f64 {
        self.sums[i] as f64 / self.count as f64
    }

    /// ⟨s_i s_j⟩; for i = j, ⟨s_i²⟩ (NaN before any sample).
    pub fn correlation(&self, i: usize, j: usize) -> f64 {
        let sum = if i == j {
            self.square_sums[i]
        } else {
            self.pair_sums[pair_index(self.units, i, j)]
        };
        sum as f64 / self.count as f64
    }

    /// All means ⟨s_0⟩ … ⟨s_(n−1)⟩.
    pub fn means(&self) -> Vec<f64> {
        (0..self.units).map(|i| self.mean(i)).collect()
    }

    /// All pair correlations ⟨s_i s_j⟩, i < j, in [`pair_index`] order.
    pub fn pair_means(&self) -> Vec<f64> {
        self.pair_sums
            .iter()
            .map(|&s| s as f64 / self.count as f64)
            .collect()
    }
}

/// The running sums of a [`Correlations`], for a saved run: N, Σ s_i, Σ s_i², Σ s_i s_j.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrelationSums {
    pub count: u64,
    pub sums: Vec<i64>,
    pub square_sums: Vec<i64>,
    pub pair_sums: Vec<i64>,
}

impl Correlations {
    /// The running sums.
    pub fn to_sums(&self) -> CorrelationSums {
        CorrelationSums {
            count: self.count,
            sums: self.sums.clone(),
            square_sums: self.square_sums.clone(),
            pair_sums: self.pair_sums.clone(),
        }
    }

    /// An accumulator of `units` units holding `saved`: checked against the shapes
    /// (n, n, n(n − 1)/2) and the bounds of units valued in {−1, 0, 1}
    /// (|Σ s_i|, Σ s_i², |Σ s_i s_j| ≤ N); errors name `field`.
    pub fn from_sums(
        field: &'static str,
        units: usize,
        saved: CorrelationSums,
    ) -> Result<Correlations, crate::error::ParamError> {
        let invalid = |reason: String| crate::error::ParamError::Invalid { field, reason };
        if saved.sums.len() != units
            || saved.square_sums.len() != units
            || saved.pair_sums.len() != pair_count(units)
        {
            return Err(invalid(format!(
                "need {units} sums, {units} square sums and {} pair sums, got {}, {} and {}",
                pair_count(units),
                saved.sums.len(),
                saved.square_sums.len(),
                saved.pair_sums.len()
            )));
        }
        let count = i64::try_from(saved.count).unwrap_or(i64::MAX);
        let within = |s: &i64| s.unsigned_abs() <= saved.count;
        if !(saved.sums.iter().all(within)
            && saved.pair_sums.iter().all(within)
            && saved.square_sums.iter().all(|&s| (0..=count).contains(&s)))
        {
            return Err(invalid(format!(
                "a sum is beyond what {} samples of units in {{−1, 0, 1}} can give",
                saved.count
            )));
        }
        Ok(Correlations {
            units,
            count: saved.count,
            sums: saved.sums,
            square_sums: saved.square_sums,
            pair_sums: saved.pair_sums,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_and_correlations_are_sample_averages() {
        let mut c = Correlations::new(3);
        c.add(&[1, 1, 1]);
        c.add(&[1, 1, -1]);
        c.add(&[-1, -1, 1]);
        c.add(&[1, -1, 1]);
        assert_eq!(c.count(), 4);
        assert_eq!(c.means(), vec![0.5, 0.0, 0.5]);
        assert_eq!(c.correlation(0, 1), 0.5);
        assert_eq!(c.correlation(2, 0), 0.0);
        assert_eq!(c.correlation(1, 1), 1.0);
        assert_eq!(c.pair_means(), vec![0.5, 0.0, -0.5]);
        c.reset();
        assert_eq!(c.count(), 0);
        c.add(&[0, 1, 1]);
        assert_eq!(c.pair_means(), vec![0.0, 0.0, 1.0]);
        assert_eq!(c.correlation(0, 0), 0.0);
    }
}
