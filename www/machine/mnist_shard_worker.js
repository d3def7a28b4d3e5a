// @ts-check
// A helper of MNIST learning on several cores (mnist_team.js says how the team works and its
// messages): a replica of the learning worker's run that shares each update as shard `index`
// of `count`, as far as the learning worker lets it ('go'), and draws nothing.

import { serveEngine, trapped } from '../worker_host.js';
import { Mailbox, sharedUpdate } from './mnist_team.js';

/** @type {typeof import('boltzlab-bindings')} */
let engine = null;
/** @type {import('boltzlab-bindings').MnistLab | null} */
let lab = null;
/** @type {{index: number, count: number, ports: (MessagePort | null)[], mailbox: Mailbox} | null} */
let team = null;
let through = 0;
/** @type {Promise<void> | null} */
let sharing = null;

/** @param {import('../messages').ShardReport} report */
const toLeader = (report) => postMessage(report);

function refuse(message) {
  toLeader({ type: 'error', part: 'learning', message });
}

// Shares updates until the run has `through` (a divergence, at the end of an update, is the
// run's: replica 0 meets the same and reports it; anything else is a fault of the team).
async function share() {
  while (lab && team && lab.updates() < through) {
    try {
      await sharedUpdate(lab, team);
    } catch (err) {
      if (trapped(err)) return;
      const atTheEnd = !lab.sharing();
      lab.abandon_shared_update();
      through = lab.updates();
      if (!atTheEnd) refuse(String(err?.message ?? err));
      return;
    }
  }
}

/** @param {import('../messages').MnistShardMessage} data */
function handle(data) {
  switch (data.type) {
    case 'join': {
      const mailbox = new Mailbox();
      for (const port of data.ports) if (port) port.onmessage = ({ data: message }) => mailbox.put(message);
      team = { index: data.index, count: data.count, ports: data.ports, mailbox };
      break;
    }
    case 'sync':
      if (data.file) {
        lab?.free();
        lab = null;
        lab = new engine.MnistLab(new Uint8Array(data.file), data.hidden, data.seed);
      }
      if (!lab) throw new Error('MNIST helper: no file yet');
      lab.dispatch({ command: 'restore-run', bytes: new Uint8Array(data.run) });
      through = lab.updates();
      toLeader({ type: 'synced', updates: lab.updates() });
      break;
    case 'go':
      through = Math.max(through, data.through);
      sharing ??= share().finally(() => (sharing = null));
      break;
    default: {
      /** @type {never} */
      const rest = data; // every message of MnistShardMessage is handled above (make typecheck)
      refuse(`unknown message ${/** @type {any} */ (rest).type}`);
    }
  }
}

serveEngine((loaded) => (engine = loaded), handle);

export {};
