//! # boltzlab
//!
//! An interactive laboratory for Ising models and Boltzmann machines. This crate is the
//! engine: plain Rust that compiles natively (library, CLI, tests, benchmarks) and to
//! WebAssembly (the page). Only `web` (built for wasm alone) knows about the browser.
//!
//! Conventions (see docs/references.md): J = k_B = 1, β = 1/T, Ising spins s = ±1, energy
//! E(s) = −Σ_{i<j} w_ij s_i s_j − Σ_i θ_i s_i.
//!
//! Module map, bottom to top; a module imports only from the layers below its own:
//! - [`error`], [`rng`], [`log_sum_exp`], [`linalg`] (leaves): the typed error every
//!   boundary returns for bad input and the one temperature check; the random stream,
//!   seeding, uniforms and normals; ln Σ e^{x}, written once, in its careful form; the
//!   dense f32 products (and the f32 elementwise work) of batch learning;
//! - [`model`]: energy models (what E(s) and the local fields are), training patterns;
//! - [`dynamics`]: how states change, one sequential single-spin update ("tick") at a
//!   time: the rules and their acceptance tables, orders, annealing, Wolff clusters, lanes;
//! - [`exact`]: closed forms (Onsager, Kaufman, Beale) and enumeration of small networks;
//! - [`estimate`]: ln Z every way (exact with or without clamps, the
//!   sampled bound, mean field, AIS), the KL estimate, observables with error bars (one
//!   c/χ accumulator, one Wolff calibration), correlations, bounded traces;
//! - [`learn`]: Boltzmann learning: two-phase stochastic and mean-field rules, datasets,
//!   exact likelihood, encoder tests and the published protocols;
//! - [`app`]: what the page drives: the lattice laboratory (setups and share links, JSON
//!   snapshots, the temperature sweep), the machine laboratory, the text parsers;
//! - `web` (wasm32 only): the thin facade the page calls.

// Unit tests compute reference values with std's maths; the engine itself uses libm
// (clippy.toml), so that its numbers are the same natively and in wasm.
#![cfg_attr(test, allow(clippy::disallowed_methods))]

pub mod app;
pub mod dynamics;
pub mod error;
pub mod estimate;
pub mod exact;
pub mod learn;
pub mod linalg;
pub mod log_sum_exp;
pub mod model;
pub mod rng;

#[cfg(target_arch = "wasm32")]
pub mod web;

pub use dynamics::lattice_sampler::Dynamics;
pub use dynamics::{LatticeSampler, NetworkOrder, NetworkSampler, Order, Rule};
pub use error::ParamError;
pub use estimate::Correlations;
pub use model::{Boundary, Couplings, Lattice, Network, SpinKind};
pub use rng::SpinRng;
