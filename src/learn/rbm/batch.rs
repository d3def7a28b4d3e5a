//! Training a restricted machine in f32, a whole mini-batch at a time, with dense products
//! ([`crate::linalg`]): the speed of MNIST-sized machines.
//!
//! One update on a batch V₀ of B rows (B × V, 0/1) with C free chains X (CD-k: C = B chains
//! started at V₀; persistent: the C = K particles):
//!
//!   P₀ = σ(V₀ W + b)                               (B × H, the exact clamped phase)
//!   k times:  H ~ P,  P_V = σ(H Wᵀ + a),  X ~ P_V,  P = σ(X W + b)
//!   g_W = V₀ᵀ P₀ / B − Xᵀ P / C,   g_a = mean(V₀) − mean(X),   g_b = mean(P₀) − mean(P)
//!
//! (the free phase enters as x_i p(h_j | x), the hidden layer summed out, as in
//! [`super::statistics`]), then the update rule of [`super::training`]:
//!
//!   u ← μ u + ε_t (g − λ W),  W ← W + u   (biases without decay).
//!
//! Five products of B·V·H multiply-adds each for CD-1. σ and the sampling are vectorised
//! f32 loops ([`crate::linalg::elementwise`]); the means are summed in f64. The result is
//! an ordinary [`Rbm`] (f64) for evaluation: ln Z and likelihoods stay f64.
//!
//! What is promised: the same seed, data, options and thread count on the same platform
//! give the same weights bit for bit. Native and wasm products round differently (FMA,
//! summation order), so a run there agrees with a native one within f32 rounding for as
//! long as no sampled bit differs, and then becomes a different sample path of the same
//! process (tests/linalg.rs and tests/web_linalg.rs check the products' bound on both).
//! The f64 [`super::RbmTrainer`] keeps its promise of equal bits natively and in wasm.

use super::statistics::Statistics;
use super::training::TrainingOptions;
use crate::error::ParamError;
use crate::learn::{DIVERGENCE_LIMIT, check_patterns, diverged};
use crate::linalg::elementwise::{
    add_bias_sigmoid, add_column_sums, apply_step, momentum_step, sample_below,
};
use crate::linalg::{Layout, Product, multiply};
use crate::model::rbm::Rbm;
use crate::rng::{SpinRng, random_index, seeded_rng};
use rand::Rng;

/// A restricted machine trained in f32 on fixed data, one dense mini-batch update at a
/// time (CD-k or persistent chains; see the module's formulas). Nothing is allocated per
/// update.
#[derive(Debug, Clone)]
pub struct BatchTrainer {
    visible: usize,
    hidden: usize,
    /// W, V × H row-major; a; b.
    weights: Vec<f32>,
    visible_biases: Vec<f32>,
    hidden_biases: Vec<f32>,
    /// Momentum velocities, in the parameters' shapes.
    velocity_weights: Vec<f32>,
    velocity_visible: Vec<f32>,
    velocity_hidden: Vec<f32>,
    /// The last gradient g_W, g_a, g_b.
    gradient_weights: Vec<f32>,
    gradient_visible: Vec<f32>,
    gradient_hidden: Vec<f32>,
    options: TrainingOptions,
    data: Vec<u8>,
    order: Vec<usize>,
    cursor: usize,
    /// The free chains' visible states (C × V, 0/1): the persistent particles, or (CD-k)
    /// the batch's chains after the last update.
    chains: Vec<f32>,
    persistent: bool,
    /// Scratch: the batch V₀ (B × V), P₀ (B × H), hidden samples and probabilities of the
    /// chains (C × H), visible probabilities (C × V), 32-bit draws, f64 column sums.
    batch_visible: Vec<f32>,
    batch_hidden: Vec<f32>,
    chain_hidden: Vec<f32>,
    chain_hidden_probabilities: Vec<f32>,
    chain_visible_probabilities: Vec<f32>,
    draws: Vec<u32>,
    sums: Vec<f64>,
    /// The next velocities of W, a and b, one after the other (checked before written).
    step: Vec<f32>,
    rng: SpinRng,
    threads: usize,
    updates: u64,
    diverged: Option<ParamError>,
}

impl BatchTrainer {
    /// A trainer of `rbm` (its parameters rounded to f32) on `patterns` (each V values 0/1)
    /// with `options` ([`TrainingOptions::check`]), the products on up to `threads` threads
    /// (natively; 1 in wasm). Statistics: CD-k or persistent; parallel tempering is refused
    /// (error names `statistics`). The generator of `options.seed` draws the persistent
    /// particles (each visible unit on with probability ½), then the first shuffle, as
    /// [`super::RbmTrainer`] does.
    pub fn new(
        rbm: &Rbm,
        patterns: &[Vec<u8>],
        options: TrainingOptions,
        threads: usize,
    ) -> Result<BatchTrainer, ParamError> {
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        check_patterns(patterns, nv)?;
        options.check(patterns.len(), nv, nh)?;
        let persistent = match options.statistics {
            Statistics::ContrastiveDivergence { .. } => false,
            Statistics::Persistent { .. } => true,
            Statistics::ParallelTempering { .. } => {
                return Err(ParamError::Invalid {
                    field: "statistics",
                    reason: "the batch trainer runs CD-k or persistent chains, not tempering"
                        .into(),
                });
            }
        };
        whole_threads(threads)?;
        let chains = options.statistics.chains(options.batch);
        let b = options.batch;
        let mut rng = seeded_rng(options.seed);
        let particles = if persistent {
            (0..chains * nv)
                .map(|_| f32::from(u8::from(rng.next_u32() >> 31 == 1)))
                .collect()
        } else {
            vec![0.0; chains * nv]
        };
        let to_f32 = |x: &[f64]| x.iter().map(|&w| w as f32).collect::<Vec<f32>>();
        let mut trainer = BatchTrainer {
            visible: nv,
            hidden: nh,
            weights: to_f32(rbm.weights()),
            visible_biases: to_f32(rbm.visible_biases()),
            hidden_biases: to_f32(rbm.hidden_biases()),
            velocity_weights: vec![0.0; nv * nh],
            velocity_visible: vec![0.0; nv],
            velocity_hidden: vec![0.0; nh],
            gradient_weights: vec![0.0; nv * nh],
            gradient_visible: vec![0.0; nv],
            gradient_hidden: vec![0.0; nh],
            options,
            data: patterns.concat(),
            order: (0..patterns.len()).collect(),
            cursor: 0,
            chains: particles,
            persistent,
            batch_visible: vec![0.0; b * nv],
            batch_hidden: vec![0.0; b * nh],
            chain_hidden: vec![0.0; chains * nh],
            chain_hidden_probabilities: vec![0.0; chains * nh],
            chain_visible_probabilities: vec![0.0; chains * nv],
            draws: vec![0; chains * nv.max(nh)],
            sums: vec![0.0; nv.max(nh)],
            step: vec![0.0; nv * nh + nv + nh],
            rng,
            threads,
            updates: 0,
            diverged: None,
        };
        trainer.shuffle();
        Ok(trainer)
    }

    /// The machine as trained so far, in f64 (each f32 parameter exactly).
    pub fn rbm(&self) -> Rbm {
        let to_f64 = |x: &[f32]| x.iter().map(|&w| f64::from(w)).collect::<Vec<f64>>();
        Rbm::new(
            self.visible,
            self.hidden,
            to_f64(&self.weights),
            to_f64(&self.visible_biases),
            to_f64(&self.hidden_biases),
        )
        .expect("the parameters are kept finite within the divergence limit")
    }

    /// W in f32, V × H row-major.
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The options.
    pub fn options(&self) -> &TrainingOptions {
        &self.options
    }

    /// Updates done.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The threads the products may use.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Sets the threads the products may use (1 ≤ threads ≤ 64; error names `threads`).
    /// The result does not depend on it (the products split C, not the sums).
    pub fn set_threads(&mut self, threads: usize) -> Result<(), ParamError> {
        self.threads = whole_threads(threads)?;
        Ok(())
    }

    /// Sets the momentum μ for the later updates (0 ≤ μ < 1; error names `momentum` and
    /// nothing changes), keeping the velocities, chains and batch position: a schedule such
    /// as Salakhutdinov & Murray's μ = 0.5 for five epochs, then 0.9.
    pub fn set_momentum(&mut self, momentum: f64) -> Result<(), ParamError> {
        crate::learn::below_one("momentum", momentum)?;
        self.options.momentum = momentum;
        Ok(())
    }

    /// The last gradient: (g_W (V × H), g_a, g_b).
    pub fn gradient(&self) -> (&[f32], &[f32], &[f32]) {
        (
            &self.gradient_weights,
            &self.gradient_visible,
            &self.gradient_hidden,
        )
    }

    /// The last batch V₀ (B × V, 0/1 as f32; the last batch of an epoch may be shorter:
    /// its first rows).
    pub fn batch_visible(&self) -> &[f32] {
        &self.batch_visible
    }

    /// The free chains' visible states X after the last update (C × V, 0/1 as f32; for
    /// CD-k the first rows, one per batch vector).
    pub fn chain_visible(&self) -> &[f32] {
        &self.chains
    }

    /// Rows of the last batch.
    fn batch_rows(&self, start: usize) -> usize {
        self.options.batch.min(self.order.len() - start)
    }

    /// Estimates the gradient on the next mini-batch (the module's formulas) without
    /// changing the parameters: moves the batch position and the chains on.
    pub fn estimate_gradient(&mut self) {
        let (nv, nh) = (self.visible, self.hidden);
        let start = self.cursor;
        let rows = self.batch_rows(start);
        // V₀ as f32.
        for (r, &k) in self.order[start..start + rows].iter().enumerate() {
            let src = &self.data[k * nv..(k + 1) * nv];
            for (x, &v) in self.batch_visible[r * nv..(r + 1) * nv].iter_mut().zip(src) {
                *x = f32::from(v);
            }
        }
        let v0 = &self.batch_visible[..rows * nv];
        // P₀ = σ(V₀ W + b).
        let p0 = &mut self.batch_hidden[..rows * nh];
        let forward = Product::new(rows, nv, nh, Layout::AsStored, Layout::AsStored);
        multiply(p0, v0, &self.weights, &forward, self.threads);
        add_bias_sigmoid(p0, &self.hidden_biases);
        // Clamped phase: g_W = V₀ᵀ P₀ / B, g_a = mean V₀, g_b = mean P₀.
        let inv_b = 1.0 / rows as f64;
        let outer = Product::new(nv, rows, nh, Layout::Transposed, Layout::AsStored)
            .scaled(inv_b as f32, 0.0);
        multiply(&mut self.gradient_weights, v0, p0, &outer, self.threads);
        add_column_sums(
            v0,
            &mut self.sums[..nv],
            inv_b,
            0.0,
            &mut self.gradient_visible,
        );
        add_column_sums(
            p0,
            &mut self.sums[..nh],
            inv_b,
            0.0,
            &mut self.gradient_hidden,
        );

        // Free phase: the chains start at V₀ (CD-k) or at the particles.
        let chains = if self.persistent {
            self.chains.len() / nv
        } else {
            rows
        };
        let p = &mut self.chain_hidden_probabilities[..chains * nh];
        if self.persistent {
            let x = &self.chains[..chains * nv];
            let f = Product::new(chains, nv, nh, Layout::AsStored, Layout::AsStored);
            multiply(p, x, &self.weights, &f, self.threads);
            add_bias_sigmoid(p, &self.hidden_biases);
        } else {
            self.chains[..rows * nv].copy_from_slice(v0);
            p.copy_from_slice(p0);
        }
        let x = &mut self.chains[..chains * nv];
        let h = &mut self.chain_hidden[..chains * nh];
        let pv = &mut self.chain_visible_probabilities[..chains * nv];
        let backward = Product::new(chains, nh, nv, Layout::AsStored, Layout::Transposed);
        let forward = Product::new(chains, nv, nh, Layout::AsStored, Layout::AsStored);
        for _ in 0..self.options.statistics.steps() {
            let draws = &mut self.draws[..chains * nh];
            draws.iter_mut().for_each(|r| *r = self.rng.next_u32());
            sample_below(p, draws, h);
            multiply(pv, h, &self.weights, &backward, self.threads);
            add_bias_sigmoid(pv, &self.visible_biases);
            let draws = &mut self.draws[..chains * nv];
            draws.iter_mut().for_each(|r| *r = self.rng.next_u32());
            sample_below(pv, draws, x);
            multiply(p, x, &self.weights, &forward, self.threads);
            add_bias_sigmoid(p, &self.hidden_biases);
        }
        // g_W −= Xᵀ P / C, g_a −= mean X, g_b −= mean P.
        let inv_c = 1.0 / chains as f64;
        let outer = Product::new(nv, chains, nh, Layout::Transposed, Layout::AsStored)
            .scaled(-inv_c as f32, 1.0);
        multiply(&mut self.gradient_weights, x, p, &outer, self.threads);
        add_column_sums(
            x,
            &mut self.sums[..nv],
            -inv_c,
            1.0,
            &mut self.gradient_visible,
        );
        add_column_sums(
            p,
            &mut self.sums[..nh],
            -inv_c,
            1.0,
            &mut self.gradient_hidden,
        );

        self.cursor = start + rows;
        if self.cursor == self.order.len() {
            self.cursor = 0;
            self.shuffle();
        }
    }

    /// One mini-batch update: [`BatchTrainer::estimate_gradient`], then the rule
    /// u ← μ u + ε_t (g − λ W), W ← W + u (biases without decay). All-or-nothing: if a
    /// new parameter would be non-finite or beyond ±[`DIVERGENCE_LIMIT`], the parameters
    /// and velocities stay as they were, the error names the update and the parameter,
    /// and every later call returns it.
    pub fn update(&mut self) -> Result<(), ParamError> {
        if let Some(e) = &self.diverged {
            return Err(e.clone());
        }
        self.estimate_gradient();
        self.apply()
    }

    /// `count` updates (stops at the first error).
    pub fn run(&mut self, count: u64) -> Result<(), ParamError> {
        for _ in 0..count {
            self.update()?;
        }
        Ok(())
    }

    /// Applies the last gradient (momentum, rate, decay), all or nothing: the new
    /// velocities of all three parts are computed and checked first, then written.
    fn apply(&mut self) -> Result<(), ParamError> {
        let TrainingOptions {
            momentum,
            weight_decay,
            ..
        } = self.options;
        let rate = self.options.schedule.rate(self.options.rate, self.updates) as f32;
        let number = self.updates + 1;
        let (nv, nh) = (self.visible, self.hidden);
        let limit = DIVERGENCE_LIMIT as f32;
        let (step_w, rest) = self.step.split_at_mut(nv * nh);
        let (step_a, step_b) = rest.split_at_mut(nv);
        let parts: [Part<'_>; 3] = [
            (
                "weight",
                &self.weights,
                &self.gradient_weights,
                &self.velocity_weights,
                step_w,
                weight_decay as f32,
            ),
            (
                "visible bias a",
                &self.visible_biases,
                &self.gradient_visible,
                &self.velocity_visible,
                step_a,
                0.0,
            ),
            (
                "hidden bias b",
                &self.hidden_biases,
                &self.gradient_hidden,
                &self.velocity_hidden,
                step_b,
                0.0,
            ),
        ];
        for (name, params, grads, velocities, step, decay) in parts {
            let mut ok = [true];
            momentum_step(
                params,
                grads,
                velocities,
                step,
                [momentum as f32, rate, decay, limit],
                &mut ok,
            );
            if !ok[0] {
                let k = (0..params.len())
                    .find(|&k| !within(params[k] + step[k], limit))
                    .expect("some value is out of range");
                let which = if name == "weight" {
                    format!("weight W[{}][{}]", k / nh, k % nh)
                } else {
                    format!("{name}[{k}]")
                };
                let e = diverged(number, which, f64::from(params[k] + step[k]));
                self.diverged = Some(e.clone());
                return Err(e);
            }
        }
        let (step_w, rest) = self.step.split_at(nv * nh);
        let (step_a, step_b) = rest.split_at(nv);
        apply_step(&mut self.weights, &mut self.velocity_weights, step_w);
        apply_step(&mut self.visible_biases, &mut self.velocity_visible, step_a);
        apply_step(&mut self.hidden_biases, &mut self.velocity_hidden, step_b);
        self.updates = number;
        Ok(())
    }

    /// A new epoch order (Fisher–Yates with the run's generator); none at full batch.
    fn shuffle(&mut self) {
        if self.options.batch >= self.order.len() {
            return;
        }
        for i in (1..self.order.len()).rev() {
            let j = random_index(&mut self.rng, (i + 1) as u32) as usize;
            self.order.swap(i, j);
        }
    }
}

/// One parameter array's share of an update: its name, values, gradient, velocity, the
/// next velocity (scratch) and its decay λ.
type Part<'a> = (&'a str, &'a [f32], &'a [f32], &'a [f32], &'a mut [f32], f32);

/// Whether x is finite with |x| ≤ limit.
fn within(x: f32, limit: f32) -> bool {
    x.is_finite() && x.abs() <= limit
}

/// Checks 1 ≤ threads ≤ 64 (error names `threads`).
fn whole_threads(threads: usize) -> Result<usize, ParamError> {
    crate::error::whole_in("threads", threads as f64, 1, 64).map(|t| t as usize)
}
