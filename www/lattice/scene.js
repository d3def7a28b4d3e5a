// @ts-check
// The lattice mode's scene interface, for the lessons and the teacher's links: apply(scene)
// sets the run up and readouts() gives its numbers. Nothing here touches a control's value
// or fires an event: the parameters go to the engine as one parameters fragment (the path a
// share link takes, lattice/share.js), which the engine checks as a whole before anything
// changes, and the controls are then set from what the engine holds (as after a link).
// Pictures are painted with the engine's strokes (pictures.js, painting.js).

import { PICTURES } from './pictures.js';
import { speedPosition } from './mode.js';

// A scene's lattice parameters, each with its key in the engine's fragment
// (src/app/setup.rs LatticeSetup::from_fragment).
const FRAGMENT_KEYS = {
  model: 'model',
  size: 'size',
  temperature: 'T',
  field: 'h',
  rule: 'rule',
  order: 'order',
  boundary: 'boundary',
};
const STARTS = ['random', 'up', 'down'];
// The speed when a scene names none.
const DEFAULT_SPEED = { sweeps: 1 };

// The pairs of a fragment "k=v&k=v" (the engine's own text, not percent-encoded).
function pairs(fragment) {
  return Object.fromEntries(
    fragment
      .split('&')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
  );
}

// Ticks per frame of a scene's speed: {ticks: n}, {sweeps: n} (n sweeps of `spins` spins) or
// 'max' (Infinity, the whole frame budget); throws naming the speed otherwise.
export function ticksPerFrame(speed, spins) {
  if (speed === 'max') return Infinity;
  if (speed && Number.isFinite(speed.ticks) && speed.sweeps === undefined) return speed.ticks;
  if (speed && Number.isFinite(speed.sweeps) && speed.ticks === undefined) return speed.sweeps * spins;
  throw new Error(`speed: ${JSON.stringify(speed)} is not {ticks: n}, {sweeps: n} or 'max'`);
}

export class LatticeScene {
  // mode: the LatticeMode (lattice/mode.js).
  constructor(mode) {
    this.mode = mode;
  }

  // The run's parameters fragment with the scene's `values` and `seed` in place of the
  // run's own; throws naming an unknown parameter.
  fragmentWith(values, seed) {
    const unknown = Object.keys(values).filter((key) => !Object.hasOwn(FRAGMENT_KEYS, key));
    if (unknown.length)
      throw new Error(
        `lattice scene: there is no parameter ${unknown.join(', ')} (the parameters are ${Object.keys(FRAGMENT_KEYS).join(', ')})`,
      );
    const current = pairs(this.fragment());
    for (const [key, value] of Object.entries(values)) current[FRAGMENT_KEYS[key]] = String(value);
    if (seed !== undefined) current.seed = String(seed);
    return Object.entries(current)
      .map(([key, value]) => `${key}=${value}`)
      .join('&');
  }

  // Applies a lattice scene: {lattice: {model, size, temperature, field, rule, order,
  // boundary}, seed, start: 'random' | 'up' | 'down', picture (pictures.js), speed, run}.
  // Parameters left out keep the run's. The run always starts afresh from the parameters and
  // seed (the same scene gives the same film however the page stood). Every value is checked
  // before anything changes: on error it throws, naming the field, and the run is as it was.
  apply(scene) {
    if (scene.start !== undefined && !STARTS.includes(scene.start))
      throw new Error(`start: “${scene.start}” is not one of ${STARTS.join(', ')}`);
    if (scene.picture !== undefined && !PICTURES.includes(scene.picture))
      throw new Error(`picture: there is no picture “${scene.picture}” (the pictures are ${PICTURES.join(', ')})`);
    const fragment = this.fragmentWith(scene.lattice ?? {}, scene.seed);
    const side = Number(pairs(fragment).size);
    const spins = side * side;
    // A size the engine refuses is reported by the engine below; the speed needs a real one.
    const position = Number.isFinite(spins)
      ? speedPosition(ticksPerFrame(scene.speed ?? DEFAULT_SPEED, spins), spins)
      : 0;
    const sharing = this.mode.sharing;
    sharing.lab.dispatch({ command: 'apply-fragment', fragment });
    sharing.onRestart();
    sharing.update();
    if (scene.start) this.mode.reset(scene.start);
    if (scene.picture) this.mode.painter.picture(scene.picture);
    this.mode.setSpeedPosition(position);
    this.mode.setRunning(Boolean(scene.run));
  }

  // Runs or pauses the lattice.
  run(on) {
    this.mode.setRunning(on);
  }

  // The live numbers: temperature T, field h, E/N, M/N, |M/N| and sweeps (each exact for
  // the spins held: {value, stderr: 0}), running, phase ('clamped' or 'free'), the number
  // of clamped spins and the ticks per frame.
  readouts() {
    const s = this.mode.sceneState();
    const exact = (value) => ({ value, stderr: 0 });
    return {
      temperature: exact(s.temperature),
      field: exact(s.field),
      energy: exact(s.energy),
      magnetization: exact(s.magnetization),
      absMagnetization: exact(Math.abs(s.magnetization)),
      sweeps: exact(s.sweeps),
      running: s.running,
      phase: s.clampsOn ? 'clamped' : 'free',
      clamped: exact(s.clampsOn ? s.clampedCount : 0),
      ticksPerFrame: s.ticksPerFrame,
    };
  }

  // The run's parameters fragment (what a parameters link carries).
  fragment() {
    return this.mode.sharing.lab.fragment();
  }

  // A promise of the live run's exact session text (what a state link carries).
  session() {
    return this.mode.sharing.read('session');
  }
}
