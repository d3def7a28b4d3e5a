// Nothing lost on reload or close: a clamp stroke painted on a running lattice, then a reload
// (or the tab closed and the page opened again) within 0.3 s, then Restore. The save as the
// page is left cannot wait for the engine's worker, so the page holds, at every moment, the
// worker's latest session (sent about every 0.25 s while it runs) and the commands made since;
// the stroke must come back whole, and at most 1 s of run may be lost after the last frame the
// page had (fixtures.js, lostAtLeaving), at 1 sweep per frame and at maximum speed. Each test
// prints what it measured, also extrapolated to the moment of leaving (the guide's figure).
import { test, expect, openApp, choose, latestCount, recordLeaving, readLeaving, lostAtLeaving } from './fixtures.js';

const SPEEDS = [
  { name: '1 sweep per frame', step: '5' },
  { name: 'maximum speed', step: '8' },
];

// Runs the default 256 × 256 lattice at `step`, paints one clamp stroke across it while it
// runs, and leaves the page at once by `leave(page)`, which returns the page opened again.
// Then restores the saved session and checks what came back.
async function strokeThenLeave(page, name, step, leave) {
  await openApp(page);
  const speed = page.getByRole('slider', { name: 'Speed' });
  await speed.fill(step);
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
  await choose(page, 'Brush', 'clamp');
  // The moment the page is left, and the worker's tick count with the moment it was read from
  // the latest frame the page had then, kept where the next page can read them.
  await recordLeaving(page, 'lattice.frameData', 'ticks');
  // Let it run, and measure its rate in ticks per second.
  await page.waitForTimeout(1500);
  const first = await latestCount(page, 'lattice.frameData', 'ticks');
  await page.waitForTimeout(1500);
  const second = await latestCount(page, 'lattice.frameData', 'ticks');
  const rate = ((second.ticks - first.ticks) / (second.at - first.at)) * 1000;
  expect(rate).toBeGreaterThan(0);

  // One stroke across the middle of the lattice, the run going on, and in one call, without
  // waiting for the worker (the page is to be left at once): the clamps painted (on the page's
  // mirror) and the commands not yet in a session the worker sent (the save on leaving replays
  // them). The scenario is a page left within 0.3 s of the stroke; when a loaded machine makes
  // this call alone take longer, the stroke is painted again lower down (at most 4 strokes).
  const box = await page.locator('#spins-box').boundingBox();
  let painted, pending, strokeEnd, sinceStroke;
  const slow = [];
  for (let stroke = 0; stroke < 4; stroke++) {
    const y = box.y + box.height * (0.5 + 0.1 * stroke);
    await page.mouse.move(box.x + box.width * 0.1, y);
    await page.mouse.down();
    for (let k = 1; k <= 8; k++) await page.mouse.move(box.x + box.width * (0.1 + 0.1 * k), y);
    await page.mouse.up();
    strokeEnd = Date.now();
    ({ painted, pending } = await page.evaluate(() => {
      const lattice = window.boltzlabApp.lattice;
      return { painted: lattice.lab.clamped_count(), pending: lattice.journal.length };
    }));
    sinceStroke = Date.now() - strokeEnd;
    if (sinceStroke < 300) break;
    slow.push(sinceStroke);
  }
  expect(sinceStroke, `the page answered ${slow.join(', ')} ms after each stroke`).toBeLessThan(300);
  const again = await leave(page);
  expect(painted).toBeGreaterThan(500);
  await expect(again.locator('body')).toHaveAttribute('data-ready', 'true');

  await again.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(again.locator('#session')).toBeHidden();
  await expect(again.getByRole('button', { name: 'Run' })).toBeVisible(); // restored paused
  const restored = await again.evaluate(async () => ({
    clamped: await window.boltzlabLab.clamped_count(),
    ticks: await window.boltzlabLab.ticks(),
  }));
  expect(restored.clamped).toBe(painted);
  // How much run is gone: at most 1 s after the last frame the page had (fixtures.js,
  // lostAtLeaving), and the figure extrapolated to the moment of leaving, printed for the guide.
  const left = await readLeaving(again);
  expect(left.leftAt).toBeGreaterThanOrEqual(left.at);
  const lost = lostAtLeaving(left, 'ticks', rate, restored.ticks);
  const measured =
    `${name}: stroke of ${painted} clamps kept; left ${Math.round(left.leftAt - strokeEnd)} ms after it ` +
    `(${Math.round(lost.staleMs)} ms after the worker's last frame was read; ${pending} commands not yet in the worker's session); ` +
    `${lost.seen.toFixed(3)} s of run lost after that frame, ${lost.extrapolated.toFixed(3)} s extrapolated to leaving, ` +
    `at ${rate.toExponential(3)} ticks/s (${restored.ticks} ticks restored, ${left.ticks} in that frame, ${Math.round(lost.atLeaving)} at leaving)`;
  console.log(measured);
  expect(lost.seen, measured).toBeLessThanOrEqual(1);
}

for (const { name, step } of SPEEDS) {
  test(`a clamp stroke on a running lattice at ${name} survives a reload within 0.3 s, with at most 1 s of run lost`, async ({
    page,
  }) => {
    await strokeThenLeave(page, `reload at ${name}`, step, async (p) => {
      await p.reload();
      return p;
    });
  });
}

test('a clamp stroke on a running lattice at maximum speed survives closing the tab within 0.3 s', async ({
  page,
  context,
}) => {
  await strokeThenLeave(page, 'close at maximum speed', '8', async (p) => {
    const closed = p.waitForEvent('close');
    await p.close({ runBeforeUnload: true });
    await closed;
    const again = await context.newPage();
    await again.goto('/');
    return again;
  });
});
