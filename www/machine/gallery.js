// @ts-check
// The gallery of free-running samples beside the training patterns: the engine (in the
// machine's worker) settles the machine `count` times and returns the distinct visible vectors, most frequent first.

import { $, clearError, format, readNumber, showError } from '../ui.js';
import { patternCanvas } from '../views/patterns.js';

// Samples shown at most; the rest are counted.
const SHOWN = 40;

export class Gallery {
  constructor(mode) {
    this.mode = mode;
    $('bm-gallery-run').addEventListener('click', () => this.generate());
  }

  // Asks the worker for the samples and shows them; a promise that resolves once shown.
  async generate() {
    const { mode } = this;
    let entries = null;
    if (!mode.lab) return;
    try {
      entries = await mode.read('gallery', readNumber($('bm-gallery-count').value), 1);
    } catch (err) {
      showError('bm-gallery-error', err.message ?? String(err));
      return;
    }
    clearError('bm-gallery-error');
    const list = $('bm-gallery');
    list.replaceChildren();
    const shape = mode.shape();
    for (const entry of entries.slice(0, SHOWN)) {
      const item = document.createElement('li');
      if (entry.training) item.classList.add('training');
      const caption = document.createElement('span');
      const p = entry.probability == null ? '' : ` · p ${format(entry.probability, 3)}`;
      caption.textContent = `${format(entry.frequency, 3)}${p}${entry.training ? ' · training' : ''}`;
      item.append(patternCanvas(entry.pattern, shape, mode.fill), caption);
      list.append(item);
    }
    if (entries.length > SHOWN) {
      const more = document.createElement('li');
      more.textContent = `… and ${entries.length - SHOWN} rarer vectors`;
      list.append(more);
    }
  }
}
