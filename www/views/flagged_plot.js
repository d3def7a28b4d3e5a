// @ts-check
// The sweep's panels: an ErrorBarPlot whose flagged points (measured for too few
// autocorrelation times: the error bar is a lower bound) are drawn hollow.
//
// ErrorBarPlot (plot.js) draws each point with finite y, in order, as arc(…, 3, 0, 2π) then
// fill(), and fills nothing else; this wrapper counts those fills and draws the flagged
// ones as rings instead. (Interim: once plot.js can be edited, a `hollow` option there
// should replace this.)

import { ErrorBarPlot } from './plot.js';
import { cssColour } from './colour.js';

export class FlaggedPlot extends ErrorBarPlot {
  // As ErrorBarPlot.draw, with ok: per point, 1 (or true) when its error bar can be trusted,
  // 0 when the point is drawn hollow.
  /**
   * @param {{x: number[], y: number[], err: number[], xRange: number[], exact?: any,
   *   marker?: any, ok?: ArrayLike<number | boolean>}} options
   */
  draw({ ok = [], ...rest }) {
    const { x, y } = rest;
    const c = this.canvas.getContext('2d');
    if (!c) return super.draw(rest);
    // The points ErrorBarPlot fills, in order: those with finite y.
    /** @type {boolean[]} */
    const hollow = [];
    for (let i = 0; i < x.length; i++) if (Number.isFinite(y[i])) hollow.push(ok[i] !== undefined && !ok[i]);
    let k = 0;
    const fill = c.fill;
    const background = cssColour('--card', '#fff');
    /** @this {CanvasRenderingContext2D} */
    function ringOrDot(/** @type {any[]} */ ...args) {
      if (!hollow[k++]) return fill.apply(this, args);
      const ink = this.fillStyle;
      this.fillStyle = background;
      fill.apply(this, args);
      this.fillStyle = ink;
      this.stroke();
    }
    c.fill = ringOrDot;
    try {
      super.draw(rest);
    } finally {
      // @ts-ignore: removes the own property, uncovering the prototype's fill
      delete c.fill;
    }
  }
}
