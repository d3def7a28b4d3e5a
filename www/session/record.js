// The stored session record: what is written, how a stored one is checked before it is
// offered, how it is restored, and which files the fault overlay can still export from it.
//
// Version 1: {format, version: 1, saved, mode, lattice: the engine's JSON state with its
// bits packed (v1.js), machine: its options and network JSON, or null}.

import { packLattice, unpackLattice } from './v1.js';

export const FORMAT = 'boltzlab-session';
export const VERSION = 1;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// The record of the app's session now, as text.
export function encodeRecord(app) {
  const body = { mode: app.mode(), lattice: packLattice(app.lattice.exportState()), machine: app.machine.recordV1() };
  return JSON.stringify({ format: FORMAT, version: VERSION, saved: Date.now(), ...body });
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
  if (record.version !== VERSION)
    throw new Error(`it has version ${String(record.version).slice(0, 20)}; this page reads version ${VERSION}`);
  if (!Number.isFinite(record.saved)) throw new Error('its time stamp is missing');
  if (record.mode !== 'lattice' && record.mode !== 'machine')
    throw new Error('its mode is neither lattice nor machine');
  return record;
}

// Checks a stored record in full (on throwaway engine objects, through the modes); returns
// {record, summary, restore(app) → a note for the status line} or throws an Error whose
// message says what is wrong.
export function checkRecord(text, app) {
  const record = parse(text);
  let json;
  try {
    json = unpackLattice(record.lattice);
    app.lattice.checkState(json);
  } catch (err) {
    throw new Error(`lattice: ${err.message ?? err}`);
  }
  if (record.machine !== null) {
    try {
      app.machine.checkV1(record.machine);
    } catch (err) {
      throw new Error(`Boltzmann machine: ${err.message ?? err}`);
    }
  }
  const restore = (target) => {
    if (record.machine) target.machine.restoreV1(record.machine);
    target.lattice.restoreState(json);
    target.show(record.mode);
    return '';
  };
  return { record, summary: summarise(record), restore };
}

function summarise(record) {
  const l = record.lattice;
  const sweeps = l.ticks / (l.size * l.size);
  const parts = [`lattice ${l.size}×${l.size}, ${String(l.model)}, T = ${l.temperature}, ${sweeps.toFixed(1)} sweeps`];
  const m = record.machine;
  if (m) parts.push(`Boltzmann machine on ${m.dataset}, ${Number(m.cycles) || 0} learning cycles`);
  if (record.mode === 'machine') parts.reverse();
  return parts.join('; ');
}

// What the fault overlay can export from a record without the engine: {saved,
// latticeFile(), networkFile()}.
export function filesOf(text) {
  const record = JSON.parse(text);
  return {
    saved: record?.saved,
    latticeFile: () => unpackLattice(record?.lattice),
    networkFile: () => (typeof record?.machine?.network === 'string' ? record.machine.network : null),
  };
}
