// Links a teacher builds: from the lattice as it stands, a one-step lesson with the
// teacher's own title and instruction, and chosen controls hidden or locked. The link is
// ?teach=1&title=…&text=…&hide=…&lock=…#<the share link's fragment>, so opening it starts
// exactly the shared run (its parameters and seed) under that one step. The title and
// text are shown as plain text, never as markup.

import { $ } from '../ui.js';
import { PARTS } from './scene.js';

// The lattice parts a teacher may hide or lock, with their names in the builder.
export const TEACHABLE = {
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
};

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

// Builds the link from the builder's choices and the lattice's share link.
function buildLink() {
  const params = new URLSearchParams({ teach: '1', title: $('teach-title').value.trim() || 'A lesson' });
  const text = $('teach-text').value.trim();
  if (text) params.set('text', text);
  const chosen = (how) =>
    [...document.querySelectorAll('#teach-parts select')].filter((s) => s.value === how).map((s) => s.dataset.part);
  if (chosen('hidden').length) params.set('hide', chosen('hidden').join(','));
  if (chosen('locked').length) params.set('lock', chosen('locked').join(','));
  const share = $('share-link').value;
  const fragment = share.includes('#') ? share.slice(share.indexOf('#')) : '';
  const { origin, pathname } = window.location;
  return `${origin}${pathname}?${params}${fragment}`;
}

// The builder in the lessons panel.
export function installTeacherLinks() {
  const parts = $('teach-parts');
  for (const [part, label] of Object.entries(TEACHABLE)) {
    const row = document.createElement('label');
    const select = document.createElement('select');
    select.dataset.part = part;
    for (const how of ['shown', 'hidden', 'locked']) select.add(new Option(how, how));
    row.append(`${label} `, select);
    parts.append(row);
  }
  $('teach-make').addEventListener('click', async () => {
    const link = buildLink();
    $('teach-link').value = link;
    try {
      await navigator.clipboard.writeText(link);
      $('teach-done').textContent = 'Lesson link copied.';
    } catch {
      $('teach-done').textContent = 'Select the link and copy it (the browser did not allow copying).';
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
  // Locked run controls lock their keyboard shortcuts too (keys.js).
  if (wanted.lock.includes('run')) document.body.classList.add('lesson-locked');
  return true;
}

// Leaves a teacher's lesson: every part shown and unlocked again, the state kept.
export function closeTeachLink() {
  if (!document.body.classList.contains('teach')) return;
  document.body.classList.remove('teach', 'lesson-locked');
  for (const element of document.querySelectorAll('.teach-hidden, .teach-locked'))
    element.classList.remove('teach-hidden', 'teach-locked');
  for (const control of document.querySelectorAll('[data-teach-locked]')) {
    control.disabled = false;
    delete control.dataset.teachLocked;
  }
}
