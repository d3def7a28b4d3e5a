// The page's Content-Security-Policy: no violation while every view runs; the policy is in
// force (inline script, inline handlers and inline style are refused); and text from links, files and
// storage never becomes markup or script.
import { test, expect, openApp, lab, pause, choose, enter } from './fixtures.js';

const PAYLOAD = '<img src=x onerror=window.__pwned=1>';

// Records every securitypolicyviolation event from the first byte of every document.
test.beforeEach(async ({ page }) => {
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (event) =>
      window.__violations.push(
        `${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`,
      ),
    );
  });
});

const violations = (page) => page.evaluate(() => window.__violations);

async function download(page, name) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
  return file;
}

test('no CSP violation while every view of the lattice, the machine and the lessons runs', async ({ page }) => {
  test.setTimeout(240_000);
  await openApp(page);
  await expect.poll(() => lab(page, 'ticks')).toBeGreaterThan(0);
  expect(await violations(page)).toEqual([]);

  // Lattice: slow speed (the inspector follows), a glass (bonds, frustration, weight matrix).
  await choose(page, 'Model', 'spin-glass-pm');
  await choose(page, 'Size', '16');
  await page.getByRole('slider', { name: 'Speed' }).fill('0');
  await expect(page.locator('#inspector-body')).toBeVisible();
  await expect(page.locator('#matrix-box')).toBeVisible();
  await pause(page);
  // Painting and clamping with the brush, the reset buttons, the phase switch.
  const box = await page.locator('#spins-box').boundingBox();
  await choose(page, 'Brush', 'clamp');
  await page.mouse.move(box.x + 5, box.y + 5);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width - 5, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await page.getByRole('radio', { name: 'free' }).check();
  await page.getByRole('button', { name: 'All up' }).click();
  await page.getByRole('button', { name: 'Release all clamps' }).click();
  await page.getByRole('button', { name: 'Step one tick' }).click();
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  await choose(page, 'Rule', 'wolff');
  await choose(page, 'Model', 'ferromagnet');
  await page.getByRole('button', { name: 'Step one sweep' }).click();
  await page.getByRole('button', { name: 'Keyboard shortcuts (?)' }).click();
  await page.getByRole('button', { name: 'Close' }).click(); // a <form method="dialog">
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeHidden();

  // Temperature sweep.
  await enter(page, 'T high', 3);
  await enter(page, 'T low', 1.5);
  await enter(page, 'Points', 3);
  await enter(page, 'Burn-in sweeps', 20);
  await enter(page, 'Measurement sweeps', 40);
  await page.getByRole('button', { name: 'Start sweep' }).click();
  await expect(page.locator('#scan-status')).toHaveText('done: 3 temperatures', { timeout: 120_000 });
  await download(page, 'Download sweep CSV');

  // Exports, import, share link.
  await download(page, 'Download PNG');
  await download(page, 'Download trace CSV');
  const state = await download(page, 'Export state (JSON)');
  await page.locator('#import-state').setInputFiles(await state.path());
  await expect(page.locator('#import-done')).toBeVisible();
  await page.getByRole('button', { name: 'Copy link' }).click();
  await expect(page.locator('#copy-done')).not.toBeEmpty();
  // The lattice's ln Z worker starts and answers (the lattice shown is too big for every
  // method but says so from the worker).
  await page.getByRole('button', { name: 'Compute ln Z of the lattice' }).click();
  await expect(page.locator('#lattice-logz-table tr[data-method="mean-field"] .value')).toHaveText(/not available|\d/);

  // Machine mode: learning, explore, gallery, ln Z, export and import.
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await expect(page.locator('#machine')).toBeVisible();
  await page.getByRole('button', { name: 'Run learning' }).click();
  await expect.poll(() => page.evaluate(() => window.boltzlabMachine.cycles())).toBeGreaterThan(2);
  await page.getByRole('button', { name: 'Pause learning' }).click();
  await page.getByRole('button', { name: 'Clamp and settle' }).click();
  await page.getByRole('button', { name: 'Generate samples' }).click();
  await expect(page.locator('#bm-gallery li').first()).toBeVisible();
  await page.getByRole('button', { name: 'Compute ln Z' }).click();
  await expect(page.locator('#bm-logz-table tr[data-method="exact"] .value')).toHaveAttribute('data-value', /\d/);
  const network = await download(page, 'Export network (JSON)');
  await page.locator('#bm-import').setInputFiles(await network.path());
  await expect(page.locator('#bm-import-done')).toBeVisible();
  await page.getByRole('button', { name: 'Learn my patterns' }).click();

  // Every step of every lesson, each applying its scene, in lecture mode and out.
  const lessons = await page.locator('#lesson-links a').count();
  expect(lessons).toBeGreaterThan(0);
  for (let n = 1; n <= lessons; n++) {
    await openApp(page, `/?lesson=${n}${n % 2 ? '&lecture=1' : ''}`);
    await expect(page.locator('#lesson')).toBeVisible();
    const next = page.getByRole('button', { name: 'Next step' });
    while (await next.isEnabled()) await next.click();
    expect(await violations(page), `lesson ${n}`).toEqual([]);
  }
  await page.goto('/?notes=all');
  await expect(page.locator('.notes-lesson').first()).toBeVisible();
  expect(await violations(page), 'notes').toEqual([]);
  await openApp(page, '/?teach=1&title=T&text=x&hide=model&lock=temperature');
  expect(await violations(page), 'a teacher’s link').toEqual([]);
  // The restore banner and the saved-session path too.
  await page.reload();
  await expect(page.locator('#session')).toBeVisible();
  await page.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.locator('#session')).toBeHidden();
  expect(await violations(page)).toEqual([]);
});

test.describe('the policy is in force', () => {
  test.use({
    expectedProblems: {
      patterns: [
        /^console error: Executing inline script violates the following Content Security Policy directive 'script-src /,
        /^console error: Executing inline event handler violates the following Content Security Policy directive 'script-src /,
        /^console error: Applying inline style violates the following Content Security Policy directive 'style-src /,
      ],
    },
  });

  test('an injected inline script, an inline event handler and an inline style attribute are refused', async ({
    page,
  }) => {
    await openApp(page);
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inline = 1;';
      document.head.append(script);
    });
    expect(await page.evaluate(() => window.__inline)).toBeUndefined();
    // An inline event handler attribute.
    await page.evaluate(() => {
      const button = document.createElement('button');
      button.setAttribute('onclick', 'window.__handler = 1;');
      document.body.append(button);
      button.click();
      button.remove();
    });
    expect(await page.evaluate(() => window.__handler)).toBeUndefined();
    const colour = await page.evaluate(() => {
      const probe = document.createElement('p');
      probe.setAttribute('style', 'color: rgb(1, 2, 3)');
      probe.textContent = 'probe';
      document.body.append(probe);
      const shown = getComputedStyle(probe).color;
      probe.remove();
      return shown;
    });
    expect(colour).not.toBe('rgb(1, 2, 3)');
    const seen = await violations(page);
    expect(seen.some((v) => v.startsWith('script-src-elem'))).toBe(true);
    expect(seen.some((v) => v.startsWith('script-src-attr'))).toBe(true);
    expect(seen.some((v) => v.startsWith('style-src-attr') || v.startsWith('style-src'))).toBe(true);
  });

  test.describe('the served page', () => {
    test.use({ expectedProblems: { patterns: [] } });
    test('carries the policy as a meta tag and (from the test server) as a header with frame-ancestors', async ({
      page,
    }) => {
      const response = await page.goto('/');
      expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
      const meta = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
      for (const directive of [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
      ])
        expect(meta).toContain(directive);
      expect(meta).not.toContain('unsafe-inline');
      expect(await page.locator('script:not([src])').count()).toBe(0);
    });
  });
});

test.describe('text from links, files and storage stays text', () => {
  test('a share link carrying markup in every value is refused as text', async ({ page }) => {
    const keys = ['model', 'size', 'T', 'h', 'rule', 'order', 'boundary', 'seed'];
    const good = {
      model: 'ferromagnet',
      size: '32',
      T: '2',
      h: '0',
      rule: 'heat-bath',
      order: 'sequential',
      boundary: 'periodic',
      seed: '1',
    };
    let tried = 0;
    for (const key of [...keys, 'unknown']) {
      const values = { ...good, [key]: PAYLOAD };
      const fragment = Object.entries(values)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
        .join('&');
      await openApp(page, `/?case=${key}#${fragment}`);
      await expect(page.locator('#link-error'), key).toBeVisible();
      await expect(page.locator('#link-error'), key).not.toBeEmpty();
      expect(await page.locator('#link-error *').count(), key).toBe(0);
      expect(await page.evaluate(() => window.__pwned), key).toBeUndefined();
      tried += 1;
    }
    // A link typed into the address bar of the running page.
    await page.evaluate((p) => (window.location.hash = `model=${encodeURIComponent(p)}`), PAYLOAD);
    await expect(page.locator('#link-error')).toContainText('could not be used');
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await violations(page)).toEqual([]);
    console.log(`share-link injection payloads tried: ${tried + 1}`);
  });

  test('imported state and network files carrying markup in every string field are refused as text', async ({
    page,
  }) => {
    await openApp(page);
    await choose(page, 'Size', '16');
    await pause(page);
    const state = JSON.parse(await lab(page, 'export_state'));
    let tried = 0;
    const strings = Object.keys(state).filter((k) => typeof state[k] === 'string' || Array.isArray(state[k]));
    for (const field of [...strings, 'extra']) {
      const bad = { ...state, [field]: PAYLOAD };
      await page.locator('#import-state').setInputFiles({
        name: `${PAYLOAD}.json`,
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(bad)),
      });
      await expect(page.locator('#import-error'), field).toContainText('Nothing was changed');
      await expect(page.locator('#import-error'), field).toContainText(PAYLOAD); // the file name, as text
      expect(await page.locator('#import-error *').count(), field).toBe(0);
      tried += 1;
    }
    await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
    await expect.poll(() => page.evaluate(() => Boolean(window.boltzlabMachine))).toBe(true);
    const network = JSON.parse(await page.evaluate(() => window.boltzlabMachine.export_network()));
    const fields = Object.keys(network);
    for (const field of [...fields, 'extra']) {
      const bad = { ...network, [field]: PAYLOAD };
      await page.locator('#bm-import').setInputFiles({
        name: `${PAYLOAD}.json`,
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(bad)),
      });
      await expect(page.locator('#bm-import-error'), field).toBeVisible();
      expect(await page.locator('#bm-import-error *').count(), field).toBe(0);
      tried += 1;
    }
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    expect(await page.locator('img').count()).toBe(0);
    expect(await violations(page)).toEqual([]);
    console.log(`file injection payloads tried: ${tried}`);
  });
});
