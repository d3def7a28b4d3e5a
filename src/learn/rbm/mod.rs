//! Restricted Boltzmann machines: 0/1 units at T = 1, visible units connected only to
//! hidden units (docs/references.md §5).
//!
//! With no connections inside a layer, p(h | v) and p(v | h) are exact products of
//! sigmoids, a whole layer is updated at once (block Gibbs), the clamped phase of learning
//! needs no sampling, and one layer can be summed out of Z in closed form.
//!
//! Files, one job each:
//! - [`model`]: the machine [`Rbm`] (W, a, b), its energy and free energy, and its form as
//!   a general [`crate::model::Network`] with a bipartite mask;
//! - [`sampling`]: the exact conditionals, block Gibbs steps and persistent
//!   [`Particles`];
//! - [`statistics`]: the ways of getting the learning statistics ([`Statistics`]: CD-k,
//!   persistent particles, parallel tempering), each with its formula and its failure
//!   mode;
//! - [`tempering`]: replicas of the particles at falling β, with swaps ([`Replicas`]);
//! - [`training`]: mini-batches, the rate schedule, momentum and weight decay
//!   ([`RbmTrainer`]);
//! - [`exact`]: exact ln Z and log-likelihood by enumerating the smaller layer (≤ 24 units);
//! - [`ais`]: ln Z by annealed importance sampling (Salakhutdinov & Murray 2008), with its
//!   standard error.

pub mod ais;
pub mod exact;
pub mod model;
pub mod sampling;
pub mod statistics;
pub mod tempering;
pub mod training;

pub use ais::{AisEstimate, AisSchedule, ais_log_z};
pub use model::{Rbm, base_rate_biases};
pub use sampling::Particles;
pub use statistics::{FreeChains, Gradient, Statistics};
pub use tempering::Replicas;
pub use training::{RateSchedule, RbmTrainer, TrainingOptions};

/// Most units in one layer: 4096.
pub const MAX_LAYER_UNITS: usize = 4096;
/// Most weights V·H: 2^22 (32 MiB of f64).
pub const MAX_WEIGHTS: usize = 1 << 22;
/// Most persistent particles: 10 000.
pub const MAX_PARTICLES: usize = 10_000;
/// Most tempered replicas: 64.
pub const MAX_REPLICAS: usize = 64;
/// Most block Gibbs steps per update: 1000.
pub const MAX_GIBBS_STEPS: usize = 1000;
/// Most multiply-adds one update may cost: 2^32 (a few seconds at most natively).
pub const MAX_UPDATE_WORK: u128 = 1 << 32;
