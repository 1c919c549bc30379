// Robustness in the browser (issue 10): size limits refuse before reading, a worker
// crash keeps the loaded data set, two tabs keep their own answers, hostile names
// stay text in every view, and numerically hostile inputs give numbers or a stated
// "undefined", never NaN.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  launch, openApp, idle, dropPaths, dropFiles, valueOf, foreignRequests, shot, setM, baseUrl, fixtures,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const dir = mkdtempSync(path.join(tmpdir(), 'calibscope-robust-'));
function write(name, text) {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

async function withPage(fn, { expectedErrors = /^$/, example = false } = {}) {
  const app = await openApp(browser, { example });
  try {
    await fn(app);
    assert.deepEqual(app.errors.filter((e) => !expectedErrors.test(e)), [], 'no console error, no page error');
    assert.deepEqual(foreignRequests(app.requests), []);
  } finally {
    await app.context.close();
  }
}

/** A test that reads the bundled example. */
const withExamplePage = (fn, opts = {}) => withPage(fn, { ...opts, example: true });

async function errorCode(page) {
  const e = page.locator('#error');
  return (await e.count()) ? e.getAttribute('data-error-code') : null;
}

async function setLimit(page, id, value) {
  if (!(await page.locator('#limits').getAttribute('open') !== null)) await page.click('#limits > summary');
  await page.locator(`#${id}`).fill(String(value));
  await page.locator(`#${id}`).dispatchEvent('change');
}

/** Clicks every view tab and waits for it: the views a person can reach. */
async function visitEveryView(page) {
  const tabs = page.locator('nav.views button[role=tab]');
  const n = await tabs.count();
  const seen = [];
  for (let i = 0; i < n; i++) {
    await tabs.nth(i).click();
    await idle(page);
    seen.push(await tabs.nth(i).getAttribute('data-view'));
  }
  await tabs.nth(0).click();
  await idle(page);
  return seen;
}

/** No NaN anywhere a person or a script reads numbers. */
async function assertNoNaN(page, label) {
  const bad = await page.evaluate(() => {
    const out = [];
    for (const e of document.querySelectorAll('[data-value]')) {
      if (/nan/i.test(e.dataset.value)) out.push(`${e.dataset.metric}=${e.dataset.value}`);
    }
    if (/\bNaN\b/.test(document.body.innerText)) out.push('the text "NaN" is on the page');
    return out;
  });
  assert.deepEqual(bad, [], label);
}

test('size limits refuse a file or a data set before reading it, with the limit named', async () => {
  await withExamplePage(async ({ page }) => {
    await setLimit(page, 'limit-file-mb', 0.001);
    await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
    assert.equal(await errorCode(page), 'file_too_large');
    assert.match(await page.locator('#error').innerText(), /limit of 1\.0 kB/);
    assert.equal(await page.locator('table.metrics tbody tr').count(), 10, 'the example is still shown');
    await setLimit(page, 'limit-file-mb', 2000);
    await setLimit(page, 'limit-cells-m', 0.001);
    await dropFiles(page, ['real/digits_mlp_logits.npz']);
    assert.equal(await errorCode(page), 'too_many_cells');
    assert.match(await page.locator('#error').innerText(), /more than the limit of 1000/);
    await shot(page, '20-limit-refusal');
    await setLimit(page, 'limit-cells-m', 200);
    await dropFiles(page, ['real/digits_mlp_logits.npz']);
    assert.equal(await errorCode(page), null);
    assert.equal(await valueOf(page, 'input.n'), '450');
  });
});

test('after a worker crash the restarted worker reads the loaded data set again', async () => {
  await withPage(async ({ page }) => {
    await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
    const ece = await valueOf(page, 'readings.confidence.width.15.ece');
    await page.evaluate(() => window.calibscopeDebugPanic());
    await page.locator('#restart-worker').waitFor({ timeout: 10000 });
    await page.click('#restart-worker');
    await idle(page);
    assert.equal(await valueOf(page, 'input.file'), 'breast_cancer_rf_p.csv', 'the user\'s file, not the example');
    assert.equal(await valueOf(page, 'readings.confidence.width.15.ece'), ece);
  }, { expectedErrors: /debug panic requested by the page/ });
});

test('a worker out of memory says so in words, and the restarted worker reads the data set again', async () => {
  await withPage(async ({ page }) => {
    await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
    const ece = await valueOf(page, 'readings.confidence.width.15.ece');
    await page.evaluate(() => window.calibscopeDebugOutOfMemory());
    await page.locator('#restart-worker').waitFor({ timeout: 30000 });
    assert.match(await page.locator('.banner.crashed').innerText(), /out of memory/);
    assert.match(await page.locator('.banner.crashed').innerText(), /command-line tool/);
    await shot(page, '21-out-of-memory');
    await page.click('#restart-worker');
    await idle(page);
    assert.equal(await valueOf(page, 'input.file'), 'breast_cancer_rf_p.csv');
    assert.equal(await valueOf(page, 'readings.confidence.width.15.ece'), ece);
  }, { expectedErrors: /out of memory|unreachable|RuntimeError|memory allocation/i });
});

test('hostile file, column, class and model names are shown as text in every view', async () => {
  const hostileFile = '<img src=x onerror=window.__pwned=1>.csv';
  const modelA = '"><script>window.__pwned=2</script>';
  const modelB = '<img src=x onerror=window.__pwned=4>';
  const klass = '<svg/onload=window.__pwned=3>';
  const q = (s) => `"${s.replaceAll('"', '""')}"`;
  const rows = ['model,label,' + q(`p_${klass}`) + ',p_dog'];
  for (const m of [modelA, modelB]) {
    for (let i = 0; i < 40; i++) {
      const p = ((i * 37) % 97) / 100 + 0.01;
      rows.push(`${q(m)},${i % 2},${(1 - p).toFixed(4)},${p.toFixed(4)}`);
    }
  }
  const file = write(hostileFile, rows.join('\n') + '\n');
  await withPage(async ({ page }) => {
    await dropPaths(page, [file]);
    assert.equal(await errorCode(page), null);
    const views = await visitEveryView(page);
    assert.ok(views.length >= 3, `views visited: ${views}`);
    // a class reading puts the class name into the chart's axis label
    await page.locator('#reading-select').selectOption('class:0');
    await idle(page);
    const text = await page.evaluate(() => document.body.innerText);
    for (const name of [modelA, modelB, klass]) assert.ok(text.includes(name), `${name} shown as text`);
    const injected = await page.evaluate(() => {
      const out = [];
      if (window.__pwned !== undefined) out.push(`script ran: ${window.__pwned}`);
      for (const e of document.querySelectorAll('*')) {
        for (const a of e.getAttributeNames()) if (/^on/i.test(a)) out.push(`${e.tagName} has ${a}`);
      }
      for (const s of document.querySelectorAll('script')) if (!s.src) out.push('an inline script element');
      if (document.querySelector('img[src="x"]')) out.push('an injected img');
      return out;
    });
    assert.deepEqual(injected, []);
  });
});

test('numerically hostile inputs give numbers or a stated "undefined", never NaN', async () => {
  const files = {
    'zero_one.csv': 'label,p\n0,0\n1,1\n0,1\n1,0\n1,1\n0,0\n',
    'huge_logits.csv': 'label,logit\n0,-1e30\n1,1e30\n1,-1e30\n0,1e30\n1,3\n',
    'subnormal.csv': 'label,p\n0,5e-324\n1,1\n0,2.2250738585072014e-308\n1,0.5\n',
    'one_row.csv': 'label,p\n1,0.7\n',
    'one_class.csv': 'label,p\n1,0.9\n1,0.8\n1,0.6\n1,0.55\n',
    'two_columns.csv': 'label,p_0,p_1\n0,0.8,0.2\n1,0.3,0.7\n1,0.45,0.55\n0,0.6,0.4\n',
    'one_column.csv': 'label,p\n0,0.2\n1,0.7\n1,0.55\n0,0.4\n',
  };
  await withPage(async ({ page }) => {
    for (const [name, text] of Object.entries(files)) {
      await dropPaths(page, [write(name, text)]);
      assert.equal(await errorCode(page), null, `${name} reads`);
      assert.equal(await valueOf(page, 'input.file'), name);
      await visitEveryView(page);
      await assertNoNaN(page, name);
      const undefinedWithoutReason = await page.evaluate(() => [...document.querySelectorAll('.num.undefined')]
        .filter((e) => !e.getAttribute('title')).map((e) => e.dataset.metric));
      assert.deepEqual(undefinedWithoutReason, [], `${name}: every undefined says why`);
    }
    // one class: the AUC is undefined, with its reason
    await dropPaths(page, [path.join(dir, 'one_class.csv')]);
    assert.equal(await valueOf(page, 'binning_free.auc'), 'null');
    // k = 2 as one column or two: the same numbers
    await dropPaths(page, [path.join(dir, 'one_column.csv')]);
    const one = await valueOf(page, 'readings.confidence.width.4.ece'); // m = min(15, n)
    const acc1 = await valueOf(page, 'binning_free.accuracy');
    await dropPaths(page, [path.join(dir, 'two_columns.csv')]);
    const two = await valueOf(page, 'readings.confidence.width.4.ece');
    // same confidences (0.8, 0.7, 0.55, 0.6; 1 - p to within an ulp) and the same
    // correctness in both files
    assert.ok(Math.abs(Number(one) - Number(two)) < 1e-15, `${one} vs ${two}`);
    assert.equal(acc1, await valueOf(page, 'binning_free.accuracy'));
  });
});

test('a full session (load, drop, every view, every export) makes only same-origin requests that carry no file content', async () => {
  // a marker in the data: no request may carry it (URL or body)
  const marker = 'zq7marker';
  const rows = [`model,label,p_${marker},p_b`];
  for (const m of ['m1', 'm2', 'm3']) {
    for (let i = 0; i < 60; i++) {
      const p = (((i * 31 + m.length * 7) % 89) / 100 + 0.05);
      rows.push(`${m},${(i * 7) % 2},${(1 - p).toFixed(4)},${p.toFixed(4)}`);
    }
  }
  const file = write(`session_${marker}.csv`, rows.join('\n') + '\n');
  const app = await openApp(browser);
  const { page, context } = app;
  const bodies = [];
  page.on('request', (r) => { const d = r.postData(); if (d) bodies.push(`${r.url()}: ${d.slice(0, 80)}`); });
  page.on('download', () => {});
  try {
    await dropPaths(page, [file]);
    assert.equal(await errorCode(page), null);
    const tabs = page.locator('nav.views button[role=tab]');
    const clicked = [];
    for (let i = 0; i < (await tabs.count()); i++) {
      await tabs.nth(i).click();
      await idle(page);
      // every export, download and copy button of the view
      const buttons = page.locator('main button:visible').filter({ hasText: /csv|svg|png|json|download|export|copy|report|record|markdown/i });
      for (let j = 0; j < (await buttons.count()); j++) {
        const b = buttons.nth(j);
        if (await b.isDisabled()) continue;
        clicked.push((await b.getAttribute('id')) || (await b.innerText()));
        await b.click();
        await idle(page);
      }
    }
    assert.ok(clicked.length >= 5, `export buttons clicked: ${clicked.join(', ')}`);
    const origin = new URL(process.env.CALIBSCOPE_URL || 'http://127.0.0.1:8080').origin;
    const foreign = app.requests.filter((u) => !(u.startsWith(origin + '/') || u.startsWith('blob:' + origin) || u.startsWith('data:')));
    assert.deepEqual(foreign, [], 'every request is same-origin');
    assert.deepEqual(bodies, [], 'no request has a body');
    assert.deepEqual(app.requests.filter((u) => u.includes(marker)), [], 'no request URL carries the data');
    assert.deepEqual(app.errors, []);
  } finally {
    await context.close();
  }
});

test('two tabs of the app in one browser each get their own worker\'s answers', async () => {
  // the workers answer on BroadcastChannels (src/proto.rs, ANSWER_CHANNEL_PREFIX),
  // which reach every page of the origin that listens on the same name: each page's
  // worker has its own
  const app = await openApp(browser);
  const other = await app.context.newPage();
  try {
    await other.goto(baseUrl + '/');
    await other.waitForFunction(() => typeof window.calibscopeIdle === 'function', null, { timeout: 30000 });
    await idle(other);
    await dropFiles(app.page, ['real/breast_cancer_rf_p.csv']);
    await dropFiles(other, ['real/digits_knn_probs.csv']);
    const want = (file, binning, m) => JSON.parse(readFileSync(path.join(fixtures, 'real', file), 'utf8'))
      .readings.confidence[binning][String(m)].ece;
    // both pages step their sliders by keyboard, interleaved
    for (const p of [app.page, other]) await setM(p, 15);
    for (const p of [app.page, other]) await p.locator('#m-slider').focus();
    for (let i = 0; i < 3; i++) {
      for (const p of [app.page, other]) await p.keyboard.press('ArrowRight');
    }
    for (const p of [app.page, other]) await idle(p);
    const steps = (await app.page.getAttribute('#m-slider', 'data-steps')).split(',').map(Number);
    const mAt = async (p) => steps[Number(await p.locator('#m-slider').inputValue())];
    assert.equal(await mAt(app.page), 18, 'three steps right of 15');
    assert.equal(await mAt(other), 18);
    assert.equal(await valueOf(app.page, 'input.file'), 'breast_cancer_rf_p.csv');
    assert.equal(await valueOf(other, 'input.file'), 'digits_knn_probs.csv');
    // back to a fixture's bin count on each, then the fixture's values
    await setM(app.page, 20);
    await setM(other, 100);
    const close = (got, w) => Math.abs(Number(got) - w) <= 1e-12 * Math.max(1, Math.abs(w));
    const a = await valueOf(app.page, 'readings.confidence.width.20.ece');
    const b = await valueOf(other, 'readings.confidence.width.100.ece');
    assert.ok(close(a, want('breast_cancer_rf_p.expected.json', 'width', 20)), `page 1: ${a}`);
    assert.ok(close(b, want('digits_knn_probs.expected.json', 'width', 100)), `page 2: ${b}`);
    // one tab closed, the other goes on
    await other.close();
    await setM(app.page, 15);
    assert.ok(close(await valueOf(app.page, 'readings.confidence.width.15.ece'), want('breast_cancer_rf_p.expected.json', 'width', 15)));
    assert.deepEqual(app.errors, [], 'no console error, no page error');
    assert.deepEqual(foreignRequests(app.requests), []);
  } finally {
    await app.context.close();
  }
});
