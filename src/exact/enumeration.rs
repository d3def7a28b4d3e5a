//! Exact statistics of a small [`Network`] by visiting all 2^n states.
//!
//! Z = Σ_s e^{−E(s)/T}, P(s) = e^{−E(s)/T} / Z. The states are visited in Gray-code order,
//! so consecutive states differ in one unit t: its energy change is ΔE = −(s_new − s_old)·h_t
//! and every local field moves by w_jt (s_new − s_old), O(n) work per state instead of
//! O(n²). (Fields and energy are recomputed from scratch every 4096 states, so rounding
//! cannot drift.) Sums run in blocks of 4096 states with their own maximum exponent and are
//! merged at the end of each block (log-sum-exp, with Chan's pairwise formula for the
//! variance), so neither overflow nor long running sums cost accuracy.
//!
//! State index: bit i of the index is 1 when unit i is high (index 0: all units low).
//!
//! Temperature: 0 < T ≤ ∞. At T = ∞ (β = 0) every state has weight 1 and ln Z = n ln 2.
//! T = 0 is refused: e^{−E/T} has no finite limit (ln Z → −E_min/T diverges).

use crate::error::{ParamError, TemperatureDomain, check_temperature, number};
use crate::log_sum_exp::LogSumExp;
use crate::model::network::{Network, SpinKind, pair_count};

/// Most units [`enumerate`] accepts: 30 (2^30 ≈ 10⁹ states, about 30·10⁹ multiply-adds).
pub const MAX_ENUMERATION_UNITS: usize = 30;
/// Most units [`state_probabilities`] and [`exact_correlations`] accept: 24 (the
/// probability vector then has 2^24 entries, 128 MiB).
pub const MAX_PROBABILITY_UNITS: usize = 24;

/// States per block of the blocked sums and between recomputations from scratch.
const BLOCK: u64 = 1 << 12;

/// Exact thermal averages of a network at one temperature.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Enumeration {
    /// ln Z = ln Σ_s e^{−E(s)/T}.
    pub log_z: f64,
    /// ⟨E⟩ = Σ_s E(s) P(s).
    pub mean_energy: f64,
    /// ⟨E²⟩ − ⟨E⟩² (the heat capacity is C = (⟨E²⟩ − ⟨E⟩²)/T²).
    pub energy_variance: f64,
    /// ⟨|M|⟩ with M = Σ_i s_i (for binary units, the number of units on).
    pub mean_abs_magnetization: f64,
}

/// Exact ⟨s_i⟩ and ⟨s_i s_j⟩ of a network at one temperature.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactCorrelations {
    /// ⟨s_i⟩ for i = 0 … n − 1.
    pub means: Vec<f64>,
    /// ⟨s_i s_j⟩ for i < j, in [`crate::model::network::pair_index`] order.
    pub pairs: Vec<f64>,
}

/// The index of a state: Σ_i 2^i [s_i = s_high]. Panics beyond 64 units.
pub fn index_of_state(kind: SpinKind, state: &[i8]) -> u64 {
    assert!(state.len() <= 64, "a state index has 64 bits");
    state
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s == kind.high())
        .fold(0, |index, (i, _)| index | 1 << i)
}

/// The state of `units` units with the given index: unit i is high when bit i is 1.
pub fn state_of_index(kind: SpinKind, units: usize, index: u64) -> Vec<i8> {
    (0..units)
        .map(|i| kind.value(index >> i & 1 == 1))
        .collect()
}

/// Exact ln Z, ⟨E⟩, ⟨E²⟩ − ⟨E⟩² and ⟨|Σ_i s_i|⟩ at temperature T by enumerating all 2^n
/// states (n ≤ [`MAX_ENUMERATION_UNITS`], 0 < T ≤ ∞). Cost O(n 2^n).
pub fn enumerate(network: &Network, temperature: f64) -> Result<Enumeration, ParamError> {
    let beta = inverse_temperature(network, temperature, MAX_ENUMERATION_UNITS, "enumeration")?;
    let mut total = Moments::EMPTY;
    let mut block = Moments::EMPTY;
    gray_walk(network, |step, _, _, energy, magnetization| {
        block.push(-beta * energy, energy, magnetization.abs());
        if (step + 1) % BLOCK == 0 {
            total.merge(&block);
            block = Moments::EMPTY;
        }
    });
    total.merge(&block);
    Ok(Enumeration {
        log_z: total.max_exponent + libm::log(total.weight),
        mean_energy: total.mean_energy,
        energy_variance: total.energy_m2 / total.weight,
        mean_abs_magnetization: total.mean_abs_magnetization,
    })
}

/// The exact Boltzmann probability P(s) = e^{−E(s)/T} / Z of every state, indexed by
/// [`index_of_state`] (n ≤ [`MAX_PROBABILITY_UNITS`], 0 < T ≤ ∞). Cost O(n 2^n).
pub fn state_probabilities(network: &Network, temperature: f64) -> Result<Vec<f64>, ParamError> {
    let beta = inverse_temperature(
        network,
        temperature,
        MAX_PROBABILITY_UNITS,
        "the probability of every state",
    )?;
    let mut exponents = vec![0.0; 1 << network.len()];
    let mut sum = LogSumExp::new();
    gray_walk(network, |_, index, _, energy, _| {
        let x = -beta * energy;
        exponents[index as usize] = x;
        sum.push(x);
    });
    let log_z = sum.value();
    for x in &mut exponents {
        *x = libm::exp(*x - log_z);
    }
    Ok(exponents)
}

/// Exact ⟨s_i⟩ = Σ_s s_i P(s) and ⟨s_i s_j⟩ = Σ_s s_i s_j P(s) (n ≤
/// [`MAX_PROBABILITY_UNITS`], 0 < T ≤ ∞). Two walks: one for ln Z, one for the sums.
/// Cost O(n² 2^n).
pub fn exact_correlations(
    network: &Network,
    temperature: f64,
) -> Result<ExactCorrelations, ParamError> {
    let beta = inverse_temperature(
        network,
        temperature,
        MAX_PROBABILITY_UNITS,
        "exact correlations",
    )?;
    let log_z = enumerate(network, temperature)?.log_z;
    let n = network.len();
    let mut means = vec![0.0; n];
    let mut pairs = vec![0.0; pair_count(n)];
    let free = vec![None; n];
    add_weighted_products(network, &free, beta, log_z, 1.0, &mut means, &mut pairs);
    Ok(ExactCorrelations { means, pairs })
}

/// Adds `scale` · Σ_s p(s) s_i to `means[i]` and `scale` · Σ_s p(s) s_i s_j to the pair
/// sums (in `pair_index` order) over every state of the units with `clamp[i] = None`, where
/// p(s) = e^{−βE(s) − log_z}. Sums are kept per block of 4096 states and then added to the
/// totals, so rounding does not grow with 2^n.
pub(crate) fn add_weighted_products(
    network: &Network,
    clamp: &[Option<i8>],
    beta: f64,
    log_z: f64,
    scale: f64,
    means: &mut [f64],
    pairs: &mut [f64],
) {
    let n = network.len();
    let mut block_means = vec![0.0; n];
    let mut block_pairs = vec![0.0; pair_count(n)];
    let flush = |block: &mut [f64], total: &mut [f64]| {
        for (t, b) in total.iter_mut().zip(block.iter_mut()) {
            *t += scale * *b;
            *b = 0.0;
        }
    };
    gray_walk_clamped(network, clamp, |step, _, state, energy, _| {
        let p = libm::exp(-beta * energy - log_z);
        let mut pair = 0;
        for (i, &si) in state.iter().enumerate() {
            let rest = state.len() - i - 1;
            if si != 0 {
                let weight = p * f64::from(si);
                block_means[i] += weight;
                for (sum, &sj) in block_pairs[pair..pair + rest]
                    .iter_mut()
                    .zip(&state[i + 1..])
                {
                    *sum += weight * f64::from(sj);
                }
            }
            pair += rest;
        }
        if (step + 1) % BLOCK == 0 {
            flush(&mut block_means, means);
            flush(&mut block_pairs, pairs);
        }
    });
    flush(&mut block_means, means);
    flush(&mut block_pairs, pairs);
}

/// β = 1/T after checking n ≤ `max_units` and 0 < T ≤ ∞ (see [`checked_beta`]).
pub(crate) fn inverse_temperature(
    network: &Network,
    temperature: f64,
    max_units: usize,
    what: &str,
) -> Result<f64, ParamError> {
    let n = network.len();
    if n > max_units {
        return Err(ParamError::Invalid {
            field: "units",
            reason: format!(
                "{what} by enumeration handles at most {max_units} units (2^{max_units} states), got {n}"
            ),
        });
    }
    checked_beta(network, temperature)
}

/// β = 1/T after checking 0 < T ≤ ∞ and that β times the largest possible |E| stays
/// representable.
pub(crate) fn checked_beta(network: &Network, temperature: f64) -> Result<f64, ParamError> {
    let temperature = check_temperature(temperature, TemperatureDomain::Enumeration)?;
    let beta = 1.0 / temperature;
    // |E(s)| ≤ Σ_{i<j} |w_ij| + Σ_i |θ_i| (|s_i| ≤ 1 in both conventions); if β times that
    // is not comfortably representable, ln Z = −β E_min + ln Σ e^{−β(E − E_min)} overflows.
    let n = network.len();
    let bound: f64 = (0..n)
        .map(|i| {
            let row = &network.weight_row(i)[i + 1..];
            row.iter().map(|w| w.abs()).sum::<f64>() + network.bias(i).abs()
        })
        .sum();
    if beta * bound > 1e300 {
        return Err(ParamError::Invalid {
            field: "temperature",
            reason: format!(
                "T = {} is too low for this network: β·|E| would overflow \
                 (|E| ≤ {}); use T ≥ {}",
                number(temperature),
                number(bound),
                number(least_temperature(bound))
            ),
        });
    }
    Ok(beta)
}

/// The least T (a normal f64) with (1/T)·|E| ≤ 10³⁰⁰ in f64 for `bound` = the largest
/// possible |E|, as [`checked_beta`] tests it (the product may round up, so T is raised a
/// step at a time until it passes).
fn least_temperature(bound: f64) -> f64 {
    let mut least = (bound * 1e-300).max(f64::MIN_POSITIVE);
    while (1.0 / least) * bound > 1e300 {
        least = least.next_up();
    }
    least
}

/// Visits all 2^n states in Gray-code order, calling `visit(step, index, state, E, M)`
/// with the step number k, the state index g(k) = k ⊕ (k >> 1), the state, its energy and
/// M = Σ_i s_i.
fn gray_walk(network: &Network, visit: impl FnMut(u64, u64, &[i8], f64, i64)) {
    gray_walk_clamped(network, &vec![None; network.len()], visit);
}

/// Visits every state of the units with `clamp[i] = None` (the others held at their
/// value) in Gray-code order, one flip per step with the local fields and the energy
/// updated incrementally (recomputed from scratch every 4096 steps), calling
/// `visit(step, index, state, E, M)`: `index` has bit k set when the k-th free unit is
/// high, and M = Σ_i s_i over all units.
pub(crate) fn gray_walk_clamped(
    network: &Network,
    clamp: &[Option<i8>],
    mut visit: impl FnMut(u64, u64, &[i8], f64, i64),
) {
    let kind = network.kind();
    let (low, high) = (kind.low(), kind.high());
    let free: Vec<usize> = (0..clamp.len()).filter(|&i| clamp[i].is_none()).collect();
    let mut state: Vec<i8> = clamp.iter().map(|c| c.unwrap_or(low)).collect();
    let mut fields = vec![0.0; state.len()];
    let recompute = |state: &[i8], fields: &mut [f64]| {
        for (i, h) in fields.iter_mut().enumerate() {
            *h = network.local_field(state, i);
        }
        network.energy(state)
    };
    let mut energy = recompute(&state, &mut fields);
    let mut magnetization: i64 = state.iter().map(|&s| i64::from(s)).sum();
    let mut index = 0u64;
    visit(0, 0, &state, energy, magnetization);
    for step in 1..1u64 << free.len() {
        let k = step.trailing_zeros() as usize;
        index ^= 1 << k;
        let t = free[k];
        let new = if state[t] == high { low } else { high };
        let change = new - state[t];
        state[t] = new;
        magnetization += i64::from(change);
        if step % BLOCK == 0 {
            energy = recompute(&state, &mut fields);
        } else {
            let change = f64::from(change);
            energy -= change * fields[t];
            for (h, &w) in fields.iter_mut().zip(network.weight_row(t)) {
                *h += w * change;
            }
        }
        visit(step, index, &state, energy, magnetization);
    }
}

/// Weighted moments of one block of states, relative to the block's largest exponent:
/// weight W = Σ e^{x − x_max}, the weighted means of E and |M|, and M2 = Σ w (E − ⟨E⟩)².
#[derive(Debug, Clone, Copy)]
struct Moments {
    max_exponent: f64,
    weight: f64,
    mean_energy: f64,
    energy_m2: f64,
    mean_abs_magnetization: f64,
}

impl Moments {
    const EMPTY: Moments = Moments {
        max_exponent: f64::NEG_INFINITY,
        weight: 0.0,
        mean_energy: 0.0,
        energy_m2: 0.0,
        mean_abs_magnetization: 0.0,
    };

    /// Adds a state with exponent x = −βE (West's weighted update).
    fn push(&mut self, exponent: f64, energy: f64, abs_magnetization: i64) {
        if exponent > self.max_exponent {
            let scale = libm::exp(self.max_exponent - exponent);
            self.weight *= scale;
            self.energy_m2 *= scale;
            self.max_exponent = exponent;
        }
        let w = libm::exp(exponent - self.max_exponent);
        self.weight += w;
        let r = w / self.weight;
        let d = energy - self.mean_energy;
        self.mean_energy += r * d;
        self.energy_m2 += w * d * (energy - self.mean_energy);
        self.mean_abs_magnetization += r * (abs_magnetization as f64 - self.mean_abs_magnetization);
    }

    /// Merges another block (Chan's formula for the weighted variance).
    fn merge(&mut self, other: &Moments) {
        if other.weight == 0.0 {
            return;
        }
        let max = self.max_exponent.max(other.max_exponent);
        let (a, b) = (
            self.weight * libm::exp(self.max_exponent - max),
            other.weight * libm::exp(other.max_exponent - max),
        );
        let (m2_a, m2_b) = (
            self.energy_m2 * libm::exp(self.max_exponent - max),
            other.energy_m2 * libm::exp(other.max_exponent - max),
        );
        let weight = a + b;
        let d = other.mean_energy - self.mean_energy;
        self.mean_energy += d * b / weight;
        self.energy_m2 = m2_a + m2_b + d * d * a * b / weight;
        self.mean_abs_magnetization +=
            (other.mean_abs_magnetization - self.mean_abs_magnetization) * b / weight;
        self.weight = weight;
        self.max_exponent = max;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: every state's energy from scratch, two-pass log-sum-exp.
    fn naive(network: &Network, temperature: f64) -> (Vec<f64>, Enumeration) {
        let n = network.len();
        let energies: Vec<f64> = (0..1u64 << n)
            .map(|k| network.energy(&state_of_index(network.kind(), n, k)))
            .collect();
        let exponents: Vec<f64> = energies.iter().map(|e| -e / temperature).collect();
        let max = exponents.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = exponents.iter().map(|x| (x - max).exp()).sum();
        let log_z = max + z.ln();
        let p: Vec<f64> = exponents.iter().map(|x| (x - log_z).exp()).collect();
        let mean_energy: f64 = p.iter().zip(&energies).map(|(p, e)| p * e).sum();
        let energy_variance = p
            .iter()
            .zip(&energies)
            .map(|(p, e)| p * (e - mean_energy).powi(2))
            .sum();
        let mean_abs_magnetization = (0..1u64 << n)
            .map(|k| {
                let m: i64 = state_of_index(network.kind(), n, k)
                    .iter()
                    .map(|&s| i64::from(s))
                    .sum();
                p[k as usize] * m.abs() as f64
            })
            .sum();
        let exact = Enumeration {
            log_z,
            mean_energy,
            energy_variance,
            mean_abs_magnetization,
        };
        (p, exact)
    }

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance * a.abs().max(b.abs()).max(1e-300)
    }

    #[test]
    fn gray_code_enumeration_agrees_with_the_naive_sum_to_1e_12() {
        for kind in SpinKind::ALL {
            for (n, seed) in [(1, 1), (2, 2), (5, 3), (8, 4), (12, 5)] {
                for temperature in [0.5, 1.0, 3.0] {
                    let net = Network::random(n, kind, 1.0, 1.0, seed).unwrap();
                    let (p, reference) = naive(&net, temperature);
                    let exact = enumerate(&net, temperature).unwrap();
                    let label = format!("{kind:?} n={n} T={temperature}");
                    assert!(close(exact.log_z, reference.log_z, 1e-12), "{label}");
                    assert!(
                        close(exact.mean_energy, reference.mean_energy, 1e-12),
                        "{label}"
                    );
                    assert!(
                        close(exact.energy_variance, reference.energy_variance, 1e-10),
                        "{label}"
                    );
                    assert!(
                        close(
                            exact.mean_abs_magnetization,
                            reference.mean_abs_magnetization,
                            1e-12
                        ),
                        "{label}"
                    );
                    let probabilities = state_probabilities(&net, temperature).unwrap();
                    for (a, b) in probabilities.iter().zip(&p) {
                        assert!(close(*a, *b, 1e-12), "{label}: {a} vs {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn exact_correlations_agree_with_the_naive_sums() {
        for kind in SpinKind::ALL {
            let net = Network::random(7, kind, 1.2, 0.8, 9).unwrap();
            let (p, _) = naive(&net, 1.3);
            let exact = exact_correlations(&net, 1.3).unwrap();
            let mut pair = 0;
            for i in 0..7 {
                let mean: f64 = (0..128u64)
                    .map(|k| p[k as usize] * f64::from(state_of_index(kind, 7, k)[i]))
                    .sum();
                assert!((exact.means[i] - mean).abs() < 1e-12);
                for j in i + 1..7 {
                    let c: f64 = (0..128u64)
                        .map(|k| {
                            let s = state_of_index(kind, 7, k);
                            p[k as usize] * f64::from(s[i] * s[j])
                        })
                        .sum();
                    assert!((exact.pairs[pair] - c).abs() < 1e-12);
                    pair += 1;
                }
            }
        }
    }

    #[test]
    fn long_walks_stay_exact_across_many_recomputation_blocks() {
        // 2^16 states: 16 blocks of 4096.
        let net = Network::random(16, SpinKind::Ising, 0.5, 0.5, 21).unwrap();
        let (_, reference) = naive(&net, 0.8);
        let exact = enumerate(&net, 0.8).unwrap();
        assert!(close(exact.log_z, reference.log_z, 1e-12));
        assert!(close(exact.mean_energy, reference.mean_energy, 1e-12));
        assert!(close(
            exact.energy_variance,
            reference.energy_variance,
            1e-10
        ));
    }

    #[test]
    fn infinite_temperature_counts_states_and_zero_temperature_is_refused() {
        let net = Network::random(6, SpinKind::Binary, 1.0, 1.0, 2).unwrap();
        let exact = enumerate(&net, f64::INFINITY).unwrap();
        assert!(close(exact.log_z, 6.0 * std::f64::consts::LN_2, 1e-15));
        assert!(close(exact.mean_abs_magnetization, 3.0, 1e-15));
        let err = enumerate(&net, 0.0).unwrap_err();
        assert!(err.to_string().starts_with("temperature"), "{err}");
        assert!(enumerate(&net, f64::NAN).is_err());
        assert!(state_probabilities(&net, -1.0).is_err());
    }

    #[test]
    fn indices_and_states_correspond() {
        for kind in SpinKind::ALL {
            for k in 0..64 {
                assert_eq!(index_of_state(kind, &state_of_index(kind, 6, k)), k);
            }
        }
        assert_eq!(state_of_index(SpinKind::Ising, 3, 0b101), vec![1, -1, 1]);
    }

    #[test]
    fn too_low_a_temperature_is_refused_with_short_numbers_and_a_temperature_that_passes() {
        // Weights summing to |E| ≤ 8: T = 10⁻³⁰⁰ is refused in a message of a few dozen
        // characters (not 300 digits), and the T it quotes passes while the f64 below fails.
        let mut network = Network::zeros(SpinKind::Ising, 3).unwrap();
        network.set_weight(0, 1, 3.0).unwrap();
        network.set_weight(1, 2, -4.0).unwrap();
        network.set_bias(2, 1.0).unwrap();
        let message = checked_beta(&network, 1e-300).unwrap_err().to_string();
        assert!(
            message.starts_with("temperature: T = 1e-300 is too low") && message.len() < 150,
            "{message}"
        );
        assert!(message.contains("(|E| ≤ 8)"), "{message}");
        let quoted: f64 = message.rsplit("T ≥ ").next().unwrap().parse().unwrap();
        assert!((quoted - 8e-300).abs() <= 1e-15 * quoted, "{message}");
        assert!(checked_beta(&network, quoted).is_ok());
        assert!(checked_beta(&network, quoted.next_down()).is_err());
    }
}
