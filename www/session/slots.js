// @ts-check
// Two tabs, nothing lost: each open tab of the page keeps its session in a slot of its own
// in localStorage, so that a second tab never writes over the first tab's session. A tab
// holds its slot with a Web Lock for as long as it is open; a new tab takes the first free
// slot (slot 1 is the one a single tab always uses), and a reloaded tab takes its own slot
// back (remembered in sessionStorage). A slot left by a closed tab keeps its session until a
// tab restores it or starts fresh over it: every stored session is offered at restore.
//
// Without Web Locks (an old browser) there is one slot, as before.

export const KEY = 'boltzlab.session';
// Slots at most; a tab beyond them keeps nothing and says so.
export const MAX_SLOTS = 4;
// How long a reloaded tab waits for its own slot, which its previous page still holds for
// a moment while it unloads.
const OWN_SLOT_WAIT_MS = 2000;
const TAB_SLOT = 'boltzlab.slot';

// The localStorage key of slot k (slot 1: the key a single tab has always used).
export const slotKey = (k) => (k === 1 ? KEY : `${KEY}.${k}`);
const lockName = (k) => `boltzlab.slot.${k}`;
const hasLocks = () => typeof navigator !== 'undefined' && Boolean(navigator.locks?.request);

// Takes the lock `name` if it is free (or, with `waitMs`, once it is freed within that
// time); resolves to a function that releases it, or null.
function lock(name, waitMs = 0) {
  return new Promise((resolve) => {
    const options = waitMs > 0 ? { signal: AbortSignal.timeout(waitMs) } : { ifAvailable: true };
    navigator.locks
      .request(name, options, (held) => {
        if (!held) {
          resolve(null);
          return null;
        }
        return new Promise((release) => resolve(() => release()));
      })
      .catch(() => resolve(null)); // timed out
  });
}

function rememberedSlot() {
  try {
    const k = Number(window.sessionStorage.getItem(TAB_SLOT));
    return Number.isInteger(k) && k >= 1 && k <= MAX_SLOTS ? k : null;
  } catch {
    return null;
  }
}

function remember(k) {
  try {
    window.sessionStorage.setItem(TAB_SLOT, String(k));
  } catch {
    // Without sessionStorage a reloaded tab takes the first free slot.
  }
}

// The slot this tab keeps its session in: {number, key, release()}, or null when every slot
// is held by another open tab.
export async function claimSlot() {
  if (!hasLocks()) return { number: 1, key: KEY, release() {} };
  const own = rememberedSlot();
  if (own !== null) {
    const release = await lock(lockName(own), OWN_SLOT_WAIT_MS);
    if (release) return taken(own, release);
  }
  for (let k = 1; k <= MAX_SLOTS; k++) {
    if (k === own) continue;
    const release = await lock(lockName(k));
    if (release) return taken(k, release);
  }
  return null;
}

function taken(k, release) {
  remember(k);
  return { number: k, key: slotKey(k), release };
}

// Moves this tab from `slot` to slot k (free, left by a closed tab): the new slot or null.
export async function moveSlot(slot, k) {
  if (!hasLocks()) return null;
  const release = await lock(lockName(k));
  if (!release) return null;
  slot.release();
  return taken(k, release);
}

// A second slot for this tab, free and empty (`isEmpty(key)`), not remembered for a reload:
// where the work goes while the restore banner waits for an answer (persist.js). Null when
// there is none (every slot held or holding a stored session, or no Web Locks).
export async function claimSpareSlot(own, isEmpty) {
  if (!hasLocks()) return null;
  for (let k = 1; k <= MAX_SLOTS; k++) {
    if (k === own.number || !isEmpty(slotKey(k))) continue;
    const release = await lock(lockName(k));
    if (release) return { number: k, key: slotKey(k), release };
  }
  return null;
}

// The slots other open tabs hold now.
export async function heldByOthers(slot) {
  if (!navigator.locks?.query) return new Set();
  const { held = [] } = await navigator.locks.query();
  const numbers = new Set();
  for (let k = 1; k <= MAX_SLOTS; k++) {
    if (k !== slot.number && held.some((l) => l.name === lockName(k))) numbers.add(k);
  }
  return numbers;
}
