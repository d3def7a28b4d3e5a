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
//! site is clamped (most sessions), which halves a ferromagnet's session. `bonds` is present
//! for the spin glasses only, the bond factors c_b in the state file's order (right of site
//! 0, below site 0, right of site 1, …): one bit each for the ±J glass (set: +1), one
//! little-endian double each for the Gaussian glass. The other fields are the state file's,
//! checked the same way; [`LatticeSession::from_text`] names the first bad field and builds
//! nothing on error.
//!
//! In version 2 a glass's `bonds` is the word `"seed"` when its bonds are the ones its seed
//! draws ([`super::setup::bond_seed`]), as they are unless a state file or a session brought
//! other ones: they are drawn again on restore. A 2048² Gaussian glass made from the menus then
//! needs 0.7 MB of session (its spins), not the 90 MB its 8.4 million doubles would take,
//! and every lattice the menus offer fits the page's storage. Version 1 (every glass with
//! its `bonds`) is still read.

use super::packing::{bit_bytes, number_bytes, push_base64, unpack_bits, unpack_numbers};
use super::setup::{LatticeModel, LatticeSetup, MAX_SIZE, check_seed};
use super::snapshot::{Snapshot, StateHead, invalid, take};
use crate::dynamics::LatticeSampler;
use crate::error::{ParamError, shorten};
use crate::model::{Boundary, Couplings, Lattice};
use serde_json::{Map, Value, json};

/// The value of the session's `format` field.
pub const FORMAT: &str = "boltzlab-lattice-session";
/// A glass's `bonds` when they are the ones its seed draws (version 2).
pub const SEED_BONDS: &str = "seed";
/// The version of the session layout this build writes (it reads 1 and 2).
pub const VERSION: u32 = 2;
/// Largest session text accepted: the largest one [`LatticeSession::to_text`] can write
/// ([`session_bound`] at the largest side), about 91 MB for a 2048² Gaussian glass whose
/// bonds came from a state file (8 bytes a bond as base64). Sessions of lattices made from
/// the menus are at most 1.4 MB.
pub const MAX_SESSION_BYTES: usize = session_bound(MAX_SIZE);

/// Characters of base64 for `bytes` bytes: 4⌈bytes/3⌉.
const fn base64_chars(bytes: usize) -> usize {
    bytes.div_ceil(3) * 4
}

/// An upper bound on the session text of an L×L lattice: spins and clamps at one bit a
/// site, 2L² bonds at 8 bytes each, all as base64, and 4 kB for the other fields (at most
/// about 3 kB with the lanes' random state).
pub const fn session_bound(side: usize) -> usize {
    let sites = side * side;
    2 * base64_chars(sites.div_ceil(8)) + base64_chars(16 * sites) + 4096
}

/// Whether `lattice`'s bonds are those `setup`'s model draws from its seed (always, for the
/// uniform models): then a session needs only the seed. Draws the bonds once to compare, so
/// it is for imports, not for every save.
pub fn bonds_from_seed(setup: &LatticeSetup, lattice: &Lattice) -> bool {
    match setup.model {
        LatticeModel::Ferromagnet | LatticeModel::Antiferromagnet => true,
        model => model
            .lattice(setup.size, lattice.field(), lattice.boundary(), setup.seed)
            .is_ok_and(|drawn| drawn.couplings() == lattice.couplings()),
    }
}

/// The lattice session's text.
pub struct LatticeSession;

impl LatticeSession {
    /// The session text of a run started from `setup` (whose temperature, dynamics and
    /// order are taken from the sampler, as the state file takes them), read straight from
    /// the sampler without copying its sites. `seed_bonds`: the lattice's bonds are the ones
    /// its seed draws ([`bonds_from_seed`]), so they are left out.
    pub fn to_text(setup: &LatticeSetup, sampler: &LatticeSampler, seed_bonds: bool) -> String {
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
        let glass = !matches!(lattice.couplings(), Couplings::Uniform);
        if seed_bonds && glass {
            put("bonds", json!(SEED_BONDS));
        }
        // The small fields through serde; the packed ones (base64 needs no escaping)
        // written straight after them.
        let mut text = serde_json::to_vec(&Value::Object(head)).expect("a session serialises");
        text.pop(); // the closing brace
        // Room for every packed field at once (no regrowth: in wasm, no copies of megabytes
        // and fewer memory.grow calls): 1 bit per spin and per clamp, 2 bonds per site.
        let sites = sampler.spins().len();
        let bond_bytes = match lattice.couplings() {
            _ if seed_bonds => 0,
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
            _ if seed_bonds => {}
            Couplings::Uniform => {}
            Couplings::PlusMinus(c) => packed("bonds", &bit_bytes(c, |&b| b > 0)),
            Couplings::Real(c) => packed("bonds", &number_bytes(c)),
        }
        text.push(b'}');
        String::from_utf8(text).expect("JSON is UTF-8")
    }

    /// Reads and checks a session text written by [`LatticeSession::to_text`].
    pub fn from_text(text: &str) -> Result<Snapshot, ParamError> {
        Self::read(text, None).map(|(snapshot, _)| snapshot)
    }

    /// [`LatticeSession::from_text`], and whether the bonds are the ones the seed draws
    /// (for the next [`LatticeSession::to_text`]). `known`: a setup and its lattice whose
    /// bonds are its seed's; when the session's model, side and seed are the same, its bonds
    /// are copied instead of drawn again (a paused page restores the worker's session often).
    pub fn read(
        text: &str,
        known: Option<(&LatticeSetup, &Lattice)>,
    ) -> Result<(Snapshot, bool), ParamError> {
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
        if version != 1 && version != VERSION {
            return Err(invalid(
                "version",
                format!("this page reads versions 1 and {VERSION}, got {version}"),
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
        let is_glass = !matches!(
            model,
            LatticeModel::Ferromagnet | LatticeModel::Antiferromagnet
        );
        let seed_bonds = version >= 2 && bonds.as_deref() == Some(SEED_BONDS);
        let lattice = if seed_bonds {
            // The bonds the seed draws, or a copy of the known lattice's (head.lattice refuses
            // "seed" for a uniform model, as it refuses any bonds).
            let seed = check_seed(seed.as_f64().unwrap_or(f64::NAN))?;
            let reuse = known.filter(|(setup, _)| {
                (setup.model, setup.size, setup.seed) == (model, head.size, seed)
            });
            head.lattice(Some(move || match reuse {
                Some((_, lattice)) => Ok(lattice.couplings().clone()),
                None => Ok(model
                    .lattice(head.size, 0.0, Boundary::Periodic, seed)?
                    .couplings()
                    .clone()),
            }))?
        } else {
            head.lattice(bonds.as_deref().map(|text| {
                move || match model {
                    LatticeModel::PlusMinusGlass => Ok(Couplings::PlusMinus(
                        unpack_bits("bonds", text, 2 * n)?
                            .into_iter()
                            .map(|b| if b { 1 } else { -1 })
                            .collect(),
                    )),
                    _ => Ok(Couplings::Real(unpack_numbers("bonds", text, 2 * n)?)),
                }
            }))?
        };
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
        let snapshot = head.snapshot(
            lattice,
            spins,
            clamp,
            &phase,
            ticks,
            next_site,
            random_state,
            lane_random_state,
        )?;
        // A version-1 session always carries a glass's bonds: whether they are the seed's is
        // found by drawing them once. Version 2 carries them only when they are not.
        let seed_bonds = seed_bonds
            || !is_glass
            || (version == 1 && bonds_from_seed(&snapshot.setup, &snapshot.lattice));
        Ok((snapshot, seed_bonds))
    }
}
