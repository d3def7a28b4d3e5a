// @ts-check
// The temperature-sweep experiment: the engine cools a copy of the lattice from T high to
// T low and measures ⟨|m|⟩, u, c and χ with error bars; this module starts it, runs it a
// little every frame within a time budget, shows progress, and plots the results with
// Onsager's exact curves for the zero-field ferromagnet.

import { view } from '../engine.js';
import { $, attempt, download, readNumber } from '../ui.js';
import { ErrorBarPlot } from '../views/plot.js';
import { LatticeView } from '../views/lattice.js';

const CURVE_POINTS = 240;

export class Experiment {
  // lab: the page's mirror of the run (lattice/mode.js); settle(): a promise that the mirror
  // holds the live run (the sweep starts from it); onRunningChange(running): the sweep
  // started (true) or stopped (false).
  constructor(engine, lab, settle, onRunningChange) {
    this.engine = engine;
    this.lab = lab;
    this.settle = settle;
    this.onRunningChange = onRunningChange;
    this.running = false;
    this.sweepsPerCall = 1;
    this.drawnLength = -1;
    this.plots = {
      m: new ErrorBarPlot($('scan-m'), { title: '⟨|m|⟩  magnetisation per spin' }),
      u: new ErrorBarPlot($('scan-u'), { title: 'u = ⟨E⟩/N  energy per spin' }),
      c: new ErrorBarPlot($('scan-c'), { title: 'c  specific heat per spin' }),
      chi: new ErrorBarPlot($('scan-chi'), { title: 'χ  susceptibility per spin' }),
    };
    this.lattice = new LatticeView($('scan-spins'));
    $('scan-start').addEventListener('click', () => this.start());
    $('scan-cancel').addEventListener('click', () => this.cancel());
    $('scan-csv').addEventListener('click', () => download('boltzlab-sweep.csv', lab.scan_csv(), 'text/csv'));
    this.draw(true);
  }

  async start() {
    const value = (id) => readNumber($(id).value);
    $('scan-start').disabled = true;
    await this.settle();
    $('scan-start').disabled = false;
    const ok = attempt('scan-error', () =>
      this.lab.dispatch({
        command: 'start-scan',
        t_high: value('scan-t-high'),
        t_low: value('scan-t-low'),
        points: value('scan-points'),
        burn_in: value('scan-burn-in'),
        measure: value('scan-measure'),
      }),
    );
    if (!ok) {
      this.onRunningChange(false); // the run goes on as before
      return;
    }
    this.running = true;
    this.sweepsPerCall = 1;
    this.curves = null;
    this.setButtons();
    this.onRunningChange(true);
    this.draw(true);
  }

  cancel() {
    this.lab.dispatch({ command: 'cancel-scan' });
    this.finish();
  }

  finish() {
    this.running = false;
    this.setButtons();
    this.onRunningChange(false);
    this.draw(true);
  }

  setButtons() {
    $('scan-start').disabled = this.running;
    $('scan-cancel').disabled = !this.running;
    $('scan-csv').disabled = this.running || this.lab.scan_len() === 0;
  }

  // Runs the sweep for about `budgetMs` of this frame.
  step(budgetMs) {
    if (!this.running) return;
    const begin = performance.now();
    while (performance.now() - begin < budgetMs && !this.lab.scan_done()) {
      const t0 = performance.now();
      this.lab.dispatch({ command: 'advance-scan', sweeps: this.sweepsPerCall });
      const took = performance.now() - t0;
      // Aim for calls of about a quarter of the budget.
      if (took < budgetMs / 8) this.sweepsPerCall = Math.min(1 << 16, this.sweepsPerCall * 2);
      else if (took > budgetMs / 2 && this.sweepsPerCall > 1) this.sweepsPerCall = Math.max(1, this.sweepsPerCall >> 1);
    }
    if (this.lab.scan_done()) this.finish();
  }

  // Onsager's curves over the sweep's range (from the engine's closed forms).
  exactCurves(lo, hi) {
    const e = this.engine;
    const x = [];
    for (let k = 0; k <= CURVE_POINTS; k++) x.push(lo + ((hi - lo) * k) / CURVE_POINTS);
    return {
      m: { x, y: x.map((t) => e.onsager_magnetization(t)) },
      u: { x, y: x.map((t) => e.onsager_energy(t)) },
      c: { x, y: x.map((t) => e.onsager_specific_heat(t)) },
    };
  }

  draw(force = false) {
    const lab = this.lab;
    const has = lab.has_scan();
    const n = lab.scan_len();
    const progress = lab.scan_progress();
    $('scan-progress').value = progress;
    if (!has) $('scan-status').textContent = 'not started';
    else if (lab.scan_cancelled())
      $('scan-status').textContent = `cancelled after ${n} temperature${n === 1 ? '' : 's'}`;
    else if (lab.scan_done()) $('scan-status').textContent = `done: ${n} temperatures`;
    else $('scan-status').textContent = `${Math.round(progress * 100)}%, T = ${lab.scan_temperature().toFixed(3)}`;
    if (has && this.running) {
      const side = lab.scan_side();
      this.lattice.draw(view(this.engine, Int8Array, lab.scan_spins_ptr(), side * side), side);
    }
    if (!force && n === this.drawnLength) return;
    this.drawnLength = n;
    const range = has ? lab.scan_range() : [3.5, 1.5];
    const [hi, lo] = [range[0], range[1]];
    const column = (ptr) => (n ? Array.from(view(this.engine, Float64Array, ptr, n)) : []);
    const t = column(lab.scan_temperature_ptr());
    const onsager = has && lab.scan_is_onsager();
    if (onsager && !this.curves) this.curves = this.exactCurves(lo, hi);
    const exact = onsager ? this.curves : {};
    const marker = this.engine.critical_temperature();
    const panel = (plot, y, err, curve) =>
      plot.draw({ x: t, y: column(y), err: column(err), xRange: [lo, hi], exact: curve ?? null, marker });
    panel(this.plots.m, lab.scan_abs_magnetization_ptr(), lab.scan_abs_magnetization_error_ptr(), exact.m);
    panel(this.plots.u, lab.scan_energy_ptr(), lab.scan_energy_error_ptr(), exact.u);
    panel(this.plots.c, lab.scan_specific_heat_ptr(), lab.scan_specific_heat_error_ptr(), exact.c);
    panel(this.plots.chi, lab.scan_susceptibility_ptr(), lab.scan_susceptibility_error_ptr(), null);
    this.setButtons();
  }
}
