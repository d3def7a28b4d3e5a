// @ts-check
// The lesson panel: the list of lessons, and the open lesson's step with its scene, its
// text and live numbers, its prediction or challenge, and the buttons Previous, Next,
// Replay (the same seeded start), New run (a fresh seed) and Explore freely (leave the
// lesson, keep the state). The address is the lesson's deep link: ?lesson=N&step=K (with
// &lecture=1 in lecture mode); Back and Forward move between the steps visited.

import { $, escapeText, format } from '../ui.js';
import { COURSE } from './course.js';
import {
  advanceLattice,
  applyScene,
  clearEmphasis,
  computeCapacity,
  computeLogZ,
  installScenes,
  latticeSpins,
  readouts,
  setRunning,
} from './scene.js';
import { centre, estimated, show as showQuantity, stderr } from './quantities.js';
import { LectureMode } from './lecture.js';
import { TwoUnits } from './widgets.js';
import { closeTeachLink, installTeacherLinks, openTeachLink } from './teacher.js';

// Read-outs are sampled this often while a step is open (ms), and this many are kept.
const POLL_MS = 250;
const HISTORY = 4000;

// The run controls a prediction locks until an answer is committed.
const RUN_CONTROLS = [
  'run',
  'step-tick',
  'step-sweep',
  'bm-run',
  'bm-step',
  'bm-step-sweep',
  'rbm-run',
  'memory-run',
  'memory-step',
];

// What a deep link asks for: {lesson, step} (1-based) or {error} with a sentence; null when
// the address names no lesson.
export function parseLessonLink(search, lessons = COURSE) {
  const params = new URLSearchParams(search);
  if (!params.has('lesson')) return null;
  const raw = params.get('lesson');
  const lesson = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(lesson >= 1 && lesson <= lessons.length))
    return { error: `There is no lesson ${raw}: the lessons are numbered 1 to ${lessons.length}.` };
  const steps = lessons[lesson - 1].steps.length;
  if (!params.has('step')) return { lesson, step: 1 };
  const rawStep = params.get('step');
  const step = /^\d+$/.test(rawStep) ? Number(rawStep) : NaN;
  if (!(step >= 1 && step <= steps))
    return {
      lesson,
      step: 1,
      error: `Lesson ${lesson} has steps 1 to ${steps}, not “${rawStep}”: it opens at step 1.`,
    };
  return { lesson, step };
}

// When a prediction's measurement `r` was taken, for its result: {at, text} (the sweep,
// cycle or update), or null for a measurement that is not on a run's clock. The lattice is
// stepped to the stated sweep exactly; a machine runs many cycles a frame and is measured at
// the first reading at or past the stated cycle, which the text then names.
function measuredAt(after, r, from) {
  const at = (quantity) => Math.round(centre(quantity) * 1000) / 1000;
  if (after.sweeps) return { at: at(r.sweeps), text: `at sweep ${at(r.sweeps)}` };
  if (after.cycles) {
    const cycle = at(r.cycle);
    const late =
      cycle - at(from.cycle) > after.cycles
        ? ` (the first reading at or after cycle ${after.cycles}: learning runs many cycles between readings)`
        : '';
    return { at: cycle, text: `at cycle ${cycle}${late}` };
  }
  if (after.updates) return { at: at(r.likelihoodUpdate), text: `at update ${at(r.likelihoodUpdate)}` };
  return null;
}

// Each step's progress, kept across reloads in localStorage under its own key (the session's
// keys, www/session/, are apart): {version: 1, steps: {'L.S': {predict?: {choice, value,
// stderr, estimated, inside, when, at}, challenge?: {text}}}} with L, S 1-based. Opening a step
// shows what it holds; Replay and New run start the step afresh and forget it.
export const PROGRESS_KEY = 'boltzlab.lessons';

const storage = () => {
  try {
    return window.localStorage;
  } catch {
    return null; // refused (private modes, disabled storage): progress lasts the visit
  }
};

// A stored step's record, checked field by field against the course; null when it is not one.
function checkRecord(record, step) {
  if (!record || typeof record !== 'object') return null;
  const out = {};
  const p = record.predict;
  if (p !== undefined) {
    const ok =
      step.predict &&
      Number.isInteger(p.choice) &&
      p.choice >= 0 &&
      p.choice < step.predict.choices.length &&
      (typeof p.value === 'number' || p.value === null) &&
      (typeof p.stderr === 'number' || p.stderr === null) &&
      (typeof p.at === 'number' || p.at === null) &&
      typeof p.estimated === 'boolean' &&
      typeof p.inside === 'boolean' &&
      typeof p.when === 'string' &&
      p.when.length < 300;
    if (!ok) return null;
    out.predict = p;
  }
  const c = record.challenge;
  if (c !== undefined) {
    if (!step.challenge || typeof c.text !== 'string' || c.text.length > 300) return null;
    out.challenge = c;
  }
  return out;
}

// The stored progress: {steps}, every record checked; bad data is set aside with a note
// (the lessons open without it), and `note` says what was wrong.
function loadProgress() {
  const raw = storage()?.getItem(PROGRESS_KEY);
  if (!raw) return { steps: {}, note: null };
  try {
    const data = JSON.parse(raw);
    if (!data || data.version !== 1 || typeof data.steps !== 'object' || data.steps === null)
      throw new Error('it is not a version-1 progress record');
    const steps = {};
    for (const [key, record] of Object.entries(data.steps)) {
      const [l, s] = key.split('.').map(Number);
      const step = COURSE[l - 1]?.steps[s - 1];
      const checked = step ? checkRecord(record, step) : null;
      if (!checked) throw new Error(`its record of step ${key} does not fit the course`);
      steps[key] = checked;
    }
    return { steps, note: null };
  } catch (err) {
    return { steps: {}, note: `Your saved lesson progress could not be read, so it was left out: ${err.message}.` };
  }
}

const linkError = (text) => {
  $('link-error').textContent = text;
  $('link-error').hidden = false;
};

export class LessonPanel {
  // app: the app whose modes the scenes set up.
  constructor(app) {
    this.app = app;
    this.lesson = -1; // 0-based; -1: no lesson open
    this.step = 0;
    this.seed = null; // the seed of the current run of this step (a New run changes it)
    this.history = [];
    this.pending = null; // a committed prediction waiting for its measurement
    this.solved = false;
    this.widget = null;
    const progress = loadProgress();
    this.progress = progress.steps;
    this.progressNote = progress.note;
    this.lecture = new LectureMode(this);
    this.list();
    this.wire();
    setInterval(() => this.poll(), POLL_MS);
  }

  list() {
    const list = $('lesson-links');
    COURSE.forEach((lesson, k) => {
      const item = document.createElement('li');
      const link = document.createElement('a');
      link.href = `?lesson=${k + 1}`;
      link.textContent = lesson.title;
      link.addEventListener('click', (event) => {
        event.preventDefault();
        this.open(k, 0);
      });
      item.append(link);
      list.append(item);
    });
  }

  wire() {
    $('lesson-previous').addEventListener('click', () => this.go(this.step - 1));
    $('lesson-next').addEventListener('click', () => this.go(this.step + 1));
    $('lesson-replay').addEventListener('click', () => this.show(this.seed, { afresh: true }));
    $('lesson-new-run').addEventListener('click', () => this.show(this.app.engine.random_seed(), { afresh: true }));
    $('lesson-explore').addEventListener('click', () => this.close());
    $('lesson-lecture').addEventListener('click', () => this.lecture.toggle(true));
    $('lesson-notes').addEventListener('click', () => this.openNotes());
    $('lesson-commit').addEventListener('click', () => this.commit());
    window.addEventListener('popstate', () => this.follow(window.location.search, false));
  }

  // Opens what the page's address asks for (at start, and on Back/Forward).
  follow(search, start = true) {
    const wanted = parseLessonLink(search);
    if (wanted === null) {
      if (!start && this.lesson >= 0) this.close(false);
      return;
    }
    if (wanted.error) linkError(wanted.error);
    if (wanted.lesson) this.open(wanted.lesson - 1, wanted.step - 1, { push: false });
    if (start && new URLSearchParams(search).get('lecture') === '1') this.lecture.toggle(true, { fullscreen: false });
  }

  // Opens step `step` of lesson `lesson` (0-based).
  open(lesson, step, { push = true } = {}) {
    this.lesson = lesson;
    this.step = step;
    $('lesson').hidden = false;
    document.body.classList.add('in-lesson');
    if (push) this.remember();
    this.show(COURSE[lesson].steps[step].scene.seed);
  }

  currentLesson() {
    return COURSE[this.lesson];
  }

  // Moves to step `step` of the open lesson.
  go(step) {
    const steps = COURSE[this.lesson]?.steps;
    if (!steps || step < 0 || step >= steps.length || step === this.step) return;
    this.open(this.lesson, step);
  }

  // The address of the open step (Back and Forward come back to it).
  link() {
    const params = new URLSearchParams();
    params.set('lesson', String(this.lesson + 1));
    params.set('step', String(this.step + 1));
    if (this.lecture.on) params.set('lecture', '1');
    const colours = new URLSearchParams(window.location.search).get('colors');
    if (colours) params.set('colors', colours);
    return `?${params}`;
  }

  remember(replace = false) {
    const url = this.link();
    if (url === window.location.search) return;
    if (replace) window.history.replaceState(null, '', url);
    else window.history.pushState(null, '', url);
  }

  // The open step's key in the stored progress.
  progressKey() {
    return `${this.lesson + 1}.${this.step + 1}`;
  }

  // Keeps `part` ('predict' or 'challenge') of the open step's progress (null: forgets the
  // step's record), and writes the whole progress to localStorage.
  keep(part, value) {
    const key = this.progressKey();
    if (part === null) delete this.progress[key];
    else this.progress[key] = { ...this.progress[key], [part]: value };
    try {
      storage()?.setItem(PROGRESS_KEY, JSON.stringify({ version: 1, steps: this.progress }));
    } catch {
      // Full or refused: the progress lasts this visit.
    }
  }

  // Shows the open step, applying its scene with `seed`; `afresh` (Replay, New run) forgets
  // the step's kept progress, else it is shown as it was.
  show(seed, { afresh = false } = {}) {
    const lesson = COURSE[this.lesson];
    const step = lesson.steps[this.step];
    if (afresh) this.keep(null);
    if (this.progressNote) {
      linkError(this.progressNote);
      this.progressNote = null;
    }
    this.seed = seed;
    this.history = [];
    this.pending = null;
    this.solved = false;
    this.unlock();
    $('lesson-title').textContent = `Lesson ${this.lesson + 1}: ${lesson.title}`;
    $('lesson-goals').innerHTML = lesson.goals.map((goal) => `<li>${goal}</li>`).join('');
    $('lesson-step-title').textContent = step.title;
    $('lesson-card').innerHTML = step.text;
    $('lesson-position').textContent = `step ${this.step + 1} of ${lesson.steps.length}`;
    $('lesson-seed').textContent = `seed ${seed}`;
    $('lesson-previous').disabled = this.step === 0;
    $('lesson-next').disabled = this.step === lesson.steps.length - 1;
    this.widget = step.widget === 'two-units' ? new TwoUnits($('lesson-widget')) : null;
    $('lesson-widget').hidden = this.widget === null;
    if (this.widget === null) $('lesson-widget').replaceChildren();
    try {
      applyScene(this.app, step.scene, seed);
    } catch (err) {
      linkError(`This step’s scene could not be set up: ${err.message}`);
    }
    this.showPredict(step.predict);
    this.showChallenge(step.challenge);
    this.restore(step, this.progress[this.progressKey()]);
    this.lecture.showNotes();
    this.lecture.arrange(step);
    $('lesson').dataset.step = this.progressKey();
    this.poll();
  }

  showPredict(predict) {
    const box = $('lesson-predict');
    box.hidden = !predict;
    $('lesson-result').hidden = true;
    $('lesson-result').replaceChildren();
    if (!predict) return;
    $('lesson-question').textContent = predict.question;
    const choices = $('lesson-choices');
    choices.replaceChildren(
      ...predict.choices.map((choice, k) => {
        const label = document.createElement('label');
        const input = document.createElement('input');
        input.type = 'radio';
        input.name = 'lesson-choice';
        input.value = String(k);
        input.addEventListener('change', () => ($('lesson-commit').disabled = false));
        label.append(input, ` ${choice.label}`);
        return label;
      }),
    );
    $('lesson-commit').disabled = true;
    box.dataset.state = 'open';
    this.lock();
  }

  showChallenge(challenge) {
    const box = $('lesson-challenge');
    box.hidden = !challenge;
    if (!challenge) return;
    $('lesson-goal').textContent = challenge.goal;
    $('lesson-challenge-state').textContent = 'not yet';
    box.dataset.state = 'open';
    for (const key of ['value', 'stderr', 'estimated']) delete box.dataset[key];
  }

  // Shows a step's kept progress: its committed answer with the result, its completed challenge.
  restore(step, record) {
    if (record?.predict && step.predict) {
      const p = record.predict;
      const inputs = /** @type {NodeListOf<HTMLInputElement>} */ (
        document.querySelectorAll('input[name="lesson-choice"]')
      );
      inputs.forEach((input, k) => {
        input.checked = k === p.choice;
        input.disabled = true;
      });
      $('lesson-commit').disabled = true;
      this.unlock();
      this.showResult(step.predict, p);
    }
    if (record?.challenge && step.challenge) {
      this.solved = true;
      $('lesson-challenge').dataset.state = 'done';
      $('lesson-challenge-state').textContent = record.challenge.text;
    }
  }

  // Shows a prediction's result: {choice (its index), value, stderr, estimated, inside, when
  // (the text: at which sweep, cycle or update), at (that count, or null)}.
  showResult(predict, { choice, value, stderr: error, estimated: isEstimate, inside, when, at }) {
    const chosen = predict.choices[choice];
    const plusMinus = isEstimate ? ` ± ${format(error, 3)} (an estimate)` : '';
    const result = $('lesson-result');
    result.innerHTML = `<p><strong>You predicted:</strong> ${chosen.label}.</p><p><strong>The engine measured:</strong> ${predict.measure.label} = <output class="measured">${format(value ?? NaN, 3)}</output>${plusMinus}${when ? ` ${escapeText(when)}` : ''}, ${inside ? 'inside' : 'outside'} your range.</p><p>${predict.explain}</p>`;
    result.dataset.inside = String(inside);
    if (at === null) delete result.dataset.at;
    else result.dataset.at = String(at);
    result.hidden = false;
    $('lesson-predict').dataset.state = 'measured';
  }

  // A prediction keeps the run paused until the student commits to an answer.
  lock() {
    for (const id of RUN_CONTROLS) $(id).disabled = true;
    document.body.classList.add('lesson-locked');
  }

  unlock() {
    for (const id of RUN_CONTROLS) $(id).disabled = false;
    document.body.classList.remove('lesson-locked');
  }

  // Commits the chosen answer; the step then runs until its measurement is due.
  commit() {
    const step = COURSE[this.lesson].steps[this.step];
    const chosen = /** @type {HTMLInputElement | null} */ (
      document.querySelector('input[name="lesson-choice"]:checked')
    );
    if (!step.predict || !chosen) return;
    const index = Number(chosen.value);
    const choice = step.predict.choices[index];
    for (const input of /** @type {NodeListOf<HTMLInputElement>} */ (
      document.querySelectorAll('input[name="lesson-choice"]')
    ))
      input.disabled = true;
    $('lesson-commit').disabled = true;
    $('lesson-predict').dataset.state = 'committed';
    const now = readouts(this.widget?.readouts());
    const after = step.predict.measure.after;
    this.pending = { index, choice, predict: step.predict, measure: step.predict.measure, from: now };
    // A lattice is stepped to exactly the stated sweeps (the run controls stay locked until
    // the measurement); every other run is started and measured at the first reading due.
    if (after.sweeps) this.stepLattice(this.pending, after.sweeps, now.ticksPerFrame);
    else this.unlock();
    if (after.cycles) setRunning('machine', true);
    if (after.logZ) computeLogZ();
    if (after.recall) setRunning('memory', true);
    if (after.capacity) computeCapacity();
    if (after.updates) setRunning('restricted', true);
    this.poll();
  }

  // Advances the paused lattice by exactly `sweeps` sweeps for prediction `pending`, one
  // frame's ticks (the step's speed) per animation frame, so the film plays as at that speed
  // and the last frame shows the lattice at the stated sweep. The page's own run would
  // overshoot: it does a frame's ticks (16 sweeps at a time here) before the panel's next
  // reading, four times a second. Stops when the step changes, and waits while the lecture's
  // screen is blanked (B pauses everything; the film goes on when the screen is back).
  async stepLattice(pending, sweeps, ticksPerFrame) {
    const spins = latticeSpins();
    const chunk = Number.isFinite(ticksPerFrame) && ticksPerFrame > 0 ? ticksPerFrame : 16 * spins;
    let left = sweeps * spins;
    setRunning('lattice', false);
    try {
      while (left > 0 && this.pending === pending) {
        if (this.lecture.blanked) {
          await this.app.nextFrame();
          continue;
        }
        const ticks = Math.min(chunk, left);
        await advanceLattice(ticks);
        left -= ticks;
        await this.app.nextFrame();
      }
    } catch (err) {
      if (this.pending === pending) linkError(`This step’s run could not go on: ${err.message}`);
    }
  }

  // Whether the pending prediction's measurement is due at read-out `r`.
  due(r) {
    const { after } = this.pending.measure;
    const from = this.pending.from;
    if (after.sweeps) return centre(r.sweeps) - centre(from.sweeps) >= after.sweeps;
    if (after.cycles) return centre(r.cycle) - centre(from.cycle) >= after.cycles;
    if (after.logZ) return Number.isFinite(centre(r.logZ.exact)) && Number.isFinite(centre(r.logZ.sampled));
    // The memory's recall ran and stopped at a fixed point; its capacity curve is complete.
    if (after.recall)
      return !r.memoryRecalling && r.memoryStable === true && centre(r.memoryTicks) > centre(from.memoryTicks);
    if (after.capacity) return r.capacityDone === true;
    // The restricted machine learned until a log-likelihood point of update `updates` or
    // later is in (the point is of the machine as it was at its update).
    if (after.updates) return centre(r.likelihoodUpdate) >= after.updates;
    return true;
  }

  measure(r) {
    const { index, choice, predict, measure, from } = this.pending;
    this.pending = null;
    if (measure.after.sweeps) this.unlock();
    if (measure.after.sweeps && r.running) setRunning('lattice', false);
    if (measure.after.cycles && r.learning) setRunning('machine', false);
    if (measure.after.updates && r.learningImages) setRunning('restricted', false);
    // The measurement (a quantity, or a plain number): its value, or an estimate's mean,
    // decides inside or outside the range; an estimate's standard error is shown beside it.
    const quantity = measure.read(r);
    const value = centre(quantity);
    const [lo, hi] = choice.range;
    const inside = value >= lo && value <= hi;
    const when = measuredAt(measure.after, r, from);
    const shown = {
      choice: index,
      value,
      stderr: stderr(quantity),
      estimated: estimated(quantity),
      inside,
      when: when ? when.text : '',
      at: when ? when.at : null,
    };
    this.showResult(predict, shown);
    this.keep('predict', shown);
  }

  // Samples the read-outs: live numbers, a due measurement, the challenge's check.
  poll() {
    if (this.lesson < 0) return;
    const r = readouts(this.widget?.readouts());
    this.history.push(r);
    if (this.history.length > HISTORY) this.history.splice(0, this.history.length - HISTORY);
    for (const output of /** @type {NodeListOf<HTMLOutputElement>} */ (
      document.querySelectorAll('#lesson-card output[data-live]')
    ))
      output.textContent = showQuantity(r[output.dataset.live], Number(output.dataset.digits));
    if (this.pending && this.due(r)) this.measure(r);
    const step = COURSE[this.lesson].steps[this.step];
    if (step.challenge && !this.solved && step.challenge.check(this.history)) {
      this.solved = true;
      const box = $('lesson-challenge');
      box.dataset.state = 'done';
      // A challenge may name the quantity it judges ({label, read(r)}): its value as
      // measured then, with its error when estimated, in the text and as numbers on the box.
      const judges = step.challenge.judges;
      const judged = judges?.read(r);
      // A challenge may pause its run when done (pause: the mode), and name when it was met
      // (at: {label, read(r)}, e.g. the learning cycle).
      if (step.challenge.pause) setRunning(step.challenge.pause, false);
      const at = step.challenge.at;
      const when = at ? ` at ${at.label} ${showQuantity(at.read(r), 0)}` : '';
      $('lesson-challenge-state').textContent = judges
        ? `✓ done${when}: the engine measured ${judges.label} = ${showQuantity(judged)}`
        : `✓ done${when}: the engine measured it`;
      this.keep('challenge', { text: $('lesson-challenge-state').textContent });
      if (judged) {
        box.dataset.value = String(centre(judged));
        box.dataset.stderr = String(stderr(judged));
        box.dataset.estimated = String(estimated(judged));
      }
    }
  }

  // Leaves the lesson; the state stays as it is ("Explore freely").
  close(push = true) {
    closeTeachLink();
    this.lesson = -1;
    this.pending = null;
    this.unlock();
    clearEmphasis();
    this.lecture.toggle(false);
    this.lecture.arrange(null);
    $('lesson').hidden = true;
    document.body.classList.remove('in-lesson');
    const lessonKeys = ['lesson', 'step', 'lecture', 'teach', 'title', 'text', 'hide', 'lock'];
    const params = new URLSearchParams(window.location.search);
    if (push && lessonKeys.some((key) => params.has(key))) {
      for (const key of lessonKeys) params.delete(key);
      const rest = params.toString();
      window.history.pushState(null, '', `${window.location.pathname}${rest ? `?${rest}` : ''}${window.location.hash}`);
    }
  }

  // Speaker notes in a second window, which follows this one's step.
  openNotes() {
    window.open(`?notes=${this.lesson + 1}&step=${this.step + 1}`, 'boltzlab-notes', 'width=720,height=800');
  }
}

// app: the app, whose modes the lessons set up.
export function installLessons(app) {
  installScenes(app);
  const panel = new LessonPanel(app);
  installTeacherLinks(app);
  if (!openTeachLink(window.location.search)) panel.follow(window.location.search);
  return panel;
}
