// The restricted machine (machine mode, "restricted"): a learning run of the engine's
// RbmLab on the 8×8 digits, 4×4 bars and stripes or the user's own file, drawn live. Each
// frame it learns for part of the frame budget (timed with performance.now(); in slices of
// an update, RbmLab.learn, so that the largest k × particles never block a frame), then spends
// the rest on the log-likelihood point under way (exact ln Z summed a slice of hidden
// states at a time, or AIS chunks), the generation gallery and the completion chain. The
// views take typed arrays over wasm memory; only this controller calls the engine.

import { view } from '../engine.js';
import { $, attempt, clearError, format, readNumber, showError } from '../ui.js';
import { ImageGridView } from '../views/images.js';
import { LikelihoodView } from '../views/likelihood.js';

// The share of the frame budget learning may take while a log-likelihood point is due.
const LEARN_SHARE = 0.6;
// Completion and gallery: block Gibbs steps per frame.
const CHAIN_STEPS_PER_FRAME = 10;

export class RbmMode {
  constructor(engine) {
    this.engine = engine;
    this.lab = null;
    this.running = false;
    this.file = null; // the bytes of the user's dataset file
    this.workPerMs = 1e5; // measured learning speed, multiply-adds per ms
    this.statesPerMs = 200; // measured exact ln Z speed, states of the smaller layer per ms
    this.aisStepsPerMs = 5; // measured AIS speed, intermediate steps of one run per ms
    this.rate = { updates: 0, since: performance.now(), shown: 0 };
    this.settling = 0; // completion steps still to run
    this.painted = new Uint8Array(64);
    this.drawnVersion = -1;
    this.changes = 0; // counts option changes and new runs, for the session's fingerprint
    this.views = {
      fantasy: new ImageGridView($('rbm-fantasy')),
      reconstructions: new ImageGridView($('rbm-reconstructions')),
      filters: new ImageGridView($('rbm-filters'), null),
      gallery: new ImageGridView($('rbm-gallery')),
      completion: new ImageGridView($('rbm-completion')),
      paint: new ImageGridView($('rbm-paint')),
      likelihood: new LikelihoodView($('rbm-likelihood')),
    };
    this.wire();
    this.shortcuts = {
      ' ': () => this.setRunning(!this.running),
      f: () => this.togglePhase(),
    };
  }

  // The filters use the machine mode's diverging scale (set by mode.js).
  useScale(scale) {
    this.views.filters.scale = scale;
  }

  enter() {
    if (!this.lab) this.create();
    this.drawnVersion = -1;
  }

  leave() {
    this.setRunning(false);
  }

  fail(err) {
    this.setRunning(false);
    showError('rbm-run-error', err.message ?? String(err));
  }

  // --- Each frame ----------------------------------------------------------------------------

  frame(budgetMs) {
    const lab = this.lab;
    if (!lab) return;
    const start = performance.now();
    const left = () => budgetMs - (performance.now() - start);
    if (this.running) {
      const share = lab.likelihood_progress() >= 0 ? budgetMs * LEARN_SHARE : budgetMs;
      // Learning in slices of an update (multiply-adds, sized by the measured speed): an
      // update of any k × particles is resumed by the next slice, so no call blocks the
      // frame for long.
      while (this.running && performance.now() - start < share) {
        const work = Math.max(1, Math.min(2 ** 40, Math.floor((share - (performance.now() - start)) * this.workPerMs)));
        const t0 = performance.now();
        let done = 0;
        if (!this.act('rbm-run-error', () => (done = lab.learn(work)))) {
          this.setRunning(false);
          break;
        }
        const ms = performance.now() - t0;
        if (ms > 0.05) this.workPerMs = 0.7 * this.workPerMs + 0.3 * (work / ms);
        this.rate.updates += done;
      }
    }
    // The log-likelihood: a point every two epochs (and the one under way, also while
    // paused), in slices within the budget left.
    let first = true;
    while (first || left() > 0) {
      first = false;
      const exact = lab.likelihood_exact();
      // Both kinds of work are resumable (exact: states; AIS: steps of a run), sized by
      // the measured speed so that no call outlasts the frame's budget.
      const perMs = exact ? this.statesPerMs : this.aisStepsPerMs;
      const floor = exact ? 256 : 1;
      const work = Math.max(floor, Math.min(1 << 20, Math.floor(Math.max(left(), 0.5) * perMs)));
      const t0 = performance.now();
      let added = false;
      if (!this.act('rbm-likelihood-error', () => (added = lab.likelihood_step(work)))) break;
      const ms = performance.now() - t0;
      if (ms > 0.2 && lab.likelihood_progress() >= 0) {
        if (exact) this.statesPerMs = 0.7 * this.statesPerMs + 0.3 * (work / ms);
        else this.aisStepsPerMs = 0.7 * this.aisStepsPerMs + 0.3 * (work / ms);
      }
      if (added || lab.likelihood_progress() < 0) break;
    }
    if (this.galleryRunning) {
      let done = false;
      this.act('rbm-gallery-error', () => (done = lab.gallery_step(CHAIN_STEPS_PER_FRAME)));
      if (done) this.galleryRunning = false;
    }
    if (this.settling > 0) {
      const steps = Math.min(this.settling, CHAIN_STEPS_PER_FRAME);
      if (this.act('rbm-complete-error', () => lab.completion_step(steps))) this.settling -= steps;
      else this.settling = 0;
    }
  }

  // Runs an engine call, showing its error in `id`; returns whether it succeeded.
  act(id, action) {
    return attempt(id, action);
  }

  // --- The run -------------------------------------------------------------------------------

  // A new machine from the dataset, hidden units and seed controls, with the options shown;
  // on any error the old machine stays and the message says why.
  create() {
    const dataset = $('rbm-dataset').value;
    const hidden = readNumber($('rbm-hidden').value);
    const seed = readNumber($('rbm-seed').value);
    let next = null;
    const ok = attempt('rbm-setup-error', () => {
      if (dataset === 'file') {
        if (!this.file)
          throw new Error('dataset: choose a file first (a digits file, or text with one image per line of 0s and 1s)');
        next = this.engine.RbmLab.from_bytes(this.file, hidden, seed);
      } else next = new this.engine.RbmLab(dataset, hidden, seed);
    });
    if (!ok) return false;
    const training = this.training();
    // A file of fewer images than the batch: the batch is all of them, said beside the file.
    let fitted = '';
    if (dataset === 'file' && training.batch > next.test_count()) {
      training.batch = next.test_count();
      $('rbm-batch').value = String(training.batch);
      fitted = ` The file has ${training.batch} image${training.batch === 1 ? '' : 's'}, so the batch is ${training.batch}.`;
    }
    try {
      this.applyTo(next, training);
    } catch (err) {
      next.free();
      showError('rbm-training-error', err.message ?? String(err));
      return false;
    }
    clearError('rbm-training-error');
    this.adopt(next);
    $('rbm-setup-done').textContent += fitted;
    return true;
  }

  // Makes `next` the run shown (the old one is freed): the paint mask, counters and the
  // setup line start again.
  adopt(next) {
    if (this.lab && this.lab !== next) this.lab.free();
    this.lab = next;
    this.changes += 1;
    this.painted = new Uint8Array(next.visible());
    for (let i = 0; i < next.visible(); i++) this.painted[i] = i < next.visible() / 2 ? 1 : 0;
    this.galleryRunning = false;
    this.settling = 0;
    this.rate = { updates: 0, since: performance.now(), shown: 0 };
    $('rbm-complete-image').max = String(next.test_count() - 1);
    this.drawnVersion = -1;
    $('rbm-setup-done').textContent = `A ${next.visible()}-${next.hidden()} machine on ${next.dataset()}: ln p(v) ${
      next.likelihood_exact()
        ? 'exact (smaller layer ≤ 25 units)'
        : 'by AIS (more than 25 units in each layer), with error bars'
    }.`;
    $('rbm-setup-done').hidden = false;
  }

  // --- The session (session/record.js) -------------------------------------------------------

  // Whether anything the restricted session keeps may have changed: the weights' version,
  // the update count, the curve, the point under way and the options applied.
  fingerprint() {
    const lab = this.lab;
    if (!lab) return 'none';
    return [lab.version(), lab.updates(), lab.curve_len(), lab.likelihood_progress() >= 0, this.changes].join(' ');
  }

  // The engine's session text of the restricted run (opaque, exact), or null before one
  // was made. The gallery and the completion are not in it (they start again).
  save() {
    return this.lab ? this.lab.session() : null;
  }

  // What a restricted session holds, read by a throwaway engine object: {dataset, hidden,
  // updates}; throws the engine's reason when it would not restore.
  checkSession(text) {
    const probe = this.engine.RbmLab.from_session(text);
    try {
      return { dataset: probe.dataset(), hidden: probe.hidden(), updates: probe.updates() };
    } finally {
      probe.free();
    }
  }

  // Restores a restricted session: the run continues exactly where it stopped, and the
  // controls show its dataset, hidden units, seed and options.
  restoreSession(text) {
    const lab = this.engine.RbmLab.from_session(text);
    this.setRunning(false);
    const dataset = lab.dataset();
    if (dataset !== 'custom') $('rbm-dataset').value = dataset;
    $('rbm-hidden').value = String(lab.hidden());
    $('rbm-seed').value = String(lab.seed());
    const t = JSON.parse(lab.training_json());
    for (const [id, value] of Object.entries({
      'rbm-statistics': t.statistics,
      'rbm-steps': t.steps,
      'rbm-particles': t.particles,
      'rbm-replicas': t.replicas,
      'rbm-batch': t.batch,
      'rbm-rate': t.rate,
      'rbm-momentum': t.momentum,
      'rbm-decay': t.decay,
    }))
      if (value !== null) $(id).value = String(value);
    this.adopt(lab);
  }

  // The options shown in the panel (numbers read strictly; the engine checks them).
  training() {
    const number = (id) => readNumber($(id).value);
    return {
      statistics: $('rbm-statistics').value,
      steps: number('rbm-steps'),
      particles: number('rbm-particles'),
      replicas: number('rbm-replicas'),
      batch: number('rbm-batch'),
      rate: number('rbm-rate'),
      momentum: number('rbm-momentum'),
      decay: number('rbm-decay'),
    };
  }

  applyTo(lab, t) {
    lab.set_training(t.statistics, t.steps, t.particles, t.replicas, t.batch, t.rate, t.momentum, t.decay);
    lab.set_likelihood_every(Math.max(1, 2 * lab.updates_per_epoch()));
    this.changes += 1;
  }

  // Applies the options to the running machine; a bad value changes nothing.
  applyTraining() {
    attempt('rbm-training-error', () => this.applyTo(this.lab, this.training()));
  }

  setRunning(on) {
    this.running = on;
    $('rbm-run').textContent = on ? 'Pause learning' : 'Run learning';
    $('rbm-run').setAttribute('aria-pressed', String(on));
    this.rate = { updates: 0, since: performance.now(), shown: this.rate.shown };
  }

  // --- Gallery and completion ----------------------------------------------------------------

  startGallery() {
    const count = readNumber($('rbm-gallery-count').value);
    const steps = readNumber($('rbm-gallery-steps').value);
    if (attempt('rbm-gallery-error', () => this.lab.gallery_start(count, steps))) this.galleryRunning = true;
  }

  startCompletion() {
    const image = readNumber($('rbm-complete-image').value);
    const mask = $('rbm-complete-mask').value;
    const steps = readNumber($('rbm-complete-steps').value);
    if (!(steps >= 1 && steps <= 100000 && Number.isInteger(steps))) {
      showError(
        'rbm-complete-error',
        `steps must be a whole number between 1 and 100000, got ${$('rbm-complete-steps').value}`,
      );
      return;
    }
    if (attempt('rbm-complete-error', () => this.lab.completion_start(image, mask, this.painted))) {
      this.settling = steps;
      this.showPhase();
    }
  }

  // F: clamped ⇄ free for the completion chain, as on the lattice; it settles again.
  togglePhase() {
    const lab = this.lab;
    if (!lab || lab.completion_image() < 0) {
      showError('rbm-complete-error', 'completion: choose a test image and a mask first');
      return;
    }
    if (attempt('rbm-complete-error', () => lab.set_completion_clamped(!lab.completion_clamped()))) {
      this.settling = Math.max(this.settling, readNumber($('rbm-complete-steps').value) || 100);
      this.showPhase();
    }
  }

  showPhase() {
    const clamped = this.lab.completion_clamped();
    $('rbm-complete-phase').textContent = clamped ? 'clamped (mask held)' : 'free (nothing held)';
    $('rbm-complete-toggle').textContent = clamped ? 'Release the clamps (free phase)' : 'Clamp again';
  }

  paintAt(event) {
    const lab = this.lab;
    const width = lab.width();
    const geometry = { count: 1, width, height: lab.visible() / width, columns: 1 };
    const hit = this.views.paint.hit(event, geometry);
    if (!hit) return;
    this.painted[hit.pixel] = this.paintValue;
    $('rbm-complete-mask').value = 'paint';
  }

  wire() {
    $('rbm-run').addEventListener('click', () => this.setRunning(!this.running));
    $('rbm-create').addEventListener('click', () => {
      this.setRunning(false);
      this.create();
    });
    $('rbm-apply').addEventListener('click', () => this.applyTraining());
    // A batch that fits the set: 100 of the 1500 digits, all 30 bars patterns.
    // A value that is none of the menu's (set from a script) leaves the menu blank: the
    // last choice comes back instead.
    let chosen = $('rbm-dataset').value;
    $('rbm-dataset').addEventListener('change', () => {
      const menu = $('rbm-dataset');
      if (menu.selectedIndex < 0) menu.value = chosen;
      chosen = menu.value;
      const batch = { digits8: '100', 'bars-4x4': '30' }[menu.value];
      if (batch) $('rbm-batch').value = batch;
    });
    $('rbm-file').addEventListener('change', async () => {
      const file = $('rbm-file').files[0];
      if (!file) return;
      this.file = new Uint8Array(await file.arrayBuffer());
      $('rbm-dataset').value = 'file';
      chosen = 'file';
    });
    $('rbm-gallery-run').addEventListener('click', () => this.startGallery());
    $('rbm-complete-run').addEventListener('click', () => this.startCompletion());
    $('rbm-complete-toggle').addEventListener('click', () => this.togglePhase());
    const paint = $('rbm-paint');
    paint.addEventListener('pointerdown', (event) => {
      const lab = this.lab;
      const width = lab.width();
      const hit = this.views.paint.hit(event, { count: 1, width, height: lab.visible() / width, columns: 1 });
      if (!hit) return;
      this.paintValue = this.painted[hit.pixel] ? 0 : 1;
      this.painting = true;
      paint.setPointerCapture(event.pointerId);
      this.paintAt(event);
    });
    paint.addEventListener('pointermove', (event) => {
      if (this.painting) this.paintAt(event);
    });
    paint.addEventListener('pointerup', () => (this.painting = false));
    $('rbm-paint-clear').addEventListener('click', () => {
      this.painted.fill(0);
      $('rbm-complete-mask').value = 'paint';
    });
  }

  // --- Drawing -------------------------------------------------------------------------------

  draw() {
    const lab = this.lab;
    if (!lab || $('rbm').hidden) return;
    const engine = this.engine;
    const nv = lab.visible();
    const width = lab.width();
    const height = nv / width;
    const now = performance.now();
    if (now - this.rate.since > 500) {
      this.rate.shown = (this.rate.updates * 1000) / (now - this.rate.since);
      this.rate = { updates: 0, since: now, shown: this.rate.shown };
    }
    const epoch = lab.updates() / lab.updates_per_epoch();
    $('rbm-updates').textContent = String(lab.updates());
    $('rbm-epochs').textContent = format(epoch, 1);
    $('rbm-speed').textContent = this.running ? `${Math.round(this.rate.shown)}` : '–';
    const progress = lab.likelihood_progress();
    $('rbm-progress').textContent = progress >= 0 ? `${Math.round(progress * 100)} %` : 'idle';
    $('rbm-progress-bar').value = progress >= 0 ? progress : 0;
    const points = lab.curve_len();
    const curve = {
      updates: view(engine, Float64Array, lab.curve_updates_ptr(), points),
      train: view(engine, Float64Array, lab.curve_train_ptr(), points),
      test: view(engine, Float64Array, lab.curve_test_ptr(), points),
      stderr: view(engine, Float64Array, lab.curve_stderr_ptr(), points),
    };
    const last = points - 1;
    const pm = (x, e) => (e > 0 ? `${format(x, 3)} ± ${format(e, 3)}` : format(x, 3));
    $('rbm-train-ll').textContent = points ? pm(curve.train[last], curve.stderr[last]) : '–';
    $('rbm-test-ll').textContent = points ? pm(curve.test[last], curve.stderr[last]) : '–';
    $('rbm-ll-method').textContent = lab.likelihood_exact() ? 'exact' : 'AIS';
    // The particles: every frame while learning (they move with every update).
    if (this.running || lab.version() !== this.drawnVersion) lab.refresh();
    const shown = lab.shown();
    const means = $('rbm-fantasy-show').value === 'means';
    const fantasy = means
      ? view(engine, Float64Array, lab.fantasy_mean_ptr(), shown * nv)
      : view(engine, Uint8Array, lab.fantasy_ptr(), shown * nv);
    this.views.fantasy.draw({ values: fantasy, count: shown, width, height, columns: 10 });
    $('rbm-fantasy-title').textContent = lab.has_particles()
      ? `Fantasy particles (${shown} shown)`
      : `CD-k: ${shown} chains run k steps from training images (CD keeps no fantasy particles)`;
    if (lab.version() !== this.drawnVersion) {
      this.drawnVersion = lab.version();
      const hidden = lab.hidden();
      this.views.filters.draw({
        values: view(engine, Float64Array, lab.weights_ptr(), nv * hidden),
        count: hidden,
        width,
        height,
        columns: Math.min(10, hidden),
        signed: true,
        transposed: true,
      });
      const sources = lab.reconstruction_sources();
      const count = sources.length / nv;
      const recon = view(engine, Float64Array, lab.reconstructions_ptr(), count * nv);
      const both = new Float64Array(2 * count * nv);
      // Row 1: training images, row 2: their reconstructions; rows 3 and 4: the test set.
      const half = count / 2;
      for (let part = 0; part < 2; part++)
        for (let k = 0; k < half; k++)
          for (let i = 0; i < nv; i++) {
            both[(part * 2 * half + k) * nv + i] = sources[(part * half + k) * nv + i];
            both[(part * 2 * half + half + k) * nv + i] = recon[(part * half + k) * nv + i];
          }
      this.views.reconstructions.draw({ values: both, count: 2 * count, width, height, columns: half });
      this.views.likelihood.draw(curve);
    }
    const galleryCount = lab.gallery_count();
    $('rbm-gallery-progress').textContent =
      galleryCount > 0 ? `${lab.gallery_done()} of ${readNumber($('rbm-gallery-steps').value) || '?'} steps` : '';
    if (galleryCount > 0)
      this.views.gallery.draw({
        values: view(engine, Float64Array, lab.gallery_mean_ptr(), galleryCount * nv),
        count: galleryCount,
        width,
        height,
        columns: 10,
      });
    this.drawCompletion(nv, width, height);
  }

  // original | clamped input (free pixels hatched) | completion (mean p(v | h)) | the chain.
  drawCompletion(nv, width, height) {
    const lab = this.lab;
    const engine = this.engine;
    this.views.paint.draw({ values: this.painted, count: 1, width, height, columns: 1 });
    if (lab.completion_image() < 0) return;
    const original = view(engine, Uint8Array, lab.completion_original_ptr(), nv);
    const mask = view(engine, Uint8Array, lab.completion_mask_ptr(), nv);
    const mean = view(engine, Float64Array, lab.completion_mean_ptr(), nv);
    const state = view(engine, Uint8Array, lab.completion_state_ptr(), nv);
    const all = new Float64Array(4 * nv);
    const marks = new Uint8Array(4 * nv);
    for (let i = 0; i < nv; i++) {
      all[i] = original[i];
      all[nv + i] = mask[i] ? original[i] : 0;
      marks[nv + i] = mask[i] ? 0 : 1;
      all[2 * nv + i] = mean[i];
      all[3 * nv + i] = state[i];
    }
    this.views.completion.draw({ values: all, count: 4, width, height, columns: 4, marks });
    $('rbm-complete-steps-done').textContent = String(lab.completion_steps());
  }
}
