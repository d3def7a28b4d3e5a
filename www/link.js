// @ts-check
// State links: the mode's own session text (the engine's, exact: the same tick, spins,
// clamps, weights and phase), compressed with the browser's CompressionStream('deflate-raw')
// and base64url-encoded in the URL fragment, `#state=…`. Nothing leaves the page: the link
// is made and read here, and the state is restored through the same checked path as a
// saved session (the engine refuses a bad text and nothing changes).
//
// The payload is JSON {format: 'boltzlab-link', version: 1, mode: 'lattice' | 'machine' |
// 'memory', kind: 'full' | 'restricted' (machine), session: the engine's session text, or
// null with `options` (the restricted machine's controls) when its mode has no session text}.

import { $, sentence } from './ui.js';

export const LINK_FORMAT = 'boltzlab-link';
export const LINK_VERSION = 1;
const PREFIX = 'state=';
// Longest state link offered (characters); beyond it the parameters-and-seed link is used.
export const MAX_LINK_CHARS = 1_000_000;
// Largest decompressed payload read from a link (bytes): a link that inflates beyond it is
// refused before it is parsed (a small link cannot make the page hold gigabytes).
const MAX_INFLATED = 64 * 1024 * 1024;

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// Whether an address fragment ('#…' or '…') is a state link.
export const isStateLink = (hash) => hash.replace(/^#/, '').startsWith(PREFIX);

// Bytes as base64url (no padding), in chunks (a 3-byte multiple) so large states never
// overflow the argument list.
function toBase64Url(bytes) {
  let out = '';
  const chunk = 3 * 8192;
  for (let k = 0; k < bytes.length; k += chunk)
    out += btoa(String.fromCharCode.apply(null, bytes.subarray(k, k + chunk)));
  return out.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1)
    throw new Error('it is not base64url text (it was cut short or changed)');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let k = 0; k < binary.length; k++) bytes[k] = binary.charCodeAt(k);
  return bytes;
}

async function deflate(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// Inflates at most MAX_INFLATED bytes; throws on damaged data or a larger payload.
async function inflate(bytes) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const parts = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > MAX_INFLATED) {
        await reader.cancel();
        throw new Error(`it unpacks to more than ${MAX_INFLATED / 1024 / 1024} MB`);
      }
      parts.push(value);
    }
  } catch (err) {
    if (err.message.startsWith('it unpacks')) throw err;
    throw new Error('its compressed data is damaged (the link was cut short or changed)');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(await new Blob(parts).arrayBuffer());
  } catch {
    throw new Error('its compressed data is not text');
  }
}

// The link's fragment (without '#') for a payload {mode, kind, session, options}.
export async function encodeState(payload) {
  const text = JSON.stringify({ format: LINK_FORMAT, version: LINK_VERSION, ...payload });
  return PREFIX + toBase64Url(await deflate(text));
}

// The payload of a state link's fragment; throws an Error whose message says what is wrong.
export async function decodeState(hash) {
  const fragment = hash.replace(/^#/, '');
  if (!fragment.startsWith(PREFIX)) throw new Error('it is not a state link');
  const text = await inflate(fromBase64Url(fragment.slice(PREFIX.length)));
  let payload;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new Error('it does not hold a boltzlab state');
  }
  if (!isObject(payload) || payload.format !== LINK_FORMAT) throw new Error('it does not hold a boltzlab state');
  if (payload.version !== LINK_VERSION)
    throw new Error(`it has version ${String(payload.version).slice(0, 20)}; this page reads version ${LINK_VERSION}`);
  if (!['lattice', 'machine', 'memory'].includes(payload.mode))
    throw new Error('its mode is none of lattice, machine and memory');
  if (payload.mode === 'machine' && payload.kind !== 'full' && payload.kind !== 'restricted')
    throw new Error('its machine is neither the general nor the restricted one');
  if (payload.session !== null && typeof payload.session !== 'string') throw new Error('its session is not text');
  if (payload.session === null && !(payload.mode === 'machine' && payload.kind === 'restricted'))
    throw new Error('its session is missing');
  if (payload.session === null) {
    const options = payload.options;
    if (
      !isObject(options) ||
      !Object.values(options).every((v) => typeof v === 'string' || typeof v === 'boolean' || Number.isFinite(v))
    )
      throw new Error('its options are missing or not values');
  }
  return payload;
}

// A whole state link for the page as it is now, from its fragment.
export function addressWith(fragment, search = window.location.search) {
  const { origin, pathname } = window.location;
  return `${origin}${pathname}${search}#${fragment}`;
}

// The menus a restricted machine's options set: each value must be one of the menu's
// choices (a value that is not would leave the menu blank), and a link cannot carry the
// user's own image file.
const RESTRICTED_MENUS = { dataset: 'rbm-dataset', statistics: 'rbm-statistics' };

function checkRestrictedOptions(options) {
  for (const [key, id] of Object.entries(RESTRICTED_MENUS)) {
    if (options[key] === undefined) continue;
    const allowed = [...$(id).options].map((o) => o.value).filter((v) => v !== 'file');
    if (!allowed.includes(String(options[key])))
      throw new Error(`its ${key} '${String(options[key]).slice(0, 40)}' is not one of ${allowed.join(', ')}`);
  }
}

// Shows the general ('full') or restricted machine, as its radio button would.
function showKind(kind) {
  const radio = $(`bm-kind-${kind}`);
  if (!radio.checked) radio.click();
}

// Opens a state link in the app (app.js): decodes it and restores its mode's state through
// the mode's checked restore (nothing changes when the engine refuses it), then shows the
// mode. `restricted(options)` applies a restricted machine's controls (lessons/scene.js).
// Returns true when the state was restored; otherwise the reason is in the link-error
// banner and the page keeps its previous state.
export async function openStateLink(app, hash, restricted) {
  try {
    const payload = await decodeState(hash);
    if (payload.mode === 'lattice') {
      app.lattice.restoreSession(payload.session);
      app.show('lattice');
    } else if (payload.mode === 'memory') {
      app.memory.restoreSession(payload.session);
      app.show('memory');
    } else if (payload.kind === 'full') {
      app.machine.restoreSession(payload.session);
      app.show('machine');
      showKind('full');
    } else if (payload.session !== null) {
      const rbm = app.machine.rbm;
      if (typeof rbm.restoreSession !== 'function')
        throw new Error('this page cannot restore a restricted machine’s state yet');
      rbm.restoreSession(payload.session);
      app.show('machine');
      showKind('restricted');
    } else {
      // Its controls, each checked by the control's own handler and the engine as typed;
      // the menus' values first, so that a bad one changes nothing.
      checkRestrictedOptions(payload.options);
      app.show('machine');
      restricted(payload.options);
    }
    $('link-error').hidden = true;
    return true;
  } catch (err) {
    $('link-error').textContent = `This link could not be used, so nothing was changed. ${sentence(err.message)}`;
    $('link-error').hidden = false;
    return false;
  }
}

// Puts `link` into `field`, copies it, and says what it carries in `done`.
export async function offerLink(field, done, link, note) {
  if (!link) {
    done.textContent = note;
    return;
  }
  field.value = link;
  field.select();
  try {
    await navigator.clipboard.writeText(link);
    done.textContent = `Link copied. ${note}`;
  } catch {
    done.textContent = `Select the link above and copy it (the browser did not allow copying). ${note}`;
  }
}

// Makes a state link and offers it (a mode's Copy link): `describe()` gives {payload, note}
// (what the link carries), `what` names the state in the message when its link would be
// longer than MAX_LINK_CHARS (with `instead`, what to use then); `field` gets the link and
// `done` the note, or why no link was made.
export async function offerStateLink(describe, field, done, what, instead = '') {
  done.textContent = 'Making the link…';
  let link = '';
  let note;
  try {
    const { payload, note: carried } = describe();
    link = addressWith(await encodeState(payload), '');
    note = `${carried} (${link.length} characters)`;
    if (link.length > MAX_LINK_CHARS) {
      note = `${what} would need a link of ${link.length} characters (more than ${MAX_LINK_CHARS})${instead}.`;
      link = '';
    }
  } catch (err) {
    note = `No link was made: ${err.message}`;
  }
  await offerLink(field, done, link, note);
}
