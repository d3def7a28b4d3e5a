// @ts-check
// The restricted machine's engine in a module worker: it owns the live RbmLab (the same wasm
// engine, loaded from the same wasm-bindgen module and .wasm file as the page) and does all
// its work here, so that the page's main thread only draws and handles input: learning
// (continuously while running, in slices), the log-likelihood points (exact ln Z a slice of
// hidden states at a time, or AIS chunks), the generation gallery and the completion chain.
// Protocol (the page's side is www/worker_link.js, driven by rbm.js):
//
//   page → worker
//     {type: 'init', js, wasm}                 load the engine (no run until a command makes one)
//     {type: 'command', id, command, seq}      an RbmCommand object for RbmLab.dispatch (decoded
//                                              and checked by the engine), numbered; an
//                                              'advance-completion' of many steps is run here in
//                                              slices, as the chain settles on screen
//     {type: 'read', id, name, args}           a value: an RbmLab getter, or 'session' ({text,
//                                              ms, seq}), 'weights', 'curve', 'completion',
//                                              'engine_time' ({ms, updates} inside learning)
//     {type: 'run', on}                        learn continuously (or stop)
//     {type: 'ack', frames}                    the page drew (or passed over) `frames` frames
//     {type: 'fault'}                          test only: a deliberate panic
//   worker → page
//     {type: 'ready'} · {type: 'result', id, value | error}
//     {type: 'frame', seq, stats, fantasy, fantasyMean, weights?, reconstructions?, curve?,
//      gallery?, completion?}                  what the views draw, in transferred buffers;
//                                              the parts marked ? only when they changed
//     {type: 'session', text, seq, updates, ms} the run's session, at least every SESSION_MS
//                                              while it learns, when it stops, and after each
//                                              change to what a session keeps
//     {type: 'error', message, part}           a slice of `part` (learning, likelihood,
//                                              gallery, completion) failed; learning stops
//     {type: 'panic', message}
//
// Frames never queue up: at most one is in flight, and the next is posted once the page has
// acknowledged the last (a command's frame is posted at once, with at most one other in
// flight). Each frame and session carries the number (seq) of the page's last command it
// includes. Only commands change the engine (RbmLab's other exports are readings).

// Wall time of one slice (short, so a command waits at most about this long to be read), the
// share of it learning may take while a log-likelihood point is under way, the block Gibbs
// steps of the gallery and the completion per slice, and how often the session is sent.
const SLICE_MS = 4;
const LEARN_SHARE = 0.6;
const CHAIN_STEPS = 10;
const SESSION_MS = 500;
// Commands that change what the session keeps (the gallery and the completion it does not).
const KEPT = new Set([
  'new-run',
  'new-run-from-file',
  'restore-session',
  'set-training',
  'set-likelihood-every',
  'advance',
  'learn',
]);

/** @type {typeof import('boltzlab-bindings')} */
let engine = null;
/** @type {import('boltzlab-bindings').RbmLab} */
let lab = null;
let hasRun = false; // a command made the run (the first lab is a placeholder)
let dead = false;
const early = []; // messages that came before the engine was loaded
let running = false;
let scheduled = false;
let checkLikelihood = false; // a point may be due: the next slice starts it
let galleryActive = false;
let settling = 0; // completion steps still to run
let inFlight = 0;
let dirty = false;
let seq = 0;
// Measured speeds, to size the resumable calls: multiply-adds of learning, states of the exact
// ln Z, AIS steps of one run, per ms.
const speed = { work: 1e5, states: 200, aisSteps: 5 };
// What the last frame carried, so that the big parts go only when they changed.
const sent = { run: -1, version: -1, curve: -1, gallery: -1, completion: '' };
let run = 0; // counts the runs made (a new run sends everything again)
let refreshed = -1; // the weights' version the particle grid was last refreshed at
let completionKey = 0; // counts the completions started and phases switched
const engineTime = { ms: 0, updates: 0 };
const kept = { at: -Infinity, key: '' };

// The wasm panic hook (src/web/mod.rs) calls globalThis.boltzlabReportPanic.
globalThis.boltzlabReportPanic = (message) => {
  dead = true;
  postMessage({ type: 'panic', message: String(message) });
};

const tick = new MessageChannel();
tick.port1.onmessage = () => slice();

function schedule() {
  if (scheduled || dead) return;
  scheduled = true;
  tick.port2.postMessage(null); // the next slice, after any message waiting
}

// Whether there is work for another slice.
const busy = () =>
  hasRun && (running || checkLikelihood || lab.likelihood_progress() >= 0 || galleryActive || settling > 0);

/** @template T @param {{new (buffer: ArrayBuffer): T & {set: (a: ArrayLike<number>) => void}, BYTES_PER_ELEMENT: number}} Type */
function copyOut(Type, ptr, length) {
  const out = new Type(new ArrayBuffer(length * Type.BYTES_PER_ELEMENT));
  // @ts-ignore: the same typed-array type on both sides
  out.set(new Type(engine.wasm_memory().buffer, ptr, length));
  return out;
}

function stats() {
  return {
    updates: lab.updates(),
    updatesPerEpoch: lab.updates_per_epoch(),
    version: lab.version(),
    progress: lab.likelihood_progress(),
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
  if (!hasRun || dead || !dirty || inFlight > (urgent ? 1 : 0)) return;
  const version = lab.version();
  // The particles move with every update: refreshed for each frame while learning.
  if (running || version !== refreshed) {
    lab.dispatch({ command: 'refresh' });
    refreshed = version;
  }
  const s = stats();
  const nv = s.visible;
  const transfer = [];
  const take = (array) => {
    transfer.push(array.buffer);
    return array;
  };
  /** @type {any} */
  const message = {
    type: 'frame',
    seq,
    stats: s,
    fantasy: take(copyOut(Uint8Array, lab.fantasy_ptr(), s.shown * nv)),
    fantasyMean: take(copyOut(Float64Array, lab.fantasy_mean_ptr(), s.shown * nv)),
  };
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

// Works on the log-likelihood point (starting it when one is due) until `untilMs`, at least
// one call; both kinds of work are resumable, sized by the measured speed.
function likelihood(untilMs) {
  let first = true;
  while (first || performance.now() < untilMs) {
    first = false;
    const exact = lab.likelihood_exact();
    const perMs = exact ? speed.states : speed.aisSteps;
    const floor = exact ? 256 : 1;
    const left = Math.max(untilMs - performance.now(), 0.5);
    const work = Math.max(floor, Math.min(1 << 20, Math.floor(left * perMs)));
    const t0 = performance.now();
    const reply = lab.dispatch({ command: 'likelihood-step', work });
    const ms = performance.now() - t0;
    const underWay = lab.likelihood_progress() >= 0;
    if (ms > 0.2 && underWay) {
      if (exact) speed.states = 0.7 * speed.states + 0.3 * (work / ms);
      else speed.aisSteps = 0.7 * speed.aisSteps + 0.3 * (work / ms);
    }
    const added = reply.reply === 'likelihood-worked' && reply.added;
    if (underWay || added) dirty = true;
    // A point just added: the next may be due already (learning went on while it was made),
    // so the next slice looks again, paused or not.
    checkLikelihood = added;
    if (added || !underWay) break;
  }
}

// Runs `part` (learning, likelihood, gallery, completion); a failure is reported with its
// part, and learning stops on it.
function attempt(part, action) {
  try {
    action();
    return true;
  } catch (err) {
    if (dead) return false;
    running = false;
    postMessage({ type: 'error', part, message: String(err?.message ?? err) });
    return false;
  }
}

function slice() {
  scheduled = false;
  if (dead || !hasRun) return;
  const start = performance.now();
  const due = lab.likelihood_progress() >= 0 || checkLikelihood;
  if (running) attempt('learning', () => learn(start + (due ? SLICE_MS * LEARN_SHARE : SLICE_MS)));
  if (due || checkLikelihood) {
    if (!attempt('likelihood', () => likelihood(start + SLICE_MS))) checkLikelihood = false;
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
  keepSession(!running && !busy());
  if (busy()) schedule();
}

// Sends the run's session text when what it keeps moved on and the last is SESSION_MS old
// (`now`: at once). Never less often, even for long texts: what the page saves on leaving is
// the last text sent plus the commands since, so a longer wait would lose more learning (a
// 64-500 machine's text, 1.4 MB, takes the worker some tens of ms, under 10 % of its time).
function keepSession(now = false) {
  if (!hasRun || dead) return;
  const at = performance.now();
  if (!now && at - kept.at < SESSION_MS) return;
  const key = `${run} ${lab.updates()} ${lab.version()} ${lab.curve_len()} ${lab.likelihood_progress()} ${seq}`;
  if (key === kept.key) return;
  const text = lab.session();
  const ms = performance.now() - at;
  Object.assign(kept, { at, key });
  postMessage({ type: 'session', text, seq, updates: lab.updates(), ms });
}

function read(name, args) {
  const memory = engine.wasm_memory().buffer;
  if (name === 'engine_time') return { ...engineTime };
  if (!hasRun) throw new Error('the restricted machine has no run yet');
  const nv = lab.visible();
  if (name === 'session') {
    const t0 = performance.now();
    const text = lab.session();
    return { text, ms: performance.now() - t0, seq };
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
  // Any getter; changes come only as commands.
  if (
    typeof (/** @type {any} */ (lab)[name]) !== 'function' ||
    name.startsWith('__') ||
    name.endsWith('_ptr') ||
    name === 'free' ||
    name === 'dispatch'
  )
    throw new Error(`the restricted machine has no reading ${name}`);
  return /** @type {any} */ (lab)[name](...args);
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

function handle(data) {
  if (dead) return;
  if (Number.isInteger(data.seq)) seq = data.seq;
  switch (data.type) {
    case 'command':
    case 'read':
      try {
        const value = data.type === 'read' ? read(data.name, data.args) : make(data.command);
        postMessage({ type: 'result', id: data.id, value });
        if (data.type === 'command') {
          dirty = true;
          frame(true);
          if (KEPT.has(data.command.command)) keepSession(true);
        }
      } catch (err) {
        if (!dead) postMessage({ type: 'result', id: data.id, error: String(err?.message ?? err) });
      }
      if (busy()) schedule();
      break;
    case 'run':
      running = Boolean(data.on) && hasRun;
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
      frame();
      break;
    case 'fault':
      engine.fault_for_tests();
      break;
    default:
      postMessage({ type: 'error', part: 'protocol', message: `unknown message ${data.type}` });
  }
}

async function init({ js, wasm }) {
  engine = await import(js);
  await engine.default({ module_or_path: wasm });
  lab = new engine.RbmLab('bars-4x4', 1, 1); // a placeholder until a command makes the run
  postMessage({ type: 'ready' });
  for (const data of early.splice(0)) handle(data);
}

onmessage = ({ data }) => {
  if (data.type === 'init') {
    init(data).catch((err) => {
      dead = true;
      postMessage({ type: 'panic', message: `the engine could not start in its worker: ${err?.message ?? err}` });
    });
  } else if (lab === null) early.push(data);
  else {
    try {
      handle(data);
    } catch (err) {
      if (!dead) postMessage({ type: 'error', part: 'protocol', message: String(err?.message ?? err) });
    }
  }
};

// A module (for the type checker too: its names are its own, not the lattice worker's).
export {};
