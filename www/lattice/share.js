// Export and share: a PNG of the lattice, CSV of the trace, the full state as JSON (and
// its import), and the share link whose URL fragment carries the parameters. Imported
// files and links are checked by the engine; a bad one is explained and changes nothing.

import { $, attempt, showError, clearError, download, sentence } from '../ui.js';

// The engine's lattice session text names its format in a field of its own.
const SESSION_FORMAT = /"format"\s*:\s*"boltzlab-lattice-session"/;

export class Sharing {
  // engine: the wasm bindings (for the file-size check); onRestart: called after an import or a link replaced the run;
  // read(method): a promise of the live run's export_state() or trace_csv() (lattice/mode.js).
  constructor(lab, engine, onRestart, read) {
    this.lab = lab;
    this.engine = engine;
    this.onRestart = onRestart;
    $('download-png').addEventListener('click', () => this.downloadPng());
    const offer = (name, method, type) =>
      read(method).then(
        (text) => download(name, text, type),
        (err) => showError('import-error', `Nothing was exported: ${err.message}`),
      );
    $('download-trace').addEventListener('click', () => offer('boltzlab-trace.csv', 'trace_csv', 'text/csv'));
    $('export-state').addEventListener('click', () => offer('boltzlab-state.json', 'export_state', 'application/json'));
    $('import-state').addEventListener('change', (event) => this.importFile(event.target));
    $('copy-link').addEventListener('click', () => this.copyLink());
    window.addEventListener('hashchange', () => this.applyLink(window.location.hash));
  }

  // Applies a URL fragment (on load or when the address changes); on error the run is left
  // as it is and the address shows its parameters again.
  applyLink(hash) {
    const fragment = hash.replace(/^#/, '');
    if (fragment === '' || fragment === this.lab.fragment()) return;
    let ok;
    try {
      this.lab.apply_fragment(fragment);
      ok = true;
      clearError('link-error');
    } catch (err) {
      ok = false;
      showError('link-error', `This link could not be used, so nothing was changed. ${sentence(err.message)}`);
    }
    if (ok) this.onRestart();
    this.update();
  }

  // Puts the run's parameters into the share field at once, and into the address bar a
  // moment later (a dragged slider would otherwise rewrite the address 60 times a second,
  // which browsers throttle).
  update() {
    const fragment = this.lab.fragment();
    const { origin, pathname, search } = window.location;
    $('share-link').value = `${origin}${pathname}${search}#${fragment}`;
    clearTimeout(this.addressTimer);
    this.addressTimer = setTimeout(() => {
      if (window.location.hash !== `#${fragment}`) history.replaceState(null, '', `#${fragment}`);
    }, 250);
  }

  async copyLink() {
    const field = $('share-link');
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      $('copy-done').textContent = 'Link copied.';
    } catch {
      $('copy-done').textContent = 'Select the link above and copy it (the browser did not allow copying).';
    }
  }

  async importFile(input) {
    const file = input.files?.[0];
    if (!file) return;
    $('import-done').hidden = true;
    // A file beyond the engine's limit is refused before it is read.
    const engine = this.engine;
    const small = attempt('import-error', () => {
      try {
        engine.check_state_file_size(file.size);
      } catch (err) {
        throw new Error(`Nothing was changed: ${file.name} could not be imported. ${sentence(err.message)}`);
      }
    });
    if (!small) {
      input.value = '';
      return;
    }
    let text;
    try {
      text = await file.text();
    } catch (err) {
      showError('import-error', `The file could not be read: ${err.message}`);
      return;
    } finally {
      input.value = '';
    }
    const ok = attempt('import-error', () => {
      try {
        // A session text (what the fault overlay exports after a panic) or a state file.
        if (SESSION_FORMAT.test(text)) this.lab.restore_session(text);
        else this.lab.import_state(text);
      } catch (err) {
        throw new Error(`Nothing was changed: ${file.name} could not be imported. ${sentence(err.message)}`);
      }
    });
    if (!ok) return;
    $('import-done').textContent = `Imported ${file.name}.`;
    $('import-done').hidden = false;
    this.onRestart();
    this.update();
  }

  // The lattice at full resolution, scaled up by a whole factor to at least 512 pixels.
  downloadPng() {
    const spins = $('spins');
    const scale = Math.max(1, Math.ceil(512 / spins.width));
    const canvas = document.createElement('canvas');
    canvas.width = spins.width * scale;
    canvas.height = spins.height * scale;
    const c = canvas.getContext('2d');
    c.imageSmoothingEnabled = false;
    c.drawImage(spins, 0, 0, canvas.width, canvas.height);
    canvas.toBlob((blob) => {
      if (blob) download(`boltzlab-lattice-${spins.width}.png`, blob);
    }, 'image/png');
  }
}
