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

// After a reload: restores the saved session if the page offers it, and shows the restricted
// machine (where a kept MNIST run resumes).
export async function reopenRestricted(page) {
  const restore = page.getByRole('button', { name: 'Restore', exact: true });
  if (await restore.isVisible()) await restore.click();
  if (!(await page.locator('#rbm').isVisible())) {
    await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
    await page.locator('#bm-kind-restricted').check();
  }
}
