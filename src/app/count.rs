//! A whole count from outside (a command's field, a JavaScript number) and its range: read
//! once where a number comes in, checked again by the engine method that takes it, with the
//! same message either way. Every engine's counts are [`Count`] constants (the lattice's
//! ticks and size, the machines' hidden units and steps, …).

use crate::error::{ParamError, whole_in};

/// A whole count a command carries: its field name and allowed range [min, max]
/// (max ≤ 2^53, where every integer is exact in an f64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    pub field: &'static str,
    pub min: u64,
    pub max: u64,
}

impl Count {
    /// `value` if it is a whole number in [min, max]: how a number from outside (any
    /// JavaScript number is an f64) is read, refused with a message naming the field.
    pub fn read(self, value: f64) -> Result<u64, ParamError> {
        whole_in(self.field, value, self.min, self.max)
    }

    /// `value` if it is in [min, max], refused with the same error as [`Count::read`] gives
    /// for that number (compared as integers, so 2^53 + 1 is not taken for 2^53).
    pub fn check(self, value: u64) -> Result<u64, ParamError> {
        if (self.min..=self.max).contains(&value) {
            return Ok(value);
        }
        Err(ParamError::OutOfRange {
            field: self.field,
            value: value as f64,
            min: self.min as f64,
            max: self.max as f64,
        })
    }

    /// The same count with another upper bound (one that depends on the run: the batch is
    /// at most the number of training images, a test image at most the last one).
    pub fn up_to(self, max: u64) -> Count {
        Count { max, ..self }
    }

    /// `value` if it is a whole number in [min, max], for a count whose real upper bound
    /// depends on the run and is not known where the number comes in: anything else is
    /// refused with that bound named in words (`upper`, "the number of training images"), not
    /// with `max`, a bound no run has. A whole number beyond the run's bound is refused later,
    /// by [`Count::up_to`], with the run's number.
    pub fn read_before(self, value: f64, upper: &'static str) -> Result<u64, ParamError> {
        self.read(value).map_err(|_| ParamError::NotCount {
            field: self.field,
            value,
            min: self.min,
            upper,
        })
    }
}

/// Largest seed: every integer up to 2^53 is exact in a JavaScript number.
pub const MAX_SEED: u64 = 1 << 53;

/// A seed: 0 to 2^53.
pub const SEED: Count = Count {
    field: "seed",
    min: 0,
    max: MAX_SEED,
};
