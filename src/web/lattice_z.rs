//! ln Z of the lattice model shown, four ways, for the page's "normalising constant"
//! panel in lattice mode.
//!
//! The current lattice (size, J, bonds, h, boundary) becomes the equivalent dense Ising
//! network ([`crate::model::Lattice::to_network`], E_network = E_lattice for every
//! state), whose ln Z at the current T the engine computes by exact enumeration (at most
//! 30 spins; beyond, Kaufman's formula for the periodic ferromagnet at h = 0), the sampled
//! lower bound, mean field and AIS, with the page's fixed effort
//! ([`crate::estimate::log_z::page_log_z`]).

use super::{IsingLab, js_error};
use crate::estimate::log_z::{lattice_exact_log_z, page_log_z};
use wasm_bindgen::prelude::*;

/// Public methods, exported to JavaScript.
#[wasm_bindgen]
impl IsingLab {
    /// ln Z of the current lattice model at the current T by `method` (`exact`,
    /// `sampled`, `mean-field`, `ais`): {method, log_z, stderr?, bound, …}. Exact is
    /// enumeration up to 30 spins and Kaufman's formula for a larger periodic ferromagnet
    /// at h = 0 ([`crate::estimate::log_z::lattice_exact_log_z`]); any other lattice is
    /// refused with a message saying so.
    pub fn lattice_log_z(&self, method: &str) -> Result<JsValue, JsError> {
        use serde::Serialize;
        let sampler = self.lab.sampler();
        let lattice = sampler.lattice();
        let result = match method {
            "exact" => lattice_exact_log_z(lattice, sampler.temperature()),
            _ => lattice.to_network().and_then(|network| {
                page_log_z(
                    &network,
                    method,
                    sampler.temperature(),
                    self.lab.setup().seed,
                )
            }),
        }
        .map_err(js_error)?;
        result
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| JsError::new(&e.to_string()))
    }
}
