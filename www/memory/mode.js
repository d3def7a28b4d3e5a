// @ts-check
// The pattern memory mode: a Hopfield memory of pictures (the engine's MemoryLab), stored by
// Hebb's rule, Hebb + unlearning or the Boltzmann rule, cued by a corrupted pattern and
// recalled tick by tick, drawn live: the state, the overlap with every stored pattern, the
// energy trace and the name of the state reached; and the capacity curve.
//
// The live memory is in a module worker (worker.js documents the protocol; the page's side is
// www/worker_link.js): it recalls and computes the capacity curve, and posts frames in
// transferred buffers, which this page only draws. Every change is a MemoryCommand object
// (defined once in Rust: src/app/memory.rs). The page keeps a second MemoryLab, the mirror,
// which never recalls: it checks each command with the engine's own code first (a refused
// command is explained beside its control and goes no further) and holds the stored patterns
// for drawing.
//
// Nothing is lost when the page is left: the worker sends the memory's session after each
// command and at least every half second while it recalls; the page keeps the latest with the
// commands sent since (the journal), and `save()` replays them on a throwaway engine at once.

import { SessionJournal, WorkerLink } from '../worker_link.js';
import { onEngineStop, reportPanic } from '../fault.js';
import { $, PressGuard, attempt, clearError, format, readNumber, showError } from '../ui.js';
import { ImageGridView } from '../views/images.js';
import { ErrorBarPlot } from '../views/plot.js';
import { EnergyTrace, OverlapBars, greys } from './views.js';

// Amit, Gutfreund & Sompolinsky's capacity of Hebb's rule as N → ∞.
export const ALPHA_C = 0.138;
// Most energy-trace points kept (every other one is dropped when full).
const TRACE_POINTS = 4000;
// The recall speeds of the menu: ticks per frame, or 'max'.
const SPEEDS = ['1', '8', '64', '512', 'max'];

export class MemoryMode {
  constructor(engine) {
    this.engine = engine;
    this.mirror = new engine.MemoryLab(8, 8, 1); // replaced by the first memory made
    this.made = false; // a memory was made or restored (the first mirror is a placeholder)
    /** @type {WorkerLink<import('../messages').MemoryMessage, import('../messages').MemoryFrame, import('../messages').MemorySession, import('boltzlab-bindings').MemoryCommand, import('boltzlab-bindings').MemoryReply> | null} */
    this.link = null;
    // The worker's latest session and the commands sent since (worker_link.js).
    this.kept = new SessionJournal();
    this.running = false;
    this.runId = 0;
    this.asked = false; // an 'advance' is on its way and its frame not yet here
    /** @type {import('../messages').MemoryFrame | null} the worker's last frame */
    this.shown = null;
    this.fresh = false;
    this.unacknowledged = 0;
    this.trace = { ticks: [], energy: [] };
    // The capacity curve last drawn; undefined until the first frame, so that frame draws the
    // plot (its axes and α_c) even before any curve is computed.
    this.capacity = undefined;
    this.cued = 0; // the pattern last cued (its overlap is the recall's readout)
    this.pad = new Int8Array(64).fill(-1);
    // Told of every refused temperature: a press of Recall or One tick that refused the box
    // on its way neither starts recall nor ticks (see PressGuard).
    this.guard = new PressGuard();
    this.views = {
      state: new ImageGridView($('memory-state')),
      stored: new ImageGridView($('memory-stored')),
      pad: new ImageGridView($('memory-pad')),
      overlaps: new OverlapBars($('memory-overlaps')),
      energy: new EnergyTrace($('memory-energy')),
      capacity: new ErrorBarPlot($('memory-capacity'), { title: 'final overlap m after recall', xLabel: 'α = P/N' }),
    };
    this.wire();
    this.shortcuts = {
      ' ': () => this.setRunning(!this.running),
      s: () => this.step(),
      r: () => this.change({ command: 'random-state' }, 'memory-cue-error'),
    };
  }

  enter() {
    if (!this.made) {
      // The first memory: the ten digits by the Boltzmann rule (Hebb's rule cannot hold them:
      // they are too alike), digit 1 cued with a fifth of its pixels flipped.
      $('memory-rule').value = 'boltzmann';
      $('memory-cue-pattern').value = '1';
      this.create({ digits: true });
    }
    this.fresh = true;
    this.drawStatic();
  }

  leave() {
    this.setRunning(false);
  }

  fail(err) {
    this.setRunning(false);
    showError('memory-recall-error', err.message ?? String(err));
  }

  // Below the maximum speed each page frame asks the worker for its ticks (one request in
  // flight); at the maximum the worker runs by itself.
  frame() {
    if (!this.running || this.asked || !this.link) return;
    const speed = $('memory-speed').value;
    if (speed === 'max') return;
    this.asked = true;
    this.link.post({ type: 'advance', ticks: Number(speed) });
  }

  // --- The worker ----------------------------------------------------------------------------

  worker() {
    if (this.link) return this.link;
    this.link = new WorkerLink(
      new URL('./worker.js', import.meta.url),
      {},
      {
        onFrame: (frame) => this.received(frame),
        onSession: (session) => this.kept.received(session),
        onError: (message, data) => this.failed(message, data?.part),
        onFault: (message) => reportPanic(`The pattern memory's worker stopped: ${message}`),
      },
    );
    onEngineStop(() => this.link.stop());
    return this.link;
  }

  // Sends a command to the worker, numbered and journalled; a promise of its MemoryReply.
  /** @param {import('boltzlab-bindings').MemoryCommand} command @returns {Promise<import('boltzlab-bindings').MemoryReply>} */
  send(command, errorId = 'memory-recall-error') {
    const reply = this.worker().command(command, this.kept.record(command));
    reply.catch((err) => {
      if (!this.link.dead) showError(errorId, err.message ?? String(err));
    });
    return reply;
  }

  // A command as the page makes it: checked on the mirror first (a refusal is shown in
  // `errorId` and nothing changes anywhere), then sent. Returns whether it was accepted.
  /** @param {import('boltzlab-bindings').MemoryCommand} command @param {string} errorId */
  change(command, errorId) {
    const checked = ['advance', 'settle'].includes(command.command)
      ? true
      : attempt(errorId, () => this.mirror.dispatch(command));
    if (!checked) return false;
    clearError(errorId);
    if (command.command === 'cue') this.cued = command.pattern;
    this.send(command, errorId);
    this.drawStatic();
    return true;
  }

  /** @param {import('../messages').MemoryFrame} frame */
  received(frame) {
    this.asked = false;
    const keep = this.shown?.capacity;
    if (frame.capacity === undefined) frame.capacity = keep ?? null;
    this.shown = frame;
    this.fresh = true;
    this.unacknowledged += 1;
    const t = frame.trace;
    if (t.reset) this.trace = { ticks: [], energy: [] };
    this.trace.ticks.push(...t.ticks);
    this.trace.energy.push(...t.energy);
    if (this.trace.ticks.length > TRACE_POINTS)
      for (const key of ['ticks', 'energy']) this.trace[key] = this.trace[key].filter((_, i) => i % 2 === 0);
    // At T = 0 the worker stops by itself at a fixed point (for the run the page last asked).
    if (this.running && !frame.stats.running && frame.stats.run === this.runId) this.setRunning(false, false);
    if ($('memory').hidden) this.acknowledge();
  }

  acknowledge() {
    if (this.unacknowledged === 0) return;
    this.link.post({ type: 'ack', frames: this.unacknowledged });
    this.unacknowledged = 0;
  }

  failed(message, part) {
    if (part === 'recall' || part === 'protocol') this.setRunning(false);
    showError(part === 'capacity' ? 'memory-capacity-error' : 'memory-recall-error', message);
  }

  read(name, ...args) {
    return this.worker().read(name, args);
  }

  // Test only: the worker panics.
  faultWorker() {
    this.worker().post({ type: 'fault' });
  }

  // --- Making a memory -----------------------------------------------------------------------

  // A new empty memory from the size, seed and rule controls (with `digits`: the ten digits
  // stored and the pattern chosen in the cue controls cued, 20 % flipped); on any error the
  // old memory stays.
  create({ digits = false } = {}) {
    const width = readNumber($('memory-width').value);
    const height = readNumber($('memory-height').value);
    const seed = readNumber($('memory-seed').value);
    const command = { command: 'new', width, height, seed, storage: this.storage() };
    const probe = new this.engine.MemoryLab(1, 1, 0);
    try {
      probe.dispatch(command);
      if (digits && width === 8 && height === 8) {
        probe.dispatch({ command: 'add-digits' });
        probe.dispatch({ command: 'cue', pattern: readNumber($('memory-cue-pattern').value), flip: 0.2 });
      }
    } catch (err) {
      probe.free();
      showError('memory-setup-error', err.message ?? String(err));
      return false;
    }
    clearError('memory-setup-error');
    this.adopt(probe.session(), probe);
    if (digits) this.cued = readNumber($('memory-cue-pattern').value);
    return true;
  }

  // Makes the memory a session text describes (checked: `probe` holds it already, or it is
  // restored here, throwing the engine's reason with nothing changed) the one shown.
  adopt(text, probe = null) {
    let lab = probe;
    if (!lab) {
      lab = new this.engine.MemoryLab(1, 1, 0);
      try {
        lab.dispatch({ command: 'restore-session', text });
      } catch (err) {
        lab.free();
        throw err;
      }
    }
    this.setRunning(false);
    this.mirror.free();
    this.mirror = lab;
    this.made = true;
    this.cued = 0;
    this.send({ command: 'restore-session', text }, 'memory-setup-error');
    this.pad = new Int8Array(lab.width() * lab.height()).fill(-1);
    this.showControls();
    this.drawStatic();
  }

  // The menu's rule, one of the engine's names (checked when the engine decodes it).
  /** @returns {import('boltzlab-bindings').StorageChoice} */
  storage() {
    return /** @type {import('boltzlab-bindings').StorageChoice} */ ({ rule: $('memory-rule').value });
  }

  // The controls show what the mirror holds.
  showControls() {
    const m = this.mirror;
    $('memory-width').value = String(m.width());
    $('memory-height').value = String(m.height());
    $('memory-seed').value = String(m.seed());
    $('memory-rule').value = m.rule();
    $('memory-temperature').value = String(m.temperature());
    $('memory-cue-pattern').max = String(Math.max(0, m.pattern_count() - 1));
  }

  // --- The session (session/record.js) -------------------------------------------------------

  fingerprint() {
    if (!this.made) return 'none';
    return this.kept.fingerprint();
  }

  // The memory's session text now (the worker's latest with the commands since replayed on a
  // throwaway engine), or null before a memory was made.
  save() {
    if (!this.made) return null;
    return this.kept.text((latest) => {
      const probe = new this.engine.MemoryLab(1, 1, 0);
      if (latest !== null) probe.dispatch({ command: 'restore-session', text: latest });
      return probe;
    });
  }

  // What a memory session holds: {width, height, patterns, rule}; throws the engine's reason.
  checkSession(text) {
    const probe = new this.engine.MemoryLab(1, 1, 0);
    try {
      probe.dispatch({ command: 'restore-session', text });
      return { width: probe.width(), height: probe.height(), patterns: probe.pattern_count(), rule: probe.rule() };
    } finally {
      probe.free();
    }
  }

  restoreSession(text) {
    this.adopt(text);
  }

  // --- Recall --------------------------------------------------------------------------------

  // Recall on or off (`tell`: the worker is told; false when the worker stopped by itself).
  setRunning(on, tell = true) {
    this.running = on && this.made;
    if (this.running) this.runId += 1;
    $('memory-run').textContent = this.running ? 'Pause recall' : 'Recall';
    $('memory-run').setAttribute('aria-pressed', String(this.running));
    if (tell && (this.link || this.running)) {
      const speed = $('memory-speed').value;
      this.asked = false;
      this.worker().post({
        type: 'run',
        on: this.running,
        speed: speed === 'max' ? 'max' : Number(speed),
        run: this.runId,
      });
    }
  }

  step() {
    this.setRunning(false);
    this.change({ command: 'advance', ticks: 1 }, 'memory-recall-error');
  }

  setTemperature() {
    const temperature = readNumber($('memory-temperature').value);
    if (this.change({ command: 'set-temperature', temperature }, 'memory-recall-error')) return true;
    this.guard.refuse();
    $('memory-temperature').value = String(this.mirror.temperature());
    return false;
  }

  // The cue: stored pattern k corrupted by a fraction of flipped pixels or a mask.
  cue() {
    const command = this.cueCommand();
    return command !== null && this.change(command, 'memory-cue-error');
  }

  // The cue command the controls set, or null (with the reason shown) when the fraction is
  // no number.
  /** @returns {import('boltzlab-bindings').MemoryCommand | null} */
  cueCommand() {
    const pattern = readNumber($('memory-cue-pattern').value);
    const fraction = readNumber($('memory-cue-fraction').value);
    const mask = $('memory-cue-kind').value === 'mask';
    if (!Number.isFinite(fraction)) {
      // Worded as the engine words it (a decimal comma is then named by showError).
      showError(
        'memory-cue-error',
        `the ${mask ? 'mask' : 'flip'} fraction must be a number from 0 to 1, got no number`,
      );
      return null;
    }
    return { command: 'cue', pattern, flip: mask ? 0 : fraction, hide: mask ? fraction : 0 };
  }

  // Adds one random pattern, cues the chosen pattern as set, and recalls: α grows by 1/N.
  // Both are tried first on a copy of the memory (the cue may name the pattern being added):
  // a refused cue stores nothing.
  addOneAndRecall() {
    const add = /** @type {import('boltzlab-bindings').MemoryCommand} */ ({ command: 'add-random', count: 1 });
    const cue = this.cueCommand();
    if (cue === null) return;
    const probe = new this.engine.MemoryLab(1, 1, 0);
    try {
      probe.dispatch({ command: 'restore-session', text: this.mirror.session() });
      if (!attempt('memory-patterns-error', () => probe.dispatch(add))) return;
      if (!attempt('memory-cue-error', () => probe.dispatch(cue))) return;
    } finally {
      probe.free();
    }
    if (!this.change(add, 'memory-patterns-error')) return;
    if (this.change(cue, 'memory-cue-error')) this.setRunning(true);
  }

  // The capacity curve for the memory's rule, in the worker, with progress.
  startCapacity() {
    const units = readNumber($('memory-capacity-units').value);
    const runs = readNumber($('memory-capacity-runs').value);
    const starts = readNumber($('memory-capacity-starts').value);
    const whole = (name, x, lo, hi) => {
      if (!(Number.isInteger(x) && x >= lo && x <= hi))
        throw new Error(`${name} must be a whole number from ${lo} to ${hi}`);
    };
    const ok = attempt('memory-capacity-error', () => {
      whole('units N', units, 10, 2048);
      whole('runs', runs, 1, 100);
      whole('random starts', starts, 0, 1000);
    });
    if (!ok) return;
    // The last curve is gone from the readouts at once (a lesson waits for the new one), and
    // the next frame draws the empty plot.
    this.capacity = undefined;
    if (this.shown) this.shown.capacity = null;
    this.worker().post({ type: 'capacity', units, runs, starts });
  }

  // --- Drawing pad ---------------------------------------------------------------------------

  padGeometry() {
    return { count: 1, width: this.mirror.width(), height: this.mirror.height(), columns: 1 };
  }

  // The pad's pixel under a pointer event: the nearest pixel of the picture for any point on
  // the pad's element (its grey frame and border too, so that a stroke begun on the edge inks
  // the edge's pixel), or -1 off the element.
  padPixel(event) {
    /** @type {HTMLCanvasElement} */
    const canvas = this.views.pad.canvas;
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left;
    const y = event.clientY - box.top;
    if (!(x >= 0 && y >= 0 && x <= box.width && y <= box.height)) return -1;
    const { width, height } = this.padGeometry();
    // The content box (inside the CSS border) is width + 2 canvas pixels wide: a one-pixel
    // grey frame around the picture.
    const inner = (at, border, size, n) => Math.floor(((at - border) / Math.max(1, size)) * (n + 2)) - 1;
    const clamp = (v, n) => Math.min(n - 1, Math.max(0, v));
    const col = clamp(inner(x, canvas.clientLeft, canvas.clientWidth, width), width);
    const row = clamp(inner(y, canvas.clientTop, canvas.clientHeight, height), height);
    return row * width + col;
  }

  paintAt(event) {
    const pixel = this.padPixel(event);
    if (pixel < 0) return;
    this.pad[pixel] = this.paintValue;
    this.drawPad();
  }

  // Stores `pixels` (the pad's drawing unless given) as a pattern; a blank drawing is refused
  // here (it would store nothing worth recalling), one of the wrong size by the engine, which
  // names it.
  storeDrawing(pixels = this.pad) {
    const units = this.mirror.width() * this.mirror.height();
    if (pixels.length === units && Array.prototype.every.call(pixels, (s) => s <= 0)) {
      showError('memory-patterns-error', 'the pad is blank: draw something first (press on its pixels to ink them)');
      return false;
    }
    return this.change({ command: 'add-pattern', pixels: Array.from(pixels) }, 'memory-patterns-error');
  }

  wire() {
    // A new size (the window, or a lecture tile) redraws every view at it, the capacity curve
    // too (it is otherwise drawn only when it changes).
    window.addEventListener('resize', () => {
      this.fresh = this.shown !== null;
      this.capacity = undefined;
      this.draw();
      this.drawStatic();
    });
    $('memory-new').addEventListener('click', () => this.create());
    $('memory-rule').addEventListener('change', () => {
      if (this.made) this.change({ command: 'set-storage', storage: this.storage() }, 'memory-setup-error');
    });
    $('memory-add-digits').addEventListener('click', () =>
      this.change({ command: 'add-digits' }, 'memory-patterns-error'),
    );
    $('memory-add-random').addEventListener('click', () =>
      this.change(
        { command: 'add-random', count: readNumber($('memory-random-count').value) },
        'memory-patterns-error',
      ),
    );
    $('memory-add-one').addEventListener('click', () => this.addOneAndRecall());
    $('memory-clear').addEventListener('click', () => this.change({ command: 'clear' }, 'memory-patterns-error'));
    $('memory-cue').addEventListener('click', () => this.cue());
    $('memory-random-state').addEventListener('click', () =>
      this.change({ command: 'random-state' }, 'memory-cue-error'),
    );
    this.guard.onPress(
      $('memory-run'),
      () => this.setRunning(!this.running),
      () => this.running,
    );
    this.guard.onPress($('memory-step'), () => this.step());
    $('memory-temperature').addEventListener('change', () => this.setTemperature());
    $('memory-speed').addEventListener('change', () => {
      if (!SPEEDS.includes($('memory-speed').value)) $('memory-speed').value = '1';
      if (this.running) this.setRunning(true);
    });
    $('memory-capacity-run').addEventListener('click', () => this.startCapacity());
    $('memory-capacity-stop').addEventListener('click', () => this.link?.post({ type: 'capacity', stop: true }));
    $('memory-pad-store').addEventListener('click', () => this.storeDrawing());
    $('memory-pad-cue').addEventListener('click', () =>
      this.change({ command: 'set-state', pixels: Array.from(this.pad) }, 'memory-patterns-error'),
    );
    $('memory-pad-clear').addEventListener('click', () => {
      this.pad.fill(-1);
      this.drawPad();
    });
    $('memory-stored').addEventListener('click', (event) => {
      const m = this.mirror;
      const hit = this.views.stored.hit(event, {
        count: m.pattern_count(),
        width: m.width(),
        height: m.height(),
        columns: 10,
      });
      if (!hit) return;
      $('memory-cue-pattern').value = String(hit.image);
      this.cue();
    });
    const pad = $('memory-pad');
    pad.addEventListener('pointerdown', (event) => {
      const pixel = this.padPixel(event);
      if (pixel < 0) return;
      event.preventDefault();
      this.paintValue = this.pad[pixel] > 0 ? -1 : 1;
      this.painting = true;
      pad.setPointerCapture(event.pointerId);
      this.paintAt(event);
    });
    pad.addEventListener('pointermove', (event) => {
      if (this.painting) this.paintAt(event);
    });
    const stop = () => (this.painting = false);
    pad.addEventListener('pointerup', stop);
    pad.addEventListener('pointercancel', stop);
  }

  // --- Drawing -------------------------------------------------------------------------------

  drawPad() {
    const m = this.mirror;
    if (this.pad.length !== m.width() * m.height()) this.pad = new Int8Array(m.width() * m.height()).fill(-1);
    this.views.pad.draw({ values: greys(this.pad), count: 1, width: m.width(), height: m.height(), columns: 1 });
  }

  // What changes only with commands: the stored patterns and the pad.
  drawStatic() {
    if ($('memory').hidden) return;
    const m = this.mirror;
    const count = m.pattern_count();
    this.views.stored.draw({
      values: greys(m.patterns_flat()),
      count: Math.max(count, 1),
      width: m.width(),
      height: m.height(),
      columns: 10,
    });
    $('memory-cue-pattern').max = String(Math.max(0, count - 1));
    this.drawPad();
  }

  draw() {
    if (!this.shown || !this.fresh || $('memory').hidden) return;
    this.fresh = false;
    const f = this.shown;
    const s = f.stats;
    this.views.state.draw({ values: greys(f.state), count: 1, width: s.width, height: s.height, columns: 1 });
    const named = describe(s.recall);
    this.views.overlaps.draw(f.overlaps, named.index);
    this.views.energy.draw(this.trace.ticks, this.trace.energy);
    const units = s.width * s.height;
    $('memory-count').textContent = String(s.patterns);
    $('memory-units').textContent = String(units);
    $('memory-alpha').textContent = format(s.patterns / units, 3);
    $('memory-ticks').textContent = String(s.ticks);
    $('memory-energy-now').textContent = format(s.energy, 3);
    $('memory-t-now').textContent = String(s.temperature);
    $('memory-name').textContent = named.text;
    $('memory-name').dataset.kind = named.kind;
    $('memory-stable').textContent = s.stable ? 'yes' : 'no';
    $('memory-rule-now').textContent = RULE_NAMES[s.rule] ?? s.rule;
    const cap = f.capacity;
    if (cap !== this.capacity) {
      this.capacity = cap;
      this.drawCapacity(cap);
    }
    this.acknowledge();
  }

  /** @param {import('../messages').MemoryCapacity} cap */
  drawCapacity(cap) {
    const points = cap?.points ?? [];
    this.views.capacity.draw({
      x: points.map((p) => p.alpha),
      y: points.map((p) => p.mean),
      err: points.map((p) => p.stderr),
      xRange: [0, 0.3],
      marker: ALPHA_C,
    });
    /** @type {HTMLProgressElement} */ (document.getElementById('memory-capacity-progress')).value = cap
      ? cap.done / cap.total
      : 0;
    if (!cap) {
      $('memory-capacity-status').textContent = 'not run';
      return;
    }
    const near = nearest(points, SPURIOUS_ALPHA);
    const s = near?.from;
    const starts = s ? s.pattern + s.reversed + s.mixture + s.other : 0;
    const where =
      starts > 0
        ? ` At α = ${format(near.alpha, 2)} random starts ended at a stored pattern ${s.pattern}, a reversed pattern ${s.reversed}, a mixture of three ${s.mixture}, elsewhere ${s.other} (of ${starts}).`
        : '';
    $('memory-capacity-status').textContent = `${RULE_NAMES[cap.rule] ?? cap.rule}, N = ${cap.units}: ${cap.done} of ${
      cap.total
    } runs${cap.finished && cap.done < cap.total ? ' (stopped)' : ''}.${where}`;
  }
}

// Where random starts end is reported at the point nearest this α.
export const SPURIOUS_ALPHA = 0.1;

// The capacity point whose α is nearest `alpha` (undefined when there is none).
export const nearest = (points, alpha) =>
  points.reduce((best, p) => (!best || Math.abs(p.alpha - alpha) < Math.abs(best.alpha - alpha) ? p : best), undefined);

const RULE_NAMES = { hebb: 'Hebb', unlearning: 'Hebb + unlearning', boltzmann: 'Boltzmann rule' };

// The engine's name of the state (MemoryLab.recall: 'pattern k', 'reversed k', 'mixture +a
// -b +c', 'other', 'none') as a sentence: {text, kind, index: the pattern's bar to mark or −1}.
export function describe(recall) {
  const [kind, ...rest] = String(recall).split(' ');
  switch (kind) {
    case 'pattern':
      return { text: `stored pattern ${rest[0]}`, kind, index: Number(rest[0]) };
    case 'reversed':
      return { text: `pattern ${rest[0]} reversed (its mirror image)`, kind, index: Number(rest[0]) };
    case 'mixture':
      return { text: `a mixture of patterns ${rest.join(' ')} (a spurious state)`, kind, index: -1 };
    case 'none':
      return { text: 'nothing stored', kind, index: -1 };
    default:
      return { text: 'none of the stored patterns', kind: 'other', index: -1 };
  }
}
