// @ts-check
// The JavaScript reference sampler: the benchmark's opponent, written as fast as
// JavaScript allows. Same model (periodic ferromagnet, J = 1), same rules, orders and
// acceptance thresholds as the engine's lattice tick: s_i' = +1 exactly when a 32-bit
// random number r satisfies r < t[current spin is +1][S + 4], t = round(P · 2^32).
// It is not used by the app (docs/contract.md: the one allowed second implementation).

/** P(s' = +1) for a spin that is currently +1 (`isHigh`) or −1, gap Δ = 2 h_i, at T. */
export function probabilityHigh(rule, isHigh, gap, temperature) {
  if (temperature === 0) return gap > 0 ? 1 : gap < 0 ? 0 : 0.5;
  if (rule === 'heat-bath') return 1 / (1 + Math.exp(-gap / temperature));
  const rise = isHigh ? gap : -gap;
  const accept = rise <= 0 ? 1 : Math.exp(-rise / temperature);
  return isHigh ? 1 - accept : accept;
}

/** The 18 thresholds round(P · 2^32), indexed [current is +1] · 9 + S + 4. */
export function acceptanceTable(rule, coupling, field, temperature) {
  const table = new Float64Array(18);
  for (let current = 0; current < 2; current++) {
    for (let k = 0; k < 9; k++) {
      const gap = 2 * (coupling * (k - 4) + field);
      const p = Math.min(1, Math.max(0, probabilityHigh(rule, current === 1, gap, temperature)));
      table[current * 9 + k] = Math.round(p * 4294967296);
    }
  }
  return table;
}

/** A side×side periodic lattice of ±1 spins with its xoshiro128++ generator state. */
export function createReference(side, rule, temperature, seed) {
  const n = side * side;
  const spins = new Int8Array(n);
  const rng = new Uint32Array([seed | 0 || 1, 0x9e3779b9, 0x7f4a7c15, 0x85ebca6b]);
  const state = { side, spins, rng, table: acceptanceTable(rule, 1, 0, temperature) };
  for (let i = 0; i < n; i++) spins[i] = next(rng) >>> 31 ? 1 : -1;
  return state;
}

// xoshiro128++ on a Uint32Array state (used outside the hot loops).
function next(s) {
  const sum = (s[0] + s[3]) | 0;
  const result = (((sum << 7) | (sum >>> 25)) + s[0]) >>> 0;
  const t = s[1] << 9;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 11) | (s[3] >>> 21);
  return result;
}

/** One sequential sweep (row by row): N ticks. The generator lives in locals. */
export function sweepSequential(state) {
  const { side, spins, table, rng } = state;
  let s0 = rng[0] | 0,
    s1 = rng[1] | 0,
    s2 = rng[2] | 0,
    s3 = rng[3] | 0;
  const last = side - 1;
  for (let y = 0; y < side; y++) {
    const row = y * side;
    const up = (y === 0 ? last : y - 1) * side;
    const down = (y === last ? 0 : y + 1) * side;
    for (let x = 0; x < side; x++) {
      const i = row + x;
      const left = x === 0 ? row + last : i - 1;
      const right = x === last ? row : i + 1;
      const sum = spins[left] + spins[right] + spins[up + x] + spins[down + x];
      // xoshiro128++
      const a = (s0 + s3) | 0;
      const r = (((a << 7) | (a >>> 25)) + s0) >>> 0;
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
      spins[i] = r < table[(spins[i] > 0 ? 9 : 0) + sum + 4] ? 1 : -1;
    }
  }
  rng[0] = s0;
  rng[1] = s1;
  rng[2] = s2;
  rng[3] = s3;
}

/** One checkerboard sweep: sites with (x + y) even, row by row, then the odd ones. */
export function sweepCheckerboard(state) {
  const { side, spins, table, rng } = state;
  let s0 = rng[0] | 0,
    s1 = rng[1] | 0,
    s2 = rng[2] | 0,
    s3 = rng[3] | 0;
  const last = side - 1;
  for (let colour = 0; colour < 2; colour++) {
    for (let y = 0; y < side; y++) {
      const row = y * side;
      const up = (y === 0 ? last : y - 1) * side;
      const down = (y === last ? 0 : y + 1) * side;
      for (let x = (colour + y) & 1; x < side; x += 2) {
        const i = row + x;
        const left = x === 0 ? row + last : i - 1;
        const right = x === last ? row : i + 1;
        const sum = spins[left] + spins[right] + spins[up + x] + spins[down + x];
        const a = (s0 + s3) | 0;
        const r = (((a << 7) | (a >>> 25)) + s0) >>> 0;
        const t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = (s3 << 11) | (s3 >>> 21);
        spins[i] = r < table[(spins[i] > 0 ? 9 : 0) + sum + 4] ? 1 : -1;
      }
    }
  }
  rng[0] = s0;
  rng[1] = s1;
  rng[2] = s2;
  rng[3] = s3;
}
