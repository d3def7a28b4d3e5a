// @ts-check
// Lecture mode: the lesson full screen in large type, with only the step's text, its live
// views and the controls it exposes; clicker keys (PageDown, → or Space: next; PageUp or
// ←: previous, each paging a text longer than its column first; Home / End: first / last;
// B: blank the screen and pause), each left to a focused control that acts on it
// (controlKeeps); the projector colour profile (?colors=projector or the Colours menu); and
// speaker notes in a second window that follows the step shown here.
//
// The lecture layout: the step's text (with the controls the step names, scene.controls) in
// a column on the left, and the views the step talks about (step.views, names in VIEWS below)
// in tiles filling the rest of the screen, every tile wholly on screen. Each view and control
// is moved into its place while lecture mode shows the step, and back where it came from
// afterwards (a comment marks the spot), so every listener and every drawing stays its own.

import { $ } from '../ui.js';
import { setProfile } from '../views/colour.js';
import { PARTS, pauseAll } from './scene.js';

const NOTES_CHANNEL = 'boltzlab-notes';
// The inline style properties lecture mode sets on a view (through the CSSOM: the page's
// content security policy refuses style attributes), restored when the view goes back.
const SIZED = ['width', 'height', 'maxWidth', 'maxHeight', 'minWidth', 'transform', 'transformOrigin'];

// The views a lesson step can name in `views` (course.js), each shown in its own tile in
// lecture mode: the element's id, the tile's title, and how it fills the tile. fit:
// 'square': the largest square (a lattice, a matrix: pictures whose pixels must stay square);
// 'fill': the whole tile (plots, drawn again to their box); 'picture': the largest box of
// the canvas's own shape (a grid of images, whose shape the mode sets); 'natural': the
// tile's width at the height the view gives itself (views that size themselves, panels with a
// table), a panel taller than its tile scaled down to fit.
// legend: the id of the view's legend or caption (which line is which), shown under it in
// the tile. A new view is one line here.
export const VIEWS = {
  // the lattice
  spins: { id: 'spins-box', title: 'Spins', fit: 'square' },
  trace: {
    id: 'trace',
    title: 'Energy and magnetisation per spin against sweeps',
    fit: 'fill',
    legend: 'trace-legend',
  },
  bonds: { id: 'bonds', title: 'Couplings, frustrated squares marked', fit: 'square', legend: 'bonds-caption' },
  'coupling-matrix': { id: 'matrix', title: 'The lattice as a network: w_ij', fit: 'square' },
  inspector: { id: 'inspector-box', title: 'Tick inspector', fit: 'natural' },
  'sweep-magnetisation': { id: 'scan-m', title: 'Sweep: |m| against T', fit: 'fill', legend: 'scan-legend' },
  'sweep-energy': { id: 'scan-u', title: 'Sweep: u against T', fit: 'fill', legend: 'scan-legend' },
  'sweep-heat': { id: 'scan-c', title: 'Sweep: specific heat c against T', fit: 'fill', legend: 'scan-legend' },
  'sweep-susceptibility': {
    id: 'scan-chi',
    title: 'Sweep: susceptibility χ against T',
    fit: 'fill',
    legend: 'scan-legend',
  },
  'lattice-logz': { id: 'lattice-z', title: 'ln Z of the lattice', fit: 'natural' },
  // the general machine
  'machine-status': { id: 'bm-status', title: 'Status', fit: 'natural' },
  units: { id: 'bm-units', title: 'Units (clamped ringed)', fit: 'natural' },
  patterns: { id: 'bm-patterns', title: 'Training patterns', fit: 'natural' },
  graph: { id: 'bm-graph', title: 'Connections', fit: 'fill' },
  curve: { id: 'bm-curve', title: 'Learning curve', fit: 'fill', legend: 'bm-curve-legend' },
  'machine-weights': { id: 'bm-weights', title: 'Weights w_ij', fit: 'square' },
  'correlations-clamped': { id: 'bm-clamped', title: '⟨s_i s_j⟩ clamped', fit: 'square' },
  'correlations-free': { id: 'bm-free', title: '⟨s_i s_j⟩ free', fit: 'square' },
  'correlations-difference': { id: 'bm-difference', title: 'clamped − free', fit: 'square' },
  gallery: { id: 'bm-gallery-box', title: 'Samples from the machine', fit: 'natural' },
  'machine-logz': { id: 'bm-logz-box', title: 'ln Z, four ways', fit: 'natural' },
  'two-units': { id: 'lesson-widget', title: 'Two units, exact', fit: 'natural' },
  // the restricted machine
  fantasy: { id: 'rbm-fantasy', title: 'Fantasy particles', fit: 'picture' },
  likelihood: {
    id: 'rbm-likelihood',
    title: 'Log-likelihood per image',
    fit: 'fill',
    legend: 'rbm-likelihood-legend',
  },
  completion: { id: 'rbm-completion', title: 'Completion', fit: 'picture' },
  // the restricted machine on MNIST
  'mnist-reconstructions': {
    id: 'mnist-reconstructions',
    title: 'Ten test images, each above its reconstruction',
    fit: 'picture',
  },
  'mnist-filters': { id: 'mnist-filters', title: 'Filters: each hidden unit’s weights at 28×28', fit: 'square' },
  'mnist-chains': { id: 'mnist-chains', title: 'Free chains', fit: 'square' },
  'mnist-likelihood': {
    id: 'mnist-likelihood',
    title: 'Test and training ln p(v) per image',
    fit: 'fill',
    legend: 'mnist-likelihood-legend',
  },
  'mnist-gallery': { id: 'mnist-gallery', title: 'Generated digits', fit: 'picture' },
  'mnist-gallery-read': {
    id: 'mnist-gallery-box',
    title: 'Generated digits, and what the machine reads in them',
    fit: 'natural',
  },
  'mnist-pad': { id: 'mnist-pad', title: 'The drawing pad', fit: 'square' },
  'mnist-bars': { id: 'mnist-bars', title: 'p(label | pad), exactly', fit: 'natural' },
  'mnist-completion': { id: 'mnist-completion', title: 'The pad completed', fit: 'square' },
  // the pattern memory
  'memory-state': { id: 'memory-state', title: 'The state', fit: 'square' },
  'memory-stored': { id: 'memory-stored', title: 'Stored patterns', fit: 'picture' },
  'memory-overlaps': { id: 'memory-overlaps', title: 'Overlap m^μ with each stored pattern', fit: 'fill' },
  'memory-energy': { id: 'memory-energy', title: 'Energy against ticks', fit: 'fill' },
  'memory-capacity': { id: 'memory-capacity', title: 'Recall against α = P/N', fit: 'fill' },
};

// Columns and rows for `count` tiles in a width × height area with `gap` between them: the
// grid whose tiles' shorter side is longest (so a square view is as large as it can be).
export function tileGrid(count, width, height, gap) {
  let best = { cols: 1, rows: Math.max(1, count), side: -Infinity };
  for (let cols = 1; cols <= Math.max(1, count); cols++) {
    const rows = Math.ceil(count / cols);
    const side = Math.min((width - gap * (cols - 1)) / cols, (height - gap * (rows - 1)) / rows);
    if (side > best.side) best = { cols, rows, side };
  }
  return best;
}

/**
 * Sizes a picture (a canvas of its own shape, `height: auto`) to the largest box of its
 * bitmap's shape, border included, in w × h.
 * @param {HTMLCanvasElement} canvas
 * @param {number} w
 * @param {number} h
 */
function fitPicture(canvas, w, h) {
  canvas.style.height = 'auto';
  const frameWidth = canvas.offsetWidth - canvas.clientWidth;
  const frameHeight = canvas.offsetHeight - canvas.clientHeight;
  const ratio = canvas.width / Math.max(1, canvas.height);
  canvas.style.width = `${Math.floor(Math.min(w - frameWidth, (h - frameHeight) * ratio))}px`;
}

/**
 * Scales a panel (a table, a text, a gallery) taller or wider than its w × h tile down until
 * it fits, as little as it can: laid out wider (at w / k, so that scaled by k it still fills
 * the tile's width), where it is shorter and its widest line (a table of figures kept to one
 * line each) has room. Canvases that draw to their width (the units, the patterns) are left
 * as they are (a scaled canvas would measure itself smaller and shrink).
 * @param {HTMLElement} element
 * @param {number} w
 * @param {number} h
 */
function shrinkToFit(element, w, h) {
  element.style.transform = '';
  if (element instanceof HTMLCanvasElement) return;
  const room = h - parseFloat(getComputedStyle(element).marginTop); // under its top margin
  const fits = (k) => {
    element.style.width = `${w / k}px`;
    return element.offsetHeight * k <= room && element.scrollWidth <= element.clientWidth + 1;
  };
  if (fits(1)) return;
  // Laid out at w, its height and its content's width bound the scale from below (wider, it
  // is no taller and its content no wider); the largest k that fits lies between that and 1.
  let [lo, hi] = [Math.min(room / element.offsetHeight, element.clientWidth / element.scrollWidth), 1];
  if (fits(lo)) {
    for (let i = 0; i < 8; i++) {
      const k = (lo + hi) / 2;
      if (fits(k)) lo = k;
      else hi = k;
    }
    fits(lo);
  } else element.style.width = `${w}px`;
  element.style.transformOrigin = 'top center';
  element.style.transform = `scale(${lo})`;
}

// A copy of `element` without its ids (so that they stay unique on the page).
const copyOf = (element) => {
  const copy = /** @type {Element} */ (element.cloneNode(true));
  for (const named of [copy, ...copy.querySelectorAll('[id]')]) named.removeAttribute('id');
  return copy;
};

// The lecture keys a focused control keeps for itself (the keys it acts on): a button, link or
// checkbox Space; a radio Space and the arrows; a slider the arrows, PageUp / PageDown and
// Home / End; a text box or menu every key. The lecture keys act only when the control has no
// use for them (PageDown on a button the teacher just clicked still turns the page).
const BUTTON_KEYS = [' '];
const RADIO_KEYS = [' ', 'ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'];
const SLIDER_KEYS = ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End'];

/**
 * Whether the focused `element` keeps `key` (a KeyboardEvent key) for itself.
 * @param {Element | null} element
 * @param {string} key
 */
export function controlKeeps(element, key) {
  if (!(element instanceof HTMLElement) || element === document.body) return false;
  if (element.isContentEditable || element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement)
    return true;
  if (element instanceof HTMLInputElement) {
    if (element.type === 'range') return SLIDER_KEYS.includes(key);
    if (element.type === 'radio') return RADIO_KEYS.includes(key);
    if (['checkbox', 'button', 'submit', 'reset', 'file', 'color'].includes(element.type))
      return BUTTON_KEYS.includes(key);
    return true; // text, number
  }
  if (element.matches('button, a[href], summary, [role="button"]')) return BUTTON_KEYS.includes(key);
  return false;
}

export class LectureMode {
  // panel: the LessonPanel whose steps the keys move through.
  constructor(panel) {
    this.panel = panel;
    this.on = false;
    this.channel = 'BroadcastChannel' in window ? new BroadcastChannel(NOTES_CHANNEL) : null;
    document.addEventListener('keydown', (event) => this.key(event), true);
    $('lesson-blank').addEventListener('click', () => this.blank(false));
    $('lecture-exit').addEventListener('click', () => this.toggle(false));
    document.addEventListener('fullscreenchange', () => {
      // Leaving full screen with Esc leaves lecture mode too.
      if (!document.fullscreenElement && this.fullscreen) {
        this.fullscreen = false;
        this.toggle(false);
      }
    });
    this.installColours();
    this.moved = []; // {element, mark, style}: what lecture mode moved, in the order moved
    this.views = []; // the elements of the views shown, with their names and fits
    this.resizing = false;
    // A tile's body changes size when its legend does (the learning curve's key changes with
    // the estimate it shows), a panel when its content does (the ln Z table filled in, taller
    // or wider), a picture when its shape does: the views are fitted again, at the next frame.
    this.refit = false;
    this.observer = new ResizeObserver(() => {
      if (this.refit) return;
      this.refit = true;
      panel.app.nextFrame().then(() => {
        this.refit = false;
        if (this.on) this.fit();
      });
    });
    window.addEventListener('resize', () => {
      if (!this.resizing && this.on) this.fit();
    });
    // The text column's "more" mark follows its scrolling and its content (a prediction's
    // result, a challenge's progress).
    const column = $('lesson');
    column.addEventListener('scroll', () => this.markMore(), { passive: true });
    const text = new ResizeObserver(() => this.markMore());
    text.observe(column);
    for (const part of column.children) text.observe(part);
  }

  // Turns lecture mode on or off (full screen if the browser allows it here).
  toggle(on, { fullscreen = true } = {}) {
    if (on === this.on) return;
    this.on = on;
    document.body.classList.toggle('lecture', on);
    this.markMore();
    if (!on) this.blank(false);
    if (on && fullscreen && document.fullscreenEnabled && !document.fullscreenElement) {
      this.fullscreen = true;
      document.documentElement.requestFullscreen().catch(() => (this.fullscreen = false));
    } else if (!on && document.fullscreenElement) {
      this.fullscreen = false;
      document.exitFullscreen().catch(() => {});
    }
    if (this.panel.lesson >= 0) this.panel.remember(true);
    this.arrange(this.panel.lesson >= 0 ? this.panel.currentLesson().steps[this.panel.step] : null);
  }

  // Shows `step` (or nothing): in lecture mode its views in tiles and its controls under its
  // text; otherwise everything back in its place, with the step's views outlined.
  arrange(step) {
    this.restore();
    for (const view of Object.values(VIEWS)) document.getElementById(view.id)?.classList.remove('lesson-part');
    if (!step) return;
    const names = step.views ?? [];
    if (!this.on) {
      for (const name of names) document.getElementById(VIEWS[name]?.id)?.classList.add('lesson-part');
      // Back in their places, the views draw again at their page sizes (a paused one would
      // keep its tile's size and type until its next frame).
      this.redraw();
      return;
    }
    // Each step's text opens at its top.
    $('lesson').scrollTop = 0;
    const tiles = $('lecture-views');
    for (const name of names) {
      const view = VIEWS[name];
      const element = view && document.getElementById(view.id);
      if (!element) continue;
      const tile = document.createElement('figure');
      tile.className = 'lecture-view';
      tile.dataset.view = name;
      tile.dataset.fit = view.fit;
      const caption = document.createElement('figcaption');
      caption.textContent = view.title;
      const body = document.createElement('div');
      body.className = 'lecture-view-body';
      tile.append(caption, body);
      tiles.append(tile);
      this.move(element, body);
      element.hidden = false;
      // The legend under the view; one that two tiles share (the sweep's) is moved into the
      // first and copied into the others.
      const legend = view.legend && document.getElementById(view.legend);
      if (legend && tiles.contains(legend)) tile.append(copyOf(legend));
      else if (legend) this.move(legend, tile);
      this.views.push({ element, body, fit: view.fit });
      this.observer.observe(body);
      if (view.fit === 'natural' || view.fit === 'picture') this.observer.observe(element);
      // A table filled in grows wider inside its panel, which keeps its size.
      if (view.fit === 'natural') for (const table of element.querySelectorAll('table')) this.observer.observe(table);
    }
    for (const name of step.scene.controls ?? []) {
      const element = PARTS[name]?.();
      if (element) this.move(element, $('lecture-controls'));
    }
    $('lecture-controls').hidden = $('lecture-controls').childElementCount === 0;
    this.fit();
    this.markMore();
  }

  // Moves `element` to the end of `into`, marking where it was.
  move(element, into) {
    const mark = document.createComment('lecture mode moved an element from here');
    element.before(mark);
    const style = Object.fromEntries(SIZED.map((property) => [property, element.style[property]]));
    this.moved.push({ element, mark, style, hidden: element.hidden });
    into.append(element);
  }

  // Puts every moved element back where it was, as it was.
  restore() {
    this.observer.disconnect();
    for (const { element, mark, style, hidden } of this.moved.reverse()) {
      mark.replaceWith(element);
      for (const property of SIZED) element.style[property] = style[property];
      element.hidden = hidden;
    }
    this.moved = [];
    this.views = [];
    $('lecture-views').replaceChildren();
    $('lecture-controls').replaceChildren();
    $('lecture-controls').hidden = true;
  }

  // Lays the tiles out to fill the views' area, sizes each view to its tile, and lets every
  // view draw itself again at its new size (the modes redraw on a window resize).
  fit() {
    const tiles = $('lecture-views');
    const count = this.views.length;
    tiles.hidden = count === 0;
    if (count === 0) return;
    const style = getComputedStyle(tiles);
    const gap = parseFloat(style.rowGap) || 0;
    const width = tiles.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    const height = tiles.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    const { cols, rows } = tileGrid(count, width, height, gap);
    tiles.style.gridTemplateColumns = `repeat(${cols}, minmax(0, 1fr))`;
    tiles.style.gridTemplateRows = `repeat(${rows}, minmax(0, 1fr))`;
    for (const { element, body, fit } of this.views) {
      const w = Math.floor(body.clientWidth);
      const h = Math.floor(body.clientHeight);
      const side = Math.min(w, h);
      const [cssWidth, cssHeight] = fit === 'square' ? [side, side] : fit === 'fill' ? [w, h] : [w, null];
      // A canvas never reaches past its tile's body, even in the frame between the body
      // shrinking (its legend grew a line) and this fit running again: it is squeezed for that
      // frame rather than cut off. A panel keeps its natural size and is scaled instead.
      const bound = fit === 'natural' ? 'none' : '100%';
      element.style.maxWidth = bound;
      element.style.maxHeight = bound;
      element.style.minWidth = '0';
      element.style.width = `${cssWidth}px`;
      if (cssHeight !== null) element.style.height = `${cssHeight}px`;
      if (fit === 'picture' && element instanceof HTMLCanvasElement) fitPicture(element, w, h);
      if (fit === 'natural') shrinkToFit(element, w, h);
    }
    this.redraw();
  }

  // Lets every view draw itself again at its size now (the modes redraw on a window resize).
  redraw() {
    this.resizing = true;
    try {
      window.dispatchEvent(new Event('resize'));
    } finally {
      this.resizing = false;
    }
  }

  // The clicker keys, before the page's own shortcuts (keys.js) see them.
  key(event) {
    if (!this.on || event.ctrlKey || event.metaKey || event.altKey) return;
    // A blanked screen shows no control: its keys only bring the screen back.
    if (!this.blanked && controlKeeps(document.activeElement, event.key)) return;
    const panel = this.panel;
    // A step's text longer than its column (at 1024 × 768) is paged first: the clicker reaches
    // every line, then the next step.
    const next = () => this.turnText(1) || panel.go(panel.step + 1);
    const previous = () => this.turnText(-1) || panel.go(panel.step - 1);
    const actions = {
      PageDown: next,
      ArrowRight: next,
      ' ': next,
      PageUp: previous,
      ArrowLeft: previous,
      Home: () => panel.go(0),
      End: () => panel.go((panel.currentLesson()?.steps.length ?? 1) - 1),
      b: () => this.blank(!this.blanked),
      B: () => this.blank(!this.blanked),
      Escape: () => (this.blanked ? this.blank(false) : this.toggle(false)),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    if (this.blanked && event.key !== 'b' && event.key !== 'B' && event.key !== 'Escape') {
      this.blank(false);
      return;
    }
    action();
  }

  // Scrolls the text column a page down (direction 1) or up (−1), keeping two lines of the
  // page before, when it has more text that way; whether it did.
  turnText(direction) {
    const column = $('lesson');
    const room = direction > 0 ? column.scrollHeight - column.clientHeight - column.scrollTop : column.scrollTop;
    if (room < 2) return false;
    const line = parseFloat(getComputedStyle(column).fontSize) * 1.35;
    column.scrollTop += direction * Math.min(room, Math.max(line, column.clientHeight - 2 * line));
    this.markMore();
    return true;
  }

  // Marks the text column that has more text below, which shows "more" at its foot.
  markMore() {
    const column = $('lesson');
    column.classList.toggle('more-below', this.on && column.scrollHeight - column.clientHeight - column.scrollTop >= 2);
  }

  // Blanks the screen (and pauses whatever runs), or shows it again (still paused).
  blank(on) {
    this.blanked = on;
    $('lesson-blank').hidden = !on;
    if (!on) return;
    pauseAll();
  }

  // The speaker-notes window follows the step shown here.
  showNotes() {
    this.channel?.postMessage({ lesson: this.panel.lesson, step: this.panel.step });
  }

  // ?colors=projector (or default) and the Colours menu; an unknown name is reported.
  installColours() {
    const menu = $('colours');
    const wanted = new URLSearchParams(window.location.search).get('colors');
    if (wanted !== null) {
      try {
        setProfile(wanted);
      } catch (err) {
        $('link-error').textContent =
          `This link’s colours could not be used: ${err.message}. The page uses its default colours.`;
        $('link-error').hidden = false;
      }
    }
    menu.value = document.documentElement.dataset.colors ?? 'default';
    menu.addEventListener('change', () => {
      setProfile(menu.value);
      const params = new URLSearchParams(window.location.search);
      if (menu.value === 'default') params.delete('colors');
      else params.set('colors', menu.value);
      const search = params.toString();
      window.history.replaceState(
        null,
        '',
        `${window.location.pathname}${search ? `?${search}` : ''}${window.location.hash}`,
      );
    });
  }
}
