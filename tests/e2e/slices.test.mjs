// The Slices view (issue 32) on the grouped fixtures of bench/groups_fixtures.sh: the
// grouping chosen in the mapping panel; the view singles out the group made
// overconfident; every per-group number equals `calibscope audit --group ... --json`;
// the rows of a bin (brushing, from the Audit diagram by keyboard and from a group's
// bin) equal a direct filter of the file, page by page and as the CSV download; a
// link made on the view reopens it, grouped, with the same numbers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { launch, openApp, dropPaths, idle, repo, foreignRequests, openShare } from './helpers.mjs';

const FILE = 'crates/audit/tests/data/groups/synthetic_groups.csv';
const M = 15;

let browser;
let app;
before(async () => {
  browser = await launch();
  app = await openApp(browser);
});
after(async () => {
  await app?.context.close();
  await browser?.close();
});

/** The file's rows: [{row, label, p, cohort}] (row 1 = the first data row). */
function rows() {
  const lines = readFileSync(path.join(repo, FILE), 'utf8').trim().split('\n');
  const head = lines[0].split(',');
  assert.deepEqual(head, ['label', 'p', 'cohort']);
  return lines.slice(1).map((l, i) => {
    const [label, p, cohort] = l.split(',');
    return { row: i + 1, label, p: Number(p), cohort };
  });
}

/** The equal-width bin of a forecast (edges within 1e-7 · m belong to the upper bin). */
function widthBin(u, m) {
  const x = u * m;
  const r = Math.round(x);
  const b = Math.abs(x - r) <= 1e-7 * m ? r : Math.floor(x);
  return Math.min(Math.max(b, 0), m - 1);
}

/** The binary confidence reading: the predicted class and its probability. */
function confidence(r) {
  return r.p >= 0.5 ? { pred: '1', c: r.p } : { pred: '0', c: 1 - r.p };
}

async function grouped(page) {
  await dropPaths(page, [FILE]);
  assert.equal(await page.locator('#error').count(), 0);
  await page.locator('#mapping details.correct > summary').click();
  await page.locator('#map-groups input[value="cohort"]').check();
  await page.locator('#map-apply').click();
  await idle(page);
  assert.equal(await page.locator('[data-field="groups"]').textContent(), 'cohort');
}

async function shownRows(panel) {
  return panel.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Number(tr.dataset.row)));
}

test('grouped in the mapping panel, the Slices view singles out the overconfident group with the CLI numbers', async () => {
  const { page } = app;
  await grouped(page);
  await page.locator('#tab-slices').click();
  await page.waitForSelector('#slices[data-complete="true"]', { timeout: 60000 });
  await idle(page);
  assert.equal(await page.locator('#slices-worst [data-metric="worst_group.group"]').getAttribute('data-value'), 'overconfident');
  assert.equal(await page.locator('#slices-table tr.worst').getAttribute('data-group'), 'overconfident');
  assert.match(await page.locator('#slices-test').innerText(), /differ more than chance/);
  assert.equal(await page.locator('#slices-multiples figure').count(), 3);

  const cli = process.env.CALIBSCOPE_CLI;
  assert.ok(cli && existsSync(cli), `CALIBSCOPE_CLI (${cli}) must name the built CLI`);
  const doc = JSON.parse(execFileSync(cli, ['audit', path.join(repo, FILE), '--group', 'cohort', '--json',
    '--no-recalibration', '--bins', String(M)], { maxBuffer: 1 << 28 }).toString());
  const shown = await page.$$eval('#slices [data-metric]', (els) => els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value })));
  let compared = 0;
  for (const { metric, value } of shown) {
    const want = metric.split('.').reduce((o, k) => (o == null ? undefined : o[k]), doc);
    assert.notEqual(want, undefined, `${metric} is in the CLI's document`);
    if (typeof want === 'number') {
      const got = Number(value);
      assert.ok(Math.abs(got - want) <= 1e-12 * Math.max(1, Math.abs(want)), `${metric}: page ${got}, CLI ${want}`);
    } else {
      assert.equal(value, String(want), metric);
    }
    compared += 1;
  }
  // 3 groups × (name, n, accuracy, ECE, smooth ECE, CSR, P_risk, verdict kind and
  // sentence) + worst group + test
  assert.ok(compared >= 3 * 9 + 3 + 4, `${compared} numbers compared`);
  // each group's verdict, of its rows alone: the overconfident group is called so
  const kind = (group) => page.locator(`#slices-table tr[data-group="${group}"] td.verdict-kind [data-metric$=".audit.verdict.kind"]`).getAttribute('data-value');
  assert.equal(await kind('overconfident'), 'overconfident');
  assert.equal(await kind('calibrated_a'), 'no_evidence');
  assert.match(await page.locator('#slices-multiples figure[data-group="overconfident"] .verdict-text').innerText(), /^Overconfident: confidence exceeds accuracy by/);
  for (const v of doc.groups.values) {
    assert.ok(shown.some((d) => d.metric.endsWith('.ece') && Number(d.value) === v.ece), `ECE of ${v.group}`);
  }

  // sort by keyboard: n ascending puts the groups in n order
  const sortN = page.locator('#slices-table button[data-sort="group"]');
  await sortN.focus();
  await page.keyboard.press('Enter');
  const order = await page.locator('#slices-table tbody tr').evaluateAll((trs) => trs.map((t) => t.dataset.group));
  assert.deepEqual(order, [...order].sort());
  // filter
  await page.locator('#slices-filter').fill('calib');
  assert.equal(await page.locator('#slices-table tbody tr').count(), 2);
  await page.locator('#slices-filter').fill('');
});

test('a link made on the Slices view reopens it with the same groups and numbers', async () => {
  const { page } = app;
  await page.locator('#tab-slices').click();
  await page.waitForSelector('#slices[data-complete="true"]', { timeout: 60000 });
  await idle(page);
  const numbers = (p) => p.$$eval('#slices [data-metric]', (els) => els.map((e) => [e.dataset.metric, e.dataset.value]));
  const want = await numbers(page);
  assert.ok(want.length >= 20, `${want.length} numbers on the view`);
  const back = await openShare(page);
  await page.waitForTimeout(450); // the link follows the state after 300 ms
  const link = await page.inputValue('#share-link');
  await back();
  const other = await openApp(browser, { url: link });
  try {
    await dropPaths(other.page, [FILE]);
    assert.equal(await other.page.getAttribute('#tab-slices', 'aria-selected'), 'true', 'the Slices view is shown');
    await other.page.waitForSelector('#slices[data-complete="true"]', { timeout: 60000 });
    await idle(other.page);
    assert.equal(await other.page.locator('[data-field="groups"]').textContent(), 'cohort', 'grouped as before');
    assert.deepEqual(await numbers(other.page), want, 'the same numbers');
    assert.deepEqual(foreignRequests(other.requests), []);
  } finally {
    await other.context.close();
  }
});

test('a group\'s bin lists its rows: a direct filter of the file, and the same CSV', async () => {
  const { page } = app;
  const all = rows();
  const cards = page.locator('#slices-multiples figure[data-group="overconfident"] button.bin');
  const button = cards.nth(2);
  const bin = Number(await button.getAttribute('data-bin'));
  const gi = await button.getAttribute('data-group-index');
  await button.focus();
  await page.keyboard.press('Enter');
  await idle(page);
  const want = all.filter((r) => r.cohort === 'overconfident' && widthBin(confidence(r).c, M) === bin).map((r) => r.row);
  const panel = page.locator('#slices-brush');
  assert.equal(await panel.getAttribute('data-bin'), String(bin));
  assert.equal(Number(await panel.locator('.brush-count').getAttribute('data-total')), want.length);
  assert.deepEqual(await shownRows(panel), want.slice(0, 50));
  assert.ok(gi !== null);
});

test('a bin of the Audit diagram chosen by keyboard lists its rows page by page, and downloads them as CSV', async () => {
  const { page, requests, errors } = app;
  const all = rows();
  await page.locator('#tab-audit').click();
  await idle(page);
  const chart = page.locator('#chart');
  await chart.focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await idle(page);
  const panel = page.locator('#audit-brush');
  const bin = Number(await panel.getAttribute('data-bin'));
  const want = all.filter((r) => widthBin(confidence(r).c, M) === bin);
  assert.ok(want.length > 100, `${want.length} rows in bin ${bin}`);
  assert.equal(Number(await panel.locator('.brush-count').getAttribute('data-total')), want.length);
  assert.deepEqual(await shownRows(panel), want.slice(0, 50).map((r) => r.row));
  // the row's cells: row, label, prediction, confidence, cohort
  const first = await panel.locator('tbody tr').first().locator('td').allTextContents();
  assert.deepEqual([first[0], first[1], first[2], first[4]], [String(want[0].row), want[0].label, confidence(want[0]).pred, want[0].cohort]);
  assert.equal(Number(await panel.locator('tbody tr').first().locator('td.num').getAttribute('data-value')), confidence(want[0]).c);
  await panel.locator('.brush-next').click();
  await idle(page);
  assert.deepEqual(await shownRows(panel), want.slice(50, 100).map((r) => r.row));
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    panel.locator('.brush-csv').click(),
  ]);
  const csv = readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'row,label,prediction,confidence,cohort');
  assert.deepEqual(csv.slice(1), want.map((r) => `${r.row},${r.label},${confidence(r).pred},${confidence(r).c},${r.cohort}`));
  assert.deepEqual(errors, []);
  assert.deepEqual(foreignRequests(requests), []);
});
