// Permalinks (issue 8): controls set in several views, the link copied and opened in
// a fresh browser context, the same files dropped: every displayed data-value is the
// same. A different file of the same name is flagged; a garbage link opens the
// defaults with a notice; small data travels inside the link when asked. The theme
// chosen in the header and the labs' settings travel in the link too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, copyFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  launch, idle, copyWith, dropPaths, displayed, foreignRequests, baseUrl, fixtures, artifacts, shot, repo, openShare,
} from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');

const RF = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
const GNB = path.join(fixtures, 'real/breast_cancer_gnb_p.csv');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** A fresh browser context on `url`, recording requests and errors. */
async function openAt(url, { colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1600 }, colorScheme, permissions: ['clipboard-read', 'clipboard-write'] });
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

async function close(app) {
  assert.deepEqual(foreignRequests(app.requests), [], 'no request outside the origin');
  assert.deepEqual(app.errors, [], 'no page error');
  await app.context.close();
}

/** Every displayed number but timings, in page order. */
async function values(page) {
  // A method's fit time (`recalibration.<method>.fit_ms`) is a clock reading too.
  return (await displayed(page)).filter(
    (d) => !d.metric.includes('timing') && !d.metric.endsWith('.fit_ms'),
  );
}

/** Copies the link with the button; checks it against the box, the length shown and the URL. */
async function copyLink(page) {
  const back = await openShare(page);
  const link = await copyShown(page);
  await back();
  return link;
}

/** [`copyLink`] on the "Share & export" view, shown. */
async function copyShown(page) {
  await page.waitForTimeout(450); // the URL follows after 300 ms
  assert.equal(await copyWith(page, '#copy-link', '#copy-link-status'), 'Link copied.');
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(link, await page.inputValue('#share-link'));
  assert.match(link, /#a1=[A-Za-z0-9_-]+$/);
  assert.equal(Number(await page.getAttribute('#link-length', 'data-length')), link.length);
  assert.match(await page.textContent('#link-length'), new RegExp(`^${link.length} characters`));
  assert.equal(await page.evaluate(() => location.href), link, 'the URL holds the link');
  return link;
}

async function change(page, selector, value) {
  await page.fill(selector, String(value));
  await page.dispatchEvent(selector, 'change');
  await idle(page);
}

/** Opens `link` in a fresh context, drops `files` and returns the app. */
async function reproduce(link, files) {
  const app = await openAt(link);
  const notice = app.page.locator('[data-notice=reproduce]');
  for (const f of files) {
    const text = await notice.textContent();
    assert.ok(text.includes(path.basename(f)) && /sha256 [0-9a-f]{8}…/.test(text), text);
  }
  await dropPaths(app.page, files);
  await idle(app.page);
  return app;
}

test('links of the audit, flips and Recalibrate views reproduce every number', async () => {
  const app = await openAt(baseUrl + '/');
  const { page } = app;
  await dropPaths(page, [RF, GNB]);
  // audit: the second model, equal-mass, 20 bins
  await page.click('tr[data-model="breast_cancer_gnb_p"] button');
  await page.check('#binning-mass');
  await change(page, '#m-input', 20);
  // Recalibrate settings (kept while another view is shown)
  await page.click('#tab-recalibrate');
  await idle(page);
  await change(page, '#recal-seed', 7);
  await change(page, '#recal-fraction', 0.3);
  await page.selectOption('#recal-after', 'platt');
  await idle(page);
  // flips: another metric, another reference
  await page.click('#tab-flips');
  await idle(page);
  await page.selectOption('#flips-metric', 'confce_corr');
  await change(page, '#flips-m-input', 10);
  await page.click('#flips-pin');
  await change(page, '#flips-m-input', 30);
  const rounds = [];
  for (const tab of ['flips', 'recalibrate', 'audit']) {
    await page.click(`#tab-${tab}`);
    await idle(page);
    rounds.push({ tab, link: await copyLink(page), want: await values(page) });
  }
  await shot(page, 'share-source');
  await close(app);
  for (const { tab, link, want } of rounds) {
    const other = await reproduce(link, [RF, GNB]);
    assert.equal(await other.page.getAttribute(`#tab-${tab}`, 'aria-selected'), 'true', `${tab} is shown`);
    assert.equal(await other.page.locator('[data-notice=match]').count(), 1, 'the files match');
    const got = await values(other.page);
    assert.ok(want.length > 20, `${tab}: ${want.length} values`);
    assert.deepEqual(got, want, `${tab}: the same numbers`);
    if (tab === 'recalibrate') {
      assert.equal(await other.page.inputValue('#recal-seed'), '7');
      assert.equal(await other.page.inputValue('#recal-fraction'), '0.3');
      assert.equal(await other.page.inputValue('#recal-after'), 'platt');
    }
    if (tab === 'flips') {
      assert.equal(await other.page.inputValue('#flips-metric'), 'confce_corr');
      assert.equal(await other.page.inputValue('#flips-ref-input'), '10');
      assert.equal(await other.page.inputValue('#flips-m-input'), '30');
    }
    if (tab === 'audit') {
      assert.equal(await other.page.isChecked('#binning-mass'), true);
      assert.equal(await other.page.textContent('#m-value'), '20');
    }
    await close(other);
  }
});

test('a different file of the same name is flagged', async () => {
  const app = await openAt(baseUrl + '/');
  await dropPaths(app.page, [RF]);
  const link = await copyLink(app.page);
  await close(app);
  const dir = path.join(artifacts, 'share-mismatch');
  mkdirSync(dir, { recursive: true });
  const fake = path.join(dir, path.basename(RF));
  copyFileSync(GNB, fake);
  const other = await reproduce(link, [fake]);
  const warning = other.page.locator('[data-notice=mismatch]');
  assert.equal(await warning.getAttribute('role'), 'alert');
  assert.match(await warning.textContent(), /breast_cancer_rf_p\.csv differs from the link's file/);
  assert.equal(await other.page.locator('[data-notice=match]').count(), 0);
  await close(other);
});

test('a garbage link opens the defaults with a notice, and the app works', async () => {
  const app = await openAt(baseUrl + '/#a1=%%%not-a-link!!');
  const notice = app.page.locator('[data-notice=link]');
  assert.match(await notice.textContent(), /could not be read/);
  // the example is open; dropping a file works
  assert.ok((await values(app.page)).length > 20);
  await dropPaths(app.page, [RF]);
  assert.equal(await app.page.locator('[data-metric="binning_free.accuracy"]').count() > 0, true);
  // the notice can be dismissed
  await notice.locator('button').click();
  assert.equal(await app.page.locator('[data-notice=link]').count(), 0);
  await close(app);
});

test('the example by id and data inside the link reproduce without a drop', async () => {
  const app = await openAt(baseUrl + '/');
  await change(app.page, '#m-input', 12);
  const exampleLink = await copyLink(app.page);
  const exampleWant = await values(app.page);
  await dropPaths(app.page, [RF]);
  await app.page.check('#binning-mass');
  await idle(app.page);
  const back = await openShare(app.page);
  const plain = await copyShown(app.page);
  const label = app.page.locator('label.include-data');
  assert.match(await label.textContent(), /data itself will be inside the link/);
  await app.page.check('#include-data');
  const withData = await copyShown(app.page);
  await back();
  assert.ok(withData.length > plain.length + 100, `${withData.length} vs ${plain.length}`);
  const want = await values(app.page);
  await close(app);
  for (const [link, expected] of [[exampleLink, exampleWant], [withData, want]]) {
    const other = await openAt(link);
    assert.equal(await other.page.locator('[data-notice=reproduce]').count(), 0);
    assert.deepEqual(await values(other.page), expected);
    await close(other);
  }
});

/** The theme attribute and computed colours of the page and of the plotters charts shown. */
async function colours(page) {
  return page.evaluate(() => {
    const css = (sel, prop) => {
      const el = document.querySelector(sel);
      return el ? getComputedStyle(el)[prop] : null;
    };
    return {
      theme: document.documentElement.getAttribute('data-theme'),
      bg: getComputedStyle(document.documentElement).backgroundColor,
      text: css('.chart .svg text', 'fill'),
      axis: css('.chart .svg [stroke="#000000"]', 'stroke'),
      curve: css('.recal figure .svg [stroke="#1F4E79"]', 'stroke'),
    };
  });
}

const DARK = { bg: 'rgb(21, 23, 26)', fg: 'rgb(232, 233, 235)', curve: 'rgb(127, 178, 238)' };
const LIGHT = { bg: 'rgb(251, 251, 250)', fg: 'rgb(29, 29, 31)', curve: 'rgb(31, 78, 121)' };

test('the theme control overrides the system theme, travels in the link, and the charts follow', async () => {
  const app = await openAt(baseUrl + '/');
  let c = await colours(app.page);
  assert.deepEqual([c.theme, c.bg, c.text], [null, LIGHT.bg, LIGHT.fg], 'System on a light system');
  // the control is labelled and reached by the keyboard
  assert.equal(await app.page.getByLabel('Theme').getAttribute('id'), 'theme');
  await app.page.focus('#theme');
  assert.equal(await app.page.evaluate(() => document.activeElement.id), 'theme');
  await app.page.selectOption('#theme', 'dark');
  c = await colours(app.page);
  assert.deepEqual([c.theme, c.bg, c.text, c.axis], ['dark', DARK.bg, DARK.fg, DARK.fg]);
  const dark = await copyLink(app.page);
  await close(app);
  // a fresh context on a light system opens dark, charts included
  const other = await openAt(dark);
  assert.equal(await other.page.inputValue('#theme'), 'dark');
  c = await colours(other.page);
  assert.deepEqual([c.theme, c.bg, c.text, c.axis], ['dark', DARK.bg, DARK.fg, DARK.fg]);
  await other.page.click('#tab-recalibrate');
  await idle(other.page);
  assert.equal((await colours(other.page)).curve, DARK.curve, 'the Recalibrate drawings follow');
  await shot(other.page, 'share-theme-dark');
  await other.page.selectOption('#theme', 'light');
  const light = await copyLink(other.page);
  await close(other);
  // Light chosen wins over a dark system
  const third = await openAt(light, { colorScheme: 'dark' });
  assert.equal(await third.page.inputValue('#theme'), 'light');
  c = await colours(third.page);
  assert.deepEqual([c.theme, c.bg, c.curve], ['light', LIGHT.bg, LIGHT.curve]);
  // back to System: the dark system shows again
  await third.page.selectOption('#theme', 'system');
  c = await colours(third.page);
  assert.deepEqual([c.theme, c.bg, c.curve], [null, DARK.bg, DARK.curve]);
  await close(third);
});

/** The values of the labs' controls shown. */
async function labControls(page, ids) {
  const out = {};
  for (const id of ids) out[id] = await page.inputValue(`#${id}`);
  return out;
}

const TRUTH = ['p1', 'p2', 'p3', 'truth-temperature', 'truth-grid', 'truth-n', 'truth-m', 'truth-reps', 'truth-binning', 'exact-m'];
const BEYOND = ['beyond-dist', 'beyond-mode', 'beyond-n', 'beyond-m', 'beyond-seed', 'beyond-reps', 'counter-n', 'counter-lambda', 'counter-p', 'counter-m'];

test('the labs\' settings travel in the link and are restored exactly in a fresh context', async () => {
  const app = await openAt(baseUrl + '/');
  const { page } = app;
  await page.click('#tab-beyond-lab');
  await idle(page);
  await page.selectOption('#beyond-dist', 'bimodal');
  await page.selectOption('#beyond-mode', 'overconf_half');
  await change(page, '#beyond-n', 2500);
  await change(page, '#beyond-seed', 42);
  await change(page, '#beyond-reps', 30);
  await change(page, '#counter-lambda', 25);
  const beyondSet = await labControls(page, BEYOND);
  await page.click('#tab-truth-lab');
  await idle(page);
  await change(page, '#p1', 0.6);
  await change(page, '#truth-temperature', 1.5);
  await change(page, '#truth-n', 300);
  await change(page, '#truth-reps', 200);
  await page.selectOption('#truth-binning', 'mass');
  await idle(page);
  await change(page, '#exact-m', 7);
  const truthSet = await labControls(page, TRUTH);
  assert.equal(truthSet['truth-n'], '300');
  assert.equal(truthSet.p1, '0.6000');
  const truth = { link: await copyLink(page), want: await values(page) };
  await page.click('#tab-beyond-lab');
  await idle(page);
  const beyond = { link: await copyLink(page), want: await values(page) };
  await close(app);
  // the link names the changed controls only (`calibscope link` prints its view)
  const state = JSON.parse(execFileSync(cli, ['link', truth.link]).toString());
  assert.deepEqual(Object.keys(state.lab).sort(), [
    'beyond-dist', 'beyond-mode', 'beyond-n', 'beyond-reps', 'beyond-seed', 'counter-lambda',
    'exact-m', 'truth-binning', 'truth-n', 'truth-p', 'truth-reps', 'truth-temperature',
  ]);
  assert.equal(state.lab['truth-n'], 300);
  assert.equal(state.lab['beyond-dist'], 'bimodal');
  assert.equal(state.view, 'lab-truth');
  for (const [tab, run, ids, set, other, otherIds, otherSet] of [
    ['truth-lab', truth, TRUTH, truthSet, 'beyond-lab', BEYOND, beyondSet],
    ['beyond-lab', beyond, BEYOND, beyondSet, 'truth-lab', TRUTH, truthSet],
  ]) {
    const b = await openAt(run.link);
    assert.equal(await b.page.getAttribute(`#tab-${tab}`, 'aria-selected'), 'true', `${tab} is shown`);
    assert.deepEqual(await labControls(b.page, ids), set, `${tab}: the controls`);
    assert.ok(run.want.length > 10, `${tab}: ${run.want.length} values`);
    assert.deepEqual(await values(b.page), run.want, `${tab}: the same numbers`);
    // the other lab's settings came along
    await b.page.click(`#tab-${other}`);
    await idle(b.page);
    assert.deepEqual(await labControls(b.page, otherIds), otherSet, `${other}: the controls`);
    await close(b);
  }
});
