// @ts-check
// Pictures of binary patterns: the training patterns side by side (the one being clamped
// outlined), and one small canvas per sample of the machine's gallery.

import { cssColour } from './colour.js';
import { fitCanvas } from './canvas.js';
import { describe } from './describe.js';

export class PatternsView {
  constructor(canvas, fill) {
    this.canvas = canvas;
    this.fill = fill;
  }

  // patterns: flat 0/1 values, `count` patterns of `visible`; shape: {cols, rows};
  // current: the pattern to outline (or −1).
  draw({ patterns, count, visible, shape, current }) {
    const { cols, rows } = shape;
    const canvas = this.canvas;
    describe(
      canvas,
      () => `${count} patterns of ${visible} units` + (current >= 0 ? `, pattern ${current + 1} ringed` : ''),
    );
    const { c, w } = fitCanvas(canvas);
    const pixel = Math.max(2, Math.min(10, Math.floor(140 / Math.max(cols, rows * 2))));
    const boxW = cols * pixel + 8;
    const boxH = rows * pixel + 8;
    const perRow = Math.max(1, Math.floor(w / boxW));
    for (let k = 0; k < count; k++) {
      const x0 = (k % perRow) * boxW + 4;
      const y0 = Math.floor(k / perRow) * boxH + 4;
      for (let i = 0; i < visible; i++) {
        c.fillStyle = this.fill.css(patterns[k * visible + i]);
        c.fillRect(x0 + (i % cols) * pixel, y0 + Math.floor(i / cols) * pixel, pixel, pixel);
      }
      if (k === current) {
        c.strokeStyle = cssColour('--marker', '#e63946');
        c.lineWidth = 2;
        c.strokeRect(x0 - 2, y0 - 2, cols * pixel + 4, rows * pixel + 4);
      }
    }
    const height = Math.ceil(Math.ceil(count / perRow) * boxH + 8);
    if (Math.abs(canvas.getBoundingClientRect().height - height) > 1) canvas.style.height = `${height}px`;
  }
}

// A new canvas showing one pattern (an array of 0/1 of `shape.cols × shape.rows` at most).
export function patternCanvas(pattern, shape, fill) {
  const { cols, rows } = shape;
  const pixel = Math.max(2, Math.min(12, Math.floor(96 / Math.max(cols, rows))));
  const canvas = document.createElement('canvas');
  canvas.width = cols * pixel;
  canvas.height = rows * pixel;
  canvas.setAttribute('aria-label', `sample ${pattern.join('')}`);
  const c = canvas.getContext('2d');
  for (let i = 0; i < pattern.length; i++) {
    c.fillStyle = fill.css(pattern[i]);
    c.fillRect((i % cols) * pixel, Math.floor(i / cols) * pixel, pixel, pixel);
  }
  return canvas;
}
