//! The lattice engine's protocol: every change a front end can make to a [`LatticeLab`] is
//! one [`LatticeCommand`], and [`LatticeLab::apply`] is the one dispatcher that makes it and
//! answers with a [`LatticeReply`].
//!
//! The page, its worker and the tests therefore cannot disagree about what the engine
//! accepts: the page builds command objects (`{command: "set-size", size: 64}`), the web
//! facade decodes them with serde once (`web::IsingLab::dispatch`), and a new change is a new
//! variant, which the dispatcher's `match` must handle before anything compiles. The page's
//! TypeScript types for the commands and replies are derived from these enums
//! (`#[derive(tsify::Tsify)]`, into wasm-bindgen's `.d.ts`), so `make typecheck` checks every
//! command object the page builds against them.
//!
//! This is the shape every engine of the app layer is meant to take: a state, a `Command`
//! enum (serde, tagged by `command`, its fields typed: whole numbers as integers, choices as
//! enums, `Option` for "none"), a `Reply` enum, and one `apply(&mut self, Command) ->
//! Result<Reply, ParamError>` that refuses a bad command with a typed error and leaves the
//! state unchanged. Reading (the spins, the trace, the parameters) stays with plain getters:
//! only commands change an engine.
//!
//! On the wire a command's fields are plain numbers and names ([`super::wire`]): decoding
//! reads each number through the engine's own check, so a value refused at the boundary gets
//! the same message as a value refused here.

use super::wire::{self, by_name};
use super::{Brush, LatticeLab, Reset};
use crate::app::scan::ScanPlan;
use crate::app::setup::LatticeModel;
use crate::dynamics::{Dynamics, Order};
use crate::error::ParamError;
use crate::model::Boundary;
use serde::{Deserialize, Serialize};

/// A point in lattice coordinates (site (x, y) covers [x, x + 1) × [y, y + 1)).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, tsify::Tsify)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

/// Every change a front end can make to the lattice engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "command", rename_all = "kebab-case", deny_unknown_fields)]
#[tsify(missing_as_null)]
pub enum LatticeCommand {
    /// T (0 ≤ T ≤ 100; T = 0 is the zero-temperature rule).
    SetTemperature { temperature: f64 },
    /// The field h (|h| ≤ 10), keeping the spins.
    SetField { field: f64 },
    /// The model, keeping the spins; a glass's bonds are drawn from the seed.
    SetModel {
        #[serde(with = "by_name")]
        model: LatticeModel,
    },
    /// Starts again on an L×L lattice (2 ≤ L ≤ 2048).
    SetSize {
        #[serde(deserialize_with = "wire::size")]
        size: usize,
    },
    /// Starts again from a seed (0 to 2^53): spins, glass bonds and the whole trajectory.
    SetSeed {
        #[serde(deserialize_with = "wire::seed")]
        seed: u64,
    },
    /// Heat-bath, Metropolis or Wolff (refused, with the reason, where Wolff is wrong).
    SetDynamics {
        #[serde(with = "by_name")]
        dynamics: Dynamics,
    },
    /// The visiting order.
    SetOrder {
        #[serde(with = "by_name")]
        order: Order,
    },
    /// The boundary, keeping the spins and the couplings.
    SetBoundary {
        #[serde(with = "by_name")]
        boundary: Boundary,
    },
    /// Sets every free spin: at random, all up or all down.
    Reset {
        #[serde(with = "by_name")]
        to: Reset,
    },
    /// A stroke of round dabs of `radius` sites (0 to 64) from `from` to `to`.
    Paint {
        from: Point,
        to: Point,
        #[serde(deserialize_with = "wire::radius")]
        radius: u64,
        #[serde(with = "by_name")]
        brush: Brush,
    },
    /// The phase switch: clamped (the mask holds its spins) or free.
    SetClampsOn { on: bool },
    /// Clears the clamp mask.
    ReleaseAll,
    /// Starts again from the parameters of a URL fragment.
    ApplyFragment { fragment: String },
    /// Replaces the run by a JSON state file.
    ImportState { json: String },
    /// Replaces the run by a session text.
    RestoreSession { text: String },
    /// Does `ticks` ticks (0 to 2^26) and appends a trace point; with `explain`, the last
    /// tick is explained.
    Advance {
        #[serde(deserialize_with = "wire::ticks")]
        ticks: u64,
        explain: bool,
    },
    /// Starts a temperature sweep on a copy of the live lattice, from `t_high` down to
    /// `t_low` in `points` temperatures, `burn_in` then `measure` sweeps at each.
    StartScan {
        t_high: f64,
        t_low: f64,
        #[serde(deserialize_with = "wire::points")]
        points: u64,
        #[serde(deserialize_with = "wire::burn_in")]
        burn_in: u64,
        #[serde(deserialize_with = "wire::measure")]
        measure: u64,
    },
    /// Runs at most `sweeps` sweeps of the scan.
    AdvanceScan {
        #[serde(deserialize_with = "wire::scan_sweeps")]
        sweeps: u64,
    },
    /// Stops the scan, keeping the temperatures it finished.
    CancelScan,
}

impl LatticeCommand {
    /// Whether the command changes the live run. The temperature sweep works on its own copy
    /// of the lattice, so its commands (start, advance, cancel) go to the engine that runs the
    /// sweep and change nothing a session of the run keeps.
    pub fn changes_run(&self) -> bool {
        !matches!(
            self,
            LatticeCommand::StartScan { .. }
                | LatticeCommand::AdvanceScan { .. }
                | LatticeCommand::CancelScan
        )
    }
}

/// What the engine answers to a command it accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "reply", rename_all = "kebab-case")]
pub enum LatticeReply {
    /// The change was made; the run goes on from where it was.
    Changed,
    /// The run started afresh (size, seed, link, state file or session): the lattice's size,
    /// trace and clamps may all be new.
    Restarted { side: usize },
    /// The ticks were done.
    Advanced { ticks: u64 },
    /// The scan did `sweeps` sweeps (fewer than asked once it is done).
    ScanAdvanced { sweeps: u64 },
}

impl LatticeLab {
    /// The one dispatcher: makes `command` or refuses it (with the reason, changing nothing).
    pub fn apply(&mut self, command: LatticeCommand) -> Result<LatticeReply, ParamError> {
        use LatticeCommand as C;
        match command {
            C::SetTemperature { temperature } => self.set_temperature(temperature)?,
            C::SetField { field } => self.set_field(field)?,
            C::SetModel { model } => self.choose_model(model)?,
            C::SetSize { size } => {
                self.set_size(size as u64)?;
                return Ok(self.restarted());
            }
            C::SetSeed { seed } => {
                self.set_seed(seed)?;
                return Ok(self.restarted());
            }
            C::SetDynamics { dynamics } => self.choose_dynamics(dynamics)?,
            C::SetOrder { order } => self.choose_order(order),
            C::SetBoundary { boundary } => self.relattice(self.setup.field, boundary)?,
            C::Reset { to } => self.reset(to),
            C::Paint {
                from,
                to,
                radius,
                brush,
            } => self.paint((from.x, from.y), (to.x, to.y), radius, brush)?,
            C::SetClampsOn { on } => self.set_clamps_on(on)?,
            C::ReleaseAll => self.release_all(),
            C::ApplyFragment { fragment } => {
                self.apply_fragment(&fragment)?;
                return Ok(self.restarted());
            }
            C::ImportState { json } => {
                self.import_state(&json)?;
                return Ok(self.restarted());
            }
            C::RestoreSession { text } => {
                self.restore_session(&text)?;
                return Ok(self.restarted());
            }
            C::Advance { ticks, explain } => {
                self.advance(ticks, explain)?;
                return Ok(LatticeReply::Advanced { ticks });
            }
            C::StartScan {
                t_high,
                t_low,
                points,
                burn_in,
                measure,
            } => {
                let plan = ScanPlan::new(t_high, t_low, points, burn_in, measure)?;
                self.start_scan(plan);
            }
            C::AdvanceScan { sweeps } => {
                let sweeps = self.advance_scan(sweeps)?;
                return Ok(LatticeReply::ScanAdvanced { sweeps });
            }
            C::CancelScan => self.cancel_scan(),
        }
        Ok(LatticeReply::Changed)
    }

    fn restarted(&self) -> LatticeReply {
        LatticeReply::Restarted {
            side: self.sampler.lattice().width(),
        }
    }
}
