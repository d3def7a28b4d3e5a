// @ts-check
// The spin view: one canvas pixel per spin, scaled up by CSS with crisp pixels, and an
// overlay canvas at screen resolution for markers (the tick being explained, its
// neighbours, the next site, the brush).

import { cssColour, rgbaWord, onThemeChange } from './colour.js';
import { describe, say } from './describe.js';

export class LatticeView {
  constructor(canvas) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
    this.side = 0;
    this.readColours();
    onThemeChange(() => this.readColours());
  }

  // The four colours as pixel words, indexed by up | clamped << 1 (an Int32Array: the loops
  // below stay in 32-bit integers).
  readColours() {
    this.colours = Int32Array.from([
      rgbaWord(cssColour('--spin-down', '#1d3557')),
      rgbaWord(cssColour('--spin-up', '#f4f1e8')),
      rgbaWord(cssColour('--clamped-down', '#b5179e')),
      rgbaWord(cssColour('--clamped-up', '#ffb703')),
    ]);
  }

  resize(side) {
    if (side === this.side) return;
    this.side = side;
    this.canvas.width = side;
    this.canvas.height = side;
    this.image = this.context.createImageData(side, side);
    this.pixels = new Int32Array(this.image.data.buffer);
  }

  // spins: Int8Array of ±1, site x + L·y; clamps: Uint8Array of 0/1 or null. Without a
  // branch on the spin: up = (s + 1) >> 1 is 0 or 1, and without clamps the pixel is
  // down ^ ((up ^ down) & −up). At T_c a branch guesses wrong about half the time; this loop
  // takes 0.5 ms at 1024² where a branch took 4.8 (node, one run).
  draw(spins, side, clamps = null) {
    this.resize(side);
    const { pixels, colours } = this;
    const n = spins.length;
    if (clamps) {
      for (let i = 0; i < n; i++) pixels[i] = colours[((spins[i] + 1) >> 1) | (clamps[i] << 1)];
    } else {
      const down = colours[0];
      const flip = colours[0] ^ colours[1];
      for (let i = 0; i < n; i++) pixels[i] = down ^ (flip & -((spins[i] + 1) >> 1));
    }
    this.context.putImageData(this.image, 0, 0);
    describe(this.canvas, () => this.words());
  }

  // What the lattice shows now, counted from the picture drawn: its size, the spins up and
  // down, the magnetisation per spin and the clamped spins.
  words() {
    const { pixels, side } = this;
    const [, upColour, clampedDown, clampedUp] = this.colours;
    let up = 0;
    let clamped = 0;
    for (let i = 0; i < pixels.length; i++) {
      const p = pixels[i];
      if (p === upColour) up += 1;
      else if (p === clampedUp) {
        up += 1;
        clamped += 1;
      } else if (p === clampedDown) clamped += 1;
    }
    const n = pixels.length;
    return `${side} × ${side} spins, ${up} up and ${n - up} down, magnetisation per spin ${say((2 * up - n) / n)}, ${clamped} clamped`;
  }
}

// Markers over the spin canvas, drawn at screen resolution so they stay sharp.
export class MarkerOverlay {
  constructor(canvas) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
  }

  // side: L. next: the site the next tick visits (or -1). step: the last explained tick
  // (or null). brush: {x, y, radius} in lattice units (or null).
  draw(side, { next = -1, step = null, brush = null } = {}) {
    const ratio = window.devicePixelRatio || 1;
    const { width, height } = this.canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(width * ratio));
    const h = Math.max(1, Math.round(height * ratio));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    const c = this.context;
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.clearRect(0, 0, w, h);
    const cell = w / side;
    const box = (site, colour, widthPx) => {
      const x = (site % side) * cell;
      const y = Math.floor(site / side) * cell;
      const pad = Math.min(cell * 0.5, widthPx);
      c.strokeStyle = colour;
      c.lineWidth = widthPx;
      c.strokeRect(x - pad / 2, y - pad / 2, cell + pad, cell + pad);
    };
    const thin = Math.max(1.5 * ratio, Math.min(3 * ratio, cell * 0.15));
    if (step && step.kind === 'tick') {
      for (const n of step.neighbours)
        if (n.site !== null && n.site !== undefined) box(n.site, cssColour('--neighbour', '#2a9d8f'), thin);
      box(step.site, cssColour('--marker', '#e63946'), thin * 1.6);
      // A ring around it, so that a small site is easy to find on a projected lattice.
      const ring = Math.max(14 * ratio, 2.5 * cell);
      c.strokeStyle = cssColour('--marker', '#e63946');
      c.lineWidth = thin;
      c.globalAlpha = 0.7;
      c.beginPath();
      c.arc(((step.site % side) + 0.5) * cell, (Math.floor(step.site / side) + 0.5) * cell, ring, 0, 2 * Math.PI);
      c.stroke();
      c.globalAlpha = 1;
    } else if (next >= 0) {
      box(next, cssColour('--marker', '#e63946'), thin);
    }
    if (brush) {
      c.strokeStyle = cssColour('--marker', '#e63946');
      c.lineWidth = ratio;
      c.setLineDash([4 * ratio, 3 * ratio]);
      c.beginPath();
      c.arc(
        (Math.floor(brush.x) + 0.5) * cell,
        (Math.floor(brush.y) + 0.5) * cell,
        Math.max(cell / 2, (brush.radius + 0.5) * cell),
        0,
        2 * Math.PI,
      );
      c.stroke();
      c.setLineDash([]);
    }
  }
}
