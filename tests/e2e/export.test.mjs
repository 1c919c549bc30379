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

// Issue 32: a grouped audit's report and exports carry the per-group table and
// one diagram per group, every number the record's.
test('a grouped audit\'s report and CSV/SVG exports hold each group: its table, diagram and verdict', async () => {
  const GROUPED = 'crates/audit/tests/data/groups/synthetic_groups.csv';
  const app = await openApp(browser);
  const { page } = app;
  await dropPaths(page, [GROUPED]);
  await page.locator('#mapping details.correct').evaluate((d) => { d.open = true; });
  await page.locator('#map-groups input[value="cohort"]').check();
  await page.locator('#map-apply').click();
  await idle(page);
  assert.equal(await page.locator('[data-field="groups"]').textContent(), 'cohort');
  await openShare(page);
  await page.click('#prepare-exports');
  await idle(page);
  const report = page.locator('[data-export$=".report.html"]');
  await report.waitFor();
  const html = await save(page, '[data-export$=".report.html"]');
  const groupsCsv = readFileSync(await save(page, '[data-export$=".groups.csv"]'), 'utf8');
  const svgs = await page.locator('[data-export*=".group"][data-export$=".svg"]').evaluateAll((els) => els.map((e) => e.dataset.export));
  assert.equal(svgs.length, 3, svgs.join(', '));
  assert.ok(svgs.some((n) => n.endsWith('.group2_overconfident_reliability_confidence_width_15.svg')), svgs.join(', '));
  assert.deepEqual(foreignRequests(app.requests), []);
  assert.deepEqual(app.errors, []);
  await app.context.close();

  const ctx = await browser.newContext({ javaScriptEnabled: false });
  const rp = await ctx.newPage();
  await rp.goto(pathToFileURL(html).href);
  const record = JSON.parse(await rp.locator('#calibscope-record').textContent());
  const groups = record.audits[0].groups;
  assert.equal(groups.values.length, 3);
  const section = rp.locator('section.groups');
  assert.equal(await section.locator('figure svg').count(), 3, 'one diagram per group');
  assert.match(await section.textContent(), /Worst-calibrated group: overconfident \(ECE/);
  const numbers = await section.locator('[data-metric]').evaluateAll((els) => els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value })));
  for (const key of ['n', 'accuracy', 'ece', 'csr', 'p_risk']) {
    assert.ok(numbers.some((n) => n.metric === `groups.values.2.${key}`), key);
  }
  for (const n of numbers) {
    assert.deepEqual(JSON.parse(n.value), at(record.audits[0], n.metric), n.metric);
  }
  await ctx.close();

  // groups.csv: a row per group, at full precision
  const [head, ...rows] = groupsCsv.trim().split('\n').map((l) => l.split(','));
  assert.deepEqual(head, ['cohort', 'n', 'too_small', 'accuracy', 'ece_width_15', 'smece', 'csr', 'p_risk', 'verdict']);
  assert.equal(rows.length, 3);
  rows.forEach((r, i) => {
    const v = groups.values[i];
    assert.equal(r[0], v.group);
    assert.equal(Number(r[4]), v.ece);
    assert.equal(r[8], v.audit.verdict?.kind ?? '');
  });
});
