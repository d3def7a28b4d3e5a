// The lesson panel: the list of lessons as links (?lesson=N), and the open lesson's cards
// with Previous, Next and "Set it up".

import { $ } from '../ui.js';
import { LESSONS } from './lessons.js';

// Shows lesson `index` (0-based) in the lesson panel.
function open(app, index) {
  const lesson = LESSONS[index];
  if (!lesson) return false;
  let card = 0;
  const panel = $('lesson');
  $('lesson-title').textContent = `Lesson ${index + 1}: ${lesson.title}`;
  $('lesson-says').textContent = `Sets up ${lesson.says}.`;
  const show = () => {
    $('lesson-card').innerHTML = lesson.cards[card];
    $('lesson-position').textContent = `card ${card + 1} of ${lesson.cards.length}`;
    $('lesson-previous').disabled = card === 0;
    $('lesson-next').disabled = card === lesson.cards.length - 1;
  };
  $('lesson-previous').onclick = () => {
    card = Math.max(0, card - 1);
    show();
  };
  $('lesson-next').onclick = () => {
    card = Math.min(lesson.cards.length - 1, card + 1);
    show();
  };
  $('lesson-setup').onclick = () => lesson.setup(app);
  show();
  panel.hidden = false;
  return true;
}

// app: the app, whose modes a lesson sets up.
export function installLessons(app) {
  const list = $('lesson-links');
  LESSONS.forEach((lesson, k) => {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = `?lesson=${k + 1}${window.location.hash}`;
    link.textContent = lesson.title;
    item.append(link);
    list.append(item);
  });
  $('lesson-close').addEventListener('click', () => {
    $('lesson').hidden = true;
  });
  const wanted = new URLSearchParams(window.location.search).get('lesson');
  if (wanted !== null && !open(app, Number(wanted) - 1)) {
    $('link-error').textContent = `There is no lesson ${wanted}: the lessons are numbered 1 to ${LESSONS.length}.`;
    $('link-error').hidden = false;
  }
}
