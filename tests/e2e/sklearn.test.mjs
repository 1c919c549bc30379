// Files as scikit-learn and pandas users write them (crates/io/tests/data/sklearn,
// made by bench/sklearn_fixtures.sh with pandas' to_csv), dropped on the page: read
// without a mapping to the same numbers as the canonical `label,p_<class>` CSV of the
// same predictions; compressed copies too. A reading the labels contradict is one
// question in the mapping panel, and its answer reads the file right.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, idle, dropPaths, valueOf, computedNumbers as numbers, withCleanPage, shot } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const data = (name) => `crates/io/tests/data/sklearn/${name}`;
const dir = mkdtempSync(path.join(tmpdir(), 'calibscope-sklearn-'));

const withPage = (fn) => withCleanPage(browser, fn);

test('label,p0..p9 (and the other pandas forms) read as 10 classes with the canonical numbers', async () => {
  await withPage(async (page) => {
    await dropPaths(page, [data('digits_canonical.csv')]);
    assert.equal(await page.locator('#error').count(), 0);
    const want = await numbers(page);
    assert.ok(want.length > 50, `${want.length} numbers shown`);
    for (const file of ['digits_p.csv', 'digits_classes.csv', 'digits_proba.csv', 'digits_canonical.csv.gz', 'digits_canonical.csv.zst']) {
      await dropPaths(page, [data(file)]);
      assert.equal(await page.locator('#error').count(), 0, file);
      assert.equal(await valueOf(page, 'input.kind'), 'multiclass', file);
      assert.equal(await valueOf(page, 'input.k'), '10', file);
      assert.equal(await valueOf(page, 'input.n'), '629', file);
      assert.deepEqual(await numbers(page), want, file);
    }
    await shot(page, '06-sklearn-p0-p9');
  });
});

test('a predict_proba pair named neg,pos reads as binary with the canonical numbers', async () => {
  await withPage(async (page) => {
    await dropPaths(page, [data('cancer_negpos_canonical.csv')]);
    const want = await numbers(page);
    await dropPaths(page, [data('cancer_negpos.csv')]);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await valueOf(page, 'input.kind'), 'binary');
    assert.equal(await valueOf(page, 'input.class_names'), 'neg, pos');
    assert.deepEqual(await numbers(page), want);
  });
});

test('1-based class columns with 0-based labels: one question, and its answer reads the file', async () => {
  const canonical = readFileSync(data('digits_canonical.csv'), 'utf8');
  const body = canonical.slice(canonical.indexOf('\n') + 1);
  const file = path.join(dir, 'one_based.csv');
  writeFileSync(file, 'label,' + Array.from({ length: 10 }, (_, i) => `p_${i + 1}`).join(',') + '\n' + body);
  await withPage(async (page) => {
    await dropPaths(page, [data('digits_canonical.csv')]);
    const want = await numbers(page);
    await dropPaths(page, [file]);
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'mapping_guess');
    // one error, not one per row
    assert.equal(await page.locator('#error .error-item').count(), 1);
    const question = page.locator('#mapping-question');
    assert.equal(await question.count(), 1);
    assert.match(await question.innerText(), /did you mean label i = the i-th score column \(p_1 for 0, …, p_10 for 9\)\?/);
    const buttons = question.locator('button.candidate');
    assert.equal(await buttons.count(), 1);
    assert.match(await buttons.innerText(), /0 = p_1, …, 9 = p_10/);
    await shot(page, '06-sklearn-question');
    await buttons.click();
    await idle(page);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await page.locator('#mapping-question').count(), 0);
    assert.equal(await valueOf(page, 'input.k'), '10');
    assert.deepEqual(await numbers(page), want);
  });
});

test('a binary score column with labels up to 2: the question offers the 3 class columns', async () => {
  const rows = ['label,score,cat,dog,bird'];
  const canon = ['label,p_cat,p_dog,p_bird'];
  let seed = 11;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  for (let i = 0; i < 120; i++) {
    const w = [rand() + 0.05, rand() + 0.05, rand() + 0.05];
    const s = w[0] + w[1] + w[2];
    const p = w.map((x) => x / s);
    const y = Math.floor(rand() * 3);
    rows.push([y, Math.max(...p), ...p].join(','));
    canon.push([y, ...p].join(','));
  }
  const file = path.join(dir, 'score_and_classes.csv');
  const canonFile = path.join(dir, 'score_and_classes_canonical.csv');
  writeFileSync(file, rows.join('\n') + '\n');
  writeFileSync(canonFile, canon.join('\n') + '\n');
  await withPage(async (page) => {
    await dropPaths(page, [canonFile]);
    const want = await numbers(page);
    await dropPaths(page, [file]);
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'mapping_guess');
    assert.equal(await page.locator('#error .error-item').count(), 1);
    const question = page.locator('#mapping-question');
    assert.match(await question.innerText(), /read as binary from column "score", but labels go to 2 .*did you mean 3 classes cat, dog, bird\?/);
    await question.locator('button.candidate').first().click();
    await idle(page);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await valueOf(page, 'input.kind'), 'multiclass');
    assert.equal(await valueOf(page, 'input.class_names'), 'cat, dog, bird');
    assert.deepEqual(await numbers(page), want);
  });
});
