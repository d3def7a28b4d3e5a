// @ts-check
// The second worker of the MNIST run: log-likelihood points, apart from learning, so that
// learning never waits for one. It owns an MnistLikelihood (the same wasm engine): the first
// 1000 training and test images of the packed file (parsed by the engine's validating
// reader), and for each snapshot of the machine the learning worker sends over its port, one
// point: ln Z (exact over the smaller layer up to 25 units, else the engine's AIS driver, 32
// runs, with its standard error), then the free energies. A snapshot that comes while a point
// is under way waits (only the latest is kept). A machine that learned the labels is scored
// first by its test error on all 10 000 test images (argmax p(y | v), with its binomial
// standard error), then by its ln p(v) with the label summed out (ln Z over images and labels).
//
//   page → worker
//     {type: 'init', js, wasm} · {type: 'load', bytes, seed, port}
//     {type: 'read', id, name}                   'busy', 'curve'
//   learning worker → this worker (port)
//     {type: 'snapshot', run, hidden, labels, update, parameters} · {type: 'reset', run, seed}
//     {type: 'pace', learners}                   the workers learning now (0 when paused):
//                                                while any learn, this worker takes
//                                                backgroundShare of a core
//   worker → page
//     {type: 'ready'} · {type: 'result', id, value | error}
//     {type: 'frame', progress, update, exact, pending, curve?}
//     {type: 'error', part: 'likelihood', message} · {type: 'panic', message}

import { PacedSlices, report, serveEngine, trapped, unknownMessage, workSliced } from '../worker_host.js';

// Wall time of one slice, and the least time between two progress frames.
const SLICE_MS = 20;
const FRAME_MS = 100;

/** @type {typeof import('boltzlab-bindings')} */
let engine = null;
/** @type {import('boltzlab-bindings').MnistLikelihood | null} */
let scorer = null;
let pending = null; // the latest snapshot not yet started
let run = 0;
let lastFrame = -Infinity;
let curveSent = -1;
// AIS steps (or exact states) per ms, measured, to size each call.
const speed = { perMs: 2 };

const slices = new PacedSlices(() => slice());
function schedule() {
  if (served.dead()) return;
  slices.schedule();
}

const busy = () => scorer !== null && (scorer.progress() >= 0 || pending !== null);

function curve() {
  return {
    updates: scorer.curve(0),
    train: scorer.curve(1),
    test: scorer.curve(2),
    stderr: scorer.curve(3),
    error: scorer.curve(4),
    errorStderr: scorer.curve(5),
  };
}

function post(force = false) {
  const now = performance.now();
  if (!force && now - lastFrame < FRAME_MS) return;
  lastFrame = now;
  /** @type {import('../messages').MnistLikelihoodFrame} */
  const message = {
    type: 'frame',
    run,
    progress: scorer.progress(),
    update: scorer.job_update(),
    exact: scorer.exact(),
    pending: pending ? pending.update : -1,
  };
  const transfer = [];
  const c = curve();
  if (c.updates.length !== curveSent || force) {
    message.curve = c;
    transfer.push(
      c.updates.buffer,
      c.train.buffer,
      c.test.buffer,
      c.stderr.buffer,
      c.error.buffer,
      c.errorStderr.buffer,
    );
    curveSent = c.updates.length;
  }
  postMessage(message, transfer);
}

function slice() {
  if (served.dead() || !scorer) return;
  try {
    if (scorer.progress() < 0 && pending) {
      const { hidden, labels, parameters, update } = pending;
      pending = null;
      scorer.start(hidden, Boolean(labels), parameters, update);
    }
    const added = workSliced(
      SLICE_MS,
      speed,
      () => scorer.progress() >= 0,
      (work) => scorer.step(work),
    );
    post(Boolean(added));
  } catch (err) {
    if (trapped(err) || served.dead()) return;
    report({ type: 'error', part: 'likelihood', message: String(err?.message ?? err) });
  }
  if (busy()) schedule();
}

/** @param {MessageEvent<import('../messages').ToMnistLikelihood>} event */
function fromLearning({ data }) {
  if (served.dead() || !scorer) return;
  if (data.type === 'pace') {
    slices.pace(data.learners);
  } else if (data.type === 'reset') {
    run = data.run;
    pending = null;
    scorer.reset(data.seed);
    curveSent = -1;
    post(true);
  } else if (data.type === 'snapshot' && data.run === run) {
    pending = data;
    schedule();
  }
}

/** @param {import('../messages').MnistLikelihoodMessage} data */
function handle(data) {
  switch (data.type) {
    case 'load':
      try {
        const next = new engine.MnistLikelihood(new Uint8Array(data.bytes), data.seed);
        scorer?.free();
        scorer = next;
        data.port.onmessage = fromLearning;
      } catch (err) {
        if (!trapped(err)) report({ type: 'error', part: 'likelihood', message: String(err?.message ?? err) });
      }
      break;
    case 'read':
      try {
        let value;
        if (data.name === 'busy') value = busy();
        else if (data.name === 'curve') value = scorer ? curve() : null;
        else throw new Error(`the likelihood worker has no reading ${data.name}`);
        report({ type: 'result', id: data.id, value });
      } catch (err) {
        if (!trapped(err)) report({ type: 'result', id: data.id, error: String(err?.message ?? err) });
      }
      break;
    default:
      unknownMessage(data);
  }
}

const served = serveEngine((loaded) => (engine = loaded), handle);

export {};
