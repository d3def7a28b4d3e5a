// MNIST learning on two cores (www/machine/mnist_team.js): a 784-250 machine learns with two
// learning workers sharing each update, and its run is, bit for bit, the run the engine makes
// alone in one worker from the same start (the `advance` command); a reload resumes it and the
// two workers learn on from there. One page load for all of it, on a small machine.
import { test, expect, openApp } from './fixtures.js';

const CORES_KEY = 'boltzlab-mnist-cores';

// A reading of the MNIST learning worker ('updates', 'fingerprint', 'saved', …).
function read(page, name) {
  return page.evaluate((n) => window.boltzlabApp.machine.rbm.mnist.read(n), name);
}

function send(page, command) {
  return page.evaluate((c) => window.boltzlabApp.machine.rbm.mnist.send(c), command);
}

async function showMnist(page) {
  if (!(await page.locator('#rbm').isVisible())) {
    await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
    await page.locator('#bm-kind-restricted').check();
  }
  await expect(page.locator('#mnist')).toBeVisible({ timeout: 60_000 });
}

test('two learning workers give the bits of one, and the run resumes after a reload', async ({ page }) => {
  test.setTimeout(120_000);
  const t0 = Date.now();
  await page.addInitScript((key) => localStorage.setItem(key, '2'), CORES_KEY);
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
  await page.locator('#rbm-dataset').selectOption('mnist');
  await page.locator('#rbm-hidden').fill('250');
  await page.locator('#rbm-create').click();
  await showMnist(page);
  const start = { command: 'new-run', hidden: 250, seed: 7 };
  await send(page, start);
  await expect(page.locator('#mnist-cores')).toHaveText('2');

  // Two workers learn; paused, the run stops at an update both reached.
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => read(page, 'updates'), { timeout: 60_000 }).toBeGreaterThan(20);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  await expect.poll(() => read(page, 'busy')).toBe(false);
  const shared = { updates: await read(page, 'updates'), fingerprint: await read(page, 'fingerprint') };

  // The same start and the same number of updates made by the engine alone: the same bits.
  await send(page, start);
  for (let left = shared.updates; left > 0; left -= Math.min(left, 600))
    await send(page, { command: 'advance', updates: Math.min(left, 600) });
  expect(await read(page, 'updates')).toBe(shared.updates);
  expect(await read(page, 'fingerprint')).toBe(shared.fingerprint);

  // Kept and resumed after a reload; the two workers take the restored run and learn on.
  await expect.poll(async () => (await read(page, 'saved')).stored).toBe(shared.updates);
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  const restore = page.getByRole('button', { name: 'Restore', exact: true });
  if (await restore.isVisible()) await restore.click();
  await showMnist(page);
  await expect(page.locator('#mnist-load-state')).toContainText('restored at update');
  expect(await read(page, 'fingerprint')).toBe(shared.fingerprint);
  await expect(page.locator('#mnist-cores')).toHaveText('2');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => read(page, 'updates'), { timeout: 60_000 }).toBeGreaterThan(shared.updates + 10);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  console.log(`two learning workers, one page load and a reload: ${Date.now() - t0} ms (under load)`);
});
