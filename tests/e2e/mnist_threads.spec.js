// MNIST learning on the threaded engine (www/machine/threads.js, src/linalg/pair.rs): on a page
// served with the cross-origin isolation headers (as `make serve` sends them) and two cores to
// use, the learning worker loads the engine built with atomics and starts its second thread,
// which runs half of each split update. The run is, bit for bit, the one the default engine
// makes alone on a page served without the headers (as most static hosts serve it), from the
// same start: the split never changes a bit (tests/batch_threads.rs natively). A panic on the
// second thread is shown as any engine panic, and does not leave the learning thread waiting.
import { test, expect, watchProblems } from './fixtures.js';
import { host } from './serve.js';
import { advance, chooseMnist, learnThenPause, read, send } from './mnist_helpers.js';

const CORES_KEY = 'boltzlab-mnist-cores';

// On the isolated page: two threads learn; returns the run's updates and fingerprint when
// paused.
async function learnThreaded(page, url) {
  await mnistRun(page, url);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await expect(page.locator('#mnist-cores')).toHaveText('2');
  const run = await learnThenPause(page, { more: 20 });
  // Each update splits (784-250, batch 100, is above the split's threshold) and the second
  // thread ran halves: a page that quietly fell back to one thread fails here.
  const [helped] = await read(page, 'pair_counts');
  expect(helped).toBeGreaterThan(0);
  return run;
}

// Opens the page at `url` on an MNIST run of 784-250 from seed 7.
async function mnistRun(page, url) {
  await page.goto(url);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await chooseMnist(page, 250);
  await send(page, { command: 'new-run', hidden: 250, seed: 7 });
}

// Runs `use(page, url)` on the built page served with the isolation headers by a server of its
// own, with two cores to use: a context of its own, and the checks the page fixture makes for
// the suite's server (fixtures.js, watchProblems), with `allowed` the problems that may occur.
// Returns what `use` returned.
async function onIsolatedPage(browser, use, allowed = []) {
  const isolated = await host({ root: 'dist', isolate: true });
  const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 1280, height: 800 } });
  let checkProblems;
  let result;
  try {
    const page = await context.newPage();
    checkProblems = watchProblems(page, isolated.url);
    await page.addInitScript((key) => localStorage.setItem(key, '2'), CORES_KEY);
    result = await use(page, isolated.url);
  } finally {
    await context.close();
    await isolated.close();
  }
  checkProblems({ allowed });
  return result;
}

test('an isolated page learns on two threads, with the bits of one', async ({ page, baseURL, browser }) => {
  test.setTimeout(150_000);
  const threaded = await onIsolatedPage(browser, learnThreaded);

  // Without isolation: the default engine, one thread (advance: the learning worker alone).
  await mnistRun(page, baseURL);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
  expect(await read(page, 'pair_counts')).toEqual([0, 0]);
  await advance(page, threaded.updates);
  expect(await read(page, 'updates')).toBe(threaded.updates);
  expect(await read(page, 'fingerprint')).toBe(threaded.fingerprint);
});

test('a panic on the second thread stops the learning with the fault overlay, not a hang', async ({ browser }) => {
  test.setTimeout(120_000);
  // The panics' own console lines (console_error_panic_hook in both threads, and the second
  // thread's report) are expected; nothing else.
  const panics = [/deliberate panic for tests|second thread stopped/];
  await onIsolatedPage(
    browser,
    async (page, url) => {
      await mnistRun(page, url);
      await expect(page.locator('#mnist-cores')).toHaveText('2');
      await page.getByRole('button', { name: 'Run learning' }).click();
      await expect.poll(() => read(page, 'updates'), { timeout: 60_000 }).toBeGreaterThan(5);
      await page.evaluate(() => window.boltzlabApp.machine.rbm.mnist.faultSecondThread());
      // The learning thread, waiting on the half the second thread will not finish, panics
      // with the second thread's message: the page shows it as any engine panic.
      await expect(page.getByRole('alertdialog', { name: 'The engine stopped' })).toBeVisible();
      const message = page.locator('#fault-message');
      await expect(message).toContainText("The MNIST machine's worker stopped");
      await expect(message).toContainText('the second thread stopped in the middle of an update');
      await expect(message).toContainText('deliberate panic for tests on the second thread');
      await expect(page.locator('body')).toHaveAttribute('data-fault', 'panic');
    },
    panics,
  );
});
