// `make bench`, last part: MNIST learning in the page on one learning worker, on K
// (www/machine/mnist_team.js: K replicas sharing each update), and on the threaded engine's
// two threads (www/machine/threads.js: one learning worker and its second thread, on a page
// served with the cross-origin isolation headers; the other two are served without them, as
// most static hosts do). Serves the built page (dist/) on 127.0.0.1, opens it in headless
// Chromium and, for the page's default MNIST machine (784-500, CD-1, batch 100, ε = 0.1,
// μ = 0.5, seed 7; the likelihood worker scoring a point every 300 updates, as the page does),
// in each way in turn (1, K, threads, 1, K, threads: the machine's load changes, so they are
// compared side by side), reads over timed windows:
//   ms per update     wall time per update (the worker's update counter), median of windows,
//                     and an epoch (600 updates) at that pace;
//   in the engine     learning worker 0's own account ('engine_time'): ms per update of the
//                     whole shared update (compute and the waits for the other workers) and,
//                     of it, the ms inside engine calls (compute; the rest is the exchange);
//   fps               the page's animation frames over the same windows;
//   drawing           the time the page's MNIST drawing takes per frame (its draw(), timed
//                     here only), median and longest over the windows;
// and, for the threaded engine, how many split halves its second thread ran and how many the
// learning thread took back (it had not started them when the first half was done). Last, the
// engine alone: one update timed in a worker of its own (www/bench/threads_worker.js) on the
// default engine and on the threaded one, in turn, on the isolated page.
// K = min(navigator.hardwareConcurrency, 4). Prints a table and merges mnist_cores_* keys
// into target/bench.json.
//   node benches/mnist_cores.mjs [DIST] [PORT]
import { readFile, writeFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { serveDist, median, openMnistRun, summary } from './serve.mjs';
import { host } from '../tests/e2e/serve.js';

const WARM_MS = 4000;
const WINDOW_MS = 4000;
const WINDOWS = 3;
const ROUNDS = 2;

const jsonPath = 'target/bench.json';

const { port, server } = await serveDist('dist');
const isolated = await host({ root: process.argv[2] ?? 'dist', isolate: true });

// One timed window of the learning run.
function mnistWindow(page, ms) {
  return page.evaluate(async (ms) => {
    const mnist = window.boltzlabApp.machine.rbm.mnist;
    let frames = 0;
    let on = true;
    const count = () => {
      frames += 1;
      if (on) requestAnimationFrame(count);
    };
    requestAnimationFrame(count);
    const draws = [];
    const draw = mnist.draw.bind(mnist);
    mnist.draw = () => {
      const start = performance.now();
      draw();
      draws.push(performance.now() - start);
    };
    const t0 = performance.now();
    const updates0 = await mnist.read('updates');
    const engine0 = await mnist.read('engine_time');
    await new Promise((resolve) => setTimeout(resolve, ms));
    const engine1 = await mnist.read('engine_time');
    const updates1 = await mnist.read('updates');
    const t1 = performance.now();
    on = false;
    mnist.draw = draw;
    draws.sort((a, b) => a - b);
    const updates = engine1.updates - engine0.updates;
    return {
      msPerUpdate: (t1 - t0) / (updates1 - updates0),
      engineMs: (engine1.ms - engine0.ms) / updates,
      computeMs: (engine1.compute - engine0.compute) / updates,
      fps: (frames * 1000) / (t1 - t0),
      drawMs: draws.length ? draws[Math.floor(draws.length / 2)] : NaN,
      drawMaxMs: draws.length ? draws[draws.length - 1] : NaN,
    };
  }, ms);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
const runs = { 1: [], K: [], threads: [] };
// The engine alone in a worker: ms per update on one thread and on two.
const alone = { one: [], threads: [] };
const pairCounts = [];
let cores = 1;
let userAgent = '';
try {
  const probe = await browser.newPage();
  await probe.goto(`http://127.0.0.1:${port}/`);
  cores = Math.min(await probe.evaluate(() => navigator.hardwareConcurrency || 1), 4);
  userAgent = await probe.evaluate(() => navigator.userAgent);
  await probe.close();
  for (let round = 0; round < ROUNDS; round++) {
    for (const way of cores > 1 ? ['1', 'K', 'threads'] : ['1', 'threads']) {
      const k = way === 'K' ? cores : 1;
      const address = way === 'threads' ? isolated.url : `http://127.0.0.1:${port}/`;
      // The threaded engine is used when two cores or more are to be used (www/machine/mnist.js).
      const asked = way === 'threads' ? 2 : k;
      const { context, page } = await openMnistRun(browser, address, { cores: asked, hidden: 500, seed: 7 });
      const shown = await page.locator('#mnist-cores').textContent();
      const expected = way === 'threads' ? '2' : String(k);
      if (shown !== expected) throw new Error(`the page shows ${shown} cores where ${expected} were asked (${way})`);
      await page.getByRole('button', { name: 'Run learning' }).click();
      await page.waitForTimeout(WARM_MS);
      for (let w = 0; w < WINDOWS; w++) runs[way].push(await mnistWindow(page, WINDOW_MS));
      if (way === 'threads')
        pairCounts.push(await page.evaluate(() => window.boltzlabApp.machine.rbm.mnist.read('pair_counts')));
      await context.close();
    }
  }
  // On the machine's tab, idle: the lattice, which runs when the page opens, stops.
  const page = await browser.newPage();
  await page.goto(isolated.url);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60_000 });
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  for (let round = 0; round < ROUNDS; round++) {
    for (const threaded of [false, true]) {
      const result = await page.evaluate(
        (threaded) =>
          new Promise((resolve) => {
            const tag = document.getElementById('boltzlab-boot');
            const at = (path) => new URL(path, document.baseURI).href;
            const worker = new Worker(at('www/bench/threads_worker.js'), { type: 'module' });
            worker.onmessage = ({ data }) => {
              worker.terminate();
              resolve(data);
            };
            worker.postMessage({
              js: at(tag.dataset.js),
              wasm: at(tag.dataset.wasm),
              threads: threaded
                ? { js: at('threads/boltzlab_threads.js'), wasm: at('threads/boltzlab_threads_bg.wasm') }
                : null,
              repeats: 7,
              updates: 20,
            });
          }),
        threaded,
      );
      if (result.error) throw new Error(`the engine alone: ${result.error}`);
      alone[threaded ? 'threads' : 'one'].push(...result.msPerUpdate);
    }
  }
  await page.close();
} finally {
  await browser.close();
  server.kill();
  await isolated.close();
}

const figures = {};
for (const [name, windows] of Object.entries(runs)) {
  if (windows.length === 0) continue;
  figures[name] = {
    msPerUpdate: summary(windows.map((w) => w.msPerUpdate)),
    engineMs: summary(windows.map((w) => w.engineMs)),
    computeMs: summary(windows.map((w) => w.computeMs)),
    fps: summary(windows.map((w) => w.fps)),
    drawMs: summary(windows.map((w) => w.drawMs)),
    drawMaxMs: Math.max(...windows.map((w) => w.drawMaxMs)),
  };
}
const f = (s, digits = 2) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;
console.log(`\nMNIST 784-500 CD-1 batch 100 learning in the page, ${userAgent}`);
console.log(
  'workers | ms per update | epoch (600) s | in worker 0: ms per update | of it in the engine | fps | drawing ms per frame (longest)',
);
for (const [name, s] of Object.entries(figures)) {
  const label = { 1: '1', K: String(cores), threads: '1, two threads (isolated page)' }[name];
  const computed = name === 'K' ? f(s.computeMs) : '—';
  console.log(
    `${label} | ${f(s.msPerUpdate)} | ${((600 * s.msPerUpdate.median) / 1000).toFixed(1)} | ${f(s.engineMs)} | ${computed} | ${f(s.fps, 1)} | ${f(s.drawMs, 1)} (${s.drawMaxMs.toFixed(1)})`,
  );
}
if (figures.K)
  console.log(
    `speed-up with ${cores} workers: ${(figures[1].msPerUpdate.median / figures.K.msPerUpdate.median).toFixed(2)}×`,
  );
if (figures.threads) {
  console.log(
    `speed-up with the threaded engine: ${(figures[1].msPerUpdate.median / figures.threads.msPerUpdate.median).toFixed(2)}×`,
  );
  const halves = pairCounts.map(([helped, back]) => `${helped} run by the second thread, ${back} taken back`);
  console.log(`split halves, each round: ${halves.join('; ')}`);
  figures.threads.pairCounts = pairCounts;
}
if (alone.threads.length > 0) {
  figures.alone = { one: summary(alone.one), threads: summary(alone.threads) };
  console.log(
    `the engine alone in a worker, ms per update: one thread ${f(figures.alone.one)}, two threads ${f(figures.alone.threads)}: ` +
      `${(figures.alone.one.median / figures.alone.threads.median).toFixed(2)}×`,
  );
}
const bench = JSON.parse(await readFile(jsonPath, 'utf8').catch(() => '{}'));
bench.mnist_cores = { cores, ...figures };
await writeFile(jsonPath, `${JSON.stringify(bench, null, 2)}\n`);
console.log(`figures written to ${jsonPath} (mnist_cores)`);
