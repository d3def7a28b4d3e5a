//! Exact ln Z at a few arithmetic operations per state: enumeration with a tabled suffix.
//!
//! Split the units into a prefix a (the first p) and a suffix b (the last k ≤ 14). Then
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

use super::enumeration::{MAX_ENUMERATION_UNITS, inverse_temperature};
use crate::error::ParamError;
use crate::model::Network;

/// Units in the tabled suffix (2^14 entries: 128 KiB per table, in cache).
const SUFFIX_UNITS: usize = 14;
/// Prefix steps between recomputations of the incremental sums from scratch.
const RECOMPUTE_EVERY: u64 = 1 << 12;

/// Exact ln Z = ln Σ_s e^{−E(s)/T} of a network of up to 30 units, by enumeration with a
/// tabled suffix (see the module docs); agrees with [`super::enumeration::enumerate`] to
/// rounding. 0 < T ≤ ∞.
pub fn log_z(network: &Network, temperature: f64) -> Result<f64, ParamError> {
    let beta = inverse_temperature(network, temperature, MAX_ENUMERATION_UNITS, "ln Z")?;
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
    let (mut largest, mut scaled_sum) = (f64::NEG_INFINITY, 0.0);
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
        let l = log_weight + libm::log(inner);
        // Streaming log-sum-exp: Σ e^{l} = e^{largest} · scaled_sum.
        if l > largest {
            scaled_sum = scaled_sum * libm::exp(largest - l) + 1.0;
            largest = l;
        } else {
            scaled_sum += libm::exp(l - largest);
        }
    }
    Ok(largest + libm::log(scaled_sum))
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
                    let tabled = log_z(&network, t).unwrap();
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
            let tabled = log_z(&network, t).unwrap();
            assert!(
                (plain - tabled).abs() < 1e-9 * plain.abs(),
                "{plain} {tabled}"
            );
        }
    }

    #[test]
    fn tabled_log_z_refuses_what_enumeration_refuses() {
        let network = Network::random(31, SpinKind::Ising, 1.0, 0.0, 1).unwrap();
        assert!(log_z(&network, 1.0).is_err());
        let small = Network::random(4, SpinKind::Ising, 1.0, 0.0, 1).unwrap();
        for t in [0.0, -1.0, f64::NAN] {
            assert!(log_z(&small, t).is_err());
        }
    }
}
