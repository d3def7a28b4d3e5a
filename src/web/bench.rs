//! The benchmark page's facade (bench.html, www/bench/): the engine's kernels as the page
//! times them. JavaScript measures with `performance.now()` around calls of bounded size,
//! so V8 tiers the kernels up before the timed runs; nothing here reads a clock.

use crate::app::rbm::{HIDDEN, RbmLab, UPDATES};
use crate::dynamics::lanes::CheckerboardLanes;
use crate::dynamics::rules::acceptance_table;
use crate::estimate::exact_log_z;
use crate::learn::Problem;
use crate::learn::experiment::{self, LearningMethod, Protocol};
use crate::learn::rbm::BatchTrainer;
use crate::learn::rbm::batch::measured;
use crate::{Dynamics, Lattice, LatticeSampler, Network, Order, Rule, SpinKind};
use wasm_bindgen::prelude::*;

fn thrown(err: impl std::fmt::Display) -> JsError {
    JsError::new(&err.to_string())
}

/// A periodic side×side ferromagnet (J = 1, h = 0) under one rule and order.
#[wasm_bindgen]
pub struct BenchLattice {
    sampler: LatticeSampler,
}

#[wasm_bindgen]
impl BenchLattice {
    /// `rule`: "heat-bath" | "metropolis"; `order`: "sequential" | "checkerboard" | "random".
    #[wasm_bindgen(constructor)]
    pub fn new(
        side: f64,
        temperature: f64,
        rule: &str,
        order: &str,
        seed: f64,
    ) -> Result<BenchLattice, JsError> {
        let lattice = Lattice::new(side, side, 1.0, 0.0).map_err(thrown)?;
        let mut sampler = LatticeSampler::new(lattice, temperature, seed as u64).map_err(thrown)?;
        sampler
            .set_dynamics(Dynamics::Single(Rule::parse(rule).map_err(thrown)?))
            .map_err(thrown)?;
        sampler.set_order(Order::parse(order).map_err(thrown)?);
        Ok(BenchLattice { sampler })
    }

    /// Checkerboard lanes on or off (the app's lattice has them on; see
    /// `LatticeSampler::set_lanes`).
    pub fn set_lanes(&mut self, on: bool) {
        self.sampler.set_lanes(on);
    }

    /// The sequential order's wavefront kernel on (the app's default) or off (every tick
    /// scalar; see `LatticeSampler::set_wavefront`).
    pub fn set_wavefront(&mut self, on: bool) {
        self.sampler.set_wavefront(on);
    }

    /// Runs `ticks` single-spin ticks (keep it bounded: the page calls this in chunks).
    pub fn run(&mut self, ticks: u32) {
        self.sampler.run(u64::from(ticks));
    }

    /// Pointer to the spins (one i8 per site, ±1), for a typed-array view.
    pub fn spins_ptr(&self) -> *const i8 {
        self.sampler.spins().as_ptr()
    }

    pub fn len(&self) -> usize {
        self.sampler.spins().len()
    }

    pub fn is_empty(&self) -> bool {
        self.sampler.spins().is_empty()
    }

    /// E/N, so the page can check the JavaScript reference relaxes alike.
    pub fn energy_per_spin(&self) -> f64 {
        self.sampler.energy_per_spin()
    }
}

/// The same lattice swept in checkerboard lanes (the opt-in SIMD chain).
#[wasm_bindgen]
pub struct BenchLanes {
    lanes: CheckerboardLanes,
}

#[wasm_bindgen]
impl BenchLanes {
    #[wasm_bindgen(constructor)]
    pub fn new(side: f64, temperature: f64, rule: &str, seed: f64) -> Result<BenchLanes, JsError> {
        let lattice = Lattice::new(side, side, 1.0, 0.0).map_err(thrown)?;
        let rule = Rule::parse(rule).map_err(thrown)?;
        let lanes =
            CheckerboardLanes::new(lattice, temperature, rule, seed as u64).map_err(thrown)?;
        Ok(BenchLanes { lanes })
    }

    /// Runs `sweeps` sweeps.
    pub fn run(&mut self, sweeps: u32) {
        self.lanes.run(u64::from(sweeps));
    }
}

/// The engine's acceptance thresholds for the lattice tick, flattened as
/// [current spin is +1][S + 4] (18 numbers, each round(P · 2^32)).
#[wasm_bindgen]
pub fn bench_acceptance_table(
    rule: &str,
    coupling: f64,
    field: f64,
    temperature: f64,
) -> Result<Vec<f64>, JsError> {
    let rule = Rule::parse(rule).map_err(thrown)?;
    Ok(acceptance_table(rule, coupling, field, temperature)
        .iter()
        .flatten()
        .map(|&t| t as f64)
        .collect())
}

/// Exact ln Z at T = 1 of the dense random Ising network the native benchmark uses
/// (`Network::random(units, Ising, 1.0, 0.5, seed 1)`), by tabled enumeration.
#[wasm_bindgen]
pub fn bench_exact_log_z(units: usize) -> Result<f64, JsError> {
    let network = Network::random(units, SpinKind::Ising, 1.0, 0.5, 1).map_err(thrown)?;
    exact_log_z::log_z(&network, 1.0, None).map_err(thrown)
}

/// One seeded 4-2-4 encoder learning run by the standard protocol (`method`:
/// "stochastic" | "mean-field"); returns the cycle it was solved at (0 if never).
#[wasm_bindgen]
pub fn bench_learn_424(method: &str, seed: f64) -> Result<f64, JsError> {
    let method = LearningMethod::parse(method).map_err(thrown)?;
    let protocol = Protocol::standard(Problem::Encoder4x2, method);
    let outcome = experiment::run(&protocol, seed as u64, |_| {}).map_err(thrown)?;
    Ok(outcome.solved_at.unwrap_or(0) as f64)
}

/// The page's default restricted machine on the digits (`RbmLab::new("digits8", 16, 1)`:
/// 64-16, batch 100, 100 persistent particles, k = 1), learning as the page's learning
/// calls it; the bench page times its calls (the page's budget: one update ≤ 1 ms).
#[wasm_bindgen]
pub struct BenchRbm {
    lab: RbmLab,
}

#[wasm_bindgen]
impl BenchRbm {
    /// The page's default digits machine with `hidden` units (16 when not given), seed 1.
    #[wasm_bindgen(constructor)]
    pub fn new(hidden: Option<f64>) -> Result<BenchRbm, JsError> {
        let hidden = HIDDEN.read(hidden.unwrap_or(16.0)).map_err(thrown)?;
        Ok(BenchRbm {
            lab: RbmLab::new("digits8", hidden, 1).map_err(thrown)?,
        })
    }

    /// `updates` mini-batch updates (1 to 10 000), as the page's learning calls them.
    pub fn run(&mut self, updates: f64) -> Result<f64, JsError> {
        let updates = UPDATES.read(updates).map_err(thrown)?;
        self.lab.advance(updates).map(|n| n as f64).map_err(thrown)
    }

    /// The updates learned so far.
    pub fn updates(&self) -> f64 {
        self.lab.updates() as f64
    }
}

/// The measured MNIST-sized update in wasm: a 784-500 machine trained by CD-1 on batches of
/// 100 ([`measured::mnist_sized_trainer`], one thread), the same work that
/// benches/rbm_products.rs times natively (issue target: one update ≤ 12 ms in wasm).
#[wasm_bindgen]
pub struct BenchMnistRbm {
    trainer: BatchTrainer,
}

#[wasm_bindgen]
impl BenchMnistRbm {
    #[wasm_bindgen(constructor)]
    pub fn new() -> BenchMnistRbm {
        BenchMnistRbm {
            trainer: measured::mnist_sized_trainer(crate::linalg::page_threads()),
        }
    }

    /// `updates` updates (at most 100 a call).
    pub fn run(&mut self, updates: u32) -> Result<(), JsError> {
        self.trainer
            .run(u64::from(updates.min(100)))
            .map_err(thrown)
    }

    /// The updates learned so far.
    pub fn updates(&self) -> f64 {
        self.trainer.updates() as f64
    }
}

impl Default for BenchMnistRbm {
    fn default() -> Self {
        Self::new()
    }
}
