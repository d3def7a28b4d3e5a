// @ts-check
// The weight view of a lattice: the couplings J·c_b drawn on the lattice itself. Each site
// becomes a 2×2 block of pixels: the site (its spin in grey), the bond to its right, the
// bond below it (both in the diverging scale), and the plaquette between four sites, marked
// when it is frustrated (the product of its four couplings is negative).

import { cssColour, rgbaWord, onThemeChange } from './colour.js';
import { describe } from './describe.js';

export class BondView {
  constructor(canvas, scale) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
    this.scale = scale;
    this.side = 0;
    this.version = -1;
    this.readColours();
    onThemeChange(() => {
      this.readColours();
      this.version = -1;
    });
  }

  readColours() {
    this.siteUp = rgbaWord(cssColour('--site-up', '#d9d9d9'));
    this.siteDown = rgbaWord(cssColour('--site-down', '#4a4a4a'));
    this.frustrated = rgbaWord(cssColour('--frustrated', '#ffd400'));
    this.plain = rgbaWord(cssColour('--paper', '#fbfaf6'));
  }

  // bonds: Float64Array of 2W² (right, below per site; NaN = none); frustration: Uint8Array
  // of W² (1 frustrated, 0 not, 2 none); spins: the lattice's Int8Array; side: L;
  // window: W; limit: the largest |J c_b|; version: redraw the bonds when it changes.
  draw({ bonds, frustration, spins, side, window, limit, version }) {
    const size = 2 * window;
    if (size !== this.side) {
      this.side = size;
      this.canvas.width = size;
      this.canvas.height = size;
      this.image = this.context.createImageData(size, size);
      this.pixels = new Uint32Array(this.image.data.buffer);
      this.version = -1;
    }
    const { pixels } = this;
    if (version !== this.version) {
      this.version = version;
      let frustrated = 0;
      let squares = 0;
      for (let k = 0; k < window * window; k++) {
        if (frustration[k] !== 2) squares += 1;
        if (frustration[k] === 1) frustrated += 1;
      }
      describe(
        this.canvas,
        () =>
          `the couplings of a ${window} × ${window} corner of the lattice, ${frustrated} of its ${squares} squares frustrated`,
      );
      for (let y = 0; y < window; y++) {
        for (let x = 0; x < window; x++) {
          const k = x + window * y;
          const at = 2 * x + size * 2 * y;
          const right = bonds[2 * k];
          const below = bonds[2 * k + 1];
          pixels[at + 1] = Number.isNaN(right) ? this.plain : this.scale.word(right / limit);
          pixels[at + size] = Number.isNaN(below) ? this.plain : this.scale.word(below / limit);
          pixels[at + size + 1] = frustration[k] === 1 ? this.frustrated : this.plain;
        }
      }
    }
    for (let y = 0; y < window; y++) {
      for (let x = 0; x < window; x++) {
        pixels[2 * x + size * 2 * y] = spins[x + side * y] > 0 ? this.siteUp : this.siteDown;
      }
    }
    this.context.putImageData(this.image, 0, 0);
  }
}
