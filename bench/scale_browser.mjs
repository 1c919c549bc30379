// Browser benchmark of issue 9's scale inputs (written by bench/gen_scale.mjs): for
// each input, drop → first diagram (bench/browser.mjs's `dropAndTime`, Performance
// API), the peak memory of the page's renderer process (the worker runs in it) and
// the worker's wasm linear memory, then slider steps and binning toggles at that
// size (bench/browser.mjs's slider probe). Not part of the test suite; run through
// bench/run_scale_browser.sh.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT node bench/scale_browser.mjs DIR \
//          [--runs N] [--only probs|npz|npy] [--no-slider] [--out RESULT.json]
//
// Memory: before each drop the renderer's peak RSS is reset (`echo 5 >
// /proc/PID/clear_refs`), after the audit its `VmHWM` is read; "above baseline" is
// that peak minus the RSS just before the drop. The wasm memory is the worker's
// `WebAssembly.Memory` byte length (linear memory only grows: it is the peak of the
// Rust heap), read through playwright's handle on the worker.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, idle } from '../tests/e2e/helpers.mjs';
import { dropAndTime, installSliderProbe, keyStep, r1, summarise } from './browser.mjs';

const INPUTS = {
  probs: { files: ['probs_1m_x10.csv'], f32: 1e6 * 10 * 4, target: 6000 },
  npz: { files: ['logits_100k_x100.npz'], f32: 1e5 * 100 * 4, target: 2000 },
  npy: { files: ['logits_1m_x100.labels.npy', 'logits_1m_x100.logits.npy'], f32: 1e6 * 100 * 4, target: null },
};

function args() {
  const a = { runs: 1, slider: true };
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i++) {
    const k = v[i];
    if (k === '--runs') a.runs = Number(v[++i]);
    else if (k === '--only') a.only = v[++i];
    else if (k === '--no-slider') a.slider = false;
    else if (k === '--out') a.out = v[++i];
    else if (!a.dir) a.dir = k;
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.dir) throw new Error('usage: node bench/scale_browser.mjs DIR [--runs N] [--only probs|npz|npy] [--no-slider] [--out F]');
  return a;
}

/** Renderer processes (pid → command line) below the browser's process. */
function renderers(root) {
  const children = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      (children.get(ppid) || children.set(ppid, []).get(ppid)).push(Number(d));
    } catch { /* gone */ }
  }
  const out = [];
  const walk = (pid) => {
    for (const c of children.get(pid) || []) {
      try {
        if (readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('--type=renderer')) out.push(c);
      } catch { /* gone */ }
      walk(c);
    }
  };
  walk(root);
  return out;
}

const status = (pid, key) => {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`${key}:\\s+(\\d+) kB`));
  return m ? Number(m[1]) * 1024 : NaN;
};

/** The worker's wasm memory in bytes (NaN when it cannot be read). */
async function wasmBytes(page) {
  for (const w of page.workers()) {
    const b = await w.evaluate(() => {
      // wasm-bindgen's no-modules glue keeps the instance's exports on `wasm_bindgen`
      // set by the worker's start() (src/worker.rs)
      return self.__calibscopeWasmMemory?.buffer.byteLength ?? null;
    }).catch(() => null);
    if (b) return b;
  }
  return NaN;
}

async function timeSlider(page) {
  await installSliderProbe(page);
  const out = [];
  // binning toggles at the opening bin count (m = 15), then slider steps
  for (let i = 0; i < 6; i++) {
    const id = i % 2 ? '#binning-width' : '#binning-mass';
    await page.evaluate(() => { window.__bench.pending = null; });
    await page.locator(id).click();
    const r = await page.evaluate(() => window.__bench.pending);
    await idle(page);
    if (r) out.push({ what: 'toggle', key: id, ...r });
  }
  await page.locator('#m-slider').focus();
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'End', 'ArrowLeft', 'ArrowLeft', 'ArrowLeft', 'Home']) {
    const r = await keyStep(page, key);
    if (r) out.push({ what: 'slider', key, ...r });
  }
  return out;
}

async function main() {
  const a = args();
  const browser = await launch();
  // the renderers are descendants of this process (node → chromium → zygote → renderer)
  const root = process.pid;
  const result = { chromium: await browser.version(), inputs: {} };
  try {
    for (const [label, input] of Object.entries(INPUTS)) {
      if (a.only && a.only !== label) continue;
      const files = input.files.map((f) => path.join(a.dir, f));
      const res = (result.inputs[label] = { files: input.files, f32_bytes: input.f32, target_ms: input.target, runs: [] });
      for (let run = 0; run < a.runs; run++) {
        const { page, context, errors } = await openApp(browser);
        try {
          const pids = root ? renderers(root) : [];
          for (const p of pids) writeFileSync(`/proc/${p}/clear_refs`, '5');
          const base = Math.max(...pids.map((p) => status(p, 'VmRSS')));
          const d = await dropAndTime(page, files, { expectError: true });
          const peak = Math.max(...pids.map((p) => status(p, 'VmHWM')));
          const wasm = await wasmBytes(page);
          const r = {
            drop_to_first_diagram_ms: r1(d.dropToFirstDiagram),
            drop_to_read_ms: r1(d.dropToRead),
            error: d.error,
            longtasks: d.longtasks.length,
            renderer_rss_before_mb: r1(base / 1e6),
            renderer_peak_rss_mb: r1(peak / 1e6),
            peak_above_baseline_over_f32: Math.round(((peak - base) / input.f32) * 100) / 100,
            wasm_memory_mb: r1(wasm / 1e6),
            wasm_memory_over_f32: Math.round((wasm / input.f32) * 100) / 100,
          };
          console.log(`${label} run ${run + 1}: ${JSON.stringify(r)}`);
          if (a.slider && !d.error) {
            const s = await timeSlider(page);
            const ok = s.filter((x) => !x.timeout);
            r.slider = summarise(ok.filter((x) => x.what === 'slider').map((x) => x.frame));
            r.toggle = summarise(ok.filter((x) => x.what === 'toggle').map((x) => x.frame));
            r.timeouts = s.length - ok.length;
            r.steps = s;
            console.log(`${label} run ${run + 1}: slider to frame ${JSON.stringify(r.slider)}, toggle ${JSON.stringify(r.toggle)}, timeouts ${r.timeouts}`);
          }
          if (errors.length) console.log(`page errors: ${errors.join('; ')}`);
          res.runs.push(r);
        } finally {
          await context.close();
        }
      }
    }
  } finally {
    await browser.close();
  }
  if (a.out) writeFileSync(a.out, JSON.stringify(result, null, 2));
}

main().catch((e) => { console.error(e); process.exit(1); });
