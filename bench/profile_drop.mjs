// A sampling CPU profile of the page's main thread during a drop (issue 4: no task
// over 50 ms): drops FILE(S) under the V8 profiler (CDP Profiler, 100 µs samples) and
// prints, for the longest stretches of busy samples (≈ the longest tasks), the
// functions with the most self time and the app's and the DOM's functions with the
// most total time. Serve a
// `cargo xtask dist --names` build for the wasm functions' names. Not part of the
// test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/profile_drop.mjs FILE...
//          [--runs N] [--top N] [--stretches N]
import { launch, openApp } from '../tests/e2e/helpers.mjs';
import { dropAndTime, r1 } from './browser.mjs';

const argv = process.argv.slice(2);
const files = [];
let runs = 1;
let top = 15;
let stretchesShown = 3;
let onlyApp = true;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--top') top = Number(argv[++i]);
  else if (argv[i] === '--stretches') stretchesShown = Number(argv[++i]);
  else if (argv[i] === '--all-frames') onlyApp = false;
  else files.push(argv[i]);
}
if (!files.length) throw new Error('usage: node bench/profile_drop.mjs FILE... [--runs N] [--top N]');

const IDLE = new Set(['(idle)', '(program)', '(garbage collector)']);

/** The runs of consecutive non-idle samples ([from, to) indices and ms), longest first. */
function busyStretches(profile, times, byId) {
  const stretches = [];
  let from = -1;
  profile.samples.forEach((id, i) => {
    const busy = !IDLE.has(byId.get(id).callFrame.functionName);
    if (busy && from < 0) from = i;
    if ((!busy || i === profile.samples.length - 1) && from >= 0) {
      stretches.push({ from, to: i, ms: (times[i] - times[from]) / 1000 });
      from = -1;
    }
  });
  return stretches.sort((a, b) => b.ms - a.ms);
}

function report(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let t = profile.startTime;
  const times = profile.timeDeltas.map((d) => (t += d));
  for (const s of busyStretches(profile, times, byId).slice(0, stretchesShown)) reportStretch(profile, times, byId, s);
}

function reportStretch(profile, times, byId, { from, to, ms }) {
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const name = (n) => {
    const f = n.callFrame;
    const where = f.url ? `${f.url.split('/').pop()}:${f.lineNumber}` : '';
    return `${f.functionName || '(anonymous)'} ${where}`.trim();
  };
  const self = new Map();
  const total = new Map();
  for (let i = from; i < to; i++) {
    const dt = (times[i + 1] - times[i]) / 1000;
    let n = byId.get(profile.samples[i]);
    self.set(name(n), (self.get(name(n)) || 0) + dt);
    const seen = new Set();
    for (; n; n = byId.get(parent.get(n.id))) {
      const k = name(n);
      if (seen.has(k)) continue;
      seen.add(k);
      if (!onlyApp || /calibscope|^[a-z][A-Za-z]+$/.test(n.callFrame.functionName)) {
        total.set(k, (total.get(k) || 0) + dt);
      }
    }
  }
  const list = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, v]) => `    ${r1(v).toString().padStart(6)} ms  ${k.slice(0, 150)}`).join('\n');
  console.log(`  busy stretch ${r1(ms)} ms\n  self time:\n${list(self)}\n  total time (the app's functions and the DOM's):\n${list(total)}`);
}

const browser = await launch();
try {
  for (let run = 0; run < runs; run++) {
    const { page, context } = await openApp(browser);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
    await cdp.send('Profiler.start');
    const d = await dropAndTime(page, files);
    const { profile } = await cdp.send('Profiler.stop');
    console.log(`run ${run + 1}: drop → first diagram ${r1(d.dropToFirstDiagram)} ms; long tasks (observer) ${d.longtasks.map((e) => r1(e.duration)).join(', ') || 'none'}`);
    report(profile);
    await page.close();
  }
} finally {
  await browser.close();
}
