// Browser benchmark of the beyond-ECE lab (issue 7): the "Repeat R times" run of one
// generator cell, timed on the page (performance.now from the request to its answer,
// the value the page shows as lab.beyond.repeat.ms), median of --runs runs per cell.
//
// Usage: serve dist/ (target/release/xtask serve --port 0 --port-file F), then
//   CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/labs.mjs [--runs 5]
import { launch, openApp, idle, valueOf } from '../tests/e2e/helpers.mjs';

const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] || 5) || 5;
const cells = [
  ['uniform', 'perfect', 10000, 100],
  ['skew_high', 'overconf_sqrt', 10000, 100],
  ['uniform', 'perfect', 100000, 100],
];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await launch();
try {
  const { page } = await openApp(browser);
  await page.click('#tab-beyond-lab');
  await idle(page);
  for (const [dist, mode, n, reps] of cells) {
    await page.selectOption('#beyond-dist', dist);
    await page.selectOption('#beyond-mode', mode);
    await page.fill('#beyond-n', String(n));
    await page.dispatchEvent('#beyond-n', 'change');
    await page.fill('#beyond-reps', String(reps));
    await page.dispatchEvent('#beyond-reps', 'change');
    await idle(page);
    const times = [];
    for (let r = 0; r < runs; r++) {
      await page.click('#beyond-repeat');
      await idle(page);
      times.push(Number(await valueOf(page, 'lab.beyond.repeat.ms')));
    }
    console.log(`${dist}/${mode} N=${n} x ${reps}: median ${median(times).toFixed(1)} ms (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`);
  }
  // one generator run at N = 1,000,000 (histogram, reliability, risk, AUC, ROC)
  await page.selectOption('#beyond-dist', 'uniform');
  await page.selectOption('#beyond-mode', 'perfect');
  const t0 = await page.evaluate(() => performance.now());
  await page.fill('#beyond-n', '1000000');
  await page.dispatchEvent('#beyond-n', 'change');
  await idle(page);
  const t1 = await page.evaluate(() => performance.now());
  console.log(`one generator run, N = 1,000,000, to the drawn charts: ${(t1 - t0).toFixed(0)} ms`);
} finally {
  await browser.close();
}
