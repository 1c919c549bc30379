// Exports of the app (issue 8): the HTML report made in the page opens with
// JavaScript disabled and shows the record's numbers (loading nothing); the
// Markdown, CSV, SVG and PNG files download; dropping the report back on the app
// restores its settings and asks for the data file, whose hash is then checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, openApp, idle, dropPaths, foreignRequests, valueOf, fixtures, artifacts, openShare } from './helpers.mjs';

const RF = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
const dir = path.join(artifacts, 'export');
mkdirSync(dir, { recursive: true });

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function save(page, selector) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const file = path.join(dir, download.suggestedFilename());
  await download.saveAs(file);
  return file;
}

function at(root, pathText) {
  return pathText.split('.').reduce((v, k) => (v == null ? undefined : v[k]), root);
}

test('the exported report reads without JavaScript, the files download, the report drops back', async () => {
  const app = await openApp(browser);
  const { page } = app;
  await dropPaths(page, [RF]);
  await page.fill('#m-input', '20');
  await page.dispatchEvent('#m-input', 'change');
  await idle(page);
  const accuracy = await valueOf(page, 'binning_free.accuracy');
  await openShare(page);
  await page.click('#prepare-exports');
  await idle(page);
  await page.waitForSelector('[data-export="breast_cancer_rf_p.report.html"]');
  const html = await save(page, '[data-export="breast_cancer_rf_p.report.html"]');
  const md = readFileSync(await save(page, '[data-export="breast_cancer_rf_p.summary.md"]'), 'utf8');
  assert.match(md, /accuracy/i);
  const csvs = await page.locator('[data-export$=".csv"]').count();
  assert.ok(csvs >= 3, `${csvs} CSV files`);
  const csv = readFileSync(await save(page, '[data-export$=".csv"] >> nth=0'), 'utf8');
  assert.ok(csv.split('\n').length > 3);
  const svgName = await page.locator('[data-export$=".svg"]').first().getAttribute('data-export');
  const svg = readFileSync(await save(page, `[data-export="${svgName}"]`), 'utf8');
  assert.match(svg, /^<svg/);
  const png = readFileSync(await save(page, `[data-export="${svgName.replace('.svg', '.png')}"]`));
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
  assert.deepEqual(foreignRequests(app.requests), []);
  assert.deepEqual(app.errors, []);
  await app.context.close();

  // the report, JavaScript disabled: every number is the embedded record's
  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const rp = await ctx.newPage();
  const url = pathToFileURL(html).href;
  const requests = [];
  rp.on('request', (r) => { if (r.url() !== url) requests.push(r.url()); });
  await rp.goto(url);
  const record = JSON.parse(await rp.locator('#calibscope-record').textContent());
  assert.equal(record.producer.name, 'calibscope-app');
  const numbers = await rp.locator('[data-metric]').evaluateAll((els) => els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value })));
  assert.ok(numbers.length > 150, `${numbers.length} numbers`);
  for (const n of numbers) {
    const want = at(record.audits[0], n.metric) ?? at(record.tables, n.metric) ?? at(record, n.metric);
    assert.notEqual(want, undefined, n.metric);
    assert.deepEqual(JSON.parse(n.value), want, n.metric);
  }
  assert.equal(numbers.find((n) => n.metric === 'binning_free.accuracy').value, accuracy, 'the app\'s accuracy');
  assert.equal(await rp.locator('figure svg').count(), 2);
  assert.deepEqual(requests, []);
  await ctx.close();

  // dropped back: the settings come back, the data file is asked for and checked
  const again = await openApp(browser);
  await dropPaths(again.page, [html]);
  const notice = again.page.locator('[data-notice=reproduce]');
  assert.match(await notice.textContent(), /breast_cancer_rf_p\.csv \(1\.1 KB, sha256 [0-9a-f]{8}…\)/);
  await dropPaths(again.page, [RF]);
  assert.equal(await again.page.locator('[data-notice=match]').count(), 1);
  assert.equal(await again.page.textContent('#m-value'), '20');
  assert.equal(await valueOf(again.page, 'binning_free.accuracy'), accuracy);
  assert.deepEqual(foreignRequests(again.requests), []);
  assert.deepEqual(again.errors, []);
  await again.context.close();
});
