// @ts-check
// The Boltzmann-machine mode: a learning run of the engine's MachineLab, drawn live.
//
// The live run is in a module worker (machine_worker.js, which documents the protocol, through
// www/worker_link.js): it learns, works on the AIS estimate of KL, runs the explore/dream
// sampler, the gallery and ln Z, and posts frames (activations, clamps, weights, biases, the
// pair matrices, the curves, counters) in transferred buffers, which this page only draws.
// Every change is a MachineCommand object (defined once in Rust: src/app/machine/command.rs).
// The page keeps a second MachineLab, the mirror, which never learns: it holds the run's
// shape and options, checks each change with the engine's own code first (a refused one is
// explained at once, beside its control, and goes no further) and answers the controls'
// questions (sizes, patterns, options) at once.
//
// Nothing is lost when the page is left: the worker sends the run's session at least every
// quarter second while it works (and whenever it stops, and after each command); the page
// keeps the latest with the commands sent since (the journal), and `session()` replays them on
// a throwaway engine at once, so the save on leaving has every change and at most about a
// quarter second (and the text's way to the page) less of learning. The modules beside this one (options, editor, gallery, files) make
// their changes through `change` and their readings through `read`, never on a live engine.

import { SessionJournal, WorkerLink } from '../worker_link.js';
import { onEngineStop, reportPanic } from '../fault.js';
import { $, attempt, format, readNumber, showError } from '../ui.js';
import { HeatMapView } from '../views/heatmap.js';
import { DivergingScale } from '../views/colour.js';
import { UnitFill, UnitsView, pictureShape } from '../views/units.js';
import { PatternsView } from '../views/patterns.js';
import { NetworkGraphView } from '../views/graph.js';
import { LearningCurveView } from '../views/curves.js';
import { LOG_Z_METHODS, failLogZTable, fillLogZTable, markLogZTable } from '../views/logz_table.js';
import { MachineOptions } from './options.js';
import { PatternEditor } from './editor.js';
import { Gallery } from './gallery.js';
import { NetworkFiles } from './files.js';
import { fromRecordV1, shownDataset, shownOptions } from './snapshot.js';
import { RbmMode } from './rbm.js';

// Speed steps: sweeps (stochastic) or mean-field solves per frame.
const SPEEDS = [1, 4, 16, 64, 256, 1024, 16384];
// Graphs are drawn for at most this many units.
const GRAPH_UNITS = 40;
// Where a failed slice of the worker's work is shown.
const ERROR_BOX = { learning: 'bm-run-error', estimate: 'bm-run-error', explore: 'bm-explore-error' };

/** @typedef {import('boltzlab-bindings').MachineCommand} MachineCommand */

export class MachineMode {
  constructor(engine) {
    this.engine = engine;
    this.mirror = null; // the page's MachineLab: shape, options, checked changes (never learns)
    /** @type {WorkerLink<import('../messages').MachineMessage, import('../messages').MachineFrame, import('../messages').MachineSession, import('boltzlab-bindings').MachineCommand, import('boltzlab-bindings').MachineReply> | null} */
    this.link = null; // the worker, started with the first run
    this.running = false;
    // The page's commands sent to the worker, numbered, the worker's latest session and the
    // commands sent since: together, the run as the page can save it at any moment.
    this.journal = new SessionJournal();
    this.changes = 0; // counts runs made, for the fingerprint
    // The worker's last frame (its weight part kept until a frame brings it again), whether
    // one came since the last draw, and frames not yet acknowledged.
    /** @type {import('../messages').MachineFrame | null} */
    this.shown = null;
    this.fresh = false;
    this.unacknowledged = 0;
    this.drawnWeights = null;
    this.run = 0; // counts the runs adopted (ln Z results belong to one)
    const scale = new DivergingScale();
    const fill = new UnitFill();
    this.fill = fill;
    this.views = {
      weights: new HeatMapView($('bm-weights'), $('bm-weights-legend'), scale),
      biases: new HeatMapView($('bm-biases'), null, scale),
      clamped: new HeatMapView($('bm-clamped'), $('bm-correlations-legend'), scale),
      free: new HeatMapView($('bm-free'), null, scale),
      difference: new HeatMapView($('bm-difference'), $('bm-difference-legend'), scale),
      units: new UnitsView($('bm-units'), fill),
      patterns: new PatternsView($('bm-patterns'), fill),
      graph: new NetworkGraphView($('bm-graph'), scale, fill),
      curve: new LearningCurveView($('bm-curve')),
    };
    this.options = new MachineOptions(this);
    this.editor = new PatternEditor(this);
    this.gallery = new Gallery(this);
    this.files = new NetworkFiles(this);
    // The restricted machine: its own controller, shown instead of the general one.
    this.kind = 'full';
    this.rbm = new RbmMode(engine);
    this.rbm.useScale(scale);
    // The test hook (app.js): every MachineLab reading of the live run, from the worker, as a
    // promise.
    this.hook = new Proxy(
      {},
      {
        get:
          (_, name) =>
          (...args) =>
            this.read(String(name), ...args),
      },
    );
    this.wire();
    // The keyboard shortcuts of this mode (keys.js): the shown machine's.
    this.fullShortcuts = {
      ' ': () => this.setRunning(!this.running && !this.options.unappliedRefused()),
      s: () => this.stepCycle(),
      S: () => this.stepSweep(),
      f: () => this.togglePhase(),
      r: () => this.resetWeights(),
      '+': () => this.nudgeSpeed(1),
      '=': () => this.nudgeSpeed(1),
      '-': () => this.nudgeSpeed(-1),
    };
  }

  // The run's mirror (shape and options), or null before the first run.
  get lab() {
    return this.mirror;
  }

  get shortcuts() {
    return this.kind === 'restricted' ? this.rbm.shortcuts : this.fullShortcuts;
  }

  // The live run's counters as the worker last sent them (cycles, phase, pattern, stage,
  // version, exploring, estimating, klEstimated, …), or null before its first frame.
  get live() {
    return this.shown?.stats ?? null;
  }

  // --- The mode's interface to the app -----------------------------------------------------

  enter() {
    if (!this.mirror) this.create();
    this.fresh = this.shown !== null;
    this.drawnWeights = null;
    if (this.kind === 'restricted') this.rbm.enter();
    this.draw();
  }

  leave() {
    this.setRunning(false);
    this.rbm.leave();
  }

  // Shows the general machine ('full') or the restricted one ('restricted'); the one hidden
  // pauses.
  showKind(kind) {
    if (kind === this.kind) return;
    this.kind = kind;
    const restricted = kind === 'restricted';
    for (const element of document.querySelectorAll('#machine > .machine-grid, #machine > .machine-views'))
      /** @type {HTMLElement} */ (element).hidden = restricted;
    $('rbm').hidden = !restricted;
    if (restricted) {
      this.setRunning(false);
      this.rbm.enter();
    } else {
      this.rbm.leave();
      this.fresh = this.shown !== null;
      this.drawnWeights = null;
    }
    this.draw();
  }

  // The worker does the work; the page's frame only draws (draw, below).
  frame(_budgetMs) {
    if (this.kind === 'restricted') this.rbm.frame();
  }

  // A frame that threw: stop learning and say why beside the run controls.
  fail(err) {
    if (this.kind === 'restricted') {
      this.rbm.fail(err);
      return;
    }
    this.setRunning(false);
    showError('bm-run-error', err.message ?? String(err));
  }

  // --- The worker ----------------------------------------------------------------------------

  // The worker, started on first use.
  worker() {
    if (this.link) return this.link;
    this.link = new WorkerLink(
      new URL('./machine_worker.js', import.meta.url),
      {},
      {
        onFrame: (frame) => this.received(frame),
        onSession: (kept) => this.kept(kept),
        onError: (message, data) => this.failed(message, data?.part),
        onFault: (message) => reportPanic(`The Boltzmann machine's worker stopped: ${message}`),
      },
    );
    onEngineStop(() => this.link.stop());
    return this.link;
  }

  // Sends a command to the worker, numbered and journalled; a promise of the worker's
  // MachineReply. A refusal there (after the mirror accepted) is shown in `errorId`, and
  // learning stops.
  send(command, errorId = 'bm-run-error') {
    const seq = this.journal.record(command);
    const reply = this.worker().command(command, seq);
    reply.catch((err) => {
      if (this.link.dead) return;
      this.setRunning(false);
      showError(errorId, err.message ?? String(err));
    });
    return reply;
  }

  // A change from a control, as a MachineCommand object: made on the mirror first, which checks
  // it with the engine's own code (its reason shown in `errorId`, with nothing sent), then sent
  // to the worker. Whether it was accepted. `command` may be a function that builds it (from
  // the controls, or a reading of the mirror): what it throws is shown the same way.
  /** @param {string} errorId @param {MachineCommand | (() => MachineCommand)} command */
  change(errorId, command) {
    let made = null;
    const ok =
      this.mirror &&
      attempt(errorId, () => {
        made = typeof command === 'function' ? command() : command;
        this.mirror.dispatch(made);
      });
    if (!ok) return false;
    this.send(made, errorId);
    return true;
  }

  // A session of the run with the number of the last command it includes: the latest, if it
  // is; the journal then keeps only the commands after it.
  /** @param {import('../messages').MachineSession} session */
  kept(session) {
    this.journal.received(session);
  }

  // A frame from the worker: it replaces the one kept (the weight part kept when it brings
  // none); drawn at the next draw().
  /** @param {import('../messages').MachineFrame} frame */
  received(frame) {
    if (frame.weights === undefined) frame.weights = this.shown?.weights ?? null;
    this.shown = frame;
    this.fresh = true;
    // Acknowledged when drawn: while the general machine is not shown, its worker's work paced
    // by frames (learning, exploring) waits, as the page's frame loop does not advance a
    // hidden mode.
    this.unacknowledged += 1;
  }

  // Tells the worker the frames received so far were drawn: it then sends the next.
  acknowledge() {
    if (this.unacknowledged === 0 || !this.link) return;
    this.link.post({ type: 'ack', frames: this.unacknowledged });
    this.unacknowledged = 0;
  }

  // A slice of the worker's work failed: that work stops, and the reason is shown where it
  // belongs.
  failed(message, part) {
    if (part === 'learning' || part === 'protocol') this.setRunning(false);
    showError(ERROR_BOX[part] ?? 'bm-run-error', message);
  }

  // A reading of the live run from the worker (a MachineLab reading, or 'activations',
  // 'clamps', 'weights', 'curve', 'ais', 'log_z_all', 'busy'): a promise.
  read(name, ...args) {
    return this.worker().read(name, args);
  }

  // For tests: a command as the page sends it (checked on the mirror first when it changes
  // what the mirror holds); a promise of the worker's reply.
  dispatch(command) {
    if (!['advance', 'step-cycle', 'estimate-step', 'explore-sweeps'].includes(command.command))
      this.mirror.dispatch(command);
    return this.send(command);
  }

  // Resolves once the worker has nothing under way and its last frame is here.
  async idle() {
    for (;;) {
      if (!(await this.read('busy'))) {
        const cycles = await this.read('cycles');
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (this.live?.cycles === cycles && !(await this.read('busy'))) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  // Test only: the worker panics.
  faultWorker() {
    this.worker().post({ type: 'fault' });
  }

  // Test only: every learning step in the worker from now on fails with `message`, as one does
  // when learning diverges.
  failLearning(message) {
    this.worker().post({ type: 'fail-learning', message });
  }

  // --- The run -------------------------------------------------------------------------------

  // A new run from the dataset, method and seed controls; on error nothing changes.
  create() {
    const dataset = $('bm-dataset').value;
    const method = $('bm-method').value;
    const seed = readNumber($('bm-seed').value);
    const errorId = dataset === 'custom' ? 'bm-editor-error' : 'bm-dataset-error';
    let next = null;
    let origin = null;
    const ok = attempt(errorId, () => {
      if (dataset === 'custom') {
        const patterns = $('bm-patterns-text').value;
        const hidden = readNumber($('bm-hidden').value);
        next = this.engine.MachineLab.custom(patterns, hidden, method, seed);
        origin = { command: 'new-custom-run', patterns, hidden, method, seed };
      } else {
        next = new this.engine.MachineLab(dataset, method, seed);
        origin = { command: 'new-run', problem: dataset, method, seed };
      }
    });
    if (!ok) return false;
    this.adopt(next, dataset, origin);
    $('bm-run-done').hidden = true;
    this.draw();
    return true;
  }

  // Makes `lab` (a checked MachineLab of dataset `name`, which becomes the mirror) the mode's
  // run, freeing the one before, and has the worker make the same run: `origin` is the command
  // that built it, or (by default) a restore of its session.
  adopt(lab, name, origin = { command: 'restore-session', text: lab.session() }) {
    this.options.clearErrors();
    if (this.mirror && this.mirror !== lab) this.mirror.free();
    this.mirror = lab;
    this.dataset = name;
    this.patterns = lab.patterns_flat();
    this.run += 1;
    this.send(origin, name === 'custom' ? 'bm-editor-error' : 'bm-dataset-error');
    this.changes += 1;
    this.shown = null;
    this.fresh = false;
    this.drawnWeights = null;
    this.acknowledge();
    $('bm-noise').hidden = !(lab.encoder_group() > 0 && lab.encoder_group() < 40);
    this.options.sync();
    this.editor.reset(lab.visible());
    $('bm-logz-temperature').value = String(lab.temperature());
    $('bm-explore-stop').disabled = !lab.exploring();
  }

  // Makes `lab` the run, with the dataset, method and seed controls (and the editor, for the
  // user's own patterns) showing what it holds: a restored session and a scene
  // (machine/scene.js) come in so.
  adoptShown(lab) {
    this.options.show(shownOptions(lab));
    this.adopt(lab, shownDataset(lab));
  }

  // Shows the general ('full') or the restricted machine with its radio button checked, as
  // a click on it does.
  setKind(kind) {
    $(`bm-kind-${kind}`).checked = true;
    this.showKind(kind);
  }

  wire() {
    for (const radio of document.querySelectorAll('input[name="bm-kind"]'))
      radio.addEventListener('change', () => this.showKind(/** @type {HTMLInputElement} */ (radio).value));
    // A press that refused the value of the box it left, or finds a value the engine would
    // refuse in a box waiting for its own button, does not start or step learning (pausing
    // still pauses).
    const guard = this.options.guard;
    guard.onPress(
      $('bm-run'),
      () => {
        if (!this.running && this.options.unappliedRefused()) return;
        this.setRunning(!this.running);
      },
      () => this.running,
    );
    guard.onPress($('bm-step'), () => this.stepCycle());
    guard.onPress($('bm-step-sweep'), () => this.stepSweep());
    $('bm-reset').addEventListener('click', () => this.resetWeights());
    $('bm-speed').addEventListener('input', () => {
      this.showSpeed();
      if (this.running) this.setRunning(true);
    });
    this.showSpeed();
    $('bm-logz-run').addEventListener('click', () => this.computeLogZ());
    $('bm-explore-clamped').addEventListener('click', () => this.exploreNumber());
    $('bm-explore-free').addEventListener('click', () => this.exploreFree());
    $('bm-explore-stop').addEventListener('click', () => {
      this.change('bm-explore-error', { command: 'stop-exploring' });
      this.showExploring(false);
    });
    window.addEventListener('resize', () => {
      this.fresh = this.shown !== null;
      this.drawnWeights = null;
      this.draw();
    });
  }

  // Clamps the training pattern numbered in the explore box (1-based) and lets it settle.
  exploreNumber() {
    this.setRunning(false);
    const number = readNumber($('bm-explore-pattern').value);
    // The box's number is 1-based; the mirror reads it (naming the box and its range).
    if (this.change('bm-explore-error', () => ({ command: 'explore', pattern: this.mirror.pattern_of_number(number) })))
      this.showExploring(true);
  }

  // Nothing clamped: the machine dreams.
  exploreFree() {
    this.setRunning(false);
    if (this.change('bm-explore-error', { command: 'explore', pattern: null })) this.showExploring(true);
  }

  stepCycle() {
    this.setRunning(false);
    if (!this.options.unappliedRefused()) this.send({ command: 'step-cycle' });
  }

  stepSweep() {
    this.setRunning(false);
    if (!this.options.unappliedRefused()) this.send({ command: 'advance', steps: 1 });
  }

  resetWeights() {
    if (!this.mirror) return;
    const seed = this.mirror.seed();
    this.send({ command: 'reset-weights' }).then(
      () => {
        $('bm-run-done').textContent = `Weights reset to their start (seed ${seed}); the curves start again.`;
        $('bm-run-done').hidden = false;
      },
      () => {},
    );
  }

  // The speed slider's position for `sweeps` sweeps per frame ('max': the whole frame
  // budget); throws naming the speed when there is no such step.
  speedPosition(sweeps) {
    const position = sweeps === 'max' ? SPEEDS.length - 1 : SPEEDS.slice(0, -1).indexOf(sweeps);
    if (position < 0)
      throw new Error(
        `speed: ${sweeps} sweeps per frame is not one of the speeds (${SPEEDS.slice(0, -1).join(', ')} or max)`,
      );
    return position;
  }

  // Puts the speed slider at `position` (speedPosition) and shows its label.
  setSpeedPosition(position) {
    $('bm-speed').value = String(position);
    this.showSpeed();
    if (this.running) this.setRunning(true);
  }

  // The sweeps per frame of the speed set ('max' at the top step).
  sweepsPerFrame() {
    const position = Number($('bm-speed').value);
    return position === SPEEDS.length - 1 ? 'max' : SPEEDS[position];
  }

  showSpeed() {
    const n = SPEEDS[Number($('bm-speed').value)];
    $('bm-speed-shown').textContent = n >= 16384 ? 'max (frame budget)' : `${n} sweep${n > 1 ? 's' : ''} / frame`;
  }

  nudgeSpeed(by) {
    const slider = $('bm-speed');
    slider.value = String(Math.max(0, Math.min(SPEEDS.length - 1, Number(slider.value) + by)));
    this.showSpeed();
    if (this.running) this.setRunning(true);
  }

  // F: clamped ⇄ free by hand: clamp the chosen pattern, then let the machine dream.
  togglePhase() {
    this.setRunning(false);
    // The worker's last frame, if it includes the page's last command; else the mirror, which
    // has made every command (a second press before the first one's frame came must undo it).
    const live = this.shown && this.shown.seq >= this.journal.seq ? this.shown.stats : null;
    const exploring = live ? live.exploring : this.mirror.exploring();
    const pattern = live ? live.pattern : this.mirror.pattern();
    if (exploring && pattern >= 0) this.exploreFree();
    else this.exploreNumber();
  }

  // ln Z by the four methods, worked out and timed in the worker, into the table. The results
  // are kept by method ({log_z, stderr?, bound, …}, the engine's) for the lessons' readouts
  // until the run changes. A promise that resolves once the table is filled.
  async computeLogZ() {
    const temperature = readNumber($('bm-logz-temperature').value);
    const run = this.run;
    const results = {};
    this.logZResults = { run, results };
    markLogZTable('bm-logz-table', 'bm-logz-error');
    let rows;
    try {
      rows = await this.read('log_z_all', LOG_Z_METHODS, temperature);
    } catch (err) {
      failLogZTable('bm-logz-table', 'bm-logz-error', err.message ?? String(err));
      return;
    }
    fillLogZTable('bm-logz-table', 'bm-logz-error', rows);
    for (const row of rows) if (!('error' in row)) results[row.method] = row.value;
  }

  // The ln Z results of the present run by method (computeLogZ), or {} when none.
  logZ() {
    return this.logZResults?.run === this.run ? this.logZResults.results : {};
  }

  // Says beside the run controls that the couplings were drawn from `seed`.
  showCouplings(seed) {
    $('bm-run-done').textContent =
      `Couplings drawn from N(0, 1/n) with seed ${seed}: the Sherrington–Kirkpatrick glass on these units. Dream freely to watch it, or learn from here.`;
    $('bm-run-done').hidden = false;
  }

  // The stop button follows the exploring (`on`, or the live run's when not given).
  showExploring(on = this.live?.exploring ?? this.mirror?.exploring() ?? false) {
    $('bm-explore-stop').disabled = !on;
  }

  setRunning(on) {
    this.running = on && this.mirror !== null;
    $('bm-run').textContent = this.running ? 'Pause learning' : 'Run learning';
    $('bm-run').setAttribute('aria-pressed', String(this.running));
    if (this.running) $('bm-explore-stop').disabled = true;
    if (this.link || this.running) this.worker().post({ type: 'run', on: this.running, sweeps: this.sweepsPerFrame() });
  }

  // The picture shape of the current run's visible units.
  shape() {
    return pictureShape(this.dataset, this.mirror.visible(), this.mirror.encoder_group());
  }

  // --- The session (session/record.js) -------------------------------------------------------

  // Whether anything a session keeps may have changed: the sessions the worker sent, the
  // commands since, and the runs made.
  fingerprint() {
    const run = this.mirror ? `${this.journal.fingerprint()} ${this.changes}` : 'none';
    return `${run} ${this.kind} ${this.rbm.fingerprint()}`;
  }

  // The run's session text (opaque, exact) at once, or null before the mode was first shown:
  // the worker's latest with the commands sent since replayed on a throwaway engine (every
  // change, and at most the learning since that session lost).
  session() {
    if (!this.mirror) return null;
    return this.journal.text((text) =>
      text !== null
        ? this.engine.MachineLab.from_session(text)
        : new this.engine.MachineLab('pixels-10', 'stochastic', 1),
    );
  }

  // The restricted machine's session text (rbm.js save()), or null before one was made.
  restrictedSession() {
    return this.rbm.save();
  }

  // What a machine session holds, read by a throwaway engine object: {dataset, cycles};
  // throws the engine's reason when it would not restore.
  checkSession(text) {
    const probe = this.engine.MachineLab.from_session(text);
    try {
      return { dataset: shownDataset(probe), cycles: probe.cycles() };
    } finally {
      probe.free();
    }
  }

  // Restores a session: the run continues exactly where it stopped (cycle, stage, curves).
  restoreSession(text) {
    const lab = this.engine.MachineLab.from_session(text);
    this.setRunning(false);
    this.options.show(shownOptions(lab));
    this.adopt(lab, shownDataset(lab), { command: 'restore-session', text });
    this.draw();
  }

  // A version-1 record's machine: {dataset, cycles} when it would restore.
  checkV1(m) {
    fromRecordV1(this.engine, m).free();
    return { dataset: m.dataset, cycles: Number(m.cycles) || 0 };
  }

  // Restores a version-1 record: its options and weights (its cycle count starts at 0).
  restoreV1(m) {
    const lab = fromRecordV1(this.engine, m);
    this.setRunning(false);
    this.options.show(m);
    this.adopt(lab, m.dataset);
    this.draw();
  }

  // --- Drawing -------------------------------------------------------------------------------

  // Draws the worker's last frame, once, and acknowledges it (the worker then sends the
  // next): the status line and the views; the weight-dependent views only when they came.
  draw() {
    if (this.kind === 'restricted') {
      this.rbm.draw();
      return;
    }
    if ($('machine').hidden || !this.mirror) return;
    const frame = this.shown;
    if (!frame || !this.fresh) {
      this.acknowledge();
      return;
    }
    this.fresh = false;
    const lab = this.mirror;
    const s = frame.stats;
    const { activations, clamps } = frame;
    const pattern = s.pattern;
    $('bm-cycle').textContent = String(s.cycles);
    $('bm-phase').textContent = s.phase;
    $('bm-pattern').textContent = pattern >= 0 ? `${pattern + 1} of ${lab.pattern_count()}` : 'none (free)';
    $('bm-temperature').textContent = String(s.temperature);
    $('bm-stage').textContent = s.stage;
    $('bm-stage').hidden = s.stage === '';
    if (!this.running) this.showExploring(s.exploring);
    const w = frame.weights;
    if (w) {
      const points = w.curve.kl.length;
      const kl = w.curve.kl;
      const solved = w.curve.solved;
      if (Number.isFinite(kl[points - 1])) $('bm-kl').textContent = format(kl[points - 1], 4);
      else if (s.klEstimated) {
        const ais = w.ais;
        const m = ais.cycles.length;
        $('bm-kl').textContent =
          m > 0
            ? `≈ ${format(ais.kl[m - 1], 3)} ± ${format(ais.stderr[m - 1], 3)} (AIS estimate, cycle ${ais.cycles[m - 1]})`
            : 'AIS estimate under way';
      } else $('bm-kl').textContent = 'too large to enumerate or estimate';
      $('bm-solved').textContent = Number.isFinite(solved[points - 1])
        ? `${Math.round(solved[points - 1] * lab.encoder_group())} of ${lab.encoder_group()}`
        : 'not an encoder';
    }
    const n = s.units;
    const visible = s.visible;
    const shape = this.shape();
    this.views.units.draw({ activations, clamps, visible, shape, encoder: lab.encoder_group() > 0 });
    this.views.patterns.draw({
      patterns: this.patterns,
      count: lab.pattern_count(),
      visible,
      shape,
      current: pattern,
    });
    if (w && w !== this.drawnWeights) {
      this.drawnWeights = w;
      this.drawWeights(w, n, s.klEstimated);
    }
    $('bm-graph-box').hidden = n > GRAPH_UNITS;
    if (w && n <= GRAPH_UNITS) this.views.graph.draw({ weights: w.weights, activations, clamps, visible });
    this.acknowledge();
  }

  // The AIS estimates of KL so far, as the worker last sent them: cycles, values and standard
  // errors.
  ais() {
    const w = this.shown?.weights;
    return w ? w.ais : { cycles: new Float64Array(0), kl: new Float64Array(0), stderr: new Float64Array(0) };
  }

  // The last point of the exact KL and the solved-fraction curves as the worker last sent
  // them (NaN where none).
  lastPoint() {
    const curve = this.shown?.weights?.curve;
    const n = curve ? curve.kl.length : 0;
    return { kl: n ? curve.kl[n - 1] : NaN, solved: n ? curve.solved[n - 1] : NaN };
  }

  drawWeights(w, n, klEstimated) {
    const limit = this.views.weights.draw(w.weights, n, n, { caption: 'w_ij, θ_i' });
    this.views.biases.draw(w.biases, 1, n, { limit });
    this.views.curve.draw({ cycles: w.curve.cycles, kl: w.curve.kl, solved: w.curve.solved, ais: w.ais });
    $('bm-curve-ais-key').hidden = !klEstimated;
    $('bm-curve-exact-key').hidden = klEstimated;
    let top = 1e-9;
    for (const pairs of [w.clamped, w.free]) for (const v of pairs) top = Math.max(top, Math.abs(v));
    this.views.clamped.draw(w.clamped, n, n, { limit: top, caption: '⟨s_i s_j⟩' });
    this.views.free.draw(w.free, n, n, { limit: top });
    this.views.difference.draw(w.difference, n, n, { caption: 'clamped − free' });
  }
}
