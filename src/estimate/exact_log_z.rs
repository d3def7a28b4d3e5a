//! Exact ln Z by enumeration, with or without clamped units: the one place the engine sums
//! e^{−E(s)/T} over every state (n ≤ 30 free units).
//!
//!   ln Z_c = ln Σ_{s: s_i = c_i where clamped} e^{−E(s)/T}
//!
//! [`log_z`] is the entry point (it checks its input); [`log_z_at`] is the same sum for a
//! β its caller has checked. With nothing clamped the sum takes the tabled route below, a
//! few arithmetic operations per state; with clamps it walks the free units' states in
//! Gray-code order, one flip and O(n) field updates per state
//! (`crate::exact::enumeration::gray_walk_clamped`), summed by [`LogSumExp`].
//!
//! The tabled route: split the units into a prefix a (the first p) and a suffix b (the
//! last k ≤ 14). Then
//!
//!   E(a, b) = E_P(a) + E_S(b) − Σ_j b_j f_j(a),   f_j(a) = Σ_{i<p} w_{i,j} a_i,
//!
//! where E_P and E_S hold each part's own couplings and biases. With b_j = s_low + span·β_j
//! (β_j ∈ {0, 1} the bit of unit j) and x_j = span·f_j/T,
//!
//!   Z = Σ_a e^{−E_P(a)/T + s_low Σ_j f_j/T} · Σ_b t(b) Π_{j: β_j = 1} e^{x_j},
//!   t(b) = e^{−E_S(b)/T}.
//!
//! t is computed once (2^k exponentials). For each prefix (visited in Gray-code order, the
//! fields f_j and E_P updated incrementally) the inner sum needs only the k factors e^{x_j}:
//! their 2^k subset products are built by doubling (one multiply per entry) and dotted with
//! t (one multiply-add per entry): about three floating-point operations per state and no
//! exponential. Each unit's two factors are scaled so the larger is exactly 1 (the scale
//! goes into the prefix's log weight), so nothing overflows; prefixes are combined by a
//! streaming log-sum-exp.

use crate::error::ParamError;
use crate::exact::enumeration::{
    MAX_ENUMERATION_UNITS, checked_beta, gray_walk_clamped, inverse_temperature,
};
use crate::log_sum_exp::LogSumExp;
use crate::model::Network;

/// Units in the tabled suffix (2^14 entries: 128 KiB per table, in cache).
const SUFFIX_UNITS: usize = 14;
/// Prefix steps between recomputations of the incremental sums from scratch.
const RECOMPUTE_EVERY: u64 = 1 << 12;

/// Exact ln Z = ln Σ_s e^{−E(s)/T} of a network, or with `clamp` the sum over the states
/// of the units with `clamp[i] = None`, the others held at their value (±1 or 0/1 as the
/// network's kind). Checks: at most 30 free units (30 units when nothing is clamped, an
/// error naming `units`), a clamp of n entries each a value of the network's kind
/// (`clamp`), 0 < T ≤ ∞ with β|E| representable (`temperature`). Unclamped, it agrees with
/// [`crate::exact::enumeration::enumerate`] to rounding.
pub fn log_z(
    network: &Network,
    temperature: f64,
    clamp: Option<&[Option<i8>]>,
) -> Result<f64, ParamError> {
    let Some(clamp) = clamp else {
        let beta = inverse_temperature(network, temperature, MAX_ENUMERATION_UNITS, "ln Z")?;
        return Ok(tabled_log_z(network, beta));
    };
    let n = network.len();
    if clamp.len() != n {
        return Err(ParamError::Invalid {
            field: "clamp",
            reason: format!("needs one entry per unit ({n}), got {}", clamp.len()),
        });
    }
    let kind = network.kind();
    if let Some(i) = clamp
        .iter()
        .position(|c| c.is_some_and(|v| v != kind.low() && v != kind.high()))
    {
        return Err(ParamError::Invalid {
            field: "clamp",
            reason: format!(
                "unit {i} is clamped to {}, not a value of {} units",
                clamp[i].unwrap_or_default(),
                kind.name()
            ),
        });
    }
    let free = clamp.iter().filter(|c| c.is_none()).count();
    if free > MAX_ENUMERATION_UNITS {
        return Err(ParamError::Invalid {
            field: "units",
            reason: format!(
                "ln Z by enumeration handles at most {MAX_ENUMERATION_UNITS} free units \
                 (2^{MAX_ENUMERATION_UNITS} states), got {free}"
            ),
        });
    }
    let beta = checked_beta(network, temperature)?;
    Ok(log_z_at(network, beta, clamp))
}

/// [`log_z`] at β = 1/T for a caller that has checked β (0 ≤ β < ∞, β|E| representable),
/// the clamp (n entries) and the number of free units: nothing clamped takes the tabled
/// route, otherwise the free units' states are walked in Gray-code order and summed by
/// [`LogSumExp`].
pub fn log_z_at(network: &Network, beta: f64, clamp: &[Option<i8>]) -> f64 {
    if clamp.iter().all(Option::is_none) {
        return tabled_log_z(network, beta);
    }
    let mut sum = LogSumExp::new();
    gray_walk_clamped(network, clamp, |_, _, _, energy, _| {
        sum.push(-beta * energy)
    });
    sum.value()
}

/// The tabled route for β (module docs).
fn tabled_log_z(network: &Network, beta: f64) -> f64 {
    let n = network.len();
    let k = n.min(SUFFIX_UNITS);
    let p = n - k;
    let kind = network.kind();
    let (low, span) = (f64::from(kind.low()), kind.span());
    let value = |bit: u64| low + span * bit as f64;

    // t(b) = e^{−β (E_S(b) − min E_S)} over the suffix's 2^k states.
    let suffix_energy: Vec<f64> = (0..1u64 << k)
        .map(|b| {
            let v = |j: usize| value(b >> j & 1);
            let mut energy = 0.0;
            for j in 0..k {
                let row = network.weight_row(p + j);
                let pairs: f64 = (j + 1..k).map(|l| row[p + l] * v(l)).sum();
                energy -= v(j) * (pairs + network.bias(p + j));
            }
            energy
        })
        .collect();
    let lowest = suffix_energy.iter().cloned().fold(f64::INFINITY, f64::min);
    let table: Vec<f64> = suffix_energy
        .iter()
        .map(|e| libm::exp(-beta * (e - lowest)))
        .collect();

    // Prefix state, its energy E_P, its local fields (within the prefix) and the fields
    // f_j it puts on the suffix.
    let mut a = vec![low; p];
    let mut prefix_field = vec![0.0; p];
    let mut suffix_field = vec![0.0; k];
    let mut prefix_energy = 0.0;
    let recompute = |a: &[f64], prefix_field: &mut [f64], suffix_field: &mut [f64]| -> f64 {
        for (i, h) in prefix_field.iter_mut().enumerate() {
            let row = network.weight_row(i);
            *h = (0..p).map(|l| row[l] * a[l]).sum::<f64>() + network.bias(i);
        }
        for (j, f) in suffix_field.iter_mut().enumerate() {
            let row = network.weight_row(p + j);
            *f = (0..p).map(|i| row[i] * a[i]).sum();
        }
        // E_P = −½ Σ_i a_i (h_i − θ_i) − Σ_i θ_i a_i.
        (0..p)
            .map(|i| -0.5 * a[i] * (prefix_field[i] - network.bias(i)) - network.bias(i) * a[i])
            .sum()
    };
    prefix_energy = if p > 0 {
        recompute(&a, &mut prefix_field, &mut suffix_field)
    } else {
        prefix_energy
    };

    let mut products = vec![0.0; 1 << k];
    // Σ over prefixes of e^{ln weight + ln inner sum}.
    let mut prefixes = LogSumExp::new();
    for step in 0..1u64 << p {
        if step > 0 {
            let i = step.trailing_zeros() as usize;
            let delta = if a[i] == low { span } else { -span };
            a[i] += delta;
            if step % RECOMPUTE_EVERY == 0 {
                prefix_energy = recompute(&a, &mut prefix_field, &mut suffix_field);
            } else {
                // ΔE_P = −Δa_i · h_i (zero diagonal: h_i does not depend on a_i).
                prefix_energy -= delta * prefix_field[i];
                let row = network.weight_row(i);
                for (h, w) in prefix_field.iter_mut().zip(&row[..p]) {
                    *h += w * delta;
                }
                for (f, w) in suffix_field.iter_mut().zip(&row[p..]) {
                    *f += w * delta;
                }
            }
        }
        // Subset products Π_{β_j = 1} e^{x_j}, each unit's pair scaled to max 1.
        let mut log_weight = -beta * (prefix_energy + lowest);
        products[0] = 1.0;
        let mut size = 1;
        for &f in &suffix_field {
            let x = beta * span * f;
            let m = x.max(0.0);
            log_weight += beta * low * f + m;
            let (high_factor, low_factor) = (libm::exp(x - m), libm::exp(-m));
            let (lower, upper) = products[..2 * size].split_at_mut(size);
            for (l, u) in lower.iter_mut().zip(upper.iter_mut()) {
                *u = *l * high_factor;
                *l *= low_factor;
            }
            size *= 2;
        }
        let inner = dot(&products, &table);
        prefixes.push(log_weight + libm::log(inner));
    }
    prefixes.value()
}

/// Σ x_i y_i with four partial sums (so the compiler can use vector lanes).
fn dot(x: &[f64], y: &[f64]) -> f64 {
    let mut partial = [0.0; 4];
    let (xc, yc) = (x.chunks_exact(4), y.chunks_exact(4));
    let tail: f64 = xc
        .remainder()
        .iter()
        .zip(yc.remainder())
        .map(|(a, b)| a * b)
        .sum();
    for (a, b) in xc.zip(yc) {
        for lane in 0..4 {
            partial[lane] += a[lane] * b[lane];
        }
    }
    partial.iter().sum::<f64>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::enumeration::enumerate;
    use crate::model::SpinKind;

    #[test]
    fn tabled_log_z_agrees_with_plain_enumeration_to_1e_9() {
        for kind in SpinKind::ALL {
            for n in [1, 2, 5, 13, 14, 15, 17, 20] {
                for (seed, t) in [(1, 0.3), (2, 1.0), (3, 5.0), (4, f64::INFINITY)] {
                    let network = Network::random(n, kind, 1.0, 0.7, seed).unwrap();
                    let plain = enumerate(&network, t).unwrap().log_z;
                    let tabled = log_z(&network, t, None).unwrap();
                    let scale = plain.abs().max(1.0);
                    assert!(
                        (plain - tabled).abs() < 1e-9 * scale,
                        "{kind:?} n={n} T={t}: {plain} vs {tabled}"
                    );
                }
            }
        }
    }

    #[test]
    fn tabled_log_z_handles_strong_couplings_at_low_temperature() {
        // βw up to ~100: the scaled factors must neither overflow nor lose the sum.
        let network = Network::sherrington_kirkpatrick(18, 5).unwrap();
        for t in [0.02, 0.05] {
            let plain = enumerate(&network, t).unwrap().log_z;
            let tabled = log_z(&network, t, None).unwrap();
            assert!(
                (plain - tabled).abs() < 1e-9 * plain.abs(),
                "{plain} {tabled}"
            );
        }
    }

    #[test]
    fn tabled_log_z_refuses_what_enumeration_refuses() {
        let network = Network::random(31, SpinKind::Ising, 1.0, 0.0, 1).unwrap();
        assert!(log_z(&network, 1.0, None).is_err());
        let small = Network::random(4, SpinKind::Ising, 1.0, 0.0, 1).unwrap();
        for t in [0.0, -1.0, f64::NAN] {
            assert!(log_z(&small, t, None).is_err());
        }
    }
}
