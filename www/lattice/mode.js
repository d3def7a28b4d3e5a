// The Ising-lattice mode: wires the lattice's controls to the engine's IsingLab, advances it
// within the app's frame budget and draws its views. The engine does all the physics; this
// mode asks it to advance, reads its state through typed-array views over wasm memory, and
// hands them to the views. Every engine call of this mode is made here or in the small
// modules beside it (controls, painting, experiment, share, logz), never in a view.

import { view } from '../engine.js';
import { $, attempt, format, sentence } from '../ui.js';
import { Controls } from './controls.js';
import { Inspector } from './inspector.js';
import { Painter } from './painting.js';
import { Experiment } from './experiment.js';
import { Sharing } from './share.js';
import { LatticeLogZ } from './logz.js';
import { LatticeView, MarkerOverlay } from '../views/lattice.js';
import { TraceView } from '../views/trace.js';
import { BondView } from '../views/bonds.js';
import { HeatMapView } from '../views/heatmap.js';
import { DivergingScale, drawLegend } from '../views/colour.js';

// Largest chunk of ticks per engine call: small enough to check the budget often.
const CHUNK = 1 << 16;
// At this many ticks per frame or fewer the tick inspector follows the run.
const INSPECT_MAX = 100;
// The lattice when the page starts without a link: side, temperature, seed.
const DEFAULT = [256, 2.269, 1];

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

export class LatticeMode {
  // engine: the wasm bindings; hash: the address's fragment (a share link), or ''.
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
    this.running = true;
    this.failed = false;
    this.rateTicks = 0;
    this.rateSince = performance.now();
    this.weightsVersion = -1;
    this.plotsStale = true;
    this.chunkTicks = CHUNK;
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
    this.controls = new Controls(lab, engine, {
      onRebuild: () => this.restarted(),
      onChange: () => {
        edited();
        this.sharing.update();
      },
    });
    this.sharing = new Sharing(lab, engine, () => {
      edited();
      this.restarted();
    });
    this.painter = new Painter(lab, $('spins-box'), edited);
    let resumeAfterScan = false;
    this.experiment = new Experiment(engine, lab, (on) => {
      if (on) {
        resumeAfterScan = this.running;
        this.setRunning(false);
      } else if (resumeAfterScan) {
        resumeAfterScan = false;
        this.setRunning(true);
      }
    });
    this.logZ = new LatticeLogZ(lab);
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
    const lab = this.lab;
    $('speed').addEventListener('input', () => this.showSpeed());
    $('run').addEventListener('click', () => this.setRunning(!this.running));
    $('step-tick').addEventListener('click', () => this.stepTick());
    $('step-sweep').addEventListener('click', () => this.stepSweep());
    $('reset-random').addEventListener('click', () => this.reset('random'));
    $('reset-up').addEventListener('click', () => this.reset('up'));
    $('reset-down').addEventListener('click', () => this.reset('down'));
    $('phase-clamped').addEventListener('change', () => this.setPhase(true));
    $('phase-free').addEventListener('change', () => this.setPhase(false));
    $('release').addEventListener('click', () => {
      lab.release_all();
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

  // Runs the temperature sweep and the lattice for at most `budgetMs` each.
  frame(budgetMs, now) {
    if (this.failed) return;
    this.experiment.step(budgetMs);
    if (this.running) {
      const want = this.speed().ticks;
      if (want <= INSPECT_MAX) {
        this.advance(want, true);
      } else {
        const begin = performance.now();
        let done = 0;
        while (done < want) {
          const chunk = Math.min(this.chunkTicks, want - done);
          const t0 = performance.now();
          this.advance(chunk, false);
          done += chunk;
          // Calls of at most ~1/8 of the budget, so the budget is overrun by little
          // (slow kernels: random order, real bonds); back up to CHUNK when fast.
          const took = performance.now() - t0;
          if (took > budgetMs / 8 && this.chunkTicks > 1024) this.chunkTicks >>= 1;
          else if (took < budgetMs / 32 && this.chunkTicks < CHUNK) this.chunkTicks <<= 1;
          if (performance.now() - begin > budgetMs) break;
        }
      }
    }
    if (now - this.rateSince >= 500) {
      const rate = this.rateTicks / ((now - this.rateSince) / 1000);
      $('rate').textContent = rate < 1e4 ? String(Math.round(rate)) : rate.toExponential(2);
      this.rateTicks = 0;
      this.rateSince = now;
    }
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

  advance(ticks, explain) {
    if (explain) this.lab.advance_explained(ticks);
    else this.lab.advance(ticks);
    this.rateTicks += ticks;
  }

  stepTick() {
    this.setRunning(false);
    this.advance(1, true);
  }

  stepSweep() {
    this.setRunning(false);
    this.advance(this.lab.spin_count(), true);
  }

  reset(how) {
    this.lab.reset(how);
    this.edits += 1;
  }

  setPhase(clamped) {
    attempt('brush-error', () => this.lab.set_clamps_on(clamped));
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
  // count, the page's own edits and the parameters.
  fingerprint() {
    const lab = this.lab;
    return `${lab.lattice_version()} ${lab.ticks()} ${this.edits} ${lab.fragment()}`;
  }

  // The engine's session text of the run: opaque, compact, exact.
  session() {
    return this.lab.session();
  }

  // What a lattice session or (version-1 record) state text holds, read by a throwaway
  // engine object: {side, model, temperature, sweeps}; throws the engine's reason when it
  // would not restore.
  checkSession(text, { state = false } = {}) {
    const probe = new this.engine.IsingLab(4, 2.269, 1);
    try {
      if (state) probe.import_state(text);
      else probe.restore_session(text);
      return { side: probe.side(), model: probe.model(), temperature: probe.temperature(), sweeps: probe.sweeps() };
    } finally {
      probe.free();
    }
  }

  restoreSession(text) {
    this.lab.restore_session(text);
    this.restored();
  }

  // A version-1 record's lattice: the engine's state file.
  restoreState(json) {
    this.lab.import_state(json);
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
    if (this.failed) return;
    const lab = this.lab;
    const engine = this.engine;
    const n = lab.spin_count();
    const side = lab.side();
    this.spinsView.draw(
      view(engine, Int8Array, lab.spins_ptr(), n),
      side,
      view(engine, Uint8Array, lab.clamp_ptr(), n),
    );
    const inspecting = this.slow();
    const step = inspecting ? lab.last_step() : null;
    this.overlay.draw(side, { next: inspecting ? lab.next_site() : -1, step, brush: this.painter.cursor() });
    this.inspector.update(step, inspecting);
    const points = lab.trace_len();
    this.trace.draw(
      view(engine, Float64Array, lab.trace_sweeps_ptr(), points),
      view(engine, Float64Array, lab.trace_energy_ptr(), points),
      view(engine, Float64Array, lab.trace_magnetization_ptr(), points),
    );
    this.drawWeights();
    this.experiment.draw(this.plotsStale);
    this.plotsStale = false;
    $('sweeps').textContent = format(lab.sweeps(), 1);
    $('temperature-shown').textContent = String(lab.temperature());
    $('energy').textContent = format(lab.energy_per_spin());
    $('magnetization').textContent = format(lab.magnetization_per_spin());
    $('phase-shown').textContent = lab.clamps_on() ? `clamped (${lab.clamped_count()})` : 'free';
  }

  // The couplings on the lattice (every frame: its sites show the spins) and, when the
  // lattice changed, the weight matrix, the captions and the legend.
  drawWeights() {
    const lab = this.lab;
    const engine = this.engine;
    const version = lab.lattice_version();
    const window = lab.bond_window_side();
    const n = lab.spin_count();
    const bondValues = view(engine, Float64Array, lab.bond_window_ptr(), 2 * window * window);
    let limit = 0;
    for (const b of bondValues) if (Number.isFinite(b)) limit = Math.max(limit, Math.abs(b));
    limit = limit || 1;
    this.bonds.draw({
      bonds: bondValues,
      frustration: view(engine, Uint8Array, lab.frustration_ptr(), window * window),
      spins: view(engine, Int8Array, lab.spins_ptr(), n),
      side: lab.side(),
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
