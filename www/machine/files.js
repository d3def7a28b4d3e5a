// The network as a file: export it as the JSON `boltzlab logz --network FILE` reads, and
// import such a file's weights into the run (the engine refuses a malformed or mismatched
// one and changes nothing).

import { $, attempt, download } from '../ui.js';

export class NetworkFiles {
  constructor(mode) {
    $('bm-export').addEventListener('click', () =>
      download(`boltzlab-${mode.dataset}.json`, mode.lab.export_network(), 'application/json'),
    );
    $('bm-import').addEventListener('change', async (event) => {
      const file = event.target.files[0];
      if (!file) return;
      const text = await file.text();
      $('bm-import-done').hidden = true;
      if (attempt('bm-import-error', () => mode.lab.import_network(text))) {
        $('bm-import-done').textContent = `Loaded the weights of ${file.name}.`;
        $('bm-import-done').hidden = false;
      }
      event.target.value = '';
      mode.draw();
    });
  }
}
