#!/usr/bin/env python3
"""The peer comparison: scikit-learn's BernoulliRBM against boltzlab on the same work.

Two pieces of work, each timed as milliseconds per update of batch 100 (training only):
- a 784-500 machine on random binary data of binarized MNIST's density (0.13), 1000
  vectors: scikit-learn (PCD-1, float32 input, numpy's BLAS on every core) against
  boltzlab's f32 BatchTrainer (CD-1, the products on two threads);
- a 64-16 machine on the shipped 8x8 digits (data/digits/digits8.bin, all 1797 images):
  scikit-learn (float64, its default) against boltzlab's default update (persistent,
  100 particles, k = 1), by the page's f64 RbmTrainer and by the f32 BatchTrainer.

boltzlab's figures come from `cargo bench --bench rbm_products -- --quick --json`. The
script prints both sides and the ratios. It asserts nothing: speed lives in `make bench`.

Run it through `make bench-peer`, which builds target/peer-venv (numpy, scikit-learn from
PyPI) and runs this with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset (a current numpy is
slowed by them; see the toolchain notes).
"""

import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
from sklearn.neural_network import BernoulliRBM

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def digits_images():
    """The shipped digits as an (n, 64) 0/1 array (format in data/digits/README.md)."""
    with open(os.path.join(ROOT, "data", "digits", "digits8.bin"), "rb") as f:
        raw = f.read()
    assert raw[:7] == b"DIGITS8" and raw[7] == 1, "not a packed digits file"
    count = int.from_bytes(raw[8:10], "little")
    images = np.zeros((count, 64), dtype=np.float64)
    for k in range(count):
        record = raw[11 + 9 * k : 11 + 9 * k + 8]
        for p in range(64):
            images[k, p] = (record[p // 8] >> (p % 8)) & 1
    return images


def ms_per_update(data, hidden, repeats, epochs):
    """Median ms per update of BernoulliRBM.fit (batch 100, rate 0.05) over `repeats` fits
    of `epochs` epochs each (the fit time divided by its updates)."""
    updates = epochs * -(-len(data) // 100)
    times = []
    for r in range(repeats + 1):
        rbm = BernoulliRBM(
            n_components=hidden,
            learning_rate=0.05,
            batch_size=100,
            n_iter=epochs,
            random_state=r,
        )
        start = time.perf_counter()
        rbm.fit(data)
        elapsed = time.perf_counter() - start
        if r > 0:  # the first fit warms up
            times.append(elapsed / updates * 1e3)
    return statistics.median(times)


def blas_note():
    try:
        from threadpoolctl import threadpool_info

        return ", ".join(
            f"{i.get('internal_api')} {i.get('version')} {i.get('architecture')} "
            f"{i.get('num_threads')} threads"
            for i in threadpool_info()
        )
    except Exception as e:  # threadpoolctl comes with scikit-learn; say if it did not
        return f"(threadpoolctl unavailable: {e})"


def boltzlab_figures():
    out = subprocess.run(
        ["cargo", "bench", "--bench", "rbm_products", "--", "--quick", "--json"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    print(out.rstrip())
    return json.loads(out.strip().splitlines()[-1])


def main():
    rng = np.random.default_rng(2)
    mnist_like = (rng.random((1000, 784)) < 0.13).astype(np.float32)
    digits = digits_images()
    import sklearn

    print(f"scikit-learn {sklearn.__version__}, numpy {np.__version__}; BLAS: {blas_note()}")
    sk_784 = ms_per_update(mnist_like, 500, repeats=5, epochs=2)
    sk_64 = ms_per_update(digits, 16, repeats=5, epochs=10)
    print(f"scikit-learn BernoulliRBM 784-500 (float32): {sk_784:.3f} ms per update")
    print(f"scikit-learn BernoulliRBM 64-16 (float64):   {sk_64:.4f} ms per update")
    print("\nboltzlab (cargo bench --bench rbm_products -- --quick --json):")
    ours = boltzlab_figures()
    rows = [
        ("784-500, boltzlab f32 CD-1 on 2 threads", ours["native_rbm_784_500_cd1_2_threads_ms"], sk_784),
        ("784-500, boltzlab f32 CD-1 on 1 thread", ours["native_rbm_784_500_cd1_1_threads_ms"], sk_784),
        ("64-16, boltzlab f64 RbmTrainer (page)", ours["native_rbm_64_16_f64_update_ms"], sk_64),
        ("64-16, boltzlab f32 BatchTrainer", ours["native_rbm_64_16_f32_update_ms"], sk_64),
    ]
    print(f"\n{'work':<42} {'boltzlab ms':>12} {'sklearn ms':>11} {'ratio':>7}")
    for name, a, b in rows:
        print(f"{name:<42} {a:>12.4f} {b:>11.4f} {a / b:>7.2f}")


if __name__ == "__main__":
    sys.exit(main())
