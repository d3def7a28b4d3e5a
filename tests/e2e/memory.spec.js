// The pattern memory mode (www/memory/): its MemoryLab runs in a module worker and the page
// draws its frames. The digits are stored (by the Boltzmann rule: Hebb's cannot hold them), a
// cue with 20 % of its pixels flipped is recalled
// at T = 0 to the pattern itself (overlap 1, checked against the overlap computed here from the
// state and the pattern) while the energy trace never rises, and the state is named; a drawing
// made with the pointer is stored exactly; bad input is refused beside its control with the
// memory unchanged; a reload restores the patterns and the state; the capacity curve is
// computed in the worker; a worker that dies shows the fault overlay; lessons 12 and 13 open and
// a prediction is measured; the axes' ticks are distinct and whole on the energy trace's tick
// axis; a temperature refused by the press of Recall or One tick stops that press; a blank
// drawing is refused and a press on the pad's border inks the edge pixel. Every run is seeded:
// nothing here can fail by chance.
import { test, expect, openApp } from './fixtures.js';

async function openMemory(page, path = '/') {
  await openApp(page, path);
  await page.getByRole('radio', { name: 'Pattern memory' }).check();
  await expect(page.locator('#memory')).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.memory.shown))).toBe(true);
}

// What the page shows of the memory, from the worker's last frame and the mirror.
const view = (page) =>
  page.evaluate(() => {
    const m = window.boltzlabApp.memory;
    const f = m.shown;
    return {
      state: Array.from(f.state),
      overlaps: Array.from(f.overlaps),
      stats: f.stats,
      patterns: Array.from(m.mirror.patterns_flat()),
      count: m.mirror.pattern_count(),
      trace: m.trace.energy.slice(),
      running: m.running,
    };
  });

// The memory as the page would save it now.
const saved = (page) => page.evaluate(() => window.boltzlabApp.memory.save());

// Waits until recall stopped by itself at a fixed point.
async function recalled(page) {
  await expect(page.locator('#memory-run')).toHaveText('Recall', { timeout: 30_000 });
  await expect.poll(async () => (await view(page)).stats.stable).toBe(true);
}

test('the digits recalled from a 20 % corrupted cue at T = 0: overlap 1, the energy never rises, the state named', async ({
  page,
}) => {
  await openMemory(page);
  // The mode starts with the ten digits stored by the Boltzmann rule and digit 1 cued with 20 %
  // of its pixels flipped.
  let v = await view(page);
  expect(v.count).toBe(10);
  expect(v.stats.patterns).toBe(10);
  expect(v.stats.rule).toBe('boltzmann');
  expect(v.overlaps[1]).toBeLessThan(0.9);
  await page.locator('#memory-speed').selectOption('8');
  await page.getByRole('button', { name: 'Recall', exact: true }).click();
  await recalled(page);
  v = await view(page);
  // The overlap the page shows is (1/N) Σ ξ_i s_i of the state it shows.
  const n = 64;
  const m1 = v.state.reduce((sum, s, i) => sum + s * v.patterns[n + i], 0) / n;
  expect(v.overlaps[1]).toBe(m1);
  expect(m1).toBe(1);
  expect(v.trace.length).toBeGreaterThan(3);
  for (let k = 1; k < v.trace.length; k++) expect(v.trace[k]).toBeLessThanOrEqual(v.trace[k - 1] + 1e-12);
  await expect(page.locator('#memory-name')).toHaveText('stored pattern 1');
  await expect(page.locator('#memory-stable')).toHaveText('yes');
});

test('a drawing made with the pointer is stored, and becomes the state', async ({ page }) => {
  await openMemory(page);
  await page.getByRole('button', { name: 'Forget all' }).click();
  await expect.poll(async () => (await view(page)).stats.patterns).toBe(0);
  // A vertical stroke down column 3 of the 8 × 8 pad (10 canvas pixels a side: a one-pixel
  // gap around the picture), scrolled into view first as a user would (it sits near the fold).
  await page.locator('#memory-pad').scrollIntoViewIfNeeded();
  const box = await page.locator('#memory-pad').boundingBox();
  const at = (col, row) => [box.x + ((col + 1.5) / 10) * box.width, box.y + ((row + 1.5) / 10) * box.height];
  await page.mouse.move(...at(3, 0));
  await page.mouse.down();
  for (let row = 0; row < 8; row++) await page.mouse.move(...at(3, row), { steps: 2 });
  await page.mouse.up();
  const drawing = Array.from({ length: 64 }, (_, i) => (i % 8 === 3 ? 1 : -1));
  expect(await page.evaluate(() => Array.from(window.boltzlabApp.memory.pad))).toEqual(drawing);
  await page.getByRole('button', { name: 'Store the drawing' }).click();
  await expect.poll(async () => (await view(page)).stats.patterns).toBe(1);
  expect((await view(page)).patterns).toEqual(drawing);
  await page.getByRole('button', { name: 'Start from the drawing' }).click();
  await expect.poll(async () => (await view(page)).state).toEqual(drawing);
  await expect(page.locator('#memory-name')).toHaveText('stored pattern 0');
});

test('bad input is refused beside its control and changes nothing; a bad lesson link is explained', async ({
  page,
}) => {
  await openMemory(page);
  const before = await saved(page);
  const cueError = page.locator('#memory-cue-error');
  for (const fraction of ['1.5', '-0.1', 'NaN', 'abc']) {
    await page.locator('#memory-cue-fraction').fill(fraction);
    await page.getByRole('button', { name: 'Cue', exact: true }).click();
    await expect(cueError).toBeVisible();
    await expect(cueError).toContainText(/flip/i);
  }
  await page.locator('#memory-cue-kind').selectOption('mask');
  await page.locator('#memory-cue-fraction').fill('2');
  await page.getByRole('button', { name: 'Cue', exact: true }).click();
  await expect(cueError).toContainText(/hide|mask/i);
  await page.locator('#memory-cue-fraction').fill('0.2');
  await page.locator('#memory-cue-pattern').fill('10');
  await page.getByRole('button', { name: 'Cue', exact: true }).click();
  await expect(cueError).toContainText(/pattern/i);
  // More patterns than pixels: 10 are stored in 64 pixels, so 55 more are refused.
  await page.locator('#memory-random-count').fill('55');
  await page.getByRole('button', { name: 'Store', exact: true }).click();
  await expect(page.locator('#memory-patterns-error')).toContainText('between 1 and 54');
  // A drawing of the wrong size.
  expect(await page.evaluate(() => window.boltzlabApp.memory.storeDrawing([1, -1, 1]))).toBe(false);
  await expect(page.locator('#memory-patterns-error')).toContainText('3');
  await page.locator('#memory-temperature').fill('-1');
  await page.locator('#memory-temperature').dispatchEvent('change');
  await expect(page.locator('#memory-recall-error')).toContainText(/temperature/i);
  // A decimal comma is named, with what to write instead.
  await page.locator('#memory-temperature').fill('0,5');
  await page.locator('#memory-temperature').dispatchEvent('change');
  await expect(page.locator('#memory-recall-error')).toContainText('got 0,5: write decimals with a point, 0.5');
  await page.locator('#memory-cue-kind').selectOption('flip');
  await page.locator('#memory-cue-fraction').fill(',2');
  await page.getByRole('button', { name: 'Cue', exact: true }).click();
  await expect(cueError).toContainText('got ,2: write decimals with a point, .2');
  await page.locator('#memory-cue-fraction').fill('0.2');
  await page.locator('#memory-width').fill('0');
  await page.getByRole('button', { name: 'New empty memory' }).click();
  await expect(page.locator('#memory-setup-error')).toContainText(/width/i);
  expect(await saved(page)).toBe(before);
  expect((await view(page)).count).toBe(10);
  await openApp(page, '/?lesson=12&step=9');
  await expect(page.locator('#link-error')).toContainText('Lesson 12 has steps 1 to 6');
});

test('Add a pattern and recall checks the cue first: a refused cue stores nothing', async ({ page }) => {
  await openMemory(page);
  const before = await saved(page);
  const count = (await view(page)).count;
  const cueError = page.locator('#memory-cue-error');
  const add = page.getByRole('button', { name: 'Add a pattern and recall', exact: true });
  for (const [box, value] of [
    ['memory-cue-fraction', ''],
    ['memory-cue-fraction', '-1'],
    ['memory-cue-fraction', '2'],
    ['memory-cue-pattern', ''],
    ['memory-cue-pattern', '-1'],
    ['memory-cue-pattern', '99'],
  ]) {
    const good = await page.locator(`#${box}`).inputValue();
    await page.evaluate(() => (document.getElementById('memory-cue-error').hidden = true));
    await page.locator(`#${box}`).fill(value);
    await add.click();
    await expect(cueError, `${box} = '${value}'`).toBeVisible();
    await page.waitForTimeout(200);
    const now = await view(page);
    expect(now.count, `${box} = '${value}'`).toBe(count);
    expect(now.running, `${box} = '${value}'`).toBe(false);
    expect(await saved(page), `${box} = '${value}'`).toBe(before);
    await page.locator(`#${box}`).fill(good);
  }
  // The new pattern may be the one cued: it is number `count`, stored, and recalled.
  await page.locator('#memory-cue-pattern').fill(String(count));
  await add.click();
  await expect(cueError).toBeHidden();
  await expect.poll(async () => (await view(page)).count).toBe(count + 1);
});

test('a reload restores the memory: its patterns and its state', async ({ page }) => {
  await openMemory(page);
  await page.locator('#memory-random-count').fill('3');
  await page.getByRole('button', { name: 'Store', exact: true }).click();
  await page.locator('#memory-cue-pattern').fill('11');
  await page.getByRole('button', { name: 'Cue', exact: true }).click();
  await page.locator('#memory-speed').selectOption('1');
  await page.getByRole('button', { name: 'Recall', exact: true }).click();
  await page.waitForTimeout(300);
  await page.getByRole('button', { name: 'Pause recall' }).click();
  await expect.poll(async () => (await view(page)).running).toBe(false);
  await expect.poll(() => page.evaluate(() => window.boltzlabApp.memory.kept.journal.length)).toBe(0);
  const before = await view(page);
  expect(before.count).toBe(13);
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#session-message')).toContainText('pattern memory 8×8, 13 patterns (boltzmann)');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#memory')).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.memory.shown))).toBe(true);
  const after = await view(page);
  expect(after.patterns).toEqual(before.patterns);
  expect(after.state).toEqual(before.state);
  expect(after.stats.ticks).toBe(before.stats.ticks);
  expect(after.stats.energy).toBe(before.stats.energy);
});

test('the capacity curve is computed in the worker: perfect recall at α = 0.02, broken at α = 0.3', async ({
  page,
}) => {
  await openMemory(page);
  await page.locator('#memory-rule').selectOption('hebb');
  await expect.poll(async () => (await view(page)).stats.rule).toBe('hebb');
  await page.locator('#memory-capacity-units').fill('100');
  await page.locator('#memory-capacity-runs').fill('2');
  await page.locator('#memory-capacity-starts').fill('0');
  await page.getByRole('button', { name: 'Compute the curve' }).click();
  await expect(page.locator('#memory-capacity-status')).toContainText('30 of 30 runs', { timeout: 30_000 });
  const r = await page.evaluate(async () => (await import('/www/lessons/scene.js')).readouts());
  expect(r.capacityDone).toBe(true);
  const points = await page.evaluate(() => window.boltzlabApp.memory.capacity.points);
  expect(points.length).toBe(15);
  expect(points[0].mean).toBe(1);
  // Hebb at α = 0.3: far past α_c (docs/memory.md measures 0.36 at N = 500).
  expect(points.at(-1).mean).toBeLessThan(0.8);
  expect(r.capacityBreak.value).toBeGreaterThan(0.05);
  expect(r.capacityBreak.value).toBeLessThan(0.3);
});

test('lessons 12 and 13 open in the memory mode, and a prediction is measured', async ({ page }) => {
  await openApp(page, '/?lesson=13&step=1');
  await expect(page.locator('#lesson-title')).toHaveText('Lesson 13: Unlearning removes false memories');
  await expect(page.locator('#memory')).toBeVisible();
  await openApp(page, '/?lesson=12&step=3');
  await expect(page.locator('#lesson-title')).toHaveText('Lesson 12: Pattern memory');
  await expect(page.locator('#memory-run')).toBeDisabled();
  await page.locator('input[name="lesson-choice"]').first().check();
  await page.getByRole('button', { name: 'Commit and run' }).click();
  await expect(page.locator('#lesson-predict')).toHaveAttribute('data-state', 'measured', { timeout: 30_000 });
  const measured = Number(await page.locator('#lesson-result .measured').textContent());
  const v = await view(page);
  expect(measured).toBeCloseTo(v.overlaps[0], 3);
  expect(v.stats.stable).toBe(true);
});

test.describe('a pattern-memory worker that dies', () => {
  // console_error_panic_hook logs the worker's panic; the log may be lost as the page ends the
  // dead worker, so it is allowed, and the overlay is asserted to carry the panic's message.
  test.use({ expectedProblems: { patterns: [], allowed: [/deliberate panic for tests/] } });

  test('shows the fault overlay', async ({ page }) => {
    await openMemory(page);
    await page.evaluate(() => window.boltzlabApp.memory.faultWorker());
    await expect(page.getByRole('alertdialog', { name: 'The engine stopped' })).toBeVisible();
    await expect(page.locator('#fault-message')).toContainText("The pattern memory's worker stopped");
    await expect(page.locator('#fault-message')).toContainText('deliberate panic for tests');
  });
});

test('a link reopens exactly this memory; a damaged or edited link is refused and the memory stays', async ({
  page,
  context,
}) => {
  await openMemory(page);
  // A memory unlike the mode's first: 6 × 5 pixels, seed 9, Hebb's rule, three random
  // pictures, T = 0.3, picture 1 cued with a fifth flipped, three ticks of recall.
  await page.locator('#memory-width').fill('6');
  await page.locator('#memory-height').fill('5');
  await page.locator('#memory-seed').fill('9');
  await page.locator('#memory-rule').selectOption('hebb');
  await page.getByRole('button', { name: 'New empty memory' }).click();
  await page.locator('#memory-random-count').fill('3');
  await page.getByRole('button', { name: 'Store', exact: true }).click();
  await page.locator('#memory-temperature').fill('0.3');
  await page.locator('#memory-temperature').dispatchEvent('change');
  await page.locator('#memory-cue-pattern').fill('1');
  await page.getByRole('button', { name: 'Cue', exact: true }).click();
  for (let k = 0; k < 3; k++) await page.getByRole('button', { name: 'One tick' }).click();
  await expect.poll(async () => (await view(page)).stats.ticks).toBe(3);
  const made = await saved(page);
  await page.getByRole('button', { name: 'Copy link' }).click();
  await expect(page.locator('#memory-copy-done')).toContainText('6 × 5 memory: its 3 stored patterns (hebb)');
  const link = await page.locator('#memory-share-link').inputValue();
  expect(link).toContain('#state=');

  // A new tab opens the link: the same memory, to the session text (patterns, rule, size,
  // seed, temperature, state and random streams), and its controls say so.
  const other = await context.newPage();
  await other.goto(link);
  await expect(other.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(other.locator('#memory')).toBeVisible();
  await expect.poll(() => saved(other)).toBe(made);
  await expect(other.locator('#memory-width')).toHaveValue('6');
  await expect(other.locator('#memory-seed')).toHaveValue('9');
  await expect(other.locator('#memory-rule')).toHaveValue('hebb');
  await expect(other.locator('#memory-temperature')).toHaveValue('0.3');
  await expect(other.locator('#link-error')).toBeHidden();

  // Refused links, opened in the first tab: each explained in the banner, the memory as it was.
  const edited = (change) => {
    const session = JSON.parse(made);
    change(session);
    return JSON.stringify(session);
  };
  const pack = (session) =>
    page.evaluate(async (session) => (await import('/www/link.js')).encodeState({ mode: 'memory', session }), session);
  const bad = [
    [await pack(edited((s) => (s.temperature = -1))), /temperature/i],
    [await pack(edited((s) => (s.patterns[0] = '+-'))), /pattern/i],
    [await pack(edited((s) => (s.width = 0))), /width/i],
    [await pack('not a session'), /session/i],
    [link.split('#')[1].slice(0, 40), /damaged|base64url/i],
  ];
  for (const [fragment, reason] of bad) {
    await page.evaluate(() => (document.getElementById('link-error').hidden = true));
    await page.evaluate((fragment) => (window.location.hash = fragment), fragment);
    await expect(page.locator('#link-error')).toBeVisible();
    await expect(page.locator('#link-error')).toContainText('nothing was changed');
    await expect(page.locator('#link-error')).toContainText(reason);
    expect(await saved(page)).toBe(made);
  }
  await other.close();
});

// The energy trace's x labels as drawn: every fillText on its canvas recorded from now on, then
// the views redrawn (a resize redraws them at once).
async function energyLabels(page) {
  return page.evaluate(() => {
    const canvas = /** @type {HTMLCanvasElement} */ (document.getElementById('memory-energy'));
    const c = canvas.getContext('2d');
    const drawn = [];
    const fillText = c.fillText;
    c.fillText = function (text, x, y) {
      drawn.push({ text, x, half: this.measureText(text).width / 2, below: this.textBaseline === 'top' });
      return fillText.call(this, text, x, y);
    };
    window.dispatchEvent(new Event('resize'));
    c.fillText = fillText;
    return { width: canvas.getBoundingClientRect().width, x: drawn.filter((d) => d.below && d.text !== 'ticks') };
  });
}

test('axis ticks are distinct, whole on a count axis, and their labels fit: after a long recall and one tick too', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await openMemory(page);
  const ticks = await page.evaluate(async () => {
    const { tickLabels } = await import('/www/views/canvas.js');
    const out = [];
    for (const lo of [0, 1, 68, 999.7, 5188, 123456.78, -0.003, -18.52])
      for (const span of [1, 0.6, 7, 1e-3, 250, 3e4])
        for (let count = 2; count <= 9; count++)
          for (const integer of [false, true])
            out.push({ lo, span, count, integer, labels: tickLabels(lo, lo + span, count, integer) });
    return out;
  });
  for (const { lo, span, count, integer, labels } of ticks) {
    const texts = labels.map((l) => l.text);
    expect(new Set(texts).size, `${lo} + ${span}, ${count} ticks: ${texts}`).toBe(texts.length);
    for (const { v, text } of labels) {
      expect(Math.abs(Number(text) - v), `${text} for ${v}`).toBeLessThanOrEqual(Math.abs(v) * 1e-9 + 1e-12);
      if (integer) expect(Number.isInteger(Number(text)), `${text} on a whole axis`).toBe(true);
    }
  }
  // The page's own case: a recall of over a thousand ticks at T = 0.5, then a cue and one tick
  // (the trace starts afresh: two points a tick apart, far from 0).
  await page.locator('#memory-temperature').fill('0.5');
  await page.locator('#memory-temperature').dispatchEvent('change');
  await page.locator('#memory-speed').selectOption('max');
  await page.getByRole('button', { name: 'Recall', exact: true }).click();
  await expect.poll(async () => (await view(page)).stats.ticks, { timeout: 30_000 }).toBeGreaterThan(1200);
  await page.getByRole('button', { name: 'Pause recall' }).click();
  await page.getByRole('button', { name: 'Cue', exact: true }).click();
  // The page shows the worker's ticks once the frame after the pause is in (under load, the
  // view read at once could be a frame from thousands of ticks before the pause).
  await expect
    .poll(() =>
      page.evaluate(async () => {
        const m = window.boltzlabApp.memory;
        return m.shown.stats.ticks === (await m.read('ticks'));
      }),
    )
    .toBe(true);
  const before = (await view(page)).stats.ticks;
  await page.getByRole('button', { name: 'One tick' }).click();
  await expect.poll(async () => (await view(page)).stats.ticks).toBe(before + 1);
  await expect.poll(async () => (await view(page)).trace.length).toBe(2);
  const { width, x } = await energyLabels(page);
  const texts = x.map((d) => d.text);
  expect(texts).toEqual([String(before), String(before + 1)]);
  for (const d of x) {
    expect(d.x - d.half, d.text).toBeGreaterThanOrEqual(0);
    expect(d.x + d.half, d.text).toBeLessThanOrEqual(width);
  }
  for (let k = 1; k < x.length; k++) expect(x[k - 1].x + x[k - 1].half).toBeLessThan(x[k].x - x[k].half);
});

test('an empty or refused recall temperature stops the press that refused it: no recall, no tick', async ({ page }) => {
  await openMemory(page);
  const ticks = async () => (await view(page)).stats.ticks;
  const at = await ticks();
  const error = page.locator('#memory-recall-error');
  // Emptied, then Recall pressed: the box loses its focus to the button and is refused.
  await page.locator('#memory-temperature').fill('');
  await page.getByRole('button', { name: 'Recall', exact: true }).click();
  await expect(error).toContainText(/temperature/i);
  await expect(page.locator('#memory-run')).toHaveText('Recall');
  await expect(page.locator('#memory-temperature')).toHaveValue('0');
  await page.locator('#memory-temperature').fill('abc');
  await page.getByRole('button', { name: 'One tick' }).click();
  await expect(error).toContainText(/temperature/i);
  await page.waitForTimeout(300);
  expect((await view(page)).running).toBe(false);
  expect(await ticks()).toBe(at);
  // The box shows the temperature the memory holds; the next press recalls at it.
  await page.getByRole('button', { name: 'One tick' }).click();
  await expect.poll(ticks).toBe(at + 1);
  await page.getByRole('button', { name: 'Recall', exact: true }).click();
  await expect.poll(ticks).toBeGreaterThan(at + 1);
});

test('a blank drawing is refused beside the pad; a stroke begun on the pad border inks the edge pixel', async ({
  page,
}) => {
  await openMemory(page);
  const before = await saved(page);
  await page.getByRole('button', { name: 'Clear the pad' }).click();
  await page.getByRole('button', { name: 'Store the drawing' }).click();
  await expect(page.locator('#memory-patterns-error')).toContainText('draw something first');
  expect(await saved(page)).toBe(before);
  expect((await view(page)).count).toBe(10);
  // Presses on the grey frame and the CSS border, top left and bottom right.
  await page.locator('#memory-pad').scrollIntoViewIfNeeded();
  const box = await page.locator('#memory-pad').boundingBox();
  for (const [x, y] of [
    [box.x + 1, box.y + 1],
    [box.x + box.width - 1.5, box.y + box.height - 1.5],
  ]) {
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.up();
  }
  const pad = await page.evaluate(() => Array.from(window.boltzlabApp.memory.pad));
  expect(pad.filter((s) => s > 0).length).toBe(2);
  expect(pad[0]).toBe(1);
  expect(pad[63]).toBe(1);
  await page.getByRole('button', { name: 'Store the drawing' }).click();
  await expect.poll(async () => (await view(page)).count).toBe(11);
  await expect(page.locator('#memory-patterns-error')).toBeHidden();
  expect((await view(page)).patterns.slice(640)).toEqual(pad);
});
