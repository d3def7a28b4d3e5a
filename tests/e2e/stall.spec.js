// Nothing lost, without a stall: saving a 2048 × 2048 session keeps the main thread busy for
// how long? Measured and printed, never asserted (the figure depends on the machine). The
// engine's worker packs the lattice; the main thread joins the record and writes it.
import { test, expect, openApp, choose, pause } from './fixtures.js';

test('saving a 2048 × 2048 session: the main thread stall is measured', async ({ page }) => {
  test.setTimeout(180_000);
  await openApp(page);
  await choose(page, 'Size', '2048');
  await expect(page.locator('#spins')).toHaveJSProperty('width', 2048);
  await pause(page);
  const figures = await page.evaluate(async () => {
    const longTasks = [];
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push(entry.duration);
    });
    observer.observe({ type: 'longtask' });
    const calls = [];
    const parts = [];
    for (let k = 0; k < 5; k++) {
      // A task of its own for each save, as the page's timer gives it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const t0 = performance.now();
      const done = window.boltzlabPersist.saveNow(true);
      const call = performance.now() - t0;
      await done;
      const part = window.boltzlabPersist.timings();
      // Main thread: the call itself, then joining the record and writing it.
      calls.push(call + part.encode + part.write);
      parts.push(part);
    }
    // An unchanged session is not exported again.
    const t0 = performance.now();
    await window.boltzlabPersist.saveNow();
    const unchanged = performance.now() - t0;
    await new Promise((resolve) => setTimeout(resolve, 200));
    observer.disconnect();
    return { calls, parts, unchanged, longTasks, length: window.localStorage.getItem('boltzlab.session').length };
  });
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `2048² session save: median ${median(figures.calls).toFixed(1)} ms of main thread per save ` +
      `(packing in the worker, off the main thread: median ${median(figures.parts.map((p) => p.pack)).toFixed(1)} ms; ` +
      `joining the record: median ${median(figures.parts.map((p) => p.encode)).toFixed(1)} ms, ` +
      `writing it to localStorage: median ${median(figures.parts.map((p) => p.write)).toFixed(1)} ms) ` +
      `(runs ${figures.calls.map((t) => t.toFixed(1)).join(', ')} ms); unchanged: ${figures.unchanged.toFixed(2)} ms; ` +
      `long tasks seen meanwhile (frames included): ${figures.longTasks.map((t) => t.toFixed(0)).join(', ') || 'none'}; ` +
      `record ${(figures.length / 1e6).toFixed(2)} million characters`,
  );
  expect(figures.calls.length).toBe(5);
});
