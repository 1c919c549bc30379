// An aggregate (calibscope-bins/1) dropped on the page: recognised without a
// mapping, its exact values equal `calibscope audit --json` of the rows it was made
// from (1e-12 relative), its bounded values lie within their bounds, every value
// equals the CLI's audit of the aggregate itself, and the views that need rows say
// why they are not available. The aggregate is made by the CLI from real fixtures,
// as JSON and as the column table an engine's query returns (CSV).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { launch, fixtures, artifacts, openApp, dropPaths, idle, setM, foreignRequests } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI;
const dir = path.join(artifacts, 'aggregate');
mkdirSync(dir, { recursive: true });

/** The bin counts the page audits an aggregate at (summary.m_values for n > 100). */
const BINS = '1,2,5,10,15,16,20,100';

function run(args) {
  assert.ok(cli && existsSync(cli), `CALIBSCOPE_CLI (${cli}) must name the built CLI: cargo build --release -p calibscope-cli`);
  return execFileSync(cli, args, { maxBuffer: 1 << 28 }).toString();
}

/** The aggregate of `fixture` as JSON and as the engine's CSV table, the rows' audit
 * and the CLI's audit of the aggregate. */
function prepare(fixture) {
  const data = path.join(fixtures, fixture);
  const stem = path.basename(fixture).replace(/\.[^.]+$/, '');
  const json = path.join(dir, `${stem}.bins.json`);
  const csv = path.join(dir, `${stem}.bins.csv`);
  run(['aggregate', data, '--out', json]);
  run(['aggregate', data, '--csv', '--out', csv]);
  const truth = JSON.parse(run(['audit', '--json', '--bins', BINS, data]));
  const cliAggregate = JSON.parse(run(['audit', '--json', '--bins', BINS, json]));
  const cliValues = new Map(cliAggregate.models[0].values.map((v) => [v.path.replace(/\[(\d+)\]/g, '.$1'), v]));
  return { json, csv, truth, cliValues };
}

function at(root, pathText) {
  return pathText.split('.').reduce((v, k) => (v == null ? undefined : v[k]), root);
}

/** Every marked number on the page: {metric, value, exact, bound}. */
async function marked(page) {
  return page.$$eval('[data-metric]', (els) => els
    .filter((e) => e.dataset.exact || e.dataset.bound)
    .map((e) => ({ metric: e.dataset.metric, value: JSON.parse(e.dataset.value), exact: e.dataset.exact === 'true', bound: e.dataset.bound ? Number(e.dataset.bound) : null })));
}

/** Checks every marked number against the rows' audit and the CLI's audit of the
 * aggregate; returns how many were exact and bounded. */
function check(numbers, truth, cliValues, what) {
  let exact = 0;
  let bounded = 0;
  for (const n of numbers) {
    if (n.value === null) continue;
    const want = at(truth, n.metric);
    assert.equal(typeof want, 'number', `${what} ${n.metric}: the rows' audit has ${want}`);
    if (n.exact) {
      assert.ok(Math.abs(n.value - want) <= 1e-12 * Math.abs(want) || n.value === want, `${what} ${n.metric}: ${n.value} vs ${want}`);
      exact++;
    } else {
      assert.ok(Math.abs(n.value - want) <= n.bound * (1 + 1e-9), `${what} ${n.metric}: ${n.value} vs ${want} ± ${n.bound}`);
      bounded++;
    }
    const c = cliValues.get(n.metric);
    if (c) {
      assert.equal(n.value, c.value, `${what} ${n.metric}: the page and calibscope audit of the aggregate`);
      assert.equal(n.exact, c.exact, `${what} ${n.metric}: exact on the page and in the CLI`);
    }
  }
  return { exact, bounded };
}

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('an aggregate opens without a mapping, exact values equal the audit of the rows, bounded ones within their bounds', async () => {
  const app = await openApp(browser);
  const { page, requests, errors } = app;
  try {
    for (const fixture of ['real/breast_cancer_rf_p.csv', 'real/digits_logreg_C1_logits.csv']) {
      const { json, csv, truth, cliValues } = prepare(fixture);
      for (const file of [json, csv]) {
        const what = `${fixture} (${path.extname(file)})`;
        await dropPaths(page, [file]);
        await page.waitForSelector('#aggregate-note');
        await page.waitForSelector('.ece-family [data-metric]');
        assert.equal(await page.locator('#mapping-panel .error, .error-panel [role=alert]').count(), 0, `${what}: no error`);
        // the note says what an aggregate is and what it cannot give
        const note = await page.locator('#aggregate-note').textContent();
        assert.match(note, /65,536 fine cells/);
        assert.match(note, /recalibration/i);
        // the overview does not promise intervals an aggregate cannot give
        const overviewNote = await page.locator('#overview p.note').first().textContent();
        assert.match(overviewNote, /no bootstrap intervals/);
        assert.doesNotMatch(overviewNote, /in brackets/);
        // the overview and the explorer at m = 16 (divides the grid): exact
        const first = await marked(page);
        const counts = check(first, truth, cliValues, what);
        assert.ok(counts.exact >= 15, `${what}: ${counts.exact} exact values`);
        const ece16 = first.find((n) => n.metric === 'readings.confidence.width.16.ece');
        assert.ok(ece16?.exact, `${what}: the overview's ECE at m = 16 is exact`);
        // equal-mass bins cut cells: bounded (shown with its bound)
        const mass = first.find((n) => n.metric === 'readings.confidence.mass.16.ece');
        assert.ok(mass && (mass.bound !== null || mass.exact), `${what}: the equal-mass ECE is marked`);
        assert.ok(await page.locator('.agg-mark').count() >= counts.exact + counts.bounded);
        // a value the cells cannot give says so instead of "undefined"
        assert.ok(await page.locator('[data-metric="readings.confidence.smece"][data-unavailable]').count() === 1, `${what}: smECE not available`);
        // the explorer at m = 15 (does not divide the grid): the ECE bounded, the rest not available
        await setM(page, 15);
        await page.waitForSelector('.ece-family [data-metric="readings.confidence.width.15.ece"]');
        const at15 = (await marked(page)).filter((n) => n.metric.includes('width.15.'));
        check(at15, truth, cliValues, `${what} m = 15`);
        const ece15 = at15.find((n) => n.metric === 'readings.confidence.width.15.ece');
        assert.ok(ece15, `${what}: the ECE at 15 is marked`);
        if (!ece15.exact) {
          assert.ok(ece15.bound > 0);
          assert.equal(await page.locator('.ece-family [data-metric="readings.confidence.width.15.mce"][data-unavailable]').count(), 1);
        }
        // the reliability diagram is drawn
        assert.ok(await page.locator('#overview, .explorer svg, svg').count() > 0);
        await setM(page, 16);
      }
    }
    // views that need rows say why instead of failing
    for (const [tab, words] of [['recalibrate', /needs each row's scores/], ['flips', /not available for an aggregate/]]) {
      await page.click(`#tab-${tab}`);
      await idle(page);
      assert.match(await page.locator('.aggregate-unavailable').textContent(), words);
    }
    await page.click('#tab-audit');
    await idle(page);
    // the verdict is not asked for: no bootstrap runs, no error is shown
    assert.equal(await page.locator('.verdict-progress').count(), 0);
    await page.screenshot({ path: path.join(dir, 'aggregate.png'), fullPage: true });
    assert.deepEqual(errors, []);
    assert.deepEqual(foreignRequests(requests), []);
  } finally {
    await app.context.close();
  }
});
