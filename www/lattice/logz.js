// @ts-check
// The card "ln Z of this lattice, four ways": the lattice shown, at its current T, by the
// engine's exact enumeration, sampled bound, mean field and AIS, worked out in a worker of
// its own (logz_worker.js) from the run's session text, so neither the page nor the run waits
// for it. Each method's row is filled as it is done; a second press while one is under way
// starts again with the lattice as it is now.

import { WorkerLink } from '../worker_link.js';
import { $ } from '../ui.js';
import { LOG_Z_METHODS, failLogZTable, fillLogZTable, markLogZTable } from '../views/logz_table.js';

const TABLE = 'lattice-logz-table';
const ERROR = 'lattice-logz-error';

export class LatticeLogZ {
  // session(): a promise of the run's session ({text, …}, the lattice worker's).
  /** @param {() => Promise<{text: string}>} session */
  constructor(session) {
    this.session = session;
    /** @type {WorkerLink<never, import('../messages').LogZFrame, never> | null} */
    this.link = null;
    $('lattice-logz-run').addEventListener('click', () => this.compute());
  }

  // Works ln Z out four ways for the lattice as it is now; a promise that resolves once the
  // table is filled (or the job failed, said beside it, or was replaced by a newer one).
  async compute() {
    this.link?.stop();
    markLogZTable(TABLE, ERROR);
    /** @type {WorkerLink<never, import('../messages').LogZFrame, never>} */
    const mine = new WorkerLink(
      new URL('./logz_worker.js', import.meta.url),
      {},
      {
        onFrame: ({ row }) => {
          if (this.link === mine) fillLogZTable(TABLE, ERROR, [row]);
        },
        onSession: () => {},
        onError: (message) => {
          if (this.link === mine) failLogZTable(TABLE, ERROR, message);
        },
        onFault: (message) => {
          if (this.link === mine) failLogZTable(TABLE, ERROR, `ln Z could not be worked out: ${message}`);
        },
      },
    );
    this.link = mine;
    try {
      const { text } = await this.session();
      const rows = await mine.call({ type: 'log-z', session: text, methods: LOG_Z_METHODS });
      if (this.link === mine) fillLogZTable(TABLE, ERROR, rows);
    } catch (err) {
      if (this.link === mine) failLogZTable(TABLE, ERROR, err.message ?? String(err));
    } finally {
      if (this.link === mine) {
        mine.stop();
        this.link = null;
      }
    }
  }
}
