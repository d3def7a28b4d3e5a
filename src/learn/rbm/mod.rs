//! Restricted Boltzmann machines: 0/1 units at T = 1, visible units connected only to
//! hidden units (docs/references.md §5).
//!
//! With no connections inside a layer, p(h | v) and p(v | h) are exact products of
//! sigmoids, a whole layer is updated at once (block Gibbs), the clamped phase of learning
//! needs no sampling, and one layer can be summed out of Z in closed form.
//!
//! The machine's parts live in the layers they belong to; this module holds the learning
//! and names every part, so the whole feature is found from here:
//! - [`model`] = `model/rbm.rs`: the machine [`Rbm`] (W, a, b), its local fields, energy
//!   and free energy, and its form as a general [`crate::model::Network`] with a
//!   bipartite mask;
//! - [`sampling`] = `dynamics/rbm.rs`: the exact conditionals, block Gibbs steps and
//!   persistent [`Particles`];
//! - [`tempering`] = `dynamics/rbm_tempering.rs`: replicas of the particles at falling β,
//!   with swaps ([`Replicas`]);
//! - [`exact`] = `estimate/rbm_exact.rs`: exact ln Z and log-likelihood by enumerating the
//!   smaller layer (≤ 24 units);
//! - [`ais`] = `estimate/rbm_ais.rs`: ln Z by annealed importance sampling (Salakhutdinov
//!   & Murray 2008), with its standard error;
//! - [`statistics`]: the ways of getting the learning statistics ([`Statistics`]: CD-k,
//!   persistent particles, parallel tempering), each with its formula and its failure
//!   mode;
//! - [`training`]: mini-batches, the rate schedule, momentum and weight decay
//!   ([`RbmTrainer`]);
//! - [`batch`]: the same learning in f32 on whole mini-batches with dense products
//!   ([`BatchTrainer`], CD-k and persistent chains), for MNIST-sized machines;
//! - the machine with labels: [`labelled`] = `model/rbm_labels.rs` ([`LabelledRbm`]:
//!   E(v, y, h), F(v, y), p(y | v) exactly), [`labelled_sampling`] =
//!   `dynamics/rbm_labels.rs` (block Gibbs with the label free or clamped), and
//!   [`labels`] (its [`LabelledTrainer`] on the batch trainer, whose chains sample the
//!   label group in [`label_group`]; the test error).

pub mod batch;
pub mod label_group;
pub mod labels;
pub mod statistics;
pub mod training;

pub use crate::dynamics::rbm as sampling;
pub use crate::dynamics::rbm_labels as labelled_sampling;
pub use crate::dynamics::rbm_tempering as tempering;
pub use crate::estimate::rbm_ais as ais;
pub use crate::estimate::rbm_exact as exact;
pub use crate::model::rbm as model;
pub use crate::model::rbm_labels as labelled;

pub use ais::{AisEstimate, AisRuns, AisSchedule, ais_log_z};
pub use batch::{BatchState, BatchTrainer};
pub use labelled::LabelledRbm;
pub use labels::{Classification, LabelledTrainer, classify_set};
pub use model::{MAX_LAYER_UNITS, MAX_WEIGHTS, Rbm, base_rate_biases};
pub use sampling::Particles;
pub use statistics::{Batch, FreeChains, FreeProgress, FreeStage, Gradient, Statistics};
pub use tempering::Replicas;
pub use training::{RateSchedule, RbmTrainer, TrainerState, TrainingOptions, UpdateProgress};

/// Most persistent particles: 10 000.
pub const MAX_PARTICLES: usize = 10_000;
/// Most tempered replicas: 64.
pub const MAX_REPLICAS: usize = 64;
/// Most block Gibbs steps per update: 1000.
pub const MAX_GIBBS_STEPS: usize = 1000;
/// Most multiply-adds one update may cost: 2^32 (a few seconds at most natively).
pub const MAX_UPDATE_WORK: u128 = 1 << 32;
