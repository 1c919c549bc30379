// The calibscope Web Worker (a module worker): loads the worker's wasm, whose main()
// installs the message handler and posts the Ready handshake. Messages that arrive
// before that are queued here and replayed, so none is lost during start-up.
import init from './worker.js';

const early = [];
self.onmessage = (e) => early.push(e);
init({ module_or_path: './worker_bg.wasm' })
  .then(() => {
    for (const e of early) self.onmessage(e);
  })
  .catch((e) => {
    self.postMessage(JSON.stringify({ panic: { message: 'the worker could not start: ' + e } }));
  });
