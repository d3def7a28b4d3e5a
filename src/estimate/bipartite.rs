//! ln Z of a bipartite network: one whose units split into two groups A and B with no
//! connection (non-zero weight) inside either group, such as a restricted machine saved
//! as a general network. Such a network at temperature T is a restricted machine
//! ([`Rbm`]) in disguise, so its ln Z is exact by [`super::rbm_exact`] when the smaller
//! group has at most [`MAX_EXACT_LAYER`] units, and [`super::rbm_ais`] estimates it when
//! it does not.
//!
//! The groups come from a 2-colouring of the connection graph (breadth first, one
//! component at a time); in each component the smaller colour class joins A, so A is as
//! small as any 2-colouring allows (each component's split is fixed up to swapping).
//!
//! The rewriting: with unit values s = s_low + d·x, x ∈ {0, 1}, d = s_high − s_low,
//!
//!   −E(s)/T = Σ_{a,b} W_ab x_a x_b + Σ_u c_u x_u + C,
//!   W_ab = d² w_ab / T,   c_u = d (θ_u + s_low Σ_v w_uv) / T,
//!   C = (s_low² Σ_{a,b} w_ab + s_low Σ_u θ_u) / T,
//!
//! (sums over the connections a ∈ A, b ∈ B), so ln Z = ln Z_rbm(W, c) + C. For 0/1 units
//! (s_low = 0, d = 1) it is W = w/T, c = θ/T, C = 0; for ±1 units W = 4w/T,
//! c_u = 2(θ_u − Σ_v w_uv)/T, C = (Σ w − Σ θ)/T.

use super::log_z::{Bound, Facts, LogZ, LogZMethod, finite};
use super::rbm_ais::{AisSchedule, ais_log_z};
use super::rbm_exact::{MAX_EXACT_LAYER, log_z};
use crate::error::{ParamError, TemperatureDomain, check_temperature};
use crate::model::Network;
use crate::model::rbm::Rbm;

/// The two groups of a bipartite network, `smaller` (A) no larger than `larger` (B),
/// each in increasing unit order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups {
    pub smaller: Vec<usize>,
    pub larger: Vec<usize>,
}

/// The groups of `network` if it is bipartite with both groups non-empty (at least two
/// units), else `None` (an odd cycle of connections, or a single unit). Connections are
/// the non-zero weights.
pub fn groups(network: &Network) -> Option<Groups> {
    let n = network.len();
    let mut colour: Vec<Option<bool>> = vec![None; n];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for root in 0..n {
        if colour[root].is_some() {
            continue;
        }
        colour[root] = Some(false);
        let mut component = vec![root];
        let mut next = 0;
        while next < component.len() {
            let i = component[next];
            next += 1;
            let c = colour[i].expect("coloured when queued");
            for (j, cj) in colour.iter_mut().enumerate() {
                if j == i || network.weight(i, j) == 0.0 {
                    continue;
                }
                match *cj {
                    None => {
                        *cj = Some(!c);
                        component.push(j);
                    }
                    Some(same) if same == c => return None,
                    Some(_) => {}
                }
            }
        }
        let (first, second): (Vec<usize>, Vec<usize>) =
            component.iter().partition(|&&i| colour[i] == Some(false));
        let (small, large) = if first.len() <= second.len() {
            (first, second)
        } else {
            (second, first)
        };
        a.extend(small);
        b.extend(large);
    }
    if a.is_empty() {
        // No connections at all: any unit may form A.
        a.push(b.pop()?);
    }
    if b.is_empty() {
        return None;
    }
    a.sort_unstable();
    b.sort_unstable();
    if a.len() > b.len() {
        std::mem::swap(&mut a, &mut b);
    }
    Some(Groups {
        smaller: a,
        larger: b,
    })
}

/// The restricted machine of `network` at T (visible layer = the larger group B, hidden
/// layer = the smaller group A) and the constant C with ln Z = ln Z_rbm + C (module docs).
/// Errors: T not finite and above 0 (field `temperature`), parameters beyond the
/// machine's bounds after dividing by T.
pub fn as_rbm(
    network: &Network,
    groups: &Groups,
    temperature: f64,
) -> Result<(Rbm, f64), ParamError> {
    let t = check_temperature(temperature, TemperatureDomain::LogZ)?;
    let kind = network.kind();
    let low = f64::from(kind.low());
    let d = kind.span();
    let (visible, hidden) = (&groups.larger, &groups.smaller);
    let mut weights = Vec::with_capacity(visible.len() * hidden.len());
    let mut edge_sum = 0.0;
    for &v in visible {
        for &h in hidden {
            let w = network.weight(v, h);
            weights.push(d * d * w / t);
            edge_sum += w;
        }
    }
    let bias = |u: usize| {
        let field: f64 = (0..network.len()).map(|j| network.weight(u, j)).sum();
        d * (network.bias(u) + low * field) / t
    };
    let bias_sum: f64 = (0..network.len()).map(|u| network.bias(u)).sum();
    let constant = (low * low * edge_sum + low * bias_sum) / t;
    let rbm = Rbm::new(
        visible.len(),
        hidden.len(),
        weights,
        visible.iter().map(|&u| bias(u)).collect(),
        hidden.iter().map(|&u| bias(u)).collect(),
    )?;
    Ok((rbm, constant))
}

/// Exact ln Z of a bipartite `network` at T by summing the larger group out in closed
/// form and enumerating the smaller ([`super::rbm_exact::log_z`]): `None` when the
/// network is not bipartite or its smaller group has more than [`MAX_EXACT_LAYER`] = 25
/// units. A 784 + 25 unit network (a saved 784-25 machine) takes seconds to a minute on
/// two cores. `states` in the facts is 2^|A|, the terms summed; `seconds` is left to the
/// caller.
pub fn exact_log_z(network: &Network, temperature: f64) -> Result<Option<LogZ>, ParamError> {
    let Some(groups) = groups(network) else {
        return Ok(None);
    };
    if groups.smaller.len() > MAX_EXACT_LAYER {
        return Ok(None);
    }
    let (rbm, constant) = as_rbm(network, &groups, temperature)?;
    let value = log_z(&rbm)? + constant;
    finite(LogZ {
        method: LogZMethod::Exact,
        log_z: value,
        stderr: None,
        bound: Bound::Exact,
        temperature,
        units: network.len(),
        spin: network.kind(),
        facts: Facts::Exact {
            states: 1 << groups.smaller.len(),
        },
        seconds: None,
    })
    .map(Some)
}

/// ln Z of a bipartite `network` at T by the restricted machine's AIS
/// ([`super::rbm_ais::ais_log_z`], the hidden = smaller group summed out, from the
/// uniform base, on `schedule`), `runs` runs on the stream of `seed`: `None` when the
/// network is not bipartite. `seconds` is left to the caller.
pub fn ais_log_z_bipartite(
    network: &Network,
    temperature: f64,
    schedule: &AisSchedule,
    runs: u64,
    seed: u64,
) -> Result<Option<LogZ>, ParamError> {
    let Some(groups) = groups(network) else {
        return Ok(None);
    };
    let (rbm, constant) = as_rbm(network, &groups, temperature)?;
    let base = vec![0.0; rbm.visible()];
    let estimate = ais_log_z(&rbm, &base, schedule, runs, seed)?;
    finite(LogZ {
        method: LogZMethod::Ais,
        log_z: estimate.log_z + constant,
        stderr: Some(estimate.stderr),
        bound: Bound::None,
        temperature,
        units: network.len(),
        spin: network.kind(),
        facts: Facts::Ais {
            runs,
            steps: estimate.steps as u64,
            effective_runs: estimate.effective_runs,
            seed,
        },
        seconds: None,
    })
    .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SpinKind;
    use crate::estimate::exact_log_z;
    use crate::rng::seeded_rng;
    use rand::Rng;

    /// A random bipartite network: units split by `side`, weights and biases uniform in
    /// [−1.5, 1.5) on the allowed pairs.
    fn bipartite(kind: SpinKind, side: &[bool], seed: u64) -> Network {
        let n = side.len();
        let mut rng = seeded_rng(seed);
        let mut uniform = || (rng.next_u32() as f64 / 4294967296.0 - 0.5) * 3.0;
        let mut weights = vec![0.0; n * n];
        for i in 0..n {
            for j in i + 1..n {
                if side[i] != side[j] {
                    let w = uniform();
                    weights[i * n + j] = w;
                    weights[j * n + i] = w;
                }
            }
        }
        let biases = (0..n).map(|_| uniform()).collect();
        Network::new(kind, weights, biases).unwrap()
    }

    #[test]
    fn bipartite_ln_z_equals_enumeration_for_both_unit_kinds_and_temperatures() {
        // Interleaved groups (3 and 6 units), so the colouring must find them.
        let side = [true, false, false, true, false, false, true, false, false];
        for kind in [SpinKind::Binary, SpinKind::Ising] {
            for (seed, t) in [(1, 1.0), (2, 0.7), (3, 2.5)] {
                let network = bipartite(kind, &side, seed);
                let g = groups(&network).unwrap();
                assert_eq!(g.smaller, vec![0, 3, 6]);
                let fast = exact_log_z(&network, t).unwrap().unwrap();
                let brute = exact_log_z::log_z(&network, t, None).unwrap();
                assert!(
                    (fast.log_z - brute).abs() < 1e-10 * brute.abs().max(1.0),
                    "{kind:?} T={t}: {} vs {brute}",
                    fast.log_z
                );
                assert_eq!(fast.facts, Facts::Exact { states: 8 });
            }
        }
    }

    #[test]
    fn an_odd_cycle_is_not_bipartite_and_no_connections_is() {
        let mut triangle = Network::zeros(SpinKind::Binary, 3).unwrap();
        triangle.set_weight(0, 1, 1.0).unwrap();
        triangle.set_weight(1, 2, 1.0).unwrap();
        triangle.set_weight(0, 2, -1.0).unwrap();
        assert!(groups(&triangle).is_none());
        assert!(exact_log_z(&triangle, 1.0).unwrap().is_none());
        let mut free = Network::zeros(SpinKind::Ising, 4).unwrap();
        free.set_bias(2, 0.5).unwrap();
        let z = exact_log_z(&free, 1.0).unwrap().unwrap().log_z;
        let brute = exact_log_z::log_z(&free, 1.0, None).unwrap();
        assert!((z - brute).abs() < 1e-12, "{z} vs {brute}");
        assert!(groups(&Network::zeros(SpinKind::Binary, 1).unwrap()).is_none());
    }

    #[test]
    fn ais_on_a_bipartite_network_is_within_a_few_standard_errors_of_exact() {
        // 5σ: a false failure about once in 10⁶ runs if the error bar is honest.
        let side: Vec<bool> = (0..12).map(|i| i % 3 == 0).collect();
        let network = bipartite(SpinKind::Ising, &side, 9);
        let exact = exact_log_z(&network, 1.3).unwrap().unwrap().log_z;
        let ais = ais_log_z_bipartite(&network, 1.3, &AisSchedule::PAGE, 200, 4)
            .unwrap()
            .unwrap();
        let stderr = ais.stderr.unwrap();
        assert!(
            (ais.log_z - exact).abs() < 5.0 * stderr + 1e-9,
            "{} ± {stderr} vs {exact}",
            ais.log_z
        );
    }
}
