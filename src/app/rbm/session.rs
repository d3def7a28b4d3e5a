//! The restricted machine's session: everything an [`RbmLab`] learning run is, as versioned
//! JSON text that the page stores opaquely and restores exactly. A run saved after update N
//! and restored continues bit for bit as the same run uninterrupted would have (weights,
//! particles, replicas, batches and every random draw of learning).
//!
//! ```json
//! {
//!   "format": "boltzlab-rbm", "version": 1,
//!   "dataset": "digits8", "images": null, "width": 8, "hidden": 16, "seed": 1,
//!   "options": { "statistics": { "statistics": "persistent", "particles": 100, "steps": 1 },
//!                "batch": 100, "rate": 0.05, "schedule": { "schedule": "constant" },
//!                "momentum": 0.5, "weight_decay": 0.0, "seed": 1 },
//!   "weights": "base64", "visible_biases": "base64", "hidden_biases": "base64",
//!   "velocity": { "weights": "base64", "visible": "base64", "hidden": "base64" },
//!   "random_state": [1, 2, 3, 4], "view_random_state": [5, 6, 7, 8],
//!   "order": [3, 0, …], "cursor": 200, "updates": 1234, "changes": 1234, "diverged": null,
//!   "particles": { "count": 100, "visible": "base64", "hidden": "base64" },
//!   "replicas": null,
//!   "pending": { "progress": { "clamped": 100, "free": { "stage": "advance", "replica": 0,
//!                "chain": 41, "step": 0 } }, "gradient": { … }, "chain_visible": "base64" },
//!   "likelihood_every": 30, "last_point": 1200,
//!   "point": { "update": 1230, "weights": "base64", … },
//!   "curve": { "updates": […], "train": […], "test": […], "stderr": […] }
//! }
//! ```
//!
//! Numbers of the machine (W row-major V × H, a, b, the momentum velocities) are packed
//! as base64 little-endian doubles, the particles' states as base64 bits (K × V visible,
//! K × H hidden, particle by particle; [`crate::app::packing`]), so the digits' 64 × 500
//! machine with its particles is saved in a few milliseconds. `images` holds the user's own
//! dataset (`{count, visible, bits}`; `dataset` is then `custom`), `null` for a built-in
//! one. `replicas` (tempering) holds `{betas, states: [particles…], proposed, accepted}`,
//! replica 0 the β = 1 one. `pending` is an update under way in slices
//! ([`RbmTrainer::work`]): where it stands, the gradient summed so far and (CD-k) the
//! visible state of the chain under way; `null` between updates. `point` is the log-likelihood point under way (the machine
//! frozen at its update; its ln Z sum starts again from the beginning on restore, which
//! gives the same value: AIS chunks are seeded by their index), or `null`.
//!
//! Not kept, on purpose: the generation gallery and the completion chain (views the user
//! starts with a button; after a restore they are empty until started again), and the
//! cached p(h | v) of the particles (recomputed; each update overwrites it before reading
//! it). [`RbmLab::from_session`] checks every field, names the first bad one and builds
//! nothing on error; [`RbmLab::restore_session`] leaves the running lab unchanged on error.

use super::{MAX_HIDDEN, RbmLab};
use crate::app::packing::{bit_bytes, pack_numbers, to_base64, unpack_bits, unpack_numbers};
use crate::dynamics::rbm::Particles;
use crate::dynamics::rbm_tempering::Replicas;
use crate::error::{ParamError, shorten_to};
use crate::learn::rbm::{
    FreeChains, Gradient, Rbm, RbmTrainer, TrainerState, TrainingOptions, UpdateProgress,
};
use crate::rng::{random_words, rng_from_words};
use serde::{Deserialize, Serialize};

/// The value of the session's `format` field.
pub const FORMAT: &str = "boltzlab-rbm";
/// The version of the session layout this build reads and writes.
pub const VERSION: u32 = 1;
/// Largest session text accepted: 64 MiB (the largest run, 1024 × 500 weights with
/// 10 000 tempered particles in 64 replicas, fits).
pub const MAX_SESSION_BYTES: usize = 64 << 20;
/// Largest count (updates, changes) a session may carry: 2^53, exact in a JS number.
const MAX_COUNT: u64 = 1 << 53;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Text {
    format: String,
    version: u32,
    dataset: String,
    images: Option<Images>,
    width: usize,
    hidden: usize,
    seed: u64,
    options: TrainingOptions,
    weights: String,
    visible_biases: String,
    hidden_biases: String,
    velocity: Velocity,
    random_state: [u32; 4],
    view_random_state: [u32; 4],
    order: Vec<usize>,
    cursor: usize,
    updates: u64,
    changes: u64,
    diverged: Option<String>,
    particles: Option<ParticleText>,
    replicas: Option<ReplicaText>,
    pending: Option<Pending>,
    likelihood_every: u64,
    last_point: Option<u64>,
    point: Option<Point>,
    curve: Curve,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Pending {
    progress: UpdateProgress,
    gradient: Velocity,
    chain_visible: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Images {
    count: usize,
    visible: usize,
    bits: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Velocity {
    weights: String,
    visible: String,
    hidden: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParticleText {
    count: usize,
    visible: String,
    hidden: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplicaText {
    betas: Vec<f64>,
    states: Vec<ParticleText>,
    proposed: u64,
    accepted: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Point {
    update: u64,
    weights: String,
    visible_biases: String,
    hidden_biases: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Curve {
    updates: Vec<f64>,
    train: Vec<f64>,
    test: Vec<f64>,
    stderr: Vec<f64>,
}

fn invalid(field: &'static str, reason: impl Into<String>) -> ParamError {
    ParamError::Invalid {
        field,
        reason: reason.into(),
    }
}

// --- Writing --------------------------------------------------------------------------------

fn pack_states(states: &[u8]) -> String {
    to_base64(&bit_bytes(states, |&b| b == 1))
}

fn particle_text(p: &Particles) -> ParticleText {
    ParticleText {
        count: p.count(),
        visible: pack_states(p.visible_states()),
        hidden: pack_states(p.hidden_states()),
    }
}

impl RbmLab {
    /// The run as session text (JSON, see the module docs), read back exactly by
    /// [`RbmLab::from_session`].
    pub fn session(&self) -> String {
        let state = self.trainer.state();
        let custom = self.images.name == "custom";
        let images = custom.then(|| {
            let flat: Vec<u8> = self.images.train.concat();
            Images {
                count: self.images.train.len(),
                visible: self.visible(),
                bits: pack_states(&flat),
            }
        });
        let chains = &state.chains;
        let text = Text {
            format: FORMAT.into(),
            version: VERSION,
            dataset: self.images.name.clone(),
            images,
            width: self.images.width,
            hidden: self.hidden,
            seed: self.seed,
            options: state.options,
            weights: pack_numbers(state.rbm.weights()),
            visible_biases: pack_numbers(state.rbm.visible_biases()),
            hidden_biases: pack_numbers(state.rbm.hidden_biases()),
            velocity: Velocity {
                weights: pack_numbers(&state.velocity.weights),
                visible: pack_numbers(&state.velocity.visible),
                hidden: pack_numbers(&state.velocity.hidden),
            },
            random_state: state.random_state,
            view_random_state: random_words(&self.view_rng),
            order: state.order,
            cursor: state.cursor,
            updates: state.updates,
            changes: self.version,
            diverged: state.diverged,
            particles: chains.own_particles().map(particle_text),
            replicas: chains.replicas().map(|r| ReplicaText {
                betas: r.betas().to_vec(),
                states: (0..r.count())
                    .map(|k| particle_text(r.replica(k)))
                    .collect(),
                proposed: r.swaps().0,
                accepted: r.swaps().1,
            }),
            pending: state.pending.as_ref().map(|(progress, g, v)| Pending {
                progress: *progress,
                gradient: Velocity {
                    weights: pack_numbers(&g.weights),
                    visible: pack_numbers(&g.visible),
                    hidden: pack_numbers(&g.hidden),
                },
                chain_visible: pack_states(v),
            }),
            likelihood_every: self.likelihood.every,
            last_point: self.likelihood.last_point,
            point: self.likelihood.job.as_ref().map(|job| Point {
                update: job.update,
                weights: pack_numbers(job.rbm().weights()),
                visible_biases: pack_numbers(job.rbm().visible_biases()),
                hidden_biases: pack_numbers(job.rbm().hidden_biases()),
            }),
            curve: Curve {
                updates: self.likelihood.curve.column(0).to_vec(),
                train: self.likelihood.curve.column(1).to_vec(),
                test: self.likelihood.curve.column(2).to_vec(),
                stderr: self.likelihood.curve.column(3).to_vec(),
            },
        };
        serde_json::to_string(&text).expect("a session serialises")
    }

    /// The run a session text describes, continuing exactly where it was saved. Every
    /// field is checked; a bad or damaged text is refused with an error naming the field.
    pub fn from_session(text: &str) -> Result<RbmLab, ParamError> {
        if text.len() > MAX_SESSION_BYTES {
            return Err(invalid(
                "restricted session",
                format!("{} bytes, beyond the limit {MAX_SESSION_BYTES}", text.len()),
            ));
        }
        let head: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            invalid(
                "restricted session",
                format!("not JSON: {}", shorten_to(&e.to_string(), 160)),
            )
        })?;
        if head.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(invalid(
                "format",
                format!("not a restricted-machine session (need format '{FORMAT}')"),
            ));
        }
        match head.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == u64::from(VERSION) => {}
            other => {
                return Err(invalid(
                    "version",
                    format!("{other:?}: this build reads version {VERSION}"),
                ));
            }
        }
        let t: Text = serde_json::from_value(head)
            .map_err(|e| invalid("restricted session", shorten_to(&e.to_string(), 200)))?;
        read(t)
    }

    /// Replaces this run by the one a session text describes; on error nothing changes.
    pub fn restore_session(&mut self, text: &str) -> Result<(), ParamError> {
        *self = RbmLab::from_session(text)?;
        Ok(())
    }
}

// --- Reading --------------------------------------------------------------------------------

fn states(field: &'static str, text: &str, count: usize) -> Result<Vec<u8>, ParamError> {
    Ok(unpack_bits(field, text, count)?
        .into_iter()
        .map(u8::from)
        .collect())
}

fn machine(
    field: &'static str,
    visible: usize,
    hidden: usize,
    parts: [&str; 3],
) -> Result<Rbm, ParamError> {
    let [w, a, b] = parts;
    Rbm::new(
        visible,
        hidden,
        unpack_numbers(field, w, visible * hidden)?,
        unpack_numbers(field, a, visible)?,
        unpack_numbers(field, b, hidden)?,
    )
    .map_err(|e| invalid(field, e.to_string()))
}

fn read_particles(
    field: &'static str,
    rbm: &Rbm,
    p: &ParticleText,
) -> Result<Particles, ParamError> {
    if p.count == 0 || p.count > crate::learn::rbm::MAX_PARTICLES {
        return Err(invalid(
            field,
            format!(
                "{} particles; 1 to {}",
                p.count,
                crate::learn::rbm::MAX_PARTICLES
            ),
        ));
    }
    let (nv, nh) = (rbm.visible(), rbm.hidden());
    let v = states(field, &p.visible, p.count * nv)?;
    let h = states(field, &p.hidden, p.count * nh)?;
    Particles::from_states(field, rbm, p.count, v, h)
}

fn count(field: &'static str, n: u64) -> Result<u64, ParamError> {
    if n > MAX_COUNT {
        return Err(ParamError::OutOfRange {
            field,
            value: n as f64,
            min: 0.0,
            max: MAX_COUNT as f64,
        });
    }
    Ok(n)
}

fn read(t: Text) -> Result<RbmLab, ParamError> {
    if t.hidden == 0 || t.hidden > MAX_HIDDEN {
        return Err(invalid(
            "hidden",
            format!("{} hidden units; 1 to {MAX_HIDDEN}", t.hidden),
        ));
    }
    let (hidden, seed) = (t.hidden as u64, t.seed);
    // The dataset first: it fixes V and the training set. The lab is built exactly as a
    // new run would be, then its learning state is replaced.
    let mut lab = match (t.dataset.as_str(), &t.images) {
        ("custom", Some(images)) => {
            if images.visible == 0
                || images.visible > super::MAX_VISIBLE
                || images.count == 0
                || images.count > crate::learn::MAX_PATTERNS
            {
                return Err(invalid(
                    "images",
                    format!("{} images of {} pixels", images.count, images.visible),
                ));
            }
            let flat = states("images", &images.bits, images.count * images.visible)?;
            let text: String = flat
                .chunks(images.visible)
                .map(|row| {
                    row.iter()
                        .map(|&b| if b == 1 { '1' } else { '0' })
                        .chain(['\n'])
                        .collect::<String>()
                })
                .collect();
            RbmLab::from_bytes(text.as_bytes(), hidden, seed)?
        }
        ("custom", None) => return Err(invalid("images", "a custom dataset needs its images")),
        (name, None) => RbmLab::new(name, hidden, seed)?,
        (_, Some(_)) => return Err(invalid("images", "only a custom dataset carries images")),
    };
    if t.width != lab.images.width {
        return Err(invalid(
            "width",
            format!("{} for images of width {}", t.width, lab.images.width),
        ));
    }
    let (nv, nh) = (lab.visible(), lab.hidden);
    let rbm = machine(
        "weights",
        nv,
        nh,
        [&t.weights, &t.visible_biases, &t.hidden_biases],
    )?;
    let velocity = Gradient {
        weights: unpack_numbers("velocity", &t.velocity.weights, nv * nh)?,
        visible: unpack_numbers("velocity", &t.velocity.visible, nv)?,
        hidden: unpack_numbers("velocity", &t.velocity.hidden, nh)?,
    };
    t.options.check(lab.images.train.len(), nv, nh)?;
    let particles = t
        .particles
        .as_ref()
        .map(|p| read_particles("particles", &rbm, p))
        .transpose()?;
    let replicas = match &t.replicas {
        None => None,
        Some(r) => {
            if r.states.len() > crate::learn::rbm::MAX_REPLICAS {
                return Err(invalid(
                    "replicas",
                    format!(
                        "{} replicas; at most {}",
                        r.states.len(),
                        crate::learn::rbm::MAX_REPLICAS
                    ),
                ));
            }
            let states = r
                .states
                .iter()
                .map(|p| read_particles("replicas", &rbm, p))
                .collect::<Result<Vec<_>, _>>()?;
            Some(Replicas::from_parts(
                "replicas",
                r.betas.clone(),
                states,
                r.proposed,
                r.accepted,
            )?)
        }
    };
    let chains =
        FreeChains::from_parts("particles", t.options.statistics, &rbm, particles, replicas)?;
    let updates = count("updates", t.updates)?;
    let pending = match &t.pending {
        None => None,
        Some(p) => Some((
            p.progress,
            Gradient {
                weights: unpack_numbers("pending", &p.gradient.weights, nv * nh)?,
                visible: unpack_numbers("pending", &p.gradient.visible, nv)?,
                hidden: unpack_numbers("pending", &p.gradient.hidden, nh)?,
            },
            states("pending", &p.chain_visible, nv)?,
        )),
    };
    let trainer = RbmTrainer::from_state(
        &lab.images.train,
        TrainerState {
            rbm,
            options: t.options,
            order: t.order,
            cursor: t.cursor,
            velocity,
            random_state: t.random_state,
            updates,
            diverged: t.diverged,
            chains,
            pending,
        },
    )?;
    let view_rng = rng_from_words("view_random_state", t.view_random_state)?;
    let c = &t.curve;
    let points = c.updates.len();
    if [c.train.len(), c.test.len(), c.stderr.len()]
        .iter()
        .any(|&n| n != points)
        || points > super::CURVE_CAPACITY
    {
        return Err(invalid(
            "curve",
            format!(
                "need four columns of one length, at most {}",
                super::CURVE_CAPACITY
            ),
        ));
    }
    let all = c
        .updates
        .iter()
        .chain(&c.train)
        .chain(&c.test)
        .chain(&c.stderr);
    if let Some(x) = all.into_iter().find(|x| !x.is_finite()) {
        return Err(invalid("curve", format!("{x} is not a finite number")));
    }
    if let Some(&u) = c
        .updates
        .iter()
        .find(|&&u| u < 0.0 || u > updates as f64 || u.fract() != 0.0)
    {
        return Err(invalid(
            "curve",
            format!("update {u} is not one of the run's 0 … {updates}"),
        ));
    }
    if t.likelihood_every == 0 || t.likelihood_every > 1_000_000 {
        return Err(invalid(
            "likelihood_every",
            format!("{}; 1 to 1000000", t.likelihood_every),
        ));
    }
    if t.last_point.is_some_and(|u| u > updates) {
        return Err(invalid("last_point", "after the run's last update"));
    }
    let job = match &t.point {
        None => None,
        Some(p) => {
            if p.update > updates {
                return Err(invalid("point", "after the run's last update"));
            }
            let frozen = machine(
                "point",
                nv,
                nh,
                [&p.weights, &p.visible_biases, &p.hidden_biases],
            )?;
            Some(lab.job_for(frozen, p.update)?)
        }
    };
    lab.trainer = trainer;
    lab.view_rng = view_rng;
    lab.version = count("changes", t.changes)?;
    lab.likelihood.every = t.likelihood_every;
    lab.likelihood.last_point = t.last_point;
    lab.likelihood.job = job;
    for k in 0..points {
        lab.likelihood
            .curve
            .push_point([c.updates[k], c.train[k], c.test[k], c.stderr[k]]);
    }
    lab.reshape_shown();
    // The grid and reconstructions drawn at once, without moving the saved view stream.
    lab.refresh();
    lab.view_rng = rng_from_words("view_random_state", t.view_random_state)?;
    Ok(lab)
}
