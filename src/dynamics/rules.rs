//! Update rules: each one small function of the local field and the temperature.
//!
//! A unit takes one of two values, low or high: s ∈ {−1, +1} (Ising) or s ∈ {0, 1}
//! (Boltzmann). With E = −Σ_{i<j} w_ij s_i s_j − Σ θ_i s_i and the local field
//! h_i = Σ_j w_ij s_j + θ_i, the energy of unit i being high rather than low is lower by
//! the *gap* Δ = (s_high − s_low)·h_i (Δ = 2h_i for Ising units, the paper's ΔE_k = h_k
//! for Boltzmann units). Every rule is a function of the current value, Δ and T giving
//! P(next value = high).
//!
//! Acceptance is decided by comparing one 32-bit random number r (uniform on 0..2^32) with
//! a threshold round(p·2^32): the new value is high when r < threshold. Probabilities come
//! from `libm`, pure Rust, so they are bit-identical natively and in WebAssembly.

use crate::error::ParamError;

/// 2^32: a threshold of this size accepts every 32-bit random number.
pub const ALWAYS: u64 = 1 << 32;

/// How a unit's new value is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// Heat-bath (Glauber; the seeds' "change it according to the Boltzmann–Gibbs
    /// distribution"): P(high) = 1 / (1 + e^{−Δ/T}), whatever the current value.
    HeatBath,
    /// Metropolis: propose the other value, accept with min(1, e^{−ΔE/T}).
    Metropolis,
}

impl Rule {
    pub const ALL: [Rule; 2] = [Rule::HeatBath, Rule::Metropolis];

    /// The rule's name on the command line and in files: `heat-bath` or `metropolis`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::HeatBath => "heat-bath",
            Rule::Metropolis => "metropolis",
        }
    }

    /// Parses a rule name, naming the allowed values on error.
    pub fn parse(name: &str) -> Result<Rule, ParamError> {
        Rule::ALL
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "rule",
                value: name.to_string(),
                allowed: "heat-bath, metropolis",
            })
    }

    /// P(next value = high) for a unit that is currently high (`is_high`) or low, whose
    /// high value is lower in energy by `gap` = Δ, at temperature T.
    ///
    /// At T = 0 both rules are energy descent with ties broken by a fair coin:
    /// P(high) = 1 if Δ > 0, 0 if Δ < 0, ½ if Δ = 0.
    /// At T = ∞ heat-bath is a fair coin and Metropolis always flips.
    pub fn probability_high(self, is_high: bool, gap: f64, temperature: f64) -> f64 {
        if temperature == 0.0 {
            return zero_temperature(gap);
        }
        match self {
            Rule::HeatBath => heat_bath(gap, temperature),
            Rule::Metropolis => {
                // Going to the other value changes E by −Δ (low → high) or +Δ (high → low).
                let rise = if is_high { gap } else { -gap };
                let accept = if rise <= 0.0 {
                    1.0
                } else {
                    libm::exp(-rise / temperature)
                };
                if is_high { 1.0 - accept } else { accept }
            }
        }
    }
}

/// T = 0: energy descent, ties broken at random.
fn zero_temperature(gap: f64) -> f64 {
    if gap > 0.0 {
        1.0
    } else if gap < 0.0 {
        0.0
    } else {
        0.5
    }
}

/// Heat-bath: P(high) = 1 / (1 + e^{−Δ/T}) (a fair coin at T = ∞).
fn heat_bath(gap: f64, temperature: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-gap / temperature))
}

/// The heat-bath probability for an Ising spin: P(s_i = +1) = 1 / (1 + e^{−2 h_i / T}).
pub fn heat_bath_up_probability(local_field: f64, temperature: f64) -> f64 {
    Rule::HeatBath.probability_high(false, 2.0 * local_field, temperature)
}

/// The integer threshold t = round(p · 2^32) in 0..=2^32, so that P(r < t) = t / 2^32
/// for r uniform on 0..2^32 differs from p by at most 2^−33.
pub fn threshold(probability: f64) -> u64 {
    let p = probability.clamp(0.0, 1.0);
    libm::round(p * ALWAYS as f64) as u64
}

/// The integer thresholds of a lattice tick, indexed by [current spin is +1][S + 4] for
/// the integer neighbour sum S = Σ_{b∋i} c_b s_j ∈ −4..=4: the tick sets s_i' = +1
/// exactly when its 32-bit random number r satisfies r < t, with t = round(P · 2^32) and
/// P = P(s_i' = +1) from the rule of the gap Δ = 2 h_i = 2 (J S + h) at temperature T.
/// (The JavaScript reference sampler of the benchmark page builds the same table.)
pub fn acceptance_table(rule: Rule, coupling: f64, field: f64, temperature: f64) -> [[u64; 9]; 2] {
    let mut table = [[0; 9]; 2];
    for (current, row) in table.iter_mut().enumerate() {
        for (k, slot) in row.iter_mut().enumerate() {
            let sum = k as f64 - 4.0;
            let gap = 2.0 * (coupling * sum + field);
            *slot = threshold(rule.probability_high(current == 1, gap, temperature));
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_rules_satisfy_detailed_balance() {
        // π(high)/π(low) = e^{Δ/T}; detailed balance: π(low)·P(low→high) = π(high)·P(high→low).
        for rule in Rule::ALL {
            for &(gap, t) in &[
                (0.7, 1.3),
                (-2.0, 0.5),
                (4.0, 2.269),
                (0.0, 1.0),
                (8.0, 3.0),
            ] {
                let up = rule.probability_high(false, gap, t);
                let down = 1.0 - rule.probability_high(true, gap, t);
                let ratio = up / down;
                assert!(
                    (ratio / (gap / t).exp() - 1.0).abs() < 1e-12,
                    "{rule:?} {gap} {t}"
                );
            }
        }
    }

    #[test]
    fn zero_temperature_descends_and_breaks_ties_at_random() {
        for rule in Rule::ALL {
            for is_high in [false, true] {
                assert_eq!(rule.probability_high(is_high, 0.1, 0.0), 1.0);
                assert_eq!(rule.probability_high(is_high, -0.1, 0.0), 0.0);
                assert_eq!(rule.probability_high(is_high, 0.0, 0.0), 0.5);
            }
        }
        assert_eq!(heat_bath_up_probability(3.0, f64::INFINITY), 0.5);
        assert_eq!(
            Rule::Metropolis.probability_high(true, 3.0, f64::INFINITY),
            0.0
        );
    }

    #[test]
    fn rule_names_round_trip_and_unknown_names_are_refused() {
        for rule in Rule::ALL {
            assert_eq!(Rule::parse(rule.name()), Ok(rule));
        }
        let err = Rule::parse("glauber").unwrap_err();
        assert!(err.to_string().contains("heat-bath, metropolis"), "{err}");
    }

    #[test]
    fn thresholds_span_never_to_always() {
        assert_eq!(threshold(0.0), 0);
        assert_eq!(threshold(1.0), ALWAYS);
        assert_eq!(threshold(0.5), ALWAYS / 2);
    }
}
