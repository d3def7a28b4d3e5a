//! ln Z of a restricted machine by annealed importance sampling, in the form of
//! Salakhutdinov & Murray (2008).
//!
//! The base model A has no weights and no hidden biases, and visible biases a_A (the log
//! base rates of the data, [`crate::model::rbm::base_rate_biases`], or 0 for a uniform base):
//! p_A(v) = Π_i σ(a_A,i)^{v_i} (1 − σ(a_A,i))^{1−v_i}, ln Z_A = Σ_i ln(1 + e^{a_A,i}) + H ln 2.
//! The target B is the machine (W, a, b). The intermediate distributions, for
//! 0 = β_0 < β_1 < … < β_K = 1, are the machines with weights β W, hidden biases β b and
//! visible biases (1 − β) a_A + β a, with the hidden layer summed out in closed form:
//!
//!   ln p*_β(v) = ((1 − β) a_A + β a)·v + Σ_j ln(1 + e^{β (b_j + (vW)_j)}),
//!
//! so p*_0(v) = 2^H e^{a_A·v}, whose sum over v is Z_A, and p*_1(v) = e^{−F(v)}, whose sum
//! is Z_B. One run draws v_1 ~ p_A
//! exactly and, for k = 1 … K, adds ln p*_{β_k}(v_k) − ln p*_{β_{k−1}}(v_k) to its log
//! weight and (for k < K) moves v_k → v_{k+1} by one block Gibbs step of the machine at
//! β_k, which leaves p_{β_k} invariant. Then E\[w\] = Z_B/Z_A, and over M runs
//!
//!   ln Ẑ_B = ln Z_A + ln((1/M) Σ_r w_r),
//!
//! with the standard error of the delta method, sd(w)/(√M mean(w)), computed relative to
//! the largest weight ([`crate::log_sum_exp::log_mean_and_spread`]). Ẑ is unbiased; ln Ẑ is
//! biased low by about stderr²/2 and is a stochastic lower bound (Markov:
//! P(ln Ẑ > ln Z + t) ≤ e^{−t}). The error bar is honest when the weights are even:
//! `effective_runs` = (Σ w)²/Σ w² should be a good fraction of M.
//!
//! **A label group** ([`RbmPath::with_label_group`], [`AisRuns::with_label_group`]): when
//! the last K visible units are a one-of-K label y (the machine with labels of
//! [`crate::model::rbm_labels`]), the visible vectors are [v, e_y] and every formula above
//! holds term by term over them; only the sums over y and the label's draws change. The base
//! is p_A(v, y) = Π_i σ(a_A,i)^{v_i}(1 − σ(a_A,i))^{1−v_i} · softmax(a_A,label)_y, so
//! ln Z_A = Σ_{image i} ln(1 + e^{a_A,i}) + ln Σ_y e^{a_A,y} + H ln 2; each run starts with
//! y drawn from that softmax, and the block Gibbs step at β draws y ~ softmax over the group
//! of (1 − β) a_A + β(c + U h) after the image's bits. Then ln Ẑ estimates
//! ln Z = ln Σ_{v, y} e^{−F(v, y)}, and ln p(v) = ln Σ_y e^{−F(v, y)} − ln Z.
//!
//! The runs are driven by the engine's one AIS driver, [`super::ais::Ais`]; this module is
//! the path ([`RbmPath`]). Per β and batch of B runs the work is two products, B × V
//! by V × H for the hidden inputs and B × H by H × V for the visible ones, both in
//! [`batch_product`]; with the paper's 100 runs at 784-500 that is 2 · 100 · 784 · 500
//! multiply-adds per β, 1.1·10¹² for the 14 500 β (fewer here: only the units that are
//! on add their row).

use super::ais::{Ais, AisPath};
pub use super::ais::{AisEstimate, AisSchedule};
use super::log_z::{MAX_AIS_RUNS, MIN_AIS_RUNS};
use super::rbm_exact::{LANES, PAD_BIAS, available_threads, exp_neg, softplus_sum};
use crate::dynamics::rbm::sample_bits;
use crate::dynamics::rbm_labels::sample_label;
use crate::error::ParamError;
use crate::log_sum_exp::LogSumExp;
use crate::model::rbm::Rbm;
use crate::model::rbm::{sigmoid, softplus};

/// σ(x) = 1/(1 + e^{−x}) from y = e^{−|x|} ([`exp_neg`], a polynomial that vectorises):
/// 1/(1 + y) for x ≥ 0, y/(1 + y) below (relative error a few 2^−53).
#[inline(always)]
fn logistic(x: f64) -> f64 {
    let y = exp_neg(x.abs().min(708.0));
    let r = 1.0 / (1.0 + y);
    if x >= 0.0 { r } else { y * r }
}
use crate::rng::{SpinRng, seeded_rng};

/// Most multiply-adds one estimate may cost, M·K·2VH: 2^41 ≈ 2.2·10¹², so that the paper's
/// estimate for a 784-500 machine (100 runs × 14 500 steps × 2 · 784 · 500 = 1.14·10¹²)
/// fits (twice the general estimators' [`super::log_z::MAX_WORK`]; only the rows of the
/// units that are on are added, so the real work is smaller).
pub const MAX_AIS_WORK: u128 = 1 << 41;

/// Most runs that step through β together (one batch): 100, the paper's runs.
pub const MAX_BATCH: usize = 100;

/// ln Z of `rbm` by AIS from the base model with visible biases `base` (length V, finite)
/// through `schedule`, with `runs` independent runs (2 ≤ M ≤ 10⁶, field `runs`), run r on
/// the stream of [`super::ais::run_seed`](seed, r), natively on every core. Work M·K·2VH
/// must stay within [`MAX_AIS_WORK`] = 2^41 (field `runs × steps`). It is [`AisRuns`]
/// advanced to the end.
pub fn ais_log_z(
    rbm: &Rbm,
    base: &[f64],
    schedule: &AisSchedule,
    runs: u64,
    seed: u64,
) -> Result<AisEstimate, ParamError> {
    let mut ais = AisRuns::new(rbm, base, schedule, runs, seed)?.with_threads(available_threads());
    ais.advance(rbm, u64::MAX);
    Ok(ais.estimate().expect("every run is done"))
}

/// AIS runs of a restricted machine under way ([`ais_log_z`]'s), advanced a given number
/// of run-steps at a time, so that a page can spread one estimate over many frames. Each
/// run draws from its own stream, so the estimate is bit for bit [`ais_log_z`]'s however
/// the work is sliced or threaded (tests/rbm.rs).
#[derive(Debug, Clone)]
pub struct AisRuns {
    base: Vec<f64>,
    hidden: usize,
    /// The label group's size K (the last K visible units), 0 without one.
    labels: usize,
    ais: Ais<RbmRun>,
}

impl AisRuns {
    /// `runs` runs of `rbm` from the base `base` through `schedule` on the streams of
    /// `seed`, none done yet, on one thread; checked as [`ais_log_z`] checks them.
    pub fn new(
        rbm: &Rbm,
        base: &[f64],
        schedule: &AisSchedule,
        runs: u64,
        seed: u64,
    ) -> Result<AisRuns, ParamError> {
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        if base.len() != nv || base.iter().any(|x| !x.is_finite()) {
            return Err(ParamError::Invalid {
                field: "base biases",
                reason: format!("need {nv} finite values, got {}", base.len()),
            });
        }
        if !(MIN_AIS_RUNS..=MAX_AIS_RUNS).contains(&runs) {
            return Err(ParamError::OutOfRange {
                field: "runs",
                value: runs as f64,
                min: MIN_AIS_RUNS as f64,
                max: MAX_AIS_RUNS as f64,
            });
        }
        let betas = schedule.betas();
        let work = u128::from(runs) * betas.len() as u128 * 2 * (nv * nh) as u128;
        if work > MAX_AIS_WORK {
            return Err(ParamError::Invalid {
                field: "runs × steps",
                reason: format!(
                    "{runs} runs of {} steps cost {work} multiply-adds, beyond the limit 2^41",
                    betas.len() - 1
                ),
            });
        }
        let batch = (runs as usize).min(MAX_BATCH);
        Ok(AisRuns {
            base: base.to_vec(),
            hidden: nh,
            labels: 0,
            ais: Ais::new(betas, runs, batch, seed),
        })
    }

    /// The same runs for a machine whose last `labels` visible units are a one-of-K label
    /// group (module notes): 2 ≤ K < V (error names `labels`); before any step.
    pub fn with_label_group(mut self, labels: usize) -> Result<AisRuns, ParamError> {
        let visible = self.base.len();
        if labels < 2 || labels >= visible {
            return Err(ParamError::OutOfRange {
                field: "labels",
                value: labels as f64,
                min: 2.0,
                max: visible.saturating_sub(1) as f64,
            });
        }
        self.labels = labels;
        Ok(self)
    }

    /// The same runs with whole rounds of a batch shared among `threads` threads natively;
    /// the estimate does not change.
    pub fn with_threads(mut self, threads: usize) -> AisRuns {
        self.ais = self.ais.with_threads(threads);
        self
    }

    /// The steps every run takes (K) times the runs: the whole job in [`AisRuns::advance`]'s
    /// units.
    pub fn total_steps(&self) -> u64 {
        self.ais.total_steps()
    }

    /// The steps done so far, in [`AisRuns::advance`]'s units.
    pub fn steps_done(&self) -> u64 {
        self.ais.steps_done()
    }

    /// Does up to `steps` run-steps (each adds ln p*_{β_k}(v_k) − ln p*_{β_{k−1}}(v_k) to a
    /// run's log weight and moves v_k → v_{k+1} by one block Gibbs step at β_k; the module
    /// notes). `rbm` must be the machine the runs were made for. Returns whether every run
    /// is done.
    pub fn advance(&mut self, rbm: &Rbm, steps: u64) -> bool {
        let path = RbmPath::new(rbm, &self.base).with_label_group(self.labels);
        self.ais.advance(&path, steps)
    }

    /// The estimate, once every run is done.
    pub fn estimate(&self) -> Option<AisEstimate> {
        self.ais
            .estimate(log_z_base_with_labels(&self.base, self.hidden, self.labels))
    }
}

/// ln Z_A = Σ_i ln(1 + e^{a_A,i}) + H ln 2 of the base model with visible biases `base`
/// and `hidden` hidden units.
pub fn log_z_base(base: &[f64], hidden: usize) -> f64 {
    log_z_base_with_labels(base, hidden, 0)
}

/// ln Z_A of the base model whose last `labels` visible units are a one-of-K group (0: none):
/// Σ_{image i} ln(1 + e^{a_A,i}) + ln Σ_{label k} e^{a_A,k} + H ln 2.
pub fn log_z_base_with_labels(base: &[f64], hidden: usize, labels: usize) -> f64 {
    let (image, group) = base.split_at(base.len() - labels);
    let mut sum = image.iter().map(|&a| softplus(a)).sum::<f64>();
    if labels > 0 {
        let mut exponents = LogSumExp::new();
        for &a in group {
            exponents.push(a);
        }
        sum += exponents.value();
    }
    sum + hidden as f64 * core::f64::consts::LN_2
}

/// One AIS run of a restricted machine: its visible state v_k and its random stream.
#[derive(Debug, Clone)]
pub struct RbmRun {
    v: Vec<u8>,
    rng: SpinRng,
}

/// The path from the base model A (visible biases a_A, no weights) to the machine B
/// (module notes): ln p*_β(v) = ((1 − β) a_A + β a)·v + Σ_j ln(1 + e^{β c_j}), c = b + vW,
/// and the block Gibbs step at β: h ~ σ(β c), then v ~ σ((1 − β) a_A + β(a + W h)).
#[derive(Debug, Clone)]
pub struct RbmPath<'a> {
    rbm: &'a Rbm,
    base: &'a [f64],
    /// a − a_A, for the linear part of the weight increment.
    bias_change: Vec<f64>,
    /// σ(a_A), p_A's unit probabilities (for the label group: its softmax).
    base_probabilities: Vec<f64>,
    /// The label group's size K (the last K visible units), 0 without one.
    labels: usize,
}

impl<'a> RbmPath<'a> {
    /// The path of `rbm` from the base with visible biases `base` (length V, checked by
    /// [`AisRuns::new`]).
    pub fn new(rbm: &'a Rbm, base: &'a [f64]) -> RbmPath<'a> {
        RbmPath {
            rbm,
            base,
            bias_change: rbm
                .visible_biases()
                .iter()
                .zip(base)
                .map(|(a, a0)| a - a0)
                .collect(),
            base_probabilities: base.iter().map(|&x| sigmoid(x)).collect(),
            labels: 0,
        }
    }

    /// The same path with the last `labels` visible units a one-of-K label group (module
    /// notes; 0 for none; checked by [`AisRuns::with_label_group`]).
    pub fn with_label_group(mut self, labels: usize) -> RbmPath<'a> {
        if labels > 0 {
            let group = self.base.len() - labels;
            self.base_probabilities[group..].copy_from_slice(&self.base[group..]);
            softmax(&mut self.base_probabilities[group..]);
        }
        self.labels = labels;
        self
    }
}

/// x ← e^x / Σ e^x in place (relative to the largest, so nothing overflows).
fn softmax(x: &mut [f64]) {
    let mut sum = LogSumExp::new();
    for &e in x.iter() {
        sum.push(e);
    }
    let log_sum = sum.value();
    for e in x.iter_mut() {
        *e = libm::exp(*e - log_sum);
    }
}

/// Draws `v`'s last `labels` units as one one-hot label from the law `q` (Σ q = 1), by
/// [`sample_label`]: one draw of `rng`.
fn draw_label_group(q: &[f64], v: &mut [u8], labels: usize, rng: &mut SpinRng) {
    let group = v.len() - labels;
    let y = sample_label(q, rng);
    for (k, unit) in v[group..].iter_mut().enumerate() {
        *unit = u8::from(k == y);
    }
}

/// A batch's working memory: V (B × V, 0/1), the hidden inputs c (B × H), H (B × H, 0/1),
/// the visible inputs (B × V), one row of probabilities, and β c padded to a multiple of
/// [`LANES`] with the factors of [`softplus_sum`].
#[derive(Debug, Clone)]
pub struct RbmScratch {
    visible: Vec<u8>,
    hidden_input: Vec<f64>,
    hidden: Vec<u8>,
    visible_input: Vec<f64>,
    probabilities: Vec<f64>,
    scaled: Vec<f64>,
    factors: Vec<f64>,
}

/// Σ_j ln(1 + e^{β c_j}) by [`softplus_sum`], β c written into the head of `scaled` (its
/// padded tail holds [`PAD_BIAS`]).
fn scaled_softplus_sum(scaled: &mut [f64], factors: &mut [f64], beta: f64, c: &[f64]) -> f64 {
    for (x, &cj) in scaled.iter_mut().zip(c) {
        *x = beta * cj;
    }
    softplus_sum(scaled, factors)
}

impl AisPath for RbmPath<'_> {
    type Run = RbmRun;
    type Scratch = RbmScratch;

    fn log_z_base(&self) -> f64 {
        log_z_base_with_labels(self.base, self.rbm.hidden(), self.labels)
    }

    /// v_1 ~ p_A: the image's bits, then (with a label group) the label from its softmax.
    fn start(&self, seed: u64) -> RbmRun {
        let mut rng = seeded_rng(seed);
        let nv = self.rbm.visible();
        let image = nv - self.labels;
        let mut v = vec![0; nv];
        sample_bits(&self.base_probabilities[..image], &mut v[..image], &mut rng);
        if self.labels > 0 {
            draw_label_group(
                &self.base_probabilities[image..],
                &mut v,
                self.labels,
                &mut rng,
            );
        }
        RbmRun { v, rng }
    }

    fn scratch(&self, runs: usize) -> RbmScratch {
        let (nv, nh) = (self.rbm.visible(), self.rbm.hidden());
        RbmScratch {
            visible: vec![0; runs * nv],
            hidden_input: vec![0.0; runs * nh],
            hidden: vec![0; runs * nh],
            visible_input: vec![0.0; runs * nv],
            probabilities: vec![0.0; nv.max(nh)],
            scaled: {
                let mut padded = vec![0.0; nh];
                padded.resize(nh.div_ceil(LANES) * LANES, PAD_BIAS);
                padded
            },
            factors: vec![0.0; nh.div_ceil(LANES) * LANES],
        }
    }

    /// The weight increment (β_to − β_from)(a − a_A)·v + Σ_j softplus(β_to c_j) −
    /// Σ_j softplus(β_from c_j) (each sum by [`softplus_sum`], to about 10⁻¹⁵ relative),
    /// then h ~ σ(β_to c) and v ~ σ((1 − β_to) a_A + β_to(a + Wh)) (`logistic`), each
    /// run drawing from its own stream (hidden units first, then visible).
    fn step(
        &self,
        runs: &mut [RbmRun],
        log_weights: &mut [f64],
        from: f64,
        to: f64,
        transition: bool,
        s: &mut RbmScratch,
    ) {
        let (nv, nh) = (self.rbm.visible(), self.rbm.hidden());
        let b = runs.len();
        for (row, run) in s.visible.chunks_exact_mut(nv).zip(runs.iter()) {
            row.copy_from_slice(&run.v);
        }
        let c = &mut s.hidden_input[..b * nh];
        batch_product(
            &s.visible[..b * nv],
            nv,
            |i| self.rbm.weight_row(i),
            self.rbm.hidden_biases(),
            c,
        );
        for (r, (run, weight)) in runs.iter_mut().zip(log_weights.iter_mut()).enumerate() {
            let c_r = &c[r * nh..(r + 1) * nh];
            let linear: f64 = run
                .v
                .iter()
                .zip(&self.bias_change)
                .map(|(&v, &d)| f64::from(v) * d)
                .sum();
            let hidden = scaled_softplus_sum(&mut s.scaled, &mut s.factors, to, c_r)
                - scaled_softplus_sum(&mut s.scaled, &mut s.factors, from, c_r);
            *weight += (to - from) * linear + hidden;
            if transition {
                let p = &mut s.probabilities[..nh];
                for (p, &cj) in p.iter_mut().zip(c_r) {
                    *p = logistic(to * cj);
                }
                sample_bits(p, &mut s.hidden[r * nh..(r + 1) * nh], &mut run.rng);
            }
        }
        if !transition {
            return;
        }
        let x = &mut s.visible_input[..b * nv];
        batch_product(
            &s.hidden[..b * nh],
            nh,
            |j| self.rbm.weight_column(j),
            self.rbm.visible_biases(),
            x,
        );
        let image = nv - self.labels;
        for (r, run) in runs.iter_mut().enumerate() {
            let p = &mut s.probabilities[..nv];
            let x_r = &x[r * nv..(r + 1) * nv];
            for ((p, &x), &a0) in p[..image].iter_mut().zip(x_r).zip(self.base) {
                *p = logistic((1.0 - to) * a0 + to * x);
            }
            sample_bits(&p[..image], &mut run.v[..image], &mut run.rng);
            if self.labels > 0 {
                let q = &mut p[image..];
                for ((q, &x), &a0) in q.iter_mut().zip(&x_r[image..]).zip(&self.base[image..]) {
                    *q = (1.0 - to) * a0 + to * x;
                }
                softmax(q);
                draw_label_group(q, &mut run.v, self.labels, &mut run.rng);
            }
        }
    }

    fn cost(&self) -> u64 {
        2 * (self.rbm.visible() * self.rbm.hidden()) as u64
    }
}

/// out = bias + S M for a batch: row r of `out` (length m) is bias + Σ_{i: S_ri = 1}
/// M_i, for S the 0/1 batch `states` (B × n, row-major) and M_i = `row(i)` (length m).
/// The rows of M are the outer loop, so each is read once per batch (from L1) and added
/// to every run that has unit i on; each out element still adds its rows in increasing
/// i. The one place AIS multiplies: the dense f32 product S · M (B × n by n × m) of a
/// matrix-product module can replace it, with f64 accumulation of its result.
pub fn batch_product<'m>(
    states: &[u8],
    n: usize,
    row: impl Fn(usize) -> &'m [f64],
    bias: &[f64],
    out: &mut [f64],
) {
    let m = bias.len();
    for o in out.chunks_exact_mut(m) {
        o.copy_from_slice(bias);
    }
    for i in 0..n {
        let w = row(i);
        for (s, o) in states.chunks_exact(n).zip(out.chunks_exact_mut(m)) {
            if s[i] == 1 {
                for (x, &wk) in o.iter_mut().zip(w) {
                    *x += wk;
                }
            }
        }
    }
}
