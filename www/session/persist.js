// @ts-check
// Nothing lost: the session (the lattice's full state, the Boltzmann machine with its
// trained weights, and which mode was shown) is kept in the browser's localStorage a few
// seconds after it changes and when the page is hidden or left, and offered back on reload.
//
// Each open tab keeps its own session (slots.js), so a second tab neither writes over the
// first tab's session nor loses its own: it says so, and every stored session left by a
// closed tab is offered at restore. A stored session is checked in full (on throwaway
// engine objects) before it is offered; one that cannot be read is reported, moved to a
// side key and never loaded. Nothing is written over a stored session before the user has
// chosen Restore or Start fresh: while the question waits, the work goes to a second, empty
// slot of this tab (a reload offers it beside the others), or the page says it is not kept.
// Storage that is full still offers what it holds, and says why nothing new is kept. The
// record's format is in record.js.

import { $, sentence } from '../ui.js';
import { keepLastGood, onEngineStop } from '../fault.js';
import { KEY, MAX_SLOTS, claimSlot, claimSpareSlot, heldByOthers, moveSlot, slotKey } from './slots.js';
import { FORMAT, VERSION, checkRecord, encodeRecord, filesOf } from './record.js';

export { KEY, FORMAT, VERSION };
// A session that could not be read is moved here (the raw text), with its reason beside it.
export const SET_ASIDE_KEY = 'boltzlab.setAside';
export const SET_ASIDE_REASON_KEY = 'boltzlab.setAside.reason';
// The session the user declined with "Start fresh" (one deep; dropped first when full).
export const PREVIOUS_KEY = 'boltzlab.previous';
// Largest record written, in characters. Chromium keeps about 5 million characters per
// origin; this leaves room for the declined or set-aside copy.
export const MAX_CHARS = 2_500_000;
// Shortest time between saves while the state changes; a save that took long stretches it.
const MIN_INTERVAL_MS = 3000;

// --- Storage -------------------------------------------------------------------------------

const isQuota = (err) =>
  err instanceof DOMException && (err.name === 'QuotaExceededError' || err.name === 'NS_ERROR_DOM_QUOTA_REACHED');

// {storage: localStorage, or null where the browser refuses it (private modes, disabled
// storage), full: whether it is readable but has no room left (a write is refused for
// the quota)}.
export function openStorage() {
  let storage;
  try {
    storage = window.localStorage;
    storage.getItem(KEY);
  } catch {
    return { storage: null, full: false };
  }
  try {
    const probe = 'boltzlab.probe';
    storage.setItem(probe, '1');
    storage.removeItem(probe);
    return { storage, full: false };
  } catch (err) {
    return isQuota(err) ? { storage, full: true } : { storage: null, full: false };
  }
}

export const QUOTA_MESSAGE =
  "The browser's storage for this page is full, so new work is not kept; a saved session can still be restored. Make room (clear this site's data) or use Export state to keep this run.";

// The spare slot this tab last kept its work in while the question waited (for a reload's
// labels), in sessionStorage like the tab's own slot (slots.js).
const SPARE_SLOT = 'boltzlab.spareSlot';

function rememberSpare(k) {
  try {
    window.sessionStorage.setItem(SPARE_SLOT, String(k));
  } catch {
    // Only the label of the offer depends on it.
  }
}

function rememberedSpare() {
  try {
    return Number(window.sessionStorage.getItem(SPARE_SLOT)) || null;
  } catch {
    return null;
  }
}

// "14:03", or "20 Nov, 14:03" when not today.
function when(ms) {
  const date = new Date(ms);
  const time = date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return date.toDateString() === new Date().toDateString()
    ? time
    : `${date.toLocaleDateString([], { day: 'numeric', month: 'short' })}, ${time}`;
}

// --- The session ---------------------------------------------------------------------------

export class Persistence {
  // app: {mode(), show(mode), lattice, machine} (app.js); the modes give and take their
  // snapshots (record.js says how).
  constructor(app) {
    this.app = app;
    this.storage = null;
    this.slot = null; // {number, key, release()} from slots.js
    this.full = false; // storage was full when the page opened
    // While the restore question waits: a second slot the work is kept in ({number, key,
    // release()}), and whether anything was written there.
    this.spare = null;
    this.spareWritten = false;
    this.saving = false; // true once the user has chosen (or there was nothing to choose)
    this.stopped = false; // after a panic: the engine's state can no longer be trusted
    this.lastFingerprint = null;
    this.lastSave = 0;
    this.interval = MIN_INTERVAL_MS;
    this.lastGood = null; // the last record text known good (written, or checked on load)
    this.pending = null; // a save waiting for the worker's session
    this.offers = []; // checked stored sessions awaiting Restore / Start fresh: {slot, checked}
    this.saves = 0;
    this.lastTimings = null; // ms the last save spent making the record and writing it
    onEngineStop(() => (this.stopped = true));
    keepLastGood(() => this.lastGoodFiles());
  }

  // Starts keeping the session: claims this tab's slot and offers what is stored.
  async start() {
    $('session-restore').addEventListener('click', () => this.restore());
    $('session-fresh').addEventListener('click', () => this.startFresh());
    $('session-dismiss').addEventListener('click', () => this.closeBanner());
    const { storage, full } = openStorage();
    this.storage = storage;
    this.full = full;
    if (full) this.status(QUOTA_MESSAGE, true);
    if (!this.storage) {
      this.status(
        'Sessions are not kept: this browser does not allow local storage for this page (private mode?).',
        true,
      );
      return;
    }
    this.slot = await claimSlot();
    if (!this.slot) {
      this.status(`Sessions are not kept in this tab: the page is open in ${MAX_SLOTS} other tabs.`, true);
      return;
    }
    const others = await heldByOthers(this.slot);
    const tabNote =
      others.size > 0
        ? 'This page is open in another tab too. Each tab keeps its own session, so neither writes over the other’s.'
        : '';
    this.offer(tabNote, others);
    if (!this.saving) this.keepWhileWaiting();
    setInterval(() => {
      if (performance.now() - this.lastSave >= this.interval) this.saveNow();
    }, 1000);
    // Leaving (or hiding) the page is the last chance: saved even when the counters say
    // nothing changed (a machine part-way through a cycle has not moved them).
    window.addEventListener('pagehide', () => this.saveNow(true, true));
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.saveNow(true, true);
    });
  }

  read(key) {
    try {
      return this.storage.getItem(key);
    } catch {
      return null;
    }
  }

  // Shows the banner: this tab's stored session (or the one it could not read), the
  // sessions closed tabs left in other slots, and the note that another tab is open.
  offer(tabNote, others) {
    const own = this.read(this.slot.key);
    let unreadable = null;
    this.offers = [];
    if (own !== null) {
      try {
        this.offers.push({ slot: this.slot.number, text: own, checked: checkRecord(own, this.app) });
        this.lastGood = own;
      } catch (err) {
        unreadable = String(err.message ?? err);
        this.setAside(this.slot.key, own, unreadable);
      }
    }
    for (let k = 1; k <= MAX_SLOTS; k++) {
      if (k === this.slot.number || others.has(k)) continue;
      const text = this.read(slotKey(k));
      if (text === null) continue;
      try {
        this.offers.push({ slot: k, text, checked: checkRecord(text, this.app) });
      } catch {
        // Left where it is: a tab that takes that slot reports it and sets it aside.
      }
    }
    const choice = $('session-choice');
    const spare = rememberedSpare();
    choice.replaceChildren(
      ...this.offers.map(({ slot, checked }, i) => {
        const from =
          slot === this.slot.number
            ? 'this tab'
            : slot === spare
              ? 'this tab while the question waited'
              : 'a closed tab';
        return new Option(`saved at ${when(checked.record.saved)} in ${from}: ${checked.summary}`, String(i));
      }),
    );
    const elsewhere = this.offers.some(({ slot }) => slot !== this.slot.number);
    $('session-choice-box').hidden = !(this.offers.length >= 2 || (elsewhere && unreadable !== null));
    $('session-tabs').textContent = tabNote;
    $('session-tabs').hidden = tabNote === '';
    if (unreadable !== null) {
      this.banner(`The saved session could not be read: ${unreadable}; it was set aside.`, {
        dismiss: this.offers.length === 0,
        restore: this.offers.length > 0,
      });
      if (this.offers.length === 0) this.saving = true;
    } else if (this.offers.length > 0) {
      const first = this.offers[0];
      let message =
        first.slot === this.slot.number
          ? `Restore the session saved at ${when(first.checked.record.saved)} (${first.checked.summary})?`
          : `A closed tab left a session saved at ${when(first.checked.record.saved)} (${first.checked.summary}). Restore it?`;
      if (first.checked.note) message += ` ${first.checked.note}`;
      this.banner(message, { restore: true, fresh: own !== null, dismiss: own === null });
    } else {
      this.saving = true;
      if (tabNote) this.banner('', { dismiss: true });
    }
  }

  // While the restore question waits, what the user does is kept in a second, empty slot of
  // this tab (or the page says it is not kept). The slot is taken at the first input outside
  // the question: a page merely left open keeps its run's parameters in the address, and
  // does not fill the slots with sessions no one worked on.
  keepWhileWaiting() {
    if (!this.full)
      this.status(
        'Until you answer the saved-session question (Restore, Start fresh or Dismiss), what you change is kept as a separate session (a reload offers it too).',
      );
    const events = ['pointerdown', 'keydown', 'input', 'change'];
    const stop = () => events.forEach((name) => document.removeEventListener(name, worked, true));
    const worked = (event) => {
      if (this.saving) stop();
      if (this.saving || $('session').contains(event.target)) return;
      stop();
      this.claimSpare();
    };
    events.forEach((name) => document.addEventListener(name, worked, true));
  }

  async claimSpare() {
    this.spare = await claimSpareSlot(this.slot, (key) => this.read(key) === null);
    if (this.saving) {
      this.releaseSpare(false); // answered meanwhile
      return;
    }
    if (!this.spare) {
      this.status(
        'Your work is not being kept until you answer the saved-session question (Restore, Start fresh or Dismiss): every session slot of this page is in use.',
        true,
      );
      return;
    }
    rememberSpare(this.spare.number);
    this.saveNow(true);
  }

  // Ends keeping the work in the spare slot: its session is kept (offered on the next
  // reload, as a closed tab's) when `keep` and something was written, else removed.
  releaseSpare(keep) {
    const spare = this.spare;
    if (!spare) return false;
    this.spare = null;
    const kept = keep && this.spareWritten;
    if (!kept) {
      try {
        this.storage.removeItem(spare.key);
      } catch {
        // Left behind: offered on a reload, never lost.
      }
    }
    spare.release();
    return kept;
  }

  // The last good session record (text), for the fault overlay: when it was saved and its
  // lattice and network as files.
  lastGoodFiles() {
    let text = this.lastGood;
    if (text === null && this.storage && this.slot) text = this.read(this.slot.key);
    if (text === null) return null;
    try {
      return filesOf(text);
    } catch {
      return null;
    }
  }

  status(text, isError = false) {
    const box = $('persist-status');
    box.textContent = text;
    box.classList.toggle('error', isError);
  }

  // Writes the session if it changed since the last write. `force`: also when unchanged.
  // The lattice's session is packed in its engine worker, so the main thread only joins the
  // record and writes it; returns a promise that the save is done (or refused). `leaving`
  // (the page is hidden or left, and cannot wait): the mirror's session when it holds the
  // run (paused), else the worker's, if it comes in time.
  saveNow(force = false, leaving = false) {
    const key = this.saving ? this.slot?.key : this.spare?.key;
    if (!this.storage || !key || this.stopped) return Promise.resolve();
    const fingerprint = this.app.fingerprint();
    if (fingerprint === this.lastFingerprint && !force) return Promise.resolve();
    const now = leaving ? this.app.lattice.sessionNow() : null;
    if (now !== null) {
      this.keep(fingerprint, now, 0, key);
      return Promise.resolve();
    }
    if (this.pending) return this.pending;
    this.pending = this.app.lattice
      .session()
      .then(
        ({ text, ms }) => this.keep(fingerprint, text, ms, key),
        (err) => this.status(`Not saved: ${err.message ?? err}`, true),
      )
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  // Writes the record with the lattice session `lattice` (packed in `packMs` by the worker)
  // under `key` (this tab's slot, or the spare one while the restore question waits).
  keep(fingerprint, lattice, packMs, key) {
    // A save begun for the spare slot that was let go meanwhile is not written.
    if (this.stopped || (key !== this.slot.key && key !== this.spare?.key)) return;
    const begin = performance.now();
    let text;
    try {
      text = encodeRecord(this.app, lattice);
    } catch (err) {
      this.status(`Not saved: ${err.message ?? err}`, true);
      return;
    } finally {
      this.lastSave = performance.now();
      this.interval = Math.max(MIN_INTERVAL_MS, 40 * (this.lastSave - begin + packMs));
    }
    if (text.length > MAX_CHARS) {
      this.lastFingerprint = null;
      this.status(
        `Not saved: too large for the browser's storage (${(text.length / 1e6).toFixed(1)} million characters, at most ${MAX_CHARS / 1e6} million); use Export state to keep it.`,
        true,
      );
      return;
    }
    const encoded = performance.now();
    try {
      this.store(text, key);
    } catch (err) {
      this.lastFingerprint = null;
      this.status(
        isQuota(err)
          ? "Not saved: the browser's storage quota is full; use Export state to keep this run."
          : `Not saved: the browser refused to store the session (${err.message ?? err}).`,
        true,
      );
      return;
    }
    const written = performance.now();
    this.lastTimings = { pack: packMs, encode: encoded - begin, write: written - encoded };
    this.lastFingerprint = fingerprint;
    this.lastGood = text;
    this.saves += 1;
    $('persist-status').dataset.saves = String(this.saves);
    if (key !== this.slot.key) {
      this.spareWritten = true;
      this.status(
        `Until you answer the saved-session question (Restore, Start fresh or Dismiss), your work is kept as a separate session (saved at ${new Date().toLocaleTimeString()}; a reload offers it too).`,
      );
      return;
    }
    // This tab's slot now holds the newest work: the spare copy is no longer needed.
    if (this.spare) this.releaseSpare(false);
    const slot = this.slot.number === 1 ? '' : ` (this tab’s own session, slot ${this.slot.number})`;
    this.status(`Session kept in this browser at ${new Date().toLocaleTimeString()}${slot}.`);
  }

  // setItem, dropping the declined previous session first if the quota is full.
  store(text, key) {
    const storage = this.storage;
    try {
      storage.setItem(key, text);
    } catch (err) {
      if (!isQuota(err) || storage.getItem(PREVIOUS_KEY) === null) throw err;
      storage.removeItem(PREVIOUS_KEY);
      storage.setItem(key, text);
    }
  }

  setAside(key, text, reason) {
    try {
      this.storage.removeItem(key);
      this.storage.setItem(SET_ASIDE_KEY, text);
      this.storage.setItem(SET_ASIDE_REASON_KEY, reason);
    } catch {
      // The side copy did not fit; the bad record is gone from the session key either way.
    }
  }

  banner(message, { restore = false, fresh = false, dismiss = false }) {
    $('session-message').textContent = message;
    $('session-message').hidden = message === '';
    $('session-restore').hidden = !restore;
    $('session-fresh').hidden = !fresh;
    $('session-dismiss').hidden = !dismiss;
    $('session').hidden = false;
  }

  closeBanner() {
    $('session').hidden = true;
    this.offers = [];
    this.saving = true;
    // The next save goes to this tab's slot even if the spare one holds the same work.
    this.lastFingerprint = null;
  }

  async restore() {
    const chosen = this.offers[Number($('session-choice').value) || 0];
    if (!chosen) return;
    $('session-restore').disabled = true;
    if (chosen.slot !== this.slot.number) {
      // A closed tab's session: this tab moves into that slot, and its own (if any) stays
      // where it is, to be offered again.
      const moved = await moveSlot(this.slot, chosen.slot);
      if (!moved) {
        $('session-restore').disabled = false;
        this.banner('That session was taken by another tab in the meantime; nothing was changed.', {
          dismiss: true,
        });
        this.saving = true;
        return;
      }
      this.slot = moved;
    }
    let note = '';
    try {
      note = chosen.checked.restore(this.app);
    } catch (err) {
      $('session-restore').disabled = false;
      this.setAside(this.slot.key, chosen.text, sentence(String(err.message ?? err)));
      this.banner(`The saved session could not be read: ${sentence(String(err.message ?? err))}; it was set aside.`, {
        dismiss: true,
      });
      this.saving = true;
      return;
    }
    $('session-restore').disabled = false;
    // The work done while the question waited stays stored, to be offered on a reload.
    const spareNote = this.releaseSpare(true)
      ? ' The work done before you chose is kept as another saved session; a reload offers it.'
      : '';
    this.closeBanner();
    this.lastGood = chosen.text;
    // Saved at once (the lattice's session comes from its worker), then said, with the
    // reason when it could not be kept (a full storage).
    this.saveNow(true).then(() => {
      const box = $('persist-status');
      const failed = box.classList.contains('error') ? ` ${box.textContent}` : '';
      this.status(
        `Restored the session saved at ${when(chosen.checked.record.saved)}.${note ? ` ${note}` : ''}${spareNote}${failed}`,
        failed !== '',
      );
    });
  }

  startFresh() {
    try {
      const text = this.storage.getItem(this.slot.key);
      this.storage.removeItem(this.slot.key);
      if (text !== null) this.storage.setItem(PREVIOUS_KEY, text);
    } catch {
      // Keeping the declined session is a courtesy; without room it is dropped.
    }
    this.closeBanner();
    this.saveNow(true);
  }
}
