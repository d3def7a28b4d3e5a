// The spin view: one canvas pixel per spin, scaled up by CSS with crisp pixels.

function cssColour(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

// A CSS colour as the little-endian RGBA word an ImageData's Uint32Array holds.
function rgbaWord(colour) {
  const probe = document.createElement('canvas').getContext('2d');
  probe.fillStyle = colour;
  probe.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data;
  return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

export class LatticeView {
  constructor(canvas) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
    this.side = 0;
    this.readColours();
    window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => this.readColours());
  }

  readColours() {
    this.up = rgbaWord(cssColour('--spin-up', '#f4f1e8'));
    this.down = rgbaWord(cssColour('--spin-down', '#1d3557'));
  }

  resize(side) {
    if (side === this.side) return;
    this.side = side;
    this.canvas.width = side;
    this.canvas.height = side;
    this.image = this.context.createImageData(side, side);
    this.pixels = new Uint32Array(this.image.data.buffer);
  }

  // spins: Int8Array of ±1, site x + L·y. marker: a site to outline, or -1.
  draw(spins, side, marker = -1) {
    this.resize(side);
    const { pixels, up, down } = this;
    for (let i = 0; i < spins.length; i++) pixels[i] = spins[i] > 0 ? up : down;
    this.context.putImageData(this.image, 0, 0);
    if (marker >= 0) {
      this.context.strokeStyle = cssColour('--marker', '#e63946');
      this.context.lineWidth = Math.max(0.25, side / 256);
      this.context.strokeRect((marker % side) - 0.5, Math.floor(marker / side) - 0.5, 2, 2);
    }
  }
}
