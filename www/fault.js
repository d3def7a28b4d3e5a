// The page never dies silently: an engine panic (reported by the wasm panic hook through
// window.boltzlabReportPanic) and any uncaught error or unhandled rejection are shown in an
// overlay, with the last good saved session still exportable (it is kept in JavaScript and
// localStorage, since the wasm instance cannot be trusted after a panic) and a reload that
// offers it back.

import { $, download } from './ui.js';
import { KEY, lastGoodRecord, stopSaving, unpackLattice } from './persist.js';

let panicked = false;

// The last good session record: the one kept in memory, else the one in storage.
function lastGood() {
  let text = lastGoodRecord();
  if (text === null) {
    try {
      text = window.localStorage.getItem(KEY);
    } catch {
      text = null;
    }
  }
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function exportState() {
  const record = lastGood();
  try {
    download('boltzlab-state.json', unpackLattice(record?.lattice), 'application/json');
    $('fault-advice').textContent =
      'The lattice state was downloaded as boltzlab-state.json; Import state reads it back.';
  } catch {
    $('fault-advice').textContent = 'No saved state to export: nothing had been saved in this browser yet.';
  }
}

function exportNetwork() {
  const network = lastGood()?.machine?.network;
  if (typeof network === 'string') download('boltzlab-network.json', network, 'application/json');
}

function show(title, message, advice, canDismiss) {
  $('fault-title').textContent = title;
  $('fault-message').textContent = message;
  $('fault-advice').textContent = advice;
  $('fault-dismiss').hidden = !canDismiss;
  $('fault-export-network').hidden = typeof lastGood()?.machine?.network !== 'string';
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

// Called by the wasm panic hook (src/web/mod.rs) with the panic message.
window.boltzlabReportPanic = (message) => {
  panicked = true;
  window.boltzlabStopped = true;
  stopSaving();
  show(
    'The engine stopped',
    String(message),
    `The simulation engine hit an internal error and cannot go on. ${savedAt()}: export it, or reload and restore it.`,
    false,
  );
};

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
$('fault-reload').addEventListener('click', () => window.location.reload());
$('fault-dismiss').addEventListener('click', () => {
  $('fault').hidden = true;
  delete document.body.dataset.fault;
});
