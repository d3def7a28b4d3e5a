//! How a command's fields are written on the wire (JSON, or a JavaScript object decoded by
//! serde-wasm-bindgen): choices by their names, whole numbers read through the engine's own
//! checks.
//!
//! A front end sends plain numbers and names. Decoding turns them into the engine's types
//! once, here, and refuses a bad value with the message the engine's check gives (naming the
//! field and the allowed range), so "size 3.5" is refused as "size must be a whole number …"
//! before any state is touched.

use crate::app::lattice::{Brush, Reset};
use crate::app::setup::LatticeModel;
use crate::dynamics::{Dynamics, Order};
use crate::error::ParamError;
use crate::model::Boundary;

/// A choice with a name on the wire: `name(parse(s)) == s` for every allowed `s`.
pub trait Named: Sized + Copy {
    fn name(self) -> &'static str;
    fn parse(name: &str) -> Result<Self, ParamError>;
}

macro_rules! named {
    ($($t:ty),*) => {$(
        impl Named for $t {
            fn name(self) -> &'static str {
                <$t>::name(self)
            }
            fn parse(name: &str) -> Result<Self, ParamError> {
                <$t>::parse(name)
            }
        }
    )*};
}
named!(Dynamics, Order, Boundary, LatticeModel, Reset, Brush);

/// `#[serde(with = "by_name")]`: a [`Named`] choice written as its name.
pub mod by_name {
    use super::Named;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<T: Named, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value.name())
    }

    pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let name = String::deserialize(d)?;
        T::parse(&name).map_err(D::Error::custom)
    }
}

/// Reads a number as the engine's check `check` reads it (any JavaScript number comes in as
/// an f64; the check says whether it is whole and in range).
fn checked<'de, T, D: serde::Deserializer<'de>>(
    d: D,
    check: impl FnOnce(f64) -> Result<T, ParamError>,
) -> Result<T, D::Error> {
    use serde::{Deserialize, de::Error};
    check(f64::deserialize(d)?).map_err(D::Error::custom)
}

macro_rules! whole {
    ($(#[$doc:meta] $name:ident: $t:ty = $check:expr;)*) => {$(
        #[$doc]
        pub fn $name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
            checked(d, $check)
        }
    )*};
}

whole! {
    /// The side L (2 to 2048).
    size: usize = crate::app::setup::check_size;
    /// A seed (0 to 2^53).
    seed: u64 = crate::app::setup::check_seed;
    /// Ticks of one advance (0 to 2^26).
    ticks: u64 = |x| crate::error::whole_in("ticks", x, 0, super::MAX_TICKS_PER_CALL);
    /// A brush radius in sites (0 to 64).
    radius: u64 = |x| crate::error::whole_in("brush radius", x, 0, super::MAX_BRUSH_RADIUS);
    /// A scan's temperatures (2 to 200).
    points: u64 = |x| crate::error::whole_in("points", x, 2, crate::app::scan::MAX_POINTS);
    /// A scan's burn-in sweeps per temperature.
    burn_in: u64 = |x| {
        crate::error::whole_in("burn-in sweeps", x, 0, crate::app::scan::MAX_SWEEPS_PER_POINT)
    };
    /// A scan's measurement sweeps per temperature.
    measure: u64 = |x| {
        crate::error::whole_in("measurement sweeps", x, 2, crate::app::scan::MAX_SWEEPS_PER_POINT)
    };
    /// Sweeps of the scan in one call (0 to 2^20).
    scan_sweeps: u64 = |x| crate::error::whole_in("sweeps", x, 0, super::MAX_SCAN_SWEEPS_PER_CALL);
}
