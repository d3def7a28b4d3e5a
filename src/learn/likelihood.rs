//! Exact likelihood for machines small enough to enumerate (at most 30 units).
//!
//! At temperature T the machine's distribution is P(s) = e^{−E(s)/T} / Z. Its
//! distribution over the visible units is the marginal
//!
//!   p(v) = Σ_h P(v, h) = Z(v) / Z,   Z(v) = Σ_h e^{−E(v, h)/T},
//!
//! so ln p(v) = ln Z(v) − ln Z, with Z(v) a sum over the 2^h hidden states and Z over all
//! 2^n states. For training vectors v⁽¹⁾ … v⁽ᴺ⁾ with empirical distribution p_data:
//!
//! - mean log-likelihood L = (1/N) Σ_d ln p(v⁽ᵈ⁾);
//! - KL(data ‖ model) = Σ_v p_data(v) ln(p_data(v)/p(v)) = −H(p_data) − L (the paper's G);
//! - exact gradient: ∂L/∂w_ij = (⟨s_i s_j⟩_clamped − ⟨s_i s_j⟩_free)/T and
//!   ∂L/∂θ_i = (⟨s_i⟩_clamped − ⟨s_i⟩_free)/T, where "clamped" averages the conditional
//!   expectation E[· | v⁽ᵈ⁾] over the training vectors and "free" is the expectation
//!   under P. These are the learning rule's statistics without sampling noise.
//!
//! States are visited in Gray-code order over the units being summed, so each step flips
//! one unit t: ΔE = −(s_new − s_old)·h_t and every local field moves by w_jt (s_new − s_old),
//! O(n) per state (fields and energy are recomputed from scratch every 4096 states so
//! rounding cannot drift). Sums are log-sum-exp (no overflow; ln Z itself is
//! [`crate::estimate::exact_log_z`]), and expectations are summed in blocks of 4096 states.
//!
//! Cost: ln Z and the free statistics take 2^n states (O(n 2^n) and O(n² 2^n)); each
//! training vector 2^h. Beyond 30 units the functions refuse with an error naming `units`.

use super::{FreePhase, PhaseStatistics, check_patterns, to_kind};
use crate::error::ParamError;
use crate::estimate::exact_log_z;
use crate::estimate::kl::data_distribution;
use crate::exact::enumeration;
use crate::model::Network;

/// Most units the exact likelihood enumerates: 30 (2^30 ≈ 10⁹ states).
pub const MAX_LIKELIHOOD_UNITS: usize = 30;
/// Most visible units [`visible_distribution`] accepts: 24 (2^24 probabilities, 128 MiB).
pub const MAX_DISTRIBUTION_VISIBLE: usize = 24;

/// The exact gradient of the mean log-likelihood L = (1/N) Σ_d ln p(v⁽ᵈ⁾).
#[derive(Debug, Clone, PartialEq)]
pub struct Gradient {
    /// ∂L/∂w_ij = (p_ij − p′_ij)/T for every pair i < j in pair-index order (pairs the mask
    /// forbids included: it is the derivative the weight would have).
    pub weights: Vec<f64>,
    /// ∂L/∂θ_i = (p_i − p′_i)/T.
    pub biases: Vec<f64>,
    /// The exact clamped statistics p_i, p_ij.
    pub clamped: PhaseStatistics,
    /// The exact free statistics p′_i, p′_ij.
    pub free: PhaseStatistics,
}

/// β = 1/T after checking n ≤ 30 and 0 < T ≤ ∞ (and that β|E| stays representable).
fn inverse_temperature(network: &Network, temperature: f64) -> Result<f64, ParamError> {
    enumeration::inverse_temperature(
        network,
        temperature,
        MAX_LIKELIHOOD_UNITS,
        "the exact likelihood",
    )
}

/// Visits every state of the units with `clamp[i] = None` (the others held at their
/// value) in Gray-code order, calling `visit(state, energy)`.
fn gray_walk(network: &Network, clamp: &[Option<i8>], mut visit: impl FnMut(&[i8], f64)) {
    enumeration::gray_walk_clamped(network, clamp, |_, _, state, energy, _| {
        visit(state, energy)
    });
}

/// ln Σ e^{−βE} over the free units' states ([`exact_log_z::log_z_at`]).
fn log_partition(network: &Network, beta: f64, clamp: &[Option<i8>]) -> f64 {
    exact_log_z::log_z_at(network, beta, clamp)
}

/// Exact ⟨s_i⟩ and ⟨s_i s_j⟩ over the free units' states (clamped units fixed), weighted
/// by e^{−βE}/Z_clamp, added into `sums` with weight `scale`.
fn add_conditional_statistics(
    network: &Network,
    beta: f64,
    clamp: &[Option<i8>],
    scale: f64,
    sums: &mut PhaseStatistics,
) {
    let log_z = log_partition(network, beta, clamp);
    enumeration::add_weighted_products(
        network,
        clamp,
        beta,
        log_z,
        scale,
        &mut sums.means,
        &mut sums.pairs,
    );
}

/// The clamp vector holding the visible units (or the first `count` of them) at a 0/1
/// pattern in the network's kind, the rest free.
fn clamp_of(network: &Network, pattern: &[u8], count: usize) -> Vec<Option<i8>> {
    let values = to_kind(network.kind(), &pattern[..count]);
    (0..network.len()).map(|i| values.get(i).copied()).collect()
}

/// ln Z = ln Σ_s e^{−E(s)/T} by enumeration (n ≤ 30, 0 < T < ∞).
pub fn log_z(network: &Network, temperature: f64) -> Result<f64, ParamError> {
    let beta = inverse_temperature(network, temperature)?;
    Ok(log_partition(network, beta, &vec![None; network.len()]))
}

/// ln p(v) = ln Z(v) − ln Z for each 0/1 vector (length = visible units), by enumeration
/// (n ≤ 30, 0 < T < ∞). Vectors are checked like training vectors (field `patterns`).
pub fn log_probabilities(
    network: &Network,
    temperature: f64,
    patterns: &[Vec<u8>],
) -> Result<Vec<f64>, ParamError> {
    let beta = inverse_temperature(network, temperature)?;
    check_patterns(patterns, network.visible())?;
    let log_z = log_partition(network, beta, &vec![None; network.len()]);
    Ok(patterns
        .iter()
        .map(|v| log_partition(network, beta, &clamp_of(network, v, v.len())) - log_z)
        .collect())
}

/// The mean log-likelihood L = (1/N) Σ_d ln p(v⁽ᵈ⁾) of the training vectors.
pub fn mean_log_likelihood(
    network: &Network,
    temperature: f64,
    patterns: &[Vec<u8>],
) -> Result<f64, ParamError> {
    let logs = log_probabilities(network, temperature, patterns)?;
    Ok(logs.iter().sum::<f64>() / logs.len() as f64)
}

/// KL(data ‖ model) = Σ_v p_data(v) ln(p_data(v)/p(v)) in nats (≥ 0, zero exactly when
/// the model's visible distribution equals the data's), by enumeration.
pub fn kl_divergence(
    network: &Network,
    temperature: f64,
    patterns: &[Vec<u8>],
) -> Result<f64, ParamError> {
    check_patterns(patterns, network.visible())?;
    let data = data_distribution(patterns);
    let vectors: Vec<Vec<u8>> = data.iter().map(|(v, _)| v.clone()).collect();
    let logs = log_probabilities(network, temperature, &vectors)?;
    Ok(data
        .iter()
        .zip(&logs)
        .map(|((_, p), log_q)| p * (libm::log(*p) - log_q))
        .sum())
}

/// p(v) for every visible vector v, indexed by Σ_i 2^i v_i over the visible units
/// (n ≤ 30, visible ≤ [`MAX_DISTRIBUTION_VISIBLE`], 0 < T < ∞).
pub fn visible_distribution(network: &Network, temperature: f64) -> Result<Vec<f64>, ParamError> {
    let beta = inverse_temperature(network, temperature)?;
    let visible = network.visible();
    if visible > MAX_DISTRIBUTION_VISIBLE {
        return Err(ParamError::Invalid {
            field: "visible",
            reason: format!(
                "the whole visible distribution has 2^visible entries and takes at most \
                 {MAX_DISTRIBUTION_VISIBLE} visible units, got {visible}"
            ),
        });
    }
    let n = network.len();
    let log_z = log_partition(network, beta, &vec![None; n]);
    let high = network.kind().high();
    let mut p = vec![0.0; 1 << visible];
    gray_walk(network, &vec![None; n], |state, energy| {
        let index = state[..visible]
            .iter()
            .enumerate()
            .filter(|&(_, &s)| s == high)
            .fold(0usize, |index, (i, _)| index | 1 << i);
        p[index] += libm::exp(-beta * energy - log_z);
    });
    Ok(p)
}

/// The exact statistics of both phases: clamped = the average over the training vectors
/// of E[s_i | v], E[s_i s_j | v]; free = the expectations under P (or, with
/// [`FreePhase::Inputs`], the average over the training vectors of the expectations with
/// only the inputs clamped). `samples` counts the training vectors (free: 1 or N).
pub fn exact_statistics(
    network: &Network,
    temperature: f64,
    patterns: &[Vec<u8>],
    free_phase: FreePhase,
) -> Result<(PhaseStatistics, PhaseStatistics), ParamError> {
    let beta = inverse_temperature(network, temperature)?;
    check_patterns(patterns, network.visible())?;
    let n = network.len();
    let weight = 1.0 / patterns.len() as f64;
    let mut clamped = PhaseStatistics::empty(n);
    for v in patterns {
        add_conditional_statistics(
            network,
            beta,
            &clamp_of(network, v, v.len()),
            weight,
            &mut clamped,
        );
    }
    clamped.samples = patterns.len() as u64;
    let mut free = PhaseStatistics::empty(n);
    match free_phase {
        FreePhase::Nothing => {
            add_conditional_statistics(network, beta, &vec![None; n], 1.0, &mut free);
            free.samples = 1;
        }
        FreePhase::Inputs(k) => {
            if !(1..network.visible()).contains(&k) {
                return Err(ParamError::OutOfRange {
                    field: "free phase inputs",
                    value: k as f64,
                    min: 1.0,
                    max: network.visible().saturating_sub(1) as f64,
                });
            }
            for v in patterns {
                add_conditional_statistics(
                    network,
                    beta,
                    &clamp_of(network, v, k),
                    weight,
                    &mut free,
                );
            }
            free.samples = patterns.len() as u64;
        }
    }
    Ok((clamped, free))
}

/// The exact gradient of the mean log-likelihood:
/// ∂L/∂w_ij = (p_ij − p′_ij)/T, ∂L/∂θ_i = (p_i − p′_i)/T (nothing clamped in the free
/// phase).
pub fn exact_gradient(
    network: &Network,
    temperature: f64,
    patterns: &[Vec<u8>],
) -> Result<Gradient, ParamError> {
    let (clamped, free) = exact_statistics(network, temperature, patterns, FreePhase::Nothing)?;
    let weights = clamped
        .pairs
        .iter()
        .zip(&free.pairs)
        .map(|(c, f)| (c - f) / temperature)
        .collect();
    let biases = clamped
        .means
        .iter()
        .zip(&free.means)
        .map(|(c, f)| (c - f) / temperature)
        .collect();
    Ok(Gradient {
        weights,
        biases,
        clamped,
        free,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::enumeration::{enumerate, exact_correlations};
    use crate::model::SpinKind;

    #[test]
    fn log_z_and_free_statistics_agree_with_the_enumeration_module() {
        for kind in SpinKind::ALL {
            let net = Network::random(7, kind, 1.0, 0.5, 4).unwrap();
            let t = 0.9;
            assert!((log_z(&net, t).unwrap() - enumerate(&net, t).unwrap().log_z).abs() < 1e-12);
            let mut free = PhaseStatistics::empty(7);
            add_conditional_statistics(&net, 1.0 / t, &[None; 7], 1.0, &mut free);
            let exact = exact_correlations(&net, t).unwrap();
            for (a, b) in free.pairs.iter().zip(&exact.pairs) {
                assert!((a - b).abs() < 1e-12);
            }
            for (a, b) in free.means.iter().zip(&exact.means) {
                assert!((a - b).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn the_visible_distribution_sums_to_one_and_matches_log_probabilities() {
        let net = Network::random(6, SpinKind::Binary, 1.5, 0.5, 2)
            .unwrap()
            .with_visible(4)
            .unwrap();
        let p = visible_distribution(&net, 1.2).unwrap();
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let v = vec![1, 0, 1, 1];
        let index = 1 + 4 + 8;
        let log_p = log_probabilities(&net, 1.2, &[v]).unwrap()[0];
        assert!((log_p.exp() - p[index]).abs() < 1e-12);
    }

    #[test]
    fn more_than_30_units_is_refused_by_name() {
        let net = Network::zeros(SpinKind::Binary, 31).unwrap();
        let err = log_z(&net, 1.0).unwrap_err();
        assert!(err.to_string().starts_with("units"), "{err}");
        let err = log_z(&Network::zeros(SpinKind::Binary, 3).unwrap(), 0.0).unwrap_err();
        assert!(err.to_string().starts_with("temperature"), "{err}");
    }
}
