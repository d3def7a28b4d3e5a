//! A dense symmetric network of two-valued units: the Boltzmann machine and the
//! Sherrington–Kirkpatrick spin glass.
//!
//! Units take one of two values, low or high: s ∈ {−1, +1} ([`SpinKind::Ising`]) or
//! s ∈ {0, 1} ([`SpinKind::Binary`], the units of Ackley, Hinton & Sejnowski 1985). The
//! energy is
//!
//! E(s) = −Σ_{i<j} w_ij s_i s_j − Σ_i θ_i s_i,
//!
//! with symmetric weights w_ij = w_ji, no self-connections (w_ii = 0) and biases θ_i. The
//! local field on unit i is h_i = Σ_j w_ij s_j + θ_i, and making unit i high rather than
//! low lowers the energy by the gap Δ_i = (s_high − s_low)·h_i (2h_i for Ising units, the
//! paper's ΔE_i = h_i for binary units).
//!
//! Units 0..visible are visible, the rest hidden. An optional wiring mask says which pairs
//! may be connected at all; a pair the mask forbids is a structural zero, and no
//! constructor or mutator lets its weight become anything else.
//!
//! The two conventions describe the same family of distributions: see
//! [`Network::to_kind`] for the exact mapping.

use crate::error::{ParamError, finite_in};
use crate::rng::{seeded_rng, standard_normal_pair};
use rand::Rng;

mod json;

/// The two values a unit can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpinKind {
    /// Ising spins, s ∈ {−1, +1}.
    Ising,
    /// Boltzmann-machine ("binary") units, s ∈ {0, 1}.
    Binary,
}

impl SpinKind {
    /// Both kinds, Ising first.
    pub const ALL: [SpinKind; 2] = [SpinKind::Ising, SpinKind::Binary];

    /// The name in files and on the command line: `ising` or `binary`.
    pub fn name(self) -> &'static str {
        match self {
            SpinKind::Ising => "ising",
            SpinKind::Binary => "binary",
        }
    }

    /// Parses a kind name; the error names the field `spin` and the allowed values.
    pub fn parse(name: &str) -> Result<SpinKind, ParamError> {
        SpinKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "spin",
                value: name.to_string(),
                allowed: "ising, binary",
            })
    }

    /// s_low: −1 (Ising) or 0 (binary).
    pub fn low(self) -> i8 {
        match self {
            SpinKind::Ising => -1,
            SpinKind::Binary => 0,
        }
    }

    /// s_high: +1 for both kinds.
    pub fn high(self) -> i8 {
        1
    }

    /// s_high − s_low: 2 (Ising) or 1 (binary); the gap is Δ_i = (s_high − s_low)·h_i.
    pub fn span(self) -> f64 {
        f64::from(self.high() - self.low())
    }

    /// Whether `value` is one of the two values of this kind.
    pub fn is_value(self, value: i8) -> bool {
        value == self.low() || value == self.high()
    }

    /// The value for a high (`true`) or low unit.
    pub fn value(self, high: bool) -> i8 {
        if high { self.high() } else { self.low() }
    }
}

/// The index of the pair (i, j), i ≠ j, in the upper-triangle order used by pair-indexed
/// arrays ([`Network::add_to_weights`], [`crate::estimate::Correlations`]): (0,1), (0,2), …,
/// (0,n−1), (1,2), …, (n−2,n−1). For i < j the index is i·n − i(i+1)/2 + (j − i − 1);
/// (j, i) has the same index as (i, j).
pub fn pair_index(units: usize, i: usize, j: usize) -> usize {
    debug_assert!(i != j && i < units && j < units);
    let (i, j) = if i < j { (i, j) } else { (j, i) };
    i * units - i * (i + 1) / 2 + (j - i - 1)
}

/// The number of unordered pairs, n(n − 1)/2.
pub fn pair_count(units: usize) -> usize {
    units * units.saturating_sub(1) / 2
}

/// A dense symmetric network: n units of one [`SpinKind`], weights w (n×n, row-major,
/// symmetric, zero diagonal), biases θ, the number of visible units and an optional wiring
/// mask. Energy E(s) = −Σ_{i<j} w_ij s_i s_j − Σ_i θ_i s_i.
#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    kind: SpinKind,
    units: usize,
    weights: Vec<f64>,
    biases: Vec<f64>,
    visible: usize,
    mask: Option<Vec<bool>>,
}

impl Network {
    /// Most units: 2048. The dense weights then take 2048² × 8 B = 32 MiB (and a mask
    /// 4 MiB), and one sweep costs 2048² ≈ 4 million multiply-adds.
    pub const MAX_UNITS: usize = 2048;
    /// Largest |w_ij| and |θ_i| accepted from outside: 10⁶. Energies and fields then stay
    /// far from overflow. (A network derived by [`Network::to_kind`] may exceed it: its
    /// weights by a factor of at most 4, its biases by at most 2n.)
    pub const MAX_PARAMETER: f64 = 1.0e6;
    /// Longest network JSON accepted: 128 MiB, 32 bytes per entry of a 2048 × 2048 weight
    /// matrix, enough for the export of any network (a weight takes at most 25 characters
    /// with its comma, a mask entry 6).
    pub const MAX_JSON_BYTES: usize = 32 * Self::MAX_UNITS * Self::MAX_UNITS;

    /// A network of `kind` units with `weights` (n×n, row-major) and `biases` (length n,
    /// which fixes n), all units visible and every pair allowed.
    ///
    /// Checks: 1 ≤ n ≤ [`Network::MAX_UNITS`]; weights of length n²; every value finite
    /// with magnitude ≤ [`Network::MAX_PARAMETER`]; w_ij = w_ji exactly; w_ii = 0.
    pub fn new(kind: SpinKind, weights: Vec<f64>, biases: Vec<f64>) -> Result<Self, ParamError> {
        let units = check_units(biases.len())?;
        if weights.len() != units * units {
            return Err(ParamError::Invalid {
                field: "weights",
                reason: format!(
                    "need {units} × {units} = {} entries for {units} units, got {}",
                    units * units,
                    weights.len()
                ),
            });
        }
        for (i, &b) in biases.iter().enumerate() {
            check_parameter("biases", b, || format!("[{i}]"))?;
        }
        for i in 0..units {
            for j in 0..units {
                let w = weights[i * units + j];
                check_parameter("weights", w, || format!("[{i}][{j}]"))?;
                if i == j && w != 0.0 {
                    return Err(ParamError::Invalid {
                        field: "weights",
                        reason: format!(
                            "the diagonal must be zero (no self-connections), but entry [{i}][{i}] is {}",
                            crate::error::number(w)
                        ),
                    });
                }
                if j > i && w != weights[j * units + i] {
                    return Err(ParamError::Invalid {
                        field: "weights",
                        reason: format!(
                            "must be symmetric, but entry [{i}][{j}] is {} and entry [{j}][{i}] is {}",
                            crate::error::number(w),
                            crate::error::number(weights[j * units + i])
                        ),
                    });
                }
            }
        }
        Ok(Network {
            kind,
            units,
            weights,
            biases,
            visible: units,
            mask: None,
        })
    }

    /// `units` units with every weight and bias zero (1 ≤ units ≤ [`Network::MAX_UNITS`]).
    pub fn zeros(kind: SpinKind, units: usize) -> Result<Self, ParamError> {
        let units = check_units(units)?;
        Network::new(kind, vec![0.0; units * units], vec![0.0; units])
    }

    /// The same network with units 0..visible visible and the rest hidden
    /// (0 ≤ visible ≤ n).
    pub fn with_visible(mut self, visible: usize) -> Result<Self, ParamError> {
        if visible > self.units {
            return Err(ParamError::OutOfRange {
                field: "visible",
                value: visible as f64,
                min: 0.0,
                max: self.units as f64,
            });
        }
        self.visible = visible;
        Ok(self)
    }

    /// The same network with a wiring mask (n×n, row-major): `mask[i·n + j]` says whether
    /// units i and j may be connected. The mask must be symmetric with a false diagonal,
    /// and every weight where it is false must already be zero.
    pub fn with_mask(mut self, mask: Vec<bool>) -> Result<Self, ParamError> {
        let n = self.units;
        if mask.len() != n * n {
            return Err(ParamError::Invalid {
                field: "mask",
                reason: format!(
                    "need {n} × {n} = {} entries for {n} units, got {}",
                    n * n,
                    mask.len()
                ),
            });
        }
        for i in 0..n {
            if mask[i * n + i] {
                return Err(ParamError::Invalid {
                    field: "mask",
                    reason: format!(
                        "the diagonal must be false (no self-connections), but entry [{i}][{i}] is true"
                    ),
                });
            }
            for j in i + 1..n {
                if mask[i * n + j] != mask[j * n + i] {
                    return Err(ParamError::Invalid {
                        field: "mask",
                        reason: format!(
                            "must be symmetric, but entry [{i}][{j}] is {} and entry [{j}][{i}] is {}",
                            mask[i * n + j],
                            mask[j * n + i]
                        ),
                    });
                }
                let w = self.weights[i * n + j];
                if !mask[i * n + j] && w != 0.0 {
                    return Err(ParamError::Invalid {
                        field: "weights",
                        reason: format!(
                            "the mask forbids a connection between units {i} and {j}, but their weight is {}",
                            crate::error::number(w)
                        ),
                    });
                }
            }
        }
        self.mask = Some(mask);
        Ok(self)
    }

    /// The Sherrington–Kirkpatrick spin glass: Ising units, w_ij = w_ji ~ N(0, 1/n)
    /// independently for i < j, θ_i = 0, all units visible. The Gaussians come from
    /// [`standard_normal_pair`] on the [`SpinRng`](crate::rng::SpinRng) stream of `seed`, pairs in the order
    /// (0,1), (0,2), …, so the weights are the same on every platform.
    pub fn sherrington_kirkpatrick(units: usize, seed: u64) -> Result<Self, ParamError> {
        let n = check_units(units)?;
        let mut rng = seeded_rng(seed);
        let scale = 1.0 / libm::sqrt(n as f64);
        let mut weights = vec![0.0; n * n];
        let mut spare = None;
        for i in 0..n {
            for j in i + 1..n {
                let z = match spare.take() {
                    Some(z) => z,
                    None => {
                        let [a, b] = standard_normal_pair(&mut rng);
                        spare = Some(b);
                        a
                    }
                };
                weights[i * n + j] = z * scale;
                weights[j * n + i] = z * scale;
            }
        }
        Network::new(SpinKind::Ising, weights, vec![0.0; n])
    }

    /// A random test network: w_ij = w_ji uniform on [−weight_scale, weight_scale) for
    /// i < j, θ_i uniform on [−bias_scale, bias_scale), all drawn from the stream of
    /// `seed` (u = r/2^32 from one 32-bit draw r, value = scale·(2u − 1)). Scales are
    /// finite, in [0, [`Network::MAX_PARAMETER`]].
    pub fn random(
        units: usize,
        kind: SpinKind,
        weight_scale: f64,
        bias_scale: f64,
        seed: u64,
    ) -> Result<Self, ParamError> {
        let n = check_units(units)?;
        let weight_scale = finite_in("weight_scale", weight_scale, 0.0, Self::MAX_PARAMETER)?;
        let bias_scale = finite_in("bias_scale", bias_scale, 0.0, Self::MAX_PARAMETER)?;
        let mut rng = seeded_rng(seed);
        let mut uniform = |scale: f64| {
            let u = f64::from(rng.next_u32()) / 4_294_967_296.0;
            scale * (2.0 * u - 1.0)
        };
        let mut weights = vec![0.0; n * n];
        for i in 0..n {
            for j in i + 1..n {
                let w = uniform(weight_scale);
                weights[i * n + j] = w;
                weights[j * n + i] = w;
            }
        }
        let biases = (0..n).map(|_| uniform(bias_scale)).collect();
        Network::new(kind, weights, biases)
    }

    /// Number of units n.
    pub fn len(&self) -> usize {
        self.units
    }

    /// Always false: a network has at least one unit.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The kind of the units (their low and high values).
    pub fn kind(&self) -> SpinKind {
        self.kind
    }

    /// w_ij (zero on the diagonal and wherever the mask forbids). Panics if i or j ≥ n.
    pub fn weight(&self, i: usize, j: usize) -> f64 {
        self.weights[i * self.units + j]
    }

    /// θ_i. Panics if i ≥ n.
    pub fn bias(&self, i: usize) -> f64 {
        self.biases[i]
    }

    /// The whole weight matrix, n×n row-major (w_ij at i·n + j).
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Row i of the weight matrix: w_i0 … w_i(n−1).
    pub fn weight_row(&self, i: usize) -> &[f64] {
        &self.weights[i * self.units..(i + 1) * self.units]
    }

    /// The biases θ_0 … θ_(n−1).
    pub fn biases(&self) -> &[f64] {
        &self.biases
    }

    /// Number of visible units: units 0..visible are visible.
    pub fn visible(&self) -> usize {
        self.visible
    }

    /// Number of hidden units, n − visible.
    pub fn hidden(&self) -> usize {
        self.units - self.visible
    }

    /// The wiring mask, n×n row-major, if the network has one.
    pub fn mask(&self) -> Option<&[bool]> {
        self.mask.as_deref()
    }

    /// Whether units i and j may be connected: i ≠ j and the mask (if any) allows it.
    pub fn is_allowed(&self, i: usize, j: usize) -> bool {
        i != j && self.mask.as_ref().is_none_or(|m| m[i * self.units + j])
    }

    /// Checks that `state` has n entries, each s_low or s_high; the error names `field`.
    pub fn check_state(&self, field: &'static str, state: &[i8]) -> Result<(), ParamError> {
        if state.len() != self.units {
            return Err(ParamError::Invalid {
                field,
                reason: format!(
                    "need {} values, one per unit, got {}",
                    self.units,
                    state.len()
                ),
            });
        }
        if let Some(i) = state.iter().position(|&s| !self.kind.is_value(s)) {
            return Err(ParamError::Invalid {
                field,
                reason: format!(
                    "{} units take the values {} and {}, but unit {i} is {}",
                    self.kind.name(),
                    self.kind.low(),
                    self.kind.high(),
                    state[i]
                ),
            });
        }
        Ok(())
    }

    /// The local field h_i = Σ_j w_ij s_j + θ_i. Panics if the state is shorter than n.
    #[inline]
    pub fn local_field(&self, state: &[i8], i: usize) -> f64 {
        let row = self.weight_row(i);
        let sum: f64 = row
            .iter()
            .zip(&state[..self.units])
            .map(|(&w, &s)| w * f64::from(s))
            .sum();
        sum + self.biases[i]
    }

    /// E(s) = −Σ_{i<j} w_ij s_i s_j − Σ_i θ_i s_i, from scratch (O(n²)). Panics if the
    /// state is shorter than n.
    pub fn energy(&self, state: &[i8]) -> f64 {
        self.energy_of(|i| f64::from(state[i]))
    }

    /// The same quadratic form at real unit means: E(m) = −Σ_{i<j} w_ij m_i m_j − Σ_i θ_i m_i
    /// (the mean-field energy). Panics if `means` is shorter than n.
    pub fn mean_energy(&self, means: &[f64]) -> f64 {
        assert!(means.len() >= self.units, "one mean per unit");
        self.energy_of(|i| means[i])
    }

    fn energy_of(&self, value: impl Fn(usize) -> f64) -> f64 {
        let n = self.units;
        let mut energy = 0.0;
        for i in 0..n {
            let si = value(i);
            if si == 0.0 {
                continue;
            }
            let row = &self.weight_row(i)[i + 1..];
            let pairs: f64 = row
                .iter()
                .enumerate()
                .map(|(k, &w)| w * value(i + 1 + k))
                .sum();
            energy -= si * (pairs + self.biases[i]);
        }
        energy
    }

    /// The same distribution in the other convention, and the energy offset C between them.
    ///
    /// Writing s = 2b − 1 (s Ising, b binary) in E turns an Ising network (w, θ) into the
    /// binary network
    ///
    /// w′_ij = 4 w_ij,  θ′_i = 2θ_i − 2 Σ_j w_ij,
    ///
    /// with E_ising(s) = E_binary(b) + C, C = −Σ_{i<j} w_ij + Σ_i θ_i. The inverse
    /// (binary → Ising) is w_ij = w′_ij / 4, θ_i = θ′_i / 2 + Σ_j w′_ij / 4, with
    /// E_binary(b) = E_ising(s) + C′, C′ = −Σ_{i<j} w′_ij / 4 − Σ_i θ′_i / 2.
    ///
    /// Returned: (the network in `kind`, offset) with E_self(s) = E_returned(s′) + offset
    /// for every state, s′ having the same units high. A constant offset leaves the
    /// Boltzmann distribution unchanged; ln Z_self = ln Z_returned − offset / T. The
    /// visible count and the mask carry over (structural zeros stay zero). Asking for the
    /// network's own kind returns a copy and offset 0.
    pub fn to_kind(&self, kind: SpinKind) -> (Network, f64) {
        let n = self.units;
        let row_sums: Vec<f64> = (0..n).map(|i| self.weight_row(i).iter().sum()).collect();
        let upper_sum: f64 = (0..n)
            .map(|i| self.weight_row(i)[i + 1..].iter().sum::<f64>())
            .sum();
        let bias_sum: f64 = self.biases.iter().sum();
        let (weights, biases, offset): (Vec<f64>, Vec<f64>, f64) = match (self.kind, kind) {
            (a, b) if a == b => (self.weights.clone(), self.biases.clone(), 0.0),
            (SpinKind::Ising, _) => (
                self.weights.iter().map(|w| 4.0 * w).collect(),
                (0..n)
                    .map(|i| 2.0 * self.biases[i] - 2.0 * row_sums[i])
                    .collect(),
                -upper_sum + bias_sum,
            ),
            (SpinKind::Binary, _) => (
                self.weights.iter().map(|w| w / 4.0).collect(),
                (0..n)
                    .map(|i| self.biases[i] / 2.0 + row_sums[i] / 4.0)
                    .collect(),
                -upper_sum / 4.0 - bias_sum / 2.0,
            ),
        };
        let network = Network {
            kind,
            units: n,
            weights,
            biases,
            visible: self.visible,
            mask: self.mask.clone(),
        };
        (network, offset)
    }

    /// Sets w_ij = w_ji = `weight`. Refused (nothing changes) when i or j ≥ n, i = j, the
    /// mask forbids the pair, or the weight is not finite with |w| ≤
    /// [`Network::MAX_PARAMETER`].
    pub fn set_weight(&mut self, i: usize, j: usize, weight: f64) -> Result<(), ParamError> {
        self.check_pair(i, j)?;
        check_parameter("weights", weight, || format!("[{i}][{j}]"))?;
        let n = self.units;
        self.weights[i * n + j] = weight;
        self.weights[j * n + i] = weight;
        Ok(())
    }

    /// Sets θ_i = `bias`. Refused (nothing changes) when i ≥ n or the bias is not finite
    /// with |θ| ≤ [`Network::MAX_PARAMETER`].
    pub fn set_bias(&mut self, i: usize, bias: f64) -> Result<(), ParamError> {
        self.check_unit("unit", i)?;
        check_parameter("biases", bias, || format!("[{i}]"))?;
        self.biases[i] = bias;
        Ok(())
    }

    /// w_ij ← w_ij + Δ_ij for every allowed pair, Δ given per pair in [`pair_index`] order
    /// (length n(n − 1)/2). Pairs the mask forbids are skipped, so structural zeros stay
    /// zero. All-or-nothing: if Δ has the wrong length, a non-finite entry, or would take
    /// an allowed weight beyond ±[`Network::MAX_PARAMETER`], nothing changes.
    pub fn add_to_weights(&mut self, delta: &[f64]) -> Result<(), ParamError> {
        let n = self.units;
        if delta.len() != pair_count(n) {
            return Err(ParamError::Invalid {
                field: "weight changes",
                reason: format!(
                    "need one change per pair, n(n − 1)/2 = {}, got {}",
                    pair_count(n),
                    delta.len()
                ),
            });
        }
        for i in 0..n {
            for j in i + 1..n {
                if self.is_allowed(i, j) {
                    let d = delta[pair_index(n, i, j)];
                    check_parameter("weight changes", d, || format!("[{i}][{j}]"))?;
                    check_parameter("weights", self.weights[i * n + j] + d, || {
                        format!("[{i}][{j}] after the change")
                    })?;
                }
            }
        }
        for i in 0..n {
            for j in i + 1..n {
                if self.is_allowed(i, j) {
                    let w = self.weights[i * n + j] + delta[pair_index(n, i, j)];
                    self.weights[i * n + j] = w;
                    self.weights[j * n + i] = w;
                }
            }
        }
        Ok(())
    }

    /// θ_i ← θ_i + Δ_i for every unit (Δ of length n). All-or-nothing, like
    /// [`Network::add_to_weights`].
    pub fn add_to_biases(&mut self, delta: &[f64]) -> Result<(), ParamError> {
        if delta.len() != self.units {
            return Err(ParamError::Invalid {
                field: "bias changes",
                reason: format!(
                    "need one change per unit, {}, got {}",
                    self.units,
                    delta.len()
                ),
            });
        }
        for (i, (&b, &d)) in self.biases.iter().zip(delta).enumerate() {
            check_parameter("bias changes", d, || format!("[{i}]"))?;
            check_parameter("biases", b + d, || format!("[{i}] after the change"))?;
        }
        for (b, d) in self.biases.iter_mut().zip(delta) {
            *b += d;
        }
        Ok(())
    }

    fn check_unit(&self, field: &'static str, i: usize) -> Result<(), ParamError> {
        if i >= self.units {
            return Err(ParamError::OutOfRange {
                field,
                value: i as f64,
                min: 0.0,
                max: (self.units - 1) as f64,
            });
        }
        Ok(())
    }

    fn check_pair(&self, i: usize, j: usize) -> Result<(), ParamError> {
        self.check_unit("unit", i)?;
        self.check_unit("unit", j)?;
        if i == j {
            return Err(ParamError::Invalid {
                field: "weights",
                reason: format!("a unit has no connection to itself (unit {i})"),
            });
        }
        if !self.is_allowed(i, j) {
            return Err(ParamError::Invalid {
                field: "weights",
                reason: format!("the mask forbids a connection between units {i} and {j}"),
            });
        }
        Ok(())
    }
}

/// 1 ≤ units ≤ MAX_UNITS.
fn check_units(units: usize) -> Result<usize, ParamError> {
    if !(1..=Network::MAX_UNITS).contains(&units) {
        return Err(ParamError::OutOfRange {
            field: "units",
            value: units as f64,
            min: 1.0,
            max: Network::MAX_UNITS as f64,
        });
    }
    Ok(units)
}

/// A weight or bias: finite, |x| ≤ MAX_PARAMETER; the error names the field and the entry.
fn check_parameter(
    field: &'static str,
    value: f64,
    entry: impl Fn() -> String,
) -> Result<(), ParamError> {
    if !value.is_finite() {
        return Err(ParamError::Invalid {
            field,
            reason: format!(
                "entry {} must be a finite number, got {}",
                entry(),
                crate::error::number(value)
            ),
        });
    }
    if value.abs() > Network::MAX_PARAMETER {
        return Err(ParamError::Invalid {
            field,
            reason: format!(
                "entry {} must be between −{max} and {max}, got {}",
                entry(),
                crate::error::number(value),
                max = Network::MAX_PARAMETER
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_states(kind: SpinKind, n: usize) -> impl Iterator<Item = Vec<i8>> {
        (0..1u32 << n).map(move |k| (0..n).map(|i| kind.value(k >> i & 1 == 1)).collect())
    }

    #[test]
    fn pair_index_enumerates_the_upper_triangle_in_row_order() {
        let n = 7;
        let mut expected = 0;
        for i in 0..n {
            for j in i + 1..n {
                assert_eq!(pair_index(n, i, j), expected);
                assert_eq!(pair_index(n, j, i), expected);
                expected += 1;
            }
        }
        assert_eq!(expected, pair_count(n));
    }

    #[test]
    fn energy_is_minus_pair_and_bias_sums_and_the_gap_is_its_difference() {
        for kind in SpinKind::ALL {
            let net = Network::random(5, kind, 1.0, 0.5, 3).unwrap();
            for state in all_states(kind, 5) {
                let mut naive = 0.0;
                for i in 0..5 {
                    naive -= net.bias(i) * f64::from(state[i]);
                    for j in i + 1..5 {
                        naive -= net.weight(i, j) * f64::from(state[i] * state[j]);
                    }
                }
                assert!((net.energy(&state) - naive).abs() < 1e-12);
                // E(low at i) − E(high at i) = (s_high − s_low)·h_i.
                for i in 0..5 {
                    let (mut lo, mut hi) = (state.clone(), state.clone());
                    lo[i] = kind.low();
                    hi[i] = kind.high();
                    let gap = net.energy(&lo) - net.energy(&hi);
                    assert!((gap - kind.span() * net.local_field(&state, i)).abs() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn to_kind_shifts_every_energy_by_the_same_constant_both_ways() {
        for kind in SpinKind::ALL {
            let net = Network::random(6, kind, 1.5, 0.7, 11).unwrap();
            let other = if kind == SpinKind::Ising {
                SpinKind::Binary
            } else {
                SpinKind::Ising
            };
            let (mapped, offset) = net.to_kind(other);
            assert_eq!(mapped.kind(), other);
            for state in all_states(kind, 6) {
                let image: Vec<i8> = state.iter().map(|&s| other.value(s == 1)).collect();
                let diff = net.energy(&state) - mapped.energy(&image) - offset;
                assert!(diff.abs() < 1e-12, "{diff}");
            }
            let (back, back_offset) = mapped.to_kind(kind);
            assert!((offset + back_offset).abs() < 1e-12);
            for (a, b) in net.weights().iter().zip(back.weights()) {
                assert!((a - b).abs() < 1e-12);
            }
            for (a, b) in net.biases().iter().zip(back.biases()) {
                assert!((a - b).abs() < 1e-12);
            }
            assert_eq!(net.to_kind(kind), (net.clone(), 0.0));
        }
    }

    #[test]
    fn mutators_keep_symmetry_and_structural_zeros() {
        let mut mask = vec![true; 16];
        for i in 0..4 {
            mask[i * 4 + i] = false;
        }
        mask[1] = false; // (0, 1)
        mask[4] = false; // (1, 0)
        let mut net = Network::zeros(SpinKind::Binary, 4)
            .unwrap()
            .with_mask(mask)
            .unwrap();
        net.set_weight(2, 0, 1.5).unwrap();
        assert_eq!((net.weight(0, 2), net.weight(2, 0)), (1.5, 1.5));
        assert!(net.set_weight(0, 1, 1.0).is_err());
        assert!(net.set_weight(3, 3, 1.0).is_err());
        assert!(net.set_weight(0, 4, 1.0).is_err());
        assert!(net.set_weight(0, 2, f64::NAN).is_err());
        assert_eq!(net.weight(0, 2), 1.5);
        net.add_to_weights(&[1.0; 6]).unwrap();
        assert_eq!(net.weight(0, 1), 0.0);
        assert_eq!(net.weight(1, 0), 0.0);
        assert_eq!(net.weight(0, 2), 2.5);
        assert_eq!(net.weight(3, 1), 1.0);
        let before = net.clone();
        let mut bad = [0.0; 6];
        bad[5] = 2.0e6; // (2, 3) would leave the bound
        assert!(net.add_to_weights(&bad).is_err());
        assert!(net.add_to_weights(&[0.0; 5]).is_err());
        assert!(net.add_to_biases(&[0.0, f64::INFINITY, 0.0, 0.0]).is_err());
        assert_eq!(net, before);
        net.add_to_biases(&[0.5; 4]).unwrap();
        assert_eq!(net.biases(), &[0.5; 4]);
    }

    #[test]
    fn json_round_trips_exactly_with_mask_and_visible() {
        let net = Network::random(5, SpinKind::Binary, 2.0, 1.0, 8).unwrap();
        let mut mask = vec![true; 25];
        let mut weights = net.weights().to_vec();
        for i in 0..5 {
            mask[i * 5 + i] = false;
        }
        for (i, j) in [(0, 3), (3, 0), (1, 4), (4, 1)] {
            mask[i * 5 + j] = false;
            weights[i * 5 + j] = 0.0;
        }
        let net = Network::new(SpinKind::Binary, weights, net.biases().to_vec())
            .unwrap()
            .with_visible(3)
            .unwrap()
            .with_mask(mask)
            .unwrap();
        let back = Network::from_json(&net.to_json()).unwrap();
        assert_eq!(back, net);
        let ising = Network::sherrington_kirkpatrick(9, 4).unwrap();
        assert_eq!(Network::from_json(&ising.to_json()).unwrap(), ising);
    }

    #[test]
    fn json_accepts_masks_of_zeros_and_ones_and_defaults_to_all_visible() {
        let text = r#"{"spin": "ising", "units": 2, "biases": [0.5, -1],
            "weights": [[0, 0], [0, 0]], "mask": [[0, 1], [1, false]]}"#;
        let net = Network::from_json(text).unwrap();
        assert_eq!(net.visible(), 2);
        assert_eq!(net.mask(), Some(&[false, true, true, false][..]));
        assert_eq!(net.biases(), &[0.5, -1.0]);
    }
}
