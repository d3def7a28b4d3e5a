// The trace view: E/N and M/N against sweeps, with axes and labels.

import { cssColour } from './colour.js';
import { fitCanvas, ticks, tickLabel } from './canvas.js';

export class TraceView {
  constructor(canvas) {
    this.canvas = canvas;
  }

  // sweeps, energy, magnetization: Float64Arrays of equal length.
  draw(sweeps, energy, magnetization) {
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
    const left = 44;
    const right = 10;
    const top = 8;
    const bottom = 34;
    const x0 = n ? sweeps[0] : 0;
    const x1 = n > 1 && sweeps[n - 1] > x0 ? sweeps[n - 1] : x0 + 1;
    const px = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - right);
    const py = (y) => top + ((yMax - y) / (yMax - yMin)) * (h - top - bottom);

    c.font = '12px system-ui, sans-serif';
    c.lineWidth = 1;
    c.fillStyle = ink;
    c.textAlign = 'right';
    c.textBaseline = 'middle';
    for (const y of ticks(yMin, yMax, 6)) {
      c.strokeStyle = faint;
      c.globalAlpha = y === 0 ? 0.9 : 0.3;
      c.beginPath();
      c.moveTo(left, py(y));
      c.lineTo(w - right, py(y));
      c.stroke();
      c.globalAlpha = 1;
      c.fillText(tickLabel(y), left - 5, py(y));
    }
    c.textAlign = 'center';
    c.textBaseline = 'top';
    for (const x of ticks(x0, x1, Math.max(2, Math.floor((w - left) / 90)))) {
      c.fillText(tickLabel(x), px(x), h - bottom + 4);
    }
    c.fillText('sweeps', left + (w - left - right) / 2, h - bottom + 18);
    c.save();
    c.translate(11, top + (h - top - bottom) / 2);
    c.rotate(-Math.PI / 2);
    c.fillText('per spin', 0, -6);
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
