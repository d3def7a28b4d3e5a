// @ts-check
// The units of a Boltzmann machine: the visible units in their picture (squares), the
// hidden units in a row below (circles), each filled by its activation, with a ring on a
// clamped unit. Also the shared fill of a unit and where visible units sit in a picture.

import { cssColour, rgba } from './colour.js';
import { fitCanvas } from './canvas.js';
import { describe, onUnits } from './describe.js';

// Where the visible units sit in their picture: columns and rows.
export function pictureShape(name, visible, group) {
  if (group > 0) return { cols: group, rows: 2 };
  if (name === 'pixels-10') return { cols: 5, rows: 2 };
  const side = Math.round(Math.sqrt(visible));
  if (side * side === visible && side > 1) return { cols: side, rows: side };
  const cols = Math.min(visible, 16);
  return { cols, rows: Math.ceil(visible / cols) };
}

// The fill of a unit with activation a (0 off … 1 on), between the spin colours.
export class UnitFill {
  css(a) {
    if (!this.ends) this.ends = [rgba(cssColour('--spin-up', '#f4f1e8')), rgba(cssColour('--spin-down', '#1d3557'))];
    const [p, q] = this.ends;
    const mix = [0, 1, 2].map((k) => Math.round(p[k] + a * (q[k] - p[k])));
    return `rgb(${mix.join(', ')})`;
  }
}

// The ring around a clamped unit: amber when on, magenta when off.
export function clampRing(c, x, y, size, on, round, width) {
  c.lineWidth = width;
  c.strokeStyle = cssColour(on ? '--clamped-up' : '--clamped-down', on ? '#ffb703' : '#b5179e');
  c.beginPath();
  if (round) c.arc(x + size / 2, y + size / 2, Math.max(1, size / 2 - width / 2), 0, 2 * Math.PI);
  else c.rect(x + width / 2, y + width / 2, size - width, size - width);
  c.stroke();
}

export class UnitsView {
  constructor(canvas, fill) {
    this.canvas = canvas;
    this.fill = fill;
  }

  // activations: Float64Array of n (0…1); clamps: Uint8Array of n; visible: how many come
  // first; shape: {cols, rows} of the visible picture; encoder: label V1 and V2.
  draw({ activations, clamps, visible, shape, encoder }) {
    const hidden = activations.length - visible;
    const visibleOn = onUnits(activations, 0, visible);
    const hiddenOn = onUnits(activations, visible, activations.length);
    const clamped = clamps.reduce((sum, k) => sum + k, 0);
    describe(
      this.canvas,
      () =>
        `visible units on: ${visibleOn} (of ${visible})` +
        (hidden > 0 ? `; hidden units on: ${hiddenOn} (of ${hidden})` : '') +
        `; ${clamped} clamped`,
    );
    const { cols, rows } = shape;
    const canvas = this.canvas;
    const { c, w } = fitCanvas(canvas);
    const across = Math.max(cols, hidden, 1);
    const cell = Math.max(6, Math.min(48, Math.floor((w - 8) / across)));
    const ink = cssColour('--ink', '#222');
    const ringWidth = Math.max(2, cell / 8);
    c.font = '12px system-ui, sans-serif';
    c.fillStyle = ink;
    c.fillText(encoder ? 'visible: V1 (top), V2 (bottom)' : 'visible', 4, 12);
    const top = 18;
    for (let i = 0; i < visible; i++) {
      const x = 4 + (i % cols) * cell;
      const y = top + Math.floor(i / cols) * cell;
      c.fillStyle = this.fill.css(activations[i]);
      c.fillRect(x + 1, y + 1, cell - 2, cell - 2);
      if (clamps[i]) clampRing(c, x + 1, y + 1, cell - 2, activations[i] > 0.5, false, ringWidth);
    }
    let y = top + rows * cell + 8;
    if (hidden > 0) {
      c.fillStyle = ink;
      c.fillText('hidden', 4, y + 12);
      y += 18;
      for (let h = 0; h < hidden; h++) {
        const i = visible + h;
        const x = 4 + h * cell;
        c.fillStyle = this.fill.css(activations[i]);
        c.beginPath();
        c.arc(x + cell / 2, y + cell / 2, Math.max(1, cell / 2 - 2), 0, 2 * Math.PI);
        c.fill();
        c.strokeStyle = cssColour('--line', '#ccc');
        c.lineWidth = 1;
        c.stroke();
        if (clamps[i]) clampRing(c, x + 1, y + 1, cell - 2, activations[i] > 0.5, true, ringWidth);
      }
      y += cell;
    }
    const height = Math.ceil(y + 6);
    if (Math.abs(canvas.getBoundingClientRect().height - height) > 1) canvas.style.height = `${height}px`;
  }
}
