//! # boltzlab
//!
//! An interactive laboratory for Ising models and Boltzmann machines. This crate is the
//! engine: plain Rust that compiles natively (library, CLI, tests, benchmarks) and to
//! WebAssembly (the page). Only [`web`] knows about the browser.
//!
//! Conventions (see REFERENCES.md): J = k_B = 1, β = 1/T, Ising spins s = ±1, energy
//! E(s) = −Σ_{i<j} w_ij s_i s_j − Σ_i θ_i s_i.
//!
//! Module map:
//! - [`model`]: energy models (what E(s) and the local fields are);
//! - [`dynamics`]: how states change, one sequential single-spin update ("tick") at a time;
//! - [`measure`]: observables and bounded traces for the views;
//! - [`exact`]: closed forms (Onsager, Kaufman) and exact enumeration;
//! - [`lab`]: the lattice laboratory the page drives: setups and share links, JSON
//!   snapshots, the temperature-sweep experiment;
//! - [`mean_field`]: the deterministic (mean-field) machine and its free energy;
//! - [`partition`]: ln Z four ways: exact enumeration, the sampled lower bound, mean field
//!   and annealed importance sampling;
//! - [`learn`]: Boltzmann learning: two-phase stochastic and mean-field rules, datasets,
//!   exact likelihood, encoder tests and the published protocols;
//! - [`error`]: the typed error every boundary returns for bad input;
//! - `web` (wasm32 only): the thin facade the page calls.

pub mod dynamics;
pub mod error;
pub mod exact;
pub mod lab;
pub mod learn;
pub mod mean_field;
pub mod measure;
pub mod model;
pub mod partition;
pub mod rng;

#[cfg(target_arch = "wasm32")]
pub mod web;

pub use dynamics::lattice_sampler::Dynamics;
pub use dynamics::{LatticeSampler, NetworkOrder, NetworkSampler, Order, Rule};
pub use error::ParamError;
pub use measure::Correlations;
pub use model::{Boundary, Couplings, Lattice, Network, SpinKind};
pub use rng::SpinRng;
