// Bad input in machine mode, table-driven: every control gets blank, non-numbers,
// infinities, overflow, negatives, zero, huge and fractional values and garbage; every
// select is forced to an unknown value; the import takes broken network files. Each must
// leave a visible message next to its control naming the field (and the range, for a
// value out of range) and leave the machine exactly as it was (its exported network JSON
// and its settings identical).
import { test, expect, choose } from './fixtures.js';
import { openMachine, machine } from './machine_helpers.js';

// What a person can type into any box that is not a number.
const GARBAGE = ['', 'NaN', 'Infinity', '-Infinity', '1e309', '12abc', '0x10', ' '];

// Number boxes: the error element beside each, the field its message names, how the
// value is committed (change event or a button) and the bad values beyond GARBAGE.
const NUMBER_CONTROLS = [
  { id: 'bm-seed', error: 'bm-dataset-error', field: /seed/i, bad: ['-1', '1e300', '2.5'] },
  { id: 'bm-rate', error: 'bm-rule-error', field: /rate|step/i, bad: ['-1', '0', '1e300'] },
  { id: 'bm-decay', error: 'bm-rule-error', field: /decay/i, bad: ['-1', '1', '1e300'] },
  {
    id: 'bm-collect',
    error: 'bm-schedule-error',
    field: /collect sweeps/i,
    button: 'Apply schedule',
    bad: ['-1', '0', '1e300', '2.5'],
  },
  {
    id: 'bm-explore-pattern',
    error: 'bm-explore-error',
    field: /pattern to clamp/i,
    button: 'Clamp and settle',
    bad: ['-1', '0', '5', '1e300', '2.5'],
  },
  {
    id: 'bm-hidden',
    error: 'bm-editor-error',
    field: /hidden units/i,
    button: 'Learn my patterns',
    bad: ['-1', '65', '1e300', '2.5'],
  },
  {
    id: 'bm-gallery-count',
    error: 'bm-gallery-error',
    field: /samples/i,
    button: 'Generate samples',
    bad: ['-1', '0', '1e300', '2.5'],
  },
  {
    id: 'bm-logz-temperature',
    error: 'bm-logz-error',
    field: /temperature/i,
    button: 'Compute ln Z',
    bad: ['-1', '0'],
  },
  { id: 'bm-draw-length', error: 'bm-draw-error', field: /pattern length/i, bad: ['-1', '0', '257', '1e300', '2.5'] },
  { id: 'bm-replicas', error: 'bm-statistics-error', field: /replicas/i, bad: ['-1', '0', '33', '1e300', '2.5'] },
];

// Text boxes and their bad values.
const TEXT_CONTROLS = [
  {
    id: 'bm-schedule',
    error: 'bm-schedule-error',
    field: /schedule/i,
    button: 'Apply schedule',
    bad: [
      ...GARBAGE,
      'NaN:2',
      'Infinity:2',
      '-Infinity:2',
      '1e309:2',
      '-1:2',
      '0:2',
      '1e300:2',
      '10:-1',
      '10:2.5',
      '10:1e300',
      '10:NaN',
      '10:2, 5',
      '0x10:2',
    ],
  },
  {
    id: 'bm-patterns-text',
    error: 'bm-editor-error',
    field: /patterns/i,
    button: 'Learn my patterns',
    bad: [...GARBAGE, '-1', '0.5', '2', '1010\n10', '10\n\n1', '1 0 x 1'],
  },
];

// Selects and an unknown value for each.
const SELECTS = [
  { id: 'bm-dataset', error: 'bm-dataset-error', field: /problem|dataset/i },
  { id: 'bm-method', error: 'bm-dataset-error', field: /method/i },
  { id: 'bm-rule', error: 'bm-rule-error', field: /rule/i },
];

// Everything about the machine a bad input must not change: the live run in the worker and
// the page's mirror of its options.
function snapshot(page) {
  return page.evaluate(async () => {
    const lab = window.boltzlabMachine;
    const mirror = window.boltzlabApp.machine.lab;
    return {
      network: await lab.export_network(),
      dataset: await lab.dataset(),
      method: await lab.method(),
      seed: await lab.seed(),
      rule: await lab.rule(),
      size: await lab.rule_size(),
      decay: await lab.weight_decay(),
      schedule: await lab.schedule(),
      collect: await lab.collect_sweeps(),
      cycles: await lab.cycles(),
      patterns: Array.from(await lab.patterns_flat()).join(''),
      exploring: await lab.exploring(),
      mirror: [
        mirror.dataset(),
        mirror.rule(),
        mirror.rule_size(),
        mirror.weight_decay(),
        mirror.schedule(),
        mirror.collect_sweeps(),
        mirror.statistics(),
        mirror.statistics_particles(),
        mirror.statistics_sweeps(),
        mirror.statistics_replicas(),
        mirror.export_network(),
      ],
      drawn: document.querySelectorAll('#bm-draw-grid .pixel').length,
    };
  });
}

// Hides an error element, so that the next message is seen to appear.
const clearShown = (page, id) =>
  page.evaluate((e) => {
    const box = document.getElementById(e);
    box.hidden = true;
    box.textContent = '';
  }, id);

// Puts `value` into the control as typing would (a number box keeps only what parses
// as a number: garbage leaves it blank) and fires input and change.
const put = (page, id, value) =>
  page.evaluate(
    ([i, v]) => {
      const box = document.getElementById(i);
      box.value = v;
      box.dispatchEvent(new Event('input', { bubbles: true }));
      box.dispatchEvent(new Event('change', { bubbles: true }));
    },
    [id, value],
  );

// A 4-2-4 machine after a few learning cycles (non-zero weights to compare).
async function trainedMachine(page) {
  await openMachine(page);
  await choose(page, 'Dataset', '4-2-4');
  for (let k = 0; k < 3; k++) await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  expect(await machine(page, 'cycles')).toBe(3);
}

async function expectRefused(page, control, value, before) {
  const message = page.locator(`#${control.error}`);
  await expect(message, `${control.id} = ${JSON.stringify(value)}`).toBeVisible();
  await expect(message, `${control.id} = ${JSON.stringify(value)}`).toHaveText(control.field);
  const text = await message.textContent();
  if (/between/.test(text)) expect(text).toMatch(/between -?[\d.e+]+ and [\d.e+∞]+/);
  expect(await snapshot(page), `${control.id} = ${JSON.stringify(value)} changed the machine`).toEqual(before);
}

const counts = {};
test.afterAll(() => {
  console.log(`bad inputs tried, per kind: ${JSON.stringify(counts)}`);
});

test('every number box refuses bad values next to itself and changes nothing', async ({ page }) => {
  test.setTimeout(240_000);
  await trainedMachine(page);
  const before = await snapshot(page);
  for (const control of NUMBER_CONTROLS) {
    const good = await page.locator(`#${control.id}`).inputValue();
    for (const value of [...GARBAGE, ...control.bad]) {
      await clearShown(page, control.error);
      await put(page, control.id, value);
      if (control.button) await page.getByRole('button', { name: control.button, exact: true }).click();
      await expectRefused(page, control, value, before);
      counts['number boxes'] = (counts['number boxes'] ?? 0) + 1;
    }
    await page.evaluate(([i, v]) => (document.getElementById(i).value = v), [control.id, good]);
  }
});

test('the decimal boxes are text boxes, and every number box takes whole numbers only', async ({ page }) => {
  // Chromium's number box reads a typed "0,05" as 5 and "1,5" as 15, silently; so a box that
  // takes decimals is a text box (inputmode decimal), read strictly, and a comma is refused.
  await openMachine(page);
  const boxes = await page.evaluate(() =>
    [...document.querySelectorAll('input[type=number], input[inputmode=decimal]')].map((box) => ({
      id: box.id,
      type: box.getAttribute('type'),
      step: box.getAttribute('step'),
    })),
  );
  expect(boxes.filter((box) => box.type === 'number').length).toBeGreaterThan(20);
  for (const box of boxes)
    if (box.type === 'number') expect(box.step, `#${box.id} takes decimals in a number box`).toBe('1');
  expect(boxes.filter((box) => box.type === 'text').map((box) => box.id)).toEqual(
    expect.arrayContaining(['bm-rate', 'bm-decay', 'bm-logz-temperature', 'rbm-rate', 'rbm-momentum', 'rbm-decay']),
  );
});

test("a decimal comma in a machine's decimal box is refused and named, never read as a bigger number", async ({
  page,
}) => {
  await trainedMachine(page);
  const before = await snapshot(page);
  for (const [id, value, error, button] of [
    ['bm-rate', '0,05', 'bm-rule-error', null],
    ['bm-decay', '0,001', 'bm-rule-error', null],
    ['bm-logz-temperature', '1,5', 'bm-logz-error', 'Compute ln Z'],
  ]) {
    const good = await page.locator(`#${id}`).inputValue();
    await clearShown(page, error);
    await page.locator(`#${id}`).fill(value);
    if (button) await page.getByRole('button', { name: button, exact: true }).click();
    else await page.locator(`#${id}`).dispatchEvent('change');
    await expect(page.locator(`#${error}`), id).toContainText(
      `got ${value}: write decimals with a point, ${value.replace(',', '.')}`,
    );
    expect(await snapshot(page), id).toEqual(before);
    await page.locator(`#${id}`).fill(good);
    counts['decimal commas'] = (counts['decimal commas'] ?? 0) + 1;
  }
  await page.locator('#bm-kind-restricted').check();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
  const held = await page.evaluate(() => window.boltzlabApp.machine.rbm.lab.training_json());
  for (const [id, value] of [
    ['rbm-rate', '0,05'],
    ['rbm-momentum', '0,9'],
    ['rbm-decay', '0,0002'],
  ]) {
    const good = await page.locator(`#${id}`).inputValue();
    await clearShown(page, 'rbm-training-error');
    await page.locator(`#${id}`).fill(value);
    await page.getByRole('button', { name: 'Run learning', exact: true }).click();
    await expect(page.locator('#rbm-training-error'), id).toContainText(
      `got ${value}: write decimals with a point, ${value.replace(',', '.')}`,
    );
    expect(await page.evaluate(() => window.boltzlabApp.machine.rbm.lab.training_json()), id).toBe(held);
    await page.locator(`#${id}`).fill(good);
    counts['decimal commas'] = (counts['decimal commas'] ?? 0) + 1;
  }
});

test('every text box refuses bad text next to itself and changes nothing', async ({ page }) => {
  test.setTimeout(240_000);
  await trainedMachine(page);
  const before = await snapshot(page);
  for (const control of TEXT_CONTROLS) {
    for (const value of control.bad) {
      await clearShown(page, control.error);
      await page.locator(`#${control.id}`).fill(value);
      await page.getByRole('button', { name: control.button, exact: true }).click();
      await expectRefused(page, control, value, before);
      counts['text boxes'] = (counts['text boxes'] ?? 0) + 1;
    }
  }
});

test('every select forced to an unknown value is refused and changes nothing', async ({ page }) => {
  await trainedMachine(page);
  const before = await snapshot(page);
  for (const control of SELECTS) {
    const good = await page.locator(`#${control.id}`).inputValue();
    for (const value of ['bogus', '', '4-2-4 ', 'constructor']) {
      await clearShown(page, control.error);
      await page.evaluate(
        ([i, v]) => {
          const select = document.getElementById(i);
          const option = document.createElement('option');
          option.value = v;
          option.textContent = 'forced';
          option.dataset.forced = 'true';
          select.append(option);
          select.value = v;
          select.dispatchEvent(new Event('change', { bubbles: true }));
          option.remove();
        },
        [control.id, value],
      );
      await expectRefused(page, control, value, before);
      counts.selects = (counts.selects ?? 0) + 1;
      await page.evaluate(([i, v]) => (document.getElementById(i).value = v), [control.id, good]);
    }
  }
});

test('broken network files are refused with a message and change nothing', async ({ page }) => {
  await trainedMachine(page);
  const before = await snapshot(page);
  const file = JSON.parse(before.network);
  const n = file.units;
  const edited = (change) => {
    const copy = JSON.parse(before.network);
    change(copy);
    return JSON.stringify(copy);
  };
  const hidden = n - 1; // a hidden unit, connected to every visible one
  const cases = {
    'not JSON': 'hello, network',
    empty: '',
    'only whitespace': '   \n',
    truncated: before.network.slice(0, Math.floor(before.network.length / 2)),
    'JSON but not an object': '[1, 2, 3]',
    'asymmetric weights': edited((f) => {
      f.weights[0][hidden] = 0.5;
      f.weights[hidden][0] = -0.5;
    }),
    'NaN weight': before.network.replace(/"weights":\[\[([^,\]]+)/, '"weights":[[NaN'),
    '1e999 weight': edited((f) => (f.weights[0][hidden] = f.weights[hidden][0] = 12345)).replaceAll('12345', '1e999'),
    'huge weight': edited((f) => (f.weights[0][hidden] = f.weights[hidden][0] = 1e300)),
    'null bias': edited((f) => (f.biases[0] = null)),
    'nonzero self-weight': edited((f) => (f.weights[1][1] = 1)),
    'too few weight rows': edited((f) => f.weights.pop()),
    'a short weight row': edited((f) => f.weights[2].pop()),
    'too few biases': edited((f) => f.biases.pop()),
    'another machine shape': edited((f) => {
      f.units = 3;
      f.visible = 2;
      f.weights = [
        [0, 1, 0],
        [1, 0, 0],
        [0, 0, 0],
      ];
      f.biases = [0, 0, 0];
      delete f.mask;
    }),
    'visible count differs': edited((f) => (f.visible = n - 3)),
    'more than 2048 units': edited((f) => (f.units = 2049)),
    'units not a number': edited((f) => (f.units = 'ten')),
    'a mask that disagrees': edited((f) => {
      f.mask[0][hidden] = false;
      f.mask[hidden][0] = false;
      f.weights[0][hidden] = f.weights[hidden][0] = 0;
    }),
    'a mask of the wrong shape': edited((f) => f.mask.pop()),
    'unknown spin kind': edited((f) => (f.spin = 'potts')),
    'other kind of units': edited((f) => (f.spin = f.spin === 'binary' ? 'ising' : 'binary')),
    'unknown key': edited((f) => (f.temperature = 1)),
    'oversized file': before.network + ' '.repeat(2_000_000),
  };
  for (const [name, text] of Object.entries(cases)) {
    await clearShown(page, 'bm-import-error');
    await page.getByLabel('Import network (JSON)').setInputFiles({
      name: `${name}.json`,
      mimeType: 'application/json',
      buffer: Buffer.from(text),
    });
    await expect(page.locator('#bm-import-error'), name).toBeVisible();
    await expect(page.locator('#bm-import-error'), name).toHaveText(/network|weights|biases|units|mask|spin|visible/i);
    await expect(page.locator('#bm-import-done'), name).toBeHidden();
    expect(await snapshot(page), `${name} changed the machine`).toEqual(before);
    counts['network files'] = (counts['network files'] ?? 0) + 1;
  }
  // The machine's own file still loads.
  await page.getByLabel('Import network (JSON)').setInputFiles({
    name: 'good.json',
    mimeType: 'application/json',
    buffer: Buffer.from(before.network),
  });
  await expect(page.locator('#bm-import-done')).toBeVisible();
  await expect(page.locator('#bm-import-error')).toBeHidden();
  expect((await snapshot(page)).network).toBe(before.network);
});

// The live run's cycle count and whether it learns, after a moment for a press to act.
async function settledCycles(page) {
  await page.waitForTimeout(300);
  return machine(page, 'cycles');
}

test('a value refused as a learning button is pressed stops that press, and the box shows the value in use', async ({
  page,
}) => {
  await trainedMachine(page);
  await choose(page, 'Statistics', 'tempering');
  const run = page.getByRole('button', { name: 'Run learning', exact: true });
  // Typed, then the button pressed at once: the box loses its focus to the button, and its
  // value is refused on the way.
  const cases = [
    ['bm-rate', '-1', 'bm-rule-error', 'Step one learning cycle', 'rule_size'],
    ['bm-decay', '-1', 'bm-rule-error', 'Run learning', 'weight_decay'],
    ['bm-particles', '0', 'bm-statistics-error', 'Step one learning sweep', 'statistics_particles'],
    ['bm-gibbs', '0', 'bm-statistics-error', 'Step one learning cycle', 'statistics_sweeps'],
    ['bm-replicas', '0', 'bm-statistics-error', 'Run learning', 'statistics_replicas'],
    ['bm-seed', '-1', 'bm-dataset-error', 'Step one learning cycle', 'seed'],
    ['bm-rate', '', 'bm-rule-error', 'Run learning', 'rule_size'],
  ];
  for (const [id, value, error, button, held] of cases) {
    const at = await machine(page, 'cycles');
    await clearShown(page, error);
    await page.locator(`#${id}`).fill(value);
    await page.getByRole('button', { name: button, exact: true }).click();
    await expect(page.locator(`#${error}`), `${id} = '${value}'`).toBeVisible();
    expect(await settledCycles(page), `${button} after ${id} = '${value}'`).toBe(at);
    await expect(run, `${button} after ${id} = '${value}'`).toBeVisible();
    // The box went back to the value the run holds, as the lattice's boxes do.
    const inUse = await page.evaluate((m) => window.boltzlabApp.machine.lab[m](), held);
    await expect(page.locator(`#${id}`), `${id} = '${value}'`).toHaveValue(String(inUse));
  }
  // The next press acts at the values shown.
  const at = await machine(page, 'cycles');
  await page.getByRole('button', { name: 'Step one learning cycle', exact: true }).click();
  await expect.poll(() => machine(page, 'cycles')).toBe(at + 1);
  await run.click();
  await expect(page.getByRole('button', { name: 'Pause learning', exact: true })).toBeVisible();
});

test('a bad value in a box waiting for its own button refuses Run and the steps beside that box', async ({ page }) => {
  await trainedMachine(page);
  const before = await snapshot(page);
  const cases = [
    ['bm-collect', '-1', 'bm-schedule-error', /collect sweeps/i],
    ['bm-collect', '', 'bm-schedule-error', /collect sweeps/i],
    ['bm-schedule', '10:-1', 'bm-schedule-error', /schedule|sweeps/i],
    ['bm-hidden', '-1', 'bm-editor-error', /hidden units/i],
    ['bm-hidden', '65', 'bm-editor-error', /hidden units must be between 0 and 64/i],
  ];
  for (const [id, value, error, says] of cases) {
    const good = await page.locator(`#${id}`).inputValue();
    await page.locator(`#${id}`).fill(value);
    for (const button of ['Step one learning cycle', 'Step one learning sweep', 'Run learning']) {
      await clearShown(page, error);
      await page.getByRole('button', { name: button, exact: true }).click();
      await expect(page.locator(`#${error}`), `${button} with ${id} = '${value}'`).toHaveText(says);
      expect(await settledCycles(page), `${button} with ${id} = '${value}'`).toBe(before.cycles);
      await expect(page.getByRole('button', { name: 'Run learning', exact: true })).toBeVisible();
      // The text stays, to be corrected; the run is as it was.
      await expect(page.locator(`#${id}`)).toHaveValue(value);
    }
    expect(await snapshot(page), `${id} = '${value}'`).toEqual(before);
    await page.locator(`#${id}`).fill(good);
  }
  // Good values there: learning steps and runs.
  await page.getByRole('button', { name: 'Step one learning cycle', exact: true }).click();
  await expect.poll(() => machine(page, 'cycles')).toBe(before.cycles + 1);
  await page.getByRole('button', { name: 'Run learning', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Pause learning', exact: true })).toBeVisible();
});

// The restricted machine on the 4×4 bars, made and shown.
async function openRestricted(page) {
  await openMachine(page);
  await page.locator('#bm-kind-restricted').check();
  await expect(page.locator('#rbm')).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
}

const rbmRead = (page, name) => page.evaluate((n) => window.boltzlabApp.machine.rbm.read(n), name);

test('a bad option waiting for Apply options refuses Run learning (restricted machine)', async ({ page }) => {
  await openRestricted(page);
  const run = page.getByRole('button', { name: 'Run learning', exact: true });
  const updates = await rbmRead(page, 'updates');
  const held = await page.evaluate(() => window.boltzlabApp.machine.rbm.lab.training_json());
  for (const [id, value] of [
    ['rbm-rate', '-1'],
    ['rbm-rate', ''],
    ['rbm-steps', '0'],
    ['rbm-batch', '0'],
  ]) {
    const good = await page.locator(`#${id}`).inputValue();
    await clearShown(page, 'rbm-training-error');
    await page.locator(`#${id}`).fill(value);
    await run.click();
    await expect(page.locator('#rbm-training-error'), `${id} = '${value}'`).toBeVisible();
    await page.waitForTimeout(300);
    await expect(run, `${id} = '${value}'`).toBeVisible();
    expect(await rbmRead(page, 'updates'), `${id} = '${value}'`).toBe(updates);
    expect(await page.evaluate(() => window.boltzlabApp.machine.rbm.lab.training_json())).toBe(held);
    await expect(page.locator(`#${id}`)).toHaveValue(value);
    await page.locator(`#${id}`).fill(good);
  }
  // Good values waiting there are checked without being set: the page's mirror of the run
  // (its batch order and particles too) is the same after the check, so it is still the
  // worker's run. A new batch size set and set back would have reshuffled the batches.
  // (Its SHA-256, so that a failure prints two short digests rather than two sessions.)
  const mirrorSession = () =>
    page.evaluate(async () => {
      const text = new TextEncoder().encode(window.boltzlabApp.machine.rbm.mirror.session());
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', text));
      return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
    });
  const session = await mirrorSession();
  for (const [id, value] of [
    ['rbm-batch', '7'],
    ['rbm-particles', '37'],
  ]) {
    const good = await page.locator(`#${id}`).inputValue();
    await page.locator(`#${id}`).fill(value);
    expect(await page.evaluate(() => window.boltzlabApp.machine.rbm.unappliedRefused()), id).toBe(false);
    expect(await mirrorSession(), `${id} = ${value} waiting`).toBe(session);
    await page.locator(`#${id}`).fill(good);
  }
  await run.click();
  await expect(page.getByRole('button', { name: 'Pause learning', exact: true })).toBeVisible();
  expect(await page.evaluate(() => window.boltzlabApp.machine.rbm.lab.training_json())).toBe(held);
});

test('a changed option waiting for Apply options is named beside the button until it is applied', async ({ page }) => {
  await openRestricted(page);
  const note = page.locator('#rbm-waiting');
  const apply = page.locator('#rbm-apply');
  const rate = () => page.evaluate(() => JSON.parse(window.boltzlabApp.machine.rbm.lab.training_json()).rate);
  await expect(note).toBeHidden();
  await expect(apply).not.toHaveClass(/waiting/);
  const held = await rate();
  expect(held).toBe(0.05); // the page's default
  // A good value, a value written differently and the statistics menu.
  await page.locator('#rbm-rate').fill('0.1');
  await expect(note).toBeVisible();
  await expect(note).toContainText(`Rate ε 0.1 (the run: ${held})`);
  await expect(apply).toHaveClass(/waiting/);
  await page.locator('#rbm-statistics').selectOption('cd');
  await expect(note).toContainText('Free-phase statistics: CD-k (from the data) (the run: persistent particles (PCD))');
  await page.locator('#rbm-statistics').selectOption('persistent');
  await page.locator('#rbm-rate').fill('5e-2'); // the same number, written differently
  await expect(note).toBeHidden();
  await expect(apply).not.toHaveClass(/waiting/);
  // Applied, the run learns with it and nothing waits.
  await page.locator('#rbm-rate').fill('0.1');
  await expect(note).toBeVisible();
  await apply.click();
  await expect.poll(rate).toBe(0.1);
  await expect(note).toBeHidden();
  await expect(apply).not.toHaveClass(/waiting/);
});

test('the completion refuses bad steps with the engine message and starts nothing', async ({ page }) => {
  await openRestricted(page);
  const image = () => page.evaluate(() => window.boltzlabApp.machine.rbm.lab.completion_image());
  const start = page.getByRole('button', { name: 'Complete', exact: true });
  for (const [value, says] of [
    ['', /^Steps must be a finite number between 1 and 100000, got no number$/],
    ['0', /^Steps must be between 1 and 100000, got 0$/],
    ['100001', /^Steps must be between 1 and 100000, got 100001$/],
    ['2.5', /^Steps must be a whole number between 1 and 100000, got 2.5$/],
  ]) {
    await clearShown(page, 'rbm-complete-error');
    await page.locator('#rbm-complete-steps').fill(value);
    await start.click();
    await expect(page.locator('#rbm-complete-error'), `steps '${value}'`).toHaveText(says);
    expect(await image(), `steps '${value}'`).toBe(-1);
  }
  await page.locator('#rbm-complete-steps').fill('100000');
  await start.click();
  await expect(page.locator('#rbm-complete-error')).toBeHidden();
  expect(await image()).toBe(0);
});

test("the boxes' min and max are the engine's bounds, as its refusal states them", async ({ page }) => {
  await trainedMachine(page);
  // The range a refusal states, "between A and B".
  const stated = async (error) => {
    const text = await page.locator(`#${error}`).textContent();
    const m = /between (-?[\d.e+]+) and ([\d.e+]+)/.exec(text ?? '');
    expect(m, text ?? '').not.toBeNull();
    return [m[1], m[2]];
  };
  const bounds = (id) => page.locator(`#${id}`).evaluate((box) => [box.getAttribute('min'), box.getAttribute('max')]);
  // Each box, a value beyond its max, and how it is committed.
  const check = async (id, error, commit) => {
    const good = await page.locator(`#${id}`).inputValue();
    const [, max] = await bounds(id);
    await clearShown(page, error);
    await page.locator(`#${id}`).fill(String(Number(max) + 1));
    await commit();
    await expect(page.locator(`#${error}`), id).toBeVisible();
    expect(await bounds(id), id).toEqual(await stated(error));
    await page.locator(`#${id}`).fill(good);
  };
  const press = (name) => () => page.getByRole('button', { name, exact: true }).click();
  await check('bm-collect', 'bm-schedule-error', press('Apply schedule'));
  // The decimal boxes are text boxes (a number box reads "1,5" as 15), with no min or max: the
  // refusal states the range. The decay: "at least 0 and below 1"; 0.999 is taken.
  for (const [value, refused] of [
    ['1', true],
    ['0.999', false],
    ['0', false],
  ]) {
    await clearShown(page, 'bm-rule-error');
    await page.locator('#bm-decay').fill(value);
    await page.locator('#bm-decay').dispatchEvent('change');
    await expect(page.locator('#bm-rule-error'), `decay ${value}`).toBeVisible({ visible: refused });
    if (refused) await expect(page.locator('#bm-rule-error')).toHaveText(/at least 0 and below 1/);
  }
  // The rate: the rule's largest is taken, beyond it refused.
  for (const [rule, top] of [
    ['gradient', 100],
    ['sign', 1000],
  ]) {
    await choose(page, 'Learning rule', rule);
    for (const [value, refused] of [
      [top, false],
      [top * 1.01, true],
    ]) {
      await clearShown(page, 'bm-rule-error');
      await page.locator('#bm-rate').fill(String(value));
      await page.locator('#bm-rate').dispatchEvent('change');
      await expect(page.locator('#bm-rule-error'), `${rule} ${value}`).toBeVisible({ visible: refused });
    }
  }
  await page.locator('#bm-kind-restricted').check();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabApp.machine.rbm.shown))).toBe(true);
  await check('rbm-complete-steps', 'rbm-complete-error', press('Complete'));
  await check('rbm-gallery-steps', 'rbm-gallery-error', press('Generate'));
  // The batch: at most the set's training images (1500 digits; 30 bars and stripes).
  await check('rbm-batch', 'rbm-training-error', press('Apply options'));
  expect((await bounds('rbm-batch'))[1]).toBe('1500');
  await choose(page, 'Image set', 'bars-4x4');
  await page.getByRole('button', { name: 'New machine', exact: true }).click();
  await expect.poll(() => bounds('rbm-batch')).toEqual(['1', '30']);
  await check('rbm-batch', 'rbm-training-error', press('Apply options'));
});
