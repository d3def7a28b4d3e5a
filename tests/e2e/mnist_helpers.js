// What the MNIST specs that compare runs bit for bit share: choosing MNIST, the learning
// worker's readings and commands, learning until paused, and the same updates made by the
// engine alone.
import { expect } from './fixtures.js';

/**
 * On an open page: the restricted machine, MNIST chosen with `hidden` hidden units and made;
 * returns once the MNIST view is shown.
 */
export async function chooseMnist(page, hidden) {
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
  await page.locator('#rbm-dataset').selectOption('mnist');
  await page.locator('#rbm-hidden').fill(String(hidden));
  await page.locator('#rbm-create').click();
  await expect(page.locator('#mnist')).toBeVisible({ timeout: 60_000 });
}

/** A reading of the MNIST learning worker ('updates', 'fingerprint', 'saved', …). */
export function read(page, name) {
  return page.evaluate((n) => window.boltzlabApp.machine.rbm.mnist.read(n), name);
}

/** An MnistCommand sent to the learning worker; resolves with its reply. */
export function send(page, command) {
  return page.evaluate((c) => window.boltzlabApp.machine.rbm.mnist.send(c), command);
}

/**
 * Runs learning with the page's button until the run is `more` updates past `from`, pauses,
 * and waits until every learner has stopped: the run's updates and fingerprint then.
 */
export async function learnThenPause(page, { from = 0, more }) {
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => read(page, 'updates'), { timeout: 60_000 }).toBeGreaterThan(from + more);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  await expect.poll(() => read(page, 'busy')).toBe(false);
  return { updates: await read(page, 'updates'), fingerprint: await read(page, 'fingerprint') };
}

/** Makes `updates` updates with the `advance` command (the learning worker alone, 600 a call). */
export async function advance(page, updates) {
  for (let left = updates; left > 0; left -= Math.min(left, 600))
    await send(page, { command: 'advance', updates: Math.min(left, 600) });
}
