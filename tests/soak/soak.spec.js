// `make soak` (not part of `make test`): the page left running at max speed keeps its
// memory flat. Three legs, each SOAK_MINUTES long (default 10): a 1024×1024 lattice at the
// frame-budget speed, a Boltzmann machine learning at its highest speed, and a restricted
// machine learning the 8×8 digits with persistent particles (fantasy particles drawn every
// frame, exact log-likelihood points computed in slices). Every
// SAMPLE_SECONDS the page's garbage is collected (CDP HeapProfiler.collectGarbage) and
// Chromium's performance metrics are read (CDP Performance.getMetrics: JSHeapUsedSize,
// Nodes, JSEventListeners), with the wasm memory size (the page's and the lattice worker's),
// the progress and the frame rate.
// The samples go to target/soak-<leg>.json and are printed as a table.
//
// Laws, after one minute of warm-up:
// - the wasm memory never grows (it can only grow; growth while running is a leak);
// - the live JS heap of the last third of samples is within max(1 MiB, 5 %) of the first
//   third's (a leak of 30 bytes a frame over 10 minutes would be 1 MiB);
// - DOM nodes and event listeners do not grow (medians of the first and last thirds);
// - the run really ran (its progress grew in every interval) and no error reached the page.
import fs from 'node:fs';
import { test, expect, openApp, choose } from '../e2e/fixtures.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const SAMPLE_SECONDS = Math.max(5, Math.min(30, (MINUTES * 60) / 20));
const WARM_UP_SECONDS = Math.min(60, (MINUTES * 60) / 5);

test.describe.configure({ timeout: (MINUTES * 60 + 120) * 1000 });

async function sampler(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  return async (progress) => {
    await cdp.send('HeapProfiler.collectGarbage');
    const { metrics } = await cdp.send('Performance.getMetrics');
    const metric = (name) => metrics.find((m) => m.name === name)?.value ?? NaN;
    const page_ = await page.evaluate(async () => ({
      // The page's wasm memory and, since the lattice runs in a worker, the worker's.
      wasm: window.boltzlabEngine.wasm_memory().buffer.byteLength + (await window.boltzlabLab.memory()),
      frames: window.soakFrames,
    }));
    return {
      t: Date.now(),
      heap: metric('JSHeapUsedSize'),
      nodes: metric('Nodes'),
      listeners: metric('JSEventListeners'),
      wasm: page_.wasm,
      frames: page_.frames,
      progress: await progress(),
    };
  };
}

function median(values) {
  const v = [...values].sort((a, b) => a - b);
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
}

async function soak(page, leg, progress) {
  const sample = await sampler(page);
  await page.waitForTimeout(WARM_UP_SECONDS * 1000);
  const samples = [await sample(progress)];
  const end = Date.now() + MINUTES * 60 * 1000 - WARM_UP_SECONDS * 1000;
  while (Date.now() < end) {
    await page.waitForTimeout(SAMPLE_SECONDS * 1000);
    samples.push(await sample(progress));
  }
  const rows = samples.map((s, k) => {
    const previous = samples[Math.max(0, k - 1)];
    const seconds = (s.t - previous.t) / 1000 || 1;
    return {
      minute: ((s.t - samples[0].t) / 60000 + WARM_UP_SECONDS / 60).toFixed(2),
      'heap MiB': (s.heap / 2 ** 20).toFixed(3),
      'wasm MiB': (s.wasm / 2 ** 20).toFixed(1),
      nodes: s.nodes,
      listeners: s.listeners,
      progress: s.progress,
      fps: k ? ((s.frames - previous.frames) / seconds).toFixed(1) : '',
    };
  });
  console.log(`soak ${leg}: ${MINUTES} min`);
  console.table(rows);
  fs.mkdirSync('target', { recursive: true });
  fs.writeFileSync(`target/soak-${leg}.json`, JSON.stringify({ minutes: MINUTES, samples }, null, 1));

  expect(samples.length).toBeGreaterThanOrEqual(4);
  for (let k = 1; k < samples.length; k++) {
    expect(samples[k].wasm, `wasm memory grew by minute ${rows[k].minute}`).toBe(samples[0].wasm);
    expect(samples[k].progress, `stalled by minute ${rows[k].minute}`).toBeGreaterThan(samples[k - 1].progress);
  }
  const third = Math.max(1, Math.floor(samples.length / 3));
  const first = median(samples.slice(0, third).map((s) => s.heap));
  const last = median(samples.slice(-third).map((s) => s.heap));
  expect(last - first, `JS heap: ${first} → ${last} bytes`).toBeLessThanOrEqual(Math.max(2 ** 20, 0.05 * first));
  // Nodes and listeners come and go with what a frame shows (a progress line, a caption),
  // so single samples spike by a few tens and return: growth is judged, as the heap's, on
  // the medians of the first and last thirds.
  for (const key of ['nodes', 'listeners']) {
    const early = median(samples.slice(0, third).map((s) => s[key]));
    const late = median(samples.slice(-third).map((s) => s[key]));
    expect(late, `${key}: ${early} → ${late}`).toBeLessThanOrEqual(early + 20);
  }
}

test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    window.soakFrames = 0;
    const count = () => {
      window.soakFrames++;
      requestAnimationFrame(count);
    };
    requestAnimationFrame(count);
  });
});

test('a 1024×1024 lattice at max speed keeps its memory flat', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '1024');
  await expect(page.locator('#spins')).toHaveJSProperty('width', 1024);
  const speed = page.locator('#speed');
  await speed.fill(await speed.getAttribute('max'));
  await expect(page.locator('#speed-shown')).toHaveText(/max/);
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
  await soak(page, 'lattice', () => page.evaluate(() => window.boltzlabLab.sweeps()));
});

test('a Boltzmann machine learning at its highest speed keeps its memory flat', async ({ page }) => {
  await openApp(page);
  await page.locator('#mode-machine').check();
  await page.locator('#bm-dataset').selectOption('bars-3x3');
  const speed = page.locator('#bm-speed');
  await speed.fill(await speed.getAttribute('max'));
  await page.locator('#bm-run').click();
  await expect(page.locator('#bm-run')).toHaveText('Pause learning');
  await soak(page, 'machine', async () => Number(await page.locator('#bm-cycle').textContent()));
});

test('a restricted machine learning the digits with persistent particles keeps its memory flat', async ({ page }) => {
  await openApp(page);
  await page.locator('#mode-machine').check();
  await page.locator('#bm-kind-restricted').check();
  await expect(page.locator('#rbm')).toBeVisible();
  await page.locator('#rbm-dataset').selectOption('digits8');
  await page.locator('#rbm-statistics').selectOption('persistent');
  await page.locator('#rbm-create').click();
  await page.locator('#rbm-run').click();
  await expect(page.locator('#rbm-run')).toHaveText('Pause learning');
  await soak(page, 'digits', async () => Number(await page.locator('#rbm-updates').textContent()));
});
