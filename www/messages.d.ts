// The messages between the page and its engine workers that are not engine commands (those
// are the Rust enums' TypeScript types in the generated bindings: LatticeCommand, RbmCommand,
// …). Each worker's own messages are one union here; the worker's handler takes that union and
// ends its switch with `unknownMessage(data)`, whose parameter is `never`, so `make typecheck`
// fails if the page posts a message a worker does not handle, with a field it does not read,
// or if a worker handles a message no type declares. Types only: nothing here is loaded.

import type { Training } from 'boltzlab-bindings';

/** The messages every engine worker built on hostWorker (worker_host.js) answers. */
export type HostMessage =
  | { type: 'command'; id?: number; command: object; seq?: number }
  | { type: 'read'; id?: number; name: string; args?: unknown[] }
  // Test only: the engine panics (`trap`: it stops with a wasm trap instead; `helper`: the
  // threaded engine's second thread panics at the next half it runs).
  | { type: 'fault'; trap?: boolean; helper?: boolean };

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
      training: Training | null;
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

// --- Worker → page ------------------------------------------------------------------------
// What each engine worker sends the page: its frames (what the page draws) and sessions (what
// it saves), declared once here. The worker builds each frame and session as the type says
// (a JSDoc @type on the object, so tsc refuses a field the type does not declare or a missing
// one), and the page's handler takes the same type (so tsc refuses a read of a field no frame
// carries). The messages every worker shares (ready, result, error, panic) are HostReport.

/** What every engine worker built on hostWorker sends besides its frames and sessions. */
export type HostReport =
  | { type: 'ready' }
  | { type: 'result'; id: number; value?: unknown; error?: string }
  // A command, slice or save that failed (`part`: which work, when the mode names it).
  | { type: 'error'; part?: string; message: string }
  // The engine panicked: the worker is gone.
  | { type: 'panic'; message: string };

/** A worker's session as the page keeps it: its text and the page's last command in it. */
export type KeptSession = { text: string; seq: number };

/** A worker's session message: the kept session and what else the worker says of it (X). */
export type SessionMessage<X = {}> = { type: 'session' } & KeptSession & X;

/** The lattice worker's figures of a frame (www/lattice/worker.js). */
export type LatticeStats = {
  ticks: number;
  sweeps: number;
  energy: number;
  magnetization: number;
  clampedCount: number;
  version: number;
  nextSite: number;
  lastStep: unknown;
  // When these figures were read (ms since the epoch).
  at: number;
};

/** The temperature sweep's part of a lattice frame, when it changed. */
export type LatticeScanPart = {
  has: boolean;
  running: boolean;
  len: number;
  progress: number;
  done: boolean;
  cancelled: boolean;
  temperature: number;
  range: number[];
  onsager: boolean;
  // The sweep's lattice while it runs.
  side?: number;
  spins?: Int8Array;
  // The result columns, when a row was added.
  columns?: {
    t: Float64Array;
    m: Float64Array;
    mErr: Float64Array;
    u: Float64Array;
    uErr: Float64Array;
    c: Float64Array;
    cErr: Float64Array;
    chi: Float64Array;
    chiErr: Float64Array;
    // 1 where the estimate was measured for enough autocorrelation times, 0 where its error
    // bar is a lower bound.
    mOk: Uint8Array;
    uOk: Uint8Array;
    cOk: Uint8Array;
    chiOk: Uint8Array;
  };
};

/** A lattice frame: the spins and clamps in transferred buffers (they come back in 'ack'). */
export type LatticeFrame = {
  type: 'frame';
  scan: LatticeScanPart | undefined;
  seq: number;
  side: number;
  spins: Int8Array;
  // null when nothing is clamped.
  clamps: Uint8Array | null;
  trace: { sweeps: Float64Array; energy: Float64Array; magnetization: Float64Array };
  // Ticks made since the last frame.
  ticksDone: number;
  stats: LatticeStats;
};

/** The lattice worker's session (`ms`: the time packing it took). */
export type LatticeSession = SessionMessage<{ ms: number }>;

/** The general machine worker's figures of a frame (www/machine/machine_worker.js). */
export type MachineStats = {
  units: number;
  visible: number;
  cycles: number;
  phase: string;
  pattern: number;
  temperature: number;
  stage: string;
  version: number;
  exploring: boolean;
  estimating: boolean;
  klEstimated: boolean;
  curveLen: number;
  aisLen: number;
  running: boolean;
};

/** A general machine's frame: the weights part when they or the curves changed. */
export type MachineFrame = {
  type: 'frame';
  seq: number;
  stats: MachineStats;
  activations: Float64Array;
  clamps: Uint8Array;
  weights?: {
    weights: Float64Array;
    biases: Float64Array;
    clamped: Float64Array;
    free: Float64Array;
    difference: Float64Array;
    curve: { cycles: Float64Array; kl: Float64Array; solved: Float64Array };
    ais: { cycles: Float64Array; kl: Float64Array; stderr: Float64Array };
  };
};

/** The general machine worker's session. */
export type MachineSession = SessionMessage<{ cycles: number }>;

/** The restricted machine worker's figures of a frame (www/machine/rbm_worker.js). */
export type RbmStats = {
  updates: number;
  updatesPerEpoch: number;
  version: number;
  // The log-likelihood point under way: its progress in [0, 1], or −1 for none.
  progress: number;
  exact: boolean;
  curveLen: number;
  shown: number;
  hasParticles: boolean;
  visible: number;
  hidden: number;
  width: number;
  dataset: string;
  statistics: string;
  testCount: number;
  galleryCount: number;
  galleryDone: number;
  completionImage: number;
  completionSteps: number;
  completionClamped: boolean;
  running: boolean;
  // When these figures were read (ms since the epoch).
  at: number;
};

/** A restricted machine's frame: each part after the first only when it changed. */
export type RbmFrame = {
  type: 'frame';
  seq: number;
  stats: RbmStats;
  fantasy: Uint8Array;
  // p(v | h) of the particles, while the page shows them so.
  fantasyMean?: Float64Array;
  weights?: Float64Array;
  // Training and test images, each row followed by its reconstructions.
  reconstructions?: { values: Float64Array; count: number; columns: number };
  curve?: { updates: Float64Array; train: Float64Array; test: Float64Array; stderr: Float64Array };
  gallery?: Float64Array;
  // The image, what is clamped, p(v) and the state, one after the other; marks: the free pixels.
  completion?: { all: Float64Array; marks: Uint8Array };
};

/** The restricted machine worker's session. */
export type RbmSession = SessionMessage<{ updates: number; ms: number }>;

/** The MNIST learning worker's figures of a frame (www/machine/mnist_worker.js). */
export type MnistStats = {
  updates: number;
  updatesPerEpoch: number;
  // The options the run learns with.
  training: Training;
  version: number;
  visible: number;
  hidden: number;
  width: number;
  seed: number;
  filterPage: number;
  filterAll: boolean;
  galleryCount: number;
  gallerySteps: number;
  galleryTarget: number;
  labelled: boolean;
  completionSteps: number;
  completionTarget: number;
  completionClamped: boolean;
  running: boolean;
  run: number;
  // The cores that learn: the team's workers, or the engine's threads.
  cores: number;
  // When these figures were read (ms since the epoch).
  at: number;
};

/** An MNIST frame: the chains always, the views at most every VIEW_MS while learning. */
export type MnistFrame = {
  type: 'frame';
  stats: MnistStats;
  chains: Float32Array;
  filters?: Float32Array;
  units?: Uint32Array;
  reconstructions?: Float32Array;
  gallery?: Float32Array;
  pad?: Uint8Array;
  classification?: Float64Array;
  completion?: Float32Array;
  // The frame after a load: whether a kept run was restored, at which update, and the
  // training images (the largest batch).
  loaded?: { restored: boolean; updates: number; images: number };
  // The frame after a change of the filters shown.
  filtersChanged?: boolean;
};

/** The MNIST worker's report that the run was kept (in IndexedDB, not as text). */
export type MnistSession = { type: 'session'; updates: number; ms: number; busyMs: number; bytes: number };

/** The pattern memory worker's frame (www/memory/worker.js). */
export type MemoryFrame = {
  type: 'frame';
  seq: number;
  state: Int8Array;
  overlaps: Float64Array;
  stats: {
    width: number;
    height: number;
    patterns: number;
    energy: number;
    ticks: number;
    temperature: number;
    recall: string;
    stable: boolean;
    rule: string;
    running: boolean;
    run: number;
  };
  // The energy trace's points since the last frame (`reset`: a new trace).
  trace: { reset: boolean; ticks: number[]; energy: number[] };
  // The capacity curve when it changed; null when it was cleared.
  capacity?: MemoryCapacity | null;
};

/** The pattern memory's session. */
export type MemorySession = SessionMessage;

/** The capacity experiment's curve, as the pattern memory's frames carry it. */
export type MemoryCapacity = {
  units: number;
  rule: string;
  // Each α measured so far: the mean overlap of its runs with its standard error, and where
  // its random starts ended.
  points: {
    alpha: number;
    patterns: number;
    mean: number;
    stderr: number;
    runs: number;
    from: { pattern: number; reversed: number; mixture: number; other: number };
  }[];
  done: number;
  total: number;
  finished: boolean;
};

/** The MNIST likelihood worker's frame (www/machine/likelihood_worker.js): its job and curve. */
export type MnistLikelihoodFrame = {
  type: 'frame';
  run: number;
  // The point under way: its progress, its update, and whether it is exact.
  progress: number;
  update: number;
  exact: boolean;
  // The update of the snapshot waiting for its turn, or −1.
  pending: number;
  // The curve, when a point was added (test error with its standard error: labelled runs).
  curve?: {
    updates: Float64Array;
    train: Float64Array;
    test: Float64Array;
    stderr: Float64Array;
    error: Float64Array;
    errorStderr: Float64Array;
  };
};

/** One way of ln Z worked out by a worker (worker_host.js, timedLogZ): its value (the engine's
 * LogZ) or why the engine refused, and the time it took. */
export type LogZRow = { method: string; value?: unknown; error?: string; ms: number };

/** The lattice's ln Z worker's frame (www/lattice/logz_worker.js): each row as it is done. */
export type LogZFrame = { type: 'frame'; row: LogZRow };

// --- Between workers ----------------------------------------------------------------------
// A learning worker and its background worker (the log-likelihood points) talk on a
// MessageChannel of their own; each side's messages are one union, checked where they are
// posted and where they are read, as above.

/** How many workers learn now (0: paused), told by a learning worker (worker_host.js,
 * PaceLink) to its background worker, which then takes its share of a core (PacedSlices). */
export type PaceMessage = { type: 'pace'; learners: number };

/** The restricted machine's worker → its likelihood-points worker. */
export type ToPoints =
  // A new run: its images and seed (a point under way is dropped).
  | { type: 'run'; run: number; visible: number; train: Uint8Array; test: Uint8Array; seed: number }
  // The frozen machine of the point due at `update`.
  | { type: 'point'; run: number; update: number; hidden: number; parameters: Float64Array }
  | PaceMessage;

/** The likelihood-points worker → the restricted machine's worker. */
export type FromPoints =
  | { type: 'progress'; run: number; update: number; progress: number }
  // A finished point: [update, train, test, stderr].
  | { type: 'point'; run: number; values: number[] }
  | { type: 'failed'; run: number; update: number; message: string };

/** The MNIST learning worker → its likelihood worker. */
export type ToMnistLikelihood =
  // A new run (or one restored): the curve starts again, on this seed.
  | { type: 'reset'; run: number; seed: number }
  // The machine at `update`, to score when the worker is free (the latest waits).
  | { type: 'snapshot'; run: number; hidden: number; labels: boolean; update: number; parameters: Float32Array }
  | PaceMessage;

/** A helper of MNIST learning on several cores → the learning worker that leads the team
 * (mnist_team.js): that it holds the run it was sent, at `updates`, or what every engine
 * worker reports (serveEngine's ready and panic, its own errors). */
export type ShardReport = { type: 'synced'; updates: number } | HostReport;

/** One replica → each other, in a shared MNIST update (mnist_team.js, sharedUpdate): its
 * chains' rows, then its block of the step (`within`: the step stayed within its bound). */
export type ShardExchange =
  | { stage: 'rows'; update: number; from: number; values: Float32Array }
  | { stage: 'step'; update: number; from: number; within: boolean; values: Float32Array };

/** The handlers a page gives its worker link (www/worker_link.js), F its frames, S its sessions. */
export type LinkHandlers<F, S> = {
  onFrame: (frame: F) => void;
  onSession: (kept: S) => void;
  // A command, slice or save that failed; data: the whole message.
  onError: (message: string, data?: Extract<HostReport, { type: 'error' }>) => void;
  // The worker is gone.
  onFault: (message: string) => void;
};
