// @ts-check
// Reading version 1 of the stored session, whose lattice was the engine's JSON state export
// with its spins, clamps and ±J bonds packed in JavaScript as base64 bit strings. Version 2
// stores the engine's own session text instead; this module only unpacks old records.

// Largest lattice side the unpacker accepts before asking the engine (which allows 2048).
const MAX_SIDE = 4096;

function fromBase64(text, field) {
  if (typeof text !== 'string') throw new Error(`${field}: missing`);
  let raw;
  try {
    raw = atob(text);
  } catch {
    throw new Error(`${field}: not valid base64`);
  }
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

// The 8 signs of each byte value, lowest bit first.
const SIGNS = Array.from({ length: 256 }, (_, b) =>
  Array.from({ length: 8 }, (_, k) => ((b >> k) & 1 ? '+' : '-')).join(''),
);

// `rows` strings of `side` signs (+ for a set bit, lowest bit first) from `side × rows` bits in base64.
function unpackSigns(text, rows, side, field) {
  const bytes = fromBase64(text, field);
  const length = rows * side;
  const need = Math.ceil(length / 8);
  if (bytes.length !== need) throw new Error(`${field}: ${bytes.length} bytes where ${need} are needed`);
  const parts = new Array(bytes.length);
  for (let k = 0; k < bytes.length; k++) parts[k] = SIGNS[bytes[k]];
  const all = parts.join('');
  const out = new Array(rows);
  for (let y = 0; y < rows; y++) out[y] = all.slice(y * side, (y + 1) * side);
  return out;
}

// A version-1 record's lattice → the engine's JSON state text (still to be validated by the engine).
export function unpackLattice(packed) {
  if (packed === null || typeof packed !== 'object' || Array.isArray(packed)) throw new Error('the lattice is missing');
  const { spinBits, clampBits, bondBits, ...rest } = packed;
  const side = rest.size;
  if (!Number.isInteger(side) || side < 1 || side > MAX_SIDE) throw new Error('lattice size: not a lattice side');
  const n = side * side;
  const spins = unpackSigns(spinBits, side, side, 'spins');
  const clamps = fromBase64(clampBits, 'clamps');
  if (clamps.length !== Math.ceil(n / 8))
    throw new Error(`clamps: ${clamps.length} bytes where ${Math.ceil(n / 8)} are needed`);
  const clamped = [];
  for (let k = 0; k < clamps.length; k++) {
    if (clamps[k] === 0) continue;
    for (let bit = 0; bit < 8; bit++) if ((clamps[k] >> bit) & 1) clamped.push(8 * k + bit);
  }
  const state = { ...rest, spins, clamped };
  if (bondBits !== undefined) state.bonds = unpackSigns(bondBits, side, 2 * side, 'bonds');
  return JSON.stringify(state);
}
