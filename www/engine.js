// @ts-check
// Loading the wasm engine and reading its memory.
//
// Trunk's loader initialises the module, sets window.wasmBindings and dispatches
// TrunkApplicationStarted. Bulk data is read through typed-array views over wasm's
// linear memory; a view is rebuilt on every read because memory may have grown (which
// detaches the old buffer).

export function engineReady(timeoutMs = 20000) {
  const page = /** @type {any} */ (window); // Trunk's loader sets page.wasmBindings
  if (page.wasmBindings) return Promise.resolve(page.wasmBindings);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the simulation engine (WebAssembly) did not start')), timeoutMs);
    window.addEventListener(
      'TrunkApplicationStarted',
      () => {
        clearTimeout(timer);
        resolve(page.wasmBindings);
      },
      { once: true },
    );
  });
}

export function view(bindings, Type, ptr, length) {
  return new Type(bindings.wasm_memory().buffer, ptr, length);
}
