// Nothing lost: the session is kept in localStorage and offered back on reload; a stored
// session that cannot be read is reported and set aside; no storage or a full one is a note.
import { readFileSync } from 'node:fs';
import { test, expect, openApp, lab, pause, choose, enter, spinsAndClamps, drag } from './fixtures.js';

// Its tests stand alone (each on a page of its own): spread over the workers rather than run
// one after another in one (playwright.config.js runs whole files otherwise).
test.describe.configure({ mode: 'parallel' });

// A version-1 record as the page wrote it before the engine kept sessions (a 16 × 16
// lattice after one sweep, a 4-2-4 machine after 3 cycles), with its lattice's state file
// and its network as the engine exported them then.
const data = (name) => readFileSync(new URL(`data/${name}`, import.meta.url), 'utf8');
const V1_RECORD = data('session-v1.json');
const V1_STATE = data('session-v1.state.json');
const V1_NETWORK = data('session-v1.network.json');

// Opens the page in Boltzmann-machine mode.
async function openMachine(page) {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await expect(page.locator('#machine')).toBeVisible();
  await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabMachine))).toBe(true);
}

const machine = (page, method, ...args) => page.evaluate(([m, a]) => window.boltzlabMachine[m](...a), [method, args]);

const KEY = 'boltzlab.session';
const ASIDE = 'boltzlab.setAside';

const stored = (page, key = KEY) => page.evaluate((k) => window.localStorage.getItem(k), key);
const saves = async (page) => Number((await page.locator('#persist-status').getAttribute('data-saves')) ?? 0);

// Waits until the page has written the session after this point.
async function savedAfterNow(page) {
  const before = await saves(page);
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  await expect.poll(() => saves(page)).toBeGreaterThan(before);
}

// Reloads and waits for the page (and its machine mode) to be running again.
async function reload(page) {
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('body')).toHaveAttribute('data-machine-ready', 'true');
}

test('a reload offers the saved lattice; Restore gives back exactly the exported state', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '128');
  await enter(page, 'Temperature value', 1.7);
  await choose(page, 'Model', 'spin-glass-pm');
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  await pause(page);
  await choose(page, 'Brush', 'clamp');
  await drag(page, 128, [10, 20], [100, 20]);
  await choose(page, 'Brush', 'up');
  await drag(page, 128, [10, 60], [100, 90]);
  const exported = await lab(page, 'export_state');
  const painted = await spinsAndClamps(page);
  expect(painted.clamps.filter(Boolean).length).toBeGreaterThan(100);

  await reload(page); // pagehide saves
  const banner = page.locator('#session');
  await expect(banner).toBeVisible();
  await expect(page.locator('#session-message')).toContainText(
    /Restore the session saved at .*\d\d.\d\d.*lattice 128×128, spin-glass-pm, T = 1\.7/,
  );
  // Nothing is written over the stored session before the choice, however long it waits.
  const before = await stored(page);
  await page.waitForTimeout(4500);
  expect(await stored(page)).toBe(before);

  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(banner).toBeHidden();
  await expect(page.getByRole('button', { name: 'Run' })).toBeVisible(); // restored paused
  expect(await lab(page, 'export_state')).toBe(exported);
  expect(await spinsAndClamps(page)).toEqual(painted);
  await expect(page.locator('#persist-status')).toContainText('Restored the session saved at');
});

test('the speeds set come back with the session; speeds that cannot be read are the defaults, and the note says so', async ({
  page,
}) => {
  await openApp(page);
  await pause(page);
  await page.locator('#speed').fill('0');
  await expect(page.locator('#speed-shown')).toHaveText('1 tick / frame');
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await expect(page.locator('#machine')).toBeVisible();
  await page.locator('#bm-speed').fill('2');
  await expect(page.locator('#bm-speed-shown')).toHaveText('16 sweeps / frame');
  // The recall speed (its menu is in memory mode, hidden here): set as a choice would.
  await page.evaluate(() => {
    const menu = /** @type {HTMLSelectElement} */ (document.getElementById('memory-speed'));
    menu.value = '512';
    menu.dispatchEvent(new Event('change'));
  });
  await savedAfterNow(page);
  const record = JSON.parse(await stored(page));
  expect(record.speeds).toEqual({ lattice: 1, machine: 16, memory: 512 });

  await reload(page);
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await expect(page.locator('#speed')).toHaveValue('0');
  await expect(page.locator('#speed-shown')).toHaveText('1 tick / frame');
  await expect(page.locator('#bm-speed')).toHaveValue('2');
  await expect(page.locator('#bm-speed-shown')).toHaveText('16 sweeps / frame');
  await expect(page.locator('#memory-speed')).toHaveValue('512');

  // A stored record whose speeds are not speeds of this page: the rest restores, the sliders
  // stay at their defaults, and the status line says why.
  record.speeds = { lattice: 7, machine: 'fast' };
  await page.goto('/www/ui.js'); // leaving saves; the record is written over after that
  await page.evaluate(([k, t]) => window.localStorage.setItem(k, t), [KEY, JSON.stringify(record)]);
  await page.goto('/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await expect(page.locator('#persist-status')).toContainText(
    'The saved speeds could not be read (speed: 7 ticks per frame is not one of the speeds',
  );
  await expect(page.locator('#speed')).toHaveValue('5');
  await expect(page.locator('#bm-speed')).toHaveValue('3');
});

test('Start fresh keeps the declined session aside, starts new spins and saves from then on', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '64');
  await pause(page);
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  // A painted stroke makes the declined state one that no seeded run reaches by itself: the
  // fresh run replays the same seed, and one frame of it may stand at exactly this tick.
  await choose(page, 'Brush', 'up');
  await drag(page, 64, [5, 30], [60, 30]);
  const exported = await lab(page, 'export_state');
  // The address bar follows the parameters 250 ms after a change (www/lattice/share.js): the
  // reload must load the link with size=64, as a person reloading later would.
  await expect(page).toHaveURL(/size=64/);
  await reload(page);
  const declined = await stored(page);
  expect(JSON.parse(JSON.parse(declined).lattice).ticks).toBe(JSON.parse(exported).ticks);
  await page.getByRole('button', { name: 'Start fresh' }).click();
  await expect(page.locator('#session')).toBeHidden();
  // The address still carries the parameters (it is the share link); the run is new.
  expect(await lab(page, 'side')).toBe(64);
  expect(await lab(page, 'export_state')).not.toBe(exported);
  expect(await stored(page, 'boltzlab.previous')).toBe(declined);
  await savedAfterNow(page);
  expect(await stored(page)).not.toBe(declined);
  await reload(page);
  await expect(page.locator('#session-message')).toContainText('lattice 64×64');
});

test('the Boltzmann machine, its options and trained weights come back after a reload', async ({ page }) => {
  await openMachine(page);
  await choose(page, 'Dataset', '4-3-4');
  await enter(page, 'Weight decay λ', 0.001);
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => machine(page, 'cycles')).toBeGreaterThan(3);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  const network = await machine(page, 'export_network');
  const cycles = await machine(page, 'cycles');
  expect(
    JSON.parse(network)
      .weights.flat()
      .some((w) => w !== 0),
  ).toBe(true);
  await reload(page);
  await expect(page.locator('#session-message')).toContainText(
    new RegExp(`Boltzmann machine on 4-3-4, ${cycles} learning cycles; lattice 256×256`),
  );
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#machine')).toBeVisible();
  await expect(page.getByRole('radio', { name: 'Boltzmann machine' })).toBeChecked();
  expect(await machine(page, 'export_network')).toBe(network);
  expect(await machine(page, 'weight_decay')).toBe(0.001);
  await expect(page.getByLabel('Dataset', { exact: true })).toHaveValue('4-3-4');
});

test('a Gaussian glass (real couplings) and a machine of my own patterns come back exactly', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Model', 'spin-glass-gaussian');
  await choose(page, 'Size', '32');
  await pause(page);
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  const exported = await lab(page, 'export_state');
  expect(JSON.parse(exported).bonds[0].every((b) => typeof b === 'number')).toBe(true);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.getByLabel('My patterns').fill('110011\n001100\n101010');
  await enter(page, 'Hidden units', 3);
  await page.getByRole('button', { name: 'Learn my patterns' }).click();
  await expect.poll(() => machine(page, 'visible')).toBe(6);
  await page.getByLabel('Learning rule').selectOption('sign');
  await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  const network = await machine(page, 'export_network');
  await reload(page);
  await expect(page.locator('#session-message')).toContainText('Boltzmann machine on custom, 2 learning cycles');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  expect(await machine(page, 'export_network')).toBe(network);
  expect(await machine(page, 'rule')).toBe('sign');
  expect(await machine(page, 'units')).toBe(9);
  await expect(page.getByLabel('My patterns')).toHaveValue('110011\n001100\n101010');
  await page.getByRole('radio', { name: 'Ising lattice' }).check();
  expect(await lab(page, 'export_state')).toBe(exported);
});

// A real saved record (lattice 16×16 with clamps, machine 4-2-4) to corrupt.
async function savedRecord(page) {
  await openMachine(page);
  await page.getByRole('radio', { name: 'Ising lattice' }).check();
  await choose(page, 'Size', '16');
  await pause(page);
  await savedAfterNow(page);
  return JSON.parse(await stored(page));
}

const PAYLOAD = '<img src=x onerror="window.__pwned=1">';

// Each entry: a name, the stored text, and what the report must say. `good`: a version-1
// record (still read).
function corruptionsV1(good) {
  const text = JSON.stringify(good);
  const with_ = (change) => {
    const copy = structuredClone(good);
    change(copy);
    return JSON.stringify(copy);
  };
  const network = JSON.parse(good.machine.network);
  const withNetwork = (change) =>
    with_((r) => {
      const n = structuredClone(network);
      change(n);
      r.machine.network = JSON.stringify(n);
    });
  return [
    ['garbage', `garbage ${PAYLOAD}`, /not valid JSON/],
    ['empty', '', /not valid JSON/],
    ['truncated', text.slice(0, Math.floor(text.length / 2)), /not valid JSON/],
    ['truncated by one', text.slice(0, -1), /not valid JSON/],
    ['an array', '[1, 2, 3]', /not a session record/],
    ['another format', with_((r) => (r.format = PAYLOAD)), /not a boltzlab session/],
    ['a newer version', with_((r) => (r.version = 3)), /version 3/],
    ['no time stamp', with_((r) => delete r.saved), /time stamp/],
    ['an unknown mode', with_((r) => (r.mode = PAYLOAD)), /mode/],
    ['no lattice', with_((r) => delete r.lattice), /lattice: the lattice is missing/],
    [
      'spins too short',
      with_((r) => (r.lattice.spinBits = r.lattice.spinBits.slice(0, 8))),
      /lattice: spins: .* bytes/,
    ],
    ['spins not base64', with_((r) => (r.lattice.spinBits = `!!${PAYLOAD}`)), /lattice: spins: not valid base64/],
    ['clamps missing', with_((r) => delete r.lattice.clampBits), /lattice: clamps: missing/],
    ['size mismatch', with_((r) => (r.lattice.size = 17)), /lattice: spins/],
    ['size not a number', with_((r) => (r.lattice.size = PAYLOAD)), /lattice size/],
    ['temperature negative', with_((r) => (r.lattice.temperature = -1)), /lattice: .*temperature/i],
    ['temperature null (NaN)', with_((r) => (r.lattice.temperature = null)), /lattice: /],
    ['unknown model', with_((r) => (r.lattice.model = PAYLOAD)), /lattice: .*model/i],
    ['unknown field', with_((r) => (r.lattice.extra = PAYLOAD)), /lattice: .*extra/],
    ['random state wrong', with_((r) => (r.lattice.random_state = [1, 2])), /lattice: /],
    ['machine dataset unknown', with_((r) => (r.machine.dataset = PAYLOAD)), /Boltzmann machine: /],
    ['machine seed a string', with_((r) => (r.machine.seed = PAYLOAD)), /Boltzmann machine: seed: not a number/],
    ['machine rate negative', with_((r) => (r.machine.rate = -5)), /Boltzmann machine: /],
    ['network not JSON', with_((r) => (r.machine.network = `{${PAYLOAD}`)), /Boltzmann machine: /],
    ['weight null (NaN)', withNetwork((n) => (n.weights[0][1] = null)), /Boltzmann machine: /],
    ['weight 1e999 (infinite)', withNetwork((n) => (n.weights[0][1] = 1e999)), /Boltzmann machine: /],
    ['weight "NaN"', withNetwork((n) => (n.weights[0][1] = 'NaN')), /Boltzmann machine: /],
    ['weights of another shape', withNetwork((n) => n.weights.pop()), /Boltzmann machine: /],
    ['a machine of more units', withNetwork((n) => (n.units = 99)), /Boltzmann machine: /],
  ];
}

// The same for a version-2 record: the engine's lattice and machine session texts damaged
// as a whole and field by field (the engine names the field).
function corruptionsV2(good) {
  const with_ = (change) => {
    const copy = structuredClone(good);
    change(copy);
    return JSON.stringify(copy);
  };
  const withInner = (part, change) =>
    with_((r) => {
      const inner = JSON.parse(r[part]);
      change(inner);
      r[part] = JSON.stringify(inner);
    });
  const lattice = (change) => withInner('lattice', change);
  const machine = (change) => withInner('machine', change);
  return [
    ['v2 truncated', JSON.stringify(good).slice(0, -1), /not valid JSON/],
    ['v2 a newer version', with_((r) => (r.version = 3)), /version 3/],
    ['v2 no time stamp', with_((r) => delete r.saved), /time stamp/],
    ['v2 an unknown mode', with_((r) => (r.mode = PAYLOAD)), /mode/],
    ['v2 no lattice', with_((r) => delete r.lattice), /lattice: the lattice is missing/],
    ['v2 lattice not text', with_((r) => (r.lattice = { size: 16 })), /lattice: the lattice is missing/],
    ['v2 lattice garbage', with_((r) => (r.lattice = `{${PAYLOAD}`)), /lattice: /],
    ['v2 lattice truncated', with_((r) => (r.lattice = r.lattice.slice(0, r.lattice.length / 2))), /lattice: /],
    ['v2 lattice another format', lattice((l) => (l.format = PAYLOAD)), /lattice: /],
    ['v2 spins too short', lattice((l) => (l.spins = l.spins.slice(0, 8))), /lattice: .*spins/],
    ['v2 spins not base64', lattice((l) => (l.spins = `!!${PAYLOAD}`)), /lattice: .*spins/],
    ['v2 clamps too short', lattice((l) => (l.clamped = 'AAAA')), /lattice: .*clamped/],
    ['v2 size mismatch', lattice((l) => (l.size = 17)), /lattice: /],
    ['v2 temperature negative', lattice((l) => (l.temperature = -1)), /lattice: .*temperature/i],
    ['v2 unknown model', lattice((l) => (l.model = PAYLOAD)), /lattice: .*model/i],
    ['v2 unknown field', lattice((l) => (l.extra = PAYLOAD)), /lattice: .*extra/],
    ['v2 random state wrong', lattice((l) => (l.random_state = [1, 2])), /lattice: /],
    ['v2 machine not text', with_((r) => (r.machine = { cycles: 1 })), /Boltzmann machine: not a machine session/],
    ['v2 machine garbage', with_((r) => (r.machine = `{${PAYLOAD}`)), /Boltzmann machine: /],
    ['v2 machine truncated', with_((r) => (r.machine = r.machine.slice(0, -2))), /Boltzmann machine: /],
    ['v2 machine problem unknown', machine((m) => (m.problem = PAYLOAD)), /Boltzmann machine: /],
    ['v2 machine seed a string', machine((m) => (m.seed = PAYLOAD)), /Boltzmann machine: .*seed/],
    ['v2 machine cycles negative', machine((m) => (m.cycles = -1)), /Boltzmann machine: /],
    ['v2 weight null (NaN)', machine((m) => (m.network.weights[0][1] = null)), /Boltzmann machine: /],
    ['v2 weights of another shape', machine((m) => m.network.weights.pop()), /Boltzmann machine: /],
    ['v2 a machine of more units', machine((m) => (m.network.units = 99)), /Boltzmann machine: /],
  ];
}

test('a corrupted stored session is reported, set aside and never loaded; the page runs its defaults', async ({
  page,
}) => {
  test.setTimeout(400_000);
  const good = await savedRecord(page);
  expect(good.format).toBe('boltzlab-session');
  expect(good.version).toBe(2);
  expect(JSON.parse(good.machine).problem).toBe('4-2-4');
  const old = JSON.parse(V1_RECORD);
  expect(old.version).toBe(1);
  expect(old.machine.dataset).toBe('4-2-4');
  const cases = [...corruptionsV1(old), ...corruptionsV2(good)];
  for (const [name, text, pattern] of cases) {
    // Leave the app first (its pagehide save would write over the planted record).
    await page.goto('/www/ui.js');
    await page.evaluate(
      ([k, t]) => {
        window.localStorage.clear();
        window.localStorage.setItem(k, t);
      },
      [KEY, text],
    );
    await page.goto('/'); // no fragment: the defaults
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    const message = page.locator('#session-message');
    await expect(message, name).toContainText('The saved session could not be read: ');
    await expect(message, name).toContainText('it was set aside.');
    await expect(message, name).toHaveText(pattern);
    await expect(page.getByRole('button', { name: 'Restore', exact: true }), name).toBeHidden();
    expect(await stored(page, ASIDE), name).toBe(text);
    expect(await page.evaluate(() => window.__pwned), name).toBeUndefined();
    expect(await page.locator('#session img').count(), name).toBe(0);
    // The defaults (256 × 256), running; not the stored 16 × 16 lattice.
    expect(await lab(page, 'side'), name).toBe(256);
    await expect.poll(() => lab(page, 'ticks')).toBeGreaterThan(0);
    // The page saves again from now on (the bad record is never written back).
    await savedAfterNow(page);
    expect(JSON.parse(await stored(page)).format, name).toBe('boltzlab-session');
    await page.getByRole('button', { name: 'Dismiss', exact: true }).click();
    await expect(page.locator('#session')).toBeHidden();
  }
  console.log(`corrupted stored sessions tried: ${cases.length}`);
});

test('a version-1 session (saved before the engine kept sessions) is still read, and says what it could not keep', async ({
  page,
}) => {
  await page.goto('/www/ui.js');
  await page.evaluate(([k, t]) => window.localStorage.setItem(k, t), [KEY, V1_RECORD]);
  await page.goto('/');
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  const message = page.locator('#session-message');
  await expect(message).toContainText(
    'lattice 16×16, ferromagnet, T = 2.269, 1.0 sweeps; Boltzmann machine on 4-2-4, 3 learning cycles',
  );
  await expect(message).toContainText('saved by an earlier version of this page');
  await expect(message).toContainText('not its cycle count');
  // Nothing is written over it before the choice.
  expect(await stored(page)).toBe(V1_RECORD);
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await expect(page.locator('#persist-status')).toContainText('its cycle count, stage and curves could not be kept');
  expect(JSON.parse(await lab(page, 'export_state'))).toEqual(JSON.parse(V1_STATE));
  expect(JSON.parse(await machine(page, 'export_network'))).toEqual(JSON.parse(V1_NETWORK));
  expect(await machine(page, 'cycles')).toBe(0);
  // From now on the session is kept in the current version.
  await savedAfterNow(page);
  expect(JSON.parse(await stored(page)).version).toBe(2);
});

test('without localStorage the page runs and says sessions are not kept', async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      get() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
  });
  await openApp(page);
  await expect(page.locator('#persist-status')).toContainText('Sessions are not kept');
  await expect.poll(() => lab(page, 'ticks')).toBeGreaterThan(0);
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.locator('#session')).toBeHidden();
});

test('a full storage quota or a lattice too large to keep gives a visible note, not an exception', async ({ page }) => {
  await page.addInitScript(() => {
    const setItem = Storage.prototype.setItem;
    Storage.prototype.setItem = function (key, value) {
      if (key === 'boltzlab.session' && window.__quotaFull)
        throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
      return setItem.call(this, key, value);
    };
  });
  await openApp(page);
  await page.evaluate(() => (window.__quotaFull = true));
  await choose(page, 'Size', '32');
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  await expect(page.locator('#persist-status')).toContainText("Not saved: the browser's storage quota is full");
  await page.evaluate(() => (window.__quotaFull = false));
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  await expect(page.locator('#persist-status')).toContainText('Session kept in this browser at');

  // A 512 × 512 Gaussian glass with bonds of its own (imported, not the seed's): 524 288
  // real couplings do not fit in the budget. (Bonds drawn from the seed are kept as the seed.)
  await choose(page, 'Model', 'spin-glass-gaussian');
  await choose(page, 'Size', '512');
  await page.evaluate(async () => {
    const state = JSON.parse(await window.boltzlabLab.export_state());
    state.bonds[0][0] += 0.5;
    await window.boltzlabLab.dispatch({ command: 'import-state', json: JSON.stringify(state) });
  });
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  await expect(page.locator('#persist-status')).toContainText("Not saved: too large for the browser's storage");
  await expect.poll(() => lab(page, 'ticks')).toBeGreaterThan(0);
});

test('a 2048 × 2048 ferromagnet is packed small enough to keep, and comes back', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  await choose(page, 'Size', '2048');
  await expect(page.locator('#spins')).toHaveJSProperty('width', 2048);
  await pause(page);
  await savedAfterNow(page);
  const text = await stored(page);
  expect(text.length).toBeLessThan(1_500_000);
  const exported = await lab(page, 'export_state');
  expect(exported.length).toBeGreaterThan(4_000_000);
  await reload(page);
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  expect((await lab(page, 'export_state')) === exported).toBe(true);
});
