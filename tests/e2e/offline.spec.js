// The offline classroom (sw.js, scripts/offline_stamp.mjs): after one visit the page opens
// and works with the network off; the lattice runs, a lesson step opens, the machine learns.
// Every other spec runs with service workers blocked (playwright.config.js), so no cached
// build can stand between them and the build under test.
import { test, expect, openApp } from './fixtures.js';

test.use({ serviceWorkers: 'allow' });

// Waits until a service worker controls the page (its version is cached whole by then: the
// worker activates only after its install, which fetches the whole shell, succeeded).
async function controlled(page) {
  await expect
    .poll(() => page.evaluate(() => Boolean(navigator.serviceWorker.controller)), { timeout: 60_000 })
    .toBe(true);
}

// The page's caches.
const cacheNames = (page) => page.evaluate(() => caches.keys());

async function sweepsRise(page) {
  const sweeps = page.locator('#sweeps');
  const before = Number(await sweeps.textContent());
  await expect.poll(async () => Number(await sweeps.textContent())).toBeGreaterThan(before + 2);
}

test('after one visit the page opens and works with the network off: the lattice and the machine run', async ({
  page,
  context,
}) => {
  await openApp(page);
  await controlled(page);
  const names = await cacheNames(page);
  expect(names.filter((name) => name.startsWith('boltzlab-'))).toHaveLength(1);

  await context.setOffline(true);
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#alert')).toBeHidden();
  expect(await page.evaluate(() => navigator.onLine)).toBe(false);
  await sweepsRise(page);
  // A lesson step (its own address) opens offline too: the one page of the shell.
  await page.goto('/?lesson=1&step=1');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#lesson-position')).toHaveText(/^step 1 of \d+$/);
  // The machine learns.
  await page.goto('/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect
    .poll(() => page.evaluate(() => (window.boltzlabMachine ? window.boltzlabMachine.cycles() : 0)))
    .toBeGreaterThan(3);
  await context.setOffline(false);
});
