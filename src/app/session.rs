//! The lattice's session: everything the JSON state file ([`super::snapshot`]) carries,
//! with the spins, the clamps and the ±J bonds packed as base64 bit strings by the engine
//! (and Gaussian bonds as base64 doubles), so that the page can store a 2048² lattice in a
//! few milliseconds as opaque text and restore it exactly.
//!
//! ```json
//! {
//!   "format": "boltzlab-lattice-session", "version": 1,
//!   "model": "spin-glass-pm", "size": 4, "temperature": 1.5, "field": 0,
//!   "rule": "heat-bath", "order": "sequential", "boundary": "periodic", "seed": 1,
//!   "spins": "base64", "clamped": "base64", "bonds": "base64",
//!   "phase": "clamped", "ticks": 1234, "next_site": 2, "random_state": [1, 2, 3, 4],
//!   "lane_random_state": [5, 6, 7, …]
//! }
//! ```
//!
//! `spins` holds one bit per site x + L·y (set: up), `clamped` one bit per site (set:
//! clamped), both lowest bit first ([`super::packing`]); `clamped` is left out when no
//! site is clamped (most sessions), which halves a ferromagnet's session. `bonds` is present for the spin
//! glasses only, the bond factors c_b in the state file's order (right of site 0, below
//! site 0, right of site 1, …): one bit each for the ±J glass (set: +1), one little-endian
//! double each for the Gaussian glass. The other fields are the state file's, checked the
//! same way; [`LatticeSession::from_text`] names the first bad field and builds nothing on
//! error.

use super::packing::{bit_bytes, number_bytes, push_base64, unpack_bits, unpack_numbers};
use super::setup::{LatticeModel, LatticeSetup};
use super::snapshot::{Snapshot, StateHead, invalid, take};
use crate::dynamics::LatticeSampler;
use crate::error::{ParamError, shorten};
use crate::model::Couplings;
use serde_json::{Map, Value, json};

/// The value of the session's `format` field.
pub const FORMAT: &str = "boltzlab-lattice-session";
/// The version of the session layout this build reads and writes.
pub const VERSION: u32 = 1;
/// Largest session text accepted: enough for a 2048² Gaussian glass (8 bytes per bond as
/// base64, about 45 MB).
pub const MAX_SESSION_BYTES: usize = 64 << 20;

/// The lattice session's text.
pub struct LatticeSession;

impl LatticeSession {
    /// The session text of a run started from `setup` (whose temperature, dynamics and
    /// order are taken from the sampler, as the state file takes them), read straight from
    /// the sampler without copying its sites.
    pub fn to_text(setup: &LatticeSetup, sampler: &LatticeSampler) -> String {
        let lattice = sampler.lattice();
        let (random_state, lane_random_state) = sampler.random_state();
        let mut head = Map::new();
        let mut put = |key: &str, value: Value| {
            head.insert(key.into(), value);
        };
        put("format", json!(FORMAT));
        put("version", json!(VERSION));
        put("model", json!(setup.model.name()));
        put("size", json!(setup.size));
        put("temperature", json!(sampler.temperature()));
        put("field", json!(lattice.field()));
        put("rule", json!(sampler.dynamics().name()));
        put("order", json!(sampler.order().name()));
        put("boundary", json!(lattice.boundary().name()));
        put("seed", json!(setup.seed));
        put(
            "phase",
            json!(if sampler.clamps_on() {
                "clamped"
            } else {
                "free"
            }),
        );
        put("ticks", json!(sampler.ticks()));
        put("next_site", json!(sampler.next_site()));
        put("random_state", json!(random_state));
        if let Some(words) = lane_random_state {
            put("lane_random_state", json!(words));
        }
        // The small fields through serde; the packed ones (base64 needs no escaping)
        // written straight after them.
        let mut text = serde_json::to_vec(&Value::Object(head)).expect("a session serialises");
        text.pop(); // the closing brace
        // Room for every packed field at once (no regrowth: in wasm, no copies of megabytes
        // and fewer memory.grow calls): 1 bit per spin and per clamp, 2 bonds per site.
        let sites = sampler.spins().len();
        let bond_bytes = match lattice.couplings() {
            Couplings::Uniform => 0,
            Couplings::PlusMinus(c) => c.len().div_ceil(8),
            Couplings::Real(c) => 8 * c.len(),
        };
        let base64 = |bytes: usize| bytes.div_ceil(3) * 4 + 16;
        text.reserve(2 * base64(sites.div_ceil(8)) + base64(bond_bytes) + 2);
        let mut packed = |key: &str, bytes: &[u8]| {
            text.extend_from_slice(format!(",\"{key}\":\"").as_bytes());
            push_base64(&mut text, bytes);
            text.push(b'"');
        };
        packed("spins", &bit_bytes(sampler.spins(), |&s| s > 0));
        if sampler.clamped_count() > 0 {
            packed("clamped", &bit_bytes(sampler.clamp_mask(), |&c| c));
        }
        match lattice.couplings() {
            Couplings::Uniform => {}
            Couplings::PlusMinus(c) => packed("bonds", &bit_bytes(c, |&b| b > 0)),
            Couplings::Real(c) => packed("bonds", &number_bytes(c)),
        }
        text.push(b'}');
        String::from_utf8(text).expect("JSON is UTF-8")
    }

    /// Reads and checks a session text written by [`LatticeSession::to_text`].
    pub fn from_text(text: &str) -> Result<Snapshot, ParamError> {
        if text.len() > MAX_SESSION_BYTES {
            return Err(invalid(
                "session",
                format!(
                    "{} bytes is more than the {MAX_SESSION_BYTES} bytes a lattice session may have",
                    text.len()
                ),
            ));
        }
        let value: Value = serde_json::from_str(text).map_err(|e| {
            invalid(
                "session",
                format!(
                    "not a boltzlab lattice session: {}",
                    shorten(&e.to_string())
                ),
            )
        })?;
        let Value::Object(mut map) = value else {
            return Err(invalid(
                "session",
                "not a boltzlab lattice session: expected a JSON object",
            ));
        };
        let format: String = take(&mut map, "format")?;
        if format != FORMAT {
            return Err(invalid(
                "format",
                format!("expected '{FORMAT}', got '{}'", shorten(&format)),
            ));
        }
        let version: u32 = take(&mut map, "version")?;
        if version != VERSION {
            return Err(invalid(
                "version",
                format!("this page reads version {VERSION}, got {version}"),
            ));
        }
        let model: String = take(&mut map, "model")?;
        let size = take(&mut map, "size")?;
        let temperature = take(&mut map, "temperature")?;
        let field = take(&mut map, "field")?;
        let rule: String = take(&mut map, "rule")?;
        let order: String = take(&mut map, "order")?;
        let boundary: String = take(&mut map, "boundary")?;
        let seed = take(&mut map, "seed")?;
        let head = StateHead::check(
            &model,
            &size,
            temperature,
            field,
            &rule,
            &order,
            &boundary,
            &seed,
        )?;
        let n = head.size * head.size;
        let bonds: Option<String> = match map.remove("bonds") {
            None => None,
            Some(v) => Some(
                serde_json::from_value(v)
                    .map_err(|_| invalid("bonds", "a base64 string of the bond factors"))?,
            ),
        };
        let model = head.model;
        let lattice = head.lattice(bonds.as_deref().map(|text| {
            move || match model {
                LatticeModel::PlusMinusGlass => Ok(Couplings::PlusMinus(
                    unpack_bits("bonds", text, 2 * n)?
                        .into_iter()
                        .map(|b| if b { 1 } else { -1 })
                        .collect(),
                )),
                _ => Ok(Couplings::Real(unpack_numbers("bonds", text, 2 * n)?)),
            }
        }))?;
        let spins: String = take(&mut map, "spins")?;
        let spins = unpack_bits("spins", &spins, n)?
            .into_iter()
            .map(|up| if up { 1 } else { -1 })
            .collect();
        // Left out when no site is clamped.
        let clamp = if map.contains_key("clamped") {
            let clamped: String = take(&mut map, "clamped")?;
            unpack_bits("clamped", &clamped, n)?
        } else {
            vec![false; n]
        };
        let phase: String = take(&mut map, "phase")?;
        let ticks = take(&mut map, "ticks")?;
        let next_site = take(&mut map, "next_site")?;
        let random_state = take(&mut map, "random_state")?;
        let lane_random_state = match map.remove("lane_random_state") {
            None | Some(Value::Null) => None,
            Some(words) => Some(
                serde_json::from_value(words)
                    .map_err(|e| invalid("lane_random_state", shorten(&e.to_string())))?,
            ),
        };
        if let Some(key) = map.keys().next() {
            return Err(ParamError::UnknownChoice {
                field: "session field",
                value: shorten(key),
                allowed: "format, version, model, size, temperature, field, rule, order, \
                          boundary, seed, spins, clamped, bonds, phase, ticks, next_site, \
                          random_state, lane_random_state",
            });
        }
        head.snapshot(
            lattice,
            spins,
            clamp,
            &phase,
            ticks,
            next_site,
            random_state,
            lane_random_state,
        )
    }
}
