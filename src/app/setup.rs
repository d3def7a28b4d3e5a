//! The parameters of a lattice experiment, as a share link carries them.
//!
//! A [`LatticeSetup`] names everything needed to start a run from scratch: the model, the
//! side, T, h, the dynamics, the visiting order, the boundary and the seed. Because a seed
//! fixes the whole trajectory, the same setup replays the same film. In a URL fragment it
//! reads `model=ferromagnet&size=256&T=2.269&h=0&rule=heat-bath&order=sequential&boundary=periodic&seed=1`;
//! [`LatticeSetup::from_fragment`] checks every value and names the first bad one.

use crate::app::count::Count;
use crate::dynamics::{Dynamics, Order};
use crate::error::{ParamError, TemperatureDomain, check_temperature, finite_in, shorten};
use crate::model::{Boundary, Lattice};

/// The energy models the page offers on the square lattice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'ferromagnet' | 'antiferromagnet' | 'spin-glass-pm' | 'spin-glass-gaussian'")]
pub enum LatticeModel {
    /// J = +1 on every bond: neighbours like to agree.
    Ferromagnet,
    /// J = −1 on every bond: neighbours like to disagree (a checkerboard ground state).
    Antiferromagnet,
    /// Each bond J c_b with c_b = ±1 at random: the Edwards–Anderson ±J spin glass.
    PlusMinusGlass,
    /// Each bond J c_b with c_b ~ N(0, 1): the Gaussian spin glass.
    GaussianGlass,
}

impl LatticeModel {
    pub const ALL: [LatticeModel; 4] = [
        LatticeModel::Ferromagnet,
        LatticeModel::Antiferromagnet,
        LatticeModel::PlusMinusGlass,
        LatticeModel::GaussianGlass,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LatticeModel::Ferromagnet => "ferromagnet",
            LatticeModel::Antiferromagnet => "antiferromagnet",
            LatticeModel::PlusMinusGlass => "spin-glass-pm",
            LatticeModel::GaussianGlass => "spin-glass-gaussian",
        }
    }

    pub fn parse(name: &str) -> Result<LatticeModel, ParamError> {
        LatticeModel::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "model",
                value: name.to_string(),
                allowed: "ferromagnet, antiferromagnet, spin-glass-pm, spin-glass-gaussian",
            })
    }

    /// The uniform coupling J (the glasses scale their random c_b by J = 1).
    pub fn coupling(self) -> f64 {
        match self {
            LatticeModel::Antiferromagnet => -1.0,
            _ => 1.0,
        }
    }

    /// The square lattice of this model: side L, field h, the boundary, and for the glasses
    /// bonds drawn from [`bond_seed`]`(seed)`.
    pub fn lattice(
        self,
        side: usize,
        field: f64,
        boundary: Boundary,
        seed: u64,
    ) -> Result<Lattice, ParamError> {
        let lattice = Lattice::new(side as f64, side as f64, self.coupling(), field)?
            .with_boundary(boundary)?;
        match self {
            LatticeModel::Ferromagnet | LatticeModel::Antiferromagnet => Ok(lattice),
            LatticeModel::PlusMinusGlass => lattice.with_plus_minus_bonds(bond_seed(seed)),
            LatticeModel::GaussianGlass => lattice.with_gaussian_bonds(bond_seed(seed)),
        }
    }
}

/// The seed a glass's bonds are drawn from: the run's seed with its bits mixed, so that the
/// bonds do not reuse the random words of the initial spins (which come from `seed` itself).
pub fn bond_seed(seed: u64) -> u64 {
    seed ^ 0x5851_f42d_4c95_7f2d
}

/// Smallest side the page accepts.
pub const MIN_SIZE: usize = Lattice::MIN_SIDE;
/// Largest side the page accepts: 2048² = 4.2 million spins, still drawn every frame.
pub const MAX_SIZE: usize = 2048;
/// Largest temperature the page accepts (T = 0 is allowed: energy descent).
pub const MAX_TEMPERATURE: f64 = 100.0;
/// Largest |h| the page accepts.
pub const MAX_FIELD: f64 = 10.0;
pub use super::count::MAX_SEED;

/// Everything needed to start a lattice run from scratch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatticeSetup {
    pub model: LatticeModel,
    /// Side L of the L×L lattice.
    pub size: usize,
    pub temperature: f64,
    /// External field h.
    pub field: f64,
    pub dynamics: Dynamics,
    pub order: Order,
    pub boundary: Boundary,
    pub seed: u64,
}

impl Default for LatticeSetup {
    /// A 256×256 ferromagnet at T_c with heat-bath ticks in sequential order, seed 1.
    fn default() -> Self {
        LatticeSetup {
            model: LatticeModel::Ferromagnet,
            size: 256,
            temperature: 2.269,
            field: 0.0,
            dynamics: Dynamics::Single(crate::Rule::HeatBath),
            order: Order::Sequential,
            boundary: Boundary::Periodic,
            seed: 1,
        }
    }
}

/// The side L: [`MIN_SIZE`] to [`MAX_SIZE`].
pub const SIZE: Count = Count {
    field: "size",
    min: MIN_SIZE as u64,
    max: MAX_SIZE as u64,
};

/// Checks a side from outside: a whole number from [`MIN_SIZE`] to [`MAX_SIZE`].
pub fn check_size(size: f64) -> Result<usize, ParamError> {
    SIZE.read(size).map(|s| s as usize)
}

/// The page's temperatures: 0 ≤ T ≤ [`MAX_TEMPERATURE`], finite.
pub const PAGE_TEMPERATURE: TemperatureDomain = TemperatureDomain::Control {
    max: MAX_TEMPERATURE,
};

/// Checks a field from outside: |h| ≤ [`MAX_FIELD`].
pub fn check_field(field: f64) -> Result<f64, ParamError> {
    finite_in("field h", field, -MAX_FIELD, MAX_FIELD)
}

/// Checks a seed from outside: a whole number from 0 to 2^53.
pub fn check_seed(seed: f64) -> Result<u64, ParamError> {
    super::count::SEED.read(seed)
}

impl LatticeSetup {
    /// Checks every value against the page's ranges.
    pub fn check(self) -> Result<Self, ParamError> {
        check_size(self.size as f64)?;
        check_temperature(self.temperature, PAGE_TEMPERATURE)?;
        check_field(self.field)?;
        check_seed(self.seed as f64)?;
        Ok(self)
    }

    /// The lattice this setup describes.
    pub fn lattice(&self) -> Result<Lattice, ParamError> {
        self.model
            .lattice(self.size, self.field, self.boundary, self.seed)
    }

    /// The URL fragment (without `#`) that restores this setup.
    pub fn to_fragment(&self) -> String {
        format!(
            "model={}&size={}&T={}&h={}&rule={}&order={}&boundary={}&seed={}",
            self.model.name(),
            self.size,
            self.temperature,
            self.field,
            self.dynamics.name(),
            self.order.name(),
            self.boundary.name(),
            self.seed
        )
    }

    /// Reads a URL fragment (with or without `#`): `key=value` pairs joined by `&`, keys
    /// `model`, `size`, `T`, `h`, `rule`, `order`, `boundary`, `seed`. Keys left out keep
    /// their defaults; an unknown or repeated key, or a bad value, is an error naming it.
    pub fn from_fragment(fragment: &str) -> Result<Self, ParamError> {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let mut setup = LatticeSetup::default();
        let mut seen: Vec<&str> = Vec::new();
        for pair in fragment.split('&').filter(|p| !p.is_empty()) {
            let (key, value) = pair.split_once('=').ok_or_else(|| ParamError::Invalid {
                field: "link",
                reason: format!("'{}' is not key=value", shorten(pair)),
            })?;
            if seen.contains(&key) {
                return Err(ParamError::Invalid {
                    field: "link",
                    reason: format!("'{}' is given twice", shorten(key)),
                });
            }
            seen.push(key);
            let number = |field: &'static str| {
                value.parse::<f64>().map_err(|_| ParamError::Invalid {
                    field,
                    reason: format!("'{}' is not a number", shorten(value)),
                })
            };
            match key {
                "model" => setup.model = LatticeModel::parse(value)?,
                "size" => setup.size = check_size(number("size")?)?,
                "T" => {
                    setup.temperature = check_temperature(number("temperature")?, PAGE_TEMPERATURE)?
                }
                "h" => setup.field = check_field(number("field h")?)?,
                "rule" => setup.dynamics = Dynamics::parse(value)?,
                "order" => setup.order = Order::parse(value)?,
                "boundary" => setup.boundary = Boundary::parse(value)?,
                "seed" => setup.seed = check_seed(number("seed")?)?,
                _ => {
                    return Err(ParamError::UnknownChoice {
                        field: "link parameter",
                        value: key.to_string(),
                        allowed: "model, size, T, h, rule, order, boundary, seed",
                    });
                }
            }
        }
        setup.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rule;

    #[test]
    fn a_fragment_round_trips_every_setting() {
        let setup = LatticeSetup {
            model: LatticeModel::GaussianGlass,
            size: 48,
            temperature: 0.3125,
            field: -0.25,
            dynamics: Dynamics::Single(Rule::Metropolis),
            order: Order::Checkerboard,
            boundary: Boundary::Fixed(-1),
            seed: (1 << 53) - 1,
        };
        let fragment = setup.to_fragment();
        assert_eq!(LatticeSetup::from_fragment(&fragment), Ok(setup));
        assert_eq!(
            LatticeSetup::from_fragment(&format!("#{fragment}")),
            Ok(setup)
        );
        assert_eq!(LatticeSetup::from_fragment(""), Ok(LatticeSetup::default()));
        let partial = LatticeSetup::from_fragment("T=1.5&rule=wolff").unwrap();
        assert_eq!(partial.temperature, 1.5);
        assert_eq!(partial.dynamics, Dynamics::Wolff);
        assert_eq!(partial.size, LatticeSetup::default().size);
    }

    #[test]
    fn bad_fragments_name_what_is_wrong() {
        // A 100 kB link is refused with a short message.
        let long = format!("T={}", "9".repeat(100_000));
        let err = LatticeSetup::from_fragment(&long).unwrap_err().to_string();
        assert!(err.starts_with("temperature must be a finite number between 0 and 100"));
        let long = format!("model={}", "x".repeat(100_000));
        assert!(
            LatticeSetup::from_fragment(&long)
                .unwrap_err()
                .to_string()
                .len()
                < 300
        );
        let long = format!("T={}x", "9".repeat(100_000));
        assert!(
            LatticeSetup::from_fragment(&long)
                .unwrap_err()
                .to_string()
                .len()
                < 300
        );
        for (fragment, needle) in [
            ("T=-1", "temperature must be between 0 and 100, got -1"),
            ("T=NaN", "temperature must be a finite number"),
            ("T=hot", "'hot' is not a number"),
            ("size=7.5", "size must be a whole number"),
            ("size=100000", "size must be between 2 and 2048"),
            ("h=11", "field h must be between -10 and 10"),
            ("model=sk", "model must be one of"),
            ("rule=glauber", "dynamics must be one of"),
            ("order=spiral", "order must be one of"),
            ("boundary=twisted", "boundary must be one of"),
            ("seed=-4", "seed must be between 0"),
            ("colour=red", "link parameter must be one of"),
            ("T=1&T=2", "'T' is given twice"),
            ("garbage", "'garbage' is not key=value"),
            ("T=NaN", "between 0 and 100"),
            ("size=2.5", "size must be a whole number between 2 and 2048"),
            ("T=0x10", "'0x10' is not a number"),
            ("T=%zz", "'%zz' is not a number"),
        ] {
            let err = LatticeSetup::from_fragment(fragment)
                .unwrap_err()
                .to_string();
            assert!(err.contains(needle), "{fragment}: {err}");
        }
    }

    #[test]
    fn glass_bonds_come_from_the_seed_and_not_from_the_spins_stream() {
        let a = LatticeModel::PlusMinusGlass
            .lattice(8, 0.0, Boundary::Periodic, 3)
            .unwrap();
        let b = LatticeModel::PlusMinusGlass
            .lattice(8, 0.0, Boundary::Periodic, 3)
            .unwrap();
        let c = LatticeModel::PlusMinusGlass
            .lattice(8, 0.0, Boundary::Periodic, 4)
            .unwrap();
        assert_eq!(a, b);
        assert_ne!(a.couplings(), c.couplings());
        assert_ne!(
            a.couplings(),
            Lattice::square(8)
                .unwrap()
                .with_plus_minus_bonds(3)
                .unwrap()
                .couplings()
        );
        assert_eq!(
            LatticeModel::Antiferromagnet
                .lattice(4, 0.0, Boundary::Open, 1)
                .unwrap()
                .coupling(),
            -1.0
        );
    }
}
