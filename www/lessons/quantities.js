// @ts-check
// The numbers a mode's readouts() give (lattice/scene.js, machine/scene.js): each a quantity,
// {value, stderr: 0} when the engine knows it exactly (E/N of the spins held, an exact KL, a
// count) or {mean, stderr} when it is an estimate (KL or ln p(v) by AIS), never display
// text. Lessons judge them here. Pure functions, no page.

import { format } from '../ui.js';

// How many standard errors a challenge asks of an estimate. Under normal errors an estimate
// whose true value is on the wrong side of the threshold passes `below`/`above` with
// probability at most Φ(−2) ≈ 2.3 %; a true value 3 standard errors inside passes with
// probability Φ(1) ≈ 84 % at each reading (and the estimate is read again as it refreshes).
export const K_STDERR = 2;

// An exact quantity.
export const exact = (value) => ({ value, stderr: 0 });

// An estimate with its standard error.
export const estimate = (mean, stderr) => ({ mean, stderr });

// Nothing measured yet: every comparison with it is false.
export const unknown = () => ({ value: NaN, stderr: NaN });

// The quantity's best value: its exact value or its estimate's mean (a plain number, as a
// step's widget may give, is its own value); NaN when there is none.
export function centre(q) {
  if (typeof q === 'number') return q;
  if (q === null || typeof q !== 'object') return NaN;
  return q.value ?? q.mean ?? NaN;
}

// The quantity's standard error (0 when exact, a plain number included).
export const stderr = (q) => (typeof q === 'number' ? 0 : (q?.stderr ?? NaN));

// Whether it is an estimate (has a nonzero error or came as {mean, stderr}).
export const estimated = (q) => typeof q === 'object' && q !== null && q.mean !== undefined;

// Whether q is below x beyond doubt: centre + K·stderr < x (an exact value: value < x).
export const below = (q, x) => centre(q) + K_STDERR * stderr(q) < x;

// Whether q is above x beyond doubt: centre − K·stderr > x (an exact value: value > x).
export const above = (q, x) => centre(q) - K_STDERR * stderr(q) > x;

// The quantity as text: "−1.234" when exact, "≈ 1.234 ± 0.056" when estimated, "…" when
// unknown.
export function show(q, digits = 3) {
  const c = centre(q);
  if (!Number.isFinite(c)) return '…';
  return estimated(q) ? `≈ ${format(c, digits)} ± ${format(stderr(q), digits)}` : format(c, digits);
}

// a − b, with the errors of independent estimates added in quadrature.
export function difference(a, b) {
  const mean = centre(a) - centre(b);
  const error = Math.hypot(stderr(a), stderr(b));
  return estimated(a) || estimated(b) ? estimate(mean, error) : exact(mean);
}
