// @ts-check
// The log-likelihood curves of a restricted machine: mean ln p(v) of the training and the
// test set (nats per image) against updates, each point with ± one standard error of ln Z
// when it was estimated by AIS (exact points have none).

import { cssColour } from './colour.js';
import { drawAxes, fitCanvas, paddedScale, plotTextPx } from './canvas.js';
import { describe, say } from './describe.js';

export class LikelihoodView {
  constructor(canvas) {
    this.canvas = canvas;
    this.shown = null;
    // A change of the canvas's laid-out size asks for a redraw. Told by a ResizeObserver, not
    // read from the layout with every frame: reading it there forced a layout each frame
    // (about 0.6 ms of the MNIST page's drawing, after the read-outs' text had changed).
    this.resized = true;
    new ResizeObserver(() => {
      this.resized = true;
    }).observe(canvas);
  }

  // Draws `curve` unless it is already drawn at the canvas's present size. Called with every
  // animation frame, it draws a new curve once, and the same curve again when its canvas
  // changed size (a lecture tile laid out, the panel shown): a chart drawn while hidden would
  // otherwise stay blank until the next point.
  show(curve) {
    if (curve === this.shown && !this.resized) return;
    this.shown = curve;
    this.resized = false;
    this.draw(curve);
  }

  // updates, train, test, stderr: typed arrays of the points.
  draw({ updates, train, test, stderr }) {
    const last = updates.length - 1;
    const now =
      last < 0
        ? 'no updates yet'
        : `after ${updates[last]} updates, ln p(v) per image ${say(train[last])} on the training set and ${say(test[last])} on the test set`;
    describe(this.canvas, () => now);
    const { c, w, h } = fitCanvas(this.canvas);
    const ink = cssColour('--ink', '#222');
    const faint = cssColour('--faint', '#999');
    const colours = [cssColour('--energy', '#1d3557'), cssColour('--magnetization', '#e76f51')];
    const textPx = plotTextPx(this.canvas, h);
    const s = textPx / 12; // the margins grow with the text
    const left = 52 * s;
    const right = 10;
    const top = 10 * s;
    const bottom = 30 * s;
    const n = updates.length;
    let x0 = n ? updates[0] : 0;
    let x1 = n ? updates[n - 1] : 1;
    if (!(x1 > x0)) x1 = x0 + 1;
    let y0 = Infinity;
    let y1 = -Infinity;
    for (const series of [train, test])
      for (let i = 0; i < n; i++) {
        const e = stderr[i] || 0;
        if (!Number.isFinite(series[i])) continue;
        y0 = Math.min(y0, series[i] - e);
        y1 = Math.max(y1, series[i] + e);
      }
    const frame = { left, right, top, bottom, w, h };
    const scale = paddedScale(frame, x0, x1, y0, y1, 1e-6, [-1, 0]);
    const { px, py } = scale;
    drawAxes(c, frame, scale, { ink, faint, xLabel: 'updates', xSpacing: 70, textPx });
    [train, test].forEach((series, s) => {
      c.strokeStyle = colours[s];
      c.fillStyle = colours[s];
      c.lineWidth = 1.5;
      c.beginPath();
      for (let i = 0; i < n; i++) {
        if (i === 0) c.moveTo(px(updates[i]), py(series[i]));
        else c.lineTo(px(updates[i]), py(series[i]));
      }
      c.stroke();
      c.lineWidth = 1;
      for (let i = 0; i < n; i++) {
        const x = px(updates[i]);
        const y = py(series[i]);
        const e = stderr[i] || 0;
        if (e > 0) {
          c.beginPath();
          c.moveTo(x, py(series[i] - e));
          c.lineTo(x, py(series[i] + e));
          c.stroke();
        }
        c.beginPath();
        c.arc(x, y, 2.5, 0, 2 * Math.PI);
        c.fill();
      }
    });
  }
}
