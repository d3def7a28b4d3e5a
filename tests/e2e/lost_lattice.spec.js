// Nothing lost on reload: a clamp stroke painted on a running lattice, then a reload within
// 0.3 s, then Restore. The save as the page is left cannot wait for the engine's worker, so
// the page holds, at every moment, the worker's latest session (sent about every 0.5 s while
// it runs) and the commands made since; the stroke must come back whole, and at most 1 s of
// run may be lost, at 1 sweep per frame and at maximum speed. Each test prints what it
// measured (the worst case goes into the guide).
import { test, expect, openApp, lab, choose } from './fixtures.js';

const SPEEDS = [
  { name: '1 sweep per frame', step: '5' },
  { name: 'maximum speed', step: '8' },
];

// The worker's tick count and the time it was read (ms, page clock).
const ticksNow = (page) =>
  page.evaluate(async () => ({ ticks: await window.boltzlabLab.ticks(), at: performance.now() }));

for (const { name, step } of SPEEDS) {
  test(`a clamp stroke on a running lattice at ${name} survives a reload within 0.3 s, with at most 1 s of run lost`, async ({
    page,
  }) => {
    await openApp(page);
    const speed = page.getByRole('slider', { name: 'Speed' });
    await speed.fill(step);
    await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
    await choose(page, 'Brush', 'clamp');
    // Let it run, and measure its rate in ticks per second.
    await page.waitForTimeout(1500);
    const first = await ticksNow(page);
    await page.waitForTimeout(1500);
    const second = await ticksNow(page);
    const rate = ((second.ticks - first.ticks) / (second.at - first.at)) * 1000;
    expect(rate).toBeGreaterThan(0);

    // One stroke across the middle of the 256 × 256 lattice, the run going on.
    const box = await page.locator('#spins-box').boundingBox();
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.1, y);
    await page.mouse.down();
    for (let k = 1; k <= 8; k++) await page.mouse.move(box.x + box.width * (0.1 + 0.1 * k), y);
    await page.mouse.up();
    const strokeEnd = Date.now();
    const painted = await page.evaluate(() => window.boltzlabApp.lattice.lab.clamped_count());
    expect(painted).toBeGreaterThan(500);
    const last = await ticksNow(page);
    const sinceStroke = Date.now() - strokeEnd;
    expect(sinceStroke).toBeLessThan(300);
    await page.reload();
    await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');

    await page.getByRole('button', { name: 'Restore', exact: true }).click();
    await expect(page.locator('#session')).toBeHidden();
    await expect(page.getByRole('button', { name: 'Run' })).toBeVisible(); // restored paused
    expect(await lab(page, 'clamped_count')).toBe(painted);
    const restored = await lab(page, 'ticks');
    // The run restored is from before the reload, and at most 1 s of it is gone.
    expect(restored).toBeLessThanOrEqual(last.ticks + rate * 0.5);
    const lostSeconds = Math.max(0, last.ticks - restored) / rate;
    console.log(
      `${name}: stroke of ${painted} clamps kept; reload ${sinceStroke} ms after it; ` +
        `${last.ticks - restored} ticks lost = ${lostSeconds.toFixed(3)} s at ${rate.toExponential(3)} ticks/s`,
    );
    expect(lostSeconds).toBeLessThanOrEqual(1);
  });
}
