//! Wolff single-cluster moves for the lattice with uniform coupling J and zero field.
//!
//! A move picks a random seed site and grows a cluster across satisfied bonds
//! (J s_i s_j > 0), adding each neighbour through each bond with probability
//! p = 1 − e^{−2|J|/T}, then flips the whole cluster; the move is accepted with
//! probability one and satisfies detailed balance for the Boltzmann distribution at
//! h = 0. Sites are flipped as they join (so a site is never added twice), and the
//! bookkeeping is updated at each flip with the neighbour sum at that moment.

use super::rules::threshold;
use crate::model::Lattice;
use crate::model::lattice::Neighbour;
use crate::rng::{SpinRng, random_index};
use rand::Rng;

/// Reusable work space for Wolff moves: the cluster stack and the per-site stamp of the
/// move that last visited it (so nothing is cleared or allocated per move).
#[derive(Debug, Clone)]
pub struct WolffClusters {
    stack: Vec<u32>,
    stamp: Vec<u32>,
    move_id: u32,
    /// Threshold for p = 1 − e^{−2|J|/T}, and the sign of J.
    add_threshold: u64,
    coupling_sign: i8,
}

impl WolffClusters {
    pub fn new(sites: usize) -> Self {
        WolffClusters {
            stack: Vec::with_capacity(sites),
            stamp: vec![0; sites],
            move_id: 0,
            add_threshold: 0,
            coupling_sign: 1,
        }
    }

    /// p = 1 − e^{−2|J|/T} (1 at T = 0, 0 at T = ∞).
    pub fn set_temperature(&mut self, coupling: f64, temperature: f64) {
        let p = if temperature == 0.0 {
            1.0
        } else {
            -libm::expm1(-2.0 * coupling.abs() / temperature)
        };
        self.add_threshold = threshold(p);
        self.coupling_sign = if coupling < 0.0 { -1 } else { 1 };
    }

    /// Grows and flips one cluster; returns its size.
    pub fn flip_cluster(
        &mut self,
        lattice: &Lattice,
        spins: &mut [i8],
        rng: &mut SpinRng,
        bond_sum: &mut i64,
        magnetization: &mut i64,
    ) -> usize {
        self.move_id = self.move_id.wrapping_add(1);
        if self.move_id == 0 {
            self.stamp.fill(0);
            self.move_id = 1;
        }
        let id = self.move_id;
        let width = lattice.width();
        let seed = random_index(rng, spins.len() as u32) as usize;
        self.stack.clear();
        let mut flip = |site: usize, spins: &mut [i8], stamp: &mut [u32]| {
            stamp[site] = id;
            let (x, y) = (site % width, site / width);
            let sum = lattice.neighbour_sum(spins, x, y, |b| lattice.integer_bond(b));
            let old = spins[site];
            *bond_sum -= 2 * i64::from(old) * i64::from(sum);
            *magnetization -= 2 * i64::from(old);
            spins[site] = -old;
        };
        flip(seed, spins, &mut self.stamp);
        self.stack.push(seed as u32);
        let mut size = 1;
        while let Some(site) = self.stack.pop() {
            let site = site as usize;
            // The site's value before its flip; a bond is satisfied when
            // J s_site s_j > 0, i.e. s_j = sign(J) · old value.
            let wanted = self.coupling_sign * -spins[site];
            for slot in lattice.neighbours(site) {
                if let Neighbour::Site { site: j, .. } = slot
                    && self.stamp[j] != id
                    && spins[j] == wanted
                    && u64::from(rng.next_u32()) < self.add_threshold
                {
                    flip(j, spins, &mut self.stamp);
                    self.stack.push(j as u32);
                    size += 1;
                }
            }
        }
        size
    }
}
