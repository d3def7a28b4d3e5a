// Painting on the spin canvas, the clamp brush and the phase switch.
import { test, expect, openApp, lab, pause, choose, enter, spinsAndClamps, drag } from './fixtures.js';

test('painted clamped spins stay fixed while the phase is clamped and move once it is free', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  await pause(page);
  await page.getByRole('button', { name: 'All down' }).click();
  await choose(page, 'Brush', 'up');
  await page.getByRole('slider', { name: 'Brush size' }).fill('1');
  await drag(page, 32, [4, 10], [27, 10]);
  let state = await spinsAndClamps(page);
  const painted = state.spins.flatMap((s, i) => (s === 1 ? [i] : []));
  // Rows 9 to 11 across the stroke: about 3 × 24 spins.
  expect(painted.length).toBeGreaterThan(60);
  expect(painted.every((i) => Math.abs(Math.floor(i / 32) - 10) <= 1)).toBe(true);

  await choose(page, 'Brush', 'clamp');
  await drag(page, 32, [4, 10], [27, 10]);
  state = await spinsAndClamps(page);
  // The clamp stroke lies on the painted band (two drags need not hit the same pixels: the
  // browser coalesces mouse moves under load); the law below is about the sites it clamped
  // that were painted up.
  const clamped = state.clamps.flatMap((c, i) => (c && state.spins[i] === 1 ? [i] : []));
  expect(clamped.length).toBeGreaterThan(60);
  expect(state.clamps.every((c, i) => !c || Math.abs(Math.floor(i / 32) - 10) <= 1)).toBe(true);
  await expect(page.locator('#phase-shown')).toHaveText(`clamped (${state.clamps.filter(Boolean).length})`);
  // Clamped spins are drawn in their own colour (amber for up).
  const amber = await page.locator('#spins').evaluate((canvas, site) => {
    const [r, g, b] = canvas.getContext('2d').getImageData(site % 32, Math.floor(site / 32), 1, 1).data;
    return [r, g, b];
  }, clamped[0]);
  expect(amber).toEqual([255, 183, 3]);

  // Hot and fast: free spins churn, the clamped ones hold over many sweeps.
  await enter(page, 'Temperature value', 20);
  await page.getByRole('slider', { name: 'Speed' }).fill('7');
  await page.getByRole('button', { name: 'Run' }).click();
  const start = await lab(page, 'sweeps');
  for (let k = 0; k < 10; k++) {
    await page.waitForTimeout(100);
    state = await spinsAndClamps(page);
    expect(clamped.every((i) => state.spins[i] === 1)).toBe(true);
  }
  expect(await lab(page, 'sweeps')).toBeGreaterThan(start + 100);
  const others = state.spins.filter((s, i) => !state.clamps[i]);
  expect(Math.abs(others.reduce((a, b) => a + b, 0)) / others.length).toBeLessThan(0.3);

  // The phase switch, always beside the canvas: free lets the same spins move.
  await page.getByRole('radio', { name: 'free' }).check();
  await expect(page.locator('#phase-shown')).toHaveText('free');
  await expect
    .poll(async () => {
      const now = await spinsAndClamps(page);
      return clamped.filter((i) => now.spins[i] === -1).length;
    })
    .toBeGreaterThan(clamped.length / 4);
  // Back to clamped holds them again; "Release all clamps" empties the mask.
  await page.getByRole('radio', { name: 'clamped' }).check();
  expect(await lab(page, 'clamps_on')).toBe(true);
  await page.getByRole('button', { name: 'Release all clamps' }).click();
  expect(await lab(page, 'clamped_count')).toBe(0);
  await expect(page.locator('#phase-shown')).toHaveText('clamped (0)');
});

test('the clamp brush is refused under Wolff dynamics with the reason shown', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await choose(page, 'Rule', 'wolff');
  await choose(page, 'Brush', 'clamp');
  await drag(page, 16, [2, 2], [6, 2]);
  await expect(page.locator('#brush-error')).toContainText('Wolff cluster moves cannot respect clamped spins');
  expect(await lab(page, 'clamped_count')).toBe(0);
  await choose(page, 'Brush', 'down');
  await page.getByRole('slider', { name: 'Brush size' }).fill('0');
  await pause(page);
  await drag(page, 16, [3, 3], [3, 3]);
  await expect(page.locator('#brush-error')).toBeHidden();
  const state = await spinsAndClamps(page);
  expect(state.spins[3 + 16 * 3]).toBe(-1);
});
