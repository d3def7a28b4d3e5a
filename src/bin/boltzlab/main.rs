//! `boltzlab`: the command-line face of the engine. Every number the page shows can be
//! reproduced here. Human-readable text by default, one JSON object with `--json`;
//! observables are reported as `{"mean": x, "stderr": e}`.

mod args;
mod exact;
mod images;
mod ising;
mod learn;
mod learn_full;
mod learn_labels;
mod learn_rbm;
mod logz;
mod memory;
mod reproduce;
mod reproduce_sm2008;
mod score;
mod trainer;

use std::process::ExitCode;

const USAGE: &str = "\
boltzlab: an interactive laboratory for Ising models and Boltzmann machines

USAGE:
  boltzlab ising --size L [--height H] --temperature T [--field h] [--coupling J]
                 [--dynamics heat-bath|metropolis|wolff]
                 [--order sequential|random|checkerboard]
                 [--boundary periodic|open|fixed-up|fixed-down]
                 [--sweeps N] [--burn-in N] [--seed S] [--json]
      Sample an L×H Ising lattice; report E/N, M/N, |M|/N, c and χ per spin with error
      bars from each series' autocorrelation time τ (in sweeps; c and χ by a jackknife
      over blocks of at least 4τ), and whether the run was long enough: with fewer than
      100 τ of its slowest observable measured, every estimate says \"converged\": false
      (marked * in the text) and its error bar is a lower bound (defaults: H = L, h = 0,
      J = 1, heat-bath, sequential, periodic, 10000 sweeps after 1000 burn-in sweeps,
      seed 1). With Wolff, a 'sweep' is a fixed
      number of cluster moves flipping about N spins on average (fixed after burn-in).
      At T = 0, c and χ are 0 ± 0 once the run has settled; if the sampled values still
      vary, β²N·Var overflows and the temperature is refused.
  boltzlab exact --size L [--height H] --temperature T [--field h] [--coupling J]
                 [--boundary periodic|open|fixed-up|fixed-down] [--kaufman] [--json]
      Exact values for an L×H lattice by enumerating all 2^N states (N ≤ 30): log_z,
      energy_per_spin, abs_magnetization_per_spin, specific_heat_per_spin. With
      --kaufman: log_z, energy_per_spin and specific_heat_per_spin from Kaufman's formula,
      for a periodic lattice of any size (J = 1, h = 0, 0.35 ≤ T ≤ 5000, where it is good
      to 1e-8; other temperatures are refused).
  boltzlab logz --network FILE --temperature T --method exact|ais|mean-field|sampled
                [--runs M] [--steps K] [--schedule page|salakhutdinov-murray]
                [--sweeps N] [--seed S] [--json]
      ln Z = ln Σ_s e^{−E(s)/T} of a network JSON file ({\"units\": n, \"spin\":
      \"ising\"|\"binary\", \"weights\": [[…]], \"biases\": […]}, as the page exports it):
      exact by enumeration (n ≤ 30); ais, annealed importance sampling with a standard
      error (M runs, default 100, of K linear-in-β steps, default 1000); mean-field, −F/T
      at the better of an annealed and a direct solution (a lower bound); sampled, the
      distinct states visited by N heat-bath sweeps (default 10000; a lower bound). Seed
      default 1. Prints log_z, stderr (ais), bound, the method's facts and seconds.
      A bipartite network (its units split into two groups with no connection inside
      either, as a saved RBM) is a restricted machine: exact sums the larger group out in
      closed form and enumerates the smaller (≤ 25 units, any n, on every core), and ais
      (without --steps) anneals with one group summed out from the uniform base on the
      page's schedule (1450 steps) or Salakhutdinov & Murray's (--schedule
      salakhutdinov-murray, 14500 steps); the JSON says \"bipartite\": true. That route
      needs the machine's parameters (4w/T for ±1 units, w/T for 0/1, and the biases)
      within ±10⁶: beyond, exact enumerates all 2^n states (n ≤ 30; a larger network is
      refused with the least T that fits) and ais (without --schedule) runs the general
      AIS, with \"bipartite\": false.
  boltzlab learn --problem 4-2-4|4-3-4|8-3-8|40-10-40|bars-3x3|bars-4x4|pixels-10
                 [--method stochastic|mean-field] [--runs N] [--max-cycles C] [--seed S]
                 [--threads K] [--verbose] [--json]
      Seeded runs (seeds S, S+1, …; defaults: stochastic, 10 runs, seed 1, the problem's
      cycle limit) of the problem's learning protocol (see the learn::experiment docs):
      runs, solved, median_cycles (cycles to solution over the solved runs),
      max_cycles_seen (the longest of them), seconds (wall clock), and the mean final
      exact KL(data ‖ model) for networks of at most 24 units. Encoders use the paper's
      protocol and stop when solved; bars-3x3, bars-4x4 and pixels-10 run to the limit
      (500 cycles), solved once the training vectors are the most probable visible
      vectors. Runs are spread over K threads; the results do not depend on K.
  boltzlab reproduce ackley1985 [--problems 4-2-4,4-3-4,8-3-8,40-10-40]
                 [--methods stochastic,mean-field] [--runs N] [--max-cycles C] [--seed S]
                 [--threads K] [--free-phase nothing|inputs] [--settlings N] [--collect C]
                 [--code-reading settle|weights|both]
                 [--test-anneal doubled|collection-doubled|stepped]
                 [--update sign|gradient:RATE] [--mean-field-units binary|ising]
                 [--probes random|permutation|typewriter] [--collect-at time-unit|probe|end]
                 [--noisy-copy settling|vector] [--statistics sampled|exact]
                 [--initial-weights A] [--verbose] [--json]
      The encoder results of Ackley, Hinton & Sejnowski (1985) beside ours with the
      paper's protocol (250 runs of 4-2-4, 200 of 4-3-4, 20 of 8-3-8 for 4000 cycles, one
      40-10-40 run of 1800 cycles), and the mean-field machine on the same problems with
      its speed-up. --runs and --max-cycles override the paper's numbers for a quick try.
      Details the paper leaves open: --code-reading (codes by settling, from the weights'
      signed fields, or both side by side), --test-anneal (three readings of the
      40-10-40 test anneal), and for the stochastic machine --probes (a time unit's n
      probes: random with replacement, the default, or a random permutation),
      --collect-at (a state per collection time unit, the default, after every probe, or
      only at the end of the settling) and --noisy-copy (a fresh noisy copy per settling,
      the default, or one per vector shared by its settlings). Departures from the paper, printed as VARIANT: --free-phase
      inputs (V1 clamped in the free phase), --settlings N per training vector (paper: 2,
      1 for 40-10-40), --collect C time units of statistics (paper: 10), --update
      gradient:RATE, --mean-field-units (P&A: ising), --probes typewriter (index order,
      not random), --initial-weights A (weights from U[−A, A]; paper: 0), and the
      experiment --statistics exact (the stochastic machine's statistics computed by
      enumeration instead of sampled: 4-2-4, 4-3-4, 8-3-8; needs --initial-weights > 0 to
      break the hidden units' symmetry).
  boltzlab learn --machine full [--dataset pixels-10|4-2-4|4-3-4|8-3-8|bars-3x3|bars-4x4]
                 [--statistics anneal|persistent|persistent-free|mean-field-persistent|tempering]
                 [--particles K] [--gibbs-steps k] [--replicas R] [--hidden H] [--rate ε]
                 [--momentum μ] [--updates N] [--seed S] [--save FILE] [--json]
      The general stochastic machine (0/1 units, from zero weights) with the problem's
      protocol (see boltzlab learn --problem) and a way of getting the statistics: anneal
      (the paper's, default); persistent (one warm-started chain per training vector in
      the clamped phase, K fantasy particles in the free phase, k sweeps each per cycle;
      defaults K = 20, k = 1); persistent-free (annealed clamped phase); mean-field-
      persistent (damped mean-field clamped phase from q = ½); tempering (as persistent,
      each fantasy particle a ladder of R chains at T/(1 − r/R) that swap states; default
      R = 4). --rate switches to the
      gradient rule with step ε; --hidden adds hidden units to pixels-10 or bars; N cycles
      (default: the protocol's limit). Reports the exact train NLL per pattern (and, for
      an encoder, whether it is solved); --save writes the network JSON.
  boltzlab learn --machine rbm [--dataset bars-4x4|digits8|mnist] [--data FILE]
                 [--train-subset N] [--test-subset N] [--hidden H]
                 [--statistics persistent|cd|tempering] [--particles K] [--gibbs-steps k]
                 [--replicas R] [--batch B] [--rate ε] [--momentum μ] [--weight-decay λ]
                 [--decay linear|none] [--updates N] [--every N] [--seed S] [--save FILE]
                 [--threads K] [--f64] [--json]
      A restricted machine (0/1 units) trained from W ~ N(0, 0.01²) and base-rate visible
      biases (defaults: bars-4x4, 16 hidden, persistent, 100 particles, k = 1, 4 replicas,
      full batch for bars and 100 otherwise, ε = 0.02, μ = 0.5, λ = 0, linear decay to 0
      over N updates, N = 50000 for bars and 15000 otherwise, seed 1): exact train NLL per
      pattern and test log-likelihood per image (AIS if both layers exceed 25 units), with
      the curve every N updates if --every is given. --save writes the network JSON (at
      most 2048 units: pixels + H). --dataset mnist reads the packed MNIST file
      data/mnist/mnist.bin (60000 training and 10000 test images of 28×28, binarized as
      Salakhutdinov & Murray 2008), or the packed file --data names. --data FILE alone
      learns any packed file (its training and test sets) or text image file: one image
      per line of 0/1 characters, all the same length, each optionally followed by a space
      and a label 0-9 (blank lines and lines starting with # are skipped; no test set).
      --train-subset N and --test-subset N keep the first N images of a file's sets
      (--test-subset only for a file with a test set, a packed file).
      MNIST and files learn with the f32 batch trainer on K threads (default: the cores),
      bars and digits (and --f64) with the f64 one, an independent implementation of the
      same rule (--threads is refused with it). --particles applies to persistent chains
      and tempering, --replicas to tempering only: either is refused where it does not
      apply. JSON adds train_images, test_images, trainer (f32 or f64) and threads.
  boltzlab learn --machine rbm --labels [--dataset mnist|digits8] [--data FILE]
                 [--train-subset N] [--test-subset N] [--hidden H] [--statistics cd|persistent]
                 [--particles K] [--gibbs-steps k] [--batch B] [--rate ε] [--momentum μ]
                 [--final-momentum μ′] [--momentum-epochs M] [--weight-decay λ]
                 [--epochs E] [--seed S] [--threads K] [--save FILE] [--json]
      A restricted machine over the image and a one-of-10 label group (softmax units)
      beside it, E(v, y, h) = −vᵀWh − yᵀUh − aᵀv − cᵀy − bᵀh, trained on the joint
      (image, label) vectors by the f32 batch trainer (defaults: mnist, 500 hidden, CD-1,
      batch 100, ε = 0.05, μ = 0.5 for M = 5 epochs then μ′ = 0.9, λ = 0, 10 epochs,
      seed 1, K = the cores). After each epoch: the error on the first 10000 training
      images and on the test set, each image classified by argmax_y p(y | v), exactly
      from the ten free energies F(v, y). Ends with the test confusion matrix. --save
      writes the machine's JSON ({\"machine\": \"rbm-labels\", …}). JSON: the options,
      epochs (epoch, updates, training_seconds, seconds, train_error, test_error,
      test_cross_entropy) and test (error, errors, images, cross_entropy, confusion).
  boltzlab classify --model FILE [--dataset mnist|digits8] [--data FILE]
                 [--test-subset N] [--threads K] [--json]
      The test error and confusion matrix (rows the true label) of a machine saved by
      learn --labels --save, on the data's test set.
  boltzlab score --run FILE [--data FILE] [--ais-schedule paper|page|fine] [--ais-runs M]
                 [--seed S] [--threads K] [--json]
      A run the page saved (MNIST, \"Save the run to a file\": a .bzmn file) scored
      natively on the packed file it learned from (default data/mnist/mnist.bin). First
      the page's own point for it, by the page's code, so the same numbers: without
      labels, mean ln p(v) of the first 1000 training and test images (ln Z exact up to
      25 hidden units, else the page's AIS); with labels, the test error on every test
      image and its binomial standard error. Then the mean ln p(v) of all the test
      images (with labels, the label summed out, ln Z over images and labels), ln Z
      exact up to 25 hidden units, else by AIS from the training images' base rates on
      the paper's schedule (14500 steps; page: 1450; fine: 58000) with M runs (default
      100) seeded by S (default 1); with labels also the test confusion matrix. JSON:
      run, hidden, labels, seed, updates, training, page_point, test.
  boltzlab pack-mnist --idx DIR [--out FILE] [--seed S]
      Packs the four MNIST IDX files in DIR (train-images-idx3-ubyte,
      train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte) into FILE
      (default data/mnist/mnist.bin), each pixel on with probability g/255 drawn once from
      seed S (default 2008). scripts/pack_mnist.sh fetches the files, checks their SHA-256
      and runs this (data/mnist/README.md).
  boltzlab reproduce salakhutdinov2008 [--rows ID,…] [--quick] [--threads K] [--epochs E]
                 [--seed S] [--train-subset N] [--test-subset N] [--small H] [--large H]
                 [--rate ε] [--ais-runs M] [--ais-schedule paper,page,fine]
                 [--curve [--checkpoints E1,E2,…] [--anneal-k] [--f64]] [--json]
      The restricted machines of Salakhutdinov & Murray (2008, Table 1) on MNIST, with
      the authors' code's protocol (batch 100, ε = 0.05, weight cost 0.0002, momentum 0.5
      then 0.9 after 5 epochs, W ~ 0.01·N(0, 1), biases 0): rows cd1-25, cd3-25, cd25-25
      (ln Z exact), cd1-500, cd3-500, cd25-500 (ln Z by AIS: 14500 steps, 100 runs, from
      the base-rate model), and beside them pcd-500 (100 persistent particles) and pt-500
      (tempering, 4 replicas at β = 1, ¾, ½, ¼), rate decayed linearly to 0, all for E
      epochs of 600 updates (default 10; the paper's count is unconfirmed). Each row:
      name, hidden, statistics, epochs, updates, test_log_likelihood (nats per image over
      the test images), stderr (AIS; 0 if exact), exact, paper (null where the paper's
      value is not confirmed), seconds. --quick (NOT the paper's protocol): 5 epochs on
      2000 training and 1000 test images, 20 hidden units instead of 25, AIS on a
      1450-step schedule with 20 runs. --small and --large change the 25 and 500 hidden
      units (≤ 25 is exact). --rate replaces ε = 0.05; --ais-runs the 100 runs (20 with
      --quick); --ais-schedule paper (14500 steps), page (1450; the --quick default) or
      fine (the paper's four times finer, 58000), or several, comma-separated. --curve
      trains each row epoch by epoch and scores it after the epochs --checkpoints names
      (default 1, 2, 4, 8, … and E), once per AIS schedule, printing a line per score as
      it comes
      (--json: one JSON object a line: id, name, hidden, epoch, updates, cd_steps, rate,
      test_log_likelihood, stderr, exact, log_z, ais_schedule, ais_steps, ais_runs,
      ais_effective_runs, paper, train_seconds, score_seconds, seconds); the machine at
      epoch E is the one a plain run of E epochs trains. --anneal-k (with --curve, CD
      rows): the authors' rbm.m switch anneal_lr, k = ⌈epoch/10⌉ (capped at the row's k)
      with ε/k. --f64 (with --curve): train in the f64 RbmTrainer instead, an
      independent implementation of the same rule (its own random streams).
      The paper's CD25(500), −86.34, is reached with --rows cd25-500 --epochs 250 --curve
      --anneal-k (at epoch 250: −86.52 ± 0.10 with seed 1; 43 min on two idle cores);
      k = 25 from the start peaks 16.6 nats short.
      docs/salakhutdinov2008.md has the protocol, the table and the curves.
  boltzlab reproduce statistics [--seed S] [--quick] [--json]
      One seeded run per row: bars-4x4 with 16 hidden units by CD-1, CD-10, persistent
      chains and tempering; digits8 with 16 and 20 hidden units by CD-1 and persistent
      chains; the general machine on pixels-10 (no hidden units, and 4) annealed and with
      persistent chains and tempering, and the 4-2-4, 4-3-4 and 8-3-8 encoders by the
      paper's protocol (stopping when solved) annealed, with persistent chains and with
      tempering. --quick runs 1/100 of
      the updates. JSON: {\"rows\": [...]}, each with problem, machine (full|rbm), hidden,
      statistics, train_nll_per_pattern, test_log_likelihood, exact, updates, seconds.
  boltzlab memory [--units N] [--patterns P[,P…]] [--runs R] [--temperature T]
                 [--sweeps S] [--rule hebb|unlearning|boltzmann] [--unlearning-steps K]
                 [--epsilon ε] [--updates U] [--rate η] [--chains C]
                 [--learning-temperature T] [--random-starts K] [--seed S] [--threads K]
                 [--json]
      The capacity of a Hopfield memory of N ±1 units (default 500) holding P random
      patterns (default N/10; a list sweeps α = P/N), stored by Hebb's rule (default), Hebb
      then K unlearning steps of size ε (Hopfield, Feinstein & Palmer 1983; defaults N/2,
      0.01), or the Boltzmann rule with no hidden units (U updates of rate η, free
      statistics from C persistent heat-bath chains at the learning temperature; defaults
      200, 0.1, 20, 1). From each stored pattern the state is recalled by sequential
      ticks: at T = 0 (default) until stable, at T > 0 for S heat-bath sweeps (default
      50; --sweeps is refused at T = 0). Reports overlap (the final m^μ with the starting
      pattern, {mean, stderr} over R runs, default 20; stderr null for one run),
      recalled_fraction (recalls within 1 % of their pattern), and
      from_random (where K random starts per run relax at T = 0, default 10: a stored
      pattern, a reversed one, a three-pattern mixture, other). Runs use seeds S, S+1, …
      (default 1) on K threads (default 2); the results do not depend on K.
  boltzlab help
      This text.
";

/// The learners behind `boltzlab learn`.
enum Learner {
    /// `--labels`: a restricted machine with a label group (learn_labels.rs).
    Labels,
    /// `--machine rbm|full` (learn_rbm.rs, learn_full.rs).
    Machine,
    /// Neither: the 1985 encoders by `--problem` (learn.rs).
    Encoders,
}

/// Which learner `boltzlab learn`'s options ask for, reading them as options and values (so
/// `--save --labels` saves to a file named --labels). An option only the machines take,
/// without `--machine`, is refused with the hint.
fn learner(raw: &[String]) -> Result<Learner, String> {
    const FLAGS: [&str; 5] = ["labels", "json", "verbose", "f64", "quick"];
    const MACHINE_ONLY: [&str; 8] = [
        "dataset",
        "data",
        "hidden",
        "statistics",
        "particles",
        "epochs",
        "updates",
        "save",
    ];
    let (mut labels, mut machine, mut machine_only) = (false, false, None);
    let mut tokens = raw.iter();
    while let Some(token) = tokens.next() {
        match token.strip_prefix("--") {
            Some("labels") => labels = true,
            Some(flag) if FLAGS.contains(&flag) => {}
            Some(option) => {
                machine |= option == "machine";
                if MACHINE_ONLY.contains(&option) {
                    machine_only.get_or_insert(option);
                }
                tokens.next();
            }
            None => {}
        }
    }
    match (labels, machine, machine_only) {
        (true, _, _) => Ok(Learner::Labels),
        (false, true, _) => Ok(Learner::Machine),
        (false, false, Some(option)) => Err(format!(
            "--{option} needs --machine rbm or --machine full (boltzlab learn without \
             --machine learns the 1985 encoders: --problem)"
        )),
        (false, false, None) => Ok(Learner::Encoders),
    }
}

fn main() -> ExitCode {
    let raw: Vec<String> = std::env::args().skip(1).collect();
    let result = match raw.first().map(String::as_str) {
        Some("ising") => ising::ising(&raw[1..]),
        Some("exact") => exact::exact(&raw[1..]),
        Some("logz") => logz::logz(&raw[1..]),
        Some("pack-mnist") => images::pack(&raw[1..]),
        Some("memory") => memory::memory(&raw[1..]),
        Some("learn") => match learner(&raw[1..]) {
            Ok(Learner::Labels) => learn_labels::learn(&raw[1..]),
            Ok(Learner::Machine) => learn_rbm::learn(&raw[1..]),
            Ok(Learner::Encoders) => learn::learn(&raw[1..]),
            Err(e) => Err(e),
        },
        Some("classify") => learn_labels::classify(&raw[1..]),
        Some("score") => score::score(&raw[1..]),
        Some("reproduce") if raw.get(1).is_some_and(|c| c == "statistics") => {
            learn_rbm::reproduce(&raw[2..])
        }
        Some("reproduce") => reproduce::reproduce(&raw[1..]),
        Some("help") | Some("--help") | Some("-h") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!(
            "unknown command '{}'; see 'boltzlab help'",
            boltzlab::error::shorten(other)
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("boltzlab: {message}");
            ExitCode::from(2)
        }
    }
}
