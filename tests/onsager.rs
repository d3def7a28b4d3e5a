//! The 64×64 periodic ferromagnet against exact results.
//!
//! E/N and the specific heat per spin are compared with Kaufman's exact values for the
//! same finite lattice (so there is no finite-size allowance to guess); below T_c, ⟨|M|⟩/N
//! is compared with Onsager–Yang's m(T), whose finite-size correction on a periodic lattice
//! is exponentially small in L/ξ (ξ ≲ 2 at T ≤ 2.0, so e^{−32} is negligible); above T_c the
//! magnetisation of a 64×64 lattice (L ≫ ξ) is Gaussian around 0, so ⟨|m|⟩ = √(2⟨m²⟩/π).
//! Tolerances: 4.5 standard errors, σ·√(2τ_int/N) from each series' autocorrelation time
//! (jackknife over blocks ≥ 4τ for fluctuations). They were 32-bin errors; far from T_c, as
//! here (τ of a few sweeps, bins of 375 sweeps), the two agree, so the tolerance is unchanged.

use boltzlab::estimate::observables::{Estimate, Series, variance};
use boltzlab::exact::{
    kaufman_energy_per_spin, kaufman_specific_heat_per_spin, onsager_energy_per_spin,
    onsager_magnetization_per_spin,
};
use boltzlab::{Dynamics, Lattice, LatticeSampler, Order, Rule};

const L: usize = 64;
const SWEEPS: usize = 12_000;
const BURN_IN: usize = 1_000;
const K: f64 = 4.5;

struct Measured {
    energy: Estimate,
    specific_heat: Estimate,
    abs_magnetization: Estimate,
    gaussian_gap: Estimate,
}

fn measure(temperature: f64, dynamics: Dynamics, order: Order, seed: u64) -> Measured {
    let n = (L * L) as f64;
    let mut sampler = LatticeSampler::new(Lattice::square(L).unwrap(), temperature, seed).unwrap();
    sampler.set_dynamics(dynamics).unwrap();
    sampler.set_order(order);
    if temperature < 2.269 {
        sampler.fill(1); // start ordered: coarsening from random spins is slow
    }
    // Wolff: a fixed number of moves per measurement, about one sweep's worth of flips,
    // chosen during burn-in (a fixed count keeps the measurements unbiased).
    let mut moves = 1;
    if dynamics == Dynamics::Wolff {
        let flipped = sampler.wolff_moves(1_000).unwrap();
        moves = ((n * 1_000.0 / flipped as f64).ceil() as u64).max(1);
    }
    let step = |s: &mut LatticeSampler| {
        if dynamics == Dynamics::Wolff {
            s.wolff_moves(moves).unwrap();
        } else {
            s.sweep();
        }
    };
    for _ in 0..BURN_IN {
        step(&mut sampler);
    }
    let (mut energy, mut magnetization) = (Series::new(), Series::new());
    for _ in 0..SWEEPS {
        step(&mut sampler);
        energy.push(sampler.energy_per_spin());
        magnetization.push(sampler.magnetization_per_spin());
    }
    let beta = 1.0 / temperature;
    let c = energy.jackknife(variance);
    let mut abs = Series::new();
    for &m in magnetization.values() {
        abs.push(m.abs());
    }
    Measured {
        energy: energy.mean(),
        specific_heat: c.scaled(beta * beta * n),
        abs_magnetization: abs.mean(),
        gaussian_gap: magnetization.jackknife(|m| {
            let k = m.len() as f64;
            let mean_abs = m.iter().map(|x| x.abs()).sum::<f64>() / k;
            let mean_square = m.iter().map(|x| x * x).sum::<f64>() / k;
            mean_abs - (2.0 * mean_square / std::f64::consts::PI).sqrt()
        }),
    }
}

fn within(name: &str, measured: Estimate, exact: f64) {
    let deviation = (measured.mean - exact) / measured.stderr;
    println!(
        "{name}: {:.6} ± {:.6}, exact {exact:.6}, deviation {deviation:+.2} σ",
        measured.mean, measured.stderr
    );
    assert!(deviation.abs() < K, "{name}");
}

fn check_temperature(temperature: f64) {
    let cases = [
        (Dynamics::Single(Rule::HeatBath), Order::Sequential),
        (Dynamics::Single(Rule::Metropolis), Order::Checkerboard),
        (Dynamics::Wolff, Order::Sequential),
    ];
    for (seed, (dynamics, order)) in cases.into_iter().enumerate() {
        let m = measure(temperature, dynamics, order, seed as u64 + 1);
        let label = format!("T={temperature} {} {}", dynamics.name(), order.name());
        within(
            &format!("{label} E/N (Kaufman 64x64)"),
            m.energy,
            kaufman_energy_per_spin(L, L, temperature),
        );
        within(
            &format!("{label} c (Kaufman 64x64)"),
            m.specific_heat,
            kaufman_specific_heat_per_spin(L, L, temperature),
        );
        println!(
            "{label} E/N − Onsager u(T) (finite-size effect) = {:+.6}",
            m.energy.mean - onsager_energy_per_spin(temperature)
        );
        if temperature < 2.269 {
            within(
                &format!("{label} |M|/N (Onsager-Yang)"),
                m.abs_magnetization,
                onsager_magnetization_per_spin(temperature),
            );
        } else {
            within(
                &format!("{label} <|m|> - sqrt(2<m²>/π)"),
                m.gaussian_gap,
                0.0,
            );
        }
    }
}

#[test]
fn sampled_64x64_lattice_matches_exact_results_at_t_1_5() {
    check_temperature(1.5);
}

#[test]
fn sampled_64x64_lattice_matches_exact_results_at_t_2_0() {
    check_temperature(2.0);
}

#[test]
fn sampled_64x64_lattice_matches_exact_results_at_t_3_0() {
    check_temperature(3.0);
}
