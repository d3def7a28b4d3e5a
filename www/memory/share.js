// @ts-check
// The pattern memory's Share part: Copy link gives a link to exactly this memory, the
// memory's session text (MemoryLab.session(): size, seed, storage rule, the stored patterns,
// temperature, the state and the random streams) in the URL fragment (link.js). Opening it
// restores the memory through the engine's checked restore: a damaged or edited link is
// refused with the reason and the memory shown stays as it was.

import { $ } from '../ui.js';
import { offerStateLink } from '../link.js';

export class MemorySharing {
  // memory: the MemoryMode (memory/mode.js).
  constructor(memory) {
    this.memory = memory;
    $('memory-copy-link').addEventListener('click', () => this.copyLink());
  }

  copyLink() {
    return offerStateLink(
      () => {
        const session = this.memory.save();
        if (session === null) throw new Error('no memory has been made yet');
        const { width, height, patterns, rule } = this.memory.checkSession(session);
        return {
          payload: { mode: 'memory', session },
          note: `It opens exactly this ${width} × ${height} memory: its ${patterns} stored patterns (${rule}), temperature and state.`,
        };
      },
      $('memory-share-link'),
      $('memory-copy-done'),
      'This memory',
    );
  }
}
