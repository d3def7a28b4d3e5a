// Bad input at every entry of the lattice page: each control, share links, ?lesson= and
// imported state files. Every bad value must give a visible message next to its control
// naming the field and the allowed range, leave the engine's state exactly as it was, leave
// the control showing a sane value, and never allocate for a refused size. The tests are
// tables; each prints how many bad inputs of each kind it tried.
import { test, expect, openApp, lab, pause, choose } from './fixtures.js';

// Values that are bad for some or all numeric controls, as a person might type them.
const NUMERIC = [
  '',
  'NaN',
  'nan',
  'Infinity',
  '-Infinity',
  'inf',
  '1e309',
  '-1e309',
  '-1',
  '0',
  '-0',
  '1e12',
  '99999999999',
  '2.5',
  '1e-3',
  '0x10',
  '12abc',
  ' ',
  '１２',
  '1,5',
  '--1',
  '1e',
  '.',
  '+',
];

// A text read the way the engine's link parser reads a number (Rust's f64 parser): a
// decimal, or inf/infinity/nan in any case; anything else is not a number (NaN here).
function asEngineReads(text) {
  const t = String(text);
  if (/^[-+]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[-+]?\d*\.?\d*(e[-+]?\d+)?$/i.test(t) && /\d/.test(t.replace(/e.*$/i, ''))) return Number(t);
  return NaN;
}

const whole = (lo, hi) => (x) => Number.isInteger(x) && x >= lo && x <= hi;
const real = (lo, hi) => (x) => Number.isFinite(x) && x >= lo && x <= hi;

// The number boxes: id, error box, the field's name and range as the message gives them,
// which values the engine accepts (those are skipped: they are not bad), and boundary
// values just outside the documented range.
const NUMBER_BOXES = [
  {
    id: 'temperature-value',
    error: 'temperature-error',
    name: /temperature/i,
    range: /between 0 and 100/,
    accepts: real(0, 100),
    outside: ['100.001', '-0.001', '101'],
    read: () => window.boltzlabLab.temperature(),
  },
  {
    id: 'field-value',
    error: 'field-error',
    name: /field h/i,
    range: /between -10 and 10/,
    accepts: real(-10, 10),
    outside: ['10.01', '-10.001'],
    read: () => window.boltzlabLab.field(),
  },
  {
    id: 'seed',
    error: 'seed-error',
    name: /seed/i,
    range: /between 0 and 9007199254740992/,
    accepts: whole(0, 2 ** 53),
    outside: ['9007199254740994', '-1'],
    read: () => window.boltzlabLab.seed(),
  },
];

// The temperature-sweep form (read when Start is pressed); the defaults are T high 3.5,
// T low 1.5, 11 points, 200 burn-in and 500 measurement sweeps.
const SCAN_FIELDS = [
  {
    id: 'scan-t-high',
    name: /T high/,
    range: /between 0\.01 and 100|above T low/,
    accepts: (x) => real(0.01, 100)(x) && x > 1.5,
    outside: ['0.009', '100.1', '1.5'],
  },
  {
    id: 'scan-t-low',
    name: /T low/,
    range: /between 0\.01 and 100|above T low/,
    accepts: (x) => real(0.01, 100)(x) && x < 3.5,
    outside: ['0.009', '100.1', '3.5'],
  },
  { id: 'scan-points', name: /points/, range: /between 2 and 200/, accepts: whole(2, 200), outside: ['1', '201'] },
  {
    id: 'scan-burn-in',
    name: /burn-in sweeps/,
    range: /between 0 and 1000000/,
    accepts: whole(0, 1e6),
    outside: ['1000001'],
  },
  {
    id: 'scan-measure',
    name: /measurement sweeps/,
    range: /between 2 and 1000000/,
    accepts: whole(2, 1e6),
    outside: ['1', '1000001'],
  },
];

// Enum values that no select accepts, and per select its name and its allowed list.
const BAD_CHOICES = [
  '',
  'NaN',
  'null',
  'undefined',
  'x',
  ' heat-bath',
  'periodic ',
  'Ferromagnet',
  'ＦＥＲＲＯ',
  '<img src=x onerror=alert(1)>',
  'x'.repeat(10_000),
];
const SELECTS = [
  {
    id: 'model',
    name: /model/i,
    range: /one of ferromagnet, antiferromagnet, spin-glass-pm, spin-glass-gaussian/,
    extra: ['wolff', 'spin-glass'],
  },
  { id: 'rule', name: /dynamics/i, range: /one of heat-bath, metropolis, wolff/, extra: ['glauber', 'Wolff'] },
  { id: 'order', name: /order/i, range: /one of sequential, random, checkerboard/, extra: ['spiral'] },
  { id: 'boundary', name: /boundary/i, range: /one of periodic, open, fixed-up, fixed-down/, extra: ['twisted'] },
];

// The engine's state: everything it would export, and its parameters.
const fingerprint = (page) =>
  page.evaluate(async () => ({
    state: await window.boltzlabLab.export_state(),
    fragment: await window.boltzlabLab.fragment(),
  }));
const memoryBytes = (page) => page.evaluate(() => window.boltzlabEngine.wasm_memory().buffer.byteLength);

// Empties an error box, so that the next message is known to be new.
const clearBox = (page, id) =>
  page.evaluate((e) => {
    const box = document.getElementById(e);
    box.hidden = true;
    box.textContent = '';
  }, id);

// What the browser would hold in control `id` after `value` is typed (number boxes
// sanitise: "abc" becomes ""), without touching the control.
const sanitised = (page, id, value) =>
  page.evaluate(
    ([i, v]) => {
      const probe = document.getElementById(i).cloneNode();
      probe.value = v;
      return probe.value;
    },
    [id, value],
  );

// Types `value` into control `id` and commits it: with the keyboard where the browser keeps
// the text as typed, else (a number box turns "abc" into "", and typing "0x10" leaves
// "010") by setting the value and firing input and change as the browser would.
async function put(page, id, value) {
  const box = page.locator(`#${id}`);
  const type = await box.getAttribute('type');
  if (type !== 'range' && (await sanitised(page, id, value)) === value) {
    try {
      await box.fill(value, { timeout: 2000 });
      if ((await box.inputValue()) === value) {
        await box.press('Enter'); // commits: the browser fires change
        return 'typed';
      }
    } catch {
      // Not typeable: set below.
    }
  }
  await box.evaluate((el, v) => {
    el.value = v;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, value);
  return 'set';
}

async function expectMessage(page, errorId, name, range, what = '') {
  const box = page.locator(`#${errorId}`);
  await expect(box, `#${errorId} after ${what}`).toBeVisible({ timeout: 5000 });
  const text = await box.textContent();
  checkMessage(text, errorId, name, range);
  return text;
}

// A message's text names the value (`name`) and what is allowed (`range`), briefly.
function checkMessage(text, errorId, name, range) {
  // The page writes the engine's message as a sentence (capital first letter).
  const loose = (re) => new RegExp(re.source, 'i');
  expect(text, `#${errorId}`).toMatch(loose(name));
  expect(text, `#${errorId}`).toMatch(loose(range));
  expect(text.length, `#${errorId}: a short message`).toBeLessThan(400);
}

// Whether the lattice keeps running: its tick count goes up.
async function expectRunning(page) {
  const before = await lab(page, 'ticks');
  await expect.poll(() => lab(page, 'ticks')).toBeGreaterThan(before);
  await expect(page.locator('#alert')).toBeHidden();
}

const counts = {};
const count = (kind, n = 1) => {
  counts[kind] = (counts[kind] ?? 0) + n;
};
test.afterAll(() => {
  console.log(`bad inputs tried: ${JSON.stringify(counts)}`);
});

test('every number box refuses each bad value next to itself and changes nothing', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  for (const control of NUMBER_BOXES) {
    const before = await fingerprint(page);
    const shownBefore = await page.locator(`#${control.id}`).inputValue();
    const held = await page.evaluate(control.read);
    let tried = 0;
    for (const value of [...NUMERIC, ...control.outside]) {
      const text = await sanitised(page, control.id, value);
      const read = text.trim() === '' ? NaN : asEngineReads(text.trim());
      if (control.accepts(read)) continue; // a good value for this control
      await clearBox(page, control.error);
      const how = await put(page, control.id, value);
      await expectMessage(page, control.error, control.name, control.range, `'${value}' ${how}`);
      await expect(page.locator(`#${control.id}`)).toHaveAttribute('aria-invalid', 'true');
      expect(await fingerprint(page), `${control.id} = '${value}'`).toEqual(before);
      expect(await page.evaluate(control.read)).toBe(held);
      // The box shows the engine's value again.
      await expect(page.locator(`#${control.id}`)).toHaveValue(shownBefore);
      tried++;
    }
    expect(tried).toBeGreaterThan(12);
    count(`number box ${control.id}`, tried);
  }
  // Paused throughout: one step still works, and a good value clears the message.
  await page.getByRole('button', { name: 'Run' }).click();
  await expectRunning(page);
  await put(page, 'temperature-value', '1.5');
  await expect(page.locator('#temperature-error')).toBeHidden();
  expect(await lab(page, 'temperature')).toBe(1.5);
});

test('a running lattice keeps running through bad values', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  const parameters = await lab(page, 'fragment');
  for (const [id, value, error] of [
    ['temperature-value', '-1', 'temperature-error'],
    ['field-value', '1e309', 'field-error'],
    ['seed', '2.5', 'seed-error'],
  ]) {
    await put(page, id, value);
    await expect(page.locator(`#${error}`)).toBeVisible();
    expect(await lab(page, 'fragment')).toBe(parameters);
    await expectRunning(page);
    count('while running');
  }
  await page.evaluate(() => {
    window.location.hash = '#T=NaN';
  });
  await expect(page.locator('#link-error')).toBeVisible();
  expect(await lab(page, 'fragment')).toBe(parameters);
  await expectRunning(page);
  await page.getByLabel('Import state (JSON)').setInputFiles({
    name: 'bad.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{"format": "boltzlab-lattice"'),
  });
  await expect(page.locator('#import-error')).toBeVisible();
  expect(await lab(page, 'fragment')).toBe(parameters);
  await expectRunning(page);
  count('while running', 2);
});

test('a value refused as Run or a step is pressed stops that press: the run neither starts nor steps', async ({
  page,
}) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  const ticks = () => lab(page, 'ticks');
  const at = await ticks();
  // Typed, then the button pressed at once: the box loses its focus to the button, and its
  // value is refused on the way.
  for (const [id, value, error, button] of [
    ['temperature-value', '-3', 'temperature-error', 'Step one sweep'],
    ['field-value', '12', 'field-error', 'Step one tick'],
    ['seed', '2.5', 'seed-error', 'Run'],
    ['temperature-value', '', 'temperature-error', 'Run'],
  ]) {
    await page.locator(`#${id}`).fill(value);
    await page.getByRole('button', { name: button, exact: true }).click();
    await expect(page.locator(`#${error}`), `${id} = '${value}'`).toBeVisible();
    await page.waitForTimeout(300);
    await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeVisible();
    expect(await ticks(), `${button} after ${id} = '${value}'`).toBe(at);
    count('press refused');
  }
  // The boxes show what the engine holds; the next press acts at it.
  await expect(page.locator('#temperature-value')).toHaveValue(String(await lab(page, 'temperature')));
  await page.getByRole('button', { name: 'Step one sweep', exact: true }).click();
  await expect.poll(ticks).toBe(at + 256);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expectRunning(page);
});

test('a decimal comma in the temperature, field or sweep boxes is refused and named, never read as a bigger number', async ({
  page,
}) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  const parameters = await lab(page, 'fragment');
  for (const [label, value, error] of [
    ['Temperature value', '1,5', 'temperature-error'],
    ['Field h value', '-0,2', 'field-error'],
  ]) {
    await page.getByLabel(label, { exact: true }).fill(value);
    await page.getByLabel(label, { exact: true }).press('Enter');
    await expect(page.locator(`#${error}`)).toContainText(
      `got ${value}: write decimals with a point, ${value.replace(',', '.')}`,
    );
    await expect(page.locator(`#${error}`)).toContainText(/between/);
    expect(await lab(page, 'fragment')).toBe(parameters);
    count('decimal comma');
  }
  // The sweep's temperatures, which wait for Start sweep.
  await pause(page);
  for (const [id, value] of [
    ['scan-t-high', '3,5'],
    ['scan-t-low', '1,5'],
  ]) {
    const original = await page.locator(`#${id}`).inputValue();
    await page.locator(`#${id}`).fill(value);
    await page.getByRole('button', { name: 'Start sweep' }).click();
    await expect(page.locator('#scan-error')).toContainText(
      `got ${value}: write decimals with a point, ${value.replace(',', '.')}`,
    );
    expect(await lab(page, 'has_scan'), `${id} = '${value}'`).toBe(false);
    await page.locator(`#${id}`).fill(original);
    count('decimal comma');
  }
});

test('the sweep form refuses each bad field, names it and starts nothing', async ({ page }) => {
  // Hundreds of values, each tried through the form: about 30 s here, 90 s under heavy load.
  test.setTimeout(240_000);
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  const before = await fingerprint(page);
  for (const field of SCAN_FIELDS) {
    const original = await page.locator(`#${field.id}`).inputValue();
    let tried = 0;
    for (const value of [...NUMERIC, ...field.outside]) {
      const text = await sanitised(page, field.id, value);
      const read = text.trim() === '' ? NaN : asEngineReads(text.trim());
      if (field.accepts(read)) continue;
      await clearBox(page, 'scan-error');
      const how = await put(page, field.id, value);
      await page.getByRole('button', { name: 'Start sweep' }).click();
      await expectMessage(page, 'scan-error', field.name, field.range, `${field.id} '${value}' ${how}`);
      expect(await lab(page, 'has_scan'), `${field.id} = '${value}'`).toBe(false);
      await expect(page.getByRole('button', { name: 'Start sweep' })).toBeEnabled();
      await expect(page.getByRole('button', { name: 'Cancel sweep' })).toBeDisabled();
      expect(await fingerprint(page)).toEqual(before);
      tried++;
    }
    await page.locator(`#${field.id}`).fill(original);
    expect(tried).toBeGreaterThan(12);
    count(`sweep field ${field.id}`, tried);
  }
  await expect(page.locator('#alert')).toBeHidden();
});

test('selects forced to unknown values are refused and set back', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  const before = await fingerprint(page);
  const memory = await memoryBytes(page);
  const force = (id, value) =>
    page.evaluate(
      ([i, v]) => {
        const select = document.getElementById(i);
        const option = new Option(v, v);
        option.dataset.forced = 'true';
        select.add(option);
        select.value = v;
        select.dispatchEvent(new Event('change', { bubbles: true }));
      },
      [id, value],
    );
  const unforce = (id) =>
    page.evaluate((i) => {
      for (const o of document.querySelectorAll(`#${i} option[data-forced]`)) o.remove();
    }, id);
  for (const select of SELECTS) {
    const held = await page.locator(`#${select.id}`).inputValue();
    let tried = 0;
    for (const value of [...BAD_CHOICES, ...select.extra]) {
      await clearBox(page, `${select.id}-error`);
      await force(select.id, value);
      await expectMessage(page, `${select.id}-error`, select.name, select.range);
      await expect(page.locator(`#${select.id}`)).toHaveValue(held);
      expect(await fingerprint(page), `${select.id} = '${value.slice(0, 40)}'`).toEqual(before);
      await unforce(select.id);
      tried++;
    }
    count(`select ${select.id}`, tried);
  }

  // Sizes: every bad one refused before anything is allocated, the page stays responsive.
  let tried = 0;
  for (const value of [...NUMERIC, '1', '2049', '4096', '65536', '1e9', '16.5', '0x800']) {
    await clearBox(page, 'size-error');
    await force('size', value);
    await expectMessage(page, 'size-error', /size/i, /between 2 and 2048/);
    await expect(page.locator('#size')).toHaveValue('16');
    expect(await fingerprint(page), `size = '${value}'`).toEqual(before);
    await unforce('size');
    tried++;
  }
  count('select size', tried);
  expect(await memoryBytes(page)).toBeLessThan(memory + (16 << 20));
  // No injected markup anywhere.
  expect(await page.locator('.error img, .error script, .error svg').count()).toBe(0);
});

test('sliders hold only values in range; forced ones are refused or clamped', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  // The browser sanitises a range input: any text becomes a value within min..max, so the
  // engine gets an accepted value and the page keeps running.
  for (const id of ['temperature', 'field', 'speed', 'brush-size']) {
    const [min, max] = await page.locator(`#${id}`).evaluate((el) => [Number(el.min), Number(el.max)]);
    for (const value of [...NUMERIC, String(max + 1), String(min - 1)]) {
      await put(page, id, value);
      const held = Number(await page.locator(`#${id}`).inputValue());
      expect(held, `${id} = '${value}'`).toBeGreaterThanOrEqual(min);
      expect(held).toBeLessThanOrEqual(max);
      count(`slider ${id} (sanitised)`);
    }
    await expect(page.locator('#alert')).toBeHidden();
  }
  expect(await lab(page, 'temperature')).toBeGreaterThanOrEqual(0.1);
  expect(await lab(page, 'temperature')).toBeLessThanOrEqual(10);
  expect(Math.abs(await lab(page, 'field'))).toBeLessThanOrEqual(2);
  await expect(page.locator('#speed-shown')).toHaveText(/frame/);
  await expectRunning(page);

  // Forced through the DOM (the slider turned into a text box): the engine refuses the
  // temperature and the field next to them; the speed, a page setting, falls back to a
  // step it has; the brush size is refused when a stroke is painted.
  await pause(page);
  await page.locator('#field-value').fill('0');
  await page.locator('#field-value').press('Enter');
  const before = await fingerprint(page);
  const asText = (id) =>
    page.locator(`#${id}`).evaluate((el) => {
      el.type = 'text';
    });
  await asText('temperature');
  await asText('field');
  await asText('speed');
  for (const value of ['', 'NaN', 'Infinity', '1e309', '12abc', '1,5', '１２', '0x10']) {
    await clearBox(page, 'temperature-error');
    await put(page, 'temperature', value);
    await expectMessage(page, 'temperature-error', /temperature/i, /between 0 and 100/);
    await clearBox(page, 'field-error');
    await put(page, 'field', value);
    await expectMessage(page, 'field-error', /field h/i, /between -10 and 10/);
    await put(page, 'speed', value);
    await expect(page.locator('#speed-shown')).toHaveText(/frame/);
    expect(await fingerprint(page)).toEqual(before);
    count('slider temperature (forced)');
    count('slider field (forced)');
    count('slider speed (forced)');
  }
  for (const value of ['3', '2.5', '1e5']) {
    await put(page, 'temperature', value);
    await expectMessage(page, 'temperature-error', /temperature/i, /between 0 and 100/);
    expect(await fingerprint(page)).toEqual(before);
    count('slider temperature (forced)');
  }
  for (const value of ['-1', '99', '2.5', '1e309']) {
    await put(page, 'speed', value);
    await expect(page.locator('#speed-shown')).toHaveText(/frame/);
    count('slider speed (forced)');
  }
  await page.getByRole('button', { name: 'Run' }).click();
  await expectRunning(page);
  await expect(page.locator('#alert')).toBeHidden();
});

test('a bad brush or brush size paints nothing and says why', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  await page.getByRole('button', { name: 'All down' }).click();
  const before = await fingerprint(page);
  const spinsBox = await page.locator('#spins-box').boundingBox();
  const stroke = async () => {
    await page.mouse.move(spinsBox.x + spinsBox.width / 2, spinsBox.y + spinsBox.height / 2);
    await page.mouse.down();
    await page.mouse.move(spinsBox.x + spinsBox.width / 2 + 30, spinsBox.y + spinsBox.height / 2 + 10);
    await page.mouse.up();
  };
  // The brush size turned into a text box.
  await page.locator('#brush-size').evaluate((el) => {
    el.type = 'text';
  });
  for (const value of [...NUMERIC.filter((v) => !whole(0, 64)(asEngineReads(v))), '65', '1e12', '16.5']) {
    await clearBox(page, 'brush-error');
    await page.locator('#brush-size').evaluate((el, v) => {
      el.value = v;
    }, value);
    await stroke();
    await expectMessage(page, 'brush-error', /brush radius/, /between 0 and 64/);
    expect(await fingerprint(page), `brush size '${value}'`).toEqual(before);
    count('brush size (forced)');
  }
  await page.locator('#brush-size').evaluate((el) => {
    el.type = 'range';
    el.value = '2';
  });
  // Unknown brushes.
  for (const value of BAD_CHOICES.filter((v) => v !== '')) {
    await clearBox(page, 'brush-error');
    await page.locator('#brush').evaluate((select, v) => {
      const option = new Option(v, v);
      option.dataset.forced = 'true';
      select.add(option);
      select.value = v;
      select.dispatchEvent(new Event('change', { bubbles: true }));
    }, value);
    await stroke();
    await expectMessage(page, 'brush-error', /brush/, /one of up, down, clamp, unclamp/);
    expect(await fingerprint(page)).toEqual(before);
    await page.locator('#brush').evaluate((select) => {
      for (const o of select.querySelectorAll('option[data-forced]')) o.remove();
    });
    count('brush select (forced)');
  }
  // A good stroke still paints.
  await choose(page, 'Brush', 'up');
  await stroke();
  await expect(page.locator('#brush-error')).toBeHidden();
  expect((await fingerprint(page)).state).not.toBe(before.state);
});

// One bad link through the address bar, in one call to the page: waits until the address shows
// the run's own parameters again (`own`: the page puts them back after refusing a link),
// empties the link's message box so that the next message is known to be new (as clearBox),
// sets the address to `fragment`, waits for the message, and returns its text and the size
// box's value then. One call where six were made one by one, and no polling interval between
// them (about 150 links took 70–110 s so).
const tryLink = (page, fragment, own) =>
  page.evaluate(
    async ([link, own]) => {
      const until = async (ready, what) => {
        const end = performance.now() + 10_000;
        while (!ready()) {
          if (performance.now() > end) throw new Error(`no ${what} within 10 s around #${link.slice(0, 60)}`);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      await until(() => window.location.hash === `#${own}`, "address with the run's own parameters");
      const box = document.getElementById('link-error');
      box.hidden = true;
      box.textContent = '';
      window.location.hash = `#${link}`;
      await until(() => box.checkVisibility() && box.textContent !== '', 'message');
      return { text: box.textContent, size: /** @type {HTMLInputElement} */ (document.getElementById('size')).value };
    },
    [fragment, own],
  );

// Share links: [fragment, what the message must say].
function badLinks() {
  const links = [];
  const keys = {
    size: { name: /size/i, range: /between 2 and 2048/, accepts: whole(2, 2048) },
    T: { name: /temperature/i, range: /between 0 and 100/, accepts: real(0, 100) },
    h: { name: /field h/i, range: /between -10 and 10/, accepts: real(-10, 10) },
    seed: { name: /seed/i, range: /between 0 and 9007199254740992/, accepts: whole(0, 2 ** 53) },
  };
  for (const [key, k] of Object.entries(keys)) {
    for (const value of [...NUMERIC, '%', '%zz', '%00', '1%2E5']) {
      if (k.accepts(asEngineReads(value))) continue;
      const notNumber = Number.isNaN(asEngineReads(value)) && !/^[-+]?nan$/i.test(value);
      links.push([`${key}=${value}`, notNumber ? /is not a number/ : k.name, notNumber ? k.name : k.range]);
    }
  }
  for (const [key, allowed] of [
    ['model', /one of ferromagnet/],
    ['rule', /one of heat-bath/],
    ['order', /one of sequential/],
    ['boundary', /one of periodic/],
  ]) {
    for (const value of ['', 'x', 'NaN', 'Ferromagnet', '%', '%zz', '%00', '<script>alert(1)</script>']) {
      links.push([`${key}=${value}`, allowed, /must be/]);
    }
  }
  const good = 'model=ferromagnet&size=16&T=2.269&h=0&rule=heat-bath&order=sequential&boundary=periodic&seed=1';
  links.push(
    ['colour=red', /link parameter must be one of model, size, T, h, rule, order, boundary, seed/, /colour/],
    ['t=1', /link parameter must be one of/, /'t'/],
    ['=1', /link parameter must be one of/, /''/],
    ['T=1&T=1', /'T' is given twice/, /link/],
    ['size=16&size=16', /'size' is given twice/, /link/],
    ['T', /'T' is not key=value/, /link/],
    ['T1.5', /'T1.5' is not key=value/, /link/],
    ['model', /is not key=value/, /link/],
    ['%', /is not key=value/, /link/],
    ['%zz=1', /link parameter/, /%zz/],
    [good.slice(0, 12), /model must be one of/, /ferrom/],
    [good.slice(0, 20), /is not key=value/, /si/],
    [good.slice(0, 23), /is not a number/, /size/],
    [good.slice(0, 50), /dynamics must be one of/, /heat-b/],
    [good.slice(0, good.indexOf('boundary=') + 13), /boundary must be one of/, /peri/],
    [`${good.slice(0, good.length - 1)}`, /is not a number/, /seed/],
    [`T=${'9'.repeat(100_000)}`, /temperature must be a finite number/, /between 0 and 100/],
    [`model=${'x'.repeat(100_000)}`, /model must be one of/, /…/],
    ['x'.repeat(100_000), /is not key=value/, /…/],
    ['<script>alert(1)</script>', /is not key=value/, /link/],
    ['model=<img src=x onerror=alert(1)>', /model must be one of/, /img/],
    ['T="><svg onload=alert(1)>', /is not a number/, /temperature/],
  );
  return links;
}

test('bad share links are refused with a message and leave the run as it was', async ({ page }) => {
  // About 150 links, each through the address bar (tryLink).
  test.setTimeout(300_000);
  page.on('dialog', (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  const before = await fingerprint(page);
  const memory = await memoryBytes(page);
  const links = badLinks();
  for (const [fragment, what, also] of links) {
    const { text, size } = await tryLink(page, fragment, before.fragment);
    checkMessage(text, 'link-error', what, also);
    expect(text).toContain('nothing was changed');
    expect(await fingerprint(page), fragment.slice(0, 60)).toEqual(before);
    expect(size).toBe('16');
  }
  count('link (hash change)', links.length);
  expect(await memoryBytes(page)).toBeLessThan(memory + (16 << 20));
  expect(await page.locator('.error img, .error script, .error svg').count()).toBe(0);
});

test('a page opened with a bad link or lesson starts with its defaults and says why', async ({ page }) => {
  page.on('dialog', (dialog) => {
    throw new Error(`a dialog opened: ${dialog.message()}`);
  });
  await openApp(page);
  const defaults = await lab(page, 'fragment');
  for (const [path, message] of [
    ['/#T=NaN', /temperature must be a finite number between 0 and 100/i],
    ['/#size=1e12', /size must be between 2 and 2048/i],
    ['/#size=0', /size must be between 2 and 2048/i],
    ['/#seed=-1', /seed must be between 0/i],
    ['/#model=x', /model must be one of/i],
    ['/#T=1&T=2', /given twice/],
    ['/#%zz', /not key=value/],
    [`/#T=${'1'.repeat(100_000)}`, /temperature must be a finite number/i],
    ['/#<script>alert(1)</script>', /not key=value/],
  ]) {
    await page.goto('about:blank');
    await openApp(page, path);
    await expect(page.locator('#link-error')).toContainText('started with its defaults');
    await expect(page.locator('#link-error')).toContainText(message);
    expect(await lab(page, 'fragment')).toBe(defaults);
    count('link (on load)');
  }
  for (const lesson of ['0', '99', '-1', 'x', '1e3', '', '1.5', '%zz', 'NaN', 'Infinity', '１']) {
    await page.goto('about:blank');
    await openApp(page, `/?lesson=${lesson}`);
    await expect(page.locator('#link-error')).toContainText(/the lessons are numbered 1 to \d+\./);
    await expect(page.locator('#lesson')).toBeHidden();
    expect(await lab(page, 'fragment')).toBe(defaults);
    count('?lesson=');
  }
});

// State files: [name, content (string or Buffer), what the message must say]. `good` is
// the export of a 16×16 ±J spin glass (which has bonds), `gauss` of a Gaussian one.
function badFiles(good, gauss) {
  const g = JSON.parse(good);
  const G = JSON.parse(gauss);
  const edit = (changes) => JSON.stringify({ ...g, ...changes });
  const files = [
    ['empty.json', '', /not a boltzlab lattice state/],
    ['text.json', 'hello', /not a boltzlab lattice state/],
    ['brace.json', '{', /not a boltzlab lattice state/],
    ['array.json', '[]', /expected a JSON object/],
    ['null.json', 'null', /expected a JSON object/],
    ['number.json', '42', /expected a JSON object/],
    ['string.json', '"boltzlab"', /expected a JSON object/],
    ['binary.bin', Buffer.from(Array.from({ length: 4096 }, (_, k) => (k * 7919 + 13) % 256)), /not a boltzlab/],
    ['nul.json', Buffer.alloc(1000), /not a boltzlab lattice state/],
    [
      'network.json',
      JSON.stringify({
        units: 2,
        spin: 'ising',
        weights: [
          [0, 1],
          [1, 0],
        ],
        biases: [0, 0],
      }),
      /format/,
    ],
    ['format.json', edit({ format: 'boltzlab-network' }), /format: expected 'boltzlab-lattice'/],
    ['version2.json', edit({ version: 2 }), /version: this page reads version 1, got 2/],
    ['version0.json', edit({ version: 0 }), /version: this page reads version 1/],
    ['version-neg.json', edit({ version: -1 }), /version/],
    ['version-text.json', edit({ version: '1' }), /version/],
    ['version-null.json', edit({ version: null }), /version/],
    ['extra.json', edit({ colour: 'red' }), /file field must be one of .*colour/],
  ];
  for (const k of [1, 10, 100, Math.floor(good.length / 4), Math.floor(good.length / 2), good.length - 3]) {
    files.push([`truncated-${k}.json`, good.slice(0, k), /not a boltzlab lattice state/]);
  }
  // lane_random_state is optional: files from before the lane kernel import without it.
  for (const key of Object.keys(g).filter((k) => k !== 'lane_random_state')) {
    const missing = { ...g };
    delete missing[key];
    files.push([
      `missing-${key}.json`,
      JSON.stringify(missing),
      new RegExp(key === 'bonds' ? 'needs its .bonds.' : `${key}: missing`),
    ]);
  }
  const side = g.size;
  files.push(
    ['size-0.json', edit({ size: 0 }), /size must be between 2 and 2048/],
    ['size-neg.json', edit({ size: -16 }), /size must be between 2 and 2048/],
    ['size-frac.json', edit({ size: 2.5 }), /size must be a whole number between 2 and 2048/],
    ['size-huge.json', edit({ size: 1e12 }), /size must be between 2 and 2048/],
    ['size-17.json', edit({ size: 17 }), /need 17 rows/],
    ['size-text.json', edit({ size: 'NaN' }), /size/],
    ['temperature-nan.json', edit({ temperature: 'NaN' }), /temperature: invalid type: string "NaN"/],
    ['temperature-inf.json', edit({ temperature: 'Infinity' }), /temperature: invalid type/],
    ['temperature-long.json', edit({ temperature: 'x'.repeat(100_000) }), /temperature: invalid type: string "x+…/],
    ['model-long.json', edit({ model: 'x'.repeat(100_000) }), /model must be one of .*got 'x+…'/],
    ['temperature-neg.json', edit({ temperature: -1 }), /temperature must be between 0 and 100/],
    ['temperature-big.json', edit({ temperature: 1e6 }), /temperature must be between 0 and 100/],
    [
      'temperature-1e999.json',
      edit({ temperature: 7 }).replace('"temperature":7', '"temperature":1e999'),
      /number out of range at line 1/,
    ],
    ['field-inf.json', edit({ field: '-Infinity' }), /field: invalid type/],
    ['field-big.json', edit({ field: 11 }), /field h must be between -10 and 10/],
    ['seed-neg.json', edit({ seed: -1 }), /seed must be between 0/],
    ['seed-frac.json', edit({ seed: 1.5 }), /seed must be a whole number/],
    ['seed-1e999.json', edit({ seed: 7 }).replace('"seed":7', '"seed":1e999'), /number out of range/],
    ['model.json', edit({ model: 'sk' }), /model must be one of/],
    ['rule.json', edit({ rule: 'glauber' }), /dynamics must be one of/],
    ['order.json', edit({ order: 'spiral' }), /order must be one of/],
    ['boundary.json', edit({ boundary: 'twisted' }), /boundary must be one of/],
    ['phase.json', edit({ phase: 'maybe' }), /phase must be one of clamped, free/],
    ['rows-short.json', edit({ spins: g.spins.slice(1) }), /spins: need 16 rows, got 15/],
    ['rows-long.json', edit({ spins: [...g.spins, g.spins[0]] }), /spins: need 16 rows, got 17/],
    ['row-short.json', edit({ spins: g.spins.map((r, y) => (y === 5 ? r.slice(1) : r)) }), /row 5: need 16 spins/],
    ['row-long.json', edit({ spins: g.spins.map((r, y) => (y === 5 ? `${r}+` : r)) }), /row 5: need 16 spins/],
    ['spins-empty.json', edit({ spins: [] }), /spins: need 16 rows, got 0/],
    ['spins-string.json', edit({ spins: '+-' }), /spins: invalid type/],
    ['spins-numbers.json', edit({ spins: g.spins.map(() => Array(side).fill(1)) }), /spins: invalid type/],
  );
  for (const bad of ['0', '1', 'x', ' ', '＋']) {
    files.push([
      `spin-${bad.codePointAt(0)}.json`,
      edit({ spins: g.spins.map((r, y) => (y === 2 ? bad + r.slice(1) : r)) }),
      /spins: row 2: a spin is '\+' or '-'/,
    ]);
  }
  files.push(
    ['clamped-neg.json', edit({ clamped: [-1] }), /clamped: invalid value/],
    ['clamped-big.json', edit({ clamped: [side * side] }), /clamped must be between 0 and 255/],
    ['clamped-huge.json', edit({ clamped: [1e12] }), /clamped/],
    ['ticks-neg.json', edit({ ticks: -1 }), /ticks: invalid value/],
    ['ticks-big.json', edit({ ticks: 2 ** 60 }), /ticks must be between 0/],
    ['next-site.json', edit({ next_site: side * side }), /next site must be between 0 and 255/],
    ['random-3.json', edit({ random_state: [1, 2, 3] }), /random_state/],
    ['random-zero.json', edit({ random_state: [0, 0, 0, 0] }), /random/],
    ['random-neg.json', edit({ random_state: [1, 2, 3, -4] }), /random_state/],
    ['lanes-short.json', edit({ lane_random_state: [1, 2, 3] }), /lane/],
    ['lanes-zero.json', edit({ lane_random_state: Array(64).fill(0) }), /lane/],
    ['lanes-neg.json', edit({ lane_random_state: Array(64).fill(-1) }), /lane_random_state/],
    ['bonds-rows.json', edit({ bonds: g.bonds.slice(1) }), /bonds: need 16 rows, got 15/],
    [
      'bonds-row.json',
      edit({ bonds: g.bonds.map((r, y) => (y === 1 ? r.slice(2) : r)) }),
      /bonds: row 1: need 32 bond factors/,
    ],
    [
      'bonds-char.json',
      edit({ bonds: g.bonds.map((r, y) => (y === 1 ? `x${r.slice(1)}` : r)) }),
      /bonds: row 1: a ±J bond is/,
    ],
    ['bonds-type.json', edit({ bonds: 'x' }), /bonds: invalid type/],
    ['bonds-ferro.json', edit({ model: 'ferromagnet' }), /bonds: a ferromagnet has uniform bonds/],
    [
      'gauss-nan.json',
      JSON.stringify({ ...G, bonds: G.bonds.map((r, y) => (y === 0 ? ['NaN', ...r.slice(1)] : r)) }),
      /bonds: row 0: '"NaN"' is not a number/,
    ],
    [
      'gauss-1e999.json',
      JSON.stringify({ ...G, bonds: G.bonds.map((r, y) => (y === 0 ? [7777, ...r.slice(1)] : r)) }).replace(
        '7777',
        '1e999',
      ),
      /number out of range/,
    ],
    [
      'gauss-big.json',
      JSON.stringify({ ...G, bonds: G.bonds.map((r, y) => (y === 0 ? [1e308, ...r.slice(1)] : r)) }),
      /bond|coupling/,
    ],
  );
  return files;
}

test('broken state files are refused with a message naming the field and change nothing', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await choose(page, 'Model', 'spin-glass-gaussian');
  await pause(page);
  const gauss = await lab(page, 'export_state');
  await choose(page, 'Model', 'spin-glass-pm');
  const before = await fingerprint(page);
  const memory = await memoryBytes(page);
  const files = badFiles(before.state, gauss);
  for (const [name, content, message] of files) {
    await clearBox(page, 'import-error');
    await page.getByLabel('Import state (JSON)').setInputFiles({
      name,
      mimeType: 'application/json',
      buffer: Buffer.isBuffer(content) ? content : Buffer.from(content),
    });
    const box = page.locator('#import-error');
    await expect(box).toBeVisible();
    await expect(box).toContainText(`Nothing was changed: ${name} could not be imported`);
    expect(await box.textContent(), name).toMatch(new RegExp(message.source, 'i'));
    expect((await box.textContent()).length, name).toBeLessThan(600);
    await expect(page.locator('#import-done')).toBeHidden();
    expect(await fingerprint(page), name).toEqual(before);
  }
  count('state file', files.length);
  expect(await memoryBytes(page)).toBeLessThan(memory + (16 << 20));
  // The good file is still accepted.
  await page.getByLabel('Import state (JSON)').setInputFiles({
    name: 'good.json',
    mimeType: 'application/json',
    buffer: Buffer.from(before.state),
  });
  await expect(page.locator('#import-done')).toContainText('Imported good.json');
  await expect(page.locator('#import-error')).toBeHidden();
});

test('a state file beyond the size limit is refused before it is read', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  const before = await fingerprint(page);
  // A real 600 MB file would strain this machine; the file offered here says it is that
  // big (its size is what the page checks first) and records whether it was ever read.
  for (const bytes of [512 * 2 ** 20 + 1, 600 * 2 ** 20, 2 ** 40]) {
    await clearBox(page, 'import-error');
    const read = await page.evaluate(
      ([state, size]) => {
        const file = new File([state], 'huge.json', { type: 'application/json' });
        Object.defineProperty(file, 'size', { value: size });
        window.boltzlabFileRead = false;
        file.text = () => {
          window.boltzlabFileRead = true;
          return Promise.resolve(state);
        };
        const transfer = new DataTransfer();
        transfer.items.add(file);
        const input = document.getElementById('import-state');
        input.files = transfer.files;
        if (input.files[0].size !== size) return 'the size could not be faked';
        input.dispatchEvent(new Event('change', { bubbles: true }));
        return 'offered';
      },
      [before.state, bytes],
    );
    expect(read).toBe('offered');
    await expect(page.locator('#import-error')).toContainText('Nothing was changed: huge.json could not be imported');
    await expect(page.locator('#import-error')).toContainText('more than the 536870912 bytes (512 MB)');
    expect(await page.evaluate(() => window.boltzlabFileRead)).toBe(false);
    expect(await fingerprint(page)).toEqual(before);
    count('state file (oversized)');
  }
});
