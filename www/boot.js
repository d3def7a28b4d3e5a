// @ts-check
// Loads the engine: the wasm-bindgen module and its wasm, whose (hashed) names Trunk writes
// into this script's tag (Trunk.toml, pattern_script). It replaces Trunk's inline loader,
// which the page's Content-Security-Policy (script-src 'self') would refuse, and keeps its
// contract: window.wasmBindings is set and TrunkApplicationStarted is dispatched.

const tag = document.getElementById('boltzlab-boot');
const bindings = await import(tag.dataset.js);
const wasm = await bindings.default({ module_or_path: tag.dataset.wasm });
/** @type {any} */ (window).wasmBindings = bindings;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));

export {}; // a module: the awaits above are top-level
