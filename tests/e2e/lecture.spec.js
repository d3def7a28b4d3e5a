// Lecture mode shows what each step talks about: for every step of every lesson (read from
// course.js, so lessons added later are covered too), at 1024×768 (a projector), 1280×720
// and 1920×1080, the
// views the step declares (step.views) are each on screen in full, at least 200 × 200 px,
// clear of each other and of the text, and drawn (some pixel of each canvas differs from the
// tile's background), each with its legend or caption (LEGENDS) under it in its tile; the
// controls it names (scene.controls) and nothing else stand under its text; the text is at
// least 24 px; nothing scrolls sideways. Each lesson opens at its first step by deep link
// and moves on with the clicker key (PageDown), so the views of one step are put back
// before the next step's are laid out.
import { test, expect } from './fixtures.js';
import { COURSE } from '../../www/lessons/course.js';
import { column, moveOn } from './lecture_keys.js';

// Its tests stand alone (each on a page of its own): spread over the workers rather than run
// one after another in one (playwright.config.js runs whole files otherwise).
test.describe.configure({ mode: 'parallel' });

const SIZES = [
  { width: 1024, height: 768 },
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
];
const MIN_SIDE = 200;
const MIN_TEXT_PX = 24;
// The words of each legend or caption that tell the audience which line (or mark) is which,
// shown in the view's tile under it, in type of at least LEGEND_PX.
const LEGENDS = {
  trace: ['E/N', 'M/N'],
  'sweep-magnetisation': ['measured', 'Onsager'],
  'sweep-energy': ['measured', 'Onsager'],
  'sweep-heat': ['measured', 'Onsager'],
  'sweep-susceptibility': ['measured', 'Onsager'],
  likelihood: ['training set', 'test set'],
  'mnist-likelihood': ['training set', 'test set', 'AIS standard error'],
  curve: ['KL(data ‖ model)', 'fraction of encoder inputs'],
  bonds: ['Yellow squares are frustrated plaquettes'],
};
const LEGEND_PX = 18;

// Whether two boxes overlap (by more than a rounding pixel).
const overlap = (a, b) =>
  Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 1 &&
  Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 1;

// What the page shows of the open step: the tiles (name, box, the view's box inside, and
// which canvases are still blank), the text's box and font sizes, the controls under the text,
// and the widths that would scroll sideways.
const layout = (page) =>
  page.evaluate(() => {
    const box = (element) => {
      const r = element.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    };
    // A canvas is blank when every pixel is transparent or the tile's own background colour.
    const blank = (canvas, background) => {
      if (canvas.width === 0 || canvas.height === 0) return true;
      const scratch = document.createElement('canvas');
      scratch.width = canvas.width;
      scratch.height = canvas.height;
      const c = scratch.getContext('2d');
      c.drawImage(canvas, 0, 0);
      const data = c.getImageData(0, 0, canvas.width, canvas.height).data;
      for (let k = 0; k < data.length; k += 4) {
        if (data[k + 3] === 0) continue;
        if (data[k] !== background[0] || data[k + 1] !== background[1] || data[k + 2] !== background[2]) return false;
      }
      return true;
    };
    const tiles = [...document.querySelectorAll('#lecture-views .lecture-view')].map((tile) => {
      const background = getComputedStyle(tile).backgroundColor.match(/\d+/g).map(Number);
      const view = tile.querySelector('.lecture-view-body > *');
      const canvases = [...tile.querySelectorAll('canvas:not([aria-hidden="true"])')].filter(
        (canvas) => canvas.getClientRects().length > 0,
      );
      return {
        name: tile.dataset.view,
        tile: box(tile),
        body: box(tile.querySelector('.lecture-view-body')),
        view: view ? box(view) : null,
        legend: [...tile.querySelectorAll('.lecture-view-body ~ *')].map((legend) => ({
          text: legend.innerText,
          box: box(legend),
          px: parseFloat(getComputedStyle(legend).fontSize),
        })),
        blank: canvases.filter((canvas) => blank(canvas, background)).map((canvas) => canvas.id || canvas.className),
      };
    });
    const px = (id) => parseFloat(getComputedStyle(document.getElementById(id)).fontSize);
    const lesson = document.getElementById('lesson');
    const controls = document.getElementById('lecture-controls');
    return {
      tiles,
      text: box(lesson),
      textPx: Math.min(px('lesson-card'), px('lesson-step-title'), px('lesson-predict'), px('lesson-challenge')),
      controls: controls.hidden ? 0 : controls.childElementCount,
      pageWidth: document.documentElement.scrollWidth,
      textOverflow: lesson.scrollWidth - lesson.clientWidth,
      // Anything of the page outside the lesson column and the tiles that is on screen.
      strays: [...document.body.children]
        .filter(
          (element) =>
            !['lesson', 'lecture-views', 'lesson-blank', 'alert', 'fault', 'link-error'].includes(element.id),
        )
        .filter((element) => element.tagName !== 'DIALOG' && element.tagName !== 'SCRIPT')
        .filter((element) => element.getClientRects().length > 0)
        .map((element) => element.id || element.className),
    };
  });

for (const size of SIZES) {
  for (const [l, lesson] of COURSE.entries()) {
    test(`lesson ${l + 1} in lecture mode at ${size.width}×${size.height}: every step shows its views whole, drawn and apart`, async ({
      page,
    }) => {
      test.setTimeout(120_000);
      await page.setViewportSize(size);
      await page.goto(`/?lesson=${l + 1}&step=1&lecture=1`);
      await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
      await expect(page.locator('body')).toHaveClass(/lecture/);
      let paged = 0; // presses that paged a step's text
      for (const [s, step] of lesson.steps.entries()) {
        const where = `lesson ${l + 1} step ${s + 1} at ${size.width}×${size.height}`;
        if (s > 0) paged += await moveOn(page, 'PageDown', (key) => page.locator('body').press(key));
        await expect(page.locator('#lesson')).toHaveAttribute('data-step', `${l + 1}.${s + 1}`);
        expect((await column(page)).top, `${where}: the text opens at its top`).toBe(0);
        expect(step.views.length, `${where}: declares its views`).toBeGreaterThan(0);
        // The canvases draw within a few frames of the step opening (the modes' workers send
        // their first frame; lesson 14's likelihood tile waits for the MNIST data and its first
        // AIS point, which took more than 10 s once on a loaded 2-core machine): at most 30 s.
        await expect
          .poll(async () => (await layout(page)).tiles.flatMap((tile) => tile.blank), {
            message: `${where}: blank canvases`,
            timeout: 30_000,
          })
          .toEqual([]);
        const shown = await layout(page);
        expect(
          shown.tiles.map((tile) => tile.name),
          `${where}: the views shown`,
        ).toEqual(step.views);
        for (const { name, tile, body, view, legend } of shown.tiles) {
          // The legend, whole in the tile under the view, says which line is which.
          for (const words of LEGENDS[name] ?? [])
            expect(legend.map((l) => l.text).join(' '), `${where}: ${name}'s legend`).toContain(words);
          for (const l of legend) {
            expect(l.box.y, `${where}: ${name}'s legend under the view`).toBeGreaterThanOrEqual(
              body.y + body.height - 1,
            );
            expect(l.box.y + l.box.height, `${where}: ${name}'s legend cut off`).toBeLessThanOrEqual(
              tile.y + tile.height,
            );
            expect(l.box.x + l.box.width, `${where}: ${name}'s legend cut off`).toBeLessThanOrEqual(
              tile.x + tile.width,
            );
            expect(l.px, `${where}: ${name}'s legend type`).toBeGreaterThanOrEqual(LEGEND_PX);
          }
          expect(tile.width, `${where}: ${name} width`).toBeGreaterThanOrEqual(MIN_SIDE);
          expect(tile.height, `${where}: ${name} height`).toBeGreaterThanOrEqual(MIN_SIDE);
          expect(tile.x, `${where}: ${name} left`).toBeGreaterThanOrEqual(0);
          expect(tile.y, `${where}: ${name} top`).toBeGreaterThanOrEqual(0);
          expect(tile.x + tile.width, `${where}: ${name} right`).toBeLessThanOrEqual(size.width);
          expect(tile.y + tile.height, `${where}: ${name} bottom`).toBeLessThanOrEqual(size.height);
          expect(overlap(tile, shown.text), `${where}: ${name} clear of the text`).toBe(false);
          // The view itself lies wholly inside its tile (nothing of it is cut off).
          expect(view, `${where}: ${name} is in its tile`).not.toBeNull();
          expect(view.x, `${where}: ${name} cut off left`).toBeGreaterThanOrEqual(body.x - 1);
          expect(view.y, `${where}: ${name} cut off above`).toBeGreaterThanOrEqual(body.y - 1);
          expect(view.x + view.width, `${where}: ${name} cut off right`).toBeLessThanOrEqual(body.x + body.width + 1);
          expect(view.y + view.height, `${where}: ${name} cut off below`).toBeLessThanOrEqual(body.y + body.height + 1);
        }
        for (const [i, a] of shown.tiles.entries())
          for (const b of shown.tiles.slice(i + 1))
            expect(overlap(a.tile, b.tile), `${where}: ${a.name} and ${b.name} apart`).toBe(false);
        expect(shown.controls, `${where}: the controls under the text`).toBe((step.scene.controls ?? []).length);
        expect(shown.strays, `${where}: nothing else shown`).toEqual([]);
        expect(shown.textPx, `${where}: text size`).toBeGreaterThanOrEqual(MIN_TEXT_PX);
        expect(shown.pageWidth, `${where}: no sideways scrolling`).toBeLessThanOrEqual(size.width);
        expect(shown.textOverflow, `${where}: the text column does not scroll sideways`).toBeLessThanOrEqual(0);
      }
      console.log(`lesson ${l + 1} at ${size.width}×${size.height}: ${paged} presses paged a step's text`);
    });
  }
}

// Presses Tab until the control `id` has the focus (as a keyboard user reaches it).
async function tabTo(page, id) {
  for (let k = 0; k < 80; k++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached #${id}`);
}

// Opens a lesson step in lecture mode at 1280×720.
async function openLecture(page, lesson, step) {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(`/?lesson=${lesson}&step=${step}&lecture=1`);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('body')).toHaveClass(/lecture/);
  await expect(page.locator('#lesson')).toHaveAttribute('data-step', `${lesson}.${step}`);
}

test('a focused button, slider or checkbox keeps the keys it acts on; the clicker keys turn pages elsewhere', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const run = page.locator('#run');
  const stays = (step) => expect(page.locator('#lesson')).toHaveAttribute('data-step', step);

  // Space on the focused Pause button pauses the run (and stays on the step).
  await openLecture(page, 1, 2);
  await tabTo(page, 'run');
  const pressed = await run.getAttribute('aria-pressed');
  await page.keyboard.press(' ');
  await expect(run).toHaveAttribute('aria-pressed', pressed === 'true' ? 'false' : 'true');
  await stays('1.2');
  // → on the focused Speed slider changes the speed.
  await tabTo(page, 'speed');
  const speed = Number(await page.locator('#speed').inputValue());
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('#speed')).toHaveValue(String(Math.min(8, speed + 1)));
  await page.keyboard.press('ArrowLeft');
  await expect(page.locator('#speed')).toHaveValue(String(speed));
  await stays('1.2');

  // ← on the focused Temperature slider lowers the temperature.
  await openLecture(page, 1, 4);
  await tabTo(page, 'temperature');
  const before = Number(await page.locator('#temperature').inputValue());
  await page.keyboard.press('ArrowLeft');
  await expect.poll(async () => Number(await page.locator('#temperature').inputValue())).toBeLessThan(before);
  await page.keyboard.press('PageDown');
  await stays('1.4');

  // On the lesson's last step Space on the focused Run button toggles the run.
  expect(COURSE[0].steps.length).toBe(4);
  await tabTo(page, 'run');
  const last = await run.getAttribute('aria-pressed');
  await page.keyboard.press(' ');
  await expect(run).toHaveAttribute('aria-pressed', last === 'true' ? 'false' : 'true');
  await page.keyboard.press(' ');
  await expect(run).toHaveAttribute('aria-pressed', last);
  await stays('1.4');
  // The clicker's PageUp / PageDown, which a button has no use for, still turn the page.
  await page.keyboard.press('PageUp');
  await stays('1.3');
});

test('with no control focused, every key the guide lists drives the lecture', async ({ page }) => {
  await openLecture(page, 1, 1);
  // A click on the step's text: the focus is on no control.
  await page.locator('#lesson-card').click();
  const steps = COURSE[0].steps.length;
  // (A key that moves on pages a text longer than its column first: moveOn.)
  for (const [key, step] of [
    ['PageDown', 2],
    ['ArrowRight', 3],
    [' ', 4],
    ['PageUp', 3],
    ['ArrowLeft', 2],
    ['End', steps],
    ['Home', 1],
  ]) {
    if (['PageDown', 'ArrowRight', ' '].includes(key)) await moveOn(page, key);
    else await page.keyboard.press(key);
    await expect(page.locator('#lesson'), `${key} opens step ${step}`).toHaveAttribute('data-step', `1.${step}`);
  }
  // A click on a tile leaves the focus on no control too.
  await page.locator('#lecture-views .lecture-view figcaption').first().click();
  await moveOn(page, ' ');
  await expect(page.locator('#lesson')).toHaveAttribute('data-step', '1.2');
  await page.keyboard.press('b');
  await expect(page.locator('#lesson-blank')).toBeVisible();
  await page.keyboard.press('B');
  await expect(page.locator('#lesson-blank')).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(page.locator('body')).not.toHaveClass(/lecture/);
});

test('B holds a prediction’s film: the lattice does not step while the screen is blank, and is measured at the stated sweep after', async ({
  page,
}) => {
  await openLecture(page, 1, 3);
  const sweeps = () => page.evaluate(() => window.boltzlabLab.sweeps());
  await page.getByLabel(/mostly aligned/).check();
  // Committed and blanked in one task, before the film's first frame.
  await page.evaluate(() => {
    document.getElementById('lesson-commit').click();
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'b', bubbles: true }));
  });
  await expect(page.locator('#lesson-blank')).toBeVisible();
  const held = await sweeps();
  await page.waitForTimeout(1000); // about 60 frames: 240 sweeps at the step's speed
  expect(await sweeps()).toBe(held);
  await expect(page.locator('#lesson-predict')).toHaveAttribute('data-state', 'committed');
  await page.keyboard.press('b');
  await expect(page.locator('#lesson-blank')).toBeHidden();
  await expect(page.locator('#lesson-predict')).toHaveAttribute('data-state', 'measured', { timeout: 60_000 });
  expect(await sweeps()).toBe(100);
});

// The two ln Z panels: the lattice's (lesson 9 step 4) and the machine's (step 2, its widest).
const LOGZ_PANELS = [
  {
    step: 4,
    view: 'lattice-logz',
    panel: 'lattice-z',
    table: 'lattice-logz-table',
    button: 'Compute ln Z of the lattice',
  },
  { step: 2, view: 'machine-logz', panel: 'bm-logz-box', table: 'bm-logz-table', button: 'Compute ln Z' },
];

for (const { step, view, panel, table, button } of LOGZ_PANELS) {
  test(`at 1024×768 the ln Z table (${view}), filled in, is whole in its tile: every method the step asks about is seen`, async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 1024, height: 768 });
    await page.goto(`/?lesson=9&step=${step}&lecture=1`);
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    const tile = page.locator(`#lecture-views .lecture-view[data-view="${view}"]`);
    await tile.getByRole('button', { name: button, exact: true }).click();
    const rows = tile.locator(`#${table} tbody tr`);
    await expect(rows).toHaveCount(4);
    // Every method's row has its value (AIS last).
    for (const method of ['exact', 'sampled', 'mean-field', 'ais'])
      await expect(tile.locator(`tr[data-method="${method}"] td.value`)).not.toHaveText(/^(–|computing…)$/, {
        timeout: 90_000,
      });
    // The table (and the whole panel) lies inside the tile's body, nothing of it cut off,
    // below or to the right (the filled table grows wider: the panel is fitted again).
    await expect
      .poll(() =>
        tile.evaluate(
          (figure, ids) => {
            const body = figure.querySelector('.lecture-view-body').getBoundingClientRect();
            const outside = (element) => {
              const r = element.getBoundingClientRect();
              return (
                r.top < body.top - 1 || r.left < body.left - 1 || r.bottom > body.bottom + 1 || r.right > body.right + 1
              );
            };
            return [figure.querySelector(`#${ids.panel}`), ...figure.querySelectorAll(`#${ids.table} tr`)]
              .filter(outside)
              .map((element) => element.dataset.method ?? element.id ?? element.tagName);
          },
          { panel, table },
        ),
      )
      .toEqual([]);
    // The room goes to the table: the panel's paragraph of explanation (the lesson's text says
    // it) is left out, and each figure keeps to one line ("lower bound", "± 0.0465").
    const shown = await tile.evaluate((figure, id) => {
      const box = figure.querySelector(`#${id}`);
      const scale = Number(box.style.transform.match(/scale\(([\d.]+)\)/)?.[1] ?? 1);
      const lines = (cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      };
      return {
        explanation: [...box.querySelectorAll('.lecture-omit')].filter((p) => p.getClientRects().length > 0).length,
        wrapped: [...box.querySelectorAll('td')].filter((cell) => lines(cell) > 1).map((cell) => cell.textContent),
        tablePx: parseFloat(getComputedStyle(box.querySelector('td')).fontSize) * scale,
      };
    }, panel);
    expect(shown.explanation, 'the explanation shown in the tile').toBe(0);
    expect(shown.wrapped, 'figures on two lines').toEqual([]);
    console.log(`the ${view} table at 1024×768, filled in: its figures ${shown.tablePx.toFixed(1)} px on screen`);
  });
}

test('plot text grows with its tile on a projector: the trace’s labels at 1920×1080 are at least 20 px, 12 px on the page', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto('/?lesson=1&step=3&lecture=1');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  // The size the trace last drew its tick labels at (drawAxes writes it on the canvas).
  const textPx = () => page.locator('#trace').evaluate((canvas) => Number(canvas.dataset.textPx));
  await expect.poll(textPx).toBeGreaterThanOrEqual(20);
  // The tile is about 1060 px high: the labels are at least 2 % of it.
  const tileHeight = await page
    .locator('#lecture-views .lecture-view[data-view="trace"]')
    .evaluate((tile) => tile.getBoundingClientRect().height);
  expect(await textPx()).toBeGreaterThanOrEqual(0.02 * tileHeight);
  // Back on the page (Esc leaves lecture mode), the trace draws its labels at 12 px again.
  await page.locator('#lesson-card').click();
  await page.keyboard.press('Escape');
  await expect(page.locator('body')).not.toHaveClass(/lecture/);
  await expect.poll(textPx).toBe(12);
});

test('the learning curve’s labels grow with its tile too: at least 20 px at 1920×1080, 12 px on the page', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto('/?lesson=8&step=5&lecture=1');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  const textPx = () => page.locator('#bm-curve').evaluate((canvas) => Number(canvas.dataset.textPx));
  await expect.poll(textPx).toBeGreaterThanOrEqual(20);
  await page.locator('#lesson-card').click();
  await page.keyboard.press('Escape');
  await expect(page.locator('body')).not.toHaveClass(/lecture/);
  await expect.poll(textPx).toBe(12);
});
