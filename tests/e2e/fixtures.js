// A `test` whose page fails the test on any console error, page error or request that
// leaves this machine's server.
import { test as base, expect } from '@playwright/test';

export const test = base.extend({
  page: async ({ page, baseURL }, use) => {
    const problems = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(baseURL) && !url.startsWith('data:') && !url.startsWith('blob:')) {
        problems.push(`request off the page's own server: ${url}`);
      }
    });
    await use(page);
    expect(problems, problems.join('\n')).toEqual([]);
  },
});

export { expect };

// Opens the page and waits until the app says it is running.
export async function openApp(page, path = '/') {
  await page.goto(path);
  await expect(page.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(page.getByRole('alert')).toBeHidden();
}

// The number shown in an <output> of the status line.
export async function shown(page, id) {
  return Number(await page.locator(`#${id}`).textContent());
}
