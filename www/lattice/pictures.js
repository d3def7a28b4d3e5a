// @ts-check
// Named starting pictures for a lattice scene: down spins drawn into an all-up lattice of
// side L, as rows of sites {y, x0, x1} (inclusive). Painting.js draws them with the
// engine's own paint strokes (radius 0), so the spins are the engine's; tests compute the
// same rows to check what the engine holds. Pure functions, no page.
//
// - disc: the sites with (x − c)² + (y − c)² ≤ R², c = ⌊L/2⌋, R = ⌊L/4⌋ (a domain whose
//   wall shrinks it: curvature-driven coarsening);
// - stripes: eight bands of height ⌊L/8⌋, every second one down (flat walls);
// - wall: the lower half down (a flat domain wall, two with periodic boundaries).

export const PICTURES = ['disc', 'stripes', 'wall'];

// The rows of down spins of picture `name` on a lattice of side `side`.
export function pictureRows(name, side) {
  const rows = [];
  const c = Math.floor(side / 2);
  if (name === 'disc') {
    const r = Math.floor(side / 4);
    for (let y = c - r; y <= c + r; y++) {
      const dx = Math.floor(Math.sqrt(r * r - (y - c) * (y - c)));
      rows.push({ y, x0: c - dx, x1: c + dx });
    }
  } else if (name === 'stripes') {
    const band = Math.max(1, Math.floor(side / 8));
    for (let y = 0; y < side; y++) if (Math.floor(y / band) % 2 === 1) rows.push({ y, x0: 0, x1: side - 1 });
  } else if (name === 'wall') {
    for (let y = c; y < side; y++) rows.push({ y, x0: 0, x1: side - 1 });
  } else {
    throw new Error(`there is no picture “${name}” (the pictures are ${PICTURES.join(', ')})`);
  }
  return rows;
}

// The picture's spins, row-major (+1 up, −1 down), as the engine should hold them.
export function pictureSpins(name, side) {
  const spins = new Array(side * side).fill(1);
  for (const { y, x0, x1 } of pictureRows(name, side)) for (let x = x0; x <= x1; x++) spins[x + side * y] = -1;
  return spins;
}
