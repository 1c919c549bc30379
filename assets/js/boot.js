// Boots the calibscope page: loads the Leptos app's wasm (built by `cargo xtask dist`).
import init from './app.js';
init({ module_or_path: './app_bg.wasm' }).catch((e) => {
  const p = document.createElement('p');
  p.className = 'boot-error';
  p.setAttribute('role', 'alert');
  p.textContent = 'calibscope could not start: ' + e;
  document.body.appendChild(p);
});
