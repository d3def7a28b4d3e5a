//! Exact results for the two-dimensional Ising model, to check simulations against.
//!
//! Everything here is a closed form (or a finite product) for the nearest-neighbour Ising
//! model on the square lattice in zero field: spins s = ±1, E(s) = −Σ_⟨ij⟩ s_i s_j,
//! J = k_B = 1, β = 1/T and K = βJ = 1/T.
//!
//! - Onsager's infinite-lattice results per spin: energy u(T), spontaneous magnetization
//!   m(T) (Yang) and specific heat c(T), through the complete elliptic integrals
//!   [`elliptic_k`] and [`elliptic_e`] (computed by the arithmetic–geometric mean).
//! - Kaufman's exact partition function of the finite n × m periodic lattice, with its
//!   energy and specific heat as analytic derivatives, all in log space (no overflow even
//!   for 1024 × 1024).
//! - The whole 2 × 2 periodic lattice in closed form, and Beale's low-order coefficients of
//!   the exact density of states.
//!
//! Lattice convention for the finite lattices: `n` is the number of **columns** (spins per
//! row, the direction the transfer matrix acts along) and `m` the number of **rows** (the
//! power of the transfer matrix); N = nm. Boundaries are periodic in both directions and the
//! bonds are (x, y)–(x+1 mod n, y) and (x, y)–(x, y+1 mod m), so there are always exactly
//! 2N bonds. With this convention a direction of length 2 carries doubled bonds and a
//! direction of length 1 carries self-bonds (s·s = 1, a constant factor e^K per site);
//! Kaufman's formula is exact for every n, m ≥ 1 under it (checked against enumeration in
//! the tests). Z is symmetric under n ↔ m.
//!
//! Domain: temperatures are finite and positive (other inputs give NaN). Below T ≈ 0.003
//! (K > 350) the intermediate sinh(2K) overflows; the functions are meant for T ≳ 0.01.
//! Accuracy is close to machine precision except where noted on a function (Kaufman's
//! energy and specific heat lose digits at very low or very high T: all three Kaufman values
//! are good to 1e-8 relative only between [`KAUFMAN_MIN_TEMPERATURE`] and
//! [`KAUFMAN_MAX_TEMPERATURE`], the range `boltzlab exact --kaufman` accepts).
//!
//! Note on the specific heat: the form often printed (e.g. in textbooks),
//! (2/π)(K coth 2K)² {2K₁ − 2E₁ − (1 − tanh² 2K)[π/2 + (2 tanh² 2K − 1)K₁]}, is not du/dT;
//! differentiating Onsager's u gives a factor 2 on the last term, see
//! [`onsager_specific_heat_per_spin`] (checked against a numerical derivative).

use crate::error::ParamError;
use std::f64::consts::{FRAC_PI_2, LN_2, PI};

/// Critical temperature of the square lattice, T_c = 2 / ln(1 + √2) = 2.269185314213022…
/// (the temperature where sinh(2/T_c) = 1).
pub const CRITICAL_TEMPERATURE: f64 = 2.269_185_314_213_022;

/// Critical coupling K_c = 1/T_c = ln(1 + √2) / 2 = 0.4406867935097715…
pub const CRITICAL_COUPLING: f64 = 0.440_686_793_509_771_5;

/// K = 1/T for a finite positive temperature, NaN otherwise.
fn coupling(t: f64) -> f64 {
    if t > 0.0 && t.is_finite() {
        1.0 / t
    } else {
        f64::NAN
    }
}

// ---------------------------------------------------------------------------------------
// Complete elliptic integrals
// ---------------------------------------------------------------------------------------

/// K(k), K(k) − E(k) and K(k) − π/2 from one arithmetic–geometric mean, the two
/// differences without cancellation (both are sums of non-negative terms).
struct Agm {
    k: f64,
    k_minus_e: f64,
    k_minus_half_pi: f64,
}

/// The AGM for modulus `modulus` ∈ [0, 1] with its complement k' = √(1 − k²) supplied by
/// the caller (who can often compute it more accurately than √(1 − k²)).
///
/// a₀ = 1, b₀ = k', c₀ = k; a_{j+1} = (a_j + b_j)/2, b_{j+1} = √(a_j b_j),
/// c_{j+1} = (a_j − b_j)/2 = c_j² / (4 a_{j+1}); then K = π / (2 a_∞),
/// K − E = K Σ_{j≥0} 2^{j−1} c_j², and K − π/2 = (π/2)(1 − a_∞)/a_∞ with 1 − a_j and
/// 1 − b_j carried along exactly (1 − b_{j+1} = (d + e − de)/(1 + b_{j+1}) for
/// d = 1 − a_j, e = 1 − b_j).
fn agm(modulus: f64, complement: f64) -> Agm {
    if complement == 0.0 {
        return Agm {
            k: f64::INFINITY,
            k_minus_e: f64::INFINITY,
            k_minus_half_pi: f64::INFINITY,
        };
    }
    let (mut a, mut b) = (1.0_f64, complement);
    let (mut one_minus_a, mut one_minus_b) = (0.0_f64, modulus * modulus / (1.0 + complement));
    let mut c = modulus;
    let mut weight = 0.5;
    let mut sum = weight * c * c;
    // c_j falls quadratically once a and b are close and then underflows to 0: about 8
    // iterations for moderate k, about 20 for k' = 1e-300. The cap is never reached.
    for _ in 0..200 {
        if c == 0.0 {
            break;
        }
        let a_next = 0.5 * (a + b);
        let b_next = (a * b).sqrt();
        c = c * c / (4.0 * a_next);
        let d = 0.5 * (one_minus_a + one_minus_b);
        one_minus_b = (one_minus_a + one_minus_b - one_minus_a * one_minus_b) / (1.0 + b_next);
        one_minus_a = d;
        a = a_next;
        b = b_next;
        weight *= 2.0;
        sum += weight * c * c;
    }
    let k = FRAC_PI_2 / a;
    Agm {
        k,
        k_minus_e: k * sum,
        k_minus_half_pi: FRAC_PI_2 * one_minus_a / a,
    }
}

/// √(1 − k²) computed as √((1 − k)(1 + k)), for |k| ≤ 1.
fn complement_of(k: f64) -> f64 {
    let k = k.abs();
    ((1.0 - k) * (1.0 + k)).sqrt()
}

/// Complete elliptic integral of the first kind in terms of the **modulus** k (not the
/// parameter m = k²): K(k) = ∫₀^{π/2} dφ / √(1 − k² sin²φ) = π / (2 AGM(1, √(1 − k²))).
///
/// Defined for |k| ≤ 1; K(±1) = +∞ and |k| > 1 (or NaN) gives NaN.
pub fn elliptic_k(k: f64) -> f64 {
    if k.is_nan() || k.abs() > 1.0 {
        return f64::NAN;
    }
    agm(k.abs(), complement_of(k)).k
}

/// Complete elliptic integral of the second kind in terms of the **modulus** k:
/// E(k) = ∫₀^{π/2} √(1 − k² sin²φ) dφ = K(k) · (1 − Σ_{j≥0} 2^{j−1} c_j²), with c_j the
/// AGM sequence of [`elliptic_k`] (c₀ = k).
///
/// Defined for |k| ≤ 1; E(±1) = 1 and |k| > 1 (or NaN) gives NaN.
pub fn elliptic_e(k: f64) -> f64 {
    if k.is_nan() || k.abs() > 1.0 {
        return f64::NAN;
    }
    if k.abs() == 1.0 {
        return 1.0;
    }
    let r = agm(k.abs(), complement_of(k));
    r.k - r.k_minus_e
}

// ---------------------------------------------------------------------------------------
// Onsager: the infinite lattice
// ---------------------------------------------------------------------------------------

/// Onsager's elliptic modulus κ = 2 sinh 2K / cosh² 2K after the ascending Landen
/// transformation κ = 2√q/(1 + q), q = min(sinh² 2K, 1/sinh² 2K), so that
/// K₁(κ) = (1 + q) K(q). The formulas in q have no cancellation at low or high T.
struct Landen {
    /// K = 1/T.
    coupling: f64,
    /// coth 2K.
    coth: f64,
    /// q = 1/sinh²2K below T_c, sinh²2K above (q = 1 exactly at T_c).
    q: f64,
    /// T < T_c (sinh 2K > 1).
    ordered: bool,
    agm: Agm,
}

fn landen(t: f64) -> Landen {
    let coupling = coupling(t);
    let s = libm::sinh(2.0 * coupling);
    let ordered = s > 1.0;
    let q = if ordered { 1.0 / (s * s) } else { s * s };
    let agm = agm(q, ((1.0 - q) * (1.0 + q)).sqrt());
    Landen {
        coupling,
        coth: 1.0 / libm::tanh(2.0 * coupling),
        q,
        ordered,
        agm,
    }
}

/// Onsager's internal energy per spin of the infinite lattice,
/// u(T) = −coth 2K · [1 + (2/π)(2 tanh² 2K − 1) K₁(κ)], κ = 2 sinh 2K / cosh² 2K,
/// K = 1/T, K₁ = [`elliptic_k`].
///
/// Evaluated through the Landen form (1 + q) K(q) of K₁(κ), so it stays accurate at low
/// and high T; u(T_c) = −√2 (the product (2 tanh² 2K − 1) K₁(κ) → 0 there).
/// u → −2 as T → 0 and u ≈ −2K as T → ∞. NaN unless 0 < T < ∞.
pub fn onsager_energy_per_spin(t: f64) -> f64 {
    let l = landen(t);
    if l.q == 1.0 {
        return -l.coth;
    }
    let bracket = if l.ordered {
        // (2 tanh² 2K − 1) K₁(κ) = (1 − q) K(q).
        1.0 + (2.0 / PI) * (1.0 - l.q) * l.agm.k
    } else {
        // (2 tanh² 2K − 1) K₁(κ) = (q − 1) K(q), so 1 + (2/π)(q − 1)K(q)
        // = (2/π)[q K(q) − (K(q) − π/2)], both terms ≥ 0 and of different orders.
        (2.0 / PI) * (l.q * l.agm.k - l.agm.k_minus_half_pi)
    };
    -l.coth * bracket
}

/// Spontaneous magnetization per spin of the infinite lattice (Onsager–Yang),
/// m(T) = (1 − sinh⁻⁴ 2K)^{1/8} for T < T_c and 0 for T ≥ T_c, K = 1/T.
///
/// m → 1 as T → 0 and m ~ (T_c − T)^{1/8} as T → T_c⁻. NaN unless 0 < T < ∞.
pub fn onsager_magnetization_per_spin(t: f64) -> f64 {
    let l = landen(t);
    if l.coupling.is_nan() {
        return f64::NAN;
    }
    if !l.ordered {
        return 0.0;
    }
    // 1 − sinh⁻⁴ 2K = 1 − q² = (1 − q)(1 + q).
    libm::pow((1.0 - l.q) * (1.0 + l.q), 0.125)
}

/// Onsager's specific heat per spin of the infinite lattice, c = du/dT:
///
/// c(T) = (4/π) (K coth 2K)² · { K₁(κ) − E₁(κ) − (1 − tanh² 2K) [π/2 + (2 tanh² 2K − 1) K₁(κ)] },
///
/// with κ = 2 sinh 2K / cosh² 2K, K = 1/T, K₁ = [`elliptic_k`], E₁ = [`elliptic_e`].
/// (The frequently printed form (2/π)(K coth 2K)² {2K₁ − 2E₁ − (1 − tanh² 2K)[…]} lacks
/// a factor 2 on the last term and is not du/dT: it is 33% high at T = 2 and decays like
/// 8K²e^{−4K} instead of 64K²e^{−8K} as T → 0.)
///
/// Evaluated after the Landen transformation κ = 2√q/(1 + q), where the brace equals
/// 2X/(1 + q) with X = 2(K − E) + q(K − π/2) + q²K below T_c (q = sinh⁻² 2K) and
/// X = (K − π/2) + 2(K − E) + qK above (q = sinh² 2K), K, E at modulus q: all terms are
/// non-negative, so c keeps full relative accuracy down to c ≈ 64K²e^{−8K} at low T.
///
/// c diverges logarithmically at T_c, c ≈ (8/π)K_c² ln(1/|1 − T/T_c|) + O(1): this returns
/// `f64::INFINITY` when `t == CRITICAL_TEMPERATURE` (or whenever sinh(2/T) rounds to exactly
/// 1); the neighbouring doubles give large finite values (≈ 17.5). NaN unless 0 < T < ∞.
pub fn onsager_specific_heat_per_spin(t: f64) -> f64 {
    let l = landen(t);
    if l.coupling.is_nan() {
        return f64::NAN;
    }
    if t == CRITICAL_TEMPERATURE || l.q == 1.0 {
        return f64::INFINITY;
    }
    let (q, a) = (l.q, &l.agm);
    let x = if l.ordered {
        2.0 * a.k_minus_e + q * a.k_minus_half_pi + q * q * a.k
    } else {
        a.k_minus_half_pi + 2.0 * a.k_minus_e + q * a.k
    };
    let kc = l.coupling * l.coth;
    (4.0 / PI) * kc * kc * x / (1.0 + q)
}

// ---------------------------------------------------------------------------------------
// Kaufman: the finite periodic lattice
// ---------------------------------------------------------------------------------------

/// Lowest temperature at which [`kaufman_log_z`], [`kaufman_energy_per_spin`] and
/// [`kaufman_specific_heat_per_spin`] are all good to 1e-8 relative: the specific heat's
/// documented low-T error bound 1e-16·e^{6/T} is 2.8e-9 at T = 0.35 (measured against
/// enumeration on lattices up to 4 × 5: ≤ 2e-10). Below it the specific heat is a small
/// difference of rounded numbers (at T = 0.05 it comes out ~1e-32 where the truth is ~1e-65).
pub const KAUFMAN_MIN_TEMPERATURE: f64 = 0.35;

/// Highest temperature at which the three Kaufman values are all good to 1e-8 relative: the
/// energy's and specific heat's documented high-T error bound ε·T² is 5.5e-9 at T = 5000
/// (measured against enumeration up to 4 × 5: ≤ 1e-9 at T = 3000, ≤ 1e-8 at 10⁴). Above it
/// N coth 2K ≈ N/2K cancels against the mode sums down to ⟨E⟩ ≈ −2N tanh K and nothing
/// is left (at T = 10⁹ the energy is 30× too large, at 10²⁰ it is −8192 per spin).
pub const KAUFMAN_MAX_TEMPERATURE: f64 = 5000.0;

/// ln Z of the n × m torus and its first two derivatives in K (= β).
struct KaufmanLogZ {
    log_z: f64,
    d_log_z: f64,
    d2_log_z: f64,
}

/// Running sums of ln f(x_k), d ln f/dK and d² ln f/dK² over a product of factors.
#[derive(Default, Clone, Copy)]
struct LogProduct {
    log: f64,
    d1: f64,
    d2: f64,
}

/// One of Z₁…Z₄ as e^{scale} · (F, F', F'') combined with a smooth positive product
/// e^{g} (of which only g', g'' matter once `scale` includes g).
struct Term {
    scale: f64,
    f: [f64; 3],
    g: LogProduct,
}

fn kaufman(n: usize, m: usize, coupling: f64) -> KaufmanLogZ {
    assert!(
        n >= 1 && m >= 1,
        "lattice sides must be at least 1 (got {n} x {m})"
    );
    let k = coupling;
    let size = (n * m) as f64;
    let half_m = 0.5 * m as f64;
    let s = libm::sinh(2.0 * k);
    let ch = libm::cosh(2.0 * k);
    let t = 1.0 / s;
    let t2 = t * t;
    // c(K) = cosh 2K coth 2K = (1 + s²)/s; c − 2 = (s − 1)²/s ≥ 0 and
    // dc/dK = 2 cosh 2K (s² − 1)/s² = 2 cosh 2K (1 − t)(1 + t) (in this order: cosh 2K · s²
    // overflows below T ≈ 0.0085; likewise |s − 1| · (cosh 2K / s) below).
    let c_minus_2 = (s - 1.0) * ((s - 1.0) / s);
    let dc = 2.0 * ch * ((1.0 - t) * (1.0 + t));

    // Modes k = 1 … 2n−1: cosh γ_k = c − cos(πk/n), γ_k > 0. With D = cosh γ_k − 1 =
    // (c − 2) + 2 sin²(πk/2n) ≥ 0 (no cancellation): γ = ln(1 + D + √(D(D + 2))),
    // γ' = c'/sinh γ and γ'' = (c'' sinh²γ − cosh γ c'²)/sinh³γ = 4P/(s⁵ sinh³γ) with
    // P = ε s(s²+1)²(s²+3) + ε² s²(s⁴+s²+2) + 2s⁶+6s⁴+3s²+1, ε = −cos(πk/n)
    // (c'' = 4(s + 1/s + 2/s³)); P is evaluated as P/s⁷ in t = 1/s to avoid overflow.
    let mut cosh_odd = LogProduct::default();
    let mut sinh_odd = LogProduct::default();
    let mut cosh_even = LogProduct::default();
    let mut sinh_even = LogProduct::default();
    for mode in 1..2 * n {
        let half_angle = PI * mode as f64 / (2 * n) as f64;
        let sin_half = libm::sin(half_angle);
        let eps = -libm::cos(2.0 * half_angle);
        let d = c_minus_2 + 2.0 * sin_half * sin_half;
        let sinh_gamma = d.sqrt() * (d + 2.0).sqrt();
        let gamma = libm::log1p(d + sinh_gamma);
        let d_gamma = dc / sinh_gamma;
        let p_over_s7 = eps * (1.0 + t2) * (1.0 + t2) * (1.0 + 3.0 * t2)
            + eps * eps * t * (1.0 + t2 + 2.0 * t2 * t2)
            + t * (2.0 + t2 * (6.0 + t2 * (3.0 + t2)));
        let ratio = s / sinh_gamma;
        let d2_gamma = 4.0 * p_over_s7 * ratio * ratio / sinh_gamma;

        let (x, dx, d2x) = (half_m * gamma, half_m * d_gamma, half_m * d2_gamma);
        let e = libm::exp(-2.0 * x);
        let one_minus_e = -libm::expm1(-2.0 * x);
        let tanh = one_minus_e / (1.0 + e);
        let sech2 = 4.0 * e / ((1.0 + e) * (1.0 + e));
        let coth = (1.0 + e) / one_minus_e;
        let csch2 = 4.0 * e / (one_minus_e * one_minus_e);
        let (cosh_acc, sinh_acc) = if mode % 2 == 1 {
            (&mut cosh_odd, &mut sinh_odd)
        } else {
            (&mut cosh_even, &mut sinh_even)
        };
        // ln(2 cosh x) = x + ln(1 + e^{−2x}), ln(2 sinh x) = x + ln(1 − e^{−2x}).
        cosh_acc.log += x + libm::log1p(e);
        cosh_acc.d1 += tanh * dx;
        cosh_acc.d2 += sech2 * dx * dx + tanh * d2x;
        sinh_acc.log += x + libm::log(one_minus_e);
        sinh_acc.d1 += coth * dx;
        sinh_acc.d2 += -csch2 * dx * dx + coth * d2x;
    }

    // Mode 0: γ₀ = 2K + ln tanh K, signed (negative above T_c). |γ₀| = arccosh(c − 1)
    // = ln(1 + (c − 2) + |s − 1| cosh 2K / s); γ₀' = 2 + 2/s, γ₀'' = −4 cosh 2K / s².
    let gamma0 = (s - 1.0).signum() * libm::log1p(c_minus_2 + (s - 1.0).abs() * (ch * t));
    let (x0, dx0, d2x0) = (
        half_m * gamma0,
        half_m * (2.0 + 2.0 * t),
        half_m * (-4.0 * ch * t2),
    );
    // The mode-0 factors. 2 cosh x₀ joins Z₃'s log-product like any other factor.
    // 2 sinh x₀ changes sign at T_c (x₀ = 0), where ln|2 sinh x₀| is singular; for
    // |x₀| < 1 it is kept as explicit values (F, F', F'') scaled by e^{−|x₀|}, otherwise it
    // joins Z₄'s log-product with its sign. (Keeping it explicit at large |x₀| would make
    // F'/F and g' cancel at O(x₀'²), costing accuracy in C at low T.)
    let e0 = libm::exp(-2.0 * x0.abs());
    let one_minus_e0 = -libm::expm1(-2.0 * x0.abs());
    let tanh0 = x0.signum() * one_minus_e0 / (1.0 + e0);
    cosh_even.log += x0.abs() + libm::log1p(e0);
    cosh_even.d1 += tanh0 * dx0;
    cosh_even.d2 += 4.0 * e0 / ((1.0 + e0) * (1.0 + e0)) * dx0 * dx0 + tanh0 * d2x0;
    let sign0 = if x0 > 0.0 {
        1.0
    } else if x0 < 0.0 {
        -1.0
    } else {
        0.0
    };
    let (sinh0, sinh0_scale) = if x0.abs() >= 1.0 {
        let coth0 = sign0 * (1.0 + e0) / one_minus_e0;
        sinh_even.log += x0.abs() + libm::log(one_minus_e0);
        sinh_even.d1 += coth0 * dx0;
        sinh_even.d2 += -4.0 * e0 / (one_minus_e0 * one_minus_e0) * dx0 * dx0 + coth0 * d2x0;
        ([sign0, 0.0, 0.0], 0.0)
    } else {
        // 2 sinh x₀ e^{−|x₀|} and its K-derivatives.
        let odd0 = sign0 * one_minus_e0;
        let even0 = 1.0 + e0;
        (
            [odd0, even0 * dx0, odd0 * dx0 * dx0 + even0 * d2x0],
            x0.abs(),
        )
    };

    let one = [1.0, 0.0, 0.0];
    let terms = [
        Term {
            scale: cosh_odd.log,
            f: one,
            g: cosh_odd,
        },
        Term {
            scale: sinh_odd.log,
            f: one,
            g: sinh_odd,
        },
        Term {
            scale: cosh_even.log,
            f: one,
            g: cosh_even,
        },
        Term {
            scale: sinh_even.log + sinh0_scale,
            f: sinh0,
            g: sinh_even,
        },
    ];
    // Sum Z₁ + Z₂ + Z₃ + Z₄ and its derivatives as signed values relative to the largest
    // scale. Derivatives are of Z̃ = Z e^{−μK} with μ = (ln Z₁)', which leaves d ln Z̃ and
    // d² ln Z̃ = Z̃''/Z̃ − (Z̃'/Z̃)² of order one instead of order N (less cancellation).
    let mu = cosh_odd.d1;
    let top = terms
        .iter()
        .map(|t| t.scale)
        .fold(f64::NEG_INFINITY, f64::max);
    let (mut sum0, mut sum1, mut sum2) = (0.0, 0.0, 0.0);
    for term in &terms {
        let w = libm::exp(term.scale - top);
        let [f, f1, f2] = term.f;
        let h = term.g.d1 - mu;
        sum0 += w * f;
        sum1 += w * (f1 + f * h);
        sum2 += w * (f2 + 2.0 * f1 * h + f * (term.g.d2 + h * h));
    }
    let r1 = sum1 / sum0;
    // ln(2 sinh 2K) = 2K + ln(1 − e^{−4K}).
    let log_2_sinh = 2.0 * k + libm::log(-libm::expm1(-4.0 * k));
    KaufmanLogZ {
        log_z: -LN_2 + 0.5 * size * log_2_sinh + top + libm::log(sum0),
        d_log_z: size * ch * t + mu + r1,
        d2_log_z: -2.0 * size * t2 + sum2 / sum0 - r1 * r1,
    }
}

/// ln Z of the n × m periodic lattice (n columns, m rows; see the module docs), exact
/// (Kaufman 1949):
///
/// Z = ½ (2 sinh 2K)^{nm/2} (Z₁ + Z₂ + Z₃ + Z₄),
/// Z₁ = ∏_{r=0}^{n−1} 2 cosh(m γ_{2r+1}/2), Z₂ = ∏_{r=0}^{n−1} 2 sinh(m γ_{2r+1}/2),
/// Z₃ = ∏_{r=0}^{n−1} 2 cosh(m γ_{2r}/2),   Z₄ = ∏_{r=0}^{n−1} 2 sinh(m γ_{2r}/2),
///
/// with cosh γ_k = cosh 2K coth 2K − cos(πk/n) (γ_k > 0) for k ≥ 1 and
/// γ₀ = 2K + ln tanh K (negative above T_c, which makes Z₄ negative), K = 1/T.
///
/// Computed in log space (each factor as |x| + ln(1 ± e^{−2|x|}), the four products summed
/// as signed values relative to the largest), so it is finite for 1024 × 1024 and beyond.
/// Valid for all n, m ≥ 1 with the bond convention of the module docs.
///
/// # Panics
/// If n or m is 0. NaN unless 0 < T < ∞.
pub fn kaufman_log_z(n: usize, m: usize, t: f64) -> f64 {
    kaufman(n, m, coupling(t)).log_z
}

/// Energy per spin of the n × m periodic lattice, u = ⟨E⟩/N = −(1/N) ∂ln Z/∂β with
/// Z = [`kaufman_log_z`]'s partition function and N = nm.
///
/// The derivative is analytic: ∂ln Z/∂K = N coth 2K + ∂ln(Z₁ + Z₂ + Z₃ + Z₄)/∂K, with
/// d/dK ln(2 cosh x) = tanh x · x', d/dK ln(2 sinh x) = coth x · x' for x = mγ_k/2 and
/// γ_k' = (d cosh γ_k/dK)/sinh γ_k = 2 cosh 2K (1 − sinh⁻² 2K)/sinh γ_k (k ≥ 1),
/// γ₀' = 2 + 2/sinh 2K.
///
/// Relative accuracy ~1e-14; at high T the terms N coth 2K ≈ N/2K cancel down to
/// ⟨E⟩ ≈ −2N tanh K, so the relative error grows like ε·T² (≈ 2e-13 at T = 100).
///
/// # Panics
/// If n or m is 0. NaN unless 0 < T < ∞.
pub fn kaufman_energy_per_spin(n: usize, m: usize, t: f64) -> f64 {
    -kaufman(n, m, coupling(t)).d_log_z / (n * m) as f64
}

/// Specific heat per spin of the n × m periodic lattice,
/// c = (β²/N) ∂²ln Z/∂β² = β² (⟨E²⟩ − ⟨E⟩²)/N, from analytic second derivatives of
/// Kaufman's product (see [`kaufman_energy_per_spin`]; ∂²/∂K² of (N/2) ln(2 sinh 2K) is
/// −2N/sinh² 2K).
///
/// Relative accuracy is ~1e-14 for 1 ≲ T ≲ 30. At low T, terms of order e^{−2K}…e^{−4K}
/// cancel down to c ~ 64K²e^{−8K}: the relative error stays below 1e-16·e^{6/T} (1e-12 at
/// T = 0.5, 1e-9 at T = 0.3). At high T, −2N/sinh²2K ≈ −N/2K² cancels down to c ≈ 2K²:
/// relative error ≲ ε·T² (≈ 1e-12 at T = 100).
///
/// # Panics
/// If n or m is 0. NaN unless 0 < T < ∞.
pub fn kaufman_specific_heat_per_spin(n: usize, m: usize, t: f64) -> f64 {
    let k = coupling(t);
    k * k * kaufman(n, m, k).d2_log_z / (n * m) as f64
}

// ---------------------------------------------------------------------------------------
// The 2 × 2 periodic lattice
// ---------------------------------------------------------------------------------------

/// ln Z of the whole 2 × 2 periodic lattice (every bond doubled, 8 bonds):
/// Z = 4 cosh 8β + 12 (2 states at E = −8, 12 at E = 0, 2 at E = +8), evaluated as
/// 8β + ln(2 + 12e^{−8β} + 2e^{−16β}). NaN unless 0 < T < ∞.
pub fn two_by_two_log_z(t: f64) -> f64 {
    let b = coupling(t);
    8.0 * b + libm::log(two_by_two_scaled_z(b))
}

/// Z e^{−8β} = 2 + 12 e^{−8β} + 2 e^{−16β}.
fn two_by_two_scaled_z(b: f64) -> f64 {
    let x = libm::exp(-8.0 * b);
    2.0 + 12.0 * x + 2.0 * x * x
}

/// Mean energy of the whole 2 × 2 periodic lattice, ⟨E⟩ = −32 sinh 8β / Z with
/// Z = 4 cosh 8β + 12 (not per spin). NaN unless 0 < T < ∞.
pub fn two_by_two_energy(t: f64) -> f64 {
    let b = coupling(t);
    // −32 sinh 8β e^{−8β} = −16 (1 − e^{−16β}).
    16.0 * libm::expm1(-16.0 * b) / two_by_two_scaled_z(b)
}

/// Mean absolute magnetization of the whole 2 × 2 periodic lattice,
/// ⟨|M|⟩ = 8 (e^{8β} + 2) / Z with Z = 4 cosh 8β + 12 (not per spin; |M| ≤ 4).
/// NaN unless 0 < T < ∞.
pub fn two_by_two_abs_magnetization(t: f64) -> f64 {
    let b = coupling(t);
    8.0 * (1.0 + 2.0 * libm::exp(-8.0 * b)) / two_by_two_scaled_z(b)
}

// ---------------------------------------------------------------------------------------
// Beale: low-order density of states
// ---------------------------------------------------------------------------------------

/// The first six coefficients g₀ … g₅ of the exact density of states of the n × m periodic
/// lattice (Beale 1996), Z = e^{2NK} Σ_k g_k x^{2k} with x = e^{−2K} and N = nm, so g_k
/// counts the states with 2k broken bonds (energy −2N + 4k):
///
/// g₀ = 2, g₁ = 0, g₂ = 2N, g₃ = 4N, g₄ = N² + 9N, g₅ = 4N² + 24N.
///
/// These hold for n, m > 5 (for a side of 5, a flipped ring of 5 spins already has 10
/// broken bonds and changes g₅).
///
/// # Panics
/// If n ≤ 5 or m ≤ 5, or if 4N² overflows u64.
pub fn beale_low_coefficients(n: usize, m: usize) -> [u64; 6] {
    assert!(
        n > 5 && m > 5,
        "Beale's low-order coefficients need both sides > 5 (got {n} x {m})"
    );
    let big_n = (n as u64).checked_mul(m as u64).expect("N overflows u64");
    let n2 = big_n.checked_mul(big_n).expect("N² overflows u64");
    let g4 = n2.checked_add(9 * big_n).expect("g4 overflows u64");
    let g5 = n2
        .checked_mul(4)
        .and_then(|v| v.checked_add(24 * big_n))
        .expect("g5 overflows u64");
    [2, 0, 2 * big_n, 4 * big_n, g4, g5]
}

/// Most spins [`torus_broken_bond_counts`] enumerates (2^24 states, about a second).
pub const MAX_ENUMERATED_TORUS: usize = 24;

/// The number of states of the n × m periodic lattice with b broken bonds, b = 0 ..= 2nm: the
/// density of states g(E) at E = −2nm + 2b (J = 1, h = 0), by visiting all 2^{nm} states,
/// with this module's bond convention (the right and down neighbour of every site, so a
/// side of 2 doubles bonds and a side of 1 gives self-bonds that never break). Any thermal
/// average follows from it as a sum of positive terms: a reference for the closed forms
/// that keeps its digits at every temperature. At most [`MAX_ENUMERATED_TORUS`] spins
/// (field `spins`).
pub fn torus_broken_bond_counts(n: usize, m: usize) -> Result<Vec<u64>, ParamError> {
    let size = n.saturating_mul(m);
    if n == 0 || m == 0 || size > MAX_ENUMERATED_TORUS {
        return Err(ParamError::OutOfRange {
            field: "spins",
            value: size as f64,
            min: 1.0,
            max: MAX_ENUMERATED_TORUS as f64,
        });
    }
    let mut counts = vec![0u64; 2 * size + 1];
    for state in 0u32..(1 << size) {
        let spin = |x: usize, y: usize| (state >> (y * n + x)) & 1;
        let mut broken = 0;
        for y in 0..m {
            for x in 0..n {
                let s = spin(x, y);
                broken += (s ^ spin((x + 1) % n, y)) + (s ^ spin(x, (y + 1) % m));
            }
        }
        counts[broken as usize] += 1;
    }
    Ok(counts)
}

/// ln Z, ⟨E⟩ and C = β² Var(E) (totals, not per spin) at T of a torus with the broken-bond
/// counts `counts` ([`torus_broken_bond_counts`]; E = 2b − 2N for b broken bonds), as sums of
/// positive terms relative to the ground state, the variance taken about the mean number of
/// broken bonds: good to ~1e-15 relative at every T (no ⟨E²⟩ − ⟨E⟩² cancellation).
pub fn torus_thermodynamics(counts: &[u64], t: f64) -> (f64, f64, f64) {
    let beta = 1.0 / t;
    let two_n = (counts.len() - 1) as f64;
    let weights: Vec<f64> = counts
        .iter()
        .enumerate()
        .map(|(b, &g)| g as f64 * libm::exp(-2.0 * beta * b as f64))
        .collect();
    let z: f64 = weights.iter().sum();
    let mean_b = weights
        .iter()
        .enumerate()
        .map(|(b, w)| w * b as f64)
        .sum::<f64>()
        / z;
    let var_b = weights
        .iter()
        .enumerate()
        .map(|(b, w)| w * (b as f64 - mean_b) * (b as f64 - mean_b))
        .sum::<f64>()
        / z;
    (
        beta * two_n + libm::log(z),
        2.0 * mean_b - two_n,
        4.0 * beta * beta * var_b,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPS: f64 = f64::EPSILON;

    /// |a − b| / |b|.
    fn rel(a: f64, b: f64) -> f64 {
        ((a - b) / b).abs()
    }

    /// [`torus_broken_bond_counts`] for a tiny lattice.
    fn enumerate_broken_bond_counts(n: usize, m: usize) -> Vec<u64> {
        torus_broken_bond_counts(n, m).unwrap()
    }

    #[test]
    fn the_torus_counts_cover_every_state_once_and_refuse_beyond_their_size() {
        // 2^N states in all; the two ground states break no bond; flipping one spin of a
        // ground state breaks its 4 bonds (N ≥ 9 on a 3 × 3 torus: 2N such states).
        let counts = torus_broken_bond_counts(3, 3).unwrap();
        assert_eq!(counts.iter().sum::<u64>(), 1 << 9);
        assert_eq!((counts[0], counts[1], counts[4]), (2, 0, 18));
        for (n, m) in [(0, 3), (5, 5), (usize::MAX, 2)] {
            assert_eq!(torus_broken_bond_counts(n, m).unwrap_err().field(), "spins");
        }
    }

    /// Number of states of the n × m torus with b broken bonds for b ≤ `max_broken`, by a
    /// row-to-row transfer matrix over the 2^n states of one row (same bond convention),
    /// in exact integers: an independent count for lattices too large to enumerate.
    fn transfer_matrix_broken_bond_counts(n: usize, m: usize, max_broken: usize) -> Vec<u64> {
        let rows = 1usize << n;
        let mask = rows - 1;
        let rotate = |r: usize| ((r << 1) | (r >> (n - 1))) & mask;
        let horizontal: Vec<usize> = (0..rows)
            .map(|r| (r ^ rotate(r)).count_ones() as usize)
            .collect();
        let len = max_broken + 1;
        let mut total = vec![0u64; len];
        for first in 0..rows {
            if horizontal[first] > max_broken {
                continue;
            }
            // v[r·len + b]: ways to fill the rows so far, ending in row state r, with b
            // broken bonds (horizontal bonds of every row, vertical bonds between them).
            let mut v = vec![0u64; rows * len];
            v[first * len + horizontal[first]] = 1;
            for _ in 1..m {
                let mut next = vec![0u64; rows * len];
                for r in 0..rows {
                    let row = &v[r * len..(r + 1) * len];
                    let Some(lowest) = row.iter().position(|&c| c != 0) else {
                        continue;
                    };
                    for r2 in 0..rows {
                        let cost = (r ^ r2).count_ones() as usize + horizontal[r2];
                        if lowest + cost > max_broken {
                            continue;
                        }
                        for b in lowest..=max_broken - cost {
                            next[r2 * len + b + cost] += row[b];
                        }
                    }
                }
                v = next;
            }
            // Close the torus: vertical bonds from the last row back to the first.
            for r in 0..rows {
                let cost = (r ^ first).count_ones() as usize;
                for b in 0..len.saturating_sub(cost) {
                    total[b + cost] += v[r * len + b];
                }
            }
        }
        total
    }

    #[test]
    fn critical_temperature_is_where_sinh_2k_equals_one() {
        // 2/ln(1 + √2) = 2.26918531421302196811… (mpmath); the constants are the nearest
        // doubles, so they agree to within rounding (a few ε).
        assert!(rel(CRITICAL_TEMPERATURE, 2.0 / (1.0 + 2f64.sqrt()).ln()) <= 2.0 * EPS);
        assert!(rel(CRITICAL_COUPLING * CRITICAL_TEMPERATURE, 1.0) <= 2.0 * EPS);
        assert!(((2.0 * CRITICAL_COUPLING).sinh() - 1.0).abs() <= 4.0 * EPS);
    }

    #[test]
    fn elliptic_integrals_match_reference_values_and_legendre_relation() {
        // Reference values: mpmath ellipk(k²), ellipe(k²) at 40 digits. The AGM converges
        // to full precision; a handful of roundings give a few ε (tolerance 8ε). For
        // k = 0.999999 the input itself is off: the double nearest 0.999999 is within
        // 5.6e-17 of it, i.e. 1 − k within 5.6e-11 relative, which moves K ≈ ln(4/k') by
        // ≲ 0.5·5.6e-11/K ≈ 4e-12 relative (tolerance 1e-11 there).
        let cases = [
            (0.0, FRAC_PI_2, FRAC_PI_2, 8.0 * EPS),
            (
                std::f64::consts::FRAC_1_SQRT_2,
                1.854_074_677_301_372,
                1.350_643_881_047_675_5,
                8.0 * EPS,
            ),
            (
                0.9,
                2.280_549_138_422_770_2,
                1.171_697_052_781_614,
                8.0 * EPS,
            ),
            (
                0.999_999,
                7.947_479_773_562_345,
                1.000_007_447_477_724_2,
                1e-11,
            ),
        ];
        for (k, big_k, big_e, tol) in cases {
            assert!(rel(elliptic_k(k), big_k) <= tol, "K({k})");
            assert!(rel(elliptic_e(k), big_e) <= tol, "E({k})");
            assert_eq!(elliptic_k(-k), elliptic_k(k));
        }
        assert_eq!(elliptic_k(1.0), f64::INFINITY);
        assert_eq!(elliptic_e(1.0), 1.0);
        assert!(elliptic_k(1.5).is_nan() && elliptic_e(f64::NAN).is_nan());

        // Legendre: E K' + E' K − K K' = π/2. The three terms are up to ~K ≈ 8; rounding
        // is a few ε of their sum (tolerance 8ε · Σ|terms|).
        let mut worst: f64 = 0.0;
        for k in [1e-6, 0.1, 0.5, 0.7, 0.9, 0.99, 0.999_999] {
            let kp = complement_of(k);
            let (a, b, c, d) = (elliptic_k(k), elliptic_e(k), elliptic_k(kp), elliptic_e(kp));
            let residual = b * c + d * a - a * c - FRAC_PI_2;
            worst = worst.max(residual.abs());
            assert!(
                residual.abs() <= 8.0 * EPS * (b * c + d * a + a * c),
                "k = {k}"
            );
        }
        eprintln!("Legendre relation: max |residual| = {worst:.1e}");
    }

    #[test]
    fn elliptic_differences_are_free_of_cancellation_at_small_modulus() {
        // K − π/2 ≈ (π/8)k² and K − E ≈ (π/4)k² are ~4e-9 at k = 1e-4: formed by
        // subtraction they would carry errors ~ε·(π/2)/4e-9 ≈ 1e-7 relative. The AGM sums
        // have no cancellation: a few ε per step (tolerance 1e-13 relative).
        let k = 1e-4;
        let r = agm(k, complement_of(k));
        // mpmath: K(1e-4) − π/2 = 3.926990839076565e-9, K − E = 7.8539816634269144e-9.
        assert!(rel(r.k_minus_half_pi, 3.926_990_839_076_565e-9) <= 1e-13);
        assert!(rel(r.k_minus_e, 7.853_981_663_426_914e-9) <= 1e-13);
    }

    #[test]
    fn onsager_matches_reference_values() {
        // Values given with 6–7 digits: tolerance 1e-6 absolute (rounding of the table).
        for (t, u, m) in [
            (1.5, -1.951_117, 0.986_500),
            (2.0, -1.745_565, 0.911_319),
            (3.0, -0.817_310, 0.0),
        ] {
            assert!((onsager_energy_per_spin(t) - u).abs() <= 1e-6, "u({t})");
            assert!(
                (onsager_magnetization_per_spin(t) - m).abs() <= 1e-6,
                "m({t})"
            );
        }
        // 17-digit values from mpmath (40 digits) of the textbook formulas, u, m and the
        // du/dT form of c: the f64 evaluation is a few dozen roundings of O(1) numbers
        // (tolerance 1e-13 relative).
        let table = [
            (
                0.5,
                -1.999_999_098_811_657,
                0.999_999_774_627_208_6,
                2.885_255_271_624_646_3e-5,
            ),
            (
                1.0,
                -1.997_160_204_112_251,
                0.999_275_751_957_061_2,
                0.023_379_564_686_542_134,
            ),
            (
                1.5,
                -1.951_116_573_078_377,
                0.986_499_602_621_494_5,
                0.197_274_540_176_991_6,
            ),
            (
                2.0,
                -1.745_564_575_312_554,
                0.911_319_377_877_496,
                0.724_871_448_601_573_9,
            ),
            (2.5, -1.106_079_203_745_791, 0.0, 0.861_698_356_830_763_6),
            (3.0, -0.817_309_592_502_420_1, 0.0, 0.401_379_575_895_925_9),
            (5.0, -0.428_228_833_240_348_06, 0.0, 0.097_652_177_588_479_7),
        ];
        let mut worst: f64 = 0.0;
        for (t, u, m, c) in table {
            let du = rel(onsager_energy_per_spin(t), u);
            let dc = rel(onsager_specific_heat_per_spin(t), c);
            let dm = if m == 0.0 {
                onsager_magnetization_per_spin(t).abs()
            } else {
                rel(onsager_magnetization_per_spin(t), m)
            };
            worst = worst.max(du).max(dc).max(dm);
            assert!(
                du <= 1e-13 && dm <= 1e-13 && dc <= 1e-13,
                "T = {t}: {du:e} {dm:e} {dc:e}"
            );
        }
        eprintln!("Onsager vs mpmath: max relative deviation = {worst:.1e}");
        assert!((onsager_energy_per_spin(CRITICAL_TEMPERATURE) + 2f64.sqrt()).abs() <= 4.0 * EPS);
        assert_eq!(onsager_magnetization_per_spin(CRITICAL_TEMPERATURE), 0.0);
        assert_eq!(
            onsager_specific_heat_per_spin(CRITICAL_TEMPERATURE),
            f64::INFINITY
        );
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(kaufman_log_z(4, 4, bad).is_nan());
            assert!(kaufman_energy_per_spin(4, 4, bad).is_nan());
            assert!(kaufman_specific_heat_per_spin(4, 4, bad).is_nan());
            assert!(two_by_two_log_z(bad).is_nan() && two_by_two_energy(bad).is_nan());
            assert!(onsager_energy_per_spin(bad).is_nan());
            assert!(onsager_magnetization_per_spin(bad).is_nan());
            assert!(onsager_specific_heat_per_spin(bad).is_nan());
        }
    }

    #[test]
    fn onsager_specific_heat_is_the_temperature_derivative_of_energy() {
        // Fourth-order central difference c ≈ [u(T−2h) − 8u(T−h) + 8u(T+h) − u(T+2h)]/12h.
        // Truncation ≤ h⁴ max|u⁽⁵⁾|/30 with max|u⁽⁵⁾| ≈ 564 over these T (at T = 2, by
        // mpmath), i.e. ≤ 2e-11 for h = 1e-3; rounding ≤ (18/12)·(4ε|u|)/h ≤ 3e-12.
        // Tolerance 3e-11 absolute.
        let h = 1e-3;
        let mut worst: f64 = 0.0;
        for t in [0.5, 1.0, 1.5, 2.0, 2.6, 3.0, 5.0] {
            let u = onsager_energy_per_spin;
            let fd =
                (u(t - 2.0 * h) - 8.0 * u(t - h) + 8.0 * u(t + h) - u(t + 2.0 * h)) / (12.0 * h);
            let c = onsager_specific_heat_per_spin(t);
            worst = worst.max((c - fd).abs());
            assert!((c - fd).abs() <= 3e-11, "T = {t}: c = {c}, du/dT ≈ {fd}");
        }
        eprintln!("Onsager c vs du/dT: max |deviation| = {worst:.1e}");
    }

    #[test]
    fn onsager_specific_heat_equals_its_elliptic_form_and_not_the_printed_variant() {
        // The Landen-transformed evaluation must equal the direct elliptic form
        // (4/π)(K coth 2K)² {K₁ − E₁ − (1 − tanh²2K)[π/2 + (2tanh²2K − 1)K₁]} (rounding only,
        // away from T_c: tolerance 1e-12 relative), while the often printed
        // (2/π)(K coth 2K)² {2K₁ − 2E₁ − (1 − tanh²2K)[…]} is off by more than 20% at
        // T = 1, 2, 3 (mpmath: 0.170 vs 0.0234, 0.966 vs 0.725, 0.504 vs 0.401).
        for t in [1.0_f64, 1.5, 2.0, 2.6, 3.0, 5.0] {
            let k = 1.0 / t;
            let th2 = (2.0 * k).tanh().powi(2);
            let kappa = 2.0 * (2.0 * k).sinh() / (2.0 * k).cosh().powi(2);
            let (k1, e1) = (elliptic_k(kappa), elliptic_e(kappa));
            let pre = (k / (2.0 * k).tanh()).powi(2);
            let bracket = FRAC_PI_2 + (2.0 * th2 - 1.0) * k1;
            let correct = 4.0 / PI * pre * (k1 - e1 - (1.0 - th2) * bracket);
            let printed = 2.0 / PI * pre * (2.0 * k1 - 2.0 * e1 - (1.0 - th2) * bracket);
            let c = onsager_specific_heat_per_spin(t);
            assert!(rel(c, correct) <= 1e-12, "T = {t}");
            if [1.0, 2.0, 3.0].contains(&t) {
                assert!(rel(printed, c) > 0.2, "T = {t}");
            }
        }
    }

    #[test]
    fn onsager_obeys_low_temperature_series() {
        // With x = e^{−2K}: ln Z/N − 2K = x⁴ + 2x⁶ + (9/2)x⁸ + 12x¹⁰ + (112/3)x¹² + …, hence
        // u = −2 + 8x⁴ + 24x⁶ + 72x⁸ + 240x¹⁰ + O(896x¹²),
        // c/K² = 64x⁴ + 288x⁶ + 1152x⁸ + 4800x¹⁰ + O(21504x¹²),
        // m = 1 − 2x⁴ − 8x⁶ − 34x⁸ − O(152x¹⁰).
        // Tolerances: twice the first omitted term, plus rounding (u and m are O(1) numbers
        // known to ~2ε; c keeps relative precision, 1e-13).
        for t in [0.25_f64, 0.3, 0.5] {
            let k = 1.0 / t;
            let x2 = (-4.0 * k).exp();
            let poly = |coefficients: &[f64]| {
                coefficients.iter().rev().fold(0.0, |acc, a| acc * x2 + a) * x2 * x2
            };
            let u = onsager_energy_per_spin(t);
            let m = onsager_magnetization_per_spin(t);
            let c = onsager_specific_heat_per_spin(t);
            let x12 = x2.powi(6);
            assert!(
                (u + 2.0 - poly(&[8.0, 24.0, 72.0, 240.0])).abs() <= 2.0 * 896.0 * x12 + 4.0 * EPS
            );
            let c_series = k * k * poly(&[64.0, 288.0, 1152.0, 4800.0]);
            assert!((c - c_series).abs() <= k * k * 2.0 * 21504.0 * x12 + 1e-13 * c);
            assert!(
                (m - 1.0 + poly(&[2.0, 8.0, 34.0])).abs() <= 2.0 * 152.0 * x2.powi(5) + 2.0 * EPS
            );
        }
        // T → 0: u → −2, m → 1, c → 0 (all corrections ~e^{−8/T} ≪ ε at T = 0.05).
        assert!((onsager_energy_per_spin(0.05) + 2.0).abs() <= 4.0 * EPS);
        assert!((onsager_magnetization_per_spin(0.05) - 1.0).abs() <= 2.0 * EPS);
        let c = onsager_specific_heat_per_spin(0.05);
        assert!((0.0..1e-60).contains(&c));
    }

    #[test]
    fn onsager_obeys_high_temperature_series() {
        // With v = tanh K: ln Z/N = ln 2 + 2 ln cosh K + f(v), f = v⁴ + 2v⁶ + (9/2)v⁸ + 12v¹⁰
        // + (112/3)v¹² + … (self-duality), so u = −2v − (1 − v²) f'(v) and
        // c = K²[2(1 − v²) + (1 − v²)² f'' − 2v(1 − v²) f']. Omitted: ~448v¹¹ in u and
        // ~4928K²v¹⁰ in c; tolerance twice that plus rounding (u: 8ε, c: 1e-13 relative).
        for t in [10.0_f64, 20.0] {
            let k = 1.0 / t;
            let v = k.tanh();
            let a = [(4, 1.0), (6, 2.0), (8, 4.5), (10, 12.0)];
            let f1: f64 = a.iter().map(|&(p, c)| p as f64 * c * v.powi(p - 1)).sum();
            let f2: f64 = a
                .iter()
                .map(|&(p, c)| (p * (p - 1)) as f64 * c * v.powi(p - 2))
                .sum();
            let w = 1.0 - v * v;
            let u_series = -2.0 * v - w * f1;
            let c_series = k * k * (2.0 * w + w * w * f2 - 2.0 * v * w * f1);
            let (u, c) = (
                onsager_energy_per_spin(t),
                onsager_specific_heat_per_spin(t),
            );
            assert!(
                (u - u_series).abs() <= 2.0 * 448.0 * v.powi(11) + 8.0 * EPS,
                "u({t})"
            );
            assert!(
                (c - c_series).abs() <= 2.0 * 4928.0 * k * k * v.powi(10) + 1e-13 * c,
                "c({t})"
            );
        }
    }

    #[test]
    fn transfer_matrix_count_agrees_with_enumeration() {
        // Both are exact integer counts of the same states.
        for (n, m) in [(4, 4), (3, 5), (5, 3), (2, 6), (1, 7), (3, 3)] {
            let all = 2 * n * m;
            assert_eq!(
                transfer_matrix_broken_bond_counts(n, m, all),
                enumerate_broken_bond_counts(n, m),
                "{n} x {m}"
            );
        }
    }

    #[test]
    fn kaufman_agrees_with_brute_force_enumeration() {
        // Kaufman sums O(n) logarithms and the enumeration O(N) positive terms; both carry
        // relative rounding errors ~1e-14 for ln Z and E. Kaufman's C loses accuracy at low
        // T (documented: ≲ 1e-16·e^{6/T}, 4e-14 at T = 1, 2e-11 at T = 0.5). The requested
        // tolerance 1e-9 covers all of these.
        let sizes = [
            (1, 2),
            (2, 1),
            (1, 5),
            (5, 1),
            (2, 2),
            (2, 3),
            (3, 2),
            (3, 3),
            (2, 4),
            (4, 2),
            (3, 4),
            (4, 3),
            (2, 7),
            (4, 4),
            (3, 5),
            (5, 3),
        ];
        let temperatures = [0.5, 1.0, 2.0, 2.269, CRITICAL_TEMPERATURE, 3.0, 10.0];
        let (mut w_log_z, mut w_e, mut w_c) = (0.0_f64, 0.0_f64, 0.0_f64);
        for (n, m) in sizes {
            let counts = enumerate_broken_bond_counts(n, m);
            let size = (n * m) as f64;
            for t in temperatures {
                let (log_z, e, c) = torus_thermodynamics(&counts, t);
                let d_log_z = rel(kaufman_log_z(n, m, t), log_z);
                let d_e = rel(size * kaufman_energy_per_spin(n, m, t), e);
                let d_c = rel(size * kaufman_specific_heat_per_spin(n, m, t), c);
                assert!(
                    d_log_z <= 1e-9 && d_e <= 1e-9 && d_c <= 1e-9,
                    "{n}x{m} T={t}: {d_log_z:e} {d_e:e} {d_c:e}"
                );
                w_log_z = w_log_z.max(d_log_z);
                w_e = w_e.max(d_e);
                w_c = w_c.max(d_c);
            }
        }
        eprintln!(
            "Kaufman vs enumeration: max rel dev ln Z {w_log_z:.1e}, E {w_e:.1e}, C {w_c:.1e}"
        );

        // The 1 × 1 torus (one spin, two self-bonds) has one energy level: Z = 2e^{2β},
        // E = −2, C = 0 exactly. C is then pure rounding of K² times terms of size
        // ≲ 1 + 1/K² (tolerance 1e-14 (1 + K²)).
        for t in temperatures {
            let k = 1.0 / t;
            assert!(rel(kaufman_log_z(1, 1, t), LN_2 + 2.0 * k) <= 1e-14);
            assert!(rel(kaufman_energy_per_spin(1, 1, t), -2.0) <= 1e-14);
            assert!(kaufman_specific_heat_per_spin(1, 1, t).abs() <= 1e-14 * (1.0 + k * k));
        }
    }

    #[test]
    fn kaufman_specific_heat_error_stays_within_documented_low_temperature_bound() {
        // Documented on kaufman_specific_heat_per_spin: relative error ≲ 1e-16·e^{6/T}
        // (cancellation of e^{−4K}-sized terms down to C ~ e^{−8K}); plus 1e-13 rounding.
        let mut report = String::new();
        for (n, m) in [(2, 2), (3, 3), (4, 4), (2, 6)] {
            let counts = enumerate_broken_bond_counts(n, m);
            for t in [0.25, 0.3, 0.4, 0.5, 0.7] {
                let (_, _, c) = torus_thermodynamics(&counts, t);
                let d = rel((n * m) as f64 * kaufman_specific_heat_per_spin(n, m, t), c);
                report += &format!(" {n}x{m}@{t}:{d:.0e}");
                assert!(d <= 1e-13 + 1e-16 * (6.0 / t).exp(), "{n}x{m} T={t}: {d:e}");
            }
        }
        eprintln!("low-T C relative errors:{report}");
    }

    #[test]
    fn kaufman_stays_accurate_at_high_temperature() {
        // At high T, N coth 2K ≈ N/2K and the mode sums cancel down to ⟨E⟩ ≈ −2N tanh K
        // (and −2N/sinh²2K down to C ≈ 2NK²): documented relative error ≲ ε·T² for E and C
        // (1e-12 at T = 100). ln Z has no such cancellation (1e-14).
        let mut report = String::new();
        for (n, m) in [(2, 2), (3, 3), (4, 4), (2, 7)] {
            let counts = enumerate_broken_bond_counts(n, m);
            let size = (n * m) as f64;
            for t in [30.0, 100.0, 1000.0] {
                let (log_z, e, c) = torus_thermodynamics(&counts, t);
                let d_e = rel(size * kaufman_energy_per_spin(n, m, t), e);
                let d_c = rel(size * kaufman_specific_heat_per_spin(n, m, t), c);
                report += &format!(" {n}x{m}@{t}:{d_e:.0e}/{d_c:.0e}");
                assert!(rel(kaufman_log_z(n, m, t), log_z) <= 1e-14);
                let tol = 1e-14 + EPS * t * t;
                assert!(d_e <= tol && d_c <= tol, "{n}x{m} T={t}: {d_e:e} {d_c:e}");
            }
        }
        eprintln!("high-T relative errors E/C:{report}");
    }

    #[test]
    fn kaufman_agrees_with_brute_force_enumeration_on_3x3() {
        // Spelled out for the 3 × 3 torus; same error budget as above.
        let counts = enumerate_broken_bond_counts(3, 3);
        assert_eq!(counts.iter().sum::<u64>(), 512);
        for t in [1.0, 2.0, 2.269, 3.0, 10.0] {
            let (log_z, e, c) = torus_thermodynamics(&counts, t);
            assert!(rel(kaufman_log_z(3, 3, t), log_z) <= 1e-9);
            assert!(rel(9.0 * kaufman_energy_per_spin(3, 3, t), e) <= 1e-9);
            assert!(rel(9.0 * kaufman_specific_heat_per_spin(3, 3, t), c) <= 1e-9);
        }
    }

    #[test]
    fn kaufman_4x4_matches_published_values_at_t_2() {
        // Z = 26839013.6123, ⟨E⟩ = −28.0861, C = β²Var(E) = 9.68852 (whole lattice), i.e.
        // to the digits given: tolerance half a unit in the last digit.
        let t = 2.0;
        assert!((kaufman_log_z(4, 4, t).exp() - 26_839_013.612_3).abs() <= 0.5e-4);
        assert!((16.0 * kaufman_energy_per_spin(4, 4, t) + 28.086_1).abs() <= 0.5e-4);
        assert!((16.0 * kaufman_specific_heat_per_spin(4, 4, t) - 9.688_52).abs() <= 0.5e-5);
    }

    #[test]
    fn kaufman_reproduces_the_two_by_two_closed_form() {
        // The 2 × 2 torus has doubled bonds: Z = 4 cosh 8β + 12. ln Z, E, ⟨|M|⟩ are a few
        // roundings on both sides (tolerance 1e-13 relative), except Kaufman's E at high T
        // (documented relative error ≲ ε·T², tolerance 1e-13 + ε·T²).
        for t in [0.5, 1.0, 2.0, CRITICAL_TEMPERATURE, 3.0, 10.0, 100.0] {
            let beta = 1.0 / t;
            let z = 4.0 * (8.0 * beta).cosh() + 12.0;
            assert!(rel(two_by_two_log_z(t), z.ln()) <= 1e-13);
            assert!(rel(kaufman_log_z(2, 2, t), z.ln()) <= 1e-13);
            assert!(rel(two_by_two_energy(t), -32.0 * (8.0 * beta).sinh() / z) <= 1e-13);
            let tol_e = 1e-13 + EPS * t * t;
            assert!(rel(4.0 * kaufman_energy_per_spin(2, 2, t), two_by_two_energy(t)) <= tol_e);
            assert!(
                rel(
                    two_by_two_abs_magnetization(t),
                    8.0 * ((8.0 * beta).exp() + 2.0) / z
                ) <= 1e-13
            );
            // C = β² Var(E) from the three levels E = −8, 0, 8 with probabilities
            // 2e^{8β}/Z, 12/Z, 2e^{−8β}/Z, summed without cancellation. Kaufman's C has the
            // documented errors ≲ 1e-16·e^{6/T} at low T and ε·T² at high T (tolerance:
            // their sum plus 1e-13).
            let x = (-8.0 * beta).exp();
            let scaled = 2.0 + 12.0 * x + 2.0 * x * x;
            let (low, mid, high) = (2.0 / scaled, 12.0 * x / scaled, 2.0 * x * x / scaled);
            let mean = 8.0 * (high - low);
            let var = low * (mean + 8.0).powi(2) + mid * mean * mean + high * (mean - 8.0).powi(2);
            let c = beta * beta * var;
            let tol = 1e-13 + 1e-16 * (6.0 * beta).exp() + EPS * t * t;
            assert!(
                rel(4.0 * kaufman_specific_heat_per_spin(2, 2, t), c) <= tol,
                "T = {t}"
            );
        }
    }

    #[test]
    fn two_by_two_closed_forms_match_enumeration() {
        // Direct sum over the 16 states (E and M from the spins): rounding only (1e-13).
        for t in [0.5_f64, 1.0, 2.0, 5.0] {
            let beta = 1.0 / t;
            let (mut z, mut e_sum, mut m_sum) = (0.0_f64, 0.0, 0.0);
            for state in 0u32..16 {
                let s = |i: u32| if state >> i & 1 == 1 { -1.0_f64 } else { 1.0 };
                // Sites 0 1 / 2 3; each horizontal and vertical pair is bonded twice.
                let e = -2.0 * (s(0) * s(1) + s(2) * s(3) + s(0) * s(2) + s(1) * s(3));
                let w = (-beta * e).exp();
                z += w;
                e_sum += w * e;
                m_sum += w * (s(0) + s(1) + s(2) + s(3)).abs();
            }
            assert!(rel(two_by_two_log_z(t), z.ln()) <= 1e-13);
            assert!(rel(two_by_two_energy(t), e_sum / z) <= 1e-13);
            assert!(rel(two_by_two_abs_magnetization(t), m_sum / z) <= 1e-13);
        }
    }

    #[test]
    fn kaufman_partition_function_is_symmetric_under_transpose() {
        // Z(n × m) = Z(m × n) for isotropic couplings, though the formula treats the two
        // sides differently. ln Z ~ N: rounding ~1e-14 relative (tolerance 1e-12); E, C
        // similarly (C tolerance 1e-10, a second derivative).
        for (n, m) in [(1, 9), (2, 9), (5, 12), (3, 64), (17, 40), (6, 200)] {
            for t in [1.0, 2.0, CRITICAL_TEMPERATURE, 3.0] {
                assert!(rel(kaufman_log_z(n, m, t), kaufman_log_z(m, n, t)) <= 1e-12);
                let e = kaufman_energy_per_spin(m, n, t);
                assert!(rel(kaufman_energy_per_spin(n, m, t), e) <= 1e-12);
                let c = kaufman_specific_heat_per_spin(m, n, t);
                assert!(
                    rel(kaufman_specific_heat_per_spin(n, m, t), c) <= 1e-10,
                    "{n}x{m} T={t}"
                );
            }
        }
    }

    #[test]
    fn beale_coefficients_match_transfer_matrix_count() {
        // Exact integers: equality.
        for (n, m) in [(6, 6), (6, 7), (7, 6), (8, 8), (6, 9)] {
            let counts = transfer_matrix_broken_bond_counts(n, m, 10);
            let g: Vec<u64> = (0..6).map(|k| counts[2 * k]).collect();
            assert_eq!(g, beale_low_coefficients(n, m), "{n} x {m}");
            assert!(counts.iter().skip(1).step_by(2).all(|&c| c == 0));
        }
    }

    #[test]
    fn kaufman_low_temperature_expansion_matches_beale_coefficients() {
        // R(x) = e^{−2NK} Z − Σ_{k≤5} g_k x^{2k} must be the rest of the series,
        // g₆x¹² + g₇x¹⁴ + g₈x¹⁶ + …, with g₆…g₈ from the exact transfer-matrix count.
        // Tolerance: twice the g₈ term (the series has N x⁴ ≤ 0.007, so each further term is
        // smaller than the previous) plus the rounding of e^{ln Z − 2NK}, ~ε·(magnitude of
        // the ~4n logarithms summed, each ≲ 2mK) ≤ 16·n·m·K·ε absolute.
        for (n, m) in [(8, 8), (6, 7)] {
            let counts = transfer_matrix_broken_bond_counts(n, m, 16);
            let g: Vec<f64> = (0..=8).map(|k| counts[2 * k] as f64).collect();
            let size = (n * m) as f64;
            let residual = |x: f64| {
                let k = -0.5 * x.ln();
                let scaled = (kaufman_log_z(n, m, 1.0 / k) - 2.0 * size * k).exp();
                let head: f64 = (0..6).map(|j| g[j] * x.powi(2 * j as i32)).sum();
                let noise = 16.0 * size * k * EPS;
                (scaled - head, noise)
            };
            let mut ratio_inputs = vec![];
            for x in [0.1, 0.05] {
                let (r, noise) = residual(x);
                let predicted = g[6] * x.powi(12) + g[7] * x.powi(14);
                let bound = 2.0 * g[8] * x.powi(16) + noise;
                eprintln!(
                    "{n}x{m} x={x}: R = {r:.6e}, g6 x^12 + g7 x^14 = {predicted:.6e}, |diff| = {:.1e} (bound {bound:.1e})",
                    (r - predicted).abs()
                );
                assert!((r - predicted).abs() <= bound, "{n}x{m} x={x}");
                // R is O(x¹²): |R| ≤ 2 g₆ x¹² (g₇x²/g₆ < 1 checked below).
                assert!(r.abs() <= 2.0 * g[6] * x.powi(12) + noise);
                ratio_inputs.push(r);
            }
            // Halving x must divide R by ≈ 2¹²: log₂ ratio = 12 + log₂[(1 + ρ)/(1 + ρ/4)] with
            // ρ = g₇x²/g₆ at x = 0.1, i.e. within log₂(1 + ρ) of 12, plus the noise above.
            let rho = g[7] * 0.01 / g[6];
            assert!(rho < 1.0);
            let power = (ratio_inputs[0] / ratio_inputs[1]).log2();
            eprintln!("{n}x{m}: log2 R(0.1)/R(0.05) = {power:.4} (rho = {rho:.3})");
            assert!(
                (power - 12.0).abs() <= (1.0 + rho).log2() + 0.01,
                "{n}x{m}: {power}"
            );
        }
    }

    #[test]
    fn kaufman_energy_approaches_onsager_on_large_lattices() {
        // Away from T_c the finite-size corrections on a torus are ~e^{−L/ξ} with ξ ≲ 2 at
        // these T, i.e. nothing at L = 512; what remains is rounding of the O(n) mode sums
        // (~1e-14). Tolerance 1e-12 for u and c (the requested 1e-4 a fortiori).
        for t in [1.5, 2.0, 3.0] {
            let (e, u) = (
                kaufman_energy_per_spin(512, 512, t),
                onsager_energy_per_spin(t),
            );
            let c = kaufman_specific_heat_per_spin(512, 512, t);
            let c_inf = onsager_specific_heat_per_spin(t);
            eprintln!(
                "512x512 T={t}: |u_K − u_O| = {:.1e}, |c_K − c_O| = {:.1e}",
                (e - u).abs(),
                (c - c_inf).abs()
            );
            assert!(
                (e - u).abs() <= 1e-12 && (c - c_inf).abs() <= 1e-12,
                "T = {t}"
            );
        }
    }

    #[test]
    fn kaufman_analytic_derivatives_match_finite_differences_up_to_256() {
        // Cross-check of the analytic derivatives where enumeration is impossible. With
        // f(K) = ln Z/N and the 4th-order stencil D[g](K) = [g(K−2h) − 8g(K−h) + 8g(K+h)
        // − g(K+2h)]/12h, h = 2e-5: u = −D[f], c = −K² D[u].
        // Rounding: f and u carry ≲ 1e-14 relative error → ≤ 1.5·1e-14/h ≈ 1e-9 (times K²
        // for c). Truncation h⁴|g⁽⁵⁾|/30: g⁽⁵⁾ = O(1) off T_c and ≲ L³ (f) or L⁴ (u) at
        // T_c for L = 256, i.e. ≤ 2.3e-11. Tolerance 1e-8 relative.
        let h = 2e-5;
        let stencil = |g: &dyn Fn(f64) -> f64, k: f64| {
            (g(k - 2.0 * h) - 8.0 * g(k - h) + 8.0 * g(k + h) - g(k + 2.0 * h)) / (12.0 * h)
        };
        let mut worst: f64 = 0.0;
        for (n, m) in [
            (2, 256),
            (256, 2),
            (16, 16),
            (37, 101),
            (64, 64),
            (256, 256),
        ] {
            let size = (n * m) as f64;
            let f = |k: f64| kaufman_log_z(n, m, 1.0 / k) / size;
            let u = |k: f64| kaufman_energy_per_spin(n, m, 1.0 / k);
            for t in [1.5, 2.0, CRITICAL_TEMPERATURE, 2.3, 3.0, 5.0] {
                let k = 1.0 / t;
                let d_u = rel(kaufman_energy_per_spin(n, m, t), -stencil(&f, k));
                let d_c = rel(
                    kaufman_specific_heat_per_spin(n, m, t),
                    -k * k * stencil(&u, k),
                );
                worst = worst.max(d_u).max(d_c);
                assert!(d_u <= 1e-8 && d_c <= 1e-8, "{n}x{m} T={t}: {d_u:e} {d_c:e}");
            }
        }
        eprintln!("Kaufman analytic vs finite-difference derivatives: max rel dev {worst:.1e}");
    }

    #[test]
    fn kaufman_is_continuous_where_the_sign_changing_factor_switches_form() {
        // 2 sinh x₀ (x₀ = mγ₀/2) is handled in log form for |x₀| ≥ 1 and as explicit values
        // below; both are exact, so u and c must agree on either side of |x₀| = 1 up to
        // rounding plus the true change over δK = 2e-12 (|c'|·δK ≲ 1e-9). Tolerance 1e-9.
        for (n, m) in [(4, 4), (8, 8), (64, 64), (256, 256), (5, 300)] {
            for target in [1.0, -1.0] {
                // Solve m(2K + ln tanh K)/2 = target by bisection (γ₀ increases with K).
                let (mut lo, mut hi) = (0.05_f64, 5.0_f64);
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    let x0 = 0.5 * m as f64 * (2.0 * mid + mid.tanh().ln());
                    if x0 < target { lo = mid } else { hi = mid }
                }
                let k = 0.5 * (lo + hi);
                let (below, above) = (1.0 / (k - 1e-12), 1.0 / (k + 1e-12));
                let du = rel(
                    kaufman_energy_per_spin(n, m, below),
                    kaufman_energy_per_spin(n, m, above),
                );
                let dc = rel(
                    kaufman_specific_heat_per_spin(n, m, below),
                    kaufman_specific_heat_per_spin(n, m, above),
                );
                assert!(
                    du <= 1e-9 && dc <= 1e-9,
                    "{n}x{m} x0 = {target}: {du:e} {dc:e}"
                );
            }
        }
    }

    #[test]
    fn kaufman_is_finite_and_extensive_at_1024x1024() {
        // No overflow: ln Z ~ 2e6 is finite, and ln Z/N agrees between 512² and 1024²
        // (finite-size corrections ~e^{−L/ξ}; rounding ~1e-13) at and away from T_c (at
        // T_c the corrections are O(1/N): 1e-5 is generous).
        for t in [0.1, 1.0, 2.0, CRITICAL_TEMPERATURE, 3.0, 50.0] {
            let big = kaufman_log_z(1024, 1024, t) / (1024.0 * 1024.0);
            let small = kaufman_log_z(512, 512, t) / (512.0 * 512.0);
            assert!(
                big.is_finite() && rel(big, small) <= 1e-5,
                "T = {t}: {big} vs {small}"
            );
            assert!(kaufman_energy_per_spin(1024, 1024, t).is_finite());
            assert!(kaufman_specific_heat_per_spin(1024, 1024, t).is_finite());
        }
    }

    #[test]
    fn kaufman_is_good_to_1e_8_across_its_accurate_range() {
        // The range the CLI accepts: all three values within 1e-8 relative of enumeration
        // at both ends and inside (documented bounds there: 2.8e-9 for C at the low end,
        // ε·T² = 5.5e-9 for E and C at the high end; the enumeration reference itself is
        // good to ~ε·T ≤ 1e-12). Tolerance 1e-8.
        let mut worst: f64 = 0.0;
        for (n, m) in [(2, 2), (3, 3), (4, 4), (2, 7), (4, 5)] {
            let counts = enumerate_broken_bond_counts(n, m);
            let size = (n * m) as f64;
            for t in [
                KAUFMAN_MIN_TEMPERATURE,
                0.5,
                2.0,
                100.0,
                KAUFMAN_MAX_TEMPERATURE,
            ] {
                let (log_z, e, c) = torus_thermodynamics(&counts, t);
                let d = [
                    rel(kaufman_log_z(n, m, t), log_z),
                    rel(size * kaufman_energy_per_spin(n, m, t), e),
                    rel(size * kaufman_specific_heat_per_spin(n, m, t), c),
                ];
                worst = d.iter().fold(worst, |a, &b| a.max(b));
                assert!(d.iter().all(|&x| x <= 1e-8), "{n}x{m} T={t}: {d:?}");
            }
        }
        eprintln!(
            "Kaufman vs enumeration over [{KAUFMAN_MIN_TEMPERATURE}, {KAUFMAN_MAX_TEMPERATURE}]: max rel dev {worst:.1e}"
        );
    }

    #[test]
    fn kaufman_obeys_the_bounds_at_the_ends_of_its_range_on_large_lattices() {
        // Laws: |E/N| ≤ 2 (each spin has two bonds of energy ±1), C ≥ 0 (a variance), and
        // ln 2 + 2NK ≤ ln Z ≤ N ln 2 + 2NK (the two ground states alone; 2^N states of
        // weight at most e^{2NK}).
        for (n, m) in [(16, 16), (64, 64), (5, 300), (1024, 1024)] {
            let size = (n * m) as f64;
            for t in [KAUFMAN_MIN_TEMPERATURE, KAUFMAN_MAX_TEMPERATURE] {
                let k = 1.0 / t;
                let (log_z, e, c) = (
                    kaufman_log_z(n, m, t),
                    kaufman_energy_per_spin(n, m, t),
                    kaufman_specific_heat_per_spin(n, m, t),
                );
                assert!(e.abs() <= 2.0 && c >= 0.0, "{n}x{m} T={t}: {e} {c}");
                // Rounding of ln Z: ~1e-14 relative (tolerance 1e-12 · ln Z).
                let slack = 1e-12 * log_z;
                assert!(log_z >= LN_2 + 2.0 * size * k - slack, "{n}x{m} T={t}");
                assert!(
                    log_z <= size * LN_2 + 2.0 * size * k + slack,
                    "{n}x{m} T={t}"
                );
            }
        }
    }

    #[test]
    fn kaufman_high_temperature_end_matches_the_high_temperature_series() {
        // With v = tanh K and sides ≥ 5 (no winding loop shorter than 5): ln Z = N ln 2 +
        // 2N ln cosh K + N v⁴ + O(N v⁵), so E/N = −2v − 4v³(1 − v²) + O(5v⁴) and
        // C/N = K²[2(1 − v²) + 12v²(1 − v²)² − 8v⁴(1 − v²)] + O(20 K² v³). At T = 5000 the
        // omitted terms are ~1e-14 of E and C; Kaufman's documented error is ε·T² = 5.5e-9.
        // Tolerance 1e-8 relative, on lattices far too large to enumerate.
        let t = KAUFMAN_MAX_TEMPERATURE;
        let k = 1.0 / t;
        let v = k.tanh();
        let w = 1.0 - v * v;
        let e_series = -2.0 * v - 4.0 * v.powi(3) * w;
        let c_series = k * k * (2.0 * w + 12.0 * v * v * w * w - 8.0 * v.powi(4) * w);
        for (n, m) in [(5, 5), (8, 8), (64, 64), (256, 256), (1024, 1024)] {
            let de = rel(kaufman_energy_per_spin(n, m, t), e_series);
            let dc = rel(kaufman_specific_heat_per_spin(n, m, t), c_series);
            assert!(de <= 1e-8 && dc <= 1e-8, "{n}x{m}: {de:e} {dc:e}");
        }
    }

    #[test]
    fn kaufman_log_z_and_energy_stay_exact_at_low_temperature() {
        // cosh 2K · sinh² 2K overflowed from T ≈ 0.0085 down (NaN for E and C, and for ln Z
        // from T ≈ 0.0057): now ln Z and E match enumeration (relative 1e-15: E = −2 and
        // ln Z = 2NK + ln 2 to all digits) down to T = 0.003, where sinh 2K itself is near
        // overflow. (C is not claimed there: see KAUFMAN_MIN_TEMPERATURE.)
        for (n, m) in [(2, 2), (3, 3), (4, 4)] {
            let counts = enumerate_broken_bond_counts(n, m);
            let size = (n * m) as f64;
            for t in [0.003, 0.005, 0.008, 0.01, 0.05] {
                let (log_z, e, _) = torus_thermodynamics(&counts, t);
                assert!(rel(kaufman_log_z(n, m, t), log_z) <= 1e-15, "{n}x{m} T={t}");
                assert!(
                    rel(size * kaufman_energy_per_spin(n, m, t), e) <= 1e-15,
                    "{n}x{m} T={t}"
                );
            }
        }
    }
}
