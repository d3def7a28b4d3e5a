// The general machine learns in its module worker (www/machine/machine_worker.js): the page's
// learned weights are bit for bit those of the engine run directly with the same seed and
// steps; a reload while it learns loses at most the last second of learning; and a worker that
// dies shows the fault overlay with the last good state kept and exportable. The page's mirror
// (which checks each change and answers the controls) and the worker agree after every command.
import { readFile } from 'node:fs/promises';
import { test, expect, choose } from './fixtures.js';
import { openMachine, machine } from './machine_helpers.js';

// The cycle count the restore banner offers ("Boltzmann machine on D, N learning cycles").
async function offeredCycles(page, dataset) {
  const text = await page.locator('#session-message').textContent();
  const found = new RegExp(`Boltzmann machine on ${dataset}, (\\d+) learning cycles`).exec(text ?? '');
  expect(found, text ?? '').not.toBeNull();
  return Number(found[1]);
}

test('learning in the worker gives the same weights, curve and session as the engine run directly in the page', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openMachine(page);
  await choose(page, 'Dataset', '4-2-4');
  // At the top speed the worker learns in calls of 64 sweeps, cut across cycle boundaries.
  await page.getByRole('slider', { name: 'Learning speed' }).fill('6');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles'), { timeout: 60_000 }).toBeGreaterThanOrEqual(20);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  // The rest of the cycle under way: the run stops on a cycle boundary.
  await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  const live = await page.evaluate(async () => {
    const lab = window.boltzlabMachine;
    return {
      cycles: await lab.cycles(),
      seed: await lab.seed(),
      network: await lab.export_network(),
      kl: Array.from((await lab.curve()).kl),
      session: await lab.session(),
    };
  });
  // The same engine, made and stepped cycle by cycle on the page's own thread.
  const direct = await page.evaluate(
    ({ cycles, seed }) => {
      const lab = new window.boltzlabEngine.MachineLab('4-2-4', 'stochastic', seed);
      try {
        for (let k = 0; k < cycles; k++) lab.dispatch({ command: 'step-cycle' });
        const n = lab.curve_len();
        const kl = new Float64Array(window.boltzlabEngine.wasm_memory().buffer, lab.curve_kl_ptr(), n);
        return { cycles: lab.cycles(), network: lab.export_network(), kl: Array.from(kl), session: lab.session() };
      } finally {
        lab.free();
      }
    },
    { cycles: live.cycles, seed: live.seed },
  );
  console.log(`4-2-4 learned in the worker for ${live.cycles} cycles, compared with the engine run directly`);
  expect(direct.cycles).toBe(live.cycles);
  expect(live.network).toBe(direct.network);
  expect(live.kl).toEqual(direct.kl);
  expect(live.session).toBe(direct.session);
  // The page's own save (the worker's latest session and the commands since) is the same text.
  expect(await page.evaluate(() => window.boltzlabApp.machine.session())).toBe(live.session);
});

test('a reload while the machine learns at the top speed loses at most the last second of learning', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openMachine(page);
  await choose(page, 'Dataset', 'bars-3x3');
  await page.getByRole('slider', { name: 'Learning speed' }).fill('6');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles'), { timeout: 60_000 }).toBeGreaterThanOrEqual(5);
  // `early`: the count a second before the reload; `late`: just before it.
  const early = await machine(page, 'cycles');
  await page.waitForTimeout(1000);
  const late = await machine(page, 'cycles');
  await page.reload(); // pagehide saves
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  const kept = await offeredCycles(page, 'bars-3x3');
  console.log(
    `reload while learning bars-3x3: ${late - early} cycles in the last second, ${kept} kept of ≥ ${late} (lost ≤ ${late - kept})`,
  );
  expect(late).toBeGreaterThan(early);
  expect(kept).toBeGreaterThanOrEqual(early);
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await expect(page.locator('#machine')).toBeVisible();
  expect(await machine(page, 'cycles')).toBe(kept);
  await expect(page.locator('#bm-cycle')).toHaveText(String(kept));
});

// The readings both the page's mirror and the worker's run must agree on: the shape and
// every option (the mirror never learns, so the weights are compared only where no learning
// happened).
const AGREED = [
  'dataset',
  'method',
  'seed',
  'units',
  'visible',
  'pattern_count',
  'temperature',
  'rule',
  'rule_size',
  'weight_decay',
  'schedule',
  'collect_sweeps',
  'statistics',
  'statistics_particles',
  'statistics_sweeps',
  'statistics_replicas',
];

test('the page’s mirror and the worker agree after every command, and a command the engine refuses goes nowhere', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openMachine(page);
  const commands = [
    { command: 'new-run', problem: 'bars-3x3', method: 'stochastic', seed: 7 },
    { command: 'set-update', rule: 'sign', size: 0.5 },
    { command: 'set-weight-decay', decay: 0.01 },
    { command: 'set-schedule', schedule: '10:2, 5:3', collect: 7 },
    { command: 'set-statistics', statistics: 'persistent', particles: 12, sweeps: 3, replicas: 1 },
    { command: 'advance', steps: 40 },
    // No AIS estimate is under way for bars 3×3 (its KL is exact): the worker's own command
    // changes nothing.
    { command: 'estimate-step', chunks: 5 },
    { command: 'step-cycle' },
    { command: 'explore', pattern: 2 },
    { command: 'explore-sweeps', sweeps: 5 },
    { command: 'stop-exploring' },
    { command: 'reset-weights' },
    { command: 'random-couplings', seed: 3 },
    { command: 'set-statistics', statistics: 'tempering', particles: 4, sweeps: 1, replicas: 3 },
    { command: 'new-custom-run', patterns: '1100\n0011\n1010', hidden: 2, method: 'mean-field', seed: 5 },
    { command: 'set-update', rule: 'gradient', size: 2 },
    { command: 'new-run', problem: '4-2-4', method: 'stochastic', seed: 11 },
    // The session the worker sent after the step-cycle above ('kept'): that run again.
    { command: 'restore-session', text: 'kept' },
  ];
  for (const command of commands) {
    const { mirror, worker } = await page.evaluate(
      async ({ command, names }) => {
        const mode = window.boltzlabApp.machine;
        if (command.command === 'restore-session') command.text = window.keptSession;
        await mode.dispatch(command);
        if (command.command === 'step-cycle') window.keptSession = await mode.read('session');
        const lab = window.boltzlabMachine;
        const worker = {};
        const mirror = {};
        for (const name of names) {
          worker[name] = await lab[name]();
          mirror[name] = mode.lab[name]();
        }
        return { mirror, worker };
      },
      { command, names: AGREED },
    );
    expect(mirror, command.command).toEqual(worker);
    if (command.command === 'restore-session') expect(worker.dataset).toBe('bars-3x3');
  }
  // Before any learning of the last run, the weights agree too; an import is made on both.
  const network = await page.evaluate(() => window.boltzlabApp.machine.lab.export_network());
  const imported = JSON.parse(network);
  imported.biases[0] = 0.25;
  const text = JSON.stringify(imported);
  const both = await page.evaluate(async (text) => {
    const mode = window.boltzlabApp.machine;
    await mode.dispatch({ command: 'import-network', text });
    return { mirror: mode.lab.export_network(), worker: await window.boltzlabMachine.export_network() };
  }, text);
  expect(both.worker).toBe(both.mirror);
  expect(both.worker).not.toBe(network);
  // A refused command: the mirror throws the engine's reason, and nothing reaches the worker.
  const refused = await page.evaluate(async () => {
    const mode = window.boltzlabApp.machine;
    const sent = mode.journal.seq;
    const before = await window.boltzlabMachine.weight_decay();
    let message = null;
    try {
      mode.dispatch({ command: 'set-weight-decay', decay: 2 });
    } catch (err) {
      message = err.message;
    }
    return { message, sent: mode.journal.seq - sent, before, decay: await window.boltzlabMachine.weight_decay() };
  });
  expect(refused.message).toMatch(/decay/);
  expect(refused.sent).toBe(0);
  // The restored run's decay (set before its session was taken), unchanged.
  expect(refused.before).toBe(0.01);
  expect(refused.decay).toBe(0.01);
});

test.describe('a general machine worker that dies', () => {
  // console_error_panic_hook logs the worker's panic; the log may be lost as the page ends the
  // dead worker, so it is allowed, and the overlay is asserted to carry the panic's message.
  test.use({ expectedProblems: { patterns: [], allowed: [/deliberate panic for tests/] } });

  test('shows the fault overlay, and the last good session is kept and exportable', async ({ page }) => {
    test.setTimeout(120_000);
    await openMachine(page);
    await choose(page, 'Dataset', '4-2-4');
    await page.getByRole('slider', { name: 'Learning speed' }).fill('3');
    await page.getByRole('button', { name: 'Run learning' }).click();
    await expect.poll(() => machine(page, 'cycles'), { timeout: 60_000 }).toBeGreaterThanOrEqual(5);
    // Saved with the worker's latest session (sent every half second while it learns).
    const stored = () =>
      page.evaluate(async () => {
        await window.boltzlabPersist.saveNow(true);
        const key = Object.keys(localStorage).find((k) => k.startsWith('boltzlab.session'));
        return JSON.parse(JSON.parse(localStorage.getItem(key)).machine).cycles;
      });
    await expect.poll(stored).toBeGreaterThan(0);
    const saved = await stored();
    await page.evaluate(() => window.boltzlabApp.machine.faultWorker());
    const overlay = page.getByRole('alertdialog', { name: 'The engine stopped' });
    await expect(overlay).toBeVisible();
    await expect(page.locator('#fault-message')).toContainText("The Boltzmann machine's worker stopped");
    await expect(page.locator('#fault-message')).toContainText('deliberate panic for tests');
    await expect(page.locator('body')).toHaveAttribute('data-fault', 'panic');
    // The overlay's export still works, and the record stays with the machine as last saved
    // (nothing is saved after the fault).
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export last good state' }).click();
    const exported = await readFile(await (await download).path(), 'utf8');
    expect(exported.length).toBeGreaterThan(0);
    const kept = await page.evaluate(() => {
      const key = Object.keys(localStorage).find((k) => k.startsWith('boltzlab.session'));
      return JSON.parse(JSON.parse(localStorage.getItem(key)).machine).cycles;
    });
    expect(kept).toBeGreaterThanOrEqual(saved);
    // Reload and restore: the machine comes back from it.
    await page.getByRole('button', { name: 'Reload and restore' }).click();
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    await expect(page.locator('#session-message')).toContainText(`Boltzmann machine on 4-2-4, ${kept} learning cycles`);
  });
});
