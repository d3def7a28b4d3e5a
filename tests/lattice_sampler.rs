//! The lattice sampler's laws that need no statistics: bookkeeping, determinism, bounds.

use boltzlab::{Lattice, LatticeSampler};

#[test]
fn energy_and_magnetization_bookkeeping_equal_recomputation_after_many_ticks() {
    for (side, temperature, field) in [(16, 2.269, 0.0), (31, 1.0, 0.3), (8, 5.0, -0.7)] {
        let lattice = Lattice::new(side as f64, side as f64, 1.0, field).unwrap();
        let mut sampler = LatticeSampler::new(lattice, temperature, 7).unwrap();
        for _ in 0..50 {
            sampler.run(9_973); // not a multiple of N: the cursor wraps mid-call
            let lattice = sampler.lattice();
            assert_eq!(sampler.energy(), lattice.energy(sampler.spins()));
            assert_eq!(
                sampler.magnetization(),
                lattice.magnetization(sampler.spins())
            );
        }
        assert_eq!(sampler.ticks(), 50 * 9_973);
    }
}

#[test]
fn a_seed_fixes_the_whole_trajectory() {
    let run = |seed| {
        let mut s = LatticeSampler::new(Lattice::square(32).unwrap(), 2.0, seed).unwrap();
        s.run(100_000);
        s.spins().to_vec()
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

#[test]
fn zero_temperature_never_raises_the_energy() {
    let mut sampler = LatticeSampler::new(Lattice::square(24).unwrap(), 0.0, 11).unwrap();
    let mut last = sampler.energy();
    for _ in 0..20_000 {
        sampler.tick();
        assert!(sampler.energy() <= last);
        last = sampler.energy();
    }
}

#[test]
fn bad_temperatures_are_rejected_and_leave_the_sampler_unchanged() {
    let mut sampler = LatticeSampler::new(Lattice::square(8).unwrap(), 2.0, 1).unwrap();
    for bad in [f64::NAN, -1.0, f64::NEG_INFINITY] {
        let err = sampler.set_temperature(bad).unwrap_err();
        assert!(err.to_string().starts_with("temperature"), "{err}");
        assert_eq!(sampler.temperature(), 2.0);
    }
    assert!(LatticeSampler::new(Lattice::square(8).unwrap(), f64::NAN, 1).is_err());
    sampler.set_temperature(f64::INFINITY).unwrap();
}

#[test]
fn infinite_temperature_makes_each_spin_a_fair_coin() {
    // At T = ∞ each tick draws s = ±1 with probability ½ independently, so after whole
    // sweeps M = Σ s_i is a sum of N independent ±1: mean 0, variance N.
    let n = 64 * 64;
    let mut sampler = LatticeSampler::new(Lattice::square(64).unwrap(), f64::INFINITY, 5).unwrap();
    let samples = 2_000;
    let mut sum = 0.0;
    let mut sum_sq = 0.0;
    for _ in 0..samples {
        sampler.sweep();
        let m = sampler.magnetization() as f64;
        sum += m;
        sum_sq += m * m;
    }
    let mean = sum / samples as f64;
    let variance = sum_sq / samples as f64 - mean * mean;
    // Mean: standard error √(N / samples) ≈ 1.43; allow 4 of them.
    assert!(
        mean.abs() < 4.0 * (n as f64 / samples as f64).sqrt(),
        "{mean}"
    );
    // Variance of a sample variance of Gaussians: 2N²/samples, standard error ≈ 130.
    let se = (2.0 / samples as f64).sqrt() * n as f64;
    assert!((variance - n as f64).abs() < 4.0 * se, "{variance}");
}
