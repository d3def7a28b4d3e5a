// @ts-check
// The general Boltzmann machine's engine in a module worker: it owns the live MachineLab (the
// same wasm engine, loaded from the same wasm-bindgen module and .wasm file as the page) and
// does all its work here, so that the page's main thread only draws and handles input:
// learning (so many sweeps per drawn frame, or continuously at the top speed), the AIS
// estimate of KL, the explore/dream runs, the gallery, ln Z four ways, the network file and the
// session. Protocol (the page's side is www/worker_link.js, driven by mode.js; the shared
// messages, init, command, read, fault, ready, result, panic and the protocol error, are
// www/worker_host.js's):
//
//   page → worker
//     {type: 'init', js, wasm}                 load the engine (no run until a command makes one)
//     {type: 'command', id, command, seq}      a MachineCommand object for MachineLab.dispatch
//                                              (decoded and checked by the engine), numbered
//     {type: 'read', id, name, args}           a value: a MachineLab reading (cycles, session,
//                                              export_network, gallery(count, seed),
//                                              log_z(method, temperature), …) or 'busy'
//     {type: 'run', on, sweeps}                learn (or stop): `sweeps` sweeps per drawn frame,
//                                              or 'max' (continuously, in slices)
//     {type: 'ack', frames}                    the page drew (or passed over) `frames` frames
//     {type: 'fault'}                          test only: a deliberate panic
//     {type: 'fail-learning', message}         test only: every learning step from now on
//                                              fails with `message` (as learning that
//                                              diverges does)
//   worker → page
//     {type: 'ready'} · {type: 'result', id, value | error}
//     {type: 'frame', seq, stats, activations, clamps, weights?}  what the views draw, in
//                                              transferred buffers; `weights` ({weights,
//                                              biases, clamped, free, difference, curve, ais})
//                                              only when the weights or the curves changed
//     {type: 'session', text, seq, cycles}     the run's session, at least every SESSION_MS
//                                              while it works, when it stops, and after each
//                                              command
//     {type: 'error', message, part}           a slice of `part` (learning, estimate, explore)
//                                              failed; that work stops (part 'protocol': a
//                                              message it could not handle)
//     {type: 'panic', message}
//
// Frames never queue up: at most one is in flight, and the next is posted once the page has
// acknowledged the last (a command's frame is posted at once, with at most one other in
// flight). Each frame and session carries the number (seq) of the page's last command it
// includes. Only commands change the engine (MachineLab's other exports are readings).

import { copyFromWasm, hostWorker, readGetter, report, timedLogZ, trapped, unknownMessage } from '../worker_host.js';

// Wall time of one slice (short, so that a command waits at most about this long), the share
// of it learning may take while an AIS estimate is under way, the sweeps per engine call, and
// how often the session is sent.
const SLICE_MS = 4;
const LEARN_SHARE = 0.6;
const CHUNK_SWEEPS = 64;
const SESSION_MS = 250;

/** @type {typeof import('boltzlab-bindings')} */
let engine = null;
/** @type {import('boltzlab-bindings').MachineLab} */
let lab = null;
let hasRun = false; // a command made the run (the first lab is a placeholder)
let running = false;
/** @type {number | 'max'} */
let perFrame = 1; // sweeps per drawn frame while learning
let granted = 0; // sweeps (learning) or explore sweeps left for the frame being drawn
let scheduled = false;
let inFlight = 0;
let dirty = false;
let full = true; // the next frame carries the weights, pair matrices and curves
let failLearning = null; // test only: the message every learning step fails with
const sent = { version: -1, curve: -1, ais: -1 };
const kept = { at: -Infinity, key: '' };

const tick = new MessageChannel();
tick.port1.onmessage = () => slice();

function schedule() {
  if (scheduled || host.dead()) return;
  scheduled = true;
  tick.port2.postMessage(null); // the next slice, after any message waiting
}

// Whether there is work for another slice (learning or exploring wait for the page's
// acknowledgement of the last frame when they have used the sweeps granted for it).
const working = () => hasRun && (running || lab.exploring() || lab.estimating());
const busy = () =>
  hasRun && ((running && (perFrame === 'max' || granted > 0)) || lab.estimating() || (lab.exploring() && granted > 0));

/** @template T @param {{new (buffer: ArrayBuffer): T & {set: (a: ArrayLike<number>) => void}, BYTES_PER_ELEMENT: number}} Type */
const copyOut = (Type, ptr, length) => copyFromWasm(engine, Type, ptr, length);

/** @returns {import('../messages').MachineStats} */
function stats() {
  return {
    units: lab.units(),
    visible: lab.visible(),
    cycles: lab.cycles(),
    phase: lab.phase(),
    pattern: lab.pattern(),
    temperature: lab.temperature(),
    stage: lab.stage(),
    version: lab.version(),
    exploring: lab.exploring(),
    estimating: lab.estimating(),
    klEstimated: lab.kl_estimated(),
    curveLen: lab.curve_len(),
    aisLen: lab.ais_len(),
    running,
  };
}

// Posts a frame when none is in flight, or, for a command (`urgent`), when at most one is.
function frame(urgent = false) {
  if (!hasRun || host.dead() || !dirty || inFlight > (urgent ? 1 : 0)) return;
  const s = stats();
  const n = s.units;
  const transfer = [];
  const take = (array) => {
    transfer.push(array.buffer);
    return array;
  };
  /** @type {import('../messages').MachineFrame} */
  const message = {
    type: 'frame',
    seq: host.seq(),
    stats: s,
    activations: take(copyOut(Float64Array, lab.activations_ptr(), n)),
    clamps: take(copyOut(Uint8Array, lab.clamps_ptr(), n)),
  };
  if (full || s.version !== sent.version || s.curveLen !== sent.curve || s.aisLen !== sent.ais) {
    const matrix = (ptr) => take(copyOut(Float64Array, ptr, n * n));
    const column = (ptr, length) => take(copyOut(Float64Array, ptr, length));
    message.weights = {
      weights: matrix(lab.weights_ptr()),
      biases: column(lab.biases_ptr(), n),
      clamped: matrix(lab.clamped_pairs_ptr()),
      free: matrix(lab.free_pairs_ptr()),
      difference: matrix(lab.pair_difference_ptr()),
      curve: {
        cycles: column(lab.curve_cycles_ptr(), s.curveLen),
        kl: column(lab.curve_kl_ptr(), s.curveLen),
        solved: column(lab.curve_solved_ptr(), s.curveLen),
      },
      ais: {
        cycles: column(lab.ais_cycles_ptr(), s.aisLen),
        kl: column(lab.ais_kl_ptr(), s.aisLen),
        stderr: column(lab.ais_stderr_ptr(), s.aisLen),
      },
    };
    Object.assign(sent, { version: s.version, curve: s.curveLen, ais: s.aisLen });
    full = false;
  }
  inFlight += 1;
  dirty = false;
  postMessage(message, transfer);
}

// Runs `part` (learning, estimate, explore); a failure is reported with its part, and that
// work stops.
function attempt(part, action) {
  try {
    action();
    return true;
  } catch (err) {
    if (trapped(err) || host.dead()) return false;
    if (part === 'learning') running = false;
    if (part === 'explore') lab.dispatch({ command: 'stop-exploring' });
    report({ type: 'error', part, message: String(err?.message ?? err) });
    return false;
  }
}

// Learns until `untilMs`: the sweeps granted for this frame, or (at the top speed) as many
// as fit, CHUNK_SWEEPS an engine call.
function learn(untilMs) {
  while (running && performance.now() < untilMs) {
    const steps = perFrame === 'max' ? CHUNK_SWEEPS : Math.min(granted, CHUNK_SWEEPS);
    if (steps <= 0) return;
    if (failLearning) throw new Error(failLearning);
    lab.dispatch({ command: 'advance', steps });
    if (perFrame !== 'max') granted -= steps;
    dirty = true;
  }
}

function slice() {
  scheduled = false;
  if (host.dead() || !hasRun) return;
  const start = performance.now();
  const estimating = lab.estimating();
  if (running) attempt('learning', () => learn(start + (estimating ? SLICE_MS * LEARN_SHARE : SLICE_MS)));
  else if (lab.exploring() && granted > 0) {
    granted = 0;
    attempt('explore', () => lab.dispatch({ command: 'explore-sweeps', sweeps: 1 }));
    dirty = true;
  }
  if (lab.estimating()) {
    let first = true;
    while (lab.estimating() && (first || performance.now() - start < SLICE_MS)) {
      first = false;
      if (!attempt('estimate', () => lab.dispatch({ command: 'estimate-step', chunks: 1 }))) break;
      dirty = true;
    }
  }
  frame();
  keepSession(!working());
  if (busy()) schedule();
}

// Sends the run's session when what it keeps moved on and the last is SESSION_MS old (`now`:
// at once).
function keepSession(now = false) {
  if (!hasRun || host.dead()) return;
  const at = performance.now();
  const seq = host.seq();
  if (!now && at - kept.at < SESSION_MS) return;
  const key = `${lab.version()} ${lab.cycles()} ${lab.phase()} ${lab.pattern()} ${lab.curve_len()} ${lab.ais_len()} ${seq}`;
  if (key === kept.key) return;
  Object.assign(kept, { at, key });
  /** @type {import('../messages').MachineSession} */
  const session = { type: 'session', text: lab.session(), seq, cycles: lab.cycles() };
  postMessage(session);
}

function read(name, args) {
  if (name === 'busy') return busy();
  if (!hasRun) throw new Error('the machine has no run yet');
  const n = lab.units();
  // The live arrays as copies (for tests and the lessons' checks).
  if (name === 'activations') return copyOut(Float64Array, lab.activations_ptr(), n);
  if (name === 'clamps') return copyOut(Uint8Array, lab.clamps_ptr(), n);
  if (name === 'weights') return copyOut(Float64Array, lab.weights_ptr(), n * n);
  if (name === 'curve') {
    const m = lab.curve_len();
    return {
      cycles: copyOut(Float64Array, lab.curve_cycles_ptr(), m),
      kl: copyOut(Float64Array, lab.curve_kl_ptr(), m),
      solved: copyOut(Float64Array, lab.curve_solved_ptr(), m),
    };
  }
  if (name === 'ais') {
    const m = lab.ais_len();
    return {
      cycles: copyOut(Float64Array, lab.ais_cycles_ptr(), m),
      kl: copyOut(Float64Array, lab.ais_kl_ptr(), m),
      stderr: copyOut(Float64Array, lab.ais_stderr_ptr(), m),
    };
  }
  // ln Z by each method at `temperature`, each timed here: [{method, value | error, ms}].
  if (name === 'log_z_all') {
    const [methods, temperature] = args;
    return timedLogZ(methods, (method) => lab.log_z(method, temperature));
  }
  return readGetter(lab, name, args, 'the machine');
}

/** @param {import('boltzlab-bindings').MachineCommand} command */
function make(command) {
  if (!hasRun && !['new-run', 'new-custom-run', 'restore-session'].includes(command.command))
    throw new Error('the machine has no run yet: make one first');
  if (failLearning && ['advance', 'step-cycle'].includes(command.command)) throw new Error(failLearning);
  const reply = lab.dispatch(command);
  if (['new-run', 'new-custom-run', 'restore-session'].includes(command.command)) hasRun = true;
  // Exploring by hand runs one sweep per drawn frame, as learning waits.
  if (command.command === 'explore') granted = 1;
  full = true;
  return reply;
}

// After a command was made and answered: a frame with it, and its session.
function made() {
  dirty = true;
  frame(true);
  keepSession(true);
}

// This worker's own messages.
/** @param {import('../messages').MachineMessage} data */
function other(data) {
  switch (data.type) {
    case 'run':
      running = Boolean(data.on) && hasRun;
      perFrame = data.sweeps === 'max' ? 'max' : Math.max(1, Number(data.sweeps) || 1);
      granted = perFrame === 'max' ? 0 : perFrame;
      if (running) schedule();
      else {
        dirty = true;
        frame();
        keepSession(true);
        if (busy()) schedule();
      }
      break;
    case 'ack':
      inFlight = Math.max(0, inFlight - (Number.isInteger(data.frames) ? data.frames : 1));
      // The next frame's work: its sweeps while learning, one sweep while exploring.
      if (hasRun && (running || lab.exploring())) {
        granted = running ? (perFrame === 'max' ? 0 : perFrame) : 1;
        dirty = dirty || lab.exploring();
        schedule();
      }
      frame();
      break;
    case 'fail-learning':
      failLearning = String(data.message);
      break;
    default:
      unknownMessage(data);
  }
}

const host = hostWorker({
  start(loaded) {
    engine = loaded;
    lab = new engine.MachineLab('pixels-10', 'stochastic', 1); // a placeholder until a command makes the run
  },
  make,
  read,
  made,
  // After every command or read, made or refused: the next slice, if there is work.
  answered() {
    if (busy()) schedule();
  },
  other,
});

// A module (for the type checker too: its names are its own, not the other workers').
export {};
