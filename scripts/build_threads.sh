#!/usr/bin/env bash
# The page's threaded engine: the same library built for wasm with atomics and a shared memory,
# which a cross-origin isolated page loads in the MNIST learning worker so that each update
# runs its two halves on two threads (the second is a Web Worker on the same module and memory:
# www/machine/pair_worker.js; src/linalg/pair.rs). The default build stays the one a page
# without isolation can run. Output: target/threads-pkg/boltzlab_threads.js and
# boltzlab_threads_bg.wasm, which Trunk's post-build hook copies into the page's threads/.
#
# std must be rebuilt with atomics (-Z build-std, with RUSTC_BOOTSTRAP=1 on the stable
# toolchain; rust-src comes from scripts/setup.sh), and the linker asked for the shared memory
# and the thread-local storage exports wasm-bindgen's thread support needs: `+atomics` alone
# no longer asks for a shared memory (rust-lang/rust#147225). Its own target directory, so
# the flags never invalidate the default build. Cargo skips what is up to date.
set -euo pipefail
recipe="$(realpath "$0")"
cd "$(dirname "$0")/.."
out=target/threads-pkg
features="-C target-feature=+simd128,+atomics,+bulk-memory,+mutable-globals"
# `--lint` (make lint): clippy on the library with these features instead of a build, so the
# code only this engine compiles (cfg(target_feature = "atomics"): the second thread's side)
# is linted too. A check links nothing, so std need not be rebuilt. Its own target directory:
# cargo caches the target's cfg without regard to RUSTC_BOOTSTRAP, which stable rustc needs to
# set cfg(target_feature = "atomics"). About 45 s the first time.
if [ "${1:-}" = --lint ]; then
  RUSTC_BOOTSTRAP=1 RUSTFLAGS="$features" cargo clippy --target wasm32-unknown-unknown --no-default-features --lib \
    --target-dir target/threads-lint -- -D warnings
  exit 0
fi
# The memory's maximum (a shared memory must declare one): 2 GiB.
max=$((2 * 1024 * 1024 * 1024))
link=""
for export in __wasm_init_tls __tls_size __tls_align __tls_base; do
  link+=" -C link-arg=--export=$export"
done
echo "threaded engine: cargo build (std with atomics; minutes the first time)"
RUSTC_BOOTSTRAP=1 \
  RUSTFLAGS="$features -C link-arg=--shared-memory -C link-arg=--import-memory -C link-arg=--max-memory=$max$link" \
  cargo build --release --target wasm32-unknown-unknown --no-default-features --lib \
  -Z build-std=std,panic_abort --target-dir target/threads
wasm=target/threads/wasm32-unknown-unknown/release/boltzlab.wasm
# wasm-bindgen and wasm-opt (about a minute) only when cargo made a new library or this
# recipe changed since they last ran.
if [ "$out/boltzlab_threads_bg.wasm" -nt "$wasm" ] && [ "$out/boltzlab_threads_bg.wasm" -nt "$recipe" ] &&
  [ -f "$out/boltzlab_threads.js" ]; then
  echo "threaded engine: up to date"
else
  mkdir -p "$out"
  wasm-bindgen --target web --out-dir "$out" --out-name boltzlab_threads "$wasm"
  wasm-opt -O3 --enable-threads --enable-bulk-memory --enable-simd --enable-mutable-globals \
    --enable-nontrapping-float-to-int --enable-sign-ext --enable-reference-types --enable-multivalue \
    "$out/boltzlab_threads_bg.wasm" -o "$out/boltzlab_threads_bg.wasm"
  rm -f "$out"/*.d.ts # the page's types come from the default build (make typecheck)
fi
ls -l "$out"/boltzlab_threads.js "$out"/boltzlab_threads_bg.wasm
