// @ts-check
// A reusable heat map: an n×m matrix (a network's weights, a lattice's coupling matrix) as
// one pixel per entry, crisp when scaled, in a diverging colour scale symmetric about zero,
// with a colour-bar legend. Used now for a lattice seen as a network; networks use it too.

import { drawLegend } from './colour.js';
import { describe, say } from './describe.js';

export class HeatMapView {
  // canvas: the map; legend: a canvas for the colour bar (or null); scale: a DivergingScale.
  constructor(canvas, legend, scale) {
    this.canvas = canvas;
    this.legend = legend;
    this.scale = scale;
    this.context = canvas.getContext('2d');
  }

  // values: row-major Float64Array of rows × cols. limit: the value drawn at full colour
  // (default: the largest |value|). caption: what the legend's values are.
  draw(values, rows, cols, { limit = 0, caption = '' } = {}) {
    let top = limit;
    if (!(top > 0)) {
      for (let i = 0; i < values.length; i++) top = Math.max(top, Math.abs(values[i]));
      if (!(top > 0)) top = 1;
    }
    if (this.canvas.width !== cols || this.canvas.height !== rows) {
      this.canvas.width = cols;
      this.canvas.height = rows;
    }
    const image = this.context.createImageData(cols, rows);
    const pixels = new Uint32Array(image.data.buffer);
    let largest = 0;
    for (let i = 0; i < rows * cols; i++) {
      pixels[i] = this.scale.word(values[i] / top);
      if (Math.abs(values[i]) > Math.abs(values[largest])) largest = i;
    }
    this.context.putImageData(image, 0, 0);
    const peak = values[largest];
    const where =
      rows === 1 ? `entry ${largest + 1}` : `row ${Math.floor(largest / cols) + 1}, column ${(largest % cols) + 1}`;
    describe(this.canvas, () =>
      peak
        ? `${rows} × ${cols} values, the largest in size ${say(peak)} at ${where}`
        : `${rows} × ${cols} values, all zero`,
    );
    if (this.legend) drawLegend(this.legend, this.scale, top, caption);
    return top;
  }
}
