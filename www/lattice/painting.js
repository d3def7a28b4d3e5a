// @ts-check
// Painting on the spin canvas: a drag paints a stroke with the chosen brush (up, down,
// clamp, unclamp). The engine paints whole strokes (a line of round dabs), so the page
// makes one paint command per pointer move, never one per spin.

import { $ as byId, attempt, readNumber } from '../ui.js';
import { pictureRows } from './pictures.js';

// The page's form controls by id, typed as inputs and selects alike (value, min, max,
// options, checked) for the type checker.
const $ = (id) => /** @type {HTMLInputElement & HTMLSelectElement} */ (byId(id));

export class Painter {
  // box: the element over the spin canvas that receives the pointer; onPaint: called after
  // each accepted stroke.
  /**
   * @param {import('boltzlab-bindings').IsingLab} lab
   * @param {HTMLElement} box
   * @param {() => void} onPaint
   */
  constructor(lab, box, onPaint) {
    this.lab = lab;
    this.box = box;
    this.onPaint = onPaint;
    this.last = null;
    this.hover = null;
    const brush = $('brush');
    if (window.matchMedia('(pointer: coarse)').matches) brush.value = 'off';
    const showBrush = () => {
      box.classList.toggle('painting', brush.value !== 'off');
      $('brush-size-shown').textContent = $('brush-size').value;
    };
    brush.addEventListener('change', showBrush);
    $('brush-size').addEventListener('input', showBrush);
    showBrush();

    box.addEventListener('pointerdown', (event) => {
      if (brush.value === 'off' || event.button !== 0) return;
      event.preventDefault();
      box.setPointerCapture(event.pointerId);
      this.last = this.at(event);
      this.stroke(this.last, this.last);
    });
    box.addEventListener('pointermove', (event) => {
      this.hover = brush.value === 'off' ? null : this.at(event);
      if (!this.last) return;
      const here = this.at(event);
      this.stroke(this.last, here);
      this.last = here;
    });
    const end = () => {
      this.last = null;
    };
    box.addEventListener('pointerup', end);
    box.addEventListener('pointercancel', end);
    box.addEventListener('pointerleave', () => {
      this.hover = null;
    });
  }

  // The pointer's position in lattice units (x, y in 0..L).
  at(event) {
    const rect = this.box.getBoundingClientRect();
    const side = this.lab.side();
    return {
      x: ((event.clientX - rect.left) / rect.width) * side,
      y: ((event.clientY - rect.top) / rect.height) * side,
    };
  }

  stroke(from, to) {
    const radius = readNumber($('brush-size').value);
    // The menu's value, one of the engine's brush names (checked again when it decodes).
    const brush = /** @type {import('boltzlab-bindings').Brush} */ ($('brush').value);
    const ok = attempt('brush-error', () => this.lab.dispatch({ command: 'paint', from, to, radius, brush }));
    if (ok) this.onPaint();
    else this.last = null;
  }

  // Draws named picture `name` (pictures.js) over the lattice: all spins up, then its rows
  // of down spins, each one engine stroke of radius 0 (checked like a drag; throws the
  // engine's reason, with the lattice then part-drawn, only for a refused stroke).
  picture(name) {
    const rows = pictureRows(name, this.lab.side());
    this.lab.dispatch({ command: 'reset', to: 'up' });
    for (const { y, x0, x1 } of rows)
      this.lab.dispatch({
        command: 'paint',
        from: { x: x0 + 0.5, y: y + 0.5 },
        to: { x: x1 + 0.5, y: y + 0.5 },
        radius: 0,
        brush: 'down',
      });
    this.onPaint();
  }

  // The brush outline for the overlay, or null.
  cursor() {
    if (!this.hover) return null;
    return { x: this.hover.x, y: this.hover.y, radius: Number($('brush-size').value) };
  }
}
