//! What a front end drives: the lattice and machine laboratories, their versioned
//! snapshots and sessions, the temperature sweep and the text parsers. Plain Rust; the
//! page's facade (`web`) and any other front end call these.
//!
//! - [`lattice`]: the lattice laboratory ([`LatticeLab`]), one run the page drives, changed
//!   only by its commands ([`LatticeCommand`] → [`LatticeReply`], through `LatticeLab::apply`);
//! - [`setup`]: the parameters, and the URL fragment that carries them;
//! - [`snapshot`]: the full state as a JSON file, written and read back exactly;
//! - [`session`]: the same state as compact session text (spins, clamps, bonds packed);
//! - [`packing`]: bits and numbers as base64, for sessions;
//! - [`scan`]: the temperature-sweep experiment;
//! - [`machine`]: the Boltzmann-machine laboratory ([`MachineLab`]), the page's other mode,
//!   one file per job, changed only by its commands ([`MachineCommand`] → [`MachineReply`],
//!   through `MachineLab::apply`); with [`machine::snapshot`], a machine run's session,
//!   written and read back exactly;
//! - [`rbm`]: the restricted-machine laboratory ([`RbmLab`]): digits and bars learning,
//!   fantasy particles, log-likelihood in slices, generation and completion, one file per
//!   job, changed only by its commands ([`RbmCommand`] → [`RbmReply`], through
//!   `RbmLab::apply`);
//! - [`memory`]: the pattern-memory laboratory ([`MemoryLab`]): a Hopfield memory of
//!   pictures, stored by Hebb, unlearning or the Boltzmann rule, recalled tick by tick,
//!   changed only by its commands ([`MemoryCommand`] → [`MemoryReply`], through
//!   `MemoryLab::apply`);
//! - [`parse`]: the text the machine's editors take (patterns, schedules);
//! - [`count`]: a whole count from outside and its range, every engine's ([`Count`]).

pub mod count;
pub mod lattice;
pub mod machine;
pub mod memory;
pub mod packing;
pub mod parse;
pub mod rbm;
pub mod scan;
pub mod session;
pub mod setup;
pub mod snapshot;

pub use lattice::{
    BOND_WINDOW, BondWindow, Brush, LatticeCommand, LatticeLab, LatticeReply, MATRIX_UNITS,
    MAX_BRUSH_RADIUS, MAX_TICKS_PER_CALL, Point, Reset, StepReport, TRACE_CAPACITY,
};
pub use machine::{MachineCommand, MachineLab, MachineReply};
pub use memory::{MemoryCommand, MemoryLab, MemoryReply};
pub use rbm::{Count, RbmCommand, RbmLab, RbmReply};
pub use scan::{ScanPlan, ScanResults, TemperatureScan};
pub use setup::{LatticeModel, LatticeSetup};
pub use snapshot::Snapshot;
