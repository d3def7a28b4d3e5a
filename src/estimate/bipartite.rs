//! ln Z of a bipartite network: one whose units split into two groups A and B with no
//! connection (non-zero weight) inside either group, such as a restricted machine saved
//! as a general network. Such a network at temperature T is a restricted machine
//! ([`Rbm`]) in disguise, so its ln Z is exact by [`super::rbm_exact`] when the smaller
//! group has at most [`MAX_EXACT_LAYER`] units, and [`super::rbm_ais`] estimates it when
//! it does not. The machine's parameters (below) must stay within ±10⁶ ([`check_machine`]):
//! the file's ±10⁶ become ±4·10⁶/T for ±1 units, so at a low T (or with large weights) the
//! exact sum falls back to the general enumeration when n ≤ 30, and AIS to the general AIS.
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
use crate::error::{ParamError, TemperatureDomain, check_temperature, number};
use crate::exact::enumeration::MAX_ENUMERATION_UNITS;
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
/// Errors: T not finite and above 0 (field `temperature`); a machine parameter beyond
/// ±10⁶ after dividing by T (field `temperature`, see [`check_machine`]).
pub fn as_rbm(
    network: &Network,
    groups: &Groups,
    temperature: f64,
) -> Result<(Rbm, f64), ParamError> {
    let t = check_temperature(temperature, TemperatureDomain::LogZ)?;
    check_machine(network, groups, t)?;
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
    let bias = |u: usize| bias_at_unit_temperature(network, u) / t;
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

/// Unit u's machine bias at T = 1: d (θ_u + s_low Σ_v w_uv) (module docs).
fn bias_at_unit_temperature(network: &Network, u: usize) -> f64 {
    let kind = network.kind();
    let field: f64 = (0..network.len()).map(|j| network.weight(u, j)).sum();
    kind.span() * (network.bias(u) + f64::from(kind.low()) * field)
}

/// Checks that the restricted machine of `network` at T (finite, above 0) has every
/// weight d²w/T and bias d(θ + s_low Σ w)/T within the machine's ±10⁶ (the file's own
/// ±10⁶ becomes 4·10⁶/T for ±1 units, so a valid file can pass it at a low T). The error
/// names `temperature`, the file's parameter that passes, what it becomes, and the least
/// T at which every parameter fits.
pub fn check_machine(
    network: &Network,
    groups: &Groups,
    temperature: f64,
) -> Result<(), ParamError> {
    let kind = network.kind();
    let d = kind.span();
    // The largest |parameter| at T = 1 and where it comes from.
    let mut largest = 0.0;
    let mut source = None;
    for &v in &groups.larger {
        for &h in &groups.smaller {
            let x = (d * d * network.weight(v, h)).abs();
            if x > largest {
                largest = x;
                source = Some((v.min(h), Some(v.max(h))));
            }
        }
    }
    for u in 0..network.len() {
        let x = bias_at_unit_temperature(network, u).abs();
        if x > largest {
            largest = x;
            source = Some((u, None));
        }
    }
    let limit = Network::MAX_PARAMETER;
    let Some((i, j)) = source else {
        return Ok(());
    };
    let value = largest / temperature;
    if value <= limit {
        return Ok(());
    }
    // The least T with largest / T ≤ limit in f64 (the quotient may round up).
    let mut least = largest / limit;
    while largest / least > limit {
        least = least.next_up();
    }
    let t = number(temperature);
    let value = if value.is_finite() {
        number(value)
    } else {
        "∞ (it overflows an f64)".to_string()
    };
    let what = match (j, kind.low()) {
        (Some(j), _) => format!(
            "the weight {} between units {i} and {j} becomes {}w/T = {}",
            number(network.weight(i, j)),
            if d == 1.0 {
                String::new()
            } else {
                number(d * d)
            },
            value
        ),
        (None, 0) => format!(
            "the bias {} of unit {i} becomes θ/T = {}",
            number(network.bias(i)),
            value
        ),
        (None, _) => format!(
            "unit {i}'s bias {} and weights become {}(θ − Σ_j w_{i}j)/T = {}",
            number(network.bias(i)),
            number(d),
            value
        ),
    };
    Err(ParamError::Invalid {
        field: "temperature",
        reason: format!(
            "at T = {t} {what} in the restricted machine that sums one group of this \
             bipartite network out, beyond that machine's limit of ±{}; it needs T ≥ {}",
            number(limit),
            number(least)
        ),
    })
}

/// Exact ln Z of a bipartite `network` at T by summing the larger group out in closed
/// form and enumerating the smaller ([`super::rbm_exact::log_z`]). `None` when the
/// network is not bipartite, or when the restricted machine at T would have a parameter
/// beyond ±10⁶ ([`check_machine`]) and the network has at most
/// [`MAX_ENUMERATION_UNITS`] = 30 units: the general enumeration of all 2^n states
/// ([`super::log_z::exact_log_z`]) takes those. A bipartite network it cannot take is an
/// error: a smaller group of more than [`MAX_EXACT_LAYER`] = 25 units (field `units`,
/// naming both limits), or a machine parameter beyond ±10⁶ with more than 30 units (field
/// `temperature`, naming the least T that fits). A 784 + 25 unit network (a saved 784-25
/// machine) takes seconds to a minute on two cores. `states` in the facts is 2^|A|, the
/// terms summed; `seconds` is left to the caller.
pub fn exact_log_z(network: &Network, temperature: f64) -> Result<Option<LogZ>, ParamError> {
    let t = check_temperature(temperature, TemperatureDomain::LogZ)?;
    let Some(groups) = groups(network) else {
        return Ok(None);
    };
    let n = network.len();
    let general = n <= MAX_ENUMERATION_UNITS;
    if groups.smaller.len() > MAX_EXACT_LAYER {
        if general {
            return Ok(None);
        }
        return Err(ParamError::Invalid {
            field: "units",
            reason: format!(
                "this network is bipartite with groups of {} and {} units; exact ln Z \
                 enumerates the smaller group, which may have at most {MAX_EXACT_LAYER} units \
                 (and all 2^n states only up to {MAX_ENUMERATION_UNITS} units, got {n}); try \
                 ais, mean-field or sampled",
                groups.smaller.len(),
                groups.larger.len()
            ),
        });
    }
    if let Err(error) = check_machine(network, &groups, t) {
        if general {
            return Ok(None);
        }
        let ParamError::Invalid { field, reason } = error else {
            return Err(error);
        };
        return Err(ParamError::Invalid {
            field,
            reason: format!(
                "{reason} (the enumeration of all 2^n states, which has no such limit, \
                 handles at most {MAX_ENUMERATION_UNITS} units, got {n})"
            ),
        });
    }
    let (rbm, constant) = as_rbm(network, &groups, t)?;
    let value = log_z(&rbm)? + constant;
    finite(LogZ {
        method: LogZMethod::Exact,
        log_z: value,
        stderr: None,
        bound: Bound::Exact,
        temperature,
        units: n,
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
/// network is not bipartite, or when its restricted machine at T would have a parameter
/// beyond ±10⁶ ([`check_machine`]; the general AIS, [`super::log_z::ais_log_z`], takes
/// those). `seconds` is left to the caller.
pub fn ais_log_z_bipartite(
    network: &Network,
    temperature: f64,
    schedule: &AisSchedule,
    runs: u64,
    seed: u64,
) -> Result<Option<LogZ>, ParamError> {
    let t = check_temperature(temperature, TemperatureDomain::LogZ)?;
    let Some(groups) = groups(network) else {
        return Ok(None);
    };
    if check_machine(network, &groups, t).is_err() {
        return Ok(None);
    }
    let (rbm, constant) = as_rbm(network, &groups, t)?;
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

    #[test]
    fn a_machine_beyond_its_bound_names_the_file_s_parameter_and_the_least_temperature() {
        // ±1 units: weight w → 4w/T, unit u's bias → 2(θ_u − Σ_v w_uv)/T; 0/1 units: w/T
        // and θ/T. The quoted least T passes the check, the f64 just below it does not.
        let mut pair = Network::zeros(SpinKind::Ising, 2).unwrap();
        pair.set_weight(0, 1, 1.0).unwrap();
        let g = groups(&pair).unwrap();
        let error = check_machine(&pair, &g, 1e-6).unwrap_err();
        assert_eq!(error.field(), "temperature");
        assert_eq!(
            error.to_string(),
            "temperature: at T = 0.000001 the weight 1 between units 0 and 1 becomes 4w/T = \
             4000000 in the restricted machine that sums one group of this bipartite network \
             out, beyond that machine's limit of ±1000000; it needs T ≥ 0.000004"
        );
        let mut star = Network::zeros(SpinKind::Ising, 4).unwrap();
        let mut binary = Network::zeros(SpinKind::Binary, 2).unwrap();
        for j in 1..4 {
            star.set_weight(0, j, 3e5).unwrap();
        }
        star.set_bias(0, -1e5).unwrap();
        binary.set_weight(0, 1, 0.5).unwrap();
        binary.set_bias(1, 2.0).unwrap();
        for (network, says, least) in [
            (
                &star,
                "unit 0's bias -100000 and weights become 2(θ − Σ_j w_0j)/T",
                2e6,
            ),
            (&binary, "the bias 2 of unit 1 becomes θ/T", 2.0),
        ] {
            let g = groups(network).unwrap();
            let t = least * 0.5e-6;
            let message = check_machine(network, &g, t).unwrap_err().to_string();
            assert!(message.contains(says), "{message}");
            let quoted: f64 = message.rsplit("T ≥ ").next().unwrap().parse().unwrap();
            assert!((quoted - least * 1e-6).abs() <= 1e-15 * quoted, "{message}");
            assert!(check_machine(network, &g, quoted).is_ok(), "{message}");
            assert!(check_machine(network, &g, quoted.next_down()).is_err());
        }
        // Beyond f64: T = 10⁻³²⁰ makes 4w/T infinite, said in words.
        let message = check_machine(&pair, &g, 1e-320).unwrap_err().to_string();
        assert!(message.contains("at T = 1e-320") && message.contains("overflows an f64"));
    }

    #[test]
    fn beyond_the_bound_small_networks_go_to_the_general_routes_and_large_ones_are_refused() {
        // 2 units at T = 10⁻⁶: `None` for exact and AIS (the callers enumerate all states
        // or run the general AIS), and the general enumeration is ln 2 + w/T + ln(1 + e^{−2w/T}).
        let mut pair = Network::zeros(SpinKind::Ising, 2).unwrap();
        pair.set_weight(0, 1, 1.0).unwrap();
        assert!(exact_log_z(&pair, 1e-6).unwrap().is_none());
        let ais = ais_log_z_bipartite(&pair, 1e-6, &AisSchedule::PAGE, 2, 1).unwrap();
        assert!(ais.is_none());
        let general = crate::estimate::log_z::exact_log_z(&pair, 1e-6)
            .unwrap()
            .log_z;
        let closed = 1e6 + core::f64::consts::LN_2;
        assert!(
            (general - closed).abs() <= 1e-15 * closed,
            "{general} vs {closed}"
        );
        // 40 units (a 1 + 39 star): beyond both routes at T = 1, refused naming both limits
        // (the hub's machine bias 2·39·3·10⁵ passes first).
        let mut star = Network::zeros(SpinKind::Ising, 40).unwrap();
        for j in 1..40 {
            star.set_weight(0, j, 3e5).unwrap();
        }
        let error = exact_log_z(&star, 1.0).unwrap_err();
        let message = error.to_string();
        assert_eq!(error.field(), "temperature");
        assert!(
            message.contains("2(θ − Σ_j w_0j)/T = 23400000")
                && message.contains("at most 30 units, got 40"),
            "{message}"
        );
    }
}
