// @ts-check
// Loads the engine: the wasm-bindgen module and its wasm, whose (hashed) names Trunk writes
// into this script's tag (Trunk.toml, pattern_script). It replaces Trunk's inline loader,
// which the page's Content-Security-Policy (script-src 'self') would refuse, and keeps its
// contract: window.wasmBindings is set and TrunkApplicationStarted is dispatched.
// The names are read against the page's address (not this module's), so a build made with a
// relative public URL (make dist) works from any folder of any static host.

const tag = document.getElementById('boltzlab-boot');
const bindings = await import(new URL(tag.dataset.js, document.baseURI).href);
const wasm = await bindings.default({ module_or_path: new URL(tag.dataset.wasm, document.baseURI) });
/** @type {any} */ (window).wasmBindings = bindings;
dispatchEvent(new CustomEvent('TrunkApplicationStarted', { detail: { wasm } }));

// The offline classroom: the service worker beside the page (sw.js) keeps this build so the
// page opens with the network off after one visit. Browsers offer service workers only on
// https and on this machine (localhost); elsewhere the page simply runs online. A page that a
// worker already serves asks at once for a new build (browsers otherwise check when they see
// fit); offline, that check fails, as it should, silently. The first visit only registers:
// an update asked for while the first worker installs can hold up the worker's queue.
if ('serviceWorker' in navigator) {
  const served = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.register(new URL('sw.js', document.baseURI), { updateViaCache: 'none' }).then(
    (registration) => served && registration.update().catch(() => {}),
    (err) => console.warn(`boltzlab: working offline is not available here (${err.message})`),
  );
}

export {}; // a module: the awaits above are top-level
