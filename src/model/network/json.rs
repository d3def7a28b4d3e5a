//! The network file: [`Network::to_json`] writes it and [`Network::from_json`] reads it
//! back bit for bit. The reader streams the matrices straight into flat vectors (8 bytes
//! per weight, however long the text) and remembers which field it is reading, so that
//! every error, even in a truncated file, names the field.

use super::{Network, SpinKind};
use crate::error::ParamError;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;

impl Network {
    /// The network as JSON, in the format [`Network::from_json`] reads:
    /// `{"units": n, "spin": "ising"|"binary", "weights": [[…]], "biases": […],
    /// "visible": k}` plus `"mask": [[…]]` (booleans) when the network has a mask.
    /// Numbers are written in the shortest form that reads back to the same `f64`.
    pub fn to_json(&self) -> String {
        #[derive(serde::Serialize)]
        struct File<'a> {
            units: usize,
            spin: SpinKind,
            weights: Vec<&'a [f64]>,
            biases: &'a [f64],
            visible: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            mask: Option<Vec<&'a [bool]>>,
        }
        let n = self.units;
        let file = File {
            units: n,
            spin: self.kind,
            weights: self.weights.chunks(n).collect(),
            biases: &self.biases,
            visible: self.visible,
            mask: self.mask.as_ref().map(|m| m.chunks(n).collect()),
        };
        serde_json::to_string(&file).expect("a network always serialises")
    }

    /// Reads a network from JSON:
    ///
    /// `{"units": n, "spin": "ising"|"binary", "weights": [[…]], "biases": […]}`
    ///
    /// with optional `"visible": k` (default n: all visible) and `"mask": [[…]]` (entries
    /// `true`/`false` or `1`/`0`). `weights` and `mask` are n rows of n entries. Every check
    /// of [`Network::new`], [`Network::with_visible`] and [`Network::with_mask`] applies;
    /// unknown or repeated keys, inputs longer than [`Network::MAX_JSON_BYTES`], truncated
    /// or malformed JSON are refused with an error naming the field being read (and the
    /// line and column).
    pub fn from_json(text: &str) -> Result<Network, ParamError> {
        if text.len() > Self::MAX_JSON_BYTES {
            return Err(ParamError::Invalid {
                field: "network",
                reason: format!(
                    "the JSON is {} bytes long; at most {} are accepted",
                    text.len(),
                    Self::MAX_JSON_BYTES
                ),
            });
        }
        let field = Cell::new("network");
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let file = FileSeed { field: &field }
            .deserialize(&mut deserializer)
            .and_then(|file| {
                field.set("network");
                deserializer.end().map(|()| file)
            })
            .map_err(|e| ParamError::Invalid {
                field: field.get(),
                reason: e.to_string(),
            })?;
        file.into_network()
    }
}

// ---------------------------------------------------------------------------------------

/// The fields of a network file as read, before the checks of [`Network::new`].
#[derive(Default)]
struct NetworkFile {
    units: Option<f64>,
    spin: Option<String>,
    weights: Option<Matrix<f64>>,
    biases: Option<Vec<f64>>,
    visible: Option<f64>,
    mask: Option<Matrix<bool>>,
}

/// A JSON array of arrays, flattened: `values` row after row, `row_lengths` per row.
struct Matrix<T> {
    values: Vec<T>,
    row_lengths: Vec<usize>,
}

impl<T: Copy> Matrix<T> {
    /// The n×n entries, or an error naming `field` if the shape is not n rows of n.
    fn square(self, field: &'static str, n: usize) -> Result<Vec<T>, ParamError> {
        let rows = self.row_lengths.len();
        let shape_error = |detail: String| ParamError::Invalid {
            field,
            reason: format!("need {n} rows of {n} entries for {n} units, but {detail}"),
        };
        if rows != n {
            return Err(shape_error(format!("there are {rows} rows")));
        }
        if let Some(i) = self.row_lengths.iter().position(|&len| len != n) {
            return Err(shape_error(format!(
                "row {i} has {} entries",
                self.row_lengths[i]
            )));
        }
        Ok(self.values)
    }
}

impl NetworkFile {
    fn into_network(self) -> Result<Network, ParamError> {
        let missing = |field: &'static str| ParamError::Invalid {
            field,
            reason: "missing: a network file needs units, spin, weights and biases".into(),
        };
        let units = self.units.ok_or_else(|| missing("units"))?;
        let units = crate::error::whole_in("units", units, 1, Network::MAX_UNITS as u64)? as usize;
        let kind = SpinKind::parse(self.spin.as_deref().ok_or_else(|| missing("spin"))?)?;
        let weights = self
            .weights
            .ok_or_else(|| missing("weights"))?
            .square("weights", units)?;
        let biases = self.biases.ok_or_else(|| missing("biases"))?;
        if biases.len() != units {
            return Err(ParamError::Invalid {
                field: "biases",
                reason: format!(
                    "need {units} entries for {units} units, got {}",
                    biases.len()
                ),
            });
        }
        let mut network = Network::new(kind, weights, biases)?;
        if let Some(visible) = self.visible {
            let visible = crate::error::whole_in("visible", visible, 0, units as u64)?;
            network = network.with_visible(visible as usize)?;
        }
        if let Some(mask) = self.mask {
            network = network.with_mask(mask.square("mask", units)?)?;
        }
        Ok(network)
    }
}

/// The keys of a network file, and the field name each error is reported under.
const KEYS: [&str; 6] = ["units", "spin", "weights", "biases", "visible", "mask"];

struct FileSeed<'a> {
    field: &'a Cell<&'static str>,
}

impl<'de> DeserializeSeed<'de> for FileSeed<'_> {
    type Value = NetworkFile;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<NetworkFile, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for FileSeed<'_> {
    type Value = NetworkFile;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object with units, spin, weights and biases")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NetworkFile, A::Error> {
        let mut file = NetworkFile::default();
        loop {
            self.field.set("network");
            let Some(key) = map.next_key::<String>()? else {
                break;
            };
            let Some(&field) = KEYS.iter().find(|&&k| k == key) else {
                return Err(de::Error::custom(format!(
                    "unknown key '{key}' (allowed: units, spin, weights, biases, visible, mask)"
                )));
            };
            self.field.set(field);
            let repeated = match field {
                "units" => file.units.replace(map.next_value()?).is_some(),
                "spin" => file.spin.replace(map.next_value()?).is_some(),
                "weights" => file
                    .weights
                    .replace(map.next_value_seed(MatrixSeed::<f64>::new())?)
                    .is_some(),
                "biases" => file
                    .biases
                    .replace(map.next_value_seed(RowSeed {
                        row: None,
                        out: &mut Vec::new(),
                    })?)
                    .is_some(),
                "visible" => file.visible.replace(map.next_value()?).is_some(),
                _ => file
                    .mask
                    .replace(map.next_value_seed(MatrixSeed::<bool>::new())?)
                    .is_some(),
            };
            if repeated {
                return Err(de::Error::custom("the key appears twice"));
            }
        }
        Ok(file)
    }
}

/// A JSON value read without failing, so that the reader can say which entry was wrong.
enum Entry {
    Number(f64),
    Bool(bool),
    Other(&'static str),
}

impl<'de> de::Deserialize<'de> for Entry {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        struct EntryVisitor;
        impl<'de> Visitor<'de> for EntryVisitor {
            type Value = Entry;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Entry, E> {
                Ok(Entry::Number(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Entry, E> {
                Ok(Entry::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Entry, E> {
                Ok(Entry::Number(v as f64))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Entry, E> {
                Ok(Entry::Bool(v))
            }
            fn visit_str<E>(self, _: &str) -> Result<Entry, E> {
                Ok(Entry::Other("a string"))
            }
            fn visit_unit<E>(self) -> Result<Entry, E> {
                Ok(Entry::Other("null"))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Entry::Other("an array"))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Entry::Other("an object"))
            }
        }
        d.deserialize_any(EntryVisitor)
    }
}

/// What a matrix or vector entry may be: a number (weights, biases) or a mask entry.
trait Cellular: Copy {
    const WHAT: &'static str;
    fn from_entry(entry: Entry) -> Result<Self, &'static str>;
}

impl Cellular for f64 {
    const WHAT: &'static str = "a number";
    fn from_entry(entry: Entry) -> Result<f64, &'static str> {
        match entry {
            Entry::Number(x) => Ok(x),
            Entry::Bool(_) => Err("a boolean"),
            Entry::Other(what) => Err(what),
        }
    }
}

impl Cellular for bool {
    const WHAT: &'static str = "true, false, 1 or 0";
    fn from_entry(entry: Entry) -> Result<bool, &'static str> {
        match entry {
            Entry::Bool(b) => Ok(b),
            Entry::Number(1.0) => Ok(true),
            Entry::Number(0.0) => Ok(false),
            Entry::Number(_) => Err("another number"),
            Entry::Other(what) => Err(what),
        }
    }
}

/// Reads an array of arrays into a [`Matrix`], at most MAX_UNITS rows of MAX_UNITS.
struct MatrixSeed<T>(std::marker::PhantomData<T>);

impl<T> MatrixSeed<T> {
    fn new() -> Self {
        MatrixSeed(std::marker::PhantomData)
    }
}

impl<'de, T: Cellular> DeserializeSeed<'de> for MatrixSeed<T> {
    type Value = Matrix<T>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Matrix<T>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Cellular> Visitor<'de> for MatrixSeed<T> {
    type Value = Matrix<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows (arrays)")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Matrix<T>, A::Error> {
        let mut matrix = Matrix {
            values: Vec::new(),
            row_lengths: Vec::new(),
        };
        loop {
            let row = matrix.row_lengths.len();
            let before = matrix.values.len();
            let seed = RowSeed {
                row: Some(row),
                out: &mut matrix.values,
            };
            if seq.next_element_seed(seed)?.is_none() {
                break;
            }
            if row == Network::MAX_UNITS {
                return Err(de::Error::custom(format!(
                    "more than {} rows",
                    Network::MAX_UNITS
                )));
            }
            matrix.row_lengths.push(matrix.values.len() - before);
        }
        Ok(matrix)
    }
}

/// Reads one array of entries, appending them to `out` (at most MAX_UNITS); `row` is the
/// row number inside a matrix (for messages), `None` for a plain vector. Returns a copy
/// of what it read only for plain vectors.
struct RowSeed<'a, T> {
    row: Option<usize>,
    out: &'a mut Vec<T>,
}

impl<'de, T: Cellular> DeserializeSeed<'de> for RowSeed<'_, T> {
    type Value = Vec<T>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: Cellular> Visitor<'de> for RowSeed<'_, T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.row {
            Some(row) => write!(f, "row {row} as an array of entries"),
            None => f.write_str("an array of numbers"),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut column = 0;
        while let Some(entry) = seq.next_element::<Entry>()? {
            let at = match self.row {
                Some(row) => format!("[{row}][{column}]"),
                None => format!("[{column}]"),
            };
            if column == Network::MAX_UNITS {
                return Err(de::Error::custom(format!(
                    "more than {} entries in {}",
                    Network::MAX_UNITS,
                    self.row
                        .map_or("the array".to_string(), |r| format!("row {r}"))
                )));
            }
            let value = T::from_entry(entry).map_err(|got| {
                de::Error::custom(format!("entry {at} must be {}, got {got}", T::WHAT))
            })?;
            self.out.push(value);
            column += 1;
        }
        Ok(if self.row.is_none() {
            std::mem::take(self.out)
        } else {
            Vec::new()
        })
    }
}
