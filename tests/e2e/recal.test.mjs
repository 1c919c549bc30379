// Browser tests of the Recalibrate view (issue 6): fixture files dropped, the view
// opened, and its displayed data-values compared with the fixtures' `recalibration`
// sections (tau within tau_tolerance, ledgers within their tolerance, split sizes
// exactly); invariance badges against the fixture's booleans; the CSV download has n
// rows in input order with the fixture's split.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  launch, openApp, idle, dropFiles, expected, compareDisplayed, valueOf, shot, foreignRequests, fixtures,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
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

async function openRecalibrate(page, file) {
  await dropFiles(page, [file]);
  await page.click('#tab-recalibrate');
  await idle(page);
  await page.waitForSelector('#recal-ledger');
  await idle(page);
}

const SETS = ['before', 'temperature.after', 'platt.after', 'isotonic.after'];

/** Every displayed recalibration value the fixture has equals it; returns the paths. */
async function assertMatchesFixture(page, exp, label, minimum) {
  const r = await compareDisplayed(page, exp);
  assert.deepEqual(r.failures, [], `${label}: displayed values differ from the fixture`);
  const recal = [...r.paths].filter((p) => p.startsWith('recalibration.'));
  assert.ok(recal.length >= minimum, `${label}: only ${recal.length} recalibration values compared`);
  return new Set(recal);
}

/** The badge's data-value equals the fixture's boolean at `path`. */
async function assertBadge(page, exp, pathStr) {
  const want = pathStr.split('.').reduce((o, k) => o?.[k], exp);
  assert.equal(typeof want, 'boolean', `${pathStr} in the fixture`);
  assert.equal(await valueOf(page, pathStr), String(want), pathStr);
}

test('binary logits: tau, ledger, invariants, risk and the CSV download equal the fixture', async () => {
  await withApp(async ({ page }) => {
    const file = 'real/breast_cancer_logreg_logit.csv';
    const exp = expected('real/breast_cancer_logreg_logit.expected.json');
    const rc = exp.recalibration;
    await openRecalibrate(page, file);
    const paths = await assertMatchesFixture(page, exp, 'breast cancer logreg', 50);
    for (const p of ['recalibration.temperature.tau', 'recalibration.temperature.nll_cal_tau1',
      'recalibration.temperature.nll_cal_tau', 'recalibration.split.n_cal', 'recalibration.split.n_eval']) {
      assert.ok(paths.has(p), `${p} shown and compared`);
    }
    for (const set of SETS) {
      for (const key of ['ece_conf_width_15', 'nll', 'brier_positive', 'accuracy', 'auc', 'confce_corr_mass_15',
        'lince_cw_mass_15', 'csr', 'p_risk', 'cwa']) {
        assert.ok(paths.has(`recalibration.${set}.${key}`), `ledger ${set}.${key} shown and compared`);
      }
    }
    const tau = Number(await valueOf(page, 'recalibration.temperature.tau'));
    assert.ok(Math.abs(tau - rc.temperature.tau) <= rc.temperature.tau_tolerance, `tau ${tau}`);
    for (const k of Object.keys(rc.temperature.invariants)) {
      await assertBadge(page, exp, `recalibration.temperature.invariants.${k}`);
    }
    for (const r of [0, 1]) {
      await assertBadge(page, exp, `recalibration.temperature.informational.prob_argsort_identical_per_class.${r}`);
    }
    // tau = 0.05: at the bracket end, flagged with its meaning
    assert.equal(await valueOf(page, 'recalibration.temperature.at_bracket_end'), String(rc.temperature.at_bracket_end));
    assert.match(await page.locator('.recal-fit').innerText(), /separable/);
    // P_risk = 1 after temperature and isotonic: the risk warning with source 002's reason
    const risky = SETS.filter((s) => s.split('.').reduce((o, k) => o[k], rc).p_risk > 0.95).map((s) => s.split('.')[0]);
    assert.ok(risky.length > 0);
    const shownRisk = await page.$$eval('#recal-risk [data-risk]', (els) => els.map((e) => e.dataset.risk));
    const classic = ['before', 'temperature', 'platt', 'isotonic'];
    assert.deepEqual(shownRisk.filter((s) => classic.includes(s)).sort(), risky.sort());
    // the probability maps (not in the fixture) are warned about by their own P_risk
    for (const s of shownRisk.filter((x) => !classic.includes(x))) {
      assert.ok(Number(await valueOf(page, `recalibration.${s}.after.p_risk`)) > 0.95, `${s} P_risk`);
    }
    assert.match(await page.locator('#recal-risk').innerText(), /isotonic plateau/);
    // regressions are marked
    assert.ok(await page.locator('#recal-ledger td.worse').count() > 0, 'a regression is marked');
    // Platt moves decisions here, isotonic makes ties: the same checks show it
    assert.equal(await valueOf(page, 'recalibration.temperature.checks.argmax_identical'), 'true');
    assert.ok(Number(await valueOf(page, 'recalibration.isotonic.checks.distinct_after')) <
      Number(await valueOf(page, 'recalibration.isotonic.checks.distinct_before')), 'isotonic creates ties');
    // the fitted maps and the tau curve are drawn
    for (const id of ['#recal-tau-curve svg', '#recal-map-temperature svg', '#recal-map-platt svg', '#recal-map-isotonic svg',
      '#recal-chart-before svg', '#recal-chart-temperature svg']) {
      assert.equal(await page.locator(id).count(), 1, id);
    }
    await shot(page, 'recal-binary');

    // the CSV download: n rows, input order, labels kept, the fixture's split
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#recal-download-csv-temperature'),
    ]);
    assert.equal(download.suggestedFilename(), 'breast_cancer_logreg_logit_temperature.csv');
    const text = readFileSync(await download.path(), 'utf8').trimEnd().split('\n');
    const input = readFileSync(path.join(fixtures, file), 'utf8').trimEnd().split('\n');
    assert.equal(text[0], 'label,split,p');
    assert.equal(text.length - 1, exp.input.n);
    assert.equal(text.length, input.length);
    const cal = [];
    for (let i = 1; i < text.length; i++) {
      const [label, split, p] = text[i].split(',');
      assert.equal(label, input[i].split(',')[0], `row ${i - 1}: label kept`);
      const s = Number(input[i].split(',')[1]);
      // the recalibrated probability is sigmoid(s / tau)
      assert.ok(Math.abs(Number(p) - 1 / (1 + Math.exp(-s / rc.temperature.tau))) < 1e-9, `row ${i - 1}: p`);
      if (split === 'calibration') cal.push(i - 1);
      else assert.equal(split, 'evaluation');
    }
    assert.deepEqual(cal, rc.split.calibration_indices);
    // the parameters file
    const [dl2] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#recal-download-json-platt'),
    ]);
    const params = JSON.parse(readFileSync(await dl2.path(), 'utf8'));
    assert.equal(params.method, 'platt');
    assert.deepEqual([params.split.seed, params.split.f], [0, 0.5]);
    assert.match(params.version, /^\d+\.\d+\.\d+/);
    const want = rc.platt.params[0];
    assert.ok(Math.abs(params.fits[0].a - want.a) <= want.tolerance_a);
    assert.ok(Math.abs(params.fits[0].b - want.b) <= want.tolerance_b);
  });
});

test('multiclass logits: per-class AUC changes, ledger and split equal the fixture', async () => {
  await withApp(async ({ page }) => {
    const exp = expected('real/digits_logreg_C1_logits.expected.json');
    const rc = exp.recalibration;
    await openRecalibrate(page, 'real/digits_logreg_C1_logits.csv');
    const paths = await assertMatchesFixture(page, exp, 'digits logreg C1', 50);
    assert.ok(paths.has('recalibration.temperature.tau'));
    assert.ok(paths.has('recalibration.isotonic.after.auc_macro'));
    const k = rc.temperature.informational.prob_auc_change_per_class.length;
    for (let r = 0; r < k; r++) {
      assert.ok(paths.has(`recalibration.temperature.informational.prob_auc_change_per_class.${r}`), `class ${r} AUC change`);
    }
    assert.match(await page.locator('#recal-invariants').innerText(), /not a temperature invariant/);
    for (const key of Object.keys(rc.temperature.invariants)) {
      await assertBadge(page, exp, `recalibration.temperature.invariants.${key}`);
    }
    // the verdict follows tau
    const verdict = await page.locator('#recal-verdict').innerText();
    assert.match(verdict, rc.temperature.tau > 1 ? /τ > 1: .*overconfident/ : /τ < 1: .*underconfident/);
    await shot(page, 'recal-multiclass');
  });
});

test('split, binning and slider controls recompute on probability input', async () => {
  await withApp(async ({ page }) => {
    const exp = expected('real/breast_cancer_rf_p.expected.json');
    await openRecalibrate(page, 'real/breast_cancer_rf_p.csv');
    await assertMatchesFixture(page, exp, 'breast cancer rf', 40);
    // a random forest's probabilities hold exact 0s and 1s: the contract's warning
    assert.match(await page.locator('#recal-warnings').innerText(), /exact 0s or 1s.*ill-posed/);
    // equal-mass bins at m = 10: the before table follows, counts add up to n_eval
    await page.check('#recal-binning-mass');
    await idle(page);
    const steps = (await page.getAttribute('#recal-m-slider', 'data-steps')).split(',').map(Number);
    await page.locator('#recal-m-slider').fill(String(steps.indexOf(10)));
    await idle(page);
    assert.equal(await page.locator('#recal-m-value').innerText(), '10');
    const counts = await page.$$eval('[data-metric^="recalibration.before.binned."][data-metric$=".n"]', (els) => els.map((e) => [e.dataset.metric, Number(e.dataset.value)]));
    assert.ok(counts.length > 0 && counts.every(([m]) => m.includes('.mass.10.')), 'mass tables at m = 10');
    assert.equal(counts.reduce((a, [, n]) => a + n, 0), exp.recalibration.split.n_eval);
    // another fraction and seed: the split follows the contract (floor per class)
    await page.fill('#recal-fraction', '0.3');
    await page.locator('#recal-fraction').dispatchEvent('change');
    await idle(page);
    await page.fill('#recal-seed', '7');
    await page.locator('#recal-seed').dispatchEvent('change');
    await idle(page);
    assert.equal(await valueOf(page, 'recalibration.split.f'), '0.3');
    assert.equal(await valueOf(page, 'recalibration.split.seed'), '7');
    const perClass = await page.$$eval('[data-metric^="recalibration.split.class_counts."]', (els) => els.map((e) => [e.dataset.metric, Number(e.dataset.value)]));
    const cal = perClass.filter(([m]) => m.includes('.calibration.')).map(([, v]) => v);
    const ev = perClass.filter(([m]) => m.includes('.evaluation.')).map(([, v]) => v);
    for (let r = 0; r < cal.length; r++) {
      assert.equal(cal[r], Math.floor((cal[r] + ev[r]) * 0.3), `class ${r}: floor(len * f)`);
    }
    assert.equal(Number(await valueOf(page, 'recalibration.split.n_cal')), cal.reduce((a, b) => a + b, 0));
    // the AFTER diagram follows the method choice
    await page.selectOption('#recal-after', 'isotonic');
    await idle(page);
    assert.equal(await page.locator('#recal-chart-isotonic svg').count(), 1);
  });
});

test('exact 0/1 probabilities: the fake-logit warning, and the values still equal the fixture', async () => {
  await withApp(async ({ page }) => {
    const exp = expected('edge/edge_zero_one_p.expected.json');
    await openRecalibrate(page, 'edge/edge_zero_one_p.csv');
    await assertMatchesFixture(page, exp, 'edge zero/one', 20);
    assert.match(await page.locator('#recal-warnings').innerText(), /exact 0s or 1s.*ill-posed/);
  }, { colorScheme: 'dark' });
});

test('several models: one is recalibrated at a time, its paths prefixed by its name', async () => {
  await withExample(async ({ page }) => {
    await page.click('#tab-recalibrate'); // the bundled example: ten models
    await idle(page);
    await page.waitForSelector('#recal-ledger');
    const models = expected('multi/digits_zoo_probs.expected.json').input.models;
    const first = await valueOf(page, `models.${models[0]}.recalibration.split.n_cal`);
    assert.ok(Number(first) > 0);
    await page.selectOption('#recal-model', '1');
    await idle(page);
    await page.waitForSelector(`[data-metric="models.${models[1]}.recalibration.temperature.tau"]`);
    assert.equal(await valueOf(page, `models.${models[1]}.recalibration.split.n_cal`), first, 'same labels, same split');
  });
});

test('top-label input says why it cannot be recalibrated', async () => {
  await withApp(async ({ page }) => {
    await dropFiles(page, ['synthetic/syn_uniform_perfect_n2000_s1_toplabel.csv']);
    await page.click('#tab-recalibrate');
    await idle(page);
    assert.match(await page.locator('#recal-undefined').innerText(), /no scores to recalibrate/);
  });
});
