//! ln Z of the lattice model shown, four ways, for the page's "normalising constant"
//! panel in lattice mode.
//!
//! The current lattice (size, J, bonds, h, boundary) becomes the equivalent dense Ising
//! network ([`crate::model::Lattice::to_network`], E_network = E_lattice for every
//! state), whose ln Z at the current T the engine computes by exact enumeration (at most
//! 30 spins), the sampled lower bound, mean field and AIS, with the page's fixed effort
//! ([`crate::estimate::log_z::page_log_z`]).

use super::{IsingLab, js_error};
use crate::error::ParamError;
use crate::exact::enumeration::MAX_ENUMERATION_UNITS;
use wasm_bindgen::prelude::*;

/// Public methods, exported to JavaScript.
#[wasm_bindgen]
impl IsingLab {
    /// ln Z of the current lattice model at the current T by `method` (`exact`,
    /// `sampled`, `mean-field`, `ais`): {method, log_z, stderr?, bound, …}. Exact is
    /// refused above 30 spins with a message saying so.
    pub fn lattice_log_z(&self, method: &str) -> Result<JsValue, JsError> {
        use serde::Serialize;
        let sampler = self.lab.sampler();
        let lattice = sampler.lattice();
        let n = lattice.len();
        if method == "exact" && n > MAX_ENUMERATION_UNITS {
            return Err(js_error(ParamError::Invalid {
                field: "spins",
                reason: format!(
                    "too many spins for exact enumeration: {n} spins have 2^{n} states; exact \
                     ln Z handles at most {MAX_ENUMERATION_UNITS} (a 5×5 lattice)"
                ),
            }));
        }
        let network = lattice.to_network().map_err(js_error)?;
        let result = crate::estimate::log_z::page_log_z(
            &network,
            method,
            sampler.temperature(),
            self.lab.setup().seed,
        )
        .map_err(js_error)?;
        result
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| JsError::new(&e.to_string()))
    }
}
