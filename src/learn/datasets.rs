//! Training sets: lists of binary visible vectors (0 = off, 1 = on), each with the
//! wiring it implies.
//!
//! - The n-h-n *encoders* of Ackley, Hinton & Sejnowski (1985): two visible groups V1
//!   (units 0..n) and V2 (units n..2n) and h hidden units (2n..2n + h). V1 and V2 are each
//!   fully connected inside, both are fully connected to the hidden group, the hidden
//!   units are not connected to each other and V1 is not connected to V2, so everything
//!   V1 tells V2 passes through the h hidden units. The n training vectors have exactly
//!   one unit of V1 and the corresponding unit of V2 on.
//! - *Bars and stripes* on an s × s grid (MacKay's test set): every image whose rows are
//!   each all on or all off (stripes), or whose columns are (bars); 2·2^s − 2 distinct
//!   images (all-off and all-on belong to both families and are listed once): 14 for
//!   3 × 3, 30 for 4 × 4. Pixel (row r, column c) is visible unit r·s + c.
//! - *10-pixel images*: docs/references.md mentions the seeds' 10-pixel images without
//!   defining them, so boltzlab defines its own: six shapes on a 2 × 5 grid (pixel
//!   (r, c) is unit 5r + c), drawn below. Each is a solid block or line, so that a
//!   visible-only machine (pairwise weights and biases, no hidden units) can make them
//!   its most probable states and then generate them.
//! - *User patterns*: any list of 0/1 vectors of one length, checked.

use super::check_patterns;
use crate::error::ParamError;
use crate::model::{Network, SpinKind};
use std::ops::Range;

/// The six 10-pixel images, as rows of a 2 × 5 grid (`#` on, `.` off):
///
/// ```text
/// top bar   bottom bar  left block  right block  centre post  corners
/// #####     .....       ##...       ...##        ..#..        #...#
/// .....     #####       ##...       ...##        ..#..        #...#
/// ```
pub const PIXEL_IMAGES: [[&str; 2]; 6] = [
    ["#####", "....."],
    [".....", "#####"],
    ["##...", "##..."],
    ["...##", "...##"],
    ["..#..", "..#.."],
    ["#...#", "#...#"],
];

/// The n-h-n encoder's layout: V1 = units 0..n, V2 = n..2n, hidden = 2n..2n + h.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Encoder {
    /// n, the size of each visible group.
    pub group: usize,
    /// h, the number of hidden units.
    pub hidden: usize,
}

impl Encoder {
    /// V1, the input group.
    pub fn v1(&self) -> Range<usize> {
        0..self.group
    }

    /// V2, the output group.
    pub fn v2(&self) -> Range<usize> {
        self.group..2 * self.group
    }

    /// The hidden units.
    pub fn hidden_units(&self) -> Range<usize> {
        2 * self.group..2 * self.group + self.hidden
    }

    /// 2n + h.
    pub fn units(&self) -> usize {
        2 * self.group + self.hidden
    }

    /// The paper's wiring (n×n row-major, over all units): inside V1, inside V2, V1–hidden
    /// and V2–hidden allowed; V1–V2 and hidden–hidden forbidden; no self-connections.
    pub fn mask(&self) -> Vec<bool> {
        let n = self.units();
        let group = |i: usize| {
            if self.v1().contains(&i) {
                0
            } else if self.v2().contains(&i) {
                1
            } else {
                2
            }
        };
        let mut mask = vec![false; n * n];
        for i in 0..n {
            for j in 0..n {
                mask[i * n + j] = i != j
                    && match (group(i), group(j)) {
                        (0, 0) | (1, 1) => true,
                        (0, 1) | (1, 0) | (2, 2) => false,
                        _ => true,
                    };
            }
        }
        mask
    }

    /// The n training vectors (over the 2n visible units): vector k has V1 unit k and V2
    /// unit k on, everything else off.
    pub fn patterns(&self) -> Vec<Vec<u8>> {
        (0..self.group)
            .map(|k| {
                let mut v = vec![0; 2 * self.group];
                v[k] = 1;
                v[self.group + k] = 1;
                v
            })
            .collect()
    }
}

/// The training sets the CLI and the page offer by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, tsify::Tsify)]
#[tsify(type = "'4-2-4' | '4-3-4' | '8-3-8' | '40-10-40' | 'bars-3x3' | 'bars-4x4' | 'pixels-10'")]
pub enum Problem {
    /// 4-2-4 encoder.
    Encoder4x2,
    /// 4-3-4 encoder.
    Encoder4x3,
    /// 8-3-8 encoder.
    Encoder8x3,
    /// 40-10-40 encoder.
    Encoder40x10,
    /// Bars and stripes 3 × 3, visible units only.
    Bars3,
    /// Bars and stripes 4 × 4 with 4 hidden units.
    Bars4,
    /// The six 10-pixel images, visible units only.
    Pixels10,
}

impl Problem {
    /// Every problem, in the order of the CLI's list.
    pub const ALL: [Problem; 7] = [
        Problem::Encoder4x2,
        Problem::Encoder4x3,
        Problem::Encoder8x3,
        Problem::Encoder40x10,
        Problem::Bars3,
        Problem::Bars4,
        Problem::Pixels10,
    ];

    /// The name on the command line: `4-2-4`, `4-3-4`, `8-3-8`, `40-10-40`, `bars-3x3`,
    /// `bars-4x4`, `pixels-10`.
    pub fn name(self) -> &'static str {
        match self {
            Problem::Encoder4x2 => "4-2-4",
            Problem::Encoder4x3 => "4-3-4",
            Problem::Encoder8x3 => "8-3-8",
            Problem::Encoder40x10 => "40-10-40",
            Problem::Bars3 => "bars-3x3",
            Problem::Bars4 => "bars-4x4",
            Problem::Pixels10 => "pixels-10",
        }
    }

    /// Parses a problem name; the error names the field `problem` and the choices.
    pub fn parse(name: &str) -> Result<Problem, ParamError> {
        Problem::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "problem",
                value: name.to_string(),
                allowed: "4-2-4, 4-3-4, 8-3-8, 40-10-40, bars-3x3, bars-4x4, pixels-10",
            })
    }

    /// The encoder layout, for the four encoders.
    pub fn encoder(self) -> Option<Encoder> {
        let (group, hidden) = match self {
            Problem::Encoder4x2 => (4, 2),
            Problem::Encoder4x3 => (4, 3),
            Problem::Encoder8x3 => (8, 3),
            Problem::Encoder40x10 => (40, 10),
            _ => return None,
        };
        Some(Encoder { group, hidden })
    }

    /// The training set and its wiring.
    pub fn dataset(self) -> Dataset {
        match self {
            Problem::Bars3 => Dataset::bars_and_stripes(3, 0),
            Problem::Bars4 => Dataset::bars_and_stripes(4, 4),
            Problem::Pixels10 => Dataset::pixels10(),
            _ => Dataset::for_encoder(self.encoder().expect("the rest are encoders")),
        }
    }
}

/// A training set: the visible vectors, the number of hidden units and the wiring.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    name: String,
    visible: usize,
    hidden: usize,
    patterns: Vec<Vec<u8>>,
    mask: Option<Vec<bool>>,
    encoder: Option<Encoder>,
}

impl Dataset {
    /// The n-h-n encoder's training set with the paper's wiring ([`Encoder::mask`]).
    pub fn for_encoder(encoder: Encoder) -> Dataset {
        Dataset {
            name: format!("{}-{}-{}", encoder.group, encoder.hidden, encoder.group),
            visible: 2 * encoder.group,
            hidden: encoder.hidden,
            patterns: encoder.patterns(),
            mask: Some(encoder.mask()),
            encoder: Some(encoder),
        }
    }

    /// Bars and stripes on a side × side grid (2 ≤ side ≤ 5 is sensible; any side ≥ 1
    /// works) with `hidden` hidden units, every pair connected. The stripes come first
    /// (row subsets in binary order, row r on when bit r is set), then the bars other
    /// than all-off and all-on (column subsets likewise).
    pub fn bars_and_stripes(side: usize, hidden: usize) -> Dataset {
        let mut patterns = Vec::new();
        for subset in 0..1usize << side {
            patterns.push(
                (0..side * side)
                    .map(|p| (subset >> (p / side) & 1) as u8)
                    .collect(),
            );
        }
        for subset in 1..(1usize << side) - 1 {
            patterns.push(
                (0..side * side)
                    .map(|p| (subset >> (p % side) & 1) as u8)
                    .collect(),
            );
        }
        Dataset {
            name: format!("bars-{side}x{side}"),
            visible: side * side,
            hidden,
            patterns,
            mask: None,
            encoder: None,
        }
    }

    /// The six 10-pixel images of [`PIXEL_IMAGES`], visible units only.
    pub fn pixels10() -> Dataset {
        let patterns = PIXEL_IMAGES
            .iter()
            .map(|rows| {
                rows.iter()
                    .flat_map(|row| row.bytes().map(|b| u8::from(b == b'#')))
                    .collect()
            })
            .collect();
        Dataset {
            name: "pixels-10".into(),
            visible: 10,
            hidden: 0,
            patterns,
            mask: None,
            encoder: None,
        }
    }

    /// User patterns: `patterns` (each of length `visible`, values 0 or 1, at least one)
    /// and `hidden` hidden units, every pair connected. Errors name `patterns`,
    /// `visible` (1 ≤ visible) or `units` (visible + hidden ≤ [`Network::MAX_UNITS`]).
    pub fn custom(
        visible: usize,
        hidden: usize,
        patterns: Vec<Vec<u8>>,
    ) -> Result<Dataset, ParamError> {
        let units = visible.saturating_add(hidden);
        if visible == 0 || visible > Network::MAX_UNITS {
            return Err(ParamError::OutOfRange {
                field: "visible",
                value: visible as f64,
                min: 1.0,
                max: Network::MAX_UNITS as f64,
            });
        }
        if units > Network::MAX_UNITS {
            return Err(ParamError::OutOfRange {
                field: "units",
                value: units as f64,
                min: 1.0,
                max: Network::MAX_UNITS as f64,
            });
        }
        check_patterns(&patterns, visible)?;
        Ok(Dataset {
            name: "patterns".into(),
            visible,
            hidden,
            patterns,
            mask: None,
            encoder: None,
        })
    }

    /// The set's name (`4-2-4`, `bars-3x3`, `pixels-10`, `patterns`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The training vectors, 0 (off) or 1 (on) per visible unit.
    pub fn patterns(&self) -> &[Vec<u8>] {
        &self.patterns
    }

    /// Number of visible units.
    pub fn visible(&self) -> usize {
        self.visible
    }

    /// Number of hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// visible + hidden.
    pub fn units(&self) -> usize {
        self.visible + self.hidden
    }

    /// The wiring mask, if the set implies one (encoders).
    pub fn mask(&self) -> Option<&[bool]> {
        self.mask.as_deref()
    }

    /// The encoder layout, for encoders.
    pub fn encoder(&self) -> Option<Encoder> {
        self.encoder
    }

    /// A network for this set: `kind` units, all weights and biases zero (the paper's
    /// start), the visible count and the wiring mask set.
    pub fn network(&self, kind: SpinKind) -> Network {
        let network = Network::zeros(kind, self.units())
            .and_then(|n| n.with_visible(self.visible))
            .expect("a dataset's size was checked");
        match &self.mask {
            Some(mask) => network
                .with_mask(mask.clone())
                .expect("a dataset's mask is symmetric with a false diagonal"),
            None => network,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_and_stripes_have_2_to_the_side_plus_1_minus_2_distinct_images() {
        for (side, count) in [(3, 14), (4, 30)] {
            let set = Dataset::bars_and_stripes(side, 0);
            assert_eq!(set.patterns().len(), count);
            let mut distinct = set.patterns().to_vec();
            distinct.sort();
            distinct.dedup();
            assert_eq!(distinct.len(), count);
            for p in set.patterns() {
                let rows_uniform =
                    (0..side).all(|r| (0..side).all(|c| p[r * side + c] == p[r * side]));
                let cols_uniform = (0..side).all(|c| (0..side).all(|r| p[r * side + c] == p[c]));
                assert!(rows_uniform || cols_uniform);
            }
        }
    }

    #[test]
    fn encoder_wiring_joins_each_visible_group_to_the_hidden_group_only() {
        let e = Encoder {
            group: 4,
            hidden: 2,
        };
        let net = Dataset::for_encoder(e).network(SpinKind::Binary);
        assert_eq!((net.len(), net.visible()), (10, 8));
        assert!(net.is_allowed(0, 3) && net.is_allowed(4, 7));
        assert!(net.is_allowed(0, 8) && net.is_allowed(5, 9));
        assert!(!net.is_allowed(0, 4) && !net.is_allowed(3, 7) && !net.is_allowed(8, 9));
        assert_eq!(e.patterns()[2], vec![0, 0, 1, 0, 0, 0, 1, 0]);
    }

    #[test]
    fn pixel_images_are_six_distinct_vectors_of_ten() {
        let set = Dataset::pixels10();
        assert_eq!(set.patterns().len(), 6);
        assert_eq!(set.patterns()[2], vec![1, 1, 0, 0, 0, 1, 1, 0, 0, 0]);
        let mut distinct = set.patterns().to_vec();
        distinct.dedup();
        assert_eq!(distinct.len(), 6);
    }

    #[test]
    fn user_patterns_are_checked() {
        assert!(Dataset::custom(3, 1, vec![vec![0, 1, 1], vec![1, 0, 0]]).is_ok());
        for (patterns, needle) in [
            (vec![], "at least one"),
            (vec![vec![0, 1]], "has 2 values"),
            (vec![vec![0, 1, 2]], "is 2"),
        ] {
            let err = Dataset::custom(3, 0, patterns).unwrap_err();
            assert!(err.to_string().starts_with("patterns"), "{err}");
            assert!(err.to_string().contains(needle), "{err}");
        }
        assert!(Dataset::custom(0, 1, vec![vec![]]).is_err());
        for problem in Problem::ALL {
            assert_eq!(Problem::parse(problem.name()), Ok(problem));
        }
        assert!(Problem::parse("xor").is_err());
    }
}
