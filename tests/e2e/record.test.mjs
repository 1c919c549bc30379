// Audit records in the app (issue 8): a record written by the CLI verifies all ✓ in
// the app, a record downloaded from the app verifies with `calibscope verify`, a
// tampered value is flagged ✗ with both values, and an HTML report's record verifies.
// Multi-model records hold the Ranking flips view's numbers (tables.flips): the app's
// verify with the CLI and in the app, the CLI's in the app, a tampered one is flagged.
// A record made with the Slices view's grouping holds every group's audit, and both
// verifiers recompute them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, idle, dropPaths, foreignRequests, repo, fixtures, artifacts, shot, openShare } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const dir = path.join(artifacts, 'record');
mkdirSync(dir, { recursive: true });
const RF = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
const GNB = path.join(fixtures, 'real/breast_cancer_gnb_p.csv');
const ZOO = path.join(fixtures, 'multi/digits_zoo_probs.csv');
const GROUPED = path.join(repo, 'crates/audit/tests/data/groups/synthetic_groups.csv');

let browser;
before(async () => {
  assert.ok(existsSync(cli), `${cli} not found: cargo build --release -p calibscope-cli`);
  browser = await launch();
});
after(async () => { await browser?.close(); });

async function withApp(fn, opts) {
  const app = await openApp(browser, opts);
  try {
    await fn(app);
    assert.deepEqual(foreignRequests(app.requests), [], 'no request outside the origin');
    assert.deepEqual(app.errors, [], 'no page error');
  } finally {
    await app.context.close();
  }
}

/** A test that reads the bundled example. */
const withExample = (fn) => withApp(fn, { example: true });

/** Drops files on the "Verify a record" target and waits for the answer. */
async function dropToVerify(page, paths) {
  if (!(await page.$('#verify-drop'))) await openShare(page); // "Verify a record" is on the Share & export view
  await dropPaths(page, paths.map((p) => path.resolve(p)), { target: '#verify-drop' });
  await page.waitForSelector('#verify-summary');
  const s = page.locator('#verify-summary');
  return {
    compared: Number(await s.getAttribute('data-compared')),
    failed: Number(await s.getAttribute('data-failed')),
    text: await s.textContent(),
  };
}

test('a CLI record and a CLI HTML report verify all ✓ in the app', async () => {
  const record = path.join(dir, 'cli.record.json');
  const html = path.join(dir, 'cli.html');
  execFileSync(cli, ['audit', RF, '--record', record, '--html', html]);
  await withExample(async ({ page }) => {
    for (const file of [record, html]) {
      const r = await dropToVerify(page, [file, RF]);
      assert.ok(r.compared > 150, `${file}: ${r.compared} values`);
      assert.equal(r.failed, 0, r.text);
      // identical, or equal up to the rounding of another platform's maths library
      const ok = await page.locator('#verify-checks tr[data-status="identical"], #verify-checks tr[data-status="rounding"]').count();
      assert.equal(ok, r.compared);
      assert.match(r.text, /calibscope-cli/);
    }
    // a multi-model record too
    execFileSync(cli, ['audit', RF, GNB, '--record', path.join(dir, 'two.record.json')]);
    const r = await dropToVerify(page, [path.join(dir, 'two.record.json'), RF, GNB]);
    assert.ok(r.compared > 100 && r.failed === 0, r.text);
  });
});

test('a tampered value is flagged ✗ with both values', async () => {
  const record = path.join(dir, 'cli.record.json');
  execFileSync(cli, ['audit', RF, '--record', record]);
  const doc = JSON.parse(readFileSync(record, 'utf8'));
  const acc = doc.audits[0].binning_free.accuracy;
  doc.audits[0].binning_free.accuracy = acc + 0.001;
  const tampered = path.join(dir, 'tampered.record.json');
  writeFileSync(tampered, JSON.stringify(doc, null, 2));
  await withExample(async ({ page }) => {
    const r = await dropToVerify(page, [tampered, RF]);
    assert.equal(r.failed, 1, r.text);
    const row = page.locator('#verify-checks tr[data-path="audits.0.binning_free.accuracy"]');
    assert.equal(await row.getAttribute('data-status'), 'differs');
    assert.match(await row.textContent(), /✗ differs/);
    assert.equal(Number(await row.locator('td[data-recorded]').getAttribute('data-recorded')), acc + 0.001);
    assert.equal(Number(await row.locator('td[data-recomputed]').getAttribute('data-recomputed')), acc);
    // the difference is listed first
    assert.equal(await page.locator('#verify-checks tbody tr').first().getAttribute('data-path'), 'audits.0.binning_free.accuracy');
    await shot(page, 'record-tampered');
  });
});

test('a record downloaded from the app verifies with calibscope verify, and in the app', async () => {
  await withApp(async ({ page }) => {
    await dropPaths(page, [RF]);
    await page.fill('#m-input', '20');
    await page.dispatchEvent('#m-input', 'change');
    await idle(page);
    await openShare(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-record')]);
    assert.equal(download.suggestedFilename(), 'breast_cancer_rf_p.record.json');
    const file = path.join(dir, 'app.record.json');
    await download.saveAs(file);
    const rec = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(rec.schema, 'calibscope-record/1');
    assert.equal(rec.producer.name, 'calibscope-app');
    assert.equal(rec.settings.m, 20);
    assert.deepEqual(rec.options.m_values, [15, 20]);
    assert.equal(rec.inputs[0].sha256, execFileSync('sha256sum', [RF]).toString().split(' ')[0]);
    const out = spawnSync(cli, ['verify', file, RF]);
    assert.equal(out.status, 0, out.stdout.toString() + out.stderr.toString());
    assert.match(out.stdout.toString(), /\), 0 differ or are missing \(record by calibscope-app/);
    // and the app verifies its own record
    const r = await dropToVerify(page, [file, RF]);
    assert.ok(r.compared > 150 && r.failed === 0, r.text);
  });
});

/** The verify table's rows of the flips section: [verified, total]. */
async function flipsRows(page) {
  const rows = page.locator('#verify-checks tr[data-path^="tables.flips."]');
  const ok = page.locator('#verify-checks tr[data-path^="tables.flips."][data-status="identical"], #verify-checks tr[data-path^="tables.flips."][data-status="rounding"]');
  return [await ok.count(), await rows.count()];
}

test('a multi-model record holds the Ranking flips numbers; they verify in the app and with the CLI, a tampered one is flagged', async () => {
  await withApp(async ({ page }) => {
    await dropPaths(page, [ZOO]);
    await page.click('#tab-flips');
    await idle(page);
    await page.selectOption('#flips-metric', 'confce_corr');
    for (const [id, v] of [['#flips-m-input', 20], ['#flips-bins', '2, 15, 100']]) {
      await page.fill(id, String(v));
      await page.dispatchEvent(id, 'change');
      await idle(page);
    }
    // the numbers shown, to compare with the record
    const shownRank = await page.getAttribute('[data-metric="ranking.metrics.confce_corr.mass.ranks.20.0"]', 'data-value');
    const shownRho = await page.getAttribute('[data-metric="ranking.metrics.cwece.mass.spearman.0.2"]', 'data-value');
    await openShare(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-record')]);
    const file = path.join(dir, 'app-multi.record.json');
    await download.saveAs(file);
    const rec = JSON.parse(readFileSync(file, 'utf8'));
    const flips = rec.tables.flips;
    assert.deepEqual(flips.settings, { metric: 'confce_corr', binning: 'mass', m: 20, m_ref: 450, bins: [2, 15, 100], temperature_first: false });
    assert.equal(flips.models.length, 10);
    assert.equal(flips.ranking.ranks['20'][0], Number(shownRank), 'the record holds the rank shown');
    assert.equal(Number(flips.matrices.cwece.spearman[0][2]), Number(shownRho), 'and the Spearman shown');
    // the app verifies its record, the flips numbers included
    let r = await dropToVerify(page, [file, ZOO]);
    assert.equal(r.failed, 0, r.text);
    const [ok, total] = await flipsRows(page);
    assert.ok(total > 500, `${total} flips values`);
    assert.equal(ok, total);
    // and so does the CLI
    const out = spawnSync(cli, ['verify', file, ZOO]);
    assert.equal(out.status, 0, out.stdout.toString() + out.stderr.toString());
    assert.ok(out.stdout.toString().split('\n').filter((l) => l.startsWith('✓ tables.flips.')).length === total);
    // a tampered flips value
    const real = flips.ranking.spearman_vs_error['20'];
    flips.ranking.spearman_vs_error['20'] = real + 0.01;
    const tampered = path.join(dir, 'app-multi-tampered.record.json');
    writeFileSync(tampered, JSON.stringify(rec));
    r = await dropToVerify(page, [tampered, ZOO]);
    assert.equal(r.failed, 1, r.text);
    const row = page.locator('#verify-checks tr[data-path="tables.flips.ranking.spearman_vs_error.20"]');
    assert.equal(await row.getAttribute('data-status'), 'differs');
    assert.equal(Number(await row.locator('td[data-recomputed]').getAttribute('data-recomputed')), real);
    await shot(page, 'record-flips-tampered');
  });
});

test('a CLI multi-model record with its flips section verifies all ✓ in the app', async () => {
  const record = path.join(dir, 'cli-multi.record.json');
  execFileSync(cli, ['audit', ZOO, '--record', record, '--flips-metric', 'lince_cw', '--flips-binning', 'width', '--flips-m', '5', '--flips-ref', '100']);
  const rec = JSON.parse(readFileSync(record, 'utf8'));
  assert.equal(rec.tables.flips.settings.metric, 'lince_cw');
  await withExample(async ({ page }) => {
    const r = await dropToVerify(page, [record, ZOO]);
    assert.equal(r.failed, 0, r.text);
    assert.match(r.text, /calibscope-cli/);
    const [ok, total] = await flipsRows(page);
    assert.ok(total > 500 && ok === total, `${ok} of ${total}`);
    assert.equal(await page.locator('.verify-notes li').count(), 0, 'nothing left unrecomputed');
    // dropped back on the page with its data, the record restores the flips controls
    await dropPaths(page, [record, ZOO]);
    await idle(page);
    await page.click('#tab-flips');
    await idle(page);
    assert.equal(await page.inputValue('#flips-metric'), 'lince_cw');
    assert.equal(await page.isChecked('#flips-binning-width'), true);
    assert.equal(await page.inputValue('#flips-m-input'), '5');
    assert.equal(await page.inputValue('#flips-ref-input'), '100');
    assert.equal(await page.inputValue('#flips-bins'), '5, 20, 450');
    // and shows the recorded ranking
    const rank = await page.getAttribute('[data-metric="ranking.metrics.lince_cw.width.ranks.5.3"]', 'data-value');
    assert.equal(Number(rank), rec.tables.flips.ranking.ranks['5'][3]);
  });
});

test('a grouped record holds each group\'s audit; it verifies in the app and with calibscope verify, a tampered group value is flagged', async () => {
  await withApp(async ({ page }) => {
    await dropPaths(page, [GROUPED]);
    await page.locator('#mapping details.correct > summary').click();
    await page.locator('#map-groups input[value="cohort"]').check();
    await page.locator('#map-apply').click();
    await idle(page);
    assert.equal(await page.locator('[data-field="groups"]').textContent(), 'cohort');
    await openShare(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-record')]);
    const file = path.join(dir, 'grouped.record.json');
    await download.saveAs(file);
    const rec = JSON.parse(readFileSync(file, 'utf8'));
    const groups = rec.audits[0].groups;
    assert.deepEqual(groups.columns, ['cohort']);
    assert.equal(groups.values.length, 3);
    assert.ok(rec.audits[0].worst_group, 'the worst group is recorded');
    const out = spawnSync(cli, ['verify', file, GROUPED]);
    assert.equal(out.status, 0, out.stdout.toString() + out.stderr.toString());
    const r = await dropToVerify(page, [file, GROUPED]);
    assert.equal(r.failed, 0, r.text);
    const rows = page.locator('#verify-checks tr[data-path^="audits.0.groups.values."]');
    assert.ok(await rows.count() > 30, `${await rows.count()} group values verified`);
    // a tampered group's ECE is flagged, by both
    assert.equal(typeof groups.values[0].ece, 'number', 'each group has its ECE');
    groups.values[0].ece += 0.01;
    const tampered = path.join(dir, 'grouped.tampered.record.json');
    writeFileSync(tampered, JSON.stringify(rec));
    assert.equal(spawnSync(cli, ['verify', tampered, GROUPED]).status, 1);
    const t = await dropToVerify(page, [tampered, GROUPED]);
    assert.ok(t.failed >= 1, t.text);
    assert.equal(await page.locator('#verify-checks tr[data-path="audits.0.groups.values.0.ece"]').getAttribute('data-status'), 'differs');
  });
});
