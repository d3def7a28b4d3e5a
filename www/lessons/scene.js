// @ts-check
// A lesson step's scene: the mode, the model or dataset, its parameters and seed, the
// starting state, whether it runs and how fast, which controls are shown and which one is
// highlighted, and which views are emphasised. A scene is applied through its mode's scene
// interface (lattice/scene.js, machine/scene.js, memory/scene.js): every value goes to the engine, which
// checks it before anything changes (an error names the field), and the controls then show
// what the engine holds. The live numbers a lesson quotes and judges come from the modes'
// readouts(): numbers with their standard errors (lessons/quantities.js), never the text
// of a read-out, and no control is driven by synthetic events.

import { $ } from '../ui.js';
import { LatticeScene } from '../lattice/scene.js';
import { MachineScene } from '../machine/scene.js';
import { MemoryScene } from '../memory/scene.js';
import { TRAINING_BOXES } from '../machine/rbm.js';

// The modes' scene interfaces of the app (installScenes).
let scenes = null;

// Builds the scene interfaces of `app`'s modes; the lessons and links use them from then on.
export function installScenes(app) {
  scenes = {
    lattice: new LatticeScene(app.lattice),
    machine: new MachineScene(app.machine),
    memory: new MemoryScene(app.memory),
  };
  return scenes;
}

// The scene interface of mode `name` ('lattice', 'machine' or 'memory').
export const modeScene = (name) => scenes[name];

// The restricted machine's controls, by the names a link's options use (machine/share.js):
// the run's, and its training's (TRAINING_BOXES).
const RBM_RUN = { dataset: 'rbm-dataset', hidden: 'rbm-hidden', seed: 'rbm-seed' };

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
  // the restricted machine on MNIST
  'mnist-generate': () => $('mnist-gallery-run').closest('.row'),
  'mnist-pad-test': () => $('mnist-pad-from-test').closest('.row'),
  'mnist-pad-complete': () => $('mnist-pad-complete').closest('.row'),
  // the pattern memory
  'memory-state': () => $('memory-state').closest('section'),
  'memory-patterns': () => $('memory-add-digits').closest('fieldset'),
  'memory-cue': () => $('memory-cue').closest('fieldset'),
  'memory-recall': () => $('memory-run').closest('fieldset'),
  'memory-setup': () => $('memory-rule').closest('fieldset'),
  'memory-capacity': () => $('memory-capacity-title').closest('section'),
};

// The page's blocks that lecture mode shows only when a step names them (or a part inside).
const HIDEABLE =
  'fieldset.group, section.card, figure.card, .panel > section, .panel > p.status, section.stage, .stage .toolbar';

// Starts a new restricted machine from `values` (dataset, hidden, seed and training options
// by name, as numbers or their controls' text) and shows it: a restricted machine's link
// (link.js) starts it so. Throws, naming the field, with nothing changed, on a bad value.
export function applyRestricted(values) {
  if (values.dataset === 'mnist') {
    // An MNIST run's link: its machine and options (MNIST_KEYS), seed and likelihood spacing.
    const { seed, every, ...rbm } = values;
    scenes.machine.apply({ mode: 'restricted', rbm, seed, every });
  } else scenes.machine.applyRestricted(values);
}

// Applies `scene` to the app, then shows its mode. `seed` replaces the scene's own seed (a
// "New run"). The run always starts afresh from every parameter and the seed (spins, glass
// bonds, weights and the random stream), so the same scene and seed give the same film
// however the page stood before (a deep link, Replay, or Back). Throws, naming the field,
// with nothing changed, on a value the engine refuses.
export function applyScene(app, scene, seed = scene.seed) {
  const seeded = { ...scene, seed };
  if (scene.mode === 'lattice') {
    scenes.lattice.apply(seeded);
    app.show('lattice');
  } else if (scene.mode === 'memory') {
    scenes.memory.apply(seeded);
    app.show('memory');
  } else {
    scenes.machine.apply(seeded);
    app.show('machine');
  }
  emphasise(scene);
}

// Runs or pauses the run of a scene's mode ('lattice', 'machine', 'restricted' or 'memory').
export function setRunning(mode, on) {
  if (mode === 'lattice') scenes.lattice.run(on);
  else if (mode === 'memory') scenes.memory.run(on);
  else scenes.machine.run(on);
}

// Advances the paused lattice by exactly `ticks` ticks (one command to its engine, which
// does them all, as the Step buttons do): a promise, resolved when the engine has done them.
export function advanceLattice(ticks) {
  return scenes.lattice.mode.step(ticks);
}

// The number of spins of the lattice shown (ticks per sweep).
export const latticeSpins = () => scenes.lattice.mode.lab.spin_count();

// Pauses every run: the lattice and both machines.
export function pauseAll() {
  scenes.lattice.run(false);
  scenes.machine.pause();
  scenes.memory.run(false);
}

// The pattern memory's capacity curve for the rule shown.
export function computeCapacity() {
  scenes.memory.computeCapacity();
}

// ln Z of the general machine by the four methods (the ln Z panel's computation).
export function computeLogZ() {
  scenes.machine.computeLogZ();
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

// The live numbers of both modes (lattice/scene.js and machine/scene.js readouts(): each
// a quantity {value, stderr: 0} or {mean, stderr}, or a plain flag or name), plus `extra`
// (what a step's own widget gives).
export function readouts(extra = {}) {
  return { ...scenes.lattice.readouts(), ...scenes.machine.readouts(), ...scenes.memory.readouts(), ...extra };
}

// The restricted machine's controls' values by name (what a link carries before a run
// exists, machine/share.js).
export function controlValues(mode) {
  if (mode !== 'restricted') throw new Error(`controlValues: only the restricted machine's, not “${mode}”`);
  return Object.fromEntries(Object.entries({ ...RBM_RUN, ...TRAINING_BOXES }).map(([key, id]) => [key, $(id).value]));
}
