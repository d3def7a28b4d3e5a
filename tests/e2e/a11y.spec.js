// Accessibility that stays: axe-core (npm, run inside the page through the test driver, so
// the page's content security policy is untouched) finds no WCAG 2.0/2.1 A or AA violation on
// the lattice, the full and the restricted machine, MNIST (a 784-16 run), every step of every
// lesson in lecture mode, and the printable notes; a keyboard alone reaches every control of a
// lesson step and of the MNIST run with a visible focus, and drives the lesson with the
// clicker keys; the canvases' text alternatives say what they show now.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test, expect, openApp } from './fixtures.js';
import { COURSE } from '../../www/lessons/course.js';
import { moveOn } from './lecture_keys.js';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

// The WCAG A/AA violations axe finds on the page as it stands: one line per element.
async function violations(page) {
  await page.evaluate(AXE_SOURCE);
  const found = await page.evaluate(
    async (tags) =>
      (await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }))
        .violations,
    WCAG_AA,
  );
  return found.flatMap((v) =>
    v.nodes.map(
      (node) => `${v.id} (${v.impact}): ${node.target.join(' ')} — ${node.failureSummary.split('\n')[1] ?? ''}`,
    ),
  );
}

// The controls on screen that take the keyboard, in document order, by id (or text): inside
// `within` (a selector), or on the whole page.
function keyboardControls(page, within = 'body') {
  return page.evaluate(
    (selector) =>
      [...document.querySelectorAll('button, input, select, textarea, a[href], summary, [tabindex]')]
        .filter((element) => element.getClientRects().length > 0 && !element.disabled && element.tabIndex >= 0)
        .filter((element) => !(element instanceof HTMLInputElement && element.type === 'radio' && !element.checked))
        .filter((element) => element.closest(selector))
        .map((element) => element.id || element.textContent.trim()),
    within,
  );
}

// Presses Tab `presses` times; checks each control that gets the focus shows it (an outline
// at least 2 px wide) and returns the names of those reached.
async function tabThrough(page, presses) {
  const reached = new Set();
  for (let k = 0; k < presses; k++) {
    await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const element = document.activeElement;
      if (!element || element === document.body) return null;
      const style = getComputedStyle(element);
      return {
        name: element.id || element.textContent.trim(),
        visible: element.matches(':focus-visible'),
        outline: style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth),
      };
    });
    if (!focus) continue;
    reached.add(focus.name);
    expect(focus.visible, `${focus.name}: focus visible`).toBe(true);
    expect(focus.outline, `${focus.name}: focus outline`).toBeGreaterThanOrEqual(2);
  }
  return reached;
}

test('the lattice, the full and the restricted machine, MNIST and the pattern memory have no WCAG A/AA violations', async ({
  page,
}) => {
  await openApp(page);
  // The harness finds a planted violation (an image without a text alternative), then none.
  await page.evaluate(() => {
    const image = document.createElement('img');
    image.id = 'planted';
    image.src = 'favicon.ico';
    document.body.append(image);
  });
  expect((await violations(page)).some((line) => line.startsWith('image-alt'))).toBe(true);
  await page.evaluate(() => document.getElementById('planted').remove());
  expect(await violations(page), 'lattice').toEqual([]);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await expect(page.locator('#machine')).toBeVisible();
  expect(await violations(page), 'full machine').toEqual([]);
  await page.getByRole('radio', { name: /restricted/ }).check();
  await expect(page.locator('#rbm')).toBeVisible();
  expect(await violations(page), 'restricted machine').toEqual([]);

  // MNIST in the restricted machine (a small run, 784-16), once its pictures are drawn: no
  // violations; each picture says what it shows now; a keyboard alone reaches every control
  // of the run, with the focus visible, and generates a gallery.
  await page.locator('#rbm-dataset').selectOption('mnist');
  await page.locator('#rbm-hidden').fill('16');
  await page.locator('#rbm-create').click();
  await expect(page.locator('#mnist')).toBeVisible();
  // (The drawing pad is a control, focusable and labelled, not a picture.)
  expect(
    await page.locator('#mnist canvas:not([role="img"]):not(#mnist-pad)').count(),
    'MNIST pictures without role img',
  ).toBe(0);
  const label = (id) => page.locator(`#${id}`).getAttribute('aria-label');
  await expect.poll(() => label('mnist-chains')).toMatch(/\. Now: \d+ images of 28 × 28 pixels, 10 to a row$/);
  await expect.poll(() => label('mnist-filters')).toMatch(/\. Now: 16 images of 28 × 28 pixels, 10 to a row$/);
  await expect.poll(() => label('mnist-reconstructions')).toMatch(/\. Now: 20 images of 28 × 28 pixels, 5 to a row$/);
  expect(await violations(page), 'MNIST').toEqual([]);
  const mnistControls = await keyboardControls(page, '#mnist');
  expect(mnistControls).toEqual(
    expect.arrayContaining(['mnist-filter-page', 'mnist-filter-order', 'mnist-every', 'mnist-gallery-run']),
  );
  // Tab from the control just before the run's first one.
  const everything = await keyboardControls(page);
  const first = everything.indexOf(mnistControls[0]);
  await page.locator(`#${everything[first - 1]}`).focus();
  const reached = await tabThrough(page, mnistControls.length + 3);
  for (const name of mnistControls) expect(reached.has(name), `${name} reached by Tab`).toBe(true);
  await page.locator('#mnist-gallery-steps').focus();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('5');
  // Past the digit box (left empty: any digit) to Generate.
  await page.keyboard.press('Tab');
  await expect(page.locator('#mnist-gallery-label')).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.locator('#mnist-gallery-run')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('#mnist-gallery-progress')).toHaveText('5 of 5 steps');
  await expect.poll(() => label('mnist-gallery')).toMatch(/\. Now: 20 images of 28 × 28 pixels, 10 to a row$/);
  expect(await violations(page), 'MNIST with its gallery').toEqual([]);
  await page.locator('#mode-memory').check();
  await expect(page.locator('#memory')).toBeVisible();
  expect(await violations(page), 'pattern memory').toEqual([]);
});

test('the printable notes have no WCAG A/AA violations', async ({ page }) => {
  await page.goto('/?notes=all');
  await expect(page.locator('.notes-lesson')).toHaveCount(COURSE.length);
  expect(await violations(page)).toEqual([]);
});

test('every step of every lesson in lecture mode has no WCAG A/AA violations', async ({ page }) => {
  test.setTimeout(600_000);
  await page.setViewportSize({ width: 1280, height: 720 });
  for (const [l, lesson] of COURSE.entries()) {
    await page.goto(`/?lesson=${l + 1}&step=1&lecture=1`);
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    for (const s of lesson.steps.keys()) {
      if (s > 0) await moveOn(page, 'PageDown', (key) => page.locator('body').press(key));
      await expect(page.locator('#lesson')).toHaveAttribute('data-step', `${l + 1}.${s + 1}`);
      expect(await violations(page), `lesson ${l + 1} step ${s + 1}`).toEqual([]);
    }
  }
});

test('a keyboard alone reaches every control of a lecture step, with the focus visible, and drives the lesson', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto('/?lesson=1&step=4&lecture=1');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  // Every control on screen that takes the keyboard: Tab reaches each, its focus visible.
  const controls = await keyboardControls(page);
  expect(controls.length).toBeGreaterThan(5);
  const reached = await tabThrough(page, controls.length + 5);
  for (const name of controls) expect(reached.has(name), `${name} reached by Tab`).toBe(true);

  // The clicker keys, with the focus left on a button of the lesson (not in a text box): the
  // keys a button has no use for turn the page (Space is the button's own).
  await page.locator('#lesson-replay').focus();
  const keys = [
    ['Home', 1],
    ['PageDown', 2],
    ['ArrowRight', 3],
    ['PageDown', 4],
    ['PageUp', 3],
    ['ArrowLeft', 2],
    ['End', COURSE[0].steps.length],
  ];
  for (const [key, step] of keys) {
    // (A key that moves on pages a text longer than its column first: moveOn.)
    if (['PageDown', 'ArrowRight'].includes(key)) await moveOn(page, key);
    else await page.keyboard.press(key);
    await expect(page.locator('#lesson'), `${key} opens step ${step}`).toHaveAttribute('data-step', `1.${step}`);
  }
  await page.keyboard.press('b');
  await expect(page.locator('#lesson-blank')).toBeVisible();
  await page.keyboard.press('B');
  await expect(page.locator('#lesson-blank')).toBeHidden();
});

test('the canvases say what they show now, at a modest rate', async ({ page }) => {
  // Step 1 of lesson 1 holds a random lattice, paused: the label must count its spins exactly.
  await openApp(page, '/?lesson=1&step=1');
  const label = (id) => page.locator(`#${id}`).getAttribute('aria-label');
  const counted = /Now: (\d+) × (\d+) spins, (\d+) up and (\d+) down, magnetisation per spin (-?[\d.]+), (\d+) clamped/;
  await expect.poll(() => label('spins')).toMatch(counted);
  const [, side, , up, down, m, clamped] = (await label('spins')).match(counted);
  const engine = await page.evaluate(async () => {
    const lab = window.boltzlabLab;
    const spins = Array.from(await lab.spins());
    return { side: await lab.side(), up: spins.filter((s) => s > 0).length, n: spins.length };
  });
  expect(Number(side)).toBe(engine.side);
  expect(Number(up)).toBe(engine.up);
  expect(Number(down)).toBe(engine.n - engine.up);
  expect(Number(m)).toBeCloseTo((2 * engine.up - engine.n) / engine.n, 2);
  expect(Number(clamped)).toBe(0);
  await expect.poll(() => label('trace')).toMatch(/Now: (no sweeps yet|after \d+ sweeps, E\/N)/);

  // Step 4 runs: the label follows, changing about once a second, not every frame (count its
  // changes over 3 s: at 60 frames a second it would change up to 180 times).
  await page.getByRole('button', { name: 'Next step' }).click();
  await page.getByRole('button', { name: 'Next step' }).click();
  await page.getByRole('button', { name: 'Next step' }).click();
  await expect(page.locator('#lesson')).toHaveAttribute('data-step', '1.4');
  await expect.poll(() => label('trace')).toMatch(/Now: after [1-9]\d* sweeps, E\/N -?[\d.]+ and M\/N -?[\d.]+/);
  const changes = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const canvas = document.getElementById('spins');
        let count = 0;
        const watch = new MutationObserver(() => (count += 1));
        watch.observe(canvas, { attributes: true, attributeFilter: ['aria-label'] });
        setTimeout(() => {
          watch.disconnect();
          resolve(count);
        }, 3000);
      }),
  );
  expect(changes).toBeGreaterThanOrEqual(1);
  expect(changes).toBeLessThanOrEqual(4);
  // No canvas announces itself: none is in a live region.
  expect(await page.locator('[aria-live] canvas, canvas[aria-live]').count()).toBe(0);
});
