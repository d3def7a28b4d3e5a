// @ts-check
// A small x–y plot with error bars, an exact curve and a vertical marker: one panel of the
// temperature-sweep results.

import { cssColour } from './colour.js';
import { drawAxes, fitCanvas, paddedScale, plotTextPx } from './canvas.js';
import { describe, say } from './describe.js';

export class ErrorBarPlot {
  constructor(canvas, { title, xLabel = 'T' }) {
    this.canvas = canvas;
    this.title = title;
    this.xLabel = xLabel;
  }

  // x, y, err: arrays of the points; xRange: [lo, hi]; exact: {x, y} arrays or null;
  // marker: an x to draw a dashed vertical line at (or null); ok: per point, whether its
  // error bar can be trusted (a point with ok[i] 0 or false is drawn hollow: the sweep's
  // runs too short for their autocorrelation time); every point is solid without it.
  /**
   * @param {{x: ArrayLike<number>, y: ArrayLike<number>, err: ArrayLike<number>, xRange: number[],
   *   exact?: {x: ArrayLike<number>, y: ArrayLike<number>} | null, marker?: number | null,
   *   ok?: ArrayLike<number | boolean>}} points
   */
  draw({ x, y, err, xRange, exact = null, marker = null, ok = [] }) {
    const last = x.length - 1;
    const now =
      last < 0
        ? `no points measured yet, ${this.xLabel} from ${say(xRange[0])} to ${say(xRange[1])}`
        : `${x.length} points measured, the last ${say(y[last], 3)} ± ${say(err[last], 3)} at ${this.xLabel} = ${say(x[last])}`;
    describe(this.canvas, () => now);
    const { c, w, h } = fitCanvas(this.canvas);
    const ink = cssColour('--ink', '#222');
    const faint = cssColour('--faint', '#999');
    const textPx = plotTextPx(this.canvas, h);
    const s = textPx / 12; // the margins grow with the text
    const left = 48 * s;
    const right = 10;
    const top = 22 * s;
    const bottom = 32 * s;
    let [x0, x1] = xRange;
    const pad = (x1 - x0) * 0.04 || 0.1;
    x0 -= pad;
    x1 += pad;
    let y0 = Infinity;
    let y1 = -Infinity;
    for (let i = 0; i < y.length; i++) {
      const e = Number.isFinite(err[i]) ? err[i] : 0;
      if (Number.isFinite(y[i])) {
        y0 = Math.min(y0, y[i] - e);
        y1 = Math.max(y1, y[i] + e);
      }
    }
    if (exact) {
      // The exact curve widens the range only up to twice the data's span (c diverges).
      const span = Number.isFinite(y1 - y0) ? Math.max(y1 - y0, 0.1) : Infinity;
      for (let i = 0; i < exact.y.length; i++) {
        const v = exact.y[i];
        if (!Number.isFinite(v)) continue;
        if (Number.isFinite(y0)) {
          y0 = Math.min(y0, Math.max(v, y0 - span));
          y1 = Math.max(y1, Math.min(v, y1 + span));
        } else {
          y0 = Math.min(y0, v);
          y1 = Math.max(y1, v);
        }
      }
    }
    const frame = { left, right, top, bottom, w, h };
    const scale = paddedScale(frame, x0, x1, y0, y1, 1e-9, [0, 1]);
    const { px, py } = scale;

    c.fillStyle = ink;
    c.textAlign = 'left';
    c.textBaseline = 'top';
    c.font = `600 ${textPx + 1}px system-ui, sans-serif`;
    c.fillText(this.title, left, 3 * s);
    drawAxes(c, frame, scale, { ink, faint, xLabel: this.xLabel, xSpacing: 60, labelGap: 17, textPx });

    c.save();
    c.beginPath();
    c.rect(left, top, w - left - right, h - top - bottom);
    c.clip();
    if (marker !== null && marker > x0 && marker < x1) {
      c.strokeStyle = cssColour('--critical', '#888');
      c.setLineDash([5, 4]);
      c.beginPath();
      c.moveTo(px(marker), top);
      c.lineTo(px(marker), h - bottom);
      c.stroke();
      c.setLineDash([]);
    }
    if (exact) {
      c.strokeStyle = cssColour('--exact', '#e76f51');
      c.lineWidth = 1.5;
      c.beginPath();
      let pen = false;
      for (let i = 0; i < exact.x.length; i++) {
        const v = exact.y[i];
        if (!Number.isFinite(v)) {
          pen = false;
          continue;
        }
        const { y0: lo, y1: hi } = scale;
        const yy = py(Math.max(lo - (hi - lo), Math.min(hi + (hi - lo), v)));
        if (pen) c.lineTo(px(exact.x[i]), yy);
        else c.moveTo(px(exact.x[i]), yy);
        pen = true;
      }
      c.stroke();
    }
    const point = cssColour('--points', '#1d3557');
    const card = cssColour('--card', '#fff');
    c.strokeStyle = point;
    c.lineWidth = 1.2;
    for (let i = 0; i < x.length; i++) {
      if (!Number.isFinite(y[i])) continue;
      const cx = px(x[i]);
      const cy = py(y[i]);
      if (Number.isFinite(err[i]) && err[i] > 0) {
        c.beginPath();
        c.moveTo(cx, py(y[i] - err[i]));
        c.lineTo(cx, py(y[i] + err[i]));
        c.moveTo(cx - 3, py(y[i] - err[i]));
        c.lineTo(cx + 3, py(y[i] - err[i]));
        c.moveTo(cx - 3, py(y[i] + err[i]));
        c.lineTo(cx + 3, py(y[i] + err[i]));
        c.stroke();
      }
      const hollow = ok[i] !== undefined && !ok[i];
      c.beginPath();
      c.arc(cx, cy, 3, 0, 2 * Math.PI);
      c.fillStyle = hollow ? card : point;
      c.fill();
      if (hollow) c.stroke();
    }
    c.restore();
  }
}
