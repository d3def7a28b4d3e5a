// The temperature-sweep experiment, in the lattice's worker: progress, cancel, results that
// fall through T_c, the exact overlay, the CSV.
import { readFile } from 'node:fs/promises';
import { test, expect, openApp, lab, pause, choose, enter } from './fixtures.js';

const T_C = 2.269185314213022;

function parseCsv(text) {
  const [header, ...rows] = text.trim().split('\n');
  const keys = header.split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((v, k) => [keys[k], Number(v)])));
}

test('a short sweep gives a ⟨|m|⟩ curve that falls through T_c, with the exact curve and a CSV', async ({ page }) => {
  await openApp(page);
  await pause(page);
  await choose(page, 'Size', '32'); // a fresh lattice from seed 1: the sweep is reproducible
  await enter(page, 'T high', 3.5);
  await enter(page, 'T low', 1.5);
  await enter(page, 'Points', 6);
  await enter(page, 'Burn-in sweeps', 200);
  await enter(page, 'Measurement sweeps', 400);
  const ticksBefore = await lab(page, 'ticks');
  await page.getByRole('button', { name: 'Start sweep' }).click();
  await expect(page.locator('#scan-status')).toHaveText('done: 6 temperatures', { timeout: 60_000 });
  // The sweep ran on a copy: the paused live lattice did not move.
  expect(await lab(page, 'ticks')).toBe(ticksBefore);
  // It ran in the lattice's worker: the page's own engine (the mirror) never held it.
  expect(await lab(page, 'has_scan')).toBe(true);
  expect(await page.evaluate(() => window.boltzlabApp.lattice.lab.has_scan())).toBe(false);
  await expect(page.getByLabel('Progress')).toHaveJSProperty('value', 1);

  const rows = parseCsv(await lab(page, 'scan_csv'));
  expect(rows.map((r) => r.temperature)).toEqual([3.5, 3.1, 2.7, 2.3, 1.9, 1.5].map((t) => expect.closeTo(t, 9)));
  // ⟨|m|⟩ falls through T_c: on a 32² lattice it is a finite-size ~√(χT/N) ≈ 0.1 well
  // above T_c (T ≥ 2.7), close to Onsager's m (0.94 at T = 1.9, 0.99 at 1.5) well below,
  // and rises as T falls (each step up to 3 combined standard errors of noise).
  const m = rows.map((r) => r.abs_magnetization_per_spin);
  const dm = rows.map((r) => r.abs_magnetization_stderr);
  for (const r of rows.filter((r) => r.temperature > 2.5)) expect(r.abs_magnetization_per_spin).toBeLessThan(0.35);
  for (const r of rows.filter((r) => r.temperature < 2.0)) expect(r.abs_magnetization_per_spin).toBeGreaterThan(0.85);
  for (let k = 1; k < rows.length; k++) expect(m[k]).toBeGreaterThan(m[k - 1] - 3 * Math.hypot(dm[k], dm[k - 1]));
  expect(rows.some((r) => r.temperature > T_C) && rows.some((r) => r.temperature < T_C)).toBe(true);
  for (const r of rows) {
    expect(r.abs_magnetization_stderr).toBeGreaterThan(0);
    expect(r.specific_heat_per_spin).toBeGreaterThan(0);
  }

  // Each estimate carries its autocorrelation time and a flag; 400 sweeps are fewer than
  // 100 τ near T_c (τ(|m|) ≈ 10–35 sweeps at T = 2.3 and 2.7 on 32²), and those points are
  // named as hollow under the plots, with the engine's factor in the hint.
  const csvText = await lab(page, 'scan_csv');
  const header = csvText.split('\n')[0].split(',');
  for (const key of ['abs_magnetization_tau', 'abs_magnetization_converged', 'susceptibility_converged'])
    expect(header).toContain(key);
  for (const r of rows) expect(r.abs_magnetization_tau).toBeGreaterThanOrEqual(0.5);
  const flagged = csvText
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','))
    .filter((v) => v[header.indexOf('abs_magnetization_converged')] === 'false')
    .map((v) => Number(v[0]));
  expect(flagged.some((t) => t > 2.0 && t < 2.8)).toBe(true);
  await expect(page.locator('#scan-flagged')).toContainText('Hollow points, at T = ');
  await expect(page.locator('.scan-min-taus').first()).toHaveText('100');

  // The plot has points and the exact curve (the exact colour appears in the ⟨|m|⟩ panel).
  const exactPixels = await page.locator('#scan-m').evaluate((canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) n += data[i] === 231 && data[i + 1] === 111 && data[i + 2] === 81;
    return n;
  });
  expect(exactPixels).toBeGreaterThan(20);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download sweep CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('boltzlab-sweep.csv');
  const csv = await readFile(await download.path(), 'utf8');
  expect(parseCsv(csv)).toHaveLength(6);
});

test('a sweep can be cancelled, keeps what it finished, and bad plans are refused', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '128');
  await enter(page, 'T high', 1);
  await enter(page, 'T low', 3);
  await page.getByRole('button', { name: 'Start sweep' }).click();
  await expect(page.locator('#scan-error')).toContainText('T high: not above T low');
  expect(await lab(page, 'has_scan')).toBe(false);
  await enter(page, 'T high', 3);
  await enter(page, 'T low', 1);
  await enter(page, 'Measurement sweeps', 100000);
  await page.getByRole('button', { name: 'Start sweep' }).click();
  await expect(page.locator('#scan-error')).toBeHidden();
  await expect(page.locator('#scan-status')).toContainText('%, T = 3.000');
  await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel sweep' }).click();
  await expect(page.locator('#scan-status')).toHaveText('cancelled after 0 temperatures');
  await expect(page.getByRole('button', { name: 'Start sweep' })).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
});
