// Helpers shared by the machine-mode specs.
import { expect, openApp } from './fixtures.js';

// Opens the page in Boltzmann-machine mode.
export async function openMachine(page) {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await expect(page.locator('#machine')).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabMachine))).toBe(true);
}

// Calls a method of the page's machine (window.boltzlabMachine).
export function machine(page, method, ...args) {
  return page.evaluate(([m, a]) => window.boltzlabMachine[m](...a), [method, args]);
}
