// Nothing lost: the session (the lattice's full state, the Boltzmann machine with its
// trained weights, and which mode was shown) is kept in the browser's localStorage a few
// seconds after it changes and when the page is hidden or left, and offered back on reload.
//
// The lattice is stored as the engine's own JSON state export (src/lab/snapshot.rs) with
// its spins, clamps and ±J bonds packed as base64 bit strings (a 1024 × 1024 lattice takes
// about 350 000 characters instead of a million); restoring unpacks it and hands it to the
// engine's validated importer. The machine is stored as its options and the network JSON of
// its own export, restored by its importer. A stored session is checked in full (on
// throwaway engine objects) before it is offered; one that cannot be read is reported, moved
// to a side key and never loaded. Nothing is written over a stored session before the user
// has chosen Restore or Start fresh.

import { $, sentence } from './ui.js';

export const KEY = 'boltzlab.session';
// A session that could not be read is moved here (the raw text), with its reason beside it.
export const SET_ASIDE_KEY = 'boltzlab.setAside';
export const SET_ASIDE_REASON_KEY = 'boltzlab.setAside.reason';
// The session the user declined with "Start fresh" (one deep; dropped first when full).
export const PREVIOUS_KEY = 'boltzlab.previous';
export const FORMAT = 'boltzlab-session';
export const VERSION = 1;
// Largest record written, in characters. Chromium keeps about 5 million characters per
// origin; this leaves room for the declined or set-aside copy.
export const MAX_CHARS = 2_500_000;
// Shortest time between saves while the state changes; a save that took long stretches it.
const MIN_INTERVAL_MS = 3000;
// Largest lattice side the unpacker accepts before asking the engine (which allows 2048).
const MAX_SIDE = 4096;

// --- Packing -------------------------------------------------------------------------------

function toBase64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

function fromBase64(text, field) {
  if (typeof text !== 'string') throw new Error(`${field}: missing`);
  let raw;
  try {
    raw = atob(text);
  } catch {
    throw new Error(`${field}: not valid base64`);
  }
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

// Strings of '+' and '-' (rows of spins or bond signs), one bit each ('+' set), as base64.
function packSigns(rows) {
  let length = 0;
  for (const row of rows) length += row.length;
  const bytes = new Uint8Array(Math.ceil(length / 8));
  let i = 0;
  for (const row of rows) {
    for (let x = 0; x < row.length; x++, i++) if (row.charCodeAt(x) === 43) bytes[i >> 3] |= 1 << (i & 7);
  }
  return toBase64(bytes);
}

// The 8 signs of each byte value, lowest bit first.
const SIGNS = Array.from({ length: 256 }, (_, b) =>
  Array.from({ length: 8 }, (_, k) => ((b >> k) & 1 ? '+' : '-')).join(''),
);

// The inverse: `rows` strings of `side` signs from `side × rows` bits in base64.
function unpackSigns(text, rows, side, field) {
  const bytes = fromBase64(text, field);
  const length = rows * side;
  const need = Math.ceil(length / 8);
  if (bytes.length !== need) throw new Error(`${field}: ${bytes.length} bytes where ${need} are needed`);
  const parts = new Array(bytes.length);
  for (let k = 0; k < bytes.length; k++) parts[k] = SIGNS[bytes[k]];
  const all = parts.join('');
  const out = new Array(rows);
  for (let y = 0; y < rows; y++) out[y] = all.slice(y * side, (y + 1) * side);
  return out;
}

// The engine's JSON state export → a compact object (spins, clamps, ±J bonds as bits).
export function packLattice(exported) {
  const { spins, clamped, bonds, ...rest } = JSON.parse(exported);
  const n = rest.size * rest.size;
  const packed = { ...rest, spinBits: packSigns(spins) };
  const clamps = new Uint8Array(Math.ceil(n / 8));
  for (const site of clamped) clamps[site >> 3] |= 1 << (site & 7);
  packed.clampBits = toBase64(clamps);
  if (Array.isArray(bonds) && bonds.every((row) => typeof row === 'string')) packed.bondBits = packSigns(bonds);
  else if (bonds !== undefined) packed.bonds = bonds;
  return packed;
}

// The inverse: the engine's JSON state text (still to be validated by the engine).
export function unpackLattice(packed) {
  if (packed === null || typeof packed !== 'object' || Array.isArray(packed)) throw new Error('the lattice is missing');
  const { spinBits, clampBits, bondBits, ...rest } = packed;
  const side = rest.size;
  if (!Number.isInteger(side) || side < 1 || side > MAX_SIDE) throw new Error('lattice size: not a lattice side');
  const n = side * side;
  const spins = unpackSigns(spinBits, side, side, 'spins');
  const clamps = fromBase64(clampBits, 'clamps');
  if (clamps.length !== Math.ceil(n / 8))
    throw new Error(`clamps: ${clamps.length} bytes where ${Math.ceil(n / 8)} are needed`);
  const clamped = [];
  for (let k = 0; k < clamps.length; k++) {
    if (clamps[k] === 0) continue;
    for (let bit = 0; bit < 8; bit++) if ((clamps[k] >> bit) & 1) clamped.push(8 * k + bit);
  }
  const state = { ...rest, spins, clamped };
  if (bondBits !== undefined) state.bonds = unpackSigns(bondBits, side, 2 * side, 'bonds');
  return JSON.stringify(state);
}

// --- Storage -------------------------------------------------------------------------------

// localStorage, or null where the browser refuses it (private modes, disabled storage).
function openStorage() {
  try {
    const storage = window.localStorage;
    const probe = 'boltzlab.probe';
    storage.setItem(probe, '1');
    storage.removeItem(probe);
    return storage;
  } catch {
    return null;
  }
}

const isQuota = (err) =>
  err instanceof DOMException && (err.name === 'QuotaExceededError' || err.name === 'NS_ERROR_DOM_QUOTA_REACHED');

// "14:03", or "20 Nov, 14:03" when not today.
function when(ms) {
  const date = new Date(ms);
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return date.toDateString() === new Date().toDateString()
    ? time
    : `${date.toLocaleDateString([], { day: 'numeric', month: 'short' })}, ${time}`;
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// --- The session ---------------------------------------------------------------------------

let engine = null;
let storage = null;
let lattice = null; // { export(): string, restore(json) }
let machinePage = null; // () => MachinePage | null
let machineWaiters = [];
let saving = false; // true once the user has chosen (or there was nothing to choose)
let stopped = false; // after a panic: the engine's state can no longer be trusted
let lastBody = null;
let lastSave = 0;
let interval = MIN_INTERVAL_MS;
let lastGood = null; // the last record text known good (written, or checked on load)
let pending = null; // the checked stored record awaiting Restore / Start fresh
let saves = 0;

// The Boltzmann machine page registers itself (machine.js) with a getter of its page.
export function registerMachine(getPage) {
  machinePage = getPage;
  for (const resolve of machineWaiters) resolve();
  machineWaiters = [];
}

const machineRegistered = () =>
  machinePage ? Promise.resolve() : new Promise((resolve) => machineWaiters.push(resolve));

// The last good session record (text), for the fault overlay's export; null if none.
export const lastGoodRecord = () => lastGood;

// After a panic nothing is saved any more (the wasm instance may hold half-done state).
export function stopSaving() {
  stopped = true;
}

function status(text, isError = false) {
  const box = $('persist-status');
  box.textContent = text;
  box.classList.toggle('error', isError);
}

const currentMode = () => ($('mode-machine').checked ? 'machine' : 'lattice');

function machineRecord() {
  const page = machinePage?.();
  if (!page?.lab) return null;
  const lab = page.lab;
  const record = {
    dataset: page.name,
    method: lab.method(),
    seed: lab.seed(),
    rule: lab.rule(),
    rate: lab.rule_size(),
    decay: lab.weight_decay(),
    schedule: lab.schedule(),
    collect: lab.collect_sweeps(),
    cycles: lab.cycles(),
    network: lab.export_network(),
  };
  if (page.name === 'custom') {
    const visible = lab.visible();
    const flat = page.patterns;
    const rows = [];
    for (let k = 0; k < lab.pattern_count(); k++)
      rows.push(Array.from(flat.slice(k * visible, (k + 1) * visible)).join(''));
    record.patterns = rows.join('\n');
    record.hidden = lab.units() - visible;
  }
  return record;
}

// Writes the session if it changed since the last write. `force`: also when unchanged.
export function saveNow(force = false) {
  if (!storage || !saving || stopped || !lattice) return;
  const begin = performance.now();
  let text;
  try {
    const body = { mode: currentMode(), lattice: packLattice(lattice.export()), machine: machineRecord() };
    const bodyText = JSON.stringify(body);
    if (bodyText === lastBody && !force) return;
    lastBody = bodyText;
    text = JSON.stringify({ format: FORMAT, version: VERSION, saved: Date.now(), ...body });
  } catch (err) {
    status(`Not saved: ${err.message ?? err}`, true);
    return;
  } finally {
    lastSave = performance.now();
    interval = Math.max(MIN_INTERVAL_MS, 40 * (lastSave - begin));
  }
  if (text.length > MAX_CHARS) {
    lastBody = null;
    status(
      `Not saved: too large for the browser's storage (${(text.length / 1e6).toFixed(1)} million characters, at most ${MAX_CHARS / 1e6} million); use Export state to keep it.`,
      true,
    );
    return;
  }
  try {
    write(text);
  } catch (err) {
    lastBody = null;
    status(
      isQuota(err)
        ? "Not saved: the browser's storage quota is full; use Export state to keep this run."
        : `Not saved: the browser refused to store the session (${err.message ?? err}).`,
      true,
    );
    return;
  }
  lastGood = text;
  saves += 1;
  $('persist-status').dataset.saves = String(saves);
  status(`Session kept in this browser at ${new Date().toLocaleTimeString()}.`);
}

// setItem, dropping the declined previous session first if the quota is full.
function write(text) {
  try {
    storage.setItem(KEY, text);
  } catch (err) {
    if (!isQuota(err) || storage.getItem(PREVIOUS_KEY) === null) throw err;
    storage.removeItem(PREVIOUS_KEY);
    storage.setItem(KEY, text);
  }
}

// Checks a stored record in full; returns {record, lattice (engine JSON), summary} or
// throws an Error whose message says what is wrong.
function check(text) {
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
  let json;
  try {
    json = unpackLattice(record.lattice);
    probe(
      () => new engine.IsingLab(4, 2.269, 1),
      (lab) => lab.import_state(json),
    );
  } catch (err) {
    throw new Error(`lattice: ${err.message ?? err}`);
  }
  if (record.machine !== null) {
    try {
      probe(
        () => newMachine(record.machine),
        (lab) => configureMachine(lab, record.machine),
      );
    } catch (err) {
      throw new Error(`Boltzmann machine: ${err.message ?? err}`);
    }
  }
  return { record, json, summary: summarise(record) };
}

// Runs `use` on a throwaway engine object from `make`, then frees it.
function probe(make, use) {
  const lab = make();
  try {
    use(lab);
  } finally {
    lab.free();
  }
}

function newMachine(m) {
  if (!isObject(m)) throw new Error('not an object');
  for (const field of ['dataset', 'method', 'rule', 'schedule', 'network'])
    if (typeof m[field] !== 'string') throw new Error(`${field}: not a string`);
  for (const field of ['seed', 'rate', 'decay', 'collect'])
    if (typeof m[field] !== 'number') throw new Error(`${field}: not a number`);
  if (m.dataset === 'custom') {
    if (typeof m.patterns !== 'string' || typeof m.hidden !== 'number') throw new Error('custom patterns: missing');
    return engine.MachineLab.custom(m.patterns, m.hidden, m.method, m.seed);
  }
  return new engine.MachineLab(m.dataset, m.method, m.seed);
}

function configureMachine(lab, m) {
  lab.set_update(m.rule, m.rate);
  lab.set_weight_decay(m.decay);
  lab.set_schedule(m.schedule, m.collect);
  lab.import_network(m.network);
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

function setAside(text, reason) {
  try {
    storage.removeItem(KEY);
    storage.setItem(SET_ASIDE_KEY, text);
    storage.setItem(SET_ASIDE_REASON_KEY, reason);
  } catch {
    // The side copy did not fit; the bad record is gone from the session key either way.
  }
}

function banner(message, { restore = false, fresh = false, dismiss = false }) {
  $('session-message').textContent = message;
  $('session-restore').hidden = !restore;
  $('session-fresh').hidden = !fresh;
  $('session-dismiss').hidden = !dismiss;
  $('session').hidden = false;
}

function closeBanner() {
  $('session').hidden = true;
  pending = null;
  saving = true;
}

function reportUnreadable(text, reason) {
  setAside(text, reason);
  banner(`The saved session could not be read: ${reason}; it was set aside.`, { dismiss: true });
  saving = true;
}

async function restore() {
  const { record, json } = pending;
  $('session-restore').disabled = true;
  try {
    if (record.machine) {
      await machineRegistered();
      openMode('machine');
      const page = machinePage();
      const m = record.machine;
      $('bm-dataset').value = m.dataset;
      $('bm-method').value = m.method;
      $('bm-seed').value = String(m.seed);
      if (m.dataset === 'custom') {
        $('bm-patterns-text').value = m.patterns;
        $('bm-hidden').value = String(m.hidden);
      }
      if (!page.create()) throw new Error('the machine could not be built');
      configureMachine(page.lab, m);
      page.syncControls();
      page.drawnVersion = -1;
      page.draw();
    }
    lattice.restore(json);
    openMode(record.mode);
  } catch (err) {
    $('session-restore').disabled = false;
    const text = storage.getItem(KEY);
    reportUnreadable(text, sentence(String(err.message ?? err)));
    return;
  }
  $('session-restore').disabled = false;
  closeBanner();
  saveNow(true);
  status(`Restored the session saved at ${when(record.saved)}.`);
}

function openMode(mode) {
  const radio = $(mode === 'machine' ? 'mode-machine' : 'mode-lattice');
  if (radio.checked) return;
  radio.checked = true;
  radio.dispatchEvent(new Event('change', { bubbles: true }));
}

function startFresh() {
  try {
    const text = storage.getItem(KEY);
    storage.removeItem(KEY);
    if (text !== null) storage.setItem(PREVIOUS_KEY, text);
  } catch {
    // Keeping the declined session is a courtesy; without room it is dropped.
  }
  closeBanner();
  saveNow(true);
}

// Starts keeping the session. `options.engine`: the wasm bindings; `options.lattice`:
// {export() → engine JSON, restore(json)}. Offers a stored session first.
export function startPersistence(options) {
  engine = options.engine;
  lattice = options.lattice;
  storage = openStorage();
  $('session-restore').addEventListener('click', () => restore());
  $('session-fresh').addEventListener('click', startFresh);
  $('session-dismiss').addEventListener('click', closeBanner);
  if (!storage) {
    status('Sessions are not kept: this browser does not allow local storage for this page (private mode?).', true);
    return;
  }
  let text = null;
  try {
    text = storage.getItem(KEY);
  } catch {
    text = null;
  }
  if (text === null) {
    saving = true;
  } else {
    try {
      pending = check(text);
      lastGood = text;
      banner(`Restore the session saved at ${when(pending.record.saved)} (${pending.summary})?`, {
        restore: true,
        fresh: true,
      });
    } catch (err) {
      reportUnreadable(text, String(err.message ?? err));
    }
  }
  setInterval(() => {
    if (performance.now() - lastSave >= interval) saveNow();
  }, 1000);
  window.addEventListener('pagehide', () => saveNow());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') saveNow();
  });
  window.boltzlabPersist = { saveNow }; // for the console
}
