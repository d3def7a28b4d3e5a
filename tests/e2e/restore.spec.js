// A restored Boltzmann machine continues exactly where it stopped: the same cycle, the same
// KL, the same curve (the engine's versioned machine session).
import { test, expect } from './fixtures.js';
import { openMachine, machine } from './machine_helpers.js';

test('4-2-4 trained to cycle 48 or more comes back at the same cycle with the same KL', async ({ page }) => {
  test.setTimeout(120_000);
  await openMachine(page);
  await expect(page.getByLabel('Dataset', { exact: true })).toHaveValue('4-2-4');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles'), { timeout: 60_000 }).toBeGreaterThanOrEqual(48);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  const cycles = await machine(page, 'cycles');
  await expect(page.locator('#bm-cycle')).toHaveText(String(cycles));
  const kl = await page.locator('#bm-kl').textContent();
  const network = await machine(page, 'export_network');
  const curve = await machine(page, 'curve_len');

  await page.reload(); // pagehide saves
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#session-message')).toContainText(`Boltzmann machine on 4-2-4, ${cycles} learning cycles`);
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await expect(page.locator('#machine')).toBeVisible();
  await expect(page.locator('#bm-cycle')).toHaveText(String(cycles));
  await expect(page.locator('#bm-kl')).toHaveText(kl);
  expect(await machine(page, 'cycles')).toBe(cycles);
  expect(await machine(page, 'curve_len')).toBe(curve);
  expect(await machine(page, 'export_network')).toBe(network);
  console.log(`restored 4-2-4 at cycle ${cycles}, KL ${kl}`);
});
