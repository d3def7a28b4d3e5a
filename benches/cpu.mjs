// CPU-time figures for a loaded machine: the bench page's wasm kernels and the JavaScript
// reference sampler, run in node's V8 (not Chromium's) and timed with process.cpuUsage()
// (time this process spent on a CPU, so other processes' load inflates it far less than
// wall time). Medians and minima of 7 runs, ns per tick on 1024×1024 at T_c.
//   make bench (or trunk build --release --offline --dist dist-bench bench.html), then
//   node benches/cpu.mjs [DIST]
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as reference from '../www/bench/reference.js';

const dist = fileURLToPath(new URL(`../${process.argv[2] ?? 'dist-bench'}/`, import.meta.url));
const file = (ending) => readdirSync(dist).find((f) => f.endsWith(ending));
const engine = await import(pathToFileURL(dist + file('.js')).href);
engine.initSync({ module: readFileSync(dist + file('.wasm')) });

const SIDE = 1024;
const N = SIDE * SIDE;
const T = 2 / Math.log(1 + Math.SQRT2);
const CHUNK = 1 << 16;

const cpuNs = (run) => {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) * 1000;
};

function report(name, make, run, ticks) {
  const state = make();
  run(state);
  run(state); // warm-up: V8 tiers the code up between calls
  const samples = [];
  for (let k = 0; k < 7; k++) samples.push(cpuNs(() => run(state)) / ticks);
  samples.sort((a, b) => a - b);
  console.log(`${name.padEnd(44)} ${samples[3].toFixed(2).padStart(6)}  (min ${samples[0].toFixed(2)})`);
}

const chunked = (sweeps) => (lattice) => {
  for (let done = 0; done < sweeps * N; done += CHUNK) lattice.run(CHUNK);
};
console.log('ns per tick of CPU time, median (min) of 7 runs');
// Sequential order: every tick scalar, and the wavefront kernel (bit-identical), 256² and 1024²,
// with the sampler's one stream (lanes off) and with row streams (lanes on, as the app).
for (const side of [256, SIDE]) {
  for (const rule of ['heat-bath', 'metropolis']) {
    for (const [lanes, wavefront] of [
      [false, false],
      [false, true],
      [true, false],
      [true, true],
    ]) {
      const ticks = Math.ceil((2 * side * side) / CHUNK) * CHUNK;
      const run = (lattice) => {
        for (let done = 0; done < ticks; done += CHUNK) lattice.run(CHUNK);
      };
      // Warmed up for a second too: the first kernel timed was otherwise partly unoptimised.
      const make = () => {
        const lattice = new engine.BenchLattice(side, T, rule, 'sequential', 1);
        lattice.set_lanes(lanes);
        lattice.set_wavefront(wavefront);
        for (const until = performance.now() + 1000; performance.now() < until;) run(lattice);
        return lattice;
      };
      const kind = `${lanes ? 'lanes ' : ''}${wavefront ? 'wavefront' : 'scalar'}`;
      report(`wasm ${rule} sequential ${kind} ${side}²`, make, run, ticks);
    }
  }
}
if (process.env.BENCH_QUERY === 'wavefront') process.exit(0);
for (const rule of ['heat-bath', 'metropolis']) {
  for (const [label, order, lanes] of [
    ['sequential (row streams, as the app)', 'sequential', true],
    ['sequential, one stream', 'sequential', false],
    ['checkerboard (lanes, as the app)', 'checkerboard', true],
    ['checkerboard, one stream', 'checkerboard', false],
  ]) {
    const make = () => {
      const lattice = new engine.BenchLattice(SIDE, T, rule, order, 1);
      lattice.set_lanes(lanes);
      return lattice;
    };
    report(`wasm ${rule} ${label}`, make, chunked(2), 2 * N);
  }
  report(
    `wasm ${rule} lanes kernel, whole sweeps`,
    () => new engine.BenchLanes(SIDE, T, rule, 1),
    (l) => l.run(2),
    2 * N,
  );
  for (const order of ['sequential', 'checkerboard']) {
    const sweep = order === 'sequential' ? reference.sweepSequential : reference.sweepCheckerboard;
    const make = () => reference.createReference(SIDE, rule, T, 1);
    report(`JS reference ${rule} ${order}`, make, (s) => (sweep(s), sweep(s)), 2 * N);
  }
}
