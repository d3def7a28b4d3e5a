//! Exact results: closed forms for the 2D Ising model (Onsager, Kaufman, Beale, the 2×2
//! lattice) that the page overlays on its curves and the tests compare samplers with.

pub mod closed_form;
pub mod enumeration;
pub mod tabled;

pub use closed_form::*;
