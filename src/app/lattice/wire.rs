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

/// A choice with a name on the wire: `name(parse(s)) == s` for every allowed `s`, and `ALL`
/// every choice (each type's TypeScript union, `#[tsify(type = …)]`, lists their names;
/// tests/protocol_laws checks the two agree).
pub trait Named: Sized + Copy + 'static {
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
    fn parse(name: &str) -> Result<Self, ParamError>;
}

/// `named!(T, …)`: each type's own `name` and `parse` as its [`Named`] (for every engine's
/// choices).
macro_rules! named {
    ($($t:ty),*) => {$(
        impl $crate::app::lattice::wire::Named for $t {
            const ALL: &'static [Self] = &<$t>::ALL;
            fn name(self) -> &'static str {
                <$t>::name(self)
            }
            fn parse(name: &str) -> Result<Self, $crate::error::ParamError> {
                <$t>::parse(name)
            }
        }
    )*};
}
pub(crate) use named;
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

pub use crate::app::count::{Count, SEED};

/// Reads a count on the wire: the number a front end sent, through `count`'s check (so a bad
/// value gets the engine's own message).
pub fn read_count<'de, D: serde::Deserializer<'de>>(d: D, count: Count) -> Result<u64, D::Error> {
    checked(d, |x| count.read(x))
}

/// Reads a count whose upper bound depends on the run, naming that bound in words (`upper`)
/// in a refusal here ([`Count::read_before`]); the run checks the number against its own
/// bound when it applies the command.
pub fn read_count_before<'de, D: serde::Deserializer<'de>>(
    d: D,
    count: Count,
    upper: &'static str,
) -> Result<u64, D::Error> {
    checked(d, |x| count.read_before(x, upper))
}

/// `counts! { name: COUNT; … }` in a command's `wire` module: one deserializer a count, each
/// reading through the `COUNT` of the module two levels up (the engine's).
macro_rules! counts {
    ($($name:ident: $count:ident;)*) => {$(
        pub fn $name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            $crate::app::lattice::wire::read_count(d, super::super::$count)
        }
    )*};
}
pub(crate) use counts;

/// Reads a number as the engine's check `check` reads it (any JavaScript number comes in as
/// an f64; the check says whether it is whole and in range).
fn checked<'de, T, D: serde::Deserializer<'de>>(
    d: D,
    check: impl FnOnce(f64) -> Result<T, ParamError>,
) -> Result<T, D::Error> {
    use serde::{Deserialize, de::Error};
    check(f64::deserialize(d)?).map_err(D::Error::custom)
}

/// The side L (2 to 2048).
pub fn size<'de, D: serde::Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    read_count(d, crate::app::setup::SIZE).map(|s| s as usize)
}

/// `read! { name: path::COUNT; … }`: one deserializer a count of the lattice's own.
macro_rules! read {
    ($($name:ident: $count:path;)*) => {$(
        pub fn $name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
            read_count(d, $count)
        }
    )*};
}

read! {
    seed: SEED;
    ticks: super::TICKS;
    radius: super::BRUSH_RADIUS;
    scan_sweeps: super::SCAN_SWEEPS;
    points: crate::app::scan::POINTS;
    burn_in: crate::app::scan::BURN_IN;
    measure: crate::app::scan::MEASURE;
}
