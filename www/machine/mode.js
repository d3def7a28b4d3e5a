// The Boltzmann-machine mode: a learning run of the engine's MachineLab, drawn live. The
// engine learns; this mode asks it to advance within the app's frame budget and hands the
// views typed-array views over wasm memory (units, training patterns, connections, weights,
// correlations, learning curve). Every engine call of this mode is made here or in the
// small modules beside it (options, editor, gallery, files), never in a view.

import { view } from '../engine.js';
import { $, attempt, format, readNumber, showError } from '../ui.js';
import { HeatMapView } from '../views/heatmap.js';
import { DivergingScale } from '../views/colour.js';
import { UnitFill, UnitsView, pictureShape } from '../views/units.js';
import { PatternsView } from '../views/patterns.js';
import { NetworkGraphView } from '../views/graph.js';
import { LearningCurveView } from '../views/curves.js';
import { fillLogZTable } from '../views/logz_table.js';
import { MachineOptions } from './options.js';
import { PatternEditor } from './editor.js';
import { Gallery } from './gallery.js';
import { NetworkFiles } from './files.js';
import { fromRecordV1, shownDataset, shownOptions } from './snapshot.js';
import { RbmMode } from './rbm.js';

// Speed steps: sweeps (stochastic) or mean-field solves per frame.
const SPEEDS = [1, 4, 16, 64, 256, 1024, 16384];
// Sweeps per engine call while learning: small enough to check the budget often.
const CHUNK_SWEEPS = 64;
// Graphs are drawn for at most this many units.
const GRAPH_UNITS = 40;

export class MachineMode {
  constructor(engine) {
    this.engine = engine;
    this.lab = null; // built when the mode is first shown (or a session restored)
    this.running = false;
    this.drawnVersion = -1;
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
    this.wire();
    // The keyboard shortcuts of this mode (keys.js): the shown machine's.
    this.fullShortcuts = {
      ' ': () => this.setRunning(!this.running),
      s: () => this.stepCycle(),
      S: () => this.stepSweep(),
      f: () => this.togglePhase(),
      r: () => this.resetWeights(),
      '+': () => this.nudgeSpeed(1),
      '=': () => this.nudgeSpeed(1),
      '-': () => this.nudgeSpeed(-1),
    };
  }

  get shortcuts() {
    return this.kind === 'restricted' ? this.rbm.shortcuts : this.fullShortcuts;
  }

  // --- The mode's interface to the app -----------------------------------------------------

  enter() {
    if (!this.lab) this.create();
    this.drawnVersion = -1;
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
      element.hidden = restricted;
    $('rbm').hidden = !restricted;
    if (restricted) {
      this.setRunning(false);
      this.rbm.enter();
    } else {
      this.rbm.leave();
      this.drawnVersion = -1;
    }
    this.draw();
  }

  // Learns for at most `budgetMs` of this frame, then spends what is left of it (at least one
  // chunk) on the AIS estimate of KL.
  frame(budgetMs) {
    if (this.kind === 'restricted') {
      this.rbm.frame(budgetMs);
      return;
    }
    const lab = this.lab;
    const start = performance.now();
    if (!this.running && lab.exploring()) {
      attempt('bm-explore-error', () => lab.explore_sweeps(1));
    }
    if (this.running) {
      $('bm-explore-stop').disabled = true;
      const target = SPEEDS[Number($('bm-speed').value)];
      let done = 0;
      while (done < target && performance.now() - start < budgetMs) {
        const chunk = Math.min(target - done, CHUNK_SWEEPS);
        if (!this.learn(() => lab.advance(chunk))) break;
        done += chunk;
      }
    }
    let first = true;
    while (lab.estimating() && (first || performance.now() - start < budgetMs)) {
      first = false;
      if (!attempt('bm-run-error', () => lab.estimate_step(1))) break;
    }
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

  // --- The run -------------------------------------------------------------------------------

  // A new run from the dataset, method and seed controls; on error nothing changes.
  create() {
    const dataset = $('bm-dataset').value;
    const method = $('bm-method').value;
    const seed = readNumber($('bm-seed').value);
    const errorId = dataset === 'custom' ? 'bm-editor-error' : 'bm-dataset-error';
    let next = null;
    const ok = attempt(errorId, () => {
      next =
        dataset === 'custom'
          ? this.engine.MachineLab.custom($('bm-patterns-text').value, readNumber($('bm-hidden').value), method, seed)
          : new this.engine.MachineLab(dataset, method, seed);
    });
    if (!ok) return false;
    this.adopt(next, dataset);
    $('bm-run-done').hidden = true;
    this.draw();
    return true;
  }

  // Makes `lab` (a MachineLab of dataset `name`) the mode's run, freeing the one before.
  adopt(lab, name) {
    this.options.clearErrors();
    if (this.lab) this.lab.free();
    this.lab = lab;
    this.dataset = name;
    this.patterns = lab.patterns_flat();
    $('bm-noise').hidden = !(lab.encoder_group() > 0 && lab.encoder_group() < 40);
    this.options.sync();
    this.editor.reset(lab.visible());
    $('bm-logz-temperature').value = String(lab.temperature());
    this.drawnVersion = -1;
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
      radio.addEventListener('change', () => this.showKind(radio.value));
    $('bm-run').addEventListener('click', () => this.setRunning(!this.running));
    $('bm-step').addEventListener('click', () => this.stepCycle());
    $('bm-step-sweep').addEventListener('click', () => this.stepSweep());
    $('bm-reset').addEventListener('click', () => this.resetWeights());
    $('bm-speed').addEventListener('input', () => this.showSpeed());
    this.showSpeed();
    $('bm-logz-run').addEventListener('click', () => this.computeLogZ());
    $('bm-explore-clamped').addEventListener('click', () => {
      this.setRunning(false);
      attempt('bm-explore-error', () => this.lab.explore_number(readNumber($('bm-explore-pattern').value)));
      this.showExploring();
    });
    $('bm-explore-free').addEventListener('click', () => {
      this.setRunning(false);
      attempt('bm-explore-error', () => this.lab.explore(-1));
      this.showExploring();
    });
    $('bm-explore-stop').addEventListener('click', () => {
      this.lab.stop_exploring();
      this.showExploring();
    });
    window.addEventListener('resize', () => {
      this.drawnVersion = -1;
      this.draw();
    });
  }

  // A learning step failed (the engine refuses, or learning diverged): stop the run and
  // say why next to the run controls; the weights shown stay those of the last good step.
  learn(action) {
    const ok = attempt('bm-run-error', action);
    if (!ok) this.setRunning(false);
    return ok;
  }

  stepCycle() {
    this.setRunning(false);
    this.learn(() => this.lab.step_cycle());
    this.draw();
  }

  stepSweep() {
    this.setRunning(false);
    this.learn(() => this.lab.advance(1));
    this.draw();
  }

  resetWeights() {
    if (this.learn(() => this.lab.reset_weights())) {
      $('bm-run-done').textContent = `Weights reset to their start (seed ${this.lab.seed()}); the curves start again.`;
      $('bm-run-done').hidden = false;
    }
    this.draw();
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
  }

  // F: clamped ⇄ free by hand: clamp the chosen pattern, then let the machine dream.
  togglePhase() {
    this.setRunning(false);
    const lab = this.lab;
    const dreaming = lab.exploring() && lab.pattern() < 0;
    if (lab.exploring() && !dreaming) attempt('bm-explore-error', () => lab.explore(-1));
    else attempt('bm-explore-error', () => lab.explore_number(readNumber($('bm-explore-pattern').value)));
    this.showExploring();
  }

  // ln Z by the four methods, each timed by the table.
  // The results are kept by method ({log_z, stderr?, bound, …}, the engine's) for the
  // lessons' readouts until the run changes.
  computeLogZ() {
    const temperature = readNumber($('bm-logz-temperature').value);
    const lab = this.lab;
    const results = {};
    this.logZResults = { lab, results };
    fillLogZTable('bm-logz-table', 'bm-logz-error', (method) => (results[method] = lab.log_z(method, temperature)));
  }

  // The ln Z results of the present run by method (computeLogZ), or {} when none.
  logZ() {
    return this.logZResults?.lab === this.lab ? this.logZResults.results : {};
  }

  // Says beside the run controls that the couplings were drawn from `seed`.
  showCouplings(seed) {
    $('bm-run-done').textContent =
      `Couplings drawn from N(0, 1/n) with seed ${seed}: the Sherrington–Kirkpatrick glass on these units. Dream freely to watch it, or learn from here.`;
    $('bm-run-done').hidden = false;
  }

  showExploring() {
    $('bm-explore-stop').disabled = !this.lab.exploring();
    this.draw();
  }

  setRunning(on) {
    this.running = on;
    $('bm-run').textContent = on ? 'Pause learning' : 'Run learning';
    $('bm-run').setAttribute('aria-pressed', String(on));
  }

  // The picture shape of the current run's visible units.
  shape() {
    return pictureShape(this.dataset, this.lab.visible(), this.lab.encoder_group());
  }

  // --- The session (session/record.js) -------------------------------------------------------

  // Whether anything a session keeps may have changed: the engine's weight version, the
  // cycle, its phase and pattern, and the options.
  fingerprint() {
    const lab = this.lab;
    if (!lab) return `none ${this.kind} ${this.rbm.fingerprint()}`;
    return [
      lab.version(),
      lab.cycles(),
      lab.phase(),
      lab.pattern(),
      lab.rule(),
      lab.rule_size(),
      lab.weight_decay(),
      lab.schedule(),
      lab.collect_sweeps(),
      this.kind,
      this.rbm.fingerprint(),
    ].join(' ');
  }

  // The engine's session text of the run (opaque, exact), or null before the mode was
  // first shown.
  session() {
    return this.lab ? this.lab.session() : null;
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
    this.adoptShown(lab);
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

  // The status line and the views; the weight-dependent views only when the weights changed.
  draw() {
    if (this.kind === 'restricted') {
      this.rbm.draw();
      return;
    }
    if ($('machine').hidden || !this.lab) return;
    const lab = this.lab;
    const engine = this.engine;
    const n = lab.units();
    const activations = view(engine, Float64Array, lab.activations_ptr(), n);
    const clamps = view(engine, Uint8Array, lab.clamps_ptr(), n);
    const pattern = lab.pattern();
    $('bm-cycle').textContent = String(lab.cycles());
    $('bm-phase').textContent = lab.phase();
    $('bm-pattern').textContent = pattern >= 0 ? `${pattern + 1} of ${lab.pattern_count()}` : 'none (free)';
    $('bm-temperature').textContent = String(lab.temperature());
    const stage = lab.stage();
    $('bm-stage').textContent = stage;
    $('bm-stage').hidden = stage === '';
    const points = lab.curve_len();
    const kl = view(engine, Float64Array, lab.curve_kl_ptr(), points);
    const solved = view(engine, Float64Array, lab.curve_solved_ptr(), points);
    if (Number.isFinite(kl[points - 1])) $('bm-kl').textContent = format(kl[points - 1], 4);
    else if (lab.kl_estimated()) {
      const ais = this.ais();
      const m = ais.cycles.length;
      $('bm-kl').textContent =
        m > 0
          ? `≈ ${format(ais.kl[m - 1], 3)} ± ${format(ais.stderr[m - 1], 3)} (AIS estimate, cycle ${ais.cycles[m - 1]})`
          : 'AIS estimate under way';
    } else $('bm-kl').textContent = 'too large to enumerate or estimate';
    $('bm-solved').textContent = Number.isFinite(solved[points - 1])
      ? `${Math.round(solved[points - 1] * lab.encoder_group())} of ${lab.encoder_group()}`
      : 'not an encoder';
    const visible = lab.visible();
    const shape = this.shape();
    this.views.units.draw({ activations, clamps, visible, shape, encoder: lab.encoder_group() > 0 });
    this.views.patterns.draw({
      patterns: this.patterns,
      count: lab.pattern_count(),
      visible,
      shape,
      current: pattern,
    });
    if (lab.version() !== this.drawnVersion) {
      this.drawnVersion = lab.version();
      this.drawWeights(n);
    }
    const weights = view(engine, Float64Array, lab.weights_ptr(), n * n);
    $('bm-graph-box').hidden = n > GRAPH_UNITS;
    if (n <= GRAPH_UNITS) this.views.graph.draw({ weights, activations, clamps, visible });
  }

  // The AIS estimates of KL so far: cycles, values and standard errors.
  ais() {
    const lab = this.lab;
    const m = lab.ais_len();
    return {
      cycles: view(this.engine, Float64Array, lab.ais_cycles_ptr(), m),
      kl: view(this.engine, Float64Array, lab.ais_kl_ptr(), m),
      stderr: view(this.engine, Float64Array, lab.ais_stderr_ptr(), m),
    };
  }

  drawWeights(n) {
    const lab = this.lab;
    const engine = this.engine;
    const weights = view(engine, Float64Array, lab.weights_ptr(), n * n);
    const limit = this.views.weights.draw(weights, n, n, { caption: 'w_ij, θ_i' });
    this.views.biases.draw(view(engine, Float64Array, lab.biases_ptr(), n), 1, n, { limit });
    const points = lab.curve_len();
    this.views.curve.draw({
      cycles: view(engine, Float64Array, lab.curve_cycles_ptr(), points),
      kl: view(engine, Float64Array, lab.curve_kl_ptr(), points),
      solved: view(engine, Float64Array, lab.curve_solved_ptr(), points),
      ais: this.ais(),
    });
    $('bm-curve-ais-key').hidden = !lab.kl_estimated();
    $('bm-curve-exact-key').hidden = lab.kl_estimated();
    const pairs = (ptr) => view(engine, Float64Array, ptr, n * n);
    let top = 1e-9;
    for (const ptr of [lab.clamped_pairs_ptr(), lab.free_pairs_ptr()])
      for (const v of pairs(ptr)) top = Math.max(top, Math.abs(v));
    this.views.clamped.draw(pairs(lab.clamped_pairs_ptr()), n, n, { limit: top, caption: '⟨s_i s_j⟩' });
    this.views.free.draw(pairs(lab.free_pairs_ptr()), n, n, { limit: top });
    this.views.difference.draw(pairs(lab.pair_difference_ptr()), n, n, { caption: 'clamped − free' });
  }
}
