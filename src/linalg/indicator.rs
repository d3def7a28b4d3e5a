//! Products whose left factor is a 0/1 matrix: the sampled states of a restricted
//! machine (the batch V₀, the chains' visible states X and hidden states H).
//!
//! With op(A) ∈ {0, 1}, each entry is a sum of rows of op(B):
//!
//!   c_ij ← β·c_ij + α·s_ij,   s_ij = Σ_{p ∈ S_i} op(B)_pj,   S_i = { p : op(A)_ip = 1 },
//!
//! so an entry costs |S_i| additions and no multiplication, where a dense kernel costs k
//! multiply-adds: binarized MNIST has about 13 % of its pixels on, a hidden layer about
//! half its units. The sum runs in f32 in order of p, exactly as [`super::Kernel::Reference`]
//! sums the dense row (0·b = 0 and 1·b = b are exact, and adding 0 changes no sum that
//! starts at +0), so the result has the reference kernel's bits (tested), whatever the
//! SIMD level (each entry is summed in one lane, in order) and however the rows are
//! split: the module's rounding bound holds with k + 2 replaced by |S_i| + 2. op(B) must
//! be finite (0·∞ would be NaN in the dense product, and is skipped here).
//!
//! The columns of C are taken `CHUNK` at a time so that a chunk of each row's sums stays
//! in registers while the rows of op(B) in S_i stream past.

use super::elementwise::Level;
use super::{Layout, Product};
use std::ops::Range;

/// Columns of C summed at once: 32 f32, eight SIMD128 or four AVX2 registers.
const CHUNK: usize = 32;

/// Rows `rows` of C ← β·C + α·op(A)·op(B) for a 0/1 op(A), written to `c_rows` (those
/// rows of C, dense), at the widest SIMD level the processor has. op(B) must be stored
/// as it enters ([`Layout::AsStored`]): its rows are what is summed. Panics if an entry
/// of op(A) in those rows is neither 0 nor 1, if B is transposed, or if a slice is
/// shorter than its shape needs.
pub fn multiply_indicator_rows(
    c_rows: &mut [f32],
    a: &[f32],
    b: &[f32],
    product: &Product,
    rows: Range<usize>,
) {
    multiply_indicator_rows_at(
        super::elementwise::best_level(),
        c_rows,
        a,
        b,
        product,
        rows,
    );
}

/// [`multiply_indicator_rows`] for all of C.
pub fn multiply_indicator(c: &mut [f32], a: &[f32], b: &[f32], product: &Product) {
    multiply_indicator_rows(c, a, b, product, 0..product.m);
}

/// [`multiply_indicator_rows`] at a chosen SIMD level (the tests force each; panics if the
/// processor lacks it).
pub fn multiply_indicator_rows_at(
    level: Level,
    c_rows: &mut [f32],
    a: &[f32],
    b: &[f32],
    product: &Product,
    rows: Range<usize>,
) {
    assert!(
        product.b == Layout::AsStored,
        "a 0/1 product sums rows of op(B): B must be stored as it enters"
    );
    if !super::check_row_block(c_rows, a, b, product, &rows) {
        return;
    }
    let active = Active::of(a, product, rows);
    sum_rows_at(level, c_rows, &active, b, product);
}

/// The sets S_i of the rows of a product, stored one after the other: row r's indices p
/// (in increasing order) are `indices[starts[r]..starts[r + 1]]`.
struct Active {
    indices: Vec<u32>,
    starts: Vec<usize>,
}

impl Active {
    /// S_i for i in `rows`, from op(A) read as the product says. Panics on an entry that is
    /// neither 0 nor 1.
    fn of(a: &[f32], product: &Product, rows: Range<usize>) -> Active {
        let Product { m, k, .. } = *product;
        let on = |x: f32| {
            assert!(
                x == 0.0 || x == 1.0,
                "a 0/1 product needs op(A) in {{0, 1}}, not {x}"
            );
            x == 1.0
        };
        let mut starts = Vec::with_capacity(rows.len() + 1);
        let mut indices = Vec::new();
        match product.a {
            Layout::AsStored => {
                // Row i of op(A) is contiguous.
                starts.push(0);
                for i in rows {
                    let row = &a[i * k..(i + 1) * k];
                    indices.extend((0..k as u32).filter(|&p| on(row[p as usize])));
                    starts.push(indices.len());
                }
            }
            Layout::Transposed => {
                // Row i of op(A) is column i of the stored k × m matrix: count each row's
                // entries, then place them, p in increasing order.
                let (i0, count) = (rows.start, rows.len());
                let mut sizes = vec![0usize; count + 1];
                for p in 0..k {
                    let stored = &a[p * m + i0..p * m + i0 + count];
                    for (size, &x) in sizes[1..].iter_mut().zip(stored) {
                        *size += usize::from(on(x));
                    }
                }
                for r in 0..count {
                    sizes[r + 1] += sizes[r];
                }
                starts.extend_from_slice(&sizes);
                let mut next = sizes;
                indices.resize(starts[count], 0);
                for p in 0..k {
                    let stored = &a[p * m + i0..p * m + i0 + count];
                    for (r, &x) in stored.iter().enumerate() {
                        if x == 1.0 {
                            indices[next[r]] = p as u32;
                            next[r] += 1;
                        }
                    }
                }
            }
        }
        Active { indices, starts }
    }

    /// S_i of the r-th row.
    fn row(&self, r: usize) -> &[u32] {
        &self.indices[self.starts[r]..self.starts[r + 1]]
    }
}

/// c_ij ← β·c_ij + α·Σ_{p ∈ S_i} b_pj for the rows of `active`, at `level`.
fn sum_rows_at(level: Level, c: &mut [f32], active: &Active, b: &[f32], product: &Product) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        fn avx2(c: &mut [f32], active: &Active, b: &[f32], product: &Product) {
            sum_rows(c, active, b, product)
        }
        #[target_feature(enable = "avx512f")]
        fn avx512(c: &mut [f32], active: &Active, b: &[f32], product: &Product) {
            sum_rows(c, active, b, product)
        }
        match level {
            Level::Baseline => sum_rows(c, active, b, product),
            Level::Avx2 => {
                assert!(std::arch::is_x86_feature_detected!("avx2"));
                // SAFETY: the processor has AVX2 (checked just above).
                unsafe { avx2(c, active, b, product) }
            }
            Level::Avx512 => {
                assert!(std::arch::is_x86_feature_detected!("avx512f"));
                // SAFETY: the processor has AVX-512F (checked just above).
                unsafe { avx512(c, active, b, product) }
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = level;
        sum_rows(c, active, b, product)
    }
}

/// The loop of [`sum_rows_at`]: for each row, [`CHUNK`] columns at a time, the sums in
/// order of p, then c ← β·c + α·s (c unread when β = 0), as the reference kernel does.
#[inline(always)]
fn sum_rows(c: &mut [f32], active: &Active, b: &[f32], product: &Product) {
    let Product { n, alpha, beta, .. } = *product;
    let finish = |c: &mut [f32], s: &[f32]| {
        for (x, &t) in c.iter_mut().zip(s) {
            *x = if beta == 0.0 {
                alpha * t
            } else {
                beta * *x + alpha * t
            };
        }
    };
    let full = n - n % CHUNK;
    for (r, c_row) in c
        .chunks_exact_mut(n)
        .take(active.starts.len() - 1)
        .enumerate()
    {
        let set = active.row(r);
        for j0 in (0..full).step_by(CHUNK) {
            let mut s = [0.0f32; CHUNK];
            for &p in set {
                let from = p as usize * n + j0;
                debug_assert!(from + CHUNK <= b.len());
                // SAFETY: p < k (`Active` holds only such p), j0 + CHUNK ≤ n and
                // b.len() ≥ k·n (asserted by the caller), so the chunk is inside B. (Not a
                // slice: a bounds check that may panic inside this loop made the compiler
                // store the sums to memory at every p instead of keeping them in registers.)
                let b_row = unsafe { &*(b.as_ptr().add(from) as *const [f32; CHUNK]) };
                for (x, &y) in s.iter_mut().zip(b_row) {
                    *x += y;
                }
            }
            finish(&mut c_row[j0..j0 + CHUNK], &s);
        }
        if full < n {
            let mut s = [0.0f32; CHUNK];
            for &p in set {
                let from = p as usize * n + full;
                for (x, &y) in s.iter_mut().zip(&b[from..from + n - full]) {
                    *x += y;
                }
            }
            finish(&mut c_row[full..], &s);
        }
    }
}
