// @ts-check
// Colours shared by the views: CSS custom properties (light and dark themes), turned into
// the RGBA words an ImageData's Uint32Array holds, and the diverging scale for couplings.

// The value of a CSS custom property on :root, or a fallback.
export function cssColour(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

const probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true });

// A CSS colour as [r, g, b, a] bytes.
export function rgba(colour) {
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = colour;
  probe.fillRect(0, 0, 1, 1);
  return [...probe.getImageData(0, 0, 1, 1).data];
}

// [r, g, b, a] as the little-endian word of a Uint32Array over ImageData.
/** @param {number[]} rgba */
export function word([r, g, b, a = 255]) {
  return ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

// A CSS colour as an ImageData word.
export function rgbaWord(colour) {
  return word(rgba(colour));
}

// The event sent when the page's colour profile (default or projector) changes.
export const PROFILE_EVENT = 'boltzlab:colours';

// Calls `callback` when the colour scheme (light/dark) or the colour profile changes.
export function onThemeChange(callback) {
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', callback);
  window.addEventListener(PROFILE_EVENT, callback);
}

// The colour profiles: the default (light or dark by the system) and a high-contrast,
// colour-blind-safe one for projectors (Okabe–Ito hues, black on white).
export const PROFILES = ['default', 'projector'];

// Sets the colour profile of the page; the views re-read their colours.
export function setProfile(name) {
  if (!PROFILES.includes(name)) throw new Error(`unknown colours “${name}”: the choices are ${PROFILES.join(' and ')}`);
  if (name === 'default') delete document.documentElement.dataset.colors;
  else document.documentElement.dataset.colors = name;
  window.dispatchEvent(new Event(PROFILE_EVENT));
}

// The diverging scale: −1 → --negative, 0 → --neutral, +1 → --positive, linear in RGB
// between them. Ferromagnetic couplings (J > 0) are positive.
export class DivergingScale {
  constructor() {
    this.read();
    onThemeChange(() => this.read());
  }

  read() {
    this.negative = rgba(cssColour('--negative', '#c0392b'));
    this.neutral = rgba(cssColour('--neutral', '#f2f2f2'));
    this.positive = rgba(cssColour('--positive', '#2166ac'));
    // 513 steps from −1 to +1, for drawing many pixels fast.
    this.table = new Uint32Array(513);
    for (let k = 0; k <= 512; k++) this.table[k] = word(this.colour(k / 256 - 1));
  }

  // t in [−1, 1] (clipped) as [r, g, b, 255].
  colour(t) {
    const x = Math.max(-1, Math.min(1, t));
    const end = x < 0 ? this.negative : this.positive;
    const f = Math.abs(x);
    return [0, 1, 2].map((k) => Math.round(this.neutral[k] + f * (end[k] - this.neutral[k]))).concat(255);
  }

  word(t) {
    const x = Math.max(-1, Math.min(1, t));
    return this.table[Math.round((x + 1) * 256)];
  }

  css(t) {
    const [r, g, b] = this.colour(t);
    return `rgb(${r}, ${g}, ${b})`;
  }
}

// Draws a horizontal colour bar for values from −limit to +limit with labels.
export function drawLegend(canvas, scale, limit, caption) {
  const ratio = window.devicePixelRatio || 1;
  const { width, height } = canvas.getBoundingClientRect();
  canvas.width = Math.max(1, Math.round(width * ratio));
  canvas.height = Math.max(1, Math.round(height * ratio));
  const c = canvas.getContext('2d');
  c.setTransform(ratio, 0, 0, ratio, 0, 0);
  c.clearRect(0, 0, width, height);
  const left = 8;
  const right = width - 8;
  const barTop = 4;
  const barHeight = 12;
  for (let x = left; x < right; x++) {
    c.fillStyle = scale.css(((x - left) / (right - left)) * 2 - 1);
    c.fillRect(x, barTop, 1.5, barHeight);
  }
  c.strokeStyle = cssColour('--faint', '#888');
  c.strokeRect(left, barTop, right - left, barHeight);
  c.fillStyle = cssColour('--ink', '#222');
  c.font = '12px system-ui, sans-serif';
  c.textBaseline = 'top';
  const y = barTop + barHeight + 3;
  const label = (v) => (Math.abs(v) >= 100 ? v.toExponential(1) : Number(v.toPrecision(3)).toString());
  c.textAlign = 'left';
  c.fillText(`−${label(limit)}`, left, y);
  c.textAlign = 'center';
  c.fillText(`0  ${caption}`, (left + right) / 2, y);
  c.textAlign = 'right';
  c.fillText(`+${label(limit)}`, right, y);
}
