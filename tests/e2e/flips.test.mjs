// The ranking-flips view in headless chromium: the multi-model fixtures dropped, the
// view opened, the slider moved and a reference pinned with the keyboard; every
// displayed rank, value, Spearman, flip count and flip pair equals the fixture's
// `ranking` section. Run: node --test tests/e2e/flips.test.mjs (see tests/e2e/helpers.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  launch, idle, dropFiles, dropPaths, expected, compareDisplayed, valueOf, shot, foreignRequests,
  fixtures, tolerance, withApp as withAppOf,
} from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

function withApp(fn, opts) {
  return withAppOf(browser, async (app) => {
    await fn(app);
    assert.deepEqual(foreignRequests(app.requests), [], 'no request leaves the origin');
  }, opts);
}

/** A test that reads the bundled example. */
const withExample = (fn) => withApp(fn, { example: true });

async function openFlips(page) {
  await page.click('#tab-flips');
  await idle(page);
  await page.waitForSelector('#flips-ranking');
}

/** Sets the flips slider to bin count `m` with the keyboard (Home, then ArrowRight). */
async function slideTo(page, m) {
  const steps = (await page.getAttribute('#flips-m-slider', 'data-steps')).split(',').map(Number);
  const index = steps.indexOf(m);
  assert.ok(index >= 0, `m = ${m} is a slider step`);
  const slider = page.locator('#flips-m-slider');
  await slider.focus();
  if (index === steps.length - 1) {
    await page.keyboard.press('End');
  } else {
    await page.keyboard.press('Home');
    for (let i = 0; i < index; i++) await page.keyboard.press('ArrowRight');
  }
  await idle(page);
  assert.equal(await page.locator('#flips-m-value').innerText(), String(m));
}

async function setBins(page, bins) {
  await page.fill('#flips-bins', bins.join(', '));
  await page.locator('#flips-bins').press('Enter');
  await page.locator('#flips-bins').blur();
  await idle(page);
}

function near(exp, parts, got, want) {
  const t = tolerance(exp, parts);
  return Math.abs(got - want) <= t.abs + t.rel * Math.abs(want);
}

for (const name of ['digits_zoo_probs', 'digits_mlp_trajectory_logits']) {
  test(`${name}: ranks, values, Spearman matrices and flips equal the fixture`, async () => {
    await withApp(async ({ page, errors }) => {
      await dropFiles(page, [`multi/${name}.csv`]);
      const exp = expected(`multi/${name}.expected.json`);
      const models = exp.input.models;
      await openFlips(page);
      await setBins(page, exp.m_values);
      assert.equal(await page.getAttribute('.matrix-grid', 'data-bins'), exp.m_values.join(','));
      let compared = 0;
      for (const metric of ['confece', 'confce_corr', 'lince_cw']) {
        await page.selectOption('#flips-metric', metric);
        for (const binning of ['mass', 'width']) {
          await page.check(`#flips-binning-${binning}`);
          await idle(page);
          // reference: the finest bin count, pinned with the keyboard
          const [mRef, m] = [exp.m_values[exp.m_values.length - 1], 5];
          await slideTo(page, mRef);
          await page.locator('#flips-pin').focus();
          await page.keyboard.press('Enter');
          await slideTo(page, m);
          const r = await compareDisplayed(page, exp, { models });
          assert.deepEqual(r.failures, [], `${metric} ${binning}`);
          const b = `ranking.metrics.${metric}.${binning}`;
          for (let i = 0; i < models.length; i++) {
            for (const mm of [m, mRef]) {
              assert.ok(r.paths.has(`${b}.ranks.${mm}.${i}`), `rank of ${models[i]} at ${mm} shown`);
              assert.ok(r.paths.has(`models.${models[i]}.metrics.${metric}.${binning}.${mm}`), 'value shown');
            }
          }
          for (let a = 0; a < exp.m_values.length; a++) {
            assert.ok(r.paths.has(`${b}.spearman.${a}.${a}`) || (await valueOf(page, `${b}.spearman.${a}.${a}`)) === 'null');
          }
          compared += r.compared;
          // flips between the reference and m: count, pairs, Spearman of the two rankings
          const fx = exp.ranking.metrics[metric][binning];
          const [ia, ib] = [exp.m_values.indexOf(m), exp.m_values.indexOf(mRef)];
          const key = `${m}|${mRef}`;
          assert.equal(await valueOf(page, `${b}.flip_count.${key}`), String(fx.flips[ia][ib]), `${metric} ${binning} flips`);
          const pairs = await page.$$eval(`[data-metric^="${b}.flip_pairs.${key}."]`, (els) => els.map((e) => e.dataset.value));
          assert.deepEqual(pairs.sort(), (fx.flip_pairs[key] || []).map((p) => p.join('|')).sort());
          const rho = await valueOf(page, `${b}.spearman_between.${key}`);
          const want = fx.spearman[ia][ib];
          if (want === null) assert.equal(rho, 'null');
          else assert.ok(near(exp, ['ranking', 'metrics', metric, binning, 'spearman'], Number(rho), want), `${rho} vs ${want}`);
          // every model in a flipped pair is highlighted, the others not
          const flippedRows = await page.$$eval('#flips-ranking tr.flipped', (rows) => rows.map((r) => r.dataset.model));
          const inPairs = new Set((fx.flip_pairs[key] || []).flat());
          assert.deepEqual(flippedRows.sort(), [...inPairs].sort());
          // flip counts of the matrix (read at once: one round trip, not one per cell)
          const cells = Object.fromEntries(await page.$$eval(`[data-metric^="${b}.flips."]`,
            (els) => els.map((e) => [e.dataset.metric, e.dataset.value])));
          for (let a = 0; a < exp.m_values.length; a++) {
            for (let c = 0; c < exp.m_values.length; c++) {
              assert.equal(cells[`${b}.flips.${a}.${c}`], String(fx.flips[a][c]), `${b}.flips.${a}.${c}`);
            }
          }
        }
      }
      assert.ok(compared > 600, `only ${compared} values compared`);
      // the binning-free references: Spearman against the error
      const r = await compareDisplayed(page, exp, { models });
      assert.deepEqual(r.failures, []);
      for (const k of ['brier_over_k', 'l_conf']) {
        assert.ok(r.paths.has(`ranking.binning_free_spearman_vs_error.${k}`), `${k} against error shown`);
      }
      assert.deepEqual(errors, []);
      await shot(page, `flips-${name}`);
    });
  });
}

test('exports: ranking and matrices as CSV, the chart as SVG and PNG', async () => {
  await withExample(async ({ page }) => {
    await openFlips(page);
    const download = async (id) => {
      const [d] = await Promise.all([page.waitForEvent('download'), page.click(id)]);
      return { name: d.suggestedFilename(), bytes: readFileSync(await d.path()) };
    };
    const ranking = await download('#flips-export-ranking');
    const lines = ranking.bytes.toString('utf8').trim().split('\n');
    assert.match(lines[0], /^model,rank_m5,value_m5,rank_m450,value_m450,rank_change,flipped$/);
    assert.equal(lines.length, 11);
    const exp = expected('multi/digits_zoo_probs.expected.json');
    for (const line of lines.slice(1)) {
      const [model, rank5, , rank450] = line.split(',');
      const i = exp.input.models.indexOf(model);
      assert.equal(Number(rank5), exp.ranking.metrics.confece.mass.ranks['5'][i], model);
      assert.equal(Number(rank450), exp.ranking.metrics.confece.mass.ranks['450'][i], model);
    }
    const mx = (await download('#flips-export-matrices')).bytes.toString('utf8');
    assert.match(mx, /^metric,binning,m_a,m_b,spearman,flips\n/);
    assert.ok(mx.includes('confce_corr,mass,5,450,'));
    assert.ok(mx.includes('lince_cw,mass,20,450,'));
    const svg = await download('#flips-export-svg');
    assert.match(svg.name, /\.svg$/);
    assert.match(svg.bytes.toString('utf8'), /^<svg/);
    assert.ok(svg.bytes.length < 200_000, `SVG of ${svg.bytes.length} bytes`);
    const png = await download('#flips-export-png');
    assert.deepEqual([...png.bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG file');
  });
});

test('one model: the view asks for more and offers the example', async () => {
  await withApp(async ({ page }) => {
    await dropFiles(page, ['real/digits_logreg_C1_logits.csv']);
    await page.click('#tab-flips');
    await idle(page);
    assert.match(await page.locator('#flips-needs-models').innerText(), /at least 2 models/);
    assert.match(await page.locator('#flips-needs-models').innerText(), /at least 3/);
    await page.click('#flips-open-example');
    await idle(page);
    await page.waitForSelector('#flips-ranking');
    assert.equal(await page.locator('#flips-ranking tbody tr').count(), 10);
  });
});

test('top-label input: the classwise metrics say they cannot be computed; two models: Spearman undefined', async () => {
  await withApp(async ({ page }) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'flips-'));
    const src = path.join(fixtures, 'synthetic/syn_uniform_perfect_n2000_s1_toplabel.csv');
    const files = ['model_a.csv', 'model_b.csv'].map((f) => path.join(dir, f));
    for (const f of files) copyFileSync(src, f);
    await dropPaths(page, files);
    await openFlips(page);
    assert.match(await page.locator('#flips-toplabel-note').innerText(), /LinCE\^cw/);
    await page.selectOption('#flips-metric', 'lince_cw');
    await idle(page);
    assert.match(await page.locator('#flips-unavailable').innerText(), /full probability vectors/);
    assert.match(await page.locator('figure.matrix[data-matrix=lince_cw]').innerText(), /full probability vectors/);
    await page.selectOption('#flips-metric', 'confce_corr');
    await idle(page);
    assert.equal(await valueOf(page, 'ranking.metrics.confce_corr.mass.spearman_between.5|2000'), 'null');
    assert.match(await page.locator('.flip-summary').innerText(), /fewer than 3 models/);
    // another data set with the same model names: the view asks again
    const path5 = 'ranking.metrics.confce_corr.mass';
    const before = await valueOf(page, `models.model_a.metrics.confce_corr.mass.5`);
    const other = path.join(fixtures, 'synthetic/syn_normal_overconf_sqrt_n2000_s6_toplabel.csv');
    for (const f of files) copyFileSync(other, f);
    await dropPaths(page, files);
    await page.waitForSelector('#flips-ranking');
    const after = await valueOf(page, `models.model_a.metrics.confce_corr.mass.5`);
    assert.ok(before && after && before !== after, `${before} then ${after}`);
    assert.equal(await valueOf(page, `${path5}.ranks.5.0`), '1.5', 'two equal models tie');
  });
});

test('keyboard: the view tab, the metric, the slider and the pin work without a mouse', async () => {
  await withExample(async ({ page }) => {
    // the tab order: Audit, Slices, Ranking flips
    await page.locator('#tab-audit').focus();
    await page.keyboard.press('ArrowRight');
    await idle(page);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-slices');
    await page.keyboard.press('ArrowRight');
    await idle(page);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-flips');
    await page.waitForSelector('#flips-ranking');
    await page.locator('#flips-metric').focus();
    await page.keyboard.press('ArrowDown');
    await idle(page);
    assert.equal(await page.inputValue('#flips-metric'), 'confce');
    const before = await page.locator('#flips-m-value').innerText();
    await page.locator('#flips-m-slider').focus();
    await page.keyboard.press('ArrowRight');
    await idle(page);
    const after = await page.locator('#flips-m-value').innerText();
    assert.equal(Number(after), Number(before) + 1);
    await page.keyboard.press('Tab');
    // Tab reaches the exact input then the pin button
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'flips-pin');
    await page.keyboard.press('Enter');
    await idle(page);
    assert.equal(await page.inputValue('#flips-ref-input'), after);
    assert.equal(await valueOf(page, `ranking.metrics.confce.mass.flip_count.${after}|${after}`), '0');
  });
});

test('a link to #why-flips opens the view at the explanation; the Spearman-vs-error chart follows the metric', async () => {
  await withExample(async ({ page }) => {
    await page.evaluate(() => { window.location.hash = '#why-flips'; });
    await idle(page);
    assert.equal(await page.getAttribute('#tab-flips', 'aria-selected'), 'true');
    assert.match(await page.locator('#why-flips').innerText(), /not truthful/);
    assert.match(await page.locator('#why-flips').innerText(), /1\/n/);
    await page.waitForSelector('#flips-rho-chart .svg svg path');
    // one line: the Spearman of the metric against the error at m = 1..n
    assert.equal(await page.locator('#flips-rho-chart .svg svg path[data-model]').count(), 1);
    assert.equal(await page.locator('#flips-chart .svg svg path[data-model]').count(), 10);
    assert.equal(await page.locator('#flips-chart svg.overlay line').count(), 2, 'the m and reference markers');
  });
});
