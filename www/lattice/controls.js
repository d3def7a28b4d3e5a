// @ts-check
// The model's parameters: temperature, field, model, size, rule, order, boundary, seed.
// Every value goes to the engine as a command (IsingLab.dispatch), which checks it; a refused
// value is explained next to its control and the control is set back to what the engine holds,
// and a press of Run or a step on the way out of the box does not act (`guard`).

import { $ as byId, PressGuard, attempt, readNumber, showError } from '../ui.js';

/** @typedef {import('boltzlab-bindings').LatticeModel} LatticeModel */
/** @typedef {import('boltzlab-bindings').Dynamics} Dynamics */
/** @typedef {import('boltzlab-bindings').Order} Order */
/** @typedef {import('boltzlab-bindings').Boundary} Boundary */

// The page's form controls by id, typed as inputs and selects alike (value, min, max,
// options, checked) for the type checker.
const $ = (id) => /** @type {HTMLInputElement & HTMLSelectElement} */ (byId(id));

// Temperatures from the slider keep four significant digits (2.269, 0.1000, 5.000).
const fromSlider = (v) => Number((10 ** readNumber(v)).toPrecision(4));

export class Controls {
  // lab: the engine's IsingLab (its dispatch makes a command); engine: its module (for
  // random_seed); onRebuild: called after the run was started afresh (the engine replied
  // 'restarted': size, seed); onChange: after any accepted change.
  /**
   * @param {import('boltzlab-bindings').IsingLab} lab
   * @param {typeof import('boltzlab-bindings')} engine
   * @param {{onRebuild: () => void, onChange: () => void}} callbacks
   */
  constructor(lab, engine, { onRebuild, onChange }) {
    this.lab = lab;
    this.engine = engine;
    this.onRebuild = onRebuild;
    this.onChange = onChange;
    // Told of every refused value, so that a press of Run or a step that refused the box it
    // left does not act (see PressGuard).
    this.guard = new PressGuard();
    const tc = engine.critical_temperature();
    const slider = $('temperature');
    const tcAt = (Math.log10(tc) - Number(slider.min)) / (Number(slider.max) - Number(slider.min));
    $('tc-mark').style.setProperty('--at', String(tcAt));
    const tcOption = /** @type {HTMLOptionElement} */ ($('temperature-marks').firstElementChild);
    tcOption.value = String(Math.log10(tc));

    slider.addEventListener('input', () => this.setTemperature(fromSlider(slider.value)));
    $('temperature-value').addEventListener('change', () =>
      this.setTemperature(readNumber($('temperature-value').value)),
    );
    $('set-tc').addEventListener('click', () => this.setTemperature(Number(tc.toPrecision(4))));
    const setField = (id) => () => this.apply('field-error', { command: 'set-field', field: readNumber($(id).value) });
    $('field').addEventListener('input', setField('field'));
    $('field-value').addEventListener('change', setField('field-value'));
    // The menus: each control's id, and the command its value goes in. A menu's value is
    // one of the names its options list, typed as the engine's choice here and checked again
    // when the engine decodes the command.
    /** @type {Record<string, (value: string) => import('boltzlab-bindings').LatticeCommand>} */
    this.choices = {
      model: (model) => ({ command: 'set-model', model: /** @type {LatticeModel} */ (model) }),
      rule: (dynamics) => ({ command: 'set-dynamics', dynamics: /** @type {Dynamics} */ (dynamics) }),
      order: (order) => ({ command: 'set-order', order: /** @type {Order} */ (order) }),
      boundary: (boundary) => ({ command: 'set-boundary', boundary: /** @type {Boundary} */ (boundary) }),
    };
    for (const [id, command] of Object.entries(this.choices)) {
      $(id).addEventListener('change', () => this.apply(`${id}-error`, command($(id).value)));
    }
    $('size').addEventListener('change', () => this.setSize(readNumber($('size').value)));
    $('seed').addEventListener('change', () =>
      this.apply('seed-error', { command: 'set-seed', seed: readNumber($('seed').value) }),
    );
    $('new-seed').addEventListener('click', () =>
      this.apply('seed-error', { command: 'set-seed', seed: engine.random_seed() }),
    );
    this.sync();
  }

  setTemperature(temperature) {
    this.apply('temperature-error', { command: 'set-temperature', temperature });
  }

  setModel(model) {
    this.apply('model-error', this.choices.model(model));
  }

  // A new side starts the run afresh.
  setSize(size) {
    this.apply('size-error', { command: 'set-size', size });
  }

  // Makes a command; on success tells the page (and, when the engine started the run
  // afresh, that too), on error shows why; either way the controls then show what the
  // engine holds.
  /**
   * @param {string} errorId
   * @param {import('boltzlab-bindings').LatticeCommand} command
   */
  apply(errorId, command) {
    /** @type {import('boltzlab-bindings').LatticeReply | null} */
    let reply = null;
    const ok = attempt(errorId, () => {
      reply = this.lab.dispatch(command);
    });
    this.sync();
    if (ok) {
      if (reply?.reply === 'restarted') this.onRebuild();
      this.onChange();
    } else this.guard.refuse();
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
