//! Energy models: what the energy E(s) of a spin configuration is, and the local field
//! each unit feels. Models hold parameters only; the state (the spins) and how it changes
//! belong to [`crate::dynamics`]. [`lattice`]: the square lattice; [`network`]: the dense
//! network (+ its JSON file); [`rbm`]: the restricted machine; [`rbm_labels`]: the
//! restricted machine with a one-of-K label group; [`memory`]: stored patterns
//! (Hopfield) and their overlaps; [`patterns`]: training
//! patterns.

pub mod lattice;
pub mod memory;
pub mod network;
pub mod patterns;
pub mod rbm;
pub mod rbm_labels;

pub use lattice::{Boundary, Couplings, Lattice};
pub use network::{Network, SpinKind};
