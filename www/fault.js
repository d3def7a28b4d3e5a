// @ts-check
// The page never dies silently: an engine panic (reported by the wasm panic hook through
// window.boltzlabReportPanic) and any uncaught error or unhandled rejection are shown in an
// overlay, with the last good saved session still exportable (the session module keeps it
// in JavaScript and localStorage, since the wasm instance cannot be trusted after a panic)
// and a reload that offers it back. The app stops its frame loop and the session stops
// saving when told by onEngineStop.

import { $, download } from './ui.js';

let panicked = false;
// What the session module kept last (see keepLastGood), and who to tell when the engine stops.
let lastGood = () => null;
const stopListeners = [];

// Whether the engine stopped after a panic: it is not called again.
export const engineStopped = () => panicked;

// Calls `callback` once the engine has stopped.
export function onEngineStop(callback) {
  stopListeners.push(callback);
}

// The session module tells the overlay where its last good session is: `source()` returns
// null or {saved (ms), latticeFile() → text or throws, networkFile() → text or null}.
export function keepLastGood(source) {
  lastGood = source;
}

// A run kept outside the session (the MNIST run, in IndexedDB): `read()` resolves to null or
// {name, bytes} of the file to download, read when the overlay shows (not from the engine).
/** @type {null | (() => Promise<{name: string, bytes: Uint8Array} | null>)} */
let lastRun = null;
// The run as read when the overlay showed (the stopped worker writes no more).
/** @type {Promise<{name: string, bytes: Uint8Array} | null>} */
let offered = Promise.resolve(null);
export function keepLastRun(read) {
  lastRun = read;
}

async function offerRun() {
  const button = $('fault-export-run');
  button.hidden = true;
  offered = lastRun ? lastRun().catch(() => null) : Promise.resolve(null);
  const run = await offered;
  if (!run) return;
  button.textContent = `Export the kept run (${run.name})`;
  button.hidden = false;
}

async function exportRun() {
  const run = await offered;
  if (!run) {
    $('fault-advice').textContent = 'The kept run could not be read.';
    return;
  }
  download(run.name, run.bytes, 'application/octet-stream');
  $('fault-advice').textContent =
    `The run was downloaded as ${run.name}; the MNIST panel's "Open a saved run" reads it back.`;
}

function exportState() {
  try {
    const text = lastGood()?.latticeFile();
    if (typeof text !== 'string') throw new Error('nothing saved');
    download('boltzlab-state.json', text, 'application/json');
    $('fault-advice').textContent =
      'The lattice state was downloaded as boltzlab-state.json; Import state reads it back.';
  } catch {
    $('fault-advice').textContent = 'No saved state to export: nothing had been saved in this browser yet.';
  }
}

const lastNetwork = () => {
  try {
    return lastGood()?.networkFile() ?? null;
  } catch {
    return null;
  }
};

function exportNetwork() {
  const network = lastNetwork();
  if (typeof network === 'string') download('boltzlab-network.json', network, 'application/json');
}

function show(title, message, advice, canDismiss) {
  $('fault-title').textContent = title;
  $('fault-message').textContent = message;
  $('fault-advice').textContent = advice;
  $('fault-dismiss').hidden = !canDismiss;
  $('fault-export-network').hidden = typeof lastNetwork() !== 'string';
  offerRun();
  $('fault').hidden = false;
  document.body.dataset.fault = panicked ? 'panic' : 'error';
  $('fault-reload').focus();
}

function savedAt() {
  const record = lastGood();
  return record && Number.isFinite(record.saved)
    ? `The last saved session (${new Date(record.saved).toLocaleTimeString()}) is kept`
    : 'Nothing had been saved in this browser yet';
}

// Called by the wasm panic hook (src/web/mod.rs) with the panic message, and by the lattice
// mode when its engine worker stops (a panic in it, an error, an unreadable message).
export function reportPanic(message) {
  if (panicked) return;
  panicked = true;
  for (const callback of stopListeners) callback();
  show(
    'The engine stopped',
    String(message),
    `The simulation engine hit an internal error and cannot go on. ${savedAt()}: export it, or reload and restore it.`,
    false,
  );
}
/** @type {any} */ (window).boltzlabReportPanic = reportPanic;

function reportError(message) {
  if (panicked) return; // the panic is the cause; what follows from it adds nothing
  show(
    'Something went wrong in the page',
    message,
    `The page may still work; if it does not, reload. ${savedAt()}.`,
    true,
  );
}

window.addEventListener('error', (event) => reportError(String(event.error?.stack ?? event.message)));
window.addEventListener('unhandledrejection', (event) =>
  reportError(String(event.reason?.stack ?? event.reason?.message ?? event.reason)),
);

$('fault-export').addEventListener('click', exportState);
$('fault-export-network').addEventListener('click', exportNetwork);
$('fault-export-run').addEventListener('click', exportRun);
// Reloads without the address's fragment: the parameters or state it holds may be what
// stopped the page, and the saved session is offered on reload either way.
$('fault-reload').addEventListener('click', () => {
  const { pathname, search } = window.location;
  window.history.replaceState(null, '', `${pathname}${search}`);
  window.location.reload();
});
$('fault-dismiss').addEventListener('click', () => {
  $('fault').hidden = true;
  delete document.body.dataset.fault;
});
