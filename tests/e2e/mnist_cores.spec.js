// MNIST learning on two cores (www/machine/mnist_team.js): a 784-250 machine learns with two
// learning workers sharing each update, and its run is, bit for bit, the run the engine makes
// alone in one worker from the same start (the `advance` command); a reload resumes it and the
// two workers learn on from there. One page load for all of it, on a small machine.
import { test, expect, openApp } from './fixtures.js';
import { advance, chooseMnist, learnThenPause, read, send } from './mnist_helpers.js';

const CORES_KEY = 'boltzlab-mnist-cores';

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
  await chooseMnist(page, 250);
  const start = { command: 'new-run', hidden: 250, seed: 7 };
  await send(page, start);
  await expect(page.locator('#mnist-cores')).toHaveText('2');

  // Two workers learn; paused, the run stops at an update both reached.
  const shared = await learnThenPause(page, { more: 20 });

  // The same start and the same number of updates made by the engine alone: the same bits.
  await send(page, start);
  await advance(page, shared.updates);
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
  await learnThenPause(page, { from: shared.updates, more: 10 });
  console.log(`two learning workers, one page load and a reload: ${Date.now() - t0} ms (under load)`);
});
