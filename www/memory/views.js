// @ts-check
// The pattern memory's own plots: the overlap m^μ of the state with every stored pattern as
// bars (−1 to 1), and the energy E(s) of the state against ticks. The pictures (state,
// patterns, drawing pad) are image grids (views/images.js); the capacity curve is an error-bar
// plot (views/plot.js).

import { cssColour } from '../views/colour.js';
import { drawAxes, fitCanvas, plotTextPx } from '../views/canvas.js';

// A ±1 picture as the image grid's grey values: +1 → ink, −1 → paper.
export const greys = (pixels) => Float64Array.from(pixels, (s) => (s > 0 ? 1 : 0));

export class OverlapBars {
  constructor(canvas) {
    this.canvas = canvas;
  }

  // overlaps: m^μ per stored pattern; named: the index of the pattern the state is (or −1).
  draw(overlaps, named = -1) {
    const { c, w, h } = fitCanvas(this.canvas);
    const ink = cssColour('--ink', '#222');
    const faint = cssColour('--faint', '#999');
    const accent = cssColour('--energy', '#e76f51');
    // 11 px text on the page, grown with a lecture tile (plotTextPx), and the margins with it.
    const textPx = Math.round((plotTextPx(this.canvas, h) * 11) / 12);
    const scale = textPx / 11;
    const left = 30 * scale;
    const bottom = 18 * scale;
    const top = 6 * scale;
    const mid = top + (h - top - bottom) / 2;
    const py = (m) => mid - m * ((h - top - bottom) / 2);
    c.font = `${textPx}px system-ui, sans-serif`;
    c.fillStyle = ink;
    c.textAlign = 'right';
    c.textBaseline = 'middle';
    for (const v of [-1, 0, 1]) {
      c.fillText(String(v), left - 4 * scale, py(v));
      c.strokeStyle = faint;
      c.globalAlpha = v === 0 ? 0.9 : 0.3;
      c.beginPath();
      c.moveTo(left, py(v));
      c.lineTo(w, py(v));
      c.stroke();
      c.globalAlpha = 1;
    }
    const n = overlaps.length;
    if (n === 0) {
      c.textAlign = 'center';
      c.fillText('no patterns stored', left + (w - left) / 2, mid - textPx);
      return;
    }
    const slot = (w - left) / n;
    const bar = Math.max(1, slot * 0.7);
    c.textAlign = 'center';
    c.textBaseline = 'top';
    for (let k = 0; k < n; k++) {
      const x = left + k * slot + (slot - bar) / 2;
      c.fillStyle = k === named ? accent : ink;
      const y = py(Math.max(0, overlaps[k]));
      c.fillRect(x, y, bar, Math.abs(py(overlaps[k]) - py(0)));
      const room = 14 * scale; // the width a label needs
      if (slot >= room || k % Math.ceil(room / slot) === 0) {
        c.fillStyle = ink;
        c.fillText(String(k), x + bar / 2, h - bottom + 3 * scale);
      }
    }
  }
}

export class EnergyTrace {
  constructor(canvas) {
    this.canvas = canvas;
  }

  // ticks, energy: arrays of equal length.
  draw(ticks, energy) {
    const { c, w, h } = fitCanvas(this.canvas);
    const ink = cssColour('--ink', '#222');
    const faint = cssColour('--faint', '#999');
    const n = ticks.length;
    let y0 = Infinity;
    let y1 = -Infinity;
    for (const e of energy) {
      y0 = Math.min(y0, e);
      y1 = Math.max(y1, e);
    }
    if (!(y1 > y0)) {
      y0 = (Number.isFinite(y0) ? y0 : 0) - 1;
      y1 = (Number.isFinite(y1) ? y1 : 0) + 1;
    }
    const margin = (y1 - y0) * 0.06;
    y0 -= margin;
    y1 += margin;
    const textPx = plotTextPx(this.canvas, h);
    const s = textPx / 12; // the margins grow with the text
    const left = 48 * s;
    const right = 10;
    const top = 8 * s;
    const bottom = 32 * s;
    const x0 = n ? ticks[0] : 0;
    const x1 = n > 1 && ticks[n - 1] > x0 ? ticks[n - 1] : x0 + 1;
    const px = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - right);
    const py = (y) => top + ((y1 - y) / (y1 - y0)) * (h - top - bottom);
    drawAxes(
      c,
      { left, right, bottom, w, h },
      { x0, x1, y0, y1, px, py },
      { ink, faint, xLabel: 'ticks', xSpacing: 90, xInteger: true, textPx },
    );
    if (n < 1) return;
    c.beginPath();
    c.strokeStyle = cssColour('--energy', '#e76f51');
    c.lineWidth = 1.5;
    c.moveTo(px(ticks[0]), py(energy[0]));
    for (let i = 1; i < n; i++) c.lineTo(px(ticks[i]), py(energy[i]));
    if (n === 1) c.lineTo(px(ticks[0]) + 2, py(energy[0]));
    c.stroke();
  }
}
