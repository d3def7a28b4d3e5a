// @ts-check
// A grid of small images (fantasy particles, reconstructions, filters, a gallery, a
// completion) drawn from one flat typed array: image k is values[k·w·h … (k+1)·w·h), row
// by row. One canvas pixel per image pixel with a one-pixel gap, scaled up crisply by CSS
// (canvas.pixels). Grey images: 0 → paper, 1 → ink (values in [0, 1], states 0/1 or
// probabilities). Signed images (filters): the diverging scale, each image scaled to its
// own largest |value|, or to one `limit` for all.

import { cssColour, rgba, word, onThemeChange } from './colour.js';
import { describe } from './describe.js';

export class ImageGridView {
  // canvas: where to draw; scale: a DivergingScale (for signed images) or null.
  constructor(canvas, scale = null) {
    this.canvas = canvas;
    this.scale = scale;
    this.context = canvas.getContext('2d');
    /** @type {ImageData | null} */
    this.image = null;
    this.pixels = new Uint32Array(0);
    this.readColours();
    onThemeChange(() => this.readColours());
  }

  readColours() {
    this.paper = rgba(cssColour('--card', '#ffffff'));
    this.ink = rgba(cssColour('--ink', '#222222'));
    this.gap = word(rgba(cssColour('--line', '#cccccc')));
    this.greys = new Uint32Array(256);
    for (let k = 0; k < 256; k++) {
      const t = k / 255;
      this.greys[k] = word(
        [0, 1, 2].map((c) => Math.round(this.paper[c] + t * (this.ink[c] - this.paper[c]))).concat(255),
      );
    }
  }

  // values: the images, flat; count: how many; width, height: of one image; columns: per
  // row of the grid; signed: draw in the diverging scale; limit: |value| at full colour
  // (signed only; 0: each image its own largest); marks: optional Uint8Array (count·w·h)
  // of pixels to draw hatched (e.g. pixels left free), or null; transposed: image k's
  // pixel i is values[i·count + k] (a weight matrix's column k, a filter).
  draw({ values, count, width, height, columns, signed = false, limit = 0, marks = null, transposed = false }) {
    const rows = Math.max(1, Math.ceil(count / columns));
    const cols = Math.max(1, Math.min(columns, count));
    describe(this.canvas, () => `${count} images of ${width} × ${height} pixels, ${cols} to a row`);
    const W = cols * (width + 1) + 1;
    const H = rows * (height + 1) + 1;
    if (this.canvas.width !== W || this.canvas.height !== H) {
      this.canvas.width = W;
      this.canvas.height = H;
    }
    // One ImageData kept while the grid's size stays (the particles are drawn every frame).
    if (this.image?.width !== W || this.image?.height !== H) {
      this.image = this.context.createImageData(W, H);
      this.pixels = new Uint32Array(this.image.data.buffer);
    }
    const { image, pixels, greys, gap } = this;
    pixels.fill(gap);
    const size = width * height;
    // Image k's pixel i is values[first + i·step].
    const step = transposed ? count : 1;
    for (let k = 0; k < count; k++) {
      const first = transposed ? k : k * size;
      const x0 = (k % cols) * (width + 1) + 1;
      const y0 = Math.floor(k / cols) * (height + 1) + 1;
      let top = limit;
      if (signed && !(top > 0)) {
        for (let i = 0; i < size; i++) top = Math.max(top, Math.abs(values[first + i * step]));
        if (!(top > 0)) top = 1;
      }
      for (let y = 0, i = 0; y < height; y++) {
        const row = (y0 + y) * W + x0;
        for (let x = 0; x < width; x++, i++) {
          const v = values[first + i * step];
          let colour = signed ? this.scale.word(v / top) : greys[Math.round(255 * Math.max(0, Math.min(1, v)))];
          if (marks && marks[k * size + i] && (x0 + x + y0 + y) % 2 === 0) colour = gap;
          pixels[row + x] = colour;
        }
      }
    }
    this.context.putImageData(image, 0, 0);
  }

  // The image index under a pointer event, and the pixel in it: {image, pixel} or null.
  hit(event, { count, width, height, columns }) {
    const box = this.canvas.getBoundingClientRect();
    const x = Math.floor(((event.clientX - box.left) / box.width) * this.canvas.width);
    const y = Math.floor(((event.clientY - box.top) / box.height) * this.canvas.height);
    const cols = Math.max(1, Math.min(columns, count));
    const col = Math.floor((x - 1) / (width + 1));
    const row = Math.floor((y - 1) / (height + 1));
    const px = x - 1 - col * (width + 1);
    const py = y - 1 - row * (height + 1);
    if (col < 0 || col >= cols || row < 0 || px < 0 || px >= width || py < 0 || py >= height) return null;
    const image = row * cols + col;
    return image < count ? { image, pixel: py * width + px } : null;
  }
}
