#!/usr/bin/env bash
# Runs a wasm-bindgen-test command (its arguments) and, when it failed only because the
# browser's wasm engine trapped, runs it again (at most twice more), saying so. Used for
# WebKitGTK (make test-wasm-webkit): its JavaScriptCore now and then traps with "RuntimeError:
# Out of bounds memory access" in safe Rust code whose every index is checked (2 of 36 runs of
# the same build, never in Chromium or Firefox; docs/validation.md, "WebKit's wasm traps").
# "Only" means: every failed test's failure is that trap, and no test's own check failed (no
# "panicked at"). Any other failure fails at once, and a trap that comes back three times
# fails too.
set -o pipefail
TRAP='RuntimeError: Out of bounds memory access'
for attempt in 1 2 3; do
  log=$(mktemp)
  "$@" 2>&1 | tee "$log"
  rc=$?
  failed=$(grep -cE '^test .* \.\.\. FAIL$' "$log")
  trapped=$(grep -c "$TRAP" "$log")
  panicked=$(grep -c 'panicked at' "$log")
  rm -f "$log"
  [ "$rc" -eq 0 ] && exit 0
  if [ "$attempt" -lt 3 ] && [ "$failed" -gt 0 ] && [ "$failed" -eq "$trapped" ] && [ "$panicked" -eq 0 ]; then
    echo "engine_trap_retry: $failed test(s) failed only by the engine's trap ('$TRAP'), not by a check of theirs: running again (attempt $((attempt + 1)) of 3)" >&2
    continue
  fi
  exit "$rc"
done
