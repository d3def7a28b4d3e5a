//! The pattern-memory laboratory: one Hopfield memory a front end drives. A [`MemoryLab`]
//! holds the stored patterns (pictures of `width × height` ±1 pixels), the rule that stored
//! them, the network that rule made, and a sampler that recalls: the same sequential tick
//! as every network, at T = 0 energy descent, at T > 0 heat-bath.
//!
//! Every change is one [`MemoryCommand`], and [`MemoryLab::apply`] is the one dispatcher,
//! answering a [`MemoryReply`] (the shape of `app::lattice::command` and `app::rbm::command`).
//! On the wire a command is an object tagged by `command` (kebab-case):
//! `{"command": "cue", "pattern": 2, "flip": 0.2}`. A refused command changes nothing.
//! Reading (the state, the overlaps, what the state is, the energy, the weights) is by
//! getters. Every whole number a command carries has its range as one [`Count`] here
//! ([`WIDTH`], [`HEIGHT`], [`SEED`], [`COUNT`], [`PATTERN`], [`TICKS`]), read once where the
//! number comes in (the wire, `web/memory.rs`) and checked again by the method that takes it,
//! with the same message either way.
//!
//! The network is a pure function of the patterns, the rule and the seed
//! ([`Storage::store`]), so a session keeps those and the sampler's state, and rebuilds
//! the weights on restore.

use crate::app::count::Count;
use crate::dynamics::network_sampler::NetworkSamplerState;
use crate::dynamics::{NetworkOrder, NetworkSampler, Rule};
use crate::error::{ParamError, check_temperature, finite_in};
use crate::learn::memory::{Capacity, Experiment, MAX_RELAX_SWEEPS, Recalling, Storage, is_stable};
use crate::model::memory::{Patterns, Recall};
use crate::model::network::{Network, SpinKind};
use crate::rng::{SpinRng, seeded_rng, uniform};
use serde::{Deserialize, Serialize};

/// Most pixels a side may have: 64 (4096 units would exceed the dense network's 2048).
pub const MAX_SIDE: usize = 64;
/// Most ticks one `advance` may do.
pub const MAX_TICKS: u64 = 1 << 22;

/// The width in pixels: 1 to [`MAX_SIDE`].
pub const WIDTH: Count = Count {
    field: "width",
    min: 1,
    max: MAX_SIDE as u64,
};
/// The height in pixels: 1 to [`MAX_SIDE`].
pub const HEIGHT: Count = Count {
    field: "height",
    min: 1,
    max: MAX_SIDE as u64,
};
/// A seed: 0 to 2^53 (every engine's).
pub use crate::app::count::SEED;
/// Random pictures one `add-random` stores: 1 to the room left ([`Count::up_to`]). On the
/// wire any whole number from 1 is read (anything else is refused as "from 1 to the room
/// left"), so that the memory's refusal names that room, whatever the number asked.
pub const COUNT: Count = Count {
    field: "count",
    min: 1,
    max: u32::MAX as u64,
};
/// A stored pattern, 0-based: 0 to the last one ([`Count::up_to`]).
pub const PATTERN: Count = Count {
    field: "pattern",
    min: 0,
    max: Network::MAX_UNITS as u64 - 1,
};
/// Ticks of one `advance`: 0 to [`MAX_TICKS`].
pub const TICKS: Count = Count {
    field: "ticks",
    min: 0,
    max: MAX_TICKS,
};
/// Pixels of a capacity run's pictures ([`MemoryLab::capacity_run`]): 1 to
/// [`Network::MAX_UNITS`].
pub const CAPACITY_UNITS: Count = Count {
    field: "units",
    min: 1,
    max: Network::MAX_UNITS as u64,
};
/// Patterns of a capacity run: 1 to its pixels ([`Count::up_to`]).
pub const CAPACITY_PATTERNS: Count = Count {
    field: "patterns",
    min: 1,
    max: Network::MAX_UNITS as u64,
};
/// Random starts of a capacity run: 0 to 10⁴.
pub const RANDOM_STARTS: Count = Count {
    field: "random starts",
    min: 0,
    max: 10_000,
};
/// The index of a capacity run: 0 to 10⁴.
pub const CAPACITY_RUN: Count = Count {
    field: "run",
    min: 0,
    max: 10_000,
};

/// The storage rule a front end names, with its settings (the defaults of
/// [`Storage::unlearning`] and [`Storage::boltzmann`] when omitted).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "rule", rename_all = "kebab-case", deny_unknown_fields)]
#[tsify(missing_as_null)]
pub enum StorageChoice {
    Hebb,
    Unlearning {
        #[serde(default)]
        steps: Option<usize>,
        #[serde(default)]
        epsilon: Option<f64>,
    },
    Boltzmann {
        #[serde(default)]
        updates: Option<usize>,
        #[serde(default)]
        rate: Option<f64>,
    },
}

impl StorageChoice {
    /// The engine's rule for `units` units, checked.
    fn storage(self, units: usize) -> Result<Storage, ParamError> {
        let storage = match self {
            StorageChoice::Hebb => Storage::Hebb,
            StorageChoice::Unlearning { steps, epsilon } => match Storage::unlearning(units) {
                Storage::Unlearning {
                    steps: s,
                    epsilon: e,
                } => Storage::Unlearning {
                    steps: steps.unwrap_or(s),
                    epsilon: epsilon.unwrap_or(e),
                },
                other => other,
            },
            StorageChoice::Boltzmann { updates, rate } => match Storage::boltzmann() {
                Storage::Boltzmann {
                    updates: u,
                    rate: r,
                    chains,
                    temperature,
                } => Storage::Boltzmann {
                    updates: updates.unwrap_or(u),
                    rate: rate.unwrap_or(r),
                    chains,
                    temperature,
                },
                other => other,
            },
        };
        storage.check()
    }
}

/// Every change a front end can make to the pattern memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "command", rename_all = "kebab-case", deny_unknown_fields)]
#[tsify(missing_as_null)]
pub enum MemoryCommand {
    /// An empty memory of `width × height` pixels (each 1 to 64, at most 2048 in all), seeded
    /// by `seed` (0 to 2^53), storing by `storage`; the state starts random.
    New {
        #[serde(deserialize_with = "wire::width")]
        width: usize,
        #[serde(deserialize_with = "wire::height")]
        height: usize,
        #[serde(deserialize_with = "wire::seed")]
        seed: u64,
        storage: StorageChoice,
    },
    /// Stores one more picture (±1 per pixel, row-major; 0 is read as −1, so a 0/1 drawing
    /// works too). Refused when the memory holds as many patterns as pixels.
    AddPattern {
        #[tsify(type = "Int8Array | number[]")]
        pixels: Vec<i8>,
    },
    /// Stores `count` more random pictures (each pixel ±1 with probability ½).
    AddRandom {
        #[serde(deserialize_with = "wire::count")]
        count: usize,
    },
    /// Stores the first picture of each digit 0–9 of the shipped 8×8 digits (an 8 × 8 memory
    /// only).
    AddDigits,
    /// Forgets every pattern (the weights become zero).
    Clear,
    /// Stores the same patterns again by another rule.
    SetStorage { storage: StorageChoice },
    /// The recall temperature T (0 to 100; 0 is energy descent).
    SetTemperature { temperature: f64 },
    /// The state becomes stored pattern `pattern` with each pixel flipped with probability
    /// `flip` (0 to 1), or, with `hide`, the pattern with its lower `hide` fraction of rows
    /// set to −1 (a mask).
    Cue {
        #[serde(deserialize_with = "wire::pattern")]
        pattern: usize,
        #[serde(default)]
        flip: f64,
        #[serde(default)]
        hide: f64,
    },
    /// The state becomes a random picture.
    RandomState,
    /// The state becomes `pixels` (the user's drawing; 0 read as −1).
    SetState {
        #[tsify(type = "Int8Array | number[]")]
        pixels: Vec<i8>,
    },
    /// `ticks` sequential ticks (0 to 2^22).
    Advance {
        #[serde(deserialize_with = "wire::ticks")]
        ticks: u64,
    },
    /// Ticks until the state is stable (T = 0 only), at most 200 sweeps.
    Settle,
    /// Replaces the memory by the one a session text describes.
    RestoreSession { text: String },
}

/// How a command's whole numbers are read on the wire: as the number a front end sends,
/// through its [`Count`] (so "width 3.5" gets the engine's message).
mod wire {
    use crate::app::lattice::wire::{read_count, read_count_before};
    use serde::Deserializer;

    /// `sizes! { name: COUNT; … }`: one deserializer a count held as a `usize`.
    macro_rules! sizes {
        ($($name:ident: $count:ident;)*) => {$(
            pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
                read_count(d, super::$count).map(|x| x as usize)
            }
        )*};
    }

    sizes! {
        width: WIDTH;
        height: HEIGHT;
    }

    /// Random pictures to store: up to the room left, which the memory checks.
    pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
        read_count_before(d, super::COUNT, "the room left").map(|x| x as usize)
    }

    /// A stored pattern: up to the last one, which the memory checks.
    pub fn pattern<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
        read_count_before(d, super::PATTERN, "the last stored pattern").map(|x| x as usize)
    }

    pub fn seed<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        read_count(d, super::SEED)
    }

    pub fn ticks<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        read_count(d, super::TICKS)
    }
}

/// What the memory answers to a command it accepted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, tsify::Tsify)]
#[serde(tag = "reply", rename_all = "kebab-case")]
pub enum MemoryReply {
    Changed,
    /// Patterns stored now.
    Stored {
        patterns: usize,
    },
    /// Ticks done; whether the state is now a fixed point of T = 0 dynamics.
    Advanced {
        ticks: u64,
        stable: bool,
    },
}

/// One pattern memory and its recall.
#[derive(Debug, Clone)]
pub struct MemoryLab {
    width: usize,
    height: usize,
    seed: u64,
    storage: Storage,
    /// The stored pictures, each `width × height` ±1 values (none before the first).
    stored: Option<Patterns>,
    sampler: NetworkSampler,
    /// The lab's own draws: random pictures, cues.
    rng: SpinRng,
}

/// A session: everything that fixes the memory and its future.
#[derive(Serialize, Deserialize)]
struct Session {
    version: u32,
    width: usize,
    height: usize,
    seed: u64,
    storage: StorageChoice,
    /// Each pattern as a string of '+' and '-'.
    patterns: Vec<String>,
    state: String,
    temperature: f64,
    sampler_random: [u32; 4],
    lab_random: [u32; 4],
    cursor: usize,
    ticks: u64,
    /// The incrementally kept energy, bit for bit.
    energy: f64,
}

const SESSION_VERSION: u32 = 1;

impl MemoryLab {
    /// An empty memory (see [`MemoryCommand::New`]).
    pub fn new(
        width: usize,
        height: usize,
        seed: u64,
        storage: StorageChoice,
    ) -> Result<Self, ParamError> {
        WIDTH.check(width as u64)?;
        HEIGHT.check(height as u64)?;
        SEED.check(seed)?;
        let units = width * height;
        if units > Network::MAX_UNITS {
            return Err(ParamError::Invalid {
                field: "height",
                reason: format!(
                    "{width} × {height} = {units} pixels is more than the {} a memory may have",
                    Network::MAX_UNITS
                ),
            });
        }
        let storage = storage.storage(units)?;
        let network = Network::zeros(SpinKind::Ising, units)?;
        let sampler =
            NetworkSampler::new(network, 0.0, Rule::HeatBath, NetworkOrder::Sequential, seed)?;
        Ok(MemoryLab {
            width,
            height,
            seed,
            storage,
            stored: None,
            sampler,
            rng: seeded_rng(seed ^ 0x4d45_4d4f_5259),
        })
    }

    /// The one dispatcher: makes `command` or refuses it, changing nothing.
    pub fn apply(&mut self, command: MemoryCommand) -> Result<MemoryReply, ParamError> {
        use MemoryCommand as C;
        match command {
            C::New {
                width,
                height,
                seed,
                storage,
            } => *self = MemoryLab::new(width, height, seed, storage)?,
            C::AddPattern { pixels } => {
                let picture = self.picture("pattern", &pixels)?;
                return self.store(vec![picture]);
            }
            C::AddRandom { count } => {
                if self.room() == 0 {
                    return Err(self.full());
                }
                COUNT.up_to(self.room() as u64).check(count as u64)?;
                let mut rng = self.rng.clone();
                let pictures = (0..count).map(|_| random_picture(&mut rng, self.units()));
                let reply = self.store(pictures.collect())?;
                self.rng = rng;
                return Ok(reply);
            }
            C::AddDigits => return self.store(self.digits()?),
            C::Clear => {
                let network = Network::zeros(SpinKind::Ising, self.units())?;
                self.sampler.with_network_mut(|net| *net = network);
                self.stored = None;
            }
            C::SetStorage { storage } => {
                let storage = storage.storage(self.units())?;
                let network = self.network_for(self.stored.as_ref(), storage)?;
                self.storage = storage;
                self.sampler.with_network_mut(|net| *net = network);
            }
            C::SetTemperature { temperature } => {
                let t = finite_in("temperature", temperature, 0.0, 100.0)?;
                self.sampler.set_temperature(t)?;
            }
            C::Cue {
                pattern,
                flip,
                hide,
            } => {
                let cue = self.cue(pattern, flip, hide)?;
                self.sampler.set_state(&cue.0)?;
                self.rng = cue.1;
            }
            C::RandomState => {
                let units = self.units();
                let picture = random_picture(&mut self.rng, units);
                self.sampler.set_state(&picture)?;
            }
            C::SetState { pixels } => {
                let picture = self.picture("state", &pixels)?;
                self.sampler.set_state(&picture)?;
            }
            C::Advance { ticks } => {
                TICKS.check(ticks)?;
                self.sampler.run(ticks);
                return Ok(self.advanced(ticks));
            }
            C::Settle => {
                if self.sampler.temperature() != 0.0 {
                    return Err(ParamError::Invalid {
                        field: "temperature",
                        reason: "settling to a fixed point needs T = 0".into(),
                    });
                }
                let before = self.sampler.ticks();
                crate::learn::memory::relax(&mut self.sampler, MAX_RELAX_SWEEPS);
                return Ok(self.advanced(self.sampler.ticks() - before));
            }
            C::RestoreSession { text } => *self = MemoryLab::from_session(&text)?,
        }
        Ok(MemoryReply::Changed)
    }

    fn advanced(&self, ticks: u64) -> MemoryReply {
        MemoryReply::Advanced {
            ticks,
            stable: is_stable(self.sampler.network(), self.sampler.state()),
        }
    }

    /// The seed of the memory's random pictures, cues and storage.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// N, the pixels.
    pub fn units(&self) -> usize {
        self.width * self.height
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Patterns that may still be stored (P ≤ N).
    fn room(&self) -> usize {
        self.units() - self.pattern_count()
    }

    /// The refusal of one more pattern: a memory holds at most as many as it has pixels.
    fn full(&self) -> ParamError {
        ParamError::Invalid {
            field: "patterns",
            reason: format!(
                "the memory is full: it holds {} patterns, one per pixel",
                self.units()
            ),
        }
    }

    /// The stored pictures.
    pub fn patterns(&self) -> Vec<&[i8]> {
        self.stored.iter().flat_map(Patterns::rows).collect()
    }

    /// P, the patterns stored.
    pub fn pattern_count(&self) -> usize {
        self.stored.as_ref().map_or(0, Patterns::count)
    }

    /// The storage rule and its settings.
    pub fn storage(&self) -> Storage {
        self.storage
    }

    /// The state, ±1 per pixel.
    pub fn state(&self) -> &[i8] {
        self.sampler.state()
    }

    /// The network's weights (N × N, row-major).
    pub fn weights(&self) -> &[f64] {
        self.sampler.network().weights()
    }

    /// E(s) = −Σ_{i<j} w_ij s_i s_j of the state.
    pub fn energy(&self) -> f64 {
        self.sampler.energy()
    }

    pub fn temperature(&self) -> f64 {
        self.sampler.temperature()
    }

    pub fn ticks(&self) -> u64 {
        self.sampler.ticks()
    }

    /// The overlap m^μ of the state with each stored pattern (none when empty).
    pub fn overlaps(&self) -> Vec<f64> {
        self.stored
            .as_ref()
            .map_or_else(Vec::new, |p| p.overlaps(self.state()))
    }

    /// What the state is: a stored pattern, a reversed one, a mixture, or other (`None` when
    /// nothing is stored).
    pub fn recall(&self) -> Option<Recall> {
        self.stored.as_ref().map(|p| p.classify(self.state()))
    }

    /// Whether the state is a fixed point of T = 0 dynamics.
    pub fn stable(&self) -> bool {
        is_stable(self.sampler.network(), self.sampler.state())
    }

    /// Run `run` of the capacity experiment for this memory's rule (its defaults for `units`
    /// units, [`Storage::parse`]): `patterns` random pictures of `units` pixels stored, each
    /// recalled at T = 0 from itself until stable, then `random_starts` random states relaxed
    /// and named (the spurious states). Seeded by the memory's seed, so the same run gives the
    /// same numbers anywhere; the memory itself does not change. The counts are
    /// [`CAPACITY_UNITS`], [`CAPACITY_PATTERNS`] (up to `units`), [`RANDOM_STARTS`] and
    /// [`CAPACITY_RUN`].
    pub fn capacity_run(
        &self,
        units: usize,
        patterns: usize,
        random_starts: usize,
        run: u64,
    ) -> Result<Capacity, ParamError> {
        let units = CAPACITY_UNITS.check(units as u64)?;
        CAPACITY_PATTERNS.up_to(units).check(patterns as u64)?;
        RANDOM_STARTS.check(random_starts as u64)?;
        CAPACITY_RUN.check(run)?;
        let units = units as usize;
        Experiment {
            units,
            patterns,
            storage: Storage::parse(self.storage.name(), units)?,
            recalling: Recalling {
                temperature: 0.0,
                sweeps: 1,
            },
            random_starts,
            seed: self.seed,
        }
        .run(run)
    }

    /// A picture from a front end: N values, each −1, 0 (read as −1) or +1.
    fn picture(&self, field: &'static str, pixels: &[i8]) -> Result<Vec<i8>, ParamError> {
        if pixels.len() != self.units() {
            return Err(ParamError::Invalid {
                field,
                reason: format!(
                    "need {} × {} = {} pixels, got {}",
                    self.width,
                    self.height,
                    self.units(),
                    pixels.len()
                ),
            });
        }
        if let Some(i) = pixels.iter().position(|p| !(-1..=1).contains(p)) {
            return Err(ParamError::Invalid {
                field,
                reason: format!("pixel {i} is {}; pixels are −1, 0 or +1", pixels[i]),
            });
        }
        Ok(pixels.iter().map(|&p| if p > 0 { 1 } else { -1 }).collect())
    }

    /// The network storing `patterns` by `storage` (zero weights for none).
    fn network_for(
        &self,
        patterns: Option<&Patterns>,
        storage: Storage,
    ) -> Result<Network, ParamError> {
        match patterns {
            None => Network::zeros(SpinKind::Ising, self.units()),
            Some(patterns) => storage.store(patterns, self.seed),
        }
    }

    /// Stores `more` pictures beside the others, all or nothing.
    fn store(&mut self, more: Vec<Vec<i8>>) -> Result<MemoryReply, ParamError> {
        let total = self.pattern_count() + more.len();
        if total > self.units() {
            return Err(ParamError::OutOfRange {
                field: "patterns",
                value: total as f64,
                min: 1.0,
                max: self.units() as f64,
            });
        }
        let rows: Vec<Vec<i8>> = self
            .patterns()
            .into_iter()
            .map(<[i8]>::to_vec)
            .chain(more)
            .collect();
        let patterns = Patterns::new(&rows)?;
        let network = self.network_for(Some(&patterns), self.storage)?;
        self.sampler.with_network_mut(|net| *net = network);
        self.stored = Some(patterns);
        Ok(MemoryReply::Stored { patterns: total })
    }

    /// The first image of each digit 0–9 in the shipped 8×8 digits, as ±1 pictures.
    fn digits(&self) -> Result<Vec<Vec<i8>>, ParamError> {
        if (self.width, self.height) != (8, 8) {
            return Err(ParamError::Invalid {
                field: "patterns",
                reason: format!(
                    "the digits are 8 × 8 pictures; this memory is {} × {}",
                    self.width, self.height
                ),
            });
        }
        let digits = crate::learn::digits::digits();
        Ok((0..10u8)
            .filter_map(|d| digits.labels().iter().position(|&l| l == d))
            .map(|k| {
                digits.images()[k]
                    .iter()
                    .map(|&p| if p == 1 { 1 } else { -1 })
                    .collect()
            })
            .collect())
    }

    /// Pattern μ with each pixel flipped with probability `flip` and its lowest ⌈hide·H⌉ rows
    /// set to −1; the lab's generator after the draws.
    fn cue(&self, mu: usize, flip: f64, hide: f64) -> Result<(Vec<i8>, SpinRng), ParamError> {
        // With nothing stored no pattern can be named; a memory that stores any holds at
        // least one.
        let Some(stored) = self.stored.as_ref() else {
            return Err(ParamError::Invalid {
                field: PATTERN.field,
                reason: "nothing is stored yet: store a pattern first".into(),
            });
        };
        PATTERN.up_to(stored.count() as u64 - 1).check(mu as u64)?;
        let flip = finite_in("flip", flip, 0.0, 1.0)?;
        let hide = finite_in("hide", hide, 0.0, 1.0)?;
        let mut rng = self.rng.clone();
        let hidden_from = self.height - (hide * self.height as f64).ceil() as usize;
        let cue = stored
            .pattern(mu)
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let x = if uniform(&mut rng) < flip { -x } else { x };
                if i / self.width >= hidden_from { -1 } else { x }
            })
            .collect();
        Ok((cue, rng))
    }

    /// The session text: the patterns, the rule, the seed and the recall's exact state.
    pub fn session(&self) -> String {
        let signs = |p: &[i8]| p.iter().map(|&s| if s > 0 { '+' } else { '-' }).collect();
        let saved = self.sampler.saved_state();
        let storage = match self.storage {
            Storage::Hebb => StorageChoice::Hebb,
            Storage::Unlearning { steps, epsilon } => StorageChoice::Unlearning {
                steps: Some(steps),
                epsilon: Some(epsilon),
            },
            Storage::Boltzmann { updates, rate, .. } => StorageChoice::Boltzmann {
                updates: Some(updates),
                rate: Some(rate),
            },
        };
        serde_json::to_string(&Session {
            version: SESSION_VERSION,
            width: self.width,
            height: self.height,
            seed: self.seed,
            storage,
            patterns: self.patterns().into_iter().map(signs).collect(),
            state: signs(&saved.state),
            temperature: saved.temperature,
            sampler_random: saved.random_state,
            lab_random: crate::rng::random_words(&self.rng),
            cursor: saved.cursor,
            ticks: saved.ticks,
            energy: saved.energy,
        })
        .expect("a session is plain data")
    }

    /// The memory a session text describes, continuing exactly; every part checked.
    pub fn from_session(text: &str) -> Result<Self, ParamError> {
        let bad = |reason: String| ParamError::Invalid {
            field: "session",
            reason,
        };
        let s: Session = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        if s.version != SESSION_VERSION {
            return Err(bad(format!(
                "version {} is not {SESSION_VERSION}",
                s.version
            )));
        }
        let mut lab = MemoryLab::new(s.width, s.height, s.seed, s.storage)?;
        let parse = |field: &'static str, text: &str| -> Result<Vec<i8>, ParamError> {
            let pixels: Vec<i8> = text
                .chars()
                .map(|c| match c {
                    '+' => Ok(1),
                    '-' => Ok(-1),
                    other => Err(bad(format!("{field} has '{other}'; pixels are + or -"))),
                })
                .collect::<Result<_, _>>()?;
            lab.picture(field, &pixels)
        };
        let patterns = s
            .patterns
            .iter()
            .map(|p| parse("pattern", p))
            .collect::<Result<Vec<_>, _>>()?;
        let state = parse("state", &s.state)?;
        check_temperature(s.temperature, crate::error::TemperatureDomain::Sampling)?;
        finite_in("temperature", s.temperature, 0.0, 100.0)?;
        if !patterns.is_empty() {
            lab.store(patterns)?;
        }
        let network = lab.sampler.network().clone();
        // The kept energy must be the state's (to rounding): a session that says otherwise
        // was edited or damaged.
        let energy = network.energy(&state);
        let off = (s.energy - energy).abs();
        if off.is_nan() || off > 1e-9 * (1.0 + energy.abs()) {
            return Err(bad(format!(
                "energy {} is not the state's energy {energy}",
                s.energy
            )));
        }
        let energy = s.energy;
        lab.sampler = NetworkSampler::from_saved_state(
            network,
            NetworkSamplerState {
                state,
                clamped: vec![false; lab.units()],
                temperature: s.temperature,
                rule: Rule::HeatBath,
                order: NetworkOrder::Sequential,
                random_state: s.sampler_random,
                cursor: s.cursor,
                ticks: s.ticks,
                energy,
            },
        )?;
        lab.rng = crate::rng::rng_from_words("session", s.lab_random)?;
        Ok(lab)
    }
}

/// A random picture: each pixel ±1 with probability ½.
fn random_picture(rng: &mut SpinRng, units: usize) -> Vec<i8> {
    use rand::Rng;
    (0..units)
        .map(|_| if rng.next_u32() >> 31 == 1 { 1 } else { -1 })
        .collect()
}
