// @ts-check
// The pattern memory's scene interface (lessons/scene.js): apply(scene) builds the memory a
// lesson step describes on a throwaway engine object, every value checked by the engine (an
// error names the field and nothing changes), then makes it the memory shown; readouts() gives
// the live numbers as quantities (lessons/quantities.js).
//
// A memory scene: { mode: 'memory', seed, memory: { width, height, rule: 'hebb' |
// 'unlearning' | 'boltzmann', patterns: 'digits' | a count of random patterns, state:
// {cue: k, flip, hide} | 'random', temperature }, run, speed: ticks per frame (1, 8, 64,
// 512) or 'max', capacity: {units, runs, starts, start} (the curve's settings; it starts at
// once unless `start` is false) }.

import { $ } from '../ui.js';
import { exact, unknown } from '../lessons/quantities.js';
import { SPURIOUS_ALPHA, describe, nearest } from './mode.js';

// A capacity curve "breaks" at the first α whose mean final overlap is below this.
export const BROKEN_OVERLAP = 0.9;

export class MemoryScene {
  constructor(mode) {
    this.mode = mode;
  }

  apply(scene) {
    const m = scene.memory ?? {};
    const mode = this.mode;
    const width = m.width ?? 8;
    const height = m.height ?? 8;
    // The scene's values go to the engine as they are: it checks each (a lesson's rule is one
    // of the engine's names).
    /** @type {import('boltzlab-bindings').MemoryCommand[]} */
    const commands = [{ command: 'new', width, height, seed: scene.seed ?? 1, storage: { rule: m.rule ?? 'hebb' } }];
    if (m.patterns === 'digits') commands.push({ command: 'add-digits' });
    else if (m.patterns !== undefined) commands.push({ command: 'add-random', count: m.patterns });
    commands.push({ command: 'set-temperature', temperature: m.temperature ?? 0 });
    if (m.state === 'random') commands.push({ command: 'random-state' });
    else if (m.state)
      commands.push({ command: 'cue', pattern: m.state.cue, flip: m.state.flip ?? 0, hide: m.state.hide ?? 0 });
    const probe = new mode.engine.MemoryLab(1, 1, 0);
    try {
      for (const command of commands) probe.dispatch(command);
    } catch (err) {
      probe.free();
      throw err;
    }
    const speed = scene.speed === undefined ? '8' : String(scene.speed);
    if (![...$('memory-speed').options].some((o) => o.value === speed))
      throw new Error(`speed: ${speed} is none of 1, 8, 64, 512 and max`);
    $('memory-seed').value = String(scene.seed ?? 1);
    $('memory-speed').value = speed;
    $('memory-cue-pattern').value = String(m.state?.cue ?? 0);
    if (m.state?.flip !== undefined || m.state?.hide !== undefined) {
      $('memory-cue-kind').value = m.state.hide ? 'mask' : 'flip';
      $('memory-cue-fraction').value = String(m.state.hide || m.state.flip || 0);
    }
    mode.adopt(probe.session(), probe);
    mode.cued = m.state?.cue ?? 0;
    if (scene.capacity) {
      $('memory-capacity-units').value = String(scene.capacity.units);
      $('memory-capacity-runs').value = String(scene.capacity.runs);
      $('memory-capacity-starts').value = String(scene.capacity.starts);
      if (scene.capacity.start !== false) mode.startCapacity();
    }
    this.run(Boolean(scene.run));
  }

  run(on) {
    this.mode.setRunning(on);
  }

  // The capacity curve for the rule shown (its settings as the controls hold them).
  computeCapacity() {
    this.mode.startCapacity();
  }

  // The memory's live numbers: P, α, the overlap with the pattern last cued, E, ticks, whether
  // the state is a fixed point and what it is; the capacity curve's break and where random
  // starts ended. All exact (the engine's values for this memory and these runs).
  readouts() {
    const mode = this.mode;
    const f = mode.shown;
    if (!f) return { memoryReady: false };
    const s = f.stats;
    const units = s.width * s.height;
    const named = describe(s.recall);
    const cap = f.capacity;
    const points = cap?.points ?? [];
    const broken = points.find((p) => p.mean < BROKEN_OVERLAP);
    const sp = cap?.finished ? nearest(points, SPURIOUS_ALPHA)?.from : undefined;
    const starts = sp ? sp.pattern + sp.reversed + sp.mixture + sp.other : 0;
    return {
      memoryReady: true,
      memoryPatterns: exact(s.patterns),
      memoryAlpha: exact(s.patterns / units),
      cueOverlap: mode.cued < f.overlaps.length ? exact(f.overlaps[mode.cued]) : unknown(),
      memoryEnergy: exact(s.energy),
      memoryTicks: exact(s.ticks),
      memoryStable: s.stable,
      memoryRecalling: mode.running,
      memoryKind: named.kind,
      memoryRule: s.rule,
      capacityDone: Boolean(cap?.finished && cap.done === cap.total),
      // The first α at which recall broke (mean overlap below BROKEN_OVERLAP); 1 when it held
      // to the last point.
      capacityBreak: cap?.finished ? exact(broken ? broken.alpha : 1) : unknown(),
      // The share of random starts that ended at a stored pattern or its mirror image, at the
      // curve's point nearest α = 0.1.
      foundFromRandom: starts > 0 ? exact((sp.pattern + sp.reversed) / starts) : unknown(),
    };
  }
}
