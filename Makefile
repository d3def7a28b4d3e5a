# boltzlab: two commands do everything on a fresh machine.
#   make serve   set up what is missing, then serve the app (release build) at http://127.0.0.1:8080
#   make test    set up what is missing, then run every check and test
#   make bench   speed figures, native, in headless Chromium, and of the page itself (medians)
#   make soak    the page left at max speed for 3 × 10 minutes: memory must stay flat
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# wasm-opt comes from npm's binaryen (Debian's is too old); cargo-installed tools from ~/.cargo/bin.
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
WASM := --target wasm32-unknown-unknown --no-default-features
# The browsers' WebDriver servers. wasm-bindgen-test-runner takes the first driver it finds (a
# variable, else on PATH): each run names its own and unsets the others.
CHROMEDRIVER ?= /usr/bin/chromedriver
GECKODRIVER ?= $(HOME)/.cargo/bin/geckodriver
SAFARIDRIVER ?= /usr/bin/WebKitWebDriver
ONLY_DRIVER := env -u CHROMEDRIVER -u GECKODRIVER -u SAFARIDRIVER
# WebKitGTK has no headless mode: its runs get an Xvfb display of their own (-a: a free one).
XVFB := xvfb-run -a -s "-screen 0 1280x1024x24"

.PHONY: setup serve test format-check lint typecheck test-native test-native-avx2 test-wasm test-wasm-firefox test-wasm-webkit \
	threads build dist e2e e2e-firefox e2e-webkit bench bench-peer soak clean

setup:
	@bash scripts/setup.sh

# The threaded engine first (Trunk copies it into the page's threads/); Trunk.toml's [serve]
# sends the isolation headers that let the page use it.
serve: setup threads
	trunk serve --release --offline --address 127.0.0.1 --port 8080

test: setup
	$(MAKE) --no-print-directory format-check lint typecheck test-native test-native-avx2 \
		test-wasm test-wasm-firefox test-wasm-webkit build e2e e2e-firefox e2e-webkit

format-check:
	cargo fmt --check
	prettier --check www tests/e2e tests/soak tests/smoke sw.js scripts/offline_stamp.mjs playwright.config.js playwright.soak.config.js benches

# clippy on both targets (and on the threaded engine's code: scripts/build_threads.sh --lint),
# and the library's docs (a broken or private intra-doc link, a
# bracket read as a link) on both: the web facade's are built for wasm alone.
lint:
	cargo clippy --all-targets -- -D warnings
	cargo clippy $(WASM) --all-targets -- -D warnings
	bash scripts/build_threads.sh --lint
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --lib $(WASM)

# The page's JS (the files that begin with // @ts-check; tsconfig.json, tsconfig.worker.json)
# checked against the TypeScript types wasm-bindgen writes for the engine's bindings, so a
# renamed engine call or a misspelt command fails here. The bindings come from the same
# release wasm Trunk builds.
typecheck:
	cargo build --release $(WASM) --lib
	wasm-bindgen --target web --out-dir target/typecheck target/wasm32-unknown-unknown/release/boltzlab.wasm
	tsc -p tsconfig.json
	tsc -p tsconfig.worker.json

# Statistical tests need release-mode speed (the release-tests profile of Cargo.toml: release
# without whole-program LTO, so ~50 test binaries link in minutes, not ten).
TEST_PROFILE := --profile release-tests
test-native:
	cargo test $(TEST_PROFILE)

# The products and the batch trainer again at the AVX2+FMA level (most machines' own), on a
# machine that would otherwise test only its widest: valgrind's simulated processor has AVX2
# and FMA but no AVX-512, so `gemm` and the elementwise loops pick their AVX2 kernels there.
# tests/linalg.rs's first test checks the level (BOLTZLAB_EXPECT_LEVEL). About 40 s.
test-native-avx2:
	BOLTZLAB_EXPECT_LEVEL=avx2 CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="valgrind --tool=none -q" \
		cargo test $(TEST_PROFILE) --test linalg

# wasm-bindgen-test in a real browser (the runner is set in .cargo/config.toml): the facades'
# own tests (--lib: the restricted and general machines' and the memory's dispatch from JS
# objects) and the test files; in headless Chromium, headless Firefox ESR (geckodriver) and
# WebKitGTK (WebKitWebDriver, which the runner reports as Safari) on an Xvfb display. The
# three runs share one build.
WASM_TESTS := --lib --test web --test web_rbm --test web_wavefront --test web_linalg
# The runner gives each test file 20 s in the browser by default; web_linalg's products hold
# the page for longer than that in Firefox on a loaded 2-core machine. A limit, not a
# measure: the times are in docs/validation.md.
export WASM_BINDGEN_TEST_TIMEOUT ?= 600

test-wasm:
	$(ONLY_DRIVER) CHROMEDRIVER=$(CHROMEDRIVER) cargo test $(TEST_PROFILE) $(WASM) $(WASM_TESTS)

test-wasm-firefox:
	$(ONLY_DRIVER) GECKODRIVER=$(GECKODRIVER) cargo test $(TEST_PROFILE) $(WASM) $(WASM_TESTS)

# WebKitGTK's engine now and then traps in safe code: a run that failed by that trap alone is
# run again, saying so (scripts/engine_trap_retry.sh; docs/validation.md).
test-wasm-webkit:
	$(XVFB) $(ONLY_DRIVER) SAFARIDRIVER=$(SAFARIDRIVER) scripts/engine_trap_retry.sh cargo test $(TEST_PROFILE) $(WASM) $(WASM_TESTS)

# The page for any static host (GitHub Pages, a school's web server, a folder below another
# site): the release build with relative addresses, in dist/. Copy the folder's contents as
# they are; docs/guide.md, "Offline and hosting". The end-to-end tests run this same build
# (tests/e2e/offline.spec.js serves it from a sub-folder too), so what is shipped is tested.
build: threads
	trunk build --release --offline --public-url ./

# The threaded engine (wasm with atomics and a shared memory) that a cross-origin isolated page
# learns MNIST with on two threads: target/threads-pkg/, copied by Trunk into the page's
# threads/ (index.html). Its own target directory; cargo skips it when up to date. About 2.5
# minutes the first time (it rebuilds std).
threads:
	bash scripts/build_threads.sh

dist: setup build

# The CLI the page is compared with (tests/e2e/cli.js) is built first, so no spec waits on a
# compile.
e2e:
	cargo build $(TEST_PROFILE) --bin boltzlab
	playwright test

# The smoke suite (tests/smoke/smoke.mjs) against the same build in headless Firefox ESR and in
# WebKitGTK's MiniBrowser on an Xvfb display: load, lattice, state link, machine, restricted
# machine, lecture mode. The Chromium suite above is the full one.
e2e-firefox:
	GECKODRIVER=$(GECKODRIVER) node tests/smoke/smoke.mjs firefox

e2e-webkit:
	$(XVFB) env WEBKIT_WEBDRIVER=$(SAFARIDRIVER) node tests/smoke/smoke.mjs webkit

# Speed, measured (never asserted in tests): median of repeated runs, with min–max.
# Native figures first (they write target/bench.json), then the benchmark page (bench.html,
# built by Trunk into dist-bench/) in headless Chromium, merged into the same table and file;
# last the page as a user meets it (dist/): ticks/s, fps and input delay at maximum speed,
# beside the kernel figures; then MNIST learning on one learning worker and on K.
bench: setup
	cargo bench --bench ticks
	cargo bench --bench rbm_products --features bench-faer
	trunk build --release --offline --dist dist-bench bench.html
	node benches/browser.mjs dist-bench
	$(MAKE) --no-print-directory threads
	trunk build --release --offline
	node benches/page.mjs dist
	node benches/mnist_cores.mjs dist

# The peer comparison (not part of make test): scikit-learn's BernoulliRBM and boltzlab on the
# same work, in a venv built from PyPI with pinned versions (PEER_PINS; the script prints
# them); OpenBLAS's core-type overrides are unset for this command alone (they slow a current
# numpy).
PEER_PINS := scikit-learn==1.9.1 numpy==2.4.6
bench-peer:
	test -x target/peer-venv/bin/python || python3 -m venv target/peer-venv
	target/peer-venv/bin/pip install --quiet $(PEER_PINS)
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE target/peer-venv/bin/python scripts/peer_bench.py

# The page left running: memory stays flat over SOAK_MINUTES (default 10) at max speed, for a
# 1024×1024 lattice and for a learning machine (Chromium's performance metrics via CDP).
# Not part of `make test`: it takes 3 × SOAK_MINUTES. Samples in target/soak-*.json.
soak: setup build
	playwright test --config playwright.soak.config.js

clean:
	cargo clean
	rm -rf dist dist-bench target/playwright
