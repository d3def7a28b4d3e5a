// A lesson step's scene: the mode, the model or dataset, its parameters and seed, the
// starting state, whether it runs and how fast, which controls are shown and which one is
// highlighted, and which views are emphasised. A scene is applied as a person would set it
// up: each value goes into its control and the control's own handler passes it to the
// engine, which checks it (the same validated path as a click). The live numbers a lesson
// quotes are read back from the page's own read-outs, so they are the numbers on screen.

import { $ } from '../ui.js';

// The parameters a lattice scene may set, each with its control.
const LATTICE_CONTROLS = {
  model: 'model',
  size: 'size',
  rule: 'rule',
  order: 'order',
  boundary: 'boundary',
  seed: 'seed',
  temperature: 'temperature-value',
  field: 'field-value',
};

// The parameters a machine scene may set, each with its control (dataset, method and seed
// start a new run; rule and rate go to the running one).
const MACHINE_CONTROLS = {
  method: 'bm-method',
  dataset: 'bm-dataset',
  seed: 'bm-seed',
  rule: 'bm-rule',
  rate: 'bm-rate',
};

// What a scene can show or hide, by name: the element that holds it (lecture mode shows
// only the step's controls and views; outside lecture mode they are highlighted).
export const PARTS = {
  // lattice
  spins: () => $('spins-box').closest('section'),
  brush: () => $('brush').closest('.toolbar'),
  status: () => $('status'),
  run: () => $('run').closest('fieldset'),
  temperature: () => $('temperature').closest('fieldset'),
  inspector: () => $('inspector-title').closest('section'),
  model: () => $('model').closest('fieldset'),
  trace: () => $('trace').closest('figure'),
  weights: () => $('bonds').closest('figure'),
  sweep: () => $('experiment-title').closest('section'),
  share: () => $('share-title').closest('section'),
  'lattice-logz': () => $('lattice-z'),
  // machine
  network: () => $('bm-graph').closest('section'),
  learning: () => $('bm-run').closest('fieldset'),
  explore: () => $('bm-explore-pattern').closest('fieldset'),
  options: () => $('bm-dataset').closest('fieldset'),
  curve: () => $('bm-curve').closest('figure'),
  'machine-weights': () => $('bm-weights').closest('figure'),
  correlations: () => $('bm-clamped').closest('figure'),
  gallery: () => $('bm-gallery-title').closest('section'),
  editor: () => $('bm-patterns-text').closest('fieldset'),
  'machine-share': () => $('bm-share-title').closest('section'),
  'machine-logz': () => $('bm-logz-title').closest('section'),
  // the restricted machine
  fantasy: () => $('rbm-fantasy').closest('section'),
  'rbm-learning': () => $('rbm-run').closest('fieldset'),
  'rbm-options': () => $('rbm-statistics').closest('fieldset'),
  likelihood: () => $('rbm-likelihood').closest('figure'),
  completion: () => $('rbm-complete-title').closest('section'),
};

// The restricted machine's parameters a scene may set, each with its control: the run's
// (Create builds a new run from them) and its training (applied with the run).
const RBM_RUN = { dataset: 'rbm-dataset', hidden: 'rbm-hidden', seed: 'rbm-seed' };
const RBM_TRAINING = {
  statistics: 'rbm-statistics',
  steps: 'rbm-steps',
  particles: 'rbm-particles',
  batch: 'rbm-batch',
  rate: 'rbm-rate',
  momentum: 'rbm-momentum',
};

// The page's blocks that lecture mode shows only when a step names them (or a part inside).
const HIDEABLE =
  'fieldset.group, section.card, figure.card, .panel > section, .panel > p.status, section.stage, .stage .toolbar';

// Puts `value` into control `id` and lets its own handler take it (change event); unless
// `force`, a control that already holds the value is left alone.
function setControl(id, value, force = false) {
  const control = $(id);
  if (!force && control.value === String(value)) return;
  control.value = String(value);
  control.dispatchEvent(new Event('change', { bubbles: true }));
}

// Whether the lattice or machine run button says it is running.
const running = (id) => $(id).getAttribute('aria-pressed') === 'true';

function setRunning(id, on) {
  if (running(id) !== on) $(id).click();
}

// Sets the speed slider to the step whose label is `label` (e.g. '1 sweep / frame').
function setSpeed(sliderId, shownId, label) {
  const slider = $(sliderId);
  for (let k = Number(slider.min); k <= Number(slider.max); k++) {
    slider.value = String(k);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    if ($(shownId).textContent === label) return;
  }
  throw new Error(`no speed "${label}"`);
}

// Shows the restricted machine and starts a new run from `values` (its controls' values by
// name: dataset, hidden, seed and the training options), as Create does; a scene and a
// restricted machine's link (link.js) both start it so.
export function applyRestricted(values) {
  const radio = $('bm-kind-restricted');
  if (!radio.checked) radio.click();
  // The image set first: choosing one sets a batch that fits it, which the values may change.
  for (const [key, id] of Object.entries(RBM_RUN)) if (values[key] !== undefined) setControl(id, values[key]);
  for (const [key, id] of Object.entries(RBM_TRAINING)) if (values[key] !== undefined) setControl(id, values[key]);
  $('rbm-create').click();
}

// Applies `scene` to the app. `seed` replaces the scene's own seed (a "New run"). The seed
// is set last and always: it starts the run afresh from every parameter (spins, glass bonds,
// weights and the random stream), so the same scene and seed give the same film however
// the page stood before (a deep link, Replay, or Back).
export function applyScene(app, scene, seed = scene.seed) {
  app.show(scene.mode === 'lattice' ? 'lattice' : 'machine');
  if (scene.mode === 'lattice') {
    const values = scene.lattice;
    for (const key of ['size', 'model', 'rule', 'order', 'boundary', 'temperature', 'field'])
      if (values[key] !== undefined) setControl(LATTICE_CONTROLS[key], values[key]);
    setControl('seed', seed, true);
    if (scene.start) $(`reset-${scene.start}`).click();
    if (scene.picture) app.lattice.painter.picture(scene.picture);
    setSpeed('speed', 'speed-shown', scene.speed ?? '1 sweep / frame');
    setRunning('run', Boolean(scene.run));
  } else if (scene.mode === 'restricted') {
    applyRestricted({ ...scene.rbm, seed });
    setRunning('rbm-run', Boolean(scene.run));
  } else {
    const radio = $('bm-kind-full');
    if (!radio.checked) radio.click();
    const values = scene.machine;
    for (const key of ['method', 'dataset'])
      if (values[key] !== undefined) setControl(MACHINE_CONTROLS[key], values[key]);
    setControl('bm-seed', seed, true);
    for (const key of ['rule', 'rate'])
      if (values[key] !== undefined) setControl(MACHINE_CONTROLS[key], values[key], true);
    if (values.statistics) {
      const { name, particles, sweeps, replicas } = values.statistics;
      setControl('bm-particles', particles ?? 20);
      setControl('bm-gibbs', sweeps ?? 1);
      setControl('bm-replicas', replicas ?? 4);
      setControl('bm-statistics', name, true);
    }
    if (scene.couplings === 'random') $('bm-random-couplings').click();
    if (scene.speed) setSpeed('bm-speed', 'bm-speed-shown', scene.speed);
    setRunning('bm-run', Boolean(scene.run));
    // A training pattern clamped on the visible units (1-based), as Clamp and settle does.
    if (scene.clamp) {
      setControl('bm-explore-pattern', scene.clamp);
      $('bm-explore-clamped').click();
    }
  }
  emphasise(scene);
}

// Marks the scene's controls and views (shown in lecture mode, outlined otherwise) and its
// highlighted control.
export function emphasise(scene) {
  // Everything lecture mode may hide: every control group, card and view, and every part.
  for (const element of document.querySelectorAll(HIDEABLE)) element.classList.add('lesson-hideable');
  const shown = new Set([...(scene.controls ?? []), ...(scene.views ?? [])]);
  for (const [name, find] of Object.entries(PARTS)) {
    const element = find();
    if (!element) continue;
    element.classList.toggle('lesson-part', shown.has(name));
    element.classList.toggle('lesson-highlight', scene.highlight === name);
    element.classList.add('lesson-hideable');
  }
}

// Removes every mark a scene left (leaving the lesson keeps the state, not the marks).
export function clearEmphasis() {
  for (const find of Object.values(PARTS)) {
    const element = find();
    element?.classList.remove('lesson-part', 'lesson-highlight');
  }
}

const number = (id) => Number($(id).textContent);

// The first number in a read-out such as "−19.61 ± 0.02" (a typographic minus), or NaN.
const signed = (text) => {
  const match = /[−-]?\d+(\.\d+)?/.exec(text);
  return match ? Number(match[0].replace('−', '-')) : NaN;
};

// The ln Z table's values by method (NaN where not computed).
function logZTable(id) {
  const values = {};
  for (const row of document.querySelectorAll(`#${id} tbody tr`)) {
    const value = row.querySelector('.value')?.dataset.value;
    values[row.dataset.method] = value === undefined ? NaN : Number(value);
  }
  return values;
}

// The live numbers of the page, as shown in its read-outs: lattice (T, h, E/N, M/N, sweeps,
// the phase) and machine (method, cycle, KL, codes found, ln Z table), plus `extra` (what a
// step's own widget shows).
export function readouts(extra = {}) {
  const solved = /^(\d+) of/.exec($('bm-solved').textContent);
  return {
    temperature: number('temperature-shown'),
    field: Number($('field-value').value),
    energy: number('energy'),
    magnetization: number('magnetization'),
    absMagnetization: Math.abs(number('magnetization')),
    sweeps: number('sweeps'),
    running: running('run'),
    phase: $('phase-shown').textContent,
    method: $('bm-method').value,
    cycle: number('bm-cycle'),
    kl: number('bm-kl'),
    solved: solved ? Number(solved[1]) : NaN,
    learning: running('bm-run'),
    logZ: logZTable('bm-logz-table'),
    updates: number('rbm-updates'),
    testLogLikelihood: signed($('rbm-test-ll').textContent),
    learningImages: running('rbm-run'),
    ...extra,
  };
}

// The values the scene's controls hold now, for the step's own check (tests compare them
// with the declaration).
export function controlValues(mode) {
  const ids = { lattice: LATTICE_CONTROLS, machine: MACHINE_CONTROLS, restricted: { ...RBM_RUN, ...RBM_TRAINING } }[
    mode
  ];
  return Object.fromEntries(Object.entries(ids).map(([key, id]) => [key, $(id).value]));
}
