// Every control, found by its label, changes what it should in the engine and the views.
import { test, expect, openApp, shown, lab, pause, choose, enter } from './fixtures.js';

test('model, size, field, rule, order, boundary and seed reach the engine', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  expect(await lab(page, 'side')).toBe(32);
  await expect(page.locator('#spins')).toHaveJSProperty('width', 32);

  await choose(page, 'Model', 'spin-glass-pm');
  expect(await lab(page, 'model')).toBe('spin-glass-pm');
  await expect(page.locator('#bonds-caption')).toContainText('frustrated plaquettes');
  expect(await lab(page, 'frustrated_count')).toBeGreaterThan(0);
  // The ±J pattern is visible: the bond view holds both bond colours.
  const colours = () =>
    page.locator('#bonds').evaluate((canvas) => {
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      const seen = new Set();
      for (let y = 0; y < canvas.height; y += 2) {
        const i = 4 * (y * canvas.width + 1); // the bond right of site (0, y/2)
        seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      }
      for (let x = 1; x < canvas.width; x += 2) {
        const i = 4 * x; // bonds right of the sites of row 0
        seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      }
      return seen.size;
    });
  expect(await colours()).toBe(2);
  await choose(page, 'Model', 'antiferromagnet');
  expect(await lab(page, 'model')).toBe('antiferromagnet');
  expect(await lab(page, 'frustrated_count')).toBe(0);
  await expect.poll(colours).toBe(1);
  await choose(page, 'Model', 'spin-glass-gaussian');
  expect(await lab(page, 'model')).toBe('spin-glass-gaussian');
  await choose(page, 'Model', 'ferromagnet');

  await page.getByRole('slider', { name: 'Field h' }).fill('0.5');
  expect(await lab(page, 'field')).toBe(0.5);
  await enter(page, 'Field h value', -0.25);
  expect(await lab(page, 'field')).toBe(-0.25);
  await enter(page, 'Field h value', 12);
  await expect(page.locator('#field-error')).toContainText('Field h must be between -10 and 10');
  expect(await lab(page, 'field')).toBe(-0.25);

  await choose(page, 'Rule', 'metropolis');
  expect(await lab(page, 'dynamics')).toBe('metropolis');
  // Wolff needs h = 0: refused with the reason, the menu goes back to Metropolis.
  await choose(page, 'Rule', 'wolff');
  await expect(page.locator('#rule-error')).toContainText('zero field');
  await expect(page.getByLabel('Rule', { exact: true })).toHaveValue('metropolis');
  await enter(page, 'Field h value', 0);
  await choose(page, 'Rule', 'wolff');
  await expect(page.locator('#rule-error')).toBeHidden();
  expect(await lab(page, 'dynamics')).toBe('wolff');
  // …and with Wolff running, a field is refused next to the field.
  await enter(page, 'Field h value', 0.3);
  await expect(page.locator('#field-error')).toContainText('zero field');
  expect(await lab(page, 'field')).toBe(0);
  await choose(page, 'Rule', 'heat-bath');

  for (const order of ['random', 'checkerboard', 'sequential']) {
    await choose(page, 'Order', order);
    expect(await lab(page, 'order')).toBe(order);
  }
  for (const boundary of ['open', 'fixed-up', 'fixed-down', 'periodic']) {
    await choose(page, 'Boundary', boundary);
    expect(await lab(page, 'boundary')).toBe(boundary);
  }

  await enter(page, 'Seed', 7);
  expect(await lab(page, 'seed')).toBe(7);
  await enter(page, 'Seed', 2.5);
  await expect(page.locator('#seed-error')).toContainText('Seed must be a whole number');
  expect(await lab(page, 'seed')).toBe(7);
  await page.getByRole('button', { name: 'New seed' }).click();
  await expect.poll(() => lab(page, 'seed')).not.toBe(7);
  await expect(page.getByLabel('Seed', { exact: true })).toHaveValue(String(await lab(page, 'seed')));
  expect(await lab(page, 'side')).toBe(32);
});

test('temperature: slider, number box and the T_c button', async ({ page }) => {
  await openApp(page);
  await page.getByRole('slider', { name: 'Temperature' }).fill('0');
  expect(await lab(page, 'temperature')).toBe(1);
  await enter(page, 'Temperature value', 0);
  expect(await lab(page, 'temperature')).toBe(0);
  await page.getByRole('button', { name: 'T = Tc' }).click();
  expect(await lab(page, 'temperature')).toBe(2.269);
  await expect(page.getByLabel('Temperature value')).toHaveValue('2.269');
});

test('speed, play/pause, the three resets and the keyboard shortcuts', async ({ page }) => {
  await openApp(page);
  await choose(page, 'Size', '16');
  const speed = page.getByRole('slider', { name: 'Speed' });
  await speed.fill('0');
  await expect(page.locator('#speed-shown')).toHaveText('1 tick / frame');
  await speed.fill('8');
  await expect(page.locator('#speed-shown')).toHaveText('max (frame budget)');
  await pause(page);
  await page.getByRole('button', { name: 'All up' }).click();
  await expect.poll(() => shown(page, 'magnetization')).toBe(1);
  await page.getByRole('button', { name: 'All down' }).click();
  await expect.poll(() => shown(page, 'magnetization')).toBe(-1);
  await page.getByRole('button', { name: 'Random' }).click();
  await expect.poll(async () => Math.abs(await shown(page, 'magnetization'))).toBeLessThan(0.5);

  // Shortcuts: with the mouse-clicked button still focused, space means play/pause.
  await page.keyboard.press(' ');
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
  await page.keyboard.press(' ');
  await expect(page.getByRole('button', { name: 'Run' })).toBeVisible();
  const ticks = await lab(page, 'ticks');
  await page.keyboard.press('s');
  expect(await lab(page, 'ticks')).toBe(ticks + 1);
  await page.keyboard.press('Shift+S');
  expect(await lab(page, 'ticks')).toBe(ticks + 1 + 256);
  await page.keyboard.press('u');
  await expect.poll(() => shown(page, 'magnetization')).toBe(1);
  await page.keyboard.press('r');
  await expect.poll(() => shown(page, 'magnetization')).not.toBe(1);
  await page.keyboard.press('f');
  await expect(page.getByRole('radio', { name: 'free' })).toBeChecked();
  expect(await lab(page, 'clamps_on')).toBe(false);
  await page.keyboard.press('?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  for (const text of ['play / pause', 'step one tick', 'reset spins at random']) await expect(help).toContainText(text);
  await page.keyboard.press('Escape');
  await expect(help).toBeHidden();
  // In a text box, keys are text, not shortcuts.
  await page.getByLabel('Seed', { exact: true }).focus();
  await page.keyboard.press('s');
  expect(await lab(page, 'ticks')).toBe(ticks + 1 + 256);
});
