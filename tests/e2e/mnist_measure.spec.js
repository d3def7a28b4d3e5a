// A measurement, not a check (run only with MEASURE=1; docs/measured.md quotes it): the page's
// default MNIST machine (784-500, CD-1, batch 100, ε = 0.1, μ = 0.5) learning for 90 s, with
// the file's load time, and at 20, 40, 60 and 90 s the updates per second in the worker, the
// page's frames per second and longest main-thread task over 3 s, the last log-likelihood
// point, and the time the worker gives to keeping the run; screenshots in target/measure/.
import { test, expect, openApp } from './fixtures.js';

test('measure the default 784-500 MNIST machine', async ({ page }) => {
  test.skip(!process.env.MEASURE, 'a measurement: MEASURE=1 runs it');
  test.setTimeout(300_000);
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
  await page.locator('#rbm-dataset').selectOption('mnist');
  const t0 = Date.now();
  await page.locator('#rbm-create').click();
  await expect(page.locator('#mnist')).toBeVisible({ timeout: 60_000 });
  console.log(`load+make 784-500: ${Date.now() - t0} ms; ${await page.locator('#mnist-load-state').textContent()}`);
  await page.getByRole('button', { name: 'Run learning' }).click();
  const start = Date.now();
  for (const at of [20, 40, 60, 90]) {
    await page.waitForTimeout(at * 1000 - (Date.now() - start));
    const figures = await page.evaluate(async () => {
      const tasks = [];
      const observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) tasks.push(e.duration);
      });
      observer.observe({ type: 'longtask' });
      const mnist = window.boltzlabApp.machine.rbm.mnist;
      const u0 = await mnist.read('updates');
      let frames = 0;
      const s = performance.now();
      await new Promise((r) => {
        const step = () => {
          frames++;
          if (performance.now() - s < 3000) requestAnimationFrame(step);
          else r(null);
        };
        requestAnimationFrame(step);
      });
      const ms = performance.now() - s;
      const u1 = await mnist.read('updates');
      observer.disconnect();
      return { fps: (frames * 1000) / ms, longest: Math.max(0, ...tasks), ups: ((u1 - u0) * 1000) / ms, updates: u1 };
    });
    console.log(
      `t=${at}s updates ${figures.updates} ups ${figures.ups.toFixed(2)} fps ${figures.fps.toFixed(1)} longest ${figures.longest.toFixed(0)} ms; ll test ${await page.locator('#mnist-test-ll').textContent()} progress ${await page.locator('#mnist-progress').textContent()}; kept ${await page.locator('#mnist-kept').textContent()}`,
    );
    await page.locator('#mnist').screenshot({ path: `target/measure/mnist-${at}s.png` });
  }
});
