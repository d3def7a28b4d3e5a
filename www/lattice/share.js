// @ts-check
// Export and share: a PNG of the lattice, CSV of the trace, the full state as JSON (and
// its import), and two links: Copy link gives the exact state (the engine's session text in
// the fragment, link.js), Copy parameters link the parameters and seed (the address bar shows
// that one as they change). Imported files and links are checked by the engine; a bad one
// is explained and changes nothing.

import { $, attempt, showError, clearError, download, sentence } from '../ui.js';
import { MAX_LINK_CHARS, addressWith, encodeState, isStateLink, offerLink } from '../link.js';

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
    this.read = read;
    $('copy-link').addEventListener('click', () => this.copyLink());
    $('copy-params').addEventListener('click', () => this.copyParamsLink());
    // The fragment the address changed to, not the address now (see app.js's openLink).
    window.addEventListener('hashchange', (event) => this.applyLink(new URL(event.newURL).hash));
  }

  // Applies a URL fragment (on load or when the address changes); on error the run is left
  // as it is and the address shows its parameters again.
  applyLink(hash) {
    const fragment = hash.replace(/^#/, '');
    // A state link is opened by the app (app.js, link.js), whichever mode it holds.
    if (fragment === '' || fragment === this.lab.fragment() || isStateLink(fragment)) return;
    let ok;
    try {
      this.lab.dispatch({ command: 'apply-fragment', fragment });
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

  // The parameters-and-seed link: it replays the run from its seeded start.
  paramsLink() {
    return addressWith(this.lab.fragment());
  }

  // The exact state's link (the live run's session text, from the engine's worker); a state
  // too large for a sensible link falls back to the parameters link, and says so.
  async copyLink() {
    $('copy-done').textContent = 'Making the link…';
    let link;
    let note;
    try {
      link = addressWith(await encodeState({ mode: 'lattice', session: await this.read('session') }), '');
      note = `It opens exactly this state: the same tick, spins, clamps and parameters (${link.length} characters).`;
      if (link.length > MAX_LINK_CHARS) {
        note = `This lattice’s exact state would need a link of ${link.length} characters (more than ${MAX_LINK_CHARS}), so this link carries only the parameters and seed: it replays the run from its start, not this state. Export state (JSON) keeps the exact state.`;
        link = this.paramsLink();
      }
    } catch (err) {
      note = `The exact state could not be put in a link (${err.message}), so this link carries only the parameters and seed.`;
      link = this.paramsLink();
    }
    await offerLink($('share-link'), $('copy-done'), link, note);
  }

  async copyParamsLink() {
    const note =
      'It carries the parameters and seed, so it replays the run from its start (not painted or evolved spins).';
    await offerLink($('share-link'), $('copy-done'), this.paramsLink(), note);
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
        this.lab.dispatch(
          SESSION_FORMAT.test(text) ? { command: 'restore-session', text } : { command: 'import-state', json: text },
        );
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
