// Version 1 of the stored session: the lattice as the engine's JSON state export with its
// spins, clamps and ±J bonds packed as base64 bit strings (a 1024 × 1024 lattice takes about
// 350 000 characters instead of a million).

// Largest lattice side the unpacker accepts before asking the engine (which allows 2048).
const MAX_SIDE = 4096;

function toBase64(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

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

// Strings of '+' and '-' (rows of spins or bond signs), one bit each ('+' set), as base64.
function packSigns(rows) {
  let length = 0;
  for (const row of rows) length += row.length;
  const bytes = new Uint8Array(Math.ceil(length / 8));
  let i = 0;
  for (const row of rows) {
    for (let x = 0; x < row.length; x++, i++) if (row.charCodeAt(x) === 43) bytes[i >> 3] |= 1 << (i & 7);
  }
  return toBase64(bytes);
}

// The 8 signs of each byte value, lowest bit first.
const SIGNS = Array.from({ length: 256 }, (_, b) =>
  Array.from({ length: 8 }, (_, k) => ((b >> k) & 1 ? '+' : '-')).join(''),
);

// The inverse: `rows` strings of `side` signs from `side × rows` bits in base64.
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

// The engine's JSON state export → a compact object (spins, clamps, ±J bonds as bits).
export function packLattice(exported) {
  const { spins, clamped, bonds, ...rest } = JSON.parse(exported);
  const n = rest.size * rest.size;
  const packed = { ...rest, spinBits: packSigns(spins) };
  const clamps = new Uint8Array(Math.ceil(n / 8));
  for (const site of clamped) clamps[site >> 3] |= 1 << (site & 7);
  packed.clampBits = toBase64(clamps);
  if (Array.isArray(bonds) && bonds.every((row) => typeof row === 'string')) packed.bondBits = packSigns(bonds);
  else if (bonds !== undefined) packed.bonds = bonds;
  return packed;
}

// The inverse: the engine's JSON state text (still to be validated by the engine).
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
