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

// Round numbers for axis ticks between lo and hi, about `count` of them.
export function ticks(lo, hi, count = 5) {
  if (!(hi > lo) || !Number.isFinite(hi - lo)) return [lo];
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}

export const tickLabel = (v) => Number(v.toPrecision(4)).toString();

// The grid and tick labels of a plot: a faint line and a label at each of about `yTicks` y
// ticks (the zero line stronger when `zeroAlpha` is given), labels at the x ticks (one per
// `xSpacing` pixels at most) and the x axis's name `labelGap` pixels below the axis.
// frame: {left, right, bottom, w, h}; scale: {x0, x1, y0, y1, px, py} (value → pixel).
export function drawAxes(
  c,
  { left, right, bottom, w, h },
  { x0, x1, y0, y1, px, py },
  { ink, faint, xLabel, xSpacing, yTicks = 4, zeroAlpha = 0.3, labelGap = 16 },
) {
  c.font = '12px system-ui, sans-serif';
  c.fillStyle = ink;
  c.lineWidth = 1;
  c.textAlign = 'right';
  c.textBaseline = 'middle';
  for (const v of ticks(y0, y1, yTicks)) {
    c.strokeStyle = faint;
    c.globalAlpha = v === 0 ? zeroAlpha : 0.3;
    c.beginPath();
    c.moveTo(left, py(v));
    c.lineTo(w - right, py(v));
    c.stroke();
    c.globalAlpha = 1;
    c.fillText(tickLabel(v), left - 5, py(v));
  }
  c.textAlign = 'center';
  c.textBaseline = 'top';
  for (const v of ticks(x0, x1, Math.max(2, Math.floor((w - left) / xSpacing))))
    c.fillText(tickLabel(v), px(v), h - bottom + 4);
  c.fillText(xLabel, left + (w - left - right) / 2, h - bottom + labelGap);
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
