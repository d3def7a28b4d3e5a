// What the page benchmarks share: the built page served on 127.0.0.1 (tests/e2e/serve.js) on a
// free port or BENCH_PORT, and the median, min and max of repeated figures.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nothing listens on now. */
const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(String(port)));
    });
  });

/**
 * Serves the folder given as the first argument (else `dist`) on the port given as the second
 * (else BENCH_PORT, else a free one); resolves once the server answers.
 * @param {string} dist the folder when no argument names one
 * @returns {Promise<{port: string, server: import('node:child_process').ChildProcess}>}
 */
export async function serveDist(dist) {
  const [folder = dist, port = process.env.BENCH_PORT ?? (await freePort())] = process.argv.slice(2);
  const server = spawn(process.execPath, ['tests/e2e/serve.js', folder, port], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    server.stdout.once('data', resolve);
    server.once('exit', (code) => reject(new Error(`the server stopped (${code})`)));
  });
  return { port, server };
}

export const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
// (A NaN, as the page's input delay when no effect was seen, counts in the maximum.)
export const summary = (v) => ({ median: median(v), min: Math.min(...v), max: Math.max(...v) });
