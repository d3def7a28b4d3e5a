// @ts-check
// The restricted machine on MNIST (the "MNIST 28×28" image set): the page's side.
//
// The data: choosing MNIST fetches the packed file (data/mnist.bin, 6.9 MB; never at page
// start) with its size and a progress bar, checks its SHA-256 (crypto.subtle) against
// MNIST_SHA256, and keeps it in the Cache API (cache CACHE, key its address) for the next
// visit; the engine's validating reader then checks it again in each worker (magic, sizes,
// CRC-32, labels). A failed, truncated or damaged load is explained and the machine shown
// stays as it was.
//
// Two workers: mnist_worker.js learns (the f32 batch trainer) and posts frames (free chains,
// a page of filters, reconstructions, the gallery) in transferred buffers; likelihood_worker.js
// scores snapshots of the machine the learning worker sends it over a MessageChannel. This
// page only draws. Nothing lost: the learning worker keeps the run in IndexedDB (binary)
// every 2 s while learning, when it stops and when the page is hidden; the options and the
// seed are kept in localStorage (STATE_KEY) so that the next visit loads the data and
// resumes the run at the update it was saved at.
//
// Labels ("learn the labels too"): the learning worker's machine is the joint one over the
// image and a one-of-10 label. The drawing pad (28×28, pointer events) is sent to the worker
// as you draw (set-pad, at most one in flight, the latest drawing sent when it answers) and
// comes back classified, p(y | pad) exactly, drawn as ten bars with their values as text; the
// worker keeps the pad with the run, so a reload shows it again. The gallery generates a
// chosen digit (its label clamped), and the pad's completion settles in the worker.

import { WorkerLink } from '../worker_link.js';
import { coresToUse } from './mnist_team.js';
import { threadedEngine } from './threads.js';
import { keepLastRun, onEngineStop, reportPanic } from '../fault.js';
import { keptRecord, openRuns, runFileName } from './mnist_store.js';
import { $, attempt, clearError, download, format, readNumber, setText, showError } from '../ui.js';
import { cssColour, rgba } from '../views/colour.js';
import { ImageGridView } from '../views/images.js';
import { LikelihoodView } from '../views/likelihood.js';

// The packed file's address in dist/, its size and its SHA-256 (of data/mnist/mnist.bin).
export const MNIST_URL = 'data/mnist.bin';
export const MNIST_BYTES = 6930064;
export const MNIST_SHA256 = '837217d9ce53dc976958dd40789ce17f5df4018b5170151fbc8742dbb3abc894';
// Not named boltzlab-…: the offline service worker (sw.js) deletes every cache of that prefix
// but its own build's when a new version takes over, and the data outlives versions.
const CACHE = 'mnist-data-v1';
// The live MNIST run's options and seed (the data is the shipped file): its state link.
export const STATE_KEY = 'boltzlab.mnist';
// The largest file taken as a saved run: the largest run the engine makes (794 × 500 weights
// and their velocities, 10 000 persistent chains, as f32) is under 60 MB.
const MAX_RUN_FILE = 64e6;

const hex = (buffer) => Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('');

// The packed file, from the cache or fetched (progress(loaded, total) as it comes), checked
// against its size and SHA-256; throws a sentence saying what went wrong.
export async function fetchMnist(progress) {
  const cache = 'caches' in globalThis ? await caches.open(CACHE).catch(() => null) : null;
  const address = new URL(MNIST_URL, document.baseURI).href;
  let response = cache ? await cache.match(address) : undefined;
  const cached = Boolean(response);
  if (!response) {
    response = await fetch(address, { cache: 'no-store' }).catch((err) => {
      throw new Error(`the MNIST file could not be fetched (${err.message})`);
    });
    if (!response.ok) throw new Error(`the MNIST file could not be fetched (HTTP ${response.status})`);
  }
  const total = Number(response.headers.get('content-length')) || MNIST_BYTES;
  const bytes = new Uint8Array(total);
  let loaded = 0;
  let grown = bytes;
  const reader = response.clone().body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (loaded + value.length > grown.length) {
      const bigger = new Uint8Array(Math.max(2 * grown.length, loaded + value.length));
      bigger.set(grown.subarray(0, loaded));
      grown = bigger;
    }
    grown.set(value, loaded);
    loaded += value.length;
    progress(loaded, total);
  }
  const file = grown.subarray(0, loaded).slice();
  const damaged = async (reason) => {
    if (cached) await cache.delete(address);
    return new Error(`the MNIST file is ${reason}; nothing was changed`);
  };
  if (loaded !== MNIST_BYTES)
    throw await damaged(
      `${loaded < MNIST_BYTES ? 'truncated' : 'too long'} (${loaded} bytes, expected ${MNIST_BYTES})`,
    );
  const digest = hex(await crypto.subtle.digest('SHA-256', file));
  if (digest !== MNIST_SHA256)
    throw await damaged(`damaged (its SHA-256 is ${digest.slice(0, 12)}…, not the shipped file's)`);
  if (cache && !cached) await cache.put(address, response).catch(() => {});
  return { bytes: file, cached };
}

// Test images per row of the reconstructions view, each above its reconstruction: ten in
// two pairs of rows fill a column or a lecture tile (ten in one row were 25 px each).
const RECONSTRUCTIONS_PER_ROW = 5;

// The likelihood chart of a run with no point yet: its axes, drawn at once, so that a new run
// never shows the old run's curve or a blank canvas while its first point is computed.
const NO_CURVE = Object.freeze({ updates: [], train: [], test: [], stderr: [] });

// The worker's `n` images followed by their `n` reconstructions (each `size` values), laid out
// as rows of `per` images, each row followed by the row of their reconstructions.
function besideEachOther(values, n, size, per) {
  const out = new Float32Array(values.length);
  let at = 0;
  for (let first = 0; first < n; first += per) {
    const row = Math.min(per, n - first);
    for (const offset of [0, n]) {
      out.set(values.subarray((offset + first) * size, (offset + first + row) * size), at);
      at += row * size;
    }
  }
  return out;
}

export class MnistRun {
  constructor(engine) {
    this.engine = engine;
    this.active = false;
    // Updates between likelihood points: the box's last value the engine took.
    this.every = readNumber($('mnist-every').value);
    /** @type {WorkerLink<import('../messages').MnistMessage, import('../messages').MnistFrame, import('../messages').MnistSession, import('boltzlab-bindings').MnistCommand, import('boltzlab-bindings').MnistReply> | null} */
    this.link = null;
    /** @type {WorkerLink<import('../messages').MnistLikelihoodMessage, import('../messages').MnistLikelihoodFrame, never> | null} */
    this.scorer = null;
    this.running = false;
    this.loading = false;
    // Run pressed while a run loads (null: not pressed), and who to tell once it is made.
    this.runWhenLoaded = null;
    /** @type {((run: boolean) => void) | null} */
    this.onLoaded = null;
    // The latest frame (each part kept until a frame brings it again), the likelihood worker's
    // latest frame and its curve.
    /** @type {import('../messages').MnistFrame | null} */
    this.shown = null;
    this.fresh = false;
    /** @type {import('../messages').MnistLikelihoodFrame['curve'] | null} */
    this.curve = null;
    /** @type {import('../messages').MnistLikelihoodFrame | null} */
    this.point = null;
    this.kept = null;
    this.loads = 0; // runs loaded (for tests)
    /** @type {((options: any) => void) | null} the panel's view of a run's options (rbm.js) */
    this.onOptions = null;
    this.rate = { updates: 0, since: performance.now(), shown: 0, at: 0 };
    this.views = {
      chains: new ImageGridView($('mnist-chains')),
      filters: new ImageGridView($('mnist-filters'), null),
      reconstructions: new ImageGridView($('mnist-reconstructions')),
      gallery: new ImageGridView($('mnist-gallery')),
      likelihood: new LikelihoodView($('mnist-likelihood')),
      completion: new ImageGridView($('mnist-completion')),
    };
    // The pad as drawn here (28×28, 0/1), whether a stroke is under way, and the set-pad
    // command in flight (at most one; `padPending`: a newer drawing waits for it).
    this.pad = new Uint8Array(28 * 28);
    this.drawing = null;
    this.padInFlight = false;
    this.padPending = false;
    this.padDrawn = true;
    this.classification = null;
    // What the bars show (drawBars): the classification drawn and whether the run had labels.
    /** @type {{p: Float64Array | null, labelled: boolean} | null} */
    this.drawnBars = null;
    this.buildBars();
    this.wire();
  }

  useScale(scale) {
    this.views.filters.scale = scale;
  }

  // Whether a run was live at the last visit (its options are kept).
  static remembered() {
    try {
      return JSON.parse(localStorage.getItem(STATE_KEY) ?? 'null');
    } catch {
      return null;
    }
  }

  // What a link to this run carries (machine/share.js): its machine, options and seed, from
  // which the link starts a new run; the run itself (a few MB) does not fit in a link, and a
  // saved file keeps it. null before the run's first frame.
  linkOptions() {
    const s = this.shown?.stats;
    if (!s) return null;
    const training = Object.entries(s.training).filter(([, value]) => value !== null && value !== undefined);
    return {
      dataset: 'mnist',
      hidden: s.hidden,
      seed: s.seed,
      labels: s.labelled,
      every: this.every,
      ...Object.fromEntries(training),
    };
  }

  // Shows MNIST's views (true) or the small images' (false).
  show(on) {
    this.active = on;
    $('mnist').hidden = !on;
    $('rbm-stage').hidden = on;
    $('rbm-views').hidden = on;
    if (!on) {
      this.setRunning(false);
      localStorage.removeItem(STATE_KEY); // the next visit shows the small images' run
    }
  }

  // A new MNIST run (or, `resume`, the kept one) with `options` {hidden, seed, training,
  // every}: the data is fetched (or read from the cache) and checked first; on any failure
  // the message says why and the machine shown stays as it was.
  async create(options, resume = false) {
    if (this.loading) return false;
    this.loading = true;
    this.runWhenLoaded = null;
    let made = false;
    clearError('rbm-setup-error');
    $('mnist-load').hidden = false;
    $('mnist-load-state').textContent = 'fetching';
    $('mnist-size').textContent = `${format(MNIST_BYTES / 1e6, 2)} MB`;
    const bar = /** @type {HTMLProgressElement} */ (document.getElementById('mnist-load-bar'));
    bar.value = 0;
    try {
      const t0 = performance.now();
      const { bytes, cached } = await fetchMnist((loaded, total) => {
        bar.value = loaded / total;
        $('mnist-load-state').textContent = `${format(loaded / 1e6, 2)} of ${format(total / 1e6, 2)} MB`;
      });
      this.loadMs = performance.now() - t0;
      $('mnist-load-state').textContent =
        `${cached ? 'from the cache' : 'fetched'}, checked (SHA-256) in ${Math.round(this.loadMs)} ms; starting`;
      await this.start(bytes, options, resume);
      this.every = options.every;
      this.show(true);
      localStorage.setItem(STATE_KEY, JSON.stringify(options));
      made = true;
      return true;
    } catch (err) {
      showError('rbm-setup-error', err.message ?? String(err));
      $('mnist-load-state').textContent = 'refused';
      return false;
    } finally {
      this.loading = false;
      const run = this.runWhenLoaded;
      this.runWhenLoaded = null;
      if (run !== null) this.onLoaded?.(made && run);
    }
  }

  // Starts the two workers on first use and hands them the file (a copy to the likelihood
  // worker, the original transferred to the learning worker) and the run's options;
  // resolves once the learning worker made (or restored) the run, rejects with its reason.
  async start(bytes, { hidden, seed, training, labels, every }, resume) {
    const first = !this.link;
    if (first) {
      this.link = new WorkerLink(
        new URL('./mnist_worker.js', import.meta.url),
        // Two threads where the page may share memory and has a core to spare for the second
        // (coresToUse ≥ 2); else learning workers (mnist_team.js) or one.
        { threads: coresToUse() >= 2 ? threadedEngine(document.baseURI) : null },
        {
          onFrame: (frame) => this.received(frame),
          onSession: (kept) => this.keptRun(kept),
          onError: (message, data) => this.failed(message, data?.part),
          onFault: (message) => reportPanic(`The MNIST machine's worker stopped: ${message}`),
        },
      );
      this.scorer = new WorkerLink(
        new URL('./likelihood_worker.js', import.meta.url),
        {},
        {
          onFrame: (frame) => this.scored(frame),
          onSession: () => {},
          onError: (message) => showError('mnist-error', message),
          onFault: (message) => reportPanic(`The MNIST likelihood worker stopped: ${message}`),
        },
      );
      onEngineStop(() => {
        this.link.stop();
        this.scorer.stop();
      });
      // Once the workers have stopped, the fault overlay offers the run kept in IndexedDB.
      keepLastRun(async () => {
        const record = await keptRecord(await openRuns());
        if (!record) return null;
        return {
          name: runFileName(record.hidden, Boolean(record.labels), record.updates),
          bytes: new Uint8Array(record.bytes),
        };
      });
      addEventListener('pagehide', () => this.link?.post({ type: 'hide' }));
      document.addEventListener('visibilitychange', () => {
        if (document.hidden) this.link?.post({ type: 'hide' });
      });
    }
    const outcome = new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
    // The first time, the likelihood worker gets its copy of the file (the same shipped file
    // every time; each new run's seed reaches it from the learning worker) and the two
    // workers their ends of one channel.
    const channel = first ? new MessageChannel() : null;
    if (channel) this.scorer.post({ type: 'load', bytes: bytes.slice(), seed, port: channel.port2 }, [channel.port2]);
    /** @type {Extract<import('../messages').MnistMessage, {type: 'load'}>} */
    const message = {
      type: 'load',
      bytes: bytes.buffer,
      hidden,
      seed,
      training,
      labels,
      every,
      resume,
      cores: coresToUse(),
    };
    if (channel) message.port = channel.port1;
    this.link.post(message, channel ? [bytes.buffer, channel.port1] : [bytes.buffer]);
    this.learn(false);
    return outcome;
  }

  /** @param {import('../messages').MnistFrame} frame */
  received(frame) {
    if (frame.loaded && this.waiting) {
      this.waiting.resolve(frame.loaded);
      this.waiting = null;
      this.loads += 1;
      this.curve = null;
      this.pointFresh = true; // the read-outs start again, and the chart shows no point
      this.shown = null;
      this.rate = { updates: 0, since: performance.now(), shown: 0, at: frame.stats.updates };
      // A batch is at most the training images (the engine's check in the worker).
      $('rbm-batch').max = String(frame.loaded.images);
      // A new or restored run shows a page of filters (its engine's start).
      /** @type {HTMLInputElement} */ ($('mnist-filter-all')).checked = frame.stats.filterAll;
      $('mnist-filter-page').toggleAttribute('disabled', frame.stats.filterAll);
      // "…; starting" becomes "…; ready: …" once the worker has made (or restored) the run.
      const state = $('mnist-load-state');
      state.textContent =
        state.textContent.replace(/; starting$/, '; ready') +
        (frame.loaded.restored ? `: the kept run restored at update ${frame.loaded.updates}` : ': a new run');
      // A restored run is the kept one until it saves again; a new run is saved at once and
      // replaces this line when it is stored (keptRun).
      this.kept = null;
      $('mnist-kept').textContent = frame.loaded.restored
        ? `update ${frame.loaded.updates} (the run restored from this browser)`
        : 'saving the new run';
    }
    const shown = this.shown ?? {};
    for (const part of ['filters', 'units', 'reconstructions', 'gallery', 'completion'])
      if (frame[part] === undefined) frame[part] = shown[part];
    // The worker's pad (a restored run's, a test digit copied) unless a newer drawing is here.
    if (frame.pad && (frame.loaded || (!this.drawing && !this.padInFlight && !this.padPending))) {
      this.pad = new Uint8Array(frame.pad);
      this.padDrawn = false;
    }
    if (frame.classification) this.classification = frame.classification;
    // A frame not drawn yet is replaced (its parts carry over above); the acknowledgement at
    // the next draw counts it (`unacked`), so the worker's frames in flight come back to 0.
    this.shown = frame;
    this.fresh = true;
    const s = frame.stats;
    if (s.updates >= this.rate.at) this.rate.updates += s.updates - this.rate.at;
    this.rate.at = s.updates;
    // A page that does not show the run acknowledges at once (it draws on its return); one
    // that shows it acknowledges every frame received when it draws the last (the worker may
    // have two in flight: a command's frame beside the run's).
    if (frame.loaded) this.unacked = 0;
    if ($('mnist').hidden || $('rbm').hidden) this.link.post({ type: 'ack' });
    else this.unacked = (this.unacked ?? 0) + 1;
  }

  /** @param {import('../messages').MnistLikelihoodFrame} frame */
  scored(frame) {
    this.point = frame;
    if (frame.curve) this.curve = frame.curve;
    this.pointFresh = true;
  }

  /** @param {import('../messages').MnistSession} kept */
  keptRun(kept) {
    this.kept = kept;
    $('mnist-kept').textContent =
      `update ${kept.updates} (${format(kept.bytes / 1e6, 2)} MB; ${Math.round(kept.busyMs)} ms of the worker, ` +
      `stored in ${Math.round(kept.ms)} ms)`;
  }

  failed(message, part) {
    if (part === 'data' && this.waiting) {
      this.waiting.reject(new Error(message));
      this.waiting = null;
      return;
    }
    if (part === 'learning') this.setRunning(false);
    const box = { gallery: 'mnist-gallery-error', pad: 'mnist-pad-error' }[part] ?? 'mnist-error';
    showError(box, message);
  }

  // Runs or pauses learning; while a run loads, the choice is kept for when it is made (then
  // onLoaded tells the panel whether it learns). Returns whether it learns (or will).
  setRunning(on) {
    if (this.loading) {
      this.runWhenLoaded = Boolean(on);
      return this.runWhenLoaded;
    }
    return this.learn(on);
  }

  // Whether learning is on (or, while a run loads, asked for).
  wantsRun() {
    return this.loading ? Boolean(this.runWhenLoaded) : this.running;
  }

  learn(on) {
    this.running = Boolean(on) && this.link !== null && this.shown !== null;
    if (this.link) this.link.post({ type: 'run', on: this.running });
    this.rate = { updates: 0, since: performance.now(), shown: this.rate.shown, at: this.shown?.stats.updates ?? 0 };
    return this.running;
  }

  // A command to the learning worker (checked by the engine there): a promise of its reply,
  // its refusal shown in `errorId`.
  /** @param {import('boltzlab-bindings').MnistCommand} command @returns {Promise<import('boltzlab-bindings').MnistReply>} */
  send(command, errorId = 'mnist-error') {
    const reply = this.link.command(command, 0);
    reply.then(
      () => clearError(errorId),
      (err) => showError(errorId, err.message ?? String(err)),
    );
    return reply;
  }

  read(name) {
    return this.link.read(name);
  }

  // Test only: the learning worker's engine panics (`trap`: stops with a wasm trap instead).
  faultWorker(trap = false) {
    this.link.post({ type: 'fault', trap });
  }

  // Test only: the threaded engine's second thread panics at the next half it runs.
  faultSecondThread() {
    this.link.post({ type: 'fault', helper: true });
  }

  // The run as a file to keep or to open in another browser: the bytes the worker keeps in
  // IndexedDB (MnistLab.save: BZMNRUN format 2 with a CRC-32), named by its shape and update.
  async saveFile() {
    clearError('mnist-file-error');
    try {
      const bytes = await this.read('saved-bytes');
      const s = this.shown?.stats;
      const name = runFileName(s?.hidden, Boolean(s?.labelled), s?.updates);
      download(name, bytes, 'application/octet-stream');
      $('mnist-file-done').textContent = `Saved ${name} (${format(bytes.length / 1e6, 3)} MB).`;
    } catch (err) {
      showError('mnist-file-error', `The run could not be saved: ${err.message ?? err}`);
    }
  }

  // Opens a saved run (saveFile's file) in place of this one: the engine checks it whole
  // (header, format, shape, CRC-32) before anything changes, so a file that is not a saved
  // run, damaged or cut short is refused by name and the run shown stays. The run opened
  // brings its own options (hidden units, seed, training, labels), shown in the panel by
  // `onOptions`, and is kept (IndexedDB) as the live run.
  async openFile(file) {
    clearError('mnist-file-error');
    $('mnist-file-done').textContent = '';
    const refuse = (why) =>
      showError('mnist-file-error', `Not opened: ${file.name} — ${why}. The run shown is unchanged.`);
    if (file.size > MAX_RUN_FILE)
      return refuse(`${format(file.size / 1e6, 3)} MB is larger than any saved run (at most ${MAX_RUN_FILE / 1e6} MB)`);
    let bytes;
    try {
      bytes = new Uint8Array(await file.arrayBuffer());
    } catch (err) {
      return refuse(`could not be read (${err.message ?? err})`);
    }
    // A run restored answers `restarted` (MnistLab::apply), with the run's shape and update.
    /** @typedef {Extract<import('boltzlab-bindings').MnistReply, { reply: 'restarted' }>} Restarted */
    /** @type {Restarted} */
    let reply;
    try {
      reply = /** @type {Restarted} */ (await this.link.command({ command: 'restore-run', bytes }, 0));
    } catch (err) {
      return refuse(err.message ?? String(err));
    }
    // The old run's curve goes at once (the likelihood worker's next frame brings the new
    // one): the chart and the last point's read-outs are drawn again without it.
    this.curve = null;
    this.pointFresh = true;
    const options = await this.read('options');
    this.every = options.every;
    localStorage.setItem(STATE_KEY, JSON.stringify(options));
    this.onOptions?.(options);
    $('mnist-file-done').textContent =
      `Opened ${file.name}: a 784-${reply.hidden} machine${options.labels ? ' with labels' : ''} at update ${reply.updates}.`;
  }

  showFilters() {
    const page = readNumber($('mnist-filter-page').value); // numbered from 1, as the engine counts it
    const all = /** @type {HTMLInputElement} */ ($('mnist-filter-all')).checked;
    $('mnist-filter-page').toggleAttribute('disabled', all);
    const order = /** @type {import('boltzlab-bindings').FilterOrder} */ ($('mnist-filter-order').value); // the menu's engine name
    return this.send({ command: 'show-filters', page, order, all }, 'mnist-view-error');
  }

  // The updates between likelihood points a new run gets: the box's, or the number in use
  // when the engine refuses the box's (the refusal is shown beside it since its change).
  everyOfBox() {
    const every = readNumber($('mnist-every').value);
    try {
      this.engine.check_likelihood_every(every);
      this.every = every;
    } catch {
      // this.every stays
    }
    return this.every;
  }

  // The box's updates between likelihood points, checked by the engine (a refusal is shown
  // beside the box and the number in use stays); the learning worker keeps it.
  setEvery() {
    const every = readNumber($('mnist-every').value);
    if (!attempt('mnist-view-error', () => this.engine.check_likelihood_every(every))) return;
    this.every = every;
    this.link?.post({ type: 'every', every });
  }

  startGallery() {
    const count = readNumber($('mnist-gallery-count').value);
    const steps = readNumber($('mnist-gallery-steps').value);
    const text = $('mnist-gallery-label').value.trim();
    // A digit to generate (the engine checks 0–9 and that the run learned the labels).
    /** @type {import('boltzlab-bindings').MnistCommand} */
    const command = { command: 'start-gallery', count, steps, ...(text !== '' ? { label: readNumber(text) } : {}) };
    $('mnist-gallery-classes').textContent = '';
    return this.send(command, 'mnist-gallery-error');
  }

  // --- The drawing pad ---------------------------------------------------------------------

  // The pad's pixel under a pointer event (fractional, in pad pixels).
  /** @returns {[number, number]} */
  padPoint(event) {
    const r = $('mnist-pad').getBoundingClientRect();
    return [((event.clientX - r.left) / r.width) * 28, ((event.clientY - r.top) / r.height) * 28];
  }

  // Inks the pixels within 1.3 pad pixels of the segment from a to b (a stroke about as
  // thick as MNIST's).
  ink([x0, y0], [x1, y1]) {
    const steps = Math.max(1, Math.ceil(2 * Math.hypot(x1 - x0, y1 - y0)));
    for (let k = 0; k <= steps; k++) {
      const x = x0 + ((x1 - x0) * k) / steps;
      const y = y0 + ((y1 - y0) * k) / steps;
      for (let py = Math.floor(y) - 2; py <= Math.floor(y) + 2; py++)
        for (let px = Math.floor(x) - 2; px <= Math.floor(x) + 2; px++)
          if (px >= 0 && px < 28 && py >= 0 && py < 28 && Math.hypot(px + 0.5 - x, py + 0.5 - y) <= 1.3)
            this.pad[py * 28 + px] = 1;
    }
    this.padDrawn = false;
  }

  // Sends the pad to the worker to be kept and classified: at most one in flight, the latest
  // drawing sent when it answers.
  sendPad() {
    if (!this.link || !this.shown) {
      showError('mnist-pad-error', 'MNIST: no run yet; start a run first');
      return;
    }
    if (this.padInFlight) {
      this.padPending = true;
      return;
    }
    this.padInFlight = true;
    const done = () => {
      this.padInFlight = false;
      if (this.padPending) {
        this.padPending = false;
        this.sendPad();
      }
    };
    this.send({ command: 'set-pad', image: this.pad.slice() }, 'mnist-pad-error').then(done, done);
  }

  erasePad() {
    this.pad.fill(0);
    this.padDrawn = false;
    this.sendPad();
  }

  // The bars' DOM, once: a digit, a bar and its value per label.
  buildBars() {
    const box = $('mnist-bars');
    this.bars = [];
    this.drawnBars = null;
    for (let y = 0; y < 10; y++) {
      const digit = document.createElement('span');
      digit.textContent = String(y);
      const track = document.createElement('span');
      const bar = document.createElement('span');
      bar.className = 'bar';
      bar.style.display = 'block';
      bar.style.width = '0%';
      track.append(bar);
      const value = document.createElement('span');
      value.textContent = '–';
      box.append(digit, track, value);
      this.bars.push({ digit, bar, value });
    }
  }

  // The bars of p(label | pad), when the classification (or whether the run has labels) changed.
  drawBars() {
    const p = this.classification;
    const labelled = Boolean(this.shown?.stats.labelled);
    if (this.drawnBars?.p === p && this.drawnBars?.labelled === labelled) return;
    this.drawnBars = { p, labelled };
    if (!labelled || !p || p.length !== 10) {
      for (const b of this.bars) {
        b.bar.style.width = '0%';
        setText(b.value, '–');
      }
      setText(
        'mnist-bars-text',
        labelled
          ? 'p(label | pad): –'
          : 'This run does not learn the labels: start one with “Learn the labels too” to classify.',
      );
      return;
    }
    let best = 0;
    for (let y = 1; y < 10; y++) if (p[y] > p[best]) best = y;
    this.bars.forEach((b, y) => {
      b.bar.style.width = `${(100 * p[y]).toFixed(1)}%`;
      setText(b.value, p[y].toFixed(3));
      b.digit.className = y === best ? 'best' : '';
    });
    setText(
      'mnist-bars-text',
      `p(label | pad), most probable ${best}: ` + Array.from(p, (q, y) => `${y}: ${q.toFixed(3)}`).join(', '),
    );
  }

  drawPad() {
    const canvas = /** @type {HTMLCanvasElement} */ (document.getElementById('mnist-pad'));
    const c = canvas.getContext('2d');
    const image = c.createImageData(28, 28);
    const ink = rgba(cssColour('--ink', '#222222'));
    const paper = rgba(cssColour('--card', '#ffffff'));
    for (let i = 0; i < 784; i++) image.data.set([...(this.pad[i] ? ink : paper).slice(0, 3), 255], 4 * i);
    c.putImageData(image, 0, 0);
    this.padDrawn = true;
  }

  complete() {
    const steps = readNumber($('mnist-pad-steps').value);
    const mask = /** @type {import('boltzlab-bindings').Mask} */ ($('mnist-pad-mask').value); // the menu's engine name
    return this.send({ command: 'complete-pad', mask, steps }, 'mnist-pad-error');
  }

  toggleClamps() {
    const clamped = !(this.shown?.stats.completionClamped ?? true);
    return this.send({ command: 'clamp-pad', clamped }, 'mnist-pad-error');
  }

  wire() {
    const pad = $('mnist-pad');
    pad.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      pad.setPointerCapture?.(event.pointerId);
      pad.focus();
      const p = this.padPoint(event);
      this.drawing = p;
      this.ink(p, p);
      this.sendPad();
    });
    pad.addEventListener('pointermove', (event) => {
      if (!this.drawing) return;
      const p = this.padPoint(event);
      this.ink(this.drawing, p);
      this.drawing = p;
      this.sendPad();
    });
    const lift = () => {
      if (!this.drawing) return;
      this.drawing = null;
      this.sendPad();
    };
    pad.addEventListener('pointerup', lift);
    pad.addEventListener('pointercancel', lift);
    pad.addEventListener('keydown', (event) => {
      if (event.key === 'Delete' || event.key === 'Backspace') {
        event.preventDefault();
        this.erasePad();
      }
    });
    $('mnist-pad-erase').addEventListener('click', () => this.erasePad());
    $('mnist-pad-from-test').addEventListener('click', () => {
      if (!this.link) return showError('mnist-pad-error', 'MNIST: no run yet; start a run first');
      const image = readNumber($('mnist-pad-test').value);
      return this.send({ command: 'pad-from-test', image }, 'mnist-pad-error');
    });
    $('mnist-pad-complete').addEventListener('click', () => this.link && this.complete());
    $('mnist-pad-toggle').addEventListener('click', () => this.link && this.toggleClamps());
    $('mnist-filter-page').addEventListener('change', () => this.link && this.showFilters());
    $('mnist-filter-order').addEventListener('change', () => this.link && this.showFilters());
    $('mnist-filter-all').addEventListener('change', () => this.link && this.showFilters());
    $('mnist-every').addEventListener('change', () => this.setEvery());
    $('mnist-gallery-run').addEventListener('click', () => this.link && this.startGallery());
    $('mnist-save-file').addEventListener('click', () => this.link && this.saveFile());
    $('mnist-open-file').addEventListener('change', async (event) => {
      const input = /** @type {HTMLInputElement} */ (event.target);
      const file = input.files?.[0];
      if (file && this.link) await this.openFile(file);
      input.value = '';
    });
  }

  // Draws the learning worker's last frame once, and acknowledges it.
  draw() {
    if (!this.active) return;
    const now = performance.now();
    if (now - this.rate.since > 500) {
      this.rate.shown = (this.rate.updates * 1000) / (now - this.rate.since);
      this.rate = { updates: 0, since: now, shown: this.rate.shown, at: this.rate.at };
    }
    setText('mnist-speed', this.running ? format(this.rate.shown, 3) : '–');
    if (this.pointFresh) {
      this.pointFresh = false;
      this.drawPoint();
    }
    this.views.likelihood.show(this.curve ?? NO_CURVE);
    if (!this.padDrawn) this.drawPad();
    const frame = this.shown;
    if (!this.fresh || !frame) return;
    this.fresh = false;
    // Written only when they change (setText): the read-outs below change with every frame
    // while learning, the rest seldom, and each write costs the page a layout and a paint.
    // (Showing a shown element writes nothing; hiding a hidden one writes its attribute again.)
    $('mnist-pad-box').hidden = false;
    if ($('mnist-error-rate').hidden !== !frame.stats.labelled) $('mnist-error-rate').hidden = !frame.stats.labelled;
    this.drawBars();
    const s = frame.stats;
    const width = s.width;
    const height = s.visible / width;
    setText('mnist-updates', String(s.updates));
    setText('mnist-cores', String(s.cores));
    setText('mnist-epochs', format(s.updates / s.updatesPerEpoch, 3));
    this.views.chains.draw({
      values: frame.chains,
      count: frame.chains.length / s.visible,
      width,
      height,
      columns: 10,
    });
    if (frame.filters && frame.filters !== this.drawnFilters) {
      this.drawnFilters = frame.filters;
      const count = frame.units.length;
      // All of a large machine's filters 25 to a row (500: 20 rows), a page 10 to a row.
      const columns = count > 100 ? 25 : 10;
      this.views.filters.draw({ values: frame.filters, count, width, height, columns, signed: true, limit: 1 });
      const range = count
        ? s.filterAll
          ? `(all ${count} units)`
          : `(units ${count === s.hidden ? 'all' : `${frame.units[0]}…`}, page ${s.filterPage + 1} of ${Math.ceil(s.hidden / 100)})`
        : '';
      setText('mnist-filter-range', range);
      const count2 = frame.reconstructions.length / s.visible;
      this.views.reconstructions.draw({
        values: besideEachOther(frame.reconstructions, count2 / 2, s.visible, RECONSTRUCTIONS_PER_ROW),
        count: count2,
        width,
        height,
        columns: RECONSTRUCTIONS_PER_ROW,
      });
    }
    if (frame.gallery && frame.gallery !== this.drawnGallery && s.galleryCount > 0) {
      this.drawnGallery = frame.gallery;
      this.views.gallery.draw({ values: frame.gallery, count: s.galleryCount, width, height, columns: 10 });
      $('mnist-gallery-progress').textContent = `${s.gallerySteps} of ${s.galleryTarget} steps`;
      // A finished gallery of a labelled run: what the machine reads in its own images.
      if (s.labelled && s.gallerySteps === s.galleryTarget)
        this.read('gallery-classes').then((classes) => {
          $('mnist-gallery-classes').textContent =
            `The machine classifies these images (argmax p(y | v)) as: ${Array.from(classes).join(' ')}`;
        });
    }
    if (frame.completion && frame.completion !== this.drawnCompletion && s.completionTarget > 0) {
      this.drawnCompletion = frame.completion;
      this.views.completion.draw({ values: frame.completion, count: 1, width, height, columns: 1 });
      $('mnist-pad-steps-done').textContent = `${s.completionSteps} of ${s.completionTarget}`;
      $('mnist-pad-phase').textContent = s.completionClamped ? 'clamped (pad held)' : 'free (nothing held)';
      $('mnist-pad-toggle').textContent = s.completionClamped
        ? 'Release the clamps (free phase)'
        : 'Clamp again (clamped phase)';
    }
    this.acknowledge();
  }

  // Tells the learning worker the frames received so far were drawn (or replaced by a later
  // one): it then sends the next.
  acknowledge() {
    if ((this.unacked ?? 0) > 0) this.link.post({ type: 'ack', frames: this.unacked });
    this.unacked = 0;
  }

  drawPoint() {
    const p = this.point;
    const progress = p?.progress ?? -1;
    setText(
      'mnist-progress',
      progress >= 0 ? `${Math.round(progress * 100)} % (update ${p.update}, ${p.exact ? 'exact' : 'AIS'})` : 'idle',
    );
    $('mnist-progress-bar').value = String(progress >= 0 ? progress : 0);
    const c = this.curve;
    const n = c ? c.updates.length : 0;
    const pm = (x, e) => (e > 0 ? `${format(x, 4)} ± ${format(e, 2)}` : format(x, 4));
    setText('mnist-train-ll', n ? pm(c.train[n - 1], c.stderr[n - 1]) : '–');
    setText('mnist-test-ll', n ? pm(c.test[n - 1], c.stderr[n - 1]) : '–');
    // A labelled run's points: the test error on the 10 000 test images, ± its binomial
    // standard error.
    const e = n && c.error ? c.error[n - 1] : NaN;
    setText(
      'mnist-test-error',
      Number.isFinite(e)
        ? `${format(100 * e, 3)} % ± ${format(100 * c.errorStderr[n - 1], 2)} % (update ${c.updates[n - 1]})`
        : '–',
    );
  }
}
