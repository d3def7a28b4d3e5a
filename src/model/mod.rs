//! Energy models: what the energy E(s) of a spin configuration is, and the local field
//! each unit feels. Models hold parameters only; the state (the spins) and how it changes
//! belong to [`crate::dynamics`].

pub mod lattice;
pub mod network;
pub mod patterns;

pub use lattice::{Boundary, Couplings, Lattice};
pub use network::{Network, SpinKind};
