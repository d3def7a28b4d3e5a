//! Dense f32 matrix products, the work of batch learning: one API, natively and in wasm.
//!
//! Every product here is
//!
//!   C ← β·C + α·op(A)·op(B),   op(X) = X or Xᵀ,
//!
//! with op(A) of shape m × k, op(B) of shape k × n and C of shape m × n, all stored
//! row-major and dense ([`Product`] says the shape, the layouts, α and β). With β = 0 the
//! old C is never read (it may hold anything, even NaN).
//!
//! Kernels ([`Kernel`]):
//! - [`Kernel::Fast`]: the `gemm` crate. Natively it picks AVX-512, AVX2+FMA or scalar
//!   micro-kernels at run time and splits C's blocks over up to `threads` threads
//!   (rayon); in wasm it runs SIMD128 kernels on one thread (the crate's
//!   `wasm-simd128-enable` feature; without it they are scalar, about 4× slower).
//! - `Kernel::Simd128` (wasm with `simd128` only, which .cargo/config.toml enables): a
//!   hand-blocked kernel (`simd128.rs`): op(A) and op(B) packed into panels of 4 rows
//!   and 8 columns whatever their layouts, blocks of 256 in k, a 4 × 8 tile of f32x4
//!   mul + add (no fused multiply-add and no relaxed-simd), one thread.
//! - [`Kernel::Reference`]: a plain triple loop (row of A times rows of B, f32 sums in
//!   order of p), the yardstick and the fallback for tiny products.
//!
//! [`multiply`] takes the triple loop under [`SMALL_PRODUCT`] multiply-adds and
//! [`LARGE_PRODUCT_KERNEL`] above it: `gemm` natively, `Kernel::Simd128` in wasm, where
//! it measured faster than `gemm`'s SIMD128 kernels side by side (docs/speed.md).
//! [`use_for_large_products`] switches that choice, process-wide, for such measurements.
//!
//! Rounding. Each entry is a sum of k products accumulated in f32 (in whatever order and
//! with whatever fused multiply-adds the kernel uses), so against the exact value
//!
//!   |ĉ_ij − c_ij| ≤ γ_{k+2}·(|α|·Σ_p |a_ip||b_pj| + |β||c_ij|),   γ_n = n·u/(1 − n·u),
//!
//! u = 2⁻²⁴ (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1: any order of
//! summation; a fused multiply-add only removes roundings). The tests check every kernel
//! against an f64 product within this bound.
//!
//! Determinism. A kernel's result depends on the kernel, the machine's SIMD level and
//! (natively) nothing else: `gemm` splits C, not the sum over k, between threads, so the
//! same inputs give the same bits on 1 or 2 threads (tested in tests/linalg.rs); the wasm
//! hand kernel sums each entry in one lane in a fixed order (see `simd128.rs`). Native
//! and wasm kernels sum in different orders, with and without FMA: their results agree
//! within the bound above, not bit for bit.
//!
//! Splitting by hand. [`multiply_rows`] computes a block of C's rows with the whole
//! product's kernel, with the bits those rows have in the whole product when the block
//! keeps the whole's path ([`splits_like_the_whole`]); [`ThreadPair`] runs two halves of
//! some work on the caller's thread and one persistent worker. The batch trainer uses
//! both to split an update over two threads.
//!
//! Products with a 0/1 left factor (sampled states) have their own kernel,
//! [`indicator`]: sums of rows of op(B), with the reference kernel's bits.
//!
//! This module imports nothing of the crate: it is a leaf. [`elementwise`] holds the f32
//! work between the products (σ, sampling against uniforms, column means).

use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};

pub use indicator::{multiply_indicator, multiply_indicator_rows};
#[cfg(all(target_arch = "wasm32", target_feature = "atomics"))]
pub use pair::wasm_helper;
pub use pair::{ThreadPair, page_threads};

pub mod elementwise;
pub mod exp64;
pub mod indicator;
mod pair;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;

/// How a stored matrix enters the product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// op(X) = X: stored as it enters (row-major).
    AsStored,
    /// op(X) = Xᵀ: stored transposed (row-major X, so op(X) is read column by column).
    Transposed,
}

/// The shape and scalars of C ← β·C + α·op(A)·op(B): op(A) is m × k, op(B) is k × n.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Product {
    /// Rows of C and op(A).
    pub m: usize,
    /// The inner dimension: columns of op(A), rows of op(B).
    pub k: usize,
    /// Columns of C and op(B).
    pub n: usize,
    /// How A is stored: m × k (as stored) or k × m (transposed).
    pub a: Layout,
    /// How B is stored: k × n (as stored) or n × k (transposed).
    pub b: Layout,
    /// α, the factor of the product.
    pub alpha: f32,
    /// β, the factor of the old C (0: C is overwritten, never read).
    pub beta: f32,
}

impl Product {
    /// C = op(A)·op(B) (α = 1, β = 0).
    pub fn new(m: usize, k: usize, n: usize, a: Layout, b: Layout) -> Product {
        Product {
            m,
            k,
            n,
            a,
            b,
            alpha: 1.0,
            beta: 0.0,
        }
    }

    /// The same product with C ← β·C + α·op(A)·op(B).
    pub fn scaled(self, alpha: f32, beta: f32) -> Product {
        Product {
            alpha,
            beta,
            ..self
        }
    }

    /// A's (row stride, column stride) as op(A) is read: element (i, p) of op(A) is at
    /// i·rs + p·cs.
    fn a_strides(&self) -> (usize, usize) {
        match self.a {
            Layout::AsStored => (self.k, 1),
            Layout::Transposed => (1, self.m),
        }
    }

    /// B's (row stride, column stride) as op(B) is read.
    fn b_strides(&self) -> (usize, usize) {
        match self.b {
            Layout::AsStored => (self.n, 1),
            Layout::Transposed => (1, self.k),
        }
    }

    /// The multiply-adds: m·k·n.
    pub fn work(&self) -> u64 {
        (self.m * self.k * self.n) as u64
    }
}

/// Which code computes a product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// The `gemm` crate's blocked SIMD kernels (threads natively).
    Fast,
    /// The plain triple loop.
    Reference,
    /// The hand-blocked 4 × 8 SIMD128 f32 kernel (wasm with `simd128` only; one thread).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    Simd128,
}

/// The kernel [`multiply`] uses by default for products of at least [`SMALL_PRODUCT`]
/// multiply-adds: natively `gemm` ([`Kernel::Fast`]); in wasm with SIMD128 the hand
/// kernel (`Kernel::Simd128`), which measures faster there (docs/speed.md).
pub const LARGE_PRODUCT_KERNEL: Kernel = large_product_kernel();

const fn large_product_kernel() -> Kernel {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        Kernel::Simd128
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        Kernel::Fast
    }
}

/// The kernel [`multiply`] uses for large products, process-wide (a number of
/// [`Kernel::code`]); [`LARGE_PRODUCT_KERNEL`] until [`use_for_large_products`] changes it.
static LARGE: AtomicU8 = AtomicU8::new(LARGE_PRODUCT_KERNEL.code());

/// Makes [`multiply`] (and so the batch trainer) use `kernel` for products of at least
/// [`SMALL_PRODUCT`] multiply-adds, process-wide, and returns the kernel it used before.
/// For side-by-side measurements; results differ between kernels only within the rounding
/// bound of the module's doc.
pub fn use_for_large_products(kernel: Kernel) -> Kernel {
    Kernel::from_code(LARGE.swap(kernel.code(), Ordering::Relaxed))
}

impl Kernel {
    /// A number for the kernel (stored in an atomic).
    const fn code(self) -> u8 {
        match self {
            Kernel::Fast => 0,
            Kernel::Reference => 1,
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            Kernel::Simd128 => 2,
        }
    }

    /// The kernel of a [`Kernel::code`].
    fn from_code(code: u8) -> Kernel {
        match code {
            1 => Kernel::Reference,
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            2 => Kernel::Simd128,
            _ => Kernel::Fast,
        }
    }
}

/// Products smaller than this many multiply-adds use [`Kernel::Reference`] in
/// [`multiply`]: below it the blocked kernels' packing costs more than it saves (measured
/// on the 64-16 machine's 100 × 64 × 16 products).
pub const SMALL_PRODUCT: u64 = 1 << 14;

/// C ← β·C + α·op(A)·op(B) with the kernel that serves the shape (see [`SMALL_PRODUCT`]),
/// on up to `threads` threads (natively; wasm uses one). Panics if a slice is shorter
/// than its shape needs.
pub fn multiply(c: &mut [f32], a: &[f32], b: &[f32], product: &Product, threads: usize) {
    multiply_with(kernel_for(product), c, a, b, product, threads);
}

/// The kernel [`multiply`] takes for `product` (by its whole size).
pub fn kernel_for(product: &Product) -> Kernel {
    if product.work() < SMALL_PRODUCT {
        Kernel::Reference
    } else {
        Kernel::from_code(LARGE.load(Ordering::Relaxed))
    }
}

/// Rows `rows` of C ← β·C + α·op(A)·op(B), written to `c_rows` (those rows of C, (i₁ −
/// i₀)·n values), with the kernel [`multiply`] takes for the whole product: the whole
/// product's A and B, whatever their layouts. Each entry is computed as it is in the
/// whole product (the kernels split neither the sum over k nor its blocks by rows), so
/// the parts of a split give the whole's bits (tested in tests/batch_threads.rs). In wasm
/// only the whole range is accepted (one thread there). Panics if a slice is shorter than
/// its shape needs or the range is past m.
pub fn multiply_rows(
    c_rows: &mut [f32],
    a: &[f32],
    b: &[f32],
    product: &Product,
    rows: Range<usize>,
    threads: usize,
) {
    if !check_row_block(c_rows, a, b, product, &rows) {
        return;
    }
    if rows == (0..product.m) {
        multiply(c_rows, a, b, product, threads);
        return;
    }
    match kernel_for(product) {
        Kernel::Reference => reference_rows(c_rows, a, b, product, rows),
        Kernel::Fast => fast_rows(c_rows, a, b, product, rows, threads),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => panic!("in wasm products are not split by rows"),
    }
}

/// Panics unless `rows` lies within the product's m rows and the slices hold what those
/// rows need (C: the block's rows, A and B: the whole product's); whether there is
/// anything to compute (some rows and columns).
fn check_row_block(
    c_rows: &[f32],
    a: &[f32],
    b: &[f32],
    product: &Product,
    rows: &Range<usize>,
) -> bool {
    let Product { m, k, n, .. } = *product;
    assert!(
        rows.start <= rows.end && rows.end <= m,
        "rows {rows:?} of {m}"
    );
    assert!(
        c_rows.len() >= rows.len() * n,
        "C needs {}×{n} values",
        rows.len()
    );
    assert!(a.len() >= m * k, "A needs {m}×{k} values");
    assert!(b.len() >= k * n, "B needs {k}×{n} values");
    !rows.is_empty() && n > 0
}

/// Whether rows `rows` of `product`, computed by [`multiply_rows`], take the whole
/// product's path in every kernel and so give its bits: n > 64 and at least 8 rows (or
/// the whole).
pub fn splits_like_the_whole(product: &Product, rows: &Range<usize>) -> bool {
    *rows == (0..product.m) || (product.n > 64 && rows.len() >= 8)
}

/// [`multiply`] with a chosen kernel (the tests force each one).
pub fn multiply_with(
    kernel: Kernel,
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    product: &Product,
    threads: usize,
) {
    let Product { m, k, n, .. } = *product;
    assert!(c.len() >= m * n, "C needs {m}×{n} values");
    assert!(a.len() >= m * k, "A needs {m}×{k} values");
    assert!(b.len() >= k * n, "B needs {k}×{n} values");
    if m == 0 || n == 0 {
        return;
    }
    match kernel {
        Kernel::Reference => reference(c, a, b, product),
        Kernel::Fast => fast(c, a, b, product, threads),
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Kernel::Simd128 => simd128::multiply(c, a, b, product),
    }
}

/// The plain loop: c_ij ← β c_ij + α Σ_p op(A)_ip op(B)_pj, the sum in f32 in order of p.
fn reference(c: &mut [f32], a: &[f32], b: &[f32], product: &Product) {
    reference_rows(c, a, b, product, 0..product.m);
}

/// [`reference`] for rows `rows` of C, written to `c` (those rows only).
fn reference_rows(c: &mut [f32], a: &[f32], b: &[f32], product: &Product, rows: Range<usize>) {
    let Product {
        k, n, alpha, beta, ..
    } = *product;
    let (ars, acs) = product.a_strides();
    let (brs, bcs) = product.b_strides();
    for (r, i) in rows.enumerate() {
        let row = &mut c[r * n..(r + 1) * n];
        for (j, cij) in row.iter_mut().enumerate() {
            let mut sum = 0.0f32;
            for p in 0..k {
                sum += a[i * ars + p * acs] * b[p * brs + j * bcs];
            }
            *cij = if beta == 0.0 {
                alpha * sum
            } else {
                beta * *cij + alpha * sum
            };
        }
    }
}

/// The `gemm` crate: dst ← α_g·dst + β_g·lhs·rhs (its names; read_dst = false ignores
/// α_g and the old dst).
fn fast(c: &mut [f32], a: &[f32], b: &[f32], product: &Product, threads: usize) {
    fast_rows(c, a, b, product, 0..product.m, threads);
}

/// [`fast`] for rows `rows` of C, written to `c` (those rows only). `gemm` blocks the sum
/// over k by k alone (its `kernel_params`: kc from k and the caches) and computes each
/// entry as one chain of fused multiply-adds in order of p within a block, so a row of C
/// has the same bits whichever rows are computed with it, as long as the part takes the
/// same path as the whole: `gemm` has other paths for m ≤ 1 (a matrix-vector product),
/// m·n ≤ 256 and m, n ≤ 64 (other blocking), so a split keeps n > 64 and at least 8 rows
/// in every part ([`splits_like_the_whole`]).
fn fast_rows(
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    product: &Product,
    rows: Range<usize>,
    threads: usize,
) {
    let Product {
        k, n, alpha, beta, ..
    } = *product;
    let (ars, acs) = product.a_strides();
    let (brs, bcs) = product.b_strides();
    let parallelism = parallelism(threads);
    // SAFETY: the asserts in `multiply_with` / `multiply_rows` keep every index the
    // strides reach inside the slices: C's rows are dense (row stride n), op(A)'s row i
    // reaches i·rs + (k−1)·cs < m·k for i < m, op(B) reaches (k−1)·rs + (n−1)·cs < k·n;
    // C does not alias A or B (&mut).
    unsafe {
        gemm::gemm(
            rows.len(),
            n,
            k,
            c.as_mut_ptr(),
            1,
            n as isize,
            beta != 0.0,
            a.as_ptr().add(rows.start * ars),
            acs as isize,
            ars as isize,
            b.as_ptr(),
            bcs as isize,
            brs as isize,
            beta,
            alpha,
            false,
            false,
            false,
            parallelism,
        );
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn parallelism(threads: usize) -> gemm::Parallelism {
    if threads > 1 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    }
}

#[cfg(target_arch = "wasm32")]
fn parallelism(_threads: usize) -> gemm::Parallelism {
    gemm::Parallelism::None
}

/// The threads the machine offers (1 in wasm): the default for natively threaded work.
pub fn available_threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::thread::available_parallelism().map_or(1, usize::from)
    }
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
}

/// The bound on |ĉ_ij − c_ij| of the module's doc for one entry: γ_{k+2}·(|α|·Σ_p
/// |a_ip||b_pj| + |β||c_ij|), given `magnitude` = |α|·Σ_p |a_ip||b_pj| + |β||c_ij|.
pub fn rounding_bound(k: usize, magnitude: f64) -> f64 {
    let u = f64::from(f32::EPSILON) / 2.0;
    let nu = (k + 2) as f64 * u;
    nu / (1.0 - nu) * magnitude
}
