// Guided lessons: every lesson link opens its cards, and its set-up button configures what
// it says.
import { test, expect, openApp } from './fixtures.js';

const LATTICE = [
  { n: 1, model: 'ferromagnet', side: 64, temperature: 3 },
  { n: 2, model: 'ferromagnet', side: 128, temperature: 2.269 },
  { n: 3, model: 'ferromagnet', side: 256, temperature: 1 },
  { n: 4, model: 'spin-glass-pm', side: 16, temperature: 1 },
];
const MACHINE = [
  { n: 5, dataset: 'pixels-10', method: 'stochastic', units: 10 },
  { n: 6, dataset: '4-2-4', method: 'stochastic', units: 10 },
  { n: 7, dataset: '4-2-4', method: 'stochastic', units: 10 },
  { n: 8, dataset: '4-2-4', method: 'mean-field', units: 10 },
];

async function openLesson(page, n) {
  await openApp(page, `/?lesson=${n}`);
  await expect(page.locator('body')).toHaveAttribute('data-machine-ready', 'true');
  await expect(page.locator('#lesson-title')).toContainText(`Lesson ${n}:`);
  await expect(page.locator('#lesson-card math').first()).toBeVisible();
}

for (const want of LATTICE) {
  test(`lesson ${want.n} opens from its link and sets up the lattice it says`, async ({ page }) => {
    await openLesson(page, want.n);
    await page.getByRole('button', { name: 'Set it up' }).click();
    await expect.poll(() => page.evaluate(() => window.boltzlabLab.model())).toBe(want.model);
    expect(await page.evaluate(() => window.boltzlabLab.side())).toBe(want.side);
    expect(await page.evaluate(() => window.boltzlabLab.temperature())).toBeCloseTo(want.temperature, 6);
    await expect(page.locator('#spins')).toBeVisible();
  });
}

for (const want of MACHINE) {
  test(`lesson ${want.n} opens from its link and sets up the machine it says`, async ({ page }) => {
    await openLesson(page, want.n);
    await page.getByRole('button', { name: 'Set it up' }).click();
    await expect(page.locator('#machine')).toBeVisible();
    await expect(page.locator('#bm-dataset')).toHaveValue(want.dataset);
    expect(await page.evaluate(() => window.boltzlabMachine.method())).toBe(want.method);
    expect(await page.evaluate(() => window.boltzlabMachine.units())).toBe(want.units);
    if (want.n === 7)
      await expect(page.locator('#bm-logz-table tr[data-method="exact"] .value')).toHaveAttribute('data-value', /\d/);
  });
}

test('every lesson is listed as a link, and a missing lesson says so', async ({ page }) => {
  await openApp(page, '/?lesson=99');
  await expect(page.locator('#link-error')).toContainText('There is no lesson 99');
  await expect(page.locator('#lesson-links a')).toHaveCount(8);
  await page.locator('#lesson-links a').nth(3).click();
  await expect(page.locator('#lesson-title')).toContainText('Lesson 4:');
});
