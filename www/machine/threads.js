// @ts-check
// The threaded engine for a cross-origin isolated page (scripts/build_threads.sh): the same
// engine built with atomics and a shared memory, whose batch updates split their products in
// two halves run on two threads (src/linalg/pair.rs), the second a Web Worker
// (pair_worker.js) on the same module and memory. A page without isolation cannot share
// memory between workers, and loads the default engine instead (docs/guide.md, "Offline and
// hosting").

/** How long the second thread may take to start before the default engine is used (ms). */
const START_MS = 20_000;

/**
 * The addresses of the threaded engine's module and wasm, in the folder `threads/` of the page
 * at `base` (the page's document.baseURI), when this page may share memory between workers
 * (cross-origin isolated), else null.
 * @param {string} base
 * @returns {{js: string, wasm: string} | null}
 */
export function threadedEngine(base) {
  if (!globalThis.crossOriginIsolated) return null;
  return {
    js: new URL('threads/boltzlab_threads.js', base).href,
    wasm: new URL('threads/boltzlab_threads_bg.wasm', base).href,
  };
}

/**
 * Loads the threaded engine in this worker and starts its second thread; resolves once that
 * thread serves, with the loaded module (the same bindings as the default engine).
 * @param {{js: string, wasm: string}} where
 * @returns {Promise<any>}
 */
export async function loadThreaded(where) {
  const engine = await import(where.js);
  const response = await fetch(where.wasm);
  if (!response.ok) throw new Error(`${where.wasm}: ${response.status} ${response.statusText}`);
  const module = await WebAssembly.compileStreaming(response);
  await engine.default({ module_or_path: module });
  const helper = new Worker(new URL('./pair_worker.js', import.meta.url), {
    type: 'module',
    name: 'boltzlab second thread',
  });
  const started = new Promise((resolve, reject) => {
    const late = setTimeout(
      () => reject(new Error(`the second thread did not start in ${START_MS / 1000} s`)),
      START_MS,
    );
    helper.onmessage = ({ data }) => {
      clearTimeout(late);
      if (data.type === 'ready') resolve(undefined);
      else reject(new Error(data.message));
    };
    helper.onerror = (event) => {
      clearTimeout(late);
      reject(new Error(event.message || 'the second thread could not start'));
    };
    helper.postMessage({ type: 'start', js: where.js, module, memory: engine.wasm_memory() });
  });
  try {
    await started;
    if (engine.page_threads() !== 2) throw new Error('the second thread is not registered');
  } catch (err) {
    helper.terminate();
    throw err;
  }
  // Once serving, the helper speaks only if it panics; the learning thread waiting on it then
  // panics too, with the page's fault report, so this is for the console.
  helper.onmessage = ({ data }) => console.error(`boltzlab: the second thread stopped: ${data.message}`);
  return engine;
}
