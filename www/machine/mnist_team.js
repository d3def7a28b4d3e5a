// @ts-check
// MNIST learning on several cores: K learning workers, each holding a replica of the run (the
// same wasm engine, the same file, the same saved run), share every update of the batch
// trainer (src/learn/rbm/batch/shard.rs). Each replica runs the chains of its part of the
// batch and sums its part of g_W's rows; they exchange two messages per update (the chains'
// rows, then the blocks of W's next velocities) over MessagePorts, and every replica ends the
// update with the bits one worker alone would have, so the saved run does not depend on K.
// The learning worker (mnist_worker.js) is replica 0 and starts the others
// (mnist_shard_worker.js); with K = 1 nothing here runs.
//
//   replica 0 → helper
//     {type: 'init', js, wasm}                   load the engine (worker_host.js)
//     {type: 'join', index, count, ports}        its shard and its ports to the other
//                                                replicas (ports[j] to replica j, null at its own)
//     {type: 'sync', file?, hidden, seed, run}   become replica 0's run: the packed file (the
//                                                first time) and MnistLab.save's bytes
//     {type: 'go', through}                      share updates until the run has `through`
//   helper → replica 0
//     {type: 'ready'} · {type: 'synced', updates} · {type: 'panic', message}
//     {type: 'error', part, message}             a refused message (a fault of the team)
//   replica ↔ replica
//     {stage: 'rows' | 'step', update, from, values, within}

/** The most learning workers a run uses. */
export const MAX_CORES = 4;
/** localStorage key that fixes the workers (1 to MAX_CORES) for measurements and tests. */
export const CORES_KEY = 'boltzlab-mnist-cores';

/**
 * The learning workers to use: the whole number 1 to MAX_CORES kept under CORES_KEY, else
 * min(navigator.hardwareConcurrency − 1, MAX_CORES), at least 1: one core is left to the page and
 * the likelihood worker. On a 2-core machine two learning workers beside the likelihood worker
 * made 0.72× the rate of one (`node benches/mnist_cores.mjs dist`, docs/measured.md), so such a
 * machine learns on one. On a cross-origin isolated page, two or more cores to use mean the
 * threaded engine's two threads instead of a team (threads.js).
 * @returns {number}
 */
export function coresToUse() {
  let asked = NaN;
  try {
    asked = Number(globalThis.localStorage?.getItem(CORES_KEY) ?? NaN);
  } catch {
    // No storage (a worker, or storage refused): the machine decides.
  }
  if (Number.isInteger(asked) && asked >= 1 && asked <= MAX_CORES) return asked;
  return Math.max(1, Math.min(Math.floor(navigator.hardwareConcurrency || 1) - 1, MAX_CORES));
}

/** Messages from the other replicas, waited for by (stage, update, sender). */
export class Mailbox {
  constructor() {
    /** @type {Map<string, import('../messages').ShardExchange>} */
    this.box = new Map();
    /** @type {Map<string, {resolve: (v: import('../messages').ShardExchange) => void, reject: (e: any) => void}>} */
    this.waiting = new Map();
    /** @type {Error | null} */
    this.failure = null;
  }

  /** @param {import('../messages').ShardExchange} message */
  put(message) {
    const key = `${message.stage}:${message.update}:${message.from}`;
    const waiter = this.waiting.get(key);
    if (waiter) {
      this.waiting.delete(key);
      waiter.resolve(message);
    } else this.box.set(key, message);
  }

  /**
   * The message of `stage` for `update` from replica `from`, once it is here.
   * @template {import('../messages').ShardExchange['stage']} K
   * @param {K} stage
   * @param {number} update
   * @param {number} from
   * @returns {Promise<Extract<import('../messages').ShardExchange, {stage: K}>>}
   */
  take(stage, update, from) {
    if (this.failure) return Promise.reject(this.failure);
    const key = `${stage}:${update}:${from}`;
    // The key holds the stage, so what is filed under it is a message of that stage.
    /** @type {Promise<any>} */
    let message;
    if (this.box.has(key)) {
      message = Promise.resolve(this.box.get(key));
      this.box.delete(key);
    } else message = new Promise((resolve, reject) => this.waiting.set(key, { resolve, reject }));
    return message;
  }

  /** Every wait, now and later, fails with `error` (a replica died). */
  fail(error) {
    this.failure = error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

/**
 * Sends `message` to every other replica: a copy of its values to each but the last, which
 * gets the buffer itself.
 * @param {(MessagePort | null)[]} ports
 * @param {import('../messages').ShardExchange} message
 */
function broadcast(ports, message) {
  const others = ports.filter(Boolean);
  others.forEach((port, k) => {
    const last = k === others.length - 1;
    const own = last ? message.values : message.values.slice();
    port.postMessage({ ...message, values: own }, [own.buffer]);
  });
}

/**
 * One update shared by `count` replicas, as replica `index` (the three steps of
 * src/learn/rbm/batch/shard.rs). Rejects with the engine's reason (a divergence, at the end,
 * on every replica alike) or the mailbox's failure; the caller then abandons the update.
 * @param {any} lab an engine MnistLab
 * @param {{index: number, count: number, ports: (MessagePort | null)[], mailbox: Mailbox}} team
 * @returns {Promise<{compute: number}>} the ms this replica spent in the engine
 */
export async function sharedUpdate(lab, { index, count, ports, mailbox }) {
  const update = lab.updates() + 1;
  let t = performance.now();
  const rows = lab.share_chains(index, count);
  let compute = performance.now() - t;
  broadcast(ports, { stage: 'rows', update, from: index, values: rows });
  for (let from = 0; from < count; from++) {
    if (from === index) continue;
    const message = await mailbox.take('rows', update, from);
    t = performance.now();
    lab.share_rows(from, message.values);
    compute += performance.now() - t;
  }
  t = performance.now();
  const block = lab.share_step();
  const within = lab.step_within();
  compute += performance.now() - t;
  broadcast(ports, { stage: 'step', update, from: index, within, values: block });
  for (let from = 0; from < count; from++) {
    if (from === index) continue;
    const message = await mailbox.take('step', update, from);
    t = performance.now();
    lab.share_block(from, message.values, message.within);
    compute += performance.now() - t;
  }
  t = performance.now();
  lab.finish_shared_update();
  return { compute: compute + performance.now() - t };
}

/**
 * The ports of each pair of `count` replicas: ports[i][j] is replica i's port to replica j.
 * @returns {(MessagePort | null)[][]}
 */
function mesh(count) {
  const ports = Array.from({ length: count }, () => Array(count).fill(null));
  for (let i = 0; i < count; i++)
    for (let j = i + 1; j < count; j++) {
      const channel = new MessageChannel();
      ports[i][j] = channel.port1;
      ports[j][i] = channel.port2;
    }
  return ports;
}

/**
 * A message of the team's to one helper (mnist_shard_worker.js handles each).
 * @param {Worker} worker
 * @param {import('../messages').MnistShardMessage} message
 * @param {Transferable[]} [transfer]
 */
const toHelper = (worker, message, transfer = []) => worker.postMessage(message, transfer);

/** Replica 0's side of the team: the helpers, the ports, keeping the replicas equal. */
export class Team {
  /**
   * @param {number} count the replicas, replica 0 included (≥ 2)
   * @param {{js: string, wasm: string}} init the engine's files, as replica 0 got them
   * @param {(message: string) => void} onFault a helper died or refused a message
   */
  constructor(count, init, onFault) {
    this.count = count;
    this.index = 0;
    this.mailbox = new Mailbox();
    this.stale = true;
    this.fileSent = null;
    /** @type {((value: any) => void)[]} */
    this.syncing = [];
    const ports = mesh(count);
    this.ports = ports[0];
    for (const port of this.ports) if (port) port.onmessage = ({ data }) => this.mailbox.put(data);
    const fault = (k, message) => {
      const reason = `the learning worker on core ${k + 1} of ${count} stopped: ${message}`;
      this.mailbox.fail(new Error(reason));
      onFault(reason);
    };
    this.helpers = [];
    for (let k = 1; k < count; k++) {
      const worker = new Worker(new URL('./mnist_shard_worker.js', import.meta.url), { type: 'module' });
      /** @param {MessageEvent<import('../messages').ShardReport>} event */
      worker.onmessage = ({ data }) => {
        if (data.type === 'panic' || data.type === 'error') fault(k, data.message);
        else if (data.type === 'synced') this.syncing.shift()?.(data.updates);
      };
      worker.onerror = (event) => {
        event.preventDefault();
        fault(k, event.message || 'an uncaught error');
      };
      worker.onmessageerror = () => fault(k, 'a message it could not read');
      worker.postMessage({ type: 'init', js: init.js, wasm: init.wasm });
      const own = ports[k];
      toHelper(
        worker,
        { type: 'join', index: k, count, ports: own },
        own.filter((p) => p !== null),
      );
      this.helpers.push(worker);
    }
  }

  /**
   * Makes every helper's run replica 0's (the file once, then the saved run), if anything
   * but a shared update changed it since the last time; resolves once all have it.
   * @param {any} lab replica 0's MnistLab
   * @param {ArrayBuffer} file the packed file the run learns
   */
  async sync(lab, file) {
    if (!this.stale) return;
    const run = lab.save();
    const sendFile = this.fileSent !== file;
    const done = this.helpers.map(
      (worker) =>
        new Promise((resolve) => {
          this.syncing.push(resolve);
          toHelper(worker, {
            type: 'sync',
            file: sendFile ? file.slice(0) : undefined,
            hidden: lab.hidden(),
            seed: lab.seed(),
            run: run.slice(),
          });
        }),
    );
    this.fileSent = file;
    const updates = await Promise.all(done);
    if (updates.some((u) => u !== lab.updates())) throw new Error('a learning worker did not take the run');
    this.stale = false;
  }

  /** Lets the helpers share updates until the run has `through`. */
  go(through) {
    for (const worker of this.helpers) toHelper(worker, { type: 'go', through });
  }

  stop() {
    for (const worker of this.helpers) worker.terminate();
    this.mailbox.fail(new Error('the team stopped'));
  }
}
