//! The image files the command line learns from, and `boltzlab pack-mnist`.
//!
//! `learn --machine rbm --dataset mnist` reads the packed MNIST file the crate ships
//! (data/mnist/mnist.bin, found from the crate's directory) or the packed file `--data`
//! names; `learn --machine rbm --data FILE` reads any packed file or text image file
//! (format in `boltzlab::learn::mnist::parse_text`). Both go through the library's
//! validating readers; this module only finds the file, picks the subsets and names the
//! file in errors.

use crate::args::Args;
use boltzlab::learn::mnist::{self, BINARIZATION_SEED, FILE_NAME};
use std::path::{Path, PathBuf};

/// Training (and, for a packed file, test) vectors read from an image file.
pub struct ImageData {
    /// `mnist` for the shipped file, else the file's path as given.
    pub name: String,
    /// The training vectors (0/1 per pixel).
    pub train: Vec<Vec<u8>>,
    /// The test vectors: a packed file's test set, if it has one.
    pub test: Option<Vec<Vec<u8>>>,
}

/// The shipped packed MNIST file: data/mnist/mnist.bin under the crate's directory.
pub fn shipped_mnist() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/mnist")
        .join(FILE_NAME)
}

/// Reads the image file at `path` (`name` labels it in the results): a packed file (by
/// its magic) or a text image file. The first `train_subset` training and `test_subset`
/// test images are kept (all if `None`). `want_packed` refuses a text file (for
/// `--dataset mnist`). Errors name the file and the problem.
pub fn load(
    path: &Path,
    name: String,
    train_subset: Option<usize>,
    test_subset: Option<usize>,
    want_packed: bool,
) -> Result<ImageData, String> {
    let (train, test) = read_sets(path, want_packed)?;
    let all = usize::MAX;
    Ok(ImageData {
        name,
        train: train.vectors(train_subset.unwrap_or(all)),
        test: test.map(|t| t.vectors(test_subset.unwrap_or(all))),
    })
}

/// Labelled training and test images read from an image file (for `--labels`).
pub struct LabelledData {
    /// `mnist` for the shipped file, else the file's path as given.
    pub name: String,
    /// The training images (0/1 per pixel) and their labels 0–9.
    pub train: (Vec<Vec<u8>>, Vec<u8>),
    /// The test images and labels (empty if the file has no test set).
    pub test: (Vec<Vec<u8>>, Vec<u8>),
}

/// Reads the labelled image file at `path` as [`load`] does; every image must carry a
/// label (error names the file).
pub fn load_labelled(
    path: &Path,
    name: String,
    train_subset: Option<usize>,
    test_subset: Option<usize>,
    want_packed: bool,
) -> Result<LabelledData, String> {
    let shown = path.display();
    let (train, test) = read_sets(path, want_packed)?;
    let labelled = |set: &mnist::Images, subset: Option<usize>| {
        let images = set.vectors(subset.unwrap_or(usize::MAX));
        let labels = set.labels().ok_or_else(|| {
            format!("{shown}: its images carry no labels (a text file gives them after each image)")
        })?;
        let labels = labels[..images.len()].to_vec();
        Ok::<_, String>((images, labels))
    };
    Ok(LabelledData {
        name,
        train: labelled(&train, train_subset)?,
        test: match test {
            Some(t) => labelled(&t, test_subset)?,
            None => (Vec::new(), Vec::new()),
        },
    })
}

/// The training set and (a packed file's, if not empty) test set of the image file at
/// `path`; `want_packed` refuses a text file. Errors name the file and the problem.
fn read_sets(
    path: &Path,
    want_packed: bool,
) -> Result<(mnist::Images, Option<mnist::Images>), String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    if mnist::is_packed(&bytes) {
        let packed = mnist::parse(&bytes).map_err(|e| format!("{shown}: {e}"))?;
        let test = (!packed.test.is_empty()).then_some(packed.test);
        return Ok((packed.train, test));
    }
    if want_packed {
        return Err(format!(
            "{shown}: not a packed MNIST file (it must start with {}); \
             rebuild it with scripts/pack_mnist.sh",
            String::from_utf8_lossy(mnist::MAGIC)
        ));
    }
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        format!(
            "{shown}: image file: neither a packed file nor text (invalid UTF-8 at byte {})",
            e.valid_up_to()
        )
    })?;
    let images = mnist::parse_text(text).map_err(|e| format!("{shown}: {e}"))?;
    Ok((images, None))
}

/// `boltzlab pack-mnist --idx DIR [--out FILE] [--seed S]`: packs the four IDX files in
/// DIR (train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte,
/// t10k-labels-idx1-ubyte) into FILE (default: the shipped data/mnist/mnist.bin),
/// binarized with `seeded_rng(S)` (default 2008).
pub fn pack(raw: &[String]) -> Result<(), String> {
    let args = Args::parse(raw, &["idx", "out", "seed"], &[])?;
    let dir = PathBuf::from(args.text("idx").ok_or("--idx DIR is required")?);
    let out = args.text("out").map_or_else(shipped_mnist, PathBuf::from);
    let seed = args.count("seed", BINARIZATION_SEED, 0, u64::MAX)?;
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let packed = mnist::pack_idx(
        &read("train-images-idx3-ubyte")?,
        &read("train-labels-idx1-ubyte")?,
        &read("t10k-images-idx3-ubyte")?,
        &read("t10k-labels-idx1-ubyte")?,
        seed,
    )
    .map_err(|e| e.to_string())?;
    // The reader must accept what the packer wrote.
    let check = mnist::parse(&packed).map_err(|e| format!("packed file refused: {e}"))?;
    std::fs::write(&out, &packed).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let crc = u32::from_le_bytes(packed[packed.len() - 4..].try_into().expect("4 bytes"));
    println!(
        "wrote {}: {} training and {} test images of {}×{}, seed {seed}, {} bytes, CRC-32 {crc:#010x}",
        out.display(),
        check.train.len(),
        check.test.len(),
        check.rows,
        check.cols,
        packed.len()
    );
    Ok(())
}
