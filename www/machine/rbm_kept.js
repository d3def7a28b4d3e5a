// @ts-check
// The restricted machine's commands that change what a session of its run keeps (the gallery
// and the completion it does not), written once for both sides: the page journals them until
// a session of the worker includes them (rbm.js), and the worker keeps a session soon after
// one (rbm_worker.js). The names are checked against the engine's (RbmCommand, generated).

/** @type {ReadonlySet<import('boltzlab-bindings').RbmCommand['command']>} */
export const KEPT = new Set([
  'new-run',
  'new-run-from-file',
  'restore-session',
  'set-training',
  'set-likelihood-every',
  'advance',
  'learn',
]);
