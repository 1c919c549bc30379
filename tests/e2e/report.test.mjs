// The CLI's HTML report opened in Chromium with JavaScript disabled: it shows the
// audit's numbers (every data-value equals the audit JSON / the record's tables),
// makes no request at all, and hostile file and model names create no element.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, repo, fixtures, artifacts } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const dir = path.join(artifacts, 'report');
mkdirSync(dir, { recursive: true });

const IMG = '<img src=x onerror=alert(1)>';
const BREAKOUT = '"><script>alert(1)</script>';

/** Writes the report, the record and the --json audit of `files`. */
function writeReport(name, files) {
  assert.ok(existsSync(cli), `${cli} not found: cargo build --release -p calibscope-cli`);
  const html = path.join(dir, `${name}.html`);
  const record = path.join(dir, `${name}.record.json`);
  execFileSync(cli, ['audit', '--html', html, '--record', record, ...files]);
  const audit = JSON.parse(execFileSync(cli, ['audit', '--json', ...files], { maxBuffer: 1 << 28 }).toString());
  return { html, record: JSON.parse(readFileSync(record, 'utf8')), audit };
}

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Opens a file with JavaScript disabled, recording every request but the page's own. */
async function open(file, { viewport = { width: 1100, height: 1400 }, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport, colorScheme });
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  const requests = [];
  page.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
  await page.goto(url);
  await page.waitForLoadState('load');
  return { context, page, requests };
}

function at(root, pathText) {
  return pathText.split('.').reduce((v, k) => (v == null ? undefined : v[k]), root);
}

test('the report shows the audit numbers without JavaScript and loads nothing', async () => {
  const data = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
  const { html, record, audit } = writeReport('rf', [data]);
  const { context, page, requests } = await open(html);
  const numbers = await page.locator('[data-metric]').evaluateAll((els) =>
    els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value, text: e.textContent, visible: e.getClientRects().length > 0 })));
  assert.ok(numbers.length > 150, `${numbers.length} numbers`);
  for (const n of numbers) {
    const want = at(audit, n.metric) ?? at(record.tables, n.metric) ?? at(record, n.metric);
    assert.notEqual(want, undefined, `${n.metric} is neither in the audit JSON nor in the record`);
    assert.deepEqual(JSON.parse(n.value), want, n.metric);
    assert.ok(n.visible && n.text.trim().length > 0, `${n.metric} is shown`);
  }
  // the overview's accuracy is the audit's
  const acc = numbers.find((n) => n.metric === 'binning_free.accuracy');
  assert.equal(JSON.parse(acc.value), audit.binning_free.accuracy);
  // two diagrams drawn, the record embedded and readable
  assert.equal(await page.locator('figure svg').count(), 2);
  const embedded = await page.locator('#calibscope-record').textContent();
  assert.deepEqual(JSON.parse(embedded), record);
  assert.deepEqual(record.audits[0], audit);
  await page.screenshot({ path: path.join(dir, 'rf.png'), fullPage: true });
  assert.deepEqual(requests, [], 'the report made requests');
  // nothing in it could load anything, even where a CSP would block it
  assert.equal(await page.locator('[src], [href], link, iframe, object, embed').count(), 0);
  await context.close();
});

test('hostile file and model names stay text', async () => {
  const d = path.join(dir, 'hostile');
  mkdirSync(d, { recursive: true });
  const q = BREAKOUT.replaceAll('"', '""');
  let csv = 'model,id,label,p\n';
  [[1, 0.9], [0, 0.3], [1, 0.6], [0, 0.45], [1, 0.8]].forEach(([y, p], i) => {
    csv += `"${q}",${i},${y},${p}\n${IMG},${i},${y},${(p * 0.9).toFixed(3)}\n`;
  });
  const file = path.join(d, `${IMG}.csv`);
  writeFileSync(file, csv);
  const { html, record } = writeReport('hostile', [file]);
  const { context, page, requests } = await open(html);
  assert.equal(await page.locator('img').count(), 0, 'an injected <img>');
  assert.equal(await page.locator('[onerror]').count(), 0, 'an injected onerror attribute');
  const scripts = await page.locator('script').evaluateAll((els) => els.map((e) => [e.type, e.id]));
  assert.deepEqual(scripts, [['application/json', 'calibscope-record']]);
  const title = await page.locator('h1').textContent();
  assert.equal(title, `Calibration audit of ${IMG}.csv`);
  const models = await page.locator('h2.model').allTextContents();
  assert.deepEqual(models, [`Model ${BREAKOUT}`, `Model ${IMG}`]);
  const embedded = await page.locator('#calibscope-record').textContent();
  assert.deepEqual(JSON.parse(embedded), record);
  assert.deepEqual(requests, []);
  await context.close();
});

test('the report reads on a 390 px screen in the dark theme', async () => {
  const files = ['real/breast_cancer_gnb_p.csv', 'real/breast_cancer_rf_p.csv'].map((f) => path.join(fixtures, f));
  const { html } = writeReport('two-models', files);
  const { context, page, requests } = await open(html, { viewport: { width: 390, height: 900 }, colorScheme: 'dark' });
  // the page itself does not scroll sideways (wide tables scroll in their own box)
  const widths = await page.locator('html').evaluate((e) => [e.scrollWidth, e.clientWidth]);
  assert.ok(widths[0] <= widths[1] + 1, `page ${widths[0]} px wide in a ${widths[1]} px window`);
  const bg = await page.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.equal(bg, 'rgb(18, 20, 23)', 'dark background');
  assert.equal(await page.locator('figure svg').count(), 4, 'two charts per model');
  await page.screenshot({ path: path.join(dir, 'two-models-dark-390.png'), fullPage: false });
  assert.deepEqual(requests, []);
  await context.close();
});
