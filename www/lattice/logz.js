// @ts-check
// The card "ln Z of this lattice, four ways": the lattice shown, at its current T, by the
// engine's exact enumeration, sampled bound, mean field and AIS, worked out in a worker of
// its own (logz_worker.js) from the run's session text, so neither the page nor the run waits
// for it. Each method's row is filled as it is done; a second press while one is under way
// starts again with the lattice as it is now. The table says which lattice its figures are
// for, and once the lattice shown is another (its size, model, T, h, boundary or seed) it is
// marked as the old lattice's until ln Z is computed again.

import { WorkerLink } from '../worker_link.js';
import { $ } from '../ui.js';
import { LOG_Z_METHODS, failLogZTable, fillLogZTable, markLogZTable } from '../views/logz_table.js';

const TABLE = 'lattice-logz-table';
const ERROR = 'lattice-logz-error';
const FOR = 'lattice-logz-for';

// The parts of a lattice's link (its setup's fragment: model, size, T, h, rule, order, boundary,
// seed) that ln Z depends on: not the rule or the order of the updates. The seed draws a spin
// glass's bonds (and a ferromagnet's sampled and AIS estimates).
/** @param {string} fragment */
export function logZSetup(fragment) {
  const p = new URLSearchParams(fragment);
  const model = (p.get('model') ?? '').replaceAll('-', ' ');
  return `${p.get('size')} × ${p.get('size')} ${model}, T = ${p.get('T')}, h = ${p.get('h')}, ${p.get('boundary')} boundary, seed ${p.get('seed')}`;
}

export class LatticeLogZ {
  // session(): a promise of the run's session ({text, …}, the lattice worker's).
  // setup(): the lattice's link fragment as it is now (the engine's `fragment`).
  /**
   * @param {() => Promise<{text: string}>} session
   * @param {() => string} setup
   */
  constructor(session, setup) {
    this.session = session;
    this.setup = setup;
    // The lattice the table's figures are for (logZSetup), null before the first press.
    /** @type {string | null} */
    this.computedFor = null;
    /** @type {WorkerLink<never, import('../messages').LogZFrame, never> | null} */
    this.link = null;
    $('lattice-logz-run').addEventListener('click', () => this.compute());
  }

  // Works ln Z out four ways for the lattice as it is now; a promise that resolves once the
  // table is filled (or the job failed, said beside it, or was replaced by a newer one).
  async compute() {
    this.link?.stop();
    markLogZTable(TABLE, ERROR);
    this.computedFor = logZSetup(this.setup());
    this.check();
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

  // Says which lattice the table is for, and marks it as the old lattice's when the lattice
  // shown is another: called after the lattice changes.
  check() {
    if (this.computedFor === null) return;
    const now = logZSetup(this.setup());
    const stale = now !== this.computedFor;
    const note = $(FOR);
    note.hidden = false;
    note.classList.toggle('error', stale);
    note.textContent = stale
      ? `These figures are for the lattice as it was (${this.computedFor}), not the one shown now (${now}): press “Compute ln Z of the lattice” again.`
      : `For the lattice shown: ${this.computedFor}.`;
    $(TABLE).classList.toggle('stale', stale);
  }
}
