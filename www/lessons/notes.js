// @ts-check
// Speaker notes, on a page of their own: ?notes=N&step=K shows lesson N's goals and step
// K's notes, and follows the lecture window's step (BroadcastChannel); ?notes=all is the
// printable teacher's page of every lesson: goals, and for each step the question to ask
// and the model's limits.

import { COURSE } from './course.js';
import { escapeText as esc } from '../ui.js';

function stepNotes(step, k, current) {
  return `<section class="notes-step${current ? ' current' : ''}" data-step="${k + 1}">
    <h3>Step ${k + 1}: ${esc(step.title)}</h3>
    ${step.predict ? `<p><strong>Prediction:</strong> ${esc(step.predict.question)}</p>` : ''}
    ${step.challenge ? `<p><strong>Challenge:</strong> ${esc(step.challenge.goal)}</p>` : ''}
    <p><strong>Ask:</strong> ${esc(step.notes.ask)}</p>
    <p><strong>Limits of the model:</strong> ${esc(step.notes.limits)}</p>
  </section>`;
}

function lessonNotes(lesson, n, currentStep = -1) {
  return `<article class="notes-lesson">
    <h2>Lesson ${n}: ${esc(lesson.title)}</h2>
    <p><strong>Goals:</strong></p><ul>${lesson.goals.map((g) => `<li>${esc(g)}</li>`).join('')}</ul>
    ${lesson.steps.map((step, k) => stepNotes(step, k, k === currentStep)).join('')}
  </article>`;
}

// Renders the notes the address asks for in place of the app; returns false if it names
// no notes page.
export function renderNotes(search) {
  const params = new URLSearchParams(search);
  const which = params.get('notes');
  document.body.className = 'notes-page';
  const main = document.createElement('main');
  document.body.replaceChildren(main);
  if (which === 'all') {
    document.title = 'boltzlab: teacher’s notes';
    main.innerHTML = `<h1>boltzlab: teacher’s notes</h1>${COURSE.map((lesson, k) => lessonNotes(lesson, k + 1)).join('')}`;
    return;
  }
  const n = /^\d+$/.test(which) ? Number(which) : NaN;
  if (!(n >= 1 && n <= COURSE.length)) {
    main.innerHTML = `<p class="error">There are no notes for lesson “${esc(String(which))}”: the lessons are numbered 1 to ${COURSE.length}. <a href="?notes=all">All notes</a>.</p>`;
    return;
  }
  const show = (lesson, step) => {
    document.title = `boltzlab notes: lesson ${lesson + 1}, step ${step + 1}`;
    main.innerHTML = `<h1>Speaker notes</h1>${lessonNotes(COURSE[lesson], lesson + 1, step)}`;
    main.querySelector('.current')?.scrollIntoView({ block: 'start' });
  };
  const step = Math.max(1, Number(params.get('step')) || 1);
  show(n - 1, Math.min(step, COURSE[n - 1].steps.length) - 1);
  if ('BroadcastChannel' in window)
    new BroadcastChannel('boltzlab-notes').addEventListener('message', ({ data }) => {
      if (COURSE[data.lesson]?.steps[data.step]) show(data.lesson, data.step);
    });
}
