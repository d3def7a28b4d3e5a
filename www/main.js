// boltzlab's page: wires the controls to the wasm engine and redraws the views every
// animation frame. The engine does all the physics; this file only asks it to advance,
// reads its state through views over wasm memory, and draws.

import { engineReady, view } from './engine.js';
import { LatticeView } from './views/lattice.js';
import { TraceView } from './views/trace.js';

const SIDE = 256;
const SEED = 1;
const INITIAL_TEMPERATURE = 2.269;
const T_MIN = 0.1;
const T_MAX = 10;
// Wall time per frame the engine may use at the highest speed, so the page keeps 60 fps.
const FRAME_BUDGET_MS = 10;
// Largest chunk of ticks per engine call: small enough to check the budget often.
const CHUNK = 1 << 16;

const $ = (id) => document.getElementById(id);

const alertBox = $('alert');
function showAlert(message) {
  alertBox.textContent = message;
  alertBox.hidden = false;
}
window.boltzlabReportPanic = (message) => showAlert(`The engine stopped with an internal error: ${message}`);
window.addEventListener('error', (event) => showAlert(`Error: ${event.message}`));
window.addEventListener('unhandledrejection', (event) => showAlert(`Error: ${event.reason?.message ?? event.reason}`));

// Speed steps: ticks per frame. "max" runs whole chunks until the frame budget is spent.
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

const format = (x, digits = 4) => (Object.is(x, -0) ? 0 : x).toFixed(digits);

async function start() {
  const engine = await engineReady();
  const lab = new engine.IsingLab(SIDE, INITIAL_TEMPERATURE, SEED);
  const lattice = new LatticeView($('spins'));
  const trace = new TraceView($('trace'));
  const steps = speedSteps(lab.spin_count());
  let running = true;
  let rateTicks = 0;
  let rateSince = performance.now();

  const setTemperature = (t) => {
    if (!Number.isFinite(t) || t < T_MIN || t > T_MAX) {
      showAlert(`Temperature must be a number between ${T_MIN} and ${T_MAX}.`);
      return;
    }
    try {
      lab.set_temperature(t);
      alertBox.hidden = true;
    } catch (err) {
      showAlert(err.message);
      return;
    }
    $('temperature').value = Math.log10(t).toFixed(3);
    $('temperature').setAttribute('aria-valuetext', `T = ${t.toFixed(3)}`);
    $('temperature-value').value = t.toFixed(3);
  };
  $('temperature').addEventListener('input', (e) => setTemperature(10 ** Number(e.target.value)));
  $('temperature-value').addEventListener('change', (e) => setTemperature(Number(e.target.value)));

  const showSpeed = () => {
    $('speed-shown').textContent = steps[Number($('speed').value)].label;
  };
  $('speed').addEventListener('input', showSpeed);

  const setRunning = (on) => {
    running = on;
    $('run').textContent = on ? 'Pause' : 'Run';
    $('run').setAttribute('aria-pressed', String(on));
  };
  $('run').addEventListener('click', () => setRunning(!running));
  const advance = (ticks) => {
    lab.advance(ticks);
    rateTicks += ticks;
  };
  $('step-tick').addEventListener('click', () => {
    setRunning(false);
    advance(1);
  });
  $('step-sweep').addEventListener('click', () => {
    setRunning(false);
    advance(lab.spin_count());
  });

  const draw = () => {
    const n = lab.trace_len();
    const slow = !running || steps[Number($('speed').value)].ticks < 1000;
    lattice.draw(view(engine, Int8Array, lab.spins_ptr(), lab.spin_count()), lab.side(), slow ? lab.next_site() : -1);
    trace.draw(
      view(engine, Float64Array, lab.trace_sweeps_ptr(), n),
      view(engine, Float64Array, lab.trace_energy_ptr(), n),
      view(engine, Float64Array, lab.trace_magnetization_ptr(), n),
    );
    $('sweeps').textContent = format(lab.sweeps(), 1);
    $('temperature-shown').textContent = format(lab.temperature(), 3);
    $('energy').textContent = format(lab.energy_per_spin());
    $('magnetization').textContent = format(lab.magnetization_per_spin());
  };

  const frame = (now) => {
    try {
      if (running) {
        const want = steps[Number($('speed').value)].ticks;
        const begin = performance.now();
        let done = 0;
        while (done < want) {
          const chunk = Math.min(CHUNK, want - done);
          advance(chunk);
          done += chunk;
          if (performance.now() - begin > FRAME_BUDGET_MS) break;
        }
      }
      if (now - rateSince >= 500) {
        $('rate').textContent = (rateTicks / ((now - rateSince) / 1000)).toExponential(2);
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

  setTemperature(INITIAL_TEMPERATURE);
  showSpeed();
  draw();
  window.boltzlabLab = lab; // for tests and the console
  document.body.dataset.ready = 'true';
  requestAnimationFrame(frame);
}

start().catch((err) => showAlert(`boltzlab could not start: ${err.message}`));
