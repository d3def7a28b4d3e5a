// @ts-check
// The machine's Export and share part: Copy link gives a link to exactly this machine, the
// mode's current session text in the fragment (link.js). The general machine's is the
// engine's MachineLab session (weights, cycle, stage, phase, curves); the restricted
// machine's is its RbmLab session (weights, velocities, particles, random stream, epoch
// position, curves). Before a restricted run exists, the link carries its controls'
// dataset, sizes, options and seed only, and says so.

import { $ } from '../ui.js';
import { offerStateLink } from '../link.js';
import { controlValues } from '../lessons/scene.js';

// The payload of the machine shown: {mode, kind, session, options?} and a note on what it
// carries.
export function machinePayload(machine) {
  if (machine.kind !== 'restricted') {
    if (!machine.lab) machine.enter();
    return {
      payload: { mode: 'machine', kind: 'full', session: machine.session() },
      note: 'It opens exactly this machine: its dataset, options, weights, learning cycle and phase.',
    };
  }
  const mnist = machine.rbm.mnist.active ? machine.rbm.mnist.linkOptions() : null;
  if (mnist !== null)
    return {
      payload: { mode: 'machine', kind: 'restricted', session: null, options: mnist },
      note: 'An MNIST run (a few MB) does not fit in a link: it starts a new run of the same machine and options from the same seed. To keep the run itself, use Save the run to a file.',
    };
  const session = machine.restrictedSession();
  if (session !== null)
    return {
      payload: { mode: 'machine', kind: 'restricted', session },
      note: 'It opens exactly this restricted machine.',
    };
  const options = controlValues('restricted');
  return {
    payload: { mode: 'machine', kind: 'restricted', session: null, options },
    note: 'No restricted machine has been made yet, so the link carries only its dataset, sizes, options and seed: it starts a new run from them.',
  };
}

export class MachineSharing {
  constructor(machine) {
    this.machine = machine;
    $('bm-copy-link').addEventListener('click', () => this.copyLink());
  }

  copyLink() {
    return offerStateLink(
      () => machinePayload(this.machine),
      $('bm-share-link'),
      $('bm-copy-done'),
      'This machine’s state',
      '; use Export network (JSON) instead',
    );
  }
}
