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
//! Five products of B·V·H multiply-adds each for CD-1. In wasm the four whose left factor
//! is a visible 0/1 state (V₀·W, X·W, V₀ᵀ·P₀, Xᵀ·P; about 13 % ones on MNIST) are computed
//! as sums of the rows the ones pick ([`crate::linalg::indicator`]: the reference
//! kernel's bits, additions only; see `ROW_SUMS`); H·Wᵀ (half the hidden units on) and
//! every native product are dense.
//! σ and the sampling are vectorised
//! f32 loops ([`crate::linalg::elementwise`]); the means are summed in f64. The result is
//! an ordinary [`Rbm`] (f64) for evaluation: ln Z and likelihoods stay f64.
//!
//! Parallel tempering keeps R replicas of K particles (C = R·K chains; replica r, rows
//! r·K … (r+1)·K, at β_r = 1 − r/R as [`crate::dynamics::rbm_tempering`]). Each Gibbs step
//! runs at the row's β (P = σ(β(X W + b)), P_V = σ(β(H Wᵀ + a))); then one round of swaps
//! between neighbouring replicas, particle by particle, accepted with probability
//! min(1, e^{(β_r − β_{r+1})(E_r − E_{r+1})}) on the joint energies
//! E(x, h) = −Σ_j h_j u_j − a·x, u = x W + b (h the sample x was drawn from), which keeps
//! the product of the replicas' laws invariant (`BatchTrainer::swap_replicas`). Only
//! replica 0 (β = 1) enters the gradient: X and P above are its K rows.
//!
//! With two threads or more, a large enough update is split in halves over the caller's
//! thread and one persistent worker ([`crate::linalg::ThreadPair`]; see
//! [`BatchTrainer::estimate_gradient`]): rows of outputs, never a sum.
//!
//! What is promised: the same seed, data and options on the same platform give the same
//! weights bit for bit, on any number of threads (tests/batch_threads.rs). Native and wasm products round differently (FMA,
//! summation order), so a run there agrees with a native one within f32 rounding for as
//! long as no sampled bit differs, and then becomes a different sample path of the same
//! process (tests/linalg.rs and tests/web_linalg.rs check the products' bound on both).
//! The f64 [`super::RbmTrainer`] keeps its promise of equal bits natively and in wasm.

use super::statistics::Statistics;
use super::training::TrainingOptions;
use crate::dynamics::rules::threshold;
use crate::error::ParamError;
use crate::learn::{DIVERGENCE_LIMIT, check_patterns, diverged};
use crate::linalg::elementwise::{
    add_bias_sigmoid, add_bias_sigmoid_scaled, add_column_sums, apply_step, momentum_step,
    sample_below, scaled_sigmoid,
};
use crate::linalg::{
    Kernel, Layout, Product, ThreadPair, kernel_for, multiply, multiply_indicator,
    multiply_indicator_rows, multiply_rows, multiply_with, splits_like_the_whole,
};
use crate::model::rbm::Rbm;
use crate::rng::{SpinRng, random_index, seeded_rng};
use rand::Rng;
use std::ops::Range;
use std::sync::Mutex;

pub mod measured;
mod shard;
pub use shard::{MAX_SHARDS, Shard};

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
    /// chains (C × H), visible probabilities (C × V), one Gibbs step's 32-bit draws
    /// (C × (H + V)), f64 column sums (V + H).
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
    /// The second thread of a split update (started at the first one).
    pair: ThreadPair,
    /// Whether the last gradient was estimated split in halves ([`BatchTrainer::split`]);
    /// the update rule is split the same way.
    split_update: bool,
    updates: u64,
    diverged: Option<ParamError>,
    /// K > 0: the last K visible units are a one-of-K label group
    /// ([`BatchTrainer::with_label_group`]); 0: every visible unit is a bit.
    labels: usize,
    /// An update shared with other replicas, when one is under way ([`shard`]).
    shared: shard::SharedUpdate,
    /// Parallel tempering: β of each free chain's row (R blocks of K rows, β_r = 1 − r/R),
    /// and each chain's hidden inputs u = X W + b at its last step (C × H), which a swap's
    /// energy reads; both empty for CD-k and persistent chains (β = 1).
    betas: Vec<f32>,
    chain_inputs: Vec<f32>,
    /// Tempering: swaps proposed and accepted so far.
    swaps: [u64; 2],
}

impl BatchTrainer {
    /// A trainer of `rbm` (its parameters rounded to f32) on `patterns` (each V values 0/1)
    /// with `options` ([`TrainingOptions::check`]), on `threads` threads (natively, with two
    /// or more a large enough update is split in halves over two; 1 in wasm). Statistics:
    /// CD-k, persistent chains or parallel tempering (the module's formulas). The generator
    /// of `options.seed` draws the persistent particles (every replica's, each visible unit
    /// on with probability ½), then the first shuffle, as [`super::RbmTrainer`] does.
    pub fn new(
        rbm: &Rbm,
        patterns: &[Vec<u8>],
        options: TrainingOptions,
        threads: usize,
    ) -> Result<BatchTrainer, ParamError> {
        let (nv, nh) = (rbm.visible(), rbm.hidden());
        check_patterns(patterns, nv)?;
        options.check(patterns.len(), nv, nh)?;
        let (persistent, replicas) = match options.statistics {
            Statistics::ContrastiveDivergence { .. } => (false, 1),
            Statistics::Persistent { .. } => (true, 1),
            Statistics::ParallelTempering { replicas, .. } => (true, replicas),
        };
        whole_threads(threads)?;
        let chains = options.statistics.chains(options.batch);
        let betas: Vec<f32> = if replicas > 1 {
            (0..chains)
                .map(|c| replica_beta(c / (chains / replicas), replicas) as f32)
                .collect()
        } else {
            Vec::new()
        };
        let chain_inputs = vec![0.0; if replicas > 1 { chains * nh } else { 0 }];
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
            draws: vec![0; chains * (nv + nh)],
            sums: vec![0.0; nv + nh],
            step: vec![0.0; nv * nh + nv + nh],
            shared: shard::SharedUpdate::idle(&rng),
            rng,
            threads,
            pair: ThreadPair::new(),
            split_update: false,
            updates: 0,
            diverged: None,
            labels: 0,
            betas,
            chain_inputs,
            swaps: [0, 0],
        };
        trainer.shuffle();
        Ok(trainer)
    }

    /// The same trainer with the last `labels` visible units sampled as one one-of-K group
    /// (a softmax over their inputs, one unit on) instead of independent bits: the
    /// labelled machine of [`crate::model::rbm_labels`] (the chains' step in
    /// `label_group::sample_rows_with_label_group`). Every training vector's group must
    /// have exactly one unit on (error names `patterns` and the vector); the persistent
    /// particles' groups start at label (particle number mod K). 2 ≤ K < V (error names
    /// `labels`). Nothing else changes: the same products, gradient and update rule.
    pub fn with_label_group(mut self, labels: usize) -> Result<BatchTrainer, ParamError> {
        let nv = self.visible;
        if self.tempering() {
            return Err(ParamError::Invalid {
                field: "statistics",
                reason: "a label group is sampled by CD-k or persistent chains, not tempering"
                    .into(),
            });
        }
        if !(2..nv).contains(&labels) {
            return Err(ParamError::OutOfRange {
                field: "labels",
                value: labels as f64,
                min: 2.0,
                max: (nv.max(3) - 1) as f64,
            });
        }
        for (k, pattern) in self.data.chunks_exact(nv).enumerate() {
            crate::model::rbm_labels::check_one_hot("patterns", k, &pattern[nv - labels..])?;
        }
        if self.persistent {
            for (k, chain) in self.chains.chunks_exact_mut(nv).enumerate() {
                for (y, x) in chain[nv - labels..].iter_mut().enumerate() {
                    *x = f32::from(u8::from(y == k % labels));
                }
            }
        }
        self.labels = labels;
        Ok(self)
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

    /// Whether the free phase is parallel tempering (replicas at several β).
    pub fn tempering(&self) -> bool {
        !self.betas.is_empty()
    }

    /// Tempering: the swaps proposed and accepted so far by this trainer (0, 0 otherwise;
    /// not part of a saved [`BatchState`]).
    pub fn swaps(&self) -> (u64, u64) {
        (self.swaps[0], self.swaps[1])
    }

    /// β of each free chain's row (empty unless tempering).
    pub fn chain_betas(&self) -> &[f32] {
        &self.betas
    }

    /// The threads an update may use.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Sets the threads an update may use (1 ≤ threads ≤ 64; error names `threads`).
    /// The result does not depend on it (an update splits rows of outputs, not sums).
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

    /// Sets CD-k's k and the rate ε for the later updates, keeping the velocities, chains,
    /// generator and batch position: the authors' rbm.m raising k between epochs with
    /// `anneal_lr` (k = ⌈epoch/10⌉, ε/k). Checked as [`TrainingOptions::check`] (errors
    /// name `gibbs steps` or `learning rate`) and for CD-k only (error names `statistics`);
    /// a refused value changes nothing. The CD chains' buffers do not depend on k.
    pub fn set_cd_steps(&mut self, steps: usize, rate: f64) -> Result<(), ParamError> {
        if !matches!(
            self.options.statistics,
            Statistics::ContrastiveDivergence { .. }
        ) {
            return Err(ParamError::Invalid {
                field: "statistics",
                reason: "k and the rate are set this way for CD-k only".into(),
            });
        }
        let next = TrainingOptions {
            statistics: Statistics::ContrastiveDivergence { steps },
            rate,
            ..self.options
        };
        next.check(self.order.len(), self.visible, self.hidden)?;
        self.options = next;
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
    /// CD-k the first rows, one per batch vector; for tempering every replica's, replica 0
    /// first, β of each row in [`BatchTrainer::chain_betas`]).
    pub fn chain_visible(&self) -> &[f32] {
        &self.chains
    }

    /// Rows of the last batch.
    fn batch_rows(&self, start: usize) -> usize {
        self.options.batch.min(self.order.len() - start)
    }

    /// Whether this update splits its work in two halves (one on the pair's worker):
    /// with at least two threads, a machine of at least [`SPLIT_WORK`] multiply-adds per
    /// product, and halves on which every product takes the whole product's path
    /// ([`splits_like_the_whole`]), so the bits are those of one thread.
    fn split(&self, rows: usize, chains: usize) -> bool {
        let (nv, nh) = (self.visible, self.hidden);
        let rows_half = 0..rows / 2;
        let chains_half = 0..chains / 2;
        let forward = Product::new(rows, nv, nh, Layout::AsStored, Layout::AsStored);
        let backward = Product::new(chains, nh, nv, Layout::AsStored, Layout::Transposed);
        let outer = Product::new(nv, rows, nh, Layout::Transposed, Layout::AsStored);
        // wasm has a second thread only in the threaded build (linalg::ThreadPair).
        (cfg!(not(target_arch = "wasm32")) || cfg!(target_feature = "atomics"))
            && self.threads >= 2
            && forward.work() >= SPLIT_WORK
            && splits_like_the_whole(&forward, &rows_half)
            && splits_like_the_whole(
                &Product {
                    m: chains,
                    ..forward
                },
                &chains_half,
            )
            && splits_like_the_whole(&backward, &chains_half)
            && splits_like_the_whole(&outer, &(0..nv / 2))
    }

    /// Estimates the gradient on the next mini-batch (the module's formulas) without
    /// changing the parameters: moves the batch position and the chains on.
    ///
    /// With two threads (on a large enough machine) each half of the batch's rows and of
    /// the chains runs its whole chain on one thread (each row's chain needs only its own
    /// row and its own draws, drawn beforehand in the one-thread order), then each thread
    /// sums half of g_W's rows (visible units) over the whole batch: no sum is split, so
    /// the result has the bits of one thread.
    pub fn estimate_gradient(&mut self) {
        let (nv, nh) = (self.visible, self.hidden);
        let start = self.cursor;
        let (rows, chains) = self.load_batch();
        let split = self.split(rows, chains);
        self.split_update = split;
        let model = Model::new(
            &self.weights,
            &self.visible_biases,
            &self.hidden_biases,
            chains,
            self.persistent,
            self.labels,
        );
        let steps = self.options.statistics.steps();
        for step in 0..steps {
            let first_step = step == 0;
            let from_clamped = first_step && !self.persistent;
            let mut whole = Rows {
                v0: &self.batch_visible[..rows * nv],
                p0: &mut self.batch_hidden[..rows * nh],
                x: &mut self.chains[..chains * nv],
                h: &mut self.chain_hidden[..chains * nh],
                p: &mut self.chain_hidden_probabilities[..chains * nh],
                pv: &mut self.chain_visible_probabilities[..chains * nv],
                betas: &self.betas,
                inputs: &mut self.chain_inputs,
            };
            // The step's draws in the one-thread order: the hidden units of every chain,
            // then the visible units.
            let (hidden, visible) = self.draws[..chains * (nv + nh)].split_at_mut(chains * nh);
            let rng = &mut self.rng;
            if !split {
                draw(rng, &mut [&mut *hidden, &mut *visible]);
                if first_step {
                    whole.start(&model);
                }
                whole.step(&model, hidden, visible, from_clamped);
                continue;
            }
            // Split: this thread draws every number while the worker starts its half,
            // then hands the worker its draws.
            let half = chains.div_ceil(2);
            let (mut first, mut second) = whole.split(rows.div_ceil(2), half, nv, nh);
            let (hidden_1, hidden_2) = hidden.split_at_mut(half * nh);
            let (visible_1, visible_2) = visible.split_at_mut(half * nv);
            let handover = Mutex::new(None);
            self.pair.join(
                || {
                    let all = [
                        &mut *hidden_1,
                        &mut *hidden_2,
                        &mut *visible_1,
                        &mut *visible_2,
                    ];
                    draw(rng, &mut { all });
                    *handover.lock().expect("not poisoned") = Some((hidden_2, visible_2));
                    if first_step {
                        first.start(&model);
                    }
                    first.step(&model, hidden_1, visible_1, from_clamped);
                },
                || {
                    if first_step {
                        second.start(&model);
                    }
                    let (hidden_2, visible_2) = loop {
                        if let Some(draws) = handover.lock().expect("not poisoned").take() {
                            break draws;
                        }
                        std::thread::yield_now();
                    };
                    second.step(&model, hidden_2, visible_2, from_clamped);
                },
            );
        }

        if self.tempering() {
            self.swap_replicas();
        }

        // g_W = V₀ᵀ P₀ / B − Xᵀ P / C, g_a = mean V₀ − mean X, g_b = mean P₀ − mean P, with
        // the chains of β = 1 (all of them, or tempering's replica 0).
        let free = chains / self.replicas();
        let phases = Phases {
            v0: &self.batch_visible[..rows * nv],
            p0: &self.batch_hidden[..rows * nh],
            x: &self.chains[..free * nv],
            p: &self.chain_hidden_probabilities[..free * nh],
            hidden: nh,
        };
        let weights_part = |g: &mut [f32], units: Range<usize>| phases.weight_rows(g, units);
        let (sums_visible, sums_hidden) = self.sums.split_at_mut(nv);
        let gradient_visible = &mut self.gradient_visible;
        let gradient_hidden = &mut self.gradient_hidden;
        let mut visible_means = move || phases.visible_means(sums_visible, gradient_visible);
        let mut hidden_means = move || phases.hidden_means(sums_hidden, gradient_hidden);
        if split {
            let half = nv / 2;
            let (first, second) = self.gradient_weights.split_at_mut(half * nh);
            self.pair.join(
                || {
                    weights_part(first, 0..half);
                    visible_means();
                },
                || {
                    weights_part(second, half..nv);
                    hidden_means();
                },
            );
        } else {
            weights_part(&mut self.gradient_weights, 0..nv);
            visible_means();
            hidden_means();
        }

        self.advance_cursor(start + rows);
    }

    /// Replicas R (1 unless tempering).
    fn replicas(&self) -> usize {
        match self.options.statistics {
            Statistics::ParallelTempering { replicas, .. } => replicas,
            _ => 1,
        }
    }

    /// One round of swaps between neighbouring tempered replicas, as
    /// [`crate::dynamics::rbm_tempering::Replicas::swap`]: for r = 0 … R − 2 and each
    /// particle k, the states of row k of replicas r and r + 1 are exchanged with
    /// probability min(1, e^{(β_r − β_{r+1})(E_r − E_{r+1})}), E(x, h) = −Σ_j h_j u_j − a·x
    /// with u = x W + b kept from the last step ([`BatchTrainer::energy`]), decided by one
    /// 32-bit draw each. An exchanged row takes its inputs along, and its probabilities
    /// P = σ(β u) are recomputed at its new β.
    fn swap_replicas(&mut self) {
        let (nv, nh) = (self.visible, self.hidden);
        let replicas = self.replicas();
        let count = self.chains.len() / nv / replicas;
        for r in 0..replicas - 1 {
            let gap = replica_beta(r, replicas) - replica_beta(r + 1, replicas);
            for k in 0..count {
                let (cold, hot) = (r * count + k, (r + 1) * count + k);
                let difference = gap * (self.energy(cold) - self.energy(hot));
                let p = if difference >= 0.0 {
                    1.0
                } else {
                    libm::exp(difference)
                };
                self.swaps[0] += 1;
                if u64::from(self.rng.next_u32()) < threshold(p) {
                    self.swaps[1] += 1;
                    swap_rows(&mut self.chains, nv, cold, hot);
                    swap_rows(&mut self.chain_hidden, nh, cold, hot);
                    swap_rows(&mut self.chain_inputs, nh, cold, hot);
                    for row in [cold, hot] {
                        let units = row * nh..(row + 1) * nh;
                        scaled_sigmoid(
                            &self.chain_inputs[units.clone()],
                            self.betas[row],
                            &mut self.chain_hidden_probabilities[units],
                        );
                    }
                }
            }
        }
    }

    /// The joint energy E(x, h) = −Σ_j h_j u_j − Σ_i a_i x_i of free chain `row` (tempering:
    /// u = x W + b its kept inputs, h the hidden sample its x was drawn from), in f64.
    fn energy(&self, row: usize) -> f64 {
        let (nv, nh) = (self.visible, self.hidden);
        let h = &self.chain_hidden[row * nh..(row + 1) * nh];
        let u = &self.chain_inputs[row * nh..(row + 1) * nh];
        let x = &self.chains[row * nv..(row + 1) * nv];
        let hidden: f64 = h
            .iter()
            .zip(u)
            .filter(|(h, _)| **h != 0.0)
            .map(|(_, &u)| f64::from(u))
            .sum();
        let visible: f64 = x
            .iter()
            .zip(&self.visible_biases)
            .filter(|(x, _)| **x != 0.0)
            .map(|(_, &a)| f64::from(a))
            .sum();
        -hidden - visible
    }

    /// Loads the next batch V₀ (as f32) at the batch position: (rows of the batch, free
    /// chains). The free chains start at V₀ (CD-k: as many as rows) or at the particles.
    fn load_batch(&mut self) -> (usize, usize) {
        let nv = self.visible;
        let start = self.cursor;
        let rows = self.batch_rows(start);
        for (r, &k) in self.order[start..start + rows].iter().enumerate() {
            let src = &self.data[k * nv..(k + 1) * nv];
            for (x, &v) in self.batch_visible[r * nv..(r + 1) * nv].iter_mut().zip(src) {
                *x = f32::from(v);
            }
        }
        let chains = if self.persistent {
            self.chains.len() / nv
        } else {
            rows
        };
        (rows, chains)
    }

    /// Moves the batch position to `next`, starting a new epoch (and order) at the end.
    fn advance_cursor(&mut self, next: usize) {
        self.cursor = next;
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
        self.abandon_shared_update();
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
        let [momentum, rate, weight_decay, limit] = self.rule_scalars();
        let number = self.updates + 1;
        let (nv, nh) = (self.visible, self.hidden);
        let (step_w, rest) = self.step.split_at_mut(nv * nh);
        let (step_a, step_b) = rest.split_at_mut(nv);
        let parts: [Part<'_>; 3] = [
            (
                "weight",
                &self.weights,
                &self.gradient_weights,
                &self.velocity_weights,
                step_w,
                weight_decay,
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
        // Split as the gradient was: an update that did not split leaves the worker parked
        // (or never started), and waking it for two short loops costs more than they take.
        let split = self.split_update;
        let pair = &mut self.pair;
        for (name, params, grads, velocities, step, decay) in parts {
            let scalars = [momentum, rate, decay, limit];
            let ok = if split && name == "weight" {
                // Each half of W on its own thread: elementwise, so the same bits.
                let half = params.len() / 2;
                let (step_1, step_2) = step.split_at_mut(half);
                let (mut ok_1, mut ok_2) = ([true], [true]);
                pair.join(
                    || {
                        let (w, g, u) = (&params[..half], &grads[..half], &velocities[..half]);
                        momentum_step(w, g, u, step_1, scalars, &mut ok_1);
                    },
                    || {
                        let (w, g, u) = (&params[half..], &grads[half..], &velocities[half..]);
                        momentum_step(w, g, u, step_2, scalars, &mut ok_2);
                    },
                );
                ok_1[0] && ok_2[0]
            } else {
                let mut ok = [true];
                momentum_step(params, grads, velocities, step, scalars, &mut ok);
                ok[0]
            };
            if !ok {
                let e = divergence(number, name, params, step, nh);
                self.diverged = Some(e.clone());
                return Err(e);
            }
        }
        let (step_w, rest) = self.step.split_at(nv * nh);
        let (step_a, step_b) = rest.split_at(nv);
        if split {
            let half = step_w.len() / 2;
            let (w_1, w_2) = self.weights.split_at_mut(half);
            let (u_1, u_2) = self.velocity_weights.split_at_mut(half);
            let (s_1, s_2) = step_w.split_at(half);
            self.pair
                .join(|| apply_step(w_1, u_1, s_1), || apply_step(w_2, u_2, s_2));
        } else {
            apply_step(&mut self.weights, &mut self.velocity_weights, step_w);
        }
        apply_step(&mut self.visible_biases, &mut self.velocity_visible, step_a);
        apply_step(&mut self.hidden_biases, &mut self.velocity_hidden, step_b);
        self.updates = number;
        Ok(())
    }

    /// The update rule's scalars for the next update, in f32: [μ, ε_t, λ (the weights'
    /// decay), the divergence limit].
    fn rule_scalars(&self) -> [f32; 4] {
        let TrainingOptions {
            momentum,
            weight_decay,
            ..
        } = self.options;
        let rate = self.options.schedule.rate(self.options.rate, self.updates) as f32;
        [
            momentum as f32,
            rate,
            weight_decay as f32,
            DIVERGENCE_LIMIT as f32,
        ]
    }

    /// A new epoch order (Fisher–Yates with the run's generator); none at full batch.
    /// What the trainer needs to go on exactly where it is ([`BatchState`]): a run saved
    /// and restored into a trainer built with the same machine shape, data and options
    /// continues with the same bits as the one never stopped (same build).
    /// During a shared update ([`BatchTrainer::sharing`]) it is the state before it, to which
    /// [`BatchTrainer::abandon_shared_update`] returns.
    pub fn state(&self) -> BatchState {
        let (rng, chains) = self.shared.before().unwrap_or((&self.rng, &self.chains));
        BatchState {
            weights: self.weights.clone(),
            visible_biases: self.visible_biases.clone(),
            hidden_biases: self.hidden_biases.clone(),
            velocity_weights: self.velocity_weights.clone(),
            velocity_visible: self.velocity_visible.clone(),
            velocity_hidden: self.velocity_hidden.clone(),
            chains: chains.to_vec(),
            order: self.order.iter().map(|&k| k as u32).collect(),
            cursor: self.cursor,
            rng: crate::rng::random_words(rng),
            updates: self.updates,
        }
    }

    /// Puts `state` (from [`BatchTrainer::state`] of a trainer of the same shape, data and
    /// options) in place. Checked whole first (lengths, finite parameters within the
    /// divergence limit, 0/1 chains, the order a permutation, the cursor inside it, a
    /// non-zero generator); a refused state (error names `saved run` and what is wrong)
    /// changes nothing.
    pub fn restore(&mut self, state: BatchState) -> Result<(), ParamError> {
        let bad = |reason: String| ParamError::Invalid {
            field: "saved run",
            reason,
        };
        let (nv, nh) = (self.visible, self.hidden);
        let lengths = [
            ("weights", state.weights.len(), nv * nh),
            ("visible biases", state.visible_biases.len(), nv),
            ("hidden biases", state.hidden_biases.len(), nh),
            ("weight velocities", state.velocity_weights.len(), nv * nh),
            ("visible velocities", state.velocity_visible.len(), nv),
            ("hidden velocities", state.velocity_hidden.len(), nh),
            ("chains", state.chains.len(), self.chains.len()),
            ("order", state.order.len(), self.order.len()),
        ];
        for (name, got, want) in lengths {
            if got != want {
                return Err(bad(format!(
                    "{name}: {got} values where this machine has {want}"
                )));
            }
        }
        let limit = DIVERGENCE_LIMIT as f32;
        let parameters = [
            &state.weights,
            &state.visible_biases,
            &state.hidden_biases,
            &state.velocity_weights,
            &state.velocity_visible,
            &state.velocity_hidden,
        ];
        if parameters
            .iter()
            .any(|p| p.iter().any(|x| !x.is_finite() || x.abs() > limit))
        {
            return Err(bad(
                "a parameter is not finite or beyond the divergence limit".into(),
            ));
        }
        if state.chains.iter().any(|&x| x != 0.0 && x != 1.0) {
            return Err(bad("a chain's unit is neither 0 nor 1".into()));
        }
        let mut seen = vec![false; self.order.len()];
        for &k in &state.order {
            let k = k as usize;
            if k >= seen.len() || std::mem::replace(&mut seen[k], true) {
                return Err(bad(
                    "the order is not a permutation of the training images".into()
                ));
            }
        }
        if state.cursor >= self.order.len() {
            return Err(bad(format!(
                "the batch position {} is past the {} training images",
                state.cursor,
                self.order.len()
            )));
        }
        let rng = crate::rng::rng_from_words("saved run", state.rng)?;
        self.weights = state.weights;
        self.visible_biases = state.visible_biases;
        self.hidden_biases = state.hidden_biases;
        self.velocity_weights = state.velocity_weights;
        self.velocity_visible = state.velocity_visible;
        self.velocity_hidden = state.velocity_hidden;
        self.chains = state.chains;
        self.order = state.order.iter().map(|&k| k as usize).collect();
        self.cursor = state.cursor;
        self.shared = shard::SharedUpdate::idle(&rng);
        self.rng = rng;
        self.updates = state.updates;
        self.diverged = None;
        Ok(())
    }

    /// The visible and hidden biases a and b in f32.
    pub fn biases(&self) -> (&[f32], &[f32]) {
        (&self.visible_biases, &self.hidden_biases)
    }

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

/// A [`BatchTrainer`]'s state beyond its shape, data and options: parameters, velocities,
/// chains, the shuffled order and the position in it, the generator and the updates done
/// ([`BatchTrainer::state`], [`BatchTrainer::restore`]).
#[derive(Debug, Clone, PartialEq)]
pub struct BatchState {
    pub weights: Vec<f32>,
    pub visible_biases: Vec<f32>,
    pub hidden_biases: Vec<f32>,
    pub velocity_weights: Vec<f32>,
    pub velocity_visible: Vec<f32>,
    pub velocity_hidden: Vec<f32>,
    pub chains: Vec<f32>,
    pub order: Vec<u32>,
    pub cursor: usize,
    pub rng: [u32; 4],
    pub updates: u64,
}

/// Whether the products with a 0/1 visible state as left factor (V₀·W, X·W, V₀ᵀ·P₀,
/// Xᵀ·P) are computed as sums of rows ([`crate::linalg::indicator`]): in wasm, where they
/// took the 784-500 update from 12.2 to 7.5 ms of CPU (docs/speed.md); not natively,
/// where against `gemm`'s AVX-512 kernels they measured slower on machines with few
/// hidden units (784-25: 2.4 against 0.65 ms of CPU per update).
const ROW_SUMS: bool = cfg!(target_arch = "wasm32");

/// Multiply-adds per product (B·V·H) from which an update with two threads splits its
/// work in halves: below it the handing over costs more than the second thread gives
/// (measured: docs/speed.md).
pub const SPLIT_WORK: u64 = 1 << 20;

/// What both halves of a split update read: the parameters and the kernels of the whole
/// products (so a half takes the whole's kernel whatever its size). Every product runs on
/// the thread that calls it: the update's own split is its only threading (`gemm` asked
/// for two threads on an unsplit update made small machines 1.4–3.7× slower with two
/// threads than with one, docs/speed.md).
struct Model<'a> {
    weights: &'a [f32],
    visible_biases: &'a [f32],
    hidden_biases: &'a [f32],
    /// The whole backward product's kernel (a half takes it whatever its size).
    backward: Kernel,
    persistent: bool,
    /// K > 0: the last K visible units are a one-of-K label group.
    labels: usize,
}

impl<'a> Model<'a> {
    /// The parameters, with the kernel of the whole backward product of `chains` chains.
    fn new(
        weights: &'a [f32],
        visible_biases: &'a [f32],
        hidden_biases: &'a [f32],
        chains: usize,
        persistent: bool,
        labels: usize,
    ) -> Model<'a> {
        let (nv, nh) = (visible_biases.len(), hidden_biases.len());
        Model {
            weights,
            visible_biases,
            hidden_biases,
            backward: kernel_for(&Product::new(
                chains,
                nh,
                nv,
                Layout::AsStored,
                Layout::Transposed,
            )),
            persistent,
            labels,
        }
    }
}

/// What the gradient reads once the chains have run: the batch V₀ and P₀, the chains' X
/// and P (whole rows of `hidden` hidden units).
#[derive(Clone, Copy)]
struct Phases<'a> {
    v0: &'a [f32],
    p0: &'a [f32],
    x: &'a [f32],
    p: &'a [f32],
    hidden: usize,
}

impl Phases<'_> {
    /// (B, C, V, H) and (1/B, 1/C).
    fn shape(&self) -> ([usize; 4], [f64; 2]) {
        let nh = self.hidden;
        let (rows, chains) = (self.p0.len() / nh, self.p.len() / nh);
        let nv = self.x.len() / chains;
        (
            [rows, chains, nv, nh],
            [1.0 / rows as f64, 1.0 / chains as f64],
        )
    }

    /// Rows `units` (visible units) of g_W = V₀ᵀ P₀ / B − Xᵀ P / C, written to `g` (those
    /// rows only): each entry summed over the whole batch and all chains, whatever the rows.
    fn weight_rows(&self, g: &mut [f32], units: Range<usize>) {
        let ([rows, chains, nv, nh], [inv_b, inv_c]) = self.shape();
        let clamped = Product::new(nv, rows, nh, Layout::Transposed, Layout::AsStored)
            .scaled(inv_b as f32, 0.0);
        let free = Product::new(nv, chains, nh, Layout::Transposed, Layout::AsStored)
            .scaled(-inv_c as f32, 1.0);
        let (v0, p0, x, p) = (self.v0, self.p0, self.x, self.p);
        if ROW_SUMS {
            multiply_indicator_rows(g, v0, p0, &clamped, units.clone());
            multiply_indicator_rows(g, x, p, &free, units);
        } else {
            multiply_rows(g, v0, p0, &clamped, units.clone(), 1);
            multiply_rows(g, x, p, &free, units, 1);
        }
    }

    /// g_a = mean V₀ − mean X (column sums in f64 in `sums`).
    fn visible_means(&self, sums: &mut [f64], g: &mut [f32]) {
        let (_, [inv_b, inv_c]) = self.shape();
        add_column_sums(self.v0, sums, inv_b, 0.0, g);
        add_column_sums(self.x, sums, -inv_c, 1.0, g);
    }

    /// g_b = mean P₀ − mean P (column sums in f64 in `sums`).
    fn hidden_means(&self, sums: &mut [f64], g: &mut [f32]) {
        let (_, [inv_b, inv_c]) = self.shape();
        add_column_sums(self.p0, sums, inv_b, 0.0, g);
        add_column_sums(self.p, sums, -inv_c, 1.0, g);
    }
}

/// Some rows of the batch and of the chains, with their draws for one Gibbs step: the
/// work of one half of a split update, or the whole.
struct Rows<'a> {
    v0: &'a [f32],
    p0: &'a mut [f32],
    x: &'a mut [f32],
    h: &'a mut [f32],
    p: &'a mut [f32],
    pv: &'a mut [f32],
    /// Tempering: β of each chain and its kept hidden inputs u = X W + b (C × H); empty
    /// otherwise (β = 1, nothing kept).
    betas: &'a [f32],
    inputs: &'a mut [f32],
}

impl<'a> Rows<'a> {
    /// The first `rows` batch rows and `chains` chains, and the rest.
    fn split(self, rows: usize, chains: usize, nv: usize, nh: usize) -> (Rows<'a>, Rows<'a>) {
        let (v0, v0_) = self.v0.split_at(rows * nv);
        let (p0, p0_) = self.p0.split_at_mut(rows * nh);
        let (x, x_) = self.x.split_at_mut(chains * nv);
        let (h, h_) = self.h.split_at_mut(chains * nh);
        let (p, p_) = self.p.split_at_mut(chains * nh);
        let (pv, pv_) = self.pv.split_at_mut(chains * nv);
        let (betas, betas_) = self.betas.split_at(chains.min(self.betas.len()));
        let (inputs, inputs_) = self
            .inputs
            .split_at_mut((chains * nh).min(self.inputs.len()));
        (
            Rows {
                v0,
                p0,
                x,
                h,
                p,
                pv,
                betas,
                inputs,
            },
            Rows {
                v0: v0_,
                p0: p0_,
                x: x_,
                h: h_,
                p: p_,
                pv: pv_,
                betas: betas_,
                inputs: inputs_,
            },
        )
    }

    /// P = σ(S W + b) for the rows of the 0/1 `states` S (a sum of rows of W per row).
    fn forward(model: &Model<'_>, out: &mut [f32], states: &[f32]) {
        Rows::product(model, out, states);
        add_bias_sigmoid(out, model.hidden_biases);
    }

    /// The chains' P = σ(β (X W + b)), each row at its β, keeping u = X W + b (tempering);
    /// [`Rows::forward`] otherwise.
    fn chains_forward(&mut self, model: &Model<'_>) {
        if self.betas.is_empty() {
            return Rows::forward(model, self.p, self.x);
        }
        Rows::product(model, self.inputs, self.x);
        let nh = model.hidden_biases.len();
        let rows = self
            .inputs
            .chunks_exact_mut(nh)
            .zip(self.p.chunks_exact_mut(nh));
        for ((u, p), &beta) in rows.zip(self.betas) {
            for (u, &b) in u.iter_mut().zip(model.hidden_biases) {
                *u += b;
            }
            scaled_sigmoid(u, beta, p);
        }
    }

    /// out = S W for the rows of the 0/1 `states` S.
    fn product(model: &Model<'_>, out: &mut [f32], states: &[f32]) {
        let (nv, nh) = (model.visible_biases.len(), model.hidden_biases.len());
        let product = Product::new(
            states.len() / nv,
            nv,
            nh,
            Layout::AsStored,
            Layout::AsStored,
        );
        if ROW_SUMS {
            multiply_indicator(out, states, model.weights, &product);
        } else {
            // A half of a split update is at least SPLIT_WORK / 2 ≥ SMALL_PRODUCT
            // multiply-adds, so it takes the whole product's kernel.
            multiply(out, states, model.weights, &product, 1);
        }
    }

    /// The clamped phase P₀ = σ(V₀ W + b) and the chains' start: for the particles
    /// P = σ(X W + b); CD-k chains start at X = V₀ with P = P₀, which their first step reads
    /// in place ([`Rows::step`]).
    fn start(&mut self, model: &Model<'_>) {
        Rows::forward(model, self.p0, self.v0);
        if model.persistent {
            self.chains_forward(model);
        }
    }

    /// One Gibbs step of these chains with their draws: H ~ P, P_V = σ(H Wᵀ + a),
    /// X ~ P_V, P = σ(X W + b). `from_clamped`: the first step of CD-k chains, whose P is
    /// P₀ (read from there; X is overwritten before it is read).
    fn step(
        &mut self,
        model: &Model<'_>,
        hidden_draws: &[u32],
        visible_draws: &[u32],
        from_clamped: bool,
    ) {
        let (nv, nh) = (model.visible_biases.len(), model.hidden_biases.len());
        let chains = self.x.len() / nv;
        let p = if from_clamped { &*self.p0 } else { &*self.p };
        sample_below(p, hidden_draws, self.h);
        // H·Wᵀ stays a dense product: half the hidden units are on, and summing rows of
        // Wᵀ needs a transposed copy of W each update, which cost more than it saved.
        let backward = Product::new(chains, nh, nv, Layout::AsStored, Layout::Transposed);
        multiply_with(model.backward, self.pv, self.h, model.weights, &backward, 1);
        if model.labels == 0 {
            if self.betas.is_empty() {
                add_bias_sigmoid(self.pv, model.visible_biases);
            } else {
                for (pv, &beta) in self.pv.chunks_exact_mut(nv).zip(self.betas) {
                    add_bias_sigmoid_scaled(pv, model.visible_biases, beta);
                }
            }
            sample_below(self.pv, visible_draws, self.x);
        } else {
            super::label_group::sample_rows_with_label_group(
                self.pv,
                visible_draws,
                self.x,
                model.visible_biases,
                model.labels,
            );
        }
        self.chains_forward(model);
    }
}

/// β_r = 1 − r/R of replica r of R, as [`crate::dynamics::rbm_tempering::Replicas`].
fn replica_beta(r: usize, replicas: usize) -> f64 {
    1.0 - r as f64 / replicas as f64
}

/// Exchanges rows `a` and `b` (of `width` values) of a row-major matrix.
fn swap_rows(matrix: &mut [f32], width: usize, a: usize, b: usize) {
    let (low, high) = (a.min(b), a.max(b));
    let (first, second) = matrix.split_at_mut(high * width);
    first[low * width..(low + 1) * width].swap_with_slice(&mut second[..width]);
}

/// Fills each slice in turn with 32-bit draws of `rng`.
fn draw(rng: &mut SpinRng, slices: &mut [&mut [u32]]) {
    for slice in slices {
        for r in slice.iter_mut() {
            *r = rng.next_u32();
        }
    }
}

/// One parameter array's share of an update: its name, values, gradient, velocity, the
/// next velocity (scratch) and its decay λ.
type Part<'a> = (&'a str, &'a [f32], &'a [f32], &'a [f32], &'a mut [f32], f32);

/// The error of update `number` whose new values `params + step` of the part `name` left
/// the divergence limit: names the first such parameter (a weight by its row and column of
/// `hidden` columns).
fn divergence(number: u64, name: &str, params: &[f32], step: &[f32], hidden: usize) -> ParamError {
    let limit = DIVERGENCE_LIMIT as f32;
    let k = (0..params.len())
        .find(|&k| !within(params[k] + step[k], limit))
        .expect("some value is out of range");
    let which = if name == "weight" {
        format!("weight W[{}][{}]", k / hidden, k % hidden)
    } else {
        format!("{name}[{k}]")
    };
    diverged(number, which, f64::from(params[k] + step[k]))
}

/// Whether x is finite with |x| ≤ limit.
fn within(x: f32, limit: f32) -> bool {
    x.is_finite() && x.abs() <= limit
}

/// Checks 1 ≤ threads ≤ 64 (error names `threads`).
fn whole_threads(threads: usize) -> Result<usize, ParamError> {
    crate::error::whole_in("threads", threads as f64, 1, 64).map(|t| t as usize)
}
