// The offline classroom: a service worker that keeps one build of the page in one cache, so
// after one visit the page opens and works with the network off.
//
// - BUILD (below) is written into the built copy of this file after every Trunk build by
//   scripts/offline_stamp.mjs: the build's version (a hash over every file's content, so it
//   changes with the hashed wasm and JS names and with any unhashed www/ file) and each
//   file's content hash. A new build is therefore a new sw.js, which the browser installs
//   beside the old one.
// - Install fetches the whole shell (every file of the build but data/) into the cache
//   `boltzlab-<version>`, bypassing the HTTP cache, and checks each file's hash: a file of
//   another build (the server was updated meanwhile) fails the install, which the browser
//   retries later. The cache holds the shell and nothing else.
// - Files under data/ (the MNIST images) are not this worker's: they pass to the network
//   untouched. The page keeps the MNIST file in a cache of its own (www/machine/mnist.js:
//   checked by its SHA-256, named outside this worker's prefix so it outlives versions), so
//   the 6.9 MB are stored once.
// - The page is served from the cache first, so a page runs one build whole: the new version
//   takes over only when no page of the old one is open (or when the only one reloads), and
//   on taking over it deletes every older cache. Old wasm is never served to new JS.
// - A build that was not stamped (BUILD.version 'unstamped') caches nothing.
const BUILD = { version: 'unstamped', shell: {} };

const PREFIX = 'boltzlab-';
const CACHE = `${PREFIX}${BUILD.version}`;
const SCOPE = new URL(self.registration.scope);
const at = (path) => new URL(path, SCOPE).href;
// Every shell file by its address ('' is the page itself, the scope's address).
const SHELL = new Map(Object.entries(BUILD.shell).map(([path, hash]) => [at(path), hash]));

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
}

// Fetches one file of this build from the network and checks it is this build's.
async function fetchChecked(url, hash) {
  const response = await fetch(url, { cache: 'reload' });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const got = await sha256(await response.clone().arrayBuffer());
  if (got !== hash) throw new Error(`${url} is not this build's (content ${got}, expected ${hash})`);
  return response;
}

async function install() {
  if (BUILD.version === 'unstamped') return;
  const cache = await caches.open(CACHE);
  // All files first, then the cache: a failed fetch leaves no half-filled version behind.
  const files = await Promise.all([...SHELL].map(async ([url, hash]) => [url, await fetchChecked(url, hash)]));
  await Promise.all(files.map(([url, response]) => cache.put(url, response)));
}

async function activate() {
  for (const name of await caches.keys()) {
    if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
  }
  // The first visit's page (loaded from the network, this same build) is served from now on.
  await self.clients.claim();
}

self.addEventListener('install', (event) => event.waitUntil(install()));
self.addEventListener('activate', (event) => event.waitUntil(activate()));
// Sent by this worker to a waiting new version when the only open page reloads.
self.addEventListener('message', (event) => {
  if (event.data === 'boltzlab-take-over') self.skipWaiting();
});

// The hand-over page's one script: it loads the page again once the new version has taken
// over, that is when the registration has no waiting version and its active one is
// 'activated' (polled every 50 ms), or after 10 s at most. Reloading at once sent the reload
// into the change-over: the page's script found the new version still 'activating' (its
// activate handler deletes the old cache and claims the pages) for about 1.4 s under load,
// and twice in full test runs under load a reload made then had not finished loading after
// more than a minute. location.reload() keeps the address's fragment (the state link); a
// Refresh header or a meta refresh to the same address would be a jump within this empty page
// instead, and the page would stay blank.
const RELOAD = `let gone = false;
const go = () => {
  if (!gone) {
    gone = true;
    location.reload();
  }
};
const check = () =>
  navigator.serviceWorker.getRegistration().then((registration) => {
    if (!registration || (!registration.waiting && registration.active?.state === 'activated')) go();
    else if (!gone) setTimeout(check, 50);
  }, go);
check();
setTimeout(go, 10000);`;

// A reload of the only open page hands over to a waiting new version: it takes over, and the
// page loads again, wholly from the new version.
async function handOver() {
  const waiting = self.registration.waiting;
  if (!waiting || (await self.clients.matchAll()).length > 1) return null;
  waiting.postMessage('boltzlab-take-over');
  // A page that only reloads itself, once the new version has taken over (RELOAD). Its script
  // is inline (allowed by its hash), so the page asks for nothing while the versions change
  // over: a script file it fetched would be a request in flight that the change-over waits on.
  const hash = btoa(
    String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(RELOAD)))),
  );
  const page = `<!doctype html><html lang="en"><meta charset="utf-8"><title>boltzlab</title><script>${RELOAD}</script></html>`;
  return new Response(page, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `default-src 'none'; script-src 'sha256-${hash}'`,
    },
  });
}

// A shell file from this version's cache (the network's answer only if the cache lost it: it
// is not kept, so the cache never holds a file of another build).
async function respond(request) {
  const url = new URL(request.url);
  url.hash = '';
  const cache = await caches.open(CACHE);
  if (request.mode === 'navigate') {
    const handed = await handOver();
    if (handed) return handed;
    // The page with any query (?lesson=…, ?notes=…) is the one page of the shell.
    if (url.pathname === SCOPE.pathname || url.href === at(`index.html${url.search}`)) {
      const page = await cache.match(SCOPE.href);
      if (page) return page;
    }
  }
  return (await cache.match(url.href)) ?? fetch(request);
}

// Whether this version answers `request`: a GET of a shell file, or a navigation below the
// scope (the page and its addresses with a query, or a waiting version's hand-over).
function answers(request) {
  if (BUILD.version === 'unstamped' || request.method !== 'GET') return false;
  const url = new URL(request.url);
  url.hash = '';
  return SHELL.has(url.href) || (request.mode === 'navigate' && url.href.startsWith(SCOPE.href));
}

self.addEventListener('fetch', (event) => {
  // Anything else (data/, other sites) goes its own way.
  if (answers(event.request)) event.respondWith(respond(event.request));
});
