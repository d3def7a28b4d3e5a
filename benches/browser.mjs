// `make bench`, second half: serves the built benchmark page (dist-bench/) on 127.0.0.1,
// runs it in headless Chromium, prints the browser figures beside the native ones that
// `cargo bench --bench ticks` wrote to target/bench.json, and merges the medians into it.
//   node benches/browser.mjs [DIST] [PORT]   (default: BENCH_PORT, else a free port)
import { readFile, writeFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { serveDist } from './serve.mjs';

// A free port unless BENCH_PORT names one (other checkouts may be serving their tests).
const jsonPath = 'target/bench.json';

const { port, server } = await serveDist('dist-bench');

let results;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error(`page error: ${error}`));
  // BENCH_QUERY=wavefront: only the sequential scalar and wavefront figures; rbm: only the
  // restricted machine's updates.
  await page.goto(`http://127.0.0.1:${port}/${process.env.BENCH_QUERY ? `?${process.env.BENCH_QUERY}` : ''}`);
  await page.waitForFunction(() => window.benchResults, null, { timeout: 600_000, polling: 500 });
  results = await page.evaluate(() => window.benchResults);
} finally {
  await browser.close();
  server.kill();
}
if (results.error) throw new Error(`the benchmark page failed: ${results.error}`);

const native = JSON.parse(await readFile(jsonPath, 'utf8').catch(() => '{}'));
const f = (v, d = 2) => (v === undefined ? '—' : v.toFixed(d));
const range = (r, d = 2) => `${f(r.median, d)} (${f(r.min, d)}–${f(r.max, d)})`;

console.log(`\nbrowser: ${results.user_agent}`);
console.log(
  '\nsequential order at T_c, ns per tick: every tick scalar, and the wavefront kernel (bit-identical), ' +
    "with the sampler's one stream and with row streams (lanes_: the app's)",
);
console.log(
  `${'rule'.padEnd(11)} ${'side'.padStart(5)} ${'kernel'.padEnd(10)} ${'native'.padStart(7)} ${'wasm'.padStart(22)}`,
);
const merged = { ...native };
for (const side of process.env.BENCH_QUERY === 'rbm' ? [] : [256, 1024]) {
  for (const rule of ['heat_bath', 'metropolis']) {
    for (const kind of ['scalar', 'wavefront', 'lanes_scalar', 'lanes_wavefront']) {
      const key = `${rule}_sequential_${kind}_${side}_ns_per_tick`;
      const wasm = results[`wasm_${key}`];
      merged[`wasm_${key}`] = wasm.median;
      console.log(
        `${rule.replace('_', '-').padEnd(11)} ${String(side).padStart(5)} ${kind.padEnd(10)} ${f(native[`native_${key}`]).padStart(7)} ${range(wasm).padStart(22)}`,
      );
    }
  }
}
// One update of the digits machines as the page learns them (benches/page.mjs compares the
// page's rate with these).
function rbmLines() {
  console.log(
    '\none update of an RBM on the digits (batch 100, 100 persistent particles, k = 1), ms, after 3000 updates (fresh: the first updates)',
  );
  for (const hidden of [16, 500]) {
    const key = `rbm_64_${hidden}_update_ms`;
    const rbm = results[`wasm_${key}`];
    const fresh = results[`wasm_rbm_64_${hidden}_fresh_update_ms`];
    merged[`wasm_${key}`] = rbm.median;
    merged[`wasm_rbm_64_${hidden}_fresh_update_ms`] = fresh.median;
    const target = hidden === 16 ? ' (target ≤ 1 ms)' : '';
    console.log(
      `64-${String(hidden).padEnd(4)} native ${f(native[`native_${key}`], 3)}, wasm ${range(rbm, 3)}${target}; fresh ${range(fresh, 3)}`,
    );
  }
  // The measured MNIST-sized update (src/learn/rbm/batch/measured.rs), native (cargo bench
  // --bench rbm_products, one and two threads) beside wasm (one thread).
  const mnist = results.wasm_rbm_784_500_cd1_update_ms;
  merged.wasm_rbm_784_500_cd1_update_ms = mnist.median;
  const one = native.native_rbm_784_500_cd1_1_threads_ms;
  console.log(
    `784-500 CD-1, batch 100: native ${f(one, 2)} (1 thread), ${f(native.native_rbm_784_500_cd1_2_threads_ms, 2)} (2); ` +
      `wasm ${range(mnist, 2)} (target ≤ 12 ms)${one ? `, wasm/native ${(mnist.median / one).toFixed(2)}` : ''}`,
  );
}
if (process.env.BENCH_QUERY) {
  // BENCH_QUERY=rbm: only the restricted machine's updates.
  if (process.env.BENCH_QUERY === 'rbm') rbmLines();
  await writeFile(jsonPath, JSON.stringify(merged, null, 2));
  process.exit(0);
}
console.log('');
console.log('1024×1024 periodic lattice at T_c, ns per tick, median (min–max) of 7 runs of 2 sweeps');
console.log(
  "sequential, checkerboard = the app's (lanes on: 16 streams); seq-1-stream, cb-1-stream = the same order on one stream",
);
console.log(
  `${'rule'.padEnd(11)} ${'order'.padEnd(13)} ${'native'.padStart(7)} ${'wasm'.padStart(22)} ${'JS reference'.padStart(24)} ${'wasm/JS'.padStart(8)} ${'JS/wasm'.padStart(8)} ${'wasm/native'.padStart(12)}`,
);
const line = (rule, label, nat, wasm, js) =>
  console.log(
    `${rule.replace('_', '-').padEnd(11)} ${label.padEnd(13)} ${f(nat).padStart(7)} ${range(wasm).padStart(22)} ${(js ? range(js) : '—').padStart(24)} ${(js ? f(wasm.median / js.median) : '—').padStart(8)} ${(js ? f(js.median / wasm.median) : '—').padStart(8)} ${(nat ? f(wasm.median / nat) : '—').padStart(12)}`,
  );
for (const rule of ['heat_bath', 'metropolis']) {
  for (const order of ['sequential', 'checkerboard']) {
    const id = `${rule}_${order}`;
    const wasm = results[`wasm_${id}_ns_per_tick`];
    const js = results[`js_${id}_ns_per_tick`];
    merged[`wasm_${id}_ns_per_tick`] = wasm.median;
    merged[`js_${id}_ns_per_tick`] = js.median;
    merged[`wasm_over_js_${id}`] = wasm.median / js.median;
    merged[`wasm_over_native_${id}`] = wasm.median / native[`native_${id}_ns_per_tick`];
    line(rule, order, native[`native_${id}_ns_per_tick`], wasm, js);
    const one = results[`wasm_${id}_one_stream_ns_per_tick`];
    const nat = native[`native_${id}_one_stream_ns_per_tick`];
    merged[`wasm_${id}_one_stream_ns_per_tick`] = one.median;
    merged[`wasm_over_native_${id}_one_stream`] = one.median / nat;
    line(rule, order === 'checkerboard' ? 'cb-1-stream' : 'seq-1-stream', nat, one, js);
  }
  const id = `${rule}_checkerboard_lanes`;
  const kernel = results[`wasm_${id}_ns_per_tick`];
  merged[`wasm_${id}_ns_per_tick`] = kernel.median;
  line(
    rule,
    'lanes-kernel',
    native[`native_${id}_ns_per_tick`],
    kernel,
    results[`js_${rule}_checkerboard_ns_per_tick`],
  );
}
console.log(
  '(lanes-kernel: the bare lanes kernel in whole sweeps, no chunking; JS/wasm: how many times faster than JS)',
);
// The page's 256² checkerboard row compares with this (benches/page.mjs).
const small = results.wasm_heat_bath_checkerboard_256_ns_per_tick;
merged.wasm_heat_bath_checkerboard_256_ns_per_tick = small.median;
console.log(`heat-bath checkerboard at 256² (as the app), wasm: ${range(small)} ns/tick`);
const draw = results.draw_1024_ms;
merged.draw_1024_ms = draw.median;
console.log(`\ndraw one 1024×1024 frame (spins → pixels → canvas): ${range(draw)} ms, median of 21`);
console.log('\nexact ln Z of a dense random Ising network (T = 1), seconds');
console.log(`${'units'.padEnd(6)} ${'native'.padStart(8)} ${'wasm'.padStart(28)}`);
for (const units of [20, 24, 28]) {
  const key = `exact_logz_${units}_units_s`;
  merged[`wasm_${key}`] = results[`wasm_${key}`].median;
  console.log(
    `${String(units).padEnd(6)} ${f(native[`native_${key}`], 4).padStart(8)} ${range(results[`wasm_${key}`], 4).padStart(28)}`,
  );
}
console.log('\n4-2-4 encoder, one seeded learning run to solution (seed 1), wasm, ms, median of 7');
for (const method of ['stochastic', 'mean_field']) {
  const key = `wasm_learn_424_${method}_ms`;
  merged[key] = results[key].median;
  merged[`wasm_learn_424_${method}_solved_at_cycle`] = results[`wasm_learn_424_${method}_solved_at_cycle`];
  console.log(
    `${method.replace('_', '-').padEnd(11)} ${range(results[key], 3)}  (solved at cycle ${results[`wasm_learn_424_${method}_solved_at_cycle`]})`,
  );
}
rbmLines();
await writeFile(jsonPath, JSON.stringify(merged, null, 2));
console.log(`\nmedians written to ${jsonPath}`);
