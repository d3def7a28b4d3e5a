// A measurement, not a check (run only with MEASURE=1; docs/labels.md quotes it): the page's
// default MNIST machine (784-500, CD-1, batch 100, ε = 0.1, μ = 0.5, λ = 0.0002) learning the labels too
// for MEASURE_MINUTES (default 10) minutes (MEASURE_DECAY: with that weight decay), with the test error on the 10 000 test images of
// the snapshot at each epoch (600 updates), from the likelihood worker; a screenshot of the
// pad and its bars in target/measure/.
import { mkdir, writeFile } from 'node:fs/promises';
import { test, expect, openApp } from './fixtures.js';

test('measure the test error of the default 784-500 MNIST machine with labels', async ({ page }) => {
  test.skip(!process.env.MEASURE, 'a measurement: MEASURE=1 runs it');
  const minutes = Number(process.env.MEASURE_MINUTES ?? 10);
  test.setTimeout((minutes + 5) * 60_000);
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
  await page.locator('#rbm-dataset').selectOption('mnist');
  await page.locator('#mnist-labels').check();
  // MEASURE_DECAY: the panel's weight decay λ for this run (the default with labels is 0.0002).
  if (process.env.MEASURE_DECAY) await page.locator('#rbm-decay').fill(process.env.MEASURE_DECAY);
  await page.locator('#rbm-create').click();
  await expect(page.locator('#mnist-pad-box')).toBeVisible({ timeout: 60_000 });
  const options = await page.evaluate(() => window.boltzlabApp.machine.rbm.mnist.read('options'));
  console.log(`the run's options: ${JSON.stringify(options)}`);
  await page.locator('#mnist-every').fill('600');
  await page.locator('#mnist-every').dispatchEvent('change');
  await mkdir('target/measure', { recursive: true });
  await page.getByRole('button', { name: 'Run learning' }).click();
  const start = Date.now();
  const curve = () =>
    page.evaluate(() => {
      const c = window.boltzlabApp.machine.rbm.mnist.curve;
      return c
        ? { updates: Array.from(c.updates), error: Array.from(c.error), test: Array.from(c.test, (x) => +x.toFixed(2)) }
        : null;
    });
  while (Date.now() - start < minutes * 60_000) {
    await page.waitForTimeout(30_000);
    const updates = await page.evaluate(() => window.boltzlabApp.machine.rbm.mnist.read('updates'));
    console.log(`t=${((Date.now() - start) / 1000).toFixed(0)} s updates ${updates}; ${JSON.stringify(await curve())}`);
  }
  await page.getByRole('button', { name: 'Pause learning' }).click();
  const updates = await page.evaluate(() => window.boltzlabApp.machine.rbm.mnist.read('updates'));
  const last = Math.floor(updates / 600) * 600;
  await expect(page.locator('#mnist-test-error')).toContainText(`update ${last}`, { timeout: 120_000 });
  console.log(
    `after ${minutes} min: ${updates} updates; test error ${await page.locator('#mnist-test-error').textContent()}`,
  );
  console.log(`test ln p(v): ${await page.locator('#mnist-test-ll').textContent()}`);
  // The run as a file, for boltzlab score --run target/measure/mnist-labels-run.bzmn.
  const bytes = await page.evaluate(async () =>
    Array.from(await window.boltzlabApp.machine.rbm.mnist.read('saved-bytes')),
  );
  await writeFile('target/measure/mnist-labels-run.bzmn', Buffer.from(bytes));
  await page.locator('#mnist-pad-test').fill('0');
  await page.locator('#mnist-pad-from-test').click();
  await expect(page.locator('#mnist-bars-text')).toContainText('most probable');
  await page.locator('#mnist-pad-box').screenshot({ path: 'target/measure/mnist-labels-pad.png' });
});
