// @ts-check
// The worker's side of an engine's module worker (the page's side is worker_link.js): loads
// the page's wasm-bindgen module and wasm, keeps the messages that come before it is ready,
// reports a wasm panic, answers the shared messages and hands a mode's own to it. A worker
// built on it says only what is its own: how to start, how to make a command, what it can
// read, and its other messages (run, advance, ack, …).
//
//   page → worker   {type: 'init', js, wasm, ...}   → start(engine, init) then {type: 'ready'}
//                   {type: 'command', id, command, seq} → {type: 'result', id, value | error}
//                   {type: 'read', id, name, args}      → {type: 'result', id, value | error}
//                   {type: 'fault'}                     test only: the engine panics
//                   anything else                       → other(data)
//   worker → page   {type: 'panic', message} when the engine panics or cannot start
//                   {type: 'error', message, part: 'protocol'} for a message it cannot handle

/**
 * @param {{start: (engine: any, init: any) => void, make: (command: any) => any,
 *   read: (name: string, args: any[]) => any, made?: (command: any) => void,
 *   other?: (data: any) => void}} worker
 *   start: builds the engine objects; make: a command (throws the engine's reason, nothing
 *   changed); read: a value; made: after a command was made and answered (frames, sessions);
 *   other: the worker's own messages.
 * @returns {{dead: () => boolean, engine: () => any, seq: () => number}}
 */
export function hostWorker(worker) {
  let engine = null;
  let dead = false;
  let ready = false;
  let seq = 0; // the number of the page's last command seen
  const early = [];

  // The wasm panic hook (src/web/mod.rs) calls globalThis.boltzlabReportPanic.
  /** @type {any} */ (globalThis).boltzlabReportPanic = (message) => {
    dead = true;
    postMessage({ type: 'panic', message: String(message) });
  };

  const handle = (data) => {
    if (dead) return;
    if (Number.isInteger(data.seq)) seq = data.seq;
    switch (data.type) {
      case 'command':
      case 'read': {
        let made = false;
        try {
          const value = data.type === 'read' ? worker.read(data.name, data.args ?? []) : worker.make(data.command);
          postMessage({ type: 'result', id: data.id, value });
          made = data.type === 'command';
        } catch (err) {
          if (!dead) postMessage({ type: 'result', id: data.id, error: String(err?.message ?? err) });
        }
        if (made && !dead) worker.made?.(data.command);
        break;
      }
      case 'fault':
        engine.fault_for_tests();
        break;
      default:
        if (worker.other) worker.other(data);
        else postMessage({ type: 'error', part: 'protocol', message: `unknown message ${data.type}` });
    }
  };

  const init = async (data) => {
    engine = await import(data.js);
    await engine.default({ module_or_path: data.wasm });
    worker.start(engine, data);
    ready = true;
    postMessage({ type: 'ready' });
    for (const waiting of early.splice(0)) handle(waiting);
  };

  onmessage = ({ data }) => {
    if (data.type === 'init') {
      init(data).catch((err) => {
        dead = true;
        postMessage({ type: 'panic', message: `the engine could not start in its worker: ${err?.message ?? err}` });
      });
    } else if (!ready) early.push(data);
    else {
      try {
        handle(data);
      } catch (err) {
        if (!dead) postMessage({ type: 'error', part: 'protocol', message: String(err?.message ?? err) });
      }
    }
  };

  return { dead: () => dead, engine: () => engine, seq: () => seq };
}

// An engine object's getter `name` called with `args`: any method that reads (changes come only
// as commands), never a pointer, `free` or `dispatch`; `what` names the engine in the refusal.
export function readGetter(lab, name, args, what) {
  if (
    typeof lab[name] !== 'function' ||
    name.startsWith('__') ||
    name.endsWith('_ptr') ||
    name === 'free' ||
    name === 'dispatch'
  )
    throw new Error(`${what} has no reading ${name}`);
  return lab[name](...args);
}
