//! The square-lattice Ising model with periodic boundaries.
//!
//! E(s) = −J Σ_{⟨ij⟩} s_i s_j − h Σ_i s_i, the first sum over nearest-neighbour bonds
//! (each bond once), s_i = ±1. Site i = x + W·y, x the column, y the row.
//! The local field on site i is h_i = J Σ_{j∈nb(i)} s_j + h, so that flipping s_i changes
//! the energy by ΔE = 2 s_i h_i.

use crate::error::{ParamError, finite_in, whole_in};

/// A W×H periodic square lattice with uniform coupling J and field h.
#[derive(Debug, Clone, PartialEq)]
pub struct Lattice {
    width: usize,
    height: usize,
    coupling: f64,
    field: f64,
}

impl Lattice {
    /// Smallest side: with periodic boundaries a side of 2 already joins each pair of
    /// neighbours by two bonds, a side of 1 would couple a spin to itself.
    pub const MIN_SIDE: usize = 2;
    /// Largest side: 4096 × 4096 = 16.8 million spins, 16 MiB of state.
    pub const MAX_SIDE: usize = 4096;
    /// Largest |J| and |h| accepted.
    pub const MAX_COUPLING: f64 = 1.0e3;

    /// A `width` × `height` lattice with coupling J (J > 0 ferromagnet, J < 0
    /// antiferromagnet) and field h. Sizes are taken as `f64` so that fractions, NaN and
    /// negative values from outside get a typed error rather than a silent cast.
    pub fn new(width: f64, height: f64, coupling: f64, field: f64) -> Result<Self, ParamError> {
        let side = |field, v| whole_in(field, v, Self::MIN_SIDE as u64, Self::MAX_SIDE as u64);
        Ok(Lattice {
            width: side("width", width)? as usize,
            height: side("height", height)? as usize,
            coupling: finite_in(
                "coupling",
                coupling,
                -Self::MAX_COUPLING,
                Self::MAX_COUPLING,
            )?,
            field: finite_in("field", field, -Self::MAX_COUPLING, Self::MAX_COUPLING)?,
        })
    }

    /// An L×L ferromagnet (J = 1, h = 0).
    pub fn square(side: usize) -> Result<Self, ParamError> {
        Self::new(side as f64, side as f64, 1.0, 0.0)
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// Number of spins N = W·H.
    pub fn len(&self) -> usize {
        self.width * self.height
    }

    /// Always false: a lattice has at least 2×2 spins.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Coupling J.
    pub fn coupling(&self) -> f64 {
        self.coupling
    }

    /// External field h.
    pub fn field(&self) -> f64 {
        self.field
    }

    /// The four neighbours of site i: left, right, up, down (periodic).
    pub fn neighbours(&self, i: usize) -> [usize; 4] {
        let (w, h) = (self.width, self.height);
        let (x, y) = (i % w, i / w);
        let left = if x == 0 { i + w - 1 } else { i - 1 };
        let right = if x + 1 == w { i + 1 - w } else { i + 1 };
        let up = if y == 0 { i + w * (h - 1) } else { i - w };
        let down = if y + 1 == h { i - w * (h - 1) } else { i + w };
        [left, right, up, down]
    }

    /// Σ_{⟨ij⟩} s_i s_j over all bonds, each once (recomputed from scratch).
    pub fn bond_sum(&self, spins: &[i8]) -> i64 {
        (0..self.len())
            .map(|i| {
                let [_, right, _, down] = self.neighbours(i);
                i64::from(spins[i]) * i64::from(spins[right] + spins[down])
            })
            .sum()
    }

    /// Σ_i s_i.
    pub fn magnetization(&self, spins: &[i8]) -> i64 {
        spins.iter().map(|&s| i64::from(s)).sum()
    }

    /// E = −J·(bond sum) − h·M, from integer sums so that bookkeeping can be exact.
    pub fn energy_from_sums(&self, bond_sum: i64, magnetization: i64) -> f64 {
        -self.coupling * bond_sum as f64 - self.field * magnetization as f64
    }

    /// E(s), recomputed from scratch.
    pub fn energy(&self, spins: &[i8]) -> f64 {
        self.energy_from_sums(self.bond_sum(spins), self.magnetization(spins))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_wrap_around_periodic_boundaries() {
        let lattice = Lattice::new(4.0, 3.0, 1.0, 0.0).unwrap();
        assert_eq!(lattice.neighbours(0), [3, 1, 8, 4]);
        assert_eq!(lattice.neighbours(11), [10, 8, 7, 3]);
        assert_eq!(lattice.neighbours(5), [4, 6, 1, 9]);
    }

    #[test]
    fn ground_states_of_the_ferromagnet_have_energy_minus_two_per_spin() {
        let lattice = Lattice::new(5.0, 3.0, 1.0, 0.0).unwrap();
        assert_eq!(lattice.energy(&[1; 15]), -30.0);
        assert_eq!(lattice.energy(&[-1; 15]), -30.0);
    }

    #[test]
    fn field_lowers_the_energy_of_aligned_spins() {
        let lattice = Lattice::new(3.0, 3.0, 1.0, 0.5).unwrap();
        assert_eq!(lattice.energy(&[1; 9]), -18.0 - 4.5);
        assert_eq!(lattice.energy(&[-1; 9]), -18.0 + 4.5);
    }

    #[test]
    fn bad_sizes_and_couplings_are_rejected_with_the_field_named() {
        for (w, h, j, f, name) in [
            (0.0, 4.0, 1.0, 0.0, "width"),
            (-3.0, 4.0, 1.0, 0.0, "width"),
            (4.5, 4.0, 1.0, 0.0, "width"),
            (f64::NAN, 4.0, 1.0, 0.0, "width"),
            (4.0, 1.0e9, 1.0, 0.0, "height"),
            (4.0, 4.0, f64::INFINITY, 0.0, "coupling"),
            (4.0, 4.0, 1.0, f64::NAN, "field"),
        ] {
            let err = Lattice::new(w, h, j, f).unwrap_err();
            assert!(err.to_string().starts_with(name), "{err}");
        }
    }
}
