// The calibscope Web Worker (a module worker): loads the app's wasm — the same module
// as the page's — and calls its workerStart(), which installs the message handler and
// posts the Ready handshake. Messages that arrive before that are queued here and
// replayed, so none is lost during start-up.
import init, { workerStart } from './app.js';

const early = [];
self.onmessage = (e) => early.push(e);
init({ module_or_path: './app_bg.wasm' })
  .then(() => {
    workerStart();
    for (const e of early) self.onmessage(e);
  })
  .catch((e) => {
    self.postMessage(JSON.stringify({ panic: { message: 'the worker could not start: ' + e } }));
  });
