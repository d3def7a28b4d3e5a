//! A deliberate panic, for the page's tests only.
//!
//! No input of the page reaches a panic; to check that a panic anyway is shown to the user
//! (with the last good state still exportable), the end-to-end tests need a way to cause
//! one. Only a worker's test-only `{type: 'fault'}` message calls these, and only the test
//! hooks send it (the modes' `faultWorker`, reached through `window.boltzlab…`; page code
//! reads no such hook: tests/architecture.rs).
//!
//! Why they ship: the end-to-end tests run the very build that is shipped (`make build`'s
//! `dist/`, served as a user gets it), so hooks left out of production would leave the
//! shipped wasm's panic and trap paths untested. They take no argument and are reachable only
//! from a console or a test.

use wasm_bindgen::prelude::*;

/// The message of the deliberate panic, so that tests can expect exactly it.
pub const MESSAGE: &str = "boltzlab: deliberate panic for tests (fault_for_tests)";

/// Panics with [`MESSAGE`]. For tests only: the wasm instance is unusable afterwards.
#[wasm_bindgen]
pub fn fault_for_tests() {
    panic!("{MESSAGE}");
}

/// Stops the engine with a wasm trap (the `unreachable` instruction), as an out-of-bounds
/// access or an engine's own fault would: no panic, so the panic hook never sees it, and the
/// page's workers must take the `WebAssembly.RuntimeError` for one. For tests only.
#[wasm_bindgen]
pub fn trap_for_tests() {
    core::arch::wasm32::unreachable()
}
