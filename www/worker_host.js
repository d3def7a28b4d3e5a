// @ts-check
// The worker's side of an engine's module worker (the page's side is worker_link.js): loads
// the page's wasm-bindgen module and wasm, keeps the messages that come before it is ready,
// reports a wasm panic, answers the shared messages and hands a mode's own to it. A worker
// built on it says only what is its own: how to start, how to make a command, what it can
// read, and its other messages (run, advance, ack, …).
//
//   page → worker   {type: 'init', js, wasm, ...}   → start(engine, init), {type: 'ready'},
//                                                      then started() (before any early message)
//                   {type: 'command', id, command, seq} → {type: 'result', id, value | error}
//                                                         (or, if held(data), later: the
//                                                         worker hands it back to handle)
//                   {type: 'read', id, name, args}      → {type: 'result', id, value | error}
//                                                         then made(command) if a command was
//                                                         made, and answered(data) either way
//                   {type: 'fault', trap?, helper?}     test only: the engine panics (trap: it
//                                                        stops with a wasm trap instead; helper:
//                                                        the threaded engine's second thread
//                                                        panics at its next half)
//                   anything else                       → other(data)
//   worker → page   {type: 'panic', message} when the engine panics or cannot start
//                   {type: 'error', message, part: 'protocol'} for a message it cannot handle

/** The wait between two sessions of a running engine worker, at least (ms). */
export const SESSION_MS = 250;

/**
 * Posts one of the messages every engine worker shares (ready, result, error, panic) to
 * whoever started it, as HostReport (www/messages.d.ts) declares them.
 * @param {import('./messages').HostReport} message
 */
export function report(message) {
  postMessage(message);
}

/**
 * The wait before a running engine worker's next session, after one that took `packMs` to
 * make: SESSION_MS, or 20 times the packing time when longer (at most about 5 % of the
 * worker's time), but never more than 500 ms, whatever the last packing took (one preempted on
 * a loaded machine must not stretch it): a reload loses what came after the last session, and
 * at most 1 s is promised. The lattice's and the restricted machine's workers share it.
 * @param {number} packMs
 * @returns {number}
 */
export function sessionWait(packMs) {
  return Math.min(500, Math.max(SESSION_MS, 20 * packMs));
}

/**
 * The end of a worker's switch over its own messages (their union is in www/messages.d.ts):
 * `data` is `never` there once every message the union declares is handled, which `make
 * typecheck` checks. One that still comes (from a page of another version) is refused as a
 * protocol error.
 * @param {never} data
 */
export function unknownMessage(data) {
  refuseType(/** @type {any} */ (data)?.type);
}

// Refuses a message of a type no handler knows, as a protocol error (the typed end of a
// worker's switch above, and hostWorker's messages that no `other` takes).
function refuseType(type) {
  report({ type: 'error', part: 'protocol', message: `unknown message ${type}` });
}

/**
 * Whether `err` is a wasm trap (`WebAssembly.RuntimeError`: an out-of-bounds access, a stack
 * overflow, `unreachable`), which no panic hook reports: the engine's memory may be left half
 * changed, so the worker stops as for a panic ({type: 'panic'}, once). A Rust panic's own trap,
 * after its hook reported it, adds nothing. Each worker's catch of an engine call asks this
 * first.
 * @param {unknown} err
 * @returns {boolean}
 */
export function trapped(err) {
  if (!(err instanceof WebAssembly.RuntimeError)) return false;
  /** @type {any} */ (globalThis).boltzlabReportPanic?.(`the engine stopped with a wasm trap: ${err.message}`);
  return true;
}

/**
 * The page's engine in this worker: the wasm-bindgen module and wasm the 'init' message names.
 * @param {{js: string, wasm: string}} init
 * @returns {Promise<any>} the loaded module
 */
export async function loadEngine(init) {
  const engine = await import(init.js);
  await engine.default({ module_or_path: init.wasm });
  return engine;
}

/**
 * The start every engine worker shares: load the engine on {type: 'init', js, wasm}, hold the
 * messages that come before it, hand each later one to `handle` (an error it throws is
 * reported as {type: 'error', part: 'protocol'}), and report a wasm panic or a failed start as
 * {type: 'panic'}, after which the worker ignores everything. hostWorker below builds the
 * command/read protocol on it; a worker with messages of its own only (the MNIST learning and
 * likelihood workers) calls it directly.
 * @param {(engine: any, init: any) => void} ready  called once loaded, with the 'init' message
 *   (before {type: 'ready'} is posted: a throw is a failed start)
 * @param {(data: any) => void} handle  every message after 'init'
 * @param {() => void} [started]  called after {type: 'ready'} is posted and before the messages
 *   that came early are handled (the lattice worker's first frame)
 * @param {(init: any) => Promise<any>} [load]  loads the engine from the 'init' message
 *   (loadEngine: the page's default engine; the MNIST learning worker may load the threaded one)
 * @returns {{dead: () => boolean, engine: () => any, handle: (data: any) => void}}  handle:
 *   handles a message as if it had just come (a message the worker kept for later)
 */
export function serveEngine(ready, handle, started, load = loadEngine) {
  let engine = null;
  let loaded = false;
  let dead = false;
  const early = [];
  const die = (message) => {
    if (dead) return; // a panic's trap that follows its hook's report is not a second panic
    dead = true;
    report({ type: 'panic', message });
  };
  // The wasm panic hook (src/web/mod.rs) calls globalThis.boltzlabReportPanic.
  /** @type {any} */ (globalThis).boltzlabReportPanic = (message) => die(String(message));
  const safely = (data) => {
    if (dead) return;
    try {
      handle(data);
    } catch (err) {
      if (!trapped(err) && !dead) report({ type: 'error', part: 'protocol', message: String(err?.message ?? err) });
    }
  };
  const init = async (data) => {
    engine = await load(data);
    ready(engine, data);
    loaded = true;
    report({ type: 'ready' });
    started?.();
    for (const waiting of early.splice(0)) safely(waiting);
  };
  onmessage = ({ data }) => {
    if (data.type === 'init')
      init(data).catch((err) => die(`the engine could not start in its worker: ${err?.message ?? err}`));
    else if (!loaded) early.push(data);
    else safely(data);
  };
  return { dead: () => dead, engine: () => engine, handle: safely };
}

/**
 * @param {{start: (engine: any, init: any) => void, started?: () => void,
 *   load?: (init: any) => Promise<any>,
 *   make: (command: any) => any, read: (name: string, args: any[]) => any,
 *   made?: (command: any) => void, answered?: (data: any) => void,
 *   held?: (data: any) => boolean, other?: (data: any) => void}} worker
 *   start: builds the engine objects from the 'init' message; started: after {type: 'ready'}
 *   is posted, before the messages that came early (a first frame); load: loads the engine
 *   (serveEngine's, by default the page's); make: a command (throws
 *   the engine's reason, nothing changed); read: a value; made: after a command was made and
 *   answered (frames, sessions); answered: after every command or read was answered, made or
 *   refused, and after `made` (a frame after each, the next slice); held: whether the
 *   worker keeps this command to make later (the MNIST worker, while its learning workers
 *   share an update), handing it back to the returned `handle` then; other: the worker's own
 *   messages. Once the engine has panicked no message is handled, and neither `made` nor
 *   `answered` is called.
 * @returns {{dead: () => boolean, engine: () => any, seq: () => number,
 *   handle: (data: any) => void}}
 */
export function hostWorker(worker) {
  let seq = 0; // the number of the page's last command seen
  const handle = (data) => {
    if (Number.isInteger(data.seq)) seq = data.seq;
    switch (data.type) {
      case 'command':
        if (worker.held?.(data)) break;
      // falls through
      case 'read': {
        let made = false;
        try {
          const value = data.type === 'read' ? worker.read(data.name, data.args ?? []) : worker.make(data.command);
          report({ type: 'result', id: data.id, value });
          made = data.type === 'command';
        } catch (err) {
          if (!trapped(err) && !host.dead())
            report({ type: 'result', id: data.id, error: String(err?.message ?? err) });
        }
        if (made && !host.dead()) worker.made?.(data.command);
        if (!host.dead()) worker.answered?.(data);
        break;
      }
      case 'fault':
        if (data.helper) host.engine().pair_fault_for_tests();
        else if (data.trap) host.engine().trap_for_tests();
        else host.engine().fault_for_tests();
        break;
      default:
        if (worker.other) worker.other(data);
        else refuseType(data.type);
    }
  };
  const host = serveEngine(worker.start, handle, worker.started, worker.load);
  return { ...host, seq: () => seq };
}

/**
 * A copy, in a buffer of its own (to transfer), of `length` values of `Type` at `ptr` in the
 * engine's wasm memory (a view of that memory would move with it when it grows).
 * @template T
 * @param {any} engine  the loaded wasm-bindgen module
 * @param {{new (buffer: ArrayBuffer): T & {set: (a: ArrayLike<number>) => void}, BYTES_PER_ELEMENT: number}} Type
 * @param {number} ptr
 * @param {number} length
 * @returns {T}
 */
export function copyFromWasm(engine, Type, ptr, length) {
  const out = new Type(new ArrayBuffer(length * Type.BYTES_PER_ELEMENT));
  // @ts-ignore: the same typed-array type on both sides
  out.set(new Type(engine.wasm_memory().buffer, ptr, length));
  return out;
}

// The engines' methods that change their state: the `&mut self` exports of src/web/ (the
// lattice's IsingLab, MachineLab, RbmLab and the pattern memory), `dispatch` aside. readGetter
// refuses them, so that a change reaches a worker's engine only as a command.
// tests/protocol_reads.rs checks this list against src/web/ both ways: a new changing export
// missing here, or a name here that no longer is one, fails it.
export const CHANGING = Object.freeze([
  'advance',
  'advance_explained',
  'advance_scan',
  'apply_fragment',
  'cancel_scan',
  'completion_start',
  'completion_step',
  'gallery_start',
  'gallery_step',
  'import_state',
  'learn',
  'likelihood_step',
  'paint',
  'refresh',
  'release_all',
  'reset',
  'restore_session',
  'set_boundary',
  'set_clamps_on',
  'set_completion_clamped',
  'set_dynamics',
  'set_field',
  'set_likelihood_every',
  'set_model',
  'set_order',
  'set_seed',
  'set_size',
  'set_temperature',
  'set_training',
  'start',
  'start_scan',
  'step',
  'stop',
]);

// ln Z by each of `methods`, each timed here (the engine has no clock in wasm): [{method,
// value | error, ms}], `each` called with every row as it is done. A method the engine refuses
// gives its reason as `error`; a wasm trap is rethrown (the worker's panic). The general
// machine's worker and the lattice's ln Z worker both answer with it (views/logz_table.js
// draws the rows).
/**
 * @param {string[]} methods
 * @param {(method: string) => any} compute
 * @param {(row: import('./messages').LogZRow) => void} [each]
 * @returns {import('./messages').LogZRow[]}
 */
export function timedLogZ(methods, compute, each = () => {}) {
  return methods.map((method) => {
    const t0 = performance.now();
    let row;
    try {
      row = { method, value: compute(method), ms: performance.now() - t0 };
    } catch (err) {
      if (trapped(err)) throw err;
      row = { method, error: String(err?.message ?? err), ms: performance.now() - t0 };
    }
    each(row);
    return row;
  });
}

// An engine object's getter `name` called with `args`: any method that reads (changes come only
// as commands), never one of CHANGING, a pointer, `free` or `dispatch`; `what` names the
// engine in the refusal.
export function readGetter(lab, name, args, what) {
  if (
    typeof lab[name] !== 'function' ||
    CHANGING.includes(name) ||
    name.startsWith('__') ||
    name.endsWith('_ptr') ||
    name === 'free' ||
    name === 'dispatch'
  )
    throw new Error(`${what} has no reading ${name}`);
  return lab[name](...args);
}

// A job done in calls sized to the time left (the likelihood workers' points): calls
// `step(work)` until it returns a result, `active()` is false or `ms` have passed. Each call
// gets the time left at `rate.perMs` units per ms, at least `min` and at most 2^20 units;
// `rate.perMs` follows the calls that took over 0.5 ms and made no result. Returns the result,
// if any.
export function workSliced(ms, rate, active, step, min = 1) {
  const until = performance.now() + ms;
  let result;
  while (!result && active() && performance.now() < until) {
    const left = Math.max(until - performance.now(), 1);
    const work = Math.max(min, Math.min(1 << 20, Math.floor(left * rate.perMs)));
    const t0 = performance.now();
    result = step(work);
    const took = performance.now() - t0;
    if (took > 0.5 && !result) rate.perMs = 0.7 * rate.perMs + 0.3 * (work / took);
  }
  return result;
}

// The cores the page itself is given while a machine learns at full speed: its main thread,
// compositor and GPU process take 0.45–0.5 of a core beside a 64-500 machine's learning worker
// (per-thread CPU time), and in bursts, one per frame. Beside a point under way, a 64-500
// machine learned 218–234 updates/s with half a core left to the page, 235–252 with three
// quarters, and 244–258 with the points idle (docs/measured.md).
const PAGE_CORES = 0.75;
// The least share of a core the log-likelihood points get while learning runs: they still come.
const MIN_SHARE = 0.25;

/**
 * The share of one core a background worker (the log-likelihood points) may take while
 * `learners` workers learn on a machine of `cores` logical cores: what the learners and the
 * page leave, cores − learners − PAGE_CORES, between MIN_SHARE and 1; 1 when nothing learns.
 * On 2 cores with one learning worker: 0.25; on 4 cores with one: 1. Learning comes first: a
 * point computed at full speed beside it slowed a 64-500 machine's learning to 55–59 % of
 * its engine's rate (docs/measured.md).
 * @param {number} cores navigator.hardwareConcurrency
 * @param {number} learners the workers learning now (0: paused)
 */
export function backgroundShare(cores, learners) {
  if (!(learners > 0)) return 1;
  const spare = (Number.isFinite(cores) && cores >= 1 ? cores : 1) - learners - PAGE_CORES;
  return Math.min(1, Math.max(MIN_SHARE, spare));
}

/**
 * The slices of a background worker, each run after any message waiting. With `share` s < 1, a
 * slice scheduled from within a slice of d ms runs after d·(1 − s)/s ms of rest, so that the
 * worker takes about s of a core; one scheduled from a message runs at once.
 */
export class PacedSlices {
  /** @param {() => void} slice */
  constructor(slice) {
    this.share = 1;
    this.scheduled = false;
    this.started = -1;
    const tick = new MessageChannel();
    this.post = () => tick.port2.postMessage(null);
    tick.port1.onmessage = () => {
      this.scheduled = false;
      this.started = performance.now();
      try {
        slice();
      } finally {
        this.started = -1;
      }
    };
  }

  /**
   * A learning worker's `{type: 'pace', learners}`: from now on take backgroundShare of a core.
   * @param {number} learners
   */
  pace(learners) {
    this.share = backgroundShare(navigator.hardwareConcurrency, learners);
  }

  /** Runs the slice once more (no-op if it is already scheduled). */
  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    const took = this.started >= 0 ? performance.now() - this.started : 0;
    const rest = (took * (1 - this.share)) / this.share;
    if (rest >= 1) setTimeout(this.post, rest);
    else this.post();
  }
}

/**
 * A learning worker's side of the pacing: tells the background worker at the end of `port` how
 * many workers learn ({type: 'pace', learners}, read by PacedSlices.pace), once per change, and
 * again in full to a new port.
 */
export class PaceLink {
  constructor() {
    /** @type {MessagePort | null} */
    this.port = null;
    this.told = -1;
  }

  /** @param {MessagePort} port */
  connect(port) {
    this.port = port;
    this.told = -1;
  }

  /** @param {number} learners the workers learning now (0: paused) */
  tell(learners) {
    if (!this.port || learners === this.told) return;
    this.told = learners;
    /** @type {import('./messages').PaceMessage} */
    const pace = { type: 'pace', learners };
    this.port.postMessage(pace);
  }
}
