// Browser benchmark of the audit's second stage (issue 29): on a binary file of N rows
// (default 1M, written once to --dir), the time from the point estimates on the page
// (the overview's accuracy shown) to the verdict sentence (the bootstrap's B = 1000
// replicates, the tests and smooth ECE, computed by the worker in slices), and the
// main thread's long tasks (> 50 ms, PerformanceObserver 'longtask') meanwhile.
// Not part of the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/verdict_browser.mjs \
//          [--rows N] [--runs R] [--dir DIR]
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, dropPaths } from '../tests/e2e/helpers.mjs';

function args() {
  const a = { rows: 1_000_000, runs: 3, dir: '/tmp/calibscope_bench' };
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i++) {
    if (v[i] === '--rows') a.rows = Number(v[++i]);
    else if (v[i] === '--runs') a.runs = Number(v[++i]);
    else if (v[i] === '--dir') a.dir = v[++i];
    else throw new Error(`unknown argument ${v[i]}`);
  }
  return a;
}

/** A binary file `label,p` of `n` rows, overconfident by a few points (seeded LCG). */
function writeBinary(file, n) {
  let s = 12345n;
  const next = () => { s = (s * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n); return Number(s >> 11n) / 2 ** 53; };
  const lines = ['label,p'];
  for (let i = 0; i < n; i++) {
    const p = next();
    const truth = 0.5 + (p - 0.5) * 0.85; // the forecasts are more extreme than the truth
    lines.push(`${next() < truth ? 1 : 0},${p.toFixed(6)}`);
  }
  writeFileSync(file, lines.join('\n') + '\n');
}

const a = args();
mkdirSync(a.dir, { recursive: true });
const file = path.join(a.dir, `binary_${a.rows}.csv`);
if (!existsSync(file)) writeBinary(file, a.rows);

const browser = await launch();
const results = [];
for (let run = 0; run < a.runs; run++) {
  const { page, context } = await openApp(browser, { viewport: { width: 1440, height: 900 } });
  await page.evaluate(() => {
    window.__bench = { long: [], point: null, verdict: null };
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__bench.long.push([e.startTime, e.duration]); })
      .observe({ type: 'longtask', buffered: false });
    const seen = () => {
      const b = window.__bench;
      const acc = document.querySelector('[data-metric="binning_free.accuracy"]');
      const file = document.querySelector('[data-metric="input.file"]');
      if (b.point === null && acc && file && file.dataset.value.startsWith('binary_')) b.point = performance.now();
      if (b.point !== null && b.verdict === null && document.querySelector('#verdict .verdict-text')) b.verdict = performance.now();
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await dropPaths(page, [file]);
  await page.waitForFunction(() => window.__bench.verdict !== null, null, { timeout: 120000 });
  const b = await page.evaluate(() => window.__bench);
  const stage = await page.getAttribute('#verdict', 'data-stage-ms');
  const during = b.long.filter(([t, d]) => t + d > b.point && t < b.verdict);
  const r = {
    run,
    point_to_verdict_ms: Math.round(b.verdict - b.point),
    stage_request_ms: stage === null ? null : Number(stage),
    long_tasks_meanwhile: during.map(([, d]) => Math.round(d)),
    text: await page.locator('#verdict .verdict-text').first().textContent(),
  };
  console.log(JSON.stringify(r));
  results.push(r);
  await context.close();
}
await browser.close();
const times = results.map((r) => r.point_to_verdict_ms).sort((x, y) => x - y);
console.log(JSON.stringify({ rows: a.rows, runs: a.runs, median_point_to_verdict_ms: times[Math.floor(times.length / 2)], max_long_task_ms: Math.max(0, ...results.flatMap((r) => r.long_tasks_meanwhile)) }));
