// The machine mode's later parts: the AIS estimate of KL and all protocol stages of
// 40-10-40, ln Z of a small lattice, drawing patterns by clicking, keyboard shortcuts and
// the header of the mode shown.
import { execFileSync } from 'node:child_process';
import { test, expect, openApp, choose } from './fixtures.js';
import { openMachine, machine } from './machine_helpers.js';
import { cliPath } from './cli.js';

test('40-10-40 shows an AIS estimate of KL with its error bar and the protocol stage under way', async ({ page }) => {
  await openMachine(page);
  await choose(page, 'Dataset', '40-10-40');
  await expect(page.locator('#bm-stage')).toContainText('stage 1 of 3 (cycles 1–300)');
  await expect(page.locator('#bm-curve-ais-key')).toBeVisible();
  await expect(page.locator('#bm-curve-exact-key')).toBeHidden();
  // At the start every weight is 0: the model is uniform over the 2^80 visible vectors, so
  // KL = 80 ln 2 − ln 40 exactly, and every AIS run has the same weight (no error).
  await expect.poll(() => machine(page, 'ais_len'), { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
  const first = await page.evaluate(async () => {
    const ais = await window.boltzlabMachine.ais();
    return [ais.kl[0], ais.stderr[0]];
  });
  expect(first[0]).toBeCloseTo(80 * Math.log(2) - Math.log(40), 9);
  expect(first[1]).toBeLessThan(1e-9);
  await expect(page.locator('#bm-kl')).toContainText('AIS estimate, cycle 0');
  // Learning goes on and later estimates join the curve, each with an error bar.
  await page.getByRole('slider', { name: 'Learning speed' }).fill('6');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'ais_len'), { timeout: 80_000 }).toBeGreaterThanOrEqual(2);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  const second = await page.evaluate(async () => {
    const ais = await window.boltzlabMachine.ais();
    return { cycle: ais.cycles[1], kl: ais.kl[1], stderr: ais.stderr[1] };
  });
  expect(second.cycle).toBeGreaterThanOrEqual(10);
  expect(second.kl).toBeGreaterThan(0);
  expect(second.stderr).toBeGreaterThanOrEqual(0);
  expect(Number.isFinite(second.stderr)).toBe(true);
});

test('the lattice’s ln Z panel: exact enumeration of a 4×4 periodic lattice at T = 2 equals Kaufman’s formula', async ({
  page,
}) => {
  const kaufman = JSON.parse(
    execFileSync(cliPath(), ['exact', '--size', '4', '--temperature', '2', '--kaufman', '--json'], {
      encoding: 'utf8',
    }),
  ).log_z;
  await openApp(page, '/#size=4&T=2&boundary=periodic&model=ferromagnet');
  await page.getByRole('button', { name: 'Compute ln Z of the lattice' }).click();
  const value = (method) =>
    page.locator(`#lattice-logz-table tr[data-method="${method}"] .value`).getAttribute('data-value');
  await expect(page.locator('#lattice-logz-table tr[data-method="ais"] .value')).toHaveAttribute('data-value', /\d/);
  const exact = Number(await value('exact'));
  expect(Math.abs(exact - kaufman)).toBeLessThan(1e-9);
  expect(Number(await value('sampled'))).toBeLessThanOrEqual(exact + 1e-9);
  expect(Number(await value('mean-field'))).toBeLessThanOrEqual(exact + 1e-9);
  const stderr = Number(
    (await page.locator('#lattice-logz-table tr[data-method="ais"] .stderr').textContent()).replace('±', ''),
  );
  expect(Math.abs(Number(await value('ais')) - exact)).toBeLessThanOrEqual(5 * stderr + stderr * stderr + 1e-4);
  await expect(page.locator('#lattice-logz-table tr[data-method="exact"] .time')).toHaveText(/ms/);
});

test('the lattice’s ln Z panel names the lattice its figures are for, and marks them once the lattice is another', async ({
  page,
}) => {
  await openApp(page, '/#size=4&T=2&boundary=periodic&model=ferromagnet');
  await page.getByRole('button', { name: 'Compute ln Z of the lattice' }).click();
  await expect(page.locator('#lattice-logz-table tr[data-method="ais"] .value')).toHaveAttribute('data-value', /\d/);
  const note = page.locator('#lattice-logz-for');
  await expect(note).toHaveText(
    /^For the lattice shown: 4 × 4 ferromagnet, T = 2, h = 0, periodic boundary, seed \d+\.$/,
  );
  await expect(page.locator('#lattice-logz-table')).not.toHaveClass(/stale/);
  // A new temperature: the figures are the old lattice's, and the panel says so.
  await page.locator('#temperature-value').fill('3');
  await page.locator('#temperature-value').press('Enter');
  await expect(note).toContainText('These figures are for the lattice as it was (4 × 4 ferromagnet, T = 2,');
  await expect(note).toContainText('not the one shown now (4 × 4 ferromagnet, T = 3,');
  await expect(page.locator('#lattice-logz-table')).toHaveClass(/stale/);
  // The update rule does not change Z: back at T = 2 under another rule, the figures hold.
  await page.locator('#temperature-value').fill('2');
  await page.locator('#temperature-value').press('Enter');
  await page.locator('#rule').selectOption('metropolis');
  await expect(note).toHaveText(/^For the lattice shown: 4 × 4 ferromagnet, T = 2,/);
  await expect(page.locator('#lattice-logz-table')).not.toHaveClass(/stale/);
  // Computed again for a new size: for that lattice.
  await page.locator('#size').selectOption('8');
  await expect(page.locator('#lattice-logz-table')).toHaveClass(/stale/);
  await page.getByRole('button', { name: 'Compute ln Z of the lattice' }).click();
  await expect(note).toHaveText(/^For the lattice shown: 8 × 8 ferromagnet, T = 2,/);
  await expect(page.locator('#lattice-logz-table')).not.toHaveClass(/stale/);
});

test('the lattice’s ln Z panel says when no exact route covers a lattice (8 × 8 in a field)', async ({ page }) => {
  await openApp(page, '/#size=8&T=2&h=0.1&boundary=periodic&model=ferromagnet');
  await page.getByRole('button', { name: 'Compute ln Z of the lattice' }).click();
  await expect(page.locator('#lattice-logz-table tr[data-method="exact"] .stderr')).toContainText(
    'enumeration handles at most 30 spins',
  );
  await expect(page.locator('#lattice-logz-table tr[data-method="exact"] .stderr')).toContainText(
    "Kaufman's formula covers the periodic ferromagnet at h = 0",
  );
  await expect(page.locator('#lattice-logz-table tr[data-method="ais"] .value')).toHaveAttribute('data-value', /\d/);
});

test('the lattice’s ln Z is worked out in a worker of its own: a 16×16 lattice runs on meanwhile, its exact row is Kaufman’s formula, and AIS agrees with it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const kaufman = JSON.parse(
    execFileSync(cliPath(), ['exact', '--size', '16', '--temperature', '2.269', '--kaufman', '--json'], {
      encoding: 'utf8',
    }),
  ).log_z;
  await openApp(page, '/#size=16&T=2.269&boundary=periodic&model=ferromagnet');
  await expect.poll(async () => Number(await page.locator('#sweeps').textContent())).toBeGreaterThan(0);
  // Every animation frame until the AIS row is filled: the sweeps shown, and whether AIS was
  // still being worked out. On the main thread (as before) no frame came while it was.
  const during = await page.evaluate(async () => {
    const ais = document.querySelector('#lattice-logz-table tr[data-method="ais"] .value');
    const sweeps = () => Number(document.getElementById('sweeps').textContent);
    document.getElementById('lattice-logz-run').click();
    const frames = [];
    await new Promise((resolve) => {
      const frame = () => {
        const computing = ais.textContent === 'computing…';
        frames.push({ computing, sweeps: sweeps() });
        if (computing || frames.length < 2) requestAnimationFrame(frame);
        else resolve(undefined);
      };
      requestAnimationFrame(frame);
    });
    return frames.filter((f) => f.computing);
  });
  console.log(
    `16×16 lattice's ln Z in its worker: ${during.length} frames drawn while AIS ran, sweeps ${during[0]?.sweeps} → ${during.at(-1)?.sweeps}`,
  );
  expect(during.length).toBeGreaterThan(2);
  expect(during.at(-1).sweeps).toBeGreaterThan(during[0].sweeps);
  const value = async (method) =>
    Number(await page.locator(`#lattice-logz-table tr[data-method="${method}"] .value`).getAttribute('data-value'));
  // 256 spins: beyond enumeration, the periodic ferromagnet's exact row is Kaufman's formula.
  await expect(page.locator('#lattice-logz-table tr[data-method="exact"] .value')).toHaveAttribute('data-value', /\d/);
  expect(Math.abs((await value('exact')) - kaufman)).toBeLessThan(1e-9 * Math.abs(kaufman));
  await expect(page.locator('#lattice-logz-table tr[data-method="exact"] .bound')).toHaveText('exact');
  const stderr = Number(
    (await page.locator('#lattice-logz-table tr[data-method="ais"] .stderr').textContent()).replace('±', ''),
  );
  // AIS is unbiased in Z: ln of it lies below ln Z by about var/2 on average, and within a few
  // standard errors of it (5 σ: a false failure about once in 1.7 million runs).
  expect(Math.abs((await value('ais')) - kaufman)).toBeLessThanOrEqual(5 * stderr + stderr * stderr + 1e-4);
  expect(await value('sampled')).toBeLessThanOrEqual(kaufman + 1e-9);
  expect(await value('mean-field')).toBeLessThanOrEqual(kaufman + 1e-9);
  await expect(page.locator('#lattice-logz-table')).not.toHaveAttribute('aria-busy', 'true');
});

test('patterns drawn by clicking pixels are added to the editor; a wrong length is refused', async ({ page }) => {
  await openMachine(page);
  await choose(page, 'Dataset', 'pixels-10');
  const grid = page.getByRole('group', { name: /Pattern to draw/ });
  await expect(grid.getByRole('button')).toHaveCount(10);
  // The 10-pixel images are 5 wide and 2 high.
  const box1 = await grid.getByRole('button', { name: 'pixel 1', exact: true }).boundingBox();
  const box6 = await grid.getByRole('button', { name: 'pixel 6', exact: true }).boundingBox();
  expect(Math.abs(box6.x - box1.x)).toBeLessThan(1);
  expect(box6.y).toBeGreaterThan(box1.y);
  await grid.getByRole('button', { name: 'pixel 1', exact: true }).click();
  await grid.getByRole('button', { name: 'pixel 3', exact: true }).click();
  const text = await page.getByLabel('My patterns').inputValue();
  await page.getByRole('button', { name: 'Add pattern' }).click();
  // The editor holds 4-pixel patterns: a 10-pixel one is refused and the text kept.
  await expect(page.locator('#bm-editor-error')).toContainText('line 5 has 10 values');
  expect(await page.getByLabel('My patterns').inputValue()).toBe(text);
  await page.getByLabel('Pixels', { exact: true }).fill('4');
  await page.getByLabel('Pixels', { exact: true }).press('Enter');
  await expect(grid.getByRole('button')).toHaveCount(4);
  await grid.getByRole('button', { name: 'pixel 2', exact: true }).click();
  await grid.getByRole('button', { name: 'pixel 4', exact: true }).click();
  await grid.getByRole('button', { name: 'pixel 4', exact: true }).click();
  await grid.getByRole('button', { name: 'pixel 3', exact: true }).click();
  await page.getByRole('button', { name: 'Add pattern' }).click();
  await expect(page.locator('#bm-editor-error')).toBeHidden();
  expect(await page.getByLabel('My patterns').inputValue()).toBe(`${text.trimEnd()}\n0110`);
  await page.getByRole('button', { name: 'Learn my patterns' }).click();
  expect(await machine(page, 'pattern_count')).toBe(5);
  expect(
    Array.from(await machine(page, 'patterns_flat'))
      .slice(16)
      .join(''),
  ).toBe('0110');
  await page.getByLabel('Pixels', { exact: true }).fill('0');
  await page.getByLabel('Pixels', { exact: true }).press('Enter');
  await expect(page.locator('#bm-draw-error')).toContainText('Pattern length must be');
  await expect(grid.getByRole('button')).toHaveCount(4);
});

test('in machine mode the keys act on the machine and the header describes it', async ({ page }) => {
  await openMachine(page);
  await expect(page.locator('header .tagline.machine-only')).toBeVisible();
  await expect(page.locator('header .tagline.lattice-only')).toBeHidden();
  await expect(page).toHaveTitle('boltzlab: Boltzmann machine');
  await choose(page, 'Dataset', '4-2-4');
  await page.keyboard.press('Escape');
  const latticeSweeps = await page.evaluate(() => window.boltzlabLab.sweeps());
  await page.keyboard.press('s');
  await expect.poll(() => machine(page, 'cycles')).toBe(1);
  await page.keyboard.press('Shift+S');
  await page.keyboard.press('s');
  await expect.poll(() => machine(page, 'cycles')).toBe(2);
  await page.keyboard.press('r');
  await expect(page.locator('#bm-run-done')).toContainText('Weights reset');
  expect(await machine(page, 'cycles')).toBe(0);
  await page.keyboard.press('f');
  await expect(page.locator('#bm-phase')).toHaveText('clamped');
  await expect(page.locator('#bm-pattern')).toHaveText('1 of 4');
  await page.keyboard.press('f');
  await expect(page.locator('#bm-pattern')).toHaveText('none (free)');
  await page.keyboard.press(' ');
  await expect(page.getByRole('button', { name: 'Pause learning' })).toBeVisible();
  await page.keyboard.press(' ');
  await expect(page.getByRole('button', { name: 'Run learning' })).toBeVisible();
  expect(await page.evaluate(() => window.boltzlabLab.sweeps())).toBe(latticeSweeps);
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog')).toContainText('step one learning cycle');
  await expect(page.locator('#help tbody.lattice-only')).toBeHidden();
  await expect(page.locator('#help tbody[data-kind="restricted"]')).toBeHidden();
  await page.keyboard.press('Escape');
  // The restricted machine's help lists its own keys, not the general machine's S, R, +/−.
  await page.locator('#bm-kind-restricted').check();
  await page.keyboard.press('?');
  await expect(page.locator('#help tbody[data-kind="restricted"]')).toBeVisible();
  await expect(page.locator('#help tbody[data-kind="full"]')).toBeHidden();
  await page.keyboard.press('Escape');
  await page.locator('#bm-kind-full').check();
  await page.getByRole('radio', { name: 'Ising lattice' }).check();
  await expect(page.locator('header .tagline.lattice-only')).toBeVisible();
  await expect(page).toHaveTitle('boltzlab: Ising lattice');
});

test('a learning step that fails (as when learning diverges) stops the run, says why beside the run controls and keeps the weights shown', async ({
  page,
}) => {
  await openMachine(page);
  await choose(page, 'Dataset', '4-2-4');
  await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  const before = await machine(page, 'export_network');
  await page.getByRole('slider', { name: 'Learning speed' }).fill('3');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles')).toBeGreaterThan(1);
  // The engine's learners return an error once a weight would leave its bound; here the
  // next learning step in the machine's worker fails the same way, from a stand-in there.
  const kept = await page.evaluate(() => {
    window.boltzlabApp.machine.failLearning(
      'learning diverged: w_0,8 would be 1.2e6; the last finite weights are kept',
    );
    return window.boltzlabMachine.export_network();
  });
  await expect(page.getByRole('button', { name: 'Run learning' })).toBeVisible();
  await expect(page.locator('#bm-run-error')).toHaveText(/^Learning diverged: .*the last finite weights are kept$/);
  expect(await machine(page, 'export_network')).toBe(kept);
  expect(kept).not.toBe(before);
  await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  await expect(page.locator('#bm-run-error')).toContainText('Learning diverged');
  expect(await machine(page, 'export_network')).toBe(kept);
  // The weight map still shows the kept weights (it is drawn, not blank).
  const inked = await page.evaluate(() => {
    const canvas = document.getElementById('bm-weights');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let k = 3; k < data.length; k += 4) if (data[k] > 0) n++;
    return n;
  });
  expect(inked).toBeGreaterThan(0);
});

test('the general machine greys the statistics boxes its choice does not use, and says why beside them', async ({
  page,
}) => {
  await openMachine(page);
  const note = page.locator('#bm-unused');
  // The default statistics, the paper's annealing: no particles, sweeps or replicas.
  await expect(page.getByLabel('Statistics', { exact: true })).toHaveValue('anneal');
  for (const id of ['bm-particles', 'bm-gibbs', 'bm-replicas']) await expect(page.locator(`#${id}`)).toBeDisabled();
  await expect(note).toHaveText(
    'Fantasy particles K, Sweeps per cycle k and Replicas R (tempering): not used by the annealed two-phase statistics.',
  );
  await page.getByLabel('Statistics', { exact: true }).selectOption('persistent');
  await expect(page.locator('#bm-particles')).toBeEnabled();
  await expect(page.locator('#bm-gibbs')).toBeEnabled();
  await expect(page.locator('#bm-replicas')).toBeDisabled();
  await expect(note).toHaveText('Replicas R (tempering): only parallel tempering has replicas.');
  await page.getByLabel('Statistics', { exact: true }).selectOption('tempering');
  await expect(page.locator('#bm-replicas')).toBeEnabled();
  await expect(note).toBeHidden();
  expect(await machine(page, 'statistics')).toBe('tempering');
});

test('ln Z at a temperature near the largest double: every row ends, none stays "computing…"', async ({ page }) => {
  await openMachine(page);
  await choose(page, 'Dataset', '4-2-4');
  await page.getByLabel('Temperature for ln Z').fill('1e308');
  await page.getByRole('button', { name: 'Compute ln Z' }).click();
  await expect(page.locator('#bm-logz-table')).not.toHaveAttribute('aria-busy', 'true', { timeout: 60_000 });
  for (const method of ['exact', 'sampled', 'mean-field', 'ais'])
    await expect(page.locator(`#bm-logz-table tr[data-method="${method}"] .value`)).not.toHaveText('computing…');
  // Zero weights at any T: ln Z = n ln 2, exactly, and mean field finds it (S − E/T, no T·S).
  const n = await machine(page, 'units');
  for (const method of ['exact', 'mean-field'])
    expect(
      Math.abs(
        Number(await page.locator(`#bm-logz-table tr[data-method="${method}"] .value`).getAttribute('data-value')) -
          n * Math.LN2,
      ),
    ).toBeLessThan(1e-9);
});
