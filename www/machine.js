// The Boltzmann-machine mode: a learning run of the engine's MachineLab, drawn live. The
// engine learns; this module asks it to advance a bounded number of sweeps per frame and
// draws the units, the training patterns, the connections, the weights and the learning
// curve from typed-array views over wasm memory.

import { engineReady, view } from './engine.js';
import { $, attempt, format, download, showError, clearError } from './ui.js';
import { HeatMapView } from './views/heatmap.js';
import { DivergingScale, cssColour, rgba } from './views/colour.js';
import { fitCanvas } from './views/trace.js';
import { installLessons } from './lessons.js';
import { registerMachine } from './persist.js';
import { setMachineShortcuts } from './keys.js';

// Wall time per frame learning may use.
const FRAME_BUDGET_MS = 12;
// Speed steps: sweeps (stochastic) or mean-field solves per frame.
const SPEEDS = [1, 4, 16, 64, 256, 1024, 16384];
// Graphs are drawn for at most this many units.
const GRAPH_UNITS = 40;
// Wall time per frame the AIS estimate of KL may use (it always runs at least one chunk).
const ESTIMATE_BUDGET_MS = 8;

// The number typed into a box; a blank box is NaN (not 0), so that the engine names it.
export const typed = (id) => {
  const text = $(id).value;
  return text.trim() === '' ? NaN : Number(text);
};

// Where the visible units sit in their picture: columns and rows.
export function pictureShape(name, visible, group) {
  if (group > 0) return { cols: group, rows: 2 };
  if (name === 'pixels-10') return { cols: 5, rows: 2 };
  const side = Math.round(Math.sqrt(visible));
  if (side * side === visible && side > 1) return { cols: side, rows: side };
  const cols = Math.min(visible, 16);
  return { cols, rows: Math.ceil(visible / cols) };
}

export class MachinePage {
  constructor(engine) {
    this.engine = engine;
    this.scale = new DivergingScale();
    this.weightsMap = new HeatMapView($('bm-weights'), $('bm-weights-legend'), this.scale);
    this.biasMap = new HeatMapView($('bm-biases'), null, this.scale);
    this.clampedMap = new HeatMapView($('bm-clamped'), $('bm-correlations-legend'), this.scale);
    this.freeMap = new HeatMapView($('bm-free'), null, this.scale);
    this.differenceMap = new HeatMapView($('bm-difference'), $('bm-difference-legend'), this.scale);
    this.running = false;
    this.drawnVersion = -1;
    this.lab = null;
    this.create();
    this.wire();
  }

  // A new run from the dataset, method and seed controls; on error nothing changes.
  create() {
    const dataset = $('bm-dataset').value;
    const method = $('bm-method').value;
    const seed = typed('bm-seed');
    const errorId = dataset === 'custom' ? 'bm-editor-error' : 'bm-dataset-error';
    let next = null;
    const ok = attempt(errorId, () => {
      next =
        dataset === 'custom'
          ? this.engine.MachineLab.custom($('bm-patterns-text').value, typed('bm-hidden'), method, seed)
          : new this.engine.MachineLab(dataset, method, seed);
    });
    if (!ok) return false;
    clearError('bm-dataset-error');
    clearError('bm-editor-error');
    if (this.lab) this.lab.free();
    this.lab = next;
    window.boltzlabMachine = next; // for tests and the console
    this.name = dataset;
    this.patterns = next.patterns_flat();
    $('bm-noise').hidden = !(next.encoder_group() > 0 && next.encoder_group() < 40);
    this.syncControls();
    this.resetDrawing(next.visible());
    $('bm-logz-temperature').value = String(next.temperature());
    $('bm-run-done').hidden = true;
    this.drawnVersion = -1;
    this.draw();
    return true;
  }

  syncControls() {
    const lab = this.lab;
    $('bm-rule').value = lab.rule();
    $('bm-rate').value = String(lab.rule_size());
    $('bm-decay').value = String(lab.weight_decay());
    $('bm-schedule').value = lab.schedule();
    $('bm-collect').value = String(lab.collect_sweeps());
    for (const id of ['bm-rule-error', 'bm-schedule-error', 'bm-run-error']) clearError(id);
  }

  wire() {
    for (const id of ['bm-dataset', 'bm-method', 'bm-seed']) $(id).addEventListener('change', () => this.create());
    $('bm-use-patterns').addEventListener('click', () => {
      const before = $('bm-dataset').value;
      $('bm-dataset').value = 'custom';
      if (!this.create()) $('bm-dataset').value = before;
    });
    const setRule = () => attempt('bm-rule-error', () => this.lab.set_update($('bm-rule').value, typed('bm-rate')));
    $('bm-rule').addEventListener('change', setRule);
    $('bm-rate').addEventListener('change', setRule);
    $('bm-decay').addEventListener('change', () =>
      attempt('bm-rule-error', () => this.lab.set_weight_decay(typed('bm-decay'))),
    );
    $('bm-schedule-apply').addEventListener('click', () =>
      attempt('bm-schedule-error', () => this.lab.set_schedule($('bm-schedule').value, typed('bm-collect'))),
    );
    $('bm-run').addEventListener('click', () => this.setRunning(!this.running));
    $('bm-step').addEventListener('click', () => this.stepCycle());
    $('bm-step-sweep').addEventListener('click', () => this.stepSweep());
    $('bm-reset').addEventListener('click', () => this.resetWeights());
    const showSpeed = () => {
      const n = SPEEDS[Number($('bm-speed').value)];
      $('bm-speed-shown').textContent = n >= 16384 ? 'max (frame budget)' : `${n} sweep${n > 1 ? 's' : ''} / frame`;
    };
    $('bm-speed').addEventListener('input', showSpeed);
    showSpeed();
    $('bm-export').addEventListener('click', () =>
      download(`boltzlab-${this.name}.json`, this.lab.export_network(), 'application/json'),
    );
    $('bm-logz-run').addEventListener('click', () => this.computeLogZ());
    $('bm-gallery-run').addEventListener('click', () => this.generate());
    $('bm-explore-clamped').addEventListener('click', () => {
      this.setRunning(false);
      attempt('bm-explore-error', () => this.lab.explore_number(typed('bm-explore-pattern')));
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
    $('bm-import').addEventListener('change', async (event) => {
      const file = event.target.files[0];
      if (!file) return;
      const text = await file.text();
      $('bm-import-done').hidden = true;
      if (attempt('bm-import-error', () => this.lab.import_network(text))) {
        $('bm-import-done').textContent = `Loaded the weights of ${file.name}.`;
        $('bm-import-done').hidden = false;
      }
      event.target.value = '';
      this.draw();
    });
    window.addEventListener('resize', () => {
      this.drawnVersion = -1;
      this.draw();
    });
    $('bm-draw-length').addEventListener('change', () => {
      let length = 0;
      if (attempt('bm-draw-error', () => (length = this.engine.check_pattern_length(typed('bm-draw-length')))))
        this.resetDrawing(length, true);
    });
    $('bm-draw-clear').addEventListener('click', () => this.resetDrawing(this.drawing.length, true));
    $('bm-draw-add').addEventListener('click', () => this.addDrawnPattern());
    setMachineShortcuts({
      playPause: () => this.setRunning(!this.running),
      stepCycle: () => this.stepCycle(),
      stepSweep: () => this.stepSweep(),
      togglePhase: () => this.togglePhase(),
      reset: () => this.resetWeights(),
      faster: () => this.nudgeSpeed(1),
      slower: () => this.nudgeSpeed(-1),
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

  nudgeSpeed(by) {
    const slider = $('bm-speed');
    slider.value = String(Math.max(0, Math.min(SPEEDS.length - 1, Number(slider.value) + by)));
    slider.dispatchEvent(new Event('input'));
  }

  // F: clamped ⇄ free by hand: clamp the chosen pattern, then let the machine dream.
  togglePhase() {
    this.setRunning(false);
    const dreaming = this.lab.exploring() && this.lab.pattern() < 0;
    if (this.lab.exploring() && !dreaming) attempt('bm-explore-error', () => this.lab.explore(-1));
    else attempt('bm-explore-error', () => this.lab.explore_number(typed('bm-explore-pattern')));
    this.showExploring();
  }

  // The pixel grid of the pattern editor: `length` pixels in the dataset's picture shape
  // (or, for a chosen length, a square or rows of up to 16), all off.
  resetDrawing(length, chosen = false) {
    const lab = this.lab;
    const { cols } =
      chosen || length !== lab.visible()
        ? pictureShape('custom', length, 0)
        : pictureShape(this.name, length, lab.encoder_group());
    this.drawing = new Uint8Array(length);
    $('bm-draw-length').value = String(length);
    clearError('bm-draw-error');
    const grid = $('bm-draw-grid');
    grid.style.gridTemplateColumns = `repeat(${cols}, 1.6rem)`;
    const cells = [];
    for (let i = 0; i < length; i++) {
      const cell = document.createElement('button');
      cell.type = 'button';
      cell.className = 'pixel';
      cell.setAttribute('aria-pressed', 'false');
      cell.setAttribute('aria-label', `pixel ${i + 1}`);
      cell.addEventListener('click', () => {
        this.drawing[i] ^= 1;
        cell.setAttribute('aria-pressed', String(this.drawing[i] === 1));
      });
      cells.push(cell);
    }
    grid.replaceChildren(...cells);
  }

  // Appends the drawn pattern as a line of the editor's text, if the engine accepts the
  // text with it (every pattern of one length).
  addDrawnPattern() {
    const box = $('bm-patterns-text');
    const before = box.value.replace(/\s+$/, '');
    const text = `${before}${before ? '\n' : ''}${this.drawing.join('')}`;
    if (!attempt('bm-editor-error', () => this.engine.check_patterns(text))) return;
    box.value = text;
    $('bm-draw-done').textContent =
      `Added ${this.drawing.join('')} as pattern ${text.split('\n').filter((l) => l.trim()).length}.`;
    $('bm-draw-done').hidden = false;
  }

  // ln Z by the four methods, each timed here (the engine has no clock in wasm).
  computeLogZ() {
    const temperature = typed('bm-logz-temperature');
    fillLogZTable('bm-logz-table', 'bm-logz-error', (method) => this.lab.log_z(method, temperature));
  }

  showExploring() {
    $('bm-explore-stop').disabled = !this.lab.exploring();
    this.draw();
  }

  // The gallery of free-running samples beside the training patterns.
  generate() {
    let entries = null;
    if (!attempt('bm-gallery-error', () => (entries = this.lab.gallery(typed('bm-gallery-count'), 1)))) return;
    const list = $('bm-gallery');
    list.replaceChildren();
    const lab = this.lab;
    const visible = lab.visible();
    const { cols, rows } = pictureShape(this.name, visible, lab.encoder_group());
    const pixel = Math.max(2, Math.min(12, Math.floor(96 / Math.max(cols, rows))));
    for (const entry of entries.slice(0, 40)) {
      const item = document.createElement('li');
      if (entry.training) item.classList.add('training');
      const canvas = document.createElement('canvas');
      canvas.width = cols * pixel;
      canvas.height = rows * pixel;
      canvas.setAttribute('aria-label', `sample ${entry.pattern.join('')}`);
      const c = canvas.getContext('2d');
      for (let i = 0; i < visible; i++) {
        c.fillStyle = this.unitColour(entry.pattern[i]);
        c.fillRect((i % cols) * pixel, Math.floor(i / cols) * pixel, pixel, pixel);
      }
      const caption = document.createElement('span');
      const p = entry.probability == null ? '' : ` · p ${format(entry.probability, 3)}`;
      caption.textContent = `${format(entry.frequency, 3)}${p}${entry.training ? ' · training' : ''}`;
      item.append(canvas, caption);
      list.append(item);
    }
    if (entries.length > 40) {
      const more = document.createElement('li');
      more.textContent = `… and ${entries.length - 40} rarer vectors`;
      list.append(more);
    }
  }

  setRunning(on) {
    this.running = on;
    $('bm-run').textContent = on ? 'Pause learning' : 'Run learning';
    $('bm-run').setAttribute('aria-pressed', String(on));
  }

  // One animation frame: learn for a bounded number of sweeps, then draw.
  frame() {
    if (!this.running && this.lab.exploring()) {
      attempt('bm-explore-error', () => this.lab.explore_sweeps(1));
    }
    if (this.running) {
      $('bm-explore-stop').disabled = true;
      const target = SPEEDS[Number($('bm-speed').value)];
      const start = performance.now();
      let done = 0;
      while (done < target && performance.now() - start < FRAME_BUDGET_MS) {
        const chunk = Math.min(target - done, 64);
        if (!this.learn(() => this.lab.advance(chunk))) break;
        done += chunk;
      }
    }
    // The AIS estimate of KL, a chunk of runs at a time.
    const start = performance.now();
    while (this.lab.estimating() && performance.now() - start < ESTIMATE_BUDGET_MS) {
      if (!attempt('bm-run-error', () => this.lab.estimate_step(1))) break;
    }
    this.draw();
  }

  draw() {
    if ($('machine').hidden) return;
    const lab = this.lab;
    const n = lab.units();
    const memory = this.engine.wasm_memory().buffer;
    const activations = new Float64Array(memory, lab.activations_ptr(), n);
    const clamps = new Uint8Array(memory, lab.clamps_ptr(), n);
    const phase = lab.phase();
    const pattern = lab.pattern();
    $('bm-cycle').textContent = String(lab.cycles());
    $('bm-phase').textContent = phase;
    $('bm-pattern').textContent = pattern >= 0 ? `${pattern + 1} of ${lab.pattern_count()}` : 'none (free)';
    $('bm-temperature').textContent = String(lab.temperature());
    const stage = lab.stage();
    $('bm-stage').textContent = stage;
    $('bm-stage').hidden = stage === '';
    const points = lab.curve_len();
    const kl = view(this.engine, Float64Array, lab.curve_kl_ptr(), points);
    const solved = view(this.engine, Float64Array, lab.curve_solved_ptr(), points);
    if (Number.isFinite(kl[points - 1])) $('bm-kl').textContent = format(kl[points - 1], 4);
    else if (lab.kl_estimated()) {
      const m = lab.ais_len();
      const x = view(this.engine, Float64Array, lab.ais_cycles_ptr(), m);
      const y = view(this.engine, Float64Array, lab.ais_kl_ptr(), m);
      const e = view(this.engine, Float64Array, lab.ais_stderr_ptr(), m);
      $('bm-kl').textContent =
        m > 0
          ? `≈ ${format(y[m - 1], 3)} ± ${format(e[m - 1], 3)} (AIS estimate, cycle ${x[m - 1]})`
          : 'AIS estimate under way';
    } else $('bm-kl').textContent = 'too large to enumerate or estimate';
    $('bm-solved').textContent = Number.isFinite(solved[points - 1])
      ? `${Math.round(solved[points - 1] * lab.encoder_group())} of ${lab.encoder_group()}`
      : 'not an encoder';
    this.drawUnits(activations, clamps);
    this.drawPatterns(pattern);
    if (lab.version() !== this.drawnVersion) {
      this.drawnVersion = lab.version();
      const weights = view(this.engine, Float64Array, lab.weights_ptr(), n * n);
      const limit = this.weightsMap.draw(weights, n, n, { caption: 'w_ij, θ_i' });
      this.biasMap.draw(view(this.engine, Float64Array, lab.biases_ptr(), n), 1, n, { limit });
      this.drawCurve();
      const pairs = (ptr) => view(this.engine, Float64Array, ptr, n * n);
      const top = Math.max(
        1e-9,
        ...pairs(lab.clamped_pairs_ptr()).map(Math.abs),
        ...pairs(lab.free_pairs_ptr()).map(Math.abs),
      );
      this.clampedMap.draw(pairs(lab.clamped_pairs_ptr()), n, n, { limit: top, caption: '⟨s_i s_j⟩' });
      this.freeMap.draw(pairs(lab.free_pairs_ptr()), n, n, { limit: top });
      this.differenceMap.draw(pairs(lab.pair_difference_ptr()), n, n, { caption: 'clamped − free' });
    }
    this.drawGraph(activations, clamps);
  }

  // The fill of a unit with activation a (0 off … 1 on).
  unitColour(a) {
    if (!this.ends) this.ends = [rgba(cssColour('--spin-up', '#f4f1e8')), rgba(cssColour('--spin-down', '#1d3557'))];
    const [p, q] = this.ends;
    const mix = [0, 1, 2].map((k) => Math.round(p[k] + a * (q[k] - p[k])));
    return `rgb(${mix.join(', ')})`;
  }

  drawUnits(activations, clamps) {
    const lab = this.lab;
    const visible = lab.visible();
    const hidden = lab.units() - visible;
    const { cols, rows } = pictureShape(this.name, visible, lab.encoder_group());
    const canvas = $('bm-units');
    const { c, w } = fitCanvas(canvas);
    const across = Math.max(cols, hidden, 1);
    const cell = Math.max(6, Math.min(48, Math.floor((w - 8) / across)));
    const ink = cssColour('--ink', '#222');
    const ring = (x, y, size, on, round) => {
      c.lineWidth = Math.max(2, cell / 8);
      c.strokeStyle = cssColour(on ? '--clamped-up' : '--clamped-down', on ? '#ffb703' : '#b5179e');
      c.beginPath();
      if (round) c.arc(x + size / 2, y + size / 2, Math.max(1, size / 2 - c.lineWidth / 2), 0, 2 * Math.PI);
      else c.rect(x + c.lineWidth / 2, y + c.lineWidth / 2, size - c.lineWidth, size - c.lineWidth);
      c.stroke();
    };
    c.font = '12px system-ui, sans-serif';
    c.fillStyle = ink;
    c.fillText(lab.encoder_group() > 0 ? 'visible: V1 (top), V2 (bottom)' : 'visible', 4, 12);
    const top = 18;
    for (let i = 0; i < visible; i++) {
      const x = 4 + (i % cols) * cell;
      const y = top + Math.floor(i / cols) * cell;
      c.fillStyle = this.unitColour(activations[i]);
      c.fillRect(x + 1, y + 1, cell - 2, cell - 2);
      if (clamps[i]) ring(x + 1, y + 1, cell - 2, activations[i] > 0.5, false);
    }
    let y = top + rows * cell + 8;
    if (hidden > 0) {
      c.fillStyle = ink;
      c.fillText('hidden', 4, y + 12);
      y += 18;
      for (let h = 0; h < hidden; h++) {
        const i = visible + h;
        const x = 4 + h * cell;
        c.fillStyle = this.unitColour(activations[i]);
        c.beginPath();
        c.arc(x + cell / 2, y + cell / 2, Math.max(1, cell / 2 - 2), 0, 2 * Math.PI);
        c.fill();
        c.strokeStyle = cssColour('--line', '#ccc');
        c.lineWidth = 1;
        c.stroke();
        if (clamps[i]) ring(x + 1, y + 1, cell - 2, activations[i] > 0.5, true);
      }
      y += cell;
    }
    const height = Math.ceil(y + 6);
    if (Math.abs(canvas.getBoundingClientRect().height - height) > 1) canvas.style.height = `${height}px`;
  }

  drawPatterns(current) {
    const lab = this.lab;
    const visible = lab.visible();
    const count = lab.pattern_count();
    const { cols, rows } = pictureShape(this.name, visible, lab.encoder_group());
    const canvas = $('bm-patterns');
    const { c, w } = fitCanvas(canvas);
    const pixel = Math.max(2, Math.min(10, Math.floor(140 / Math.max(cols, rows * 2))));
    const boxW = cols * pixel + 8;
    const boxH = rows * pixel + 8;
    const perRow = Math.max(1, Math.floor(w / boxW));
    for (let k = 0; k < count; k++) {
      const x0 = (k % perRow) * boxW + 4;
      const y0 = Math.floor(k / perRow) * boxH + 4;
      for (let i = 0; i < visible; i++) {
        c.fillStyle = this.unitColour(this.patterns[k * visible + i]);
        c.fillRect(x0 + (i % cols) * pixel, y0 + Math.floor(i / cols) * pixel, pixel, pixel);
      }
      if (k === current) {
        c.strokeStyle = cssColour('--marker', '#e63946');
        c.lineWidth = 2;
        c.strokeRect(x0 - 2, y0 - 2, cols * pixel + 4, rows * pixel + 4);
      }
    }
    const height = Math.ceil(Math.ceil(count / perRow) * boxH + 8);
    if (Math.abs(canvas.getBoundingClientRect().height - height) > 1) canvas.style.height = `${height}px`;
  }

  drawGraph(activations, clamps) {
    const lab = this.lab;
    const n = lab.units();
    $('bm-graph-box').hidden = n > GRAPH_UNITS;
    if (n > GRAPH_UNITS) return;
    const { c, w, h } = fitCanvas($('bm-graph'));
    const weights = view(this.engine, Float64Array, lab.weights_ptr(), n * n);
    let top = 0;
    for (let k = 0; k < n * n; k++) top = Math.max(top, Math.abs(weights[k]));
    const radius = Math.max(10, Math.min(w, h) / 2 - 16);
    const at = (i) => {
      const angle = (2 * Math.PI * i) / n - Math.PI / 2;
      return [w / 2 + radius * Math.cos(angle), h / 2 + radius * Math.sin(angle)];
    };
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const wij = weights[i * n + j];
        if (wij === 0 || !(top > 0)) continue;
        const [x1, y1] = at(i);
        const [x2, y2] = at(j);
        c.strokeStyle = this.scale.css(wij / top);
        c.lineWidth = 0.5 + 4 * (Math.abs(wij) / top);
        c.beginPath();
        c.moveTo(x1, y1);
        c.lineTo(x2, y2);
        c.stroke();
      }
    }
    const visible = lab.visible();
    for (let i = 0; i < n; i++) {
      const [x, y] = at(i);
      c.fillStyle = this.unitColour(activations[i]);
      c.beginPath();
      if (i < visible) c.rect(x - 7, y - 7, 14, 14);
      else c.arc(x, y, 7, 0, 2 * Math.PI);
      c.fill();
      c.lineWidth = clamps[i] ? 3 : 1;
      c.strokeStyle = clamps[i]
        ? cssColour(activations[i] > 0.5 ? '--clamped-up' : '--clamped-down', '#ffb703')
        : cssColour('--line', '#ccc');
      c.stroke();
    }
  }

  drawCurve() {
    const lab = this.lab;
    const points = lab.curve_len();
    const x = view(this.engine, Float64Array, lab.curve_cycles_ptr(), points);
    const kl = view(this.engine, Float64Array, lab.curve_kl_ptr(), points);
    const solved = view(this.engine, Float64Array, lab.curve_solved_ptr(), points);
    const { c, w, h } = fitCanvas($('bm-curve'));
    const left = 48;
    const right = 40;
    const topPad = 10;
    const bottom = 28;
    const ink = cssColour('--ink', '#222');
    const x0 = x[0] ?? 0;
    const x1 = Math.max(x[points - 1] ?? 1, x0 + 1);
    const m = lab.ais_len();
    const aisX = view(this.engine, Float64Array, lab.ais_cycles_ptr(), m);
    const aisKl = view(this.engine, Float64Array, lab.ais_kl_ptr(), m);
    const aisErr = view(this.engine, Float64Array, lab.ais_stderr_ptr(), m);
    let klTop = 0;
    for (const v of kl) if (Number.isFinite(v)) klTop = Math.max(klTop, v);
    for (let i = 0; i < m; i++) if (Number.isFinite(aisKl[i])) klTop = Math.max(klTop, aisKl[i] + aisErr[i]);
    if (!(klTop > 0)) klTop = 1;
    const px = (v) => left + ((v - x0) / (x1 - x0)) * (w - left - right);
    const py = (v, t) => topPad + (1 - v / t) * (h - topPad - bottom);
    c.strokeStyle = cssColour('--line', '#ccc');
    c.strokeRect(left, topPad, w - left - right, h - topPad - bottom);
    c.fillStyle = ink;
    c.font = '12px system-ui, sans-serif';
    c.textAlign = 'right';
    c.fillText(format(klTop, 2), left - 4, topPad + 10);
    c.fillText('0', left - 4, h - bottom);
    c.textAlign = 'left';
    c.fillText('1', w - right + 4, topPad + 10);
    c.fillText('0', w - right + 4, h - bottom);
    c.textAlign = 'center';
    c.fillText(`learning cycles ${x0} – ${x1}`, w / 2, h - 8);
    const line = (values, t, colour) => {
      c.strokeStyle = colour;
      c.lineWidth = 2;
      c.beginPath();
      let started = false;
      for (let i = 0; i < points; i++) {
        if (!Number.isFinite(values[i])) continue;
        if (started) c.lineTo(px(x[i]), py(values[i], t));
        else c.moveTo(px(x[i]), py(values[i], t));
        started = true;
      }
      c.stroke();
    };
    line(kl, klTop, cssColour('--energy', '#d1495b'));
    line(solved, 1, cssColour('--magnetization', '#00798c'));
    // AIS estimates: points with ± one standard error bars.
    c.strokeStyle = c.fillStyle = cssColour('--energy', '#d1495b');
    c.lineWidth = 1.5;
    for (let i = 0; i < m; i++) {
      if (!Number.isFinite(aisKl[i]) || aisX[i] < x0) continue;
      const cx = px(aisX[i]);
      const low = py(Math.max(0, aisKl[i] - aisErr[i]), klTop);
      const high = py(aisKl[i] + aisErr[i], klTop);
      c.beginPath();
      c.moveTo(cx, low);
      c.lineTo(cx, high);
      c.moveTo(cx - 3, low);
      c.lineTo(cx + 3, low);
      c.moveTo(cx - 3, high);
      c.lineTo(cx + 3, high);
      c.stroke();
      c.beginPath();
      c.arc(cx, py(aisKl[i], klTop), 3, 0, 2 * Math.PI);
      c.fill();
    }
    $('bm-curve-ais-key').hidden = !lab.kl_estimated();
    $('bm-curve-exact-key').hidden = lab.kl_estimated();
  }
}

// Fills a ln Z table (rows data-method = exact, sampled, mean-field, ais) from
// `compute(method)`, each method timed here (the engine has no clock in wasm). A bad
// temperature stops with a message in `errorId`; a method that cannot run says why in its
// row.
export function fillLogZTable(tableId, errorId, compute) {
  clearError(errorId);
  for (const row of document.querySelectorAll(`#${tableId} tbody tr`)) {
    const cell = (name) => row.querySelector(`.${name}`);
    const start = performance.now();
    try {
      const result = compute(row.dataset.method);
      const ms = performance.now() - start;
      cell('value').textContent = format(result.log_z, 6);
      cell('value').dataset.value = String(result.log_z);
      cell('stderr').textContent = result.stderr === undefined ? '' : `± ${format(result.stderr, 4)}`;
      cell('bound').textContent =
        { exact: 'exact', lower: 'lower bound', none: 'estimate' }[result.bound] ?? String(result.bound);
      cell('time').textContent = ms < 1 ? '< 1 ms' : `${Math.round(ms)} ms`;
    } catch (err) {
      const message = err.message ?? String(err);
      if (/temperature/.test(message)) {
        showError(errorId, message);
        return;
      }
      cell('value').textContent = 'not available';
      delete cell('value').dataset.value;
      cell('stderr').textContent = message;
      cell('bound').textContent = '';
      cell('time').textContent = '';
    }
  }
}

// The mode switch: the lattice page or the Boltzmann machine.
async function start() {
  const engine = await engineReady();
  let page = null;
  const show = (mode) => {
    const machine = mode === 'machine';
    for (const element of document.querySelectorAll('.lattice-only')) element.hidden = machine;
    for (const element of document.querySelectorAll('.machine-only')) element.hidden = !machine;
    $('machine').hidden = !machine;
    document.title = machine ? 'boltzlab: Boltzmann machine' : 'boltzlab: Ising lattice';
    if (machine) {
      const latticeRun = $('run');
      if (latticeRun.getAttribute('aria-pressed') === 'true') latticeRun.click();
      if (!page) page = new MachinePage(engine);
      page.drawnVersion = -1;
      page.draw();
    } else if (page) {
      page.setRunning(false);
    }
  };
  for (const radio of document.querySelectorAll('input[name="mode"]'))
    radio.addEventListener('change', () => show(radio.value));
  registerMachine(() => page);
  const frame = () => {
    if (page && !$('machine').hidden && !window.boltzlabStopped) {
      try {
        page.frame();
      } catch (err) {
        page.setRunning(false);
        showError('bm-run-error', err.message ?? String(err));
      }
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  // ln Z of the lattice shown (lattice mode), at its current T.
  $('lattice-logz-run').addEventListener('click', () =>
    fillLogZTable('lattice-logz-table', 'lattice-logz-error', (method) => window.boltzlabLab.lattice_log_z(method)),
  );
  installLessons();
  document.body.dataset.machineReady = 'true';
}

start().catch((err) => {
  const box = $('alert');
  box.textContent = `The Boltzmann machine could not start: ${err.message}`;
  box.hidden = false;
});
