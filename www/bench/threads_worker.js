// @ts-check
// `make bench` (benches/mnist_cores.mjs): one 784-500 CD-1 update (batch 100; the engine's
// BenchMnistRbm, the same work as the bench page's) timed in a worker of its own, on the
// default engine (one thread) or on the threaded one (two; a cross-origin isolated page
// only): the engine with the cores to itself, beside the page figures.
//   page → worker  {js, wasm, threads: {js, wasm} | null, repeats, updates}
//   worker → page  {msPerUpdate: [...]} | {error}
import { loadThreaded } from '../machine/threads.js';
import { loadEngine } from '../worker_host.js';

onmessage = async ({ data }) => {
  try {
    const engine = data.threads ? await loadThreaded(data.threads) : await loadEngine(data);
    const bench = new engine.BenchMnistRbm();
    bench.run(5);
    const msPerUpdate = [];
    for (let k = 0; k < data.repeats; k++) {
      const t0 = performance.now();
      bench.run(data.updates);
      msPerUpdate.push((performance.now() - t0) / data.updates);
    }
    postMessage({ msPerUpdate });
  } catch (err) {
    postMessage({ error: String(err?.message ?? err) });
  }
};
