// Export and share: PNG, trace CSV, the JSON state and its import, the share link; bad
// files and links are explained and change nothing.
import { readFile } from 'node:fs/promises';
import { test, expect, openApp, lab, pause, choose, enter } from './fixtures.js';

async function downloadText(page, button) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  return {
    name: download.suggestedFilename(),
    text: await readFile(await download.path(), 'utf8'),
    path: await download.path(),
  };
}

test('export → import restores the same state, which then runs on identically', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  await choose(page, 'Model', 'spin-glass-gaussian');
  await enter(page, 'Temperature value', 1.3);
  await choose(page, 'Order', 'checkerboard');
  await choose(page, 'Brush', 'clamp');
  const box = await page.locator('#spins-box').boundingBox();
  await page.mouse.move(box.x + 20, box.y + 20);
  await page.mouse.down();
  await page.mouse.move(box.x + 120, box.y + 60);
  await page.mouse.up();
  await pause(page);
  await page.getByRole('button', { name: 'Step one tick' }).click();
  const exported = await downloadText(page, 'Export state (JSON)');
  expect(exported.name).toBe('boltzlab-state.json');
  expect(exported.text).toBe(await lab(page, 'export_state'));
  expect(JSON.parse(exported.text).clamped.length).toBeGreaterThan(5);

  // Change everything, then import.
  await choose(page, 'Size', '64');
  await choose(page, 'Model', 'ferromagnet');
  await page.getByRole('button', { name: 'All up' }).click();
  await page.getByLabel('Import state (JSON)').setInputFiles(exported.path);
  await expect(page.locator('#import-done')).toContainText('Imported');
  expect(await lab(page, 'export_state')).toBe(exported.text);
  await expect(page.getByLabel('Model', { exact: true })).toHaveValue('spin-glass-gaussian');
  await expect(page.getByLabel('Size', { exact: true })).toHaveValue('32');
  await expect(page.getByLabel('Order', { exact: true })).toHaveValue('checkerboard');
  await expect(page.getByLabel('Temperature value')).toHaveValue('1.3');

  // The restored run continues exactly: a second page imports the same file; both step
  // 1000 ticks and agree.
  const other = await page.context().newPage();
  await openApp(other);
  await pause(other);
  await other.getByLabel('Import state (JSON)').setInputFiles(exported.path);
  await expect(other.locator('#import-done')).toContainText('Imported');
  for (const p of [page, other]) await p.evaluate(() => window.boltzlabLab.advance(1000));
  expect(await lab(other, 'export_state')).toBe(await lab(page, 'export_state'));
  await other.close();
});

test('a malformed JSON import shows an error and leaves the state unchanged', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await pause(page);
  const before = await lab(page, 'export_state');
  const good = JSON.parse(before);
  for (const [name, content, message] of [
    ['broken.json', '{"format": "boltzlab-lattice", "version": 1, "spins": [', 'not a boltzlab lattice state'],
    ['size.json', JSON.stringify({ ...good, size: 17 }), 'need 17 rows'],
    ['temperature.json', JSON.stringify({ ...good, temperature: -2 }), /temperature must be between 0 and 100/i],
    [
      'spin.json',
      JSON.stringify({
        ...good,
        spins: good.spins.map((r, y) => (y === 3 ? r.replace('+', '0').replace('-', '0') : r)),
      }),
      "a spin is '+' or '-'",
    ],
  ]) {
    await page
      .getByLabel('Import state (JSON)')
      .setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(content) });
    await expect(page.locator('#import-error')).toContainText(`Nothing was changed: ${name} could not be imported`);
    await expect(page.locator('#import-error')).toContainText(message);
    expect(await lab(page, 'export_state')).toBe(before);
  }
  await expect(page.getByLabel('Size', { exact: true })).toHaveValue('16');
});

test('a share link round-trips the parameters and replays the same run', async ({ page, context }) => {
  await openApp(page);
  await choose(page, 'Model', 'antiferromagnet');
  await choose(page, 'Size', '64');
  await enter(page, 'Temperature value', 1.8);
  await enter(page, 'Field h value', 0.3);
  await choose(page, 'Rule', 'metropolis');
  await choose(page, 'Order', 'checkerboard');
  await choose(page, 'Boundary', 'open');
  await enter(page, 'Seed', 42);
  const link = await page.getByLabel('Share link').inputValue();
  expect(link).toContain(
    '#model=antiferromagnet&size=64&T=1.8&h=0.3&rule=metropolis&order=checkerboard&boundary=open&seed=42',
  );
  await expect.poll(() => page.url()).toBe(link);

  const other = await context.newPage();
  await openApp(other, link.slice(link.indexOf('/', 8)));
  await expect(other.getByLabel('Model', { exact: true })).toHaveValue('antiferromagnet');
  await expect(other.getByLabel('Size', { exact: true })).toHaveValue('64');
  await expect(other.getByLabel('Temperature value')).toHaveValue('1.8');
  await expect(other.getByLabel('Field h value')).toHaveValue('0.3');
  await expect(other.getByLabel('Rule', { exact: true })).toHaveValue('metropolis');
  await expect(other.getByLabel('Order', { exact: true })).toHaveValue('checkerboard');
  await expect(other.getByLabel('Boundary', { exact: true })).toHaveValue('open');
  await expect(other.getByLabel('Seed', { exact: true })).toHaveValue('42');
  expect(await lab(other, 'fragment')).toBe(await lab(page, 'fragment'));
  // Same seed, same film: both restart from the link and agree after the same ticks.
  for (const p of [page, other]) {
    await pause(p);
    await p.evaluate(() => {
      const lab = window.boltzlabLab;
      lab.apply_fragment(lab.fragment());
      lab.advance(5000);
    });
  }
  expect(await lab(other, 'export_state')).toBe(await lab(page, 'export_state'));
  await other.close();
});

test('a malformed link shows an error and leaves the state unchanged', async ({ page }) => {
  // Opened with a bad link: the page starts with its defaults and says why.
  await openApp(page, '/#model=ferromagnet&size=3.5');
  await expect(page.locator('#link-error')).toContainText('Size must be a whole number');
  expect(await lab(page, 'side')).toBe(256);

  // A bad link typed into a running page: an error, and nothing changes.
  await choose(page, 'Size', '32');
  await pause(page);
  const before = await lab(page, 'export_state');
  for (const [hash, message] of [
    ['#T=banana', "'banana' is not a number"],
    ['#size=64&colour=red', 'Link parameter must be one of'],
    ['#rule=wolff&h=1', 'Wolff cluster moves need zero field h'],
  ]) {
    await page.evaluate((h) => {
      window.location.hash = h;
    }, hash);
    await expect(page.locator('#link-error')).toContainText(message);
    await expect(page.locator('#link-error')).toContainText('nothing was changed');
    expect(await lab(page, 'export_state')).toBe(before);
    await expect(page.getByLabel('Size', { exact: true })).toHaveValue('32');
  }
  // A good one is applied and clears the message.
  await page.evaluate(() => {
    window.location.hash = '#size=16&T=1.5';
  });
  await expect(page.locator('#link-error')).toBeHidden();
  await expect(page.getByLabel('Size', { exact: true })).toHaveValue('16');
});

test('PNG of the lattice and CSV of the trace download', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '64');
  const png = await downloadText(page, 'Download PNG');
  expect(png.name).toBe('boltzlab-lattice-64.png');
  const bytes = await readFile(png.path);
  expect([...bytes.subarray(1, 4)].map((b) => String.fromCharCode(b)).join('')).toBe('PNG');
  expect(bytes.readUInt32BE(16)).toBe(512); // width: 64 spins × 8
  const csv = await downloadText(page, 'Download trace CSV');
  expect(csv.name).toBe('boltzlab-trace.csv');
  const lines = csv.text.trim().split('\n');
  expect(lines[0]).toBe('sweeps,energy_per_spin,magnetization_per_spin');
  expect(lines.length).toBeGreaterThan(2);
});
