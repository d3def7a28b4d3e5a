// The first vertical slice: a 256×256 periodic ferromagnet relaxing live in the page.
import { test, expect, openApp, shown } from './fixtures.js';

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

test('E/N changes while the lattice runs', async ({ page }) => {
  await openApp(page);
  const first = await page.locator('#energy').textContent();
  await expect.poll(() => page.locator('#energy').textContent()).not.toBe(first);
  await expect.poll(() => shown(page, 'sweeps')).toBeGreaterThan(1);
});

test('heating to T = 5 disorders the lattice and cooling to T = 1 orders it', async ({ page }) => {
  await openApp(page);
  const slider = page.getByRole('slider', { name: 'Temperature' });
  await slider.fill(String(Math.log10(5)));
  await expect(page.getByLabel('Temperature value')).toHaveValue(/^5\.00/);
  await expect(page.locator('#temperature-shown')).toHaveText(/^5\.00/);
  // Exact u(T = 5) of the infinite lattice is about −0.44; −0.6 leaves a wide margin.
  await expect.poll(() => shown(page, 'energy'), { timeout: 30_000 }).toBeGreaterThan(-0.6);

  await slider.fill('0');
  await expect(page.locator('#temperature-shown')).toHaveText('1.000');
  // Equilibrium u(1) = −1.997; a quench reaches −1.5 once domains are a few spins wide.
  await expect.poll(() => shown(page, 'energy'), { timeout: 60_000 }).toBeLessThan(-1.5);
});

test('pause stops the clock; step one tick and step one sweep advance it exactly', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Pause' }).click();
  await expect(page.getByRole('button', { name: 'Run' })).toHaveAttribute('aria-pressed', 'false');
  const paused = await shown(page, 'sweeps');
  await page.waitForTimeout(300);
  expect(await shown(page, 'sweeps')).toBe(paused);
  const ticks = await page.evaluate(() => window.boltzlabLab.ticks());
  await page.getByRole('button', { name: 'Step one tick' }).click();
  await expect.poll(() => page.evaluate(() => window.boltzlabLab.ticks())).toBe(ticks + 1);
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  await expect.poll(() => page.evaluate(() => window.boltzlabLab.ticks())).toBe(ticks + 1 + 256 * 256);
});

test('a temperature outside the allowed range is refused with a message and changes nothing', async ({ page }) => {
  await openApp(page);
  const box = page.getByLabel('Temperature value');
  await box.fill('-3');
  await box.press('Enter');
  await expect(page.getByRole('alert')).toContainText('Temperature must be');
  await expect(page.locator('#temperature-shown')).toHaveText('2.269');
});
