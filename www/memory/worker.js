// @ts-check
// The pattern memory's engine in a module worker (built on www/worker_host.js): it owns the
// live MemoryLab (the same wasm engine as the page) and recalls in it, so that the page's
// main thread only draws and handles input. Protocol (the page's side is
// www/worker_link.js, driven by mode.js), besides the messages worker_host.js shares:
//
//   page → worker
//     {type: 'command', id, command, seq}  a MemoryCommand object for MemoryLab.dispatch
//                                          (decoded and checked by the engine), numbered
//     {type: 'read', id, name, args}       a value: 'session' ({text, seq}), 'state'
//                                          (Int8Array), or a MemoryLab getter
//     {type: 'run', on, speed, run}        recall (`run` numbers it, echoed in frames): `speed` ticks per page frame (each frame
//                                          asks with 'advance') or 'max' (continuously, in
//                                          slices); at T = 0 it stops by itself at a fixed point
//     {type: 'advance', ticks}             one page frame's ticks at a speed below the maximum
//     {type: 'ack', frames}                the page drew (or passed over) `frames` frames: the
//                                          next may come
//     {type: 'capacity', units, runs, starts} the capacity curve for the memory's rule, a run
//                                          per slice; {type: 'capacity', stop: true} ends it
//   worker → page
//     {type: 'frame', seq, state, overlaps, stats, trace, capacity?}
//                                          the state (Int8Array) and overlaps (Float64Array) in
//                                          transferred buffers; the energy trace's points since
//                                          the last frame ({reset, ticks, energy}); the capacity
//                                          curve when it moved on
//     {type: 'session', text, seq}         the memory's session, after each command and at
//                                          least every SESSION_MS while it recalls
//     {type: 'error', part, message}       a slice of recall or of the capacity curve failed
//
// Frames never queue up: at most one is in flight (a command's frame is posted at once, with at
// most one other in flight).

import { hostWorker, readGetter, report, trapped, unknownMessage } from '../worker_host.js';

const SLICE_MS = 4;
const SESSION_MS = 500;
// The α = P/N of the capacity curve's points.
const ALPHAS = Array.from({ length: 15 }, (_, k) => 0.02 * (k + 1));
// Commands after which the energy trace starts again (the state or the weights jumped).
/** @type {Set<import('boltzlab-bindings').MemoryCommand['command']>} */
const FRESH_TRACE = new Set([
  'new',
  'add-pattern',
  'add-random',
  'add-digits',
  'clear',
  'set-storage',
  'cue',
  'random-state',
  'set-state',
  'restore-session',
]);

/** @type {import('boltzlab-bindings').MemoryLab} */
let lab = null;
let running = false;
let runId = 0; // the page's number of the run last asked for (echoed in frames)
let speed = /** @type {number | 'max'} */ (1);
let scheduled = false;
let inFlight = 0;
let dirty = true;
let trace = { reset: true, ticks: [], energy: [] };
let capacity = null; // {units, runs, starts, points: [...], next: {point, run}, sums, done, total, version}
let capacitySent = -1;
const kept = { at: -Infinity, key: '' };

const host = hostWorker({
  start(engine) {
    lab = new engine.MemoryLab(8, 8, 1);
  },
  make(command) {
    const reply = lab.dispatch(command);
    if (FRESH_TRACE.has(command.command)) trace = { reset: true, ticks: [], energy: [] };
    // The curve depends on the rule and the seed only (its patterns are its own).
    if (['new', 'set-storage', 'restore-session'].includes(command.command)) capacityReset();
    record();
    return reply;
  },
  made() {
    dirty = true;
    frame(true);
    keepSession(true);
  },
  read(name, args) {
    if (name === 'session') return { text: lab.session(), seq: host.seq() };
    if (name === 'state')
      return new Int8Array(host.engine().wasm_memory().buffer, lab.state_ptr(), lab.width() * lab.height()).slice();
    if (name === 'busy') return running || (capacity !== null && !capacity.finished);
    return readGetter(lab, name, args, 'the pattern memory');
  },
  /** @param {import('../messages').MemoryMessage} data */
  other(data) {
    switch (data.type) {
      case 'run':
        running = Boolean(data.on);
        if (Number.isInteger(data.run)) runId = data.run;
        if (data.speed === 'max' || (Number.isInteger(data.speed) && data.speed >= 1)) speed = data.speed;
        dirty = true;
        frame(true);
        if (running && speed === 'max') schedule();
        if (!running) keepSession(true);
        break;
      case 'advance':
        if (running && speed !== 'max') {
          attempt('recall', () => advance(Math.max(1, Math.min(1 << 20, Number(data.ticks) || 1))));
          frame();
          keepSession();
        }
        break;
      case 'ack':
        inFlight = Math.max(0, inFlight - (Number.isInteger(data.frames) ? data.frames : 1));
        frame();
        break;
      case 'capacity':
        if (data.stop === true) {
          if (capacity) {
            capacity.finished = true;
            capacity.version += 1;
          }
          dirty = true;
          frame();
        } else startCapacity(data);
        break;
      default:
        unknownMessage(data);
    }
  },
});

function schedule() {
  if (scheduled || host.dead()) return;
  scheduled = true;
  setTimeout(slice, 0);
}

// Runs `action`; a failure is reported with its part, and recall stops on it.
function attempt(part, action) {
  try {
    action();
    return true;
  } catch (err) {
    if (trapped(err) || host.dead()) return false;
    running = false;
    report({ type: 'error', part, message: String(err?.message ?? err) });
    return false;
  }
}

// The trace's newest point: the ticks and the energy now.
function record() {
  const ticks = lab.ticks();
  if (trace.ticks.at(-1) === ticks) return;
  trace.ticks.push(ticks);
  trace.energy.push(lab.energy());
}

// `ticks` sequential ticks; at T = 0 a fixed point ends the recall.
function advance(ticks) {
  const reply = lab.dispatch({ command: 'advance', ticks });
  record();
  dirty = true;
  if (reply.reply === 'advanced' && reply.stable && lab.temperature() === 0) running = false;
}

function slice() {
  scheduled = false;
  if (host.dead()) return;
  const until = performance.now() + SLICE_MS;
  if (running && speed === 'max') {
    const chunk = lab.width() * lab.height();
    attempt('recall', () => {
      while (running && performance.now() < until) advance(chunk);
    });
  }
  if (capacity && !capacity.finished) capacityStep();
  frame();
  keepSession();
  if ((running && speed === 'max') || (capacity && !capacity.finished)) schedule();
}

function capacityReset() {
  if (capacity) capacity.finished = true;
  capacity = null;
  dirty = true;
}

function startCapacity({ units, runs, starts }) {
  const points = [];
  for (const alpha of ALPHAS) {
    const patterns = Math.max(1, Math.round(alpha * units));
    if (points.at(-1)?.patterns !== patterns)
      points.push({
        patterns,
        alpha: patterns / units,
        overlaps: [],
        from: { pattern: 0, reversed: 0, mixture: 0, other: 0 },
      });
  }
  capacity = {
    units,
    runs,
    starts,
    rule: lab.rule(),
    points,
    point: 0,
    run: 0,
    done: 0,
    total: points.length * runs,
    finished: false,
    version: 0,
  };
  // The first run at once: it checks the settings (a refusal goes back to the page's box).
  if (!attempt('capacity', () => capacityStep(true))) capacity.finished = true;
  dirty = true;
  frame(true);
  schedule();
}

// One run of the capacity experiment (a slice's work), recorded in the curve.
function capacityStep(rethrow = false) {
  const c = capacity;
  const point = c.points[c.point];
  try {
    const out = lab.capacity_run(c.units, point.patterns, c.starts, c.run);
    point.overlaps.push(out[0]);
    point.recalled = (point.recalled ?? 0) + out[1];
    point.recalls = (point.recalls ?? 0) + out[2];
    const s = point.from;
    s.pattern += out[3];
    s.reversed += out[4];
    s.mixture += out[5];
    s.other += out[6];
  } catch (err) {
    c.finished = true;
    if (rethrow || trapped(err)) throw err;
    report({ type: 'error', part: 'capacity', message: String(err?.message ?? err) });
    return;
  }
  c.done += 1;
  c.version += 1;
  c.run += 1;
  if (c.run === c.runs) {
    c.run = 0;
    c.point += 1;
  }
  if (c.point === c.points.length) c.finished = true;
  dirty = true;
}

// The capacity curve as the page draws it: each point's α, mean overlap and its standard error,
// and where its random starts ended.
function capacityFrame() {
  const c = capacity;
  const points = c.points
    .filter((p) => p.overlaps.length > 0)
    .map((p) => {
      const n = p.overlaps.length;
      const mean = p.overlaps.reduce((a, b) => a + b, 0) / n;
      const variance = n > 1 ? p.overlaps.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) : 0;
      return {
        alpha: p.alpha,
        patterns: p.patterns,
        mean,
        stderr: Math.sqrt(variance / n),
        runs: n,
        from: { ...p.from },
      };
    });
  return {
    units: c.units,
    rule: c.rule,
    points,
    done: c.done,
    total: c.total,
    finished: c.finished,
  };
}

// Posts a frame when none is in flight, or, for a command (`urgent`), when at most one is.
function frame(urgent = false) {
  if (host.dead() || !dirty || inFlight > (urgent ? 1 : 0)) return;
  const n = lab.width() * lab.height();
  const state = new Int8Array(host.engine().wasm_memory().buffer, lab.state_ptr(), n).slice();
  const overlaps = Float64Array.from(lab.overlaps());
  /** @type {import('../messages').MemoryFrame} */
  const message = {
    type: 'frame',
    seq: host.seq(),
    state,
    overlaps,
    stats: {
      width: lab.width(),
      height: lab.height(),
      patterns: lab.pattern_count(),
      energy: lab.energy(),
      ticks: lab.ticks(),
      temperature: lab.temperature(),
      recall: lab.recall(),
      stable: lab.stable(),
      rule: lab.rule(),
      running,
      run: runId,
    },
    trace,
  };
  trace = { reset: false, ticks: [], energy: [] };
  const transfer = [state.buffer, overlaps.buffer];
  if (capacity && capacity.version !== capacitySent) {
    message.capacity = capacityFrame();
    capacitySent = capacity.version;
  } else if (!capacity && capacitySent !== -1) {
    message.capacity = null;
    capacitySent = -1;
  }
  inFlight += 1;
  dirty = false;
  postMessage(message, transfer);
}

// Sends the session when it moved on and the last is SESSION_MS old (`now`: at once).
function keepSession(now = false) {
  if (host.dead()) return;
  const at = performance.now();
  if (!now && at - kept.at < SESSION_MS) return;
  const key = `${lab.ticks()} ${host.seq()} ${lab.pattern_count()}`;
  if (key === kept.key && !now) return;
  Object.assign(kept, { at, key });
  /** @type {import('../messages').MemorySession} */
  const session = { type: 'session', text: lab.session(), seq: host.seq() };
  postMessage(session);
}
