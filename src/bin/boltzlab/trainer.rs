//! The restricted machine's two trainers behind one face, for the commands that offer both
//! (`learn --machine rbm`, `reproduce salakhutdinov2008`): the f32 [`BatchTrainer`] (blocked
//! products, on K threads natively) and the f64 [`RbmTrainer`], an independent implementation
//! of the same rule (the page's, and the check of the first).

use boltzlab::ParamError;
use boltzlab::learn::rbm::{BatchTrainer, Rbm, RbmTrainer, Statistics, TrainingOptions};

/// The f32 batch trainer, or the f64 one.
pub enum Trainer {
    F32(Box<BatchTrainer>),
    F64(Box<RbmTrainer>),
}

impl Trainer {
    /// A trainer of `rbm` on `train` with `options`: f64 if `f64`, else f32 on `threads`.
    pub fn new(
        rbm: &Rbm,
        train: &[Vec<u8>],
        options: TrainingOptions,
        threads: usize,
        f64: bool,
    ) -> Result<Trainer, ParamError> {
        Ok(if f64 {
            Trainer::F64(Box::new(RbmTrainer::new(rbm.clone(), train, options)?))
        } else {
            Trainer::F32(Box::new(BatchTrainer::new(rbm, train, options, threads)?))
        })
    }

    /// "f32" or "f64", as the commands' rows name the trainer.
    pub fn name(&self) -> &'static str {
        match self {
            Trainer::F32(_) => "f32",
            Trainer::F64(_) => "f64",
        }
    }

    pub fn run(&mut self, updates: u64) -> Result<(), ParamError> {
        match self {
            Trainer::F32(t) => t.run(updates),
            Trainer::F64(t) => t.run(updates),
        }
    }

    pub fn updates(&self) -> u64 {
        match self {
            Trainer::F32(t) => t.updates(),
            Trainer::F64(t) => t.updates(),
        }
    }

    pub fn set_momentum(&mut self, momentum: f64) -> Result<(), ParamError> {
        match self {
            Trainer::F32(t) => t.set_momentum(momentum),
            Trainer::F64(t) => {
                let options = TrainingOptions {
                    momentum,
                    ..*t.options()
                };
                t.set_options(options)
            }
        }
    }

    /// CD-k's k and rate for the later updates, keeping the velocities, chains and batch
    /// position (rbm.m's `anneal_lr` between epochs).
    pub fn set_cd_steps(&mut self, steps: usize, rate: f64) -> Result<(), ParamError> {
        match self {
            Trainer::F32(t) => t.set_cd_steps(steps, rate),
            Trainer::F64(t) => {
                let options = TrainingOptions {
                    statistics: Statistics::ContrastiveDivergence { steps },
                    rate,
                    ..*t.options()
                };
                t.set_options(options)
            }
        }
    }

    /// The machine now (the f32 trainer's parameters widened to f64).
    pub fn rbm(&self) -> Rbm {
        match self {
            Trainer::F32(t) => t.rbm(),
            Trainer::F64(t) => t.rbm().clone(),
        }
    }
}
