// lm-evaluation-harness sample logs (crates/io/tests/data/lm_eval, written by the
// harness's own EvaluationTracker in bench/lm_eval_fixtures.sh) dropped on the page:
// read as logits over the choices, with the same numbers as the same predictions in a
// plain `id,label,logit_<j>` CSV; the check against the logged acc is shown; a bad log
// names the question and what to fix; a log whose questions have different numbers
// of choices (ragged) reads as the CLI reads it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { launch, dropPaths, valueOf, computedNumbers as numbers, withCleanPage, repo, idle, auditValue, sameAsCli } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');

/** `calibscope audit --json` of `file` with the page's bootstrap (B = 1000, seed 0,
 * alpha 0.05). */
function cliAudit(file) {
  return JSON.parse(execFileSync(cli, ['audit', '--json', '--bootstrap', '1000', '--seed', '0', '--alpha', '0.05', file], { maxBuffer: 1 << 26 }).toString());
}

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const data = (name) => `crates/io/tests/data/lm_eval/${name}`;

const withPage = (fn) => withCleanPage(browser, fn);

/** Ticks or unticks the grouping box of `column` in the "Correct the mapping" form,
 * opening the form first, by clicking the column's name as a person would (a label
 * toggles its box). On a loaded machine the box itself was once in ~30 runs laid
 * out at 0 × 0 px inside its visible label (every ancestor laid out and visible;
 * cause not found), which made Playwright wait on the box for 30 s; the layout is
 * then logged with a `#` prefix, and the label is clicked all the same. */
async function tickGroup(page, column, checked) {
  const form = page.locator('#mapping details.correct');
  const box = page.locator(`#map-groups input[value="${column}"]`);
  const label = page.locator('#map-groups label').filter({ has: page.locator(`input[value="${column}"]`) });
  await form.evaluate((d) => { d.open = true; });
  await label.waitFor({ state: 'visible' });
  if (!(await box.isVisible())) {
    console.log('# the grouping box is not visible; its ancestors:', JSON.stringify(await box.evaluate((b) => {
      const out = [];
      for (let e = b; e; e = e.parentElement) {
        const cs = getComputedStyle(e);
        const r = e.getBoundingClientRect();
        out.push([e.tagName, e.id, e.className, e.open, cs.display, cs.visibility, Math.round(r.width), Math.round(r.height)]);
      }
      return out;
    })));
  }
  if ((await box.evaluate((b) => b.checked)) !== checked) {
    await label.click();
  }
  assert.equal(await box.evaluate((b) => b.checked), checked, `the ${column} box is ${checked ? '' : 'un'}ticked`);
}

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

test('a log whose questions have different numbers of choices reads as ragged logits: every number is the CLI\'s, the classwise reading says why it is unavailable', async () => {
  const file = path.join(repo, data('samples_ragged.jsonl'));
  const doc = cliAudit(file);
  assert.ok(doc.input.classwise_unavailable, 'the CLI says why the classwise reading is unavailable');
  await withPage(async (page) => {
    await dropPaths(page, [file]);
    assert.equal(await page.locator('#error').count(), 0);
    await page.waitForSelector('#verdict .verdict-text', { timeout: 60000 });
    await idle(page);
    assert.equal(await valueOf(page, 'input.n'), String(doc.input.n));
    assert.equal(await page.locator('#classwise-unavailable').innerText(), doc.input.classwise_unavailable);
    // every number of the verdict and the overview (point values and intervals) is
    // the CLI's with the page's bootstrap
    const shown = await page.locator(':is(#verdict, #overview) [data-metric]').evaluateAll((els) =>
      els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value })));
    assert.ok(shown.length > 20, `${shown.length} numbers compared`);
    // (`derived.*`: computed by the page from the document's numbers, not in it)
    for (const d of shown.filter((d) => !d.metric.startsWith('derived.'))) sameAsCli(d, auditValue(doc, d.metric));
  });
});

test('an MMLU-like log is grouped by subject, and unticking it in the mapping panel turns the grouping off', async () => {
  await withPage(async (page) => {
    await dropPaths(page, [data('samples_mmlu_like.jsonl')]);
    assert.equal(await page.locator('#error').count(), 0);
    const groupsField = page.locator('[data-field="groups"]');
    assert.equal(await groupsField.textContent(), 'subject');
    const notes = page.locator('#mapping details', { hasText: 'Choices made while reading' });
    assert.match(await notes.textContent(), /the audit is also given per subject .*to turn the grouping off, choose none/);
    // every number but the grouping itself
    const ungroupedNumbers = async () => (await numbers(page)).filter((x) => x.metric !== 'input.groups');
    const want = await ungroupedNumbers();
    assert.ok(want.length > 30, `${want.length} numbers shown`);

    const box = page.locator('#map-groups input[value="subject"]');
    assert.equal(await box.isChecked(), true, 'the log\'s own grouping is ticked');
    await tickGroup(page, 'subject', false);
    await page.locator('#map-apply').click();
    await idle(page);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await groupsField.textContent(), 'none');
    assert.match(await notes.textContent(), /carry a subject; they are not grouped, as the mapping asks/);
    assert.deepEqual(await ungroupedNumbers(), want, 'the whole log\'s numbers do not change');

    // read again with nothing ticked: still no grouping (an empty grouping would
    // otherwise mean "the log's own")
    await page.locator('#mapping details.correct').evaluate((d) => { d.open = true; });
    assert.equal(await page.locator('#map-groups input[value="subject"]').isChecked(), false);
    await page.locator('#map-apply').click();
    await idle(page);
    assert.equal(await groupsField.textContent(), 'none');

    await tickGroup(page, 'subject', true);
    await page.locator('#map-apply').click();
    await idle(page);
    assert.equal(await groupsField.textContent(), 'subject');
  });
});

test('a ragged log is recalibrated by temperature scaling alone, says why, and its ledger is the CLI\'s', async () => {
  const file = path.join(repo, data('samples_arc_like.jsonl'));
  const doc = cliAudit(file);
  assert.match(doc.recalibration.platt.undefined, /different numbers of choices/);
  await withPage(async (page) => {
    await dropPaths(page, [file]);
    assert.equal(await page.locator('#error').count(), 0);
    await page.click('#tab-recalibrate');
    await page.waitForSelector('#recal-ledger', { timeout: 60000 });
    await idle(page);
    assert.match(await page.locator('#recal-left-out').innerText(),
      /^Only temperature scaling is fitted: the questions have different numbers of choices, so a class position .* is a different answer in each question/);
    assert.deepEqual(await page.locator('#recal-after option').evaluateAll((os) => os.map((o) => o.value)), ['temperature']);
    assert.deepEqual(await page.locator('#recal-ledger thead th').allInnerTexts(), ['metric', 'before', 'after temperature', 'can τ move it?']);
    // no line that reads a class position (AUC per class, LinCE^cw, cwA)
    const rows = await page.locator('#recal-ledger tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.row));
    for (const classwise of ['auc_macro', 'lince_cw_mass_15', 'cwa']) assert.ok(!rows.includes(classwise), `${classwise} in ${rows}`);
    // every value of the section's own lines (not the diagrams' Brier parts or the
    // fit times, which the CLI's document does not hold) is the CLI's: before
    // within 1e-9, after temperature scaling within 1e-6 (as the fixtures' after
    // tolerance: the fitted τ goes through the wasm build's exp and ln)
    const shown = await page.locator('#recal-ledger tbody tr:not([data-row="cal"]):not([data-row="ref"]):not([data-row="fit_ms"]) [data-metric]')
      .evaluateAll((els) => els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value })));
    assert.ok(shown.length >= 16, `${shown.length} numbers compared`);
    for (const d of shown) {
      const want = auditValue(doc, d.metric);
      if (typeof want !== 'number') { sameAsCli(d, want); continue; }
      const got = Number(d.value);
      const rel = d.metric.startsWith('recalibration.temperature.') ? 1e-6 : 1e-9;
      assert.ok(Math.abs(got - want) <= rel * Math.max(1, Math.abs(want)), `${d.metric}: ${got} vs the CLI's ${want}`);
    }
    assert.equal(await page.locator('#recal-map-platt').count(), 0, 'no Platt map is drawn');
  });
});
