// The Boltzmann-machine mode: learning in the page, the phases made visible, the curves.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { test, expect, choose } from './fixtures.js';
import { openMachine, machine } from './machine_helpers.js';
import { cliPath } from './cli.js';

// Records, over `frames` animation frames, the shown phase, pattern and visible units (the
// frame the worker sent, as the page draws it).
function recordFrames(page, frames) {
  return page.evaluate(
    (count) =>
      new Promise((resolve) => {
        const seen = [];
        const step = () => {
          const frame = window.boltzlabApp.machine.shown;
          const visible = frame.stats.visible;
          seen.push({
            // All from the one frame the page holds (the phase shown is drawn from it at the
            // next frame, so the text may still be the last frame's).
            phase: frame.stats.phase,
            pattern: frame.stats.pattern,
            visible: Array.from(frame.activations.slice(0, visible)),
            clamps: Array.from(frame.clamps.slice(0, visible)),
          });
          if (seen.length < count) requestAnimationFrame(step);
          else resolve(seen);
        };
        requestAnimationFrame(step);
      }),
    frames,
  );
}

test('during the clamped phase the visible units equal the clamped pattern in every frame, and the free phase moves them', async ({
  page,
}) => {
  await openMachine(page);
  await choose(page, 'Dataset', 'pixels-10');
  await page.getByRole('slider', { name: 'Learning speed' }).fill('0');
  await page.getByRole('button', { name: 'Run learning' }).click();
  // From the first frame of the first settling: the frames before it (the new run, the run
  // command's own) show the start, units not yet clamped, labelled with the settling to come.
  await expect
    .poll(() =>
      page.evaluate(() => {
        const frame = window.boltzlabApp.machine.shown;
        return Boolean(frame?.stats.running) && Array.from(frame.clamps).some((c) => c === 1);
      }),
    )
    .toBe(true);
  const frames = await recordFrames(page, 400);
  const patterns = await machine(page, 'patterns_flat');
  const visible = await machine(page, 'visible');
  const clamped = frames.filter((f) => f.phase === 'clamped');
  const free = frames.filter((f) => f.phase === 'free');
  expect(clamped.length).toBeGreaterThan(20);
  expect(free.length).toBeGreaterThan(20);
  for (const f of clamped) {
    const expected = Array.from(patterns.slice(f.pattern * visible, (f.pattern + 1) * visible));
    expect(f.visible).toEqual(expected);
    expect(f.clamps).toEqual(new Array(visible).fill(1));
  }
  let moves = 0;
  for (let k = 1; k < free.length; k++) if (free[k].visible.join() !== free[k - 1].visible.join()) moves++;
  expect(moves).toBeGreaterThan(5);
  for (const f of free) expect(f.clamps).toEqual(new Array(visible).fill(0));
  await expect(page.locator('#bm-pattern')).toBeVisible();
});

test('a 4-2-4 encoder trained in the page reaches distinct codes within 1000 cycles (seed 1)', async ({ page }) => {
  await openMachine(page);
  await choose(page, 'Dataset', '4-2-4');
  await page.getByLabel('Learning seed').fill('1');
  await page.getByLabel('Learning seed').press('Enter');
  await page.getByRole('slider', { name: 'Learning speed' }).fill('6');
  await page.getByRole('button', { name: 'Run learning' }).click();
  // The first cycle at which every input had its own hidden code.
  const firstSolved = () =>
    page.evaluate(async () => {
      const lab = window.boltzlabMachine;
      const { cycles, solved } = await lab.curve();
      const k = solved.findIndex((s) => s === 1);
      return k < 0 ? ((await lab.cycles()) > 1000 ? Infinity : null) : cycles[k];
    });
  await expect.poll(firstSolved, { timeout: 60_000 }).not.toBeNull();
  expect(await firstSolved()).toBeLessThanOrEqual(1000);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  await expect(page.locator('#bm-solved')).toHaveText(/of 4$/);
});

test('exact KL(data ‖ model) falls while learning bars and stripes 3×3', async ({ page }) => {
  await openMachine(page);
  await choose(page, 'Dataset', 'bars-3x3');
  await page.getByRole('slider', { name: 'Learning speed' }).fill('6');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles'), { timeout: 60_000 }).toBeGreaterThanOrEqual(60);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  const kl = await page.evaluate(async () => Array.from((await window.boltzlabMachine.curve()).kl));
  // KL starts at ln 512 − ln 14 (uniform model over 2^9 images, 14 training images).
  expect(kl[0]).toBeCloseTo(Math.log(512 / 14), 6);
  const last = kl.slice(-10).reduce((a, b) => a + b, 0) / 10;
  expect(last).toBeLessThan(0.6 * kl[0]);
  await expect(page.locator('#bm-kl')).not.toHaveText('too large to enumerate');
});

test('the pattern editor rejects a pattern of the wrong length with a message and changes nothing', async ({
  page,
}) => {
  await openMachine(page);
  const before = await machine(page, 'dataset');
  await page.getByLabel('My patterns').fill('1010\n101');
  await page.getByRole('button', { name: 'Learn my patterns' }).click();
  await expect(page.locator('#bm-editor-error')).toContainText('same length');
  expect(await machine(page, 'dataset')).toBe(before);
  await page.getByLabel('My patterns').fill('10101\n01010\n11100');
  await page.getByRole('button', { name: 'Learn my patterns' }).click();
  await expect(page.locator('#bm-editor-error')).toBeHidden();
  expect(await machine(page, 'visible')).toBe(5);
  expect(await machine(page, 'pattern_count')).toBe(3);
});

test('bad learning parameters are refused next to their control', async ({ page }) => {
  await openMachine(page);
  await page.getByLabel('Rate ε or step k').fill('-1');
  await page.getByLabel('Rate ε or step k').press('Enter');
  await expect(page.locator('#bm-rule-error')).toBeVisible();
  await page.getByLabel('Annealing schedule (T:sweeps, …)').fill('20 2');
  await page.getByRole('button', { name: 'Apply schedule' }).click();
  await expect(page.locator('#bm-schedule-error')).toContainText('T:sweeps');
  expect(await machine(page, 'schedule')).toBe('20:2, 15:2, 12:2, 10:4');
});

test('the learning view as a teacher would project it (the README screenshot)', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 1100 });
  await openMachine(page);
  await choose(page, 'Dataset', '4-2-4');
  await page.getByRole('slider', { name: 'Learning speed' }).fill('6');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles'), { timeout: 60_000 }).toBeGreaterThanOrEqual(80);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  await page.getByRole('button', { name: 'Step one learning sweep' }).click();
  await page.mouse.move(0, 0);
  const shot = await page.screenshot({ path: 'target/playwright/learning.png', fullPage: true });
  expect(shot.length).toBeGreaterThan(10_000);
  if (process.env.UPDATE_SCREENSHOT) await page.screenshot({ path: 'docs/learning.png', fullPage: true });
});

test('the Z panel’s exact ln Z equals `boltzlab logz --method exact` on the exported network', async ({ page }) => {
  test.setTimeout(900_000);
  const boltzlab = cliPath();
  await openMachine(page);
  await choose(page, 'Dataset', '4-2-4');
  await page.getByRole('slider', { name: 'Learning speed' }).fill('6');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles'), { timeout: 60_000 }).toBeGreaterThanOrEqual(20);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  await page.getByLabel('Temperature for ln Z').fill('7.5');
  await page.getByRole('button', { name: 'Compute ln Z' }).click();
  const exactCell = page.locator('#bm-logz-table tr[data-method="exact"] .value');
  await expect(exactCell).toHaveAttribute('data-value', /\d/);
  const shownLogZ = Number(await exactCell.getAttribute('data-value'));
  for (const method of ['sampled', 'mean-field', 'ais'])
    await expect(page.locator(`#bm-logz-table tr[data-method="${method}"] .value`)).toHaveAttribute('data-value', /\d/);
  // The sampled sum and mean field are lower bounds.
  const lower = Number(
    await page.locator('#bm-logz-table tr[data-method="sampled"] .value').getAttribute('data-value'),
  );
  expect(lower).toBeLessThanOrEqual(shownLogZ + 1e-9);

  const downloadPromise = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export network (JSON)' }).click();
  const file = path.resolve('target/playwright/exported-4-2-4.json');
  await (await downloadPromise).saveAs(file);
  const cli = JSON.parse(
    execFileSync(boltzlab, ['logz', '--network', file, '--temperature', '7.5', '--method', 'exact', '--json'], {
      encoding: 'utf8',
    }),
  );
  expect(Math.abs(cli.log_z - shownLogZ)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(shownLogZ)));

  // Importing the exported file keeps the weights; a malformed one changes nothing.
  const before = await machine(page, 'export_network');
  await page.getByLabel('Import network (JSON)').setInputFiles(file);
  await expect(page.locator('#bm-import-done')).toBeVisible();
  expect(await machine(page, 'export_network')).toBe(before);
  await page.getByLabel('Import network (JSON)').setInputFiles({
    name: 'broken.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{"units": 10, "spin": "binary", "weights": [[0, 1]]'),
  });
  await expect(page.locator('#bm-import-error')).toBeVisible();
  expect(await machine(page, 'export_network')).toBe(before);
});

test('by hand: the visible units stay at the chosen pattern while the rest settle; dreaming clamps nothing; the gallery shows samples', async ({
  page,
}) => {
  await openMachine(page);
  await choose(page, 'Dataset', 'bars-3x3');
  await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  await page.getByLabel('Pattern to clamp').fill('3');
  await page.getByRole('button', { name: 'Clamp and settle' }).click();
  await expect(page.locator('#bm-phase')).toHaveText('clamped');
  await expect(page.locator('#bm-pattern')).toHaveText('3 of 14');
  const clampedFrames = await recordFrames(page, 30);
  const patterns = await machine(page, 'patterns_flat');
  const expected = Array.from(patterns.slice(2 * 9, 3 * 9));
  for (const f of clampedFrames) expect(f.visible).toEqual(expected);
  await page.getByRole('button', { name: 'Dream freely' }).click();
  await expect(page.locator('#bm-phase')).toHaveText('free');
  await expect(page.locator('#bm-pattern')).toHaveText('none (free)');
  const dreams = await recordFrames(page, 60);
  for (const f of dreams) expect(f.clamps).toEqual(new Array(9).fill(0));
  expect(new Set(dreams.map((f) => f.visible.join())).size).toBeGreaterThan(2);
  await page.getByRole('button', { name: 'Back to learning' }).click();
  await expect(page.getByRole('button', { name: 'Back to learning' })).toBeDisabled();

  await page.getByRole('button', { name: 'Generate samples' }).click();
  await expect(page.locator('#bm-gallery li').first()).toContainText('p ');
  await page.getByLabel('Samples', { exact: true }).fill('0');
  await page.getByRole('button', { name: 'Generate samples' }).click();
  await expect(page.locator('#bm-gallery-error')).toContainText('Samples must be between 1 and 100000');
});
