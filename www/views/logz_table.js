// @ts-check
// The ln Z table both modes show: one row per method (data-method = exact, sampled,
// mean-field, ais) with the value, its standard error, what kind of bound it is and how
// long it took.

import { clearError, format, showError } from '../ui.js';

// Fills the table from `compute(method)`, each method timed here (the engine has no clock
// in wasm). A bad temperature stops with a message in `errorId`; a method that cannot run
// says why in its row.
export function fillLogZTable(tableId, errorId, compute) {
  clearError(errorId);
  for (const row of /** @type {NodeListOf<HTMLTableRowElement>} */ (
    document.querySelectorAll(`#${tableId} tbody tr`)
  )) {
    const cell = (name) => /** @type {HTMLElement} */ (row.querySelector(`.${name}`));
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
