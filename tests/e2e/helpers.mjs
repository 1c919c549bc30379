// Helpers of the calibscope browser tests: Debian's chromium driven by
// playwright-core, fixture files dropped through a real DataTransfer, displayed
// data-values compared with the fixtures' expected JSON under their tolerance rules.
import { readFileSync, mkdirSync, existsSync } from 'node:fs';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '../..');
export const shared = process.env.CALIBSCOPE_SHARED
  ? path.resolve(process.env.CALIBSCOPE_SHARED)
  : path.resolve(repo, '../shared');
export const fixtures = path.join(shared, 'fixtures');
export const artifacts = path.join(repo, 'target/e2e-artifacts');
mkdirSync(artifacts, { recursive: true });

export const baseUrl = process.env.CALIBSCOPE_URL || 'http://127.0.0.1:8080';
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

export async function launch() {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} not found (apt-get install chromium)`);
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** A fresh page on the app (or on `url`, e.g. a link), with every request and page
 * error recorded. Without `url` the page starts empty (`#empty`: the tests that drop
 * their own files do not wait for the bundled example's audit), or on the bundled
 * example with `example: true`. */
export async function openApp(browser, { viewport = { width: 1280, height: 1600 }, colorScheme = 'light', example = false, url = baseUrl + (example ? '/' : '/#empty') } = {}) {
  const context = await browser.newContext({ viewport, colorScheme, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  const requests = [];
  const errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => typeof window.calibscopeIdle === 'function', null, { timeout: 30000 });
  await idle(page);
  return { context, page, requests, errors };
}

/** Runs `fn` on a fresh page of the app and closes it; `done(app)` runs after `fn`,
 * even when it failed (e.g. to collect the requests). */
export async function withApp(browser, fn, opts, done = () => {}) {
  const app = await openApp(browser, opts);
  try {
    await fn(app);
  } finally {
    done(app);
    await app.context.close();
  }
}

/** Waits until no worker request and no frame is pending. */
export async function idle(page) {
  await page.evaluate(() => window.calibscopeIdle());
}

/** Drops files on the page through a synthetic DataTransfer (as a person's drag and drop). */
export async function dropFiles(page, relPaths) {
  await dropPaths(page, relPaths.map((p) => path.join(fixtures, p)));
}

/** Drops files given by absolute (or repository-relative) paths, on the page's drop
 * target or on another (`target`: a selector). */
export async function dropPaths(page, paths, { target = '#drop-target' } = {}) {
  const files = paths.map((p) => ({
    name: path.basename(p),
    b64: readFileSync(path.resolve(repo, p)).toString('base64'),
  }));
  await page.evaluate(async ({ files, target }) => {
    const dt = new DataTransfer();
    for (const f of files) {
      const bin = atob(f.b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], f.name));
    }
    const el = document.querySelector(target);
    for (const type of ['dragenter', 'dragover', 'drop']) {
      el.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    }
  }, { files, target });
  await idle(page);
}

/** Picks files with the file input. */
export async function pickFiles(page, relPaths) {
  await page.setInputFiles('#file-input', relPaths.map((p) => path.join(fixtures, p)));
  await idle(page);
}

export function expected(rel) {
  return JSON.parse(readFileSync(path.join(fixtures, rel), 'utf8'));
}

/** Every displayed metric: [{metric, value}]. */
export async function displayed(page) {
  return page.$$eval('[data-metric]', (els) => els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value })));
}

/** Every displayed number but the ones that name the input (file, format, columns,
 * class names, models): what two files holding the same predictions share. */
export async function computedNumbers(page) {
  const skip = /^input\.(file|format|columns|label|scores|class_names|ignored|id_column|model_column|models)$/;
  return (await displayed(page)).filter((d) => !skip.test(d.metric));
}

/** Runs `fn(page)` on a fresh page of the app, then checks that the page logged no
 * error and asked nothing of another origin. */
export async function withCleanPage(browser, fn, opts) {
  await withApp(browser, async ({ page, requests, errors }) => {
    await fn(page);
    assert.deepEqual(errors ?? [], []);
    assert.deepEqual(foreignRequests(requests), []);
  }, opts);
}

export async function valueOf(page, metric) {
  const v = await page.$$eval('[data-metric]', (els, m) => {
    const e = els.find((x) => x.dataset.metric === m);
    return e ? e.dataset.value : undefined;
  }, metric);
  return v;
}

/** Splits a data-metric path into components; a `models.<name>.` prefix keeps the
 * model name whole (names such as logreg_C0.01 contain dots). */
export function splitPath(metric, models = []) {
  if (metric.startsWith('models.')) {
    const rest = metric.slice('models.'.length);
    const name = models.filter((m) => rest.startsWith(m + '.')).sort((a, b) => b.length - a.length)[0];
    if (name) return ['models', name, ...rest.slice(name.length + 1).split('.')];
  }
  return metric.split('.');
}

/** The value at a data-metric path of an audit document (`calibscope audit --json`). Below `intervals` the rest
 * of the path is one key (`width.15.ece`), as the document keys its intervals. */
export function auditValue(doc, metric, models = []) {
  const parts = splitPath(metric, models);
  const i = parts.indexOf('intervals');
  const keys = i < 0 ? parts : [...parts.slice(0, i + 1), parts.slice(i + 1).join('.')];
  let v = doc;
  for (const k of keys) {
    if (v === null || v === undefined) return v;
    v = v[k];
  }
  return v;
}

/** Asserts that a number shown (`data-value`) is the CLI's value `want`; one the
 * CLI's document leaves out (undefined for this input, e.g. NLL of top-label data)
 * must be shown as undefined. */
export function sameAsCli(n, want) {
  if (want === undefined) assert.equal(n.value, 'null', `${n.metric}: not in the CLI's document, so shown as undefined`);
  else if (typeof want === 'string') assert.equal(n.value, want, n.metric);
  else assert.deepEqual(JSON.parse(n.value), want, n.metric);
}

export function lookup(obj, parts) {
  let v = obj;
  for (const p of parts) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Array.isArray(v) ? v[Number(p)] : v[p];
    if (v === undefined) return undefined;
  }
  return v;
}

/** The tolerance of a value at `parts` (fixtures README): the longest tolerance key
 * whose components lead the path's object keys, or a dot-free key equal to the
 * field's own name, else the default; a `sensitive` entry can widen it or skip it. */
export function tolerance(exp, parts) {
  const tol = exp.tolerance || {};
  const keys = parts.filter((p) => !/^\d+$/.test(p));
  let best = tol.default || { abs: 1e-10, rel: 1e-9 };
  let bestLen = 0;
  for (const [k, t] of Object.entries(tol)) {
    if (k === 'rule' || k === 'default' || k === 'not_compared' || typeof t !== 'object') continue;
    const kp = k.split('.');
    const leads = kp.every((c, i) => keys[i] === c);
    const own = kp.length === 1 && keys[keys.length - 1] === k;
    const len = leads ? kp.length : own ? 1 : 0;
    const usable = typeof t.abs === 'number' || typeof t.abs_field === 'string' || typeof t.rel_field === 'string';
    if (len > bestLen && usable) { best = t; bestLen = len; }
  }
  let { abs = 0, rel = 0 } = best;
  // abs_field / rel_field: a per-file tolerance in the nearest enclosing object that has it
  const field = (name) => {
    for (let i = parts.length - 1; i >= 0; i--) {
      const o = lookup(exp, parts.slice(0, i));
      if (o && typeof o === 'object' && typeof o[name] === 'number') return o[name];
    }
    return undefined;
  };
  if (best.abs_field) abs = field(best.abs_field) ?? abs;
  if (best.rel_field) rel = field(best.rel_field) ?? rel;
  const s = (exp.sensitive || {})[parts.join('.')];
  if (s === 'any') return null;
  if (s && typeof s.abs === 'number') abs = Math.max(abs, s.abs);
  return { abs, rel };
}

/** Compares one displayed value with its expected value; returns an error text or null. */
export function compareValue(exp, parts, shown) {
  const want = lookup(exp, parts);
  if (want === undefined) return undefined; // not in the fixture
  if (want === null) return shown === 'null' ? null : `${parts.join('.')}: expected undefined (null), page shows ${shown}`;
  if (typeof want === 'number') {
    if (shown === 'null') return `${parts.join('.')}: expected ${want}, page shows undefined`;
    const got = Number(shown);
    const t = tolerance(exp, parts);
    if (t === null) return null;
    if (Number.isInteger(want) && !String(want).includes('.') && Number.isInteger(got) && ['n', 'bin', 'successes', 'k', 'nonempty_bins'].includes(parts[parts.length - 1])) {
      return got === want ? null : `${parts.join('.')}: expected ${want}, got ${got}`;
    }
    const ok = Math.abs(got - want) <= t.abs + t.rel * Math.abs(want);
    return ok ? null : `${parts.join('.')}: expected ${want}, got ${got} (tolerance abs ${t.abs} rel ${t.rel})`;
  }
  if (typeof want === 'string') return String(shown) === want ? null : `${parts.join('.')}: expected ${want}, got ${shown}`;
  return undefined;
}

/** Multi-model fixtures name some values differently from a single audit: the page's
 * `models.<m>.readings.confidence.width.15.ece` is the fixture's `models.<m>.metrics.confece.width.15`. */
export function multiAlias(parts) {
  if (parts[0] !== 'models' || parts.length < 4) return parts;
  const [, name, ...rest] = parts;
  const p = rest.join('.');
  let m;
  if ((m = p.match(/^readings\.confidence\.(width|mass)\.(\d+)\.(ece|confece)$/))) return ['models', name, 'metrics', 'confece', m[1], m[2]];
  if ((m = p.match(/^readings\.confidence\.(width|mass)\.(\d+)\.(confce_corr|confce)$/))) return ['models', name, 'metrics', m[3], m[1], m[2]];
  if ((m = p.match(/^readings\.confidence\.(width|mass)\.(\d+)\.rmsce$/))) return ['models', name, 'metrics', 'rmsce_conf', m[1], m[2]];
  if ((m = p.match(/^readings\.classwise\.(width|mass)\.(\d+)\.(lince_cw|cwece)$/))) return ['models', name, 'metrics', m[3], m[1], m[2]];
  if ((m = p.match(/^beyond_ece\.(csr|p_risk|cwa)$/))) return ['models', name, 'binning_free', m[1]];
  return parts;
}

/** Compares every displayed value that the fixture has; returns {compared, failures, paths}. */
export async function compareDisplayed(page, exp, { models = [] } = {}) {
  const shown = await displayed(page);
  const failures = [];
  const paths = new Set();
  let compared = 0;
  for (const { metric, value } of shown) {
    let parts = splitPath(metric, models);
    if (parts[0] === 'input' && ['file', 'label', 'scores', 'models', 'model_column', 'ignored'].includes(parts[1])) continue;
    parts = multiAlias(parts);
    const r = compareValue(exp, parts, value);
    if (r === undefined) continue;
    compared += 1;
    paths.add(metric);
    if (r) failures.push(r);
  }
  return { compared, failures, paths };
}

/** Sets the bin-count slider to `m` as a person would: focus and keys, then an exact set. */
export async function setM(page, m) {
  const steps = (await page.getAttribute('#m-slider', 'data-steps')).split(',').map(Number);
  const index = steps.indexOf(m);
  if (index < 0) throw new Error(`m = ${m} is not a slider step`);
  await page.locator('#m-slider').fill(String(index));
  await idle(page);
}

export async function shot(page, name) {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
}

/** Asserts that every request went to the page's own origin. */
export function foreignRequests(requests) {
  const origin = new URL(baseUrl).origin;
  return requests.filter((u) => !(u.startsWith(origin + '/') || u === origin || u.startsWith('data:') || u.startsWith('blob:' + origin)));
}

/** Clicks a copy button; returns what its status says once the copy has ended (the click empties it). */
export async function copyWith(page, button, status) {
  await page.click(button);
  await page.waitForFunction((s) => document.querySelector(s).textContent !== '', status);
  return page.textContent(status);
}

/** The views of the page (their tab ids are `tab-<id>`), "Share & export" last. */
export const VIEWS = ['audit', 'slices', 'flips', 'recalibrate', 'learn', 'truth-lab', 'beyond-lab', 'share'];

/** Shows the "Share & export" view (the link, the downloads and the record of the
 * view shown before it); returns a function that shows that view again. */
export async function openShare(page) {
  const back = await page.$eval('[role=tab][aria-selected=true]', (t) => t.id);
  await page.click('#tab-share');
  await idle(page);
  return async () => {
    if (back !== 'tab-share') await page.click(`#${back}`);
    await idle(page);
  };
}

/** The before/after ledger `calibscope recalibrate` prints on stderr (`| key |
 * before | after |` rows), as `{key: {before, after}}` (the cells as printed). */
export function recalLedger(stderr) {
  const ledger = {};
  for (const line of String(stderr).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length === 5 && cells[1] && !['metric', '---'].includes(cells[1])) {
      ledger[cells[1]] = { before: cells[2], after: cells[3] };
    }
  }
  return ledger;
}
