// @ts-check
// The restricted machine's engine in a module worker: it owns the live RbmLab (the same wasm
// engine, loaded from the same wasm-bindgen module and .wasm file as the page) and does all
// its work here, so that the page's main thread only draws and handles input: learning
// (continuously while running, in slices, with all of this worker's time), the generation
// gallery and the completion chain. The log-likelihood points are the run's (it starts each
// when due, keeps it in its session and records its values), but are computed in a second
// worker, rbm_points_worker.js, from the frozen machine sent over a port: learning never waits
// for a point. Protocol (the page's side is www/worker_link.js, driven by rbm.js; the shared
// messages are www/worker_host.js's):
//
//   page → worker
//     {type: 'init', js, wasm}                 load the engine (no run until a command makes one)
//     {type: 'port', port}                     this worker's end of the channel to the points
//                                              worker (see rbm_points_worker.js)
//     {type: 'command', id, command, seq}      an RbmCommand object for RbmLab.dispatch (decoded
//                                              and checked by the engine), numbered; an
//                                              'advance-completion' of many steps is run here in
//                                              slices, as the chain settles on screen
//     {type: 'read', id, name, args}           a value: an RbmLab getter, or 'session' ({text,
//                                              ms, seq}), 'weights', 'curve', 'completion',
//                                              'engine_time' ({ms, updates} inside learning,
//                                              sliceMs: inside the slices, frames and sessions
//                                              included; frameMs, refreshMs: making frames,
//                                              and of it refreshing the particle views)
//     {type: 'run', on}                        learn continuously (or stop)
//     {type: 'ack', frames}                    the page drew (or passed over) `frames` frames
//     {type: 'view', means}                    whether the page draws the particles as
//                                              p(v | h) (frames then carry fantasyMean)
//     {type: 'fault'}                          test only: a deliberate panic
//   worker → page
//     {type: 'ready'} · {type: 'result', id, value | error}
//     {type: 'frame', seq, stats, fantasy, fantasyMean?, weights?, reconstructions?, curve?,
//      gallery?, completion?}                  what the views draw, in transferred buffers;
//                                              the parts marked ? only when they changed
//     {type: 'session', text, seq, updates, ms} the run's session, every SESSION_MS to
//                                              500 ms (sessionWait) while it learns, when it stops, and after each
//                                              change to what a session keeps
//     {type: 'error', message, part}           a slice of `part` (learning, likelihood,
//                                              gallery, completion) failed; learning stops
//                                              (not for a point: it is dropped, and the next
//                                              starts after more learning)
//     {type: 'panic', message}
//
// Frames never queue up: at most one is in flight, and the next is posted once the page has
// acknowledged the last (a command's frame is posted at once, with at most one other in
// flight). Each frame and session carries the number (seq) of the page's last command it
// includes. Only commands change the engine: a read of one of its changing exports is refused
// (worker_host.js, CHANGING).

import {
  copyFromWasm,
  hostWorker,
  PaceLink,
  readGetter,
  report,
  SESSION_MS,
  sessionWait,
  trapped,
  unknownMessage,
} from '../worker_host.js';
import { KEPT } from './rbm_kept.js';

// Wall time of one slice (short, so a command waits at most about this long to be read), the
// block Gibbs steps of the gallery and the completion per slice, and how often the session is
// sent: every SESSION_MS, or 20 times as long as the last one took to make (at most 5 % of the
// worker's time), but never less often than every 500 ms (sessionWait). The bound on learning lost
// on leaving is this period plus the time the text takes to reach the page, which a loaded
// machine stretches (2026-12-06: 1.07 s lost in CI at a fixed 500 ms): a 64-500 machine's
// 1.4 MB text takes 3–10 ms, so its sessions come every 250 ms.
const SLICE_MS = 4;
const CHAIN_STEPS = 10;

/** @type {typeof import('boltzlab-bindings')} */
let engine = null;
/** @type {import('boltzlab-bindings').RbmLab} */
let lab = null;
let hasRun = false; // a command made the run (the first lab is a placeholder)
let running = false;
let scheduled = false;
let checkLikelihood = false; // a point may be due: the next slice starts it
// The points worker: its port, the point last sent (`${run} ${update}`) and its progress.
const points = { port: null, sent: '', progress: { run: -1, update: -1, progress: 0 } };
// Tells the points worker whether learning runs (worker_host.js, backgroundShare).
const pacing = new PaceLink();
let galleryActive = false;
let settling = 0; // completion steps still to run
let inFlight = 0;
let dirty = false;
// Measured speed of learning, multiply-adds per ms, to size the resumable calls.
const speed = { work: 1e5 };
// What the last frame carried, so that the big parts go only when they changed.
const sent = { run: -1, version: -1, curve: -1, gallery: -1, completion: '' };
let run = 0; // counts the runs made (a new run sends everything again)
let refreshed = -1; // the weights' version the particle grid was last refreshed at
let showMeans = true; // the page draws the particles as p(v | h) (else as their states)
let completionKey = 0; // counts the completions started and phases switched
const engineTime = { ms: 0, updates: 0, sliceMs: 0, frameMs: 0, refreshMs: 0 };
const kept = { at: -Infinity, key: '', every: SESSION_MS };

const tick = new MessageChannel();
tick.port1.onmessage = () => slice();

function schedule() {
  if (scheduled || host.dead() || !hasWork()) return;
  scheduled = true;
  tick.port2.postMessage(null); // the next slice, after any message waiting
}

// Whether there is work for another slice here, and whether anything is under way at all (a
// point in the points worker too).
const hasWork = () => hasRun && (running || checkLikelihood || galleryActive || settling > 0);
const busy = () => hasWork() || (hasRun && lab.point_update() >= 0);

// The fraction of the point under way that is done (as the points worker last said), or −1.
function pointProgress() {
  const update = lab.point_update();
  if (update < 0) return -1;
  const p = points.progress;
  return p.run === run && p.update === update ? p.progress : 0;
}

/** @template T @param {{new (buffer: ArrayBuffer): T & {set: (a: ArrayLike<number>) => void}, BYTES_PER_ELEMENT: number}} Type */
const copyOut = (Type, ptr, length) => copyFromWasm(engine, Type, ptr, length);

/** @returns {import('../messages').RbmStats} */
function stats() {
  return {
    updates: lab.updates(),
    updatesPerEpoch: lab.updates_per_epoch(),
    version: lab.version(),
    progress: pointProgress(),
    exact: lab.likelihood_exact(),
    curveLen: lab.curve_len(),
    shown: lab.shown(),
    hasParticles: lab.has_particles(),
    visible: lab.visible(),
    hidden: lab.hidden(),
    width: lab.width(),
    dataset: lab.dataset(),
    statistics: lab.statistics(),
    testCount: lab.test_count(),
    galleryCount: lab.gallery_count(),
    galleryDone: lab.gallery_done(),
    completionImage: lab.completion_image(),
    completionSteps: lab.completion_steps(),
    completionClamped: lab.completion_clamped(),
    running,
    // When these figures were read (ms since the epoch): the run's updates at a known moment.
    at: performance.timeOrigin + performance.now(),
  };
}

// The first 8 training and 8 test images, each row followed by its reconstructions: rows 1
// and 2 the training images and theirs, rows 3 and 4 the test images and theirs.
function reconstructions(nv) {
  const sources = lab.reconstruction_sources();
  const count = sources.length / nv;
  const recon = new Float64Array(engine.wasm_memory().buffer, lab.reconstructions_ptr(), count * nv);
  const both = new Float64Array(2 * count * nv);
  const half = count / 2;
  for (let part = 0; part < 2; part++)
    for (let k = 0; k < half; k++)
      for (let i = 0; i < nv; i++) {
        both[(part * 2 * half + k) * nv + i] = sources[(part * half + k) * nv + i];
        both[(part * 2 * half + half + k) * nv + i] = recon[(part * half + k) * nv + i];
      }
  return { values: both, count: 2 * count, columns: half };
}

// original | clamped input (free pixels marked) | completion (mean p(v | h)) | the chain.
function completion(nv) {
  const memory = engine.wasm_memory().buffer;
  const original = new Uint8Array(memory, lab.completion_original_ptr(), nv);
  const mask = new Uint8Array(memory, lab.completion_mask_ptr(), nv);
  const mean = new Float64Array(memory, lab.completion_mean_ptr(), nv);
  const state = new Uint8Array(memory, lab.completion_state_ptr(), nv);
  const all = new Float64Array(4 * nv);
  const marks = new Uint8Array(4 * nv);
  for (let i = 0; i < nv; i++) {
    all[i] = original[i];
    all[nv + i] = mask[i] ? original[i] : 0;
    marks[nv + i] = mask[i] ? 0 : 1;
    all[2 * nv + i] = mean[i];
    all[3 * nv + i] = state[i];
  }
  return { all, marks };
}

// Posts a frame when none is in flight, or, for a command (`urgent`), when at most one is.
function frame(urgent = false) {
  if (!hasRun || host.dead() || !dirty || inFlight > (urgent ? 1 : 0)) return;
  const t0 = performance.now();
  const version = lab.version();
  // The particles move with every update: refreshed for each frame while learning (their
  // p(v | h) only while the page shows them).
  if (running || version !== refreshed) {
    lab.dispatch({ command: 'refresh', means: showMeans });
    refreshed = version;
    engineTime.refreshMs += performance.now() - t0;
  }
  const s = stats();
  const nv = s.visible;
  const transfer = [];
  const take = (array) => {
    transfer.push(array.buffer);
    return array;
  };
  /** @type {import('../messages').RbmFrame} */
  const message = {
    type: 'frame',
    seq: host.seq(),
    stats: s,
    fantasy: take(copyOut(Uint8Array, lab.fantasy_ptr(), s.shown * nv)),
  };
  if (showMeans) message.fantasyMean = take(copyOut(Float64Array, lab.fantasy_mean_ptr(), s.shown * nv));
  const fresh = sent.run !== run;
  if (fresh || version !== sent.version) {
    message.weights = take(copyOut(Float64Array, lab.weights_ptr(), nv * s.hidden));
    const r = reconstructions(nv);
    message.reconstructions = { ...r, values: take(r.values) };
    sent.version = version;
  }
  if (fresh || s.curveLen !== sent.curve) {
    const n = s.curveLen;
    message.curve = {
      updates: take(copyOut(Float64Array, lab.curve_updates_ptr(), n)),
      train: take(copyOut(Float64Array, lab.curve_train_ptr(), n)),
      test: take(copyOut(Float64Array, lab.curve_test_ptr(), n)),
      stderr: take(copyOut(Float64Array, lab.curve_stderr_ptr(), n)),
    };
    sent.curve = n;
  }
  if (s.galleryCount > 0 && (fresh || s.galleryDone !== sent.gallery)) {
    message.gallery = take(copyOut(Float64Array, lab.gallery_mean_ptr(), s.galleryCount * nv));
    sent.gallery = s.galleryDone;
  }
  const key = `${s.completionImage} ${s.completionSteps} ${s.completionClamped} ${completionKey}`;
  if (s.completionImage >= 0 && (fresh || key !== sent.completion)) {
    const c = completion(nv);
    message.completion = { all: take(c.all), marks: take(c.marks) };
    sent.completion = key;
  }
  sent.run = run;
  inFlight += 1;
  dirty = false;
  postMessage(message, transfer);
  engineTime.frameMs += performance.now() - t0;
}

// Learns until `untilMs`, in calls of about a millisecond of multiply-adds (sized by the
// measured speed; an update of any k × particles is resumed by the next call).
function learn(untilMs) {
  while (running && performance.now() < untilMs) {
    const left = untilMs - performance.now();
    const work = Math.max(1, Math.min(2 ** 40, Math.floor(Math.max(left, 0.25) * speed.work)));
    const t0 = performance.now();
    const reply = lab.dispatch({ command: 'learn', work });
    const ms = performance.now() - t0;
    if (ms > 0.05) speed.work = 0.7 * speed.work + 0.3 * (work / ms);
    const updates = reply.reply === 'learned' ? reply.updates : 0;
    engineTime.ms += ms;
    engineTime.updates += updates;
    dirty = true;
    if (updates > 0) checkLikelihood = true;
  }
}

// Starts the log-likelihood point when one is due and sends its frozen machine to the points
// worker (once per point: a point restored with a session is sent again).
function startPoint() {
  const under = lab.point_update();
  if (under >= 0 && points.sent === `${run} ${under}`) return; // under way there
  const reply = lab.dispatch({ command: 'start-point' });
  const update = reply.reply === 'point-under-way' ? (reply.update ?? -1) : -1;
  const key = `${run} ${update}`;
  if (update < 0 || key === points.sent || !points.port) return;
  const parameters = lab.point_parameters();
  toPoints({ type: 'point', run, update, hidden: lab.hidden(), parameters }, [parameters.buffer]);
  points.sent = key;
  points.progress = { run, update, progress: 0 };
  dirty = true;
}

/**
 * @param {import('../messages').ToPoints} message
 * @param {Transferable[]} [transfer]
 */
const toPoints = (message, transfer = []) => points.port?.postMessage(message, transfer);

// A new run: the points worker gets its images and seed (and drops any point under way).
function sendRun() {
  points.sent = '';
  toPoints({
    type: 'run',
    run,
    visible: lab.visible(),
    train: lab.training_pixels(),
    test: lab.test_pixels(),
    seed: lab.seed(),
  });
}

// A message from the points worker: progress, a finished point (recorded in the run, which
// its session then keeps) or a failed one (dropped; the next starts after more learning).
/** @param {MessageEvent<import('../messages').FromPoints>} event */
function fromPoints({ data }) {
  if (host.dead() || !hasRun || data.run !== run) return;
  switch (data.type) {
    case 'progress':
      points.progress = data;
      break;
    case 'point': {
      const [update, train, test, stderr] = data.values;
      // Refused only if the run moved on (a stale point): then nothing changes.
      if (update !== lab.point_update()) return;
      attempt('likelihood', () => lab.dispatch({ command: 'finish-point', update, train, test, stderr }));
      checkLikelihood = true; // the next may be due already
      keepSession(true);
      break;
    }
    case 'failed':
      if (data.update === lab.point_update()) lab.dispatch({ command: 'drop-point', update: data.update });
      report({ type: 'error', part: 'likelihood', message: data.message });
      break;
    default:
      return;
  }
  dirty = true;
  frame();
  schedule();
}

// Runs `part` (learning, likelihood, gallery, completion); a failure is reported with its
// part, and learning stops on it.
function attempt(part, action) {
  try {
    action();
    return true;
  } catch (err) {
    if (trapped(err) || host.dead()) return false;
    if (part !== 'likelihood') setRunning(false);
    report({ type: 'error', part, message: String(err?.message ?? err) });
    return false;
  }
}

function slice() {
  scheduled = false;
  if (host.dead() || !hasRun) return;
  const start = performance.now();
  if (running) attempt('learning', () => learn(performance.now() + SLICE_MS));
  if (checkLikelihood) {
    checkLikelihood = false;
    attempt('likelihood', startPoint);
  }
  if (galleryActive) {
    const ok = attempt('gallery', () => {
      const reply = lab.dispatch({ command: 'advance-gallery', steps: CHAIN_STEPS });
      if (reply.reply === 'gallery-advanced' && reply.done) galleryActive = false;
    });
    if (!ok) galleryActive = false;
    dirty = true;
  }
  if (settling > 0) {
    const steps = Math.min(settling, CHAIN_STEPS);
    if (attempt('completion', () => lab.dispatch({ command: 'advance-completion', steps }))) settling -= steps;
    else settling = 0;
    dirty = true;
  }
  frame();
  keepSession(!running && !hasWork());
  engineTime.sliceMs += performance.now() - start;
  schedule();
}

// Sends the run's session text when what it keeps moved on and the last is kept.every old
// (`now`: at once). Never less often than 500 ms (sessionWait), even for long texts: what the page
// saves on leaving is the last text sent plus the commands since, so a longer wait would lose
// more learning.
function keepSession(now = false) {
  if (!hasRun || host.dead()) return;
  const at = performance.now();
  if (!now && at - kept.at < kept.every) return;
  const key = `${run} ${lab.updates()} ${lab.version()} ${lab.curve_len()} ${lab.point_update()} ${host.seq()}`;
  if (key === kept.key) return;
  const text = lab.session();
  const ms = performance.now() - at;
  Object.assign(kept, { at, key, every: sessionWait(ms) });
  /** @type {import('../messages').RbmSession} */
  const session = { type: 'session', text, seq: host.seq(), updates: lab.updates(), ms };
  postMessage(session);
}

function read(name, args) {
  const memory = engine.wasm_memory().buffer;
  if (name === 'engine_time') return { ...engineTime };
  if (!hasRun) throw new Error('the restricted machine has no run yet');
  const nv = lab.visible();
  if (name === 'session') {
    const t0 = performance.now();
    const text = lab.session();
    return { text, ms: performance.now() - t0, seq: host.seq() };
  }
  if (name === 'weights') return new Float64Array(memory, lab.weights_ptr(), nv * lab.hidden()).slice();
  if (name === 'curve') {
    const n = lab.curve_len();
    const column = (ptr) => new Float64Array(memory, ptr, n).slice();
    return {
      updates: column(lab.curve_updates_ptr()),
      train: column(lab.curve_train_ptr()),
      test: column(lab.curve_test_ptr()),
      stderr: column(lab.curve_stderr_ptr()),
    };
  }
  if (name === 'completion')
    return {
      original: new Uint8Array(memory, lab.completion_original_ptr(), nv).slice(),
      mask: new Uint8Array(memory, lab.completion_mask_ptr(), nv).slice(),
      state: new Uint8Array(memory, lab.completion_state_ptr(), nv).slice(),
      mean: new Float64Array(memory, lab.completion_mean_ptr(), nv).slice(),
    };
  if (name === 'busy') return busy();
  // The point is worked on in the points worker: its progress as last reported.
  if (name === 'likelihood_progress') return pointProgress();
  // Any getter; changes come only as commands.
  return readGetter(lab, name, args, 'the restricted machine');
}

// A command: made at once (an 'advance-completion' of more than a slice's steps: its first
// slice at once, which checks it, and the rest in the slices that follow).
/** @param {import('boltzlab-bindings').RbmCommand} command */
function make(command) {
  if (!hasRun && !['new-run', 'new-run-from-file', 'restore-session'].includes(command.command))
    throw new Error('the restricted machine has no run yet: make one first');
  if (
    command.command === 'advance-completion' &&
    Number.isInteger(command.steps) &&
    command.steps > CHAIN_STEPS &&
    command.steps <= 100000
  ) {
    const reply = lab.dispatch({ command: 'advance-completion', steps: CHAIN_STEPS });
    settling = Math.max(0, command.steps - CHAIN_STEPS);
    return reply;
  }
  const reply = lab.dispatch(command);
  switch (command.command) {
    case 'new-run':
    case 'new-run-from-file':
    case 'restore-session':
      hasRun = true;
      run += 1;
      galleryActive = false;
      settling = 0;
      refreshed = -1;
      checkLikelihood = true;
      sendRun();
      break;
    case 'set-training':
    case 'set-likelihood-every':
    case 'advance':
    case 'learn':
      checkLikelihood = true;
      break;
    case 'start-gallery':
      galleryActive = true;
      break;
    case 'start-completion':
      settling = 0;
      completionKey += 1;
      break;
    case 'set-completion-clamped':
      completionKey += 1;
      break;
    default:
  }
  return reply;
}

// Learning on or off. The points worker is told, so that it leaves learning a core of its own.
function setRunning(on) {
  running = on;
  pacing.tell(running ? 1 : 0);
}

// After a command was made and answered: a frame with it, and the session when it changed
// what a session keeps.
function made(command) {
  dirty = true;
  frame(true);
  if (KEPT.has(command.command)) keepSession(true);
  schedule();
}

// This worker's own messages.
/** @param {import('../messages').RbmMessage} data */
function other(data) {
  switch (data.type) {
    case 'run':
      setRunning(Boolean(data.on) && hasRun);
      if (!running) {
        dirty = true;
        frame();
        keepSession(true);
      }
      schedule();
      break;
    case 'ack':
      inFlight = Math.max(0, inFlight - (Number.isInteger(data.frames) ? data.frames : 1));
      frame();
      break;
    case 'view':
      // Drawn as p(v | h) again: the next frame computes them.
      if (data.means && !showMeans) refreshed = -1;
      showMeans = Boolean(data.means);
      dirty = true;
      frame(true);
      break;
    case 'port':
      points.port = data.port;
      points.port.onmessage = fromPoints;
      pacing.connect(data.port);
      pacing.tell(running ? 1 : 0);
      if (hasRun) {
        sendRun();
        checkLikelihood = true;
        schedule();
      }
      break;
    default:
      unknownMessage(data);
  }
}

const host = hostWorker({
  start(loaded) {
    engine = loaded;
    lab = new engine.RbmLab('bars-4x4', 1, 1); // a placeholder until a command makes the run
  },
  make,
  read,
  made,
  other,
});

// A module (for the type checker too: its names are its own, not the lattice worker's).
export {};
