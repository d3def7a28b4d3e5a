// The test hooks (window.boltzlabApp and its kin, www/app.js) exist only in a browser driven by
// automation, which every other spec is (and relies on). A person's browser (here Chromium told
// not to announce automation, so navigator.webdriver is false) gets the same page with no
// handles into its engines.
import { test, expect, openApp } from './fixtures.js';

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-blink-features=AutomationControlled'],
  },
});

test('a browser not driven by automation runs the page without the test hooks', async ({ page }) => {
  await openApp(page);
  expect(await page.evaluate(() => navigator.webdriver)).toBe(false);
  const hooks = await page.evaluate(() =>
    ['boltzlabApp', 'boltzlabLab', 'boltzlabMachine', 'boltzlabEngine', 'boltzlabPersist'].filter(
      (name) => name in window,
    ),
  );
  expect(hooks).toEqual([]);
  // The page itself works: the lattice runs and its sweep counter moves.
  const sweeps = page.locator('#sweeps');
  const before = await sweeps.textContent();
  await expect.poll(() => sweeps.textContent()).not.toBe(before);
});
