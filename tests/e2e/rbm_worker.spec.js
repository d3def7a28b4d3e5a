// The restricted machine runs in a module worker (www/machine/rbm_worker.js): the page only
// draws what the worker's frames bring. What the page shows after learning is the engine's
// own state; the same seed and commands learn bit for bit the machine a direct RbmLab learns
// in the page's own engine module; a reload while it learns loses at most 1 s of learning and
// never an option change; the main thread draws on while a 64-500 machine learns with its AIS
// points under way in the second worker (its longest task printed), and learning keeps its own
// worker meanwhile; and a worker that dies shows the fault overlay
// with the last good session kept.
import { readFile } from 'node:fs/promises';
import { test, expect, openRestricted, latestCount, recordLeaving, readLeaving, lostAtLeaving } from './fixtures.js';

// A reading of the worker's live run (an RbmLab getter, or 'weights', 'curve', 'session').
function read(page, name, ...args) {
  return page.evaluate(
    async ([n, a]) => {
      const value = await window.boltzlabApp.machine.rbm.read(n, ...a);
      const plain = (v) =>
        ArrayBuffer.isView(v)
          ? Array.from(/** @type {Float64Array} */ (v))
          : v && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
            : v;
      return plain(value);
    },
    [name, args],
  );
}

// The pinned run of tests/protocol_rbm.rs: digits, 16 hidden units, seed 1, 100 persistent
// particles, k = 1, batch 100, ε = 0.02, μ = 0.5.
const PINNED = {
  command: 'new-run',
  dataset: 'digits8',
  hidden: 16,
  seed: 1,
  training: {
    statistics: 'persistent',
    steps: 1,
    particles: 100,
    replicas: null,
    batch: 100,
    rate: 0.02,
    momentum: 0.5,
    decay: 0,
  },
};

test('after learning in the worker, the page draws the engine’s state, and a direct run learns the same machine bit for bit', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openRestricted(page);
  // Continuous learning in slices, then paused: what the page was last sent is the engine's.
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => read(page, 'updates'), { timeout: 60_000 }).toBeGreaterThanOrEqual(150);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  await page.evaluate(() => window.boltzlabApp.machine.rbm.idle());
  const drawn = await page.evaluate(() => {
    const { stats, weights, curve } = window.boltzlabApp.machine.rbm.shown;
    return { updates: stats.updates, weights: Array.from(weights), test: Array.from(curve.test) };
  });
  const engine = { updates: await read(page, 'updates'), weights: await read(page, 'weights') };
  const curve = await read(page, 'curve');
  expect(drawn.updates).toBe(engine.updates);
  expect(drawn.weights).toEqual(engine.weights);
  expect(drawn.test).toEqual(curve.test);
  await expect(page.locator('#rbm-updates')).toHaveText(String(engine.updates));
  // The same machine learned by whole updates in the page's own engine module (the main
  // thread's RbmLab, never the worker's): the weights after as many updates are the same bits.
  const direct = await page.evaluate((updates) => {
    const rbm = window.boltzlabApp.machine.rbm;
    const engineModule = window.boltzlabEngine;
    const lab = new engineModule.RbmLab('bars-4x4', 1, 1);
    try {
      lab.dispatch({
        command: 'new-run',
        dataset: 'digits8',
        hidden: 16,
        seed: 1,
        training: rbm.mirror.training(),
        likelihood_every: rbm.mirror.likelihood_every(),
      });
      for (let done = 0; done < updates; done += 1000)
        lab.dispatch({ command: 'advance', updates: Math.min(1000, updates - done) });
      const memory = engineModule.wasm_memory().buffer;
      return Array.from(new Float64Array(memory, lab.weights_ptr(), lab.visible() * lab.hidden()));
    } finally {
      lab.free();
    }
  }, engine.updates);
  expect(direct).toEqual(engine.weights);
  // A read that would change the engine is refused (worker_host.js CHANGING), and changes
  // nothing: changes come only as commands.
  const refused = await page.evaluate(() =>
    window.boltzlabApp.machine.rbm.read('advance', 5).then(
      () => 'answered',
      (err) => String(err?.message ?? err),
    ),
  );
  expect(refused).toContain('has no reading advance');
  expect(await read(page, 'updates')).toBe(engine.updates);

  // The pinned run as commands to the worker (whole updates, the likelihood points made there
  // as the worker makes them): its session text is the direct run's, character for character.
  await page.evaluate((pinned) => window.boltzlabApp.machine.rbm.dispatch(pinned), PINNED);
  await page.evaluate(() => window.boltzlabApp.machine.rbm.dispatch({ command: 'advance', updates: 50 }));
  await page.evaluate(() => window.boltzlabApp.machine.rbm.idle());
  const worker = JSON.parse((await read(page, 'session')).text);
  const same = await page.evaluate((pinned) => {
    const lab = new window.boltzlabEngine.RbmLab('bars-4x4', 1, 1);
    const points = () => {
      for (let k = 0; k < 1e5 && lab.dispatch({ command: 'likelihood-step', work: 1 << 20 }).added === false; k++)
        if (lab.likelihood_progress() < 0) break;
    };
    try {
      lab.dispatch(pinned);
      points();
      lab.dispatch({ command: 'advance', updates: 50 });
      points();
      return JSON.parse(lab.session());
    } finally {
      lab.free();
    }
  }, PINNED);
  expect(worker.updates).toBe(50);
  // Everything but the view stream, which each drawn frame's particle refresh draws from (the
  // worker refreshed for every frame it posted; the direct run never did).
  for (const key of Object.keys(same)) if (key !== 'view_random_state') expect(worker[key], key).toEqual(same[key]);
  expect(Object.keys(worker)).toEqual(Object.keys(same));
});

for (const hidden of [16, 500])
  test(`a reload while a 64-${hidden} machine learns loses at most 1 s of learning and never an option change`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await openRestricted(page);
    await page.locator('#rbm-hidden').fill(String(hidden));
    await page.locator('#rbm-create').click();
    await expect(page.locator('#rbm-setup-done')).toContainText(`A 64-${hidden} machine`);
    await page.getByRole('button', { name: 'Run learning' }).click();
    await page.waitForTimeout(1500);
    const first = await latestCount(page, 'machine.rbm.shown', 'updates');
    await page.waitForTimeout(1500);
    const second = await latestCount(page, 'machine.rbm.shown', 'updates');
    const rate = ((second.updates - first.updates) / (second.at - first.at)) * 1000;
    expect(rate).toBeGreaterThan(0);
    // An option change, the run going on, then the page left at once.
    await page.locator('#rbm-rate').fill('0.03');
    await page.getByRole('button', { name: 'Apply options' }).click();
    await expect(page.locator('#rbm-training-error')).toBeHidden();
    // The moment the page is left, with the latest frame's update count and the moment it was
    // read, kept where the next page can read them.
    await recordLeaving(page, 'machine.rbm.shown', 'updates');
    await page.waitForTimeout(300);
    await page.reload();
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    const last = await readLeaving(page);
    await page.getByRole('button', { name: 'Restore', exact: true }).click();
    await expect(page.locator('#session')).toBeHidden();
    await expect(page.locator('#rbm')).toBeVisible();
    await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
    const restored = await read(page, 'updates');
    const training = JSON.parse(await read(page, 'training_json'));
    // At most 1 s of learning gone after the last frame the page had; the figure extrapolated
    // to the moment of leaving is printed for the guide (fixtures.js, lostAtLeaving).
    const lost = lostAtLeaving(last, 'updates', rate, restored);
    const measured =
      `restricted 64-${hidden} digits learning at ${rate.toFixed(0)} updates/s (under load): ${last.updates} updates in the ` +
      `last frame, read ${Math.round(lost.staleMs)} ms before leaving (≈ ${lost.atLeaving.toFixed(0)} at leaving), restored ${restored}: ` +
      `${lost.seen.toFixed(2)} s of learning lost after that frame, ${lost.extrapolated.toFixed(2)} s extrapolated to leaving`;
    console.log(measured);
    expect(training.rate).toBe(0.03);
    await expect(page.locator('#rbm-rate')).toHaveValue('0.03');
    expect(restored).toBeGreaterThan(0);
    expect(lost.seen, measured).toBeLessThanOrEqual(1);
  });

test('the main thread only draws while a 64-500 machine learns with its AIS points under way', async ({ page }) => {
  test.setTimeout(120_000);
  await openRestricted(page);
  await page.locator('#rbm-hidden').fill('500');
  await page.locator('#rbm-create').click();
  await expect(page.locator('#rbm-setup-done')).toContainText('A 64-500 machine');
  await page.getByRole('button', { name: 'Run learning' }).click();
  // The first AIS point starts with the run (update 0).
  await expect.poll(() => read(page, 'likelihood_progress')).toBeGreaterThanOrEqual(0);
  const figures = await page.evaluate(async () => {
    const rbm = window.boltzlabApp.machine.rbm;
    const tasks = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) tasks.push(entry.duration);
    });
    observer.observe({ type: 'longtask' });
    let frames = 0;
    let progressSeen = 0;
    const count = () => {
      frames += 1;
      if ((rbm.shown?.stats.progress ?? -1) >= 0) progressSeen += 1;
      if (observer) requestAnimationFrame(count);
    };
    requestAnimationFrame(count);
    const u0 = await rbm.read('updates');
    const e0 = await rbm.read('engine_time');
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 8000));
    observer.disconnect();
    const e1 = await rbm.read('engine_time');
    const seconds = (performance.now() - t0) / 1000;
    return {
      tasks,
      learningShare: (e1.ms - e0.ms) / (e1.sliceMs - e0.sliceMs),
      updates: (await rbm.read('updates')) - u0,
      fps: frames / seconds,
      progressSeen,
      points: await rbm.read('curve_len'),
    };
  });
  const longest = Math.max(0, ...figures.tasks);
  console.log(
    `64-500 digits learning in the worker (under load): ${figures.updates} updates in 8 s, ${figures.fps.toFixed(0)} fps, ` +
      `${figures.tasks.length} long tasks (longest ${longest.toFixed(0)} ms), AIS under way in ${figures.progressSeen} frames, ${figures.points} points, ` +
      `learning ${(100 * figures.learningShare).toFixed(0)} % of the learning worker's slices`,
  );
  expect(figures.updates).toBeGreaterThan(0);
  expect(figures.progressSeen).toBeGreaterThan(0);
  // The points are computed in the second worker: learning keeps its worker while a point is
  // under way. Sharing it (as before) gave learning at most 60 % of each slice of the worker's
  // work; alone it has all of each slice but the frames and sessions. Both are times inside
  // the same slices on the worker's own clock, so a loaded machine stretches both alike.
  expect(figures.learningShare).toBeGreaterThan(0.7);
  // The longest task and the frame rate are printed, not asserted: on a shared, loaded machine
  // any task of a few milliseconds can be stretched past 50 ms by the scheduler (an idle page
  // shows none, a page whose worker learns 64-16 shows as many as one learning 64-500). The
  // targets (< 50 ms, 55 fps) are measured by `make bench`. What is asserted: the page was not
  // frozen, it drew at least one frame a second while the worker learned and estimated.
  expect(figures.fps).toBeGreaterThan(1);
});

test.describe('a restricted machine worker that dies', () => {
  // console_error_panic_hook logs the worker's panic; the log may be lost as the page ends the
  // dead worker, so it is allowed, and the overlay is asserted to carry the panic's message.
  test.use({ expectedProblems: { patterns: [], allowed: [/deliberate panic for tests/] } });

  test('shows the fault overlay, and the last good session is kept and exportable', async ({ page }) => {
    test.setTimeout(120_000);
    await openRestricted(page);
    await page.getByRole('button', { name: 'Run learning' }).click();
    await expect.poll(() => read(page, 'updates'), { timeout: 60_000 }).toBeGreaterThanOrEqual(30);
    // Saved with the worker's latest session (sent every half second while it learns).
    const stored = () =>
      page.evaluate(async () => {
        await window.boltzlabPersist.saveNow(true);
        const key = Object.keys(localStorage).find((k) => k.startsWith('boltzlab.session'));
        return JSON.parse(JSON.parse(localStorage.getItem(key)).restricted).updates;
      });
    await expect.poll(stored).toBeGreaterThan(0);
    const saved = await stored();
    await page.evaluate(() => window.boltzlabApp.machine.rbm.faultWorker());
    const overlay = page.getByRole('alertdialog', { name: 'The engine stopped' });
    await expect(overlay).toBeVisible();
    await expect(page.locator('#fault-message')).toContainText("The restricted machine's worker stopped");
    await expect(page.locator('#fault-message')).toContainText('deliberate panic for tests');
    await expect(page.locator('body')).toHaveAttribute('data-fault', 'panic');
    // The overlay's export still works (the last good record's lattice file), and the record
    // itself stays, with the restricted run as last saved (nothing is saved after the fault).
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export last good state' }).click();
    const exported = await readFile(await (await download).path(), 'utf8');
    expect(exported.length).toBeGreaterThan(0);
    const kept = await page.evaluate(() => {
      const key = Object.keys(localStorage).find((k) => k.startsWith('boltzlab.session'));
      return JSON.parse(JSON.parse(localStorage.getItem(key)).restricted).updates;
    });
    expect(kept).toBeGreaterThanOrEqual(saved);
    // Reload and restore: the restricted run comes back from it.
    await page.getByRole('button', { name: 'Reload and restore' }).click();
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    await expect(page.locator('#session-message')).toContainText(
      `restricted machine on digits8 (16 hidden units), ${kept} updates`,
    );
  });
});

// What the restricted machine's mirror holds (it never learns): the run's images, size, seed
// and options, read on both sides.
const AGREED = ['dataset', 'visible', 'hidden', 'width', 'seed', 'training_json', 'likelihood_every', 'test_count'];

test('the page’s mirror and the restricted machine’s worker agree after every command, and a refused one goes nowhere', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openRestricted(page);
  const training = (statistics, steps, particles, rate) => ({
    statistics,
    steps,
    particles,
    replicas: statistics === 'tempering' ? 3 : null,
    batch: 50,
    rate,
    momentum: 0.5,
    decay: 0.0001,
  });
  const commands = [
    PINNED,
    { command: 'set-training', training: training('cd', 3, null, 0.05) },
    { command: 'set-likelihood-every', every: 7 },
    { command: 'advance', updates: 20 },
    { command: 'start-gallery', count: 4, steps: 3 },
    { command: 'advance-gallery', steps: 3 },
    { command: 'start-completion', image: 2, mask: 'top' },
    { command: 'set-completion-clamped', clamped: false },
    { command: 'advance-completion', steps: 4 },
    { command: 'set-training', training: training('tempering', 1, 20, 0.02) },
    { command: 'new-run', dataset: 'bars-4x4', hidden: 6, seed: 9 },
    { command: 'new-run-from-file', bytes: Array.from(Buffer.from('0110\n1001\n1111\n')), hidden: 3, seed: 2 },
    { command: 'set-training', training: { ...training('persistent', 2, 10, 0.1), batch: 3 } },
  ];
  const both = () =>
    page.evaluate(async (names) => {
      const rbm = window.boltzlabApp.machine.rbm;
      await rbm.idle();
      const worker = {};
      const mirror = {};
      for (const name of names) {
        worker[name] = await rbm.read(name);
        mirror[name] = rbm.mirror[name]();
      }
      return { mirror, worker };
    }, AGREED);
  for (const command of commands) {
    await page.evaluate((c) => window.boltzlabApp.machine.rbm.dispatch(c), command);
    const { mirror, worker } = await both();
    expect(mirror, command.command).toEqual(worker);
  }
  // A session of the worker restored on both.
  const text = (await read(page, 'session')).text;
  await page.evaluate((c) => window.boltzlabApp.machine.rbm.dispatch(c), PINNED);
  await page.evaluate((t) => window.boltzlabApp.machine.rbm.dispatch({ command: 'restore-session', text: t }), text);
  const restored = await both();
  expect(restored.mirror, 'restore-session').toEqual(restored.worker);
  expect(restored.worker.hidden).toBe(3);
  // A refused command: the mirror throws the engine's reason and nothing reaches the worker.
  const refused = await page.evaluate(async () => {
    const rbm = window.boltzlabApp.machine.rbm;
    let message = null;
    try {
      rbm.dispatch({ command: 'set-likelihood-every', every: 0 });
    } catch (err) {
      message = String(err?.message ?? err);
    }
    return { message, every: await rbm.read('likelihood_every') };
  });
  expect(refused.message).toMatch(/every|likelihood/i);
  expect(refused.every).toBe(restored.worker.likelihood_every);
});
