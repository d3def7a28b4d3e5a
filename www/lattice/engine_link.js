// @ts-check
// The page's side of the engine worker (worker.js, which documents the protocol): starts
// the module worker with the same wasm-bindgen module and wasm as the page (their hashed
// names are in www/boot.js's tag), sends the engine's commands (LatticeCommand objects, which
// the worker hands to IsingLab.dispatch) and reads as calls with ids whose answers are
// promises, hands each frame the worker sends to `onFrame` and each session it keeps to
// `onSession`. A worker that dies (a
// wasm panic, an uncaught error, a message that cannot be read) is reported to `onFault`,
// never lost.

export class EngineLink {
  // session: the engine's session text the run starts from; onFrame(frame); onSession({text,
  // seq}): the run's session as the worker keeps it while running; onError(message): a
  // command or tick that failed; onFault(message): the worker is gone.
  constructor(session, { onFrame, onSession, onError, onFault }) {
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
    const tag = document.getElementById('boltzlab-boot');
    const url = (path) => new URL(path, document.baseURI).href;
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.worker.addEventListener('message', (event) => this.receive(event.data));
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.die(`the engine's worker failed: ${event.message || 'it could not be loaded'}`);
    });
    this.worker.addEventListener('messageerror', () =>
      this.die("a message from the engine's worker could not be read"),
    );
    this.worker.postMessage({ type: 'init', js: url(tag.dataset.js), wasm: url(tag.dataset.wasm), session });
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
        this.onError(data.message);
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

  post(message, transfer = []) {
    if (!this.dead) this.worker.postMessage(message, transfer);
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
    return this.call({ type: 'command', command, seq });
  }

  // A value from the worker's engine (an IsingLab getter, or 'spins', 'clamps',
  // 'timed_session', 'memory', 'engine_time'): a promise.
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
