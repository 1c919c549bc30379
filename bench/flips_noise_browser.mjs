// Browser benchmark of the Ranking flips view's flips against noise: the bundled
// example (10 models on the digits) dropped and the view opened; the time from the
// click on the tab to the ranking's noise marks (computed by themselves: its metric
// at its two bin counts), then from the click on "Check these flips against noise"
// to the matrices' marks (every binned metric that flips, at every bin count): the
// worker's paired bootstrap, 1000 replicates of every model's readings, run in
// slices; then, on LinCE^cw equal-mass (the costliest: every class reading), a
// slider step of m against the pinned reference (the worker keeps the bin counts'
// replicates, so only the new m runs) and a step back to the m seen before; and the
// longest main-thread task meanwhile (the page must stay responsive). Not part of
// the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/flips_noise_browser.mjs [--runs N]
import path from 'node:path';
import { launch, openApp, idle, dropPaths, repo } from '../tests/e2e/helpers.mjs';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 1;
const file = path.join(repo, 'assets/examples/digits_zoo_probs.csv');
const browser = await launch();
const ranking = [];
const matrices = [];
const step = [];
const back = [];
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
  await page.selectOption('#flips-metric', 'lince_cw');
  await page.check('#flips-binning-mass');
  await idle(page);
  await page.locator('#flips-m-slider').focus();
  await page.keyboard.press('Home');
  await idle(page);
  const t3 = await now();
  await page.keyboard.press('ArrowRight');
  await idle(page);
  const t4 = await now();
  await page.keyboard.press('ArrowLeft');
  await idle(page);
  const t5 = await now();
  ranking.push(t1 - t0);
  matrices.push(t2 - t1);
  step.push(t4 - t3);
  back.push(t5 - t4);
  longest = Math.max(longest, await page.evaluate(() => window.__longest));
  await context.close();
}
await browser.close();
const median = (xs) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
console.log(JSON.stringify({
  runs,
  ranking_median_ms: median(ranking), ranking_ms: ranking.map(Math.round),
  matrices_median_ms: median(matrices), matrices_ms: matrices.map(Math.round),
  lince_cw_mass_step_median_ms: median(step), step_ms: step.map(Math.round),
  step_back_median_ms: median(back), back_ms: back.map(Math.round),
  longest_task_ms: Math.round(longest),
}));
