#!/usr/bin/env bash
# Installs what boltzlab's build and tests need, skipping what is already present.
# Idempotent; prints what it does. Used by `make serve` and `make test`.
# Recipe: docs/architecture.md, "Build and tools" (tried on a fresh machine of this kind).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14
GECKODRIVER_VERSION=0.37.1
# The wasm-bindgen CLI must match the crate exactly; Cargo.lock is the truth.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)

say() { echo "setup: $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# Debian packages, with the package lists refreshed once per run (only if something is missing).
apt_updated=
apt_install() {
  if [ -z "$apt_updated" ]; then
    as_root apt-get update
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}

if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rust target wasm32-unknown-unknown: present"
else
  say "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# The standard library's source, which the threaded engine rebuilds with atomics
# (scripts/build_threads.sh).
if rustup component list --installed | grep -q '^rust-src'; then
  say "rust component rust-src: present"
else
  say "adding rust component rust-src (for the threaded engine's std)"
  rustup component add rust-src
fi

if command -v trunk >/dev/null 2>&1 && trunk --version | grep -q " ${TRUNK_VERSION}\$"; then
  say "trunk ${TRUNK_VERSION}: present"
else
  say "installing trunk ${TRUNK_VERSION} (cargo install, about 10 minutes on 2 cores, once)"
  cargo install trunk --version "${TRUNK_VERSION}" --locked
fi

if command -v wasm-bindgen >/dev/null 2>&1 && wasm-bindgen --version | grep -q " ${WASM_BINDGEN_VERSION}\$" \
  && command -v wasm-bindgen-test-runner >/dev/null 2>&1; then
  say "wasm-bindgen-cli ${WASM_BINDGEN_VERSION}: present"
else
  # Without --locked: a dependency locked by the CLI's own lock file is missing from the registry.
  say "installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION} (cargo install, about 3 minutes, once)"
  cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}" --force
fi

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  say "chromium and chromedriver: present"
else
  say "installing Debian's chromium and chromium-driver"
  apt_install chromium chromium-driver
fi

# Firefox and WebKit run the wasm tests and the smoke suite (tests/smoke/smoke.mjs) too.
if [ -x /usr/bin/firefox-esr ]; then
  say "firefox-esr: present"
else
  say "installing Debian's firefox-esr (about 20 s)"
  apt_install firefox-esr
fi

if command -v geckodriver >/dev/null 2>&1 && geckodriver --version | head -1 | grep -qE " ${GECKODRIVER_VERSION}( |$)"; then
  say "geckodriver ${GECKODRIVER_VERSION}: present"
else
  say "installing geckodriver ${GECKODRIVER_VERSION} (cargo install, about 5 minutes on 2 cores, once)"
  cargo install geckodriver --version "${GECKODRIVER_VERSION}" --locked
fi

# WebKitGTK's WebDriver and MiniBrowser have no headless mode: they run on an Xvfb display.
if [ -x /usr/bin/WebKitWebDriver ] && dpkg -s libwebkit2gtk-4.1-0 >/dev/null 2>&1 && command -v xvfb-run >/dev/null 2>&1; then
  say "webkit2gtk-driver, libwebkit2gtk-4.1-0 and xvfb: present"
else
  say "installing Debian's webkit2gtk-driver, libwebkit2gtk-4.1-0 and xvfb (about 1.5 minutes)"
  apt_install webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb
fi

# valgrind runs the products at the AVX2 level (make test-native-avx2).
if command -v valgrind >/dev/null 2>&1; then
  say "valgrind: present"
else
  say "installing Debian's valgrind"
  apt_install valgrind
fi

# npm dev tools (Playwright's runner, binaryen's wasm-opt, prettier, selenium-webdriver's
# client for the smoke suite) exactly as locked.
# node_modules/.package-lock.json is npm's record of what it installed.
# `npm ls` fails when a package the lock names is missing or of another version (a
# node_modules left by an older checkout).
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ] \
  && [ -x node_modules/.bin/wasm-opt ] && [ -x node_modules/.bin/playwright ] \
  && npm ls --depth=0 >/dev/null 2>&1; then
  say "npm dev tools: present"
else
  say "installing npm dev tools from package-lock.json (npm ci)"
  npm ci --no-audit --no-fund
fi
