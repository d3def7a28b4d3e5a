// The smoke suite for the browsers other than Chromium: `node tests/smoke/smoke.mjs firefox`
// or `xvfb-run -a node tests/smoke/smoke.mjs webkit` (make e2e-firefox, make e2e-webkit).
// One script for both engines, over plain W3C WebDriver (selenium-webdriver's client, no
// browser-specific module): it serves dist/ on 127.0.0.1 (tests/e2e/serve.js), starts the
// engine's own driver (geckodriver; WebKitGTK's WebKitWebDriver, which needs an X display)
// and checks, in order, that the release build works there as in Chromium:
//   1. the page loads with no error (no alert, no fault overlay, nothing thrown);
//   2. the lattice runs: the sweep counter rises;
//   3. a state link makes a round trip: a paused 32² lattice, stepped by one sweep and packed
//      by Copy link, opens in a fresh page as exactly the same state;
//   4. the machine learns: exact KL(data ‖ model) on bars and stripes 3×3 starts at
//      ln(512/14) and falls below 0.6 of that within 60 learning cycles (the law
//      tests/e2e/machine.spec.js checks in Chromium);
//   5. the restricted machine learns the digits: its exact test log-likelihood rises by more
//      than a nat per image within four points of its curve (tests/e2e/digits.spec.js);
//   6. a lesson step opens in lecture mode and a clicker key moves to the next step.
// The learning checks run from the page's default seeds with wide margins: in the runs of
// 2026-11-28 KL fell to 0.09 (Firefox) and 0.26 (WebKit) of its start against the bound 0.6,
// and ln p(v) rose by 5.7 and 5.9 nats against the bound 1; a failure means learning broke.
// Errors are caught in the page itself: WebKitGTK passes no console messages to its driver,
// so the script hooks `error`, `unhandledrejection` and console.error in each page it opens,
// and the page's own fault overlay (www/fault.js, which hooks the same events from the first
// script on) must stay hidden. Every request the page made must be to its own server
// (resource timing). Progress is polled, never awaited by a fixed sleep: under Xvfb, WebKit
// draws about 20 frames a second.
// Environment: E2E_PORT (the page's port, default 8191), GECKODRIVER, FIREFOX,
// WEBKIT_WEBDRIVER, SMOKE_DIST (default dist).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { By, Capabilities, Key, WebDriver } from 'selenium-webdriver';
import { Executor, HttpClient } from 'selenium-webdriver/http/index.js';

const engine = process.argv[2];
const PORT = Number(process.env.E2E_PORT ?? 8191);
const BASE = `http://127.0.0.1:${PORT}`;
const DIST = process.env.SMOKE_DIST ?? 'dist';

// How each engine's driver starts and what it is asked for.
const ENGINES = {
  firefox: {
    driver: process.env.GECKODRIVER ?? join(homedir(), '.cargo/bin/geckodriver'),
    args: (port) => ['--host', '127.0.0.1', '--port', String(port)],
    capabilities: {
      browserName: 'firefox',
      'moz:firefoxOptions': {
        binary: process.env.FIREFOX ?? '/usr/bin/firefox-esr',
        args: ['-headless'],
        prefs: { 'browser.shell.checkDefaultBrowser': false },
      },
    },
  },
  webkit: {
    driver: process.env.WEBKIT_WEBDRIVER ?? '/usr/bin/WebKitWebDriver',
    args: (port) => [`--host=127.0.0.1`, `--port=${port}`],
    // WebKitGTK's driver runs its MiniBrowser (no headless mode: it needs an X display).
    capabilities: { browserName: 'MiniBrowser' },
  },
};

// Time allowed for each step to show its progress (the slowest, WebKit under Xvfb, takes a
// fraction of it; the whole suite's time is printed).
const STEP_MS = 180_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Reads `read` every 200 ms until `done(value)` or `ms` have passed: {reached, last}.
async function waitFor(read, done, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const last = await read();
    if (done(last)) return { reached: true, last };
    if (Date.now() > end) return { reached: false, last };
    await sleep(200);
  }
}

// Polls `read` until `done(value)`; fails with the last value seen after `ms`.
async function poll(what, read, done, ms = STEP_MS) {
  const { reached, last } = await waitFor(read, done, ms);
  if (!reached) throw new Error(`${what}: not reached in ${ms / 1000} s (last seen: ${JSON.stringify(last)})`);
  return last;
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

// A free TCP port on 127.0.0.1 for the driver.
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Starts a child process and resolves once `url` answers (any HTTP status).
async function start(command, args, url, name) {
  // A process group of its own, so that `stop` ends what it starts too (WebKitWebDriver's
  // MiniBrowser, which holds the driver's output pipes open and outlived a killed driver).
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output = [];
  child.stdout.on('data', (d) => output.push(String(d)));
  child.stderr.on('data', (d) => output.push(String(d)));
  // Resolves once the child and whatever holds its pipes have gone (see `stop`).
  child.gone = new Promise((resolve) => child.on('close', () => resolve(true)));
  let exited = null;
  child.on('exit', (code) => (exited = code));
  child.on('error', (err) => (exited = err.message));
  await poll(
    `${name} answering at ${url}`,
    async () => {
      if (exited !== null) throw new Error(`${name} (${command}) exited: ${exited}\n${output.join('')}`);
      try {
        await fetch(url);
        return true;
      } catch {
        return false;
      }
    },
    Boolean,
    20_000,
  );
  return child;
}

// Ends a child process started by `start`, with every process it started, and waits until its
// pipes are closed (a driver still writing to a closed pipe would panic): SIGTERM to the group,
// SIGKILL after 10 s if its pipes are still open.
async function stop(child) {
  const signal = (name) => {
    try {
      process.kill(-child.pid, name);
    } catch {
      // The group has already gone.
    }
  };
  signal('SIGTERM');
  if (await Promise.race([child.gone, sleep(10_000).then(() => false)])) return;
  console.log(`  note: ${child.spawnfile} still held its output open 10 s after SIGTERM; killed`);
  signal('SIGKILL');
  await child.gone;
}

// Installs the page's error hooks (once per page load).
const HOOK = `
  if (!window.smokeProblems) {
    const problems = (window.smokeProblems = []);
    addEventListener('error', (e) => problems.push('error: ' + (e.error?.stack ?? e.message)));
    addEventListener('click', (e) => (window.smokeLastClick = e.target.id ? '#' + e.target.id : e.target.tagName), true);
    addEventListener('unhandledrejection', (e) => problems.push('unhandled rejection: ' + (e.reason?.stack ?? e.reason)));
    const error = console.error.bind(console);
    console.error = (...args) => { problems.push('console error: ' + args.join(' ')); error(...args); };
  }`;

// What went wrong in the page so far: hooked problems, the fault overlay, the alert, requests
// off its own server.
const PROBLEMS = `
  const found = [...(window.smokeProblems ?? [])];
  if (document.body.dataset.fault) found.push('fault overlay: ' + document.getElementById('fault-message').textContent);
  const alert = document.getElementById('alert');
  if (alert && !alert.hidden) found.push('alert: ' + alert.textContent);
  for (const entry of performance.getEntriesByType('resource'))
    if (!entry.name.startsWith(location.origin) && !entry.name.startsWith('data:') && !entry.name.startsWith('blob:'))
      found.push('request off the page\\'s own server: ' + entry.name);
  return found;`;

class Page {
  constructor(driver) {
    this.driver = driver;
  }

  // Runs `body` (a function body; `args` are arguments[0..]) in the page; awaits a returned
  // promise (W3C Execute Script does).
  // WebKitWebDriver once answered a read of a read-out with "Could not parse script result"
  // (1 run in 35 here on 2026-12-07); the scripts run here are reads or idempotent, so that error
  // is logged and the script run once more.
  async run(body, ...args) {
    try {
      return await this.driver.executeScript(body, ...args);
    } catch (err) {
      if (!/Could not parse script result/.test(err.message)) throw err;
      console.log(`  note: the driver could not parse a script's result (${err.message}); running it again`);
      return this.driver.executeScript(body, ...args);
    }
  }

  async open(path) {
    await this.driver.get(`${BASE}${path}`);
    await poll(
      `the page at ${path} is ready`,
      () => this.run(`return [document.body.dataset.ready, document.body.dataset.fault ?? null];`),
      ([ready, fault]) => ready === 'true' || fault !== null,
      60_000,
    );
    await this.run(HOOK);
    await this.clean(`opening ${path}`);
  }

  async clean(when) {
    const problems = await this.run(PROBLEMS);
    check(problems.length === 0, `problems in the page after ${when}:\n  ${problems.join('\n  ')}`);
  }

  el(css) {
    return this.driver.findElement(By.css(css));
  }

  text(css) {
    return this.run(`return document.querySelector(arguments[0]).textContent;`, css);
  }

  // Clicks `css` as a person does, once it stands still: WebDriver clicks at the point where
  // the element was, so a layout moving under it (a read-out growing a line as a worker
  // answers) can send the click elsewhere. Playwright waits for a stable element; this does
  // the same (its box the same in two reads 0.3 s apart, after scrolling it to the middle of
  // the view).
  // With `answered` (a probe of the page's reply), a click the page never heard of within
  // 10 s is logged, with where the last click landed, and made once more; a button that never
  // answers still fails its step's poll.
  async click(css, answered = null) {
    const box = `const r = document.querySelector(arguments[0]).getBoundingClientRect();
      return [r.x, r.y, r.width, r.height].join(' ');`;
    await this.run(`document.querySelector(arguments[0]).scrollIntoView({ block: 'center' });`, css);
    let before = await this.run(box, css);
    await poll(
      `${css} standing still`,
      async () => {
        await sleep(100);
        const now = await this.run(box, css);
        const still = now === before;
        before = now;
        return still;
      },
      Boolean,
      10_000,
    );
    await this.el(css).click();
    if (!answered || (await waitFor(answered, Boolean, 10_000)).reached) return;
    const landed = await this.run('return window.smokeLastClick ?? "nowhere the page saw";');
    console.log(`  note: the click on ${css} got no answer in 10 s (it landed on ${landed}); clicking again`);
    await this.el(css).click();
  }

  // Chooses an option of a select as a person does: clicking it.
  async choose(select, value) {
    await this.el(`${select} option[value="${value}"]`).click();
    await poll(
      `${select} = ${value}`,
      () => this.el(select).getAttribute('value'),
      (v) => v === value,
      5_000,
    );
  }

  visible(css) {
    return this.el(css).isDisplayed();
  }
}

const STEPS = [
  [
    'the lattice runs: the sweep counter rises',
    async (page) => {
      await page.open('/');
      const first = Number(await page.text('#sweeps'));
      await poll(
        'sweeps shown',
        async () => Number(await page.text('#sweeps')),
        (s) => s >= first + 3,
      );
      check((await page.run('return navigator.webdriver;')) === true, 'navigator.webdriver is not set: no test hooks');
    },
  ],
  [
    'a state link makes a round trip: a fresh page holds exactly the packed state',
    async (page) => {
      await page.choose('#size', '32');
      await poll(
        'the 32² lattice',
        () => page.run('return window.boltzlabLab.side();'),
        (s) => s === 32,
      );
      const pressed = (css) => page.el(css).getAttribute('aria-pressed');
      if ((await pressed('#run')) === 'true') await page.click('#run', async () => (await pressed('#run')) === 'false');
      await poll(
        'paused',
        () => pressed('#run'),
        (p) => p === 'false',
      );
      await page.click('#step-sweep');
      await page.run('return window.boltzlabSettled();');
      const state = await page.run('return window.boltzlabLab.export_state();');
      await page.click('#copy-link', async () => (await page.text('#copy-done')) !== '');
      await poll(
        'Copy link done',
        () => page.text('#copy-done'),
        (t) => t.includes('characters'),
      );
      const link = await page.el('#share-link').getAttribute('value');
      check(/^http:\/\/127\.0\.0\.1:\d+\/#state=[A-Za-z0-9_-]+$/.test(link), `not a state link: ${link}`);
      await page.clean('Copy link');
      // A fresh load (a link differing only in its fragment would not reload the page).
      await page.driver.get('about:blank');
      await page.open(link.slice(BASE.length));
      await page.run('return window.boltzlabSettled();');
      const opened = await page.run('return window.boltzlabLab.export_state();');
      check(
        opened === state,
        `the opened state differs from the packed one (${opened.length} vs ${state.length} characters)`,
      );
      check((await page.el('#run').getAttribute('aria-pressed')) === 'false', 'the opened link runs (it was paused)');
    },
  ],
  [
    'the machine learns: exact KL(data ‖ model) on bars and stripes 3×3 falls',
    async (page) => {
      await page.click('#mode-machine', () => page.visible('#machine'));
      await poll('the machine mode', () => page.visible('#machine'), Boolean);
      await page.choose('#bm-dataset', 'bars-3x3');
      await page.run(`
        const speed = document.getElementById('bm-speed');
        speed.value = '6';
        speed.dispatchEvent(new Event('input', { bubbles: true }));
        speed.dispatchEvent(new Event('change', { bubbles: true }));`);
      await page.click('#bm-run');
      await poll(
        'learning cycles',
        () => page.run('return window.boltzlabMachine ? window.boltzlabMachine.cycles() : 0;'),
        (c) => c >= 60,
      );
      await page.click('#bm-run');
      const kl = await page.run('return window.boltzlabMachine.curve().then((c) => Array.from(c.kl));');
      // Uniform over 2⁹ images at the start; 14 training images.
      check(Math.abs(kl[0] - Math.log(512 / 14)) < 1e-6, `KL at the start ${kl[0]}, not ln(512/14)`);
      const last = kl.slice(-10).reduce((a, b) => a + b, 0) / 10;
      check(last < 0.6 * kl[0], `KL did not fall: ${kl[0]} → ${last} (mean of the last 10)`);
      console.log(`  KL ${kl[0].toFixed(3)} → ${last.toFixed(3)} over ${kl.length} points`);
    },
  ],
  [
    'the restricted machine learns the digits: the exact test log-likelihood rises',
    async (page) => {
      await page.click('#bm-kind-restricted');
      await poll(
        'the restricted machine',
        () => page.run('return Boolean(window.boltzlabApp.machine.rbm.shown);'),
        Boolean,
      );
      const read = (what) => page.run(`return window.boltzlabApp.machine.rbm.read(arguments[0]);`, what);
      check((await read('dataset')) === 'digits8', 'the restricted machine does not start on the digits');
      await page.click('#rbm-run');
      // Learning raises the exact test ln p(v) by more than a nat within STEP_MS. Waited for,
      // not read at the 4th point: the points are scored in a second worker on snapshots
      // taken as it frees up, so how far learning got by the 4th point depends on the load
      // (it rose 0.57 nats by then once, and 2–3 nats in other runs).
      const curve = () =>
        page.run(`return window.boltzlabApp.machine.rbm.read('curve').then((c) => Array.from(c.test));`);
      const test = await poll(
        'a test log-likelihood a nat above its start, after at least 4 points',
        curve,
        (t) => t.length >= 4 && t[t.length - 1] > t[0] + 1,
      );
      await page.click('#rbm-run');
      console.log(`  test ln p(v) ${test.map((x) => x.toFixed(2)).join(' ')}`);
    },
  ],
  [
    'a lesson step opens in lecture mode, and PageDown moves to the next step',
    async (page) => {
      await page.open('/?lesson=1&step=1&lecture=1');
      check(await page.run(`return document.body.classList.contains('lecture');`), 'the page is not in lecture mode');
      check(!(await page.visible('header')), 'the header shows in lecture mode');
      const position = await poll(
        'the step shown',
        () => page.text('#lesson-position'),
        (t) => /^step 1 of \d+$/.test(t),
      );
      const steps = position.split(' of ')[1];
      // A step's text longer than its column is paged first: PageDown until the next step
      // opens, each press moving the text down or opening it.
      const column = () => page.run(`return document.getElementById('lesson').scrollTop;`);
      for (let presses = 0; ; presses++) {
        check(presses < 20, 'PageDown never reached the next step');
        const top = await column();
        await page.driver.actions().sendKeys(Key.PAGE_DOWN).perform();
        const moved = await poll(
          'PageDown: the text paged or the next step',
          async () => ({ step: await page.text('#lesson-position'), top: await column() }),
          (now) => now.step !== position || now.top > top,
        );
        if (moved.step !== position) {
          check(moved.step === `step 2 of ${steps}`, `PageDown opened ${moved.step}`);
          break;
        }
      }
      const url = await page.driver.getCurrentUrl();
      check(/lesson=1&step=2&lecture=1/.test(url), `the address does not follow the step: ${url}`);
    },
  ],
];

async function main() {
  const setup = ENGINES[engine];
  if (!setup) throw new Error(`usage: node tests/smoke/smoke.mjs firefox|webkit (not ${JSON.stringify(engine)})`);
  if (!existsSync(join(DIST, 'index.html'))) throw new Error(`no build in ${DIST}/: run make build first`);
  const children = [];
  const began = Date.now();
  let driver = null;
  let failed = 0;
  try {
    children.push(await start('node', ['tests/e2e/serve.js', DIST, String(PORT)], `${BASE}/`, 'the page server'));
    const driverPort = await freePort();
    const driverUrl = `http://127.0.0.1:${driverPort}`;
    children.push(await start(setup.driver, setup.args(driverPort), `${driverUrl}/status`, `${engine}'s driver`));
    driver = WebDriver.createSession(new Executor(new HttpClient(driverUrl)), new Capabilities(setup.capabilities));
    const caps = await driver.getCapabilities();
    console.log(`smoke: ${caps.getBrowserName()} ${caps.getBrowserVersion()} (${engine}), page at ${BASE}`);
    await driver.manage().setTimeouts({ script: STEP_MS, pageLoad: 60_000 });
    await driver.manage().window().setRect({ width: 1280, height: 800 });
    const page = new Page(driver);
    for (const [name, step] of STEPS) {
      const t0 = Date.now();
      try {
        await step(page);
        await page.clean(name);
        console.log(`  ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (err) {
        failed++;
        console.log(`  FAIL ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n       ${err.name}: ${err.message}`);
        // Later steps assume the earlier ones worked: stop at the first failure.
        break;
      }
    }
  } finally {
    if (driver) await driver.quit().catch(() => {});
    // Each child stopped and gone before this process ends (a driver still writing to a closed
    // pipe would panic).
    await Promise.all(children.map(stop));
  }
  console.log(`smoke ${engine}: ${failed ? 'FAILED' : 'passed'} in ${((Date.now() - began) / 1000).toFixed(0)} s`);
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  console.error(`smoke ${engine}: ${err.stack ?? err}`);
  process.exitCode = 1;
});
