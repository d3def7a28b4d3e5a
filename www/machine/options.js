// @ts-check
// The machine's options: dataset, method and learning seed (a change builds a new run), the
// way of getting the statistics (annealed, or persistent fantasy particles K with k sweeps
// a cycle, each a ladder of R tempered chains when tempering), the learning rule, rate, weight decay and annealing schedule (applied to the
// run), and a start from random couplings (the Sherrington–Kirkpatrick glass). Every
// value goes to the engine, which checks it; a refused one is explained beside its control.

import { $, clearError, readNumber, showUnused } from '../ui.js';

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
    for (const id of ['bm-dataset', 'bm-method', 'bm-seed']) $(id).addEventListener('change', () => mode.create());
    // Each change is a command built from the controls: made on the mirror first (the
    // engine's checks, its reason shown beside the control), then sent to the worker.
    const setRule = () =>
      mode.change('bm-rule-error', () => ({
        command: 'set-update',
        rule: /** @type {'gradient' | 'sign'} */ ($('bm-rule').value),
        size: readNumber($('bm-rate').value),
      }));
    $('bm-rule').addEventListener('change', setRule);
    $('bm-rate').addEventListener('change', setRule);
    $('bm-decay').addEventListener('change', () =>
      mode.change('bm-rule-error', () => ({ command: 'set-weight-decay', decay: readNumber($('bm-decay').value) })),
    );
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
        if (!setStatistics()) this.sync();
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
