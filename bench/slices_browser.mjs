// Browser benchmark of the Slices view (issue 32's targets: the per-group table
// ≤ 1 s after the audit, brushing a bin ≤ 50 ms p95) on 1M binary rows
// `label,p,site`: 50 sites, p uniform, the predicted class right with probability
// its confidence, except in site s7, where it is 0.15 less (overconfident; drawn by a
// seeded generator, written once to bench/out/, which is not committed).
// The file is picked, grouped by site in the mapping panel, then timed:
//   table: from the click on the Slices tab to the 50 groups' rows in the table;
//   test:  from the same click to the second part: the permutation test (1000
//          permutations) and each group's verdict (1000 bootstrap replicates);
//   brush: from the click on a bin of a group's small diagram to its first page of
//          rows (the panel closed in between, so every bin is a new request); once
//          while the second part runs, then 40 times after it;
// and the longest main-thread task meanwhile. Not part of the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/slices_browser.mjs [--runs N] [--brushes N]
import { existsSync, mkdirSync, openSync, writeSync, closeSync, renameSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, idle, repo } from '../tests/e2e/helpers.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const runs = arg('--runs', 1);
const brushes = arg('--brushes', 40);
const N = 1_000_000;
const SITES = 50;

/** mulberry32: uniform doubles in [0, 1) from a 32-bit seed. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function writeInput(file) {
  if (existsSync(file)) return;
  mkdirSync(path.dirname(file), { recursive: true });
  const u = mulberry32(1);
  const tmp = file + '.part';
  const fd = openSync(tmp, 'w');
  let chunk = 'label,p,site\n';
  for (let i = 0; i < N; i++) {
    const site = Math.floor(u() * SITES);
    const p = u();
    // the predicted class is right with probability its confidence (0.15 less in s7)
    const predicted = p >= 0.5 ? 1 : 0;
    const confidence = Math.max(p, 1 - p);
    const right = u() < (site === 7 ? confidence - 0.15 : confidence);
    const y = right ? predicted : 1 - predicted;
    chunk += `${y},${p.toPrecision(12)},s${site}\n`;
    if (chunk.length > 1 << 20) { writeSync(fd, chunk); chunk = ''; }
  }
  writeSync(fd, chunk);
  closeSync(fd);
  renameSync(tmp, file);
}

const file = path.join(repo, 'bench/out/slices_1m_v2.csv');
writeInput(file);
const browser = await launch();
const tables = [];
const tests = [];
const brushMs = [];
const duringMs = [];
let longest = 0;
for (let r = 0; r < runs; r++) {
  const { context, page } = await openApp(browser, { viewport: { width: 1440, height: 900 } });
  await page.setInputFiles('#file-input', file);
  await idle(page);
  await page.locator('#mapping details.correct > summary').click();
  await page.locator('#map-groups input[value="site"]').check();
  await page.locator('#map-apply').click();
  await page.waitForFunction(() => document.querySelector('[data-field="groups"]')?.textContent === 'site', null, { timeout: 600000 });
  await idle(page);
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((l) => l.getEntries().forEach((e) => { window.__longest = Math.max(window.__longest, e.duration); }))
      .observe({ type: 'longtask', buffered: false });
  });
  // the table, then the test, timed in the page from the click
  const [table, test, during] = await page.evaluate(async (sites) => {
    const t0 = performance.now();
    document.querySelector('#tab-slices').click();
    const when = (ok) => new Promise((resolve) => {
      const check = () => (ok() ? (resolve(performance.now() - t0), true) : false);
      if (check()) return;
      const mo = new MutationObserver(() => { if (check()) mo.disconnect(); });
      mo.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const table = await when(() => document.querySelectorAll('#slices-table tbody tr').length === sites);
    // a brush while the test and the verdicts run (the worker runs them in slices)
    const button = document.querySelector('#slices-multiples figure button.bin');
    const b0 = performance.now();
    button.click();
    await when(() => document.querySelector('#slices-brush')?.dataset.bin === button.dataset.bin
      && document.querySelector('#slices-brush .brush-count'));
    const during = performance.now() - b0;
    const test = await when(() => document.querySelector('#slices')?.dataset.complete === 'true');
    document.querySelector('#slices-brush .brush-close')?.click();
    return [table, test, during];
  }, SITES);
  tables.push(table);
  tests.push(test);
  duringMs.push(during);
  await idle(page);
  const buttons = await page.locator('#slices-multiples figure button.bin').count();
  for (let b = 0; b < Math.min(brushes, buttons); b++) {
    const i = Math.floor((b * 7919) % buttons);
    const ms = await page.evaluate(async (i) => {
      document.querySelector('#slices-brush .brush-close')?.click();
      await new Promise((r) => requestAnimationFrame(() => r()));
      const button = document.querySelectorAll('#slices-multiples figure button.bin')[i];
      const bin = button.dataset.bin;
      const t0 = performance.now();
      button.click();
      return await new Promise((resolve) => {
        const check = () => {
          const p = document.querySelector('#slices-brush');
          if (p && p.dataset.bin === bin && p.querySelector('.brush-count')) { resolve(performance.now() - t0); return true; }
          return false;
        };
        if (check()) return;
        const mo = new MutationObserver(() => { if (check()) mo.disconnect(); });
        mo.observe(document.body, { subtree: true, childList: true, attributes: true });
      });
    }, i);
    brushMs.push(ms);
  }
  longest = Math.max(longest, await page.evaluate(() => window.__longest));
  await context.close();
}
await browser.close();
const q = (xs, f) => Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(f * xs.length))]);
console.log(JSON.stringify({
  rows: N, groups: SITES, runs,
  table_median_ms: q(tables, 0.5), table_ms: tables.map(Math.round),
  test_median_ms: q(tests, 0.5), test_ms: tests.map(Math.round),
  brush_during_second_part_ms: duringMs.map(Math.round),
  brushes: brushMs.length, brush_p50_ms: q(brushMs, 0.5), brush_p95_ms: q(brushMs, 0.95), brush_max_ms: q(brushMs, 1),
  longest_task_ms: Math.round(longest),
}));
