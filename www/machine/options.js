// The machine's options: dataset, method and learning seed (a change builds a new run), the
// way of getting the statistics (annealed, or persistent fantasy particles K with k sweeps
// a cycle, each a ladder of R tempered chains when tempering), the learning rule, rate, weight decay and annealing schedule (applied to the
// run), and a start from random couplings (the Sherrington–Kirkpatrick glass). Every
// value goes to the engine, which checks it; a refused one is explained beside its control.

import { $, attempt, clearError, readNumber } from '../ui.js';

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
    const setRule = () =>
      attempt('bm-rule-error', () => mode.lab.set_update($('bm-rule').value, readNumber($('bm-rate').value)));
    $('bm-rule').addEventListener('change', setRule);
    $('bm-rate').addEventListener('change', setRule);
    $('bm-decay').addEventListener('change', () =>
      attempt('bm-rule-error', () => mode.lab.set_weight_decay(readNumber($('bm-decay').value))),
    );
    const setStatistics = () =>
      attempt('bm-statistics-error', () =>
        mode.lab.set_statistics(
          $('bm-statistics').value,
          readNumber($('bm-particles').value),
          readNumber($('bm-gibbs').value),
          readNumber($('bm-replicas').value),
        ),
      );
    for (const id of ['bm-statistics', 'bm-particles', 'bm-gibbs', 'bm-replicas'])
      $(id).addEventListener('change', () => {
        if (!setStatistics()) this.sync();
      });
    $('bm-random-couplings').addEventListener('click', () => {
      const seed = readNumber($('bm-seed').value);
      if (attempt('bm-statistics-error', () => mode.lab.random_couplings(seed))) {
        $('bm-run-done').textContent =
          `Couplings drawn from N(0, 1/n) with seed ${seed}: the Sherrington–Kirkpatrick glass on these units. Dream freely to watch it, or learn from here.`;
        $('bm-run-done').hidden = false;
        mode.draw();
      }
    });
    $('bm-schedule-apply').addEventListener('click', () =>
      attempt('bm-schedule-error', () =>
        mode.lab.set_schedule($('bm-schedule').value, readNumber($('bm-collect').value)),
      ),
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
    // The mean-field machine has no samples to keep: its statistics are always settled.
    const meanField = lab.method() === 'mean-field';
    for (const id of ['bm-statistics', 'bm-particles', 'bm-gibbs', 'bm-replicas']) $(id).disabled = meanField;
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
