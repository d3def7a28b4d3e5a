// @ts-check
// The MNIST run's learning worker: it owns the live MnistLab (the same wasm engine as the
// page) and learns with the f32 batch trainer, whole mini-batch updates one after another;
// the page's main thread only draws. Every `likelihoodEvery` updates it posts a snapshot of
// the machine (W, a, b, transferred) to the likelihood worker (likelihood_worker.js) over a
// MessagePort, so learning never waits for a log-likelihood point, and tells it how many workers
// learn ({type: 'pace', learners}) so that it leaves them their cores. It keeps the run in
// IndexedDB (binary, MnistLab.save) every SAVE_MS while learning, when learning stops and
// when the page is hidden, and restores it on the next visit.
//
//   page → worker
//     {type: 'init', js, wasm, threads}         load the engine; threads: the threaded
//                                               engine's js and wasm on a cross-origin
//                                               isolated page (threads.js), else null
//     {type: 'load', bytes, hidden, seed, training, labels, every, resume, port, cores}
//                                               the packed file (transferred; parsed by the
//                                               engine's validating reader), the run's
//                                               options (labels: learn the labels too),
//                                               whether to restore the saved run, the port
//                                               to the likelihood worker, the learning
//                                               workers to use (mnist_team.js)
//     {type: 'command', id, command, seq}       an MnistCommand for MnistLab.dispatch
//     {type: 'read', id, name}                  'updates', 'busy', 'engine_time',
//                                               'pair_counts' (the threaded engine's split
//                                               halves: [by its second thread, taken back]),
//                                               'saved',
//                                               'fingerprint' (a hash of the saved bytes),
//                                               'pad', 'classification', 'completion',
//                                               'gallery-classes' (argmax p(y | v) of each
//                                               gallery image), 'saved-bytes' (the run as
//                                               a file), 'options' (hidden, seed, training,
//                                               labels, every)
//     {type: 'run', on} · {type: 'ack', frames} · {type: 'hide'} (save now) · {type: 'every', every}
//     {type: 'fault', trap?}                    test only: the engine panics (or traps)
//   The shared messages (init, command, read, fault) are www/worker_host.js's; a command that
//   comes while the learning workers share an update waits for its end (held below).
//   worker → page
//     {type: 'ready'} · {type: 'result', id, value | error}
//     {type: 'frame', stats, chains, filters?, units?, reconstructions?, gallery?, pad?,
//      classification?, completion?, loaded?}
//     {type: 'session', updates, ms, busyMs, bytes}   the run was saved: ms until stored,
//                                               busyMs of this thread's time
//     {type: 'error', part, message}            part: data, learning, gallery, pad, save
//
// The pad: each drawing the page sends (set-pad, at most one in flight) is classified at once
// (p(y | v), exactly) and kept with the run (saved within PAD_SAVE_MS, not on every stroke).
//     {type: 'panic', message}

import { hostWorker, loadEngine, PaceLink, report, trapped, unknownMessage } from '../worker_host.js';
import { KEY, STORE, keptRecord, openRuns } from './mnist_store.js';
import { Team, sharedUpdate } from './mnist_team.js';
import { loadThreaded } from './threads.js';

// Wall time of one slice of learning (an update of a 784-500 machine takes tens of ms), the
// gallery's steps per slice, how often the run is saved while it learns, and how often the
// filters and reconstructions are drawn again while it learns.
const SLICE_MS = 12;
const GALLERY_STEPS = 1;
const SAVE_MS = 1000;
const VIEW_MS = 200;
const PAD_SAVE_MS = 1000;

/** @type {typeof import('boltzlab-bindings')} */
let engine = null;
/** @type {import('boltzlab-bindings').MnistLab | null} */
let lab = null;
/** @type {MessagePort | null} */
let port = null;
let running = false;
// Tells the likelihood worker how many workers learn (worker_host.js, backgroundShare).
const pacing = new PaceLink();
let scheduled = false;
let galleryActive = false;
let completionActive = false;
let padChanges = 0;
let padSave = 0;
let inFlight = 0;
let dirty = false;
let every = 300;
let lastSnapshot = -1;
let run = 0;
const sent = { version: -1, run: -1, gallery: -1, viewsAt: -Infinity, pad: -1, completion: -1 };
// Time in learning: ms of whole updates, and of it inside engine calls (with one worker, all
// of it; shared, the rest waits for the other workers' messages).
const engineTime = { ms: 0, compute: 0, updates: 0 };
// What the last save held (updates, run, changes: see `changes`) and, once the store committed
// it, `stored`: the update count of the run a reload would find.
// `storedChanges`: the changes count of the save the store committed.
const saved = {
  at: -Infinity,
  updates: -1,
  run: -1,
  changes: -1,
  stored: -1,
  storedChanges: -1,
  ms: 0,
  busyMs: 0,
  bytes: 0,
};
// Commands that change only what is shown (the trainer stays as it is).
/** @type {Set<import('boltzlab-bindings').MnistCommand['command']>} */
const VIEW_COMMANDS = new Set(['show-filters', 'refresh', 'start-gallery', 'advance-gallery']);
// Changes to the run that are not updates (the gallery draws from the run's view stream).
let changes = 0;

const tick = new MessageChannel();
tick.port1.onmessage = () => slice();
function schedule() {
  if (scheduled || host.dead()) return;
  scheduled = true;
  tick.port2.postMessage(null);
}

// Learning on or off. The likelihood worker is told how many workers learn, so that it leaves
// them their cores.
function setRunning(on) {
  running = on;
  pacing.tell(running ? learners() : 0);
}

const busy = () => lab !== null && (running || galleryActive || completionActive);

/** @returns {import('../messages').MnistStats} */
function stats() {
  return {
    updates: lab.updates(),
    updatesPerEpoch: lab.updates_per_epoch(),
    training: lab.training(),
    version: lab.version(),
    visible: lab.visible(),
    hidden: lab.hidden(),
    width: lab.width(),
    seed: lab.seed(),
    filterPage: lab.filter_page(),
    filterAll: lab.filter_all(),
    galleryCount: lab.gallery().length / lab.visible(),
    gallerySteps: lab.gallery_steps(),
    galleryTarget: lab.gallery_target(),
    labelled: lab.labelled(),
    completionSteps: lab.completion_steps(),
    completionTarget: lab.completion_target(),
    completionClamped: lab.completion_clamped(),
    running,
    run,
    cores: learners(),
    // When these figures were read (ms since the epoch): the run's updates at a known moment.
    at: performance.timeOrigin + performance.now(),
  };
}

// Posts a frame when none is in flight (`urgent`: a command's, with at most one other).
function frame(urgent = false, extra = {}) {
  if (!lab || host.dead() || !dirty || inFlight > (urgent ? 1 : 0)) return;
  const version = lab.version();
  // The filters and reconstructions (a few ms to redraw in the engine) at most every VIEW_MS
  // while learning; the chains with every frame.
  const now = performance.now();
  const views =
    sent.run !== run ||
    extra.filtersChanged ||
    (version !== sent.version && (!running || now - sent.viewsAt >= VIEW_MS));
  if (views) lab.dispatch({ command: 'refresh' });
  const s = stats();
  const transfer = [];
  const take = (array) => {
    transfer.push(array.buffer);
    return array;
  };
  /** @type {import('../messages').MnistFrame} */
  const message = { type: 'frame', stats: s, chains: take(lab.chains()), ...extra };
  if (views) {
    message.filters = take(lab.filters());
    message.units = take(lab.filter_units());
    message.reconstructions = take(lab.reconstructions());
    sent.version = version;
    sent.viewsAt = now;
  }
  if (s.galleryCount > 0 && (s.gallerySteps !== sent.gallery || sent.run !== run)) {
    message.gallery = take(lab.gallery());
    sent.gallery = s.gallerySteps;
  }
  // The pad when it changed (or the run did), its classification with it and whenever the
  // views were redrawn (the machine changed), the completion when it moved.
  if (padChanges !== sent.pad || sent.run !== run) {
    message.pad = take(lab.pad());
    sent.pad = padChanges;
  }
  if (message.pad || views) message.classification = take(lab.classification());
  const completionAt = s.completionSteps + (s.completionClamped ? 0 : 0.5);
  if (s.completionTarget > 0 && (completionAt !== sent.completion || sent.run !== run)) {
    message.completion = take(lab.completion());
    sent.completion = completionAt;
  }
  sent.run = run;
  inFlight += 1;
  dirty = false;
  postMessage(message, transfer);
}

/**
 * @param {import('../messages').ToMnistLikelihood} message
 * @param {Transferable[]} [transfer]
 */
const toLikelihood = (message, transfer = []) => port?.postMessage(message, transfer);

// A snapshot of the machine for the likelihood worker when one is due (and at update 0).
function snapshot() {
  if (!port || !lab) return;
  const updates = lab.updates();
  if (lastSnapshot >= 0 && updates < lastSnapshot + every) return;
  lastSnapshot = updates;
  const parameters = lab.parameters();
  toLikelihood({ type: 'snapshot', run, hidden: lab.hidden(), labels: lab.labelled(), update: updates, parameters }, [
    parameters.buffer,
  ]);
}

function learn(untilMs) {
  while (running && performance.now() < untilMs) {
    const t0 = performance.now();
    lab.dispatch({ command: 'advance', updates: 1 });
    engineTime.ms += performance.now() - t0;
    engineTime.compute += performance.now() - t0;
    engineTime.updates += 1;
    dirty = true;
    snapshot();
  }
}

function attempt(part, action) {
  try {
    action();
    return true;
  } catch (err) {
    if (trapped(err) || host.dead()) return false;
    setRunning(false);
    report({ type: 'error', part, message: String(err?.message ?? err) });
    return false;
  }
}

// One step of a chain drawn only to be shown (the gallery, the pad's completion) by `command`;
// whether it goes on (not done, not refused).
function advanceView(part, command) {
  let going = true;
  const ok = attempt(part, () => {
    const reply = lab.dispatch(command);
    changes += 1;
    if ('done' in reply && reply.done) going = false;
  });
  dirty = true;
  return ok && going;
}

function slice() {
  scheduled = false;
  if (host.dead() || !lab) return;
  const start = performance.now();
  if (running && sharesUpdates()) learnShared();
  else if (running) attempt('learning', () => learn(start + SLICE_MS));
  if (galleryActive) {
    galleryActive = advanceView('gallery', { command: 'advance-gallery', steps: GALLERY_STEPS });
    if (!galleryActive) save();
  }
  if (completionActive) {
    completionActive = advanceView('pad', { command: 'advance-pad', steps: GALLERY_STEPS });
    if (!completionActive) save();
  }
  frame();
  if (running && performance.now() - saved.at >= SAVE_MS) save();
  // Shared learning draws and saves between its updates (learnShared); a gallery beside it
  // steps on a timer rather than a busy loop that would take the updates' thread.
  if (sharing) {
    if (galleryActive) setTimeout(schedule, 16);
  } else if (busy()) schedule();
}

// --- Keeping the run (IndexedDB) -------------------------------------------------------------

let dbPromise = null;
const db = () => (dbPromise ??= openRuns());

// Saves the run (binary) unless nothing changed since the last save.
function save() {
  if (!lab || host.dead()) return;
  const updates = lab.updates();
  saved.at = performance.now();
  if (updates === saved.updates && run === saved.run && changes === saved.changes) return;
  // The worker's own time (the encoding and the store's copy) is what learning loses; the
  // store writes the rest off this thread.
  const t0 = performance.now();
  const bytes = lab.save();
  let busyMs = performance.now() - t0;
  const record = {
    bytes: bytes.buffer,
    updates,
    hidden: lab.hidden(),
    seed: lab.seed(),
    labels: lab.labelled(),
    at: Date.now(),
  };
  saved.updates = updates;
  saved.run = run;
  saved.changes = changes;
  const changed = changes;
  db()
    .then(
      (database) =>
        new Promise((resolve, reject) => {
          const t1 = performance.now();
          const transaction = database.transaction(STORE, 'readwrite');
          transaction.objectStore(STORE).put(record, KEY);
          busyMs += performance.now() - t1;
          transaction.oncomplete = resolve;
          transaction.onerror = () => reject(transaction.error);
          transaction.onabort = () => reject(transaction.error ?? new Error('aborted'));
        }),
    )
    .then(() => {
      saved.stored = updates;
      saved.storedChanges = changed;
      saved.ms = performance.now() - t0;
      saved.busyMs = busyMs;
      saved.bytes = bytes.length;
      /** @type {import('../messages').MnistSession} */
      const session = { type: 'session', updates, ms: saved.ms, busyMs, bytes: bytes.length };
      postMessage(session);
    })
    .catch((err) => {
      saved.updates = -1;
      report({ type: 'error', part: 'save', message: `the run could not be kept: ${err?.message ?? err}` });
    });
}

/** @returns {Promise<any>} */
async function savedRecord() {
  return keptRecord(await db());
}

// --- Messages --------------------------------------------------------------------------------

// Saves the run within PAD_SAVE_MS of a change of the pad (a stroke sends many).
function savePadSoon() {
  if (padSave) return;
  padSave = setTimeout(() => {
    padSave = 0;
    save();
  }, PAD_SAVE_MS);
}

/** @param {Extract<import('../messages').MnistMessage, {type: 'load'}>} message */
async function load({ bytes, hidden, seed, training, labels, resume, every: e, port: p, cores }) {
  if (p) {
    port = p;
    pacing.connect(p);
  }
  setRunning(false);
  await sharing;
  let next = null;
  try {
    next = new engine.MnistLab(new Uint8Array(bytes), hidden, seed);
    if (training || labels) next.dispatch({ command: 'new-run', hidden, seed, training, labels: Boolean(labels) });
  } catch (err) {
    if (trapped(err)) return;
    next?.free();
    report({ type: 'error', part: 'data', message: String(err?.message ?? err) });
    return;
  }
  let restored = false;
  if (resume) {
    try {
      const record = await savedRecord();
      if (record) {
        next.dispatch({ command: 'restore-run', bytes: new Uint8Array(record.bytes) });
        restored = true;
      }
    } catch (err) {
      if (trapped(err)) return;
      report({
        type: 'error',
        part: 'save',
        message: `the kept run could not be restored: ${err?.message ?? err}`,
      });
    }
  }
  lab?.free();
  lab = next;
  file = bytes;
  if (!team && Number.isInteger(cores) && cores >= 1 && cores <= 64) wantCores = cores;
  if (team) team.stale = true;
  if (Number.isInteger(e) && e >= 1) every = e;
  run += 1;
  lastSnapshot = -1;
  galleryActive = false;
  completionActive = false;
  toLikelihood({ type: 'reset', run, seed: lab.seed() });
  snapshot();
  dirty = true;
  inFlight = 0;
  frame(true, { loaded: { restored, updates: lab.updates(), images: lab.training_images() } });
  if (!restored) save();
}

function make(command) {
  if (!lab) throw new Error('MNIST: no run yet');
  const reply = lab.dispatch(command);
  switch (command.command) {
    case 'new-run':
    case 'restore-run':
      run += 1;
      lastSnapshot = -1;
      galleryActive = false;
      completionActive = false;
      toLikelihood({ type: 'reset', run, seed: lab.seed() });
      snapshot();
      saved.at = -Infinity;
      save();
      break;
    case 'set-training':
    case 'advance':
      save();
      break;
    case 'start-gallery':
      changes += 1;
      galleryActive = true;
      break;
    case 'set-pad':
    case 'pad-from-test':
      changes += 1;
      padChanges += 1;
      savePadSoon();
      break;
    case 'complete-pad':
    case 'clamp-pad':
      changes += 1;
      completionActive = true;
      break;
    default:
  }
  // The helpers' replicas take the run again before the next shared update.
  if (team && !VIEW_COMMANDS.has(command.command)) team.stale = true;
  return reply;
}

function read(name) {
  if (name === 'engine_time') return { ...engineTime };
  if (name === 'pair_counts') return Array.from(engine.pair_counts());
  // Busy while learning, drawing a view's chain, or ending a shared update: after a pause the
  // replicas still finish the updates the helpers were let make (learnShared), so a reader
  // that waits for 'busy' to fall reads updates and the run at one and the same update.
  if (name === 'busy') return busy() || sharing !== null;
  if (name === 'saved') return { ...saved, at: undefined };
  if (name === 'changes') return changes;
  if (!lab) throw new Error('MNIST: no run yet');
  if (name === 'updates') return lab.updates();
  if (name === 'fingerprint') {
    // FNV-1a over the saved run's bytes: equal runs, equal numbers.
    let hash = 0x811c9dc5;
    for (const byte of lab.save()) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
    return hash;
  }
  // The run as a file (Save the run to a file): the same bytes as the kept run.
  if (name === 'saved-bytes') return lab.save();
  // The run's own options (a run opened from a file brings its own).
  if (name === 'options')
    return { hidden: lab.hidden(), seed: lab.seed(), training: lab.training(), labels: lab.labelled(), every };
  if (name === 'hidden') return lab.hidden();
  if (name === 'chains') return lab.chains();
  if (name === 'pad') return lab.pad();
  if (name === 'classification') return lab.classification();
  if (name === 'completion') return lab.completion();
  if (name === 'gallery-classes') return lab.gallery_classes();
  if (name === 'filters') return lab.filters();
  throw new Error(`MNIST has no reading ${name}`);
}

// The worker's own messages (the shared ones are hostWorker's).
/** @param {import('../messages').MnistMessage} data */
function other(data) {
  switch (data.type) {
    case 'load':
      load(data);
      break;
    case 'run':
      setRunning(Boolean(data.on) && lab !== null);
      if (running) schedule();
      else {
        dirty = true;
        frame();
        save();
      }
      break;
    case 'every':
      if (Number.isInteger(data.every) && data.every >= 1) every = data.every;
      break;
    case 'hide':
      save();
      break;
    case 'ack':
      // `frames`: the frames the page received since its last acknowledgement.
      inFlight = Math.max(0, inFlight - (Number.isInteger(data.frames) && data.frames > 0 ? data.frames : 1));
      frame();
      break;
    default:
      unknownMessage(data);
  }
}

// --- Learning on several cores (mnist_team.js) ------------------------------------------------

/** @type {{js: string, wasm: string}} */
let init = null;
/** @type {Team | null} */
let team = null;
/** @type {ArrayBuffer | null} the packed file of the run (the helpers' copies come from it) */
let file = null;
/** @type {Promise<void> | null} the shared learning under way */
let sharing = null;
// The commands that came while sharing, made once every replica has stopped.
const waitingCommands = [];
// The updates the helpers were let make (one ahead of this replica, so none waits for 'go').
let committed = 0;

// The team learns machines of at least TEAM_HIDDEN hidden units; smaller ones on this worker
// alone, whose update is too short to pay for two exchanges between workers (784-32 made 23.5
// updates/s on two workers where one makes 139–160, both under load; the threshold is an
// estimate between that and the 784-500 machine the team is for).
const TEAM_HIDDEN = 250;

// The learning workers the page asked for (the load message's `cores`).
let wantCores = 1;

/** Whether this run learns with a team (started on its first update). The threaded engine
 * learns on its two threads instead. */
function sharesUpdates() {
  return wantCores >= 2 && engine.page_threads() === 1 && lab !== null && lab.hidden() >= TEAM_HIDDEN;
}

/** The cores that learn: the team's workers, or the engine's threads (2 in the threaded
 * engine, which splits each large enough update in halves; src/linalg/pair.rs). */
function learners() {
  return sharesUpdates() ? wantCores : engine.page_threads();
}

/**
 * The threaded engine when the page offers it (threads.js), else the default one; a threaded
 * engine that cannot start (a host without the files, a browser refusing a nested worker)
 * leaves the default engine, saying why in the console.
 * @param {{js: string, wasm: string, threads?: {js: string, wasm: string} | null}} data
 */
async function loadEither(data) {
  if (data.threads) {
    try {
      return await loadThreaded(data.threads);
    } catch (err) {
      console.warn(`boltzlab: learning on one thread (the threaded engine did not start: ${err?.message ?? err})`);
    }
  }
  return loadEngine(data);
}

function teamFault(message) {
  setRunning(false);
  report({ type: 'panic', message });
}

// Learns with the team while running: shared updates one after another, each answered by
// this worker's frames, snapshots and saves between them; on stop (or a command) it ends at
// the updates the helpers were let make, then makes the waiting commands.
function learnShared() {
  if (sharing || !lab) return;
  team ??= new Team(wantCores, init, teamFault);
  sharing = (async () => {
    await team.sync(lab, file);
    committed = lab.updates();
    while (lab.updates() < committed || (running && waitingCommands.length === 0)) {
      if (running && waitingCommands.length === 0 && committed < lab.updates() + 2) {
        committed = lab.updates() + 2;
        team.go(committed);
      }
      const t0 = performance.now();
      const { compute } = await sharedUpdate(lab, team);
      engineTime.ms += performance.now() - t0;
      engineTime.compute += compute;
      engineTime.updates += 1;
      dirty = true;
      snapshot();
      frame();
      if (performance.now() - saved.at >= SAVE_MS) save();
    }
  })()
    .catch((err) => {
      if (host.dead()) return;
      lab?.abandon_shared_update();
      setRunning(false);
      if (team.mailbox.failure) return; // a helper died: teamFault reported it
      report({ type: 'error', part: 'learning', message: String(err?.message ?? err) });
    })
    .finally(() => {
      sharing = null;
      for (const data of waitingCommands.splice(0)) host.handle(data);
      dirty = true;
      frame();
      save();
      if (busy()) schedule();
    });
}

const host = hostWorker({
  load: loadEither,
  start: (loaded, data) => {
    engine = loaded;
    init = { js: data.js, wasm: data.wasm };
  },
  make,
  read,
  made: (command) => {
    dirty = true;
    frame(true, { filtersChanged: command.command === 'show-filters' });
  },
  answered: () => {
    if (busy()) schedule();
  },
  // Between two shared updates, once every replica has stopped (learnShared).
  held: (data) => Boolean(sharing) && waitingCommands.push(data) > 0,
  other,
});

export {};
