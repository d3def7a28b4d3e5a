// @ts-check
// boltzlab's page: boots the engine, builds the three modes (the Ising lattice, the
// Boltzmann machine and the pattern memory), switches between them, and runs the one animation-frame loop with the
// one frame budget they share. The app calls only the mode shown: its frame(budget), then
// its draw(); a hidden mode is neither advanced nor drawn. The modes, the lessons and the
// session talk to each other through the references given here, never through `window`.
//
// A mode is {enter(), leave(), frame(budgetMs, now), draw(), fail(err), shortcuts,
// fingerprint()} plus what the session and the lessons use (lattice/mode.js,
// machine/mode.js, memory/mode.js).

import { engineReady } from './engine.js';
import { $ } from './ui.js';
import { engineStopped } from './fault.js';
import { installShortcuts } from './keys.js';
import { LatticeMode } from './lattice/mode.js';
import { MachineMode } from './machine/mode.js';
import { MemoryMode } from './memory/mode.js';
import { MemorySharing } from './memory/share.js';
import { installLessons } from './lessons/panel.js';
import { Persistence } from './session/persist.js';
import { MachineSharing } from './machine/share.js';
import { isStateLink, openStateLink } from './link.js';
import { applyRestricted } from './lessons/scene.js';

// Wall time per frame the engine may use, so that the page keeps 60 frames per second:
// at most FRAME_BUDGET_MS, less when frames come later than SLOW_FRAME_MS apart.
const FRAME_BUDGET_MS = 10;
const MIN_BUDGET_MS = 2;
const SLOW_FRAME_MS = 17.5;

// The engine's share of a frame adapts to what the rest of the frame costs here (drawing,
// compositing, a slow machine): when frames come slower than 60 per second it shrinks,
// when they come on time it grows back to FRAME_BUDGET_MS.
export class FrameBudget {
  constructor() {
    this.ms = FRAME_BUDGET_MS;
    this.lastFrame = null;
  }

  // Called once per frame with its time stamp.
  adapt(now) {
    if (this.lastFrame !== null) {
      const interval = now - this.lastFrame;
      if (interval > SLOW_FRAME_MS) this.ms = Math.max(MIN_BUDGET_MS, this.ms * 0.85);
      else this.ms = Math.min(FRAME_BUDGET_MS, this.ms + 0.1);
    }
    this.lastFrame = now;
  }
}

const TITLES = {
  lattice: 'boltzlab: Ising lattice',
  machine: 'boltzlab: Boltzmann machine',
  memory: 'boltzlab: pattern memory',
};

export class App {
  // hash: the address's fragment at start (a parameters link for the lattice; a state link
  // is opened by openLink once the app runs).
  constructor(engine, hash) {
    this.engine = engine;
    // Who waits for the end of the next frame (nextFrame): called after it is drawn.
    /** @type {Array<() => void>} */
    this.waiting = [];
    this.lattice = new LatticeMode(engine, isStateLink(hash) ? '' : hash);
    this.machine = new MachineMode(engine);
    this.machineSharing = new MachineSharing(this.machine);
    this.memory = new MemoryMode(engine);
    this.memorySharing = new MemorySharing(this.memory);
    this.modes = { lattice: this.lattice, machine: this.machine, memory: this.memory };
    this.shownName = 'lattice';
    this.budget = new FrameBudget();
    for (const radio of /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name="mode"]')))
      radio.addEventListener('change', () => this.show(radio.value));
    installShortcuts(() => this.shown().shortcuts);
    installLessons(this);
    this.session = new Persistence(this);
  }

  // Opens a state link (link.js): the state of its mode, exactly, or the reason it was
  // refused (the page keeps its state). A state link typed into the address bar opens too.
  openLink(hash) {
    // The fragment the address changed to: the lattice may rewrite the address with its
    // parameters before this event is handled (lattice/share.js).
    window.addEventListener('hashchange', (event) => {
      const changed = new URL(event.newURL).hash;
      if (isStateLink(changed)) openStateLink(this, changed, applyRestricted);
    });
    return isStateLink(hash) ? openStateLink(this, hash, applyRestricted) : Promise.resolve(false);
  }

  shown() {
    return this.modes[this.shownName];
  }

  mode() {
    return this.shownName;
  }

  // Shows mode `name` ('lattice', 'machine' or 'memory'): the one left pauses, the other is drawn.
  show(name) {
    if (!(name in this.modes)) return;
    $(`mode-${name}`).checked = true;
    if (name === this.shownName) return;
    this.shown().leave();
    this.shownName = name;
    const machine = name === 'machine';
    for (const element of document.querySelectorAll('.lattice-only'))
      if (element instanceof HTMLElement) element.hidden = name !== 'lattice';
    for (const element of document.querySelectorAll('.machine-only'))
      if (element instanceof HTMLElement) element.hidden = !machine;
    for (const element of document.querySelectorAll('.memory-only'))
      if (element instanceof HTMLElement) element.hidden = name !== 'memory';
    $('machine').hidden = !machine;
    $('memory').hidden = name !== 'memory';
    document.title = TITLES[name];
    this.shown().enter();
  }

  // What the session keeps, changed or not (session/persist.js).
  fingerprint() {
    const { lattice, machine, memory } = this.speeds();
    return `${this.shownName}|${this.lattice.fingerprint()}|${this.machine.fingerprint()}|${this.memory.fingerprint()}|${lattice}|${machine}|${memory}`;
  }

  // The speeds set, as the session keeps them: {lattice: ticks per frame, machine: sweeps per
  // frame, memory: recall ticks per frame}, each 'max' at the top step (the whole frame
  // budget).
  speeds() {
    const ticks = this.lattice.speed().ticks;
    const recall = $('memory-speed').value;
    return {
      lattice: ticks === Infinity ? 'max' : ticks,
      machine: this.machine.sweepsPerFrame(),
      memory: recall === 'max' ? 'max' : Number(recall),
    };
  }

  // The one frame loop: the mode shown advances within the budget, then draws; then those
  // waiting for the frame go on.
  run() {
    const frame = (now) => {
      if (engineStopped()) return; // after a panic the engine is not called again
      this.budget.adapt(now);
      const mode = this.shown();
      try {
        mode.frame(this.budget.ms, now);
        mode.draw();
      } catch (err) {
        mode.fail(err);
      }
      for (const go of this.waiting.splice(0)) go();
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  // A promise of the end of the next frame, for code that paces itself by frames (a lesson
  // stepping its lattice, the lecture refitting its tiles) without a frame loop of its own.
  /** @returns {Promise<void>} */
  nextFrame() {
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

// For tests and benchmarks only: the page's own code never reads these, and they are set only
// when the browser is driven by automation (navigator.webdriver, which Playwright's browsers
// report and a person's browser does not), so a visitor's page carries no handles into its
// engines. The code stays in the one bundle: the end-to-end tests and `make bench` must drive
// the very build a visitor gets, not a test build.
function exposeForTests(app) {
  Object.defineProperties(window, {
    boltzlabEngine: { value: app.engine, configurable: true },
    // The lattice's IsingLab as the page uses it (lattice/mode.js, hook): parameters and, while
    // paused, everything from the page's mirror at once; the live run's values from the
    // worker, as promises.
    boltzlabLab: {
      value: new Proxy(
        {},
        {
          get:
            (_, method) =>
            (...args) =>
              app.lattice.hook(String(method), args),
        },
      ),
      configurable: true,
    },
    // Resolves once the paused page's mirror holds the run (after its worker ran ahead).
    boltzlabSettled: { value: () => app.lattice.settled(), configurable: true },
    // Test only: the lattice's engine worker panics (`{trap: true}`: stops with a wasm trap).
    boltzlabWorkerFault: { value: (options) => app.lattice.faultWorker(options), configurable: true },
    // The general machine's live run: every MachineLab reading from its worker, as a promise
    // (null before the first run).
    boltzlabMachine: { get: () => (app.machine.lab ? app.machine.hook : null), configurable: true },
    boltzlabFrameBudget: { value: () => app.budget.ms, configurable: true },
    boltzlabPersist: {
      value: { saveNow: (force) => app.session.saveNow(force), timings: () => app.session.lastTimings },
      configurable: true,
    },
    boltzlabApp: { value: app, configurable: true },
  });
}

async function start() {
  // The fragment as opened (the lattice soon writes its parameters into the address bar).
  const hash = window.location.hash;
  const engine = await engineReady();
  const app = new App(engine, hash);
  await app.lattice.link.ready();
  app.lattice.enter();
  if (navigator.webdriver) exposeForTests(app);
  await app.session.start();
  await app.openLink(hash);
  document.body.dataset.ready = 'true';
  document.body.dataset.machineReady = 'true';
  app.run();
}

// ?notes=… is the speaker-notes page: no engine, no session, only the notes.
const booting = new URLSearchParams(window.location.search).has('notes')
  ? import('./lessons/notes.js').then(({ renderNotes }) => renderNotes(window.location.search))
  : start();

booting.catch((err) => {
  const box = $('alert');
  box.textContent = `boltzlab could not start: ${err.message}`;
  box.hidden = false;
});
