// A `test` whose page fails the test on any console error, page error or request that
// leaves this machine's server; helpers to drive the page as a person would; and readings of
// what a run has done, for the specs that measure how much of it a reload loses.
import { test as base, expect } from '@playwright/test';

export const test = base.extend({
  // The one narrow opt-out: a test that causes an error on purpose (a panic, a refused inline
  // script) lists patterns for exactly the problems it expects, as
  // test.use({ expectedProblems: { patterns: [/…/] } }) (an object: Playwright reads a bare
  // array as a fixture tuple). Each must then occur at least once, and any other problem
  // still fails the test. `allowed` lists problems that may occur but need not: a dead
  // worker's own console message, which is lost when the page ends the worker before the
  // browser has passed the message on (the test then asserts what the user is shown).
  expectedProblems: [{ patterns: [], allowed: [] }, { option: true }],
  page: async ({ page, baseURL, expectedProblems }, use) => {
    const checkProblems = watchProblems(page, baseURL);
    await use(page);
    checkProblems(expectedProblems);
  },
});

// Collects, on `page`, every console error, page error and request that leaves the server at
// `origin` (data: and blob: addresses stay on the machine). Returns the check to make when the
// page is done with: no problem but those matching `patterns` (each of which must occur) or
// `allowed` (which may). The `page` fixture's checks; a spec that opens a page of its own on
// another server (tests/e2e/mnist_threads.spec.js) makes the same ones.
export function watchProblems(page, origin) {
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) {
      problems.push(`request off the page's own server: ${url}`);
    }
  });
  return ({ patterns: expected = [], allowed = [] } = {}) => {
    const unexpected = problems.filter(
      (problem) => ![...expected, ...allowed].some((pattern) => pattern.test(problem)),
    );
    expect(unexpected, unexpected.join('\n')).toEqual([]);
    for (const pattern of expected) {
      expect(
        problems.some((problem) => pattern.test(problem)),
        `expected a problem matching ${pattern}`,
      ).toBe(true);
    }
  };
}

export { expect };

// Opens the page and waits until the app says it is running.
export async function openApp(page, path = '/') {
  await page.goto(path);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#alert')).toBeHidden();
}

// Opens the page on the restricted machine and waits for its first run to be shown.
export async function openRestricted(page) {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await expect(page.locator('#rbm')).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
}

// After a reload: waits for the page, takes the offered restore, and comes back to the
// restricted machine if the page did not open on it.
export async function reopenRestricted(page) {
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  const restore = page.getByRole('button', { name: 'Restore', exact: true });
  if (await restore.isVisible()) await restore.click();
  if (!(await page.locator('#rbm').isVisible())) {
    await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
    await page.locator('#bm-kind-restricted').check();
  }
}

// The number shown in an <output> of the status line.
export async function shown(page, id) {
  return Number(await page.locator(`#${id}`).textContent());
}

// Calls a method of the page's engine object (window.boltzlabLab) and returns the result.
export function lab(page, method, ...args) {
  return page.evaluate(([m, a]) => window.boltzlabLab[m](...a), [method, args]);
}

// Pauses the run (if running) with the Pause button.
export async function pause(page) {
  const button = page.getByRole('button', { name: 'Pause' });
  if (await button.isVisible()) await button.click();
  await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
}

// Chooses an option of the select with this label.
export async function choose(page, label, value) {
  await page.getByLabel(label, { exact: true }).selectOption(value);
}

// Types a value into a number box and commits it with Enter.
export async function enter(page, label, value) {
  const box = page.getByLabel(label, { exact: true });
  await box.fill(String(value));
  await box.press('Enter');
}

// The spins (±1) and clamp flags (0/1), as the engine running the lattice (in its worker)
// holds them.
export function spinsAndClamps(page) {
  return page.evaluate(async () => {
    const lab = window.boltzlabLab;
    const [side, spins, clamps] = await Promise.all([lab.side(), lab.spins(), lab.clamps()]);
    return { side, spins: Array.from(spins), clamps: Array.from(clamps) };
  });
}

// Drags the mouse across the spin canvas from (x0, y0) to (x1, y1), in lattice units.
export async function drag(page, side, [x0, y0], [x1, y1]) {
  const box = await page.locator('#spins-box').boundingBox();
  const at = (x, y) => [box.x + ((x + 0.5) / side) * box.width, box.y + ((y + 0.5) / side) * box.height];
  await page.mouse.move(...at(x0, y0));
  await page.mouse.down();
  for (let k = 1; k <= 8; k++) await page.mouse.move(...at(x0 + ((x1 - x0) * k) / 8, y0 + ((y1 - y0) * k) / 8));
  await page.mouse.up();
}

// How much of a run a reload (or a closed tab) loses: the specs that measure it read the run's
// count (`count`: the lattice's 'ticks', a machine's 'updates') and the moment it was read (ms
// since the epoch) from the stats of the latest frame the page has from the run's worker. The
// frame is named by its place under window.boltzlabApp, a path such as 'lattice.frameData' or
// 'machine.rbm.shown', since page.evaluate cannot close over a Node variable; it is looked up
// anew at each reading, as the page replaces it with each frame.

// The worker's count and the moment it was read, from its latest frame: an exact pair, with no
// round trip to the worker ({ [count]: n, at }).
export function latestCount(page, frame, count) {
  return page.evaluate(
    ([path, name]) => {
      const stats = path.split('.').reduce((object, key) => object[key], window.boltzlabApp).stats;
      const { [name]: value, at } = stats;
      return { [name]: value, at };
    },
    [frame, count],
  );
}

// From now on, leaving the page (pagehide) keeps the moment it is left with the count and the
// moment it was read from the latest frame the page had then ({ leftAt, [count], at }), in
// localStorage as 'test-left', where the page opened again reads them (readLeaving). A page
// being left cannot ask its worker anything: that frame is the last reading there is.
export function recordLeaving(page, frame, count) {
  return page.evaluate(
    ([path, name]) =>
      window.addEventListener('pagehide', () => {
        const stats = path.split('.').reduce((object, key) => object[key], window.boltzlabApp).stats;
        const { [name]: value, at } = stats;
        const leftAt = performance.timeOrigin + performance.now();
        localStorage.setItem('test-left', JSON.stringify({ leftAt, [name]: value, at }));
      }),
    [frame, count],
  );
}

// What recordLeaving kept as the page was left, read on the page opened again.
export async function readLeaving(page) {
  return JSON.parse(await page.evaluate(() => localStorage.getItem('test-left')));
}

// What leaving the page lost, in seconds of run at `rate` (counts per second, measured before),
// from recordLeaving's reading `left` of count `name` and the count `restored` after it:
//   seen          the run after the last frame the page had processed when it was left. The
//                 worker's sessions and frames come through one port in order, so that frame
//                 came after every session the page holds: this is what the design bounds
//                 (the save period and one slice), whatever the load;
//   extrapolated  the same plus the run the worker did between that frame and the moment of
//                 leaving, at the measured rate (staleMs after the frame was read). On a page
//                 starved of its core, the frames wait unread and this interval grows with the
//                 load, not with the design, and the worker (sharing the same cores) did not
//                 run at the measured rate all along it. The guide reports this figure.
export function lostAtLeaving(left, name, rate, restored) {
  const staleMs = left.leftAt - left.at;
  const atLeaving = left[name] + (rate * staleMs) / 1000;
  return {
    seen: Math.max(0, left[name] - restored) / rate,
    extrapolated: Math.max(0, atLeaving - restored) / rate,
    atLeaving,
    staleMs,
  };
}
