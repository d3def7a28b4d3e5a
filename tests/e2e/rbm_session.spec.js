// The restricted machine's run is kept in the page's session: learn digits for some
// updates, reload, restore, and the run is back at the same update count with the same
// weights (read through the app's test hook), and learning continues. A malformed stored
// restricted part is reported, and the rest of the session still restores.
import { test, expect, openRestricted } from './fixtures.js';

// A reading of the page's restricted machine, from its worker (an RbmLab getter).
function rbm(page, method, ...args) {
  return page.evaluate(([m, a]) => window.boltzlabApp.machine.rbm.read(m, ...a), [method, args]);
}

// W of the page's restricted machine (its worker's), as a list of numbers.
function weights(page) {
  return page.evaluate(async () => Array.from(await window.boltzlabApp.machine.rbm.read('weights')));
}

test('a restricted run learning digits comes back after a reload at the same update with the same weights', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openRestricted(page);
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => rbm(page, 'updates'), { timeout: 60_000 }).toBeGreaterThanOrEqual(200);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  // The log-likelihood goes on while paused: wait until the worker has nothing under way
  // (no point under way or due) and its last frame is drawn.
  await page.evaluate(() => window.boltzlabApp.machine.rbm.idle());
  const updates = await rbm(page, 'updates');
  console.log(`paused at update ${updates}, curve ${await rbm(page, 'curve_len')} points`);
  const w = await weights(page);
  const curve = await rbm(page, 'curve_len');
  // The save's cost on the main thread: the engine's session text, then the whole record.
  const cost = await page.evaluate(async () => {
    const rbmMode = window.boltzlabApp.machine.rbm;
    const times = [];
    let length = 0;
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      length = rbmMode.save().length;
      times.push(performance.now() - t0);
    }
    await window.boltzlabPersist.saveNow(true);
    return { times, length, timings: window.boltzlabPersist.timings() };
  });
  console.log(
    `restricted 64-16 session text: ${cost.length} characters, made in ${cost.times.map((t) => t.toFixed(2)).join(', ')} ms; ` +
      `record joined in ${cost.timings.encode.toFixed(1)} ms, written in ${cost.timings.write.toFixed(1)} ms`,
  );

  await page.reload(); // pagehide saves
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#session-message')).toContainText(
    `restricted machine on digits8 (16 hidden units), ${updates} updates`,
  );
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await expect(page.locator('#rbm')).toBeVisible();
  expect(await rbm(page, 'updates')).toBe(updates);
  expect(await weights(page)).toEqual(w);
  expect(await rbm(page, 'curve_len')).toBe(curve);
  await expect(page.locator('#rbm-updates')).toHaveText(String(updates));
  // Learning continues from there.
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => rbm(page, 'updates'), { timeout: 30_000 }).toBeGreaterThan(updates + 10);
});

test('a malformed stored restricted run is reported and the rest of the session restores', async ({ page }) => {
  test.setTimeout(120_000);
  await openRestricted(page);
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  // Damage the stored restricted part (its weights cut short).
  await page.evaluate(() => {
    const key = Object.keys(window.localStorage).find((k) => k.startsWith('boltzlab.session'));
    const record = JSON.parse(window.localStorage.getItem(key));
    const restricted = JSON.parse(record.restricted);
    restricted.weights = restricted.weights.slice(0, 8);
    record.restricted = JSON.stringify(restricted);
    window.localStorage.setItem(key, JSON.stringify(record));
    // Saving no more in this tab, so that the damaged record is what the reload finds.
    window.boltzlabApp.session.stopped = true;
  });
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#session-message')).toContainText("The restricted machine's saved run could not be read");
  await expect(page.locator('#session-message')).toContainText('weights');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await expect(page.locator('#rbm')).toBeVisible();
  // A fresh restricted run, learning.
  expect(await rbm(page, 'updates')).toBe(0);
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => rbm(page, 'updates'), { timeout: 30_000 }).toBeGreaterThan(0);
});
