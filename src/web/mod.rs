//! The web facade: the only module that knows wasm-bindgen, js-sys and web-sys.
//!
//! It wraps the engine's [`LatticeLab`] in one `#[wasm_bindgen]` struct whose methods the
//! page calls a few times per frame. The run changes through one door only,
//! `IsingLab::dispatch`, which decodes a `LatticeCommand` object (serde-wasm-bindgen) and
//! returns the `LatticeReply` (the protocol: `app::lattice::command`); every other exported
//! method only reads. Bulk data (spins, clamps, traces, bonds, the weight
//! matrix, sweep results) is never copied across the boundary: the page builds typed-array
//! views over wasm memory from the pointers and lengths given here, and rebuilds them
//! whenever memory may have grown. Every value from the page is checked by the engine;
//! errors reach JavaScript as thrown `Error`s whose message names the field and the allowed
//! range, and the lab is left as it was.

use crate::app::lattice::wire::Named;
use crate::app::{LatticeCommand, LatticeLab, LatticeSetup, Point, ScanResults};
use crate::dynamics::rules;
use crate::error::ParamError;
use crate::exact::closed_form;
use wasm_bindgen::prelude::*;

mod fault;
mod lattice_z;
mod machine;
mod memory;
mod rbm;
pub use machine::WebMachineLab;

/// Installs the panic hook: a panic is printed to the console and handed to the page's
/// `globalThis.boltzlabReportPanic(message)` (if defined), which shows it to the user.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        #[cfg(target_feature = "atomics")]
        crate::linalg::wasm_helper::note_panic(&info.to_string());
        console_error_panic_hook::hook(info);
        let report =
            js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("boltzlabReportPanic"));
        if let Ok(report) = report
            && let Some(report) = report.dyn_ref::<js_sys::Function>()
        {
            let _ = report.call1(&JsValue::NULL, &JsValue::from_str(&info.to_string()));
        }
    }));
}

/// The threads an MNIST run's update uses in this build: 2 in the threaded build (atomics,
/// shared memory; the page when cross-origin isolated) once its helper thread is registered
/// (`pair_register`), else 1.
#[wasm_bindgen]
pub fn page_threads() -> f64 {
    crate::linalg::page_threads() as f64
}

/// Registers the calling thread (a Web Worker that instantiated the threaded build on the
/// learning worker's memory) as the instance's second thread; false if one already is.
#[cfg(target_feature = "atomics")]
#[wasm_bindgen]
pub fn pair_register() -> bool {
    crate::linalg::wasm_helper::register()
}

/// Serves the learning's second halves on the registered helper's thread; never returns.
#[cfg(target_feature = "atomics")]
#[wasm_bindgen]
pub fn pair_serve() {
    crate::linalg::wasm_helper::serve()
}

/// How many split halves the second thread ran, and how many the learning thread took back
/// because the second had not started them when its own half was done: `[helped, taken
/// back]`, both 0 without a second thread (a diagnostic for `benches/mnist_cores.mjs`).
#[wasm_bindgen]
pub fn pair_counts() -> Vec<f64> {
    #[cfg(target_feature = "atomics")]
    {
        let (helped, taken_back) = crate::linalg::wasm_helper::counts();
        vec![helped as f64, taken_back as f64]
    }
    #[cfg(not(target_feature = "atomics"))]
    {
        vec![0.0, 0.0]
    }
}

/// For tests: the threaded engine's second thread panics at the next half it runs (nothing in
/// the default build, which has none).
#[wasm_bindgen]
pub fn pair_fault_for_tests() {
    #[cfg(target_feature = "atomics")]
    crate::linalg::wasm_helper::fault_for_tests();
}

/// wasm's linear memory, for typed-array views over the pointers below.
#[wasm_bindgen]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// A fresh seed from the browser's entropy source (crypto.getRandomValues), below 2^32.
#[wasm_bindgen]
pub fn random_seed() -> f64 {
    let mut bytes = [0u8; 4];
    getrandom::fill(&mut bytes).expect("the browser's crypto.getRandomValues failed");
    f64::from(u32::from_le_bytes(bytes))
}

/// The heat-bath probability P(s = +1) = 1 / (1 + e^{−2h/T}) the engine uses.
#[wasm_bindgen]
pub fn heat_bath_up_probability(local_field: f64, temperature: f64) -> f64 {
    rules::heat_bath_up_probability(local_field, temperature)
}

/// How many autocorrelation times a measurement needs before its error bar is trusted
/// (`observables::MIN_TAUS`): the sweep's points measured for fewer are flagged.
#[wasm_bindgen]
pub fn min_autocorrelation_times() -> f64 {
    crate::estimate::observables::MIN_TAUS
}

/// Onsager's critical temperature T_c = 2 / ln(1 + √2).
#[wasm_bindgen]
pub fn critical_temperature() -> f64 {
    closed_form::CRITICAL_TEMPERATURE
}

/// Onsager–Yang spontaneous magnetisation per spin of the infinite ferromagnet at T.
#[wasm_bindgen]
pub fn onsager_magnetization(temperature: f64) -> f64 {
    closed_form::onsager_magnetization_per_spin(temperature)
}

/// Onsager's energy per spin of the infinite ferromagnet at T.
#[wasm_bindgen]
pub fn onsager_energy(temperature: f64) -> f64 {
    closed_form::onsager_energy_per_spin(temperature)
}

/// Onsager's specific heat per spin of the infinite ferromagnet at T.
#[wasm_bindgen]
pub fn onsager_specific_heat(temperature: f64) -> f64 {
    closed_form::onsager_specific_heat_per_spin(temperature)
}

/// Refuses a lattice state file of more bytes than the engine reads (see
/// `IsingLab::import_state`), so that the page can say so before reading the file.
#[wasm_bindgen]
pub fn check_state_file_size(bytes: f64) -> Result<(), JsError> {
    crate::app::snapshot::check_file_size(bytes).map_err(js_error)
}

fn js_error(err: ParamError) -> JsError {
    JsError::new(&err.to_string())
}

/// A command that could not be decoded, thrown with the decoder's message alone (the engine's
/// check's own words for a bad value), not the JS error's "Error: …" text.
fn decoding_error(err: serde_wasm_bindgen::Error) -> JsError {
    let value = JsValue::from(err);
    let message = match value.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => format!("{value:?}"),
    };
    JsError::new(&message)
}

/// One live lattice run: the page's whole engine.
#[wasm_bindgen]
pub struct IsingLab {
    lab: LatticeLab,
}

impl IsingLab {
    fn scan_results(&self) -> Option<&ScanResults> {
        self.lab.scan().map(|s| s.results())
    }

    fn scan_column(&self, column: impl Fn(&ScanResults) -> &Vec<f64>) -> *const f64 {
        self.scan_results()
            .map_or(std::ptr::null(), |r| column(r).as_ptr())
    }
}

/// The changes as Rust methods, for Rust callers (the wasm tests): each builds its command
/// and goes through the one dispatcher, as the page's objects do. Not exported: JavaScript
/// changes the run only with `dispatch`.
impl IsingLab {
    fn command(&mut self, command: LatticeCommand) -> Result<(), JsError> {
        self.lab.apply(command).map(|_| ()).map_err(js_error)
    }

    /// A whole number as the wire reads it (through the engine's check).
    fn whole<T>(
        value: f64,
        read: impl FnOnce(
            serde::de::value::F64Deserializer<serde::de::value::Error>,
        ) -> Result<T, serde::de::value::Error>,
    ) -> Result<T, JsError> {
        read(serde::de::IntoDeserializer::into_deserializer(value))
            .map_err(|e| JsError::new(&e.to_string()))
    }

    fn named<T: Named>(name: &str) -> Result<T, JsError> {
        T::parse(name).map_err(js_error)
    }

    pub fn advance(&mut self, ticks: f64) -> Result<(), JsError> {
        let ticks = Self::whole(ticks, crate::app::lattice::wire::ticks)?;
        self.command(LatticeCommand::Advance {
            ticks,
            explain: false,
        })
    }

    pub fn advance_explained(&mut self, ticks: f64) -> Result<(), JsError> {
        let ticks = Self::whole(ticks, crate::app::lattice::wire::ticks)?;
        self.command(LatticeCommand::Advance {
            ticks,
            explain: true,
        })
    }

    pub fn reset(&mut self, how: &str) -> Result<(), JsError> {
        let to = Self::named(how)?;
        self.command(LatticeCommand::Reset { to })
    }

    pub fn set_temperature(&mut self, temperature: f64) -> Result<(), JsError> {
        self.command(LatticeCommand::SetTemperature { temperature })
    }

    pub fn set_field(&mut self, field: f64) -> Result<(), JsError> {
        self.command(LatticeCommand::SetField { field })
    }

    pub fn set_model(&mut self, model: &str) -> Result<(), JsError> {
        let model = Self::named(model)?;
        self.command(LatticeCommand::SetModel { model })
    }

    pub fn set_size(&mut self, side: f64) -> Result<(), JsError> {
        let size = Self::whole(side, crate::app::lattice::wire::size)?;
        self.command(LatticeCommand::SetSize { size })
    }

    pub fn set_seed(&mut self, seed: f64) -> Result<(), JsError> {
        let seed = Self::whole(seed, crate::app::lattice::wire::seed)?;
        self.command(LatticeCommand::SetSeed { seed })
    }

    pub fn set_dynamics(&mut self, dynamics: &str) -> Result<(), JsError> {
        let dynamics = Self::named(dynamics)?;
        self.command(LatticeCommand::SetDynamics { dynamics })
    }

    pub fn set_order(&mut self, order: &str) -> Result<(), JsError> {
        let order = Self::named(order)?;
        self.command(LatticeCommand::SetOrder { order })
    }

    pub fn set_boundary(&mut self, boundary: &str) -> Result<(), JsError> {
        let boundary = Self::named(boundary)?;
        self.command(LatticeCommand::SetBoundary { boundary })
    }

    pub fn paint(
        &mut self,
        x0: f64,
        y0: f64,
        x1: f64,
        y1: f64,
        radius: f64,
        brush: &str,
    ) -> Result<(), JsError> {
        let radius = Self::whole(radius, crate::app::lattice::wire::radius)?;
        let brush = Self::named(brush)?;
        self.command(LatticeCommand::Paint {
            from: Point { x: x0, y: y0 },
            to: Point { x: x1, y: y1 },
            radius,
            brush,
        })
    }

    pub fn set_clamps_on(&mut self, on: bool) -> Result<(), JsError> {
        self.command(LatticeCommand::SetClampsOn { on })
    }

    pub fn release_all(&mut self) {
        let _ = self.command(LatticeCommand::ReleaseAll);
    }

    pub fn apply_fragment(&mut self, fragment: &str) -> Result<(), JsError> {
        self.command(LatticeCommand::ApplyFragment {
            fragment: fragment.into(),
        })
    }

    pub fn import_state(&mut self, json: &str) -> Result<(), JsError> {
        self.command(LatticeCommand::ImportState { json: json.into() })
    }

    pub fn restore_session(&mut self, text: &str) -> Result<(), JsError> {
        self.command(LatticeCommand::RestoreSession { text: text.into() })
    }

    pub fn start_scan(
        &mut self,
        t_high: f64,
        t_low: f64,
        points: f64,
        burn_in: f64,
        measure: f64,
    ) -> Result<(), JsError> {
        use crate::app::lattice::wire;
        let command = LatticeCommand::StartScan {
            t_high,
            t_low,
            points: Self::whole(points, wire::points)?,
            burn_in: Self::whole(burn_in, wire::burn_in)?,
            measure: Self::whole(measure, wire::measure)?,
        };
        self.command(command)
    }

    pub fn advance_scan(&mut self, sweeps: f64) -> Result<f64, JsError> {
        let sweeps = Self::whole(sweeps, crate::app::lattice::wire::scan_sweeps)?;
        match self
            .lab
            .apply(LatticeCommand::AdvanceScan { sweeps })
            .map_err(js_error)?
        {
            crate::app::LatticeReply::ScanAdvanced { sweeps } => Ok(sweeps as f64),
            _ => Ok(0.0),
        }
    }

    pub fn cancel_scan(&mut self) {
        let _ = self.command(LatticeCommand::CancelScan);
    }
}

/// Public methods, exported to JavaScript.
#[wasm_bindgen]
impl IsingLab {
    /// An L×L ferromagnet (J = 1, h = 0, heat-bath, sequential) with random spins from
    /// `seed`, at `temperature`.
    #[wasm_bindgen(constructor)]
    pub fn new(side: f64, temperature: f64, seed: f64) -> Result<IsingLab, JsError> {
        let setup = LatticeSetup {
            size: crate::app::setup::check_size(side).map_err(js_error)?,
            temperature,
            seed: crate::app::setup::check_seed(seed).map_err(js_error)?,
            ..LatticeSetup::default()
        };
        let lab = LatticeLab::new(setup).map_err(js_error)?;
        Ok(IsingLab { lab })
    }

    /// A lab started from the parameters of a URL fragment (see `fragment`).
    pub fn from_fragment(fragment: &str) -> Result<IsingLab, JsError> {
        let setup = LatticeSetup::from_fragment(fragment).map_err(js_error)?;
        let lab = LatticeLab::new(setup).map_err(js_error)?;
        Ok(IsingLab { lab })
    }

    // --- Commands: the one way to change the run ----------------------------------------

    /// Makes one command (a `LatticeCommand`, e.g. `{command: "set-size", size: 64}`) and
    /// returns the engine's `LatticeReply`. The object is decoded once, here: whole numbers
    /// through the engine's checks, choices by name. A bad command is thrown (the message
    /// names the field and the allowed range) and changes nothing.
    #[wasm_bindgen(unchecked_return_type = "LatticeReply")]
    pub fn dispatch(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "LatticeCommand")] command: JsValue,
    ) -> Result<JsValue, JsError> {
        let command: LatticeCommand =
            serde_wasm_bindgen::from_value(command).map_err(decoding_error)?;
        let reply = self.lab.apply(command).map_err(js_error)?;
        serde_wasm_bindgen::to_value(&reply).map_err(|e| JsError::new(&e.to_string()))
    }

    /// What the last explained step did, as a plain object: `{kind: "tick", site, x, y,
    /// neighbours: [{site, spin, coupling} × 4 (left, right, up, down)], local_field,
    /// temperature, rule, spin_before, energy_change, probability_up, flip_probability,
    /// clamped, random, spin_after, tick}` or `{kind: "cluster", flipped}`; null if none.
    pub fn last_step(&self) -> JsValue {
        match self.lab.report() {
            Some(report) => serde_wasm_bindgen::to_value(report).unwrap_or(JsValue::NULL),
            None => JsValue::NULL,
        }
    }

    // --- Parameters -----------------------------------------------------------------------

    pub fn temperature(&self) -> f64 {
        self.lab.sampler().temperature()
    }

    pub fn field(&self) -> f64 {
        self.lab.sampler().lattice().field()
    }

    pub fn model(&self) -> String {
        self.lab.setup().model.name().into()
    }

    pub fn dynamics(&self) -> String {
        self.lab.sampler().dynamics().name().into()
    }

    pub fn order(&self) -> String {
        self.lab.sampler().order().name().into()
    }

    pub fn boundary(&self) -> String {
        self.lab.sampler().lattice().boundary().name().into()
    }

    pub fn seed(&self) -> f64 {
        self.lab.setup().seed as f64
    }

    // --- Clamps ----------------------------------------------------------------------------

    pub fn clamps_on(&self) -> bool {
        self.lab.sampler().clamps_on()
    }

    pub fn clamped_count(&self) -> usize {
        self.lab.clamped_count()
    }

    // --- State for the views ------------------------------------------------------------

    /// Side length L.
    pub fn side(&self) -> usize {
        self.lab.sampler().lattice().width()
    }

    /// Number of spins N = L².
    pub fn spin_count(&self) -> usize {
        self.lab.sampler().lattice().len()
    }

    pub fn energy_per_spin(&self) -> f64 {
        self.lab.sampler().energy_per_spin()
    }

    pub fn magnetization_per_spin(&self) -> f64 {
        self.lab.sampler().magnetization_per_spin()
    }

    pub fn sweeps(&self) -> f64 {
        self.lab.sampler().sweeps()
    }

    pub fn ticks(&self) -> f64 {
        self.lab.sampler().ticks() as f64
    }

    /// The site the next tick visits.
    pub fn next_site(&self) -> usize {
        self.lab.sampler().next_site()
    }

    /// Pointer to the N spins (Int8Array, ±1, site x + L·y) in wasm memory.
    pub fn spins_ptr(&self) -> *const i8 {
        self.lab.sampler().spins().as_ptr()
    }

    /// Pointer to the N clamp flags (Uint8Array, 1 = clamped) in wasm memory.
    pub fn clamp_ptr(&self) -> *const bool {
        self.lab.sampler().clamp_mask().as_ptr()
    }

    /// Number of points in the trace.
    pub fn trace_len(&self) -> usize {
        self.lab.trace().len()
    }

    /// Pointer to the trace's sweep counts (Float64Array of `trace_len`).
    pub fn trace_sweeps_ptr(&self) -> *const f64 {
        self.lab.trace().sweeps().as_ptr()
    }

    /// Pointer to the trace's E/N values (Float64Array of `trace_len`).
    pub fn trace_energy_ptr(&self) -> *const f64 {
        self.lab.trace().energy().as_ptr()
    }

    /// Pointer to the trace's M/N values (Float64Array of `trace_len`).
    pub fn trace_magnetization_ptr(&self) -> *const f64 {
        self.lab.trace().magnetization().as_ptr()
    }

    /// E recomputed from scratch, for checking the incremental bookkeeping.
    pub fn recomputed_energy_per_spin(&self) -> f64 {
        let sampler = self.lab.sampler();
        sampler.lattice().energy(sampler.spins()) / sampler.lattice().len() as f64
    }

    /// Goes up whenever the lattice (size, couplings, field, boundary) changes.
    pub fn lattice_version(&self) -> f64 {
        self.lab.lattice_version() as f64
    }

    /// Side W of the weight view's window (the top-left W×W sites, W ≤ 128).
    pub fn bond_window_side(&self) -> usize {
        self.lab.bond_window().side
    }

    /// Pointer to 2W² couplings J·c_b (Float64Array): right of (x, y) at 2(x + W·y), below
    /// it at 2(x + W·y) + 1; NaN where there is no bond.
    pub fn bond_window_ptr(&self) -> *const f64 {
        self.lab.bond_window().bonds.as_ptr()
    }

    /// Pointer to W² plaquette flags (Uint8Array): 1 frustrated, 0 not, 2 no plaquette.
    pub fn frustration_ptr(&self) -> *const u8 {
        self.lab.bond_window().frustration.as_ptr()
    }

    /// Frustrated plaquettes on the whole lattice.
    pub fn frustrated_count(&self) -> usize {
        self.lab.bond_window().frustrated_count
    }

    /// Units n of the lattice's weight matrix (0 above 256 spins).
    pub fn matrix_units(&self) -> usize {
        self.lab.bond_window().biases.len()
    }

    /// Pointer to the n×n weight matrix w_ij (Float64Array, row-major).
    pub fn matrix_ptr(&self) -> *const f64 {
        self.lab.bond_window().matrix.as_ptr()
    }

    // --- Share links, files ---------------------------------------------------------------

    /// The URL fragment (without `#`) that restarts this run's parameters.
    pub fn fragment(&self) -> String {
        self.lab.fragment()
    }

    /// The full state as JSON (parameters, couplings, spins, clamps, clock, generator).
    pub fn export_state(&self) -> String {
        self.lab.export_state()
    }

    /// The full state as compact session text (what `export_state` carries, with spins,
    /// clamps and ±J bonds packed as base64 bits by the engine): for the page's saved
    /// session, stored as opaque text.
    pub fn session(&self) -> String {
        self.lab.session()
    }

    /// The trace as CSV.
    pub fn trace_csv(&self) -> String {
        self.lab.trace_csv()
    }

    // --- Temperature sweep ----------------------------------------------------------------

    pub fn scan_cancelled(&self) -> bool {
        self.lab.scan().is_some_and(|s| s.is_cancelled())
    }

    /// True once a scan was started (running, finished or cancelled).
    pub fn has_scan(&self) -> bool {
        self.lab.scan().is_some()
    }

    pub fn scan_done(&self) -> bool {
        self.lab.scan().is_some_and(|s| s.is_done())
    }

    /// Fraction of the scan's sweeps done, 0 to 1.
    pub fn scan_progress(&self) -> f64 {
        self.lab.scan().map_or(0.0, |s| s.progress())
    }

    /// The temperature the scan is at.
    pub fn scan_temperature(&self) -> f64 {
        self.lab.scan().map_or(f64::NAN, |s| s.temperature())
    }

    /// The scan's plan: [T high, T low].
    pub fn scan_range(&self) -> Vec<f64> {
        self.lab
            .scan()
            .map_or(Vec::new(), |s| vec![s.plan().t_high, s.plan().t_low])
    }

    /// Pointer to the scan's spins (Int8Array of `spin_count`, the same size as the lab's
    /// when the scan started; see `scan_side`).
    pub fn scan_spins_ptr(&self) -> *const i8 {
        self.lab
            .scan()
            .map_or(std::ptr::null(), |s| s.sampler().spins().as_ptr())
    }

    pub fn scan_side(&self) -> usize {
        self.lab.scan().map_or(0, |s| s.sampler().lattice().width())
    }

    /// Whether the scan's model is the zero-field ferromagnet Onsager solved.
    pub fn scan_is_onsager(&self) -> bool {
        self.lab.scan().is_some_and(|s| {
            let lattice = s.sampler().lattice();
            matches!(lattice.couplings(), crate::model::Couplings::Uniform)
                && lattice.coupling() == 1.0
                && lattice.field() == 0.0
        })
    }

    /// Finished temperatures so far.
    pub fn scan_len(&self) -> usize {
        self.scan_results().map_or(0, |r| r.len())
    }

    /// Pointers to the scan's result columns (Float64Array of `scan_len` each).
    pub fn scan_temperature_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.temperature)
    }

    pub fn scan_abs_magnetization_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.abs_magnetization)
    }

    pub fn scan_abs_magnetization_error_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.abs_magnetization_error)
    }

    pub fn scan_energy_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.energy)
    }

    pub fn scan_energy_error_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.energy_error)
    }

    pub fn scan_specific_heat_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.specific_heat)
    }

    pub fn scan_specific_heat_error_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.specific_heat_error)
    }

    pub fn scan_susceptibility_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.susceptibility)
    }

    pub fn scan_susceptibility_error_ptr(&self) -> *const f64 {
        self.scan_column(|r| &r.susceptibility_error)
    }

    /// τ_int in sweeps of estimate `k` (0 ⟨|m|⟩, 1 u, 2 c, 3 χ) at each finished
    /// temperature (empty for another k or no scan).
    pub fn scan_tau(&self, k: usize) -> Vec<f64> {
        self.scan_results()
            .and_then(|r| r.columns().get(k).map(|c| c.tau.to_vec()))
            .unwrap_or_default()
    }

    /// Whether estimate `k` (0 ⟨|m|⟩, 1 u, 2 c, 3 χ) at each finished temperature was
    /// measured for at least `min_autocorrelation_times()` τ (1), or not (0: its error bar
    /// is a lower bound). Empty for another k or no scan.
    pub fn scan_converged(&self, k: usize) -> Vec<u8> {
        self.scan_results()
            .and_then(|r| {
                let column = r.columns().get(k).copied()?;
                Some(column.converged.iter().map(|&c| u8::from(c)).collect())
            })
            .unwrap_or_default()
    }

    /// The scan's results as CSV (empty if there is no scan).
    pub fn scan_csv(&self) -> String {
        self.scan_results().map_or(String::new(), |r| r.to_csv())
    }
}

/// The benchmark page's timed kernels (bench.html).
mod bench;
