// @ts-check
// The machine's options: dataset, method and learning seed (a change builds a new run), the
// way of getting the statistics (annealed, or persistent fantasy particles K with k sweeps
// a cycle, each a ladder of R tempered chains when tempering), the learning rule, rate, weight decay and annealing schedule (applied to the
// run), and a start from random couplings (the Sherrington–Kirkpatrick glass). Every
// value goes to the engine, which checks it; a refused one is explained beside its control.

import { $, PressGuard, clearError, readNumber, showError, showUnused } from '../ui.js';

const ERRORS = [
  'bm-dataset-error',
  'bm-editor-error',
  'bm-statistics-error',
  'bm-rule-error',
  'bm-schedule-error',
  'bm-run-error',
];

export class MachineOptions {
  // mode: the MachineMode whose run these options set.
  constructor(mode) {
    this.mode = mode;
    // Told of every refused value, so that a press of Run or a step that refused the box it
    // left (its change event comes first) does not act (see PressGuard).
    this.guard = new PressGuard();
    for (const id of ['bm-dataset', 'bm-method'])
      $(id).addEventListener('change', () => this.refusedIf(!mode.create()));
    // A refused seed goes back to the run's, as every refused box does.
    $('bm-seed').addEventListener('change', () => {
      if (this.refusedIf(!mode.create()) && mode.lab) $('bm-seed').value = String(mode.lab.seed());
    });
    // Each change is a command built from the controls: made on the mirror first (the
    // engine's checks, its reason shown beside the control), then sent to the worker; a
    // refused value goes back to the run's.
    const setRule = () => {
      const made = mode.change('bm-rule-error', () => ({
        command: 'set-update',
        rule: /** @type {'gradient' | 'sign'} */ ($('bm-rule').value),
        size: readNumber($('bm-rate').value),
      }));
      if (this.refusedIf(!made) && mode.lab) {
        $('bm-rule').value = mode.lab.rule();
        $('bm-rate').value = String(mode.lab.rule_size());
      }
    };
    $('bm-rule').addEventListener('change', setRule);
    $('bm-rate').addEventListener('change', setRule);
    $('bm-decay').addEventListener('change', () => {
      const made = mode.change('bm-rule-error', () => ({
        command: 'set-weight-decay',
        decay: readNumber($('bm-decay').value),
      }));
      if (this.refusedIf(!made) && mode.lab) $('bm-decay').value = String(mode.lab.weight_decay());
    });
    const setStatistics = () =>
      mode.change('bm-statistics-error', () => ({
        command: 'set-statistics',
        statistics: /** @type {import('boltzlab-bindings').StatisticsWay} */ ($('bm-statistics').value), // the menu's engine name
        particles: readNumber($('bm-particles').value),
        sweeps: readNumber($('bm-gibbs').value),
        replicas: readNumber($('bm-replicas').value),
      }));
    for (const id of ['bm-statistics', 'bm-particles', 'bm-gibbs', 'bm-replicas'])
      $(id).addEventListener('change', () => {
        if (this.refusedIf(!setStatistics())) this.sync();
        else this.showUsed();
      });
    $('bm-random-couplings').addEventListener('click', () => {
      let seed = 0;
      const drawn = () => ({
        command: /** @type {const} */ ('random-couplings'),
        seed: (seed = readNumber($('bm-seed').value)),
      });
      if (mode.change('bm-statistics-error', drawn)) mode.showCouplings(seed);
    });
    $('bm-schedule-apply').addEventListener('click', () =>
      mode.change('bm-schedule-error', () => ({
        command: 'set-schedule',
        schedule: $('bm-schedule').value,
        collect: readNumber($('bm-collect').value),
      })),
    );
  }

  // Tells the guard of a refusal (when `refused`); returns `refused`.
  refusedIf(refused) {
    if (refused) this.guard.refuse();
    return refused;
  }

  // Whether a box that waits for its own button holds a value the engine would refuse: the
  // schedule and collect sweeps (Apply schedule) and the hidden units (Learn my patterns).
  // Checked as learning is run or stepped, so that a bad value there is not silently passed
  // over: its reason is shown beside it (the text stays, to be corrected) and the press does
  // nothing. A good value there still waits for its button. The checks are the engine's, made
  // on a throwaway machine (never on the mirror: a schedule set there and undone would start
  // its cycle afresh, and the mirror would no longer be the worker's run).
  unappliedRefused() {
    const lab = this.mode.lab;
    if (!lab) return false;
    const refuse = (errorId, action) => {
      try {
        action();
        return false;
      } catch (err) {
        showError(errorId, err.message ?? String(err));
        return true;
      }
    };
    const { MachineLab } = this.mode.engine;
    const schedule = $('bm-schedule').value;
    const collect = readNumber($('bm-collect').value);
    if (schedule !== lab.schedule() || collect !== lab.collect_sweeps()) {
      const refused = refuse('bm-schedule-error', () => {
        const probe = MachineLab.custom('1', 0, lab.method(), 0);
        try {
          probe.dispatch({ command: 'set-schedule', schedule, collect });
        } finally {
          probe.free();
        }
      });
      if (refused) return true;
    }
    const hidden = readNumber($('bm-hidden').value);
    return refuse('bm-editor-error', () => MachineLab.custom('1', hidden, lab.method(), 0).free());
  }

  // The controls show what the run holds.
  sync() {
    const lab = this.mode.lab;
    $('bm-rule').value = lab.rule();
    $('bm-rate').value = String(lab.rule_size());
    $('bm-decay').value = String(lab.weight_decay());
    $('bm-schedule').value = lab.schedule();
    $('bm-collect').value = String(lab.collect_sweeps());
    $('bm-statistics').value = lab.statistics();
    if (lab.statistics_particles() > 0) $('bm-particles').value = String(lab.statistics_particles());
    if (lab.statistics_sweeps() > 0) $('bm-gibbs').value = String(lab.statistics_sweeps());
    if (lab.statistics_replicas() > 1) $('bm-replicas').value = String(lab.statistics_replicas());
    this.showUsed();
  }

  // Only the boxes the machine and its statistics use can be edited, and a note says why the
  // others are not: the mean-field machine has no samples to keep (its statistics are always
  // settled); the annealed two-phase statistics keep no particles; only tempering has replicas.
  showUsed() {
    const meanField = this.mode.lab.method() === 'mean-field';
    const statistics = $('bm-statistics').value;
    const settled = meanField ? 'the mean-field machine’s statistics are always settled, with no samples to keep' : '';
    const annealed = statistics === 'anneal' ? 'not used by the annealed two-phase statistics' : '';
    showUnused(
      {
        'bm-statistics': settled,
        'bm-particles': settled || annealed,
        'bm-gibbs': settled || annealed,
        'bm-replicas':
          settled || annealed || (statistics !== 'tempering' ? 'only parallel tempering has replicas' : ''),
      },
      'bm-unused',
    );
  }

  // A new run: the messages about the old one go.
  clearErrors() {
    for (const id of ERRORS) clearError(id);
  }

  // The dataset, method and seed controls show a restored run's (and its patterns, when
  // they are the user's own).
  show({ dataset, method, seed, patterns = null, hidden = null }) {
    $('bm-dataset').value = dataset;
    $('bm-method').value = method;
    $('bm-seed').value = String(seed);
    if (patterns !== null) $('bm-patterns-text').value = patterns;
    if (hidden !== null) $('bm-hidden').value = String(hidden);
  }
}
