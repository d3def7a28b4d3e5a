//! Estimation: every number the engine reports about a distribution rather than a state.
//! Every sum of exponentials here goes through [`crate::log_sum_exp`], written once.
//!
//! - [`exact_log_z`]: exact ln Z by enumeration, with or without clamped units;
//! - [`log_z`]: ln Z four ways (exact, the sampled lower bound, mean field, AIS), as the
//!   CLI's `logz`, the machine's Z panel and the lattice's ln Z card report it;
//! - [`mean_field`]: the mean-field equations and the free energy −F/T;
//! - [`kl`]: KL(data ‖ model) with ln Z by AIS, for machines too big to enumerate;
//! - [`ais`]: annealed importance sampling, the one driver (schedule, runs, weights,
//!   estimate and standard error) behind every AIS estimate;
//! - [`rbm_exact`], [`rbm_ais`]: ln Z of a restricted machine, exactly over its smaller
//!   layer, or by AIS with the hidden layer summed out (Salakhutdinov & Murray 2008);
//! - [`bipartite`]: ln Z of a network whose units split into two unconnected groups, as
//!   a restricted machine (exact over the smaller group, or AIS);
//! - [`observables`]: means with binned errors, and c and χ with jackknife errors from
//!   one accumulator and one Wolff calibration, shared by the page's sweep and the CLI;
//! - [`correlations`]: running ⟨s_i⟩ and ⟨s_i s_j⟩;
//! - [`trace`]: bounded histories for the live views (the energy trace, learning curves).

pub mod ais;
pub mod bipartite;
pub mod correlations;
pub mod exact_log_z;
pub mod kl;
pub mod log_z;
pub mod mean_field;
pub mod observables;
pub mod rbm_ais;
pub mod rbm_exact;
pub mod trace;

pub use correlations::Correlations;
pub use log_z::{LogZ, LogZMethod};
pub use observables::{Estimate, Series};
pub use trace::Trace;
