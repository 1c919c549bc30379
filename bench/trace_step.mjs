// Chromium trace of slider steps at large m (issue 9): drops FILE(S), then presses
// End (m 1 → m_max) and ArrowLeft several times on #m-slider while tracing
// (devtools.timeline + v8.execute), and prints, per step, the time of the main
// thread's top-level tasks by kind (the worker's message task, style, layout, paint)
// and the worker thread's busy time. Not part of the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/trace_step.mjs FILE... [--steps N]
//          [--keys End,ArrowLeft,...] [--trace OUT.json]
// (default keys: End, then N - 1 ArrowLeft)
import { writeFileSync } from 'node:fs';
import { launch, openApp } from '../tests/e2e/helpers.mjs';
import { dropAndTime, installSliderProbe, keyStep, r1, threadNames, traced } from './browser.mjs';

const argv = process.argv.slice(2);
const files = [];
let steps = 4;
let out = null;
let keys = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--steps') steps = Number(argv[++i]);
  else if (argv[i] === '--trace') out = argv[++i];
  else if (argv[i] === '--keys') keys = argv[++i].split(',');
  else files.push(argv[i]);
}
if (!files.length) throw new Error('usage: node bench/trace_step.mjs FILE... [--steps N] [--keys K,K] [--trace OUT.json]');

/** Sums complete events (ph X) of the named kinds on each thread within [t0, t1] µs. */
function breakdown(events, t0, t1) {
  const names = threadNames(events);
  const kinds = ['RunTask', 'FunctionCall', 'v8.callFunction', 'ParseHTML', 'UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit', 'RasterTask', 'HitTest'];
  const sums = {};
  for (const e of events) {
    if (e.ph !== 'X' || e.ts < t0 || e.ts > t1 || !kinds.includes(e.name)) continue;
    const th = names.get(`${e.pid}:${e.tid}`) || `${e.pid}:${e.tid}`;
    if (!/CrRendererMain|DedicatedWorker|Compositor|Raster/.test(th)) continue;
    const k = `${th.replace(/thread/i, '')} ${e.name}`;
    // thread time (tdur) where the trace has it: what preemption by other processes
    // does not inflate; wall time (dur) otherwise
    sums[k] = r1((sums[k] || 0) + (e.tdur ?? e.dur) / 1000);
  }
  return sums;
}

const browser = await launch();
try {
  const { page, context } = await openApp(browser);
  await dropAndTime(page, files, { expectError: true });
  await installSliderProbe(page);
  await page.locator('#m-slider').focus();
  for (const key of keys || ['End', ...Array(steps - 1).fill('ArrowLeft')]) {
    const { result: r, events } = await traced(context, page, () => keyStep(page, key));
    const xs = events.filter((e) => e.ph === 'X' && e.name === 'RunTask');
    const t0 = Math.min(...xs.map((e) => e.ts));
    const t1 = Math.max(...xs.map((e) => e.ts + e.dur));
    console.log(`${key}: m = ${r?.m}, rows ${r?.rows}, dom ${r1(r?.dom)} ms, frame ${r1(r?.frame)} ms`);
    console.log(JSON.stringify(breakdown(events, t0, t1), null, 1));
    if (out) writeFileSync(out, JSON.stringify({ traceEvents: events }));
  }
  await context.close();
} finally {
  await browser.close();
}
