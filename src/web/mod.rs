//! The web facade: the only module that knows wasm-bindgen, js-sys and web-sys.
//!
//! It wraps engine types in `#[wasm_bindgen]` structs whose methods the page calls once
//! per frame. Bulk data (spins, traces) is never copied across the boundary: the page
//! builds typed-array views over wasm memory from the pointers and lengths given here,
//! and rebuilds them whenever memory may have grown. Errors reach JavaScript as thrown
//! `Error`s whose message names the field and the allowed range.

use crate::dynamics::{LatticeSampler, rules};
use crate::error::{ParamError, whole_in};
use crate::measure::Trace;
use crate::model::Lattice;
use wasm_bindgen::prelude::*;

/// Installs the panic hook: a panic is printed to the console and handed to the page's
/// `globalThis.boltzlabReportPanic(message)` (if defined), which shows it to the user.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
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

fn js_error(err: ParamError) -> JsError {
    JsError::new(&err.to_string())
}

/// Largest seed accepted from the page: every integer up to 2^53 is exact in a JS number.
const MAX_SEED: u64 = 1 << 53;
/// Most ticks one `advance` call may do: bounded work per call.
const MAX_TICKS_PER_CALL: u64 = 1 << 26;
/// Points kept in the energy trace.
const TRACE_CAPACITY: usize = 4096;

/// A periodic L×L Ising ferromagnet sampled by sequential heat-bath ticks.
#[wasm_bindgen]
pub struct IsingLab {
    sampler: LatticeSampler,
    trace: Trace,
}

/// Public methods, exported to JavaScript.
#[wasm_bindgen]
impl IsingLab {
    /// An L×L lattice (J = 1, h = 0) with random spins from `seed`, at `temperature`.
    #[wasm_bindgen(constructor)]
    pub fn new(side: f64, temperature: f64, seed: f64) -> Result<IsingLab, JsError> {
        let lattice = Lattice::new(side, side, 1.0, 0.0).map_err(js_error)?;
        let seed = whole_in("seed", seed, 0, MAX_SEED).map_err(js_error)?;
        let sampler = LatticeSampler::new(lattice, temperature, seed).map_err(js_error)?;
        let mut lab = IsingLab {
            sampler,
            trace: Trace::new(TRACE_CAPACITY),
        };
        lab.record();
        Ok(lab)
    }

    fn record(&mut self) {
        let s = &self.sampler;
        self.trace
            .push(s.sweeps(), s.energy_per_spin(), s.magnetization_per_spin());
    }

    /// Does `ticks` sequential heat-bath ticks (a whole number, at most 2^26), then
    /// appends one point to the trace.
    pub fn advance(&mut self, ticks: f64) -> Result<(), JsError> {
        let ticks = whole_in("ticks", ticks, 0, MAX_TICKS_PER_CALL).map_err(js_error)?;
        self.sampler.run(ticks);
        self.record();
        Ok(())
    }

    /// Sets the temperature T (0 ≤ T ≤ ∞); on error nothing changes.
    pub fn set_temperature(&mut self, temperature: f64) -> Result<(), JsError> {
        self.sampler.set_temperature(temperature).map_err(js_error)
    }

    pub fn temperature(&self) -> f64 {
        self.sampler.temperature()
    }

    /// Side length L.
    pub fn side(&self) -> usize {
        self.sampler.lattice().width()
    }

    /// Number of spins N = L².
    pub fn spin_count(&self) -> usize {
        self.sampler.lattice().len()
    }

    pub fn energy_per_spin(&self) -> f64 {
        self.sampler.energy_per_spin()
    }

    pub fn magnetization_per_spin(&self) -> f64 {
        self.sampler.magnetization_per_spin()
    }

    pub fn sweeps(&self) -> f64 {
        self.sampler.sweeps()
    }

    pub fn ticks(&self) -> f64 {
        self.sampler.ticks() as f64
    }

    /// The site the next tick visits.
    pub fn next_site(&self) -> usize {
        self.sampler.next_site()
    }

    /// Pointer to the N spins (Int8Array, ±1, site x + L·y) in wasm memory.
    pub fn spins_ptr(&self) -> *const i8 {
        self.sampler.spins().as_ptr()
    }

    /// Number of points in the trace.
    pub fn trace_len(&self) -> usize {
        self.trace.len()
    }

    /// Pointer to the trace's sweep counts (Float64Array of `trace_len`).
    pub fn trace_sweeps_ptr(&self) -> *const f64 {
        self.trace.sweeps().as_ptr()
    }

    /// Pointer to the trace's E/N values (Float64Array of `trace_len`).
    pub fn trace_energy_ptr(&self) -> *const f64 {
        self.trace.energy().as_ptr()
    }

    /// Pointer to the trace's M/N values (Float64Array of `trace_len`).
    pub fn trace_magnetization_ptr(&self) -> *const f64 {
        self.trace.magnetization().as_ptr()
    }

    /// E recomputed from scratch, for checking the incremental bookkeeping.
    pub fn recomputed_energy_per_spin(&self) -> f64 {
        let lattice = self.sampler.lattice();
        lattice.energy(self.sampler.spins()) / lattice.len() as f64
    }
}
