// @ts-check
// The machine mode's scene interface, for the lessons and the links: apply(scene) sets up the
// general or the restricted machine and readouts() gives their numbers, each with its
// standard error. Nothing here fires an event or reads display text. A scene's run is built
// whole on a new engine object (each value checked by the engine as it is set); only when
// every value was accepted does it replace the run shown, and the controls are then set
// from what the engine holds, as after a restored session. On error it throws, naming the
// field, and the page is as it was.

import { $, clearError, readNumber } from '../ui.js';
import { showControls } from './rbm.js';
import { MnistRun } from './mnist.js';

// The general machine's parameters a scene may set.
const MACHINE_KEYS = ['dataset', 'method', 'rule', 'rate', 'statistics'];
// The restricted machine's: the run's (dataset, hidden units, seed) and its training.
const RBM_KEYS = [
  'dataset',
  'hidden',
  'seed',
  'statistics',
  'steps',
  'particles',
  'replicas',
  'batch',
  'rate',
  'momentum',
  'decay',
];
// An MNIST scene's run (hidden units) and training; training options left out are the MNIST
// run's defaults (MnistLab.default_training: CD-1, batch 100, ε = 0.1, μ = 0.5; with labels a
// weight decay λ = 0.0002).
const MNIST_KEYS = [
  'dataset',
  'hidden',
  'labels',
  'statistics',
  'steps',
  'particles',
  'batch',
  'rate',
  'momentum',
  'decay',
];
// A scene's pad: a test image drawn on it, the part clamped and the settling steps of its completion.
const PAD_KEYS = ['test', 'mask', 'steps'];
const PAD_MASKS = ['paint', 'top', 'left'];
// A log-likelihood point every this many updates unless the scene says otherwise.
const MNIST_EVERY = 300;
// What the engine's training leaves unset (null) for statistics that do not use it, when a
// scene sets statistics that do: the panel's own defaults.
const RBM_UNSET = { particles: 100, replicas: 4 };
// The general machine's statistics when a scene names them without these.
const STATISTICS_DEFAULTS = { particles: 20, sweeps: 1, replicas: 4 };

const exact = (value) => ({ value, stderr: 0 });
const unknownValue = () => ({ value: NaN, stderr: NaN });

function checkKeys(what, values, allowed) {
  const unknown = Object.keys(values).filter((key) => !allowed.includes(key));
  if (unknown.length)
    throw new Error(`${what}: there is no parameter ${unknown.join(', ')} (the parameters are ${allowed.join(', ')})`);
}

// A number from a scene (a number) or a link (its control's text, read strictly).
const numberOf = (value) => (typeof value === 'string' ? readNumber(value) : value);

// Builds `make()`, then runs `setUp(next)` on it; if anything throws, the new object is freed
// and the error goes on. Returns the new object.
function built(make, setUp) {
  const next = make();
  try {
    setUp(next);
  } catch (err) {
    next.free();
    throw err;
  }
  return next;
}

export class MachineScene {
  // mode: the MachineMode (machine/mode.js), which holds the restricted machine's too.
  constructor(mode) {
    this.mode = mode;
    this.engine = mode.engine;
    /** @type {{run?: boolean, done?: boolean} | null} the MNIST scene whose run is being made */
    this.mnistScene = null;
  }

  // Applies a scene of the general machine ({mode: 'machine', machine: {dataset, method,
  // rule, rate, statistics: {name, particles, sweeps, replicas}}, seed, couplings: 'random',
  // clamp: a training pattern (1-based) clamped on the visible units, speed: {sweeps: n} or
  // 'max', run}) or of the restricted one ({mode: 'restricted', rbm: {…}, seed, run,
  // complete: start a completion run on the first test image, for the completion view}).
  apply(scene) {
    if (scene.mode === 'restricted' && scene.rbm?.dataset === 'mnist') {
      this.applyMnist(scene);
      return;
    }
    if (scene.mode === 'restricted') {
      this.applyRestricted({ ...scene.rbm, seed: scene.seed }, Boolean(scene.run));
      if (scene.complete) this.mode.rbm.startCompletion();
    } else this.applyFull(scene);
    this.mnistScene = null; // an MNIST run still being made is no longer the scene's
  }

  applyFull(scene) {
    const mode = this.mode;
    const values = scene.machine ?? {};
    checkKeys('machine scene', values, MACHINE_KEYS);
    if (values.dataset === 'custom') throw new Error('dataset: a scene cannot use the pattern editor’s patterns');
    if (scene.couplings !== undefined && scene.couplings !== 'random')
      throw new Error(`couplings: “${scene.couplings}” is not 'random'`);
    const speed =
      scene.speed === undefined ? null : mode.speedPosition(scene.speed === 'max' ? 'max' : scene.speed?.sweeps);
    const seed = scene.seed;
    const next = built(
      () => new this.engine.MachineLab(values.dataset ?? 'pixels-10', values.method ?? 'stochastic', seed),
      (lab) => {
        if (values.rule !== undefined || values.rate !== undefined)
          lab.dispatch({
            command: 'set-update',
            rule: values.rule ?? lab.rule(),
            size: values.rate ?? lab.rule_size(),
          });
        if (values.statistics) {
          const s = { ...STATISTICS_DEFAULTS, ...values.statistics };
          lab.dispatch({
            command: 'set-statistics',
            statistics: s.name,
            particles: s.particles,
            sweeps: s.sweeps,
            replicas: s.replicas,
          });
        }
        if (scene.couplings === 'random') lab.dispatch({ command: 'random-couplings', seed });
        if (scene.clamp !== undefined)
          lab.dispatch({ command: 'explore', pattern: lab.pattern_of_number(scene.clamp) });
      },
    );
    mode.setRunning(false);
    mode.adoptShown(next);
    showRunDone(mode, scene, seed);
    if (scene.clamp !== undefined) $('bm-explore-pattern').value = String(next.pattern() + 1);
    mode.setKind('full');
    if (speed !== null) mode.setSpeedPosition(speed);
    mode.setRunning(Boolean(scene.run) && scene.clamp === undefined);
    mode.showExploring();
  }

  // Starts a new restricted machine from `values` (dataset, hidden, seed and the training
  // options; numbers or, from a link, their controls' text), shown with its radio button
  // checked; `run` starts its learning. Training options left out are the engine's defaults
  // for the dataset.
  applyRestricted(values, run = false) {
    checkKeys('restricted machine', values, RBM_KEYS);
    const rbm = this.mode.rbm;
    const hidden = numberOf(values.hidden ?? 16);
    const seed = numberOf(values.seed ?? 1);
    const dataset = values.dataset ?? 'digits8';
    let origin = null;
    const next = built(
      () => {
        if (dataset !== 'file') {
          origin = { command: 'new-run', dataset, hidden, seed };
          return new this.engine.RbmLab(dataset, hidden, seed);
        }
        if (!rbm.file)
          throw new Error('dataset: choose a file first (a digits file, or text with one image per line of 0s and 1s)');
        origin = { command: 'new-run-from-file', bytes: rbm.file, hidden, seed };
        return this.engine.RbmLab.from_bytes(rbm.file, hidden, seed);
      },
      (lab) => {
        const training = JSON.parse(lab.training_json());
        for (const [key, fallback] of Object.entries(RBM_UNSET)) if (training[key] === null) training[key] = fallback;
        for (const key of Object.keys(training)) if (values[key] !== undefined) training[key] = values[key];
        for (const key of Object.keys(training)) if (key !== 'statistics') training[key] = numberOf(training[key]);
        rbm.applyTo(lab, training);
      },
    );
    rbm.setRunning(false);
    if (rbm.mnist.active) rbm.mnist.show(false);
    showControls(next);
    rbm.adopt(next, origin);
    clearError('rbm-setup-error');
    clearError('rbm-training-error');
    this.mode.setKind('restricted');
    rbm.setRunning(run);
  }

  // Applies an MNIST scene ({mode: 'restricted', rbm: {dataset: 'mnist', hidden, labels,
  // statistics, steps, particles, batch, rate, momentum, decay}, seed, run, every: updates
  // between log-likelihood points, gallery: {count, steps, label?: the digit to generate,
  // clamped (a labelled run only)} to generate once the run is there, pad: {test: a test
  // image drawn on the pad, mask: the part clamped ('paint', 'top' or 'left'), steps} whose
  // completion starts once the run is there (a labelled run classifies it),
  // continue: keep the MNIST run shown when it has this scene's hidden units, seed and
  // training, so that a lesson's later steps go on with the machine its earlier steps
  // trained}). The names and numbers are checked here at once (an error names the field);
  // a new run's data and options are then checked by the engine in the learning worker,
  // which refuses with the reason beside the setup controls and leaves the machine shown.
  // The data is fetched (or read from the cache) and the run made asynchronously: `run` and
  // `gallery` take effect once it is there, unless another scene came in between.
  /** @param {{run?: boolean, done?: boolean}} [token] */
  applyMnist(scene, token = {}) {
    const values = scene.rbm;
    checkKeys('MNIST machine', values, MNIST_KEYS);
    const rbm = this.mode.rbm;
    const hidden = values.hidden ?? 500;
    const seed = scene.seed ?? 1;
    const every = scene.every ?? MNIST_EVERY;
    const whole = (field, x, lo, hi) => {
      if (!(Number.isInteger(x) && x >= lo && x <= hi))
        throw new Error(`${field}: a whole number from ${lo} to ${hi}, got ${String(x).slice(0, 20)}`);
    };
    whole('hidden', hidden, 1, 500);
    whole('seed', seed, 0, 2 ** 53);
    whole('every', every, 1, 1e6);
    const labels = values.labels ?? false;
    if (typeof labels !== 'boolean') throw new Error(`labels: true or false, got ${String(labels).slice(0, 20)}`);
    if (scene.gallery) {
      checkKeys('MNIST gallery', scene.gallery, ['count', 'steps', 'label']);
      whole('gallery count', scene.gallery.count, 1, 30);
      whole('gallery steps', scene.gallery.steps, 1, 10_000);
      if (scene.gallery.label !== undefined) {
        whole('gallery label', scene.gallery.label, 0, 9);
        if (!labels) throw new Error('gallery label: only a run that learns the labels (labels: true) can clamp one');
      }
    }
    if (scene.pad) {
      checkKeys('MNIST pad', scene.pad, PAD_KEYS);
      whole('pad test', scene.pad.test, 0, 9999);
      whole('pad steps', scene.pad.steps, 1, 10_000);
      if (!PAD_MASKS.includes(scene.pad.mask))
        throw new Error(`pad mask: one of ${PAD_MASKS.join(', ')}, got ${String(scene.pad.mask).slice(0, 20)}`);
    }
    const training = { ...this.engine.MnistLab.default_training(labels) };
    for (const key of Object.keys(training)) if (values[key] !== undefined) training[key] = values[key];
    if (training.statistics === 'cd') training.particles = null;
    const options = { hidden, seed, training, labels, every };
    this.mnistScene = token; // {run?: the learning wished for meanwhile, done?: made or refused}
    const go = () => {
      token.done = true;
      if (this.mnistScene !== token || !rbm.mnist.active) return;
      if (scene.gallery) {
        $('mnist-gallery-count').value = String(scene.gallery.count);
        $('mnist-gallery-steps').value = String(scene.gallery.steps);
        $('mnist-gallery-label').value = scene.gallery.label === undefined ? '' : String(scene.gallery.label);
        rbm.mnist.startGallery();
      }
      if (scene.pad) {
        // The test image first, then its completion (the worker takes commands in order).
        $('mnist-pad-test').value = String(scene.pad.test);
        $('mnist-pad-mask').value = scene.pad.mask;
        $('mnist-pad-steps').value = String(scene.pad.steps);
        rbm.mnist.send({ command: 'pad-from-test', image: scene.pad.test }, 'mnist-pad-error');
        rbm.mnist.complete();
      }
      rbm.setRunning(token.run ?? Boolean(scene.run));
    };
    this.mode.setRunning(false);
    rbm.setRunning(false);
    $('rbm-dataset').value = 'mnist';
    rbm.showMnistControls(options);
    $('mnist-every').value = String(every);
    // A run still loading (an earlier step's, or the one kept from the last visit): this
    // scene is applied again once it is there.
    if (rbm.mnist.loading) {
      this.mode.setKind('restricted');
      const wait = () => {
        if (this.mnistScene !== token) return;
        if (rbm.mnist.loading) setTimeout(wait, 50);
        else this.applyMnist(scene, token);
      };
      setTimeout(wait, 50);
      return;
    }
    const kept = rbm.mnist.active ? MnistRun.remembered() : null;
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    if (
      scene.continue &&
      kept &&
      same([kept.hidden, kept.seed, kept.training, kept.labels ?? false], [hidden, seed, training, labels])
    ) {
      if (kept.every !== every) rbm.mnist.setEvery();
      this.mode.setKind('restricted');
      go();
      return;
    }
    // The run is made first (its loading flag set at once), so that showing the restricted
    // machine does not also resume a run kept from an earlier visit.
    const made = rbm.mnist.create(options, false);
    this.mode.setKind('restricted');
    made.then((ok) => (ok ? go() : (token.done = true)));
  }

  // Runs or pauses the learning of the machine shown (general or restricted).
  // While an MNIST scene's run is still being made, the wish is kept for it (the machine
  // shown until then is not the scene's).
  run(on) {
    if (this.mnistPending()) this.mnistScene.run = on;
    else if (this.mode.kind === 'restricted') this.mode.rbm.setRunning(on);
    else this.mode.setRunning(on);
  }

  // Pauses both machines' learning.
  pause() {
    if (this.mnistPending()) this.mnistScene.run = false;
    this.mode.setRunning(false);
    this.mode.rbm.setRunning(false);
  }

  // Whether an MNIST scene's run is being made (its data loading, the worker making it).
  mnistPending() {
    return Boolean(this.mnistScene && !this.mnistScene.done);
  }

  // ln Z of the general machine by the four methods, as the ln Z panel's button does.
  computeLogZ() {
    this.mode.computeLogZ();
  }

  // The live numbers of both machines (NaN where there is no run):
  // - the general machine: method, learning (running), sweepsPerFrame, cycle, kl (G: exact, or the latest
  //   AIS estimate {mean, stderr} while too large to enumerate, with klCycle its cycle),
  //   solved (encoder inputs with a code of their own), logZ (by method, from the ln Z panel);
  // - the restricted machine: updates, testLogLikelihood and trainLogLikelihood (nats per
  //   image: exact, or {mean, stderr} by AIS), learningImages (running).
  readouts() {
    return { ...this.fullReadouts(), ...this.restrictedReadouts() };
  }

  fullReadouts() {
    const mode = this.mode;
    const lab = mode.lab;
    if (!lab)
      return {
        method: '',
        learning: false,
        sweepsPerFrame: mode.sweepsPerFrame(),
        cycle: unknownValue(),
        kl: unknownValue(),
        klCycle: unknownValue(),
        solved: unknownValue(),
        logZ: {},
      };
    // The live run's numbers as the worker last sent them (before its first frame, the
    // mirror's: the run as made or restored).
    const live = mode.live;
    const { kl: exactKl, solved } = mode.lastPoint();
    // Exact: {value, stderr: 0}; estimated (AIS): {mean, stderr} (lessons/quantities.js).
    /** @type {{value?: number, mean?: number, stderr: number}} */
    let kl = unknownValue();
    let klCycle = NaN;
    if (Number.isFinite(exactKl)) kl = exact(exactKl);
    else if ((live ? live.klEstimated : lab.kl_estimated()) && mode.ais().cycles.length > 0) {
      const ais = mode.ais();
      const m = ais.cycles.length;
      kl = { mean: ais.kl[m - 1], stderr: ais.stderr[m - 1] };
      klCycle = ais.cycles[m - 1];
    }
    const logZ = {};
    for (const [method, result] of Object.entries(mode.logZ()))
      logZ[method] = result.stderr === undefined ? exact(result.log_z) : { mean: result.log_z, stderr: result.stderr };
    return {
      method: lab.method(),
      learning: mode.running,
      sweepsPerFrame: mode.sweepsPerFrame(),
      cycle: exact(live ? live.cycles : lab.cycles()),
      kl,
      klCycle: Number.isFinite(klCycle) ? exact(klCycle) : unknownValue(),
      solved: Number.isFinite(solved) ? exact(Math.round(solved * lab.encoder_group())) : unknownValue(),
      logZ,
    };
  }

  // The restricted machine's numbers as its worker last sent them (its frames); while an
  // MNIST run is shown, that run's (mnistReadouts).
  restrictedReadouts() {
    const rbm = this.mode.rbm;
    if (rbm.mnist.active || rbm.mnist.loading) return this.mnistReadouts();
    const n = rbm.latestNumbers();
    if (!rbm.lab || !Number.isFinite(n.updates))
      return {
        updates: unknownValue(),
        testLogLikelihood: unknownValue(),
        trainLogLikelihood: unknownValue(),
        learningImages: rbm.running,
      };
    const quantity = (value) =>
      !Number.isFinite(value)
        ? unknownValue()
        : n.exact
          ? exact(value)
          : { mean: value, stderr: Number.isFinite(n.stderr) ? n.stderr : NaN };
    return {
      updates: exact(n.updates),
      testLogLikelihood: quantity(n.test),
      trainLogLikelihood: quantity(n.train),
      learningImages: rbm.running,
    };
  }

  // The MNIST run's numbers: updates learned (its learning worker's last frame), the latest
  // log-likelihood point (test and training ln p(v) per image: exact while ln Z is summed
  // exactly, else {mean, stderr} with AIS's standard error of ln Z) and the update it is of
  // (likelihoodUpdate), the hidden units (mnistHidden), whether it learns, and the gallery's steps done
  // of those asked (galleryDone is true once it is complete). NaN before the run is there.
  mnistReadouts() {
    const mnist = this.mode.rbm.mnist;
    // While a new run is made, the run still shown is not the one asked for: nothing is read.
    const ready = mnist.active && !mnist.loading && !this.mnistPending();
    const s = ready ? mnist.shown?.stats : null;
    const c = ready ? mnist.curve : null;
    const n = c ? c.updates.length : 0;
    const quantity = (value, error) =>
      !Number.isFinite(value) ? unknownValue() : error > 0 ? { mean: value, stderr: error } : exact(value);
    return {
      mnistLoaded: Boolean(s),
      updates: s ? exact(s.updates) : unknownValue(),
      mnistHidden: s ? exact(s.hidden) : unknownValue(),
      testLogLikelihood: n ? quantity(c.test[n - 1], c.stderr[n - 1]) : unknownValue(),
      trainLogLikelihood: n ? quantity(c.train[n - 1], c.stderr[n - 1]) : unknownValue(),
      likelihoodUpdate: n ? exact(c.updates[n - 1]) : unknownValue(),
      learningImages: mnist.running,
      galleryDone: Boolean(s && s.galleryTarget > 0 && s.gallerySteps >= s.galleryTarget),
    };
  }
}

// The message beside the run controls for a scene's new run: the couplings drawn, or none.
function showRunDone(mode, scene, seed) {
  if (scene.couplings === 'random') mode.showCouplings(seed);
  else $('bm-run-done').hidden = true;
}
