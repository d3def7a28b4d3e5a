// @ts-check
// The trace view: E/N and M/N against sweeps, with axes and labels.

import { cssColour } from './colour.js';
import { drawAxes, fitCanvas, plotTextPx } from './canvas.js';
import { describe, say } from './describe.js';

export class TraceView {
  constructor(canvas) {
    this.canvas = canvas;
  }

  // sweeps, energy, magnetization: Float64Arrays of equal length.
  draw(sweeps, energy, magnetization) {
    const last = sweeps.length - 1;
    const now =
      last < 0
        ? 'no sweeps yet'
        : `after ${sweeps[last]} sweeps, E/N ${say(energy[last])} and M/N ${say(magnetization[last])}`;
    describe(this.canvas, () => now);
    const { c, w, h } = fitCanvas(this.canvas);
    const ink = cssColour('--ink', '#222');
    const faint = cssColour('--faint', '#999');
    const n = sweeps.length;
    let yMin = -2;
    let yMax = 1;
    for (let i = 0; i < n; i++) {
      if (energy[i] < yMin) yMin = energy[i];
      if (energy[i] > yMax) yMax = energy[i];
    }
    yMin = Math.floor(yMin * 2) / 2;
    yMax = Math.ceil(yMax * 2) / 2;
    const textPx = plotTextPx(this.canvas, h);
    const s = textPx / 12; // the margins grow with the text
    const left = 44 * s;
    const right = 10;
    const top = 8 * s;
    const bottom = 34 * s;
    const x0 = n ? sweeps[0] : 0;
    const x1 = n > 1 && sweeps[n - 1] > x0 ? sweeps[n - 1] : x0 + 1;
    const px = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - right);
    const py = (y) => top + ((yMax - y) / (yMax - yMin)) * (h - top - bottom);

    drawAxes(
      c,
      { left, right, bottom, w, h },
      { x0, x1, y0: yMin, y1: yMax, px, py },
      { ink, faint, xLabel: 'sweeps', xSpacing: 90, yTicks: 6, zeroAlpha: 0.9, labelGap: 18, textPx },
    );
    c.save();
    c.translate(11 * s, top + (h - top - bottom) / 2);
    c.rotate(-Math.PI / 2);
    c.fillText('per spin', 0, -6 * s);
    c.restore();

    const line = (values, colour) => {
      if (n < 2) return;
      c.beginPath();
      c.strokeStyle = colour;
      c.lineWidth = 1.5;
      c.moveTo(px(sweeps[0]), py(values[0]));
      for (let i = 1; i < n; i++) c.lineTo(px(sweeps[i]), py(values[i]));
      c.stroke();
    };
    line(magnetization, cssColour('--magnetization', '#2a9d8f'));
    line(energy, cssColour('--energy', '#e76f51'));
  }
}
