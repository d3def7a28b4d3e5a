// @ts-check
// The card "ln Z of this lattice, four ways": the lattice shown, at its current T, by the
// engine's exact enumeration, sampled bound, mean field and AIS.

import { $ } from '../ui.js';
import { fillLogZTable } from '../views/logz_table.js';

export class LatticeLogZ {
  constructor(lab) {
    $('lattice-logz-run').addEventListener('click', () =>
      fillLogZTable('lattice-logz-table', 'lattice-logz-error', (method) => lab.lattice_log_z(method)),
    );
  }
}
