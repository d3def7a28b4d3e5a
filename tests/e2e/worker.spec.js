// The lattice's engine runs in a module worker (www/lattice/worker.js): what the page shows
// after a run there is the engine's exported state, the page's own mirror of the run is then
// exactly the worker's, the inspector's tick is the engine's, a worker that dies shows
// the fault overlay with the last good state still exportable, and after every command (each
// a LatticeCommand, made on the mirror and then in the worker) both hold the same state.
import { readFile } from 'node:fs/promises';
import { test, expect, openApp, lab, pause, choose, enter, shown, spinsAndClamps } from './fixtures.js';

// The energy and magnetisation per spin of a zero-field ferromagnet with periodic
// boundaries, from the exported spin rows ("+-+…"): E = −Σ⟨ij⟩ s_i s_j, M = Σ s_i.
function perSpin(rows) {
  const L = rows.length;
  const s = (x, y) => (rows[(y + L) % L][(x + L) % L] === '+' ? 1 : -1);
  let e = 0;
  let m = 0;
  for (let y = 0; y < L; y++)
    for (let x = 0; x < L; x++) {
      e -= s(x, y) * (s(x + 1, y) + s(x, y + 1));
      m += s(x, y);
    }
  return { energy: e / (L * L), magnetization: m / (L * L), n: L * L };
}

const format = (x) => (Math.abs(x) < 0.5e-4 ? 0 : x).toFixed(4);

async function runAtMax(page) {
  const speed = page.getByRole('slider', { name: 'Speed' });
  await speed.fill(await speed.getAttribute('max'));
  await expect(page.locator('#speed-shown')).toHaveText(/max/);
}

test('after a run at maximum speed in the worker, the page shows the engine’s exported state', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  await enter(page, 'Temperature value', 2);
  await runAtMax(page);
  await expect.poll(() => shown(page, 'sweeps')).toBeGreaterThan(200);
  // Export works while the worker runs: a state the engine wrote, part-way through.
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export state (JSON)' }).click();
  const running = JSON.parse(await readFile(await (await download).path(), 'utf8'));
  expect(running.ticks).toBeGreaterThan(0);
  await pause(page);
  const text = await lab(page, 'export_state');
  const state = JSON.parse(text);
  const exact = perSpin(state.spins);
  // The worker's last frame is drawn at the next animation frame.
  await expect(page.locator('#sweeps')).toHaveText((state.ticks / exact.n).toFixed(1));
  await expect(page.locator('#energy')).toHaveText(format(exact.energy));
  await expect(page.locator('#magnetization')).toHaveText(format(exact.magnetization));
  const live = await spinsAndClamps(page);
  expect(live.spins.map((s) => (s > 0 ? '+' : '-')).join('')).toBe(state.spins.join(''));
  // The spin canvas shows exactly these spins: one pixel a site, the up colour on every up
  // site and the down colour on every down site.
  const pixels = await page.locator('#spins').evaluate((canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    return Array.from(
      { length: data.length / 4 },
      (_, i) => (data[4 * i] << 16) | (data[4 * i + 1] << 8) | data[4 * i + 2],
    );
  });
  const spins = state.spins.join('');
  expect(pixels.length).toBe(spins.length);
  const colour = { '+': pixels[spins.indexOf('+')], '-': pixels[spins.indexOf('-')] };
  expect(colour['+']).toBe(0xf4f1e8); // --spin-up
  expect(colour['-']).toBe(0x1d3557); // --spin-down
  expect(pixels.every((p, i) => p === colour[spins[i]])).toBe(true);
  // The page's mirror of the run holds exactly the worker's state once paused.
  const mirrorState = await page.evaluate(async () => {
    await window.boltzlabSettled();
    return window.boltzlabApp.lattice.lab.export_state();
  });
  expect(mirrorState).toBe(text);
});

test('after a change of size, the worker’s frames travel in the buffers the page gives back', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  await runAtMax(page);
  await expect.poll(() => shown(page, 'sweeps')).toBeGreaterThan(100);
  await choose(page, 'Size', '512');
  await expect.poll(() => shown(page, 'sweeps')).toBeGreaterThan(5);
  // Once the first frames of the new size are back, frames reuse the buffers the page gives
  // back: over 30 more frames at most 2 new ones (the pool of four may still be filling when a
  // loaded page holds a frame a little longer), where a frame that took fresh memory would
  // take 30.
  const before = await lab(page, 'engine_time');
  await expect.poll(async () => (await lab(page, 'engine_time')).frames - before.frames).toBeGreaterThan(30);
  const after = await lab(page, 'engine_time');
  expect(after.buffers - before.buffers).toBeLessThanOrEqual(2);
});

test('after a run in the worker, step one tick explains the engine’s tick and both copies agree', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await runAtMax(page);
  await expect.poll(() => shown(page, 'sweeps')).toBeGreaterThan(50);
  await pause(page);
  for (let k = 0; k < 5; k++) {
    const before = await lab(page, 'ticks');
    await page.getByRole('button', { name: 'Step one tick' }).click();
    await expect(page.locator('#inspect-site')).toContainText(`tick ${before}`);
    expect(await lab(page, 'ticks')).toBe(before + 1);
  }
  await page.evaluate(() => window.boltzlabSettled());
  const [worker, mirror] = await page.evaluate(async () => [
    await window.boltzlabLab.export_state(),
    window.boltzlabApp.lattice.lab.export_state(),
  ]);
  expect(mirror).toBe(worker);
});

// A lattice at temperature 1.5, kept, running at maximum speed, whose worker's engine then
// stops (`fault`: boltzlabWorkerFault's options): the fault overlay shows `message`, and its
// export is the last good state.
async function engineStops(page, fault, message) {
  await openApp(page);
  await enter(page, 'Temperature value', 1.5);
  await expect
    .poll(async () => {
      const text = await page.evaluate(() => window.localStorage.getItem('boltzlab.session'));
      return text === null ? null : JSON.parse(JSON.parse(text).lattice).temperature;
    })
    .toBe(1.5);
  await runAtMax(page);
  await page.evaluate((fault) => window.boltzlabWorkerFault(fault), fault);
  await expect(page.getByRole('alertdialog', { name: 'The engine stopped' })).toBeVisible();
  await expect(page.locator('#fault-message')).toContainText(message);
  await expect(page.locator('body')).toHaveAttribute('data-fault', 'panic');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export last good state' }).click();
  const saved = JSON.parse(await readFile(await (await download).path(), 'utf8'));
  expect(saved.temperature).toBe(1.5);
}

test.describe('a worker that dies', () => {
  // console_error_panic_hook logs the worker's panic; the log may be lost as the page ends the
  // dead worker, so it is allowed, and the overlay is asserted to carry the panic's message.
  test.use({ expectedProblems: { patterns: [], allowed: [/deliberate panic for tests/] } });

  test('shows the fault overlay and keeps the last good state exportable', async ({ page }) => {
    await engineStops(page, {}, 'deliberate panic for tests');
  });
});

test.describe('a worker whose engine traps', () => {
  // A wasm trap (an out-of-bounds access, WebKit's occasional fault: docs/validation.md) is
  // no panic, so no hook reports it (nor logs it): the worker takes the
  // WebAssembly.RuntimeError for one.
  test('shows the fault overlay, as for a panic, and keeps the last good state exportable', async ({ page }) => {
    await engineStops(page, { trap: true }, 'the engine stopped with a wasm trap');
  });
});

// Every kind of change the page can make to the run (each a LatticeCommand; the sweep's
// commands work on a copy and are not here), with the run going on between some of them.
const COMMANDS = [
  { command: 'set-temperature', temperature: 1.9 },
  { command: 'set-field', field: 0.15 },
  { command: 'set-model', model: 'spin-glass-pm' },
  { command: 'set-boundary', boundary: 'open' },
  { command: 'set-order', order: 'checkerboard' },
  { command: 'set-dynamics', dynamics: 'metropolis' },
  { command: 'reset', to: 'up' },
  { command: 'paint', from: { x: 2.5, y: 3.5 }, to: { x: 20.5, y: 9.5 }, radius: 2, brush: 'down' },
  { command: 'paint', from: { x: 4.5, y: 20.5 }, to: { x: 28.5, y: 20.5 }, radius: 1, brush: 'clamp' },
  { command: 'set-clamps-on', on: false },
  { command: 'set-clamps-on', on: true },
  { command: 'advance', ticks: 777, explain: true },
  { command: 'release-all' },
  { command: 'set-seed', seed: 12345 },
  { command: 'set-size', size: 24 },
  { command: 'apply-fragment', fragment: 'model=antiferromagnet&size=20&T=3&seed=5' },
];

test('after every command, run or paused, the page’s mirror and the worker hold the same state', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  await runAtMax(page);
  await pause(page);
  const agree = async (what) => {
    const [mirror, worker] = await page.evaluate(async () => {
      await window.boltzlabSettled();
      return [window.boltzlabApp.lattice.lab.export_state(), await window.boltzlabLab.export_state()];
    });
    expect(mirror, what).toBe(worker);
    return worker;
  };
  let k = 0;
  for (const command of COMMANDS) {
    // Every other command is made while the run goes on in the worker.
    const running = k++ % 2 === 0;
    if (running) {
      await page.getByRole('button', { name: 'Run' }).click();
      await page.waitForTimeout(150);
    }
    await page.evaluate((c) => window.boltzlabLab.dispatch(c), command);
    if (running) await pause(page);
    await agree(`${JSON.stringify(command)} (${running ? 'running' : 'paused'})`);
  }
  // The run replaced as a whole: by a state file (while running) and by a session (paused),
  // both taken from the worker before a further run; the session gives back exactly that state.
  const state = await lab(page, 'export_state');
  const session = (await lab(page, 'timed_session')).text;
  await page.getByRole('button', { name: 'Run' }).click();
  await page.waitForTimeout(200);
  await page.evaluate((json) => window.boltzlabLab.dispatch({ command: 'import-state', json }), state);
  await pause(page); // the imported run went on in the worker until then
  expect(await agree('import-state')).not.toBe(state);
  await page.getByRole('button', { name: 'Run' }).click();
  await page.waitForTimeout(200);
  await pause(page);
  await page.evaluate((text) => window.boltzlabLab.dispatch({ command: 'restore-session', text }), session);
  expect(await agree('restore-session')).toBe(state);
  // A refused command is refused by the mirror at once, and nothing reaches the worker.
  const refused = await page.evaluate(() => {
    try {
      window.boltzlabLab.dispatch({ command: 'set-size', size: 3.5 });
      return null;
    } catch (err) {
      return err.message;
    }
  });
  expect(refused).toMatch(/size must be a whole number/i);
  expect(await agree('refused set-size')).toBe(state);
});
