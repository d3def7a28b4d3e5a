// @ts-check
// Drawing on a canvas at the screen's resolution, and round numbers for axes: shared by the
// plots of both modes.

// A canvas sized to its CSS box at the screen's pixel ratio; returns the CSS width and
// height, with the context scaled so that drawing is in CSS pixels.
export function fitCanvas(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const { width, height } = canvas.getBoundingClientRect();
  const w = Math.max(1, Math.round(width * ratio));
  const h = Math.max(1, Math.round(height * ratio));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  const c = canvas.getContext('2d');
  c.setTransform(ratio, 0, 0, ratio, 0, 0);
  c.clearRect(0, 0, width, height);
  return { c, w: width, h: height };
}

// The size in CSS pixels of a plot's text on `canvas`, drawn `h` pixels high: 12 on the page;
// in a lecture tile (lessons/lecture.js) 1/40 of its height, at least 12, so that it reads
// from the back of the room. The plots scale their margins with it (size / 12).
export function plotTextPx(canvas, h) {
  return canvas.closest('.lecture-view') ? Math.max(12, Math.round(h / 40)) : 12;
}

// The step of round axis ticks between lo and hi, about `count` of them: 1, 2, 2.5 or 5 times a
// power of ten; on an `integer` axis (ticks, sweeps, updates) a whole number, at least 1.
export function tickStep(lo, hi, count = 5, integer = false) {
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step =
    [1, 2, 2.5, 5, 10]
      .map((m) => m * power)
      .filter((s) => !integer || Number.isInteger(s))
      .find((s) => s >= raw) ?? raw;
  return integer ? Math.max(1, Math.ceil(step)) : step;
}

// Round numbers for axis ticks between lo and hi, about `count` of them (whole numbers only on
// an `integer` axis).
export function ticks(lo, hi, count = 5, integer = false) {
  if (!(hi > lo) || !Number.isFinite(hi - lo)) return [lo];
  const step = tickStep(lo, hi, count, integer);
  const first = Math.ceil(lo / step - 1e-9);
  const out = [];
  for (let k = first; k * step <= hi + step * 1e-9; k++) {
    const v = k * step;
    out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
}

// The decimals that tell ticks `step` apart: 0 for 5, 1 for 0.5 or 2.5, 2 for 0.25.
export function tickDecimals(step) {
  let d = 0;
  while (d < 15) {
    const scaled = step * 10 ** d;
    if (Math.round(scaled) >= 1 && Math.abs(scaled - Math.round(scaled)) <= 1e-6 * scaled) break;
    d += 1;
  }
  return d;
}

// A tick's label on an axis of ticks `step` apart: as many decimals as the step needs (so that
// neighbours never read alike: 5188 and 5189, 0.25 and 0.5), trailing zeros dropped; with no
// step (an axis of one value), four significant digits but every digit of its whole part.
export function tickLabel(v, step) {
  if (step > 0 && Number.isFinite(step)) return Number(v.toFixed(Math.min(20, tickDecimals(step)))).toString();
  const whole = Math.abs(v) >= 1 ? Math.floor(Math.log10(Math.abs(v))) + 1 : 1;
  return Number(v.toPrecision(Math.min(21, Math.max(4, whole)))).toString();
}

// The ticks of an axis with their labels, [{v, text}], about `count` between lo and hi.
export function tickLabels(lo, hi, count = 5, integer = false) {
  const step = hi > lo ? tickStep(lo, hi, count, integer) : NaN;
  return ticks(lo, hi, count, integer).map((v) => ({ v, text: tickLabel(v, step) }));
}

// The x labels placed: each centred on its tick but kept inside the canvas (0 to w), and as
// many ticks as fit with `gap` pixels between labels (fewer ticks when the labels are long).
// measure(text) → width in pixels. Returns [{text, x}].
export function placeXLabels(x0, x1, px, w, count, integer, measure, gap = 8) {
  const place = (n) =>
    tickLabels(x0, x1, n, integer).map(({ v, text }) => {
      const half = measure(text) / 2;
      return { text, half, x: Math.min(Math.max(px(v), half), w - half) };
    });
  const overlaps = (a, b) => a.x + a.half + gap > b.x - b.half;
  for (let n = count; n >= 1; n--) {
    const placed = place(n);
    if (placed.every((p, i) => i === 0 || !overlaps(placed[i - 1], p))) return placed;
  }
  // Not even two fit: those that do, from the left.
  const kept = [];
  for (const p of place(1)) if (!kept.length || !overlaps(kept[kept.length - 1], p)) kept.push(p);
  return kept;
}

// The grid and tick labels of a plot: a faint line and a label at each of about `yTicks` y
// ticks (the zero line stronger when `zeroAlpha` is given), labels at the x ticks (one per
// `xSpacing` pixels at most, fewer when the labels are wider, each inside the canvas) and the
// x axis's name `labelGap` pixels below the axis. `xInteger`: the x axis counts (ticks,
// sweeps, updates), so its ticks are whole numbers; by default when x0 and x1 are both whole.
// `textPx`: the labels' size in pixels (plotTextPx), the gaps and spacings above being for
// 12 px and scaled with it; the canvas's data-text-px says what it was.
// frame: {left, right, bottom, w, h}; scale: {x0, x1, y0, y1, px, py} (value → pixel).
export function drawAxes(
  c,
  { left, right, bottom, w, h },
  { x0, x1, y0, y1, px, py },
  { ink, faint, xLabel, xSpacing, yTicks = 4, zeroAlpha = 0.3, labelGap = 16, xInteger = undefined, textPx = 12 },
) {
  const s = textPx / 12;
  c.canvas.dataset.textPx = String(textPx);
  c.font = `${textPx}px system-ui, sans-serif`;
  c.fillStyle = ink;
  c.lineWidth = 1;
  c.textAlign = 'right';
  c.textBaseline = 'middle';
  for (const { v, text } of tickLabels(y0, y1, yTicks)) {
    c.strokeStyle = faint;
    c.globalAlpha = v === 0 ? zeroAlpha : 0.3;
    c.beginPath();
    c.moveTo(left, py(v));
    c.lineTo(w - right, py(v));
    c.stroke();
    c.globalAlpha = 1;
    c.fillText(text, left - 5 * s, py(v));
  }
  c.textAlign = 'center';
  c.textBaseline = 'top';
  const integer = xInteger ?? (Number.isInteger(x0) && Number.isInteger(x1));
  const count = Math.max(2, Math.floor((w - left) / (xSpacing * s)));
  for (const { text, x } of placeXLabels(x0, x1, px, w, count, integer, (t) => c.measureText(t).width))
    c.fillText(text, x, h - bottom + 4 * s);
  c.fillText(xLabel, left + (w - left - right) / 2, h - bottom + labelGap * s);
}

// The y range [y0, y1] widened to at least `minSpan` (or `fallback` when it holds no finite
// value) and by a 6 % margin each side, with the value → pixel maps of the plot area.
export function paddedScale({ left, right, top, bottom, w, h }, x0, x1, y0, y1, minSpan, fallback) {
  if (!Number.isFinite(y0) || !Number.isFinite(y1)) [y0, y1] = fallback;
  if (y1 - y0 < minSpan) {
    y0 -= 0.5;
    y1 += 0.5;
  }
  const margin = (y1 - y0) * 0.06;
  y0 -= margin;
  y1 += margin;
  const px = (v) => left + ((v - x0) / (x1 - x0)) * (w - left - right);
  const py = (v) => top + ((y1 - v) / (y1 - y0)) * (h - top - bottom);
  return { x0, x1, y0, y1, px, py };
}
