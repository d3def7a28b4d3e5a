// State links (www/link.js): Copy link packs the engine's own session text of the mode
// shown into the URL fragment (deflate-raw, base64url), and a fresh page opening it holds
// exactly that state: a painted and stepped lattice (the engine's exported state compared
// whole), a machine after some learning (its session text, weights and phase), a restricted
// machine after learning (its updates and weights), a teacher's
// machine lesson with a hidden and a locked part. Malformed, damaged, foreign or NaN-bearing
// links are explained and change nothing. Link lengths are printed for the report.
import { test, expect, openApp, lab, pause, choose } from './fixtures.js';

// The fragment `state=<base64url(deflate-raw(text))>` packed in the page, independently of
// link.js (so a test can pack texts link.js would never make).
function pack(page, text) {
  return page.evaluate(async (t) => {
    const stream = new Blob([t]).stream().pipeThrough(new CompressionStream('deflate-raw'));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    return `state=${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
  }, text);
}

const stateLink = (session, extra = {}) =>
  JSON.stringify({ format: 'boltzlab-link', version: 1, mode: 'lattice', session, ...extra });

async function copiedLink(page, button, field, done) {
  await page.locator(`#${button}`).click();
  await expect(page.locator(`#${done}`)).toContainText('characters');
  return page.locator(`#${field}`).inputValue();
}

test('a painted and stepped lattice → Copy link → a fresh page holds exactly that state', async ({ page, browser }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  await choose(page, 'Brush', 'clamp');
  const box = await page.locator('#spins-box').boundingBox();
  await page.mouse.move(box.x + 20, box.y + 20);
  await page.mouse.down();
  await page.mouse.move(box.x + 120, box.y + 60);
  await page.mouse.up();
  await choose(page, 'Brush', 'down');
  await page.mouse.move(box.x + 150, box.y + 150);
  await page.mouse.down();
  await page.mouse.move(box.x + 200, box.y + 220);
  await page.mouse.up();
  await pause(page);
  await page.getByRole('button', { name: 'Step one tick' }).click();
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  await page.evaluate(() => window.boltzlabSettled());
  const state = await lab(page, 'export_state');
  expect(JSON.parse(state).clamped.length).toBeGreaterThan(5);
  const link = await copiedLink(page, 'copy-link', 'share-link', 'copy-done');
  expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#state=[A-Za-z0-9_-]+$/);

  const other = await browser.newPage();
  await openApp(other, link);
  await other.evaluate(() => window.boltzlabSettled());
  expect(await lab(other, 'export_state')).toBe(state);
  await expect(other.locator('#run')).toHaveAttribute('aria-pressed', 'false');
  await expect(other.locator('#link-error')).toBeHidden();
  // Both run on identically.
  for (const p of [page, other]) await p.evaluate(() => window.boltzlabLab.advance(500));
  expect(await lab(other, 'export_state')).toBe(await lab(page, 'export_state'));
  await other.close();

  // The parameters link still carries only the parameters and seed.
  await page.locator('#copy-params').click();
  expect(await page.locator('#share-link').inputValue()).toContain(`#${await lab(page, 'fragment')}`);

  // The default 256² lattice after a few sweeps, for the report's link length.
  const fresh = await browser.newPage();
  await openApp(fresh);
  await expect.poll(() => fresh.evaluate(() => window.boltzlabLab.sweeps())).toBeGreaterThan(2);
  const big = await copiedLink(fresh, 'copy-link', 'share-link', 'copy-done');
  console.log(`state link, 256x256 lattice: ${big.length} characters`);
  expect(big).toContain('#state=');
  // A 256² Gaussian glass whose bonds its seed drew keeps them as the seed: an exact link.
  await choose(fresh, 'Model', 'spin-glass-gaussian');
  const glass = await copiedLink(fresh, 'copy-link', 'share-link', 'copy-done');
  expect(glass).toContain('#state=');
  expect(glass.length).toBeLessThan(2 * big.length);
  // With bonds of its own (imported) it keeps 2L² real bonds: its state would make a link
  // over 1 MB, so Copy link falls back to the parameters and seed (the run from its seeded
  // start) and says so.
  await fresh.evaluate(async () => {
    const state = JSON.parse(await window.boltzlabLab.export_state());
    state.bonds[0][0] += 0.5;
    await window.boltzlabLab.dispatch({ command: 'import-state', json: JSON.stringify(state) });
  });
  await fresh.locator('#copy-link').click();
  await expect(fresh.locator('#copy-done')).toContainText('carries only the parameters and seed');
  expect(await fresh.locator('#share-link').inputValue()).toContain(`#${await lab(fresh, 'fragment')}`);
  await fresh.close();
});

test('a machine after some learning → Copy link → the same weights, cycle and phase', async ({ page, browser }) => {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await choose(page, 'Dataset', '40-10-40');
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => page.evaluate(() => window.boltzlabMachine.cycles())).toBeGreaterThan(1);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  await page.getByRole('button', { name: 'Step one learning sweep' }).click();
  const before = await page.evaluate(async () => {
    const m = window.boltzlabMachine;
    return {
      session: await m.session(),
      phase: await m.phase(),
      cycles: await m.cycles(),
      network: await m.export_network(),
    };
  });
  const link = await copiedLink(page, 'bm-copy-link', 'bm-share-link', 'bm-copy-done');
  console.log(`state link, 40-10-40 machine after ${before.cycles} cycles: ${link.length} characters`);

  const other = await browser.newPage();
  await openApp(other, link);
  await expect(other.locator('#machine')).toBeVisible();
  await expect(other.locator('#bm-dataset')).toHaveValue('40-10-40');
  const after = await other.evaluate(async () => {
    const m = window.boltzlabMachine;
    return {
      session: await m.session(),
      phase: await m.phase(),
      cycles: await m.cycles(),
      network: await m.export_network(),
    };
  });
  expect(after).toEqual(before);
  await other.close();
});

test('a teacher’s machine lesson: the machine exactly, a part hidden and one locked', async ({ page, browser }) => {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.getByRole('button', { name: 'Step one learning cycle' }).click();
  const session = await page.evaluate(() => window.boltzlabMachine.session());
  await page.locator('#teach summary').click();
  await expect(page.locator('#teach-parts select[data-part="model"]')).toBeHidden();
  await page.getByLabel('Title').fill('Watch the codes');
  await page.locator('#teach-parts select[data-part="options"]').selectOption('hidden');
  await page.locator('#teach-parts select[data-part="learning"]').selectOption('locked');
  await page.getByRole('button', { name: 'Copy lesson link' }).click();
  await expect(page.locator('#teach-link')).toHaveValue(/teach=1/);
  const link = await page.locator('#teach-link').inputValue();
  expect(link).toMatch(/\?teach=1&title=Watch\+the\+codes&hide=options&lock=learning#state=/);

  const other = await browser.newPage();
  await openApp(other, link);
  await expect(other.locator('#lesson-title')).toHaveText('Lesson: Watch the codes');
  await expect(other.locator('#machine')).toBeVisible();
  expect(await other.evaluate(() => window.boltzlabMachine.session())).toBe(session);
  await expect(other.locator('#bm-dataset')).toBeHidden();
  await expect(other.locator('#bm-run')).toBeDisabled();
  await expect(other.locator('#bm-explore-clamped')).toBeEnabled();
  await other.getByRole('button', { name: 'Explore freely' }).click();
  await expect(other.locator('#bm-dataset')).toBeVisible();
  await expect(other.locator('#bm-run')).toBeEnabled();
  await other.close();
});

test('bad state links are explained and the page keeps its state', async ({ page, browser }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  await page.evaluate(() => window.boltzlabSettled());
  const good = await lab(page, 'export_state');
  const session = await lab(page, 'session');
  const machineSession = await page.evaluate(() => {
    window.boltzlabApp.machine.enter();
    return window.boltzlabMachine.session();
  });
  const cases = [
    ['malformed base64', 'state=ab$cd!', 'not base64url'],
    ['cut to one character past a block', 'state=AAAAA', 'not base64url'],
    ['bad deflate', 'state=AAAA', 'compressed data is damaged'],
    ['wrong format', await pack(page, '{"format":"boltzlab-session","version":2}'), 'does not hold a boltzlab state'],
    ['not JSON', await pack(page, 'hello'), 'does not hold a boltzlab state'],
    ['unknown mode', await pack(page, stateLink(session, { mode: 'sea' })), 'none of lattice, machine and memory'],
    ['a machine session as a lattice', await pack(page, stateLink(machineSession)), 'could not be used'],
    [
      'NaN inside the lattice',
      await pack(page, stateLink(session.replace(/"temperature":[^,}]+/, '"temperature":NaN'))),
      'could not be used',
    ],
    [
      'NaN inside the machine',
      await pack(page, stateLink(machineSession.replace(/(-?\d+\.\d+)/, 'NaN'), { mode: 'machine', kind: 'full' })),
      'could not be used',
    ],
  ];
  for (const [name, fragment, message] of cases) {
    await page.evaluate(() => (document.getElementById('link-error').hidden = true));
    await page.evaluate((f) => (window.location.hash = f), fragment);
    await expect(page.locator('#link-error'), name).toBeVisible();
    await expect(page.locator('#link-error'), name).toContainText(message);
    await expect(page.locator('#link-error'), name).toContainText('nothing was changed');
    expect(await lab(page, 'export_state'), name).toBe(good);
    expect(await page.evaluate(() => window.boltzlabMachine.session()), name).toBe(machineSession);
  }
  // Opened in a fresh page: the defaults, with the reason.
  const fresh = await browser.newPage();
  await openApp(fresh, '/#state=AAAA');
  await expect(fresh.locator('#link-error')).toContainText('compressed data is damaged');
  expect(await lab(fresh, 'side')).toBe(256);
  await fresh.close();
});

// The lattice writes its parameters into the address a moment after a change
// (lattice/share.js). If that lands after a link is typed but before the page reads it,
// the link must still be read: here the address is replaced in the same task, so the
// hashchange event always finds it replaced.
test('a state link still opens when the address was rewritten before the page read it', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  const good = await lab(page, 'export_state');
  const parameters = await lab(page, 'fragment');
  await page.evaluate((f) => {
    window.location.hash = 'state=AAAA';
    window.history.replaceState(null, '', `#${f}`);
  }, parameters);
  await expect(page.locator('#link-error')).toBeVisible();
  await expect(page.locator('#link-error')).toContainText('compressed data is damaged');
  expect(await lab(page, 'export_state')).toBe(good);
});

// The page's restricted machine: its update count and W (read from its worker through the
// app's test hook).
function restricted(page) {
  return page.evaluate(async () => {
    const rbm = window.boltzlabApp.machine.rbm;
    const w = Array.from(await rbm.read('weights'));
    return { updates: await rbm.read('updates'), hidden: await rbm.read('hidden'), w };
  });
}

test('a restricted machine after learning → Copy link → a fresh page holds the same run', async ({ page, browser }) => {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await page.getByLabel('Hidden layer').fill('20');
  await page.getByLabel('RBM seed').fill('7');
  await page.getByRole('button', { name: 'New machine' }).click();
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => restricted(page).then((r) => r.updates), { timeout: 60_000 }).toBeGreaterThanOrEqual(50);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  // The worker's session as it stopped is the one the link carries.
  await page.evaluate(() => window.boltzlabApp.machine.rbm.idle());
  const before = await restricted(page);
  const link = await copiedLink(page, 'bm-copy-link', 'bm-share-link', 'bm-copy-done');
  await expect(page.locator('#bm-copy-done')).toContainText('exactly this restricted machine');
  console.log(`restricted 64-20 digits machine at update ${before.updates}: link of ${link.length} characters`);

  const other = await browser.newPage();
  await openApp(other, link);
  await expect(other.locator('#rbm')).toBeVisible();
  await expect(other.locator('#bm-kind-restricted')).toBeChecked();
  expect(await restricted(other)).toEqual(before);
  expect(await other.locator('#rbm-hidden').inputValue()).toBe('20');
  await other.close();
});

test('a restricted link with options only starts a new run from them', async ({ page }) => {
  await openApp(page);
  const options = { dataset: 'bars-4x4', hidden: 12, seed: 5, statistics: 'cd', steps: 1, particles: 100 };
  const fragment = await pack(
    page,
    JSON.stringify({
      format: 'boltzlab-link',
      version: 1,
      mode: 'machine',
      kind: 'restricted',
      session: null,
      options,
    }),
  );
  await openApp(page, `/#${fragment}`);
  await expect(page.locator('#rbm')).toBeVisible();
  await expect(page.locator('#bm-kind-restricted')).toBeChecked();
  expect(await page.locator('#rbm-dataset').inputValue()).toBe('bars-4x4');
  expect(await page.locator('#rbm-hidden').inputValue()).toBe('12');
  expect(await page.locator('#rbm-statistics').inputValue()).toBe('cd');
});
