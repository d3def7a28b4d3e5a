// A minimal static file server for the release build: `node serve.js DIR PORT`.
// Listens on 127.0.0.1 only and serves files below DIR with correct MIME types
// (application/wasm matters: streaming compilation requires it). Pages get the same
// Content-Security-Policy as index.html's meta tag, plus frame-ancestors (header only).
//
// Imported, `host({ root, folder, isolate })` serves DIR below a folder of the site (as a
// school's server or GitHub Pages would: /folder/… is DIR/…, anything else is not found) on a
// free port, and the folder served can be swapped while it runs (a new build put on the
// server). With `isolate` (or `--isolate` on the command line) every response also carries the
// cross-origin isolation headers `make serve` sends (Trunk.toml), under which the page learns
// MNIST with the threaded engine; without them, as on most static hosts, it does not.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
};

const policy = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// The headers that make a page cross-origin isolated.
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

// A server of `mount.root` at the site's path `mount.folder` ('/' or '/a/b/'), both read per
// request; `isolate`: with the isolation headers.
function server(mount, isolate = false) {
  return createServer(async (request, response) => {
    const base = resolve(mount.root);
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    if (!path.startsWith(mount.folder)) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const inside = path.slice(mount.folder.length - 1);
    const file = normalize(join(base, inside.endsWith('/') ? `${inside}index.html` : inside));
    if (file !== base && !file.startsWith(base + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      const type = types[extname(file)] ?? 'application/octet-stream';
      const headers = { 'Content-Type': type, ...(isolate ? isolation : {}) };
      if (type.startsWith('text/html')) headers['Content-Security-Policy'] = policy;
      response.writeHead(200, headers);
      response.end(body);
    } catch {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
}

// Serves `root` at `folder` on a free port of 127.0.0.1: { url (the folder's address), mount
// (set mount.root to serve another build), close() }.
export async function host({ root, folder = '/', isolate = false }) {
  const mount = { root, folder };
  const running = server(mount, isolate);
  await new Promise((done) => running.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${running.address().port}${folder}`;
  const close = () =>
    new Promise((done) => {
      running.close(done);
      running.closeAllConnections();
    });
  return { url, mount, close };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const isolate = process.argv.includes('--isolate');
  const [root = 'dist', port = '8181'] = process.argv.slice(2).filter((a) => a !== '--isolate');
  server({ root, folder: '/' }, isolate).listen(Number(port), '127.0.0.1', () =>
    console.log(`serving ${resolve(root)} on http://127.0.0.1:${port}/`),
  );
}
