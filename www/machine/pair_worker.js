// @ts-check
// The threaded engine's second thread (scripts/build_threads.sh; src/linalg/pair.rs): started
// by the MNIST learning worker on a cross-origin isolated page, it instantiates the same
// compiled module on the learning worker's shared memory, registers itself as the instance's
// helper and then serves the second half of every split product until the learning worker
// ends it. It never returns to its event loop once serving.
//
//   learning worker → helper   {type: 'start', js, module, memory}
//   helper → learning worker   {type: 'ready'} (registered; serving from now on)
//                              {type: 'panic', message} (it could not start, or it panicked:
//                              the learning thread, waiting on it, then panics with the
//                              page's usual fault report)

onmessage = async ({ data }) => {
  try {
    const engine = await import(data.js);
    engine.initSync({ module: data.module, memory: data.memory });
    /** @type {any} */ (globalThis).boltzlabReportPanic = (message) =>
      postMessage({ type: 'panic', message: String(message) });
    if (!engine.pair_register()) throw new Error('the engine already has its second thread');
    postMessage({ type: 'ready' });
    engine.pair_serve();
  } catch (err) {
    postMessage({ type: 'panic', message: String(err?.message ?? err) });
  }
};

export {};
