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

// The grid and tick labels of a plot: a faint line and a label at each y tick, labels at
// the x ticks (one per `xSpacing` pixels at most) and the x axis's name below them.
// frame: {left, right, bottom, w, h}; scale: {x0, x1, y0, y1, px, py} (value → pixel).
export function drawAxes(
  c,
  { left, right, bottom, w, h },
  { x0, x1, y0, y1, px, py },
  { ink, faint, xLabel, xSpacing },
) {
  c.font = '12px system-ui, sans-serif';
  c.fillStyle = ink;
  c.lineWidth = 1;
  c.textAlign = 'right';
  c.textBaseline = 'middle';
  for (const v of ticks(y0, y1, 4)) {
    c.strokeStyle = faint;
    c.globalAlpha = 0.3;
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
  c.fillText(xLabel, left + (w - left - right) / 2, h - bottom + 16);
}
