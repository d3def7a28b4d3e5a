//! A hand-blocked SIMD128 f32 product for wasm: C ← β·C + α·op(A)·op(B) (see the parent
//! module for the shapes and the rounding bound).
//!
//! Blocking (Goto and van de Geijn's scheme, one thread):
//! - k is cut into blocks of [`KC`], n into blocks of [`NC`], m into blocks of [`MC`];
//! - for each (n, k) block, op(B)'s block is packed into panels of 8 columns, each panel
//!   kc × 8 values stored row after row (`8·p + c`), zero-padded to 8 columns;
//! - for each m block, op(A)'s block is packed into panels of 4 rows, each kc × 4 values
//!   stored column after column (`4·p + r`), zero-padded to 4 rows;
//! - the micro-kernel multiplies one A panel by one B panel into a 4 × 8 tile held in eight
//!   f32x4 accumulators: for each p, four splats of A, two loads of B, eight mul + add
//!   (no fused multiply-add: plain SIMD128 has none).
//!
//! Both layouts of A and of B pack into the same panels, so every layout pair runs the same
//! micro-kernel. Edge tiles (m mod 4, n mod 8) are computed whole on the zero padding and
//! only their valid entries are written. Each entry's sum runs in one lane in order of p
//! within a k block; the blocks' sums are added to C in order:
//!
//!   first block: c ← β·c + α·s₁ (c not read when β = 0), later blocks: c ← c + α·s_b,
//!
//! so each product term passes through at most k + 2 roundings and the parent module's
//! bound γ_{k+2}·(|α|·Σ|a||b| + |β||c|) holds.

use core::arch::wasm32::{
    f32x4_add, f32x4_mul, f32x4_splat, v128, v128_load, v128_load32_splat, v128_store,
};

use super::Product;

/// Rows of the micro-kernel's tile (an A panel's height).
const MR: usize = 4;
/// Columns of the micro-kernel's tile (a B panel's width: two f32x4).
const NR: usize = 8;
/// The k block: an A panel (4·KC floats) and a B panel (8·KC floats) stay in L1.
const KC: usize = 256;
/// The m block (a multiple of MR): the packed A block (MC·KC floats) stays in L2.
const MC: usize = 128;
/// The n block (a multiple of NR): the packed B block (KC·NC floats).
const NC: usize = 512;

/// C ← β·C + α·op(A)·op(B) with the blocked SIMD128 kernel. The caller has checked the
/// slices' lengths and that m, n > 0.
pub(super) fn multiply(c: &mut [f32], a: &[f32], b: &[f32], product: &Product) {
    let Product {
        m,
        k,
        n,
        alpha,
        beta,
        ..
    } = *product;
    if k == 0 {
        scale(&mut c[..m * n], beta);
        return;
    }
    let (ars, acs) = product.a_strides();
    let (brs, bcs) = product.b_strides();
    let mut packed_a = vec![0.0f32; MC * KC];
    let mut packed_b = vec![0.0f32; KC * NC];
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            // The first k block applies β to the old C; later blocks add to it.
            let beta_block = if pc == 0 { beta } else { 1.0 };
            pack_b(&mut packed_b, b, brs, bcs, pc, kc, jc, nc);
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                pack_a(&mut packed_a, a, ars, acs, ic, mc, pc, kc);
                for jr in (0..nc).step_by(NR) {
                    let bp = &packed_b[jr * kc..(jr + NR) * kc];
                    let cols = NR.min(nc - jr);
                    for ir in (0..mc).step_by(MR) {
                        let ap = &packed_a[ir * kc..(ir + MR) * kc];
                        let rows = MR.min(mc - ir);
                        let tile = micro_kernel(ap, bp, kc);
                        let at = (ic + ir) * n + jc + jr;
                        store_tile(&mut c[at..], n, &tile, rows, cols, alpha, beta_block);
                    }
                }
            }
        }
    }
}

/// c ← β·c + α·0 for k = 0: β·c, or 0 when β = 0 (the old C unread).
fn scale(c: &mut [f32], beta: f32) {
    for x in c {
        *x = if beta == 0.0 { 0.0 } else { beta * *x + 0.0 };
    }
}

/// Packs op(B)[pc..pc+kc][jc..jc+nc] (op(B)_pj at b[p·rs + j·cs]) into panels of 8
/// columns: panel q holds op(B)_{pc+p, jc+8q+c} at `q·8·kc + 8·p + c`, zero past nc.
#[allow(clippy::too_many_arguments)]
fn pack_b(
    out: &mut [f32],
    b: &[f32],
    rs: usize,
    cs: usize,
    pc: usize,
    kc: usize,
    jc: usize,
    nc: usize,
) {
    for (q, j0) in (0..nc).step_by(NR).enumerate() {
        let panel = &mut out[q * NR * kc..(q + 1) * NR * kc];
        let cols = NR.min(nc - j0);
        if cs == 1 && cols == NR {
            // Rows of op(B) are contiguous: eight values per p.
            for p in 0..kc {
                let from = (pc + p) * rs + jc + j0;
                panel[NR * p..NR * p + NR].copy_from_slice(&b[from..from + NR]);
            }
        } else if rs == 1 {
            // Columns of op(B) are contiguous: read each along p.
            for c in 0..NR {
                if c < cols {
                    let col = &b[(jc + j0 + c) * cs + pc..][..kc];
                    for (p, &x) in col.iter().enumerate() {
                        panel[NR * p + c] = x;
                    }
                } else {
                    (0..kc).for_each(|p| panel[NR * p + c] = 0.0);
                }
            }
        } else {
            for p in 0..kc {
                for c in 0..NR {
                    panel[NR * p + c] = if c < cols {
                        b[(pc + p) * rs + (jc + j0 + c) * cs]
                    } else {
                        0.0
                    };
                }
            }
        }
    }
}

/// Packs op(A)[ic..ic+mc][pc..pc+kc] (op(A)_ip at a[i·rs + p·cs]) into panels of 4 rows:
/// panel q holds op(A)_{ic+4q+r, pc+p} at `q·4·kc + 4·p + r`, zero past mc.
#[allow(clippy::too_many_arguments)]
fn pack_a(
    out: &mut [f32],
    a: &[f32],
    rs: usize,
    cs: usize,
    ic: usize,
    mc: usize,
    pc: usize,
    kc: usize,
) {
    for (q, i0) in (0..mc).step_by(MR).enumerate() {
        let panel = &mut out[q * MR * kc..(q + 1) * MR * kc];
        let rows = MR.min(mc - i0);
        if rs == 1 && rows == MR {
            // Columns of op(A) are contiguous: four values per p.
            for p in 0..kc {
                let from = (pc + p) * cs + ic + i0;
                panel[MR * p..MR * p + MR].copy_from_slice(&a[from..from + MR]);
            }
        } else if cs == 1 {
            // Rows of op(A) are contiguous: read each along p.
            for r in 0..MR {
                if r < rows {
                    let row = &a[(ic + i0 + r) * rs + pc..][..kc];
                    for (p, &x) in row.iter().enumerate() {
                        panel[MR * p + r] = x;
                    }
                } else {
                    (0..kc).for_each(|p| panel[MR * p + r] = 0.0);
                }
            }
        } else {
            for p in 0..kc {
                for r in 0..MR {
                    panel[MR * p + r] = if r < rows {
                        a[(ic + i0 + r) * rs + (pc + p) * cs]
                    } else {
                        0.0
                    };
                }
            }
        }
    }
}

/// The 4 × 8 tile s_rc = Σ_{p<kc} A_{rp}·B_{pc} of one A panel (4·kc) and one B panel
/// (8·kc), the sum of each entry in one lane in order of p (mul, then add).
#[inline(always)]
fn micro_kernel(ap: &[f32], bp: &[f32], kc: usize) -> [v128; 8] {
    assert!(ap.len() >= MR * kc && bp.len() >= NR * kc);
    let zero = f32x4_splat(0.0);
    let mut acc = [zero; 8];
    let (pa, pb) = (ap.as_ptr(), bp.as_ptr());
    for p in 0..kc {
        // SAFETY: p < kc, so the reads 4p..4p+4 of A's panel and 8p..8p+8 of B's panel
        // are inside the slices (asserted above); v128 loads need no alignment in wasm.
        unsafe {
            let b0 = v128_load(pb.add(NR * p) as *const v128);
            let b1 = v128_load(pb.add(NR * p + 4) as *const v128);
            let a = pa.add(MR * p);
            let a0 = v128_load32_splat(a as *const u32);
            let a1 = v128_load32_splat(a.add(1) as *const u32);
            let a2 = v128_load32_splat(a.add(2) as *const u32);
            let a3 = v128_load32_splat(a.add(3) as *const u32);
            acc[0] = f32x4_add(acc[0], f32x4_mul(a0, b0));
            acc[1] = f32x4_add(acc[1], f32x4_mul(a0, b1));
            acc[2] = f32x4_add(acc[2], f32x4_mul(a1, b0));
            acc[3] = f32x4_add(acc[3], f32x4_mul(a1, b1));
            acc[4] = f32x4_add(acc[4], f32x4_mul(a2, b0));
            acc[5] = f32x4_add(acc[5], f32x4_mul(a2, b1));
            acc[6] = f32x4_add(acc[6], f32x4_mul(a3, b0));
            acc[7] = f32x4_add(acc[7], f32x4_mul(a3, b1));
        }
    }
    acc
}

/// Writes a tile into C (row stride n, `c` starting at the tile's corner): c ← β·c + α·s
/// (c unread when β = 0) for its first `rows` × `cols` entries.
fn store_tile(
    c: &mut [f32],
    n: usize,
    tile: &[v128; 8],
    rows: usize,
    cols: usize,
    alpha: f32,
    beta: f32,
) {
    if rows == MR && cols == NR {
        let (va, vb) = (f32x4_splat(alpha), f32x4_splat(beta));
        for r in 0..MR {
            let row = &mut c[r * n..r * n + NR];
            for h in 0..2 {
                let s = f32x4_mul(va, tile[2 * r + h]);
                // SAFETY: `row` holds 8 floats, so 4h..4h+4 is inside it.
                unsafe {
                    let at = row.as_mut_ptr().add(4 * h) as *mut v128;
                    let v = if beta == 0.0 {
                        s
                    } else {
                        f32x4_add(f32x4_mul(vb, v128_load(at)), s)
                    };
                    v128_store(at, v);
                }
            }
        }
    } else {
        let mut s = [0.0f32; MR * NR];
        for (q, &v) in tile.iter().enumerate() {
            // SAFETY: q < 8, so 4q..4q+4 is inside the 32 floats of `s`.
            unsafe { v128_store(s.as_mut_ptr().add(4 * q) as *mut v128, v) };
        }
        for r in 0..rows {
            for col in 0..cols {
                let x = &mut c[r * n + col];
                let t = alpha * s[r * NR + col];
                *x = if beta == 0.0 { t } else { beta * *x + t };
            }
        }
    }
}
