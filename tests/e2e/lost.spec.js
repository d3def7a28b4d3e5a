// Nothing lost, as a new user would lose it: a lattice the menus offer that the session
// could not hold (and whose address then stopped the page), a full storage that hid the
// saved session, an unanswered restore question that kept nothing, and the smaller ways:
// a restricted link with a bad menu value, a file of fewer images than the batch.
import { test, expect, openApp, lab, pause, choose, enter } from './fixtures.js';

const KEY = 'boltzlab.session';
const stored = (page, key = KEY) => page.evaluate((k) => window.localStorage.getItem(k), key);
const saves = async (page) => Number((await page.locator('#persist-status').getAttribute('data-saves')) ?? 0);

// Waits until the page has written the session after this point.
async function savedAfterNow(page) {
  const before = await saves(page);
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  await expect.poll(() => saves(page), { timeout: 60_000 }).toBeGreaterThan(before);
}

async function reload(page) {
  await page.reload();
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
}

// A small saved session: a 16 × 16 ferromagnet at T = 2.269, paused.
async function smallSession(page) {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  await savedAfterNow(page);
}

test('a 2048 × 2048 Gaussian glass from the menus is kept, its address starts the page, and it comes back', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await smallSession(page);
  await choose(page, 'Model', 'spin-glass-gaussian');
  await choose(page, 'Size', '2048');
  await expect(page.locator('#spins')).toHaveJSProperty('width', 2048);
  await page.getByRole('button', { name: 'Run' }).click();
  await expect.poll(() => lab(page, 'ticks')).toBeGreaterThan(0);
  await pause(page);
  await page.evaluate(() => window.boltzlabSettled());
  await expect(page.locator('#alert')).toBeHidden();
  await savedAfterNow(page);
  const record = JSON.parse(await stored(page));
  // The bonds are the seed's: the session holds the seed, not 8.4 million numbers.
  expect(JSON.parse(record.lattice).bonds).toBe('seed');
  expect(record.lattice.length).toBeLessThan(1_500_000);
  const session = await lab(page, 'session');
  expect(page.url()).toContain('model=spin-glass-gaussian');
  expect(page.url()).toContain('size=2048');

  // The address still holds the parameters: the page starts, and offers the session.
  await reload(page);
  await expect(page.locator('#alert')).toBeHidden();
  await expect(page.locator('#session-message')).toContainText('lattice 2048×2048, spin-glass-gaussian');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await page.evaluate(() => window.boltzlabSettled());
  expect((await lab(page, 'session')) === session).toBe(true);
  await expect(page.locator('#alert')).toBeHidden();
});

test('an address with a bad or too-big value gets a message; the page starts and offers the saved session', async ({
  page,
}) => {
  await smallSession(page);
  for (const [fragment, reason] of [
    ['model=spin-glass-gaussian&size=4096', /size must be between 2 and 2048/i],
    ['model=spin-glass-gaussian&size=2048&T=1e9', /temperature must be between 0 and 100/i],
    ['size=16&colour=red', /link parameter must be one of/i],
  ]) {
    // A fresh load of the address (changing only the fragment of an open page is a
    // hashchange, which the page answers by rewriting the address a moment later: a reload
    // after that would open the rewritten address, not this one).
    await page.goto('about:blank');
    await page.goto(`/#${fragment}`);
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    await expect(page.locator('#link-error')).toContainText(reason);
    await expect(page.locator('#alert')).toBeHidden();
    await expect(page.locator('#session-message')).toContainText('lattice 16×16, ferromagnet');
    await expect(page.getByRole('button', { name: 'Restore', exact: true })).toBeVisible();
  }
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  expect(await lab(page, 'side')).toBe(16);
});

// Fills the origin's localStorage until the browser refuses another character.
function fillStorage(page) {
  return page.evaluate(() => {
    let chunk = 'x'.repeat(1 << 20);
    let k = 0;
    while (chunk.length > 0) {
      try {
        window.localStorage.setItem(`filler.${k}`, chunk);
        k += 1;
      } catch {
        chunk = chunk.slice(0, chunk.length >> 1);
      }
    }
    return k;
  });
}

test('full storage says so, and the saved session is still offered and restores', async ({ page }) => {
  await smallSession(page);
  const saved = await stored(page);
  const exported = await lab(page, 'export_state');
  await choose(page, 'Size', '32');
  await fillStorage(page);
  await reload(page);
  await expect(page.locator('#persist-status')).toContainText("The browser's storage for this page is full");
  await expect(page.locator('#persist-status')).not.toContainText('private mode');
  await expect(page.locator('#session-message')).toContainText('lattice 16×16, ferromagnet');
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await page.evaluate(() => window.boltzlabSettled());
  expect(await lab(page, 'export_state')).toBe(exported);
  await expect(page.locator('#persist-status')).toContainText('Restored the session saved at');
  // Still stored (written again over itself when the browser found room for that).
  expect(JSON.parse(await stored(page)).lattice).toBe(JSON.parse(saved).lattice);
});

test('while the restore question waits, the work is kept as a separate session that a reload offers', async ({
  page,
}) => {
  await smallSession(page);
  await reload(page);
  await expect(page.locator('#session-message')).toContainText('lattice 16×16, ferromagnet, T = 2.269');
  const old = await stored(page);
  // Not answered: the user works on.
  await enter(page, 'Temperature value', 1.5);
  await pause(page);
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  await page.evaluate(() => window.boltzlabSettled());
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  await expect(page.locator('#persist-status')).toContainText('your work is kept as a separate session (saved at');
  expect(await stored(page)).toBe(old);
  const exported = await lab(page, 'export_state');

  await reload(page);
  const choice = page.locator('#session-choice');
  await expect(page.locator('#session-choice-box')).toBeVisible();
  const labels = await choice.locator('option').allTextContents();
  expect(labels.length).toBe(2);
  expect(labels.some((l) => l.includes('T = 2.269'))).toBe(true);
  const waited = labels.findIndex((l) => l.includes('T = 1.5'));
  expect(labels[waited]).toContain('in this tab while the question waited');
  expect(waited).toBeGreaterThanOrEqual(0);
  await choice.selectOption(String(waited));
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  await page.evaluate(() => window.boltzlabSettled());
  expect(await lab(page, 'export_state')).toBe(exported);
});

// The fragment `state=<base64url(deflate-raw(text))>`, packed in the page.
function pack(page, text) {
  return page.evaluate(async (t) => {
    const stream = new Blob([t]).stream().pipeThrough(new CompressionStream('deflate-raw'));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    return `state=${btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
  }, text);
}

const optionsLink = (page, options) =>
  pack(
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

test('a restricted link with a bad menu value is refused, changes nothing, and the next good link works', async ({
  page,
}) => {
  await openApp(page);
  // (MNIST is on the menu now, but a restricted link carries only the small image sets; a set
  // that is on no menu is refused by the page before the engine sees it.)
  const bad = await optionsLink(page, { dataset: 'cifar', hidden: 9, seed: 3 });
  await page.evaluate((f) => (window.location.hash = f), bad);
  await expect(page.locator('#link-error')).toContainText(/its dataset 'cifar' is not one of digits8, bars-4x4/i);
  await expect(page.locator('#rbm-dataset')).toHaveValue('digits8');
  const good = await optionsLink(page, { dataset: 'bars-4x4', hidden: 12, seed: 5 });
  await page.evaluate((f) => (window.location.hash = f), good);
  await expect(page.locator('#link-error')).toBeHidden();
  await expect(page.locator('#bm-kind-restricted')).toBeChecked();
  await expect(page.locator('#rbm-dataset')).toHaveValue('bars-4x4');
  await expect(page.locator('#rbm-setup-done')).toContainText('A 16-12 machine on bars-4x4');
});

test('a file of 1 or 2 images makes a machine whose batch is all of them, said beside the file', async ({ page }) => {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await expect(page.locator('#rbm')).toBeVisible();
  for (const [text, count] of [
    ['0110\n', 1],
    ['0110\n1001\n', 2],
  ]) {
    await page
      .locator('#rbm-file')
      .setInputFiles({ name: `${count}.txt`, mimeType: 'text/plain', buffer: Buffer.from(text) });
    await expect(page.locator('#rbm-dataset')).toHaveValue('file');
    await page.locator('#rbm-batch').fill('100');
    await page.getByRole('button', { name: 'New machine' }).click();
    await expect(page.locator('#rbm-training-error')).toBeHidden();
    await expect(page.locator('#rbm-setup-error')).toBeHidden();
    await expect(page.locator('#rbm-setup-done')).toContainText(
      `The file has ${count} image${count === 1 ? '' : 's'}, so the batch is ${count}.`,
    );
    await expect(page.locator('#rbm-batch')).toHaveValue(String(count));
  }
});

test('an image file too large for the page is refused before it is read, and the file chosen before stays', async ({
  page,
}) => {
  await openApp(page);
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await expect(page.locator('#rbm')).toBeVisible();
  await page
    .locator('#rbm-file')
    .setInputFiles({ name: 'two.txt', mimeType: 'text/plain', buffer: Buffer.from('0110\n1001\n') });
  await expect(page.locator('#rbm-dataset')).toHaveValue('file');
  // 2 MB and one byte of 64-pixel lines (the limit is the page's MAX_FILE_BYTES, 2 MB).
  const line = '01'.repeat(32) + '\n';
  const big = Buffer.from(line.repeat(Math.ceil(2_000_001 / line.length)));
  await page.locator('#rbm-file').setInputFiles({ name: 'big.txt', mimeType: 'text/plain', buffer: big });
  await expect(page.locator('#rbm-setup-error')).toContainText(
    /big\.txt is 2\.0 MB; the page reads image files of at most 2 MB/,
  );
  await expect(page.locator('#rbm-setup-error')).toContainText('boltzlab learn --machine rbm --data FILE');
  // The two-image file chosen before is still the one a new machine learns.
  await page.getByRole('button', { name: 'New machine' }).click();
  await expect(page.locator('#rbm-setup-done')).toContainText('The file has 2 images');
  await expect(page.locator('#rbm-setup-error')).toBeHidden();
});
