// Browser tests of the Recalibrate view's maps of every class at once (issue 33):
// vector scaling, matrix scaling and Dirichlet calibration, fitted on request on a
// 5-class fixture (5,000 rows of an MLP's logits). Their ledger values equal `calibscope recalibrate --method
// vector|matrix|dirichlet` (the CLI's before/after ledger on stderr), their
// downloads equal the CLI's CSV, Dirichlet's penalty search is shown, each map can
// be chosen for the AFTER diagram, and once asked for they are fitted again on a
// new split.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import {
  launch, openApp, idle, dropFiles, valueOf, foreignRequests, fixtures, repo, shot, recalLedger, openShare,
} from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const FILE = 'real/mc5_mlp_logits.npz';
const MAPS = ['vector', 'matrix', 'dirichlet'];
const KEYS = ['nll', 'ece_conf_width_15', 'brier_multiclass', 'auc_macro', 'csr', 'p_risk', 'cwa'];

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** The CLI's CSV and its before/after ledger (`| key | before | after |` on stderr). */
function cliRun(method, seed) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'recal-multiclass-'));
  const out = path.join(dir, `${method}.csv`);
  const r = spawnSync(cli, ['recalibrate', path.join(fixtures, FILE), '--method', method, '--split-seed', String(seed), '--out', out]);
  assert.equal(r.status, 0, String(r.stderr));
  return { csv: readFileSync(out, 'utf8'), ledger: recalLedger(r.stderr) };
}

/** Equal to `rel` relative. L-BFGS stops at a gradient norm of 1e-9, and the
 * page's wasm exp/ln (Rust's own) differ from the native library's in the last
 * bits, so the two optima differ by ~1e-8 in the parameters: the probabilities
 * agree to 1e-6, and the ledger to 1e-5 (CSR, a ratio of small sums, amplifies
 * the difference: 1.6e-6 was seen on Dirichlet calibration). The CLI's numbers are
 * the reference. */
function close(shown, want, what, rel = 1e-5) {
  const a = Number(shown);
  const b = Number(want);
  assert.ok(Number.isFinite(a) && Number.isFinite(b), `${what}: ${shown} vs ${want}`);
  assert.ok(Math.abs(a - b) <= rel * Math.max(1e-3, Math.abs(b)), `${what}: page ${a}, CLI ${b}`);
}

async function download(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
  return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
}

/** The page's values of every map against the CLI's on split seed `seed`. */
async function sameAsCli(page, seed) {
  for (const m of MAPS) {
    const { ledger } = cliRun(m, seed);
    for (const key of KEYS) {
      assert.ok(ledger[key], `CLI ledger has ${key}`);
      close(await valueOf(page, `recalibration.${m}.after.${key}`), ledger[key].after, `${m} ${key} (seed ${seed})`);
    }
  }
}

test('vector, matrix and Dirichlet scaling on request equal the CLI', async () => {
  const app = await openApp(browser);
  const { page } = app;
  try {
    await dropFiles(page, [FILE]);
    await page.click('#tab-recalibrate');
    await idle(page);
    await page.waitForSelector('#recal-best');
    // not fitted until asked: the ledger has the six maps every fit has
    let heads = await page.$$eval('#recal-ledger thead th', (els) => els.map((e) => e.textContent.trim()));
    assert.ok(!heads.includes('after Dirichlet'), heads.join(' | '));
    assert.match(await page.textContent('.recal-multiclass'), /With 5 classes, matrix scaling and Dirichlet calibration fit 24 parameters each/);
    // the fits report their progress (seen by an observer: they may be quick)
    await page.evaluate(() => {
      window.sawProgress = false;
      new MutationObserver(() => {
        if (document.querySelector('#recal-multiclass-progress progress')) window.sawProgress = true;
      }).observe(document.body, { subtree: true, childList: true });
    });
    await page.click('#recal-multiclass-fit');
    await page.waitForSelector('#recal-multiclass-runs', { timeout: 120_000 });
    await idle(page);
    heads = await page.$$eval('#recal-ledger thead th', (els) => els.map((e) => e.textContent.trim()));
    assert.deepEqual(heads.slice(1, 11), ['before', 'after temperature', 'after Platt', 'after isotonic', 'after beta', 'after histogram', 'after Venn–Abers', 'after vector scaling', 'after matrix scaling', 'after Dirichlet']);
    await sameAsCli(page, 0);
    for (const m of MAPS) {
      // each L-BFGS run converged, and its fit time is shown
      assert.equal(await valueOf(page, `recalibration.${m}.l_bfgs.converged`), 'true', m);
      assert.ok(Number(await valueOf(page, `recalibration.${m}.l_bfgs.iterations`)) > 0, m);
      assert.ok(Number(await valueOf(page, `recalibration.${m}.fit_ms`)) >= 0, `${m} fit time`);
      // the AFTER diagram follows the choice, with the map's checks and its figure
      await page.selectOption('#recal-after', m);
      await idle(page);
      assert.equal(await page.locator(`#recal-chart-${m} svg`).count(), 1, `${m} diagram`);
      assert.notEqual(await valueOf(page, `recalibration.${m}.checks.distinct_after`), undefined);
      assert.equal(await page.locator(`#recal-map-${m} svg`).count(), 1, `${m} map`);
    }
    // Dirichlet's penalty: five strengths, the chosen one the lowest held-out NLL
    const nlls = [];
    for (let i = 0; i < 5; i++) nlls.push(Number(await valueOf(page, `recalibration.dirichlet.odir_search.candidates.${i}.nll`)));
    const chosen = Number(await valueOf(page, 'recalibration.dirichlet.odir_search.candidates.' + nlls.indexOf(Math.min(...nlls)) + '.strength'));
    assert.match(await page.textContent('#recal-odir-search'), /← chosen/);
    assert.ok([10, 1, 0.1, 0.01, 0.001].includes(chosen), String(chosen));
    // the download is the CLI's file, row for row
    const dl = await download(page, '#recal-download-csv-dirichlet');
    assert.equal(dl.name, 'mc5_mlp_logits_dirichlet.csv');
    const a = dl.text.trimEnd().split('\n');
    const b = cliRun('dirichlet', 0).csv.trimEnd().split('\n');
    assert.equal(a[0], b[0], 'header');
    assert.equal(a.length, b.length, 'every row');
    for (let i = 1; i < a.length; i++) {
      const x = a[i].split(',');
      const y = b[i].split(',');
      assert.deepEqual(x.slice(0, 2), y.slice(0, 2), `row ${i}: label and split`);
      for (let j = 2; j < y.length; j++) close(x[j], y[j], `row ${i} column ${j}`, 1e-6);
    }
    await shot(page, 'recal-multiclass');
    // a new split: asked for once, the maps are fitted again on it
    await page.fill('#recal-seed', '1');
    await page.press('#recal-seed', 'Enter');
    await page.waitForFunction(() => [...document.querySelectorAll('[data-metric="recalibration.split.seed"]')].some((e) => e.dataset.value === '1'));
    await page.waitForSelector('#recal-multiclass-runs', { timeout: 120_000 });
    await idle(page);
    await sameAsCli(page, 1);
    assert.ok(await page.evaluate(() => window.sawProgress), 'a progress bar while fitting');
    // the record and the HTML report of the view carry every method it shows, number
    // for number (the record is computed again in the worker, from the same split)
    const shown = {};
    for (const m of ['beta', 'histogram', 'venn_abers', ...MAPS]) {
      for (const key of KEYS) shown[`${m}.after.${key}`] = await valueOf(page, `recalibration.${m}.after.${key}`);
    }
    const back = await openShare(page);
    const record = JSON.parse((await download(page, '#download-record')).text);
    assert.deepEqual(record.options.recalibration.more_methods, ['beta', 'histogram', 'venn_abers', ...MAPS]);
    assert.equal(record.options.recalibration.seed, 1);
    const section = record.audits[0].recalibration;
    for (const [where, value] of Object.entries(shown)) {
      const [m, , key] = where.split('.');
      assert.equal(section[m].after[key], Number(value), `the record's ${where}`);
    }
    assert.equal(section.comparison.sets.length, 10, 'the comparison of every set');
    await page.click('#prepare-exports');
    await idle(page);
    const report = (await download(page, '[data-export$=".report.html"]')).text;
    for (const title of ['after vector scaling', 'after matrix scaling', 'after Dirichlet', 'best by NLL']) {
      assert.ok(report.includes(title), `the report shows ${title}`);
    }
    await back();
    // cancelled mid-way (another split), the maps are left out until asked again
    await page.fill('#recal-seed', '2');
    await page.press('#recal-seed', 'Enter');
    await page.waitForSelector('#recal-multiclass-progress progress', { timeout: 60_000 });
    await page.click('#recal-multiclass-cancel');
    await idle(page);
    await page.waitForSelector('#recal-multiclass-fit');
    heads = await page.$$eval('#recal-ledger thead th', (els) => els.map((e) => e.textContent.trim()));
    assert.ok(!heads.includes('after Dirichlet'), heads.join(' | '));
    assert.deepEqual(foreignRequests(app.requests), [], 'no request outside the origin');
    assert.deepEqual(app.errors, [], 'no page error');
  } finally {
    await app.context.close();
  }
});

test('binary input has no maps of every class', async () => {
  const app = await openApp(browser);
  const { page } = app;
  try {
    await dropFiles(page, ['real/breast_cancer_logreg_logit.csv']);
    await page.click('#tab-recalibrate');
    await idle(page);
    await page.waitForSelector('#recal-best');
    assert.equal(await page.locator('.recal-multiclass').count(), 0);
    assert.deepEqual(app.errors, [], 'no page error');
  } finally {
    await app.context.close();
  }
});
