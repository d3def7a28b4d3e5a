//! An update of the f32 batch trainer shared by K replicas that share no memory (the page's
//! learning workers; src/learn/rbm/batch/shard.rs): every replica ends each update with the
//! bits of one trainer alone, for K = 1 to 4, CD-k and persistent chains, a label group, an
//! epoch's short last batch and new epochs (so the K-shard gradient is the whole batch's,
//! exactly: each entry of g_W is summed over the whole batch by one replica); a divergence
//! gives one trainer's error; an abandoned shared update leaves the bits one trainer would
//! have; and every wrong message or step out of order is refused, changing nothing.
//!
//! Every check here is exact (bit equality or an error's text): none fails by chance.
//! Natively the parts keep `gemm`'s path for the whole (every part of the batch, of the
//! chains and of the visible units at least 8 rows, more than 64 columns), the condition
//! under which rows of a product have the whole's bits (`splits_like_the_whole`).

use boltzlab::learn::rbm::batch::{MAX_SHARDS, Shard};
use boltzlab::learn::rbm::{BatchTrainer, Rbm, Statistics, TrainingOptions};
use linalg_checks::{options, random_patterns};
use shard_checks::{assert_shared_like_one, shared_update};

mod linalg_checks;
mod shard_checks;

const VISIBLE: usize = 100;
const HIDDEN: usize = 80;
const BATCH: usize = 64;

/// A 100-80 machine on 160 random images of MNIST's density (2.5 batches of 64: every
/// third update is a short batch of 32 and starts a new epoch), with `statistics`.
fn trainer(statistics: Statistics) -> BatchTrainer {
    let patterns = random_patterns(160, VISIBLE, 0.13, 21);
    let start = Rbm::random(VISIBLE, HIDDEN, 0.05, 22).unwrap();
    BatchTrainer::new(&start, &patterns, options(statistics, BATCH, 23), 1).unwrap()
}

#[test]
fn k_replicas_give_one_trainers_bits_for_cd_and_persistent_chains() {
    let statistics = [
        Statistics::ContrastiveDivergence { steps: 1 },
        Statistics::ContrastiveDivergence { steps: 3 },
        Statistics::Persistent {
            particles: 40,
            steps: 2,
        },
    ];
    for s in statistics {
        for count in 1..=4 {
            // 32 rows of a short batch in 4 parts of 8; 40 particles in 4 parts of 10.
            assert_shared_like_one(&|| trainer(s), count, 7);
        }
    }
}

#[test]
fn k_replicas_give_one_trainers_bits_with_a_label_group() {
    // The last 10 of 100 visible units a one-of-10 group; every image's group one-hot.
    let make = || {
        let mut patterns = random_patterns(160, VISIBLE, 0.13, 31);
        for (k, p) in patterns.iter_mut().enumerate() {
            for (y, x) in p[VISIBLE - 10..].iter_mut().enumerate() {
                *x = u8::from(y == k % 10);
            }
        }
        let start = Rbm::random(VISIBLE, HIDDEN, 0.05, 32).unwrap();
        let o = options(Statistics::ContrastiveDivergence { steps: 1 }, BATCH, 33);
        BatchTrainer::new(&start, &patterns, o, 1)
            .unwrap()
            .with_label_group(10)
            .unwrap()
    };
    for count in [2, 3] {
        assert_shared_like_one(&make, count, 4);
    }
}

#[test]
fn the_measured_mnist_sized_update_shared_by_two_has_one_trainers_bits() {
    assert_shared_like_one(&|| linalg_checks::mnist_sized_trainer(1), 2, 2);
}

#[test]
fn a_diverging_shared_update_gives_one_trainers_error_and_changes_no_parameter() {
    // W_00 = 999 999 with rate 100 and weight decay 0.5: the decay alone moves it by
    // −50·W_00, beyond the limit ±10⁶ (found by the replica whose rows hold unit 0, named
    // by every replica).
    let make = || {
        let mut weights = vec![0.0; VISIBLE * HIDDEN];
        weights[0] = 999_999.0;
        let m = Rbm::new(
            VISIBLE,
            HIDDEN,
            weights,
            vec![0.0; VISIBLE],
            vec![0.0; HIDDEN],
        )
        .unwrap();
        let o = TrainingOptions {
            rate: 100.0,
            weight_decay: 0.5,
            ..options(Statistics::ContrastiveDivergence { steps: 1 }, BATCH, 41)
        };
        BatchTrainer::new(&m, &random_patterns(160, VISIBLE, 0.13, 42), o, 1).unwrap()
    };
    let mut one = make();
    let e = one.update().unwrap_err();
    assert!(e.to_string().contains("weight W[0][0]"), "{e}");
    let mut replicas = vec![make(), make(), make()];
    let before = replicas[1].rbm();
    for result in shared_update(&mut replicas) {
        assert_eq!(result, Err(e.clone()));
    }
    for r in &replicas {
        assert!(r.state() == one.state());
        assert_eq!(r.rbm(), before);
        assert_eq!(r.updates(), 0);
    }
    // Later updates, shared or not, return the same error.
    for result in shared_update(&mut replicas) {
        assert_eq!(result, Err(e.clone()));
    }
}

#[test]
fn an_abandoned_shared_update_leaves_the_bits_one_trainer_would_have() {
    let cd = Statistics::ContrastiveDivergence { steps: 1 };
    let pcd = Statistics::Persistent {
        particles: 40,
        steps: 1,
    };
    for s in [cd, pcd] {
        let mut one = trainer(s);
        let mut replicas = vec![trainer(s), trainer(s)];
        one.run(2).unwrap();
        for r in &mut replicas {
            r.run(1).unwrap();
        }
        // A shared update abandoned after its rows came in (its peer died): the replica
        // goes on alone.
        let mut left = replicas.remove(0);
        let peer = &mut replicas[0];
        let before = left.state();
        left.shard_chains(Shard::new(0, 2).unwrap()).unwrap();
        peer.shard_chains(Shard::new(1, 2).unwrap()).unwrap();
        left.receive_rows(1, &peer.shard_rows().unwrap()).unwrap();
        assert!(left.sharing());
        // Its state (what a save holds) meanwhile is the state before the update.
        assert!(left.state() == before);
        left.abandon_shared_update();
        assert!(!left.sharing());
        left.update().unwrap();
        assert!(left.state() == one.state());
        // update() on a replica in the middle of a shared update abandons it first.
        peer.update().unwrap();
        assert!(peer.state() == one.state());
    }
}

#[test]
fn wrong_messages_and_steps_out_of_order_are_refused_and_change_nothing() {
    let cd = Statistics::ContrastiveDivergence { steps: 1 };
    assert!(Shard::new(0, 0).is_err());
    assert!(Shard::new(2, 2).unwrap_err().to_string().contains("shard"));
    assert!(Shard::new(0, MAX_SHARDS + 1).is_err());
    let mut one = trainer(cd);
    one.update().unwrap();
    let mut a = trainer(cd);
    let mut b = trainer(cd);
    let out_of_order = |e: boltzlab::error::ParamError| {
        assert!(e.to_string().contains("shared update"), "{e}");
    };
    out_of_order(a.shard_rows().unwrap_err());
    out_of_order(a.shard_step().unwrap_err());
    out_of_order(a.finish_shared_update().unwrap_err());
    out_of_order(a.receive_step(1, &[], true).unwrap_err());
    a.shard_chains(Shard::new(0, 2).unwrap()).unwrap();
    b.shard_chains(Shard::new(1, 2).unwrap()).unwrap();
    out_of_order(a.shard_chains(Shard::new(0, 2).unwrap()).unwrap_err());
    out_of_order(a.shard_step().unwrap_err()); // b's rows not in yet
    let rows = b.shard_rows().unwrap();
    let before = a.state();
    out_of_order(a.receive_rows(0, &rows).unwrap_err()); // its own shard
    assert!(a.receive_rows(2, &rows).is_err()); // no such shard
    out_of_order(a.receive_rows(1, &rows[1..]).unwrap_err());
    for (at, bad) in [(0, f32::NAN), (0, 1.5), (rows.len() - 1, -0.1)] {
        let mut wrong = rows.clone();
        wrong[at] = bad;
        out_of_order(a.receive_rows(1, &wrong).unwrap_err());
    }
    // A chain unit (X follows B/2 · H values of P₀) neither 0 nor 1.
    let mut wrong = rows.clone();
    wrong[BATCH / 2 * HIDDEN] = 0.5;
    out_of_order(a.receive_rows(1, &wrong).unwrap_err());
    assert!(a.state() == before);
    a.receive_rows(1, &rows).unwrap();
    out_of_order(a.receive_rows(1, &rows).unwrap_err()); // heard twice
    b.receive_rows(0, &a.shard_rows().unwrap()).unwrap();
    a.shard_step().unwrap();
    b.shard_step().unwrap();
    let (block, within) = b.step_block().unwrap();
    let block = block.to_vec();
    out_of_order(a.receive_step(1, &block[1..], within).unwrap_err());
    out_of_order(a.finish_shared_update().unwrap_err()); // b's block not in yet
    a.receive_step(1, &block, within).unwrap();
    a.finish_shared_update().unwrap();
    assert!(a.state() == one.state());
}
