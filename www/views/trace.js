// The trace view: E/N and M/N against sweeps, with axes and labels.

const Y_MIN = -2;
const Y_MAX = 1;

export class TraceView {
  constructor(canvas) {
    this.canvas = canvas;
    this.context = canvas.getContext('2d');
  }

  fitToCss() {
    const ratio = window.devicePixelRatio || 1;
    const { width, height } = this.canvas.getBoundingClientRect();
    const w = Math.max(1, Math.round(width * ratio));
    const h = Math.max(1, Math.round(height * ratio));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    return ratio;
  }

  // sweeps, energy, magnetization: Float64Arrays of equal length.
  draw(sweeps, energy, magnetization) {
    const ratio = this.fitToCss();
    const c = this.context;
    const style = getComputedStyle(document.documentElement);
    const ink = style.getPropertyValue('--ink').trim() || '#222';
    const faint = style.getPropertyValue('--faint').trim() || '#999';
    const { width, height } = this.canvas;
    c.setTransform(1, 0, 0, 1, 0, 0);
    c.clearRect(0, 0, width, height);
    c.scale(ratio, ratio);
    const w = width / ratio;
    const h = height / ratio;
    const left = 40;
    const right = 10;
    const top = 8;
    const bottom = 26;
    const n = sweeps.length;
    const x0 = n ? sweeps[0] : 0;
    const x1 = n > 1 && sweeps[n - 1] > x0 ? sweeps[n - 1] : x0 + 1;
    const px = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - right);
    const py = (y) => top + ((Y_MAX - y) / (Y_MAX - Y_MIN)) * (h - top - bottom);

    c.font = '11px system-ui, sans-serif';
    c.lineWidth = 1;
    c.strokeStyle = faint;
    c.fillStyle = ink;
    c.textAlign = 'right';
    c.textBaseline = 'middle';
    for (let y = Y_MIN; y <= Y_MAX; y += 0.5) {
      c.beginPath();
      c.moveTo(left, py(y));
      c.lineTo(w - right, py(y));
      c.globalAlpha = y === 0 ? 0.9 : 0.3;
      c.stroke();
      c.globalAlpha = 1;
      c.fillText(y.toFixed(1), left - 4, py(y));
    }
    c.textAlign = 'left';
    c.textBaseline = 'top';
    c.fillText(x0.toFixed(1), left, h - bottom + 6);
    c.textAlign = 'right';
    c.fillText(`${x1.toFixed(1)} sweeps`, w - right, h - bottom + 6);

    const line = (values, colour) => {
      if (n < 2) return;
      c.beginPath();
      c.strokeStyle = colour;
      c.lineWidth = 1.5;
      c.moveTo(px(sweeps[0]), py(values[0]));
      for (let i = 1; i < n; i++) c.lineTo(px(sweeps[i]), py(values[i]));
      c.stroke();
    };
    line(magnetization, style.getPropertyValue('--magnetization').trim() || '#2a9d8f');
    line(energy, style.getPropertyValue('--energy').trim() || '#e76f51');
  }
}
