//! The images a restricted-machine run learns: a built-in set ([`DatasetChoice`]: the 4×4
//! bars and stripes, the 8×8 digits) or the user's own file, read and checked once into
//! [`Images`] (training set, test set, and the width they are drawn at).

use super::MAX_VISIBLE;
use crate::app::lattice::wire::Named;
use crate::error::ParamError;
use crate::learn::Dataset;
use crate::learn::digits;

/// A built-in dataset, by its name on the wire and in sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, tsify::Tsify)]
#[tsify(type = "'bars-4x4' | 'digits8'")]
pub enum DatasetChoice {
    /// `bars-4x4`: the 30 bars-and-stripes patterns of 4×4, trained and tested on the same set.
    BarsAndStripes4,
    /// `digits8`: the 8×8 digits, the fixed 1500/297 split.
    Digits8,
}

impl DatasetChoice {
    pub const ALL: [DatasetChoice; 2] = [DatasetChoice::BarsAndStripes4, DatasetChoice::Digits8];

    pub fn name(self) -> &'static str {
        match self {
            DatasetChoice::BarsAndStripes4 => "bars-4x4",
            DatasetChoice::Digits8 => "digits8",
        }
    }

    /// The dataset called `name`; any other name is refused, naming the field `dataset`.
    pub fn parse(name: &str) -> Result<DatasetChoice, ParamError> {
        DatasetChoice::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .ok_or_else(|| ParamError::UnknownChoice {
                field: "dataset",
                value: name.into(),
                allowed: "bars-4x4, digits8",
            })
    }
}

impl Named for DatasetChoice {
    const ALL: &'static [Self] = &DatasetChoice::ALL;
    fn name(self) -> &'static str {
        DatasetChoice::name(self)
    }
    fn parse(name: &str) -> Result<Self, ParamError> {
        DatasetChoice::parse(name)
    }
}

/// The images of a run: the set it learns, the set it is tested on (the same images for
/// every set but the digits), the dataset's name (`custom` for the user's) and the pixels
/// per row.
#[derive(Debug, Clone)]
pub struct Images {
    pub name: String,
    pub width: usize,
    pub train: Vec<Vec<u8>>,
    pub test: Vec<Vec<u8>>,
}

impl Images {
    /// The images of a built-in dataset.
    pub fn built_in(choice: DatasetChoice) -> Images {
        let (train, test, width) = match choice {
            DatasetChoice::BarsAndStripes4 => {
                let set = Dataset::bars_and_stripes(4, 0);
                (set.patterns().to_vec(), set.patterns().to_vec(), 4)
            }
            DatasetChoice::Digits8 => {
                let (train, test) = digits::split();
                (train.images().to_vec(), test.images().to_vec(), 8)
            }
        };
        Images {
            name: choice.name().into(),
            width,
            train,
            test,
        }
    }

    /// The user's dataset: either a file in the digits' own format (`DIGITS8` header,
    /// checksummed; its images are both the training and the test set) or text, one image
    /// per line of 0s and 1s, all of one length (at most 1024; drawn as a square when the
    /// length is a square, else as one row). Errors name `dataset`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Images, ParamError> {
        let dataset = |reason: String| ParamError::Invalid {
            field: "dataset",
            reason,
        };
        let images = if bytes.starts_with(b"DIGITS8") {
            digits::parse(bytes)
                .map_err(|e| dataset(format!("not a valid digits file: {e}")))?
                .images()
                .to_vec()
        } else {
            let text = std::str::from_utf8(bytes)
                .map_err(|_| dataset("neither a digits file nor text of 0s and 1s".into()))?;
            crate::app::parse::parse_patterns(text).map_err(|e| dataset(e.to_string()))?
        };
        let visible = images[0].len();
        if visible > MAX_VISIBLE {
            return Err(dataset(format!(
                "images of {visible} pixels; at most {MAX_VISIBLE}"
            )));
        }
        let side = (visible as f64).sqrt() as usize;
        let width = if side * side == visible {
            side
        } else {
            visible
        };
        Ok(Images {
            name: "custom".into(),
            width,
            train: images.clone(),
            test: images,
        })
    }

    /// Pixels per image, V.
    pub fn visible(&self) -> usize {
        self.train[0].len()
    }
}
