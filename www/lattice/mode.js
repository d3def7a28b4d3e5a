// @ts-check
// The Ising-lattice mode: wires the lattice's controls to the engine's IsingLab, has it
// advanced and draws its views. The engine does all the physics; this mode asks it to
// advance and hands what it sends to the views. Every engine call of this mode is made here
// or in the small modules beside it (controls, painting, experiment, share, logz), never in
// a view.
//
// The live run is in a module worker (worker.js, through engine_link.js): it advances the
// lattice (continuously at maximum speed, one frame's ticks at a time at the others) and
// sends frames (spins, clamps, counters, trace, the explained tick), which are drawn. The
// page keeps a second IsingLab of its own, the mirror. Every change is a command (a
// LatticeCommand object, defined once in Rust: src/app/lattice/command.rs) made through
// IsingLab.dispatch: first on the mirror, which checks it with the engine's own code (a
// refused command is explained at once and goes no further), then the same object in the
// worker. The mirror therefore always holds the same parameters; while the run is paused it
// holds the same state too (after a run it is brought up to date from the worker's session
// and the commands made since, and paused steps are commands too), so a paused page exports,
// saves and sweeps from it at once.
//
// Nothing is lost when the page is left: while the run goes on the worker sends its session
// every quarter second or so, and the page keeps the latest with the commands it made since
// (the journal); `sessionNow()` replays them on a throwaway engine at once, so the save on
// leaving has every edit and at most about a quarter second (and the text's way to the page)
// less of the run.

import { view } from '../engine.js';
import { $ as byId, attempt, format, sentence, setText } from '../ui.js';
import { Controls } from './controls.js';
import { Inspector } from './inspector.js';
import { Painter } from './painting.js';
import { Experiment } from './experiment.js';
import { Sharing } from './share.js';
import { LatticeLogZ } from './logz.js';
import { EngineLink } from './engine_link.js';
import { onEngineStop, reportPanic } from '../fault.js';
import { LatticeView, MarkerOverlay } from '../views/lattice.js';
import { TraceView } from '../views/trace.js';
import { BondView } from '../views/bonds.js';
import { HeatMapView } from '../views/heatmap.js';
import { DivergingScale, drawLegend } from '../views/colour.js';

// The page's form controls by id, typed as inputs and selects alike (value, min, max,
// options, checked) for the type checker.
const $ = (id) => /** @type {HTMLInputElement & HTMLSelectElement} */ (byId(id));

// At this many ticks per frame or fewer the tick inspector follows the run.
const INSPECT_MAX = 100;
// The lattice when the page starts without a link: side, temperature, seed.
/** @type {[number, number, number]} */
const DEFAULT = [256, 2.269, 1];
// For the test hook only (hook, below): the readings the mirror answers at any time, because
// every command reaches it (the others come from the worker, as promises, unless the mirror
// holds the run). A name missing here is answered by the worker: later, never wrong.
const MIRROR_READS = new Set([
  'temperature',
  'field',
  'model',
  'dynamics',
  'order',
  'boundary',
  'seed',
  'side',
  'spin_count',
  'fragment',
  'clamps_on',
  'bond_window_side',
  'frustrated_count',
  'matrix_units',
  'lattice_log_z',
]);
// Paused for this many journal entries, the page keeps the mirror's session instead of the
// worker's (while paused the mirror holds the run), so the journal stays short.
const JOURNAL_MAX = 256;

// The transferred buffers a frame holds (no clamp mask when nothing is clamped).
const buffersOf = (frame) => (frame.clamps ? [frame.spins.buffer, frame.clamps.buffer] : [frame.spins.buffer]);

// Speed steps: ticks per frame. Infinity runs whole chunks until the frame budget is spent.
function speedSteps(n) {
  return [
    { ticks: 1, label: '1 tick / frame' },
    { ticks: 10, label: '10 ticks / frame' },
    { ticks: 100, label: '100 ticks / frame' },
    { ticks: 1000, label: '1000 ticks / frame' },
    { ticks: 10000, label: '10⁴ ticks / frame' },
    { ticks: n, label: '1 sweep / frame' },
    { ticks: 4 * n, label: '4 sweeps / frame' },
    { ticks: 16 * n, label: '16 sweeps / frame' },
    { ticks: Infinity, label: 'max (frame budget)' },
  ];
}

/** @typedef {import('boltzlab-bindings').IsingLab} IsingLab */
/** @typedef {import('boltzlab-bindings').LatticeCommand} LatticeCommand */
/** @typedef {import('boltzlab-bindings').LatticeReply} LatticeReply */

export class LatticeMode {
  // engine: the wasm bindings; hash: the address's fragment (a share link), or ''.
  /**
   * @param {typeof import('boltzlab-bindings')} engine
   * @param {string} hash
   */
  constructor(engine, hash) {
    this.engine = engine;
    this.linkError = null;
    try {
      this.lab = hash.length > 1 ? engine.IsingLab.from_fragment(hash) : new engine.IsingLab(...DEFAULT);
    } catch (err) {
      this.linkError = err.message;
      this.lab = new engine.IsingLab(...DEFAULT);
    }
    const lab = this.lab;
    // The worker and its frames; the mirror's state: 'synced' (it holds the run) or
    // 'running' (the worker is ahead) or 'syncing' (its session is on the way).
    /** @type {import('../messages').LatticeFrame | null} */
    this.frameData = null;
    this.fresh = false;
    this.spare = [];
    this.awaiting = false;
    this.sentMax = false;
    this.mirror = 'synced';
    this.seq = 0; // the page's changes sent to the worker, numbered
    this.work = 0; // how often the worker was set running (a sync is current if none since)
    this.syncWaiters = [];
    // The worker's latest session ({text, seq: the last change in it}) and the commands sent
    // since ([{seq, command}]): together, the run as the page can save it at any moment.
    this.latest = { text: lab.session(), seq: 0 };
    this.journal = [];
    this.link = new EngineLink(this.latest.text, {
      onFrame: (frame) => this.received(frame),
      onSession: (kept) => this.kept(kept),
      onError: (message, data) =>
        data?.part === 'scan' ? this.experiment.failed(message) : this.fail(new Error(message)),
      onFault: (message) => reportPanic(`The engine's worker stopped: ${message}`),
    });
    onEngineStop(() => this.link.stop());
    // What the controls, painting and sharing hold: the mirror, whose `dispatch` makes a
    // command on the mirror and then in the worker (`change`).
    /** @type {IsingLab} */
    this.facade = new Proxy(lab, {
      get: (target, name) => {
        if (name === 'dispatch') return (command) => this.change(command);
        const value = target[name];
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    this.running = true;
    this.failed = false;
    this.rateTicks = 0;
    this.rateSince = performance.now();
    this.weightsVersion = -1;
    this.plotsStale = true;
    // Changes made from the page (painting, resets, controls): with the engine's counters
    // they tell the session whether anything changed since it was last kept.
    this.edits = 0;
    this.steps = speedSteps(lab.spin_count());

    this.spinsView = new LatticeView($('spins'));
    this.overlay = new MarkerOverlay($('spins-overlay'));
    this.trace = new TraceView($('trace'));
    const scale = new DivergingScale();
    this.scale = scale;
    this.bonds = new BondView($('bonds'), scale);
    this.matrix = new HeatMapView($('matrix'), null, scale);
    this.inspector = new Inspector();

    const edited = () => (this.edits += 1);
    this.controls = new Controls(this.facade, engine, {
      onRebuild: () => this.restarted(),
      onChange: () => {
        edited();
        this.sharing.update();
      },
    });
    this.sharing = new Sharing(
      this.facade,
      engine,
      () => {
        edited();
        this.restarted();
      },
      (method) => this.read(method),
    );
    this.painter = new Painter(this.facade, $('spins-box'), edited);
    // The sweep runs in the worker, on a copy of the live lattice as it is when it starts: the
    // run pauses, and goes on after it. Its commands change nothing of the run
    // (LatticeCommand::changes_run): the mirror and the journal never see them.
    let resumeAfterScan = false;
    const scanWorker = {
      command: (command) => this.link.command(command, this.seq),
      read: (name) => this.read(name),
    };
    this.experiment = new Experiment(engine, scanWorker, (on) => {
      if (on) {
        resumeAfterScan = this.running;
        this.setRunning(false);
      } else if (resumeAfterScan) {
        resumeAfterScan = false;
        this.setRunning(true);
      }
    });
    this.logZ = new LatticeLogZ(
      () => this.session(),
      () => this.lab.fragment(),
    );
    // The page's edits when the ln Z table last checked whether it is still this lattice's.
    this.logZEdits = this.edits;
    this.wire();
    // The keyboard shortcuts of this mode (keys.js).
    this.shortcuts = {
      ' ': () => this.setRunning(!this.running),
      s: () => this.stepTick(),
      S: () => this.stepSweep(),
      r: () => this.reset('random'),
      u: () => this.reset('up'),
      d: () => this.reset('down'),
      f: () => this.setPhase(!lab.clamps_on()),
      '+': () => this.nudgeSpeed(1),
      '=': () => this.nudgeSpeed(1),
      '-': () => this.nudgeSpeed(-1),
    };

    if (this.linkError) {
      $('link-error').textContent =
        `This link could not be used, so the page started with its defaults. ${sentence(this.linkError)}`;
      $('link-error').hidden = false;
    }
    this.showSpeed();
    this.restarted();
  }

  wire() {
    $('speed').addEventListener('input', () => this.showSpeed());
    // A press that refused the value of the box it left does not start or step the run
    // (pausing a running lattice still pauses).
    const guard = this.controls.guard;
    guard.onPress(
      $('run'),
      () => this.setRunning(!this.running),
      () => this.running,
    );
    guard.onPress($('step-tick'), () => this.stepTick());
    guard.onPress($('step-sweep'), () => this.stepSweep());
    $('reset-random').addEventListener('click', () => this.reset('random'));
    $('reset-up').addEventListener('click', () => this.reset('up'));
    $('reset-down').addEventListener('click', () => this.reset('down'));
    $('phase-clamped').addEventListener('change', () => this.setPhase(true));
    $('phase-free').addEventListener('change', () => this.setPhase(false));
    $('release').addEventListener('click', () => {
      this.change({ command: 'release-all' });
      this.edits += 1;
    });
    // A new size or colour scheme: everything is drawn again at the next frame it is shown.
    const redrawAll = () => {
      this.weightsVersion = -1;
      this.plotsStale = true;
    };
    window.addEventListener('resize', redrawAll);
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', redrawAll);
  }

  // --- The mode's interface to the app -----------------------------------------------------

  enter() {
    this.weightsVersion = -1;
    this.plotsStale = true;
    this.draw();
  }

  // Leaving the lattice pauses it (a running temperature sweep waits until it is shown).
  leave() {
    this.setRunning(false);
  }

  // Tells the worker how to run: at maximum speed continuously, at the others one frame's
  // ticks once the last frame came (the temperature sweep runs there too, on its own).
  frame(_budgetMs, now) {
    if (this.failed) return;
    const want = this.running ? this.speed().ticks : 0;
    const max = want === Infinity;
    if (max !== this.sentMax) {
      this.sentMax = max;
      this.link.post({ type: 'run', max });
    }
    if (max) this.working();
    else if (want > 0 && !this.awaiting) {
      this.awaiting = true;
      this.working();
      this.link.post({ type: 'advance', ticks: want, explain: want <= INSPECT_MAX });
    }
    if (now - this.rateSince >= 500) {
      const rate = this.rateTicks / ((now - this.rateSince) / 1000);
      setText('rate', rate < 1e4 ? String(Math.round(rate)) : rate.toExponential(2));
      this.rateTicks = 0;
      this.rateSince = now;
    }
  }

  // A frame from the worker: drawn at the next animation frame; the one it replaces gives
  // its buffers back. Every frame is acknowledged once: one from before the page's last
  // change at once (it is not shown), one replaced before it was drawn at once (after a
  // change the worker sends a second frame without waiting), a drawn one when drawn.
  /** @param {import('../messages').LatticeFrame} frame */
  received(frame) {
    // The sweep's part, even of a frame not shown (its result rows come once).
    if (frame.scan) this.experiment.received(frame.scan);
    this.awaiting = false;
    this.rateTicks += frame.ticksDone;
    const ack = (buffers) => this.link.post({ type: 'ack', buffers }, buffers);
    if (frame.seq < this.seq) {
      ack(buffersOf(frame));
      return;
    }
    if (this.frameData) this.spare.push(...buffersOf(this.frameData));
    if (this.fresh) ack(this.spare.splice(0));
    this.frameData = frame;
    this.fresh = true;
  }

  // A frame that threw: the run stops, with the reason in the page's alert.
  fail(err) {
    this.failed = true;
    this.setRunning(false);
    $('alert').textContent = `The simulation stopped: ${err.message}`;
    $('alert').hidden = false;
  }

  // --- The run -------------------------------------------------------------------------------

  speed() {
    const steps = this.steps;
    return steps[Math.min(steps.length - 1, Math.max(0, Math.round(Number($('speed').value)) || 0))];
  }

  showSpeed() {
    $('speed-shown').textContent = this.speed().label;
  }

  setRunning(on) {
    if (!on && this.running) this.sync();
    this.running = on;
    $('run').textContent = on ? 'Pause' : 'Run';
    $('run').setAttribute('aria-pressed', String(on));
  }

  slow() {
    return !this.running || this.speed().ticks <= INSPECT_MAX;
  }

  // After the run was started afresh (size, seed, link, import, restore): new sizes.
  restarted() {
    this.steps = speedSteps(this.lab.spin_count());
    this.showSpeed();
    this.controls.sync();
    this.sharing.update();
  }

  // --- The mirror and the worker -------------------------------------------------------------

  // A change (a LatticeCommand object): made on the mirror, which checks it (an error is
  // thrown to the caller and nothing else happens), then in the worker. Returns the mirror's
  // LatticeReply.
  /** @param {LatticeCommand} command @returns {LatticeReply} */
  change(command) {
    const reply = this.lab.dispatch(command);
    this.send(command);
    return reply;
  }

  // Sends a command to the worker, numbered, and keeps it in the journal until a session of
  // the worker includes it. A promise of the worker's reply.
  /** @param {LatticeCommand} command @returns {Promise<LatticeReply>} */
  send(command) {
    const seq = ++this.seq;
    this.journal.push({ seq, command });
    if (this.mirror === 'synced' && this.journal.length > JOURNAL_MAX) this.kept({ text: this.lab.session(), seq });
    const reply = this.link.command(command, seq);
    reply.catch((err) => this.failLate(err));
    return reply;
  }

  // A session of the run with the number of the last change it includes: the latest, if it
  // is; the journal then keeps only the commands after it.
  /** @param {import('../messages').KeptSession} session */
  kept({ text, seq }) {
    if (seq < this.latest.seq) return;
    this.latest = { text, seq };
    const after = this.journal.findIndex((entry) => entry.seq > seq);
    this.journal.splice(0, after < 0 ? this.journal.length : after);
  }

  // Paused steps: a command, in the worker, and on the mirror when it holds the run (else the
  // mirror's next sync replays it from the journal). A promise of the worker's reply.
  step(ticks) {
    /** @type {LatticeCommand} */
    const command = { command: 'advance', ticks, explain: true };
    if (this.mirror === 'synced') this.lab.dispatch(command);
    return this.send(command);
  }

  // Brings the mirror up to date with the worker after a run: the worker's session (which
  // continues exactly), then the commands made since.
  sync() {
    if (this.mirror !== 'running') return;
    if (this.sentMax) {
      this.sentMax = false;
      this.link.post({ type: 'run', max: false });
    }
    this.mirror = 'syncing';
    const at = this.work;
    this.link
      .read('timed_session')
      .then((session) => {
        this.kept(session);
        this.lab.dispatch({ command: 'restore-session', text: this.latest.text });
        for (const { command } of this.journal) this.lab.dispatch(command);
        if (this.work !== at) {
          // The run went on meanwhile: the mirror is behind again.
          this.mirror = 'running';
          if (!this.running) this.sync();
          return;
        }
        this.mirror = 'synced';
        for (const resolve of this.syncWaiters.splice(0)) resolve();
      })
      .catch((err) => this.failLate(err));
  }

  // The worker is about to run ahead of the mirror.
  working() {
    this.work += 1;
    if (this.mirror === 'synced') this.mirror = 'running';
  }

  // Resolves once the mirror holds the run (without pausing it).
  settled() {
    if (this.mirror === 'synced') return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  // A value from the worker (an IsingLab getter, or 'spins', 'clamps'): a promise.
  read(name, args = []) {
    return this.link.read(name, args);
  }

  // The worker refused what the mirror accepted, or stopped: shown, never lost.
  failLate(err) {
    if (this.link.dead) return; // the fault overlay says so
    this.fail(err);
  }

  // For the test hooks (app.js): `dispatch(command)` as the page makes it; `advance(ticks)`,
  // `advance_explained(ticks)` (paused steps) and `apply_fragment(fragment)` as the commands
  // they name; any reading answered as the page would, by the mirror when it holds the answer,
  // else by the worker (a promise).
  hook(name, args) {
    const mirror = /** @type {any} */ (this.lab); // read by name
    if (name === 'dispatch') return this.change(args[0]);
    if (name === 'apply_fragment') return this.change({ command: 'apply-fragment', fragment: args[0] });
    if (name === 'advance' || name === 'advance_explained') {
      if (this.running) return Promise.reject(new Error('pause the run first'));
      return this.step(args[0]);
    }
    if (name.endsWith('_ptr')) {
      if (this.mirror !== 'synced') throw new Error('the mirror is not up to date: await boltzlabSettled() first');
      return mirror[name](...args);
    }
    if (MIRROR_READS.has(name)) return mirror[name](...args);
    return this.read(name, args);
  }

  // Test only: the worker panics (`trap`: its engine stops with a wasm trap instead).
  faultWorker({ trap = false } = {}) {
    this.link.post({ type: 'fault', trap });
  }

  stepTick() {
    this.setRunning(false);
    this.step(1);
  }

  stepSweep() {
    this.setRunning(false);
    this.step(this.lab.spin_count());
  }

  reset(how) {
    this.change({ command: 'reset', to: how });
    this.edits += 1;
  }

  setPhase(clamped) {
    attempt('brush-error', () => this.change({ command: 'set-clamps-on', on: clamped }));
    this.edits += 1;
    this.controls.sync();
  }

  nudgeSpeed(by) {
    const slider = $('speed');
    slider.value = String(Math.max(0, Math.min(Number(slider.max), Number(slider.value) + by)));
    this.showSpeed();
  }

  // Sets up a lattice as a lesson asks, through the same checked setters as the controls,
  // and runs it.
  setUp({ model, size, temperature }) {
    this.controls.setModel(model);
    this.controls.setSize(size);
    this.controls.setTemperature(temperature);
    this.setRunning(true);
  }

  // --- The session (session/record.js) -------------------------------------------------------

  // Whether anything a session keeps may have changed: the engine's lattice version and tick
  // count (as the worker last sent them), the page's own edits and the parameters.
  fingerprint() {
    const stats = this.frameData?.stats;
    return `${stats?.version} ${stats?.ticks} ${this.edits} ${this.lab.fragment()} ${this.mirror}`;
  }

  // The engine's session text of the run (opaque, compact, exact), packed by the worker:
  // a promise of {text, ms (the worker's packing time)}.
  session() {
    return this.link.read('timed_session').then((session) => {
      this.kept(session);
      return session;
    });
  }

  // The same run's session text at once, for the last save as the page is left (which cannot
  // wait for the worker): the mirror's when it holds the run, else the worker's latest session
  // with the commands made since replayed on a throwaway engine (every edit, and at most the
  // run since that session lost). Null only if that engine cannot read the session.
  sessionNow() {
    if (this.mirror === 'synced') return this.lab.session();
    const probe = new this.engine.IsingLab(4, 2.269, 1);
    try {
      probe.dispatch({ command: 'restore-session', text: this.latest.text });
      for (const { command } of this.journal) {
        try {
          probe.dispatch(command);
        } catch {
          // Refused on this state (a clamp stroke under Wolff dynamics, say): the worker
          // refused it too.
        }
      }
      return probe.session();
    } catch {
      return null;
    } finally {
      probe.free();
    }
  }

  // What a lattice session or (version-1 record) state text holds, read by a throwaway
  // engine object: {side, model, temperature, sweeps}; throws the engine's reason when it
  // would not restore.
  checkSession(text, { state = false } = {}) {
    const probe = new this.engine.IsingLab(4, 2.269, 1);
    try {
      probe.dispatch(state ? { command: 'import-state', json: text } : { command: 'restore-session', text });
      return { side: probe.side(), model: probe.model(), temperature: probe.temperature(), sweeps: probe.sweeps() };
    } finally {
      probe.free();
    }
  }

  restoreSession(text) {
    this.change({ command: 'restore-session', text });
    this.restored();
  }

  // A version-1 record's lattice: the engine's state file.
  restoreState(json) {
    this.change({ command: 'import-state', json });
    this.restored();
  }

  // A restored run starts paused, exactly where it was saved.
  restored() {
    this.edits += 1;
    this.setRunning(false);
    this.restarted();
  }

  // --- Drawing -------------------------------------------------------------------------------

  draw() {
    if (this.failed || !this.frameData) return;
    const lab = this.lab;
    const frame = this.frameData;
    const stats = frame.stats;
    const side = frame.side;
    // Without clamps the worker sends no mask (1 MB less to copy and read at 1024²).
    this.spinsView.draw(frame.spins, side, frame.clamps);
    const inspecting = this.slow();
    const step = inspecting ? stats.lastStep : null;
    this.overlay.draw(side, { next: inspecting ? stats.nextSite : -1, step, brush: this.painter.cursor() });
    this.inspector.update(step, inspecting);
    this.trace.draw(frame.trace.sweeps, frame.trace.energy, frame.trace.magnetization);
    if (this.logZEdits !== this.edits) {
      this.logZEdits = this.edits;
      this.logZ.check();
    }
    this.drawWeights(frame);
    this.experiment.draw(this.plotsStale);
    this.plotsStale = false;
    // Written only when they change (setText): each write costs the page a layout and a paint.
    setText('sweeps', format(stats.sweeps, 1));
    setText('temperature-shown', String(lab.temperature()));
    setText('energy', format(stats.energy));
    setText('magnetization', format(stats.magnetization));
    setText('phase-shown', lab.clamps_on() ? `clamped (${stats.clampedCount})` : 'free');
    if (this.fresh) {
      this.fresh = false;
      const buffers = this.spare.splice(0);
      this.link.post({ type: 'ack', buffers }, buffers);
    }
  }

  // The couplings on the lattice (every frame: its sites show the spins) and, when the
  // lattice changed, the weight matrix, the captions and the legend.
  /** @param {import('../messages').LatticeFrame} frame */
  drawWeights(frame) {
    const lab = this.lab;
    const engine = this.engine;
    const version = lab.lattice_version();
    const window = lab.bond_window_side();
    const bondValues = view(engine, Float64Array, lab.bond_window_ptr(), 2 * window * window);
    let limit = 0;
    for (const b of bondValues) if (Number.isFinite(b)) limit = Math.max(limit, Math.abs(b));
    limit = limit || 1;
    this.bonds.draw({
      bonds: bondValues,
      frustration: view(engine, Uint8Array, lab.frustration_ptr(), window * window),
      spins: frame.spins,
      side: frame.side,
      window,
      limit,
      version,
    });
    if (version === this.weightsVersion) return;
    this.weightsVersion = version;
    const side = lab.side();
    const frustrated = lab.frustrated_count();
    $('bonds-caption').textContent =
      `${window < side ? `Top-left ${window} × ${window} of the ${side} × ${side} lattice. ` : ''}` +
      'Grey dots are spins; the coloured links between them are the couplings J·c (blue: ferromagnetic, red: antiferromagnetic). ' +
      `Yellow squares are frustrated plaquettes, where no state satisfies all four bonds: ${frustrated} on this lattice.`;
    const units = lab.matrix_units();
    $('matrix-box').hidden = units === 0;
    if (units > 0) {
      this.matrix.draw(view(engine, Float64Array, lab.matrix_ptr(), units * units), units, units, { limit });
      $('matrix-caption').textContent =
        `The same lattice as a network: its ${units} × ${units} weight matrix w_ij (row i, column j; site i = x + L·y).`;
    }
    drawLegend($('weights-legend'), this.scale, limit, 'coupling J·c');
  }
}

// --- Scene hook: what lattice/scene.js (lessons, teacher links) asks of this mode ---------------
// Kept in this one block, apart from the worker link above, so that either may change alone:
// the speed by its number of ticks (never by the slider's label), and the run's numbers.

// The speed slider's position that runs `ticks` ticks per frame (Infinity: maximum speed) on
// a lattice of `spins` spins; throws an error naming the speed when there is no such step.
export function speedPosition(ticks, spins) {
  const steps = speedSteps(spins);
  const position = steps.findIndex((step) => step.ticks === ticks);
  if (position < 0)
    throw new Error(
      `speed: ${ticks} ticks per frame is not one of the speeds (${steps.map((step) => step.label).join(', ')})`,
    );
  return position;
}

// Puts the speed slider at `position` (speedPosition) and shows its label, as the + and − keys
// do.
LatticeMode.prototype.setSpeedPosition = function (position) {
  $('speed').value = String(position);
  this.showSpeed();
};

// The run as the page holds it, as numbers: the parameters from the mirror (every change
// reaches it) and the counters and observables of the last frame the worker sent (NaN before
// the first): {temperature, field, clampsOn, running, ticksPerFrame, sweeps, energy (E/N),
// magnetization (M/N), clampedCount}.
LatticeMode.prototype.sceneState = function () {
  const stats = this.frameData?.stats;
  return {
    temperature: this.lab.temperature(),
    field: this.lab.field(),
    clampsOn: this.lab.clamps_on(),
    running: this.running,
    ticksPerFrame: this.speed().ticks,
    sweeps: stats?.sweeps ?? NaN,
    energy: stats?.energy ?? NaN,
    magnetization: stats?.magnetization ?? NaN,
    clampedCount: stats?.clampedCount ?? NaN,
  };
};
// --- End of the scene hook ----------------------------------------------------------------------
