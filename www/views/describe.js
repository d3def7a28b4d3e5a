// @ts-check
// Text alternatives that say what a canvas shows now, not only what it is. A view hands over
// a function that words its current state; the words are computed and set as the canvas's
// aria-label at most once a second, and once more after the last change, so the label ends
// on what is drawn. The label is read when a screen reader comes to the canvas: nothing is
// announced unasked (no aria-live), and no frame pays for wording it.

import { format } from '../ui.js';

const EVERY_MS = 1000;
// canvas → the function that words what it shows now
const due = new Map();
let timer = 0;

function flush() {
  timer = 0;
  for (const [canvas, words] of due) {
    // What the canvas is (its label in the page), then what it shows now.
    if (canvas.dataset.what === undefined) canvas.dataset.what = canvas.getAttribute('aria-label') ?? '';
    const label = `${canvas.dataset.what}. Now: ${words()}`;
    if (canvas.getAttribute('aria-label') !== label) canvas.setAttribute('aria-label', label);
  }
  due.clear();
}

// Sets `canvas`'s text alternative to what `words()` says within a second.
export function describe(canvas, words) {
  due.set(canvas, words);
  if (!timer) timer = window.setTimeout(flush, EVERY_MS);
}

// A number for a sentence: `digits` decimals, "not known" when it is not a number.
export const say = (value, digits = 2) => (Number.isFinite(value) ? format(value, digits) : 'not known');

// The 1-based positions of the entries of `values` above one half, as "3, 5, 8" or "none".
export function onUnits(values, from, to) {
  const on = [];
  for (let i = from; i < to; i++) if (values[i] > 0.5) on.push(i - from + 1);
  return on.length ? on.join(', ') : 'none';
}
