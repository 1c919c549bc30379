// On each `input` of the slider: a request to the worker, and a requestAnimationFrame
// (the first frame after the key press). Records when the reply arrives and whether
// that frame came first.
const name = 'input-deferral-' + Math.random().toString(36).slice(2);
const worker = new Worker('worker.js', { name });
const ch = new MessageChannel();
worker.postMessage({ port: ch.port2 }, [ch.port2]);
const channel = new BroadcastChannel(name);
window.results = [];
window.via = 'postMessage';
let frame = null;
const reply = (d) => {
  const now = performance.now();
  window.results.push({ via: d.via, reply_ms: now - d.t, after_frame: frame !== null && frame <= now });
};
worker.onmessage = (e) => reply(e.data);
ch.port1.onmessage = (e) => reply(e.data);
channel.onmessage = (e) => reply(e.data);
document.getElementById('r').addEventListener('input', (ev) => {
  frame = null;
  requestAnimationFrame(() => { frame = performance.now(); });
  worker.postMessage({ via: window.via, t: ev.timeStamp });
});
