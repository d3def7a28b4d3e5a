// Writes the build's file list and version into the built service worker (sw.js), so that
// every build is a new service worker with its own cache (see sw.js). Run by Trunk after each
// build (Trunk.toml, [[hooks]] post_build, with TRUNK_STAGING_DIR), or by hand on a built
// folder: `node scripts/offline_stamp.mjs dist`. A build without sw.js (bench.html's) is left
// as it is.
//
// The shell is every file but sw.js and those under data/ (loaded when first needed, cached
// then); each file is named by its path relative to the folder, with the first 16 hex digits
// of its SHA-256; '' is the page itself (index.html, as the folder's address serves it). The
// version is the same hash over the sorted list of paths and hashes.
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
const lazy = {};
for (const path of [...files(dir)].sort()) {
  if (path === 'sw.js') continue;
  const digest = hash(readFileSync(join(dir, path)));
  if (path.startsWith('data/')) lazy[path] = digest;
  else shell[path] = digest;
}
if (!shell['index.html']) throw new Error(`${dir} has no index.html`);
shell[''] = shell['index.html'];
const listing = Object.entries({ ...shell, ...lazy })
  .map(([path, digest]) => `${path} ${digest}\n`)
  .sort()
  .join('');
const version = hash(listing);

const placeholder = "const BUILD = { version: 'unstamped', shell: {}, lazy: {} };";
const source = readFileSync(worker, 'utf8');
if (!source.includes(placeholder)) throw new Error(`${worker}: no unstamped BUILD line to fill`);
writeFileSync(worker, source.replace(placeholder, `const BUILD = ${JSON.stringify({ version, shell, lazy })};`));
console.log(
  `offline: sw.js stamped, version ${version}, ${Object.keys(shell).length - 1} shell files, ${Object.keys(lazy).length} data files`,
);
