// The CLI's HTML report opened in Chromium with JavaScript disabled: it shows the
// audit's numbers (every data-value equals the audit JSON / the record's tables),
// makes no request at all, and hostile file and model names create no element. A
// multi-model report shows the record's Ranking flips section; the app's report
// follows the theme chosen in the app (needs the app served at CALIBSCOPE_URL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, repo, fixtures, artifacts, openApp, idle, dropPaths, foreignRequests, openShare } from './helpers.mjs';

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

/** The report's charts by kind, from their captions: {binned, smooth, cumulative}. */
async function chartKinds(page) {
  const captions = await page.locator('figure:has(svg) figcaption').allTextContents();
  const count = (re) => captions.filter((c) => re.test(c)).length;
  assert.equal(await page.locator('figure svg').count(), captions.length, 'every chart has its caption');
  return { binned: count(/bins: accuracy against confidence/), smooth: count(/^Smooth reliability diagram/), cumulative: count(/^Cumulative differences/) };
}

/** The value at a dotted path; a path below an undefined (null) object is null too
 * (a test that is undefined on the data is `null` whole, and the report shows its
 * statistic and p-value as undefined). */
function at(root, pathText) {
  return pathText.split('.').reduce((v, k) => (v === null ? null : v === undefined ? undefined : v[k]), root);
}

test('the report shows the audit numbers without JavaScript and loads nothing', async () => {
  const data = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
  const { html, record, audit } = writeReport('rf', [data]);
  const { context, page, requests } = await open(html);
  const numbers = await page.locator('[data-metric]').evaluateAll((els) =>
    els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value, text: e.textContent, visible: e.getClientRects().length > 0 })));
  assert.ok(numbers.length > 150, `${numbers.length} numbers`);
  for (const n of numbers) {
    const want = [audit, record.tables, record].map((root) => at(root, n.metric)).find((v) => v !== undefined);
    assert.notEqual(want, undefined, `${n.metric} is neither in the audit JSON nor in the record`);
    assert.deepEqual(JSON.parse(n.value), want, n.metric);
    assert.ok(n.visible && n.text.trim().length > 0, `${n.metric} is shown`);
  }
  // the overview's accuracy is the audit's
  const acc = numbers.find((n) => n.metric === 'binning_free.accuracy');
  assert.equal(JSON.parse(acc.value), audit.binning_free.accuracy);
  // the diagrams drawn: the binned ones (equal-width and equal-mass) and the two
  // binning-free ones (smooth, cumulative differences); the record embedded and readable
  assert.deepEqual(await chartKinds(page), { binned: 2, smooth: 1, cumulative: 1 });
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
  // per model the two binned diagrams and the two binning-free ones, each within the screen
  assert.deepEqual(await chartKinds(page), { binned: 4, smooth: 2, cumulative: 2 });
  const boxes = await page.locator('figure svg').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
  for (const b of boxes) assert.ok(b.left >= 0 && b.right <= 390 && b.width > 200, `a chart ${b.left}–${b.right} px fits the 390 px screen`);
  assert.equal(await page.locator('#flips .matrix').count(), 9, 'the flips section, narrow too');
  await page.screenshot({ path: path.join(dir, 'two-models-dark-390.png'), fullPage: false });
  assert.deepEqual(requests, []);
  await context.close();
});

/** Every number of the flips section: path, value, text, visibility. */
async function flipsNumbers(page) {
  return page.locator('#flips [data-metric]').evaluateAll((els) =>
    els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value, text: e.textContent, visible: e.getClientRects().length > 0 })));
}

/** The flips section of an open report against its record: every number, the flipped rows and pairs. */
async function checkFlips(page, record) {
  const flips = record.tables.flips;
  assert.ok(flips, 'the record has a flips section');
  assert.equal(await page.locator('#flips h2').textContent(), 'Ranking flips');
  const numbers = await flipsNumbers(page);
  const models = flips.models.length;
  const bins = flips.settings.bins.length;
  const metrics = Object.values(flips.matrices).filter((x) => !x.unavailable).length;
  // ranking (ranks, values, change, error per model) and every matrix cell
  assert.ok(numbers.length >= 6 * models + metrics * (2 * bins * bins + bins), `${numbers.length} numbers`);
  for (const n of numbers) {
    assert.ok(n.metric.startsWith('tables.flips.'), n.metric);
    assert.deepEqual(JSON.parse(n.value), at(record, n.metric), n.metric);
    assert.ok(n.visible && n.text.trim().length > 0, `${n.metric} is shown`);
  }
  const key = `${flips.settings.m_ref}|${flips.settings.m}`;
  const pairs = flips.ranking.flip_pairs[key] ?? [];
  const count = numbers.find((n) => n.metric === 'tables.flips.ranking.flips.0.1');
  assert.equal(JSON.parse(count.value), pairs.length);
  assert.equal(count.text, String(pairs.length));
  assert.equal(await page.locator('ul.flip-pairs li.flipped').count(), pairs.length);
  const flipped = new Set(pairs.flat());
  assert.equal(await page.locator('#flips tr.flipped').count(), flipped.size);
  // flipped rows are marked in text too, and highlighted
  for (const name of await page.locator('#flips tr.flipped th').allTextContents()) assert.ok(flipped.has(name), name);
  const bg = await page.locator('#flips tr.flipped td').first().evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.notEqual(bg, 'rgba(0, 0, 0, 0)', 'flipped rows highlighted');
  return pairs.length;
}

test('a multi-model report shows the ranking flips without JavaScript', async () => {
  const data = path.join(fixtures, 'multi/digits_zoo_probs.csv');
  const { html, record } = writeReport('zoo', [data]);
  const { context, page, requests } = await open(html);
  const flips = await checkFlips(page, record);
  assert.ok(flips > 0, 'ConfECE flips on this zoo');
  // the ranking table lists the models by their rank at m
  const m = record.tables.flips.settings.m;
  const ranks = await page.locator(`#flips [data-metric^="tables.flips.ranking.ranks.${m}."]`).evaluateAll((els) => els.map((e) => Number(e.dataset.value)));
  assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b));
  assert.equal(await page.locator('#flips .matrix table').count(), 9);
  await page.locator('#flips').screenshot({ path: path.join(dir, 'zoo-flips.png') });
  assert.deepEqual(requests, []);
  assert.equal(await page.locator('script').count(), 1);
  await context.close();
});

test('the app\'s multi-model report holds the flips and keeps the chosen dark theme', { skip: !process.env.CALIBSCOPE_URL && 'CALIBSCOPE_URL not set' }, async () => {
  const app = await openApp(browser);
  const { page } = app;
  await page.selectOption('#theme', 'dark');
  await dropPaths(page, [path.join(fixtures, 'multi/digits_zoo_probs.csv')]);
  await idle(page);
  await openShare(page); // the exports are on the Share & export view
  await page.click('#prepare-exports');
  await idle(page);
  const save = async (name) => {
    const sel = `[data-export="${name}"]`;
    await page.waitForSelector(sel);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(sel)]);
    const file = path.join(dir, `app-${name}`);
    await download.saveAs(file);
    return file;
  };
  const html = await save('digits_zoo_probs.report.html');
  const md = readFileSync(await save('digits_zoo_probs.summary.md'), 'utf8');
  const csv = readFileSync(await save('digits_zoo_probs.flips_ranking.csv'), 'utf8');
  assert.deepEqual(foreignRequests(app.requests), []);
  assert.deepEqual(app.errors, []);
  await app.context.close();
  // opened on a light system with JavaScript disabled: dark, as chosen in the app
  const { context, page: rp, requests } = await open(html, { colorScheme: 'light' });
  assert.equal(await rp.locator('html').getAttribute('data-theme'), 'dark');
  const bg = await rp.locator('body').evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.equal(bg, 'rgb(18, 20, 23)', 'dark background');
  const record = JSON.parse(await rp.locator('#calibscope-record').textContent());
  assert.equal(record.settings.theme, 'dark');
  const flips = await checkFlips(rp, record);
  assert.match(md, new RegExp(`## Ranking flips[\\s\\S]*${flips} flips between m = `));
  assert.equal(csv.trim().split('\n').length, record.tables.flips.models.length + 1);
  await rp.screenshot({ path: path.join(dir, 'app-zoo-dark.png'), fullPage: false });
  assert.deepEqual(requests, []);
  await context.close();
});
