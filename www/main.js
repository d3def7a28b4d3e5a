// boltzlab's page: wires the controls to the wasm engine and redraws the views every
// animation frame. The engine does all the physics; the page asks it to advance, reads its
// state through typed-array views over wasm memory, and draws.

import { engineReady, view } from './engine.js';
import { $, attempt, format, sentence } from './ui.js';
import { Controls } from './controls.js';
import { Inspector } from './inspector.js';
import { Painter } from './painting.js';
import { Experiment } from './experiment.js';
import { Sharing } from './share.js';
import { installShortcuts } from './keys.js';
import { LatticeView, MarkerOverlay } from './views/lattice.js';
import { TraceView } from './views/trace.js';
import { BondView } from './views/bonds.js';
import { HeatMapView } from './views/heatmap.js';
import { DivergingScale, drawLegend } from './views/colour.js';
import { startPersistence } from './persist.js';

// Wall time per frame the engine may use, so that the page keeps 60 frames per second:
// at most FRAME_BUDGET_MS, less when frames come later than SLOW_FRAME_MS apart.
const FRAME_BUDGET_MS = 10;
const MIN_BUDGET_MS = 2;
const SLOW_FRAME_MS = 17.5;
// Largest chunk of ticks per engine call: small enough to check the budget often.
const CHUNK = 1 << 16;
// At this many ticks per frame or fewer the tick inspector follows the run.
const INSPECT_MAX = 100;

const alertBox = $('alert');
function showAlert(message) {
  alertBox.textContent = message;
  alertBox.hidden = false;
}
// Panics and uncaught errors are shown by fault.js.

// Speed steps: ticks per frame. Infinity runs whole chunks until the frame budget is spent.
function speedSteps(n) {
  return [
    { ticks: 1, label: '1 tick / frame' },
    { ticks: 10, label: '10 ticks / frame' },
    { ticks: 100, label: '100 ticks / frame' },
    { ticks: 1000, label: '1000 ticks / frame' },
    { ticks: 10000, label: '10⁴ ticks / frame' },
    { ticks: n, label: '1 sweep / frame' },
    { ticks: 4 * n, label: '4 sweeps / frame' },
    { ticks: 16 * n, label: '16 sweeps / frame' },
    { ticks: Infinity, label: 'max (frame budget)' },
  ];
}

async function start() {
  const engine = await engineReady();
  const hash = window.location.hash;
  let lab;
  let linkError = null;
  try {
    lab = hash.length > 1 ? engine.IsingLab.from_fragment(hash) : new engine.IsingLab(256, 2.269, 1);
  } catch (err) {
    linkError = err.message;
    lab = new engine.IsingLab(256, 2.269, 1);
  }

  const spinsView = new LatticeView($('spins'));
  const overlay = new MarkerOverlay($('spins-overlay'));
  const trace = new TraceView($('trace'));
  const scale = new DivergingScale();
  const bonds = new BondView($('bonds'), scale);
  const matrix = new HeatMapView($('matrix'), null, scale);
  const inspector = new Inspector();
  let steps = speedSteps(lab.spin_count());
  let running = true;
  let rateTicks = 0;
  let rateSince = performance.now();
  let weightsVersion = -1;
  let resumeAfterScan = false;

  const speed = () => steps[Math.min(steps.length - 1, Math.max(0, Math.round(Number($('speed').value)) || 0))];
  const showSpeed = () => {
    $('speed-shown').textContent = speed().label;
  };
  $('speed').addEventListener('input', showSpeed);

  const setRunning = (on) => {
    running = on;
    $('run').textContent = on ? 'Pause' : 'Run';
    $('run').setAttribute('aria-pressed', String(on));
  };
  const slow = () => !running || speed().ticks <= INSPECT_MAX;

  // After the run was started afresh (size, seed, link, import): new sizes, new views.
  const restarted = () => {
    steps = speedSteps(lab.spin_count());
    showSpeed();
    controls.sync();
    sharing.update();
  };
  const controls = new Controls(lab, engine, { onRebuild: restarted, onChange: () => sharing.update() });
  const sharing = new Sharing(lab, restarted);
  const painter = new Painter(lab, $('spins-box'), () => {});
  const experiment = new Experiment(engine, lab, (on) => {
    if (on) {
      resumeAfterScan = running;
      setRunning(false);
    } else if (resumeAfterScan) {
      resumeAfterScan = false;
      setRunning(true);
    }
  });

  const advance = (ticks, explain) => {
    if (explain) lab.advance_explained(ticks);
    else lab.advance(ticks);
    rateTicks += ticks;
  };
  const stepTick = () => {
    setRunning(false);
    advance(1, true);
  };
  const stepSweep = () => {
    setRunning(false);
    advance(lab.spin_count(), true);
  };
  const reset = (how) => lab.reset(how);
  const setPhase = (clamped) => {
    attempt('brush-error', () => lab.set_clamps_on(clamped));
    controls.sync();
  };
  const nudgeSpeed = (by) => {
    const slider = $('speed');
    slider.value = String(Math.max(0, Math.min(Number(slider.max), Number(slider.value) + by)));
    showSpeed();
  };

  $('run').addEventListener('click', () => setRunning(!running));
  $('step-tick').addEventListener('click', stepTick);
  $('step-sweep').addEventListener('click', stepSweep);
  $('reset-random').addEventListener('click', () => reset('random'));
  $('reset-up').addEventListener('click', () => reset('up'));
  $('reset-down').addEventListener('click', () => reset('down'));
  $('phase-clamped').addEventListener('change', () => setPhase(true));
  $('phase-free').addEventListener('change', () => setPhase(false));
  $('release').addEventListener('click', () => lab.release_all());
  installShortcuts({
    playPause: () => setRunning(!running),
    stepTick,
    stepSweep,
    reset,
    togglePhase: () => setPhase(!lab.clamps_on()),
    faster: () => nudgeSpeed(1),
    slower: () => nudgeSpeed(-1),
  });

  const drawWeights = () => {
    const version = lab.lattice_version();
    const window = lab.bond_window_side();
    const n = lab.spin_count();
    const bondValues = view(engine, Float64Array, lab.bond_window_ptr(), 2 * window * window);
    let limit = 0;
    for (const b of bondValues) if (Number.isFinite(b)) limit = Math.max(limit, Math.abs(b));
    limit = limit || 1;
    bonds.draw({
      bonds: bondValues,
      frustration: view(engine, Uint8Array, lab.frustration_ptr(), window * window),
      spins: view(engine, Int8Array, lab.spins_ptr(), n),
      side: lab.side(),
      window,
      limit,
      version,
    });
    if (version === weightsVersion) return;
    weightsVersion = version;
    const side = lab.side();
    const frustrated = lab.frustrated_count();
    $('bonds-caption').textContent =
      `${window < side ? `Top-left ${window} × ${window} of the ${side} × ${side} lattice. ` : ''}` +
      'Grey dots are spins; the coloured links between them are the couplings J·c (blue: ferromagnetic, red: antiferromagnetic). ' +
      `Yellow squares are frustrated plaquettes, where no state satisfies all four bonds: ${frustrated} on this lattice.`;
    const units = lab.matrix_units();
    $('matrix-box').hidden = units === 0;
    if (units > 0) {
      matrix.draw(view(engine, Float64Array, lab.matrix_ptr(), units * units), units, units, { limit });
      $('matrix-caption').textContent =
        `The same lattice as a network: its ${units} × ${units} weight matrix w_ij (row i, column j; site i = x + L·y).`;
    }
    drawLegend($('weights-legend'), scale, limit, 'coupling J·c');
  };

  const draw = () => {
    const n = lab.spin_count();
    const side = lab.side();
    spinsView.draw(view(engine, Int8Array, lab.spins_ptr(), n), side, view(engine, Uint8Array, lab.clamp_ptr(), n));
    const inspecting = slow();
    const step = inspecting ? lab.last_step() : null;
    overlay.draw(side, { next: inspecting ? lab.next_site() : -1, step, brush: painter.cursor() });
    inspector.update(step, inspecting);
    const points = lab.trace_len();
    trace.draw(
      view(engine, Float64Array, lab.trace_sweeps_ptr(), points),
      view(engine, Float64Array, lab.trace_energy_ptr(), points),
      view(engine, Float64Array, lab.trace_magnetization_ptr(), points),
    );
    drawWeights();
    experiment.draw();
    $('sweeps').textContent = format(lab.sweeps(), 1);
    $('temperature-shown').textContent = String(lab.temperature());
    $('energy').textContent = format(lab.energy_per_spin());
    $('magnetization').textContent = format(lab.magnetization_per_spin());
    $('phase-shown').textContent = lab.clamps_on() ? `clamped (${lab.clamped_count()})` : 'free';
  };

  let chunkTicks = CHUNK;
  // The engine's share of a frame adapts to what the rest of the frame costs here (drawing,
  // compositing, a slow machine): when frames come slower than 60 per second it shrinks,
  // when they come on time it grows back to FRAME_BUDGET_MS.
  let budget = FRAME_BUDGET_MS;
  let lastFrame = null;
  const adaptBudget = (now) => {
    if (lastFrame !== null) {
      const interval = now - lastFrame;
      if (interval > SLOW_FRAME_MS) budget = Math.max(MIN_BUDGET_MS, budget * 0.85);
      else budget = Math.min(FRAME_BUDGET_MS, budget + 0.1);
    }
    lastFrame = now;
  };
  window.boltzlabFrameBudget = () => budget; // for tests and the console
  const frame = (now) => {
    if (window.boltzlabStopped) return; // after a panic the engine is not called again
    try {
      adaptBudget(now);
      experiment.step(budget);
      if (running) {
        const want = speed().ticks;
        if (want <= INSPECT_MAX) {
          advance(want, true);
        } else {
          const begin = performance.now();
          let done = 0;
          while (done < want) {
            const chunk = Math.min(chunkTicks, want - done);
            const t0 = performance.now();
            advance(chunk, false);
            done += chunk;
            // Calls of at most ~1/8 of the budget, so the budget is overrun by little
            // (slow kernels: random order, real bonds); back up to CHUNK when fast.
            const took = performance.now() - t0;
            if (took > budget / 8 && chunkTicks > 1024) chunkTicks >>= 1;
            else if (took < budget / 32 && chunkTicks < CHUNK) chunkTicks <<= 1;
            if (performance.now() - begin > budget) break;
          }
        }
      }
      if (now - rateSince >= 500) {
        const rate = rateTicks / ((now - rateSince) / 1000);
        $('rate').textContent = rate < 1e4 ? String(Math.round(rate)) : rate.toExponential(2);
        rateTicks = 0;
        rateSince = now;
      }
      draw();
      requestAnimationFrame(frame);
    } catch (err) {
      setRunning(false);
      showAlert(`The simulation stopped: ${err.message}`);
    }
  };

  window.addEventListener('resize', () => {
    weightsVersion = -1;
    experiment.draw(true);
  });
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    weightsVersion = -1;
    experiment.draw(true);
  });

  if (linkError) {
    $('link-error').textContent =
      `This link could not be used, so the page started with its defaults. ${sentence(linkError)}`;
    $('link-error').hidden = false;
  }
  showSpeed();
  restarted();
  draw();
  startPersistence({
    engine,
    lattice: {
      export: () => lab.export_state(),
      // A restored run starts paused, exactly where it was saved.
      restore: (json) => {
        lab.import_state(json);
        setRunning(false);
        restarted();
      },
    },
  });
  window.boltzlabLab = lab; // for tests and the console
  window.boltzlabEngine = engine;
  document.body.dataset.ready = 'true';
  requestAnimationFrame(frame);
}

start().catch((err) => showAlert(`boltzlab could not start: ${err.message}`));
