// @ts-check
// The stored session record: what is written, how a stored one is checked before it is
// offered, how it is restored, and which files the fault overlay can still export from it.
//
// Version 2 (written): {format, version: 2, saved, mode, lattice: the engine's lattice
// session text, machine: the engine's machine session text or null, restricted: the
// restricted machine's session text (RbmLab.session()) or null, kind: the machine shown,
// 'full' or 'restricted', memory: the pattern memory's session text (MemoryLab.session()) or
// null, speeds: {lattice: ticks per frame, machine: sweeps per frame, memory: recall ticks
// per frame (later still), each 'max' at the top step}}. `restricted`, `kind`, `memory` and `speeds` came later within version 2: a record
// without them restores the general machine only, at the default speeds; mode 'memory' came
// with `memory`. A restricted part or speeds that cannot be read do not stop the rest from
// restoring: the note says that the part starts fresh or the speeds are the defaults. The
// engine's texts are opaque here: they are made by IsingLab.session() and
// MachineLab.session(), checked by restoring them into throwaway engine objects, and
// restored exactly.
//
// Version 1 (still read): {format, version: 1, saved, mode, lattice: the engine's JSON state
// with its bits packed (v1.js), machine: its options and network JSON, or null}. Its machine
// comes back with its options and weights, but not its cycle count, stage or curves.

import { unpackLattice } from './v1.js';
import { MnistRun } from '../machine/mnist.js';
import { speedPosition } from '../lattice/mode.js';

export const FORMAT = 'boltzlab-session';
export const VERSION = 2;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// The record of the app's session now, as text, with `lattice`, the lattice's session text
// (packed by the engine, in its worker). Nothing here walks over the spins.
export function encodeRecord(app, lattice) {
  return JSON.stringify({
    format: FORMAT,
    version: VERSION,
    saved: Date.now(),
    mode: app.mode(),
    lattice,
    machine: app.machine.session(),
    restricted: app.machine.restrictedSession(),
    kind: app.machine.kind,
    memory: app.memory.save(),
    speeds: app.speeds(),
  });
}

function parse(text) {
  let record;
  try {
    record = JSON.parse(text);
  } catch (err) {
    throw new Error(`it is not valid JSON (${err.message})`);
  }
  if (!isObject(record)) throw new Error('it is not a session record');
  if (record.format !== FORMAT) throw new Error('it is not a boltzlab session');
  if (record.version !== 1 && record.version !== 2)
    throw new Error(`it has version ${String(record.version).slice(0, 20)}; this page reads versions 1 and 2`);
  if (!Number.isFinite(record.saved)) throw new Error('its time stamp is missing');
  if (record.mode !== 'lattice' && record.mode !== 'machine' && record.mode !== 'memory')
    throw new Error('its mode is none of lattice, machine and memory');
  return record;
}

// The recall speed menu's value for a stored memory speed (ticks per frame, or 'max'); throws
// naming the speed when the menu has no such choice.
function memorySpeed(speed) {
  const menu = /** @type {HTMLSelectElement} */ (document.getElementById('memory-speed'));
  const choices = [...menu.options].map((option) => option.value);
  const value = String(speed).slice(0, 20);
  if (!choices.includes(value))
    throw new Error(`recall speed: ${value} ticks per frame is not one of the speeds (${choices.join(', ')})`);
  return value;
}

// Runs `check`, prefixing its error with `part`.
function within(part, check) {
  try {
    return check();
  } catch (err) {
    throw new Error(`${part}: ${err.message ?? err}`);
  }
}

// Checks a stored record in full (on throwaway engine objects, through the modes); returns
// {record, summary, restore(app) → a note for the status line} or throws an Error whose
// message says what is wrong.
export function checkRecord(text, app) {
  const record = parse(text);
  return record.version === 1 ? checkV1(record, app) : checkV2(record, app);
}

function checkV2(record, app) {
  const lattice = within('lattice', () => {
    if (typeof record.lattice !== 'string') throw new Error('the lattice is missing');
    return app.lattice.checkSession(record.lattice);
  });
  let machine = null;
  if (record.machine !== null) {
    machine = within('Boltzmann machine', () => {
      if (typeof record.machine !== 'string') throw new Error('not a machine session');
      return app.machine.checkSession(record.machine);
    });
  }
  let restricted = null;
  let note = '';
  if (record.restricted !== undefined && record.restricted !== null) {
    try {
      if (typeof record.restricted !== 'string') throw new Error('not a restricted-machine session');
      restricted = app.machine.rbm.checkSession(record.restricted);
    } catch (err) {
      note = `The restricted machine's saved run could not be read (${String(err.message ?? err)}); it starts fresh.`;
    }
  }
  let memory = null;
  if (record.memory !== undefined && record.memory !== null)
    memory = within('pattern memory', () => {
      if (typeof record.memory !== 'string') throw new Error('not a pattern-memory session');
      return app.memory.checkSession(record.memory);
    });
  // The speed sliders' positions, or null (the defaults) for a record without speeds.
  let speeds = null;
  if (record.speeds !== undefined)
    try {
      if (!isObject(record.speeds)) throw new Error('they are not an object');
      const ticks = record.speeds.lattice === 'max' ? Infinity : record.speeds.lattice;
      speeds = {
        lattice: speedPosition(ticks, lattice.side * lattice.side),
        machine: app.machine.speedPosition(record.speeds.machine),
        memory: record.speeds.memory === undefined ? null : memorySpeed(record.speeds.memory),
      };
    } catch (err) {
      const reason = String(err.message ?? err).slice(0, 200);
      note = [note, `The saved speeds could not be read (${reason}); they are the defaults.`].filter(Boolean).join(' ');
    }
  const restore = (target) => {
    if (memory) target.memory.restoreSession(record.memory);
    if (record.machine !== null) target.machine.restoreSession(record.machine);
    if (restricted) target.machine.rbm.restoreSession(record.restricted);
    if (record.kind === 'full' || record.kind === 'restricted') {
      /** @type {HTMLInputElement} */ (document.getElementById(`bm-kind-${record.kind}`)).checked = true;
      target.machine.showKind(record.kind);
    }
    target.lattice.restoreSession(record.lattice);
    if (speeds) {
      target.lattice.setSpeedPosition(speeds.lattice);
      target.machine.setSpeedPosition(speeds.machine);
      if (speeds.memory !== null)
        /** @type {HTMLSelectElement} */ (document.getElementById('memory-speed')).value = speeds.memory;
    }
    target.show(record.mode);
    return note;
  };
  return {
    record,
    // An MNIST run live at the last visit comes back in the restricted machine's place (its
    // options in localStorage, its run in IndexedDB: mnist.js), so the summary names it.
    summary: summarise(record.mode, lattice, machine, restricted, memory, MnistRun.remembered()),
    restore,
    note,
  };
}

function checkV1(record, app) {
  let json;
  const lattice = within('lattice', () => {
    json = unpackLattice(record.lattice);
    return app.lattice.checkSession(json, { state: true });
  });
  let machine = null;
  if (record.machine !== null) machine = within('Boltzmann machine', () => app.machine.checkV1(record.machine));
  const restore = (target) => {
    if (record.machine) target.machine.restoreV1(record.machine);
    target.lattice.restoreState(json);
    target.show(record.mode);
    return record.machine
      ? 'It was saved by an earlier version of this page: the machine came back with its options and weights, but its cycle count, stage and curves could not be kept (they start again from 0).'
      : '';
  };
  const note = record.machine
    ? 'It was saved by an earlier version of this page: its machine comes back with its options and weights, but not its cycle count.'
    : '';
  return { record, summary: summarise(record.mode, lattice, machine), restore, note };
}

// "lattice 128×128, spin-glass-pm, T = 1.7, 1.0 sweeps; Boltzmann machine on 4-2-4, 48
// learning cycles", the shown mode first.
function summarise(mode, lattice, machine, restricted = null, memory = null, mnist = null) {
  const l = lattice;
  const parts = [`lattice ${l.side}×${l.side}, ${l.model}, T = ${l.temperature}, ${l.sweeps.toFixed(1)} sweeps`];
  if (machine) parts.push(`Boltzmann machine on ${machine.dataset}, ${machine.cycles} learning cycles`);
  if (mnist && Number.isInteger(mnist.hidden))
    parts.push(
      `restricted machine on MNIST (784-${mnist.hidden}${mnist.labels ? ' with labels' : ''}; its run is kept in this browser)`,
    );
  else if (restricted)
    parts.push(
      `restricted machine on ${restricted.dataset} (${restricted.hidden} hidden units), ${restricted.updates} updates`,
    );
  if (mode === 'machine') parts.reverse();
  if (memory) {
    const m = `pattern memory ${memory.width}×${memory.height}, ${memory.patterns} patterns (${memory.rule})`;
    if (mode === 'memory') parts.unshift(m);
    else parts.push(m);
  }
  return parts.join('; ');
}

// What the fault overlay can export from a record without the engine (which cannot be
// trusted after a panic): {saved, latticeFile(), networkFile()}. The lattice file is the
// engine's session text (version 2), which Import state reads, or the state file (version 1).
export function filesOf(text) {
  const record = JSON.parse(text);
  const v1 = record?.version === 1;
  return {
    saved: record?.saved,
    latticeFile: () => (v1 ? unpackLattice(record?.lattice) : String(record.lattice)),
    networkFile: () => {
      if (v1) return typeof record?.machine?.network === 'string' ? record.machine.network : null;
      if (typeof record?.machine !== 'string') return null;
      const network = JSON.parse(record.machine).network;
      return isObject(network) ? JSON.stringify(network) : null;
    },
  };
}
