//! The dense f32 products and the f32 batch trainer: every kernel against an f64 product
//! within Higham's rounding bound, the elementwise functions against f64 maths, and the
//! batch trainer's gradient and sampling against direct f64 computations.

// Reference values in std's maths: no engine number depends on them (clippy.toml).
#![allow(clippy::disallowed_methods)]

mod common;
mod linalg_checks;

use boltzlab::learn::rbm::{BatchTrainer, Rbm, Statistics, TrainingOptions};
use boltzlab::linalg::elementwise::{exp, sample_below, sigmoid};
use boltzlab::linalg::{Kernel, Layout, Product, multiply_with};
use boltzlab::rng::seeded_rng;
use common::{chi_square_threshold, pearson_chi_square};
use linalg_checks::{
    LAYOUTS, check_gradient, check_product, mnist_sized_products, options, values,
};
use rand::Rng;

/// The level this run's kernels are at is the one the run is for, when it says
/// (`BOLTZLAB_EXPECT_LEVEL=avx2`: `make test-native-avx2`, under valgrind, whose processor has
/// AVX2 and FMA but not AVX-512, so `gemm` takes its AVX2+FMA kernels and the elementwise
/// loops their AVX2 ones). Without this check, a valgrind that learned AVX-512 would test the
/// widest level a second time and pass, saying nothing of AVX2.
#[test]
fn the_kernels_run_at_the_level_the_run_is_for() {
    use boltzlab::linalg::elementwise::{Level, best_level, levels};
    let best = best_level();
    println!("SIMD level of this run: {best:?}");
    match std::env::var("BOLTZLAB_EXPECT_LEVEL").as_deref() {
        Ok("avx2") => {
            assert_eq!(best, Level::Avx2, "this run is for the AVX2 kernels");
            #[cfg(target_arch = "x86_64")]
            assert!(
                std::arch::is_x86_feature_detected!("fma"),
                "gemm's AVX2 kernels need FMA"
            );
        }
        Ok(other) => {
            panic!("BOLTZLAB_EXPECT_LEVEL: avx2 is the one level a run asks for, not {other}")
        }
        Err(_) => assert_eq!(Some(&best), levels().last()),
    }
}

#[test]
fn every_kernel_agrees_with_an_f64_product_within_the_rounding_bound_on_odd_shapes() {
    let shapes = [
        (1, 1, 1),
        (3, 5, 7),
        (2, 1, 9),
        (97, 131, 33),
        (33, 17, 131),
    ];
    let scalars = [(1.0, 0.0), (-0.01, 1.0), (0.5, -2.0)];
    let mut seed = 10;
    for (m, k, n) in shapes {
        for (a, b) in LAYOUTS {
            for (alpha, beta) in scalars {
                for (kernel, threads) in
                    [(Kernel::Reference, 1), (Kernel::Fast, 1), (Kernel::Fast, 2)]
                {
                    let product = Product::new(m, k, n, a, b).scaled(alpha, beta);
                    check_product(kernel, threads, product, seed);
                    seed += 3;
                }
            }
        }
    }
}

#[test]
fn the_fast_kernel_agrees_on_the_shapes_of_a_784_500_update_batch_100() {
    // The five products of CD-1 on 784-500, batch 100: V W, H Wᵀ, Vᵀ P (the last in its
    // accumulating form, α = −1/100, β = 1).
    let [(_, nn), (_, nt), (_, tn)] = mnist_sized_products();
    for (product, threads) in [(nn, 2), (nt, 2), (tn.scaled(-0.01, 1.0), 1)] {
        check_product(Kernel::Fast, threads, product, 77);
    }
}

#[test]
fn one_and_two_threads_give_the_same_bits() {
    // gemm splits C between threads, not the sums over k: each entry is summed alike.
    for (m, k, n) in [(100, 784, 500), (97, 131, 33)] {
        for (a, b) in LAYOUTS {
            let product = Product::new(m, k, n, a, b).scaled(0.3, 1.0);
            let x = values(m * k, 5);
            let y = values(k * n, 6);
            let mut one = values(m * n, 7);
            let mut two = one.clone();
            multiply_with(Kernel::Fast, &mut one, &x, &y, &product, 1);
            multiply_with(Kernel::Fast, &mut two, &x, &y, &product, 2);
            assert!(
                one.iter()
                    .zip(&two)
                    .all(|(p, q)| p.to_bits() == q.to_bits()),
                "{product:?}"
            );
        }
    }
}

#[test]
fn with_beta_zero_the_old_c_is_never_read() {
    let product = Product::new(7, 9, 11, Layout::AsStored, Layout::AsStored);
    for kernel in [Kernel::Reference, Kernel::Fast] {
        let mut c = vec![f32::NAN; 77];
        multiply_with(kernel, &mut c, &values(63, 1), &values(99, 2), &product, 1);
        assert!(c.iter().all(|x| x.is_finite()), "{kernel:?}");
    }
}

#[test]
fn f32_exp_and_sigmoid_are_within_a_few_ulp_of_f64_maths() {
    // Every 97th f32 in [−87, 88]; ulp measured relative to the true value's f32 spacing.
    let ulp = |x: f64| f64::from(f32::EPSILON) * x.abs();
    let mut x = -87.0f32;
    let (mut worst_exp, mut worst_sigmoid) = (0.0f64, 0.0f64);
    while x <= 88.0 {
        let e = f64::from(x).exp();
        worst_exp = worst_exp.max((f64::from(exp(x)) - e).abs() / ulp(e));
        let s = 1.0 / (1.0 + (-f64::from(x)).exp());
        worst_sigmoid = worst_sigmoid.max((f64::from(sigmoid(x)) - s).abs() / ulp(s));
        x = f32::from_bits(
            x.to_bits()
                .wrapping_add(if x < 0.0 { -97i32 as u32 } else { 97 }),
        );
        if x.is_nan() || (x < 0.0 && x > -1e-30) {
            x = 1e-30;
        }
    }
    assert!(worst_exp <= 2.0, "exp: {worst_exp} ulp");
    assert!(worst_sigmoid <= 3.0, "sigmoid: {worst_sigmoid} ulp");
    // Far out the input is clamped to [−87, 88]: σ stays finite, positive and below 1.
    assert_eq!(sigmoid(-1000.0), 1.0 / (1.0 + exp(88.0)));
    assert!(sigmoid(-1000.0) > 0.0 && sigmoid(-1000.0) < 1e-38);
    assert_eq!(sigmoid(1000.0), 1.0);
}

#[test]
fn a_sampled_bit_is_on_for_exactly_ceil_p_2_24_of_the_24_bit_uniforms() {
    // Every 24-bit uniform u = (r >> 8)·2⁻²⁴ once: the count with u < p is ⌈p·2²⁴⌉.
    let draws: Vec<u32> = (0..1u32 << 24).map(|r| (r << 8) | (r & 0xff)).collect();
    let mut probabilities = vec![0.0f32; draws.len()];
    let mut bits = vec![0.0f32; draws.len()];
    for p in [0.0f32, 1e-9, 0.1, 0.5, 0.73, 1.0 - 1e-7, 1.0] {
        probabilities.fill(p);
        sample_below(&probabilities, &draws, &mut bits);
        let on = bits.iter().filter(|&&b| b == 1.0).count() as u64;
        let expected = (f64::from(p) * 16_777_216.0).ceil() as u64;
        assert_eq!(on, expected, "p = {p}");
    }
}

fn random_patterns(count: usize, visible: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = seeded_rng(seed);
    (0..count)
        .map(|_| (0..visible).map(|_| (rng.next_u32() >> 31) as u8).collect())
        .collect()
}

#[test]
fn the_batch_gradient_equals_a_direct_f64_computation_for_cd_k_and_persistent_chains() {
    let patterns = random_patterns(23, 9, 1);
    for (statistics, batch) in [
        (Statistics::ContrastiveDivergence { steps: 1 }, 10),
        (Statistics::ContrastiveDivergence { steps: 3 }, 23),
        (
            Statistics::Persistent {
                particles: 7,
                steps: 2,
            },
            10,
        ),
    ] {
        let start = Rbm::random(9, 4, 0.5, 3).unwrap();
        let mut trainer =
            BatchTrainer::new(&start, &patterns, options(statistics, batch, 8), 1).unwrap();
        let before = trainer.rbm();
        trainer.estimate_gradient();
        assert_eq!(trainer.rbm(), before, "estimating changes no parameter");
        let mut trainer =
            BatchTrainer::new(&start, &patterns, options(statistics, batch, 8), 1).unwrap();
        for update in 0..6 {
            // The batches of an epoch: 10, 10, then the short one of 3.
            let rows = if batch == 23 {
                23
            } else {
                [10, 10, 3][update % 3]
            };
            let chains = statistics.chains(rows);
            // The gradient an update used, against the machine before it.
            let rbm = trainer.rbm();
            trainer.update().unwrap();
            check_gradient(&trainer, &rbm, rows, chains);
        }
    }
}

#[test]
fn a_cd_1_chain_lands_on_the_exact_one_step_distribution() {
    // One pattern v₀, batch 1, CD-1: x = the visible state after one block Gibbs step,
    // p(x) = Σ_h p(h | v₀) p(x | h), computed exactly (V = 4, H = 2: 16 states). 40 000
    // independent draws (each update starts a new chain at v₀; estimating changes no
    // parameter); Pearson's χ² at a one-in-a-million threshold.
    let rbm = Rbm::random(4, 2, 1.5, 11).unwrap();
    let v0 = vec![1u8, 0, 1, 1];
    let patterns = vec![v0.clone()];
    let cd1 = options(Statistics::ContrastiveDivergence { steps: 1 }, 1, 12);
    let mut trainer = BatchTrainer::new(&rbm, &patterns, cd1, 1).unwrap();
    let rbm = trainer.rbm(); // the f32-rounded machine the trainer samples
    let sig = |x: f64| 1.0 / (1.0 + (-x).exp());
    let mut exact = vec![0.0; 16];
    for h in 0..4usize {
        let hb = [(h & 1) as f64, (h >> 1) as f64];
        let mut ph = 1.0;
        for (j, &hj) in hb.iter().enumerate() {
            let c = rbm.hidden_biases()[j]
                + (0..4)
                    .map(|i| f64::from(v0[i]) * rbm.weight(i, j))
                    .sum::<f64>();
            ph *= if hj == 1.0 { sig(c) } else { 1.0 - sig(c) };
        }
        for (x, e) in exact.iter_mut().enumerate() {
            let mut px = 1.0;
            for i in 0..4 {
                let a =
                    rbm.visible_biases()[i] + rbm.weight(i, 0) * hb[0] + rbm.weight(i, 1) * hb[1];
                px *= if (x >> i) & 1 == 1 {
                    sig(a)
                } else {
                    1.0 - sig(a)
                };
            }
            *e += ph * px;
        }
    }
    let mut counts = vec![0u64; 16];
    for _ in 0..40_000 {
        trainer.estimate_gradient();
        let x = trainer.chain_visible();
        let state: usize = (0..4).map(|i| (x[i] as usize) << i).sum();
        counts[state] += 1;
    }
    let (chi2, df) = pearson_chi_square(&counts, &exact);
    assert!(chi2 < chi_square_threshold(df), "χ² = {chi2} with {df} dof");
}

#[test]
fn persistent_particles_sample_the_machine_when_it_stands_still() {
    // 2000 particles of a 4-2 machine, 30 block Gibbs steps each (estimating changes no
    // parameter): their visible states against the exact p(v) ∝ e^{−F(v)} (mixing: the
    // weights are ≤ 1.5 in size, the chain forgets its start within a few steps; 30 is far
    // more). χ² at one in a million.
    let rbm = Rbm::random(4, 2, 0.8, 21).unwrap();
    let persistent = options(
        Statistics::Persistent {
            particles: 2000,
            steps: 30,
        },
        1,
        22,
    );
    let mut trainer = BatchTrainer::new(&rbm, &[vec![0, 1, 0, 1]], persistent, 1).unwrap();
    let rbm = trainer.rbm();
    trainer.estimate_gradient();
    let weights: Vec<f64> = (0..16usize)
        .map(|x| {
            let v: Vec<u8> = (0..4).map(|i| ((x >> i) & 1) as u8).collect();
            (-rbm.free_energy(&v)).exp()
        })
        .collect();
    let z: f64 = weights.iter().sum();
    let exact: Vec<f64> = weights.iter().map(|w| w / z).collect();
    let mut counts = vec![0u64; 16];
    for x in trainer.chain_visible().chunks(4) {
        counts[(0..4).map(|i| (x[i] as usize) << i).sum::<usize>()] += 1;
    }
    let (chi2, df) = pearson_chi_square(&counts, &exact);
    assert!(chi2 < chi_square_threshold(df), "χ² = {chi2} with {df} dof");
}

#[test]
fn a_run_gives_the_same_bits_on_one_and_two_threads_and_from_the_same_seed() {
    let patterns = random_patterns(200, 131, 4);
    let start = Rbm::random(131, 97, 0.05, 5).unwrap();
    let cd = options(Statistics::ContrastiveDivergence { steps: 1 }, 33, 6);
    let mut runs = Vec::new();
    for threads in [1, 2, 2] {
        let mut t = BatchTrainer::new(&start, &patterns, cd, threads).unwrap();
        t.run(8).unwrap();
        runs.push(
            t.weights()
                .iter()
                .map(|w| w.to_bits())
                .collect::<Vec<u32>>(),
        );
    }
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[1], runs[2]);
}

#[test]
fn the_batch_trainer_refuses_what_it_cannot_run_with_named_fields() {
    let patterns = random_patterns(10, 6, 1);
    let rbm = Rbm::zeros(6, 3).unwrap();
    let field = |r: Result<BatchTrainer, boltzlab::error::ParamError>| match r {
        Err(e) => e.to_string(),
        Ok(_) => "accepted".into(),
    };
    let cd = options(Statistics::ContrastiveDivergence { steps: 1 }, 5, 1);
    assert!(field(BatchTrainer::new(&rbm, &patterns, cd, 0)).contains("threads"));
    assert!(
        field(BatchTrainer::new(
            &rbm,
            &patterns,
            options(Statistics::ContrastiveDivergence { steps: 1 }, 11, 1),
            1
        ))
        .contains("batch")
    );
    assert!(field(BatchTrainer::new(&rbm, &random_patterns(3, 5, 1), cd, 1)).contains("pattern"));
    let mut t = BatchTrainer::new(&rbm, &patterns, cd, 1).unwrap();
    assert!(t.set_threads(65).is_err());
    assert_eq!(t.threads(), 1);
}

#[test]
fn every_simd_level_of_the_elementwise_loops_gives_the_same_bits() {
    use boltzlab::linalg::elementwise::{
        add_bias_sigmoid_at, add_bias_sigmoid_scaled_at, apply_step_at, levels, momentum_step_at,
        sample_below_at, scaled_sigmoid_at,
    };
    // 1003 values (not a multiple of any width), inputs spread over ±100.
    let n = 1003;
    let x: Vec<f32> = values(n, 31).iter().map(|v| 100.0 * v).collect();
    let bias = values(17, 32);
    let draws: Vec<u32> = {
        let mut rng = seeded_rng(33);
        (0..n).map(|_| rng.next_u32()).collect()
    };
    let (w, g, u) = (values(n, 34), values(n, 35), values(n, 36));
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let mut results = Vec::new();
    for level in levels() {
        let mut p = x[..17 * 59].to_vec();
        add_bias_sigmoid_at(level, &mut p, &bias);
        // The tempered forms: σ(β(x + b)), and σ(β u) of kept inputs.
        let mut tempered = x[..17 * 59].to_vec();
        add_bias_sigmoid_scaled_at(level, &mut tempered, &bias, 0.75);
        let mut kept = vec![0.0; n];
        scaled_sigmoid_at(level, &x, 0.25, &mut kept);
        p.extend_from_slice(&tempered);
        p.extend_from_slice(&kept);
        let mut s = vec![0.0; n];
        sample_below_at(level, &p, &draws, &mut s);
        let mut step = vec![0.0; n];
        let mut ok = [false];
        momentum_step_at(level, &w, &g, &u, &mut step, [0.9, 0.1, 0.01, 1e6], &mut ok);
        let (mut w2, mut u2) = (w.clone(), u.clone());
        apply_step_at(level, &mut w2, &mut u2, &step);
        results.push((level, bits(&p), bits(&s), bits(&step), ok[0], bits(&w2)));
    }
    for r in &results[1..] {
        assert_eq!(
            (&r.1, &r.2, &r.3, r.4, &r.5),
            (
                &results[0].1,
                &results[0].2,
                &results[0].3,
                results[0].4,
                &results[0].5
            ),
            "{:?} differs from the baseline",
            r.0
        );
    }
    eprintln!(
        "levels compared: {:?}",
        results.iter().map(|r| r.0).collect::<Vec<_>>()
    );
}

#[test]
fn a_diverging_update_changes_nothing_and_names_the_weight() {
    // One visible and one hidden unit, W = 10⁶ (the limit), a = −10⁶, data "on", one
    // persistent particle. The clamped phase gives v·p(h | v) = σ(10⁶) = 1; the particle
    // gives x·σ(10⁶ x) = x, and its x is off with probability ≥ ½ after each Gibbs step
    // (h is on with probability ≥ ½, then x ~ σ(−10⁶ + 10⁶ h) is ½ or 0). So g_W = 1 − x > 0
    // and W would pass 10⁶ within a few updates: P(not within 200) ≤ 2⁻²⁰⁰.
    let rbm = Rbm::new(1, 1, vec![1e6], vec![-1e6], vec![0.0]).unwrap();
    let persistent = TrainingOptions {
        rate: 1.0,
        momentum: 0.0,
        weight_decay: 0.0,
        ..options(
            Statistics::Persistent {
                particles: 1,
                steps: 1,
            },
            1,
            3,
        )
    };
    let mut trainer = BatchTrainer::new(&rbm, &[vec![1]], persistent, 1).unwrap();
    let mut error = None;
    for _ in 0..200 {
        let before = trainer.rbm();
        if let Err(e) = trainer.update() {
            assert_eq!(trainer.rbm(), before, "the parameters stay as they were");
            error = Some(e.to_string());
            break;
        }
    }
    let error = error.expect("W passed the limit");
    assert!(error.contains("weight W[0][0]"), "{error}");
    assert_eq!(trainer.update().unwrap_err().to_string(), error);
}

#[test]
fn exp64_has_libms_bits_on_every_input_and_so_does_its_sigmoid_over_a_slice() {
    linalg_checks::check_exp64(&linalg_checks::exp64_inputs());
}

#[test]
fn the_f64_trainer_gives_the_same_bits_at_every_simd_level() {
    // The small images' trainer, whose bits the page (wasm) shares: its loops (σ with
    // libm's bits, the local fields, the statistics) are compiled at each level.
    use boltzlab::learn::rbm::RbmTrainer;
    use boltzlab::linalg::elementwise::levels;
    let patterns = random_patterns(300, 64, 11);
    let mut start = Rbm::random(64, 16, 0.3, 5).unwrap();
    start.set_base_rate_biases(&patterns).unwrap();
    println!("levels: {:?}", levels());
    for statistics in [
        Statistics::Persistent {
            particles: 50,
            steps: 2,
        },
        Statistics::ContrastiveDivergence { steps: 1 },
    ] {
        let o = options(statistics, 30, 3);
        let states: Vec<_> = levels()
            .into_iter()
            .map(|level| {
                let mut t = RbmTrainer::new(start.clone(), &patterns, o).unwrap();
                for _ in 0..40 {
                    t.update_at(level).unwrap();
                }
                (level, t.state())
            })
            .collect();
        let (first, want) = &states[0];
        for (level, state) in &states[1..] {
            assert_eq!(
                state, want,
                "{statistics:?}: {level:?} differs from {first:?}"
            );
        }
    }
}
