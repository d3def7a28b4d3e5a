//! The range of every whole number the machine's commands carry, one [`Count`] each: read
//! once at the boundary ([`Count::read`], from a JavaScript number or JSON) and checked again
//! by the method that uses it ([`Count::check`]), with the same message naming the field.

use super::{MAX_CUSTOM_HIDDEN, MAX_STEPS_PER_CALL};
use crate::app::Count;

/// A seed: 0 to 2^53 (every engine's).
pub use crate::app::lattice::wire::SEED;
/// Hidden units of a machine on the user's patterns: 0 to [`MAX_CUSTOM_HIDDEN`].
pub const HIDDEN: Count = Count {
    field: "hidden units",
    min: 0,
    max: MAX_CUSTOM_HIDDEN,
};
/// Sweeps (stochastic) or solves (mean field) of one advance: 0 to [`MAX_STEPS_PER_CALL`].
pub const STEPS: Count = Count {
    field: "steps",
    min: 0,
    max: MAX_STEPS_PER_CALL,
};
/// Collection sweeps per settling: 1 to 10⁶.
pub const COLLECT_SWEEPS: Count = Count {
    field: "collect sweeps",
    min: 1,
    max: 1_000_000,
};
/// Persistent particles K: 1 to 10⁴.
pub const PARTICLES: Count = Count {
    field: "particles",
    min: 1,
    max: crate::learn::statistics::MAX_PARTICLES,
};
/// Sweeps per chain and cycle k: 1 to 10⁴.
pub const GIBBS_STEPS: Count = Count {
    field: "gibbs steps",
    min: 1,
    max: crate::learn::statistics::MAX_CHAIN_SWEEPS,
};
/// Chains per particle R: 1 to 32 (tempering needs at least 2).
pub const REPLICAS: Count = Count {
    field: "replicas",
    min: 1,
    max: crate::learn::statistics::MAX_REPLICAS,
};
/// What a refusal of R where it comes in says of its upper bound: R = 1 serves the ways
/// without tempering, and tempering refuses it (`GeneralStatistics::parse`).
pub const REPLICAS_UP_TO: &str = "32, and at least 2 for tempering";
/// Sweeps of the hand-run sampler per call: 1 to 10⁴.
pub const EXPLORE_SWEEPS: Count = Count {
    field: "sweeps",
    min: 1,
    max: 10_000,
};
/// A training pattern (0-based): 0 to the last pattern ([`Count::up_to`]).
pub const PATTERN: Count = Count {
    field: "pattern",
    min: 0,
    max: crate::app::setup::MAX_SEED,
};
/// A training pattern as the page numbers them (1-based): 1 to the number of patterns.
pub const PATTERN_NUMBER: Count = Count {
    field: "pattern to clamp",
    min: 1,
    max: crate::app::setup::MAX_SEED,
};
/// Chunks of the AIS estimate of KL per call: 1 to 1000.
pub const ESTIMATE_CHUNKS: Count = Count {
    field: "chunks",
    min: 1,
    max: 1000,
};
/// Samples of the gallery: 1 to 10⁵.
pub const GALLERY_SAMPLES: Count = Count {
    field: "samples",
    min: 1,
    max: 100_000,
};
/// The gallery's seed: 0 to 2^53 − 1.
pub const GALLERY_SEED: Count = Count {
    field: "seed",
    min: 0,
    max: u64::MAX >> 11,
};
