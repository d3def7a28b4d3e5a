// The tick inspector: at slow speeds the updated spin is highlighted and the panel says why
// it flipped or not; its probability is the heat-bath formula for its ΔE and T.
import { test, expect, openApp, lab, pause, choose, enter } from './fixtures.js';

const number = (text) => Number(text.replace('−', '-'));

async function readPanel(page) {
  const text = async (id) => (await page.locator(`#inspect-${id}`).textContent()) ?? '';
  return {
    deltaE: number(await text('delta-e')),
    temperature: number(await text('temperature')),
    pFlip: number(await text('p-flip')),
    pUp: number(await text('p-up')),
    random: number(await text('random')),
    decision: await text('decision'),
  };
}

test('step one tick explains the tick with the heat-bath probability for the shown ΔE and T', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await enter(page, 'Field h value', 0.3);
  await enter(page, 'Temperature value', 1.7);
  await pause(page);
  await page.getByRole('button', { name: 'Random' }).click(); // varied neighbourhoods
  await expect(page.locator('#inspector-idle')).toBeVisible();
  const seen = new Set();
  for (let k = 0; k < 12; k++) {
    const before = await lab(page, 'ticks');
    await page.getByRole('button', { name: 'Step one tick' }).click();
    await expect(page.locator('#inspect-site')).toContainText(`tick ${before}`);
    const p = await readPanel(page);
    expect(p.temperature).toBe(1.7);
    const formula = 1 / (1 + Math.exp(p.deltaE / p.temperature));
    // Shown with 6 significant digits; ΔE with 4.
    expect(Math.abs(p.pFlip - formula)).toBeLessThan(1e-5 * formula + 1e-9);
    expect(p.random).toBeGreaterThanOrEqual(0);
    expect(p.random).toBeLessThan(1);
    // The decision follows from u and P(+1).
    expect(p.decision).toContain(p.random < p.pUp ? 's′ = +1' : 's′ = −1');
    seen.add(p.deltaE);
  }
  expect(seen.size).toBeGreaterThan(1);
  // The updated site and its neighbours are outlined on the overlay.
  const inked = await page.locator('#spins-overlay').evaluate((canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let n = 0;
    for (let i = 3; i < data.length; i += 4) n += data[i] > 0;
    return n;
  });
  expect(inked).toBeGreaterThan(50);
});

test('at one tick per frame the inspector follows the run; at full speed it steps aside', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await page.getByRole('slider', { name: 'Speed' }).fill('0');
  await expect(page.locator('#inspector-body')).toBeVisible();
  const first = await page.locator('#inspect-site').textContent();
  await expect.poll(() => page.locator('#inspect-site').textContent()).not.toBe(first);
  await choose(page, 'Rule', 'metropolis');
  await expect(page.locator('#inspect-p-flip')).toBeVisible();
  await expect(page.locator('#inspect-formula')).toContainText('Metropolis');
  await page.getByRole('slider', { name: 'Speed' }).fill('8');
  await expect(page.locator('#inspector-idle')).toBeVisible();
  await choose(page, 'Rule', 'wolff');
  await page.getByRole('slider', { name: 'Speed' }).fill('0');
  await expect(page.locator('#inspector-cluster')).toContainText(/cluster moves flipped \d+ spins? in all/);
});

test('at T = 0 the inspector states the rule the engine applies: descent, a tie a fair coin', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  await choose(page, 'Rule', 'metropolis');
  await enter(page, 'Temperature value', 0);
  await pause(page);
  await page.getByRole('button', { name: 'Random' }).click();
  // A random state has ties (ΔE = 0) at about a third of its sites: 60 ticks without one
  // would happen with probability below 1e-9.
  const seen = new Set();
  for (let k = 0; k < 60 && !seen.has(0); k++) {
    const before = await lab(page, 'ticks');
    await page.getByRole('button', { name: 'Step one tick' }).click();
    await expect(page.locator('#inspect-site')).toContainText(`tick ${before}`);
    const p = await readPanel(page);
    await expect(page.locator('#inspect-formula')).toContainText('T = 0: energy descent, ties a fair coin');
    // The probability shown is the formula's: 1 downhill, 0 uphill, ½ on a tie.
    expect(p.pFlip).toBe(p.deltaE < 0 ? 1 : p.deltaE > 0 ? 0 : 0.5);
    seen.add(Math.sign(p.deltaE));
  }
  expect(seen.has(0)).toBe(true);
});
