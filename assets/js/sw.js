// calibscope's service worker: after one visit the app loads and works offline.
// `cargo xtask dist` writes precache.json: every built file with its SHA-256, and a
// cache name derived from them (a new build, a new name). Install caches that list;
// requests of this origin are answered from the cache first. On each page load the
// worker fetches the list again (when online): a new cache name means a new build,
// which is cached, made current, and announced to the page that asked ("update
// available": the next load uses it). Nothing is fetched from elsewhere.
const META = 'calibscope-meta';
const CURRENT = './__current-cache';

async function readList() {
  const res = await fetch('./precache.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`precache.json: HTTP ${res.status}`);
  return res.json();
}

async function currentName() {
  const meta = await caches.open(META);
  const res = await meta.match(CURRENT);
  return res ? res.text() : null;
}

/** Caches every file of `list` under its cache name and makes it current. */
async function install(list) {
  const cache = await caches.open(list.cache);
  await cache.addAll(list.files.map((f) => new Request(f.name, { cache: 'reload' })));
  // the app's root is its index.html
  const index = await cache.match('index.html');
  if (index) await cache.put('./', index.clone());
  const meta = await caches.open(META);
  await meta.put(CURRENT, new Response(list.cache));
  for (const name of await caches.keys()) {
    if (name !== META && name !== list.cache && name.startsWith('calibscope-')) await caches.delete(name);
  }
}

self.addEventListener('install', (event) => {
  event.waitUntil(readList().then(install).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

let checking = null;
/** Looks for a new build; caches it and tells the pages. Asked by each page load
 * (boot.js), so the answer reaches a page that listens. */
function checkForUpdate() {
  if (checking) return checking;
  checking = (async () => {
    try {
      const list = await readList();
      const current = await currentName();
      if (list.cache === current) return;
      await install(list);
      for (const client of await self.clients.matchAll({ type: 'window' })) {
        client.postMessage({ type: 'calibscope-update', cache: list.cache });
      }
    } catch (e) {
      // offline, or the server is gone: keep the cached build
    } finally {
      checking = null;
    }
  })();
  return checking;
}

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.endsWith('/precache.json')) return;
  event.respondWith((async () => {
    const name = await currentName();
    if (name) {
      const cache = await caches.open(name);
      const key = req.mode === 'navigate' ? './' : req;
      const hit = await cache.match(key, { ignoreSearch: true });
      if (hit) {
        return hit;
      }
    }
    return fetch(req);
  })());
});

self.addEventListener('message', (event) => {
  if (event.data === 'calibscope-check') event.waitUntil(checkForUpdate());
});
