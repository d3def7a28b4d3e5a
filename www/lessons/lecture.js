// @ts-check
// Lecture mode: the lesson full screen in large type, with only the step's text, its live
// views and the controls it exposes; clicker keys (PageDown, → or Space: next; PageUp or
// ←: previous; Home / End: first / last; B: blank the screen and pause); the projector
// colour profile (?colors=projector or the Colours menu); and speaker notes in a second
// window that follows the step shown here.

import { $ } from '../ui.js';
import { setProfile } from '../views/colour.js';
import { pauseAll } from './scene.js';

const NOTES_CHANNEL = 'boltzlab-notes';

// Keys a number or text box keeps for itself.
const typing = (element) =>
  element instanceof HTMLInputElement
    ? !['range', 'radio', 'checkbox', 'button'].includes(element.type)
    : element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement;

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
  }

  // Turns lecture mode on or off (full screen if the browser allows it here).
  toggle(on, { fullscreen = true } = {}) {
    if (on === this.on) return;
    this.on = on;
    document.body.classList.toggle('lecture', on);
    if (!on) this.blank(false);
    if (on && fullscreen && document.fullscreenEnabled && !document.fullscreenElement) {
      this.fullscreen = true;
      document.documentElement.requestFullscreen().catch(() => (this.fullscreen = false));
    } else if (!on && document.fullscreenElement) {
      this.fullscreen = false;
      document.exitFullscreen().catch(() => {});
    }
    if (this.panel.lesson >= 0) this.panel.remember(true);
  }

  // The clicker keys, before the page's own shortcuts (keys.js) see them.
  key(event) {
    if (!this.on || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(document.activeElement)) return;
    const panel = this.panel;
    const actions = {
      PageDown: () => panel.go(panel.step + 1),
      ArrowRight: () => panel.go(panel.step + 1),
      ' ': () => panel.go(panel.step + 1),
      PageUp: () => panel.go(panel.step - 1),
      ArrowLeft: () => panel.go(panel.step - 1),
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
