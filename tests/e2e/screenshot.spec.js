// The README's picture of the page (docs/screenshot.png), taken from a real run: a 128×128
// ferromagnet at T = 2.0 after 300 sweeps from a random start, paused, with the tick
// inspector explaining one tick (random order, so the tick lands anywhere).
// Every run takes it (into target/playwright/); `UPDATE_SCREENSHOT=1 make e2e` also writes
// it to docs/screenshot.png for the README, so a plain `make test` leaves the tree clean.
import { test, expect, openApp, pause, choose, enter } from './fixtures.js';

test('the page as a teacher would project it (the README screenshot)', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page);
  await pause(page);
  await choose(page, 'Size', '128');
  await enter(page, 'Temperature value', 2);
  await page.getByRole('slider', { name: 'Speed' }).fill('6');
  await page.getByRole('button', { name: 'Run' }).click();
  await expect.poll(() => page.evaluate(() => window.boltzlabLab.sweeps()), { timeout: 60_000 }).toBeGreaterThan(300);
  await page.getByRole('slider', { name: 'Speed' }).fill('0');
  await pause(page);
  await page.getByLabel('Order', { exact: true }).selectOption('random');
  await page.getByRole('button', { name: 'Step one tick' }).click();
  await expect(page.locator('#inspector-body')).toBeVisible();
  await page.mouse.move(0, 0);
  const shot = await page.screenshot({ path: 'target/playwright/screenshot.png' });
  expect(shot.length).toBeGreaterThan(10_000);
  if (process.env.UPDATE_SCREENSHOT) await page.screenshot({ path: 'docs/screenshot.png' });
});
