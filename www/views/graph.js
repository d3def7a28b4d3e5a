// @ts-check
// A small network as a graph: units on a circle (visible squares, hidden circles), each
// connection a line coloured and thickened by its weight.

import { cssColour } from './colour.js';
import { fitCanvas } from './canvas.js';
import { describe, say } from './describe.js';

export class NetworkGraphView {
  constructor(canvas, scale, fill) {
    this.canvas = canvas;
    this.scale = scale;
    this.fill = fill;
  }

  // weights: row-major n×n Float64Array; activations, clamps: per unit; visible: how many
  // units come first as squares.
  draw({ weights, activations, clamps, visible }) {
    const n = activations.length;
    const { c, w, h } = fitCanvas(this.canvas);
    let top = 0;
    let connections = 0;
    let strongest = [0, 0, 0];
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++) {
        const wij = weights[i * n + j];
        if (wij !== 0) connections += 1;
        if (Math.abs(wij) > Math.abs(strongest[0])) strongest = [wij, i + 1, j + 1];
      }
    for (let k = 0; k < n * n; k++) top = Math.max(top, Math.abs(weights[k]));
    describe(
      this.canvas,
      () =>
        `${n} units, ${connections} non-zero connections` +
        (connections ? `, the strongest ${say(strongest[0])} between units ${strongest[1]} and ${strongest[2]}` : ''),
    );
    const radius = Math.max(10, Math.min(w, h) / 2 - 16);
    const at = (i) => {
      const angle = (2 * Math.PI * i) / n - Math.PI / 2;
      return [w / 2 + radius * Math.cos(angle), h / 2 + radius * Math.sin(angle)];
    };
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const wij = weights[i * n + j];
        if (wij === 0 || !(top > 0)) continue;
        const [x1, y1] = at(i);
        const [x2, y2] = at(j);
        c.strokeStyle = this.scale.css(wij / top);
        c.lineWidth = 0.5 + 4 * (Math.abs(wij) / top);
        c.beginPath();
        c.moveTo(x1, y1);
        c.lineTo(x2, y2);
        c.stroke();
      }
    }
    for (let i = 0; i < n; i++) {
      const [x, y] = at(i);
      c.fillStyle = this.fill.css(activations[i]);
      c.beginPath();
      if (i < visible) c.rect(x - 7, y - 7, 14, 14);
      else c.arc(x, y, 7, 0, 2 * Math.PI);
      c.fill();
      c.lineWidth = clamps[i] ? 3 : 1;
      c.strokeStyle = clamps[i]
        ? cssColour(activations[i] > 0.5 ? '--clamped-up' : '--clamped-down', '#ffb703')
        : cssColour('--line', '#ccc');
      c.stroke();
    }
  }
}
