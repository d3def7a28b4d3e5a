//! MNIST (LeCun, Cortes & Burges): 28×28 handwritten digits, 60,000 training and 10,000
//! test images, binarized as Salakhutdinov & Murray (2008) did and packed one bit per
//! pixel (data/mnist/README.md gives the source, the credit, the terms and the format).
//!
//! - [`pack_idx`] turns the original IDX files into the packed file: each greyscale pixel
//!   g ∈ 0..=255 becomes 1 with probability g/255 ([`binarize`]), drawn once from
//!   `seeded_rng(seed)` ([`BINARIZATION_SEED`] for the shipped file), so a Rust command
//!   rebuilds the shipped file byte for byte.
//! - [`parse`] is the validating reader the CLI (and the page) use: it refuses a
//!   truncated, wrong-sized, damaged (checksum) or mislabelled file and names the problem.
//! - [`parse_text`] reads the plain-text image files a user brings: one image per line of
//!   `0`/`1` characters, all of one length, each optionally followed by a space and a
//!   label 0–9.
//!
//! The file is not embedded in the library (the wasm stays small): the caller reads it.

use crate::error::ParamError;
use crate::rng::seeded_rng;
use rand::Rng;

/// The seed of the shipped file's binarization: 2008, the year of Salakhutdinov & Murray.
pub const BINARIZATION_SEED: u64 = 2008;
/// The shipped file's name under the crate's `data/mnist/`.
pub const FILE_NAME: &str = "mnist.bin";
/// The magic at the start of a packed file (7 bytes), followed by [`VERSION`].
pub const MAGIC: &[u8; 7] = b"MNISTBZ";
/// The packed format's version.
pub const VERSION: u8 = 1;
/// Header bytes: magic and version (8), training and test counts (4 + 4), rows and
/// columns (2 + 2), seed (8), and per set the greyscale moments Σp and Σp(1 − p) (4 × 8).
pub const HEADER: usize = 60;
const CHECKSUM: usize = 4;
/// The most pixels an image may have (the restricted machine's visible-layer limit).
pub const MAX_PIXELS: usize = crate::model::rbm::MAX_LAYER_UNITS;
/// The most images a packed or text file may hold (in all).
pub const MAX_IMAGES: usize = 1 << 20;

/// Binary images of one size, packed one bit per pixel, with optional labels 0–9.
#[derive(Debug, Clone, PartialEq)]
pub struct Images {
    pixels: usize,
    /// ⌈pixels/8⌉ bytes per image; pixel k is bit k mod 8 (least significant first) of
    /// byte ⌊k/8⌋; padding bits are 0.
    bits: Vec<u8>,
    labels: Option<Vec<u8>>,
}

impl Images {
    /// Pixels per image.
    pub fn pixels(&self) -> usize {
        self.pixels
    }

    /// The number of images.
    pub fn len(&self) -> usize {
        self.bits.len() / bytes_per_image(self.pixels)
    }

    /// Whether there are no images.
    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    /// Image `k` as `pixels` values 0 (off) or 1 (on), row-major. Panics if k ≥ len.
    pub fn image(&self, k: usize) -> Vec<u8> {
        let width = bytes_per_image(self.pixels);
        let packed = &self.bits[k * width..(k + 1) * width];
        (0..self.pixels)
            .map(|p| packed[p / 8] >> (p % 8) & 1)
            .collect()
    }

    /// The first `count` images (all of them if there are fewer), unpacked.
    pub fn vectors(&self, count: usize) -> Vec<Vec<u8>> {
        (0..count.min(self.len())).map(|k| self.image(k)).collect()
    }

    /// The labels, one per image, if the file gave them.
    pub fn labels(&self) -> Option<&[u8]> {
        self.labels.as_deref()
    }

    /// How many images carry each label 0–9 (all zero without labels).
    pub fn label_counts(&self) -> [usize; 10] {
        let mut counts = [0; 10];
        for &l in self.labels().unwrap_or(&[]) {
            counts[usize::from(l)] += 1;
        }
        counts
    }

    /// The number of pixels that are on, over all images.
    pub fn ones(&self) -> u64 {
        self.bits.iter().map(|b| u64::from(b.count_ones())).sum()
    }
}

/// What the packer recorded of a set's greyscale pixels, p = g/255: Σp, the expected
/// number of on pixels after the binarization, and Σp(1 − p), its variance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// Σ p over every pixel of the set.
    pub expected_ones: f64,
    /// Σ p(1 − p) over every pixel of the set.
    pub variance: f64,
}

/// A packed MNIST file: training and test images with their labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Mnist {
    /// Image rows (28).
    pub rows: usize,
    /// Image columns (28).
    pub cols: usize,
    /// The binarization's seed.
    pub seed: u64,
    /// The training images (60,000), labelled.
    pub train: Images,
    /// The test images (10,000), labelled.
    pub test: Images,
    /// The training set's greyscale moments.
    pub train_moments: Moments,
    /// The test set's greyscale moments.
    pub test_moments: Moments,
}

/// Bytes per packed image: ⌈pixels/8⌉.
pub fn bytes_per_image(pixels: usize) -> usize {
    pixels.div_ceil(8)
}

/// The stochastic binarization of one greyscale pixel g ∈ 0..=255 from one uniform 32-bit
/// word r: on (1) iff 255·r < g·2^32, i.e. with probability ⌈g·2^32/255⌉/2^32 = g/255
/// (within 2^−32). g = 0 is always off, g = 255 always on.
pub fn binarize(grey: u8, r: u32) -> u8 {
    u8::from(u64::from(r) * 255 < u64::from(grey) << 32)
}

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF),
/// the checksum of `gzip` and `zip`: crc32(b"123456789") = 0xCBF43926.
pub fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut n = 0;
        while n < 256 {
            let mut c = n as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[n] = c;
            n += 1;
        }
        table
    };
    !bytes.iter().fold(!0u32, |c, &b| {
        TABLE[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

fn invalid(field: &'static str) -> impl Fn(String) -> ParamError {
    move |reason| ParamError::Invalid { field, reason }
}

fn be_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// The greyscale images of an IDX image file (magic 0x00000803, then big-endian u32
/// count, rows and columns, then count·rows·columns bytes): (count, rows, cols, pixels).
/// Errors name `idx images`.
pub fn parse_idx_images(bytes: &[u8]) -> Result<(usize, usize, usize, &[u8]), ParamError> {
    let bad = invalid("idx images");
    if bytes.len() < 16 || be_u32(bytes, 0) != 0x0803 {
        return Err(bad(
            "not an IDX image file (it must start with 00 00 08 03)".into(),
        ));
    }
    let [count, rows, cols] = [4, 8, 12].map(|at| be_u32(bytes, at) as usize);
    // In u64: rows·cols and count·pixels may pass 2^32 (usize on wasm32).
    let pixels = rows as u64 * cols as u64;
    if count == 0 || pixels == 0 || pixels > MAX_PIXELS as u64 || count > MAX_IMAGES {
        return Err(bad(format!(
            "{count} images of {rows}×{cols}: need 1 to {MAX_IMAGES} images of 1 to \
             {MAX_PIXELS} pixels"
        )));
    }
    let expected = 16 + count as u64 * pixels;
    if bytes.len() as u64 != expected {
        return Err(bad(format!(
            "the header announces {count} images of {rows}×{cols}, {expected} bytes, but \
             the file has {}",
            bytes.len()
        )));
    }
    Ok((count, rows, cols, &bytes[16..]))
}

/// The labels of an IDX label file (magic 0x00000801, big-endian u32 count, then one
/// byte per label, each 0–9). Errors name `idx labels`.
pub fn parse_idx_labels(bytes: &[u8]) -> Result<&[u8], ParamError> {
    let bad = invalid("idx labels");
    if bytes.len() < 8 || be_u32(bytes, 0) != 0x0801 {
        return Err(bad(
            "not an IDX label file (it must start with 00 00 08 01)".into(),
        ));
    }
    let count = be_u32(bytes, 4) as usize;
    if bytes.len() != 8 + count {
        return Err(bad(format!(
            "the header announces {count} labels but the file has {} bytes after it",
            bytes.len() - 8
        )));
    }
    if let Some(k) = bytes[8..].iter().position(|&l| l > 9) {
        return Err(bad(format!(
            "label {k} is {}: labels are 0 to 9",
            bytes[8 + k]
        )));
    }
    Ok(&bytes[8..])
}

/// The packed file of the IDX training and test sets (images and labels, as
/// [`parse_idx_images`] and [`parse_idx_labels`] read them): every pixel binarized by
/// [`binarize`] with one 32-bit word of `seeded_rng(seed)`, in file order (all training
/// images, then all test images; one word per pixel whatever its value, so the stream does
/// not depend on the picture). Format in data/mnist/README.md. Errors name the IDX file at
/// fault, or `idx` when the sets disagree (image sizes, image and label counts).
pub fn pack_idx(
    train_images: &[u8],
    train_labels: &[u8],
    test_images: &[u8],
    test_labels: &[u8],
    seed: u64,
) -> Result<Vec<u8>, ParamError> {
    let (n_train, rows, cols, train_grey) = parse_idx_images(train_images)?;
    let (n_test, test_rows, test_cols, test_grey) = parse_idx_images(test_images)?;
    let (train_labels, test_labels) = (
        parse_idx_labels(train_labels)?,
        parse_idx_labels(test_labels)?,
    );
    let bad = invalid("idx");
    if (rows, cols) != (test_rows, test_cols) {
        return Err(bad(format!(
            "training images are {rows}×{cols} but test images are {test_rows}×{test_cols}"
        )));
    }
    if rows > usize::from(u16::MAX) || cols > usize::from(u16::MAX) {
        return Err(bad(format!("{rows}×{cols} images: at most 65535 a side")));
    }
    for (set, images, labels) in [
        ("training", n_train, train_labels.len()),
        ("test", n_test, test_labels.len()),
    ] {
        if images != labels {
            return Err(bad(format!(
                "{images} {set} images but {labels} {set} labels"
            )));
        }
    }
    let pixels = rows * cols;
    let width = bytes_per_image(pixels);
    let mut out = Vec::with_capacity(HEADER + (n_train + n_test) * (width + 1) + CHECKSUM);
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.extend_from_slice(&(n_train as u32).to_le_bytes());
    out.extend_from_slice(&(n_test as u32).to_le_bytes());
    out.extend_from_slice(&(rows as u16).to_le_bytes());
    out.extend_from_slice(&(cols as u16).to_le_bytes());
    out.extend_from_slice(&seed.to_le_bytes());
    for grey in [train_grey, test_grey] {
        let moments = greyscale_moments(grey);
        out.extend_from_slice(&moments.expected_ones.to_le_bytes());
        out.extend_from_slice(&moments.variance.to_le_bytes());
    }
    let mut rng = seeded_rng(seed);
    for grey in [train_grey, test_grey] {
        for image in grey.chunks_exact(pixels) {
            let mut packed = vec![0u8; width];
            for (p, &g) in image.iter().enumerate() {
                packed[p / 8] |= binarize(g, rng.next_u32()) << (p % 8);
            }
            out.extend_from_slice(&packed);
        }
    }
    out.extend_from_slice(train_labels);
    out.extend_from_slice(test_labels);
    let checksum = crc32(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    Ok(out)
}

/// Σp and Σp(1 − p) over greyscale pixels, p = g/255, summed in pixel order.
pub fn greyscale_moments(grey: &[u8]) -> Moments {
    let (mut expected_ones, mut variance) = (0.0, 0.0);
    for &g in grey {
        let p = f64::from(g) / 255.0;
        expected_ones += p;
        variance += p * (1.0 - p);
    }
    Moments {
        expected_ones,
        variance,
    }
}

fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn le_f64(bytes: &[u8], at: usize) -> f64 {
    f64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Reads a packed MNIST file (format in data/mnist/README.md). Checks, in order: the
/// magic and version; the header's sizes (at least one training image, 1 to
/// [`MAX_PIXELS`] pixels, at most [`MAX_IMAGES`] images); the length the header implies
/// (a shorter file is *truncated*, a longer one has *extra bytes*); the CRC-32; every
/// label 0–9; every padding bit 0; finite moments with 0 ≤ Σp(1 − p) ≤ Σp ≤ the set's
/// pixels. Errors name `mnist file` and say which check failed.
pub fn parse(bytes: &[u8]) -> Result<Mnist, ParamError> {
    let bad = invalid("mnist file");
    if bytes.len() < 8 || &bytes[..7] != MAGIC {
        return Err(bad(format!(
            "not a packed MNIST file (it must start with {})",
            String::from_utf8_lossy(MAGIC)
        )));
    }
    if bytes[7] != VERSION {
        return Err(bad(format!(
            "format version {} is not supported (only {VERSION})",
            bytes[7]
        )));
    }
    if bytes.len() < HEADER + CHECKSUM {
        return Err(bad(format!(
            "truncated: {} bytes, shorter than the {} bytes of the header and checksum alone",
            bytes.len(),
            HEADER + CHECKSUM
        )));
    }
    let n_train = le_u32(bytes, 8) as usize;
    let n_test = le_u32(bytes, 12) as usize;
    let rows = usize::from(u16::from_le_bytes([bytes[16], bytes[17]]));
    let cols = usize::from(u16::from_le_bytes([bytes[18], bytes[19]]));
    let seed = u64::from_le_bytes(bytes[20..28].try_into().expect("8 bytes"));
    // rows·cols < 2^32 and n_train + n_test < 2^33: counted in u64 (usize on wasm32).
    let pixels = rows as u64 * cols as u64;
    if n_train == 0
        || pixels == 0
        || pixels > MAX_PIXELS as u64
        || n_train as u64 + n_test as u64 > MAX_IMAGES as u64
    {
        return Err(bad(format!(
            "wrong size: the header announces {n_train} training and {n_test} test images \
             of {rows}×{cols} pixels; a file holds 1 to {MAX_IMAGES} images (at least one \
             for training) of 1 to {MAX_PIXELS} pixels"
        )));
    }
    let pixels = pixels as usize;
    let width = bytes_per_image(pixels);
    let images = n_train + n_test;
    let expected = HEADER + images * (width + 1) + CHECKSUM;
    if bytes.len() != expected {
        let what = if bytes.len() < expected {
            "truncated"
        } else {
            "wrong size"
        };
        return Err(bad(format!(
            "{what}: the header announces {n_train} training and {n_test} test images of \
             {rows}×{cols} pixels, which take {expected} bytes, but the file has {}",
            bytes.len()
        )));
    }
    let body = &bytes[..expected - CHECKSUM];
    let stored = le_u32(bytes, expected - CHECKSUM);
    let computed = crc32(body);
    if computed != stored {
        return Err(bad(format!(
            "damaged: checksum mismatch (stored CRC-32 {stored:#010x}, computed \
             {computed:#010x})"
        )));
    }
    let bits = &body[HEADER..HEADER + images * width];
    let labels = &body[HEADER + images * width..];
    if let Some(k) = labels.iter().position(|&l| l > 9) {
        let (set, index) = if k < n_train {
            ("training", k)
        } else {
            ("test", k - n_train)
        };
        return Err(bad(format!(
            "mislabelled: {set} image {index} has label {}; labels are 0 to 9",
            labels[k]
        )));
    }
    if !pixels.is_multiple_of(8) {
        let padding = !0u8 << (pixels % 8);
        if let Some(k) = bits
            .chunks_exact(width)
            .position(|c| c[width - 1] & padding != 0)
        {
            return Err(bad(format!(
                "image {k} has bits set beyond its {pixels} pixels (the last byte's padding \
                 must be 0)"
            )));
        }
    }
    let moments = |at: usize, count: usize, set: &str| {
        let m = Moments {
            expected_ones: le_f64(bytes, at),
            variance: le_f64(bytes, at + 8),
        };
        let limit = (count * pixels) as f64;
        if m.expected_ones.is_finite()
            && m.variance.is_finite()
            && 0.0 <= m.variance
            && m.variance <= m.expected_ones
            && m.expected_ones <= limit
        {
            Ok(m)
        } else {
            Err(bad(format!(
                "the {set} set's greyscale moments Σp = {} and Σp(1 − p) = {} must satisfy \
                 0 ≤ Σp(1 − p) ≤ Σp ≤ {limit}",
                m.expected_ones, m.variance
            )))
        }
    };
    let train_moments = moments(28, n_train, "training")?;
    let test_moments = moments(44, n_test, "test")?;
    let set = |from: usize, to: usize| Images {
        pixels,
        bits: bits[from * width..to * width].to_vec(),
        labels: Some(labels[from..to].to_vec()),
    };
    Ok(Mnist {
        rows,
        cols,
        seed,
        train: set(0, n_train),
        test: set(n_train, images),
        train_moments,
        test_moments,
    })
}

/// A character of a text image file as a message names it: visible ones quoted ('x'),
/// invisible ones by name or code point (a tab, a byte-order mark, U+00A0).
fn described(c: char) -> String {
    match c {
        '\t' => "a tab".into(),
        '\u{feff}' => "a byte-order mark (U+FEFF; save the file without it)".into(),
        c if c.is_control() || c.is_whitespace() => format!("the character U+{:04X}", c as u32),
        c => format!("character '{c}'"),
    }
}

/// Reads a text image file: one image per line, each a run of `0` (off) and `1` (on)
/// characters, all lines of the same length (1 to [`MAX_PIXELS`]), each optionally
/// followed by one space and a label 0–9 (either every image has a label or none has).
/// Blank lines and lines starting with `#` are skipped; a trailing `\r` is ignored.
/// Errors name `image file` and the line (counted from 1), with the expected length or the
/// bad character and its column.
pub fn parse_text(text: &str) -> Result<Images, ParamError> {
    let bad = invalid("image file");
    let mut pixels = 0;
    let mut first_line = 0;
    let mut bits = Vec::new();
    let mut labels = Vec::new();
    let mut labelled = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (image, label) = match line.split_once(' ') {
            Some((image, label)) => (image, Some(label)),
            None => (line, None),
        };
        if let Some((column, c)) = image
            .chars()
            .enumerate()
            .find(|&(_, c)| c != '0' && c != '1')
        {
            return Err(bad(format!(
                "line {number}: {} at column {} is not 0 or 1",
                described(c),
                column + 1
            )));
        }
        if bits.is_empty() {
            if image.is_empty() || image.len() > MAX_PIXELS {
                return Err(bad(format!(
                    "line {number}: {} pixels; an image has 1 to {MAX_PIXELS}",
                    image.len()
                )));
            }
            pixels = image.len();
            first_line = number;
        } else if image.len() != pixels {
            return Err(bad(format!(
                "line {number}: {} pixels, expected {pixels} (the length of line {first_line})",
                image.len()
            )));
        }
        let label = match label {
            None => None,
            Some(text) => match text.parse::<u8>() {
                Ok(l) if l <= 9 && text.len() == 1 => Some(l),
                _ => {
                    return Err(bad(format!(
                        "line {number}: label '{}' is not a digit 0 to 9 (after one space)",
                        crate::error::shorten(text)
                    )));
                }
            },
        };
        match (labelled, label.is_some()) {
            (None, has) => labelled = Some(has),
            (Some(all), has) if all != has => {
                let (this, first) = if has {
                    ("has a label", "has none")
                } else {
                    ("has no label", "has one")
                };
                return Err(bad(format!(
                    "line {number} {this} but line {first_line} {first}: label every image \
                     or none"
                )));
            }
            _ => {}
        }
        if bits.len() / bytes_per_image(pixels) >= MAX_IMAGES {
            return Err(bad(format!("line {number}: more than {MAX_IMAGES} images")));
        }
        let mut packed = vec![0u8; bytes_per_image(pixels)];
        for (p, c) in image.bytes().enumerate() {
            packed[p / 8] |= (c - b'0') << (p % 8);
        }
        bits.extend_from_slice(&packed);
        labels.extend(label);
    }
    if bits.is_empty() {
        return Err(bad("no images: the file has no line of 0s and 1s".into()));
    }
    Ok(Images {
        pixels,
        bits,
        labels: (labelled == Some(true)).then_some(labels),
    })
}

/// Whether `bytes` start like a packed file (its magic), rather than a text image file.
pub fn is_packed(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_has_its_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    #[test]
    fn black_and_white_pixels_binarize_the_same_whatever_the_draw() {
        for r in [0, 1, u32::MAX / 2, u32::MAX - 1, u32::MAX] {
            assert_eq!(binarize(0, r), 0);
            assert_eq!(binarize(255, r), 1);
        }
        // g = 51: on iff r < ⌈51·2^32/255⌉ = ⌈2^32/5⌉ = 858993460.
        assert_eq!(binarize(51, 858_993_459), 1);
        assert_eq!(binarize(51, 858_993_460), 0);
    }
}
