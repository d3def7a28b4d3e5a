// @ts-check
// Small interactive pieces a lesson step can carry in its card.

import { format, readNumber } from '../ui.js';
import { exact } from './quantities.js';

// Two 0/1 units s₃ and s₈ with one weight J₃₈ at T = 1: a slider for J and the exact
// probabilities of the four joint states, P(s) = e^{J s₃ s₈} / (3 + e^J).
export class TwoUnits {
  constructor(box) {
    box.innerHTML = `<label for="two-units-j">J<sub>38</sub></label>
      <div class="row"><input id="two-units-j" type="range" min="-4" max="4" step="0.05" value="0">
      <input id="two-units-j-value" type="number" min="-4" max="4" step="0.05" value="0" aria-label="J38 value"></div>
      <table class="two-units"><thead><tr><th>s<sub>3</sub></th><th>s<sub>8</sub></th><th>E</th><th>P (exact)</th></tr></thead><tbody></tbody></table>`;
    this.j = 0;
    this.body = box.querySelector('tbody');
    const slider = box.querySelector('#two-units-j');
    const value = box.querySelector('#two-units-j-value');
    slider.addEventListener('input', () => this.set(readNumber(slider.value), value));
    value.addEventListener('change', () => this.set(readNumber(value.value), slider));
    this.draw();
  }

  // A J outside [−4, 4] or not a number is refused: the control goes back to the J held.
  set(j, other) {
    if (Number.isFinite(j) && j >= -4 && j <= 4) this.j = j;
    other.value = String(this.j);
    this.draw();
  }

  probabilities() {
    const z = 3 + Math.exp(this.j);
    return [
      [0, 0, 1 / z],
      [0, 1, 1 / z],
      [1, 0, 1 / z],
      [1, 1, Math.exp(this.j) / z],
    ];
  }

  draw() {
    this.body.innerHTML = this.probabilities()
      .map(
        ([a, b, p]) =>
          `<tr><td>${a}</td><td>${b}</td><td>${format(-this.j * a * b, 2)}</td><td>${format(p, 3)}</td></tr>`,
      )
      .join('');
  }

  readouts() {
    return { j38: exact(this.j), pBothOn: exact(this.probabilities()[3][2]) };
  }
}
