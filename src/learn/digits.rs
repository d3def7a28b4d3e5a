//! The 8×8 handwritten digits: 1797 binarized images of the UCI optical-digits test set
//! (Alpaydin & Kaynak 1998, CC BY 4.0; data/digits/README.md gives the source, the format
//! and the credit), embedded in the binary so the page has them too.
//!
//! Pixel (row r, column c) is visible unit 8r + c; a pixel is on when its original value
//! (0–16) was at least 8. The split is fixed: 1500 training and 297 test images under a
//! seeded shuffle ([`split`]).

use crate::error::ParamError;
use crate::rng::{random_index, seeded_rng};

/// The packed file, as shipped (data/digits/digits8.bin).
pub const DIGITS_FILE: &[u8] = include_bytes!("../../data/digits/digits8.bin");
/// Pixels per image: 64 (8 × 8).
pub const PIXELS: usize = 64;
/// Training images in the fixed split: 1500.
pub const TRAINING_IMAGES: usize = 1500;
/// The seed of the split's shuffle: 1998, the year of the data set.
pub const SPLIT_SEED: u64 = 1998;

const MAGIC: &[u8; 7] = b"DIGITS8";
const VERSION: u8 = 1;
const HEADER: usize = 11;
const RECORD: usize = 9;
const CHECKSUM: usize = 4;

/// Binarized 8×8 images with their labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Digits {
    images: Vec<Vec<u8>>,
    labels: Vec<u8>,
}

impl Digits {
    /// The images, each 64 values 0 (off) or 1 (on), row-major.
    pub fn images(&self) -> &[Vec<u8>] {
        &self.images
    }

    /// The label (0–9) of each image.
    pub fn labels(&self) -> &[u8] {
        &self.labels
    }

    /// The number of images.
    pub fn len(&self) -> usize {
        self.images.len()
    }

    /// Whether there are no images (never, for a parsed file).
    pub fn is_empty(&self) -> bool {
        self.images.is_empty()
    }
}

/// FNV-1a, 32-bit: h ← (h ⊕ byte) · 16777619 from h = 2166136261.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Reads a packed digits file (format in data/digits/README.md). Checks, in order: the
/// magic and version, the length (11 + 9n + 4 bytes for the n the header gives, n ≥ 1),
/// the checksum, every label 0–9. Errors name `digits file`.
pub fn parse(bytes: &[u8]) -> Result<Digits, ParamError> {
    let bad = |reason: String| ParamError::Invalid {
        field: "digits file",
        reason,
    };
    if bytes.len() < HEADER + CHECKSUM || &bytes[..7] != MAGIC {
        return Err(bad(
            "not a packed digits file (it must start with DIGITS8)".into()
        ));
    }
    if bytes[7] != VERSION {
        return Err(bad(format!(
            "format version {} is not supported (only {VERSION})",
            bytes[7]
        )));
    }
    let count = usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    let expected = HEADER + RECORD * count + CHECKSUM;
    if count == 0 || bytes.len() != expected {
        return Err(bad(format!(
            "the header announces {count} images (at least 1), which take {expected} bytes, \
             but the file has {}",
            bytes.len()
        )));
    }
    let body = &bytes[..expected - CHECKSUM];
    let stored = u32::from_le_bytes(bytes[expected - CHECKSUM..].try_into().expect("4 bytes"));
    if fnv1a32(body) != stored {
        return Err(bad(format!(
            "checksum mismatch (stored {stored:#010x}, computed {:#010x}): the file is damaged",
            fnv1a32(body)
        )));
    }
    let mut images = Vec::with_capacity(count);
    let mut labels = Vec::with_capacity(count);
    for (k, record) in body[HEADER..].chunks_exact(RECORD).enumerate() {
        let label = record[8];
        if label > 9 {
            return Err(bad(format!(
                "image {k} has label {label}: labels are 0 to 9"
            )));
        }
        images.push((0..PIXELS).map(|p| record[p / 8] >> (p % 8) & 1).collect());
        labels.push(label);
    }
    Ok(Digits { images, labels })
}

/// The shipped digits ([`DIGITS_FILE`], 1797 images).
pub fn digits() -> Digits {
    parse(DIGITS_FILE).expect("the shipped digits file is valid")
}

/// The fixed permutation of 0..n behind the split: Fisher–Yates, for i = n − 1 down to 1
/// swap i with j = [`random_index`](i + 1), on the stream of `seeded_rng(SPLIT_SEED)`.
pub fn split_permutation(n: usize) -> Vec<usize> {
    let mut rng = seeded_rng(SPLIT_SEED);
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = random_index(&mut rng, (i + 1) as u32) as usize;
        order.swap(i, j);
    }
    order
}

/// The fixed split of the shipped digits: (training, test) = the first 1500 images of
/// [`split_permutation`] and the other 297, each with its label.
pub fn split() -> (Digits, Digits) {
    let all = digits();
    let order = split_permutation(all.len());
    let pick = |indices: &[usize]| Digits {
        images: indices.iter().map(|&k| all.images[k].clone()).collect(),
        labels: indices.iter().map(|&k| all.labels[k]).collect(),
    };
    (
        pick(&order[..TRAINING_IMAGES]),
        pick(&order[TRAINING_IMAGES..]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_file_has_1797_images_with_the_known_label_counts() {
        let d = digits();
        assert_eq!(d.len(), 1797);
        let mut counts = [0usize; 10];
        for &l in d.labels() {
            counts[usize::from(l)] += 1;
        }
        assert_eq!(counts, [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]);
        // The whole file, trailer included, pins the packing (data/digits/README.md).
        assert_eq!(fnv1a32(DIGITS_FILE), 0xa6b5_19e7);
        // The CSV's first row, binarized at ≥ 8: a zero.
        let first: String = d.images()[0].iter().map(|b| char::from(b'0' + b)).collect();
        assert_eq!(
            first,
            "0001100000111100001001100010011000100110001001000010110000011000"
        );
        assert_eq!(d.labels()[0], 0);
    }

    #[test]
    fn the_split_is_1500_and_297_and_its_permutation_is_pinned() {
        let order = split_permutation(1797);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1797).collect::<Vec<_>>());
        let (train, test) = split();
        assert_eq!((train.len(), test.len()), (1500, 297));
        // A change to the generator or the shuffle would change the split: pin it.
        let bytes: Vec<u8> = order
            .iter()
            .flat_map(|&k| (k as u16).to_le_bytes())
            .collect();
        assert_eq!(fnv1a32(&bytes), PINNED_SPLIT);
        assert_eq!(test.images()[0], digits().images()[order[1500]]);
    }

    const PINNED_SPLIT: u32 = 0xdefe_e1dc;
}
