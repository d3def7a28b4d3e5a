// The model's parameters: temperature, field, model, size, rule, order, boundary, seed.
// Every value goes to the engine, which checks it; a refused value is explained next to
// its control and the control is set back to what the engine holds.

import { $, attempt, readNumber } from '../ui.js';

// Temperatures from the slider keep four significant digits (2.269, 0.1000, 5.000).
const fromSlider = (v) => Number((10 ** readNumber(v)).toPrecision(4));

export class Controls {
  // lab: the engine's IsingLab; engine: its module (for random_seed); onRebuild: called
  // after the run was started afresh (size, seed); onChange: after any accepted change.
  constructor(lab, engine, { onRebuild, onChange }) {
    this.lab = lab;
    this.engine = engine;
    this.onRebuild = onRebuild;
    this.onChange = onChange;
    const tc = engine.critical_temperature();
    const slider = $('temperature');
    const tcAt = (Math.log10(tc) - Number(slider.min)) / (Number(slider.max) - Number(slider.min));
    $('tc-mark').style.setProperty('--at', String(tcAt));
    $('temperature-marks').firstElementChild.value = String(Math.log10(tc));

    slider.addEventListener('input', () => this.setTemperature(fromSlider(slider.value)));
    $('temperature-value').addEventListener('change', (e) => this.setTemperature(readNumber(e.target.value)));
    $('set-tc').addEventListener('click', () => this.setTemperature(Number(tc.toPrecision(4))));
    $('field').addEventListener('input', (e) =>
      this.apply('field-error', () => lab.set_field(readNumber(e.target.value))),
    );
    $('field-value').addEventListener('change', (e) =>
      this.apply('field-error', () => lab.set_field(readNumber(e.target.value))),
    );
    this.setters = {
      model: (v) => lab.set_model(v),
      rule: (v) => lab.set_dynamics(v),
      order: (v) => lab.set_order(v),
      boundary: (v) => lab.set_boundary(v),
    };
    for (const [id, set] of Object.entries(this.setters)) {
      $(id).addEventListener('change', (e) => this.apply(`${id}-error`, () => set(e.target.value)));
    }
    $('size').addEventListener('change', (e) => this.setSize(readNumber(e.target.value)));
    $('seed').addEventListener('change', (e) =>
      this.apply('seed-error', () => lab.set_seed(readNumber(e.target.value)), true),
    );
    $('new-seed').addEventListener('click', () =>
      this.apply('seed-error', () => lab.set_seed(engine.random_seed()), true),
    );
    this.sync();
  }

  setTemperature(t) {
    this.apply('temperature-error', () => this.lab.set_temperature(t));
  }

  setModel(model) {
    this.apply('model-error', () => this.setters.model(model));
  }

  // A new side starts the run afresh.
  setSize(side) {
    this.apply('size-error', () => this.lab.set_size(side), true);
  }

  // Runs an engine change; on success tells the page, on error shows why; either way the
  // controls then show what the engine holds.
  apply(errorId, change, rebuilds = false) {
    const ok = attempt(errorId, change);
    this.sync();
    if (ok) {
      if (rebuilds) this.onRebuild();
      this.onChange();
    }
    return ok;
  }

  // Sets every control from the engine.
  sync() {
    const lab = this.lab;
    const t = lab.temperature();
    const slider = $('temperature');
    const log = t > 0 ? Math.log10(t) : Number(slider.min);
    slider.value = String(Math.max(Number(slider.min), Math.min(Number(slider.max), log)));
    slider.setAttribute('aria-valuetext', `T = ${t}`);
    const box = $('temperature-value');
    if (document.activeElement !== box || parseFloat(box.value) !== t) box.value = String(t);
    const h = lab.field();
    $('field').value = String(h);
    $('field').setAttribute('aria-valuetext', `h = ${h}`);
    $('field-value').value = String(h);
    $('model').value = lab.model();
    const size = $('size');
    const side = String(lab.side());
    if (![...size.options].some((o) => o.value === side)) {
      const option = new Option(`${side} × ${side}`, side);
      const after = [...size.options].find((o) => Number(o.value) > lab.side());
      size.add(option, after ?? null);
    }
    size.value = side;
    $('rule').value = lab.dynamics();
    $('order').value = lab.order();
    $('boundary').value = lab.boundary();
    $('seed').value = String(lab.seed());
    $(lab.clamps_on() ? 'phase-clamped' : 'phase-free').checked = true;
  }
}
