// The lattice relaxing live: the canvas, the trace, temperature, pause and step.
import { test, expect, openApp, shown, lab, pause, choose, enter } from './fixtures.js';

test('the spin canvas shows a mixture of up and down spins', async ({ page }) => {
  await openApp(page);
  const fractions = await page.locator('#spins').evaluate((canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const counts = new Map();
    for (let i = 0; i < data.length; i += 4) {
      const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts.values()].map((c) => c / (data.length / 4)).sort((a, b) => b - a);
  });
  expect(fractions.length).toBeGreaterThanOrEqual(2);
  // A random start at T = 2.269 is far from uniform: the minority colour covers well
  // over 10% of the lattice (it starts at 50% and coarsening is slow).
  expect(fractions[1]).toBeGreaterThan(0.1);
});

test('E/N changes while the lattice runs and the trace is drawn', async ({ page }) => {
  await openApp(page);
  const first = await page.locator('#energy').textContent();
  await expect.poll(() => page.locator('#energy').textContent()).not.toBe(first);
  await expect.poll(() => shown(page, 'sweeps')).toBeGreaterThan(1);
  expect(await lab(page, 'trace_len')).toBeGreaterThan(1);
  const inked = await page.locator('#trace').evaluate((canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let n = 0;
    for (let i = 3; i < data.length; i += 4) n += data[i] > 0;
    return n;
  });
  expect(inked).toBeGreaterThan(1000);
});

test('T = 1 keeps a 64×64 lattice started all up ordered; T = 5 disorders it', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '64');
  await expect(page.locator('#spins')).toHaveJSProperty('width', 64);
  await enter(page, 'Temperature value', 1);
  await expect(page.locator('#temperature-shown')).toHaveText('1');
  await page.getByRole('button', { name: 'All up' }).click();
  // Equilibrium at T = 1: u = −1.997, m = 0.99928 (Onsager). Watched over 40 samples, from
  // 20 sweeps after the reset (the run is in a worker: the status line shows it a frame later).
  const reset = await shown(page, 'sweeps');
  await expect.poll(() => shown(page, 'sweeps')).toBeGreaterThan(reset + 20);
  for (let k = 0; k < 40; k++) {
    expect(await shown(page, 'energy')).toBeLessThan(-1.8);
    expect(Math.abs(await shown(page, 'magnetization'))).toBeGreaterThan(0.9);
    await page.waitForTimeout(25);
  }
  // The slider, at log10(5): exact u(T = 5) ≈ −0.44 and m = 0.
  await page.getByRole('slider', { name: 'Temperature' }).fill(String(Math.log10(5)));
  await expect(page.getByLabel('Temperature value')).toHaveValue('5');
  await expect(page.locator('#temperature-shown')).toHaveText('5');
  await expect.poll(() => shown(page, 'energy')).toBeGreaterThan(-0.6);
  await expect.poll(async () => Math.abs(await shown(page, 'magnetization'))).toBeLessThan(0.2);
});

test('pause stops the clock; step one tick and step one sweep advance it exactly', async ({ page }) => {
  await openApp(page);
  await pause(page);
  await expect(page.getByRole('button', { name: 'Run' })).toHaveAttribute('aria-pressed', 'false');
  const paused = await shown(page, 'sweeps');
  await page.waitForTimeout(300);
  expect(await shown(page, 'sweeps')).toBe(paused);
  const ticks = await lab(page, 'ticks');
  await page.getByRole('button', { name: 'Step one tick' }).click();
  await expect.poll(() => lab(page, 'ticks')).toBe(ticks + 1);
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  await expect.poll(() => lab(page, 'ticks')).toBe(ticks + 1 + 256 * 256);
  await page.getByRole('button', { name: 'Run' }).click();
  await expect.poll(() => lab(page, 'ticks')).toBeGreaterThan(ticks + 2 * 256 * 256);
});

test('a temperature outside the allowed range is refused next to its control and changes nothing', async ({ page }) => {
  await openApp(page);
  for (const bad of ['-3', '1000', '']) {
    await enter(page, 'Temperature value', bad);
    await expect(page.locator('#temperature-error')).toContainText('Temperature must be');
    await expect(page.getByLabel('Temperature value')).toHaveAttribute('aria-invalid', 'true');
    await expect(page.locator('#temperature-shown')).toHaveText('2.269');
    expect(await lab(page, 'temperature')).toBe(2.269);
  }
  await enter(page, 'Temperature value', 2.5);
  await expect(page.locator('#temperature-error')).toBeHidden();
  await expect(page.locator('#temperature-shown')).toHaveText('2.5');
});
