// @ts-check
// The start every MNIST engine worker shares (mnist_worker.js, likelihood_worker.js): load the
// page's wasm engine (the same wasm-bindgen module and .wasm file as the page) on 'init', hold
// the messages that come before it, hand each later one to `handle` (an error it throws is
// reported as {type: 'error', part: 'protocol'}), and report a wasm panic or a failed start as
// {type: 'panic'}, after which the worker ignores everything.

/**
 * @param {(engine: typeof import('boltzlab-bindings')) => void} ready  called once loaded
 * @param {(data: any) => void} handle  every message after 'init'
 * @returns {{dead: () => boolean}}
 */
export function serveEngine(ready, handle) {
  let loaded = false;
  let dead = false;
  const early = [];
  const die = (message) => {
    dead = true;
    postMessage({ type: 'panic', message });
  };
  // The wasm panic hook (src/web/mod.rs) calls globalThis.boltzlabReportPanic.
  globalThis.boltzlabReportPanic = (message) => die(String(message));
  const safely = (data) => {
    if (dead) return;
    try {
      handle(data);
    } catch (err) {
      if (!dead) postMessage({ type: 'error', part: 'protocol', message: String(err?.message ?? err) });
    }
  };
  async function init({ js, wasm }) {
    const engine = await import(js);
    await engine.default({ module_or_path: wasm });
    ready(engine);
    loaded = true;
    postMessage({ type: 'ready' });
    for (const data of early.splice(0)) safely(data);
  }
  onmessage = ({ data }) => {
    if (data.type === 'init')
      init(data).catch((err) => die(`the engine could not start in its worker: ${err?.message ?? err}`));
    else if (!loaded) early.push(data);
    else safely(data);
  };
  return { dead: () => dead };
}
