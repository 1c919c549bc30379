// The mapping panel: a file whose columns are not recognised by name is mapped by
// hand (label, score columns, class names, delimiter, top-label columns, id), read
// again, and audited; a mapping that cannot be used is an error, and the page stays
// usable. The values shown are checked against a direct computation on the file.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launch, openApp, idle, dropPaths, dropFiles, valueOf, foreignRequests, shot } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const dir = mkdtempSync(path.join(tmpdir(), 'calibscope-mapping-'));

/** A small deterministic 3-class table with unrecognised names, `;`-separated. */
function oddTable(n = 60) {
  let seed = 7;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const rows = [];
  for (let i = 0; i < n; i++) {
    const a = rand() + 0.05, b = rand() + 0.05, c = rand() + 0.05;
    const s = a + b + c;
    const p = [a / s, b / s, c / s].map((v) => Number(v.toFixed(6)));
    p[2] = Number((1 - p[0] - p[1]).toFixed(6));
    const truth = Math.floor(rand() * 3);
    rows.push({ id: `r${i}`, truth, p });
  }
  return rows;
}

async function setSelect(page, id, value) {
  await page.locator(`#${id}`).selectOption(value);
}

async function setText(page, id, value) {
  await page.locator(`#${id}`).fill(value);
  await page.locator(`#${id}`).dispatchEvent('change');
}

test('unrecognised columns are mapped by hand and audited', async () => {
  const rows = oddTable();
  const file = path.join(dir, 'odd_columns.csv');
  writeFileSync(file, 'sample;truth;sa;sb;sc\n' + rows.map((r) => [r.id, r.truth, ...r.p].join(';')).join('\n') + '\n');
  const { page, requests, errors, context } = await openApp(browser);
  try {
    await dropPaths(page, [file]);
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'missing_label_column');
    // the panel offers the file's columns
    assert.equal(await page.locator('#mapping [data-field="columns"]').innerText(), 'sample, truth, sa, sb, sc');
    await setSelect(page, 'map-label', 'truth');
    await setText(page, 'map-scores', 'sa, sb, sc');
    await setText(page, 'map-classes', 'cat, dog, owl');
    await setSelect(page, 'map-delimiter', ';');
    await setSelect(page, 'map-id', 'sample');
    await page.click('#map-apply');
    await idle(page);
    assert.equal(await page.locator('#error').count(), 0, 'the mapped file reads');
    assert.equal(await valueOf(page, 'input.n'), String(rows.length));
    assert.equal(await valueOf(page, 'input.k'), '3');
    assert.equal(await valueOf(page, 'input.kind'), 'multiclass');
    assert.equal(await valueOf(page, 'input.class_names'), 'cat, dog, owl');
    assert.equal(await valueOf(page, 'input.label'), 'truth');
    assert.equal(await valueOf(page, 'input.id_column'), 'sample');
    // accuracy from the file itself (argmax, lowest index on ties)
    const correct = rows.filter((r) => r.p.indexOf(Math.max(...r.p)) === r.truth).length;
    const acc = Number(await valueOf(page, 'binning_free.accuracy'));
    assert.ok(Math.abs(acc - correct / rows.length) < 1e-12, `accuracy ${acc} vs ${correct}/${rows.length}`);
    // the reading selector names the classes as mapped
    assert.ok((await page.locator('#reading-select').innerText()).includes('class owl'));
    // the form keeps the mapping that was used
    assert.equal(await page.locator('#map-scores').inputValue(), 'sa, sb, sc');
    await shot(page, '10-mapping-by-hand');
    // "Detect everything" reads it again without the mapping: the error returns
    await page.click('#mapping details.correct > summary');
    await page.click('#map-reset');
    await idle(page);
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'missing_label_column');
    assert.deepEqual(errors, []);
    assert.deepEqual(foreignRequests(requests), []);
  } finally {
    await context.close();
  }
});

test('top-label columns are mapped by hand; an unusable mapping is an error and the page stays usable', async () => {
  const file = path.join(dir, 'graded.csv');
  const lines = ['gold,guess,certainty'];
  const data = [];
  for (let i = 0; i < 40; i++) {
    const gold = i % 4, guess = (i % 5 === 0) ? (gold + 1) % 4 : gold, conf = 0.5 + (i % 10) / 20;
    data.push({ gold, guess, conf });
    lines.push(`${gold},${guess},${conf}`);
  }
  writeFileSync(file, lines.join('\n') + '\n');
  const { page, errors, context } = await openApp(browser);
  try {
    await dropPaths(page, [file]);
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'missing_label_column');
    await setSelect(page, 'map-label', 'gold');
    await setSelect(page, 'map-predicted', 'guess');
    await page.click('#map-apply');
    await idle(page);
    // only one of the two top-label columns: the form says what is wrong, reads nothing
    assert.match(await page.locator('#map-error').innerText(), /two columns/);
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'missing_label_column');
    await setSelect(page, 'map-confidence', 'certainty');
    await page.click('#map-apply');
    await idle(page);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await page.locator('#map-error').count(), 0);
    assert.equal(await valueOf(page, 'input.kind'), 'toplabel');
    const acc = data.filter((d) => d.guess === d.gold).length / data.length;
    assert.ok(Math.abs(Number(await valueOf(page, 'binning_free.accuracy')) - acc) < 1e-12);
    // and a good file afterwards is read with detection again
    await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
    assert.equal(await valueOf(page, 'input.n'), '171');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
