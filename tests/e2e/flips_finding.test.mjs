// The ranking-flips view's explanatory text against its own tables, in headless
// chromium: on the bundled example and on the two real-world CIFAR zoos of
// shared/real-world (three .npz files each, dropped together; the test fails when
// they are missing), with and without the source paper's protocol (every model
// temperature-scaled first, equal-mass bins, m = 5, 20, 2000). Every number of the
// text equals the table cell it names (data-table), every comparison word follows
// from the counts, the fitted τ of the scaled models equal `calibscope flips
// --temperature-first --json` (CALIBSCOPE_CLI, default target/release/calibscope),
// and the source paper's numbers are shown as its own.
// Run: node --test tests/e2e/flips_finding.test.mjs (see tests/e2e/helpers.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { launch, idle, dropPaths, valueOf, shot, foreignRequests, shared, repo, artifacts, withApp as withAppOf, openShare } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const realWorld = path.join(shared, 'real-world');
mkdirSync(artifacts, { recursive: true });

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

function withApp(fn, opts) {
  return withAppOf(browser, async (app) => {
    await fn(app);
    assert.deepEqual(foreignRequests(app.requests), [], 'no request leaves the origin');
    assert.deepEqual(app.errors, []);
  }, opts);
}
/** A test that reads the bundled example. */
const withExample = (fn) => withApp(fn, { example: true });

/** The three .npz files of a zoo; fails loudly when shared/real-world lacks them. */
function zoo(prefix) {
  assert.ok(existsSync(realWorld), `the real-world prediction files are missing: ${realWorld} (set CALIBSCOPE_SHARED)`);
  const files = readdirSync(realWorld).filter((f) => f.startsWith(prefix) && f.endsWith('.npz')).sort();
  assert.equal(files.length, 3, `three ${prefix} models in ${realWorld}`);
  return files.map((f) => path.join(realWorld, f));
}

/** Every number of the explanatory text: [{metric, table, value}]. */
async function findingNumbers(page) {
  return page.$$eval('#flips-finding [data-table]', (els) => els.map((e) => ({
    metric: e.dataset.metric, table: e.dataset.table, value: e.dataset.value,
  })));
}

/** Checks the text against the tables; returns the flip counts it states, by metric. */
async function checkFinding(page, label) {
  await page.waitForSelector('#flips-finding');
  const numbers = await findingNumbers(page);
  assert.ok(numbers.length >= 4, `${label}: ${numbers.length} numbers in the text`);
  const counts = {};
  for (const n of numbers) {
    const shown = await valueOf(page, n.table);
    assert.notEqual(shown, undefined, `${label}: the table shows ${n.table}`);
    assert.equal(n.value, shown, `${label}: ${n.metric} repeats ${n.table}`);
    const m = n.metric.match(/^flips\.finding\.counts\.([a-z_]+)\.flips$/);
    if (m) counts[m[1]] = Number(n.value);
  }
  for (const k of ['confece', 'confce_corr']) assert.ok(k in counts, `${label}: ${k} counted`);
  const text = await page.locator('#flips-finding').innerText();
  // the comparison words follow from the counts
  const names = { confce_corr: 'ConfCE^corr', lince_cw: 'LinCE^cw' };
  for (const [k, name] of Object.entries(names)) {
    if (!(k in counts)) continue;
    const [a, b] = [counts[k], counts.confece];
    const word = a < b ? 'fewer pairs than' : a > b ? 'more pairs than' : 'as many pairs as';
    if (Object.values(counts).some((c) => c > 0)) {
      assert.ok(text.includes(`${name} reversed ${word} ConfECE (${a} against ${b})`), `${label}: ${text}`);
    }
  }
  const values = Object.values(counts);
  if (values.every((c) => c === 0)) assert.match(text, /No metric reversed any pair/);
  else if (Math.min(...values) < Math.max(...values)) {
    assert.ok(text.includes(`(${Math.min(...values)}); most:`) && text.includes(`(${Math.max(...values)}).`), text);
  }
  assert.doesNotMatch(await page.locator('#flips').innerText(), /stay stable/);
  return { counts, text };
}

async function openFlips(page) {
  await page.click('#tab-flips');
  await idle(page);
  await page.waitForSelector('#flips-ranking');
}

/** The paper protocol, then the switch off again (same bins): both states checked. */
async function bothWays(page, label, models) {
  // as given
  const plain = await checkFinding(page, `${label} as given`);
  assert.equal(await page.locator('#flips-taus').count(), 0);
  // the source paper's protocol
  await page.click('#flips-paper-protocol');
  await idle(page);
  assert.ok(await page.isChecked('#flips-temperature-first'));
  assert.ok(await page.isChecked('#flips-binning-mass'));
  assert.equal(await page.inputValue('#flips-bins'), '5, 20, 2000');
  await page.waitForSelector('#flips-taus');
  assert.equal(await page.locator('#flips-taus tbody tr').count(), models);
  const scaled = await checkFinding(page, `${label} temperature-scaled first`);
  assert.match(scaled.text, /temperature-scaled first/);
  const taus = [];
  for (let i = 0; i < models; i++) taus.push(Number(await valueOf(page, `flips.temperature.tau.${i}`)));
  assert.ok(taus.every((t) => t > 0.05 && t < 20), `${label}: ${taus}`);
  // the ranking table and the matrices say the same m as the text
  const nEval = Number(await valueOf(page, 'flips.temperature.n_evaluation'));
  const last = Math.min(2000, nEval);
  assert.match(scaled.text, new RegExp(`between m = 5 and m = ${last}`));
  assert.equal(await page.getAttribute('.matrix-grid', 'data-bins'), [5, 20, last].filter((v, i, a) => a.indexOf(v) === i).join(','));
  await shot(page, `flips-finding-${label}`);
  // and off again
  await page.uncheck('#flips-temperature-first');
  await idle(page);
  assert.equal(await page.locator('#flips-taus').count(), 0);
  const again = await checkFinding(page, `${label} as given again`);
  assert.doesNotMatch(again.text, /temperature-scaled first/);
  return { plain, scaled, taus, nEval };
}

test('the bundled example: the text counts what the tables show, both ways', async () => {
  await withExample(async ({ page }) => {
    await openFlips(page);
    const { plain } = await bothWays(page, 'example', 10);
    // the numbers, from the table (equal-mass, m = 5 against 450)
    assert.match(plain.text, /On these 10 models \(45 pairs of models, equal-mass bins\), between m = 5 and m = 450/);
    assert.ok(plain.text.includes(`ConfECE reversed ${plain.counts.confece} pair`));
    // the source paper's numbers, attributed to it
    await page.click('#flips-paper summary');
    const shown = await page.locator('#flips-paper').innerText();
    assert.match(shown, /Truthful Calibration Errors for Multi-Class Prediction/);
    assert.match(shown, /CIFAR-100/);
    for (const v of ['0.997 ± 0.000', '−0.285 ± 0.030', '0.624 ± 0.020', '0.642 ± 0.020', '0.884 ± 0.007']) {
      assert.ok(shown.includes(v), `${v} quoted`);
    }
    assert.equal(await valueOf(page, 'paper.spearman.17.within'), '0.997');
  });
});

for (const prefix of ['cifar10_', 'cifar100_']) {
  test(`${prefix.slice(0, -1)} zoo (3 real models): the text equals the table; τ equal the CLI's`, async () => {
    const files = zoo(prefix);
    await withApp(async ({ page }) => {
      await dropPaths(page, files);
      await openFlips(page);
      assert.equal(await page.locator('#flips-ranking tbody tr').count(), 3);
      const { plain, scaled, taus, nEval } = await bothWays(page, prefix.slice(0, -1), 3);
      for (const r of [plain, scaled]) assert.match(r.text, /With 3 models a Spearman ρ takes only the values/);
      assert.equal(nEval, 5000);
      // the CLI's protocol run on the same files
      const doc = JSON.parse(execFileSync(cli, ['flips', '--metric', 'all', '--temperature-first', '--bootstrap', '0', '--json', ...files]));
      assert.deepEqual(taus, doc.temperature.tau);
      const last = doc.m_values.length - 1;
      for (const [k, c] of Object.entries(scaled.counts)) {
        assert.equal(c, doc.metrics[k].flips[0][last], `${prefix} ${k}: the app's count is the CLI's`);
      }
      const plainDoc = JSON.parse(execFileSync(cli, ['flips', '--metric', 'all', '--bootstrap', '0', '--json', ...files]));
      for (const [k, c] of Object.entries(plain.counts)) {
        assert.equal(c, plainDoc.metrics[k].flips[0][plainDoc.m_values.length - 1], `${prefix} ${k} as given`);
      }
      if (prefix !== 'cifar10_') return;
      // the app's record keeps the switch and the taus, and verifies with the CLI
      await page.click('#flips-paper-protocol');
      await idle(page);
      const back = await openShare(page);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-record')]);
      const file = path.join(artifacts, 'flips-temperature-first.record.json');
      await download.saveAs(file);
      const rec = JSON.parse(readFileSync(file, 'utf8'));
      assert.equal(rec.tables.flips.settings.temperature_first, true);
      assert.deepEqual(rec.tables.flips.temperature.tau, taus);
      const out = spawnSync(cli, ['verify', file, ...files]);
      assert.equal(out.status, 0, out.stdout.toString() + out.stderr.toString());
      assert.match(out.stdout.toString(), /✓ tables\.flips\.temperature\.tau\.2/);
      // a link carries the switch: opened elsewhere with the same files, the same τ
      await page.waitForTimeout(450); // the URL follows after 300 ms
      const link = await page.inputValue('#share-link');
      await back();
      const context = await browser.newContext({ viewport: { width: 1280, height: 1600 } });
      try {
        const other = await context.newPage();
        await other.goto(link);
        await other.waitForFunction(() => typeof window.calibscopeIdle === 'function', null, { timeout: 30000 });
        await dropPaths(other, files);
        await other.waitForSelector('#flips-taus');
        assert.ok(await other.isChecked('#flips-temperature-first'));
        for (let i = 0; i < 3; i++) {
          assert.equal(Number(await valueOf(other, `flips.temperature.tau.${i}`)), taus[i]);
        }
      } finally {
        await context.close();
      }
    });
  });
}
