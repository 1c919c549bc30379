// lm-evaluation-harness sample logs (crates/io/tests/data/lm_eval, written by the
// harness's own EvaluationTracker in bench/lm_eval_fixtures.sh) dropped on the page:
// read as logits over the choices, with the same numbers as the same predictions in a
// plain `id,label,logit_<j>` CSV; the check against the logged acc is shown; a bad log
// names the question and what to fix.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, dropPaths, valueOf, computedNumbers as numbers, withCleanPage } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const data = (name) => `crates/io/tests/data/lm_eval/${name}`;

const withPage = (fn) => withCleanPage(browser, fn);

test('a 4-choice harness log reads as 4-class logits with the numbers of its plain CSV', async () => {
  await withPage(async (page) => {
    await dropPaths(page, [data('hellaswag_like.csv')]);
    assert.equal(await page.locator('#error').count(), 0);
    const want = await numbers(page);
    assert.ok(want.length > 30, `${want.length} numbers shown`);
    await dropPaths(page, [data('samples_hellaswag_like.jsonl')]);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await valueOf(page, 'input.kind'), 'multiclass');
    assert.equal(await valueOf(page, 'input.k'), '4');
    assert.equal(await valueOf(page, 'input.n'), '300');
    assert.deepEqual(await numbers(page), want);
    const notes = await page.locator('#mapping details', { hasText: 'Choices made while reading' }).textContent();
    assert.match(notes, /lm-evaluation-harness samples log/);
    assert.match(notes, /agree with the logged acc on all 300 questions/);
  });
});

test('a target outside the choices is one located error and the page stays usable', async () => {
  await withPage(async (page) => {
    await dropPaths(page, [data('samples_bad_target.jsonl')]);
    const error = page.locator('#error');
    assert.equal(await error.getAttribute('data-error-code'), 'bad_label');
    const item = error.locator('.error-item');
    assert.equal(await item.count(), 1);
    assert.equal(await item.getAttribute('data-row'), '5');
    assert.equal(await item.getAttribute('data-column'), 'target');
    assert.match(await item.innerText(), /its target 7 is not a choice: it has 4 choices \(0\.\.3\)/);
    await dropPaths(page, [data('samples_piqa_like.jsonl')]);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await valueOf(page, 'input.k'), '2');
  });
});
