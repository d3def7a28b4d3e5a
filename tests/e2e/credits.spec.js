// The real data the page learns from is credited where it is used: the MNIST and 8×8 digits
// cards each name the data's authors and link to its source, terms and changes, a file
// shipped with the page (so the link works offline and loads nothing from elsewhere).
import { test, expect, openApp } from './fixtures.js';

for (const [id, authors, terms] of [
  ['mnist-credit', ['LeCun', 'Cortes', 'Burges'], 'CC BY-SA 3.0'],
  ['rbm-credit', ['Alpaydin', 'Kaynak'], 'CC BY 4.0'],
]) {
  test(`the ${id.split('-')[0]} data is credited beside it, with its terms shipped with the page`, async ({ page }) => {
    await openApp(page);
    const credit = page.locator(`#${id}`);
    for (const name of [...authors, terms]) await expect(credit).toContainText(name);
    const href = await credit.locator('a').getAttribute('href');
    expect(href).toMatch(/^credits\//);
    const file = await page.evaluate(async (h) => {
      const response = await fetch(h);
      return { ok: response.ok, url: response.url, text: await response.text() };
    }, href);
    expect(file.ok).toBe(true);
    expect(new URL(file.url).origin).toBe(new URL(page.url()).origin);
    for (const name of [...authors, terms]) expect(file.text).toContain(name);
  });
}
