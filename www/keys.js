// @ts-check
// Keyboard shortcuts (listed in the help overlay): space play/pause, s step one tick,
// Shift+s step one sweep, r/u/d reset, f phase switch, +/− speed, ? help. In Boltzmann-
// machine mode the same keys act on the machine: space run/pause learning, s one learning
// cycle, Shift+s one learning sweep, f clamped ⇄ free by hand, r reset weights. Each mode
// holds its own key map (its `shortcuts`); this module only decides when keys are ours.
// They stay out of the way of text boxes and menus, and of buttons, radios and
// checkboxes reached by keyboard (where space and Enter belong to the control).

import { $ } from './ui.js';

// Whether the focused element got focus from the keyboard (Tab), judged when it got it:
// Chrome counts any later key press as keyboard interaction, so :focus-visible is no guide
// at key-press time.
let focusFromKeyboard = false;
document.addEventListener('focusin', (event) => {
  focusFromKeyboard = event.target instanceof Element && event.target.matches(':focus-visible');
});

function ownsKeys(element) {
  if (!element || element === document.body) return false;
  if (element.isContentEditable) return true;
  const tag = element.tagName;
  if (tag === 'SELECT' || tag === 'TEXTAREA') return true;
  if (tag === 'INPUT') {
    const type = element.type;
    if (type === 'range') return false;
    if (type === 'radio' || type === 'checkbox' || type === 'file') return focusFromKeyboard;
    return true; // number, text
  }
  if (tag === 'BUTTON') return focusFromKeyboard;
  return false;
}

// shortcuts(): the key map of the mode shown ({' ': playPause, s: …}), which each mode
// defines; '?' (help) is the same in every mode.
export function installShortcuts(shortcuts) {
  const help = $('help');
  // The machine's keys are those of the kind shown: the general machine's or the restricted
  // one's (app.js hides both outside machine mode).
  const openHelp = () => {
    const machine = !$('machine').hidden;
    const kind = /** @type {HTMLInputElement} */ ($('bm-kind-restricted')).checked ? 'restricted' : 'full';
    for (const body of help.querySelectorAll('tbody[data-kind]'))
      if (body instanceof HTMLElement) body.hidden = !machine || body.dataset.kind !== kind;
    help.showModal();
  };
  $('help-open').addEventListener('click', openHelp);
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (help.open) return; // the dialog handles Esc itself
    const target = document.activeElement;
    if (event.key === 'Escape' && target instanceof HTMLElement && target !== document.body) {
      target.blur();
      return;
    }
    if (ownsKeys(target)) return;
    // A lesson's prediction keeps the run paused until an answer is committed.
    if (document.body.classList.contains('lesson-locked')) return;
    const key = event.key;
    const keys = shortcuts();
    const run = key === '?' ? openHelp : Object.hasOwn(keys, key) ? keys[key] : null;
    if (!run) return;
    event.preventDefault();
    run();
  });
  // A mouse-clicked button keeps focus; stop its own space activation (on key up) so that
  // space means play/pause there too.
  document.addEventListener('keyup', (event) => {
    if (
      event.key === ' ' &&
      !help.open &&
      !ownsKeys(document.activeElement) &&
      document.activeElement?.tagName === 'BUTTON'
    ) {
      event.preventDefault();
    }
  });
}
