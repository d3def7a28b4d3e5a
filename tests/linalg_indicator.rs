//! Products with a 0/1 left factor (`linalg::indicator`): sums of rows of op(B) give the
//! reference kernel's bits on odd shapes, both layouts of A, every (α, β), every native
//! SIMD level and any block of rows, so the reference kernel's proven rounding bound
//! holds for them too; entries of A other than 0 and 1, and a transposed B, are refused.
//! Every check is exact: none fails by
//! chance.
#![cfg(not(target_arch = "wasm32"))]

mod linalg_checks;

use boltzlab::linalg::elementwise::levels;
use boltzlab::linalg::indicator::multiply_indicator_rows_at;
use boltzlab::linalg::{
    Kernel, Layout, Product, multiply_indicator, multiply_indicator_rows, multiply_with,
};
use boltzlab::rng::seeded_rng;
use linalg_checks::{check_product, values};
use rand::Rng;

/// `n` values 0 or 1, each 1 with probability `density`.
fn indicators(n: usize, density: f64, seed: u64) -> Vec<f32> {
    let mut rng = seeded_rng(seed);
    let t = (density * 4_294_967_296.0) as u64;
    (0..n)
        .map(|_| f32::from(u8::from(u64::from(rng.next_u32()) < t)))
        .collect()
}

/// Shapes below one chunk of 32 columns, across its edge (n = 70: two chunks and 6), over
/// many rows, and the 784-500 update's (m, k, n) for its three products.
const SHAPES: [(usize, usize, usize); 7] = [
    (1, 1, 1),
    (3, 5, 7),
    (5, 9, 70),
    (97, 131, 33),
    (100, 784, 500),
    (100, 500, 784),
    (784, 100, 500),
];

#[test]
fn a_0_1_product_has_the_reference_kernels_bits_at_every_level_and_in_any_row_block() {
    let mut seed = 1;
    for (m, k, n) in SHAPES {
        for a_layout in [Layout::AsStored, Layout::Transposed] {
            for (alpha, beta) in [(1.0, 0.0), (-0.01, 1.0), (0.5, -0.75)] {
                for density in [0.0, 0.13, 0.5, 1.0] {
                    let product =
                        Product::new(m, k, n, a_layout, Layout::AsStored).scaled(alpha, beta);
                    let a = indicators(m * k, density, seed);
                    let b = values(k * n, seed + 1);
                    let c0 = values(m * n, seed + 2);
                    seed += 3;
                    let mut reference = c0.clone();
                    multiply_with(Kernel::Reference, &mut reference, &a, &b, &product, 1);
                    let bits = |c: &[f32]| c.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    for level in levels() {
                        let mut c = c0.clone();
                        multiply_indicator_rows_at(level, &mut c, &a, &b, &product, 0..m);
                        assert_eq!(
                            bits(&c),
                            bits(&reference),
                            "{level:?} {product:?} density {density}"
                        );
                    }
                    // Rows in blocks of 7 (the last ragged): the whole's bits.
                    let mut c = c0.clone();
                    for i0 in (0..m).step_by(7) {
                        let rows = i0..(i0 + 7).min(m);
                        let block = &mut c[i0 * n..rows.end * n];
                        multiply_indicator_rows(block, &a, &b, &product, rows);
                    }
                    assert_eq!(bits(&c), bits(&reference), "row blocks of {product:?}");
                }
            }
        }
    }
}

#[test]
fn the_reference_kernel_those_bits_equal_is_within_the_rounding_bound() {
    // The bound the 0/1 products inherit (checked on general values: it holds for any A).
    let mut seed = 500;
    for (m, k, n) in [(3, 5, 7), (5, 9, 70), (97, 131, 33)] {
        for a_layout in [Layout::AsStored, Layout::Transposed] {
            let product = Product::new(m, k, n, a_layout, Layout::AsStored).scaled(-0.01, 1.0);
            check_product(Kernel::Reference, 1, product, seed);
            seed += 3;
        }
    }
}

#[test]
fn a_0_1_product_with_beta_zero_never_reads_the_old_c() {
    let product = Product::new(5, 9, 70, Layout::Transposed, Layout::AsStored).scaled(2.0, 0.0);
    let (a, b) = (indicators(5 * 9, 0.5, 1), values(9 * 70, 2));
    let mut c = vec![f32::NAN; 5 * 70];
    multiply_indicator(&mut c, &a, &b, &product);
    assert!(c.iter().all(|x| x.is_finite()));
}

#[test]
#[should_panic(expected = "op(A) in {0, 1}, not 0.5")]
fn a_0_1_product_refuses_other_values_of_a() {
    let product = Product::new(2, 3, 4, Layout::AsStored, Layout::AsStored);
    let mut a = indicators(6, 0.5, 1);
    a[4] = 0.5;
    multiply_indicator(&mut [0.0; 8], &a, &values(12, 2), &product);
}

#[test]
#[should_panic(expected = "B must be stored as it enters")]
fn a_0_1_product_refuses_a_transposed_b() {
    let product = Product::new(2, 3, 4, Layout::AsStored, Layout::Transposed);
    multiply_indicator(
        &mut [0.0; 8],
        &indicators(6, 0.5, 1),
        &values(12, 2),
        &product,
    );
}
