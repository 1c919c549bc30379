// Boots the calibscope page: loads the Leptos app's wasm (built by `cargo xtask dist`),
// and registers the service worker (sw.js) that keeps the app working offline.
import init from './app.js';
init({ module_or_path: './app_bg.wasm' }).catch((e) => {
  const p = document.createElement('p');
  p.className = 'boot-error';
  p.setAttribute('role', 'alert');
  p.textContent = 'calibscope could not start: ' + e;
  document.body.appendChild(p);
});

/** The "update available" notice: a new build was cached by the service worker. */
function updateNotice() {
  if (document.getElementById('update-available')) return;
  const p = document.createElement('p');
  p.id = 'update-available';
  p.className = 'update-notice';
  p.setAttribute('role', 'status');
  p.textContent = 'An update of calibscope is available (saved for offline use). ';
  const b = document.createElement('button');
  b.textContent = 'Reload to use it';
  b.addEventListener('click', () => location.reload());
  p.appendChild(b);
  document.body.prepend(p);
}

if ('serviceWorker' in navigator) {
  navigator.serviceWorker.addEventListener('message', (e) => {
    if (e.data && e.data.type === 'calibscope-update') updateNotice();
  });
  navigator.serviceWorker.register('./sw.js').catch((e) => console.warn('calibscope: offline use unavailable:', e));
  // a page served by the worker asks whether a newer build is out
  if (navigator.serviceWorker.controller) navigator.serviceWorker.controller.postMessage('calibscope-check');
  // for tests: resolves once the app is cached for offline use
  window.calibscopeOfflineReady = () => navigator.serviceWorker.ready.then(() => true);
}
