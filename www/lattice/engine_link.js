// @ts-check
// The page's side of the lattice's engine worker (worker.js, which documents the protocol):
// the shared worker link (www/worker_link.js: the module worker on the page's wasm, calls with
// ids whose answers are promises, frames, sessions, faults) started on worker.js, with the run
// starting from `session`. Commands are LatticeCommand objects, which the worker hands to
// IsingLab.dispatch; reads are IsingLab getters or 'spins', 'clamps', 'timed_session',
// 'memory', 'engine_time'.

import { WorkerLink } from '../worker_link.js';

/**
 * @extends {WorkerLink<import('../messages').LatticeMessage, import('../messages').LatticeFrame,
 *   import('../messages').LatticeSession, import('boltzlab-bindings').LatticeCommand,
 *   import('boltzlab-bindings').LatticeReply>}
 */
export class EngineLink extends WorkerLink {
  // session: the engine's session text the run starts from; the handlers as WorkerLink's.
  /**
   * @param {string} session
   * @param {import('../messages').LinkHandlers<import('../messages').LatticeFrame,
   *   import('../messages').LatticeSession>} handlers
   */
  constructor(session, handlers) {
    super(new URL('./worker.js', import.meta.url), { session }, handlers);
  }

  // A command (a LatticeCommand object): a promise of the engine's LatticeReply (rejected with
  // its message). `seq` numbers the page's changes: each frame and session says the last it
  // includes.
  /**
   * @param {import('boltzlab-bindings').LatticeCommand} command
   * @param {number} seq
   * @returns {Promise<import('boltzlab-bindings').LatticeReply>}
   */
  command(command, seq) {
    return super.command(command, seq);
  }
}
