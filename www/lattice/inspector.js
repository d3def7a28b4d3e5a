// @ts-check
// The tick inspector: why the last explained tick did what it did. Every number comes from
// the engine's explained tick (the same arithmetic as the tick itself); this module only
// formats it.

import { $ } from '../ui.js';

const arrow = (s) => (s > 0 ? '↑' : s < 0 ? '↓' : '·');
const number = (x, digits = 4) => {
  if (!Number.isFinite(x)) return String(x);
  const text = Number(x.toPrecision(digits)).toString();
  return text.startsWith('-') ? `−${text.slice(1)}` : text;
};
const signed = (x, digits) => (x > 0 ? `+${number(x, digits)}` : number(x, digits));

export class Inspector {
  constructor() {
    this.shown = null;
  }

  // step: the engine's last_step() object or null; active: whether the page runs slowly
  // enough (or is paused) for the inspector to follow.
  update(step, active) {
    const key = step && active ? `${step.kind}:${step.tick ?? step.flipped}` : null;
    if (key === this.shown) return;
    this.shown = key;
    const body = $('inspector-body');
    const idle = $('inspector-idle');
    const cluster = $('inspector-cluster');
    body.hidden = !(key && step.kind === 'tick');
    cluster.hidden = !(key && step.kind === 'cluster');
    idle.hidden = Boolean(key);
    if (!key) return;
    if (step.kind === 'cluster') {
      // `flipped` counts every spin flipped by the step's cluster moves: one cluster for one
      // move, many for a sweep (where a spin may flip more than once).
      cluster.textContent = `Wolff dynamics: the last step's cluster moves flipped ${step.flipped} spin${step.flipped === 1 ? '' : 's'} in all (each move flips one whole cluster; in a sweep a spin may flip more than once). Choose heat-bath or Metropolis to follow single ticks.`;
      return;
    }
    const e = step;
    const names = ['left', 'right', 'up', 'down'];
    e.neighbours.forEach((n, k) => {
      const cell = $(`n-${names[k]}`);
      if (n.spin === 0) {
        cell.textContent = 'no bond';
        cell.title = '';
      } else {
        const who = n.site === null || n.site === undefined ? 'border ' : '';
        cell.textContent = `${who}${arrow(n.spin)} J=${signed(n.coupling, 3)}`;
      }
      cell.dataset.spin = String(n.spin);
    });
    const centre = $('n-centre');
    centre.textContent = `s=${arrow(e.spin_before)}`;
    centre.dataset.spin = String(e.spin_before);
    $('inspect-site').textContent = `Site (${e.x}, ${e.y}), tick ${e.tick}${e.clamped ? ', clamped' : ''}`;
    $('inspect-field').textContent = number(e.local_field);
    $('inspect-delta-e').textContent = number(e.energy_change);
    $('inspect-temperature').textContent = String(e.temperature);
    const heatBath = e.rule === 'heat-bath';
    // At T = 0 both rules are energy descent, a tie a fair coin (src/dynamics/rules.rs).
    $('inspect-formula').textContent =
      e.temperature === 0
        ? `P(flip) = 1 if ΔE < 0, 0 if ΔE > 0, ½ if ΔE = 0 (T = 0: energy descent, ties a fair coin), ${heatBath ? 'heat-bath' : 'Metropolis'}`
        : heatBath
          ? 'P(flip) = 1 / (1 + e^(ΔE/T)), heat-bath'
          : 'P(flip) = min(1, e^(−ΔE/T)), Metropolis';
    $('inspect-p-flip').textContent = number(e.flip_probability, 6);
    $('inspect-p-up').textContent = number(e.probability_up, 6);
    if (e.clamped) {
      $('inspect-random').textContent = 'none drawn';
      $('inspect-decision').textContent = 'clamped: the spin is held';
    } else {
      const up = e.spin_after > 0;
      const flipped = e.spin_after !== e.spin_before;
      $('inspect-random').textContent = number(e.random, 6);
      $('inspect-decision').textContent =
        `u ${up ? '<' : '≥'} P(+1), so s′ = ${up ? '+1' : '−1'}: ${flipped ? 'flipped' : 'kept'}`;
    }
  }
}
