//! The square-lattice Ising model: uniform or per-bond couplings, a field, and three kinds
//! of boundary.
//!
//! E(s) = −J Σ_b c_b s_i s_j − h Σ_i s_i over the bonds b = (i, j) of the lattice, s_i = ±1.
//! Site i = x + W·y (x the column, y the row). Bond 2i joins site i to its right
//! neighbour, bond 2i + 1 to the neighbour below; c_b is 1 for a uniform lattice, ±1 for
//! a ±J spin glass, and a standard normal number for a Gaussian spin glass.
//!
//! Boundaries decide what the bonds leaving the last column and row do:
//! - periodic: they wrap around (a side of 2 joins each pair of neighbours by two bonds);
//! - open: they are absent, so edge spins have fewer neighbours;
//! - fixed(g): the lattice is framed by border spins held at g = ±1; a bond that would wrap
//!   around instead joins each of its two end spins to the border, with the same c_b.
//!
//! The local field on site i is h_i = J Σ_{b∋i} c_b s_{j(b)} + h (border spins included),
//! so that setting s_i from s to s' changes the energy by ΔE = −(s' − s)·h_i.

use crate::error::{ParamError, finite_in, whole_in};
use crate::model::{Network, SpinKind};
use crate::rng::{SpinRng, seeded_rng, standard_normal_pair};
use rand::Rng;

/// What the bonds leaving the lattice's last column and row do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'periodic' | 'open' | 'fixed-up' | 'fixed-down'")]
pub enum Boundary {
    Periodic,
    Open,
    /// Border spins held at +1 (`Fixed(1)`) or −1 (`Fixed(-1)`).
    Fixed(i8),
}

impl Boundary {
    pub const ALL: [Boundary; 4] = [
        Boundary::Periodic,
        Boundary::Open,
        Boundary::Fixed(1),
        Boundary::Fixed(-1),
    ];

    /// Parses `periodic`, `open`, `fixed-up` or `fixed-down`.
    pub fn parse(name: &str) -> Result<Boundary, ParamError> {
        match name {
            "periodic" => Ok(Boundary::Periodic),
            "open" => Ok(Boundary::Open),
            "fixed-up" => Ok(Boundary::Fixed(1)),
            "fixed-down" => Ok(Boundary::Fixed(-1)),
            _ => Err(ParamError::UnknownChoice {
                field: "boundary",
                value: name.to_string(),
                allowed: "periodic, open, fixed-up, fixed-down",
            }),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Boundary::Periodic => "periodic",
            Boundary::Open => "open",
            Boundary::Fixed(g) if g > 0 => "fixed-up",
            Boundary::Fixed(_) => "fixed-down",
        }
    }
}

/// The bond factors c_b, each multiplied by J.
#[derive(Debug, Clone, PartialEq)]
pub enum Couplings {
    /// c_b = 1 on every bond.
    Uniform,
    /// c_b = ±1 (a ±J spin glass).
    PlusMinus(Vec<i8>),
    /// c_b real (a Gaussian spin glass).
    Real(Vec<f64>),
}

/// A W×H square lattice with couplings, field and boundary.
#[derive(Debug, Clone, PartialEq)]
pub struct Lattice {
    width: usize,
    height: usize,
    coupling: f64,
    field: f64,
    boundary: Boundary,
    couplings: Couplings,
}

/// Σ_i s_i (s_right(i) + s_down(i)) on a periodic lattice of width `w` with every c_b = 1:
/// the bond sum by whole rows (each bond once, as [`Lattice::bond_sum`] counts them), for the
/// recount after a reset or a restore of a large lattice (a reset of a 1024² ferromagnet on
/// the page's main thread: 10–11 ms by the general walk over neighbour slots, 2–3 ms by rows;
/// docs/speed.md, "Where the input delay goes").
fn uniform_periodic_bond_sum(spins: &[i8], w: usize) -> i64 {
    let rows: Vec<&[i8]> = spins.chunks_exact(w).collect();
    let mut sum = 0i64;
    for (y, row) in rows.iter().enumerate() {
        let below = rows[(y + 1) % rows.len()];
        let mut line = 0i32;
        for x in 0..w {
            let right = row[if x + 1 == w { 0 } else { x + 1 }];
            line += i32::from(row[x]) * (i32::from(right) + i32::from(below[x]));
        }
        sum += i64::from(line);
    }
    sum
}

/// What a neighbour slot of a site holds: another site, a border spin, or nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Neighbour {
    Site { site: usize, bond: usize },
    Border { spin: i8, bond: usize },
    None,
}

/// A number a neighbour sum can be made of: integer for integer couplings (exact
/// bookkeeping and table look-ups), real otherwise.
pub trait BondSum: Copy + Default + std::ops::Add<Output = Self> {
    fn times(self, spin: i8) -> Self;
}

impl BondSum for i32 {
    #[inline]
    fn times(self, spin: i8) -> i32 {
        self * i32::from(spin)
    }
}

impl BondSum for i64 {
    #[inline]
    fn times(self, spin: i8) -> i64 {
        self * i64::from(spin)
    }
}

impl BondSum for f64 {
    #[inline]
    fn times(self, spin: i8) -> f64 {
        self * f64::from(spin)
    }
}

impl Lattice {
    /// Smallest side (a periodic side of 1 would join a spin to itself).
    pub const MIN_SIDE: usize = 2;
    /// Largest side: 4096 × 4096 = 16.8 million spins.
    pub const MAX_SIDE: usize = 4096;
    /// Largest |J| and |h| accepted.
    pub const MAX_COUPLING: f64 = 1.0e3;

    /// A periodic `width` × `height` lattice with uniform coupling J (J > 0 ferromagnet,
    /// J < 0 antiferromagnet) and field h. Sizes are taken as `f64` so that fractions, NaN
    /// and negative values from outside get a typed error rather than a silent cast.
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
            boundary: Boundary::Periodic,
            couplings: Couplings::Uniform,
        })
    }

    /// An L×L periodic ferromagnet (J = 1, h = 0).
    pub fn square(side: usize) -> Result<Self, ParamError> {
        Self::new(side as f64, side as f64, 1.0, 0.0)
    }

    /// The same lattice with another boundary.
    pub fn with_boundary(mut self, boundary: Boundary) -> Result<Self, ParamError> {
        if let Boundary::Fixed(g) = boundary
            && g != 1
            && g != -1
        {
            return Err(ParamError::Invalid {
                field: "boundary",
                reason: format!("fixed border spins must be +1 or −1, got {g}"),
            });
        }
        self.boundary = boundary;
        Ok(self)
    }

    /// The same lattice with per-bond factors c_b (2N of them: bond 2i to the right of
    /// site i, 2i + 1 below it).
    pub fn with_couplings(mut self, couplings: Couplings) -> Result<Self, ParamError> {
        let bonds = 2 * self.len();
        let wrong = |len: usize| ParamError::Invalid {
            field: "couplings",
            reason: format!("need {bonds} bond values (2 per site), got {len}"),
        };
        match &couplings {
            Couplings::Uniform => {}
            Couplings::PlusMinus(c) => {
                if c.len() != bonds {
                    return Err(wrong(c.len()));
                }
                if let Some(v) = c.iter().find(|&&v| v != 1 && v != -1) {
                    return Err(ParamError::Invalid {
                        field: "couplings",
                        reason: format!("±J bond values must be +1 or −1, got {v}"),
                    });
                }
            }
            Couplings::Real(c) => {
                if c.len() != bonds {
                    return Err(wrong(c.len()));
                }
                for &v in c {
                    finite_in("couplings", v, -Self::MAX_COUPLING, Self::MAX_COUPLING)?;
                }
            }
        }
        self.couplings = couplings;
        Ok(self)
    }

    /// A ±J spin glass: each c_b = ±1 with probability ½, drawn from `seed`.
    pub fn with_plus_minus_bonds(self, seed: u64) -> Result<Self, ParamError> {
        let mut rng = seeded_rng(seed);
        let bonds = (0..2 * self.len())
            .map(|_| if rng.next_u32() >> 31 == 1 { 1 } else { -1 })
            .collect();
        self.with_couplings(Couplings::PlusMinus(bonds))
    }

    /// A Gaussian spin glass: each c_b ~ N(0, 1), drawn from `seed`.
    pub fn with_gaussian_bonds(self, seed: u64) -> Result<Self, ParamError> {
        let mut rng: SpinRng = seeded_rng(seed);
        let bonds = 2 * self.len();
        let bonds = (0..bonds.div_ceil(2))
            .flat_map(|_| standard_normal_pair(&mut rng))
            .take(bonds)
            .collect();
        self.with_couplings(Couplings::Real(bonds))
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

    pub fn boundary(&self) -> Boundary {
        self.boundary
    }

    pub fn couplings(&self) -> &Couplings {
        &self.couplings
    }

    /// True when every c_b is an integer (uniform or ±J), so that neighbour sums are
    /// integers and the energy can be kept exactly.
    pub fn has_integer_couplings(&self) -> bool {
        !matches!(self.couplings, Couplings::Real(_))
    }

    /// The bond factor c_b as an integer (for uniform and ±J lattices; 0 for real ones).
    #[inline]
    pub fn integer_bond(&self, bond: usize) -> i32 {
        match &self.couplings {
            Couplings::Uniform => 1,
            Couplings::PlusMinus(c) => i32::from(c[bond]),
            Couplings::Real(_) => 0,
        }
    }

    /// The bond factor c_b.
    #[inline]
    pub fn bond(&self, bond: usize) -> f64 {
        match &self.couplings {
            Couplings::Uniform => 1.0,
            Couplings::PlusMinus(c) => f64::from(c[bond]),
            Couplings::Real(c) => c[bond],
        }
    }

    /// The four neighbour slots of site i = x + W·y: left, right, up, down.
    #[inline]
    pub fn neighbours_at(&self, x: usize, y: usize) -> [Neighbour; 4] {
        let (w, h) = (self.width, self.height);
        let i = x + w * y;
        let edge = |site: usize, bond: usize| match self.boundary {
            Boundary::Periodic => Neighbour::Site { site, bond },
            Boundary::Open => Neighbour::None,
            Boundary::Fixed(spin) => Neighbour::Border { spin, bond },
        };
        let left = if x > 0 {
            Neighbour::Site {
                site: i - 1,
                bond: 2 * (i - 1),
            }
        } else {
            edge(i + w - 1, 2 * (i + w - 1))
        };
        let right = if x + 1 < w {
            Neighbour::Site {
                site: i + 1,
                bond: 2 * i,
            }
        } else {
            edge(i + 1 - w, 2 * i)
        };
        let up = if y > 0 {
            Neighbour::Site {
                site: i - w,
                bond: 2 * (i - w) + 1,
            }
        } else {
            let j = i + w * (h - 1);
            edge(j, 2 * j + 1)
        };
        let down = if y + 1 < h {
            Neighbour::Site {
                site: i + w,
                bond: 2 * i + 1,
            }
        } else {
            edge(i - w * (h - 1), 2 * i + 1)
        };
        [left, right, up, down]
    }

    /// The four neighbour slots of site i.
    pub fn neighbours(&self, i: usize) -> [Neighbour; 4] {
        self.neighbours_at(i % self.width, i / self.width)
    }

    /// Σ_{b∋i} c_b s_{j(b)} over the neighbours of site (x, y), border spins included,
    /// with c_b given by `bond`. The local field is h_i = J·(this sum) + h.
    #[inline]
    pub fn neighbour_sum<T: BondSum>(
        &self,
        spins: &[i8],
        x: usize,
        y: usize,
        bond: impl Fn(usize) -> T,
    ) -> T {
        let mut sum = T::default();
        for slot in self.neighbours_at(x, y) {
            match slot {
                Neighbour::Site { site, bond: b } => sum = sum + bond(b).times(spins[site]),
                Neighbour::Border { spin, bond: b } => sum = sum + bond(b).times(spin),
                Neighbour::None => {}
            }
        }
        sum
    }

    /// The local field h_i = J Σ_{b∋i} c_b s_j + h on site i.
    pub fn local_field(&self, spins: &[i8], i: usize) -> f64 {
        let (x, y) = (i % self.width, i / self.width);
        self.coupling * self.neighbour_sum(spins, x, y, |b| self.bond(b)) + self.field
    }

    /// The bond factor J·c_b of the bond in a neighbour slot, if the slot has a bond (to
    /// another site or to the border); `None` for a missing bond at an open edge.
    pub fn slot_coupling(&self, slot: Neighbour) -> Option<f64> {
        match slot {
            Neighbour::Site { bond, .. } | Neighbour::Border { bond, .. } => {
                Some(self.coupling * self.bond(bond))
            }
            Neighbour::None => None,
        }
    }

    /// Whether the plaquette with top-left corner (x, y) is frustrated: no state satisfies
    /// all four of its bonds, which happens exactly when the product of their couplings
    /// Π J c_b around it is negative. A ferromagnet and an antiferromagnet on the square
    /// lattice have no frustrated plaquette; a spin glass has many. `None` where the
    /// plaquette does not exist (the last column or row of an open or fixed lattice).
    pub fn plaquette_frustrated(&self, x: usize, y: usize) -> Option<bool> {
        let [_, right, _, down] = self.neighbours_at(x, y);
        let (Neighbour::Site { site: r, .. }, Neighbour::Site { site: d, .. }) = (right, down)
        else {
            return None;
        };
        let w = self.width;
        let [_, _, _, right_down] = self.neighbours_at(r % w, r / w);
        let [_, down_right, _, _] = self.neighbours_at(d % w, d / w);
        let product: f64 = [right, down, right_down, down_right]
            .into_iter()
            .map(|slot| self.slot_coupling(slot))
            .product::<Option<f64>>()?;
        Some(product < 0.0)
    }

    /// Σ_b c_b s_i s_j over all bonds (each once), plus Σ c_b g s_i over bonds to the
    /// border, for integer couplings: E = −J·(this) − h·M exactly. Recomputed from scratch.
    pub fn bond_sum(&self, spins: &[i8]) -> i64 {
        match (&self.couplings, self.boundary) {
            (Couplings::Uniform, Boundary::Periodic) => {
                uniform_periodic_bond_sum(spins, self.width)
            }
            (Couplings::Real(_), _) => self.pair_sum(spins, |b| i64::from(self.integer_bond(b))),
            _ => self.integer_bond_sum_by_rows(spins),
        }
    }

    /// [`Self::bond_sum`] for integer couplings and any boundary, site by site in row order
    /// with the bond indices of [`Self::neighbours_at`] (right bond 2i, down bond 2i + 1; a
    /// fixed border's left and upper bonds are the row's last right bond and the column's
    /// last down bond) but without building the neighbour slots: for the recount after a
    /// reset or a restore of a large glass (a fill of a 1024² open ±J glass with its recount,
    /// natively: 4.1 ms by the general walk, 2.3 ms by rows).
    fn integer_bond_sum_by_rows(&self, spins: &[i8]) -> i64 {
        let (w, h) = (self.width, self.height);
        let c = |b: usize| i64::from(self.integer_bond(b));
        let s = |i: usize| i64::from(spins[i]);
        let periodic = self.boundary == Boundary::Periodic;
        let border = match self.boundary {
            Boundary::Fixed(spin) => Some(i64::from(spin)),
            _ => None,
        };
        let mut sum = 0i64;
        for y in 0..h {
            for x in 0..w {
                let i = x + w * y;
                let mut field = 0;
                if x + 1 < w {
                    field += c(2 * i) * s(i + 1);
                } else if periodic {
                    field += c(2 * i) * s(i + 1 - w);
                } else if let Some(g) = border {
                    field += c(2 * i) * g;
                }
                if y + 1 < h {
                    field += c(2 * i + 1) * s(i + w);
                } else if periodic {
                    field += c(2 * i + 1) * s(x);
                } else if let Some(g) = border {
                    field += c(2 * i + 1) * g;
                }
                if let Some(g) = border {
                    if x == 0 {
                        field += c(2 * (i + w - 1)) * g;
                    }
                    if y == 0 {
                        field += c(2 * (i + w * (h - 1)) + 1) * g;
                    }
                }
                sum += s(i) * field;
            }
        }
        sum
    }

    /// The same sum with real bond factors.
    pub fn real_bond_sum(&self, spins: &[i8]) -> f64 {
        self.pair_sum(spins, |b| self.bond(b))
    }

    /// Σ over bonds, each once: each site's right and down slots (and, for fixed borders,
    /// its left and up border slots too).
    fn pair_sum<T>(&self, spins: &[i8], bond: impl Fn(usize) -> T) -> T
    where
        T: BondSum + std::iter::Sum<T>,
    {
        (0..self.len())
            .map(|i| {
                let [left, right, up, down] = self.neighbours(i);
                let mut sum = T::default();
                for slot in [right, down] {
                    match slot {
                        Neighbour::Site { site, bond: b } => sum = sum + bond(b).times(spins[site]),
                        Neighbour::Border { spin, bond: b } => sum = sum + bond(b).times(spin),
                        Neighbour::None => {}
                    }
                }
                for slot in [left, up] {
                    if let Neighbour::Border { spin, bond: b } = slot {
                        sum = sum + bond(b).times(spin);
                    }
                }
                sum.times(spins[i])
            })
            .sum()
    }

    /// M = Σ_i s_i.
    pub fn magnetization(&self, spins: &[i8]) -> i64 {
        spins.iter().map(|&s| i64::from(s)).sum()
    }

    /// E = −J·(bond sum) − h·M from integer sums (integer couplings only).
    pub fn energy_from_sums(&self, bond_sum: i64, magnetization: i64) -> f64 {
        -self.coupling * bond_sum as f64 - self.field * magnetization as f64
    }

    /// The same model as a dense Ising network: w_ij = J Σ_{b joins i, j} c_b (two bonds
    /// between the same pair, as on a side of 2, add up) and θ_i = h + J Σ_{b to the
    /// border} c_b g, so that E_network(s) = E_lattice(s) for every state. Used for exact
    /// enumeration of small lattices; refused above [`Network::MAX_UNITS`] spins.
    pub fn to_network(&self) -> Result<Network, ParamError> {
        let n = self.len();
        if n > Network::MAX_UNITS {
            return Err(ParamError::OutOfRange {
                field: "spins",
                value: n as f64,
                min: 1.0,
                max: Network::MAX_UNITS as f64,
            });
        }
        let j = self.coupling;
        let mut weights = vec![0.0; n * n];
        let mut biases = vec![self.field; n];
        for (i, bias) in biases.iter_mut().enumerate() {
            for slot in self.neighbours(i) {
                match slot {
                    Neighbour::Site { site, bond } => weights[i * n + site] += j * self.bond(bond),
                    Neighbour::Border { spin, bond } => {
                        *bias += j * self.bond(bond) * f64::from(spin)
                    }
                    Neighbour::None => {}
                }
            }
        }
        Network::new(SpinKind::Ising, weights, biases)
    }

    /// E(s), recomputed from scratch.
    pub fn energy(&self, spins: &[i8]) -> f64 {
        let magnetization = self.magnetization(spins);
        if self.has_integer_couplings() {
            self.energy_from_sums(self.bond_sum(spins), magnetization)
        } else {
            -self.coupling * self.real_bond_sum(spins) - self.field * magnetization as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(n: Neighbour) -> usize {
        match n {
            Neighbour::Site { site, .. } => site,
            other => panic!("expected a site, got {other:?}"),
        }
    }

    #[test]
    fn the_row_bond_sums_equal_the_walk_over_neighbour_slots() {
        // Every size from 2 (where left and right are the same site, two bonds) up, every
        // boundary, uniform and ±J bonds, with spins from a seeded stream: the row sums
        // against the general walk over neighbour slots.
        let boundaries = [
            Boundary::Periodic,
            Boundary::Open,
            Boundary::Fixed(1),
            Boundary::Fixed(-1),
        ];
        for (k, (w, h)) in [(2, 2), (2, 5), (5, 2), (3, 3), (7, 4), (64, 33), (1024, 3)]
            .into_iter()
            .enumerate()
        {
            let uniform = Lattice::new(w as f64, h as f64, 1.0, 0.0).unwrap();
            let mut rng = crate::rng::seeded_rng(k as u64);
            for (lattice, boundary) in boundaries.iter().flat_map(|&boundary| {
                let bounded = uniform.clone().with_boundary(boundary).unwrap();
                let glass = bounded.clone().with_plus_minus_bonds(k as u64).unwrap();
                [(bounded, boundary), (glass, boundary)]
            }) {
                let spins: Vec<i8> = (0..w * h)
                    .map(|_| {
                        if rand::Rng::next_u32(&mut rng) >> 31 == 1 {
                            1
                        } else {
                            -1
                        }
                    })
                    .collect();
                let walk = lattice.pair_sum(&spins, |b| i64::from(lattice.integer_bond(b)));
                assert_eq!(lattice.bond_sum(&spins), walk, "{w}×{h} {boundary:?}");
            }
            let lattice = uniform;
            for _ in 0..4 {
                let spins: Vec<i8> = (0..w * h)
                    .map(|_| {
                        if rand::Rng::next_u32(&mut rng) >> 31 == 1 {
                            1
                        } else {
                            -1
                        }
                    })
                    .collect();
                let walk = lattice.pair_sum(&spins, |b| i64::from(lattice.integer_bond(b)));
                assert_eq!(lattice.bond_sum(&spins), walk, "{w}×{h}");
            }
            assert_eq!(lattice.bond_sum(&vec![1; w * h]), 2 * (w * h) as i64);
        }
    }

    #[test]
    fn neighbours_wrap_around_periodic_boundaries() {
        let lattice = Lattice::new(4.0, 3.0, 1.0, 0.0).unwrap();
        assert_eq!(lattice.neighbours(0).map(site), [3, 1, 8, 4]);
        assert_eq!(lattice.neighbours(11).map(site), [10, 8, 7, 3]);
        assert_eq!(lattice.neighbours(5).map(site), [4, 6, 1, 9]);
    }

    #[test]
    fn every_bond_is_seen_from_both_of_its_ends() {
        // Each bond index appears in exactly two site slots (periodic) — the bookkeeping
        // and the local fields depend on it.
        let lattice = Lattice::new(5.0, 3.0, 1.0, 0.0).unwrap();
        let mut seen = vec![0; 2 * lattice.len()];
        for i in 0..lattice.len() {
            for slot in lattice.neighbours(i) {
                if let Neighbour::Site { bond, .. } = slot {
                    seen[bond] += 1;
                }
            }
        }
        assert!(seen.iter().all(|&k| k == 2), "{seen:?}");
    }

    #[test]
    fn ground_states_of_the_ferromagnet_have_energy_minus_two_per_spin() {
        let lattice = Lattice::new(5.0, 3.0, 1.0, 0.0).unwrap();
        assert_eq!(lattice.energy(&[1; 15]), -30.0);
        assert_eq!(lattice.energy(&[-1; 15]), -30.0);
    }

    #[test]
    fn open_and_fixed_boundaries_count_their_bonds() {
        // 4×3 open lattice: 3·3 horizontal + 4·2 vertical = 17 bonds.
        let open = Lattice::new(4.0, 3.0, 1.0, 0.0)
            .unwrap()
            .with_boundary(Boundary::Open)
            .unwrap();
        assert_eq!(open.energy(&[1; 12]), -17.0);
        // Fixed +1 border: the 24 periodic bonds, the 7 wrap bonds each counted at both
        // ends against the border: all up gives −(17 + 2·7) = −31; all down +14 − 17 = −3.
        let fixed = open.clone().with_boundary(Boundary::Fixed(1)).unwrap();
        assert_eq!(fixed.energy(&[1; 12]), -31.0);
        assert_eq!(fixed.energy(&[-1; 12]), -17.0 + 14.0);
    }

    #[test]
    fn local_field_gives_the_energy_change_of_a_flip() {
        for boundary in [Boundary::Periodic, Boundary::Open, Boundary::Fixed(-1)] {
            let lattice = Lattice::new(4.0, 5.0, 0.7, -0.3)
                .unwrap()
                .with_boundary(boundary)
                .unwrap()
                .with_gaussian_bonds(3)
                .unwrap();
            let mut rng = seeded_rng(5);
            let mut spins: Vec<i8> = (0..20)
                .map(|_| if rng.next_u32() & 1 == 1 { 1 } else { -1 })
                .collect();
            for i in 0..20 {
                let before = lattice.energy(&spins);
                let h = lattice.local_field(&spins, i);
                let s = spins[i];
                spins[i] = -s;
                let change = lattice.energy(&spins) - before;
                assert!((change - (-(f64::from(-s - s)) * h)).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn the_network_form_has_the_same_energy_in_every_state() {
        for boundary in [Boundary::Periodic, Boundary::Open, Boundary::Fixed(1)] {
            for lattice in [
                Lattice::new(2.0, 3.0, 0.8, 0.3).unwrap(),
                Lattice::new(3.0, 3.0, -1.0, 0.0)
                    .unwrap()
                    .with_plus_minus_bonds(2)
                    .unwrap(),
                Lattice::new(4.0, 2.0, 1.2, -0.4)
                    .unwrap()
                    .with_gaussian_bonds(9)
                    .unwrap(),
            ] {
                let lattice = lattice.with_boundary(boundary).unwrap();
                let network = lattice.to_network().unwrap();
                let n = lattice.len();
                for state in 0..1usize << n {
                    let spins: Vec<i8> = (0..n)
                        .map(|i| if state >> i & 1 == 1 { 1 } else { -1 })
                        .collect();
                    let (a, b) = (lattice.energy(&spins), network.energy(&spins));
                    assert!(
                        (a - b).abs() < 1e-12 * (1.0 + a.abs()),
                        "{boundary:?}: {a} {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn only_spin_glasses_have_frustrated_plaquettes() {
        let ferro = Lattice::square(6).unwrap();
        let anti = Lattice::new(6.0, 6.0, -1.0, 0.0).unwrap();
        for lattice in [&ferro, &anti] {
            for (x, y) in (0..6).flat_map(|y| (0..6).map(move |x| (x, y))) {
                assert_eq!(lattice.plaquette_frustrated(x, y), Some(false));
            }
        }
        // One negative bond (site 0's right bond) frustrates the two plaquettes it borders:
        // the one below it, (0, 0), and the one above it, which wraps to (0, 5).
        let mut bonds = vec![1; 72];
        bonds[0] = -1;
        let one = ferro
            .clone()
            .with_couplings(Couplings::PlusMinus(bonds))
            .unwrap();
        let frustrated: Vec<(usize, usize)> = (0..6)
            .flat_map(|y| (0..6).map(move |x| (x, y)))
            .filter(|&(x, y)| one.plaquette_frustrated(x, y) == Some(true))
            .collect();
        assert_eq!(frustrated, [(0, 0), (0, 5)]);
        let open = one.with_boundary(Boundary::Open).unwrap();
        assert_eq!(open.plaquette_frustrated(5, 2), None);
        assert_eq!(open.plaquette_frustrated(0, 5), None);
        assert_eq!(open.plaquette_frustrated(0, 0), Some(true));
    }

    #[test]
    fn field_lowers_the_energy_of_aligned_spins() {
        let lattice = Lattice::new(3.0, 3.0, 1.0, 0.5).unwrap();
        assert_eq!(lattice.energy(&[1; 9]), -18.0 - 4.5);
        assert_eq!(lattice.energy(&[-1; 9]), -18.0 + 4.5);
    }

    #[test]
    fn bad_sizes_couplings_and_bonds_are_rejected_with_the_field_named() {
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
        let lattice = Lattice::square(3).unwrap();
        let err = lattice
            .clone()
            .with_couplings(Couplings::Real(vec![1.0; 17]))
            .unwrap_err();
        assert!(err.to_string().contains("need 18 bond values"), "{err}");
        let mut bad = vec![1.0; 18];
        bad[4] = f64::NAN;
        assert!(
            lattice
                .clone()
                .with_couplings(Couplings::Real(bad))
                .is_err()
        );
        assert!(
            lattice
                .clone()
                .with_couplings(Couplings::PlusMinus(vec![2; 18]))
                .is_err()
        );
        assert!(lattice.with_boundary(Boundary::Fixed(0)).is_err());
        assert!(Boundary::parse("twisted").is_err());
    }
}
