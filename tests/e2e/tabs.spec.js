// Nothing lost, two tabs: a second tab of the page keeps its own session and says so; it
// never writes over the first tab's, and a session a closed tab left is offered at restore.
import { test, expect, openApp, lab, pause, choose } from './fixtures.js';

const KEY = 'boltzlab.session';
const stored = (page, key = KEY) => page.evaluate((k) => window.localStorage.getItem(k), key);
// The lattice side in a stored record (the engine's session text, parsed).
const side = (text) => JSON.parse(JSON.parse(text).lattice).size;
// A stored record without the time it was written: what it keeps. (A tab may write its own
// unchanged state again, e.g. after a late frame of its worker under load.)
const kept = (text) => ({ ...JSON.parse(text), saved: undefined });
const saves = async (page) => Number((await page.locator('#persist-status').getAttribute('data-saves')) ?? 0);

async function savedAfterNow(page) {
  const before = await saves(page);
  await page.evaluate(() => window.boltzlabPersist.saveNow(true));
  await expect.poll(() => saves(page)).toBeGreaterThan(before);
}

// A second page of the same browser (same storage), failing on console or page errors as
// the fixture's page does.
async function secondTab(context) {
  const page = await context.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { page, problems };
}

test('a second tab keeps its own session beside the first tab’s, and says so', async ({ page, context }) => {
  await openApp(page);
  await choose(page, 'Size', '32');
  await pause(page);
  await page.evaluate(() => window.boltzlabSettled());
  await savedAfterNow(page);
  const first = await stored(page);
  expect(side(first)).toBe(32);

  const { page: other, problems } = await secondTab(context);
  await openApp(other);
  await expect(other.locator('#session-tabs')).toContainText('This page is open in another tab too');
  await expect(other.locator('#session-tabs')).toContainText('Each tab keeps its own session');
  // The second tab does not offer the first tab's live session as its own.
  await expect(other.getByRole('button', { name: 'Restore', exact: true })).toBeHidden();
  await choose(other, 'Size', '16');
  await pause(other);
  await savedAfterNow(other);
  await expect(other.locator('#persist-status')).toContainText('slot 2');

  // The first tab's session is untouched; the second's is kept beside it. The second tab
  // reads its slot at once (its save is written before it is counted); the first tab, once
  // the browser has passed the write on. Chromium keeps a copy of localStorage in each
  // renderer and hands one tab's writes to another through its storage service process,
  // later: under load the first tab read slot 2 empty just after this save.
  expect(kept(await stored(page))).toEqual(kept(first));
  expect(side(await stored(other, `${KEY}.2`))).toBe(16);
  await expect.poll(async () => ((text) => text && side(text))(await stored(page, `${KEY}.2`))).toBe(16);
  // Both go on saving, each into its own.
  await choose(page, 'Size', '64');
  await savedAfterNow(page);
  await savedAfterNow(other);
  expect(side(await stored(page))).toBe(64);
  expect(side(await stored(page, `${KEY}.2`))).toBe(16);

  // A reloaded second tab takes its own session back, not the first tab's.
  await other.reload();
  await expect(other.locator('body')).toHaveAttribute('data-ready', 'true');
  await expect(other.locator('#session-message')).toContainText('lattice 16×16');
  await expect(other.locator('#session-tabs')).toContainText('open in another tab');
  await other.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(other.locator('#session')).toBeHidden();
  expect(await lab(other, 'side')).toBe(16);
  expect(side(await stored(page))).toBe(64);

  // The first tab closes; its session is not lost: a new tab offers it, and offers the
  // second tab's as a choice once that tab has closed too.
  await page.close({ runBeforeUnload: true });
  await other.close({ runBeforeUnload: true });
  const { page: later, problems: laterProblems } = await secondTab(context);
  await openApp(later);
  await expect(later.locator('#session-message')).toContainText('lattice 64×64');
  await expect(later.locator('#session-tabs')).toBeHidden();
  const choice = later.getByLabel('Session to restore');
  await expect(choice).toBeVisible();
  await expect(choice.locator('option')).toHaveCount(2);
  await expect(choice.locator('option').nth(1)).toContainText('in a closed tab: lattice 16×16');
  await choice.selectOption({ index: 1 });
  await later.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(later.locator('#session')).toBeHidden();
  expect(await lab(later, 'side')).toBe(16);
  // The tab moved into the closed tab's slot; the other session is still kept.
  await savedAfterNow(later);
  expect(side(await stored(later, `${KEY}.2`))).toBe(16);
  expect(side(await stored(later))).toBe(64);
  expect([...problems, ...laterProblems]).toEqual([]);
});
