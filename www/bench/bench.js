// The benchmark page: times the engine's kernels (wasm) and the JavaScript reference
// sampler in the same page, and the drawing of one 1024×1024 frame. Each figure is the
// median of repeated runs with its min and max, after a warm-up (V8 tiers a wasm or JS
// function up only between calls, so every hot loop is called in bounded chunks).
// The results land in window.benchResults (read by benches/browser.mjs) and on the page.
import { engineReady, view } from '../engine.js';
import { createReference, sweepCheckerboard, sweepSequential } from './reference.js';

const SIDE = 1024;
const N = SIDE * SIDE;
const CRITICAL_TEMPERATURE = 2 / Math.log(1 + Math.SQRT2);
const REPEATS = 7;
const SWEEPS_PER_REPEAT = 2;
const CHUNK = 1 << 16;
const RULES = ['heat-bath', 'metropolis'];
const ORDERS = ['sequential', 'checkerboard'];

const status = document.getElementById('status');
const pause = () => new Promise((resolve) => setTimeout(resolve, 0));

// Untimed calls before timing: at least 2, and for at least this long. V8 compiles a hot
// wasm function with its optimising tier in the background after some calls; a fixed
// count of 2 left the first kernel timed (heat-bath sequential) partly unoptimised, with
// a spread of 7–11 ns/tick against 5.7 in a later run of the same code.
const WARM_UP_MS = 400;

/** { median, min, max } of `repeats` timings (ms) of `run`, after a warm-up of untimed calls. */
async function timed(run, repeats = REPEATS, warmups = 2) {
  const until = performance.now() + WARM_UP_MS;
  for (let k = 0; k < warmups || performance.now() < until; k++) {
    run();
    await pause();
  }
  const samples = [];
  for (let k = 0; k < repeats; k++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
    await pause();
  }
  samples.sort((a, b) => a - b);
  return { median: samples[repeats >> 1], min: samples[0], max: samples[repeats - 1] };
}

const scale = (figure, factor) => ({
  median: figure.median * factor,
  min: figure.min * factor,
  max: figure.max * factor,
});

// Ticks as the app runs them: chunks of CHUNK ticks; with `lanes` (the app's setting), the
// 16 lane streams (checkerboard: site j of a row's colour from lane j mod 16; sequential: row
// y from lane y mod 16), without, the sampler's single stream.
// `wavefront` (sequential order): whole bands of rows through the wavefront kernel (the
// app's default, bit-identical) or every tick scalar.
function wasmTicks(bindings, rule, order, lanes, side = SIDE, wavefront = true) {
  const lattice = new bindings.BenchLattice(side, CRITICAL_TEMPERATURE, rule, order, 1);
  lattice.set_lanes(lanes);
  lattice.set_wavefront(wavefront);
  // At least 2^21 ticks a run (2 sweeps of 1024², 32 of 256²): without cross-origin
  // isolation the page's clock moves in steps of 0.1 ms, and 2 sweeps of 256² (0.2 ms) read
  // 0.76, 1.53 or 2.29 ns/tick.
  const ticks = Math.max(Math.ceil((SWEEPS_PER_REPEAT * side * side) / CHUNK) * CHUNK, 1 << 21);
  return async () => {
    const figure = await timed(() => {
      for (let done = 0; done < ticks; done += CHUNK) lattice.run(CHUNK);
    });
    lattice.free();
    return scale(figure, 1e6 / ticks);
  };
}

// Sequential order at 256² and 1024²: every tick scalar, then the wavefront kernel, with the
// sampler's one stream and with row streams (lanes, as the app).
async function sequentialFigures(bindings, rules, record) {
  for (const side of [256, SIDE]) {
    for (const rule of rules) {
      for (const [lanes, wavefront] of [
        [false, false],
        [false, true],
        [true, false],
        [true, true],
      ]) {
        const kind = `${lanes ? 'lanes_' : ''}${wavefront ? 'wavefront' : 'scalar'}`;
        status.textContent = `ticks: ${rule}, sequential ${kind}, ${side}²…`;
        await pause();
        record(
          `wasm_${rule.replace('-', '_')}_sequential_${kind}_${side}_ns_per_tick`,
          `wasm ${rule} sequential ${kind.replace('_', ' ')} ${side}²`,
          await wasmTicks(bindings, rule, 'sequential', lanes, side, wavefront)(),
          'ns/tick',
        );
      }
    }
  }
}

function wasmLanes(bindings, rule) {
  const lanes = new bindings.BenchLanes(SIDE, CRITICAL_TEMPERATURE, rule, 1);
  return async () => {
    const figure = await timed(() => {
      for (let k = 0; k < SWEEPS_PER_REPEAT; k++) lanes.run(1);
    });
    lanes.free();
    return scale(figure, 1e6 / (SWEEPS_PER_REPEAT * N));
  };
}

function jsTicks(rule, order) {
  const state = createReference(SIDE, rule, CRITICAL_TEMPERATURE, 1);
  const sweep = order === 'sequential' ? sweepSequential : sweepCheckerboard;
  return async () => {
    const figure = await timed(() => {
      for (let k = 0; k < SWEEPS_PER_REPEAT; k++) sweep(state);
    });
    return scale(figure, 1e6 / (SWEEPS_PER_REPEAT * N));
  };
}

/** Spins → RGBA pixels → canvas, as the app's lattice view does (one byte per spin). */
function drawFrame(bindings) {
  const canvas = document.getElementById('draw');
  const context = canvas.getContext('2d');
  const image = context.createImageData(SIDE, SIDE);
  const pixels = new Uint32Array(image.data.buffer);
  const lattice = new bindings.BenchLattice(SIDE, CRITICAL_TEMPERATURE, 'heat-bath', 'sequential', 1);
  // Colour by spin + 1 (0 = down, 2 = up), little-endian ABGR.
  const colours = new Uint32Array([0xff3a2a22, 0, 0xfff2ece6]);
  const frame = () => {
    const spins = view(bindings, Int8Array, lattice.spins_ptr(), N);
    for (let i = 0; i < N; i++) pixels[i] = colours[spins[i] + 1];
    context.putImageData(image, 0, 0);
    context.getImageData(0, 0, 1, 1); // wait for the canvas to take the pixels
  };
  return { frame, lattice };
}

function row(name, figure, unit, digits = 2) {
  const f = (v) => v.toFixed(digits);
  return `${name.padEnd(40)} ${f(figure.median).padStart(10)} ${unit.padEnd(8)} (${f(figure.min)}–${f(figure.max)})`;
}

async function main() {
  const bindings = await engineReady(60000);
  const results = {};
  const lines = [];
  const record = (key, label, figure, unit, digits) => {
    results[key] = figure;
    lines.push(row(label, figure, unit, digits));
    document.getElementById('results').textContent = lines.join('\n');
  };
  // ?quick: only the heat-bath checkerboard kernels (for trying variants), then stop;
  // ?wavefront: only the sequential scalar and wavefront figures.
  const quick = new URLSearchParams(location.search).has('quick');
  // ?rbm: only the restricted machine's updates.
  if (new URLSearchParams(location.search).has('rbm')) {
    await rbmFigures(bindings, record);
    results.user_agent = navigator.userAgent;
    status.textContent = 'done';
    window.benchResults = results;
    return;
  }
  if (new URLSearchParams(location.search).has('wavefront')) {
    await sequentialFigures(bindings, RULES, record);
    results.user_agent = navigator.userAgent;
    status.textContent = 'done';
    window.benchResults = results;
    return;
  }
  for (const rule of quick ? ['heat-bath'] : RULES) {
    for (const order of quick ? ['checkerboard'] : ORDERS) {
      const id = `${rule.replace('-', '_')}_${order}`;
      status.textContent = `ticks: ${rule}, ${order}…`;
      await pause();
      // As the app: lanes on in both orders; and the same order on the one stream.
      record(
        `wasm_${id}_ns_per_tick`,
        `wasm ${rule} ${order}`,
        await wasmTicks(bindings, rule, order, true)(),
        'ns/tick',
      );
      if (rule === 'heat-bath' && order === 'checkerboard') {
        // The page's 256² rows compare with the kernel at their own size (sequential 256²:
        // the lanes wavefront figure below).
        const figure = await wasmTicks(bindings, rule, order, true, 256)();
        record(`wasm_${id}_256_ns_per_tick`, `wasm ${rule} ${order} 256²`, figure, 'ns/tick');
      }
      const label = `wasm ${rule} ${order}, one stream`;
      record(`wasm_${id}_one_stream_ns_per_tick`, label, await wasmTicks(bindings, rule, order, false)(), 'ns/tick');
      record(`js_${id}_ns_per_tick`, `JS reference ${rule} ${order}`, await jsTicks(rule, order)(), 'ns/tick');
    }
  }
  if (!quick) await sequentialFigures(bindings, RULES, record);
  for (const rule of quick ? ['heat-bath'] : RULES) {
    status.textContent = `ticks: ${rule}, checkerboard lanes…`;
    await pause();
    const id = `${rule.replace('-', '_')}_checkerboard_lanes`;
    record(
      `wasm_${id}_ns_per_tick`,
      `wasm ${rule} lanes kernel, whole sweeps`,
      await wasmLanes(bindings, rule)(),
      'ns/tick',
    );
  }
  if (quick) {
    results.user_agent = navigator.userAgent;
    status.textContent = 'done';
    window.benchResults = results;
    return;
  }
  status.textContent = 'drawing…';
  await pause();
  const draw = drawFrame(bindings);
  record('draw_1024_ms', 'draw one 1024×1024 frame', await timed(draw.frame, 21, 5), 'ms');
  draw.lattice.free();
  for (const units of [20, 24, 28]) {
    status.textContent = `exact ln Z, ${units} units…`;
    await pause();
    const figure = await timed(() => bindings.bench_exact_log_z(units), units === 28 ? 3 : 5, 1);
    record(`wasm_exact_logz_${units}_units_s`, `wasm exact ln Z ${units} units`, scale(figure, 1e-3), 's', 4);
  }
  for (const method of ['stochastic', 'mean-field']) {
    status.textContent = `learning 4-2-4, ${method}…`;
    await pause();
    let solvedAt = 0;
    const figure = await timed(() => {
      solvedAt = bindings.bench_learn_424(method, 1);
    });
    const key = `wasm_learn_424_${method.replace('-', '_')}_ms`;
    record(key, `wasm learn 4-2-4 ${method} (solved at cycle ${solvedAt})`, figure, 'ms', 3);
    results[`wasm_learn_424_${method.replace('-', '_')}_solved_at_cycle`] = solvedAt;
  }
  await rbmFigures(bindings, record);
  results.user_agent = navigator.userAgent;
  status.textContent = 'done';
  window.benchResults = results;
}

// One update of the page's default digits machines (64-16 and 64-500: batch 100, 100
// persistent particles, k = 1), in calls of several updates, as the page's learning makes them,
// on a machine that has learned RBM_STAGE updates (untimed) first, the stage from which
// benches/page.mjs times the page: an update's cost depends on the machine (its products sum
// the rows of the sampled 0/1 states, so they cost more as more units are on), and by then the
// engine has run for seconds. The fresh machine's first updates are recorded too; they moved
// more between runs (64-500: 3.2–4.8 ms in four runs, against 3.5–3.8 ms after 3000 updates,
// 2026-11-28).
const RBM_STAGE = 3000;

async function rbmFigures(bindings, record) {
  await mnistFigure(bindings, record);
  for (const [hidden, updates] of [
    [16, 50],
    [500, 5],
  ]) {
    status.textContent = `learning the digits, restricted machine 64-${hidden}…`;
    await pause();
    const machine = new bindings.BenchRbm(hidden);
    const fresh = await timed(() => machine.run(updates));
    for (let done = machine.updates(); done < RBM_STAGE; done = machine.updates()) {
      machine.run(Math.min(100, RBM_STAGE - done));
      await pause();
    }
    const trained = await timed(() => machine.run(updates));
    machine.free();
    record(
      `wasm_rbm_64_${hidden}_fresh_update_ms`,
      `wasm one update, 64-${hidden} RBM on the digits (batch 100, 100 persistent particles, k = 1), a fresh machine's first updates`,
      scale(fresh, 1 / updates),
      'ms',
      3,
    );
    record(
      `wasm_rbm_64_${hidden}_update_ms`,
      `wasm one update, 64-${hidden} RBM on the digits (batch 100, 100 persistent particles, k = 1), after ${RBM_STAGE} updates`,
      scale(trained, 1 / updates),
      'ms',
      3,
    );
  }
}

// One 784-500 CD-1 update on a batch of 100, one thread: the measured MNIST-sized update
// (src/learn/rbm/batch/measured.rs), the same work as benches/rbm_products.rs's native
// native_rbm_784_500_cd1_1_threads_ms; the target for wasm is ≤ 12 ms.
async function mnistFigure(bindings, record) {
  status.textContent = 'learning: the MNIST-sized update, 784-500 CD-1, batch 100…';
  await pause();
  const machine = new bindings.BenchMnistRbm();
  const figure = await timed(() => machine.run(2));
  machine.free();
  record(
    'wasm_rbm_784_500_cd1_update_ms',
    'wasm one 784-500 CD-1 update, batch 100, 1 thread (target ≤ 12 ms)',
    scale(figure, 1 / 2),
    'ms',
    2,
  );
}

main().catch((error) => {
  status.textContent = `failed: ${error}`;
  window.benchResults = { error: String(error && error.stack ? error.stack : error) };
});
