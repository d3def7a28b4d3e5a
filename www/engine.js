// Loading the wasm engine and reading its memory.
//
// Trunk's loader initialises the module, sets window.wasmBindings and dispatches
// TrunkApplicationStarted. Bulk data is read through typed-array views over wasm's
// linear memory; a view is rebuilt on every read because memory may have grown (which
// detaches the old buffer).

export function engineReady(timeoutMs = 20000) {
  if (window.wasmBindings) return Promise.resolve(window.wasmBindings);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the simulation engine (WebAssembly) did not start')), timeoutMs);
    window.addEventListener(
      'TrunkApplicationStarted',
      () => {
        clearTimeout(timer);
        resolve(window.wasmBindings);
      },
      { once: true },
    );
  });
}

export function view(bindings, Type, ptr, length) {
  return new Type(bindings.wasm_memory().buffer, ptr, length);
}
