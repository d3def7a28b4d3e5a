// A panic (caused on purpose through the engine's test-only fault_for_tests) and an
// uncaught page error are shown in an overlay; the last good state can still be exported,
// and a reload offers it back.
import { readFile } from 'node:fs/promises';
import { test, expect, openApp, lab, enter } from './fixtures.js';

const stored = (page) => page.evaluate(() => window.localStorage.getItem('boltzlab.session'));
// The lattice of a stored session record: the engine's session text, parsed.
const storedLattice = (text) => JSON.parse(JSON.parse(text).lattice);

test.describe('an engine panic', () => {
  // console_error_panic_hook logs the panic: exactly that console error is expected.
  test.use({
    expectedProblems: {
      patterns: [/^console error: panicked at src[\\/]web[\\/]fault\.rs.*deliberate panic for tests/s],
    },
  });

  test('shows the overlay, stops the engine, exports the last good state and restores it after reload', async ({
    page,
  }) => {
    await openApp(page);
    await enter(page, 'Temperature value', 1.5);
    await expect
      .poll(async () => {
        const text = await stored(page);
        return text === null ? null : storedLattice(text).temperature;
      })
      .toBe(1.5);
    const savedTicks = storedLattice(await stored(page)).ticks;

    const thrown = await page.evaluate(() => {
      try {
        window.boltzlabEngine.fault_for_tests();
        return null;
      } catch (err) {
        return String(err);
      }
    });
    expect(thrown).toMatch(/RuntimeError|unreachable/);
    const overlay = page.getByRole('alertdialog', { name: 'The engine stopped' });
    await expect(overlay).toBeVisible();
    await expect(page.locator('#fault-message')).toContainText('deliberate panic for tests');
    await expect(page.locator('#fault-advice')).toContainText('The last saved session');
    await expect(page.getByRole('button', { name: 'Dismiss', exact: true })).toBeHidden();
    await expect(page.locator('body')).toHaveAttribute('data-fault', 'panic');

    // Nothing from the stopped engine is saved any more, not even on leaving the page.
    const before = await stored(page);
    await page.waitForTimeout(4000);
    expect(await stored(page)).toBe(before);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export last good state' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('boltzlab-state.json');
    const file = await download.path();
    const state = JSON.parse(await readFile(file, 'utf8'));
    // The engine's lattice session text, which Import state reads back.
    expect(state.format).toBe('boltzlab-lattice-session');
    expect(state.temperature).toBe(1.5);
    expect(state.ticks).toBe(storedLattice(before).ticks);
    expect(state.ticks).toBeGreaterThanOrEqual(savedTicks);

    await page.getByRole('button', { name: 'Reload and restore' }).click();
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
    await expect(overlay).toBeHidden();
    expect(await stored(page)).toBe(before);
    await page.getByRole('button', { name: 'Restore', exact: true }).click();
    expect(await lab(page, 'temperature')).toBe(1.5);
    expect(await lab(page, 'ticks')).toBe(state.ticks);
    // The restored state is the exported one, field for field.
    expect(JSON.parse(await lab(page, 'session'))).toEqual(state);
    // And Import state reads the exported file back.
    await page.getByRole('button', { name: 'Step one sweep' }).click();
    await page.locator('#import-state').setInputFiles(file);
    await expect(page.locator('#import-done')).toBeVisible();
    expect(JSON.parse(await lab(page, 'session'))).toEqual(state);
  });
});

test.describe('an uncaught page error', () => {
  test.use({ expectedProblems: { patterns: [/^page error: a test error <img src=x onerror=window.__pwned=1>$/] } });

  test('is shown as text in the overlay, and the page goes on after Dismiss', async ({ page }) => {
    await openApp(page);
    await page.evaluate(() =>
      setTimeout(() => {
        throw new Error('a test error <img src=x onerror=window.__pwned=1>');
      }),
    );
    const overlay = page.getByRole('alertdialog', { name: 'Something went wrong in the page' });
    await expect(overlay).toBeVisible();
    await expect(page.locator('#fault-message')).toContainText('a test error <img src=x onerror=window.__pwned=1>');
    expect(await page.locator('#fault img').count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    await page.getByRole('button', { name: 'Dismiss', exact: true }).click();
    await expect(overlay).toBeHidden();
    const ticks = await lab(page, 'ticks');
    await expect.poll(() => lab(page, 'ticks')).toBeGreaterThan(ticks);
  });

  test.describe('an unhandled rejection', () => {
    test.use({ expectedProblems: { patterns: [/^page error: a rejected promise$/] } });
    test('is shown too', async ({ page }) => {
      await openApp(page);
      await page.evaluate(() => {
        Promise.reject(new Error('a rejected promise'));
      });
      await expect(page.getByRole('alertdialog', { name: 'Something went wrong in the page' })).toBeVisible();
      await expect(page.locator('#fault-message')).toContainText('a rejected promise');
    });
  });
});
