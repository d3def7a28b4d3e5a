// @ts-check
// The pattern editor: a grid of pixels to click (in the dataset's picture shape, or a chosen
// length), added as a line of 0s and 1s to the "My patterns" text when the engine accepts
// the text with it; "Learn my patterns" builds a run from that text.

import { $, attempt, clearError, readNumber } from '../ui.js';
import { pictureShape } from '../views/units.js';

export class PatternEditor {
  constructor(mode) {
    this.mode = mode;
    this.drawing = new Uint8Array(0);
    $('bm-use-patterns').addEventListener('click', () => {
      const before = $('bm-dataset').value;
      $('bm-dataset').value = 'custom';
      if (!mode.create()) $('bm-dataset').value = before;
    });
    $('bm-draw-length').addEventListener('change', () => {
      let length = 0;
      const read = () => (length = mode.engine.check_pattern_length(readNumber($('bm-draw-length').value)));
      if (attempt('bm-draw-error', read)) this.reset(length, true);
    });
    $('bm-draw-clear').addEventListener('click', () => this.reset(this.drawing.length, true));
    $('bm-draw-add').addEventListener('click', () => this.add());
  }

  // `length` pixels, all off: in the run's picture shape, or (for a chosen length or one
  // unlike the run's) a square or rows of up to 16.
  reset(length, chosen = false) {
    const { mode } = this;
    const { cols } = chosen || length !== mode.lab.visible() ? pictureShape('custom', length, 0) : mode.shape();
    this.drawing = new Uint8Array(length);
    $('bm-draw-length').value = String(length);
    clearError('bm-draw-error');
    const grid = $('bm-draw-grid');
    grid.style.gridTemplateColumns = `repeat(${cols}, 1.6rem)`;
    const cells = [];
    for (let i = 0; i < length; i++) {
      const cell = document.createElement('button');
      cell.type = 'button';
      cell.className = 'pixel';
      cell.setAttribute('aria-pressed', 'false');
      cell.setAttribute('aria-label', `pixel ${i + 1}`);
      cell.addEventListener('click', () => {
        this.drawing[i] ^= 1;
        cell.setAttribute('aria-pressed', String(this.drawing[i] === 1));
      });
      cells.push(cell);
    }
    grid.replaceChildren(...cells);
  }

  // Appends the drawn pattern as a line of the editor's text, if the engine accepts the
  // text with it (every pattern of one length).
  add() {
    const box = $('bm-patterns-text');
    const before = box.value.replace(/\s+$/, '');
    const text = `${before}${before ? '\n' : ''}${this.drawing.join('')}`;
    if (!attempt('bm-editor-error', () => this.mode.engine.check_patterns(text))) return;
    box.value = text;
    $('bm-draw-done').textContent =
      `Added ${this.drawing.join('')} as pattern ${text.split('\n').filter((l) => l.trim()).length}.`;
    $('bm-draw-done').hidden = false;
  }
}
