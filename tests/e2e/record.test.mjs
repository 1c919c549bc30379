// Audit records in the app (issue 8): a record written by the CLI verifies all ✓ in
// the app, a record downloaded from the app verifies with `calibscope verify`, a
// tampered value is flagged ✗ with both values, and an HTML report's record verifies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, idle, dropPaths, foreignRequests, repo, fixtures, artifacts, shot } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const dir = path.join(artifacts, 'record');
mkdirSync(dir, { recursive: true });
const RF = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
const GNB = path.join(fixtures, 'real/breast_cancer_gnb_p.csv');

let browser;
before(async () => {
  assert.ok(existsSync(cli), `${cli} not found: cargo build --release -p calibscope-cli`);
  browser = await launch();
});
after(async () => { await browser?.close(); });

async function withApp(fn) {
  const app = await openApp(browser);
  try {
    await fn(app);
    assert.deepEqual(foreignRequests(app.requests), [], 'no request outside the origin');
    assert.deepEqual(app.errors, [], 'no page error');
  } finally {
    await app.context.close();
  }
}

/** Drops files on the "Verify a record" target and waits for the answer. */
async function dropToVerify(page, paths) {
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
  await withApp(async ({ page }) => {
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
  await withApp(async ({ page }) => {
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
