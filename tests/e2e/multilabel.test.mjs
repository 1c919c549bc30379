// Multilabel files in headless chromium (crates/io/tests/data/multilabel, written by
// bench/multilabel_fixtures.sh: scikit-learn's digits tagged with four traits).
// Dropped as pandas wrote them, the page says what the numbers are (every
// (row, label) pair pooled), its numbers are the CLI's, and the Slices view audits
// each trait with the CLI's per-label numbers; JSON Lines with list columns read the
// same; a table whose columns do not pair by name is read after the pairs are named
// in the mapping panel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, withApp, dropPaths, idle, repo, foreignRequests, auditValue, sameAsCli } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const data = (name) => path.join(repo, 'crates/io/tests/data/multilabel', name);
const dir = mkdtempSync(path.join(tmpdir(), 'calibscope-multilabel-'));

let browser;
before(async () => { browser = await launch(); });
after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

function cliAudit(file, more = []) {
  return JSON.parse(execFileSync(cli, ['audit', '--json', ...more, file], { maxBuffer: 1 << 27 }).toString());
}

async function numbersIn(page, selector) {
  return page.locator(`:is(${selector}) [data-metric]`).evaluateAll((els) =>
    els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value })));
}

async function open(page, file) {
  await dropPaths(page, [file]);
  assert.equal(await page.locator('#error').count(), 0, 'read without error');
  await page.waitForSelector('#verdict .verdict-text, #verdict .verdict-none', { timeout: 60000 });
  await idle(page);
}

test('a pandas multilabel CSV: the note, the pooled numbers and each trait in the Slices view are the CLI\'s', async () => {
  const file = data('traits.csv');
  const doc = cliAudit(file, ['--bootstrap', '1000', '--seed', '0', '--alpha', '0.05']);
  await withApp(browser, async ({ page, errors, requests }) => {
    await open(page, file);
    const note = page.locator('#multilabel-note');
    await note.waitFor();
    assert.equal(await page.locator('#multilabel-labels').innerText(), 'even, above_4, prime, loop');
    assert.match(await note.innerText(), /multilabel: 4 labels .* on 629 rows.* pool all 2,?\s?516 pairs/s);
    const shown = await numbersIn(page, '#multilabel-note, #verdict');
    assert.ok(shown.length >= 5, `${shown.length} numbers`);
    for (const n of shown) sameAsCli(n, auditValue(doc, n.metric));
    assert.equal(await page.locator('[data-metric="input.n"]').first().getAttribute('data-value'), '2516');
    // what was read: the label and score columns of every label
    assert.match(await page.locator('#mapping .read-summary').innerText(), /n = 2516 · multilabel, 4 labels per row: binary pairs/);
    assert.equal(await page.locator('#mapping [data-field="label"]').textContent(), 'even, above_4, prime, loop');
    assert.equal(await page.locator('#mapping [data-field="scores"]').textContent(), 'p_even, p_above_4, p_prime, p_loop');

    // each trait is a group of the grouping "label", with the CLI's numbers
    await page.locator('#tab-slices').click();
    await page.waitForSelector('#slices[data-complete="true"]', { timeout: 60000 });
    await idle(page);
    const groups = await page.locator('#slices-table tr[data-group]').evaluateAll((trs) => trs.map((tr) => tr.dataset.group));
    assert.deepEqual(groups.sort(), ['above_4', 'even', 'loop', 'prime']);
    const grouped = cliAudit(file, ['--no-recalibration', '--bins', '15']);
    const inView = await numbersIn(page, '#slices');
    let compared = 0;
    for (const { metric, value } of inView) {
      const want = metric.split('.').reduce((o, k) => (o == null ? undefined : o[k]), grouped);
      assert.notEqual(want, undefined, `${metric} is in the CLI's document`);
      if (typeof want === 'number') {
        assert.ok(Math.abs(Number(value) - want) <= 1e-12 * Math.max(1, Math.abs(want)), `${metric}: page ${value}, CLI ${want}`);
      } else {
        assert.equal(value, String(want), metric);
      }
      compared += 1;
    }
    assert.ok(compared >= 4 * 7, `${compared} numbers compared`);
    assert.deepEqual(errors, []);
    assert.deepEqual(foreignRequests(requests), []);
  });
});

test('JSON Lines with list columns read as the CSV, the labels named by position', async () => {
  await withApp(browser, async ({ page, errors }) => {
    await open(page, data('traits_lists.jsonl'));
    await page.locator('#multilabel-note').waitFor();
    assert.equal(await page.locator('#multilabel-labels').innerText(), '0, 1, 2, 3');
    const csv = cliAudit(data('traits.csv'), ['--bootstrap', '0']);
    const acc = await page.locator('[data-metric="binning_free.accuracy"]').first().getAttribute('data-value');
    assert.equal(Number(acc), csv.binning_free.accuracy);
    assert.deepEqual(errors, []);
  });
});

test('pairs named in the mapping panel read a table whose names do not pair', async () => {
  const text = readFileSync(data('traits.csv'), 'utf8');
  const file = path.join(dir, 'renamed.csv');
  writeFileSync(file, text.replace(/^.*\n/, ',E,A,P,L,sE,sA,sP,sL\n'));
  await withApp(browser, async ({ page, errors }) => {
    await dropPaths(page, [file]);
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'missing_label_column');
    const box = page.locator('#map-multilabel');
    await box.fill('E:sE, A:sA, P:sP, L:sL');
    await box.dispatchEvent('change');
    await page.click('#map-apply');
    await idle(page);
    assert.equal(await page.locator('#error').count(), 0, 'the named pairs read');
    await page.locator('#multilabel-note').waitFor();
    assert.equal(await page.locator('#multilabel-labels').innerText(), 'E, A, P, L');
    const csv = cliAudit(data('traits.csv'), ['--bootstrap', '0']);
    const acc = await page.locator('[data-metric="binning_free.accuracy"]').first().getAttribute('data-value');
    assert.equal(Number(acc), csv.binning_free.accuracy);
    // one pair is not a multilabel table: said in the panel, nothing read
    const form = page.locator('#mapping details.correct');
    if (!(await form.evaluate((d) => d.open))) await form.locator('summary').click();
    await box.fill('E:sE');
    await box.dispatchEvent('change');
    await page.click('#map-apply');
    assert.match(await page.locator('#mapping').innerText(), /at least two labels/);
    assert.deepEqual(errors, []);
  });
});
