// @ts-check
// The network as a file: export it as the JSON `boltzlab logz --network FILE` reads, and
// import such a file's weights into the run (read from and sent to the machine's worker; the
// engine refuses a malformed or mismatched
// one and changes nothing).

import { $, download } from '../ui.js';

export class NetworkFiles {
  constructor(mode) {
    $('bm-export').addEventListener('click', async () => {
      const name = `boltzlab-${mode.dataset}.json`;
      download(name, await mode.read('export_network'), 'application/json');
    });
    $('bm-import').addEventListener('change', async (event) => {
      const input = /** @type {HTMLInputElement} */ (event.target);
      const file = input.files[0];
      if (!file) return;
      const text = await file.text();
      $('bm-import-done').hidden = true;
      if (mode.change('bm-import-error', { command: 'import-network', text })) {
        $('bm-import-done').textContent = `Loaded the weights of ${file.name}.`;
        $('bm-import-done').hidden = false;
      }
      input.value = '';
      mode.draw();
    });
  }
}
