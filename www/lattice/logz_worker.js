// @ts-check
// The worker of the lattice's ln Z card ("ln Z of this lattice, four ways"): the lattice the
// page shows, restored from its session text on an engine of its own, and its ln Z at its T by
// exact enumeration, the sampled bound, mean field and AIS (IsingLab.lattice_log_z, the
// engine's page effort). Apart from the lattice's run: the run goes on meanwhile, the page
// never waits (AIS on a 32×32 lattice, 1024 spins as a dense network, takes many seconds),
// and a job is abandoned by ending its worker. The page starts one worker per job
// (www/lattice/logz.js).
//
//   page → worker   {type: 'init', js, wasm} · {type: 'log-z', id, session, methods}
//   worker → page   {type: 'ready'}
//                   {type: 'frame', row}            each method's row as it is done
//                   {type: 'result', id, value: rows | error}
//                   {type: 'panic', message} · {type: 'error', part: 'protocol', message}
// Rows are {method, value | error, ms} (worker_host.js, timedLogZ).

import { report, serveEngine, timedLogZ } from '../worker_host.js';

/** @type {import('boltzlab-bindings').IsingLab} */
let lab = null;

serveEngine(
  (engine) => {
    lab = new engine.IsingLab(4, 1, 1);
  },
  (data) => {
    if (data.type !== 'log-z') throw new Error(`the ln Z worker does not handle ${String(data.type)} messages`);
    try {
      lab.dispatch({ command: 'restore-session', text: data.session });
    } catch (err) {
      report({ type: 'result', id: data.id, error: `the lattice could not be read: ${err?.message ?? err}` });
      return;
    }
    const rows = timedLogZ(
      data.methods,
      (method) => lab.lattice_log_z(method),
      (row) => {
        /** @type {import('../messages').LogZFrame} */
        const frame = { type: 'frame', row };
        postMessage(frame);
      },
    );
    report({ type: 'result', id: data.id, value: rows });
  },
);
