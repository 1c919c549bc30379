// Browser tests of the Recalibrate view's probability maps (issue 33): a fixture
// dropped, beta calibration, histogram binning (bins by 5-fold cross-fitting) and
// Venn–Abers fitted beside temperature, Platt and isotonic on the same evaluation
// split; their ledger values equal `calibscope recalibrate --method ...` (the CLI's
// before/after ledger on stderr), their downloads equal the CLI's CSV (rows, labels, splits; probabilities to 1e-9),
// each can be chosen for the AFTER diagram, and the "best by" summary is shown with
// its bootstrap share.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import {
  launch, openApp, idle, dropFiles, valueOf, foreignRequests, fixtures, repo, shot, recalLedger,
} from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const METHODS = [
  { name: 'beta', flag: 'beta', args: [] },
  { name: 'histogram', flag: 'histogram', args: ['--bins', 'auto', '--folds', '5'] },
  { name: 'venn_abers', flag: 'venn-abers', args: [] },
];

let browser;
before(async () => { browser = await launch(); });
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

/** The CLI's CSV and its before/after ledger (`| key | before | after |` on stderr). */
function cliRun(file, m) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'recal-methods-'));
  const out = path.join(dir, `${m.name}.csv`);
  const r = spawnSync(cli, ['recalibrate', path.join(fixtures, file), '--method', m.flag, ...m.args, '--out', out]);
  assert.equal(r.status, 0, String(r.stderr));
  return { csv: readFileSync(out, 'utf8'), ledger: recalLedger(r.stderr) };
}

/** Equal to 1e-9 relative: the page runs in wasm, whose exp/ln (Rust's own) may
 * differ from the native library's in the last bits. */
function close(shown, want, what) {
  const a = Number(shown);
  const b = Number(want);
  assert.ok(Number.isFinite(a) && Number.isFinite(b), `${what}: ${shown} vs ${want}`);
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1e-3, Math.abs(b)), `${what}: page ${a}, CLI ${b}`);
}

/** The same rows, labels and splits; every probability within `close`. */
function sameCsv(page, cliText, what) {
  const a = page.trimEnd().split('\n');
  const b = cliText.trimEnd().split('\n');
  assert.equal(a[0], b[0], `${what}: header`);
  assert.equal(a.length, b.length, `${what}: every row`);
  for (let i = 1; i < a.length; i++) {
    const x = a[i].split(',');
    const y = b[i].split(',');
    assert.deepEqual(x.slice(0, 2), y.slice(0, 2), `${what} row ${i}: label and split`);
    for (let j = 2; j < y.length; j++) close(x[j], y[j], `${what} row ${i} column ${j}`);
  }
}

async function openComplete(page, file) {
  await dropFiles(page, [file]);
  await page.click('#tab-recalibrate');
  await idle(page);
  await page.waitForSelector('#recal-best');
  await idle(page);
}

async function download(page, id) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
  return { name: dl.suggestedFilename(), text: readFileSync(await dl.path(), 'utf8') };
}

for (const [file, stem, keys] of [
  ['real/breast_cancer_logreg_logit.csv', 'breast_cancer_logreg_logit', ['nll', 'ece_conf_width_15', 'brier_positive', 'auc', 'csr', 'p_risk', 'cwa']],
  ['real/digits_rf_probs.csv', 'digits_rf_probs', ['nll', 'ece_conf_width_15', 'brier_multiclass', 'auc_macro', 'csr', 'p_risk', 'cwa']],
]) {
  test(`${stem}: beta, histogram and Venn–Abers in the ledger equal the CLI`, async () => {
    await withApp(async ({ page }) => {
      await openComplete(page, file);
      const heads = await page.$$eval('#recal-ledger thead th', (els) => els.map((e) => e.textContent.trim()));
      assert.deepEqual(heads.slice(1, 8), ['before', 'after temperature', 'after Platt', 'after isotonic', 'after beta', 'after histogram', 'after Venn–Abers']);
      for (const m of METHODS) {
        const { csv, ledger } = cliRun(file, m);
        for (const key of keys) {
          assert.ok(ledger[key], `CLI ledger has ${key}`);
          close(await valueOf(page, `recalibration.${m.name}.after.${key}`), ledger[key].after, `${m.name} ${key}`);
          close(await valueOf(page, `recalibration.before.${key}`), ledger[key].before, `before ${key}`);
        }
        // the fit time of every method is shown
        assert.ok(Number(await valueOf(page, `recalibration.${m.name}.fit_ms`)) >= 0, `${m.name} fit time`);
        // the same file as the CLI's, byte for byte
        const dl = await download(page, `#recal-download-csv-${m.name}`);
        assert.equal(dl.name, `${stem}_${m.name}.csv`);
        sameCsv(dl.text, csv, `${m.name}: the page's CSV and the CLI's`);
        // the AFTER diagram follows the choice
        await page.selectOption('#recal-after', m.name);
        await idle(page);
        assert.equal(await page.locator(`#recal-chart-${m.name} svg`).count(), 1, `${m.name} diagram`);
        // its probability checks
        assert.notEqual(await valueOf(page, `recalibration.${m.name}.checks.distinct_after`), undefined);
      }
      if (stem.startsWith('breast')) {
        assert.match((await download(page, '#recal-download-csv-venn_abers')).text.split('\n')[0], /^label,split,p,p_lower,p_upper$/);
      }
      // the histogram's bins were chosen by cross-fitting
      const chosen = Number(await valueOf(page, 'recalibration.histogram.cross_fit.chosen'));
      assert.ok([2, 5, 10, 15, 20, 30, 50, 75, 100].includes(chosen), `chosen ${chosen}`);
      // best by NLL / ECE / risk, each with its bootstrap share and verdict
      for (const c of ['nll', 'ece', 'risk']) {
        const best = JSON.parse(await valueOf(page, `recalibration.comparison.${c}.best`));
        assert.ok(['before', 'temperature', 'platt', 'isotonic', 'beta', 'histogram', 'venn_abers'].includes(best), best);
        const within = await valueOf(page, `recalibration.comparison.${c}.within_noise`);
        assert.ok(['true', 'false'].includes(within));
        const share = await valueOf(page, `recalibration.comparison.${c}.share`);
        if (within === 'false') assert.ok(Number(share) >= 0.975, `${c}: beyond noise needs a stable share (${share})`);
      }
      // the best by NLL is the lowest NLL of the ledger
      const best = JSON.parse(await valueOf(page, 'recalibration.comparison.nll.best'));
      const nlls = await page.$$eval('[data-metric$=".nll"]', (els) => els
        .filter((e) => /^recalibration\.(before|[a-z_]+\.after)\.nll$/.test(e.dataset.metric))
        .map((e) => [e.dataset.metric, Number(e.dataset.value)]));
      const lowest = nlls.reduce((a, b) => (b[1] < a[1] ? b : a));
      assert.equal(lowest[0], best === 'before' ? 'recalibration.before.nll' : `recalibration.${best}.after.nll`);
      await shot(page, `recal-methods-${stem}`);
    });
  });
}

test('the CLI itself rejects a bad bin count with the flag named', () => {
  const r = spawnSync(cli, ['recalibrate', path.join(fixtures, 'real/breast_cancer_logreg_logit.csv'), '--method', 'histogram', '--bins', '0', '--out', '-']);
  assert.equal(r.status, 2);
  assert.match(String(r.stderr), /--bins '0'/);
  assert.ok(execFileSync(cli, ['recalibrate', '--help']).toString().includes('venn-abers'));
});
