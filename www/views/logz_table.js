// @ts-check
// The ln Z table both modes show: one row per method (data-method = exact, sampled,
// mean-field, ais) with the value, its standard error, what kind of bound it is and how
// long it took. The values are worked out in a worker (the general machine's own, the
// lattice's ln Z worker) and come as rows: {method, value: the engine's {log_z, stderr?,
// bound, …}, ms} or {method, error, ms} (worker_host.js, timedLogZ).

import { clearError, format, showError } from '../ui.js';

// The methods, in the tables' order.
export const LOG_Z_METHODS = ['exact', 'sampled', 'mean-field', 'ais'];

const rowsOf = (tableId) =>
  /** @type {NodeListOf<HTMLTableRowElement>} */ (document.querySelectorAll(`#${tableId} tbody tr`));

// Marks every method's row as being worked out (its old value gone), and the table busy.
export function markLogZTable(tableId, errorId) {
  clearError(errorId);
  document.getElementById(tableId)?.setAttribute('aria-busy', 'true');
  for (const row of rowsOf(tableId)) {
    const cell = (name) => /** @type {HTMLElement} */ (row.querySelector(`.${name}`));
    cell('value').textContent = 'computing…';
    delete cell('value').dataset.value;
    for (const name of ['stderr', 'bound', 'time']) cell(name).textContent = '';
  }
}

// Fills the rows of the methods in `rows`, and marks the table done once every row has a
// result. A bad temperature stops with a message in `errorId` (every method refuses it); a
// method that cannot run says why in its row.
export function fillLogZTable(tableId, errorId, rows) {
  clearError(errorId);
  const byMethod = new Map(rows.map((r) => [r.method, r]));
  for (const row of rowsOf(tableId)) {
    const result = byMethod.get(row.dataset.method);
    if (!result) continue;
    const cell = (name) => /** @type {HTMLElement} */ (row.querySelector(`.${name}`));
    if ('error' in result) {
      if (/temperature/.test(result.error)) {
        // Every method refuses it: the rows still being worked out will not come.
        failLogZTable(tableId, errorId, result.error);
        return;
      }
      cell('value').textContent = 'not available';
      delete cell('value').dataset.value;
      cell('stderr').textContent = result.error;
      cell('bound').textContent = '';
      cell('time').textContent = '';
      continue;
    }
    const { value, ms } = result;
    cell('value').textContent = format(value.log_z, 6);
    cell('value').dataset.value = String(value.log_z);
    cell('stderr').textContent = value.stderr === undefined ? '' : `± ${format(value.stderr, 4)}`;
    cell('bound').textContent =
      { exact: 'exact', lower: 'lower bound', none: 'estimate' }[value.bound] ?? String(value.bound);
    cell('time').textContent = ms < 1 ? '< 1 ms' : `${Math.round(ms)} ms`;
  }
  if ([...rowsOf(tableId)].every((row) => row.querySelector('.value').textContent !== 'computing…')) unmark(tableId);
}

// Ends the table's busy state, and says in `errorId` why the rows still computing never came.
export function failLogZTable(tableId, errorId, message) {
  for (const row of rowsOf(tableId)) {
    const value = /** @type {HTMLElement} */ (row.querySelector('.value'));
    if (value.textContent === 'computing…') value.textContent = '–';
  }
  unmark(tableId);
  showError(errorId, message);
}

function unmark(tableId) {
  document.getElementById(tableId)?.removeAttribute('aria-busy');
}
