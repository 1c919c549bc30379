// Browser benchmark of the Recalibrate view (issue 6): the time from the page's fit
// request to the worker's first answer (split, temperature fit, before/temperature
// ledgers, tau curve: `#recalibrate[data-first-ms]`) and to its full answer (+ Platt
// and isotonic, their ledgers, checks and maps: `data-answer-ms`), performance.now()
// on the page. The first fit runs when the view opens; each
// further run changes the split seed (a new fit on a new split).
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/recal_browser.mjs --file F [--runs N]
import { launch, openApp, idle } from '../tests/e2e/helpers.mjs';

const a = { runs: 3 };
const v = process.argv.slice(2);
for (let i = 0; i < v.length; i++) {
  if (v[i] === '--file') a.file = v[++i];
  else if (v[i] === '--runs') a.runs = Number(v[++i]);
  else throw new Error(`unknown argument ${v[i]}`);
}
if (!a.file) throw new Error('--file FILE is required');

const browser = await launch();
try {
  const { page } = await openApp(browser);
  const t0 = Date.now();
  await page.setInputFiles('#file-input', a.file);
  await idle(page);
  console.log(`opened ${a.file} in ${((Date.now() - t0) / 1000).toFixed(2)} s`);
  await page.click('#tab-recalibrate');
  const times = [];
  for (let run = 0; run < a.runs; run++) {
    if (run > 0) {
      await page.fill('#recal-seed', String(run));
      await page.locator('#recal-seed').dispatchEvent('change');
    }
    await page.waitForFunction((seed) => {
      const el = document.querySelector('#recalibrate');
      const s = document.querySelector('[data-metric="recalibration.split.seed"]');
      return el && el.dataset.answerMs && s && s.dataset.value === String(seed);
    }, run, { timeout: 600000 });
    await idle(page);
    const ms = Number(await page.getAttribute('#recalibrate', 'data-answer-ms'));
    const first = Number(await page.getAttribute('#recalibrate', 'data-first-ms'));
    const tau = await page.getAttribute('[data-metric="recalibration.temperature.tau"]', 'data-value');
    const worker = await page.$$eval('[data-metric^="recalibration.timing."]', (els) => els.map((e) => `${e.dataset.metric.split('.').pop()} ${Number(e.dataset.value).toFixed(1)}`).join(', '));
    console.log(`  worker: ${worker}`);
    times.push([first, ms]);
    console.log(`run ${run}: seed ${run}, tau* ${tau}, request -> first answer (temperature) ${first.toFixed(1)} ms, -> full answer ${ms.toFixed(1)} ms`);
  }
  for (const [i, what] of [[0, 'first answer'], [1, 'full answer']]) {
    const sorted = times.map((t) => t[i]).sort((x, y) => x - y);
    console.log(`${what}: min ${sorted[0].toFixed(1)} ms, median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms`);
  }
} finally {
  await browser.close();
}
