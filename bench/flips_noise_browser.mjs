// Browser benchmark of the Ranking flips view's flips against noise: the bundled
// example (10 models on the digits) dropped and the view opened; the time from the
// click on the tab to the ranking's noise marks (computed by themselves: its metric
// at its two bin counts), then from the click on "Check these flips against noise"
// to the matrices' marks (every binned metric that flips, at every bin count): the
// worker's paired bootstrap, 1000 replicates of every model's readings, run in
// slices; and the longest main-thread task meanwhile (the page must stay
// responsive). Not part of the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/flips_noise_browser.mjs [--runs N]
import path from 'node:path';
import { launch, openApp, idle, dropPaths, repo } from '../tests/e2e/helpers.mjs';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 1;
const file = path.join(repo, 'assets/examples/digits_zoo_probs.csv');
const browser = await launch();
const ranking = [];
const matrices = [];
let longest = 0;
const settled = (page) => page.waitForFunction(() => !document.querySelector('#flips-noise-status')
  && document.querySelectorAll('[data-metric$=".within_noise"]').length > 0
  && !document.querySelector('.noise-mark.pending'), null, { timeout: 600000, polling: 50 });
for (let r = 0; r < runs; r++) {
  const { context, page } = await openApp(browser);
  await dropPaths(page, [file]);
  await idle(page);
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((l) => l.getEntries().forEach((e) => { window.__longest = Math.max(window.__longest, e.duration); }))
      .observe({ type: 'longtask', buffered: false });
  });
  const now = () => page.evaluate(() => performance.now());
  const t0 = await now();
  await page.click('#tab-flips');
  await settled(page);
  const t1 = await now();
  await page.click('#flips-noise-check-matrices');
  await page.waitForFunction(() => document.querySelector('#flips-noise-check-matrices')?.textContent.trim() === 'Checked against noise',
    null, { timeout: 600000, polling: 50 });
  await settled(page);
  const t2 = await now();
  ranking.push(t1 - t0);
  matrices.push(t2 - t1);
  longest = Math.max(longest, await page.evaluate(() => window.__longest));
  await context.close();
}
await browser.close();
const median = (xs) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
console.log(JSON.stringify({
  runs,
  ranking_median_ms: median(ranking), ranking_ms: ranking.map(Math.round),
  matrices_median_ms: median(matrices), matrices_ms: matrices.map(Math.round),
  longest_task_ms: Math.round(longest),
}));
