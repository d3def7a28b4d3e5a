// What the page benchmarks share: the built page served on 127.0.0.1 (tests/e2e/serve.js) on a
// free port or BENCH_PORT, the page opened on an MNIST run, and the median, min and max of
// repeated figures.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nothing listens on now. */
const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(String(port)));
    });
  });

/**
 * Serves the folder given as the first argument (else `dist`) on the port given as the second
 * (else BENCH_PORT, else a free one); resolves once the server answers.
 * @param {string} dist the folder when no argument names one
 * @returns {Promise<{port: string, server: import('node:child_process').ChildProcess}>}
 */
export async function serveDist(dist) {
  const [folder = dist, port = process.env.BENCH_PORT ?? (await freePort())] = process.argv.slice(2);
  const server = spawn(process.execPath, ['tests/e2e/serve.js', folder, port], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    server.stdout.once('data', resolve);
    server.once('exit', (code) => reject(new Error(`the server stopped (${code})`)));
  });
  return { port, server };
}

/**
 * A page of its own (1280 × 800, no service worker) at `url`, with `cores` cores for MNIST
 * learning (the page's stored choice), on a new MNIST run of the restricted machine: 784-`hidden`
 * from `seed`, not yet learning. What tests/e2e/mnist_helpers.js's chooseMnist does for the
 * specs, for the benches, which run outside the test runner.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {{cores: number, hidden: number, seed: number}} run
 */
export async function openMnistRun(browser, url, { cores, hidden, seed }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
  await context.addInitScript((n) => localStorage.setItem('boltzlab-mnist-cores', n), String(cores));
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60_000 });
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await page.waitForFunction(() => Boolean(window.boltzlabApp.machine.rbm.shown), null, { timeout: 60_000 });
  await page.locator('#rbm-dataset').selectOption('mnist');
  await page.locator('#rbm-hidden').fill(String(hidden));
  await page.locator('#rbm-create').click();
  await page.locator('#mnist').waitFor({ state: 'visible', timeout: 120_000 });
  await page.evaluate(
    ([h, s]) => window.boltzlabApp.machine.rbm.mnist.send({ command: 'new-run', hidden: h, seed: s }),
    [hidden, seed],
  );
  return { context, page };
}

export const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
// (A NaN, as the page's input delay when no effect was seen, counts in the maximum.)
export const summary = (v) => ({ median: median(v), min: Math.min(...v), max: Math.max(...v) });
