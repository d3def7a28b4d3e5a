// @ts-check
// Small helpers shared by the page's modules: elements, messages next to controls,
// number formatting and downloads.

// Typed loosely as any control (input, select, dialog) so that callers can read .value,
// .checked, .options or .showModal() without a cast: the ids are the page's own.
/**
 * @param {string} id
 * @returns {HTMLInputElement & HTMLSelectElement & HTMLDialogElement}
 */
export const $ = (id) => /** @type {any} */ (document.getElementById(id));

// Sets an element's text (an id or the element) only when it differs. A write of the same
// text still replaces the text node, and the browser lays out and repaints the page again: a
// read-out written every frame with the same figure costs the page a frame's paint.
/**
 * @param {string | HTMLElement} target
 * @param {string} text
 */
export function setText(target, text) {
  const element = typeof target === 'string' ? $(target) : target;
  if (element.textContent !== text) element.textContent = text;
}

// An engine message ("temperature must be …") as a sentence.
export const sentence = (message) => message.charAt(0).toUpperCase() + message.slice(1);

// Disables the boxes a choice does not use and says why, as text in the note `noteId` (hidden
// when every box is used) and as each box's title: `unused` maps a box's id to the reason it
// is not used, or '' when it is.
/**
 * @param {Record<string, string>} unused
 * @param {string} noteId
 */
export function showUnused(unused, noteId) {
  // The boxes' labels by reason, so that one reason is said once: "A, B and C: why."
  /** @type {Map<string, string[]>} */
  const byReason = new Map();
  for (const [id, why] of Object.entries(unused)) {
    const box = $(id);
    box.disabled = why !== '';
    box.title = why;
    const label = document.querySelector(`label[for="${id}"]`)?.textContent ?? id;
    if (why) byReason.set(why, [...(byReason.get(why) ?? []), label]);
  }
  const reasons = [...byReason].map(([why, labels]) => {
    const named = labels.length > 1 ? `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}` : labels[0];
    return `${named}: ${why}.`;
  });
  setText(noteId, reasons.join(' '));
  $(noteId).hidden = reasons.length === 0;
}

// A decimal written with a comma ("1,5", "-0,05"), as much of Europe writes it.
const DECIMAL_COMMA = /^[-+]?\d*,\d+$/;

/**
 * A refusal that got "no number" from a box holding a decimal comma says so, and what to
 * write instead: "got 1,5: write decimals with a point, 1.5". readNumber reads a comma as no
 * number; the decimal boxes are text boxes because a number box reads "1,5" as 15, silently.
 * @param {string} message
 * @param {Iterable<Element>} controls the controls the refusal describes
 */
export function commaHint(message, controls) {
  if (!message.includes('got no number')) return message;
  for (const control of controls) {
    const text = control instanceof HTMLInputElement ? control.value.trim() : '';
    if (DECIMAL_COMMA.test(text))
      return message.replace('got no number', `got ${text}: write decimals with a point, ${text.replace(',', '.')}`);
  }
  return message;
}

// Shows `message` in the error element `id` and marks the controls it describes invalid.
export function showError(id, message) {
  const box = $(id);
  box.textContent = sentence(commaHint(message, document.querySelectorAll(`[aria-describedby~="${id}"]`)));
  box.hidden = false;
  for (const control of document.querySelectorAll(`[aria-describedby~="${id}"]`))
    control.setAttribute('aria-invalid', 'true');
}

export function clearError(id) {
  const box = $(id);
  if (box.hidden) return;
  box.hidden = true;
  box.textContent = '';
  for (const control of document.querySelectorAll(`[aria-describedby~="${id}"]`))
    control.removeAttribute('aria-invalid');
}

// Runs `action`; on a thrown error shows its message in `errorId` and returns false.
export function attempt(errorId, action) {
  try {
    action();
    clearError(errorId);
    return true;
  } catch (err) {
    showError(errorId, err.message ?? String(err));
    return false;
  }
}

// A press on a button first takes the focus from the box being edited, whose value is then
// committed (its change event) and checked, before the button's click. A guard tells that click
// whether the commit on its way was refused, so that a refused value never starts or steps a
// run: the box is set back at once, and the next press runs at the value it shows.
export class PressGuard {
  constructor() {
    // Values refused so far, and their count when a watched button was last pressed (null:
    // no press under way).
    this.refusals = 0;
    /** @type {number | null} */
    this.atPress = null;
  }

  // To be called on every refusal of a value the watched buttons act on.
  refuse() {
    this.refusals += 1;
  }

  /** @param {HTMLElement[]} buttons */
  watch(...buttons) {
    const press = () => (this.atPress = this.refusals);
    for (const button of buttons) {
      button.addEventListener('pointerdown', press);
      button.addEventListener('keydown', press);
    }
  }

  /**
   * Wires `button` to `act` (a start or a step): a press that refused a value on its way does
   * nothing, unless `pauses()` says that this press pauses what runs (pausing still pauses).
   * @param {HTMLElement} button
   * @param {() => void} act
   * @param {() => boolean} [pauses]
   */
  onPress(button, act, pauses = () => false) {
    this.watch(button);
    button.addEventListener('click', () => {
      if (this.pressRefused() && !pauses()) return;
      act();
    });
  }

  // Whether the press that clicked a watched button refused a value on its way; the press is
  // over either way.
  pressRefused() {
    const refused = this.atPress !== null && this.atPress !== this.refusals;
    this.atPress = null;
    return refused;
  }
}

// The number a form control holds, read strictly: a decimal such as "2.5", "-1" or "1e-3";
// anything else (empty, "0x10", "12abc", "1,5", full-width digits) reads as NaN. Reading
// only: the engine checks the value and names the field and its range when it refuses it.
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;
export const readNumber = (text) => {
  const t = String(text).trim();
  return DECIMAL.test(t) ? Number(t) : NaN;
};

// `text` safe to put in HTML as text.
export const escapeText = (text) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// x with `digits` decimals, never "-0.0000".
export const format = (x, digits = 4) =>
  (Object.is(x, -0) || Math.abs(x) < 0.5 * 10 ** -digits ? 0 : x).toFixed(digits);

// Offers `content` (a string or a Blob) as a file download.
export function download(name, content, type = 'text/plain') {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
