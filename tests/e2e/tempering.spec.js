// The general machine's parallel tempering in the page: chosen with its replicas, it
// learns (cycles go by, the exact G falls from its start), its choice survives a reload,
// and a refused replica count is explained and changes nothing.
import { test, expect } from './fixtures.js';
import { openMachine, machine } from './machine_helpers.js';

test('the general machine learns the 10-pixel images with tempered fantasy particles', async ({ page }) => {
  test.setTimeout(120_000);
  await openMachine(page);
  await page.locator('#bm-dataset').selectOption('pixels-10');
  await page.locator('#bm-rule').selectOption('gradient');
  await page.locator('#bm-rate').fill('0.05');
  await page.locator('#bm-rate').dispatchEvent('change');
  // K and R can be edited once tempering is chosen (under the paper's annealing they are
  // greyed: it uses neither).
  await expect(page.locator('#bm-replicas')).toBeDisabled();
  await page.locator('#bm-statistics').selectOption('tempering');
  await page.locator('#bm-particles').fill('30');
  await page.locator('#bm-particles').dispatchEvent('change');
  await page.locator('#bm-replicas').fill('3');
  await page.locator('#bm-replicas').dispatchEvent('change');
  await expect(page.locator('#bm-statistics-error')).toBeHidden();
  expect(await machine(page, 'statistics')).toBe('tempering');
  expect(await machine(page, 'statistics_replicas')).toBe(3);
  expect(await machine(page, 'statistics_particles')).toBe(30);

  // A replica count the engine refuses: explained beside the control, nothing changes.
  const before = await machine(page, 'session');
  await page.locator('#bm-replicas').fill('1');
  await page.locator('#bm-replicas').dispatchEvent('change');
  await expect(page.locator('#bm-statistics-error')).toContainText('Replicas must be between 2 and 32');
  expect(await machine(page, 'session')).toBe(before);
  await expect(page.locator('#bm-replicas')).toHaveValue('3');

  // From zero weights G = 10 ln 2 − ln 6 ≈ 5.14 nats; 100 cycles of ε = 0.05 lower it.
  await page.getByRole('slider', { name: 'Learning speed' }).fill('6');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles'), { timeout: 90_000 }).toBeGreaterThanOrEqual(100);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  const curve = await page.evaluate(async () => Array.from((await window.boltzlabMachine.curve()).kl));
  expect(curve.length).toBeGreaterThan(1);
  expect(curve.at(-1)).toBeLessThan(5.14 - 1);

  // The choice is part of the session: a reload brings it back.
  const cycles = await machine(page, 'cycles');
  await page.reload(); // pagehide saves
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#machine')).toBeVisible();
  await expect(page.locator('#bm-cycle')).toHaveText(String(cycles));
  expect(await machine(page, 'statistics')).toBe('tempering');
  expect(await machine(page, 'statistics_replicas')).toBe(3);
  await expect(page.locator('#bm-statistics')).toHaveValue('tempering');
  await expect(page.locator('#bm-replicas')).toHaveValue('3');
});
