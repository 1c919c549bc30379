// Browser benchmark of the calibscope page (issue 4): slider re-render time on a
// 1M-row binary file, main-thread long tasks and drop-to-first-diagram time while a
// ~100 MB file is read. Not part of the test suite; run through bench/run_browser.sh,
// which builds and serves the app and generates the inputs.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/browser.mjs \
//          --binary FILE_1M.csv --big FILE_100MB.csv [--runs N] [--out RESULT.json]
//
// Everything is timed inside the page with performance.now():
// - slider step: from the `input` event of #m-slider (a real key press through
//   playwright's keyboard, event.timeStamp) to the end of the frame that shows the
//   new table: the moment the reliability table of the new m and a new chart SVG are
//   in the DOM (MutationObserver), then one requestAnimationFrame (style, layout and
//   paint of that frame follow it) and a MessageChannel message (runs after the frame).
// - drop: from the `drop` event dispatched on the page (a real DataTransfer holding a
//   disk-backed File) to the end of the first frame that shows the new file's chart
//   (same detection), with a PerformanceObserver of 'longtask' entries (main-thread
//   tasks > 50 ms), 'long-animation-frame' entries (frames > 50 ms, rendering
//   included) and the longest gap between animation frames over the same span.
// Options: --slider-only (skip the ~100 MB file); BENCH_HIDE=table|chart (diagnosis:
// takes the reliability table or the chart out of the layout during the slider run).
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openApp, idle } from '../tests/e2e/helpers.mjs';

function args() {
  const a = { runs: 3 };
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i++) {
    const k = v[i];
    if (k === '--binary') a.binary = v[++i];
    else if (k === '--big') a.big = v[++i];
    else if (k === '--runs') a.runs = Number(v[++i]);
    else if (k === '--out') a.out = v[++i];
    else if (k === '--slider-only') a.sliderOnly = true;
    else throw new Error(`unknown argument ${k}`);
  }
  return a;
}

export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  // nearest rank
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
export const median = (xs) => pct(xs, 50);
export const r1 = (x) => Math.round(x * 10) / 10;

/** Drops `file` (a path on disk, or several paths dropped together) on the page as
 * a person would and times it. With `expectError`, the drop ends at the error panel
 * (its text is returned) instead of the diagram. */
/** The Chromium trace categories of the timeline (tasks, scripts, style, layout, paint). */
export const TIMELINE = 'devtools.timeline,v8.execute,disabled-by-default-devtools.timeline';

/** Runs `fn()` while `page` is traced with `categories`; returns its result and the
 * trace's events. */
export async function traced(context, page, fn, categories = TIMELINE) {
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...d.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { categories, transferMode: 'ReportEvents' });
  const result = await fn();
  await cdp.send('Tracing.end');
  await done;
  await cdp.detach();
  return { result, events };
}

/** A trace's thread names by `pid:tid`. */
export function threadNames(events) {
  const names = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, e.args.name);
  return names;
}

export async function dropAndTime(page, file, { expectError = false } = {}) {
  const files = Array.isArray(file) ? file : [file];
  // disk-backed Files: playwright hands the paths to chromium (no copy through JS)
  await page.evaluate(() => {
    const input = document.createElement('input');
    input.type = 'file';
    input.id = 'bench-input';
    input.multiple = true;
    input.hidden = true;
    document.body.append(input);
  });
  await page.setInputFiles('#bench-input', files);
  return page.evaluate(async ([names, expectError]) => {
    const list = [...document.getElementById('bench-input').files];
    const longtasks = [];
    const po = new PerformanceObserver((l) => {
      for (const e of l.getEntries()) longtasks.push({ start: e.startTime, duration: e.duration });
    });
    po.observe({ type: 'longtask' });
    // long animation frames (> 50 ms, rendering included), for the record
    const loafs = [];
    const lo = new PerformanceObserver((l) => {
      for (const e of l.getEntries()) loafs.push({ start: e.startTime, duration: e.duration });
    });
    lo.observe({ type: 'long-animation-frame' });
    let maxGap = 0;
    let frames = 0;
    let last = performance.now();
    let running = true;
    const tick = (t) => {
      if (!running) return;
      maxGap = Math.max(maxGap, t - last);
      last = t;
      frames += 1;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => { last = t; requestAnimationFrame(tick); });
    const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => resolve(performance.now());
      ch.port2.postMessage(0);
    }));
    let t0 = 0;
    let tRead = NaN; // the progress bar at 100%: the worker has read every byte
    let errorText = null;
    const shown = new Promise((resolve, reject) => {
      const check = () => {
        const bar = document.querySelector('#progress-bar');
        if (bar && Number.isNaN(tRead) && bar.getAttribute('value') === bar.getAttribute('max')) tRead = performance.now();
        const err = document.querySelector('#error');
        if (err && expectError) { mo.disconnect(); resolve(performance.now()); errorText = err.innerText; return; }
        if (err) { mo.disconnect(); reject(new Error(`error shown: ${err.innerText}`)); return; }
        const f = document.querySelector('[data-metric="input.file"]');
        if (f && names.every((n) => f.dataset.value.includes(n)) && document.querySelector('#chart .svg svg')
          && document.querySelector('#reliability-table tbody tr')) {
          mo.disconnect();
          resolve(performance.now());
        }
      };
      const mo = new MutationObserver(check);
      mo.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(f);
    t0 = performance.now();
    for (const type of ['dragenter', 'dragover', 'drop']) {
      document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
    const tDom = await shown;
    const tFrame = await afterFrame();
    await window.calibscopeIdle();
    running = false;
    for (const e of po.takeRecords()) longtasks.push({ start: e.startTime, duration: e.duration });
    po.disconnect();
    for (const e of lo.takeRecords()) loafs.push({ start: e.startTime, duration: e.duration });
    lo.disconnect();
    const lt = longtasks.filter((e) => e.start >= t0);
    const lf = loafs.filter((e) => e.start >= t0);
    document.getElementById('bench-input').remove();
    return {
      bytes: list.reduce((s, f) => s + f.size, 0),
      error: errorText,
      dropToRead: tRead - t0,
      dropToDom: tDom - t0,
      dropToFirstDiagram: tFrame - t0,
      longtasks: lt,
      longAnimationFrames: lf,
      maxFrameGap: maxGap,
      frames,
    };
  }, [files.map((f) => path.basename(f)), expectError]);
}

/** Installs the slider probe: each `input` event of #m-slider starts a timing that
 * ends after the frame showing the table of the new m. */
export async function installSliderProbe(page) {
  await page.evaluate(() => {
    const slider = document.getElementById('m-slider');
    window.__bench = { pending: null };
    const probe = (ev) => {
      const t0 = ev.timeStamp;
      const steps = slider.dataset.steps.split(',').map(Number);
      const m = steps[Number(slider.value)];
      const binning = document.getElementById('binning-mass')?.checked ? 'mass' : 'width';
      const reading = document.getElementById('reading-select')?.value || 'confidence';
      const sel = `#reliability-table [data-metric^="reliability.${reading}.${binning}_${m}."]`;
      const oldSvg = document.querySelector('#chart .svg svg');
      window.__bench.pending = new Promise((resolve) => {
        let done = false;
        const finish = (tDom) => {
          if (done) return;
          done = true;
          mo.disconnect();
          clearTimeout(timer);
          requestAnimationFrame(() => {
            const ch = new MessageChannel();
            ch.port1.onmessage = () => {
              const rows = Number(document.getElementById('reliability-table')?.dataset.rows ?? 0);
              resolve({ m, rows, dom: tDom - t0, frame: performance.now() - t0 });
            };
            ch.port2.postMessage(0);
          });
        };
        const check = () => {
          const svg = document.querySelector('#chart .svg svg');
          if (document.querySelector(sel) && svg && svg !== oldSvg) finish(performance.now());
        };
        const mo = new MutationObserver(check);
        mo.observe(document.getElementById('explorer'), { subtree: true, childList: true, attributes: true });
        const timer = setTimeout(() => { if (!done) { done = true; mo.disconnect(); resolve({ m, timeout: true }); } }, 10000);
        check();
      });
    };
    slider.addEventListener('input', probe);
    // the binning toggle: same timing (a new table and chart for the same m)
    for (const id of ['binning-width', 'binning-mass']) document.getElementById(id)?.addEventListener('change', probe);
  });
}

/** One slider step by keyboard; returns its timing (or null if m did not change). */
export async function keyStep(page, key) {
  await page.evaluate(() => { window.__bench.pending = null; });
  await page.keyboard.press(key);
  const r = await page.evaluate(() => window.__bench.pending);
  await idle(page);
  return r;
}

/** Moves the slider to position `index` without timing it (as the tests' setM). */
async function jump(page, index) {
  await page.locator('#m-slider').fill(String(index));
  await idle(page);
}

export async function sliderRun(page) {
  await installSliderProbe(page);
  const steps = (await page.getAttribute('#m-slider', 'data-steps')).split(',').map(Number);
  const last = steps.length - 1;
  const out = [];
  await page.locator('#m-slider').focus();
  // 10 arrow steps from several places along the log scale (m = 1 … m_max),
  // plus Home/End jumps: every timed step is a key press on the focused slider.
  const starts = [0, Math.round(last * 0.15), Math.round(last * 0.4), Math.round(last * 0.6), Math.round(last * 0.8)];
  for (const s of starts) {
    await jump(page, s);
    await page.locator('#m-slider').focus();
    for (let i = 0; i < 10; i++) {
      const r = await keyStep(page, 'ArrowRight');
      if (r) out.push({ key: 'ArrowRight', ...r });
    }
  }
  await jump(page, last);
  await page.locator('#m-slider').focus();
  for (let i = 0; i < 10; i++) {
    const r = await keyStep(page, 'ArrowLeft');
    if (r) out.push({ key: 'ArrowLeft', ...r });
  }
  for (const key of ['Home', 'End', 'Home', 'End']) {
    const r = await keyStep(page, key);
    if (r) out.push({ key, ...r });
  }
  return out;
}

export function summarise(xs) {
  return { n: xs.length, p50: r1(pct(xs, 50)), p95: r1(pct(xs, 95)), max: r1(Math.max(...xs)) };
}

async function main() {
  const a = args();
  if (!a.binary || !a.big) throw new Error('usage: node bench/browser.mjs --binary FILE --big FILE [--runs N] [--out F]');
  const browser = await launch();
  const ua = await browser.version();
  const result = { chromium: ua, runs: a.runs, files: {}, drops: {}, slider: [] };
  for (const f of [a.binary, a.big]) result.files[path.basename(f)] = statSync(f).size;
  try {
    for (let run = 0; run < a.runs; run++) {
      for (const [label, file] of a.sliderOnly ? [['binary_1m', a.binary]] : [['binary_1m', a.binary], ['big_100mb', a.big]]) {
        const { page, context, errors } = await openApp(browser);
        try {
          const d = await dropAndTime(page, file);
          (result.drops[label] ||= []).push(d);
          const lmax = d.longtasks.reduce((x, e) => Math.max(x, e.duration), 0);
          console.log(`run ${run + 1} ${label}: drop→first diagram ${r1(d.dropToFirstDiagram)} ms (file read at ${r1(d.dropToRead)} ms); long tasks ${d.longtasks.length}, longest ${r1(lmax)} ms; long animation frames ${d.longAnimationFrames.length}, longest ${r1(d.longAnimationFrames.reduce((x, e) => Math.max(x, e.duration), 0))} ms; longest gap between frames ${r1(d.maxFrameGap)} ms (${d.frames} frames)`);
          if (label === 'binary_1m') {
            // diagnosis only: BENCH_HIDE=table|chart takes one of them out of the layout
            if (process.env.BENCH_HIDE) {
              await page.evaluate((sel) => document.styleSheets[0].insertRule(`${sel} { display: none }`), process.env.BENCH_HIDE === 'table' ? '#reliability-table' : '#chart .svg');
            }
            const s = await sliderRun(page);
            result.slider.push(...s.map((x) => ({ run: run + 1, ...x })));
            const ok = s.filter((x) => !x.timeout);
            const sm = summarise(ok.map((x) => x.frame));
            console.log(`run ${run + 1} slider: ${ok.length} steps (${s.length - ok.length} timeouts), to frame p50 ${sm.p50} p95 ${sm.p95} max ${sm.max} ms`);
          }
          if (errors.length) console.log(`page errors: ${errors.join('; ')}`);
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
  }
  // summary
  const ok = result.slider.filter((x) => !x.timeout);
  const byRange = (lo, hi) => ok.filter((x) => x.m >= lo && x.m <= hi).map((x) => x.frame);
  result.summary = {
    slider_to_frame_ms: summarise(ok.map((x) => x.frame)),
    slider_to_dom_ms: summarise(ok.map((x) => x.dom)),
    slider_timeouts: result.slider.length - ok.length,
    slider_by_m: {
      '1-30': summarise(byRange(1, 30)),
      '31-300': summarise(byRange(31, 300)),
      '301-2000': summarise(byRange(301, 1e9)),
    },
  };
  for (const [label, ds] of Object.entries(result.drops)) {
    const longest = ds.map((d) => d.longtasks.reduce((x, e) => Math.max(x, e.duration), 0));
    result.summary[label] = {
      drop_to_first_diagram_ms_median: r1(median(ds.map((d) => d.dropToFirstDiagram))),
      drop_to_first_diagram_ms_all: ds.map((d) => r1(d.dropToFirstDiagram)),
      drop_to_read_ms_all: ds.map((d) => r1(d.dropToRead)),
      longtask_count_all: ds.map((d) => d.longtasks.length),
      longest_task_ms_all: longest.map(r1),
      long_animation_frame_count_all: ds.map((d) => d.longAnimationFrames.length),
      longest_animation_frame_ms_all: ds.map((d) => r1(d.longAnimationFrames.reduce((x, e) => Math.max(x, e.duration), 0))),
      longest_frame_gap_ms_all: ds.map((d) => r1(d.maxFrameGap)),
    };
  }
  console.log(JSON.stringify(result.summary, null, 2));
  if (a.out) writeFileSync(a.out, JSON.stringify(result, null, 2));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => { console.error(e); process.exit(1); });
}
