// Where the page's CPU goes while a restricted machine learns (the default options, in its
// worker; its log-likelihood points in their own worker): for every thread of the headless
// Chromium it starts, the CPU time it used and the time it waited in the run queue (runnable,
// no core free: /proc/PID/task/TID/schedstat), as shares of a core over timed windows, with the
// machine's updates per second. A diagnostic, not part of `make bench`: it tells whether the
// learning worker falls short of the bench page's engine because it waits for a core (its CPU
// share plus its wait near 1) or because it idles (their sum below 1), and which threads take
// the cores. Linux only (/proc).
//   make build, then node benches/page_threads.mjs [DIST]
//   HIDDEN=500 ... (the hidden units; default 16, 500 for MNIST), WINDOWS=3, WINDOW_MS=5000
//   DATASET=mnist ... the page's MNIST machine (784-HIDDEN, seed 7), on one learning worker, or
//     with THREADS=1 on the threaded engine's two threads (the page served cross-origin
//     isolated, as benches/mnist_cores.mjs does); NODRAW=1 ... the MNIST view not drawn (its
//     draw() a no-op, the frames still acknowledged): what the drawing costs the learning;
//     NOPOINTS=1 ... its likelihood worker stopped before learning starts: what the points cost
import { readFileSync, readdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { openMnistRun, serveDist } from './serve.mjs';
import { host } from '../tests/e2e/serve.js';

const MNIST = process.env.DATASET === 'mnist';
const THREADS = MNIST && process.env.THREADS === '1';
const HIDDEN = Number(process.env.HIDDEN ?? (MNIST ? 500 : 16));
const WINDOWS = Number(process.env.WINDOWS ?? 3);
const WINDOW_MS = Number(process.env.WINDOW_MS ?? 5000);
const STAGE = MNIST ? 100 : 3000; // timed from this update on (the digits: as benches/page.mjs)
const TICKS_PER_S = 100; // USER_HZ: /proc/…/stat counts CPU time in these

// The processes under `pid` (the browser is a child of this script), `pid` first.
function tree(pid) {
  const children = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(...tree(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return [pid, ...children];
}

// Every thread now: its label (process type, pid, thread name; the dedicated workers each by
// thread id, since they share one name) → CPU seconds and run-queue seconds so far.
function threads() {
  const out = new Map();
  for (const pid of tree(process.pid)) {
    let type = 'browser';
    try {
      type = /--type=([a-z-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))?.[1] ?? 'browser';
    } catch {
      continue;
    }
    let tids = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const cpu = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
        const wait = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
        const label = name.startsWith('DedicatedWorker')
          ? `${type} ${name} ${tid}`
          : `${type} ${name.replace(/\d+$/, '#')}`;
        out.set(tid, { label, cpu, wait });
      } catch {
        // gone meanwhile
      }
    }
  }
  return out;
}

const { port, server } = await serveDist('dist');
const isolated = THREADS ? await host({ root: process.argv[2] ?? 'dist', isolate: true }) : null;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
});
const address = `http://127.0.0.1:${port}/`;

// The digits machine, 64-HIDDEN, made (not yet learning) on a page of its own.
async function openDigitsRun() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(address);
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 60_000 });
  await page.getByRole('radio', { name: 'Boltzmann machine' }).check();
  await page.locator('#bm-kind-restricted').check();
  await page.locator('#rbm-hidden').fill(String(HIDDEN));
  await page.locator('#rbm-create').click();
  return page;
}

try {
  // MNIST: one learning worker, or two cores for the threaded engine (www/machine/mnist.js).
  const page = MNIST
    ? (await openMnistRun(browser, isolated?.url ?? address, { cores: THREADS ? 2 : 1, hidden: HIDDEN, seed: 7 })).page
    : await openDigitsRun();
  if (MNIST && process.env.NODRAW === '1')
    await page.evaluate(() => {
      const mnist = window.boltzlabApp.machine.rbm.mnist;
      mnist.draw = () => mnist.acknowledge();
    });
  if (MNIST && process.env.NOPOINTS === '1')
    await page.evaluate(() => window.boltzlabApp.machine.rbm.mnist.scorer.stop());
  await page.getByRole('button', { name: 'Run learning' }).click();
  const updates = () =>
    page.evaluate((mnist) => {
      const rbm = window.boltzlabApp.machine.rbm;
      return (mnist ? rbm.mnist : rbm).read('updates');
    }, MNIST);
  // Timed from update STAGE on: polled every 250 ms for up to 5 minutes.
  const deadline = performance.now() + 300_000;
  while ((await updates()) < STAGE) {
    if (performance.now() > deadline) throw new Error(`fewer than ${STAGE} updates in 5 minutes`);
    await page.waitForTimeout(250);
  }
  const what = MNIST
    ? `784-${HIDDEN} learning MNIST on ${THREADS ? 'two threads' : 'one worker'}`
    : `64-${HIDDEN} learning digits`;
  console.log(`${what}; per window: updates/s, then each thread's CPU and run-queue wait in cores`);
  for (let k = 0; k < WINDOWS; k++) {
    const [u0, before, t0] = [await updates(), threads(), performance.now()];
    await page.waitForTimeout(WINDOW_MS);
    const [u1, after, seconds] = [await updates(), threads(), (performance.now() - t0) / 1000];
    const rows = new Map();
    for (const [tid, { label, cpu, wait }] of after) {
      const row = rows.get(label) ?? { cpu: 0, wait: 0 };
      row.cpu += (cpu - (before.get(tid)?.cpu ?? 0)) / seconds;
      row.wait += (wait - (before.get(tid)?.wait ?? 0)) / seconds;
      rows.set(label, row);
    }
    const shown = [...rows].filter(([, r]) => r.cpu >= 0.01).sort((a, b) => b[1].cpu - a[1].cpu);
    const used = [...rows.values()].reduce((sum, r) => sum + r.cpu, 0);
    console.log(`window ${k + 1}: ${((u1 - u0) / seconds).toFixed(0)} updates/s, ${used.toFixed(2)} cores used in all`);
    for (const [label, r] of shown) console.log(`  cpu ${r.cpu.toFixed(3)}  waiting ${r.wait.toFixed(3)}  ${label}`);
  }
} finally {
  await browser.close();
  server.kill();
  await isolated?.close();
}
