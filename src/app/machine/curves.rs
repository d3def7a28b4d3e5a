//! The learning curves: after each cycle, exact KL(data ‖ model) when the machine can be
//! enumerated and the fraction of encoder inputs with a code of their own; for a machine too
//! big to enumerate, an AIS estimate of KL ([`KlEstimate`]) started every [`AIS_KL_EVERY`]
//! cycles and advanced a chunk at a time between frames, its points (with their standard
//! errors) on a curve of their own. Both are bounded histories (the oldest point goes).

use super::{ESTIMATE_CHUNKS, MachineLab};
use crate::error::ParamError;
use crate::estimate::kl::{AIS_KL_RUNS_PER_CHUNK, AIS_KL_STEPS, KlEstimate, MAX_KL_HIDDEN};
use crate::learn::encoder::{mean_field_codes, sampled_codes};
use crate::learn::experiment::LearningMethod;
use crate::learn::likelihood::kl_divergence;

/// The exact KL curve is kept when (distinct training vectors + 1) · 2^n, the states it
/// enumerates per point, is at most this.
pub const MAX_KL_STATES: f64 = (1u64 << 21) as f64;
/// Chunks per KL estimate (so 2 × 48 = 96 AIS runs in all).
pub const AIS_KL_CHUNKS: usize = 48;
/// An AIS estimate of KL starts at most every this many cycles.
pub const AIS_KL_EVERY: u64 = 10;
/// Most multiply-adds one step of the KL estimate may take: the hidden sums
/// (patterns × 2^hidden × n, done when the estimate starts) and one chunk of AIS runs
/// (2 × 250 × n², so n ≤ 256), so that no frame freezes.
pub const MAX_KL_STEP_WORK: f64 = (1u64 << 25) as f64;

impl MachineLab {
    /// Adds a point to the curves: exact KL when enumerable, the solved fraction of an
    /// encoder (NaN where not defined).
    pub(super) fn record(&mut self) -> Result<(), ParamError> {
        let cycle = self.cycles();
        let states = (self.patterns().len() as f64 + 1.0) * libm::exp2(self.dataset.units() as f64);
        let kl = if states <= MAX_KL_STATES {
            kl_divergence(self.network(), self.temperature(), self.patterns())?
        } else {
            f64::NAN
        };
        if kl.is_nan() {
            self.start_estimate()?;
        }
        let solved = self.solved_fraction()?;
        self.curve.push_point([cycle as f64, kl, solved]);
        Ok(())
    }

    /// Starts an AIS estimate of KL at the current weights, unless one is under way, one
    /// started fewer than [`AIS_KL_EVERY`] cycles ago, or the hidden units are too many to
    /// sum.
    fn start_estimate(&mut self) -> Result<(), ParamError> {
        let cycle = self.cycles();
        let recent = self
            .estimate_started
            .is_some_and(|c| cycle < c + AIS_KL_EVERY);
        if self.estimate.is_some() || recent || !self.kl_estimated() {
            return Ok(());
        }
        self.estimate = Some(KlEstimate::new(
            self.network(),
            self.temperature(),
            self.patterns(),
            AIS_KL_CHUNKS,
            self.seed ^ 0xA15 ^ cycle.wrapping_mul(0x2545_F491_4F6C_DD1D),
            cycle,
        )?);
        self.estimate_started = Some(cycle);
        Ok(())
    }

    /// Whether an AIS estimate of KL is under way.
    pub fn estimating(&self) -> bool {
        self.estimate.is_some()
    }

    /// Whether KL can only be estimated (the machine is too big to enumerate) and can be
    /// (few enough hidden units, each step within [`MAX_KL_STEP_WORK`]).
    pub fn kl_estimated(&self) -> bool {
        let n = self.dataset.units() as f64;
        let states = (self.patterns().len() as f64 + 1.0) * libm::exp2(n);
        let hidden = self.network().hidden();
        let sums = self.patterns().len() as f64 * libm::exp2(hidden as f64) * n;
        let chunk = (AIS_KL_RUNS_PER_CHUNK * AIS_KL_STEPS) as f64 * n * n;
        states > MAX_KL_STATES
            && hidden <= MAX_KL_HIDDEN
            && sums <= MAX_KL_STEP_WORK
            && chunk <= MAX_KL_STEP_WORK
    }

    /// Runs up to `chunks` chunks of the AIS estimate under way (1 ≤ chunks ≤ 1000); when
    /// it completes, its point joins the AIS curve. Returns whether a point was added. An
    /// estimate whose work fails is dropped (the next cycle may start a fresh one).
    pub fn estimate_step(&mut self, chunks: u64) -> Result<bool, ParamError> {
        let chunks = ESTIMATE_CHUNKS.check(chunks)? as usize;
        let Some(estimate) = &mut self.estimate else {
            return Ok(false);
        };
        match estimate.advance(chunks) {
            Ok(false) => return Ok(false),
            Ok(true) => {}
            Err(err) => {
                self.estimate = None;
                return Err(err);
            }
        }
        let (kl, stderr) = estimate
            .value()
            .expect("a complete estimate has its chunks");
        let cycle = estimate.cycle();
        self.estimate = None;
        self.ais_curve.push_point([cycle as f64, kl, stderr]);
        self.version += 1;
        Ok(true)
    }

    /// Cycles of the AIS KL points.
    pub fn curve_ais_cycles(&self) -> &[f64] {
        self.ais_curve.column(0)
    }

    /// AIS estimates of KL(data ‖ model).
    pub fn curve_ais_kl(&self) -> &[f64] {
        self.ais_curve.column(1)
    }

    /// Their standard errors.
    pub fn curve_ais_stderr(&self) -> &[f64] {
        self.ais_curve.column(2)
    }

    /// Learning-curve cycles.
    pub fn curve_cycles(&self) -> &[f64] {
        self.curve.column(0)
    }

    /// Exact KL per curve point (NaN when not enumerable).
    pub fn curve_kl(&self) -> &[f64] {
        self.curve.column(1)
    }

    /// Encoder solved fraction per curve point (NaN when not an encoder).
    pub fn curve_solved(&self) -> &[f64] {
        self.curve.column(2)
    }

    /// The fraction of encoder inputs whose hidden code is their own (decided and shared
    /// with no other input); NaN when the set is not an encoder.
    pub fn solved_fraction(&self) -> Result<f64, ParamError> {
        let Some(encoder) = self.dataset.encoder() else {
            return Ok(f64::NAN);
        };
        let settling = &self.protocol.options.settling;
        let codes = match self.protocol.method {
            LearningMethod::Stochastic => sampled_codes(
                self.network(),
                encoder,
                settling,
                self.protocol.code_trials,
                self.seed ^ self.cycles(),
            )?,
            LearningMethod::MeanField => {
                mean_field_codes(self.network(), encoder, settling, &self.protocol.settings)?.0
            }
        };
        let mut own = 0;
        for (k, code) in codes.iter().enumerate() {
            if let Some(c) = code
                && codes
                    .iter()
                    .enumerate()
                    .all(|(m, other)| m == k || other.as_ref() != Some(c))
            {
                own += 1;
            }
        }
        Ok(own as f64 / encoder.group as f64)
    }
}
