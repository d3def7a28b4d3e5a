// @ts-check
// The temperature-sweep experiment: the engine cools a copy of the lattice from T high to
// T low and measures ⟨|m|⟩, u, c and χ with error bars. The sweep runs in the lattice's
// worker (worker.js: its scan commands, and the sweep's state with the frames); this module
// starts and cancels it, shows its progress and lattice, and plots the results with
// Onsager's exact curves for the zero-field ferromagnet.

import { $, attempt, download, readNumber, showError } from '../ui.js';
import { ErrorBarPlot } from '../views/plot.js';
import { LatticeView } from '../views/lattice.js';

const CURVE_POINTS = 240;
/**
 * The sweep's state as the worker sends it (scanPart in worker.js).
 * @typedef {{has: boolean, running: boolean, len: number, progress: number, done: boolean,
 *   cancelled: boolean, temperature?: number, range: number[], onsager?: boolean,
 *   side?: number, spins?: Int8Array, columns?: Record<string, Float64Array | Uint8Array> | null}} ScanState
 */
/** @type {ScanState} */
const EMPTY = { has: false, running: false, len: 0, progress: 0, done: false, cancelled: false, range: [3.5, 1.5] };

export class Experiment {
  // engine: the wasm module (Onsager's closed forms); worker: {command(c): a promise of the
  // worker's reply to a scan command, read(name): a promise of a worker reading};
  // onRunningChange(running): the sweep started (true) or stopped (false).
  /**
   * @param {any} engine
   * @param {{command: (c: any) => Promise<any>, read: (name: string) => Promise<any>}} worker
   * @param {(running: boolean) => void} onRunningChange
   */
  constructor(engine, worker, onRunningChange) {
    this.engine = engine;
    this.worker = worker;
    this.onRunningChange = onRunningChange;
    this.running = false;
    // The sweep as the worker last sent it (scanPart in worker.js), its result columns kept.
    /** @type {ScanState} */
    this.state = { ...EMPTY, columns: null };
    this.drawnLength = -1;
    this.stale = true;
    this.plots = {
      m: new ErrorBarPlot($('scan-m'), { title: '⟨|m|⟩  magnetisation per spin' }),
      u: new ErrorBarPlot($('scan-u'), { title: 'u = ⟨E⟩/N  energy per spin' }),
      c: new ErrorBarPlot($('scan-c'), { title: 'c  specific heat per spin' }),
      chi: new ErrorBarPlot($('scan-chi'), { title: 'χ  susceptibility per spin' }),
    };
    // How many autocorrelation times a point needs (the engine's rule), in the hint.
    for (const el of document.querySelectorAll('.scan-min-taus'))
      el.textContent = String(engine.min_autocorrelation_times());
    this.lattice = new LatticeView($('scan-spins'));
    $('scan-start').addEventListener('click', () => this.start());
    $('scan-cancel').addEventListener('click', () => this.cancel());
    $('scan-csv').addEventListener('click', () =>
      this.worker
        .read('scan_csv')
        .then((csv) => download('boltzlab-sweep.csv', csv, 'text/csv'))
        .catch((err) => showError('scan-error', err.message ?? String(err))),
    );
    this.draw(true);
  }

  // Starts a sweep from the live run as it is now (the run pauses, and goes on after it). A
  // plan the engine refuses is explained beside the controls, and the run goes on.
  async start() {
    let plan = null;
    const ok = attempt('scan-error', () => {
      const value = (id) => readNumber($(id).value);
      plan = {
        command: 'start-scan',
        t_high: value('scan-t-high'),
        t_low: value('scan-t-low'),
        points: value('scan-points'),
        burn_in: value('scan-burn-in'),
        measure: value('scan-measure'),
      };
    });
    if (!ok) return;
    $('scan-start').disabled = true;
    this.onRunningChange(true);
    try {
      await this.worker.command(plan);
    } catch (err) {
      showError('scan-error', err.message ?? String(err));
      $('scan-start').disabled = false;
      this.onRunningChange(false); // the run goes on as before
      return;
    }
    this.running = true;
    this.curves = null;
    this.setButtons();
  }

  cancel() {
    this.worker.command({ command: 'cancel-scan' }).catch((err) => showError('scan-error', err.message ?? String(err)));
  }

  // The sweep's state from a frame of the worker.
  received(part) {
    const columns = part.columns ?? this.state.columns;
    this.state = { ...part, columns };
    this.stale = true;
    if (this.running && !part.running) this.finish();
  }

  // The sweep failed in the worker: it stops, with the reason beside its controls.
  failed(message) {
    showError('scan-error', message);
    if (this.running) this.finish();
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
    $('scan-csv').disabled = this.running || this.state.len === 0;
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
    if (!force && !this.stale) return;
    this.stale = false;
    const s = this.state;
    const n = s.len;
    $('scan-progress').value = String(s.progress);
    if (!s.has) $('scan-status').textContent = 'not started';
    else if (s.cancelled) $('scan-status').textContent = `cancelled after ${n} temperature${n === 1 ? '' : 's'}`;
    else if (s.done) $('scan-status').textContent = `done: ${n} temperatures`;
    else $('scan-status').textContent = `${Math.round(s.progress * 100)}%, T = ${s.temperature.toFixed(3)}`;
    if (s.has && s.running && s.spins) this.lattice.draw(s.spins, s.side);
    if (!force && n === this.drawnLength) return;
    this.drawnLength = n;
    const [hi, lo] = [s.range[0], s.range[1]];
    const c = s.columns;
    const column = (name) => (n && c ? Array.from(c[name]) : []);
    const t = column('t');
    if (s.onsager && !this.curves) this.curves = this.exactCurves(lo, hi);
    const exact = s.onsager ? this.curves : {};
    const marker = this.engine.critical_temperature();
    const panel = (plot, y, err, curve) =>
      plot.draw({
        x: t,
        y: column(y),
        err: column(err),
        ok: column(`${y}Ok`),
        xRange: [lo, hi],
        exact: curve ?? null,
        marker,
      });
    panel(this.plots.m, 'm', 'mErr', exact.m);
    panel(this.plots.u, 'u', 'uErr', exact.u);
    panel(this.plots.c, 'c', 'cErr', exact.c);
    panel(this.plots.chi, 'chi', 'chiErr', null);
    // The temperatures where some estimate was measured for too few autocorrelation times.
    const short = t.filter((_, i) => ['m', 'u', 'c', 'chi'].some((k) => c && !c[`${k}Ok`][i]));
    $('scan-flagged').textContent = short.length
      ? `Hollow points, at T = ${short.map((v) => v.toFixed(3)).join(', ')}: measured for too few autocorrelation times; their error bars are lower bounds.`
      : '';
    this.setButtons();
  }
}
