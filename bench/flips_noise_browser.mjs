// Browser benchmark of the Ranking flips view's flips against noise: the bundled
// example (10 models on the digits) dropped and the view opened; the time from the
// click on the tab to the last noise mark (the worker's paired bootstrap, 1000
// replicates of every model's readings, run in slices), and the longest main-thread
// task meanwhile (the page must stay responsive). Not part of the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/flips_noise_browser.mjs [--runs N]
import path from 'node:path';
import { launch, openApp, idle, dropPaths, repo } from '../tests/e2e/helpers.mjs';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 1;
const file = path.join(repo, 'assets/examples/digits_zoo_probs.csv');
const browser = await launch();
const times = [];
let longest = 0;
for (let r = 0; r < runs; r++) {
  const { context, page } = await openApp(browser);
  await dropPaths(page, [file]);
  await idle(page);
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((l) => l.getEntries().forEach((e) => { window.__longest = Math.max(window.__longest, e.duration); }))
      .observe({ type: 'longtask', buffered: false });
  });
  const t0 = await page.evaluate(() => performance.now());
  await page.click('#tab-flips');
  await page.waitForFunction(() => !document.querySelector('#flips-noise-status')
    && document.querySelectorAll('[data-metric$=".within_noise"]').length > 0
    && !document.querySelector('.noise-mark.pending'), null, { timeout: 600000, polling: 50 });
  const t1 = await page.evaluate(() => performance.now());
  times.push(t1 - t0);
  longest = Math.max(longest, await page.evaluate(() => window.__longest));
  await context.close();
}
await browser.close();
times.sort((a, b) => a - b);
console.log(JSON.stringify({ runs, median_ms: Math.round(times[Math.floor(times.length / 2)]), times_ms: times.map(Math.round), longest_task_ms: Math.round(longest) }));
