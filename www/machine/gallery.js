// The gallery of free-running samples beside the training patterns: the engine settles the
// machine `count` times and returns the distinct visible vectors, most frequent first.

import { $, attempt, format, readNumber } from '../ui.js';
import { patternCanvas } from '../views/patterns.js';

// Samples shown at most; the rest are counted.
const SHOWN = 40;

export class Gallery {
  constructor(mode) {
    this.mode = mode;
    $('bm-gallery-run').addEventListener('click', () => this.generate());
  }

  generate() {
    const { mode } = this;
    let entries = null;
    const count = readNumber($('bm-gallery-count').value);
    if (!attempt('bm-gallery-error', () => (entries = mode.lab.gallery(count, 1)))) return;
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
