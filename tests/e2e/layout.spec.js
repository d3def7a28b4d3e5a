// The page on a 360-pixel phone, on a 1024-pixel projector and in the dark: nothing sticks out
// sideways or is cut, the lattice and the phase switch are on the first screen, and the colours
// follow the system's scheme.
import { test, expect, openApp } from './fixtures.js';

test('a 360 px phone gets one column with no sideways scrolling', async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  await openApp(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  for (const name of ['clamped', 'free']) await expect(page.getByRole('radio', { name })).toBeInViewport();
  await expect(page.locator('#spins')).toBeInViewport();
  const box = await page.locator('#spins-box').boundingBox();
  expect(box.width).toBeGreaterThan(300);
  expect(Math.abs(box.width - box.height)).toBeLessThan(2);
});

test('a 1024 × 768 projector: no mode scrolls sideways (the memory panel’s long menu included)', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await openApp(page);
  for (const mode of ['Ising lattice', 'Boltzmann machine', 'Pattern memory']) {
    await page.getByRole('radio', { name: mode }).check();
    expect(await page.evaluate(() => document.documentElement.scrollWidth), mode).toBeLessThanOrEqual(1024);
  }
});

test('a 1024 × 768 projector: every option of every menu fits its menu, in every mode', async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await openApp(page);
  // The option's text, in the menu's font, against the menu's inner width less its arrow
  // (16 px: in Chromium the lattice's "paint down" fits with 3 px to spare, and "annealed
  // two-phase (1985)", which was seen cut, is 1 px wider than its whole menu).
  const cut = () =>
    page.evaluate(() => {
      const pen = document.createElement('canvas').getContext('2d');
      return [...document.querySelectorAll('select')]
        .filter((menu) => menu.offsetParent !== null)
        .flatMap((menu) => {
          const style = getComputedStyle(menu);
          pen.font = style.font;
          const room = menu.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
          return [...menu.options]
            .filter((option) => pen.measureText(option.text).width > room)
            .map((option) => `${menu.id}: “${option.text}”`);
        });
    });
  for (const mode of ['Ising lattice', 'Boltzmann machine', 'Pattern memory']) {
    await page.getByRole('radio', { name: mode }).check();
    expect(await cut(), mode).toEqual([]);
  }
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  expect(await cut(), 'restricted machine').toEqual([]);
});

test('the page follows prefers-color-scheme', async ({ page }) => {
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMedia({ colorScheme: 'dark' });
  await openApp(page);
  expect(await background()).toBe('rgb(20, 23, 28)');
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await background()).toBe('rgb(251, 250, 246)');
});
