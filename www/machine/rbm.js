// @ts-check
// The restricted machine (machine mode, "restricted"): a learning run of the engine's
// RbmLab on the 8×8 digits, 4×4 bars and stripes or the user's own file, drawn live.
//
// The live run is in a module worker (rbm_worker.js, which documents the protocol, through
// www/worker_link.js): it learns, starts and records the log-likelihood points (computed from
// frozen machines in a second worker, rbm_points_worker.js, so learning has all of its own
// worker), runs the gallery and the completion chain, and posts frames (particles, reconstructions, filters, the curve,
// the gallery, the completion, counters) in transferred buffers, which this page only draws.
// Every change is an RbmCommand object (defined once in Rust: src/app/rbm/command.rs). The
// page keeps a second RbmLab, the mirror, which never learns: it holds the run's shape and
// options, checks each command with the engine's own code first (a refused command is
// explained at once, beside its control, and goes no further) and answers the controls'
// questions (sizes, the test images, the completion's phase) at once.
//
// Nothing is lost when the page is left: the worker sends the run's session every quarter to
// half second while it learns (and whenever it stops, or a command changes what a session
// keeps); the page keeps the latest with the commands it sent since (the journal), and
// `save()` replays them on a throwaway engine at once, so the save on leaving has every option
// change and at most about a quarter to half a second less of learning.

import { SessionJournal, WorkerLink } from '../worker_link.js';
import { onEngineStop, reportPanic } from '../fault.js';
import { $, attempt, clearError, format, readNumber, setText, showError, showUnused } from '../ui.js';
import { ImageGridView } from '../views/images.js';
import { LikelihoodView } from '../views/likelihood.js';
import { MnistRun } from './mnist.js';
import { KEPT } from './rbm_kept.js';

// The largest image file the page reads: parsed on the main thread by the mirror (about 20–50
// ms for 2 MB at the rate a 50 MB file froze the page, 0.5–1.3 s) and kept, as bits, in the
// session.
export const MAX_FILE_BYTES = 2_000_000;

// Where a failed slice of the worker's work is shown.
const ERROR_BOX = {
  learning: 'rbm-run-error',
  likelihood: 'rbm-likelihood-error',
  gallery: 'rbm-gallery-error',
  completion: 'rbm-complete-error',
  protocol: 'rbm-run-error',
};

export class RbmMode {
  constructor(engine) {
    this.engine = engine;
    this.mirror = null; // the page's RbmLab: the run's shape and options, checked commands
    /** @type {WorkerLink<import('../messages').RbmMessage, import('../messages').RbmFrame, import('../messages').RbmSession, import('boltzlab-bindings').RbmCommand, import('boltzlab-bindings').RbmReply> | null} */
    this.link = null; // the worker, started with the first run
    /** @type {WorkerLink<import('../messages').PointsMessage, never, never> | null} */
    this.points = null; // the points worker, started with it
    this.running = false;
    this.file = null; // the bytes of the user's dataset file
    // The page's commands sent to the worker, numbered, the worker's latest session and the
    // commands sent since: together, the run as the page can save it at any moment.
    this.journal = new SessionJournal();
    // What the worker's frames brought (each part kept until a frame brings it again), and
    // whether one came since the last draw.
    /** @type {import('../messages').RbmFrame | null} */
    this.shown = null;
    this.fresh = false;
    this.unacknowledged = 0; // frames received and not yet acknowledged
    this.rate = { updates: 0, since: performance.now(), shown: 0, at: 0 };
    this.painted = new Uint8Array(64);
    this.changes = 0; // counts option changes and new runs, for the session's fingerprint
    this.waitingSeen = ''; // what showWaiting last compared
    this.views = {
      fantasy: new ImageGridView($('rbm-fantasy')),
      reconstructions: new ImageGridView($('rbm-reconstructions')),
      filters: new ImageGridView($('rbm-filters'), null),
      gallery: new ImageGridView($('rbm-gallery')),
      completion: new ImageGridView($('rbm-completion')),
      paint: new ImageGridView($('rbm-paint')),
      likelihood: new LikelihoodView($('rbm-likelihood')),
    };
    // MNIST (28×28): its own run, workers and views (mnist.js); the small images' run stays.
    this.mnist = new MnistRun(engine);
    // A run opened from a file brings its own options: the panel shows them.
    this.mnist.onOptions = (options) => this.showMnistControls(options);
    // Run pressed while an MNIST run loaded: it learns once made (or the button goes back).
    this.mnist.onLoaded = (run) => this.setRunning(run);
    this.wire();
    this.shortcuts = {
      ' ': () => this.setRunning(!this.learning() && !this.unappliedRefused()),
      f: () => this.togglePhase(),
    };
  }

  // Whether a run has been made (the mirror holds its shape).
  get lab() {
    return this.mirror;
  }

  // The filters use the machine mode's diverging scale (set by mode.js).
  useScale(scale) {
    this.views.filters.scale = scale;
    this.mnist.useScale(scale);
  }

  enter() {
    if (!this.mirror) this.create();
    this.fresh = this.shown !== null;
    // An MNIST run live at the last visit: the data is loaded again (from the cache) and
    // the learning worker restores the run kept in IndexedDB.
    const kept = MnistRun.remembered();
    if (kept && !this.mnist.link && !this.mnist.loading) {
      $('rbm-dataset').value = 'mnist';
      this.showMnistControls(kept);
      this.mnist.create(kept, true);
    }
  }

  leave() {
    this.setRunning(false);
  }

  // The panel shows an MNIST run's options, and the line under New machine says what it is
  // (a restored run's, or a lesson's, as well as a new one's).
  showMnistControls({ hidden, seed, training, labels = false }) {
    this.showMnistSetup(hidden, labels);
    $('rbm-hidden').value = String(hidden);
    $('mnist-labels').checked = Boolean(labels);
    $('rbm-seed').value = String(seed);
    showTraining(training);
    showUsedOptions();
  }

  // The options the run shown learns with: the small images' run (its mirror), or the MNIST
  // run's as its worker last reported them; null before there is one.
  /** @returns {import('boltzlab-bindings').Training | null} */
  appliedTraining() {
    if (this.mnist.active) return this.mnist.shown?.stats.training ?? null;
    return this.mirror ? JSON.parse(this.mirror.training_json()) : null;
  }

  // The training boxes wait for Apply options: each one that holds a value the run does not
  // learn with is named beside the button, with the run's value, and the button is marked,
  // so that a changed box is never passed over silently. Checked every frame (a lesson, a
  // link, a restore or the worker may change either side), written only when it changes.
  showWaiting() {
    const applied = this.appliedTraining();
    const boxes = Object.entries(TRAINING_BOXES).map(([key, id]) => ({ key, box: $(id) }));
    const seen = JSON.stringify([applied, boxes.map(({ box }) => [box.value, box.disabled])]);
    if (seen === this.waitingSeen) return;
    this.waitingSeen = seen;
    /** @type {string[]} */
    const waiting = [];
    if (applied) {
      for (const { key, box } of boxes) {
        const held = applied[key];
        if (box.disabled || held === null || held === undefined) continue;
        const label = document.querySelector(`label[for="${box.id}"]`)?.textContent ?? key;
        if (box.tagName === 'SELECT') {
          if (box.value !== held) {
            const name = (value) => box.querySelector(`option[value="${value}"]`)?.textContent ?? value;
            waiting.push(`${label}: ${name(box.value)} (the run: ${name(held)})`);
          }
        } else if (readNumber(box.value) !== held) {
          waiting.push(`${label} ${box.value.trim() || '(empty)'} (the run: ${held})`);
        }
      }
    }
    setText(
      'rbm-waiting',
      waiting.length ? `Not in use until Apply options or New machine: ${waiting.join('; ')}.` : '',
    );
    $('rbm-waiting').hidden = waiting.length === 0;
    $('rbm-apply').classList.toggle('waiting', waiting.length > 0);
  }

  // The line under New machine for an MNIST run of `hidden` units (with labels or not).
  showMnistSetup(hidden, labels) {
    $('rbm-setup-done').textContent = labels
      ? `A 784-${hidden} machine with a one-of-10 label group on MNIST (f32 batch trainer); its test error on the 10 000 test images, in a second worker.`
      : `A 784-${hidden} machine on MNIST (f32 batch trainer); ln p(v) of 1000 training and 1000 test images by ${hidden > 25 ? 'AIS, with error bars' : 'exact ln Z'}, in a second worker.`;
    $('rbm-setup-done').hidden = false;
  }

  // A new MNIST run from the panel: hidden units, seed and options (checked by the engine in
  // the worker; a refusal is shown and the machine shown stays).
  createMnist() {
    const hidden = readNumber($('rbm-hidden').value);
    const seed = readNumber($('rbm-seed').value);
    const t = this.training();
    const training = { ...t, replicas: null, particles: t.statistics === 'cd' ? null : t.particles };
    const labels = $('mnist-labels').checked;
    const options = { hidden, seed, training, labels, every: this.mnist.everyOfBox() };
    this.setRunning(false);
    return this.mnist.create(options, false).then((ok) => {
      if (ok) {
        this.showMnistSetup(hidden, labels);
        clearError('rbm-setup-error');
        clearError('rbm-training-error'); // the new run's options were accepted
      }
      return ok;
    });
  }

  fail(err) {
    this.setRunning(false);
    showError('rbm-run-error', err.message ?? String(err));
  }

  // The worker does the work; the page's frame only draws (draw, below).
  frame() {}

  // --- The worker ----------------------------------------------------------------------------

  // The worker, started on first use.
  worker() {
    if (this.link) return this.link;
    this.link = new WorkerLink(
      new URL('./rbm_worker.js', import.meta.url),
      {},
      {
        onFrame: (frame) => this.received(frame),
        onSession: (kept) => this.kept(kept),
        onError: (message, data) => this.failed(message, data?.part),
        onFault: (message) => reportPanic(`The restricted machine's worker stopped: ${message}`),
      },
    );
    // The second worker computes the log-likelihood points from the frozen machines the
    // learning worker sends it over their channel (rbm_points_worker.js).
    this.points = new WorkerLink(
      new URL('./rbm_points_worker.js', import.meta.url),
      {},
      {
        onFrame: () => {},
        onSession: () => {},
        onError: (message) => this.failed(message, 'likelihood'),
        onFault: (message) => reportPanic(`The restricted machine's likelihood worker stopped: ${message}`),
      },
    );
    this.postView();
    const channel = new MessageChannel();
    this.link.post({ type: 'port', port: channel.port1 }, [channel.port1]);
    this.points.post({ type: 'port', port: channel.port2 }, [channel.port2]);
    onEngineStop(() => {
      this.link.stop();
      this.points.stop();
    });
    return this.link;
  }

  // Tells the worker how the particles are drawn: it computes their p(v | h) only while they
  // are drawn so.
  postView() {
    this.link.post({ type: 'view', means: $('rbm-fantasy-show').value === 'means' });
  }

  // Sends a command to the worker, numbered, journalled when a session keeps what it changes.
  // A promise of the worker's RbmReply; a refusal there (after the mirror accepted) is shown.
  /** @param {import('boltzlab-bindings').RbmCommand} command @returns {Promise<import('boltzlab-bindings').RbmReply>} */
  send(command, errorId = 'rbm-run-error') {
    const seq = this.journal.record(command, KEPT.has(command.command));
    const reply = this.worker().command(command, seq);
    reply.catch((err) => {
      if (!this.link.dead) showError(errorId, err.message ?? String(err));
    });
    return reply;
  }

  // A session of the run with the number of the last command it includes: the latest, if it
  // is; the journal then keeps only the commands after it.
  /** @param {import('../messages').RbmSession} session */
  kept(session) {
    this.journal.received(session);
  }

  // A frame from the worker: its parts replace the ones kept; drawn at the next draw().
  /** @param {import('../messages').RbmFrame} frame */
  received(frame) {
    const shown = this.shown ?? {};
    for (const part of ['weights', 'reconstructions', 'curve', 'gallery', 'completion'])
      if (frame[part] === undefined) frame[part] = shown[part];
    this.shown = frame;
    this.fresh = true;
    this.unacknowledged += 1;
    const s = frame.stats;
    if (s.updates >= this.rate.at) this.rate.updates += s.updates - this.rate.at;
    this.rate.at = s.updates;
    // A page that does not show the machine acknowledges at once (it draws on its return).
    if ($('rbm').hidden) this.acknowledge();
  }

  // Tells the worker the frames received so far were drawn (or replaced by a later one): it
  // then sends the next.
  acknowledge() {
    if (this.unacknowledged === 0) return;
    this.link.post({ type: 'ack', frames: this.unacknowledged });
    this.unacknowledged = 0;
  }

  // A slice of the worker's work failed: learning stops, and the reason is shown where it
  // belongs.
  failed(message, part) {
    if (part === 'learning' || part === 'protocol') this.setRunning(false);
    showError(ERROR_BOX[part] ?? 'rbm-run-error', message);
  }

  // A value of the live run from the worker (an RbmLab getter, or 'session', 'weights',
  // 'curve', 'completion', 'busy', 'engine_time'): a promise.
  read(name, ...args) {
    return this.worker().read(name, args);
  }

  // For tests: a command as the page makes it (checked on the mirror first when it changes
  // what the mirror holds); a promise of the worker's reply.
  dispatch(command) {
    if (
      !['advance', 'learn', 'refresh', 'likelihood-step', 'advance-gallery', 'advance-completion'].includes(
        command.command,
      )
    )
      this.mirror.dispatch(command);
    return this.send(command);
  }

  // Resolves once the worker has nothing under way (paused, no point, gallery or completion
  // running) and its last frame is here.
  async idle() {
    for (;;) {
      if (!(await this.read('busy'))) {
        const updates = await this.read('updates');
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (this.shown?.stats.updates === updates && !(await this.read('busy'))) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  // Test only: the worker panics.
  faultWorker() {
    this.worker().post({ type: 'fault' });
  }

  // --- The run -------------------------------------------------------------------------------

  // A new machine from the dataset, hidden units and seed controls, with the options shown;
  // on any error the old machine stays and the message says why.
  create() {
    const dataset = $('rbm-dataset').value;
    if (dataset === 'mnist') {
      // The first entry makes the small images' run the page always has.
      if (this.mirror) {
        this.createMnist();
        return true;
      }
      // That placeholder is not the machine the panel is about: the line under New machine
      // keeps what it said (an MNIST run's, when a lesson or a kept run is being made).
      const line = $('rbm-setup-done');
      const [said, hidden] = [line.textContent, line.hidden];
      $('rbm-dataset').value = 'digits8';
      const made = this.create();
      $('rbm-dataset').value = 'mnist';
      [line.textContent, line.hidden] = [said, hidden];
      return made;
    }
    if (this.mnist.active) this.mnist.show(false);
    const hidden = readNumber($('rbm-hidden').value);
    const seed = readNumber($('rbm-seed').value);
    /** @type {import('boltzlab-bindings').RbmLab | null} */
    let next = null;
    let origin = null;
    const ok = attempt('rbm-setup-error', () => {
      if (dataset === 'file') {
        if (!this.file)
          throw new Error('dataset: choose a file first (a digits file, or text with one image per line of 0s and 1s)');
        next = this.engine.RbmLab.from_bytes(this.file, hidden, seed);
        origin = { command: 'new-run-from-file', bytes: this.file, hidden, seed };
      } else {
        next = new this.engine.RbmLab(dataset, hidden, seed);
        origin = { command: 'new-run', dataset, hidden, seed };
      }
    });
    if (!ok || !next) return false;
    const training = this.training();
    // A file of fewer images than the batch: the batch is all of them, said beside the file.
    let fitted = '';
    if (dataset === 'file' && training.batch > next.test_count()) {
      training.batch = next.test_count();
      $('rbm-batch').value = String(training.batch);
      fitted = ` The file has ${training.batch} image${training.batch === 1 ? '' : 's'}, so the batch is ${training.batch}.`;
    }
    try {
      this.applyTo(next, training);
    } catch (err) {
      next.free();
      showError('rbm-training-error', err.message ?? String(err));
      return false;
    }
    clearError('rbm-training-error');
    this.adopt(next, origin);
    $('rbm-setup-done').textContent += fitted;
    return true;
  }

  // Makes `next` (a checked RbmLab, which becomes the mirror) the run shown, and has the worker
  // make the same run: `origin` is the command that built it (new-run or new-run-from-file,
  // sent with next's options), or its restore-session. The paint mask, counters and the setup
  // line start again.
  adopt(next, origin) {
    const command =
      origin.command === 'restore-session'
        ? origin
        : { ...origin, training: next.training(), likelihood_every: next.likelihood_every() };
    if (this.mirror && this.mirror !== next) this.mirror.free();
    this.mirror = next;
    this.send(command, 'rbm-setup-error');
    this.changes += 1;
    this.shown = null;
    this.fresh = false;
    this.acknowledge();
    this.painted = new Uint8Array(next.visible());
    for (let i = 0; i < next.visible(); i++) this.painted[i] = i < next.visible() / 2 ? 1 : 0;
    this.rate = { updates: 0, since: performance.now(), shown: 0, at: 0 };
    $('rbm-complete-image').max = String(next.test_count() - 1);
    // A batch is at most the training images (BATCH.up_to in the engine).
    $('rbm-batch').max = String(next.training_pixels().length / next.visible());
    $('rbm-setup-done').textContent = `A ${next.visible()}-${next.hidden()} machine on ${next.dataset()}: ln p(v) ${
      next.likelihood_exact()
        ? 'exact (smaller layer ≤ 25 units)'
        : 'by AIS (more than 25 units in each layer), with error bars'
    }.`;
    $('rbm-setup-done').hidden = false;
  }

  // --- The session (session/record.js) -------------------------------------------------------

  // Whether anything the restricted session keeps may have changed: the sessions the worker
  // sent, the commands since, and the options applied.
  fingerprint() {
    if (!this.mirror) return 'none';
    return `${this.journal.fingerprint()} ${this.changes}`;
  }

  // The run's session text (opaque, exact) at once, or null before one was made: the worker's
  // latest with the commands sent since replayed on a throwaway engine (every option change,
  // and at most the learning since that session lost). The gallery and the completion are not
  // in it (they start again).
  save() {
    if (!this.mirror) return null;
    return this.journal.text((text) =>
      text !== null ? this.engine.RbmLab.from_session(text) : new this.engine.RbmLab('bars-4x4', 1, 1),
    );
  }

  // What a restricted session holds, read by a throwaway engine object: {dataset, hidden,
  // updates}; throws the engine's reason when it would not restore.
  checkSession(text) {
    const probe = this.engine.RbmLab.from_session(text);
    try {
      return { dataset: probe.dataset(), hidden: probe.hidden(), updates: probe.updates() };
    } finally {
      probe.free();
    }
  }

  // Restores a restricted session: the run continues exactly where it stopped, and the
  // controls show its dataset, hidden units, seed and options.
  restoreSession(text) {
    const lab = this.engine.RbmLab.from_session(text);
    this.setRunning(false);
    showControls(lab);
    this.adopt(lab, { command: 'restore-session', text });
  }

  // The options shown in the panel (numbers read strictly; the engine checks them). A box
  // the statistics do not use is disabled (showUsedOptions) and sent as NaN, the engine's
  // "none".
  training() {
    const number = (id) => ($(id).disabled ? NaN : readNumber($(id).value));
    return {
      // The menu's value, one of the engine's names (checked when the engine reads it).
      statistics: /** @type {import('boltzlab-bindings').StatisticsKind} */ ($('rbm-statistics').value),
      steps: number('rbm-steps'),
      particles: number('rbm-particles'),
      replicas: number('rbm-replicas'),
      batch: number('rbm-batch'),
      rate: number('rbm-rate'),
      momentum: number('rbm-momentum'),
      decay: number('rbm-decay'),
    };
  }

  // Sets options `t` on `lab` (a run being made, or the mirror), checked by the engine;
  // throws its reason, with nothing changed.
  applyTo(lab, t) {
    lab.set_training(t.statistics, t.steps, t.particles, t.replicas, t.batch, t.rate, t.momentum, t.decay);
    lab.set_likelihood_every(Math.max(1, 2 * lab.updates_per_epoch()));
    this.changes += 1;
  }

  // Applies the options to the running machine (checked on the mirror, then sent); a bad value
  // changes nothing.
  applyTraining() {
    if (this.mnist.active) {
      const t = this.training();
      const training = { ...t, replicas: null, particles: t.statistics === 'cd' ? null : t.particles };
      this.mnist.send({ command: 'set-training', training }, 'rbm-training-error');
      return;
    }
    const mirror = this.mirror;
    if (!mirror) return;
    if (!attempt('rbm-training-error', () => this.applyTo(mirror, this.training()))) return;
    this.send({ command: 'set-training', training: mirror.training() }, 'rbm-training-error');
    this.send({ command: 'set-likelihood-every', every: mirror.likelihood_every() }, 'rbm-training-error');
  }

  // Whether the training boxes, which wait for Apply options, hold a value the engine would
  // refuse: checked as learning is run, so that a bad value there is not silently passed over
  // (learning would start at the options held). Its reason is shown beside the options (the
  // text stays, to be corrected) and learning does not start. The check is the engine's, made
  // without setting anything (setting the options on the mirror and back would draw new
  // particles for a new count, and the mirror would no longer be the worker's run). A good
  // value there still waits for Apply options. An MNIST run's options are checked by its worker.
  unappliedRefused() {
    const mirror = this.mirror;
    if (!mirror || this.mnist.active || this.mnist.loading || $('rbm-dataset').value === 'mnist') return false;
    const t = this.training();
    return !attempt('rbm-training-error', () =>
      mirror.check_training(t.statistics, t.steps, t.particles, t.replicas, t.batch, t.rate, t.momentum, t.decay),
    );
  }

  // Whether the Run button says learning: the MNIST run's (also while one loads) or the
  // small images'.
  learning() {
    return this.mnist.active || this.mnist.loading ? this.mnist.wantsRun() : this.running;
  }

  setRunning(on) {
    if (this.mnist.active || this.mnist.loading) {
      const running = this.mnist.setRunning(on);
      $('rbm-run').textContent = running ? 'Pause learning' : 'Run learning';
      $('rbm-run').setAttribute('aria-pressed', String(running));
      return;
    }
    this.running = on && this.mirror !== null;
    $('rbm-run').textContent = this.running ? 'Pause learning' : 'Run learning';
    $('rbm-run').setAttribute('aria-pressed', String(this.running));
    if (this.link || this.running) this.worker().post({ type: 'run', on: this.running });
    this.rate = { updates: 0, since: performance.now(), shown: this.rate.shown, at: this.shown?.stats.updates ?? 0 };
  }

  // The live numbers (scene.js readouts): the update count and the last log-likelihood point
  // as the worker last sent them: {updates, train, test, stderr, exact} (NaN where none).
  latestNumbers() {
    const s = this.shown?.stats;
    const curve = this.shown?.curve;
    const n = curve ? curve.updates.length : 0;
    return {
      // Before the worker's first frame of a run, the mirror's count is the run's (it is
      // made or restored, not yet learning).
      updates: s ? s.updates : this.mirror ? this.mirror.updates() : NaN,
      train: n ? curve.train[n - 1] : NaN,
      test: n ? curve.test[n - 1] : NaN,
      stderr: n ? curve.stderr[n - 1] : NaN,
      exact: this.mirror ? this.mirror.likelihood_exact() : true,
    };
  }

  // --- Gallery and completion ----------------------------------------------------------------

  startGallery() {
    const count = readNumber($('rbm-gallery-count').value);
    const steps = readNumber($('rbm-gallery-steps').value);
    /** @type {import('boltzlab-bindings').RbmCommand} */
    const command = { command: 'start-gallery', count, steps };
    if (attempt('rbm-gallery-error', () => this.mirror.dispatch(command))) this.send(command, 'rbm-gallery-error');
  }

  startCompletion() {
    const image = readNumber($('rbm-complete-image').value);
    const mask = /** @type {import('boltzlab-bindings').Mask} */ ($('rbm-complete-mask').value); // a menu of the engine's names
    const steps = readNumber($('rbm-complete-steps').value);
    /** @type {import('boltzlab-bindings').RbmCommand} */
    const command = { command: 'start-completion', image, mask, painted: this.painted.slice() };
    const checked = () => {
      this.engine.check_chain_steps(steps); // the steps first: nothing starts if refused
      this.mirror.dispatch(command);
    };
    if (attempt('rbm-complete-error', checked)) {
      this.send(command, 'rbm-complete-error');
      this.send({ command: 'advance-completion', steps }, 'rbm-complete-error');
      this.showPhase();
    }
  }

  // F: clamped ⇄ free for the completion chain, as on the lattice; it settles again.
  togglePhase() {
    const mirror = this.mirror;
    if (!mirror || mirror.completion_image() < 0) {
      showError('rbm-complete-error', 'completion: choose a test image and a mask first');
      return;
    }
    /** @type {import('boltzlab-bindings').RbmCommand} */
    const command = { command: 'set-completion-clamped', clamped: !mirror.completion_clamped() };
    const steps = readNumber($('rbm-complete-steps').value);
    const checked = () => {
      this.engine.check_chain_steps(steps);
      mirror.dispatch(command);
    };
    if (attempt('rbm-complete-error', checked)) {
      this.send(command, 'rbm-complete-error');
      this.send({ command: 'advance-completion', steps }, 'rbm-complete-error');
      this.showPhase();
    }
  }

  showPhase() {
    const clamped = this.mirror.completion_clamped();
    $('rbm-complete-phase').textContent = clamped ? 'clamped (mask held)' : 'free (nothing held)';
    $('rbm-complete-toggle').textContent = clamped ? 'Release the clamps (free phase)' : 'Clamp again';
  }

  paintGeometry() {
    const width = this.mirror.width();
    return { count: 1, width, height: this.mirror.visible() / width, columns: 1 };
  }

  paintAt(event) {
    const hit = this.views.paint.hit(event, this.paintGeometry());
    if (!hit) return;
    this.painted[hit.pixel] = this.paintValue;
    $('rbm-complete-mask').value = 'paint';
  }

  wire() {
    $('rbm-run').addEventListener('click', () => this.setRunning(!this.learning() && !this.unappliedRefused()));
    $('rbm-create').addEventListener('click', () => {
      this.setRunning(false);
      this.create();
    });
    $('rbm-apply').addEventListener('click', () => this.applyTraining());
    $('rbm-statistics').addEventListener('change', showUsedOptions);
    showUsedOptions();
    $('rbm-fantasy-show').addEventListener('change', () => {
      if (this.link) this.postView();
    });
    // A batch that fits the set: 100 of the 1500 digits, all 30 bars patterns.
    // A value that is none of the menu's (set from a script) leaves the menu blank: the
    // last choice comes back instead.
    let chosen = $('rbm-dataset').value;
    $('rbm-dataset').addEventListener('change', () => {
      const menu = $('rbm-dataset');
      if (menu.selectedIndex < 0) menu.value = chosen;
      chosen = menu.value;
      const batch = { digits8: '100', 'bars-4x4': '30', mnist: '100' }[menu.value];
      if (batch) $('rbm-batch').value = batch;
      // MNIST's defaults: a 784-500 machine, CD-1, ε = 0.1, μ = 0.5 (with labels, λ = 0.0002).
      if (menu.value === 'mnist')
        this.showMnistControls({
          hidden: 500,
          seed: readNumber($('rbm-seed').value) || 1,
          training: this.engine.MnistLab.default_training($('mnist-labels').checked),
          labels: $('mnist-labels').checked,
        });
      showUsedOptions();
    });
    // Learning the labels has its own default weight decay: ticking the box brings it, and
    // clearing it takes it back, unless the field holds a decay of the user's own.
    $('mnist-labels').addEventListener('change', () => {
      if ($('rbm-dataset').value !== 'mnist') return;
      const labels = $('mnist-labels').checked;
      const [now, other] = [labels, !labels].map((l) => this.engine.MnistLab.default_training(l).decay);
      if (readNumber($('rbm-decay').value) === other) $('rbm-decay').value = String(now);
    });
    $('rbm-file').addEventListener('change', async () => {
      const file = $('rbm-file').files[0];
      if (!file) return;
      // Read on this thread (the mirror parses it) and kept in the session: refused before it
      // is read when it is larger than either allows (the file chosen before stays).
      if (file.size > MAX_FILE_BYTES) {
        $('rbm-file').value = '';
        showError(
          'rbm-setup-error',
          `dataset: ${file.name} is ${(file.size / 1e6).toFixed(1)} MB; the page reads image files of at most ${MAX_FILE_BYTES / 1e6} MB ` +
            '(about 2000 images of 32 × 32). For a larger file use the command line: boltzlab learn --machine rbm --data FILE',
        );
        return;
      }
      clearError('rbm-setup-error');
      this.file = new Uint8Array(await file.arrayBuffer());
      $('rbm-dataset').value = 'file';
      chosen = 'file';
    });
    $('rbm-gallery-run').addEventListener('click', () => this.startGallery());
    $('rbm-complete-run').addEventListener('click', () => this.startCompletion());
    $('rbm-complete-toggle').addEventListener('click', () => this.togglePhase());
    const paint = $('rbm-paint');
    paint.addEventListener('pointerdown', (event) => {
      if (!this.mirror) return;
      const hit = this.views.paint.hit(event, this.paintGeometry());
      if (!hit) return;
      this.paintValue = this.painted[hit.pixel] ? 0 : 1;
      this.painting = true;
      paint.setPointerCapture(event.pointerId);
      this.paintAt(event);
    });
    paint.addEventListener('pointermove', (event) => {
      if (this.painting) this.paintAt(event);
    });
    paint.addEventListener('pointerup', () => (this.painting = false));
    $('rbm-paint-clear').addEventListener('click', () => {
      this.painted.fill(0);
      $('rbm-complete-mask').value = 'paint';
    });
  }

  // --- Drawing -------------------------------------------------------------------------------

  // Draws the worker's last frame, once, and acknowledges it (the worker then sends the next).
  draw() {
    if (!$('rbm').hidden) this.showWaiting();
    if (this.mnist.active) {
      if (!$('rbm').hidden) this.mnist.draw();
      return;
    }
    const mirror = this.mirror;
    if (!mirror || $('rbm').hidden) return;
    const width = mirror.width();
    const height = mirror.visible() / width;
    this.views.paint.draw({ values: this.painted, count: 1, width, height, columns: 1 });
    const now = performance.now();
    if (now - this.rate.since > 500) {
      this.rate.shown = (this.rate.updates * 1000) / (now - this.rate.since);
      this.rate = { updates: 0, since: now, shown: this.rate.shown, at: this.rate.at };
    }
    setText('rbm-speed', this.running ? `${Math.round(this.rate.shown)}` : '–');
    const frame = this.shown;
    if (frame?.curve) this.views.likelihood.show(frame.curve);
    if (!this.fresh || !frame) return;
    this.fresh = false;
    this.drawFrame(frame, width, height);
    this.acknowledge();
  }

  /** @param {import('../messages').RbmFrame} frame @param {number} width @param {number} height */
  drawFrame(frame, width, height) {
    const s = frame.stats;
    setText('rbm-updates', String(s.updates));
    setText('rbm-epochs', format(s.updates / s.updatesPerEpoch, 1));
    setText('rbm-progress', s.progress >= 0 ? `${Math.round(s.progress * 100)} %` : 'idle');
    $('rbm-progress-bar').value = String(s.progress >= 0 ? s.progress : 0);
    const curve = frame.curve;
    const points = curve ? curve.updates.length : 0;
    const last = points - 1;
    const pm = (x, e) => (e > 0 ? `${format(x, 3)} ± ${format(e, 3)}` : format(x, 3));
    setText('rbm-train-ll', points ? pm(curve.train[last], curve.stderr[last]) : '–');
    setText('rbm-test-ll', points ? pm(curve.test[last], curve.stderr[last]) : '–');
    setText('rbm-ll-method', s.exact ? 'exact' : 'AIS');
    // The means come in the frames after the page asked for them (until then, the states).
    const means = $('rbm-fantasy-show').value === 'means' && frame.fantasyMean;
    this.views.fantasy.draw({
      values: means || frame.fantasy,
      count: s.shown,
      width,
      height,
      columns: 10,
    });
    setText(
      'rbm-fantasy-title',
      s.hasParticles
        ? `Fantasy particles (${s.shown} shown)`
        : `CD-k: ${s.shown} chains run k steps from training images (CD keeps no fantasy particles)`,
    );
    if (frame.weights && frame.weights !== this.drawnWeights) {
      this.drawnWeights = frame.weights;
      this.views.filters.draw({
        values: frame.weights,
        count: s.hidden,
        width,
        height,
        columns: Math.min(10, s.hidden),
        signed: true,
        transposed: true,
      });
      const r = frame.reconstructions;
      this.views.reconstructions.draw({ values: r.values, count: r.count, width, height, columns: r.columns });
    }
    setText(
      'rbm-gallery-progress',
      s.galleryCount > 0 ? `${s.galleryDone} of ${readNumber($('rbm-gallery-steps').value) || '?'} steps` : '',
    );
    if (s.galleryCount > 0 && frame.gallery)
      this.views.gallery.draw({ values: frame.gallery, count: s.galleryCount, width, height, columns: 10 });
    if (s.completionImage >= 0 && frame.completion) {
      const c = frame.completion;
      this.views.completion.draw({ values: c.all, count: 4, width, height, columns: 4, marks: c.marks });
      setText('rbm-complete-steps-done', String(s.completionSteps));
    }
  }
}

// The boxes of the options a run learns with, by the name the engine gives each option (and
// a link's options, lessons/scene.js).
export const TRAINING_BOXES = {
  statistics: 'rbm-statistics',
  steps: 'rbm-steps',
  particles: 'rbm-particles',
  replicas: 'rbm-replicas',
  batch: 'rbm-batch',
  rate: 'rbm-rate',
  momentum: 'rbm-momentum',
  decay: 'rbm-decay',
};

// The restricted machine's controls show what `lab` holds: its dataset, hidden units, seed
// and training options (a restored or a scene's run).
export function showControls(lab) {
  if (lab.dataset() !== 'custom') showValue('rbm-dataset', lab.dataset());
  showValue('rbm-hidden', lab.hidden());
  showValue('rbm-seed', lab.seed());
  showTraining(JSON.parse(lab.training_json()));
  showUsedOptions();
}

// The training boxes show `training` (options by the engine's names); an option it does not
// hold (null: particles under CD-k, replicas without tempering) leaves its box as it is.
function showTraining(training) {
  for (const [key, id] of Object.entries(TRAINING_BOXES)) showValue(id, training?.[key]);
}

// Box `id` shows `value`, unless there is none (null or undefined).
function showValue(id, value) {
  if (value !== null && value !== undefined) $(id).value = String(value);
}

// Only the boxes the chosen statistics use can be edited, and a note says why the others are
// not: CD-k starts its chains from the batch, so it has no particles; only parallel tempering
// has replicas. An MNIST run offers no tempering: the menu's choice is disabled there.
export function showUsedOptions() {
  const menu = /** @type {HTMLSelectElement} */ ($('rbm-statistics'));
  const mnist = /** @type {HTMLSelectElement} */ ($('rbm-dataset')).value === 'mnist';
  const tempering = /** @type {HTMLOptionElement} */ (menu.querySelector('option[value="tempering"]'));
  tempering.disabled = mnist;
  tempering.title = mnist ? 'an MNIST run learns with CD-k or persistent particles' : '';
  if (mnist && menu.value === 'tempering') menu.value = 'persistent';
  const statistics = menu.value;
  showUnused(
    {
      'rbm-particles': statistics === 'cd' ? 'not used by CD-k, whose chains start from the batch' : '',
      'rbm-replicas': statistics !== 'tempering' ? 'only parallel tempering has replicas' : '',
    },
    'rbm-unused',
  );
}
