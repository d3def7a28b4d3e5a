//! Exact results: closed forms for the 2D Ising model (Onsager, Kaufman, Beale, the 2×2
//! lattice) that the page overlays on its curves and the tests compare samplers with, and
//! enumeration of small networks (thermal averages, state probabilities, correlations).
//! Exact ln Z itself, with or without clamps, is [`crate::estimate::exact_log_z`].

pub mod closed_form;
pub mod enumeration;

pub use closed_form::*;
