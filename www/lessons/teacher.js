// @ts-check
// Links a teacher builds: from the lattice or machine as it stands, a one-step lesson with
// the teacher's own title and instruction, and chosen controls hidden or locked. The link
// is ?teach=1&title=…&text=…&hide=…&lock=…#state=… (link.js), so opening it restores
// exactly that state (the lattice's or machine's session text) under that one step; a
// lattice too large for a sensible link falls back to its parameters and seed. The title
// and text are shown as plain text, never as markup.

import { $ } from '../ui.js';
import { PARTS, modeScene } from './scene.js';
import { MAX_LINK_CHARS, encodeState } from '../link.js';
import { machinePayload } from '../machine/share.js';

// The parts a teacher may hide or lock in each mode, with their names in the builder.
export const TEACHABLE_BY_MODE = {
  lattice: {
    run: 'run controls',
    temperature: 'temperature and field',
    model: 'model, size, rule, seed',
    brush: 'brush and phase',
    inspector: 'tick inspector',
    trace: 'energy trace',
    weights: 'weights view',
    sweep: 'temperature sweep',
    'lattice-logz': 'ln Z panel',
    share: 'export and share',
  },
  machine: {
    learning: 'learning controls',
    explore: 'phase switch (watch by hand)',
    options: 'dataset, method, seed, statistics',
    editor: 'pattern editor',
    'machine-weights': 'weights view',
    correlations: 'correlations',
    gallery: 'gallery',
    'machine-logz': 'ln Z panel',
    'rbm-learning': 'restricted machine: learning',
    'rbm-options': 'restricted machine: options',
    'machine-share': 'export and share',
  },
};

// Every part either mode's builder offers.
export const TEACHABLE = { ...TEACHABLE_BY_MODE.lattice, ...TEACHABLE_BY_MODE.machine };

const MAX_TITLE = 120;
const MAX_TEXT = 1000;

// What a teacher's link asks for: {title, text, hide: [...], lock: [...]}, or {error}; null
// when the address is not a teacher's link.
export function parseTeachLink(search) {
  const params = new URLSearchParams(search);
  if (params.get('teach') !== '1') return null;
  const list = (name) => (params.get(name) ?? '').split(',').filter(Boolean);
  const hide = list('hide');
  const lock = list('lock');
  const unknown = [...hide, ...lock].filter((part) => !Object.hasOwn(TEACHABLE, part));
  if (unknown.length) return { error: `This lesson link names parts the page does not have: ${unknown.join(', ')}.` };
  const title = params.get('title') ?? 'A lesson';
  const text = params.get('text') ?? '';
  if (title.length > MAX_TITLE || text.length > MAX_TEXT)
    return { error: `This lesson link’s title or text is too long (at most ${MAX_TITLE} and ${MAX_TEXT} characters).` };
  return { title, text, hide, lock };
}

// The fragment of the state shown (link.js): the lattice's or machine's session text; a
// lattice whose state would make too long a link gives its parameters and seed instead.
async function stateFragment(app) {
  if (app.mode() === 'machine') return { fragment: await encodeState(machinePayload(app.machine).payload) };
  const lattice = modeScene('lattice');
  const fragment = await encodeState({ mode: 'lattice', session: await lattice.session() });
  if (fragment.length <= MAX_LINK_CHARS) return { fragment };
  return {
    fragment: lattice.fragment(),
    note: 'This lattice is too large for its exact state to fit a link: the lesson starts from its parameters and seed.',
  };
}

// Builds the link from the builder's choices (the parts of the mode shown) and its state.
async function buildLink(app) {
  const params = new URLSearchParams({ teach: '1', title: $('teach-title').value.trim() || 'A lesson' });
  const text = $('teach-text').value.trim();
  if (text) params.set('text', text);
  const chosen = (how) =>
    [
      .../** @type {NodeListOf<HTMLSelectElement>} */ (
        document.querySelectorAll(`#teach-parts select[data-mode="${app.mode()}"]`)
      ),
    ]
      .filter((s) => s.value === how)
      .map((s) => s.dataset.part);
  if (chosen('hidden').length) params.set('hide', chosen('hidden').join(','));
  if (chosen('locked').length) params.set('lock', chosen('locked').join(','));
  const { fragment, note } = await stateFragment(app);
  const { origin, pathname } = window.location;
  return { link: `${origin}${pathname}?${params}#${fragment}`, note: note ?? '' };
}

// The builder in the lessons panel: each mode's parts, shown with their mode.
export function installTeacherLinks(app) {
  const parts = $('teach-parts');
  for (const [mode, teachable] of Object.entries(TEACHABLE_BY_MODE)) {
    for (const [part, label] of Object.entries(teachable)) {
      const row = document.createElement('label');
      row.className = `${mode}-only`;
      row.hidden = mode !== app.mode();
      const select = document.createElement('select');
      select.dataset.part = part;
      select.dataset.mode = mode;
      for (const how of ['shown', 'hidden', 'locked']) select.add(new Option(how, how));
      row.append(`${label} `, select);
      parts.append(row);
    }
  }
  $('teach-make').addEventListener('click', async () => {
    $('teach-done').textContent = 'Making the link…';
    let made;
    try {
      made = await buildLink(app);
    } catch (err) {
      $('teach-done').textContent = `No link was made: ${err.message}`;
      return;
    }
    $('teach-link').value = made.link;
    try {
      await navigator.clipboard.writeText(made.link);
      $('teach-done').textContent = `Lesson link copied. ${made.note}`;
    } catch {
      $('teach-done').textContent = `Select the link and copy it (the browser did not allow copying). ${made.note}`;
    }
  });
}

// Opens a teacher's one-step lesson: the panel shows the title and text, and the chosen
// parts are hidden or locked. Returns false if the link is not one (or is refused, with the
// reason in the link-error banner).
export function openTeachLink(search) {
  const wanted = parseTeachLink(search);
  if (wanted === null) return false;
  if (wanted.error) {
    $('link-error').textContent = wanted.error;
    $('link-error').hidden = false;
    return false;
  }
  $('lesson').hidden = false;
  document.body.classList.add('in-lesson', 'teach');
  $('lesson-title').textContent = `Lesson: ${wanted.title}`;
  $('lesson-position').textContent = 'step 1 of 1';
  $('lesson-step-title').textContent = '';
  $('lesson-goals').replaceChildren();
  $('lesson-card').textContent = wanted.text;
  for (const part of wanted.hide) PARTS[part]().classList.add('teach-hidden');
  for (const part of wanted.lock) {
    const element = PARTS[part]();
    element.classList.add('teach-locked');
    for (const control of element.querySelectorAll('input, select, button')) {
      if (control.disabled) continue;
      control.disabled = true;
      control.dataset.teachLocked = '1';
    }
  }
  // Locked run (or learning) controls lock their keyboard shortcuts too (keys.js).
  if (wanted.lock.includes('run') || wanted.lock.includes('learning')) document.body.classList.add('lesson-locked');
  return true;
}

// Leaves a teacher's lesson: every part shown and unlocked again, the state kept.
export function closeTeachLink() {
  if (!document.body.classList.contains('teach')) return;
  document.body.classList.remove('teach', 'lesson-locked');
  for (const element of document.querySelectorAll('.teach-hidden, .teach-locked'))
    element.classList.remove('teach-hidden', 'teach-locked');
  for (const control of /** @type {NodeListOf<HTMLInputElement>} */ (
    document.querySelectorAll('[data-teach-locked]')
  )) {
    control.disabled = false;
    delete control.dataset.teachLocked;
  }
}
