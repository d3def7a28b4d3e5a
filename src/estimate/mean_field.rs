//! The mean-field (deterministic) Boltzmann machine: Peterson & Anderson 1987.
//!
//! Each unit is replaced by its mean m_i = s_low + (s_high − s_low)·q_i, where
//! q_i = P(s_i = high) under a product distribution. The mean-field equations are
//!
//!   q_i = σ((s_high − s_low)·h_i / T),   h_i = Σ_j w_ij m_j + θ_i,   σ(x) = 1/(1 + e^{−x}),
//!
//! i.e. m_i = tanh(h_i / T) for Ising units and m_i = σ(h_i / T) for Boltzmann units. They
//! are the stationary points of the mean-field free energy
//!
//!   F(q) = E(m) − T·S(q),  E(m) = −Σ_{i<j} w_ij m_i m_j − Σ_i θ_i m_i,
//!   S(q) = −Σ_i [q_i ln q_i + (1 − q_i) ln(1 − q_i)],
//!
//! and ln Z ≥ −F(q)/T for every q (Gibbs–Bogoliubov), so the mean-field estimate
//! ln Z ≈ −F/T is a lower bound. The solver updates units one at a time (each update is a
//! coordinate descent step on F, so F never rises), damped by a factor d:
//! q_i ← (1 − d)·q_i + d·σ(…); it can anneal through a list of temperatures, and it always
//! reports whether it converged: a result that did not is marked, never passed off.

use crate::error::{ParamError, TemperatureDomain, check_temperature, finite_in, whole_in};
use crate::model::Network;

/// How the mean-field equations are solved.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanFieldOptions {
    /// Damping d in (0, 1]: q_i ← (1 − d) q_i + d σ(…).
    pub damping: f64,
    /// Converged when max_i |Δq_i| over a whole pass is below this.
    pub tolerance: f64,
    /// Most passes over all units at each temperature.
    pub max_passes: usize,
    /// Temperatures to anneal through before the target (each solved in turn, the last
    /// solution starting the next); empty for none.
    pub anneal: Vec<f64>,
}

impl Default for MeanFieldOptions {
    fn default() -> Self {
        MeanFieldOptions {
            damping: 1.0,
            tolerance: 1e-10,
            max_passes: 10_000,
            anneal: Vec::new(),
        }
    }
}

/// Checks a solver's settings: damping λ ∈ (0, 1] (m ← λ m_new + (1 − λ) m), tolerance in
/// [10⁻¹⁵, 1] and 1 to 10⁷ passes; messages name the field and the allowed range.
pub fn check_solver(damping: f64, tolerance: f64, max_passes: usize) -> Result<(), ParamError> {
    if !(damping > 0.0 && damping <= 1.0) {
        return Err(ParamError::OutOfRange {
            field: "damping",
            value: damping,
            min: f64::MIN_POSITIVE,
            max: 1.0,
        });
    }
    finite_in("tolerance", tolerance, 1e-15, 1.0)?;
    whole_in("max passes", max_passes as f64, 1, 10_000_000)?;
    Ok(())
}

impl MeanFieldOptions {
    /// Checks the options; messages name the field and the allowed range.
    pub fn check(&self) -> Result<(), ParamError> {
        check_solver(self.damping, self.tolerance, self.max_passes)?;
        for &t in &self.anneal {
            check_temperature(t, TemperatureDomain::MeanField)?;
        }
        Ok(())
    }
}

/// A solution of the mean-field equations.
#[derive(Debug, Clone, PartialEq)]
pub struct MeanField {
    /// q_i = P(s_i = high).
    pub probabilities: Vec<f64>,
    /// m_i = s_low + (s_high − s_low)·q_i.
    pub means: Vec<f64>,
    /// Whether max |Δq| fell below the tolerance at the target temperature.
    pub converged: bool,
    /// Passes made at the target temperature.
    pub passes: usize,
    /// The last pass's max |Δq|.
    pub residual: f64,
    /// F = E(m) − T S(q).
    pub free_energy: f64,
    /// −F/T, a lower bound on ln Z.
    pub log_z: f64,
}

impl MeanField {
    /// The mean-field correlation ⟨s_i s_j⟩ ≈ m_i m_j (i ≠ j), as the learning rule uses it.
    pub fn correlation(&self, i: usize, j: usize) -> f64 {
        self.means[i] * self.means[j]
    }
}

/// σ(x) = 1/(1 + e^{−x}), computed without overflow for large |x|.
fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + libm::exp(-x))
    } else {
        let e = libm::exp(x);
        e / (1.0 + e)
    }
}

/// −[q ln q + (1 − q) ln(1 − q)], with 0 ln 0 = 0.
fn binary_entropy(q: f64) -> f64 {
    let term = |p: f64| if p > 0.0 { -p * libm::log(p) } else { 0.0 };
    term(q) + term(1.0 - q)
}

/// Solves the mean-field equations of `network` at `temperature` (finite, > 0).
///
/// `clamp[i] = Some(s)` holds unit i at value s (the clamped phase of learning);
/// `start` gives initial q_i (else ½ for every free unit, nudged by `nudge` to break the
/// symmetry of the q = ½ fixed point: q_i = ½ + nudge·(i-th of a fixed ±1 pattern)).
pub fn solve(
    network: &Network,
    temperature: f64,
    clamp: &[Option<i8>],
    start: Option<&[f64]>,
    options: &MeanFieldOptions,
) -> Result<MeanField, ParamError> {
    let n = network.len();
    let temperature = check_temperature(temperature, TemperatureDomain::MeanField)?;
    options.check()?;
    if clamp.len() != n {
        return Err(ParamError::Invalid {
            field: "clamp",
            reason: format!("need one entry per unit ({n}), got {}", clamp.len()),
        });
    }
    let kind = network.kind();
    for (i, c) in clamp.iter().enumerate() {
        if let Some(s) = c
            && !kind.is_value(*s)
        {
            return Err(ParamError::Invalid {
                field: "clamp",
                reason: format!("unit {i}: {s} is not a value of a {} unit", kind.name()),
            });
        }
    }
    let mut q: Vec<f64> = match start {
        Some(start) => {
            if start.len() != n {
                return Err(ParamError::Invalid {
                    field: "start",
                    reason: format!("need {n} probabilities, got {}", start.len()),
                });
            }
            for &p in start {
                finite_in("start", p, 0.0, 1.0)?;
            }
            start.to_vec()
        }
        None => (0..n)
            .map(|i| 0.5 + if i % 3 == 0 { 1e-3 } else { -1e-3 })
            .collect(),
    };
    let (low, span) = (f64::from(kind.low()), kind.span());
    for (qi, c) in q.iter_mut().zip(clamp) {
        if let Some(s) = c {
            *qi = if *s == kind.high() { 1.0 } else { 0.0 };
        }
    }
    let mut means: Vec<f64> = q.iter().map(|&qi| low + span * qi).collect();
    let pass = |t: f64, q: &mut [f64], means: &mut [f64]| -> f64 {
        let mut residual: f64 = 0.0;
        for i in 0..n {
            if clamp[i].is_some() {
                continue;
            }
            let field: f64 = network
                .weight_row(i)
                .iter()
                .zip(means.iter())
                .map(|(w, m)| w * m)
                .sum::<f64>()
                + network.bias(i);
            let target = logistic(span * field / t);
            let new = (1.0 - options.damping) * q[i] + options.damping * target;
            residual = residual.max((new - q[i]).abs());
            q[i] = new;
            means[i] = low + span * new;
        }
        residual
    };
    for &t in &options.anneal {
        for _ in 0..options.max_passes {
            if pass(t, &mut q, &mut means) < options.tolerance {
                break;
            }
        }
    }
    let (mut passes, mut residual) = (0, f64::INFINITY);
    while passes < options.max_passes && residual >= options.tolerance {
        residual = pass(temperature, &mut q, &mut means);
        passes += 1;
    }
    let energy = network.mean_energy(&means);
    let entropy = q.iter().map(|&p| binary_entropy(p)).sum::<f64>();
    let free_energy = energy - temperature * entropy;
    Ok(MeanField {
        converged: residual < options.tolerance,
        passes,
        residual,
        // −F/T as S − E/T: the same number, without T·S, which overflows at T near f64::MAX.
        log_z: entropy - energy / temperature,
        free_energy,
        probabilities: q,
        means,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::enumeration::enumerate;
    use crate::model::SpinKind;

    fn free(n: usize) -> Vec<Option<i8>> {
        vec![None; n]
    }

    #[test]
    fn without_couplings_mean_field_is_exact() {
        // Independent units: Z = Π_i (e^{θ_i s_low/T} + e^{θ_i s_high/T}) and q_i = σ(span θ_i/T).
        for kind in SpinKind::ALL {
            let biases = vec![0.3, -1.2, 2.0, 0.0, 0.7];
            let network = Network::new(kind, vec![0.0; 25], biases.clone()).unwrap();
            let t = 1.3;
            let mf = solve(&network, t, &free(5), None, &MeanFieldOptions::default()).unwrap();
            assert!(mf.converged);
            let (lo, hi) = (f64::from(kind.low()), f64::from(kind.high()));
            let exact: f64 = biases
                .iter()
                .map(|b| ((b * lo / t).exp() + (b * hi / t).exp()).ln())
                .sum();
            assert!(
                (mf.log_z - exact).abs() < 1e-12,
                "{kind:?}: {} {exact}",
                mf.log_z
            );
        }
    }

    #[test]
    fn mean_field_log_z_is_a_lower_bound_on_the_exact_one() {
        for kind in SpinKind::ALL {
            for seed in 0..8 {
                let network = Network::random(10, kind, 1.0, 0.5, seed).unwrap();
                for t in [0.5, 1.0, 2.0] {
                    let mf =
                        solve(&network, t, &free(10), None, &MeanFieldOptions::default()).unwrap();
                    let exact = enumerate(&network, t).unwrap().log_z;
                    assert!(mf.converged, "{kind:?} seed {seed} T {t}");
                    // Gibbs–Bogoliubov: ln Z ≥ −F(q)/T for every q (rounding allowance 1e-12).
                    assert!(
                        mf.log_z <= exact + 1e-12,
                        "{kind:?} {seed} {t}: {} > {exact}",
                        mf.log_z
                    );
                }
            }
        }
    }

    #[test]
    fn a_converged_solution_satisfies_the_equations_and_clamps_hold() {
        let network = Network::random(12, SpinKind::Binary, 1.5, 1.0, 3).unwrap();
        let mut clamp = free(12);
        clamp[0] = Some(1);
        clamp[4] = Some(0);
        let options = MeanFieldOptions {
            damping: 0.5,
            anneal: vec![5.0, 3.0, 2.0],
            ..MeanFieldOptions::default()
        };
        let mf = solve(&network, 1.0, &clamp, None, &options).unwrap();
        assert!(mf.converged && mf.residual < 1e-10);
        assert_eq!((mf.means[0], mf.means[4]), (1.0, 0.0));
        for i in (0..12).filter(|&i| clamp[i].is_none()) {
            let field: f64 = (0..12)
                .map(|j| network.weight(i, j) * mf.means[j])
                .sum::<f64>()
                + network.bias(i);
            assert!((mf.probabilities[i] - logistic(field)).abs() < 1e-9);
        }
    }

    #[test]
    fn the_two_conventions_have_corresponding_fixed_points() {
        // s = 2b − 1 maps product distributions to product distributions: the same q solves
        // both, and −F/T differs by the exact energy offset of the mapping.
        let ising = Network::random(8, SpinKind::Ising, 0.7, 0.4, 5).unwrap();
        let (binary, offset) = ising.to_kind(SpinKind::Binary);
        let t = 1.1;
        let a = solve(&ising, t, &free(8), None, &MeanFieldOptions::default()).unwrap();
        let b = solve(
            &binary,
            t,
            &free(8),
            Some(&a.probabilities),
            &MeanFieldOptions::default(),
        )
        .unwrap();
        for (p, r) in a.probabilities.iter().zip(&b.probabilities) {
            assert!((p - r).abs() < 1e-9);
        }
        // E_ising = E_binary + offset, so F_ising = F_binary + offset.
        assert!((a.free_energy - (b.free_energy + offset)).abs() < 1e-9);
    }

    #[test]
    fn non_convergence_is_reported_and_bad_options_are_refused() {
        let network = Network::sherrington_kirkpatrick(30, 1).unwrap();
        let options = MeanFieldOptions {
            max_passes: 1,
            ..MeanFieldOptions::default()
        };
        let mf = solve(&network, 0.3, &free(30), None, &options).unwrap();
        assert!(!mf.converged && mf.residual >= options.tolerance);
        let bad = [
            MeanFieldOptions {
                damping: 0.0,
                ..MeanFieldOptions::default()
            },
            MeanFieldOptions {
                damping: 1.5,
                ..MeanFieldOptions::default()
            },
            MeanFieldOptions {
                tolerance: f64::NAN,
                ..MeanFieldOptions::default()
            },
            MeanFieldOptions {
                anneal: vec![2.0, -1.0],
                ..MeanFieldOptions::default()
            },
        ];
        for options in bad {
            assert!(solve(&network, 1.0, &free(30), None, &options).is_err());
        }
        for t in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let err =
                solve(&network, t, &free(30), None, &MeanFieldOptions::default()).unwrap_err();
            assert!(err.to_string().starts_with("temperature"));
        }
        assert!(solve(&network, 1.0, &free(29), None, &MeanFieldOptions::default()).is_err());
        let mut clamp = free(30);
        clamp[2] = Some(0); // 0 is not an Ising value
        assert!(solve(&network, 1.0, &clamp, None, &MeanFieldOptions::default()).is_err());
    }
}
