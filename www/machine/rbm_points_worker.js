// @ts-check
// The second worker of the restricted machine (digits, bars, the user's images): it computes
// the run's log-likelihood points apart from learning, so that learning has all of its own
// worker. It owns an RbmPoints scorer (the same wasm engine): the run's training and test
// images and seed, and for each frozen machine the learning worker (rbm_worker.js) sends over
// its port, the same job the run would do itself (ln Z exact over the smaller layer up to 25
// units, else the engine's AIS driver seeded by the run's seed and the update; then the free
// energies), in slices. The point's values go back to the learning worker, which records them
// in the run (and so in its session).
//
//   page → worker
//     {type: 'init', js, wasm} · {type: 'port', port}   this worker's end of the channel
//   learning worker → this worker (port)
//     {type: 'run', run, visible, train, test, seed}     a new run's images (pixels one after
//                                                        the other) and seed; drops any point
//     {type: 'point', run, update, hidden, parameters}   a point to compute (replaces any)
//     {type: 'pace', learners}                           the workers learning now (0 or 1):
//                                                        while one learns, this worker takes
//                                                        backgroundShare of a core
//   this worker → learning worker (port)
//     {type: 'progress', run, update, progress}          at most every PROGRESS_MS
//     {type: 'point', run, values: [update, train, test, stderr]}
//     {type: 'failed', run, update, message}             the point could not be made
//   worker → page
//     {type: 'ready'} · {type: 'panic', message} · {type: 'error', part: 'protocol', message}

import { PacedSlices, serveEngine, trapped, unknownMessage, workSliced } from '../worker_host.js';

// Wall time of one slice (a new run or point waits at most about this long to be read), and
// the least time between two progress messages.
const SLICE_MS = 20;
const PROGRESS_MS = 100;

/** @type {typeof import('boltzlab-bindings')} */
let engine = null;
/** @type {import('boltzlab-bindings').RbmPoints | null} */
let scorer = null;
/** @type {MessagePort | null} */
let port = null;
let run = -1;
let lastProgress = -Infinity;
// Units per ms (exact: states of the smaller layer; AIS: steps of one run), measured, to size
// each call.
const speed = { exact: { perMs: 200 }, ais: { perMs: 5 } };

const slices = new PacedSlices(() => slice());
function schedule() {
  if (served.dead() || !scorer || scorer.progress() < 0) return;
  slices.schedule();
}

/** @param {import('../messages').FromPoints} message */
const toLearning = (message) => port?.postMessage(message);

function fail(update, err) {
  if (trapped(err) || served.dead()) return;
  toLearning({ type: 'failed', run, update, message: String(err?.message ?? err) });
}

function slice() {
  if (served.dead() || !scorer) return;
  const update = scorer.job_update();
  try {
    const exact = scorer.exact();
    const point = workSliced(
      SLICE_MS,
      exact ? speed.exact : speed.ais,
      () => scorer.progress() >= 0,
      (work) => scorer.step(work),
      exact ? 256 : 1,
    );
    if (point) toLearning({ type: 'point', run, values: Array.from(point) });
    else if (performance.now() - lastProgress >= PROGRESS_MS) {
      lastProgress = performance.now();
      toLearning({ type: 'progress', run, update, progress: scorer.progress() });
    }
  } catch (err) {
    fail(update, err);
  }
  schedule();
}

// A message from the learning worker.
/** @param {MessageEvent<import('../messages').ToPoints>} event */
function fromLearning({ data }) {
  if (served.dead()) return;
  if (data.type === 'run') {
    run = data.run;
    scorer?.free();
    scorer = null;
    try {
      scorer = new engine.RbmPoints(data.visible, data.train, data.test, data.seed);
    } catch (err) {
      fail(-1, err);
    }
  } else if (data.type === 'pace') {
    slices.pace(data.learners);
  } else if (data.type === 'point' && data.run === run && scorer) {
    try {
      scorer.start(data.hidden, data.parameters, data.update);
      lastProgress = -Infinity;
      schedule();
    } catch (err) {
      fail(data.update, err);
    }
  }
}

/** @param {import('../messages').PointsMessage} data */
function handle(data) {
  switch (data.type) {
    case 'port':
      port = data.port;
      port.onmessage = fromLearning;
      break;
    default:
      // (One message only: a switch over a single type narrows nothing, so no check here.)
      unknownMessage(/** @type {never} */ (data));
  }
}

const served = serveEngine((loaded) => (engine = loaded), handle);

export {};
