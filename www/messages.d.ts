// The messages between the page and its engine workers that are not engine commands (those
// are the Rust enums' TypeScript types in the generated bindings: LatticeCommand, RbmCommand,
// …). Each worker's own messages are one union here; the worker's handler takes that union and
// ends its switch with `unknownMessage(data)`, whose parameter is `never`, so `make typecheck`
// fails if the page posts a message a worker does not handle, with a field it does not read,
// or if a worker handles a message no type declares. Types only: nothing here is loaded.

import type { RbmTraining } from 'boltzlab-bindings';

/** The messages every engine worker built on hostWorker (worker_host.js) answers. */
export type HostMessage =
  | { type: 'command'; id?: number; command: object; seq?: number }
  | { type: 'read'; id?: number; name: string; args?: unknown[] }
  // Test only: the engine panics (`trap`: it stops with a wasm trap instead).
  | { type: 'fault'; trap?: boolean };

/** The lattice worker's own (www/lattice/worker.js). */
export type LatticeMessage =
  // A frame's ticks, at a speed below the maximum (`explain`: the last one explained).
  | { type: 'advance'; ticks: number; explain: boolean }
  // Running at the maximum speed, in the worker's own slices, or not.
  | { type: 'run'; max: boolean }
  // A frame drawn; its spin and clamp buffers come back for reuse.
  | { type: 'ack'; buffers?: ArrayBuffer[] };

/** Acknowledges the frames the page received since its last acknowledgement (1 if unsaid). */
export type FramesAck = { type: 'ack'; frames?: number };

/** The general machine's worker's own (www/machine/machine_worker.js). */
export type MachineMessage =
  | { type: 'run'; on: boolean; sweeps: number | 'max' }
  | FramesAck
  // Test only: the next learning slice fails with `message`.
  | { type: 'fail-learning'; message: string };

/** The restricted machine's worker's own (www/machine/rbm_worker.js). */
export type RbmMessage =
  | { type: 'run'; on: boolean }
  | FramesAck
  // The fantasy particles shown as states or as their means p(v | h).
  | { type: 'view'; means: boolean }
  // The channel to its likelihood-points worker.
  | { type: 'port'; port: MessagePort };

/** The likelihood-points worker's own (www/machine/rbm_points_worker.js). */
export type PointsMessage = { type: 'port'; port: MessagePort };

/** The MNIST learning worker's own (www/machine/mnist_worker.js). */
export type MnistMessage =
  // A packed file (checked by the page) and the run to make or resume on it.
  | {
      type: 'load';
      bytes: ArrayBuffer;
      hidden: number;
      seed: number;
      training: RbmTraining | null;
      labels: boolean;
      every: number;
      resume: ArrayBuffer | Uint8Array | null;
      cores: number;
      port?: MessagePort;
    }
  | { type: 'run'; on: boolean }
  // Keep the run every `every` updates.
  | { type: 'every'; every: number }
  // The page is hidden or left: keep the run now.
  | { type: 'hide' }
  | FramesAck;

/** The MNIST likelihood worker's (www/machine/likelihood_worker.js: not a hostWorker). */
export type MnistLikelihoodMessage =
  | { type: 'load'; bytes: ArrayBuffer | Uint8Array; seed: number; port: MessagePort }
  | { type: 'read'; id?: number; name: 'busy' | 'curve' };

/** An MNIST learning helper's (www/machine/mnist_shard_worker.js: not a hostWorker). */
export type MnistShardMessage =
  | { type: 'join'; index: number; count: number; ports: (MessagePort | null)[] }
  | { type: 'sync'; file?: ArrayBuffer; hidden: number; seed: number; run: ArrayBuffer | Uint8Array }
  | { type: 'go'; through: number };

/** The pattern memory's worker's own (www/memory/worker.js). */
export type MemoryMessage =
  | { type: 'run'; on: boolean; speed: number | 'max'; run: number }
  | { type: 'advance'; ticks: number }
  | FramesAck
  // The capacity experiment: start one, or stop it.
  | { type: 'capacity'; units: number; runs: number; starts: number; stop?: false }
  | { type: 'capacity'; stop: true };
