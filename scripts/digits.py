#!/usr/bin/env python3
"""Packs the 8x8 handwritten digits into data/digits/digits8.bin (see data/digits/README.md).

Source: scikit-learn's copy of the UCI optical-digits test set, sklearn/datasets/data/digits.csv.gz
(1797 rows of 64 pixels 0..16 and a label). Get it without installing scikit-learn:

    pip download --no-deps -d /tmp/skl scikit-learn
    cd /tmp/skl && unzip -o -q scikit_learn-*.whl 'sklearn/datasets/data/digits.csv.gz'
    python3 scripts/digits.py /tmp/skl/sklearn/datasets/data/digits.csv.gz          # writes
    python3 scripts/digits.py /tmp/skl/sklearn/datasets/data/digits.csv.gz --check  # compares

Format (all integers little-endian):
    8 bytes   magic b"DIGITS8" and the format version, 1
    2 bytes   image count n
    1 byte    the binarization threshold t (a pixel is on when its value >= t): 8
    n x 9     per image, in the CSV's order: 8 bytes, byte r = row r, bit c = pixel (r, c)
              (least significant bit = column 0), then 1 byte, the label 0..9
    4 bytes   FNV-1a (32-bit) of every byte before it
"""

import csv
import gzip
import hashlib
import pathlib
import struct
import sys

THRESHOLD = 8
OUT = pathlib.Path(__file__).resolve().parent.parent / "data" / "digits" / "digits8.bin"


def fnv1a32(data: bytes) -> int:
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def pack(source: pathlib.Path) -> bytes:
    with gzip.open(source, "rt") as f:
        rows = [[int(x) for x in row] for row in csv.reader(f)]
    body = bytearray(b"DIGITS8" + bytes([1]))
    body += struct.pack("<HB", len(rows), THRESHOLD)
    for row in rows:
        assert len(row) == 65 and all(0 <= x <= 16 for x in row[:64]) and 0 <= row[64] <= 9
        for r in range(8):
            byte = 0
            for c in range(8):
                if row[8 * r + c] >= THRESHOLD:
                    byte |= 1 << c
            body.append(byte)
        body.append(row[64])
    body += struct.pack("<I", fnv1a32(bytes(body)))
    return bytes(body)


def main() -> None:
    source = pathlib.Path(sys.argv[1])
    print(f"source sha256 {hashlib.sha256(source.read_bytes()).hexdigest()}")
    packed = pack(source)
    print(f"packed {len(packed)} bytes, sha256 {hashlib.sha256(packed).hexdigest()}")
    if "--check" in sys.argv[2:]:
        same = OUT.read_bytes() == packed
        print("matches" if same else f"DIFFERS from {OUT}")
        sys.exit(0 if same else 1)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(packed)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
