// End-to-end tests: the release build in dist/, served on 127.0.0.1, driven in Debian's
// Chromium (Playwright's own browser download does not work here).
import { defineConfig } from '@playwright/test';

// E2E_PORT lets two checkouts run their end-to-end tests side by side.
const PORT = Number(process.env.E2E_PORT ?? 8181);

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 90_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  // Two spec files at a time: most of a spec's time is the page waiting for its workers, so
  // two share the 2 cores of the machine make test aims at (E2E_WORKERS=1: one at a time).
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  reporter: [['list']],
  outputDir: 'target/playwright',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    viewport: { width: 1280, height: 800 },
    // The page's service worker (sw.js) would serve a build it cached earlier in the same
    // context: blocked for every spec but tests/e2e/offline.spec.js, which allows it.
    serviceWorkers: 'block',
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: `node tests/e2e/serve.js dist ${PORT}`,
    url: `http://127.0.0.1:${PORT}/`,
    reuseExistingServer: false,
    timeout: 20_000,
  },
});
