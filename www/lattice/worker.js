// @ts-check
// The lattice engine in a module worker: it owns the live IsingLab (the same wasm engine,
// loaded from the same wasm-bindgen module and .wasm file as the page) and advances it, so
// that the page's main thread only draws and handles input. Protocol (engine_link.js is
// the page's side; the shared messages, init, command, read, fault, ready, result, panic and
// the protocol error, are www/worker_host.js's):
//
//   page → worker
//     {type: 'init', js, wasm, session}        load the engine; the run starts from `session`
//                                              (its first frame follows 'ready', before any
//                                              message that came early is handled)
//     {type: 'command', id, command, seq}      a LatticeCommand object for IsingLab.dispatch
//                                              (decoded and checked by the engine), numbered;
//                                              a frame follows its result, made or refused
//     {type: 'read', id, name, args}           a value: an IsingLab getter, 'spins', 'clamps',
//                                              'timed_session' ({text, ms, seq}), 'memory'
//                                              (bytes) or 'engine_time' ({ms, ticks} inside
//                                              advance, {frameMs, frames} packing frames,
//                                              buffers allocated for frames); a frame may
//                                              follow its result
//     {type: 'run', max}                       max: run continuously, in slices (else stop)
//     {type: 'advance', ticks, explain}        one frame's ticks at a speed below the maximum
//     {type: 'ack', buffers}                   the page drew a frame: buffers come back for reuse
//     {type: 'fault'}                          test only: a deliberate panic
//   worker → page
//     {type: 'ready'} · {type: 'result', id, value | error}
//     {type: 'frame', seq, side, spins, clamps (null when nothing is clamped), trace, stats
//      (ticks, sweeps, … and `at`, when they were read, in ms since the epoch),
//      scan?}                                  scan: the temperature sweep, when it changed
//                                              (scanPart below)
//     {type: 'session', text, seq, ms}         the run's session, every SESSION_MS or so while
//                                              it runs, with the number of the last change in it
//     {type: 'panic', message}
//     {type: 'error', message}                 advancing failed (the run stops)
//     {type: 'error', message, part: 'protocol'}  a message it could not handle
//
// Frames never queue up: at most one is in flight; the next is posted once the page has
// acknowledged the last, with what changed meanwhile. A change the page made (a command)
// is the one exception: its frame is posted at once, with at most one other in flight, so
// the change is on screen at the page's next frame instead of after a whole round trip. Each frame carries the number (seq)
// of the page's last change it includes, so that the page never shows a state from before
// a change it made. Nothing needs cross-origin isolation:
// the spins travel in transferred ArrayBuffers (no SharedArrayBuffer). Only commands change
// the engine (IsingLab exports no other changing method), so the page's mirror, which gets
// the same commands, cannot drift from it.
//
// While the run goes on, the worker sends its session every SESSION_MS (less often when
// packing it would take more than about 5 % of its time, but never less often than every
// 500 ms (sessionWait)): with the commands the page made since, it is what the page saves as it is
// left, which cannot wait for an answer.

import { hostWorker, readGetter, report, SESSION_MS, sessionWait, trapped, unknownMessage } from '../worker_host.js';

// Wall time of one continuous slice at maximum speed (short, so a change the page sends
// waits at most this long to be read), the most one frame's ticks may take at a slower
// speed (as the page's frame budget stopped them), and the largest chunk of ticks per
// engine call (calls of about an eighth of a frame's time, as the page's frame loop did):
// 14 · 4096 ticks, whole wavefront bands of 14 rows on a power-of-two side up to 4096 in
// sequential order (a chunk of 2^16 ended every fifth band short: about 7 % slower at 1024²).
const SLICE_MS = 4;
const FRAME_MS = 8;
const CHUNK = 14 * 4096;
// (The sessions' wait is sessionWait's: a 2048² lattice packs in 7–19 ms in the worker,
// docs/speed.md, so its 500 ms cap costs at most about 4 %.)

/** @type {typeof import('boltzlab-bindings')} */
let engine = null;
/** @type {import('boltzlab-bindings').IsingLab} */
let lab = null;
let runMax = false;
let chunkTicks = CHUNK;
let inFlight = 0; // frames posted and not yet acknowledged (1, or 2 after a change)
let dirty = true; // something changed since the last frame
let ticksDone = 0; // ticks since the last frame
const spare = []; // ArrayBuffers given back by the page
// The engine's own time: wall ms spent inside lab.advance and the ticks it did there
// (read as 'engine_time' by benches/page.mjs, which splits the page's shortfall into time
// outside the kernel and a kernel slowed by what else runs on the machine), the time spent
// packing frames, and how many frame buffers had to be allocated (the page gives them back).
const engineTime = { ms: 0, ticks: 0, frameMs: 0, frames: 0, buffers: 0 };
// The last session sent: when, at which tick count and change, and the wait until the next.
const kept = { at: -Infinity, ticks: -1, seq: -1, every: SESSION_MS };

// The temperature sweep (the engine's scan: a copy of the lattice cooled from T high to T
// low, measured at each T), advanced here in slices while it runs, before the run (the page
// pauses the run for it); its commands (start-scan, cancel-scan) come as any other, and its
// state goes to the page with the frames. perCall: sweeps per engine call, sized to about a
// quarter of a slice; sentLen: the result rows last sent.
const scan = { running: false, perCall: 1, sentLen: -1, changed: true };

const tick = new MessageChannel();
let scheduled = false;
tick.port1.onmessage = () => {
  scheduled = false;
  slice();
};

// The next slice, after any message waiting (once).
function schedule() {
  if (scheduled) return;
  scheduled = true;
  tick.port2.postMessage(null);
}

function buffer(bytes) {
  const k = spare.findIndex((b) => b.byteLength === bytes);
  if (k >= 0) return spare.splice(k, 1)[0];
  engineTime.buffers += 1;
  return new ArrayBuffer(bytes);
}

// Keeps the buffers the page gave back, at most four, of the lattice's size only: buffers of
// an earlier size would otherwise fill the four places for good, and every frame would then
// take fresh memory (at 1024², two new megabytes a frame cost the worker 1.2 ms, 7 % of its time).
function keep(buffers) {
  const bytes = lab.spin_count();
  const fits = spare.filter((b) => b.byteLength === bytes);
  for (const b of buffers) if (b.byteLength === bytes) fits.push(b);
  spare.splice(0, spare.length, ...fits.slice(0, 4));
}

function copyOut(Type, ptr, length) {
  const out = new Type(buffer(length * Type.BYTES_PER_ELEMENT));
  out.set(new Type(engine.wasm_memory().buffer, ptr, length));
  return out;
}

// Posts a frame when none is in flight, or, for a change the page made (`urgent`), when at
// most one is.
function frame(urgent = false) {
  if (inFlight > (urgent ? 1 : 0) || !dirty || host.dead()) return;
  const t0 = performance.now();
  const n = lab.spin_count();
  const spins = copyOut(Int8Array, lab.spins_ptr(), n);
  // Without clamps the mask is all zeros, and the page does not read it.
  const clampedCount = lab.clamped_count();
  const clamps = clampedCount > 0 ? copyOut(Uint8Array, lab.clamp_ptr(), n) : null;
  const points = lab.trace_len();
  const memory = engine.wasm_memory().buffer;
  const trace = {
    sweeps: new Float64Array(memory, lab.trace_sweeps_ptr(), points).slice(),
    energy: new Float64Array(memory, lab.trace_energy_ptr(), points).slice(),
    magnetization: new Float64Array(memory, lab.trace_magnetization_ptr(), points).slice(),
  };
  /** @type {import('../messages').LatticeFrame} */
  const message = {
    type: 'frame',
    scan: scanPart(),
    seq: host.seq(),
    side: lab.side(),
    spins,
    clamps,
    trace,
    ticksDone,
    stats: {
      ticks: lab.ticks(),
      sweeps: lab.sweeps(),
      energy: lab.energy_per_spin(),
      magnetization: lab.magnetization_per_spin(),
      clampedCount,
      version: lab.lattice_version(),
      nextSite: lab.next_site(),
      lastStep: lab.last_step(),
      // When these figures were read (ms since the epoch): the run's ticks at a known moment.
      at: performance.timeOrigin + performance.now(),
    },
  };
  inFlight += 1;
  dirty = false;
  ticksDone = 0;
  postMessage(message, clamps ? [spins.buffer, clamps.buffer] : [spins.buffer]);
  engineTime.frameMs += performance.now() - t0;
  engineTime.frames += 1;
}

// Advances `ticks` in calls of at most chunkTicks (each call appends a trace point, as the
// page's loop did); with `untilMs`, stops at that time.
function advance(ticks, explain, untilMs = Infinity) {
  if (explain) {
    lab.dispatch({ command: 'advance', ticks, explain: true });
    ticksDone += ticks;
    dirty = true;
    return;
  }
  let done = 0;
  while (done < ticks) {
    const chunk = Math.min(chunkTicks, ticks - done);
    const t0 = performance.now();
    lab.dispatch({ command: 'advance', ticks: chunk, explain: false });
    const took = performance.now() - t0;
    engineTime.ms += took;
    engineTime.ticks += chunk;
    done += chunk;
    ticksDone += chunk;
    dirty = true;
    if (took > FRAME_MS / 8 && chunkTicks > 1024) chunkTicks >>= 1;
    else if (took < FRAME_MS / 32 && chunkTicks < CHUNK) chunkTicks <<= 1;
    if (performance.now() > untilMs) break;
  }
}

function slice() {
  if ((!runMax && !scan.running) || host.dead()) return;
  try {
    if (scan.running) advanceScan(performance.now() + SLICE_MS);
    else advance(Infinity, false, performance.now() + SLICE_MS);
  } catch (err) {
    if (scan.running) {
      scan.running = false;
      scan.changed = true;
      dirty = true;
      report({ type: 'error', part: 'scan', message: String(err?.message ?? err) });
    } else {
      runMax = false;
      advanceFailed(err);
      return;
    }
  }
  frame();
  keepSession();
  if (runMax || scan.running) schedule();
}

// Advances the sweep until `untilMs` (at least one call), in calls of scan.perCall sweeps.
function advanceScan(untilMs) {
  do {
    const t0 = performance.now();
    lab.dispatch({ command: 'advance-scan', sweeps: scan.perCall });
    const took = performance.now() - t0;
    if (took < SLICE_MS / 8) scan.perCall = Math.min(1 << 16, scan.perCall * 2);
    else if (took > SLICE_MS / 2 && scan.perCall > 1) scan.perCall = Math.max(1, scan.perCall >> 1);
  } while (performance.now() < untilMs && !lab.scan_done());
  if (lab.scan_done()) scan.running = false;
  scan.changed = true;
  dirty = true;
}

// The sweep's state for the page, when it changed since the last frame (else undefined):
// {has, running, len, progress, done, cancelled, temperature, range: [T high, T low],
// onsager, side and spins (its lattice, while it runs), columns (when rows were added: the
// result columns t, m, mErr, u, uErr, c, cErr, chi, chiErr, and mOk, uOk, cOk, chiOk: 1 where
// the estimate was measured for enough autocorrelation times to trust its error)}.
/** @returns {import('../messages').LatticeScanPart | undefined} */
function scanPart() {
  if (!scan.changed) return undefined;
  scan.changed = false;
  const has = lab.has_scan();
  const len = lab.scan_len();
  const memory = engine.wasm_memory().buffer;
  /** @type {import('../messages').LatticeScanPart} */
  const part = {
    has,
    running: scan.running,
    len,
    progress: lab.scan_progress(),
    done: lab.scan_done(),
    cancelled: lab.scan_cancelled(),
    temperature: has && scan.running ? lab.scan_temperature() : NaN,
    range: has ? Array.from(lab.scan_range()) : [3.5, 1.5],
    onsager: has && lab.scan_is_onsager(),
  };
  if (has && scan.running) {
    const side = lab.scan_side();
    Object.assign(part, { side, spins: new Int8Array(memory, lab.scan_spins_ptr(), side * side).slice() });
  }
  if (len !== scan.sentLen) {
    scan.sentLen = len;
    const column = (ptr) => new Float64Array(memory, ptr, len).slice();
    part.columns = {
      t: column(lab.scan_temperature_ptr()),
      m: column(lab.scan_abs_magnetization_ptr()),
      mErr: column(lab.scan_abs_magnetization_error_ptr()),
      u: column(lab.scan_energy_ptr()),
      uErr: column(lab.scan_energy_error_ptr()),
      c: column(lab.scan_specific_heat_ptr()),
      cErr: column(lab.scan_specific_heat_error_ptr()),
      chi: column(lab.scan_susceptibility_ptr()),
      chiErr: column(lab.scan_susceptibility_error_ptr()),
      // 1 where the estimate was measured for enough autocorrelation times, 0 where not.
      mOk: lab.scan_converged(0),
      uOk: lab.scan_converged(1),
      cOk: lab.scan_converged(2),
      chiOk: lab.scan_converged(3),
    };
  }
  return part;
}

// Sends the run's session when it moved on and the last is SESSION_MS old (or older, for a
// lattice whose packing is slow: at most about 5 % of the worker's time goes to it, and at
// most 500 ms (sessionWait) old).
function keepSession() {
  const now = performance.now();
  if (now - kept.at < kept.every || host.dead()) return;
  const ticks = lab.ticks();
  const seq = host.seq();
  if (ticks === kept.ticks && seq === kept.seq) return;
  const text = lab.session();
  const ms = performance.now() - now;
  Object.assign(kept, { at: now, ticks, seq, every: sessionWait(ms) });
  /** @type {import('../messages').LatticeSession} */
  const session = { type: 'session', text, seq, ms };
  postMessage(session);
}

// Advancing failed (a slice, or a frame's ticks).
function advanceFailed(err) {
  if (!trapped(err) && !host.dead()) report({ type: 'error', message: String(err?.message ?? err) });
}

function read(name, args) {
  const n = lab.spin_count();
  const memory = engine.wasm_memory().buffer;
  if (name === 'spins') return new Int8Array(memory, lab.spins_ptr(), n).slice();
  if (name === 'clamps') return new Uint8Array(memory, lab.clamp_ptr(), n).slice();
  if (name === 'memory') return memory.byteLength; // the worker's wasm memory, in bytes
  if (name === 'engine_time') return { ...engineTime };
  if (name === 'timed_session') {
    const t0 = performance.now();
    const text = lab.session();
    return { text, ms: performance.now() - t0, seq: host.seq() };
  }
  // Any getter; changes come only as commands.
  return readGetter(lab, name, args, 'the engine');
}

// This worker's own messages.
/** @param {import('../messages').LatticeMessage} data */
function other(data) {
  switch (data.type) {
    case 'advance':
      try {
        // A frame's ticks stop after a slice's time, as the page's frame budget stopped them.
        advance(data.ticks, data.explain, performance.now() + FRAME_MS);
      } catch (err) {
        advanceFailed(err);
      }
      frame();
      keepSession();
      break;
    case 'run':
      runMax = data.max;
      if (runMax) schedule();
      break;
    case 'ack':
      inFlight = Math.max(0, inFlight - 1);
      keep(data.buffers ?? []);
      frame();
      break;
    default:
      unknownMessage(data);
  }
}

const host = hostWorker({
  // The run starts from the page's session (a session it cannot restore is a failed start).
  start(loaded, { session }) {
    engine = loaded;
    lab = new engine.IsingLab(4, 2.269, 1);
    lab.dispatch({ command: 'restore-session', text: session });
  },
  // Its first frame, before any message that came early.
  started() {
    dirty = true;
    frame();
  },
  make(command) {
    const reply = lab.dispatch(command);
    dirty = true;
    // Any command may change the sweep (a new one, a cancel, a lattice rebuilt).
    scan.changed = true;
    if (command.command === 'start-scan') {
      scan.running = true;
      scan.perCall = 1;
      scan.sentLen = -1;
      schedule();
    } else if (command.command === 'cancel-scan') scan.running = false;
    return reply;
  },
  read,
  // A frame after every command or read, made or refused: at once for a command.
  answered(data) {
    frame(data.type === 'command');
  },
  other,
});
