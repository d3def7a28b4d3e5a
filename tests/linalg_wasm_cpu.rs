//! Where the CPU time of one 784-500 CD-1 update (batch 100) goes in WebAssembly on one
//! thread, measured in node's V8 by CPU time (`process.cpuUsage()`: time this process spent
//! on a CPU, which other processes' load inflates far less than wall time). Printed, never
//! asserted: the whole update through the trainer beside its parts (the five products by
//! kernel, σ, sampling, the draws, V₀'s conversion, the column sums, the update rule), each
//! part timed interleaved with the others in every rep. Then the same update shared by two
//! replicas (the page's two learning workers, src/learn/rbm/batch/shard.rs): each replica's
//! CPU time in its engine calls, step by step, beside one trainer's whole update, so the
//! share of the update that two workers split is known without the machine's load.
//!
//!   cargo test --release --target wasm32-unknown-unknown --no-default-features \
//!     --test linalg_wasm_cpu -- --nocapture
//!
//! (No `run_in_browser`: wasm-bindgen-test-runner runs this file in node.)
#![cfg(target_arch = "wasm32")]

mod linalg_checks;

use boltzlab::learn::rbm::BatchTrainer;
use boltzlab::learn::rbm::batch::Shard;
use boltzlab::linalg::elementwise::{
    add_bias_sigmoid, add_column_sums, apply_step, momentum_step, sample_below,
};
use boltzlab::linalg::{Kernel, multiply_indicator, multiply_with};
use boltzlab::rng::{SpinRng, seeded_rng};
use linalg_checks::{mnist_sized_products, mnist_sized_trainer, summary, values};
use rand::Rng;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

#[wasm_bindgen]
extern "C" {
    /// node's `process.cpuUsage()`: `{ user, system }` in microseconds.
    #[wasm_bindgen(js_namespace = process, js_name = cpuUsage)]
    fn cpu_usage() -> JsValue;
}

/// CPU time used by this process so far, in ms.
fn cpu_ms() -> f64 {
    let usage = cpu_usage();
    let field = |name: &str| {
        js_sys::Reflect::get(&usage, &name.into())
            .ok()
            .and_then(|v| v.as_f64())
            .expect("process.cpuUsage() has user and system")
    };
    (field("user") + field("system")) / 1e3
}

/// The buffers of one update's parts (the shapes of a 784-500 CD-1 update, batch 100).
struct Parts {
    trainer: BatchTrainer,
    x: Vec<f32>,
    w: Vec<f32>,
    /// 0/1 visible states (13 % on, as binarized MNIST) and hidden states (half on).
    states: Vec<f32>,
    hidden_states: Vec<f32>,
    p: Vec<f32>,
    out_h: Vec<f32>,
    out_v: Vec<f32>,
    grad: Vec<f32>,
    bias_h: Vec<f32>,
    bias_v: Vec<f32>,
    mean_h: Vec<f32>,
    mean_v: Vec<f32>,
    draws: Vec<u32>,
    rng: SpinRng,
    bytes: Vec<u8>,
    sums: Vec<f64>,
    weights: Vec<f32>,
    velocity: Vec<f32>,
    step: Vec<f32>,
}

/// The kernels compared (in the order of [`NAMES`]).
const KERNELS: [(Kernel, &str); 2] = [(Kernel::Simd128, "simd128"), (Kernel::Fast, "gemm")];

/// The parts timed, by name ([`Parts::run`] runs each).
const NAMES: [&str; 10] = [
    "whole update (trainer)",
    "five products, simd128",
    "five products, gemm",
    "five products, four as 0/1 sums of rows",
    "σ: 2 × (100×500) + 100×784",
    "sampling: 100×500 + 100×784",
    "draws: 100 × 1284 next_u32",
    "V₀: 100×784 bytes to f32",
    "column sums: 2 × (100×784 + 100×500)",
    "update rule: momentum step + write, 784×500",
];

const B: usize = 100;
const V: usize = 784;
const H: usize = 500;

impl Parts {
    fn new() -> Parts {
        Parts {
            trainer: mnist_sized_trainer(1),
            x: values(B * V, 6),
            w: values(V * H, 7),
            states: (0..B * V)
                .map(|k| f32::from(u8::from(k % 8 == 0)))
                .collect(),
            hidden_states: (0..B * H)
                .map(|k| f32::from(u8::from(k % 2 == 0)))
                .collect(),
            p: values(B * H, 8),
            out_h: vec![0.0; B * H],
            out_v: vec![0.0; B * V],
            grad: vec![0.0; V * H],
            bias_h: values(H, 9),
            bias_v: values(V, 10),
            mean_h: vec![0.0; H],
            mean_v: vec![0.0; V],
            draws: vec![0; B * (V + H)],
            rng: seeded_rng(11),
            bytes: (0..B * V).map(|k| u8::from(k % 7 == 0)).collect(),
            sums: vec![0.0; V + H],
            weights: values(V * H, 12),
            velocity: values(V * H, 13),
            step: vec![0.0; V * H],
        }
    }

    /// Runs part `q` of [`NAMES`] once.
    fn run(&mut self, q: usize) {
        let [(_, nn), (_, nt), (_, tn)] = mnist_sized_products();
        let free = tn.scaled(-0.01, 1.0);
        match q {
            0 => self.trainer.run(1).expect("finite"),
            1 | 2 => {
                let kernel = KERNELS[q - 1].0;
                let (x, w, p) = (&self.x, &self.w, &self.p);
                multiply_with(kernel, &mut self.out_h, x, w, &nn, 1); // P₀ = V₀W
                multiply_with(kernel, &mut self.out_v, p, w, &nt, 1); // HWᵀ
                multiply_with(kernel, &mut self.out_h, x, w, &nn, 1); // XW
                multiply_with(kernel, &mut self.grad, x, p, &tn, 1); // V₀ᵀP₀
                multiply_with(kernel, &mut self.grad, x, p, &free, 1); // −XᵀP
            }
            3 => {
                // The products as the trainer computes them: four with 0/1 visible states
                // (V₀, X) as sums of rows, H·Wᵀ dense with the large-product kernel.
                let (s, w, p) = (&self.states, &self.w, &self.p);
                let hidden = &self.hidden_states;
                multiply_indicator(&mut self.out_h, s, w, &nn);
                multiply_with(KERNELS[0].0, &mut self.out_v, hidden, w, &nt, 1);
                multiply_indicator(&mut self.out_h, s, w, &nn);
                multiply_indicator(&mut self.grad, s, p, &tn);
                multiply_indicator(&mut self.grad, s, p, &free);
            }
            4 => {
                // Inputs of moderate size (σ's input range in training).
                self.out_h.copy_from_slice(&self.p);
                add_bias_sigmoid(&mut self.out_h, &self.bias_h);
                self.out_v.copy_from_slice(&self.x);
                add_bias_sigmoid(&mut self.out_v, &self.bias_v);
                self.out_h.copy_from_slice(&self.p);
                add_bias_sigmoid(&mut self.out_h, &self.bias_h);
            }
            5 => {
                let (hidden, visible) = self.draws.split_at(B * H);
                sample_below(&self.p, hidden, &mut self.out_h);
                sample_below(&self.x, visible, &mut self.out_v);
            }
            6 => self.draws.iter_mut().for_each(|r| *r = self.rng.next_u32()),
            7 => {
                let pairs = self.out_v.iter_mut().zip(&self.bytes);
                pairs.for_each(|(o, &x)| *o = f32::from(x));
            }
            8 => {
                let (sv, sh) = self.sums.split_at_mut(V);
                add_column_sums(&self.x, sv, 0.01, 0.0, &mut self.mean_v);
                add_column_sums(&self.x, sv, -0.01, 1.0, &mut self.mean_v);
                add_column_sums(&self.p, sh, 0.01, 0.0, &mut self.mean_h);
                add_column_sums(&self.p, sh, -0.01, 1.0, &mut self.mean_h);
            }
            9 => {
                let mut ok = [true];
                let scalars = [0.5, 1e-3, 0.0, 1e6];
                let (w, g, u) = (&self.weights, &self.grad, &self.velocity);
                momentum_step(w, g, u, &mut self.step, scalars, &mut ok);
                apply_step(&mut self.weights, &mut self.velocity, &self.step);
            }
            _ => unreachable!("a part of NAMES"),
        }
    }
}

#[wasm_bindgen_test]
fn cpu_time_of_a_784_500_cd_1_update_in_wasm_and_of_its_parts() {
    const REPS: usize = 15;
    let mut parts = Parts::new();
    // Warm-up: V8 tiers each function up after a few calls.
    for _ in 0..3 {
        (0..NAMES.len()).for_each(|q| parts.run(q));
    }
    // Interleaved: every rep runs each part once, the order rotated by the rep.
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); NAMES.len()];
    for rep in 0..REPS {
        for s in 0..NAMES.len() {
            let q = (s + rep) % NAMES.len();
            let start = cpu_ms();
            parts.run(q);
            times[q].push(cpu_ms() - start);
        }
    }
    let mut report = format!(
        "wasm (node {}), one thread, CPU ms, median (min–max) of {REPS}, interleaved:",
        node_version()
    );
    for (name, t) in NAMES.iter().zip(times.iter_mut()) {
        let (median, min, max) = summary(t);
        report += &format!("\n  {name:<46} {median:7.3} ({min:.3}–{max:.3})");
    }
    web_sys::console::log_1(&report.into());
    assert!(parts.trainer.rbm().weights().iter().all(|w| w.is_finite()));
}

#[wasm_bindgen_test]
fn cpu_time_of_a_784_500_cd_1_update_shared_by_two_replicas() {
    const REPS: usize = 15;
    let mut one = mnist_sized_trainer(1);
    let mut replicas = [mnist_sized_trainer(1), mnist_sized_trainer(1)];
    let shards = [Shard::new(0, 2).unwrap(), Shard::new(1, 2).unwrap()];
    // Each replica's steps: 1 (chains, and its rows copied out), the other's rows in, 2 (g_W
    // rows, biases, its block of W's step, copied out), the other's block in, 3 (W ← W + u).
    const STEPS: [&str; 5] = [
        "1 chains + rows out",
        "rows in",
        "2 step + block out",
        "block in",
        "3 finish",
    ];
    let mut times = vec![vec![Vec::new(); STEPS.len()]; 2];
    let mut whole = Vec::new();
    for rep in 0..REPS + 2 {
        let start = cpu_ms();
        one.update().unwrap();
        let alone = cpu_ms() - start;
        let mut t = [[0.0; 5]; 2];
        let mut rows = Vec::new();
        for (r, replica) in replicas.iter_mut().enumerate() {
            let start = cpu_ms();
            replica.shard_chains(shards[r]).unwrap();
            rows.push(replica.shard_rows().unwrap());
            t[r][0] = cpu_ms() - start;
        }
        let mut blocks = Vec::new();
        for (r, replica) in replicas.iter_mut().enumerate() {
            let start = cpu_ms();
            replica.receive_rows(1 - r, &rows[1 - r]).unwrap();
            t[r][1] = cpu_ms() - start;
            let start = cpu_ms();
            replica.shard_step().unwrap();
            let (block, within) = replica.step_block().unwrap();
            blocks.push((block.to_vec(), within));
            t[r][2] = cpu_ms() - start;
        }
        for (r, replica) in replicas.iter_mut().enumerate() {
            let start = cpu_ms();
            let (block, within) = &blocks[1 - r];
            replica.receive_step(1 - r, block, *within).unwrap();
            t[r][3] = cpu_ms() - start;
            let start = cpu_ms();
            replica.finish_shared_update().unwrap();
            t[r][4] = cpu_ms() - start;
        }
        // The first two reps warm the code up.
        if rep >= 2 {
            whole.push(alone);
            for r in 0..2 {
                for q in 0..STEPS.len() {
                    times[r][q].push(t[r][q]);
                }
            }
        }
    }
    let (alone, min, max) = summary(&mut whole);
    let mut report = format!(
        "wasm (node {}), an update shared by two replicas, CPU ms, median (min–max) of {REPS}:\n  one trainer's whole update {alone:7.3} ({min:.3}–{max:.3})",
        node_version()
    );
    let mut replica_total = [0.0; 2];
    for (r, steps) in times.iter_mut().enumerate() {
        for (name, t) in STEPS.iter().zip(steps.iter_mut()) {
            let (median, min, max) = summary(t);
            replica_total[r] += median;
            report += &format!("\n  replica {r}: {name:<24} {median:7.3} ({min:.3}–{max:.3})");
        }
    }
    let slower = replica_total[0].max(replica_total[1]);
    report += &format!(
        "\n  per replica (sum of medians): {:.3}, {:.3}; one trainer / the slower replica = {:.2}× (the bound of two workers, before the exchange between them)",
        replica_total[0],
        replica_total[1],
        alone / slower
    );
    web_sys::console::log_1(&report.into());
    assert!(replicas[0].state() == one.state());
}

fn node_version() -> String {
    js_sys::eval("process.version")
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default()
}
