// Browser benchmark of the ranking-flips view (issue 5), not part of the test suite:
// 10 models × 100k samples (bench/run_flips_browser.sh writes the file with
// `cargo run --release --example flips_worker -- --write FILE`).
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/flips_browser.mjs --file F [--runs N] [--out R.json]
//
// Timed inside the page with performance.now():
// - curve (worker): from posting a `flips`/`curve` request to the worker to the
//   arrival of its answer on the page (the Worker constructor is wrapped by an init
//   script that timestamps both): the sweep m = 1..2000 of every model, its JSON
//   text and the transfer; an upper bound of the worker's compute time;
// - metric change: from the `change` event of #flips-metric to the end of the frame
//   that shows the new chart (the curve's answer, the chart drawn and painted);
// - slider step: from the `input` event of #flips-m-slider (a real key press) to the
//   end of the frame showing the ranking table of the new m (its `ranks.<m>.` cells
//   in the DOM, then one requestAnimationFrame and a MessageChannel message).
import { writeFileSync } from 'node:fs';
import { launch, openApp, idle } from '../tests/e2e/helpers.mjs';

function args() {
  const a = { runs: 3 };
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i++) {
    if (v[i] === '--file') a.file = v[++i];
    else if (v[i] === '--runs') a.runs = Number(v[++i]);
    else if (v[i] === '--out') a.out = v[++i];
    else throw new Error(`unknown argument ${v[i]}`);
  }
  if (!a.file) throw new Error('usage: node bench/flips_browser.mjs --file F [--runs N] [--out R]');
  return a;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
};
const r1 = (x) => Math.round(x * 10) / 10;
const summarise = (xs) => ({ n: xs.length, p50: r1(pct(xs, 50)), p95: r1(pct(xs, 95)), max: r1(Math.max(...xs)) });

/** Wraps the Worker so every flips curve request and answer is timestamped. */
function workerProbe() {
  const Base = window.Worker;
  window.__curves = [];
  window.Worker = class extends Base {
    constructor(...a) {
      super(...a);
      this.addEventListener('message', (ev) => {
        if (typeof ev.data === 'string' && ev.data.startsWith('{"flips":') && ev.data.includes('"kind":"curve"')) {
          const open = window.__curves.find((c) => c.answered === undefined);
          if (open) { open.answered = performance.now(); open.bytes = ev.data.length; }
        }
      });
    }
    postMessage(msg, ...rest) {
      if (msg && typeof msg.json === 'string' && msg.json.includes('"kind":"curve"')) {
        window.__curves.push({ sent: performance.now(), request: msg.json });
      }
      return super.postMessage(msg, ...rest);
    }
  };
}

async function timeMetricChange(page, metric) {
  return page.evaluate(async (metric) => {
    const sel = document.getElementById('flips-metric');
    const old = document.querySelector('#flips-chart .svg svg');
    const done = new Promise((resolve) => {
      const mo = new MutationObserver(() => {
        const svg = document.querySelector('#flips-chart .svg svg');
        if (svg && svg !== old) {
          mo.disconnect();
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => resolve(performance.now());
            ch.port2.postMessage(0);
          });
        }
      });
      mo.observe(document.getElementById('flips-chart'), { subtree: true, childList: true });
    });
    const t0 = performance.now();
    sel.value = metric;
    sel.dispatchEvent(new Event('change', { bubbles: true }));
    return (await done) - t0;
  }, metric);
}

async function installSliderProbe(page) {
  await page.evaluate(() => {
    const slider = document.getElementById('flips-m-slider');
    window.__step = null;
    slider.addEventListener('input', (ev) => {
      const t0 = ev.timeStamp;
      const m = slider.dataset.steps.split(',').map(Number)[Number(slider.value)];
      const metric = document.getElementById('flips-metric').value;
      const binning = document.getElementById('flips-binning-mass').checked ? 'mass' : 'width';
      const sel = `#flips-ranking [data-metric^="ranking.metrics.${metric}.${binning}.ranks.${m}."]`;
      window.__step = new Promise((resolve) => {
        const finish = () => {
          mo.disconnect();
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => resolve({ m, frame: performance.now() - t0 });
            ch.port2.postMessage(0);
          });
        };
        const mo = new MutationObserver(() => { if (document.querySelector(sel)) finish(); });
        mo.observe(document.getElementById('flips'), { subtree: true, childList: true, attributes: true });
        if (document.querySelector(sel)) finish();
      });
    });
  });
}

async function sliderRun(page) {
  await installSliderProbe(page);
  const out = [];
  const slider = page.locator('#flips-m-slider');
  await slider.focus();
  await page.keyboard.press('Home');
  await idle(page);
  const steps = (await slider.getAttribute('data-steps')).split(',').length;
  // walk the whole scale in ~60 steps (PageUp moves 10% of the range in chromium)
  for (const key of [...Array(40).fill('ArrowRight'), ...Array(10).fill('PageUp'), ...Array(10).fill('ArrowLeft')]) {
    await page.evaluate(() => { window.__step = null; });
    await page.keyboard.press(key);
    const r = await page.evaluate(() => window.__step);
    await idle(page);
    if (r) out.push({ key, ...r });
  }
  return { steps, out };
}

async function main() {
  const a = args();
  const browser = await launch();
  const result = { chromium: await browser.version(), runs: a.runs, curve_worker_ms: [], metric_change_ms: [], slider: [] };
  try {
    for (let run = 0; run < a.runs; run++) {
      const { page, context: ctx, errors } = await openApp(browser);
      try {
        await page.addInitScript(workerProbe);
        await page.reload();
        await page.waitForFunction(() => typeof window.calibscopeIdle === 'function');
        await idle(page);
        const t0 = Date.now();
        await page.setInputFiles('#file-input', a.file);
        await idle(page);
        console.log(`run ${run + 1}: file opened in ${Date.now() - t0} ms (wall clock, audits included)`);
        await page.click('#tab-flips');
        await idle(page);
        await page.waitForSelector('#flips-ranking');
        for (const metric of ['confce_corr', 'confece', 'confce', 'lince_cw', 'confce_corr']) {
          const ms = await timeMetricChange(page, metric);
          await idle(page);
          result.metric_change_ms.push({ metric, ms: r1(ms) });
        }
        // the equal-width curves (one pass over the bin edges of every m)
        await page.click('#flips-binning-width');
        await idle(page);
        for (const metric of ['confece', 'confce_corr']) {
          const ms = await timeMetricChange(page, metric);
          await idle(page);
          result.metric_change_ms.push({ metric: `${metric} (width)`, ms: r1(ms) });
        }
        await page.click('#flips-binning-mass');
        await idle(page);
        const curves = await page.evaluate(() => window.__curves);
        for (const c of curves.filter((c) => c.answered)) {
          result.curve_worker_ms.push({ request: c.request, ms: r1(c.answered - c.sent), bytes: c.bytes });
        }
        const s = await sliderRun(page);
        result.slider.push(...s.out.map((x) => ({ run: run + 1, ...x })));
        const sm = summarise(s.out.map((x) => x.frame));
        console.log(`run ${run + 1}: curves ${curves.filter((c) => c.answered).map((c) => r1(c.answered - c.sent)).join(', ')} ms; metric change ${result.metric_change_ms.slice(-7).map((x) => x.ms).join(', ')} ms; slider ${s.out.length} steps p50 ${sm.p50} p95 ${sm.p95} max ${sm.max} ms`);
        if (errors.length) console.log(`page errors: ${errors.join('; ')}`);
      } finally {
        await ctx.close();
      }
    }
  } finally {
    await browser.close();
  }
  const confOnly = result.curve_worker_ms.filter((c) => !c.request.includes('lince_cw') && !c.request.includes('"width"'));
  result.summary = {
    curve_worker_round_trip_ms_confidence_metrics: summarise(confOnly.map((c) => c.ms)),
    curve_worker_round_trip_ms_width_confidence_metrics: summarise(result.curve_worker_ms
      .filter((c) => !c.request.includes('lince_cw') && c.request.includes('"width"')).map((c) => c.ms)),
    curve_worker_round_trip_ms_all: summarise(result.curve_worker_ms.map((c) => c.ms)),
    metric_change_to_frame_ms: summarise(result.metric_change_ms.map((x) => x.ms)),
    slider_step_to_frame_ms: summarise(result.slider.map((x) => x.frame)),
  };
  console.log(JSON.stringify(result.summary, null, 2));
  if (a.out) writeFileSync(a.out, JSON.stringify(result, null, 2));
}

main().catch((e) => { console.error(e); process.exit(1); });
