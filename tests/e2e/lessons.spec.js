// Lessons a lecturer can teach from: every step opens from its deep link with the scene it
// declares; a prediction keeps the run locked until an answer is committed, then shows the
// engine's measurement against it; a challenge completes when the engine's measured
// condition holds and not before; lecture mode's clicker keys, blank screen and the
// projector colours (WCAG AA contrast); Back/Forward, Replay, New run, Explore freely; bad
// links explained. Every page fails its test on any console error (fixtures.js).
// Each lesson's first step in lecture mode is photographed at 1280×720 (into
// target/playwright/lessons/; `UPDATE_SCREENSHOT=1` also writes docs/lessons/).
import { test, expect, lab, spinsAndClamps, choose, drag, enter } from './fixtures.js';
import { COURSE, ENCODER_GOAL, KEEP_SWEEPS, MELT_WINDOW, MNIST_GOAL } from '../../www/lessons/course.js';
import { pictureSpins } from '../../www/lattice/pictures.js';
import { K_STDERR, above, below } from '../../www/lessons/quantities.js';
import { moveOn } from './lecture_keys.js';

// Its tests stand alone (each on a page of its own): spread over the workers rather than run
// one after another in one (playwright.config.js runs whole files otherwise).
test.describe.configure({ mode: 'parallel' });

async function openStep(page, query) {
  await page.goto(`/?${query}`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

const pressed = (page, id) => page.locator(`#${id}`).getAttribute('aria-pressed');

// The page's live numbers as the lessons read them (lessons/scene.js readouts(): quantities
// {value, stderr} or {mean, stderr}), from the page's own module instance.
const sceneReadouts = (page) => page.evaluate(async () => (await import('/www/lessons/scene.js')).readouts());

// Applies a scene through the lessons' interface in the page: null, or the error's message.
const applyInPage = (page, scene) =>
  page.evaluate(async (scene) => {
    const { applyScene } = await import('/www/lessons/scene.js');
    try {
      applyScene(window.boltzlabApp, scene);
      return null;
    } catch (err) {
      return err.message;
    }
  }, scene);

// The scene a step declares, as the page must show it, with its controls and views outlined.
async function expectScene(page, { scene, views, challenge }) {
  const radio = scene.mode === 'lattice' || scene.mode === 'memory' ? scene.mode : 'machine';
  await expect(page.locator(`#mode-${radio}`)).toBeChecked();
  if (scene.mode === 'memory') {
    const want = scene.memory;
    await expect(page.locator('#memory')).toBeVisible();
    await expect(page.locator('#memory-rule')).toHaveValue(want.rule);
    await expect(page.locator('#memory-width')).toHaveValue(String(want.width));
    await expect(page.locator('#memory-seed')).toHaveValue(String(scene.seed));
    await expect(page.locator('#memory-speed')).toHaveValue(String(scene.speed));
    // The memory shown is the scene's: its size and patterns, from the worker's frames.
    await expect
      .poll(async () => (await sceneReadouts(page)).memoryPatterns?.value)
      .toBe(want.patterns === 'digits' ? 10 : want.patterns);
  } else if (scene.mode === 'lattice') {
    const want = scene.lattice;
    for (const key of ['model', 'size', 'rule', 'order', 'boundary'])
      if (want[key] !== undefined) await expect(page.locator(`#${key}`)).toHaveValue(String(want[key]));
    await expect(page.locator('#seed')).toHaveValue(String(scene.seed));
    expect(await lab(page, 'temperature')).toBeCloseTo(want.temperature, 9);
    await expect(page.locator('#temperature-value')).toHaveValue(String(want.temperature));
    if (want.field !== undefined) expect(await lab(page, 'field')).toBeCloseTo(want.field, 9);
    await expect.poll(() => pressed(page, 'run')).toBe(String(Boolean(scene.run)));
    // The speed, as ticks per frame (a lattice scene without one runs a sweep a frame).
    const speed = scene.speed ?? { sweeps: 1 };
    const spins = want.size * want.size;
    const ticks = speed === 'max' ? Infinity : (speed.ticks ?? speed.sweeps * spins);
    expect((await sceneReadouts(page)).ticksPerFrame).toBe(ticks);
  } else if (scene.mode === 'restricted') {
    const want = scene.rbm;
    await expect(page.locator('#machine')).toBeVisible();
    await expect(page.locator('#bm-kind-restricted')).toBeChecked();
    await expect(page.locator('#rbm')).toBeVisible();
    for (const key of ['dataset', 'hidden', 'statistics', 'steps', 'particles', 'batch', 'rate', 'momentum'])
      if (want[key] !== undefined) await expect(page.locator(`#rbm-${key}`)).toHaveValue(String(want[key]));
    await expect(page.locator('#rbm-seed')).toHaveValue(String(scene.seed));
    if (want.dataset === 'mnist') {
      // The MNIST run shown is the scene's: its hidden units, from the learning worker's frames.
      await expect.poll(async () => (await sceneReadouts(page)).mnistHidden?.value).toBe(want.hidden);
      await expect(page.locator('#mnist')).toBeVisible();
    }
    await expect.poll(() => pressed(page, 'rbm-run')).toBe(String(Boolean(scene.run)));
  } else {
    const want = scene.machine;
    await expect(page.locator('#machine')).toBeVisible();
    await expect(page.locator('#bm-kind-full')).toBeChecked();
    const statistics = want.statistics?.name ?? 'anneal';
    await expect(page.locator('#bm-statistics')).toHaveValue(statistics);
    expect(await page.evaluate(() => window.boltzlabMachine.statistics())).toBe(statistics);
    if (want.rate !== undefined) await expect(page.locator('#bm-rate')).toHaveValue(String(want.rate));
    if (scene.couplings === 'random')
      await expect(page.locator('#bm-run-done')).toContainText('Sherrington–Kirkpatrick');
    await expect(page.locator('#bm-dataset')).toHaveValue(want.dataset);
    await expect(page.locator('#bm-method')).toHaveValue(want.method);
    await expect(page.locator('#bm-seed')).toHaveValue(String(scene.seed));
    expect(await page.evaluate(() => window.boltzlabMachine.method())).toBe(want.method);
    // A challenge that pauses its run when done may already have done so.
    const paused = async () =>
      challenge?.pause === 'machine' && (await page.locator('#lesson-challenge').getAttribute('data-state')) === 'done';
    await expect
      .poll(async () => ((await paused()) ? String(Boolean(scene.run)) : await pressed(page, 'bm-run')))
      .toBe(String(Boolean(scene.run)));
    if (scene.speed)
      expect((await sceneReadouts(page)).sweepsPerFrame).toBe(scene.speed === 'max' ? 'max' : scene.speed.sweeps);
  }
  const marked = await page.locator('.lesson-highlight').count();
  expect(marked).toBe(scene.highlight ? 1 : 0);
  const parts = await page.locator('.lesson-part').count();
  expect(parts).toBe((scene.controls ?? []).length + views.length);
}

for (const [l, lesson] of COURSE.entries()) {
  test(`lesson ${l + 1}: every step opens from its deep link with the scene it declares`, async ({ page }) => {
    test.setTimeout(180_000);
    expect(lesson.steps.length).toBeGreaterThanOrEqual(4);
    expect(lesson.goals.length).toBeGreaterThan(0);
    expect(lesson.steps.some((step) => step.predict)).toBe(true);
    for (const [s, step] of lesson.steps.entries()) {
      await openStep(page, `lesson=${l + 1}&step=${s + 1}`);
      await expect(page.locator('#lesson-title')).toHaveText(`Lesson ${l + 1}: ${lesson.title}`);
      await expect(page.locator('#lesson-position')).toHaveText(`step ${s + 1} of ${lesson.steps.length}`);
      await expect(page.locator('#lesson-step-title')).toHaveText(step.title);
      await expectScene(page, step);
      expect(step.notes.ask.length).toBeGreaterThan(0);
      expect(step.notes.limits.length).toBeGreaterThan(0);
    }
  });
}

test('?lesson=N alone opens step 1, and the lesson list links there', async ({ page }) => {
  await openStep(page, 'lesson=2');
  await expect(page.locator('#lesson-position')).toHaveText(`step 1 of ${COURSE[1].steps.length}`);
  await expect(page.locator('#lesson-links a')).toHaveCount(COURSE.length);
  await page.locator('#lesson-links a').nth(3).click();
  await expect(page.locator('#lesson-title')).toHaveText(`Lesson 4: ${COURSE[3].title}`);
  // The query names the step; the lattice may add its parameters' fragment after it.
  await expect.poll(() => new URL(page.url()).search).toBe('?lesson=4&step=1');
});

test('a prediction keeps the run locked until an answer is committed, then shows the engine’s measurement', async ({
  page,
}) => {
  await openStep(page, 'lesson=1&step=3');
  await expect(page.locator('#lesson-predict')).toBeVisible();
  await expect(page.locator('#run')).toBeDisabled();
  await expect(page.locator('#lesson-commit')).toBeDisabled();
  await page.keyboard.press(' '); // play/pause is locked too
  await page.waitForTimeout(1000);
  expect(await lab(page, 'sweeps')).toBe(0);
  await expect(page.locator('#lesson-result')).toBeHidden();
  await page.getByLabel(/mostly aligned/).check();
  await page.getByRole('button', { name: 'Commit and run' }).click();
  await expect(page.locator('#lesson-predict')).toHaveAttribute('data-state', 'measured', { timeout: 60_000 });
  // Measured at the stated sweep exactly, and the result says so.
  expect(await lab(page, 'sweeps')).toBe(100);
  const result = page.locator('#lesson-result');
  await expect(result).toHaveAttribute('data-at', '100');
  await expect(result).toContainText('You predicted: between −1.99 and −1.5');
  await expect(result).toContainText('The engine measured: E/N =');
  await expect(result).toContainText('at sweep 100,');
  // The value shown is the engine's energy when the run stopped (it pauses at measurement).
  const measured = Number(await result.locator('.measured').textContent());
  expect(measured).toBeCloseTo(await lab(page, 'energy_per_spin'), 2);
  await expect(page.locator('#run')).toBeEnabled();
});

test('lesson 9’s lower bound: the sampled ln Z of the untrained 8-3-8 machine is below the exact one, as the step teaches', async ({
  page,
}) => {
  await openStep(page, 'lesson=9&step=2');
  await page.getByLabel('below the exact value').check();
  await page.getByRole('button', { name: 'Commit and run' }).click();
  await expect(page.locator('#lesson-predict')).toHaveAttribute('data-state', 'measured', { timeout: 60_000 });
  const result = page.locator('#lesson-result');
  await expect(result).toContainText('inside your range');
  // 2000 sweeps of 19 units meet at most 38 000 of the 2¹⁹ equally weighted states.
  const measured = Number(await result.locator('.measured').textContent());
  expect(measured).toBeLessThanOrEqual(Math.log(38_000 / 2 ** 19) + 0.01);
});

test('a challenge completes when the engine’s condition holds, and not before', async ({ page }) => {
  await openStep(page, 'lesson=1&step=4');
  const box = page.locator('#lesson-challenge');
  await expect(box).toBeVisible();
  // At T = 3 E/N sits near −0.6: 3 s (many polls, many sweeps) must not complete it.
  await page.waitForTimeout(3000);
  await expect(box).toHaveAttribute('data-state', 'open');
  // "All up" at T = 3 drops E/N to −2 for a moment only: still not held for 20 sweeps.
  await page.locator('#reset-up').click();
  await page.waitForTimeout(2000);
  await expect(box).toHaveAttribute('data-state', 'open');
  const enter = page.getByLabel('Temperature value', { exact: true });
  await enter.fill('1');
  await enter.press('Enter');
  await page.locator('#reset-up').click();
  await expect(box).toHaveAttribute('data-state', 'done', { timeout: 30_000 });
  await expect(page.locator('#lesson-challenge-state')).toContainText('done');
});

test('the two-unit widget: the challenge fires for ln 3 < J < ln 4.5 only', async ({ page }) => {
  await openStep(page, 'lesson=5&step=4');
  const box = page.locator('#lesson-challenge');
  const j = page.getByLabel('J38 value');
  await j.fill('1');
  await j.press('Enter'); // P(1,1) = e/(3+e) = 0.475
  await page.waitForTimeout(800);
  await expect(box).toHaveAttribute('data-state', 'open');
  await j.fill('1.3');
  await j.press('Enter'); // 0.550
  await expect(box).toHaveAttribute('data-state', 'done');
});

test('lecture mode: clicker keys move through the steps, B blanks and pauses', async ({ page }) => {
  await openStep(page, 'lesson=1&step=1&lecture=1');
  await expect(page.locator('body')).toHaveClass(/lecture/);
  await expect(page.locator('header')).toBeHidden();
  const position = page.locator('#lesson-position');
  // (A key that moves on pages a text longer than its column first: moveOn.)
  await moveOn(page, 'PageDown');
  await expect(position).toHaveText('step 2 of 4');
  await expect(page).toHaveURL(/lesson=1&step=2&lecture=1/);
  await moveOn(page, 'ArrowRight');
  await expect(position).toHaveText('step 3 of 4');
  await page.keyboard.press('PageUp');
  await expect(position).toHaveText('step 2 of 4');
  await page.keyboard.press('End');
  await expect(position).toHaveText('step 4 of 4');
  await page.keyboard.press('Home');
  await expect(position).toHaveText('step 1 of 4');
  await moveOn(page, ' ');
  await expect(position).toHaveText('step 2 of 4');
  await page.keyboard.press('ArrowLeft');
  await expect(position).toHaveText('step 1 of 4');
  // Step 4 runs (step 2 opens paused, to be stepped tick by tick); B blanks the screen and
  // pauses it; B again shows it, still paused.
  await page.keyboard.press('End');
  await expect.poll(() => pressed(page, 'run')).toBe('true');
  await page.keyboard.press('b');
  await expect(page.locator('#lesson-blank')).toBeVisible();
  await expect.poll(() => pressed(page, 'run')).toBe('false');
  await page.keyboard.press('b');
  await expect(page.locator('#lesson-blank')).toBeHidden();
  expect(await pressed(page, 'run')).toBe('false');
  await expect(position).toHaveText('step 4 of 4');
  // Only the step's parts show: the model controls and the inspector are not among step 4's.
  await expect(page.locator('#model')).toBeHidden();
  await expect(page.locator('#inspector-title')).toBeHidden();
  await expect(page.locator('#temperature')).toBeVisible();
  await page.getByRole('button', { name: 'Leave lecture mode' }).click();
  await expect(page.locator('header')).toBeVisible();
});

test('Back and Forward move between steps; Replay repeats the seeded start; New run draws a new seed; Explore freely keeps the state', async ({
  page,
}) => {
  await openStep(page, 'lesson=1&step=1');
  const start = await lab(page, 'export_state');
  await page.getByRole('button', { name: 'Next step' }).click();
  await expect(page).toHaveURL(/lesson=1&step=2/);
  await page.goBack();
  await expect(page.locator('#lesson-position')).toHaveText('step 1 of 4');
  expect(await lab(page, 'export_state')).toBe(start);
  await page.goForward();
  await expect(page.locator('#lesson-position')).toHaveText('step 2 of 4');
  await page.goBack();
  await expect(page.locator('#lesson-position')).toHaveText('step 1 of 4');
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  expect(await lab(page, 'export_state')).not.toBe(start);
  await page.getByRole('button', { name: 'Replay' }).click();
  expect(await lab(page, 'export_state')).toBe(start);
  await page.getByRole('button', { name: 'New run' }).click();
  const seed = await page.locator('#seed').inputValue();
  expect(seed).not.toBe('1');
  await expect(page.locator('#lesson-seed')).toHaveText(`seed ${seed}`);
  const fresh = await lab(page, 'export_state');
  expect(fresh).not.toBe(start);
  await page.getByRole('button', { name: 'Explore freely' }).click();
  await expect(page.locator('#lesson')).toBeHidden();
  await expect(page).not.toHaveURL(/lesson=/);
  expect(await lab(page, 'export_state')).toBe(fresh);
});

// WCAG 2 relative luminance and contrast ratio.
function contrastCheck() {
  const parse = (colour) => colour.match(/[\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (element) => {
    for (let e = element; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c;
    }
    return [255, 255, 255];
  };
  const failures = [];
  let checked = 0;
  for (const element of document.querySelectorAll('body *')) {
    const own = [...element.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || element.closest('[hidden]') || element.disabled) continue;
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    if (box.width === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
    const fg = lum(parse(style.color));
    const bg = lum(background(element));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    checked += 1;
    if (ratio < 4.5)
      failures.push(
        `${element.tagName}#${element.id}.${element.className} "${element.textContent.trim().slice(0, 30)}": ${ratio.toFixed(2)}`,
      );
  }
  return { checked, failures };
}

for (const query of [
  'colors=projector&lesson=1&step=2',
  'colors=projector&lesson=8&step=2',
  'colors=projector&lesson=1&step=1&lecture=1',
]) {
  test(`the projector colours pass WCAG AA contrast for every text (${query})`, async ({ page }) => {
    await openStep(page, query);
    await expect(page.locator('html')).toHaveAttribute('data-colors', 'projector');
    await expect(page.locator('#colours')).toHaveValue('projector');
    const { checked, failures } = await page.evaluate(contrastCheck);
    expect(checked).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });
}

test('bad links: a clear message, and the page still works', async ({ page }) => {
  await openStep(page, 'lesson=99&step=-1');
  await expect(page.locator('#link-error')).toContainText(
    `There is no lesson 99: the lessons are numbered 1 to ${COURSE.length}.`,
  );
  await expect(page.locator('#lesson')).toBeHidden();
  await expect.poll(() => lab(page, 'sweeps')).toBeGreaterThan(0);

  await openStep(page, 'lesson=2&step=9');
  await expect(page.locator('#link-error')).toContainText('Lesson 2 has steps 1 to 4, not “9”: it opens at step 1.');
  await expect(page.locator('#lesson-position')).toHaveText('step 1 of 4');

  await openStep(page, 'colors=neon');
  await expect(page.locator('#link-error')).toContainText(
    'unknown colours “neon”: the choices are default and projector',
  );
  await expect(page.locator('html')).not.toHaveAttribute('data-colors', /./);
  await expect.poll(() => lab(page, 'sweeps')).toBeGreaterThan(0);
});

test('speaker notes: one lesson following the step, and a printable page of all', async ({ page, context }) => {
  await openStep(page, 'lesson=3&step=2');
  const [notes] = await Promise.all([
    context.waitForEvent('page'),
    page.getByRole('button', { name: 'Speaker notes' }).click(),
  ]);
  await notes.waitForLoadState();
  await expect(notes.locator('.notes-lesson h2')).toHaveText(`Lesson 3: ${COURSE[2].title}`);
  await expect(notes.locator('.notes-step.current h3')).toHaveText(`Step 2: ${COURSE[2].steps[1].title}`);
  await page.getByRole('button', { name: 'Next step' }).click();
  await expect(notes.locator('.notes-step.current h3')).toHaveText(`Step 3: ${COURSE[2].steps[2].title}`);
  await notes.goto('/?notes=all');
  await expect(notes.locator('.notes-lesson')).toHaveCount(COURSE.length);
  await expect(notes.locator('.notes-step')).toHaveCount(COURSE.reduce((n, lesson) => n + lesson.steps.length, 0));
});

test('each lesson’s first step in lecture mode, photographed at 1280×720', async ({ browser }) => {
  test.setTimeout(180_000);
  // A fresh browser profile for each, as a lecturer's projector laptop would open the link.
  for (const [l] of COURSE.entries()) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    const errors = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await openStep(page, `lesson=${l + 1}&step=1&lecture=1`);
    // An MNIST lesson's run is made once its data is loaded (seconds): the picture waits for it.
    if (COURSE[l].steps[0].scene.rbm?.dataset === 'mnist')
      await expect.poll(async () => (await sceneReadouts(page)).mnistLoaded, { timeout: 60_000 }).toBe(true);
    await page.waitForTimeout(1500); // a few frames of the running scene
    await page.mouse.move(0, 0);
    const shot = await page.screenshot({ path: `target/playwright/lessons/lesson-${l + 1}.png` });
    expect(shot.length).toBeGreaterThan(10_000);
    if (process.env.UPDATE_SCREENSHOT) await page.screenshot({ path: `docs/lessons/lesson-${l + 1}.png` });
    expect(errors).toEqual([]);
    await context.close();
  }
});

test('a teacher’s one-step lesson link opens exactly the shared state, with parts hidden and locked', async ({
  page,
}) => {
  await openStep(page, '');
  await page.getByLabel('Size', { exact: true }).selectOption('64');
  const t = page.getByLabel('Temperature value', { exact: true });
  await t.fill('1.7');
  await t.press('Enter');
  await page.locator('#teach summary').click();
  await page.getByLabel('Title').fill('Find T_c');
  await page.getByLabel('Instruction').fill('Raise T until the order melts. <b>not markup</b>');
  await page.locator('#teach-parts select[data-part="model"]').selectOption('hidden');
  await page.locator('#teach-parts select[data-part="temperature"]').selectOption('locked');
  await page.getByRole('button', { name: 'Copy lesson link' }).click();
  await expect(page.locator('#teach-link')).toHaveValue(/teach=1/);
  const link = await page.locator('#teach-link').inputValue();
  expect(link).toMatch(/\?teach=1&title=Find\+T_c&text=.*&hide=model&lock=temperature#state=/);
  const fragment = await lab(page, 'fragment');

  await page.goto(link);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#lesson-title')).toHaveText('Lesson: Find T_c');
  await expect(page.locator('#lesson-position')).toHaveText('step 1 of 1');
  await expect(page.locator('#lesson-card')).toHaveText('Raise T until the order melts. <b>not markup</b>');
  expect(await lab(page, 'fragment')).toBe(fragment);
  expect(await lab(page, 'side')).toBe(64);
  expect(await lab(page, 'temperature')).toBe(1.7);
  await expect(page.locator('#model')).toBeHidden();
  await expect(page.locator('#temperature-value')).toBeDisabled();
  await page.getByRole('button', { name: 'Explore freely' }).click();
  await expect(page.locator('#model')).toBeVisible();
  await expect(page.locator('#temperature-value')).toBeEnabled();

  await openStep(page, 'teach=1&hide=model,bogus');
  await expect(page.locator('#link-error')).toContainText('names parts the page does not have: bogus');
  await expect(page.locator('#model')).toBeVisible();
});

test('a step’s declared picture or clamped pattern is what the engine holds after entering it', async ({ page }) => {
  const steps = [];
  COURSE.forEach((lesson, l) =>
    lesson.steps.forEach((step, s) => {
      if (step.scene.picture || step.scene.clamp) steps.push({ l, s, scene: step.scene });
    }),
  );
  // At least lesson 3's shrinking disc and one machine lesson.
  expect(steps.some(({ scene }) => scene.picture === 'disc')).toBe(true);
  expect(steps.some(({ scene }) => scene.clamp)).toBe(true);
  for (const { l, s, scene } of steps) {
    await openStep(page, `lesson=${l + 1}&step=${s + 1}`);
    if (scene.picture) {
      // A picture step stays paused (it is a prediction or says "press Run"), so the engine
      // still holds exactly the picture.
      expect(scene.run).toBe(false);
      await page.evaluate(() => window.boltzlabSettled());
      const { side, spins } = await spinsAndClamps(page);
      expect(side).toBe(scene.lattice.size);
      const want = pictureSpins(scene.picture, side);
      expect(spins.filter((v, i) => v !== want[i]).length, `${l + 1}.${s + 1}`).toBe(0);
      expect(want.filter((v) => v < 0).length).toBeGreaterThan(0);
    } else {
      const held = await page.evaluate(async (clamp) => {
        const lab = window.boltzlabMachine;
        const visible = await lab.visible();
        return {
          exploring: await lab.exploring(),
          visible: Array.from((await lab.activations()).slice(0, visible)),
          clamps: Array.from((await lab.clamps()).slice(0, visible)),
          pattern: Array.from((await lab.patterns_flat()).slice((clamp - 1) * visible, clamp * visible)),
        };
      }, scene.clamp);
      expect(held.exploring).toBe(true);
      expect(held.clamps.every((c) => c === 1)).toBe(true);
      expect(held.visible).toEqual(held.pattern);
    }
  }
});

// Where the 8-3-8 encoder's challenge is (its G is too large to enumerate: AIS).
function encoderStep() {
  for (const [l, lesson] of COURSE.entries())
    for (const [s, step] of lesson.steps.entries())
      if (step.scene.machine?.dataset === '8-3-8' && step.challenge) return { l, s, step };
  throw new Error('no 8-3-8 challenge in the course');
}

test('every text a student or lecturer reads is written: no placeholder, no empty explanation', () => {
  // A word of capitals alone (EXPLAIN, TODO, TBD) or a short fragment where a sentence belongs.
  const placeholder = /^\s*[A-Z_]{3,}\s*$|\bTODO\b|\bTBD\b|\bFIXME\b|\bXXX\b/;
  const texts = [];
  for (const [l, lesson] of COURSE.entries())
    for (const [s, step] of lesson.steps.entries()) {
      const at = `lesson ${l + 1} step ${s + 1}`;
      texts.push([`${at} text`, step.text, 40]);
      if (step.predict) {
        texts.push([`${at} question`, step.predict.question, 10]);
        texts.push([`${at} explanation`, step.predict.explain, 40]);
      }
      for (const [key, note] of Object.entries(step.notes ?? {})) texts.push([`${at} notes.${key}`, note, 10]);
    }
  for (const [where, text, shortest] of texts) {
    expect(typeof text, where).toBe('string');
    expect(text.length, `${where}: ${text}`).toBeGreaterThan(shortest);
    expect(placeholder.test(text), `${where}: ${text}`).toBe(false);
  }
});

test('a challenge on an estimate is judged by its value and error: below x means mean + 2·stderr < x', () => {
  const { step } = encoderStep();
  const check = (kl) => step.challenge.check([{ kl }]);
  const x = ENCODER_GOAL;
  expect(K_STDERR).toBe(2);
  // An estimate whose mean is below the goal but whose error band reaches it: not yet.
  expect(check({ mean: x - 0.1, stderr: 0.1 })).toBe(false);
  expect(check({ mean: x - 0.2, stderr: 0.1 })).toBe(false); // exactly at the edge: not below
  expect(check({ mean: x - 0.21, stderr: 0.1 })).toBe(true);
  expect(check({ mean: x + 1, stderr: 0 })).toBe(false);
  // Exact values are compared as they are; nothing measured yet never passes.
  expect(check({ value: x - 1e-9, stderr: 0 })).toBe(true);
  expect(check({ value: x, stderr: 0 })).toBe(false);
  expect(check({ value: NaN, stderr: NaN })).toBe(false);
  expect(check({ mean: x - 1, stderr: NaN })).toBe(false);
  // The mirror rule for "above".
  expect(above({ mean: -20.5, stderr: 0.2 }, -21)).toBe(true);
  expect(above({ mean: -20.7, stderr: 0.2 }, -21)).toBe(false);
  expect(below({ value: 1, stderr: 0 }, 2)).toBe(true);
});

test('a lesson challenge completes on an AIS estimate of G (the 8-3-8 encoder), with its value and error', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const { l, s } = encoderStep();
  await openStep(page, `lesson=${l + 1}&step=${s + 1}`);
  expect(await page.evaluate(() => window.boltzlabMachine.kl_estimated())).toBe(true);
  await expect(page.locator('#bm-dataset')).toHaveValue('8-3-8');
  const box = page.locator('#lesson-challenge');
  // The first AIS point is of the zero weights at cycle 0: the uniform model, G = 16 ln 2 −
  // ln 8 exactly, every AIS run with the same weight (no error). Far above the goal: open.
  await expect
    .poll(async () => (await sceneReadouts(page)).klCycle.value, { timeout: 60_000 })
    .toBeGreaterThanOrEqual(0);
  const first = await page.evaluate(async () => {
    const ais = await window.boltzlabMachine.ais();
    return { cycle: ais.cycles[0], kl: ais.kl[0], stderr: ais.stderr[0] };
  });
  expect(first.cycle).toBe(0);
  expect(first.kl).toBeCloseTo(16 * Math.log(2) - Math.log(8), 9);
  expect(first.stderr).toBeLessThan(1e-9);
  // The read-out is the estimate as numbers ({mean, stderr}), never text.
  const r = await sceneReadouts(page);
  expect(r.kl.value).toBeUndefined();
  expect(Number.isFinite(r.kl.mean)).toBe(true);
  expect(r.kl.stderr).toBeGreaterThanOrEqual(0);
  await expect(page.locator('#bm-kl')).toContainText('AIS estimate');
  // Learning at full speed brings G down; the challenge completes on an estimate clear of
  // the goal by two standard errors.
  await expect(box).toHaveAttribute('data-state', 'done', { timeout: 200_000 });
  expect(await box.getAttribute('data-estimated')).toBe('true');
  const mean = Number(await box.getAttribute('data-value'));
  const error = Number(await box.getAttribute('data-stderr'));
  expect(error).toBeGreaterThan(0);
  expect(mean + K_STDERR * error).toBeLessThan(ENCODER_GOAL);
  await expect(page.locator('#lesson-challenge-state')).toContainText('G = ≈');
  const cycles = await page.evaluate(() => window.boltzlabMachine.cycles());
  console.log(`8-3-8 challenge met at G ≈ ${mean.toFixed(3)} ± ${error.toFixed(3)} (cycle ≤ ${cycles})`);
});

test('a scene passes every value through the engine’s checks: an error names the field and nothing changes', async ({
  page,
}) => {
  await openStep(page, 'lesson=1&step=1');
  const controls = () =>
    page.evaluate(() =>
      ['model', 'size', 'seed', 'temperature-value', 'speed'].map((id) => document.getElementById(id).value),
    );
  const before = { fragment: await lab(page, 'fragment'), controls: await controls() };
  const unchanged = async () => {
    expect(await lab(page, 'fragment')).toBe(before.fragment);
    expect(await controls()).toEqual(before.controls);
  };
  // A bad temperature beside a good size: refused whole, by the engine, naming it.
  expect(await applyInPage(page, { mode: 'lattice', seed: 7, lattice: { size: 64, temperature: -1 } })).toMatch(
    /temperature/,
  );
  await unchanged();
  for (const [scene, reason] of [
    [{ mode: 'lattice', seed: 7, lattice: { size: 64, colour: 'red' } }, /no parameter colour/],
    [{ mode: 'lattice', seed: 7, lattice: { size: 64 }, speed: { sweeps: 3 } }, /^speed: /],
    [{ mode: 'lattice', seed: 7, lattice: { size: 64 }, picture: 'cat' }, /^picture: /],
    [{ mode: 'lattice', seed: 7, lattice: { model: 'spin-ice' } }, /model/],
    [{ mode: 'lattice', seed: -3, lattice: { size: 64 } }, /seed/],
    // An MNIST scene's names and numbers are checked before its data is fetched.
    [{ mode: 'restricted', seed: 1, rbm: { dataset: 'mnist', hidden: 0 } }, /^hidden: /],
    [{ mode: 'restricted', seed: 1, rbm: { dataset: 'mnist', colour: 'red' } }, /no parameter colour/],
    [{ mode: 'restricted', seed: 1.5, rbm: { dataset: 'mnist', hidden: 100 } }, /^seed: /],
    [{ mode: 'restricted', seed: 1, every: 0, rbm: { dataset: 'mnist', hidden: 100 } }, /^every: /],
    [{ mode: 'restricted', seed: 1, gallery: { count: 31, steps: 1 }, rbm: { dataset: 'mnist' } }, /gallery count/],
  ]) {
    expect(await applyInPage(page, scene)).toMatch(reason);
    await unchanged();
  }
  await expect(page.locator('#mode-lattice')).toBeChecked();

  // The general machine: a refused rule leaves the run as it was (same object, dataset).
  expect(await applyInPage(page, { mode: 'machine', seed: 3, machine: { dataset: '4-2-4' } })).toBeNull();
  const machineBefore = await page.evaluate(async () => {
    const lab = window.boltzlabMachine;
    return {
      dataset: await lab.dataset(),
      seed: await lab.seed(),
      rule: await lab.rule(),
      control: document.getElementById('bm-dataset').value,
    };
  });
  expect(machineBefore).toMatchObject({ dataset: '4-2-4', seed: 3, control: '4-2-4' });
  expect(
    await applyInPage(page, { mode: 'machine', seed: 5, machine: { dataset: 'bars-3x3', rule: 'newton' } }),
  ).toMatch(/rule/);
  expect(await applyInPage(page, { mode: 'machine', seed: 5, machine: { dataset: 'nope' } })).toMatch(
    /must be one of .*got 'nope'/,
  );
  expect(
    await applyInPage(page, { mode: 'machine', seed: 5, machine: { dataset: '4-2-4' }, speed: { sweeps: 5 } }),
  ).toMatch(/^speed: /);
  expect(
    await page.evaluate(async () => {
      const lab = window.boltzlabMachine;
      return {
        dataset: await lab.dataset(),
        seed: await lab.seed(),
        rule: await lab.rule(),
        control: document.getElementById('bm-dataset').value,
      };
    }),
  ).toEqual(machineBefore);

  // The restricted machine: a batch larger than the training set is refused, naming it.
  expect(await applyInPage(page, { mode: 'restricted', seed: 2, rbm: { dataset: 'bars-4x4', hidden: 8 } })).toBeNull();
  await expect(page.locator('#bm-kind-restricted')).toBeChecked();
  await expect(page.locator('#rbm-hidden')).toHaveValue('8');
  await expect(page.locator('#rbm-batch')).toHaveValue('30');
  expect(
    await applyInPage(page, { mode: 'restricted', seed: 4, rbm: { dataset: 'digits8', hidden: 16, batch: 5000 } }),
  ).toMatch(/batch/);
  await expect(page.locator('#rbm-dataset')).toHaveValue('bars-4x4');
  await expect(page.locator('#rbm-hidden')).toHaveValue('8');
  await expect(page.locator('#rbm-seed')).toHaveValue('2');
});

// Lesson 14 on MNIST: the prediction step makes a fresh 784-100 machine, paused at update 0
// with its first log-likelihood point (AIS, with an error bar); committing runs it until the
// point of update 300 or later is in, and the measurement shown is that point. About 25 s
// (load 10 on 2 cores): the data load, 300 CD-1 updates and two AIS points; the waits allow
// several times that, as a busier machine once took more than 90 s.
test('lesson 14: the MNIST prediction runs until the point of update 300 and shows it with its AIS error', async ({
  page,
}) => {
  test.setTimeout(300_000);
  await openStep(page, 'lesson=14&step=4');
  await expect(page.locator('#rbm-run')).toBeDisabled();
  await expect.poll(async () => (await sceneReadouts(page)).likelihoodUpdate?.value, { timeout: 60_000 }).toBe(0);
  const start = (await sceneReadouts(page)).testLogLikelihood;
  expect(start.stderr).toBeGreaterThan(0); // ln Z of 784-100 by AIS
  expect((await sceneReadouts(page)).updates.value).toBe(0); // locked until the commit
  // The line under New machine describes the lesson's MNIST run, not the small images'.
  await expect(page.locator('#rbm-setup-done')).toContainText('A 784-100 machine on MNIST');
  await page.getByLabel(/between/).check();
  await page.getByRole('button', { name: 'Commit and run' }).click();
  await expect(page.locator('#lesson-predict')).toHaveAttribute('data-state', 'measured', { timeout: 200_000 });
  const after = await sceneReadouts(page);
  expect(after.likelihoodUpdate.value).toBeGreaterThanOrEqual(300);
  const result = page.locator('#lesson-result');
  await expect(result).toContainText('(an estimate)');
  const measured = Number(await result.locator('.measured').textContent());
  // The measurement is the first point from update 300 on: a point of the curve the scorer
  // sent, to the three digits shown.
  const curve = await page.evaluate(() => window.boltzlabApp.machine.rbm.mnist.curve);
  const points = Object.keys(curve.updates).map((k) => ({ update: curve.updates[k], test: curve.test[k] }));
  const first = points.find((p) => p.update >= 300);
  expect(measured).toBeCloseTo(first.test, 2);
  // Learning raised ln p(v) by far more than the two points' errors (each under 2 nats).
  expect(first.test - start.mean).toBeGreaterThan(20);
  await expect(page.locator('#rbm-run')).toBeEnabled();
});

test('lesson 14’s challenge: test ln p(v) above the goal by two standard errors, and not an unknown', () => {
  const check = COURSE[13].steps.at(-1).challenge.check;
  const reading = (testLogLikelihood) => [{ testLogLikelihood }];
  expect(check(reading({ mean: -MNIST_GOAL + 1, stderr: 0.4 }))).toBe(true);
  expect(check(reading({ mean: -MNIST_GOAL + 0.5, stderr: 0.3 }))).toBe(false);
  expect(check(reading({ value: -MNIST_GOAL + 0.1, stderr: 0 }))).toBe(true);
  expect(check(reading({ value: NaN, stderr: NaN }))).toBe(false);
});

// One page load for both labelled steps: the chosen digit generated and read back by the
// machine, then the same run's pad (a test image) classified and its top half completed,
// clamped and then free; and the labelled scene options refused by name, the scene unchanged.
test('lesson 14’s labelled steps: a chosen digit generated and read back, a test digit classified and completed', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const l14 = COURSE[13].steps;
  const ask = l14.findIndex((step) => step.title === 'Ask for a digit');
  expect(l14[ask + 1].title).toBe('Draw, classify, complete');
  await openStep(page, `lesson=14&step=${ask + 1}`);
  await expect(page.locator('#mnist-labels')).toBeChecked();
  await expect(page.locator('#mnist-gallery-label')).toHaveValue('3');
  // The gallery of 20 finished, the machine names a digit 0–9 for each of its own images.
  await expect(page.locator('#mnist-gallery-classes')).toHaveText(
    /^The machine classifies these images \(argmax p\(y \| v\)\) as: [0-9]( [0-9]){19}$/,
    { timeout: 60_000 },
  );
  // Refused by name, with the labelled run left shown and the Digit box as it was.
  const base = l14[ask].scene;
  const refusals = [
    [{ ...base, rbm: { ...base.rbm, labels: 'yes' } }, /^labels: true or false/],
    [{ ...base, gallery: { count: 20, steps: 200, label: 10 } }, /^gallery label: a whole number from 0 to 9/],
    [{ ...base, gallery: { count: 20, steps: 200, label: 2.5 } }, /^gallery label: a whole number from 0 to 9/],
    [{ ...base, rbm: { ...base.rbm, labels: false } }, /^gallery label: only a run that learns the labels/],
    [{ ...base, gallery: { count: 20, steps: 200, digit: 3 } }, /^MNIST gallery: there is no parameter digit/],
    [{ ...base, pad: { test: 0, mask: 'bottom', steps: 100 } }, /^pad mask: one of paint, top, left/],
    [{ ...base, pad: { test: 10_000, mask: 'top', steps: 100 } }, /^pad test: a whole number from 0 to 9999/],
    [{ ...base, pad: { test: 0, mask: 'top', steps: Infinity } }, /^pad steps: a whole number/],
  ];
  for (const [scene, message] of refusals) expect(await applyInPage(page, scene)).toMatch(message);
  await expect(page.locator('#mnist-labels')).toBeChecked();
  await expect(page.locator('#mnist-gallery-label')).toHaveValue('3');

  await page.getByRole('button', { name: 'Next step' }).click();
  await expect(page.locator('#lesson-step-title')).toHaveText('Draw, classify, complete');
  // The same run goes on (continue), the pad holds test image 0, classified exactly (the
  // ten probabilities shown sum to 1 to their three decimals), its top half completed.
  await expect(page.locator('#mnist-bars-text')).toHaveText(/^p\(label \| pad\), most probable [0-9]: /, {
    timeout: 60_000,
  });
  const text = await page.locator('#mnist-bars-text').textContent();
  const p = [...text.matchAll(/[0-9]: ([0-9.]+)/g)].map((match) => Number(match[1]));
  expect(p).toHaveLength(10);
  expect(Math.abs(p.reduce((a, b) => a + b, 0) - 1)).toBeLessThanOrEqual(0.006);
  await expect(page.locator('#mnist-pad-mask')).toHaveValue('top');
  await expect(page.locator('#mnist-pad-steps-done')).toHaveText('100 of 100', { timeout: 60_000 });
  await expect(page.locator('#mnist-pad-phase')).toHaveText('clamped (pad held)');
  await page.locator('#mnist-pad-toggle').click();
  await expect(page.locator('#mnist-pad-phase')).toHaveText('free (nothing held)', { timeout: 30_000 });
});

// Challenge 3.5 asks for clamps: without them the up state of its seed-1 run falls below
// M/N = 0.5 after 192 sweeps (79–192 over seeds 1–16, course.js KEEP_SWEEPS), so running on
// untouched must never complete it; two clamped strokes across the lattice do. Seed 1 and
// the same strokes: no randomness between runs (a false failure would be a real change).
test('challenge 3.5: waiting alone does not keep the domain; clamped spins do', async ({ page }) => {
  test.setTimeout(240_000);
  // Tall enough that the whole 64 × 64 lattice is on screen to paint on.
  await page.setViewportSize({ width: 1280, height: 1400 });
  await openStep(page, 'lesson=3&step=5');
  const box = page.locator('#lesson-challenge');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  // Past the time an untouched lattice needs to flip, and past the sweeps asked: still open.
  await expect.poll(() => lab(page, 'sweeps'), { timeout: 180_000 }).toBeGreaterThan(KEEP_SWEEPS + 50);
  await expect(box).toHaveAttribute('data-state', 'open');
  await expect(page.locator('#lesson-challenge-state')).toHaveText('not yet');
  expect(await lab(page, 'magnetization_per_spin')).toBeLessThan(0.5);
  // The same start again, four clamped stripes 11 rows wide across the up lattice, 5 rows
  // apart (a free strip that narrow stays up: flipping it costs its two walls 4J per column
  // and gains only 2|h|·5 = 3), then Run.
  await page.getByRole('button', { name: 'Replay' }).click();
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeVisible();
  await choose(page, 'Brush', 'clamp');
  await page.getByRole('slider', { name: 'Brush size' }).fill('5');
  for (const y of [8, 24, 40, 56]) await drag(page, 64, [0, y], [63, y]);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(box).toHaveAttribute('data-state', 'done', { timeout: 180_000 });
  const { clamps } = await spinsAndClamps(page);
  expect(clamps.filter(Boolean).length).toBeGreaterThan(0);
  expect(clamps.filter(Boolean).length).toBeLessThan(64 * 64);
  expect(await lab(page, 'sweeps')).toBeGreaterThanOrEqual(KEEP_SWEEPS);
});

// Challenge 2.3 asks for the transition: at T = 2.9 the order melts within about 30 sweeps,
// but 2.9 is far above it and must not pass; at 2.35, inside the measured window
// (course.js MELT_WINDOW), the melted lattice passes and the box names the T it was met at.
// Neither reading depends on chance: outside the window nothing passes, and at 2.35 a lattice
// already melted at 2.9 stays melted (mean |M/N| 0.19–0.33 there over seeds 1–4).
test('challenge 2.3: melting far above T_c does not pass; melting at the transition does', async ({ page }) => {
  test.setTimeout(180_000);
  await openStep(page, 'lesson=2&step=3');
  const box = page.locator('#lesson-challenge');
  await enter(page, 'Temperature value', 2.9);
  const at = await lab(page, 'sweeps');
  await expect.poll(() => lab(page, 'sweeps'), { timeout: 120_000 }).toBeGreaterThan(at + 200);
  expect(Math.abs(await lab(page, 'magnetization_per_spin'))).toBeLessThan(0.5);
  await expect(box).toHaveAttribute('data-state', 'open');
  expect(MELT_WINDOW[0]).toBeLessThan(2.35);
  expect(MELT_WINDOW[1]).toBeGreaterThan(2.35);
  await enter(page, 'Temperature value', 2.35);
  await expect(box).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  await expect(page.locator('#lesson-challenge-state')).toContainText('T = 2.35');
});

// At 16 sweeps a frame the page's own run went 100 sweeps past 500 before the panel read it
// (600.8); the prediction steps the lattice to 500 exactly and says so. No randomness decides it.
test('prediction 3.2 is measured at sweep 500 exactly, and the result says at which sweep', async ({ page }) => {
  test.setTimeout(180_000);
  await openStep(page, 'lesson=3&step=2');
  await page.getByLabel(/domains or stripes remain/).check();
  await page.getByRole('button', { name: 'Commit and run' }).click();
  // Locked while it steps to the measurement.
  await expect(page.locator('#run')).toBeDisabled();
  await expect(page.locator('#lesson-predict')).toHaveAttribute('data-state', 'measured', { timeout: 150_000 });
  const result = page.locator('#lesson-result');
  await expect(result).toHaveAttribute('data-at', '500');
  await expect(result).toContainText('at sweep 500,');
  expect(await lab(page, 'sweeps')).toBe(500);
  const measured = Number(await result.locator('.measured').textContent());
  expect(measured).toBeCloseTo(Math.abs(await lab(page, 'magnetization_per_spin')), 2);
  await expect(page.locator('#run')).toBeEnabled();
});

// Challenge 8.5 used to say done while learning ran on at full speed and the live count fell
// (weights grow under the sign rule; course.js's text says why): now learning pauses when
// all four codes are distinct, and the box names the cycle. Seed 1 solves it within a few
// hundred cycles (median 98.5 over 250 seeds, docs/ackley1985.md); nothing timed is asserted.
test('challenge 8.5: all four codes pause learning, and the box says at which cycle', async ({ page }) => {
  test.setTimeout(180_000);
  await openStep(page, 'lesson=8&step=5');
  await expect(page.locator('#bm-rule')).toHaveValue('sign');
  const box = page.locator('#lesson-challenge');
  await expect(box).toHaveAttribute('data-state', 'done', { timeout: 150_000 });
  await expect.poll(() => pressed(page, 'bm-run')).toBe('false');
  const state = page.locator('#lesson-challenge-state');
  await expect(state).toContainText('distinct codes = 4');
  const cycle = Number((await state.textContent()).match(/at cycle (\d+)/)[1]);
  expect(cycle).toBeGreaterThan(0);
  // Paused: the cycle count stands still.
  const now = async () => (await sceneReadouts(page)).cycle.value;
  const first = await now();
  expect(first).toBeGreaterThanOrEqual(cycle);
  await page.waitForTimeout(2000);
  expect(await now()).toBe(first);
});

// A lesson's progress survives a reload: the committed prediction with its result, and the
// completed challenge. Prediction 1.3 is seeded and measured at sweep 100 exactly, and the
// two-unit widget's challenge is exact: nothing here depends on chance.
test('lesson progress is kept across a reload: a committed prediction and a completed challenge', async ({ page }) => {
  test.setTimeout(120_000);
  await openStep(page, 'lesson=1&step=3');
  await page.getByLabel(/mostly aligned/).check();
  await page.getByRole('button', { name: 'Commit and run' }).click();
  const predict = page.locator('#lesson-predict');
  await expect(predict).toHaveAttribute('data-state', 'measured', { timeout: 60_000 });
  const result = page.locator('#lesson-result');
  const before = await result.textContent();
  await openStep(page, 'lesson=5&step=4');
  const j = page.getByLabel('J38 value');
  await j.fill('1.3');
  await j.press('Enter');
  const box = page.locator('#lesson-challenge');
  await expect(box).toHaveAttribute('data-state', 'done');
  const done = await page.locator('#lesson-challenge-state').textContent();
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(box).toHaveAttribute('data-state', 'done');
  await expect(page.locator('#lesson-challenge-state')).toHaveText(done);
  await openStep(page, 'lesson=1&step=3');
  await expect(predict).toHaveAttribute('data-state', 'measured');
  await expect(result).toHaveText(before);
  await expect(result).toHaveAttribute('data-at', '100');
  await expect(page.getByLabel(/mostly aligned/)).toBeChecked();
  await expect(page.getByLabel(/mostly aligned/)).toBeDisabled();
  await expect(page.locator('#run')).toBeEnabled();
  // Replay starts the step afresh: the prediction is open again, and stays so after a reload.
  await page.getByRole('button', { name: 'Replay' }).click();
  await expect(predict).toHaveAttribute('data-state', 'open');
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(predict).toHaveAttribute('data-state', 'open');
  await expect(result).toBeHidden();
});

// Bad stored progress never stops the lessons: it is left out with a note, and the step opens.
for (const stored of ['{not json', JSON.stringify({ version: 1, steps: { 1.3: { predict: { choice: 9 } } } })])
  test(`bad stored lesson progress is left out with a note (${stored.slice(0, 12)}…)`, async ({ page }) => {
    await page.goto('/');
    await page.evaluate((text) => localStorage.setItem('boltzlab.lessons', text), stored);
    await openStep(page, 'lesson=1&step=3');
    await expect(page.locator('#lesson-predict')).toHaveAttribute('data-state', 'open');
    await expect(page.locator('#link-error')).toContainText('saved lesson progress could not be read');
    await page.getByLabel(/mostly aligned/).check();
    await expect(page.getByRole('button', { name: 'Commit and run' })).toBeEnabled();
  });

// Step 1.2 opens paused, so that its inspector can be followed tick by tick with the button
// its text names. Deterministic: no run, one tick per press.
test('lesson 1 step 2 opens paused; “Step one tick” shows each decision in the inspector', async ({ page }) => {
  await openStep(page, 'lesson=1&step=2');
  await expect(page.locator('#lesson-card')).toContainText('Step one tick');
  await expect.poll(() => pressed(page, 'run')).toBe('false');
  await page.waitForTimeout(1000);
  expect(await lab(page, 'ticks')).toBe(0);
  await page.getByRole('button', { name: 'Step one tick' }).click();
  await expect.poll(() => lab(page, 'ticks')).toBe(1);
  await expect(page.locator('#inspector-body')).toBeVisible();
  const first = await page.locator('#inspector-body').textContent();
  await page.getByRole('button', { name: 'Step one tick' }).click();
  await expect.poll(() => lab(page, 'ticks')).toBe(2);
  await expect(page.locator('#inspector-body')).not.toHaveText(first);
});
