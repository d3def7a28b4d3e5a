//! The chains' visible step of the batch trainer when the last K visible units are a
//! one-of-K label group ([`super::BatchTrainer::with_label_group`]): the image's units are
//! independent bits as before, the group is one draw from a softmax over its inputs.

use crate::linalg::elementwise::{add_bias_sigmoid, exp, sample_below};

/// The chains' visible step with a label group, for each row (V + K values) of `pv`, which
/// holds the inputs (H Wᵀ) of the row's units on entry:
///
///   image units: p_i = σ(x_i + a_i), s_i = [u_i < p_i] (as [`sample_below`]),
///   label group: q_y = e^{x_y + c_y − m} / Σ_{y′} e^{x_y′ + c_y′ − m} (m the largest),
///                s = e_y for the first y with u < q_0 + … + q_y (the last if none),
///
/// with u the 24-bit uniform of the group's first draw. On return `pv` holds p and q, `x`
/// the sampled row. `draws` has one 32-bit number per unit.
pub(crate) fn sample_rows_with_label_group(
    pv: &mut [f32],
    draws: &[u32],
    x: &mut [f32],
    biases: &[f32],
    labels: usize,
) {
    const SCALE: f32 = 1.0 / 16_777_216.0;
    let units = biases.len();
    let pixels = units - labels;
    let (image_biases, label_biases) = biases.split_at(pixels);
    let rows = pv
        .chunks_exact_mut(units)
        .zip(draws.chunks_exact(units))
        .zip(x.chunks_exact_mut(units));
    for ((p, r), s) in rows {
        let (p_image, q) = p.split_at_mut(pixels);
        let (s_image, s_label) = s.split_at_mut(pixels);
        add_bias_sigmoid(p_image, image_biases);
        sample_below(p_image, &r[..pixels], s_image);
        let mut largest = f32::NEG_INFINITY;
        for (x, &c) in q.iter_mut().zip(label_biases) {
            *x += c;
            largest = largest.max(*x);
        }
        let mut sum = 0.0;
        for x in q.iter_mut() {
            *x = exp(*x - largest);
            sum += *x;
        }
        let u = (r[pixels] >> 8) as f32 * SCALE;
        q.iter_mut().for_each(|x| *x /= sum);
        let mut cumulative = 0.0;
        let mut chosen = labels - 1;
        for (y, &x) in q.iter().enumerate().take(labels - 1) {
            cumulative += x;
            if u < cumulative {
                chosen = y;
                break;
            }
        }
        for (y, s) in s_label.iter_mut().enumerate() {
            *s = f32::from(u8::from(y == chosen));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::seeded_rng;
    use rand::Rng;

    /// The χ² quantile exceeded with probability 10⁻⁶ for k degrees of freedom (Wilson–
    /// Hilferty, as tests/common/mod.rs): a test against it fails by chance once in a
    /// million runs.
    fn chi_square_threshold(k: usize) -> f64 {
        let k = k as f64;
        let a = 2.0 / (9.0 * k);
        k * libm::pow(1.0 - a + 4.753_424_308_822_899 * libm::sqrt(a), 3.0)
    }

    #[test]
    fn the_label_group_is_one_draw_from_the_softmax_and_the_image_units_are_bits() {
        // Rows of 2 image units and 4 labels, the same inputs in every row.
        let (pixels, labels, rows) = (2, 4, 200_000);
        let biases = [0.3f32, -0.2, 0.5, -1.0, 0.0, 1.5];
        let inputs = [0.1f32, 0.4, 0.25, 0.75, -0.5, 0.0];
        let units = pixels + labels;
        let mut pv: Vec<f32> = inputs.iter().copied().cycle().take(rows * units).collect();
        let mut rng = seeded_rng(7);
        let draws: Vec<u32> = (0..rows * units).map(|_| rng.next_u32()).collect();
        let mut x = vec![0.0f32; rows * units];
        sample_rows_with_label_group(&mut pv, &draws, &mut x, &biases, labels);
        // The softmax in f64.
        let logits: Vec<f64> = (pixels..units)
            .map(|i| f64::from(inputs[i]) + f64::from(biases[i]))
            .collect();
        let z: f64 = logits.iter().map(|&l| libm::exp(l)).sum();
        let q: Vec<f64> = logits.iter().map(|&l| libm::exp(l) / z).collect();
        let mut counts = vec![0u64; labels];
        for (row, p) in x.chunks(units).zip(pv.chunks(units)) {
            let group = &row[pixels..];
            assert_eq!(group.iter().sum::<f32>(), 1.0, "exactly one label on");
            counts[group.iter().position(|&s| s == 1.0).unwrap()] += 1;
            for (y, &qy) in q.iter().enumerate() {
                assert!(
                    (f64::from(p[pixels + y]) - qy).abs() < 1e-6,
                    "q stored in pv"
                );
            }
            for i in 0..pixels {
                let sigma = 1.0 / (1.0 + libm::exp(-f64::from(inputs[i] + biases[i])));
                assert!((f64::from(p[i]) - sigma).abs() < 1e-6);
            }
        }
        let n = rows as f64;
        let chi2: f64 = counts
            .iter()
            .zip(&q)
            .map(|(&c, &qy)| (c as f64 - n * qy) * (c as f64 - n * qy) / (n * qy))
            .sum();
        // False-failure rate 10⁻⁶ (the threshold's quantile).
        assert!(
            chi2 < chi_square_threshold(labels - 1),
            "χ² = {chi2}: {counts:?} against {q:?}"
        );
        // The image units are drawn from their own draws as independent bits.
        let on = x.chunks(units).filter(|row| row[0] == 1.0).count() as f64 / n;
        let p0 = 1.0 / (1.0 + libm::exp(-f64::from(inputs[0] + biases[0])));
        // Five standard errors: fails by chance about once in 1.7 million runs.
        assert!((on - p0).abs() < 5.0 * libm::sqrt(p0 * (1.0 - p0) / n));
    }
}
