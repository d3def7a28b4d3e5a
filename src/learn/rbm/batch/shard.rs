//! One update of a [`BatchTrainer`] shared by K replicas that share no memory (the page's
//! learning workers): every replica holds the whole trainer (same machine, data, options and
//! state), computes one shard of the update, and the replicas exchange two messages per
//! update. They end it with the same bits, and those are the bits of one trainer alone
//! ([`BatchTrainer::update`]), for any K.
//!
//! Shard s of K takes part s of n things, ⌊n·s/K⌋ .. ⌊n·(s+1)/K⌋ ([`Shard::part`]):
//!
//! 1. [`BatchTrainer::shard_chains`]: every replica loads the batch V₀ and draws every random
//!    number of the update in the one-trainer order (so the generators stay equal), then runs
//!    the chains of its part of the batch rows and of the chains — a chain needs only its own
//!    row and its own draws — giving those rows of P₀, X and P. They go to every other
//!    replica: [`BatchTrainer::shard_rows`] → [`BatchTrainer::receive_rows`].
//! 2. [`BatchTrainer::shard_step`]: the rows of g_W = V₀ᵀ P₀ / B − Xᵀ P / C of its part of the
//!    visible units, each entry summed over the whole batch and all chains (no sum is split);
//!    g_a and g_b whole (a few column sums); the next velocities u′ = μ u + ε_t (g − λ W) of
//!    its rows of W and of both biases, checked against the divergence limit. Its block of
//!    u′ goes to every other replica: [`BatchTrainer::step_block`] →
//!    [`BatchTrainer::receive_step`].
//! 3. [`BatchTrainer::finish_shared_update`]: all or nothing, as [`BatchTrainer::update`]: the
//!    same error naming the same parameter if a new value leaves the limit, else W ← W + u′,
//!    u ← u′ on every replica; the batch position moves on.
//!
//! Each piece runs the code one trainer runs on some rows of an output, never part of a sum,
//! and the update rule is elementwise, so the shards give one trainer's bits wherever a
//! product's rows do: in wasm always (the indicator row sums and the SIMD128 kernel compute
//! each row of C alone); natively when every part keeps `gemm`'s path for the whole (at least
//! 8 rows and more than 64 columns: [`crate::linalg::splits_like_the_whole`]). A saved run
//! therefore does not depend on K, and a run saved with one K resumes with any other.
//!
//! [`BatchTrainer::abandon_shared_update`] puts back what an unfinished shared update changed
//! (the generator and the chains), so a replica whose peer died goes on alone with the bits it
//! would have had.

use super::{BatchTrainer, Model, Phases, Rows, divergence, draw};
use crate::error::ParamError;
use crate::linalg::elementwise::{apply_step, momentum_step};
use crate::rng::SpinRng;
use std::ops::Range;

/// The most replicas one update may be shared by.
pub const MAX_SHARDS: usize = 64;

/// Which part of a shared update a replica computes: shard `index` of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: usize,
    count: usize,
}

impl Shard {
    /// Shard `index` of `count` (1 ≤ count ≤ [`MAX_SHARDS`], error names `shards`;
    /// index < count, error names `shard`).
    pub fn new(index: usize, count: usize) -> Result<Shard, ParamError> {
        let count = crate::error::whole_in("shards", count as f64, 1, MAX_SHARDS as u64)? as usize;
        let index = crate::error::whole_in("shard", index as f64, 0, count as u64 - 1)? as usize;
        Ok(Shard { index, count })
    }

    /// The shard's number, from 0.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The replicas sharing the update.
    pub fn count(&self) -> usize {
        self.count
    }

    /// This shard's part of n things: ⌊n·s/K⌋ .. ⌊n·(s+1)/K⌋ (the parts of all shards cover
    /// 0..n in order, each empty or contiguous).
    pub fn part(&self, n: usize) -> Range<usize> {
        n * self.index / self.count..n * (self.index + 1) / self.count
    }

    /// Shard `index` of the same count (the sender of a message).
    fn peer(&self, index: usize) -> Result<Shard, ParamError> {
        let peer = Shard::new(index, self.count)?;
        if index == self.index {
            return Err(out_of_order(format!("shard {index} is this replica's own")));
        }
        Ok(peer)
    }
}

/// Where a shared update stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Stage {
    /// None under way.
    #[default]
    Idle,
    /// The chains of this shard have run; the other shards' rows are coming.
    Chains,
    /// This shard's block of the next velocities is ready; the others' are coming.
    Steps,
}

/// A [`BatchTrainer`]'s shared update under way (a field of the trainer; idle outside one).
#[derive(Debug, Clone)]
pub(super) struct SharedUpdate {
    stage: Stage,
    shard: Shard,
    /// Rows of the batch and free chains of this update.
    rows: usize,
    chains: usize,
    /// The shards whose message of this stage is in (bit s: shard s; its own included).
    heard: u64,
    /// Whether every block of W's next velocities heard so far is within the limit, and
    /// whether a's and b's are.
    weights_ok: bool,
    biases_ok: [bool; 2],
    /// What the update changed before its end, to put back: the generator and the chains.
    rng_before: SpinRng,
    chains_before: Vec<f32>,
}

impl SharedUpdate {
    /// None under way.
    pub(super) fn idle(rng: &SpinRng) -> SharedUpdate {
        SharedUpdate {
            stage: Stage::Idle,
            shard: Shard { index: 0, count: 1 },
            rows: 0,
            chains: 0,
            heard: 0,
            weights_ok: true,
            biases_ok: [true; 2],
            rng_before: rng.clone(),
            chains_before: Vec::new(),
        }
    }

    /// The generator and chains before the update under way, if one is.
    pub(super) fn before(&self) -> Option<(&SpinRng, &[f32])> {
        (self.stage != Stage::Idle).then_some((&self.rng_before, &self.chains_before[..]))
    }

    /// Whether every shard's message of this stage is in.
    /// Refuses unless the update stands at `stage` with every shard's `part` in.
    fn expect_all(&self, stage: Stage, what: &str, part: &str) -> Result<(), ParamError> {
        self.expect(stage, what)?;
        if self.heard.count_ones() as usize == self.shard.count {
            return Ok(());
        }
        Err(out_of_order(format!(
            "{what} needs every shard's {part}; {} of {} are in",
            self.heard.count_ones(),
            self.shard.count
        )))
    }

    /// Refuses unless the update stands at `stage`.
    fn expect(&self, stage: Stage, what: &str) -> Result<(), ParamError> {
        if self.stage == stage {
            return Ok(());
        }
        Err(out_of_order(format!(
            "{what} comes at the {stage:?} stage of a shared update; it is at {:?}",
            self.stage
        )))
    }

    /// Marks `peer`'s message of this stage as in (refused if it already came).
    fn hear(&mut self, peer: Shard) -> Result<(), ParamError> {
        let bit = 1u64 << peer.index;
        if self.heard & bit != 0 {
            return Err(out_of_order(format!(
                "shard {} was already heard at this stage",
                peer.index
            )));
        }
        self.heard |= bit;
        Ok(())
    }
}

/// The error of a shared update's step made out of order or with a wrong message.
fn out_of_order(reason: String) -> ParamError {
    ParamError::Invalid {
        field: "shared update",
        reason,
    }
}

impl BatchTrainer {
    /// Step 1 of an update shared by `shard.count()` replicas (the module's doc): loads the
    /// batch, draws every number of the update and runs this shard's chains. Refused (nothing
    /// changes) after a divergence (its error) or while a shared update is under way.
    pub fn shard_chains(&mut self, shard: Shard) -> Result<(), ParamError> {
        if let Some(e) = &self.diverged {
            return Err(e.clone());
        }
        self.shared.expect(Stage::Idle, "its start")?;
        if self.tempering() {
            return Err(ParamError::Invalid {
                field: "statistics",
                reason: "a shared update runs CD-k or persistent chains, not tempering".into(),
            });
        }
        let (nv, nh) = (self.visible, self.hidden);
        self.shared.rng_before = self.rng.clone();
        self.shared.chains_before.clear();
        self.shared.chains_before.extend_from_slice(&self.chains);
        let (rows, chains) = self.load_batch();
        let (my_rows, my_chains) = (shard.part(rows), shard.part(chains));
        let model = Model::new(
            &self.weights,
            &self.visible_biases,
            &self.hidden_biases,
            chains,
            self.persistent,
            self.labels,
        );
        for step in 0..self.options.statistics.steps() {
            let first_step = step == 0;
            let whole = Rows {
                v0: &self.batch_visible[..rows * nv],
                p0: &mut self.batch_hidden[..rows * nh],
                x: &mut self.chains[..chains * nv],
                h: &mut self.chain_hidden[..chains * nh],
                p: &mut self.chain_hidden_probabilities[..chains * nh],
                pv: &mut self.chain_visible_probabilities[..chains * nv],
                betas: &[],
                inputs: &mut [],
            };
            // Every draw of the step, in the one-trainer order (hidden units of every chain,
            // then visible units); this shard reads its chains' own.
            let (hidden, visible) = self.draws[..chains * (nv + nh)].split_at_mut(chains * nh);
            draw(&mut self.rng, &mut [&mut *hidden, &mut *visible]);
            let (_, rest) = whole.split(my_rows.start, my_chains.start, nv, nh);
            let (mut mine, _) = rest.split(my_rows.len(), my_chains.len(), nv, nh);
            if first_step {
                mine.start(&model);
            }
            let hidden = &hidden[my_chains.start * nh..my_chains.end * nh];
            let visible = &visible[my_chains.start * nv..my_chains.end * nv];
            mine.step(&model, hidden, visible, first_step && !self.persistent);
        }
        self.shared.stage = Stage::Chains;
        self.shared.shard = shard;
        self.shared.rows = rows;
        self.shared.chains = chains;
        self.shared.heard = 1 << shard.index;
        Ok(())
    }

    /// This shard's rows after step 1, for the other replicas: its batch rows of P₀, then its
    /// chains' rows of X and of P (f32, row after row). Refused outside step 1.
    pub fn shard_rows(&self) -> Result<Vec<f32>, ParamError> {
        self.shared.expect(Stage::Chains, "sending the rows")?;
        let (nv, nh) = (self.visible, self.hidden);
        let shard = self.shared.shard;
        let rows = shard.part(self.shared.rows);
        let chains = shard.part(self.shared.chains);
        Ok([
            &self.batch_hidden[rows.start * nh..rows.end * nh],
            &self.chains[chains.start * nv..chains.end * nv],
            &self.chain_hidden_probabilities[chains.start * nh..chains.end * nh],
        ]
        .concat())
    }

    /// Puts shard `from`'s rows ([`BatchTrainer::shard_rows`] of its replica) in place.
    /// Checked whole first (the stage, the sender, the length, X 0/1, P₀ and P in [0, 1]);
    /// a refused message (error names `shared update`) changes nothing.
    pub fn receive_rows(&mut self, from: usize, values: &[f32]) -> Result<(), ParamError> {
        self.shared.expect(Stage::Chains, "receiving rows")?;
        let peer = self.shared.shard.peer(from)?;
        let (nv, nh) = (self.visible, self.hidden);
        let rows = peer.part(self.shared.rows);
        let chains = peer.part(self.shared.chains);
        let (n_p0, n_x) = (rows.len() * nh, chains.len() * nv);
        let want = n_p0 + n_x + chains.len() * nh;
        if values.len() != want {
            return Err(out_of_order(format!(
                "shard {from} sent {} values where its rows hold {want}",
                values.len()
            )));
        }
        let (p0, rest) = values.split_at(n_p0);
        let (x, p) = rest.split_at(n_x);
        let probability = |v: &f32| (0.0..=1.0).contains(v);
        if !(p0.iter().all(probability)
            && p.iter().all(probability)
            && x.iter().all(|&v| v == 0.0 || v == 1.0))
        {
            return Err(out_of_order(format!(
                "shard {from} sent a chain unit not 0/1 or a probability outside [0, 1]"
            )));
        }
        self.shared.hear(peer)?;
        self.batch_hidden[rows.start * nh..rows.end * nh].copy_from_slice(p0);
        self.chains[chains.start * nv..chains.end * nv].copy_from_slice(x);
        self.chain_hidden_probabilities[chains.start * nh..chains.end * nh].copy_from_slice(p);
        Ok(())
    }

    /// Step 2 (every shard's rows in): this shard's rows of g_W, g_a and g_b whole, and the
    /// next velocities of its rows of W and of both biases, each checked against the
    /// divergence limit. Refused (nothing changes) before every shard's rows are in.
    pub fn shard_step(&mut self) -> Result<(), ParamError> {
        self.shared.expect_all(Stage::Chains, "the step", "rows")?;
        let (nv, nh) = (self.visible, self.hidden);
        let SharedUpdate {
            rows,
            chains,
            shard,
            ..
        } = self.shared;
        let units = shard.part(nv);
        let phases = Phases {
            v0: &self.batch_visible[..rows * nv],
            p0: &self.batch_hidden[..rows * nh],
            x: &self.chains[..chains * nv],
            p: &self.chain_hidden_probabilities[..chains * nh],
            hidden: nh,
        };
        let block = units.start * nh..units.end * nh;
        phases.weight_rows(&mut self.gradient_weights[block.clone()], units);
        let (sums_visible, sums_hidden) = self.sums.split_at_mut(nv);
        phases.visible_means(sums_visible, &mut self.gradient_visible);
        phases.hidden_means(sums_hidden, &mut self.gradient_hidden);

        let scalars = self.rule_scalars();
        let [momentum, rate, _, limit] = scalars;
        let (step_w, rest) = self.step.split_at_mut(nv * nh);
        let (step_a, step_b) = rest.split_at_mut(nv);
        let mut ok = [[true]; 3];
        momentum_step(
            &self.weights[block.clone()],
            &self.gradient_weights[block.clone()],
            &self.velocity_weights[block.clone()],
            &mut step_w[block],
            scalars,
            &mut ok[0],
        );
        let bias_scalars = [momentum, rate, 0.0, limit];
        momentum_step(
            &self.visible_biases,
            &self.gradient_visible,
            &self.velocity_visible,
            step_a,
            bias_scalars,
            &mut ok[1],
        );
        momentum_step(
            &self.hidden_biases,
            &self.gradient_hidden,
            &self.velocity_hidden,
            step_b,
            bias_scalars,
            &mut ok[2],
        );
        self.shared.weights_ok = ok[0][0];
        self.shared.biases_ok = [ok[1][0], ok[2][0]];
        self.shared.stage = Stage::Steps;
        self.shared.heard = 1 << shard.index;
        Ok(())
    }

    /// This shard's block of W's next velocities after step 2 (its rows of visible units,
    /// each of H values) and whether all of them are within the divergence limit. Refused
    /// outside step 2.
    pub fn step_block(&self) -> Result<(&[f32], bool), ParamError> {
        self.shared.expect(Stage::Steps, "sending the step")?;
        let nh = self.hidden;
        let units = self.shared.shard.part(self.visible);
        Ok((
            &self.step[units.start * nh..units.end * nh],
            self.shared.weights_ok,
        ))
    }

    /// Puts shard `from`'s block of W's next velocities ([`BatchTrainer::step_block`] of its
    /// replica, with its `within` flag) in place. Checked first (the stage, the sender, the
    /// length); a refused message (error names `shared update`) changes nothing.
    pub fn receive_step(
        &mut self,
        from: usize,
        block: &[f32],
        within: bool,
    ) -> Result<(), ParamError> {
        self.shared.expect(Stage::Steps, "receiving a step")?;
        let peer = self.shared.shard.peer(from)?;
        let nh = self.hidden;
        let units = peer.part(self.visible);
        if block.len() != units.len() * nh {
            return Err(out_of_order(format!(
                "shard {from} sent {} values where its rows of W hold {}",
                block.len(),
                units.len() * nh
            )));
        }
        self.shared.hear(peer)?;
        self.step[units.start * nh..units.end * nh].copy_from_slice(block);
        self.shared.weights_ok &= within;
        Ok(())
    }

    /// Step 3 (every shard's block in): ends the update all or nothing, as
    /// [`BatchTrainer::update`] does: if a new value leaves ±[`crate::learn::DIVERGENCE_LIMIT`]
    /// or is not finite, the parameters and velocities stay, the error names the update and
    /// the first such parameter (W, then a, then b) and every later update returns it; else
    /// W ← W + u′, u ← u′ (and the biases). The batch position moves on either way. Refused
    /// (nothing changes) before every shard's block is in.
    pub fn finish_shared_update(&mut self) -> Result<(), ParamError> {
        self.shared.expect_all(Stage::Steps, "the end", "step")?;
        let (nv, nh) = (self.visible, self.hidden);
        self.shared.stage = Stage::Idle;
        let start = self.cursor;
        self.advance_cursor(start + self.shared.rows);
        let number = self.updates + 1;
        let (step_w, rest) = self.step.split_at(nv * nh);
        let (step_a, step_b) = rest.split_at(nv);
        let [a_ok, b_ok] = self.shared.biases_ok;
        let failed = if !self.shared.weights_ok {
            Some(divergence(number, "weight", &self.weights, step_w, nh))
        } else if !a_ok {
            Some(divergence(
                number,
                "visible bias a",
                &self.visible_biases,
                step_a,
                nh,
            ))
        } else if !b_ok {
            Some(divergence(
                number,
                "hidden bias b",
                &self.hidden_biases,
                step_b,
                nh,
            ))
        } else {
            None
        };
        if let Some(e) = failed {
            self.diverged = Some(e.clone());
            return Err(e);
        }
        apply_step(&mut self.weights, &mut self.velocity_weights, step_w);
        apply_step(&mut self.visible_biases, &mut self.velocity_visible, step_a);
        apply_step(&mut self.hidden_biases, &mut self.velocity_hidden, step_b);
        self.updates = number;
        Ok(())
    }

    /// Puts back what an unfinished shared update changed (the generator and the chains),
    /// so this replica can go on alone, or start the update again, with the bits it would
    /// have had; nothing when none is under way.
    pub fn abandon_shared_update(&mut self) {
        if self.shared.stage == Stage::Idle {
            return;
        }
        self.rng = self.shared.rng_before.clone();
        self.chains.copy_from_slice(&self.shared.chains_before);
        self.shared.stage = Stage::Idle;
    }

    /// Whether a shared update is under way (step 1 done, step 3 not).
    pub fn sharing(&self) -> bool {
        self.shared.stage != Stage::Idle
    }
}
