// Chromium trace of one drop (issue 4: the main thread never blocks > 50 ms during a
// 100 MB parse): drops FILE(S) while tracing (devtools.timeline + v8.execute) and
// prints the main thread's top-level tasks over THRESHOLD ms (default 30), each with
// the time of its kinds of work (script, style, layout, paint) and its longest
// script calls. Not part of the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/trace_drop.mjs FILE...
//          [--threshold MS] [--runs N] [--trace OUT.json]
import { writeFileSync } from 'node:fs';
import { launch, openApp } from '../tests/e2e/helpers.mjs';
import { dropAndTime, r1, threadNames, TIMELINE, traced } from './browser.mjs';

const argv = process.argv.slice(2);
const files = [];
let threshold = 30;
let runs = 1;
let out = null;
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--threshold') threshold = Number(argv[++i]);
  else if (argv[i] === '--runs') runs = Number(argv[++i]);
  else if (argv[i] === '--trace') out = argv[++i];
  else files.push(argv[i]);
}
if (!files.length) throw new Error('usage: node bench/trace_drop.mjs FILE... [--threshold MS] [--runs N] [--trace OUT.json]');

/** The main thread's RunTask events over `threshold` ms, with what they contain. */
function longTasks(events) {
  const names = threadNames(events);
  const main = events.filter((e) => e.ph === 'X' && /CrRendererMain/.test(names.get(`${e.pid}:${e.tid}`) || ''));
  const tasks = main.filter((e) => e.name === 'RunTask' && e.dur / 1000 > threshold);
  return tasks.map((t) => {
    const inside = main.filter((e) => e !== t && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur);
    // every kind of event inside it (nested kinds overlap), the 12 longest in total
    const sums = {};
    for (const e of inside) sums[e.name] = (sums[e.name] || 0) + e.dur / 1000;
    const kinds = Object.fromEntries(Object.entries(sums).sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => [k, r1(v)]));
    const calls = inside
      .filter((e) => e.name === 'FunctionCall' || e.name === 'v8.callFunction')
      .sort((a, b) => b.dur - a.dur)
      .slice(0, 4)
      .map((e) => `${r1(e.dur / 1000)} ms ${e.args?.data?.functionName || ''}@${(e.args?.data?.url || '').split('/').pop()}:${e.args?.data?.lineNumber ?? ''}`);
    const layouts = inside
      .filter((e) => e.name === 'Layout' && e.dur > 5000)
      .map((e) => `layout ${r1(e.dur / 1000)} ms: ${e.args?.beginData?.dirtyObjects ?? '?'} of ${e.args?.beginData?.totalObjects ?? '?'} objects`);
    return { ms: r1(t.dur / 1000), kinds, calls: [...calls, ...layouts] };
  });
}

const browser = await launch();
try {
  for (let run = 0; run < runs; run++) {
    const { page, context } = await openApp(browser);
    // with V8's compilations and collections, which can lengthen a task
    const { result: d, events } = await traced(context, page, () => dropAndTime(page, files),
      `${TIMELINE},v8,disabled-by-default-v8.gc`);
    console.log(`run ${run + 1}: drop → first diagram ${r1(d.dropToFirstDiagram)} ms; long tasks (observer) ${d.longtasks.map((e) => r1(e.duration)).join(', ') || 'none'}`);
    for (const t of longTasks(events)) console.log(`  task ${t.ms} ms: ${JSON.stringify(t.kinds)}\n    ${t.calls.join('\n    ')}`);
    if (out) writeFileSync(out.replace(/(\.json)?$/, `.${run + 1}.json`), JSON.stringify(events));
    await page.close();
  }
} finally {
  await browser.close();
}
