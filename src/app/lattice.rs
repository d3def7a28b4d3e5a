//! The lattice laboratory: one run the page (or any other front end) drives.
//!
//! A [`LatticeLab`] holds a [`LatticeSampler`] and everything a live view needs around it:
//! the [`LatticeSetup`] it was started from (for share links), the trace of E/N and M/N, the
//! bonds of the weight view, the last explained tick, and a temperature-sweep experiment.
//! Every method that takes a value from outside checks it and, on error, changes nothing.
//!
//! A front end changes the lab through one door, [`LatticeLab::apply`], with a
//! [`LatticeCommand`] (`command` defines the protocol; [`wire`] how its fields are written).

mod command;
pub mod wire;

pub use command::{LatticeCommand, LatticeReply, Point};
pub use wire::Count;

use super::scan::{ScanPlan, TemperatureScan};
use super::session;
use super::setup::{self, LatticeModel, LatticeSetup};
use super::snapshot::Snapshot;
use crate::dynamics::lattice_sampler::TickExplanation;
use crate::dynamics::{Dynamics, LatticeSampler, Order};
use crate::error::{ParamError, check_temperature};
use crate::estimate::trace::Trace;
use crate::model::{Boundary, Lattice};

/// Points kept in the trace.
pub const TRACE_CAPACITY: usize = 4096;
/// Most ticks one `advance` call may do: bounded work per call.
pub const MAX_TICKS_PER_CALL: u64 = 1 << 26;
/// The weight view shows the bonds of at most this many sites per side (the top-left
/// corner of larger lattices).
pub const BOND_WINDOW: usize = 128;
/// The weight view also shows the lattice as a network (its N×N weight matrix w_ij) up to
/// this many spins (a 16×16 lattice; larger matrices are too fine to see).
pub const MATRIX_UNITS: usize = 256;
/// Largest brush radius, in sites.
pub const MAX_BRUSH_RADIUS: u64 = 64;
/// Most sweeps of the temperature scan one `advance_scan` call may do.
pub const MAX_SCAN_SWEEPS_PER_CALL: u64 = 1 << 20;

/// Ticks of one advance: 0 to [`MAX_TICKS_PER_CALL`].
pub const TICKS: Count = Count {
    field: "ticks",
    min: 0,
    max: MAX_TICKS_PER_CALL,
};
/// A brush radius in sites: 0 to [`MAX_BRUSH_RADIUS`].
pub const BRUSH_RADIUS: Count = Count {
    field: "brush radius",
    min: 0,
    max: MAX_BRUSH_RADIUS,
};
/// Sweeps of the temperature scan in one call: 0 to [`MAX_SCAN_SWEEPS_PER_CALL`].
pub const SCAN_SWEEPS: Count = Count {
    field: "sweeps",
    min: 0,
    max: MAX_SCAN_SWEEPS_PER_CALL,
};

/// What the last explained step did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StepReport {
    /// One single-spin tick and why.
    Tick(Box<TickExplanation>),
    /// Wolff cluster moves that flipped `flipped` spins in all.
    Cluster { flipped: u64 },
}

/// How a reset sets the free spins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'random' | 'up' | 'down'")]
pub enum Reset {
    Random,
    AllUp,
    AllDown,
}

impl Reset {
    pub const ALL: [Reset; 3] = [Reset::Random, Reset::AllUp, Reset::AllDown];

    pub fn name(self) -> &'static str {
        match self {
            Reset::Random => "random",
            Reset::AllUp => "up",
            Reset::AllDown => "down",
        }
    }

    pub fn parse(name: &str) -> Result<Reset, ParamError> {
        match name {
            "random" => Ok(Reset::Random),
            "up" => Ok(Reset::AllUp),
            "down" => Ok(Reset::AllDown),
            _ => Err(ParamError::UnknownChoice {
                field: "reset",
                value: name.into(),
                allowed: "random, up, down",
            }),
        }
    }
}

/// What a paint stroke does to the sites it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'up' | 'down' | 'clamp' | 'unclamp'")]
pub enum Brush {
    Up,
    Down,
    /// Clamp the spins (at their current values).
    Clamp,
    /// Release the clamps.
    Unclamp,
}

impl Brush {
    pub const ALL: [Brush; 4] = [Brush::Up, Brush::Down, Brush::Clamp, Brush::Unclamp];

    pub fn name(self) -> &'static str {
        match self {
            Brush::Up => "up",
            Brush::Down => "down",
            Brush::Clamp => "clamp",
            Brush::Unclamp => "unclamp",
        }
    }

    pub fn parse(name: &str) -> Result<Brush, ParamError> {
        match name {
            "up" => Ok(Brush::Up),
            "down" => Ok(Brush::Down),
            "clamp" => Ok(Brush::Clamp),
            "unclamp" => Ok(Brush::Unclamp),
            _ => Err(ParamError::UnknownChoice {
                field: "brush",
                value: name.into(),
                allowed: "up, down, clamp, unclamp",
            }),
        }
    }
}

/// The bonds and plaquettes of the weight view's window (the top-left `side`² sites).
#[derive(Debug, Clone, PartialEq)]
pub struct BondWindow {
    pub side: usize,
    /// J·c_b of the bond to the right of site (x, y) at 2(x + side·y), of the bond below it
    /// at 2(x + side·y) + 1; NaN where an open edge has no bond.
    pub bonds: Vec<f64>,
    /// Per plaquette (top-left corner x + side·y): 1 frustrated, 0 not, 2 no plaquette.
    pub frustration: Vec<u8>,
    /// Frustrated plaquettes on the whole lattice.
    pub frustrated_count: usize,
    /// The lattice as a network: w_ij = J Σ_{b joins i, j} c_b, row-major N×N, for at most
    /// [`MATRIX_UNITS`] spins (empty above).
    pub matrix: Vec<f64>,
    /// The biases θ_i of that network (h, plus the border's pull for fixed borders).
    pub biases: Vec<f64>,
}

impl BondWindow {
    fn of(lattice: &Lattice) -> BondWindow {
        let side = lattice.width().min(BOND_WINDOW);
        let mut bonds = Vec::with_capacity(2 * side * side);
        let mut frustration = Vec::with_capacity(side * side);
        for y in 0..side {
            for x in 0..side {
                let [_, right, _, down] = lattice.neighbours_at(x, y);
                for slot in [right, down] {
                    bonds.push(lattice.slot_coupling(slot).unwrap_or(f64::NAN));
                }
                frustration.push(match lattice.plaquette_frustrated(x, y) {
                    Some(true) => 1,
                    Some(false) => 0,
                    None => 2,
                });
            }
        }
        let (w, h) = (lattice.width(), lattice.height());
        // Uniform couplings (ferro- or antiferromagnet) frustrate no plaquette.
        let frustrated_count = if matches!(lattice.couplings(), crate::model::Couplings::Uniform) {
            0
        } else {
            (0..h)
                .flat_map(|y| (0..w).map(move |x| (x, y)))
                .filter(|&(x, y)| lattice.plaquette_frustrated(x, y) == Some(true))
                .count()
        };
        let network = (lattice.len() <= MATRIX_UNITS)
            .then(|| lattice.to_network().ok())
            .flatten();
        let (matrix, biases) = network.map_or((Vec::new(), Vec::new()), |network| {
            (network.weights().to_vec(), network.biases().to_vec())
        });
        BondWindow {
            side,
            bonds,
            frustration,
            frustrated_count,
            matrix,
            biases,
        }
    }
}

/// One live lattice run with its trace, weight view, inspector and sweep experiment.
#[derive(Debug, Clone)]
pub struct LatticeLab {
    setup: LatticeSetup,
    sampler: LatticeSampler,
    trace: Trace,
    window: BondWindow,
    report: Option<StepReport>,
    scan: Option<TemperatureScan>,
    /// Counts changes of the lattice (size, couplings, field, boundary), so that views of
    /// the bonds know when to redraw.
    version: u64,
    /// Whether a glass's bonds are the ones its seed draws (not imported): its session then
    /// leaves them out ([`session`]).
    seed_bonds: bool,
}

impl LatticeLab {
    /// A run started from `setup`: spins drawn from the seed, glass bonds from
    /// [`setup::bond_seed`]; refused (with the reason) if the dynamics cannot run on it.
    pub fn new(setup: LatticeSetup) -> Result<LatticeLab, ParamError> {
        let setup = setup.check()?;
        let sampler = Self::start(&setup)?;
        Ok(Self::around(setup, sampler))
    }

    fn start(setup: &LatticeSetup) -> Result<LatticeSampler, ParamError> {
        let mut sampler = LatticeSampler::new(setup.lattice()?, setup.temperature, setup.seed)?;
        sampler.set_dynamics(setup.dynamics)?;
        sampler.set_order(setup.order);
        Ok(sampler)
    }

    fn around(setup: LatticeSetup, mut sampler: LatticeSampler) -> LatticeLab {
        // The page runs the checkerboard order in SIMD lanes where they apply.
        sampler.set_lanes(true);
        let mut lab = LatticeLab {
            window: BondWindow::of(sampler.lattice()),
            setup,
            sampler,
            trace: Trace::new(TRACE_CAPACITY),
            report: None,
            scan: None,
            version: 0,
            seed_bonds: true,
        };
        lab.record();
        lab
    }

    /// Replaces the whole run (keeping a running scan, which has its own sampler).
    fn replace(&mut self, other: LatticeLab) {
        let scan = self.scan.take();
        let version = self.version + 1;
        *self = other;
        self.scan = scan;
        self.version = version;
    }

    /// Goes up by one whenever the lattice (size, couplings, field or boundary) changes.
    pub fn lattice_version(&self) -> u64 {
        self.version
    }

    fn record(&mut self) {
        let s = &self.sampler;
        self.trace
            .push(s.sweeps(), s.energy_per_spin(), s.magnetization_per_spin());
    }

    /// The parameters now (T, h, dynamics and order as they are, not as they started).
    pub fn setup(&self) -> LatticeSetup {
        LatticeSetup {
            temperature: self.sampler.temperature(),
            dynamics: self.sampler.dynamics(),
            order: self.sampler.order(),
            ..self.setup
        }
    }

    pub fn sampler(&self) -> &LatticeSampler {
        &self.sampler
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    pub fn bond_window(&self) -> &BondWindow {
        &self.window
    }

    /// What the last explained step did (cleared by any other change).
    pub fn report(&self) -> Option<&StepReport> {
        self.report.as_ref()
    }

    /// Does `ticks` ticks ([`TICKS`]: at most 2^26), then appends a trace point.
    /// With `explain`, the last tick is an explained one (see [`Self::report`]); for Wolff
    /// dynamics the report gives the number of spins the moves flipped.
    pub fn advance(&mut self, ticks: u64, explain: bool) -> Result<(), ParamError> {
        let ticks = TICKS.check(ticks)?;
        self.report = None;
        if explain && ticks > 0 {
            if self.sampler.dynamics() == Dynamics::Wolff {
                let before = self.sampler.ticks();
                self.sampler.run(ticks);
                self.report = Some(StepReport::Cluster {
                    flipped: self.sampler.ticks() - before,
                });
            } else {
                self.sampler.run(ticks - 1);
                self.report = self
                    .sampler
                    .explained_tick()
                    .map(|e| StepReport::Tick(Box::new(e)));
            }
        } else {
            self.sampler.run(ticks);
        }
        self.record();
        Ok(())
    }

    pub fn set_temperature(&mut self, temperature: f64) -> Result<(), ParamError> {
        let temperature = check_temperature(temperature, setup::PAGE_TEMPERATURE)?;
        self.sampler.set_temperature(temperature)
    }

    /// A lattice like the current one (same couplings, so imported bonds survive) with
    /// another field or boundary.
    fn relattice(&mut self, field: f64, boundary: Boundary) -> Result<(), ParamError> {
        let old = self.sampler.lattice();
        let side = old.width() as f64;
        let lattice = Lattice::new(side, side, old.coupling(), field)?
            .with_boundary(boundary)?
            .with_couplings(old.couplings().clone())?;
        self.sampler.set_lattice(lattice)?;
        self.setup.field = field;
        self.setup.boundary = boundary;
        self.window = BondWindow::of(self.sampler.lattice());
        self.version += 1;
        self.report = None;
        Ok(())
    }

    /// Sets the field h (|h| ≤ 10), keeping the spins.
    pub fn set_field(&mut self, field: f64) -> Result<(), ParamError> {
        let field = setup::check_field(field)?;
        self.relattice(field, self.setup.boundary)
    }

    /// Sets the boundary by name (`periodic`, `open`, `fixed-up`, `fixed-down`).
    pub fn set_boundary(&mut self, name: &str) -> Result<(), ParamError> {
        let boundary = Boundary::parse(name)?;
        self.relattice(self.setup.field, boundary)
    }

    /// Switches the model, keeping the spins; a glass's bonds are drawn from the seed.
    pub fn set_model(&mut self, name: &str) -> Result<(), ParamError> {
        self.choose_model(LatticeModel::parse(name)?)
    }

    fn choose_model(&mut self, model: LatticeModel) -> Result<(), ParamError> {
        let lattice = model.lattice(
            self.setup.size,
            self.setup.field,
            self.setup.boundary,
            self.setup.seed,
        )?;
        self.sampler.set_lattice(lattice)?;
        self.setup.model = model;
        self.seed_bonds = true;
        self.window = BondWindow::of(self.sampler.lattice());
        self.version += 1;
        self.report = None;
        Ok(())
    }

    /// Starts again on an L×L lattice (spins from the seed; T, h, model, dynamics, order and
    /// boundary kept; the trace and the clamps start afresh).
    pub fn set_size(&mut self, size: u64) -> Result<(), ParamError> {
        let size = setup::SIZE.check(size)? as usize;
        let setup = LatticeSetup {
            size,
            ..self.setup()
        };
        self.replace(LatticeLab::new(setup)?);
        Ok(())
    }

    /// Starts again from `seed` (0 to 2^53: spins, glass bonds and the whole trajectory).
    pub fn set_seed(&mut self, seed: u64) -> Result<(), ParamError> {
        wire::SEED.check(seed)?;
        let setup = LatticeSetup {
            seed,
            ..self.setup()
        };
        self.replace(LatticeLab::new(setup)?);
        Ok(())
    }

    /// Chooses the dynamics by name (`heat-bath`, `metropolis`, `wolff`).
    pub fn set_dynamics(&mut self, name: &str) -> Result<(), ParamError> {
        self.choose_dynamics(Dynamics::parse(name)?)
    }

    fn choose_dynamics(&mut self, dynamics: Dynamics) -> Result<(), ParamError> {
        self.sampler.set_dynamics(dynamics)?;
        self.report = None;
        Ok(())
    }

    /// Chooses the visiting order by name (`sequential`, `random`, `checkerboard`).
    pub fn set_order(&mut self, name: &str) -> Result<(), ParamError> {
        self.choose_order(Order::parse(name)?);
        Ok(())
    }

    fn choose_order(&mut self, order: Order) {
        self.sampler.set_order(order);
        self.report = None;
    }

    /// Sets every free spin: at random, all up or all down (clamped spins stay).
    pub fn reset(&mut self, how: Reset) {
        match how {
            Reset::Random => self.sampler.randomize(),
            Reset::AllUp => self.sampler.fill(1),
            Reset::AllDown => self.sampler.fill(-1),
        }
        self.report = None;
        self.record();
    }

    /// Paints a stroke from (x0, y0) to (x1, y1) (lattice coordinates, clipped to it) with a
    /// round brush of `radius` sites. Refused as a whole (nothing painted) for a clamp brush
    /// under Wolff dynamics while the phase is clamped.
    pub fn paint(
        &mut self,
        from: (f64, f64),
        to: (f64, f64),
        radius: u64,
        brush: Brush,
    ) -> Result<(), ParamError> {
        let radius = BRUSH_RADIUS.check(radius)? as i64;
        for v in [from.0, from.1, to.0, to.1] {
            crate::error::finite_in("brush position", v, -1.0e6, 1.0e6)?;
        }
        if brush == Brush::Clamp
            && self.sampler.dynamics() == Dynamics::Wolff
            && self.sampler.clamps_on()
        {
            return Err(ParamError::Invalid {
                field: "brush",
                reason: "Wolff cluster moves cannot respect clamped spins; choose heat-bath \
                         or Metropolis, or switch the phase to free"
                    .into(),
            });
        }
        let side = self.sampler.lattice().width() as i64;
        let (dx, dy) = (to.0 - from.0, to.1 - from.1);
        // Samples along the stroke at most half a site apart, at most 4L of them.
        let steps = ((dx.abs().max(dy.abs()) * 2.0).ceil() as i64).clamp(0, 4 * side);
        let mut last = None;
        for k in 0..=steps {
            let f = if steps == 0 {
                0.0
            } else {
                k as f64 / steps as f64
            };
            let (cx, cy) = (
                (from.0 + f * dx).floor() as i64,
                (from.1 + f * dy).floor() as i64,
            );
            if last == Some((cx, cy)) {
                continue;
            }
            last = Some((cx, cy));
            for y in (cy - radius).max(0)..=(cy + radius).min(side - 1) {
                for x in (cx - radius).max(0)..=(cx + radius).min(side - 1) {
                    if (x - cx).pow(2) + (y - cy).pow(2) > radius * radius {
                        continue;
                    }
                    let i = (x + side * y) as usize;
                    match brush {
                        Brush::Up => self.sampler.set_spin(i, 1)?,
                        Brush::Down => self.sampler.set_spin(i, -1)?,
                        Brush::Clamp => self.sampler.set_clamped(i, true)?,
                        Brush::Unclamp => self.sampler.set_clamped(i, false)?,
                    }
                }
            }
        }
        self.report = None;
        Ok(())
    }

    /// The phase switch: clamped (the mask holds its spins) or free.
    pub fn set_clamps_on(&mut self, on: bool) -> Result<(), ParamError> {
        self.sampler.set_clamps_on(on)
    }

    /// Clears the clamp mask.
    pub fn release_all(&mut self) {
        self.sampler.release_all();
    }

    /// The number of clamped sites in the mask.
    pub fn clamped_count(&self) -> usize {
        self.sampler.clamped_count()
    }

    /// The URL fragment (without `#`) that restarts this run's parameters.
    pub fn fragment(&self) -> String {
        self.setup().to_fragment()
    }

    /// Starts again from the parameters in a URL fragment; on error nothing changes.
    pub fn apply_fragment(&mut self, fragment: &str) -> Result<(), ParamError> {
        let setup = LatticeSetup::from_fragment(fragment)?;
        self.replace(LatticeLab::new(setup)?);
        Ok(())
    }

    /// The full state as a JSON file.
    pub fn export_state(&self) -> String {
        Snapshot::of(&self.setup(), &self.sampler).to_json()
    }

    /// Replaces the run by the state in a JSON file, which then continues exactly as the
    /// exported run would have; on error nothing changes.
    pub fn import_state(&mut self, json: &str) -> Result<(), ParamError> {
        let snapshot = Snapshot::from_json(json)?;
        let sampler = snapshot.sampler()?;
        let seed_bonds = session::bonds_from_seed(&snapshot.setup, &snapshot.lattice);
        self.replace(Self::around(snapshot.setup, sampler));
        self.seed_bonds = seed_bonds;
        Ok(())
    }

    /// The full state as compact session text ([`session`]): what [`Self::export_state`]
    /// writes, with spins, clamps and bonds packed as base64.
    pub fn session(&self) -> String {
        session::LatticeSession::to_text(&self.setup(), &self.sampler, self.seed_bonds)
    }

    /// Replaces the run by the state in a session text, which then continues exactly as
    /// the saved run would have; on error nothing changes.
    pub fn restore_session(&mut self, text: &str) -> Result<(), ParamError> {
        let known = self
            .seed_bonds
            .then(|| (&self.setup, self.sampler.lattice()));
        let (snapshot, seed_bonds) = session::LatticeSession::read(text, known)?;
        let sampler = snapshot.sampler()?;
        self.replace(Self::around(snapshot.setup, sampler));
        self.seed_bonds = seed_bonds;
        Ok(())
    }

    /// The trace as CSV: `sweeps,energy_per_spin,magnetization_per_spin`.
    pub fn trace_csv(&self) -> String {
        let t = &self.trace;
        let mut csv = String::from("sweeps,energy_per_spin,magnetization_per_spin\n");
        for k in 0..t.len() {
            csv.push_str(&format!(
                "{},{},{}\n",
                t.sweeps()[k],
                t.energy()[k],
                t.magnetization()[k]
            ));
        }
        csv
    }

    /// Starts a temperature sweep on a copy of the live lattice (its model, size, field,
    /// boundary, couplings, dynamics, order, spins and random stream); the live run is left
    /// as it is. Replaces any scan in progress.
    pub fn start_scan(&mut self, plan: ScanPlan) {
        self.scan = Some(TemperatureScan::new(plan, self.sampler.clone()));
    }

    /// Runs at most `sweeps` sweeps of the scan; returns how many it did.
    pub fn advance_scan(&mut self, sweeps: u64) -> Result<u64, ParamError> {
        let sweeps = SCAN_SWEEPS.check(sweeps)?;
        Ok(self.scan.as_mut().map_or(0, |scan| scan.advance(sweeps)))
    }

    /// Stops the scan, keeping the temperatures it finished.
    pub fn cancel_scan(&mut self) {
        if let Some(scan) = self.scan.as_mut() {
            scan.cancel();
        }
    }

    pub fn scan(&self) -> Option<&TemperatureScan> {
        self.scan.as_ref()
    }
}
