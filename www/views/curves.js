// @ts-check
// The learning curve: exact KL(data ‖ model) and the fraction of encoder codes solved
// against learning cycles, with AIS estimates of KL as points with ± one standard error.

import { cssColour } from './colour.js';
import { fitCanvas, plotTextPx } from './canvas.js';
import { format } from '../ui.js';
import { describe, say } from './describe.js';

export class LearningCurveView {
  constructor(canvas) {
    this.canvas = canvas;
  }

  // cycles, kl, solved: the curve's points (NaN where not known); ais: {cycles, kl, stderr}.
  draw({ cycles: x, kl, solved, ais }) {
    const points = x.length;
    const m0 = ais.cycles.length;
    const klNow = points ? kl[points - 1] : NaN;
    const solvedNow = points ? solved[points - 1] : NaN;
    const now = !points
      ? 'no learning cycles yet'
      : `after ${x[points - 1]} cycles, G = ${
          Number.isFinite(klNow)
            ? `${say(klNow, 3)} nats`
            : m0
              ? `${say(ais.kl[m0 - 1], 3)} ± ${say(ais.stderr[m0 - 1], 3)} nats (AIS estimate)`
              : 'not known yet'
        }${Number.isFinite(solvedNow) ? `, ${Math.round(solvedNow * 100)} % of the codes solved` : ''}`;
    describe(this.canvas, () => now);
    const { c, w, h } = fitCanvas(this.canvas);
    // The labels grow with a lecture tile (plotTextPx), and the margins with them.
    const textPx = plotTextPx(this.canvas, h);
    this.canvas.dataset.textPx = String(textPx);
    const s = textPx / 12;
    const left = 48 * s;
    const right = 40 * s;
    const topPad = 10 * s;
    const bottom = 28 * s;
    const ink = cssColour('--ink', '#222');
    const x0 = x[0] ?? 0;
    const x1 = Math.max(x[points - 1] ?? 1, x0 + 1);
    const m = ais.cycles.length;
    const { cycles: aisX, kl: aisKl, stderr: aisErr } = ais;
    let klTop = 0;
    for (const v of kl) if (Number.isFinite(v)) klTop = Math.max(klTop, v);
    for (let i = 0; i < m; i++) if (Number.isFinite(aisKl[i])) klTop = Math.max(klTop, aisKl[i] + aisErr[i]);
    if (!(klTop > 0)) klTop = 1;
    const px = (v) => left + ((v - x0) / (x1 - x0)) * (w - left - right);
    const py = (v, t) => topPad + (1 - v / t) * (h - topPad - bottom);
    c.strokeStyle = cssColour('--line', '#ccc');
    c.strokeRect(left, topPad, w - left - right, h - topPad - bottom);
    c.fillStyle = ink;
    c.font = `${textPx}px system-ui, sans-serif`;
    c.textAlign = 'right';
    c.fillText(format(klTop, 2), left - 4 * s, topPad + textPx - 2);
    c.fillText('0', left - 4 * s, h - bottom);
    c.textAlign = 'left';
    c.fillText('1', w - right + 4 * s, topPad + textPx - 2);
    c.fillText('0', w - right + 4 * s, h - bottom);
    c.textAlign = 'center';
    c.fillText(`learning cycles ${x0} – ${x1}`, w / 2, h - 8 * s);
    const line = (values, t, colour) => {
      c.strokeStyle = colour;
      c.lineWidth = 2 * s;
      c.beginPath();
      let started = false;
      for (let i = 0; i < points; i++) {
        if (!Number.isFinite(values[i])) continue;
        if (started) c.lineTo(px(x[i]), py(values[i], t));
        else c.moveTo(px(x[i]), py(values[i], t));
        started = true;
      }
      c.stroke();
    };
    line(kl, klTop, cssColour('--energy', '#d1495b'));
    line(solved, 1, cssColour('--magnetization', '#00798c'));
    // AIS estimates: points with ± one standard error bars.
    c.strokeStyle = c.fillStyle = cssColour('--energy', '#d1495b');
    c.lineWidth = 1.5 * s;
    const r = 3 * s; // the points' radius and the bars' half-width
    for (let i = 0; i < m; i++) {
      if (!Number.isFinite(aisKl[i]) || aisX[i] < x0) continue;
      const cx = px(aisX[i]);
      const low = py(Math.max(0, aisKl[i] - aisErr[i]), klTop);
      const high = py(aisKl[i] + aisErr[i], klTop);
      c.beginPath();
      c.moveTo(cx, low);
      c.lineTo(cx, high);
      c.moveTo(cx - r, low);
      c.lineTo(cx + r, low);
      c.moveTo(cx - r, high);
      c.lineTo(cx + r, high);
      c.stroke();
      c.beginPath();
      c.arc(cx, py(aisKl[i], klTop), r, 0, 2 * Math.PI);
      c.fill();
    }
  }
}
