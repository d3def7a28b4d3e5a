//! How states change: one sequential single-spin update ("tick") at a time.
//!
//! A tick visits one site and redraws its spin by an update [`rules`] from the local field
//! and the temperature; a sweep is N ticks. Sites are visited in an [`Order`]. The random
//! stream is [`crate::rng::SpinRng`], a 32-bit generator whose output is the same on every
//! platform, and every random choice is made from its 32-bit words with integer arithmetic
//! (or `libm`), so a seed fixes the whole trajectory natively and in WebAssembly alike.
//! A restricted machine changes a whole layer at a time instead ([`rbm`], block Gibbs;
//! [`rbm_labels`], the same with a one-of-K label group; [`rbm_tempering`], replicas at
//! falling β).

pub mod anneal;
pub mod cluster;
pub mod lanes;
pub mod lattice_sampler;
pub mod network_sampler;
pub mod rbm;
pub mod rbm_labels;
pub mod rbm_tempering;
pub mod rules;
pub mod wavefront;

pub use anneal::Schedule;
pub use lattice_sampler::{Dynamics, LatticeSampler, SamplerState, TickExplanation};
pub use network_sampler::{NetworkOrder, NetworkSampler};
pub use rules::Rule;

use crate::error::ParamError;

/// The order in which ticks visit sites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'sequential' | 'random' | 'checkerboard'")]
pub enum Order {
    /// Typewriter order: x fastest, then y; the seeds' sequential dynamics.
    Sequential,
    /// A uniformly random site each tick.
    Random,
    /// All sites with x + y even (typewriter order), then all with x + y odd.
    Checkerboard,
}

impl Order {
    pub const ALL: [Order; 3] = [Order::Sequential, Order::Random, Order::Checkerboard];

    pub fn name(self) -> &'static str {
        match self {
            Order::Sequential => "sequential",
            Order::Random => "random",
            Order::Checkerboard => "checkerboard",
        }
    }

    pub fn parse(name: &str) -> Result<Order, ParamError> {
        Order::ALL
            .into_iter()
            .find(|o| o.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "order",
                value: name.to_string(),
                allowed: "sequential, random, checkerboard",
            })
    }
}
