//! The full state of a lattice run as a JSON file: parameters, couplings, spins, clamps,
//! the clock and the random generator's state, so that an imported run continues exactly
//! as the exported one would have.
//!
//! ```json
//! {
//!   "format": "boltzlab-lattice", "version": 1,
//!   "model": "spin-glass-pm", "size": 4, "temperature": 1.5, "field": 0,
//!   "rule": "heat-bath", "order": "sequential", "boundary": "periodic", "seed": 1,
//!   "bonds": ["+-++-+--", "…"],
//!   "spins": ["+--+", "++-+", "…"],
//!   "clamped": [0, 5], "phase": "clamped",
//!   "ticks": 1234, "next_site": 2, "random_state": [1, 2, 3, 4],
//!   "lane_random_state": [5, 6, 7, …]
//! }
//! ```
//!
//! `spins` holds one string per row y, character x being `+` or `-`. `bonds` is present for
//! the spin glasses only: one entry per row y holding the 2L bond factors c_b of its sites in
//! the order (right of x = 0, below x = 0, right of x = 1, …): a string of `+`/`-` for the ±J
//! glass, an array of numbers for the Gaussian glass. `clamped` lists the clamped sites
//! (x + L·y); `phase` is `clamped` (clamps hold) or `free`. `lane_random_state` (optional,
//! 64 words) is the state of the checkerboard-lane streams (`LatticeSampler::set_lanes`);
//! a file without it imports with lane streams seeded from `random_state`.
//! [`Snapshot::from_json`] checks every field and names the first bad one; on error nothing
//! is built.

use super::setup::{
    LatticeModel, LatticeSetup, PAGE_TEMPERATURE, check_field, check_seed, check_size,
};
use crate::dynamics::lattice_sampler::SamplerState;
use crate::dynamics::{Dynamics, LatticeSampler, Order};
use crate::error::{ParamError, check_temperature};
use crate::model::{Boundary, Couplings, Lattice};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The value of the file's `format` field.
pub const FORMAT: &str = "boltzlab-lattice";
/// The version of the file layout this build reads and writes.
pub const VERSION: u32 = 1;
/// Largest file accepted: enough for a 2048² Gaussian glass.
pub const MAX_JSON_BYTES: usize = 512 << 20;

/// The file as it is read and written (values unchecked).
#[derive(Debug, Serialize)]
struct SnapshotFile {
    format: String,
    version: u32,
    model: String,
    size: serde_json::Number,
    temperature: f64,
    field: f64,
    rule: String,
    order: String,
    boundary: String,
    seed: serde_json::Number,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bonds: Option<Vec<serde_json::Value>>,
    spins: Vec<String>,
    clamped: Vec<usize>,
    phase: String,
    ticks: u64,
    next_site: usize,
    random_state: [u32; 4],
    /// The 16 checkerboard-lane streams (64 words), when lanes are on; absent in files
    /// from before lanes existed (then they are seeded from `random_state`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lane_random_state: Option<Vec<u32>>,
}

/// A checked lattice state: the setup it was started from, its lattice (with the bonds
/// from the file) and the sampler state.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub setup: LatticeSetup,
    pub lattice: Lattice,
    pub state: SamplerState,
}

/// Refuses a state file of more than [`MAX_JSON_BYTES`] bytes, before it is read.
pub fn check_file_size(bytes: f64) -> Result<(), ParamError> {
    if bytes > MAX_JSON_BYTES as f64 || bytes.is_nan() {
        return Err(invalid(
            "file",
            format!(
                "{bytes} bytes is more than the {MAX_JSON_BYTES} bytes ({} MB) a state file may have",
                MAX_JSON_BYTES >> 20
            ),
        ));
    }
    Ok(())
}

/// Takes the field `name` out of the file's object: missing or of the wrong type is an
/// error naming the field.
pub(super) fn take<T: DeserializeOwned>(
    map: &mut Map<String, Value>,
    name: &'static str,
) -> Result<T, ParamError> {
    let value = map
        .remove(name)
        .ok_or_else(|| invalid(name, "missing from the file"))?;
    serde_json::from_value(value).map_err(|e| invalid(name, reason(e)))
}

/// A serde error as a reason, cut short (serde quotes the whole offending string).
fn reason(err: serde_json::Error) -> String {
    crate::error::shorten_to(&err.to_string(), 160)
}

impl SnapshotFile {
    /// Reads the file's fields (each named in its error), refusing unknown ones.
    fn read(text: &str) -> Result<SnapshotFile, ParamError> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| invalid("file", format!("not a boltzlab lattice state: {e}")))?;
        let Value::Object(mut map) = value else {
            return Err(invalid(
                "file",
                "not a boltzlab lattice state: expected a JSON object",
            ));
        };
        let format: String = take(&mut map, "format")?;
        if format != FORMAT {
            return Err(invalid(
                "format",
                format!(
                    "expected '{FORMAT}', got '{}'",
                    crate::error::shorten(&format)
                ),
            ));
        }
        let version: u32 = take(&mut map, "version")?;
        if version != VERSION {
            return Err(invalid(
                "version",
                format!("this page reads version {VERSION}, got {version}"),
            ));
        }
        let bonds = match map.remove("bonds") {
            None => None,
            Some(rows) => {
                Some(serde_json::from_value(rows).map_err(|e| invalid("bonds", reason(e)))?)
            }
        };
        let lane_random_state = match map.remove("lane_random_state") {
            None | Some(serde_json::Value::Null) => None,
            Some(words) => Some(
                serde_json::from_value(words)
                    .map_err(|e| invalid("lane_random_state", reason(e)))?,
            ),
        };
        let file = SnapshotFile {
            format,
            version,
            model: take(&mut map, "model")?,
            size: take(&mut map, "size")?,
            temperature: take(&mut map, "temperature")?,
            field: take(&mut map, "field")?,
            rule: take(&mut map, "rule")?,
            order: take(&mut map, "order")?,
            boundary: take(&mut map, "boundary")?,
            seed: take(&mut map, "seed")?,
            bonds,
            spins: take(&mut map, "spins")?,
            clamped: take(&mut map, "clamped")?,
            phase: take(&mut map, "phase")?,
            ticks: take(&mut map, "ticks")?,
            next_site: take(&mut map, "next_site")?,
            random_state: take(&mut map, "random_state")?,
            lane_random_state,
        };
        if let Some(key) = map.keys().next() {
            return Err(ParamError::UnknownChoice {
                field: "file field",
                value: key.clone(),
                allowed: "format, version, model, size, temperature, field, rule, order, \
                          boundary, seed, bonds, spins, clamped, phase, ticks, next_site, \
                          random_state, lane_random_state",
            });
        }
        Ok(file)
    }
}

pub(super) fn invalid(field: &'static str, reason: impl Into<String>) -> ParamError {
    ParamError::Invalid {
        field,
        reason: reason.into(),
    }
}

impl Snapshot {
    /// The snapshot of a running sampler started from `setup` (whose temperature, dynamics
    /// and order are taken from the sampler).
    pub fn of(setup: &LatticeSetup, sampler: &LatticeSampler) -> Snapshot {
        let state = sampler.state();
        Snapshot {
            setup: LatticeSetup {
                temperature: state.temperature,
                dynamics: state.dynamics,
                order: state.order,
                field: sampler.lattice().field(),
                boundary: sampler.lattice().boundary(),
                ..*setup
            },
            lattice: sampler.lattice().clone(),
            state,
        }
    }

    /// A sampler that continues this state exactly.
    pub fn sampler(&self) -> Result<LatticeSampler, ParamError> {
        LatticeSampler::from_state(self.lattice.clone(), self.state.clone())
    }

    /// The JSON file (pretty-printed, one row per line).
    pub fn to_json(&self) -> String {
        let side = self.setup.size;
        let sign = |v: bool| if v { '+' } else { '-' };
        let bonds = match self.lattice.couplings() {
            Couplings::Uniform => None,
            Couplings::PlusMinus(c) => Some(
                c.chunks(2 * side)
                    .map(|row| {
                        serde_json::Value::from(
                            row.iter().map(|&b| sign(b > 0)).collect::<String>(),
                        )
                    })
                    .collect(),
            ),
            Couplings::Real(c) => Some(
                c.chunks(2 * side)
                    .map(|row| serde_json::Value::from(row.to_vec()))
                    .collect(),
            ),
        };
        let file = SnapshotFile {
            format: FORMAT.into(),
            version: VERSION,
            model: self.setup.model.name().into(),
            size: side.into(),
            temperature: self.state.temperature,
            field: self.lattice.field(),
            rule: self.state.dynamics.name().into(),
            order: self.state.order.name().into(),
            boundary: self.lattice.boundary().name().into(),
            seed: self.setup.seed.into(),
            bonds,
            spins: self
                .state
                .spins
                .chunks(side)
                .map(|row| row.iter().map(|&s| sign(s > 0)).collect())
                .collect(),
            clamped: (0..self.state.clamp.len())
                .filter(|&i| self.state.clamp[i])
                .collect(),
            phase: if self.state.clamps_on {
                "clamped"
            } else {
                "free"
            }
            .into(),
            ticks: self.state.ticks,
            next_site: self.state.next_site,
            random_state: self.state.random_state,
            lane_random_state: self.state.lane_random_state.clone(),
        };
        let mut text = serde_json::to_string_pretty(&file).expect("a snapshot serialises");
        text.push('\n');
        text
    }

    /// Reads and checks a JSON file written by [`Snapshot::to_json`] (or by hand).
    pub fn from_json(text: &str) -> Result<Snapshot, ParamError> {
        check_file_size(text.len() as f64)?;
        let file = SnapshotFile::read(text)?;
        let head = StateHead::check(
            &file.model,
            &file.size,
            file.temperature,
            file.field,
            &file.rule,
            &file.order,
            &file.boundary,
            &file.seed,
        )?;
        let (model, size) = (head.model, head.size);
        let n = size * size;
        let lattice = head.lattice(
            file.bonds
                .as_ref()
                .map(|rows| move || read_bonds(model, rows, size)),
        )?;

        if file.spins.len() != size {
            return Err(invalid(
                "spins",
                format!("need {size} rows, got {}", file.spins.len()),
            ));
        }
        let mut spins = Vec::with_capacity(n);
        for (y, row) in file.spins.iter().enumerate() {
            let before = spins.len();
            for c in row.chars() {
                spins.push(match c {
                    '+' => 1,
                    '-' => -1,
                    other => {
                        return Err(invalid(
                            "spins",
                            format!("row {y}: a spin is '+' or '-', got '{other}'"),
                        ));
                    }
                });
            }
            if spins.len() - before != size {
                return Err(invalid(
                    "spins",
                    format!("row {y}: need {size} spins, got {}", spins.len() - before),
                ));
            }
        }
        let mut clamp = vec![false; n];
        for &i in &file.clamped {
            if i >= n {
                return Err(ParamError::OutOfRange {
                    field: "clamped",
                    value: i as f64,
                    min: 0.0,
                    max: (n - 1) as f64,
                });
            }
            clamp[i] = true;
        }
        head.snapshot(
            lattice,
            spins,
            clamp,
            &file.phase,
            file.ticks,
            file.next_site,
            file.random_state,
            file.lane_random_state,
        )
    }
}

/// The checked parameters of a lattice state (a file or a session), before its bonds,
/// spins and clamps.
pub(super) struct StateHead {
    pub model: LatticeModel,
    pub size: usize,
    temperature: f64,
    field: f64,
    dynamics: Dynamics,
    order: Order,
    boundary: Boundary,
    seed: u64,
}

impl StateHead {
    /// Checks the parameters as read; each error names its field.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check(
        model: &str,
        size: &serde_json::Number,
        temperature: f64,
        field: f64,
        rule: &str,
        order: &str,
        boundary: &str,
        seed: &serde_json::Number,
    ) -> Result<StateHead, ParamError> {
        let number = |n: &serde_json::Number| n.as_f64().unwrap_or(f64::NAN);
        Ok(StateHead {
            model: LatticeModel::parse(model)?,
            size: check_size(number(size))?,
            temperature: check_temperature(temperature, PAGE_TEMPERATURE)?,
            field: check_field(field)?,
            dynamics: Dynamics::parse(rule)?,
            order: Order::parse(order)?,
            boundary: Boundary::parse(boundary)?,
            seed: check_seed(number(seed))?,
        })
    }

    /// The lattice, with the bonds `bonds` reads (present for the spin glasses only).
    pub(super) fn lattice(
        &self,
        bonds: Option<impl FnOnce() -> Result<Couplings, ParamError>>,
    ) -> Result<Lattice, ParamError> {
        let (model, size, field, boundary) = (self.model, self.size, self.field, self.boundary);
        match (model, bonds) {
            (LatticeModel::Ferromagnet | LatticeModel::Antiferromagnet, None) => {
                model.lattice(size, field, boundary, self.seed)
            }
            (LatticeModel::Ferromagnet | LatticeModel::Antiferromagnet, Some(_)) => Err(invalid(
                "bonds",
                format!("a {} has uniform bonds; leave 'bonds' out", model.name()),
            )),
            (_, None) => Err(invalid("bonds", "a spin glass needs its 'bonds'")),
            (_, Some(read)) => {
                let couplings = read()?;
                Lattice::new(size as f64, size as f64, model.coupling(), field)?
                    .with_boundary(boundary)?
                    .with_couplings(couplings)
            }
        }
    }

    /// The snapshot of these parameters with `lattice` and the sampler's state (spins and
    /// clamps of the lattice's length), the whole checked by building its sampler once.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn snapshot(
        self,
        lattice: Lattice,
        spins: Vec<i8>,
        clamp: Vec<bool>,
        phase: &str,
        ticks: u64,
        next_site: usize,
        random_state: [u32; 4],
        lane_random_state: Option<Vec<u32>>,
    ) -> Result<Snapshot, ParamError> {
        let clamps_on = match phase {
            "clamped" => true,
            "free" => false,
            other => {
                return Err(ParamError::UnknownChoice {
                    field: "phase",
                    value: other.into(),
                    allowed: "clamped, free",
                });
            }
        };
        if ticks > 1 << 53 {
            return Err(ParamError::OutOfRange {
                field: "ticks",
                value: ticks as f64,
                min: 0.0,
                max: (1u64 << 53) as f64,
            });
        }
        let state = SamplerState {
            temperature: self.temperature,
            dynamics: self.dynamics,
            order: self.order,
            spins,
            clamp,
            clamps_on,
            ticks,
            next_site,
            random_state,
            lane_random_state,
        };
        let snapshot = Snapshot {
            setup: LatticeSetup {
                model: self.model,
                size: self.size,
                temperature: self.temperature,
                field: self.field,
                dynamics: self.dynamics,
                order: self.order,
                boundary: self.boundary,
                seed: self.seed,
            },
            lattice,
            state,
        };
        // Builds (and so checks) the sampler once: site, random state, Wolff's conditions.
        snapshot.sampler()?;
        Ok(snapshot)
    }
}

/// The bond factors of a glass from the file's rows (2L per row).
fn read_bonds(
    model: LatticeModel,
    rows: &[serde_json::Value],
    size: usize,
) -> Result<Couplings, ParamError> {
    if rows.len() != size {
        return Err(invalid(
            "bonds",
            format!("need {size} rows, got {}", rows.len()),
        ));
    }
    let per_row = 2 * size;
    let wrong_length = |y: usize, got: usize| {
        invalid(
            "bonds",
            format!("row {y}: need {per_row} bond factors (2 per site), got {got}"),
        )
    };
    if model == LatticeModel::PlusMinusGlass {
        let mut bonds = Vec::with_capacity(per_row * size);
        for (y, row) in rows.iter().enumerate() {
            let text = row.as_str().ok_or_else(|| {
                invalid(
                    "bonds",
                    format!("row {y}: a ±J row is a string of '+' and '-'"),
                )
            })?;
            let before = bonds.len();
            for c in text.chars() {
                bonds.push(match c {
                    '+' => 1,
                    '-' => -1,
                    other => {
                        return Err(invalid(
                            "bonds",
                            format!("row {y}: a ±J bond is '+' or '-', got '{other}'"),
                        ));
                    }
                });
            }
            if bonds.len() - before != per_row {
                return Err(wrong_length(y, bonds.len() - before));
            }
        }
        Ok(Couplings::PlusMinus(bonds))
    } else {
        let mut bonds = Vec::with_capacity(per_row * size);
        for (y, row) in rows.iter().enumerate() {
            let values = row.as_array().ok_or_else(|| {
                invalid(
                    "bonds",
                    format!("row {y}: a Gaussian row is an array of numbers"),
                )
            })?;
            if values.len() != per_row {
                return Err(wrong_length(y, values.len()));
            }
            for v in values {
                bonds.push(v.as_f64().ok_or_else(|| {
                    invalid(
                        "bonds",
                        format!(
                            "row {y}: '{}' is not a number",
                            crate::error::shorten(&v.to_string())
                        ),
                    )
                })?);
            }
        }
        Ok(Couplings::Real(bonds))
    }
}
