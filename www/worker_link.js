// @ts-check
// The page's side of an engine's module worker, for every mode (the lattice's worker.js and
// the restricted machine's rbm_worker.js document their own protocols): starts the module
// worker with the same wasm-bindgen module and wasm as the page (their hashed names are in
// www/boot.js's tag), makes calls with ids whose answers are promises, hands each frame the
// worker sends to `onFrame` and each session it keeps to `onSession`. A worker that dies (a
// wasm panic, an uncaught error, a message that cannot be read) is reported to `onFault`,
// never lost.
//
// The messages every worker shares:
//   page → worker   {type: 'init', js, wasm, ...start}   load the engine, then start
//                   {type: 'command', id, command, seq}   a command object for the engine's
//                                                         dispatch, numbered by the page
//                   {type: 'read', id, name, args}        a value (a promise on this side)
//   worker → page   {type: 'ready'} · {type: 'result', id, value | error} · {type: 'frame', …}
//                   {type: 'session', text, seq, …} · {type: 'error', message}
//                   {type: 'panic', message}
// Anything else a mode posts itself with `post` (run, ack, fault, …): each worker's own messages
// are one union in www/messages.d.ts, the link's type parameter, so `make typecheck` checks
// what a mode posts against what its worker handles. Each worker's frames and sessions are
// declared there too (the link's other two type parameters), checked where the worker builds
// them and where the page's handlers read them. The worker's side of the
// shared messages is worker_host.js (hostWorker, which every mode's engine worker is built
// on); SessionJournal, at the end, is what a mode keeps to save its worker's run at any moment.

/**
 * @template M the worker's own messages (www/messages.d.ts)
 * @template F its frames (www/messages.d.ts: LatticeFrame, RbmFrame, …)
 * @template S the sessions it keeps
 * @template [C=never] the commands its engine takes (the generated bindings: LatticeCommand,
 *   RbmCommand, …; never: a worker with no engine to change)
 * @template [R=never] the engine's replies
 */
export class WorkerLink {
  // url: the worker's module; start: the fields of the init message besides js and wasm;
  // onFrame(frame); onSession({text, seq, …}): the run's session as the worker keeps it;
  // onError(message, data): a command or slice that failed (data: the whole message);
  // onFault(message): the worker is gone.
  /**
   * @param {URL} url
   * @param {object} start
   * @param {import('./messages').LinkHandlers<F, S>} handlers
   */
  constructor(url, start, { onFrame, onSession, onError, onFault }) {
    this.onFrame = onFrame;
    this.onSession = onSession;
    this.onError = onError;
    this.onFault = onFault;
    this.calls = new Map();
    this.nextId = 1;
    this.dead = false;
    this.readyPromise = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // A worker that dies before it is ready is reported to onFault; a caller that awaits
    // ready() sees the rejection too, and one that does not is not left with an unhandled one.
    this.readyPromise.catch(() => {});
    const tag = document.getElementById('boltzlab-boot');
    const address = (path) => new URL(path, document.baseURI).href;
    this.worker = new Worker(url, { type: 'module' });
    this.worker.addEventListener('message', (event) => this.receive(event.data));
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.die(`the engine's worker failed: ${event.message || 'it could not be loaded'}`);
    });
    this.worker.addEventListener('messageerror', () =>
      this.die("a message from the engine's worker could not be read"),
    );
    this.worker.postMessage({ type: 'init', js: address(tag.dataset.js), wasm: address(tag.dataset.wasm), ...start });
  }

  ready() {
    return this.readyPromise;
  }

  receive(data) {
    switch (data.type) {
      case 'ready':
        this.resolveReady();
        break;
      case 'frame':
        this.onFrame(data);
        break;
      case 'session':
        this.onSession(data);
        break;
      case 'result': {
        const call = this.calls.get(data.id);
        this.calls.delete(data.id);
        if (!call) return;
        if ('error' in data) call.reject(new Error(data.error));
        else call.resolve(data.value);
        break;
      }
      case 'error':
        this.onError(data.message, data);
        break;
      case 'panic':
        this.die(data.message);
        break;
      default:
        this.die(`the engine's worker sent an unknown message (${String(data.type)})`);
    }
  }

  die(message) {
    if (this.dead) return;
    this.dead = true;
    const err = new Error(message);
    for (const call of this.calls.values()) call.reject(err);
    this.calls.clear();
    this.rejectReady(err);
    this.worker.terminate();
    this.onFault(message);
  }

  // Ends the worker without a report (the page's engine stopped first).
  stop() {
    this.dead = true;
    this.worker.terminate();
  }

  /**
   * A message of the worker's own, or a shared one ('fault', in tests).
   * @param {M | import('./messages').HostMessage} message
   * @param {Transferable[]} [transfer]
   */
  post(message, transfer = []) {
    if (!this.dead) this.worker.postMessage(message, transfer);
  }

  // A command object for the engine's dispatch: a promise of its reply (rejected with the
  // engine's message). `seq` numbers the page's changes: each frame and session says the last
  // it includes.
  /** @param {C} command @param {number} [seq] @returns {Promise<R>} */
  command(command, seq) {
    return this.call({ type: 'command', command, seq });
  }

  // A value from the worker's engine (what each worker's `read` answers): a promise.
  read(name, args = []) {
    return this.call({ type: 'read', name, args });
  }

  call(message) {
    if (this.dead) return Promise.reject(new Error('the engine worker has stopped'));
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => this.calls.set(id, { resolve, reject }));
    this.worker.postMessage({ ...message, id });
    return promise;
  }
}

// What the page can save of a worker's run at any moment: the worker's latest session text
// ({text, seq: the number of the page's last command in it}) and the commands sent since
// (journal: [{seq, command}]), replayed on a throwaway engine when the page is left. `record`
// numbers a command (journalled when `kept` says a session keeps what it changes); `received`
// takes a session from the worker and drops the commands it includes.
export class SessionJournal {
  constructor() {
    this.seq = 0;
    this.latest = { text: null, seq: 0 };
    this.journal = [];
    this.sessions = 0; // sessions received (for a fingerprint)
  }

  record(command, kept = true) {
    const seq = ++this.seq;
    if (kept) this.journal.push({ seq, command });
    return seq;
  }

  received({ text, seq }) {
    if (seq < this.latest.seq) return;
    this.latest = { text, seq };
    this.sessions += 1;
    const after = this.journal.findIndex((entry) => entry.seq > seq);
    this.journal.splice(0, after < 0 ? this.journal.length : after);
  }

  // The run's session text now: the latest as it is, or, with commands since, the latest
  // opened by `open(text | null)` on a throwaway engine (with dispatch, session and free) and
  // the commands replayed on it (one it refuses, the worker refused too).
  text(open) {
    if (this.journal.length === 0 && this.latest.text !== null) return this.latest.text;
    const probe = open(this.latest.text);
    try {
      for (const { command } of this.journal) {
        try {
          probe.dispatch(command);
        } catch {
          // Refused here: the worker refused it too.
        }
      }
      return probe.session();
    } finally {
      probe.free();
    }
  }

  // Changes whenever what a save would write may have changed.
  fingerprint() {
    return [this.sessions, this.latest.seq, this.journal.length].join(' ');
  }
}
