//! An update shared by K replicas of a batch trainer, delivered as the page's workers
//! deliver it (every replica's message to every other one, in any order), for the native
//! and the wasm tests of `src/learn/rbm/batch/shard.rs`.

use boltzlab::error::ParamError;
use boltzlab::learn::rbm::BatchTrainer;
use boltzlab::learn::rbm::batch::Shard;

/// One update shared by the replicas (replica s is shard s of their number): step 1 on
/// each, every replica's rows to every other one (the senders in reverse order, to show
/// the order does not matter), step 2, every block of velocities to every other one, step
/// 3. Returns each replica's result of step 3; panics if a message is refused.
pub fn shared_update(replicas: &mut [BatchTrainer]) -> Vec<Result<(), ParamError>> {
    let count = replicas.len();
    for (s, replica) in replicas.iter_mut().enumerate() {
        let shard = Shard::new(s, count).expect("a shard");
        if let Err(e) = replica.shard_chains(shard) {
            return vec![Err(e); count];
        }
    }
    let rows: Vec<Vec<f32>> = replicas
        .iter()
        .map(|r| r.shard_rows().expect("rows after step 1"))
        .collect();
    for (s, replica) in replicas.iter_mut().enumerate() {
        for (from, values) in rows.iter().enumerate().rev() {
            if from != s {
                replica.receive_rows(from, values).expect("rows accepted");
            }
        }
        replica.shard_step().expect("step 2 with every row in");
    }
    let blocks: Vec<(Vec<f32>, bool)> = replicas
        .iter()
        .map(|r| {
            let (block, within) = r.step_block().expect("a block after step 2");
            (block.to_vec(), within)
        })
        .collect();
    for (s, replica) in replicas.iter_mut().enumerate() {
        for (from, (block, within)) in blocks.iter().enumerate().rev() {
            if from != s {
                replica
                    .receive_step(from, block, *within)
                    .expect("block accepted");
            }
        }
    }
    replicas
        .iter_mut()
        .map(|r| r.finish_shared_update())
        .collect()
}

/// Runs `updates` updates on `one` alone and shared by `count` replicas of `make()`,
/// asserting after each that every replica's state, result and gradient are `one`'s, bit
/// for bit (g_W assembled from each replica's own rows: the only rows it computes).
pub fn assert_shared_like_one(make: &dyn Fn() -> BatchTrainer, count: usize, updates: u64) {
    let mut one = make();
    let mut replicas: Vec<BatchTrainer> = (0..count).map(|_| make()).collect();
    for u in 0..updates {
        let alone = one.update();
        let shared = shared_update(&mut replicas);
        let nh = one.rbm().hidden();
        let nv = one.rbm().visible();
        for (s, (replica, result)) in replicas.iter().zip(&shared).enumerate() {
            let what = format!("replica {s} of {count}, update {}", u + 1);
            assert_eq!(result, &alone, "{what}: result");
            assert!(replica.state() == one.state(), "{what}: state differs");
            let (g_w, g_a, g_b) = replica.gradient();
            let (w, a, b) = one.gradient();
            let units = Shard::new(s, count).unwrap().part(nv);
            let block = units.start * nh..units.end * nh;
            assert!(g_w[block.clone()] == w[block], "{what}: rows of g_W");
            assert!(g_a == a && g_b == b, "{what}: g_a, g_b");
        }
    }
}
