// A minimal static file server for the release build: `node serve.js DIR PORT`.
// Listens on 127.0.0.1 only and serves files below DIR with correct MIME types
// (application/wasm matters: streaming compilation requires it). Pages get the same
// Content-Security-Policy as index.html's meta tag, plus frame-ancestors (header only).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const [root = 'dist', port = '8181'] = process.argv.slice(2);
const base = resolve(root);
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

createServer(async (request, response) => {
  const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
  const file = normalize(join(base, path.endsWith('/') ? `${path}index.html` : path));
  if (file !== base && !file.startsWith(base + sep)) {
    response.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    const type = types[extname(file)] ?? 'application/octet-stream';
    const headers = { 'Content-Type': type };
    if (type.startsWith('text/html')) headers['Content-Security-Policy'] = policy;
    response.writeHead(200, headers);
    response.end(body);
  } catch {
    response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
  }
}).listen(Number(port), '127.0.0.1', () => console.log(`serving ${base} on http://127.0.0.1:${port}/`));
