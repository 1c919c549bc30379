// Models that may decline to answer, in headless chromium: a table of verbalised
// confidences with abstentions (crates/io/tests/data/verbal, CSV and JSON) dropped, the Audit view
// says how many questions were answered and draws the risk–coverage curve, every
// number (coverage, answered, total, the curve's points, its area, the verdict)
// equal to `calibscope audit --json` with the page's bootstrap; a HELM
// per_instance_stats.json reads as the CLI reads it; a file without abstentions
// shows no such section.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { launch, withApp, dropPaths, idle, repo, shot, foreignRequests, auditValue, sameAsCli, fixtures } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const data = (name) => path.join(repo, 'crates/io/tests/data', name);

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** `calibscope audit --json` of `file` with the page's bootstrap. */
function cliAudit(file) {
  return JSON.parse(execFileSync(cli, ['audit', '--json', '--bootstrap', '1000', '--seed', '0', '--alpha', '0.05', file], { maxBuffer: 1 << 26 }).toString());
}

/** Every number in `selector` with its path and value: [{metric, value, text}]. */
async function numbersIn(page, selector) {
  return page.locator(`:is(${selector}) [data-metric]`).evaluateAll((els) =>
    els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value, text: e.textContent })));
}

/** Drops `file` and waits for the verdict (the second stage) to be shown. */
async function open(page, file) {
  await dropPaths(page, [file]);
  assert.equal(await page.locator('#error').count(), 0, 'read without error');
  await page.waitForSelector('#verdict .verdict-text, #verdict .verdict-none', { timeout: 60000 });
  await idle(page);
}

for (const name of ['verbal/verbal_percent.csv', 'verbal/verbal_fraction.csv', 'verbal/verbal_fraction.jsonl', 'verbal/verbal_percent.json']) {
  test(`${name}: answered, coverage and the risk–coverage curve are the CLI's`, async () => {
    const file = data(name);
    const doc = cliAudit(file);
    assert.ok(doc.total > doc.answered, 'the file has abstentions');
    await withApp(browser, async ({ page, errors, requests }) => {
      await open(page, file);
      const section = page.locator('#selective');
      await section.waitFor();
      const shown = await numbersIn(page, '#selective');
      const paths = new Set(shown.map((n) => n.metric));
      for (const key of ['answered', 'total', 'coverage', 'risk_coverage.area']) {
        assert.ok(paths.has(key), `${key} is shown`);
      }
      assert.equal(shown.filter((n) => n.metric.startsWith('risk_coverage.points.')).length,
        3 * doc.risk_coverage.points.length, 'every point of the curve, three numbers each');
      for (const n of shown) sameAsCli(n, auditValue(doc, n.metric));
      // shown as counts and percentages of the same values
      assert.match(await page.locator('#selective-coverage').innerText(),
        new RegExp(`answered ${doc.answered} of ${doc.total} questions \\(coverage [0-9.]+\\s*%\\)`));
      assert.ok(await page.locator('#selective-chart svg path.series').count() >= 1, 'the curve is drawn');
      // the verdict is about the answered questions, as the CLI's
      const verdict = await numbersIn(page, '#verdict');
      assert.ok(verdict.length > 0);
      for (const n of verdict) sameAsCli(n, auditValue(doc, n.metric));
      await shot(page, `selective-${path.basename(name, '.csv')}`);
      assert.deepEqual(errors, []);
      assert.deepEqual(foreignRequests(requests), [], 'no request leaves the origin');
    });
  });
}

test('a HELM per_instance_stats.json reads as the CLI reads it', async () => {
  const file = data('helm/per_instance_stats.json');
  const doc = cliAudit(file);
  await withApp(browser, async ({ page, errors }) => {
    await open(page, file);
    // (`derived.*`: computed by the page from the document's numbers, not in it)
    const shown = (await numbersIn(page, '#verdict, #overview')).filter((n) => !/^(input|derived)\./.test(n.metric));
    assert.ok(shown.length > 10, `${shown.length} numbers compared`);
    for (const n of shown) sameAsCli(n, auditValue(doc, n.metric));
    assert.equal(await page.locator('#selective').count(), doc.total === undefined ? 0 : 1);
    assert.deepEqual(errors, []);
  });
});

test('predictions without abstentions show no answers-and-abstentions section', async () => {
  await withApp(browser, async ({ page }) => {
    await open(page, path.join(fixtures, 'real/breast_cancer_rf_p.csv'));
    assert.equal(await page.locator('#selective').count(), 0);
  });
});

// A verbalised table whose columns have other names: read as a plain table it
// fails (no label column); naming its two columns in the mapping form reads it as
// `calibscope audit --verbalised stated,graded` does.
test('verbalised columns named in the mapping form: the CLI\'s --verbalised numbers', async () => {
  const { mkdirSync, readFileSync, writeFileSync } = await import('node:fs');
  const { artifacts } = await import('./helpers.mjs');
  const dir = path.join(artifacts, 'selective');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'verbal_renamed.csv');
  writeFileSync(file, readFileSync(data('verbal/verbal_fraction.csv'), 'utf8')
    .replace('id,question,verbalized_confidence,correct', 'id,question,stated,graded'));
  const doc = JSON.parse(execFileSync(cli, ['audit', '--json', '--bootstrap', '1000', '--seed', '0', '--alpha', '0.05',
    '--verbalised', 'stated,graded', file], { maxBuffer: 1 << 26 }).toString());
  assert.equal(doc.answered, 46);
  await withApp(browser, async ({ page, errors, requests }) => {
    await dropPaths(page, [file]);
    assert.equal(await page.locator('#error').count(), 1, 'not readable without a mapping');
    await page.locator('#mapping details.correct').evaluate((d) => { d.open = true; });
    await page.selectOption('#map-stated', 'stated');
    await page.selectOption('#map-correct', 'graded');
    await page.locator('#map-apply').click();
    await page.waitForSelector('#verdict .verdict-text, #verdict .verdict-none', { timeout: 60000 });
    await idle(page);
    assert.equal(await page.locator('#error').count(), 0, 'read with the mapping');
    await page.locator('#selective').waitFor();
    const shown = await numbersIn(page, '#selective');
    for (const key of ['answered', 'total', 'coverage', 'risk_coverage.area']) {
      const n = shown.find((x) => x.metric === key);
      assert.ok(n, `${key} is shown`);
      sameAsCli(n, auditValue(doc, key));
    }
    // a half-filled pair is refused before reading
    await page.locator('#mapping details.correct').evaluate((d) => { d.open = true; });
    await page.selectOption('#map-correct', '');
    await page.locator('#map-apply').click();
    assert.match(await page.locator('#map-error').textContent(), /verbalised confidence takes two columns/);
    assert.deepEqual(foreignRequests(requests), []);
    assert.deepEqual(errors, []);
  });
});
