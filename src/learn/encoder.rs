//! The encoder tests of Ackley, Hinton & Sejnowski (1985): does the machine give every
//! input its own hidden code, are the codes well spaced, and does the output group
//! reproduce the input?
//!
//! Reading a hidden code ("clamp the input, anneal, read the hidden code"): V1 is clamped
//! to input k (its unit k on, the rest off); V2 and the hidden units are free. The code
//! is the *most probable hidden state*, and it counts only if it holds a majority: its
//! probability must exceed ½. An input whose most probable hidden state has no majority
//! has no code yet (the hidden units are undecided, as they are before learning, when
//! every hidden state is about equally likely).
//! - Sampled: `trials` settlings, each from random free units, annealed by the learning
//!   schedule; the hidden state is recorded after each of the `collect_sweeps`
//!   collection sweeps at the learning temperature. The code is the state recorded most
//!   often, if it was recorded in strictly more than half of the records.
//! - Mean field: one annealed solution with V1 clamped (the learner's settling) gives a
//!   product distribution over the hidden units; its most probable state has bit j on
//!   when q_j > ½, with probability Π_j max(q_j, 1 − q_j), which must exceed ½.
//!
//! Criteria: *solved* when every input has a code and the n codes are all different;
//! *well-spaced* when, moreover, no two codes are one bit apart (minimum Hamming
//! distance ≥ 2; the paper's 4-3-4 goal).
//!
//! The 40-10-40 accuracy test: clamp V1 to each input, `trials` times each, anneal
//! "twice as long at each temperature and ending at half the final learning
//! temperature" — boltzlab reads this as the learning schedule's anneal steps with their
//! sweeps doubled, (T₁, 2s₁), …, (T_k, 2s_k), followed by (T_k/2, 2s_k) — and read V2 at
//! the end: a trial is correct when the matching V2 unit is on and every other V2 unit
//! is off.
//! Two other readings of the test anneal's sentence are [`TestAnneal`] variants, and
//! [`weight_codes`] reads codes from the weights instead of by settling.

use super::Settling;
use super::datasets::Encoder;
use crate::dynamics::{NetworkOrder, NetworkSampler, Rule, Schedule};
use crate::error::{ParamError, whole_in};
use crate::model::Network;

use super::deterministic::{MeanFieldSettings, annealed_solve};

/// Most trials per input: 10 000.
pub const MAX_TRIALS: u64 = 10_000;

/// The hidden code of each input: `None` when the input's most probable hidden state
/// has no majority.
pub type Codes = Vec<Option<Vec<bool>>>;

/// How the codes of an encoder relate to each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct CodeSummary {
    /// Inputs that have a code (a hidden state with a majority).
    pub decided: usize,
    /// Number of different codes among the inputs that have one.
    pub distinct: usize,
    /// The smallest Hamming distance between the codes of two inputs that have codes (0
    /// when two share a code or fewer than two have one).
    pub min_distance: usize,
}

impl CodeSummary {
    /// Every one of the `inputs` inputs has its own code.
    pub fn solved(&self, inputs: usize) -> bool {
        self.decided == inputs && self.distinct == inputs
    }

    /// Solved, and no two codes are one bit apart.
    pub fn well_spaced(&self, inputs: usize) -> bool {
        self.solved(inputs) && self.min_distance >= 2
    }
}

/// Counts inputs with codes, distinct codes and the minimum pairwise Hamming distance.
pub fn summarize(codes: &[Option<Vec<bool>>]) -> CodeSummary {
    let decided: Vec<&Vec<bool>> = codes.iter().flatten().collect();
    let mut distinct = decided.clone();
    distinct.sort();
    distinct.dedup();
    let mut min_distance = usize::MAX;
    for (a, x) in decided.iter().enumerate() {
        for y in &decided[a + 1..] {
            let d = x.iter().zip(y.iter()).filter(|(p, q)| p != q).count();
            min_distance = min_distance.min(d);
        }
    }
    CodeSummary {
        decided: decided.len(),
        distinct: distinct.len(),
        min_distance: if decided.len() < 2 { 0 } else { min_distance },
    }
}

fn check_network(network: &Network, encoder: Encoder) -> Result<(), ParamError> {
    if network.len() != encoder.units() || network.visible() != 2 * encoder.group {
        return Err(ParamError::Invalid {
            field: "network",
            reason: format!(
                "an {}-{}-{} encoder needs {} units of which {} visible, got {} of which {}",
                encoder.group,
                encoder.hidden,
                encoder.group,
                encoder.units(),
                2 * encoder.group,
                network.len(),
                network.visible()
            ),
        });
    }
    Ok(())
}

/// A sampler at rest with V1 clamped to input k.
fn clamp_input(sampler: &mut NetworkSampler, encoder: Encoder, k: usize) {
    let kind = sampler.network().kind();
    sampler.release_all();
    let values: Vec<i8> = encoder.v1().map(|i| kind.value(i == k)).collect();
    let units: Vec<usize> = encoder.v1().collect();
    sampler
        .clamp(&units, &values)
        .expect("V1 units and values are valid");
    sampler.randomize_free_units();
}

/// The checks shared by the sampled tests: the network fits the encoder, the settling is
/// valid, and 1 ≤ trials ≤ [`MAX_TRIALS`].
fn check_test(
    network: &Network,
    encoder: Encoder,
    settling: &Settling,
    trials: u64,
) -> Result<(), ParamError> {
    check_network(network, encoder)?;
    settling.check()?;
    whole_in("trials", trials as f64, 1, MAX_TRIALS)?;
    Ok(())
}

/// The sampler the sampled tests settle: heat-bath random probes at the settling's
/// temperature, from the stream of `seed`.
fn test_sampler(
    network: &Network,
    settling: &Settling,
    seed: u64,
) -> Result<NetworkSampler, ParamError> {
    NetworkSampler::new(
        network.clone(),
        settling.temperature(),
        Rule::HeatBath,
        NetworkOrder::Random,
        seed,
    )
}

/// The hidden code of every input by sampling (see the module docs), `trials` settlings
/// per input (1 ≤ trials ≤ [`MAX_TRIALS`]), heat-bath random probes from the stream of
/// `seed`.
pub fn sampled_codes(
    network: &Network,
    encoder: Encoder,
    settling: &Settling,
    trials: u64,
    seed: u64,
) -> Result<Codes, ParamError> {
    check_test(network, encoder, settling, trials)?;
    if encoder.hidden > 64 {
        return Err(ParamError::OutOfRange {
            field: "hidden",
            value: encoder.hidden as f64,
            min: 0.0,
            max: 64.0,
        });
    }
    let mut sampler = test_sampler(network, settling, seed)?;
    let high = network.kind().high();
    let hidden = encoder.hidden_units();
    let mut codes = Vec::with_capacity(encoder.group);
    let mut records: Vec<u64> = Vec::new();
    for k in 0..encoder.group {
        records.clear();
        for _ in 0..trials {
            clamp_input(&mut sampler, encoder, k);
            settling.anneal.run(&mut sampler);
            sampler
                .set_temperature(settling.temperature())
                .expect("checked");
            for _ in 0..settling.collect_sweeps {
                sampler.sweep();
                let state = sampler.state()[hidden.clone()]
                    .iter()
                    .enumerate()
                    .filter(|&(_, &s)| s == high)
                    .fold(0u64, |index, (j, _)| index | 1 << j);
                records.push(state);
            }
        }
        records.sort_unstable();
        let (mut best, mut best_count) = (0, 0);
        for run in records.chunk_by(|a, b| a == b) {
            if run.len() > best_count {
                (best, best_count) = (run[0], run.len());
            }
        }
        codes.push(
            (2 * best_count > records.len())
                .then(|| (0..encoder.hidden).map(|j| best >> j & 1 == 1).collect()),
        );
    }
    Ok(codes)
}

/// The hidden code of every input by mean field (see the module docs), and how many of
/// the n solves did not converge.
pub fn mean_field_codes(
    network: &Network,
    encoder: Encoder,
    settling: &Settling,
    settings: &MeanFieldSettings,
) -> Result<(Codes, u64), ParamError> {
    check_network(network, encoder)?;
    settling.check()?;
    let kind = network.kind();
    let mut nonconverged = 0;
    let mut codes = Vec::with_capacity(encoder.group);
    for k in 0..encoder.group {
        let clamp: Vec<Option<i8>> = (0..network.len())
            .map(|i| encoder.v1().contains(&i).then(|| kind.value(i == k)))
            .collect();
        let mf = annealed_solve(network, settling, &clamp, None, settings)?;
        nonconverged += u64::from(!mf.converged);
        let q = &mf.probabilities[encoder.hidden_units()];
        let mode: f64 = q.iter().map(|&p| p.max(1.0 - p)).product();
        codes.push((mode > 0.5).then(|| q.iter().map(|&p| p > 0.5).collect()));
    }
    Ok((codes, nonconverged))
}

/// The hidden code of every input read from the weights, not by settling: with V1 and V2
/// both clamped to pattern k ("corresponding units in V1 and V2 support identical
/// patterns in H", p. 158), hidden unit j receives the local field h_j = Σ_i w_ij s_i + θ_j
/// (for 0/1 units h_j = w(V1_k, h_j) + w(V2_k, h_j) + θ_j; the hidden units are not
/// connected to each other, so nothing else enters), and bit j of input k's code is
/// \[h_j > 0\]: the code at zero temperature. An input whose field is exactly 0 on some
/// hidden unit has no code (`None`). Under the sign rule from zero weights every
/// parameter is a multiple of the step, so a decided bit has |h_j| ≥ the step. The paper
/// does not say how it read codes; this is one reading, reported beside
/// [`sampled_codes`].
pub fn weight_codes(network: &Network, encoder: Encoder) -> Result<Codes, ParamError> {
    check_network(network, encoder)?;
    let kind = network.kind();
    let mut state = vec![kind.low(); network.len()];
    Ok((0..encoder.group)
        .map(|k| {
            for (i, unit) in encoder.v1().zip(encoder.v2()).enumerate() {
                state[unit.0] = kind.value(i == k);
                state[unit.1] = kind.value(i == k);
            }
            encoder
                .hidden_units()
                .map(|h| {
                    let field = network.local_field(&state, h);
                    (field != 0.0).then_some(field > 0.0)
                })
                .collect()
        })
        .collect())
}

/// How the 40-10-40 test anneal reads "the schedule spent twice as long at each
/// temperature and went down to half the final temperature of the schedule used during
/// learning" (p. 163). The sentence does not say how the schedule gets from T to T/2,
/// how long it stays at T/2, or whether the collection period is part of "the schedule";
/// each variant is one reading of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestAnneal {
    /// The anneal steps with doubled sweeps, (T₁, 2s₁), …, (T_k, 2s_k), then (T_k/2,
    /// 2s_k): for the paper's settling [20:4, 15:4, 12:4, 10:8, 5:8]. boltzlab's default.
    Doubled,
    /// The collection counted as part of the schedule and doubled too: (T₁, 2s₁), …,
    /// (T_k, 2(s_k + c)), then (T_k/2, 2c) for c collection sweeps: [20:4, 15:4, 12:4,
    /// 10:28, 5:20].
    CollectionDoubled,
    /// The doubled anneal, then a stepped descent at 0.8 T_k, 0.6 T_k, 0.5 T_k with 2s_k
    /// sweeps each: [20:4, 15:4, 12:4, 10:8, 8:8, 6:8, 5:8].
    Stepped,
}

impl TestAnneal {
    /// All readings.
    pub const ALL: [TestAnneal; 3] = [
        TestAnneal::Doubled,
        TestAnneal::CollectionDoubled,
        TestAnneal::Stepped,
    ];

    /// `doubled`, `collection-doubled` or `stepped`.
    pub fn name(self) -> &'static str {
        match self {
            TestAnneal::Doubled => "doubled",
            TestAnneal::CollectionDoubled => "collection-doubled",
            TestAnneal::Stepped => "stepped",
        }
    }

    /// Parses a name; the error names the field `test anneal`.
    pub fn parse(name: &str) -> Result<TestAnneal, ParamError> {
        TestAnneal::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "test anneal",
                value: name.to_string(),
                allowed: "doubled, collection-doubled, stepped",
            })
    }

    /// The test schedule for the learning `settling` (see the variants).
    pub fn schedule(self, settling: &Settling) -> Schedule {
        let mut steps: Vec<(f64, f64)> = settling
            .anneal
            .steps()
            .iter()
            .map(|&(t, s)| (t, 2.0 * s as f64))
            .collect();
        let (t, last) = steps[steps.len() - 1];
        let collect = 2.0 * settling.collect_sweeps as f64;
        match self {
            TestAnneal::Doubled => steps.push((t / 2.0, last)),
            TestAnneal::CollectionDoubled => {
                let n = steps.len();
                steps[n - 1].1 += collect;
                steps.push((t / 2.0, collect));
            }
            TestAnneal::Stepped => {
                steps.extend([0.8, 0.6, 0.5].map(|f| (f * t, last)));
            }
        }
        Schedule::new(&steps).expect("a doubled valid schedule is valid")
    }
}

/// The 40-10-40 test schedule as boltzlab reads it by default ([`TestAnneal::Doubled`]):
/// the anneal steps with doubled sweeps, then the last anneal step's doubled sweeps again
/// at half the learning temperature.
pub fn test_schedule(settling: &Settling) -> Schedule {
    TestAnneal::Doubled.schedule(settling)
}

/// The result of the accuracy test.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Accuracy {
    /// Trials where only the matching V2 unit was on.
    pub correct: u64,
    /// Trials in all: inputs × trials per input.
    pub trials: u64,
}

impl Accuracy {
    /// correct / trials.
    pub fn fraction(&self) -> f64 {
        self.correct as f64 / self.trials as f64
    }
}

/// The paper's 40-10-40 test (see the module docs), sampled: `trials` per input, with
/// boltzlab's default test anneal ([`TestAnneal::Doubled`]).
pub fn sampled_accuracy(
    network: &Network,
    encoder: Encoder,
    settling: &Settling,
    trials: u64,
    seed: u64,
) -> Result<Accuracy, ParamError> {
    sampled_accuracy_with(
        network,
        encoder,
        settling,
        TestAnneal::Doubled,
        trials,
        seed,
    )
}

/// [`sampled_accuracy`] with the test anneal read as `anneal`.
pub fn sampled_accuracy_with(
    network: &Network,
    encoder: Encoder,
    settling: &Settling,
    anneal: TestAnneal,
    trials: u64,
    seed: u64,
) -> Result<Accuracy, ParamError> {
    check_test(network, encoder, settling, trials)?;
    let schedule = anneal.schedule(settling);
    let mut sampler = test_sampler(network, settling, seed)?;
    let high = network.kind().high();
    let mut correct = 0;
    for k in 0..encoder.group {
        for _ in 0..trials {
            clamp_input(&mut sampler, encoder, k);
            schedule.run(&mut sampler);
            let v2 = &sampler.state()[encoder.v2()];
            correct += u64::from(v2.iter().enumerate().all(|(i, &s)| (s == high) == (i == k)));
        }
    }
    Ok(Accuracy {
        correct,
        trials: trials * encoder.group as u64,
    })
}

/// The same test by mean field: one solve per input with V1 clamped, annealed through the
/// test schedule ([`annealed_solve`], ending converged at half the learning
/// temperature); correct when q > ½ for the matching V2 unit only.
/// Returns the accuracy (trials = inputs) and the number of solves that did not converge.
pub fn mean_field_accuracy(
    network: &Network,
    encoder: Encoder,
    settling: &Settling,
    settings: &MeanFieldSettings,
) -> Result<(Accuracy, u64), ParamError> {
    mean_field_accuracy_with(network, encoder, settling, TestAnneal::Doubled, settings)
}

/// [`mean_field_accuracy`] with the test anneal read as `anneal`.
pub fn mean_field_accuracy_with(
    network: &Network,
    encoder: Encoder,
    settling: &Settling,
    anneal: TestAnneal,
    settings: &MeanFieldSettings,
) -> Result<(Accuracy, u64), ParamError> {
    check_network(network, encoder)?;
    settling.check()?;
    let schedule = anneal.schedule(settling);
    let steps = schedule.steps();
    let (last_t, last_s) = steps[steps.len() - 1];
    let test = Settling {
        anneal: Schedule::new(
            &steps[..steps.len() - 1]
                .iter()
                .map(|&(t, s)| (t, s as f64))
                .chain([(last_t, 0.0)])
                .collect::<Vec<_>>(),
        )?,
        collect_sweeps: last_s.max(1),
    };
    let kind = network.kind();
    let (mut correct, mut nonconverged) = (0, 0);
    for k in 0..encoder.group {
        let clamp: Vec<Option<i8>> = (0..network.len())
            .map(|i| encoder.v1().contains(&i).then(|| kind.value(i == k)))
            .collect();
        let mf = annealed_solve(network, &test, &clamp, None, settings)?;
        nonconverged += u64::from(!mf.converged);
        correct += u64::from(
            encoder
                .v2()
                .enumerate()
                .all(|(i, unit)| (mf.probabilities[unit] > 0.5) == (i == k)),
        );
    }
    Ok((
        Accuracy {
            correct,
            trials: encoder.group as u64,
        },
        nonconverged,
    ))
}

/// Most units [`exact_statistics`] enumerates in one group (2^16 states).
pub const EXACT_GROUP_LIMIT: usize = 16;

/// The moments of one group G of 0/1 units with every other unit fixed (the exact
/// statistics of [`exact_statistics`]): P(g) ∝ exp(−E(g)/T) with
/// E(g) = −Σ_{i<k∈G} w_ik g_i g_k − Σ_{i∈G} f_i g_i, f_i = θ_i + Σ_{j∉G} w_ij s_j,
/// by enumerating the 2^|G| states. `log_z` = ln Σ_g exp(−E(g)/T); `means[a]` = E[g_a];
/// `pairs[a·|G| + b]` = E[g_a g_b].
struct GroupMoments {
    log_z: f64,
    means: Vec<f64>,
    pairs: Vec<f64>,
}

fn group_moments(
    network: &Network,
    temperature: f64,
    state: &[i8],
    group: &[usize],
) -> GroupMoments {
    let inside = |j: usize| group.contains(&j);
    let fields: Vec<f64> = group
        .iter()
        .map(|&i| {
            network.bias(i)
                + (0..network.len())
                    .filter(|&j| j != i && !inside(j) && state[j] != 0)
                    .map(|j| network.weight(i, j))
                    .sum::<f64>()
        })
        .collect();
    moments_of_fields(network, temperature, group, &fields)
}

/// [`group_moments`] given the group's outside fields f_i.
fn moments_of_fields(
    network: &Network,
    temperature: f64,
    group: &[usize],
    fields: &[f64],
) -> GroupMoments {
    let m = group.len();
    let exponents: Vec<f64> = (0..1usize << m)
        .map(|g| {
            let mut e = 0.0;
            for a in (0..m).filter(|a| g >> a & 1 == 1) {
                e += fields[a];
                for b in (a + 1..m).filter(|b| g >> b & 1 == 1) {
                    e += network.weight(group[a], group[b]);
                }
            }
            e / temperature
        })
        .collect();
    let top = exponents.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = exponents.iter().map(|x| libm::exp(x - top)).collect();
    let z: f64 = weights.iter().sum();
    let (mut means, mut pairs) = (vec![0.0; m], vec![0.0; m * m]);
    for (g, w) in weights.iter().enumerate() {
        let p = w / z;
        for a in (0..m).filter(|a| g >> a & 1 == 1) {
            means[a] += p;
            for b in (0..m).filter(|b| g >> b & 1 == 1) {
                pairs[a * m + b] += p;
            }
        }
    }
    GroupMoments {
        log_z: top + libm::log(z),
        means,
        pairs,
    }
}

/// The exact clamped and free statistics of an encoder with 0/1 units at temperature T,
/// in place of sampled ones, so that sampling noise can be told apart from the sign rule.
///
/// Clamped: p_i, p_ij = (1/K) Σ_k Σ_v P(v | k) E[s_i s_j | v], over the K training
/// vectors and every visible vector v their noisy clamping can give, P(v | k) = Π_i q_i
/// with q_i = 1 − on→off for an on bit and off→on for an off bit (vectors with P = 0
/// skipped).
/// Given v the hidden units are independent (no hidden–hidden weights):
/// E[h_j | v] = σ(f_j/T); the sum over v runs over V1's and V2's noisy copies separately
/// (they are independent) with the fields f_j = θ_j + a_j(v1) + b_j(v2).
/// Free: nothing clamped; the encoder's wiring (no V1–V2 weights) makes V1 and V2
/// independent given the hidden state h, so P(h) ∝ exp(−E_H(h)/T) Z₁(h) Z₂(h) and every
/// moment is Σ_h P(h) times the groups' conditional moments.
/// Needs binary units, the encoder's wiring and groups of at most
/// [`EXACT_GROUP_LIMIT`] units (checked).
pub fn exact_statistics(
    network: &Network,
    encoder: Encoder,
    temperature: f64,
    patterns: &[Vec<u8>],
    noise: super::ClampNoise,
) -> Result<(super::PhaseStatistics, super::PhaseStatistics), ParamError> {
    check_network(network, encoder)?;
    if network.kind() != crate::model::SpinKind::Binary {
        return Err(ParamError::Invalid {
            field: "exact statistics",
            reason: "need 0/1 units".into(),
        });
    }
    if 2 * encoder.group > EXACT_GROUP_LIMIT || encoder.hidden > EXACT_GROUP_LIMIT {
        return Err(ParamError::Invalid {
            field: "exact statistics",
            reason: format!("groups of at most {EXACT_GROUP_LIMIT} units can be enumerated"),
        });
    }
    let n = network.len();
    if encoder
        .v1()
        .any(|i| encoder.v2().any(|k| network.weight(i, k) != 0.0))
    {
        return Err(ParamError::Invalid {
            field: "exact statistics",
            reason: "need the encoder's wiring (no V1–V2 weights)".into(),
        });
    }
    if encoder
        .hidden_units()
        .any(|j| encoder.hidden_units().any(|k| network.weight(j, k) != 0.0))
    {
        return Err(ParamError::Invalid {
            field: "exact statistics",
            reason: "need the encoder's wiring (no hidden–hidden weights)".into(),
        });
    }
    let visible: Vec<usize> = encoder.v1().chain(encoder.v2()).collect();
    let hidden: Vec<usize> = encoder.hidden_units().collect();
    let (v1, v2): (Vec<usize>, Vec<usize>) = (encoder.v1().collect(), encoder.v2().collect());
    let pair = |i: usize, j: usize| crate::model::network::pair_index(n, i, j);
    let mut clamped = super::PhaseStatistics::empty(n);
    let share = 1.0 / patterns.len() as f64;
    let hn = hidden.len();
    for pattern in patterns {
        let q: Vec<f64> = pattern
            .iter()
            .map(|&b| {
                if b == 1 {
                    1.0 - noise.on_to_off
                } else {
                    noise.off_to_on
                }
            })
            .collect();
        // The visible bits are independent: p_i = q_i, p_ik = q_i q_k.
        for (a, &i) in visible.iter().enumerate() {
            clamped.means[i] += share * q[a];
            for (b, &k) in visible.iter().enumerate().skip(a + 1) {
                clamped.pairs[pair(i, k)] += share * q[a] * q[b];
            }
        }
        // Each half's noisy copies with their probabilities and fields on the hidden units.
        let half = |units: &[usize]| -> Vec<(f64, usize, Vec<f64>)> {
            (0..1usize << units.len())
                .filter_map(|x| {
                    let p: f64 = units
                        .iter()
                        .enumerate()
                        .map(|(a, &i)| if x >> a & 1 == 1 { q[i] } else { 1.0 - q[i] })
                        .product();
                    (p > 0.0).then(|| {
                        let f = hidden
                            .iter()
                            .map(|&j| {
                                units
                                    .iter()
                                    .enumerate()
                                    .filter(|&(a, _)| x >> a & 1 == 1)
                                    .map(|(_, &i)| network.weight(i, j))
                                    .sum()
                            })
                            .collect();
                        (p, x, f)
                    })
                })
                .collect()
        };
        let (h1, h2) = (half(&v1), half(&v2));
        // s1[a][j] = Σ_b P(v2_b) E[h_j | v1_a, v2_b], and s2 the other way round.
        let mut s1 = vec![vec![0.0; hn]; h1.len()];
        let mut s2 = vec![vec![0.0; hn]; h2.len()];
        let mut fields = vec![0.0; hn];
        for (a, (p1, _, f1)) in h1.iter().enumerate() {
            for (b, (p2, _, f2)) in h2.iter().enumerate() {
                for (j, &unit) in hidden.iter().enumerate() {
                    fields[j] = network.bias(unit) + f1[j] + f2[j];
                }
                // The encoder's hidden units are unconnected, so independent given v:
                // E[h_j | v] = σ(f_j/T), E[h_j h_k | v] = σ_j σ_k.
                for f in fields.iter_mut() {
                    *f = 1.0 / (1.0 + libm::exp(-*f / temperature));
                }
                let w = share * p1 * p2;
                for j in 0..hn {
                    clamped.means[hidden[j]] += w * fields[j];
                    for k in j + 1..hn {
                        clamped.pairs[pair(hidden[j], hidden[k])] += w * fields[j] * fields[k];
                    }
                    s1[a][j] += share * p2 * fields[j];
                    s2[b][j] += share * p1 * fields[j];
                }
            }
        }
        for (halves, sums, units) in [(&h1, &s1, &v1), (&h2, &s2, &v2)] {
            for ((p, x, _), sum) in halves.iter().zip(sums) {
                for (_, &i) in units.iter().enumerate().filter(|&(a, _)| x >> a & 1 == 1) {
                    for (j, &unit) in hidden.iter().enumerate() {
                        clamped.pairs[pair(i, unit)] += p * sum[j];
                    }
                }
            }
        }
    }
    let mut free = super::PhaseStatistics::empty(n);
    let mut state = vec![0i8; n];
    let mut terms = Vec::with_capacity(1 << hidden.len());
    for g in 0..1usize << hidden.len() {
        for (a, &j) in hidden.iter().enumerate() {
            state[j] = (g >> a & 1) as i8;
        }
        let mut exponent = 0.0;
        for (a, &j) in hidden.iter().enumerate().filter(|&(a, _)| g >> a & 1 == 1) {
            exponent += network.bias(j);
            for &k in hidden.iter().skip(a + 1).filter(|&&k| state[k] == 1) {
                exponent += network.weight(j, k);
            }
        }
        let m1 = group_moments(network, temperature, &state, &v1);
        let m2 = group_moments(network, temperature, &state, &v2);
        terms.push((
            exponent / temperature + m1.log_z + m2.log_z,
            m1,
            m2,
            state.clone(),
        ));
    }
    let top = terms.iter().map(|t| t.0).fold(f64::NEG_INFINITY, f64::max);
    let z: f64 = terms.iter().map(|t| libm::exp(t.0 - top)).sum();
    let g = encoder.group;
    for (log_w, m1, m2, s) in &terms {
        let p = libm::exp(log_w - top) / z;
        for (a, &j) in hidden.iter().enumerate() {
            if s[j] == 0 {
                continue;
            }
            free.means[j] += p;
            for &k in hidden.iter().skip(a + 1).filter(|&&k| s[k] == 1) {
                free.pairs[pair(j, k)] += p;
            }
        }
        for (group, m) in [(&v1, m1), (&v2, m2)] {
            for (a, &i) in group.iter().enumerate() {
                free.means[i] += p * m.means[a];
                for (b, &k) in group.iter().enumerate().skip(a + 1) {
                    free.pairs[pair(i, k)] += p * m.pairs[a * g + b];
                }
                for &j in hidden.iter().filter(|&&j| s[j] == 1) {
                    free.pairs[pair(i, j)] += p * m.means[a];
                }
            }
        }
        // V1 and V2 are independent given h.
        for (a, &i) in v1.iter().enumerate() {
            for (b, &k) in v2.iter().enumerate() {
                free.pairs[pair(i, k)] += p * m1.means[a] * m2.means[b];
            }
        }
    }
    clamped.samples = 1;
    free.samples = 1;
    Ok((clamped, free))
}

/// The codes by exact enumeration: V1 clamped to input k, V2 and the hidden units
/// summed over exactly, P(h | V1 = k) ∝ exp(Σ_j h_j f_j / T + Σ_{j<l} w_jl h_j h_l / T) Z₂(h)
/// with f_j = θ_j + Σ_{i∈V1} w_ij v_i; the code is the most probable h, decided when its
/// probability exceeds ½ (the settling reading's majority rule without its sampling).
pub fn exact_codes(
    network: &Network,
    encoder: Encoder,
    temperature: f64,
) -> Result<Codes, ParamError> {
    check_network(network, encoder)?;
    let n = network.len();
    let hidden: Vec<usize> = encoder.hidden_units().collect();
    let v2: Vec<usize> = encoder.v2().collect();
    let mut codes = Vec::with_capacity(encoder.group);
    for k in 0..encoder.group {
        let mut state = vec![0i8; n];
        state[encoder.v1().start + k] = 1;
        let mut logs = Vec::with_capacity(1 << hidden.len());
        for g in 0..1usize << hidden.len() {
            for (a, &j) in hidden.iter().enumerate() {
                state[j] = (g >> a & 1) as i8;
            }
            let mut exponent = 0.0;
            for (a, &j) in hidden.iter().enumerate().filter(|&(a, _)| g >> a & 1 == 1) {
                exponent += network.bias(j) + network.weight(j, encoder.v1().start + k);
                for &l in hidden.iter().skip(a + 1).filter(|&&l| state[l] == 1) {
                    exponent += network.weight(j, l);
                }
            }
            logs.push(
                exponent / temperature + group_moments(network, temperature, &state, &v2).log_z,
            );
        }
        let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = logs.iter().map(|x| libm::exp(x - top)).sum();
        let (best, log_best) =
            logs.iter()
                .copied()
                .enumerate()
                .fold(
                    (0, f64::NEG_INFINITY),
                    |b, (g, x)| if x > b.1 { (g, x) } else { b },
                );
        codes.push(
            (libm::exp(log_best - top) / z > 0.5)
                .then(|| (0..hidden.len()).map(|a| best >> a & 1 == 1).collect()),
        );
    }
    Ok(codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_count_codes_and_distances() {
        let b = |s: &str| Some(s.bytes().map(|c| c == b'1').collect::<Vec<bool>>());
        let even = [b("000"), b("011"), b("101"), b("110")];
        let s = summarize(&even);
        assert_eq!((s.decided, s.distinct, s.min_distance), (4, 4, 2));
        assert!(s.well_spaced(4));
        let close = [b("000"), b("001"), b("011"), b("111")];
        let s = summarize(&close);
        assert!(s.solved(4) && !s.well_spaced(4));
        let shared = [b("00"), b("01"), b("01"), b("11")];
        let s = summarize(&shared);
        assert_eq!((s.distinct, s.min_distance), (3, 0));
        assert!(!s.solved(4));
        let undecided = [b("00"), b("01"), None, b("11")];
        let s = summarize(&undecided);
        assert_eq!((s.decided, s.distinct, s.min_distance), (3, 3, 1));
        assert!(!s.solved(4));
    }

    #[test]
    fn the_test_schedule_doubles_and_ends_at_half_the_temperature() {
        let s = test_schedule(&Settling::ackley1985());
        assert_eq!(
            s.steps(),
            &[(20.0, 4), (15.0, 4), (12.0, 4), (10.0, 8), (5.0, 8)]
        );
    }
}
