//! Annealed importance sampling (Neal 2001), written once: the schedule of inverse
//! temperatures, the runs, their importance weights and the estimate of ln Z with its
//! standard error. What is annealed is an [`AisPath`]: the restricted machine with its
//! hidden layer summed out ([`super::rbm_ais`]) or a general network ([`super::kl`]).
//!
//! For unnormalised p*_β, 0 = β_0 < β_1 ≤ … ≤ β_K, p*_0 the base with known Z_0, each run
//! draws x_1 ~ p_0 exactly and, for k = 1 … K, adds ln p*_{β_k}(x_k) − ln p*_{β_{k−1}}(x_k)
//! to its log weight and (for k < K) moves x_k → x_{k+1} by a transition that leaves
//! p_{β_k} invariant. Then E\[w\] = Z_K / Z_0 and over M runs
//!
//!   ln Ẑ = ln Z_0 + ln((1/M) Σ_r w_r),
//!
//! with the standard error of the delta method: Var(ln Ẑ) ≈ Var(w̄)/w̄² = s²(w)/(M w̄²),
//! so stderr = sd(w)/(√M · mean(w)) (sample sd, M − 1), computed from w_r / max w by
//! [`log_mean_and_spread`] so nothing overflows. Ẑ is unbiased; ln Ẑ is biased low by about
//! stderr²/2 and is a stochastic lower bound (P(ln Ẑ > ln Z + t) ≤ e^{−t}). The error bar
//! is honest when the weights are even: `effective_runs` = (Σ w)²/Σ w² should be a good
//! fraction of M.
//!
//! **One driver, any slicing, any threads.** [`Ais`] takes the runs in batches (all runs
//! of a batch step through β together, so a path can do a batch's products at once) and
//! can stop after any number of run-steps, so a page can spread an estimate over frames.
//! Run r draws only from its own stream, seeded by (seed, r) ([`run_seed`]): the weights,
//! and so the estimate, are the same bit for bit however the work is sliced, batched or
//! shared among threads.

use crate::log_sum_exp::{log_mean_and_spread, log_sum_exp};

/// What AIS anneals: the base p*_0 (with its ln Z_0), the intermediate p*_β and the
/// transitions. A run's state carries its own random stream.
pub trait AisPath: Sync {
    /// One run: its current sample and its random stream.
    type Run: Clone + core::fmt::Debug + Send;
    /// Working memory for a batch of runs.
    type Scratch: Send;
    /// ln Z_0 of the base distribution p*_0.
    fn log_z_base(&self) -> f64;
    /// A run whose stream is fixed by `seed`, its x_1 drawn from p_0.
    fn start(&self, seed: u64) -> Self::Run;
    /// Scratch for batches of up to `runs` runs.
    fn scratch(&self, runs: usize) -> Self::Scratch;
    /// For each run r of `runs`: `log_weights[r]` += ln p*_to(x_r) − ln p*_from(x_r), then,
    /// if `transition`, one transition of x_r that leaves p_to invariant.
    fn step(
        &self,
        runs: &mut [Self::Run],
        log_weights: &mut [f64],
        from: f64,
        to: f64,
        transition: bool,
        scratch: &mut Self::Scratch,
    );
    /// About how many multiply-adds one run-step costs (to decide when threads pay).
    fn cost(&self) -> u64;
}

/// An AIS schedule: piecewise uniform spacing of β, each piece (end, step) running from
/// the previous end (0 for the first) to `end` in steps of about `step`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AisSchedule {
    pieces: &'static [(f64, f64)],
}

impl AisSchedule {
    /// Salakhutdinov & Murray's schedule (2008, §4; their `RBM_AIS.m` demo):
    /// steps of 10⁻³ up to β = 0.5, 10⁻⁴ up to 0.9 and 10⁻⁵ up to 1: 1 000 + 4 000 +
    /// 10 000 = 14 500 intermediate distributions. (The demo's Matlab vector
    /// `[0:1/1000:0.5 0.5:1/10000:0.9 0.9:1/100000:1.0]` repeats 0.5 and 0.9, which adds
    /// two transitions and nothing to the weights; here each β appears once.)
    pub const SALAKHUTDINOV_MURRAY: AisSchedule = AisSchedule {
        pieces: &[(0.5, 1e-3), (0.9, 1e-4), (1.0, 1e-5)],
    };

    /// The same shape ten times coarser, for the page: steps of 10⁻² up to 0.5, 10⁻³ up
    /// to 0.9, 10⁻⁴ up to 1: 1 450 intermediate distributions.
    pub const PAGE: AisSchedule = AisSchedule {
        pieces: &[(0.5, 1e-2), (0.9, 1e-3), (1.0, 1e-4)],
    };

    /// The paper's shape four times finer: steps of 2.5·10⁻⁴ up to 0.5, 2.5·10⁻⁵ up to 0.9,
    /// 2.5·10⁻⁶ up to 1: 58 000 intermediate distributions. For machines whose AIS weights
    /// the paper's schedule leaves carried by a few runs (PCD's, docs/salakhutdinov2008.md):
    /// whether ln Ẑ moves when the steps shrink.
    pub const FINE: AisSchedule = AisSchedule {
        pieces: &[(0.5, 2.5e-4), (0.9, 2.5e-5), (1.0, 2.5e-6)],
    };

    /// The schedules the command line names: `paper` ([`Self::SALAKHUTDINOV_MURRAY`]),
    /// `page` ([`Self::PAGE`]) and `fine` ([`Self::FINE`]).
    pub const NAMED: [(&'static str, AisSchedule); 3] = [
        ("paper", Self::SALAKHUTDINOV_MURRAY),
        ("page", Self::PAGE),
        ("fine", Self::FINE),
    ];

    /// The schedule named `name` in [`Self::NAMED`].
    pub fn named(name: &str) -> Option<AisSchedule> {
        Self::NAMED
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
    }

    /// β_0 = 0, β_1, …, β_K = 1.
    pub fn betas(&self) -> Vec<f64> {
        let mut betas = vec![0.0];
        let mut start = 0.0;
        for &(end, step) in self.pieces {
            let count = libm::round((end - start) / step).max(1.0) as usize;
            betas.extend((1..=count).map(|k| start + (end - start) * k as f64 / count as f64));
            start = end;
        }
        betas
    }

    /// K, the number of intermediate distributions after β_0.
    pub fn steps(&self) -> usize {
        self.betas().len() - 1
    }
}

/// An AIS estimate of ln Z.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AisEstimate {
    /// ln Ẑ = ln Z_0 + ln mean(w).
    pub log_z: f64,
    /// Its standard error by the delta method, sd(w)/(√M mean(w)).
    pub stderr: f64,
    /// (Σ w)²/Σ w²: how many runs carry the estimate.
    pub effective_runs: f64,
    /// M, the runs.
    pub runs: u64,
    /// K, the intermediate distributions.
    pub steps: usize,
    /// ln Z_0 of the base.
    pub log_z_base: f64,
}

/// The stream seed of run r of an estimate seeded by `seed`: seed + r · 0x9E3779B97F4A7C15
/// (the streams are then expanded by SplitMix64, [`crate::rng::seeded_rng`]).
pub fn run_seed(seed: u64, run: u64) -> u64 {
    seed.wrapping_add(run.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Run-steps of work below which [`Ais::advance`] stays on one thread: 2^22 multiply-adds.
const THREAD_WORK: u64 = 1 << 22;

/// AIS runs under way: the one driver behind every AIS estimate in the engine (module
/// notes). Work is counted in run-steps (one run moved from β_{k−1} to β_k); runs go in
/// batches of up to `batch`, every run of a batch at the same k.
#[derive(Debug, Clone)]
pub struct Ais<R> {
    betas: Vec<f64>,
    seed: u64,
    runs: u64,
    batch: usize,
    threads: usize,
    /// Batches started so far (the one under way included).
    batches: u64,
    /// The batch under way: its runs and their log weights, the next k (1 … K) and the
    /// next run to move to β_k.
    current: Vec<R>,
    current_weights: Vec<f64>,
    round: usize,
    next: usize,
    /// Log weights of the runs done, in run order, and ln mean(w) of each batch done.
    log_weights: Vec<f64>,
    batch_log_means: Vec<f64>,
    /// Runs skipped by [`Ais::resume_at_batch`] (their weights are not held).
    skipped: u64,
}

impl<R: Clone + core::fmt::Debug + Send> Ais<R> {
    /// `runs` runs (at least 1) through `betas` (0 first, non-decreasing, at least two),
    /// in batches of `batch` (at least 1), on the streams of `seed`, none done yet, on one
    /// thread. The callers check their counts and give typed errors.
    pub fn new(betas: Vec<f64>, runs: u64, batch: usize, seed: u64) -> Ais<R> {
        assert!(betas.len() >= 2 && betas[0] == 0.0 && runs >= 1 && batch >= 1);
        debug_assert!(betas.windows(2).all(|w| w[1] >= w[0]));
        Ais {
            betas,
            seed,
            runs,
            batch,
            threads: 1,
            batches: 0,
            current: Vec::new(),
            current_weights: Vec::new(),
            round: 0,
            next: 0,
            log_weights: Vec::new(),
            batch_log_means: Vec::new(),
            skipped: 0,
        }
    }

    /// Shares whole rounds of large batches among `threads` threads natively (at least 1;
    /// WebAssembly stays on one). The result does not depend on it.
    pub fn with_threads(mut self, threads: usize) -> Ais<R> {
        self.threads = threads.max(1);
        self
    }

    /// K, the steps each run takes.
    pub fn steps(&self) -> u64 {
        self.betas.len() as u64 - 1
    }

    /// M × K: the whole job in run-steps.
    pub fn total_steps(&self) -> u64 {
        self.runs * self.steps()
    }

    /// Run-steps done so far.
    pub fn steps_done(&self) -> u64 {
        let finished = self.skipped + self.log_weights.len() as u64;
        let under_way = if self.current.is_empty() {
            0
        } else {
            (self.round as u64 - 1) * self.current.len() as u64 + self.next as u64
        };
        finished * self.steps() + under_way
    }

    /// Whether every run is done.
    pub fn done(&self) -> bool {
        self.skipped + self.log_weights.len() as u64 == self.runs
    }

    /// ln mean(w) of each batch done, in order.
    pub fn batch_log_means(&self) -> &[f64] {
        &self.batch_log_means
    }

    /// The log weights of the runs done (after any skipped), in run order.
    pub fn log_weights(&self) -> &[f64] {
        &self.log_weights
    }

    /// Continues a saved estimate: skips the first `batches` batches (whose results the
    /// caller holds), so the next run started is the first of batch `batches`. Only before
    /// any work; runs draw from their own streams, so the rest is as if never stopped.
    pub fn resume_at_batch(&mut self, batches: u64) {
        assert!(self.steps_done() == 0 && self.skipped == 0);
        let runs = (batches * self.batch as u64).min(self.runs);
        self.batches = batches;
        self.skipped = runs;
    }

    /// Does up to `steps` run-steps of `path` (the path the runs were made for): each
    /// moves one run from β_{k−1} to β_k. Returns whether every run is done.
    pub fn advance<P: AisPath<Run = R>>(&mut self, path: &P, steps: u64) -> bool {
        let k_last = self.betas.len() - 1;
        let mut left = steps;
        while left > 0 && !self.done() {
            if self.current.is_empty() {
                self.start_batch(path);
            }
            let n = self.current.len();
            if self.next > 0 || left < n as u64 {
                let take = (left as usize).min(n - self.next);
                let range = self.next..self.next + take;
                let mut scratch = path.scratch(take);
                path.step(
                    &mut self.current[range.clone()],
                    &mut self.current_weights[range],
                    self.betas[self.round - 1],
                    self.betas[self.round],
                    self.round < k_last,
                    &mut scratch,
                );
                self.next += take;
                left -= take as u64;
                if self.next == n {
                    self.next = 0;
                    self.round += 1;
                }
            } else {
                let rounds = ((left / n as u64) as usize).min(k_last + 1 - self.round);
                self.rounds(path, rounds);
                self.round += rounds;
                left -= (rounds * n) as u64;
            }
            if self.round > k_last {
                self.finish_batch();
            }
        }
        self.done()
    }

    fn start_batch<P: AisPath<Run = R>>(&mut self, path: &P) {
        let first = self.batches * self.batch as u64;
        let last = (first + self.batch as u64).min(self.runs);
        self.current = (first..last)
            .map(|r| path.start(run_seed(self.seed, r)))
            .collect();
        self.current_weights = vec![0.0; self.current.len()];
        self.batches += 1;
        self.round = 1;
        self.next = 0;
    }

    fn finish_batch(&mut self) {
        let n = self.current_weights.len() as f64;
        self.batch_log_means
            .push(log_sum_exp(self.current_weights.iter().copied()) - libm::log(n));
        self.log_weights.append(&mut self.current_weights);
        self.current.clear();
        self.round = 0;
    }

    /// `rounds` whole rounds (k = round … round + rounds − 1) of every run of the batch,
    /// the runs split into contiguous groups, one a thread, when the work is large.
    fn rounds<P: AisPath<Run = R>>(&mut self, path: &P, rounds: usize) {
        let k_last = self.betas.len() - 1;
        let n = self.current.len();
        let work = (rounds * n) as u64 * path.cost();
        let threads = if work >= THREAD_WORK {
            self.threads.min(n)
        } else {
            1
        };
        let (betas, round) = (&self.betas, self.round);
        let run_group = |runs: &mut [R], weights: &mut [f64]| {
            let mut scratch = path.scratch(runs.len());
            for k in round..round + rounds {
                path.step(
                    runs,
                    weights,
                    betas[k - 1],
                    betas[k],
                    k < k_last,
                    &mut scratch,
                );
            }
        };
        #[cfg(target_arch = "wasm32")]
        {
            let _ = threads;
            run_group(&mut self.current, &mut self.current_weights);
        }
        #[cfg(not(target_arch = "wasm32"))]
        if threads <= 1 {
            run_group(&mut self.current, &mut self.current_weights);
        } else {
            let size = n.div_ceil(threads);
            std::thread::scope(|scope| {
                for (runs, weights) in self
                    .current
                    .chunks_mut(size)
                    .zip(self.current_weights.chunks_mut(size))
                {
                    scope.spawn(|| run_group(runs, weights));
                }
            });
        }
    }

    /// The estimate from the runs done, once every run is done and at least two were held
    /// (not skipped); `log_z_base` is the path's ln Z_0.
    pub fn estimate(&self, log_z_base: f64) -> Option<AisEstimate> {
        if !self.done() {
            return None;
        }
        self.estimate_so_far(log_z_base)
    }

    /// The estimate from the runs done so far (at least two), complete or not.
    pub fn estimate_so_far(&self, log_z_base: f64) -> Option<AisEstimate> {
        let m = self.log_weights.len();
        if m < 2 {
            return None;
        }
        let (log_mean, relative_sd, effective_runs) = log_mean_and_spread(&self.log_weights);
        Some(AisEstimate {
            log_z: log_z_base + log_mean,
            stderr: relative_sd / libm::sqrt(m as f64),
            effective_runs,
            runs: m as u64,
            steps: self.betas.len() - 1,
            log_z_base,
        })
    }
}
