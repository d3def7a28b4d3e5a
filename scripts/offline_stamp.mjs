// Writes the build's file list and version into the built service worker (sw.js), so that
// every build is a new service worker with its own cache (see sw.js). Run by Trunk after each
// build (Trunk.toml, [[hooks]] post_build, with TRUNK_STAGING_DIR), or by hand on a built
// folder, again after changing one of its files: `node scripts/offline_stamp.mjs dist`. A
// build without sw.js (bench.html's) is left as it is.
//
// The shell is every file but sw.js and those under data/ (the MNIST file, which the page
// fetches when chosen and keeps in a cache of its own); each file is named by its path
// relative to the folder, with the first 16 hex digits of its SHA-256; '' is the page itself
// (index.html, as the folder's address serves it). The version is the same hash over the
// sorted list of paths and hashes.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR ?? process.argv[2];
if (!dir) throw new Error('usage: node scripts/offline_stamp.mjs DIR (or TRUNK_STAGING_DIR)');
const worker = join(dir, 'sw.js');
if (!existsSync(worker)) process.exit(0);

const hash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

function* files(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile()) yield relative(dir, path).split(sep).join('/');
  }
}

const shell = {};
for (const path of [...files(dir)].sort()) {
  if (path === 'sw.js' || path.startsWith('data/')) continue;
  shell[path] = hash(readFileSync(join(dir, path)));
}
if (!shell['index.html']) throw new Error(`${dir} has no index.html`);
shell[''] = shell['index.html'];
const listing = Object.entries(shell)
  .map(([path, digest]) => `${path} ${digest}\n`)
  .sort()
  .join('');
const version = hash(listing);

// The BUILD line, unstamped as in the source or stamped by an earlier run (a built folder
// changed by hand is stamped again).
const line = /^const BUILD = .*;$/m;
const source = readFileSync(worker, 'utf8');
if (!line.test(source)) throw new Error(`${worker}: no BUILD line to fill`);
writeFileSync(worker, source.replace(line, `const BUILD = ${JSON.stringify({ version, shell })};`));
console.log(`offline: sw.js stamped, version ${version}, ${Object.keys(shell).length - 1} shell files`);
