// End-to-end tests of the calibscope page in headless Debian chromium.
// Run by tools/test.sh (which builds and serves the app): node --test tests/e2e/
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  launch, idle, copyWith, dropFiles, pickFiles, expected, compareDisplayed, valueOf, setM, shot,
  foreignRequests, displayed, compareValue, fixtures, withApp as withAppOf,
} from './helpers.mjs';

let browser;
const allRequests = [];
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

function withApp(fn, opts) {
  return withAppOf(browser, fn, opts, (app) => allRequests.push(...app.requests));
}

/** A test that reads the bundled example. */
const withExample = (fn) => withApp(fn, { example: true });

function assertCompared(result, minimum, label) {
  assert.deepEqual(result.failures, [], `${label}: displayed values differ from the fixture`);
  assert.ok(result.compared >= minimum, `${label}: only ${result.compared} values compared`);
}

// The values every single-model overview must show (and that the fixture has).
const CORE_PATHS = [
  'binning_free.accuracy', 'readings.confidence.width.15.ece', 'readings.confidence.mass.15.ece',
  'readings.confidence.width.15.mce', 'readings.confidence.width.15.confce_corr', 'beyond_ece.csr',
  'beyond_ece.sigma_csr', 'beyond_ece.p_risk', 'beyond_ece.cwa', 'beyond_ece.gain',
];

test('opens on the bundled example: ten models with their metrics and a diagram', async () => {
  await withApp(async ({ page, errors }) => {
    const exp = expected('multi/digits_zoo_probs.expected.json');
    const models = exp.input.models;
    assert.equal(await page.locator('table.metrics tbody tr').count(), 10);
    assert.equal(await valueOf(page, 'input.n'), '450');
    assert.equal(await valueOf(page, 'input.format'), 'csv-long');
    const r = await compareDisplayed(page, exp, { models });
    assertCompared(r, 10 * 7, 'digits zoo');
    for (const m of models) {
      assert.ok(r.paths.has(`models.${m}.binning_free.accuracy`), `${m} accuracy shown`);
      assert.ok(r.paths.has(`models.${m}.readings.confidence.width.15.ece`), `${m} ECE shown`);
    }
    assert.ok(await page.locator('#chart svg').count() >= 1, 'the reliability diagram is drawn');
    assert.ok(await page.locator('#reliability-table tbody tr').count() > 0);
    assert.match(await page.locator('#drop-target').innerText(), /Drop your predictions here/);
    assert.deepEqual(errors, []);
    await shot(page, '01-example-overview');
  }, { example: true });
});

test('#empty opens the page without the example; reloaded it stays empty, and a drop fills it', async () => {
  await withApp(async ({ page, errors }) => {
    const empty = async () => {
      assert.equal(await page.locator('[data-metric]').count(), 0, 'no number is shown');
      assert.equal(await page.locator('.example-note').count(), 0);
      assert.match(await page.locator('#drop-target').innerText(), /Drop your predictions here/);
    };
    await empty();
    // the address follows the controls 300 ms after they settle: it keeps `#empty`
    await page.waitForTimeout(1000);
    assert.equal(await page.evaluate(() => location.hash), '#empty');
    await page.reload();
    await page.waitForFunction(() => typeof window.calibscopeIdle === 'function');
    await idle(page);
    await empty();
    await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
    assert.equal(await valueOf(page, 'input.n'), String(expected('real/breast_cancer_rf_p.expected.json').input.n));
    await page.waitForFunction(() => location.hash.startsWith('#a1='));
    assert.deepEqual(errors, []);
  });
});

const SINGLE = [
  ['real/digits_logreg_C1_logits.csv'],
  ['real/breast_cancer_logreg_logit.csv'],
  ['real/digits_mlp_logits.npz'],
  ['real/breast_cancer_hgb_logit.npy'],
  ['real/breast_cancer_mlp.labels.npy', 'real/breast_cancer_mlp.probs.npy'],
  ['synthetic/syn_normal_overconf_sqrt_n2000_s6_toplabel.csv'],
  ['edge/edge_absent_class_logits.csv'],
];

for (const files of SINGLE) {
  test(`drop ${files.join(' + ')}: every displayed value equals the fixture`, async () => {
    await withApp(async ({ page, errors }) => {
      await dropFiles(page, files);
      const stem = files.length === 2 ? files[0].replace(/\.labels\.npy$/, '') : files[0].replace(/\.(csv|npz|npy)$/, '');
      const exp = expected(`${stem}.expected.json`);
      assert.equal(await page.locator('#error').count(), 0, 'no error');
      assert.equal(await valueOf(page, 'input.n'), String(exp.input.n));
      assert.equal(await valueOf(page, 'input.kind'), exp.input.kind);
      assert.equal(await valueOf(page, 'input.format'), exp.input.format);
      const r = await compareDisplayed(page, exp);
      assertCompared(r, 20, files.join('+'));
      for (const p of CORE_PATHS) assert.ok(r.paths.has(p), `${p} is displayed and compared`);
      if (exp.input.kind === 'toplabel') {
        assert.equal(await valueOf(page, 'binning_free.nll'), 'null', 'NLL is undefined for top-label input');
        assert.match(await page.locator('[data-metric="binning_free.nll"]').innerText(), /undefined/);
      }
      assert.deepEqual(errors, []);
      await shot(page, `02-drop-${stem.split('/').pop()}`);
    });
  });
}

test('the file picker opens a fixture', async () => {
  await withApp(async ({ page }) => {
    await pickFiles(page, ['real/breast_cancer_rf_p.csv']);
    const exp = expected('real/breast_cancer_rf_p.expected.json');
    assert.equal(await valueOf(page, 'input.n'), '171');
    const r = await compareDisplayed(page, exp);
    assertCompared(r, 20, 'picker');
    assert.ok(r.paths.has('binning_free.auc') && r.paths.has('cwauc.class1'));
  });
});

test('several files of models on the same samples make a comparison', async () => {
  await withApp(async ({ page }) => {
    await dropFiles(page, ['real/breast_cancer_rf_p.csv', 'real/breast_cancer_gnb_p.csv']);
    assert.equal(await page.locator('table.metrics tbody tr').count(), 2);
    assert.equal(await valueOf(page, 'input.format'), 'multi-file');
    const shown = await displayed(page);
    for (const name of ['breast_cancer_rf_p', 'breast_cancer_gnb_p']) {
      const exp = expected(`real/${name}.expected.json`);
      const prefix = `models.${name}.`;
      const failures = [];
      let compared = 0;
      for (const { metric, value } of shown) {
        if (!metric.startsWith(prefix)) continue;
        const r = compareValue(exp, metric.slice(prefix.length).split('.'), value);
        if (r === undefined) continue;
        compared += 1;
        if (r) failures.push(r);
      }
      assert.deepEqual(failures, [], name);
      assert.ok(compared >= 15, `${name}: ${compared} values compared`);
    }
    await shot(page, '02-drop-two-models');
  });
});

test('the bin-count slider updates ECE and the reliability table (both binnings)', async () => {
  await withApp(async ({ page }) => {
    await dropFiles(page, ['real/digits_logreg_C1_logits.csv']);
    const exp = expected('real/digits_logreg_C1_logits.expected.json');
    for (const binning of ['width', 'mass']) {
      await page.locator(`#binning-${binning}`).check();
      await idle(page);
      for (const m of [1, 2, 5, 10, 20, 100, 450]) {
        await setM(page, m);
        assert.equal(await page.locator('#m-value').innerText(), String(m));
        for (const k of ['ece', 'mce', 'rmsce', 'lince', 'cal', 'ref', 'res', 'confce_corr']) {
          assert.notEqual(await valueOf(page, `readings.confidence.${binning}.${m}.${k}`), undefined, `${k} at ${binning} ${m} shown`);
        }
        const r = await compareDisplayed(page, exp);
        assertCompared(r, 20, `${binning} m=${m}`);
        assert.ok(r.paths.has(`readings.confidence.${binning}.${m}.ece`), `ECE at ${binning} ${m} compared`);
        if (m === 10) {
          const table = exp.reliability.confidence[`${binning}_10`];
          assert.equal(await page.locator('#reliability-table tbody tr').count(), table.length, 'non-empty bins only');
          for (let i = 0; i < table.length; i++) {
            for (const f of ['bin', 'n', 'conf', 'acc', 'gap', 'cp_lower', 'cp_upper']) {
              assert.ok(r.paths.has(`reliability.confidence.${binning}_10.${i}.${f}`), `row ${i} ${f} compared`);
            }
          }
          await shot(page, `03-slider-${binning}-10`);
        }
      }
    }
    // the table copies as CSV
    assert.equal(await copyWith(page, '#copy-csv', '#copy-csv-status'), 'Copied as CSV.');
    const csv = await page.evaluate(() => navigator.clipboard.readText());
    const lines = csv.trim().split('\n');
    assert.equal(lines[0], 'bin,u_min,u_max,n,conf,acc,gap,successes,cp_lower,cp_upper');
    assert.equal(lines.length - 1, 450, 'one line per non-empty bin (m = n, equal-mass)');
    // keyboard: the slider moves one step per arrow key
    await setM(page, 10);
    await page.locator('#m-slider').focus();
    await page.keyboard.press('ArrowRight');
    await idle(page);
    assert.equal(await page.locator('#m-value').innerText(), '11');
    assert.notEqual(await valueOf(page, 'readings.confidence.mass.11.ece'), undefined);
  });
});

test('the reading selector shows a class reading and the positive reading', async () => {
  await withApp(async ({ page }) => {
    await dropFiles(page, ['real/breast_cancer_logreg_logit.csv']);
    const exp = expected('real/breast_cancer_logreg_logit.expected.json');
    await page.selectOption('#reading-select', 'positive');
    await idle(page);
    await setM(page, 10);
    let r = await compareDisplayed(page, exp);
    assertCompared(r, 20, 'positive');
    assert.ok(r.paths.has('readings.positive.width.10.ece'));
    assert.ok(r.paths.has('reliability.positive.width_10.0.acc'));
    await page.selectOption('#reading-select', 'class:0');
    await idle(page);
    r = await compareDisplayed(page, exp);
    assertCompared(r, 20, 'class 0');
    assert.ok(r.paths.has('readings.classwise.width.10.per_class.ece.0'));
  });
});

test('the chart reads out a bin on keyboard focus', async () => {
  await withExample(async ({ page }) => {
    await page.locator('#chart').focus();
    await page.keyboard.press('ArrowRight');
    await idle(page);
    const tip = await page.locator('#bin-tooltip').innerText();
    assert.match(tip, /Bin \d+/);
    assert.match(tip, /count/);
    assert.match(tip, /95% interval/);
    await shot(page, '04-tooltip');
  });
});

for (const [file, code] of [
  ['edge/edge_invalid_rowsum_probs.csv', 'row_sum'],
  ['edge/edge_invalid_label_probs.csv', 'label_out_of_range'],
]) {
  test(`an invalid file (${file}) shows its located error and the app stays usable`, async () => {
    await withApp(async ({ page }) => {
      const exp = expected(file.replace(/\.csv$/, '.expected.json'));
      await dropFiles(page, [file]);
      const error = page.locator('#error');
      assert.equal(await error.count(), 1);
      assert.equal(await error.getAttribute('data-error-code'), code);
      const items = await page.$$eval('#error .error-item', (els) => els.map((e) => ({ row: Number(e.dataset.row), kind: e.dataset.code, text: e.innerText })));
      assert.deepEqual(items.map(({ row, kind }) => ({ row, kind })), exp.errors.map(({ row, kind }) => ({ row, kind })));
      for (const it of items) assert.match(it.text, new RegExp(`row ${it.row}`));
      await shot(page, `05-error-${code}`);
      // still usable: the next file is read
      await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
      assert.equal(await page.locator('#error').count(), 0);
      assert.equal(await valueOf(page, 'input.n'), '171');
    });
  });
}

test('a gzip file is read as its text; a truncated one is refused with a reason', async () => {
  await withApp(async ({ page }) => {
    // the fixture gzipped in the page (CompressionStream), dropped as preds.csv.gz
    const text = readFileSync(path.join(fixtures, 'real/breast_cancer_rf_p.csv'), 'utf8');
    await page.evaluate(async (text) => {
      const gz = await new Response(new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
      for (const bytes of [new Uint8Array(gz), new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0])]) {
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'preds.csv.gz'));
        for (const type of ['dragover', 'drop']) {
          document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
        }
        await window.calibscopeIdle();
        if (bytes.length > 8) window.readGzip = document.querySelector('[data-metric="input.n"]')?.dataset.value;
      }
    }, text);
    await idle(page);
    assert.equal(await page.evaluate(() => window.readGzip), '171');
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'compressed_bad');
    assert.match(await page.locator('#error').innerText(), /gzip stream ends early/);
  });
});

test('the mapping panel reads the file again as logits', async () => {
  await withApp(async ({ page }) => {
    await dropFiles(page, ['edge/edge_invalid_rowsum_probs.csv']);
    assert.equal(await page.locator('#error').getAttribute('data-error-code'), 'row_sum');
    // the mapping panel shows what was read from the failed file, ready to correct
    assert.match(await page.locator('#mapping-title').innerText(), /failed/);
    assert.equal(await valueOf(page, 'input.n'), '4');
    assert.equal(await valueOf(page, 'input.source'), 'probs');
    assert.ok(await page.locator('#map-source').isVisible(), 'the correction is open');
    await shot(page, '05-mapping-correction');
    await page.selectOption('#map-source', 'logits');
    await page.click('#map-apply');
    await idle(page);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await valueOf(page, 'input.source'), 'logits');
    assert.equal(await valueOf(page, 'input.n'), '4');
    assert.match(await page.locator('#mapping-title').innerText(), /^What was read$/);
  });
});

test('a large file shows a progress bar and can be cancelled; a new drop replaces it', async () => {
  await withApp(async ({ page }) => {
    const before = await valueOf(page, 'input.file');
    await page.evaluate(() => {
      const line = '1,0.8125\n0,0.3125\n1,0.5625\n0,0.0625\n';
      const big = 'label,p\n' + line.repeat(2_500_000); // ~45 MB
      const dt = new DataTransfer();
      dt.items.add(new File([big], 'big_binary.csv'));
      for (const type of ['dragover', 'drop']) {
        document.body.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
      }
    });
    await page.locator('#progress-bar').waitFor({ timeout: 10000 });
    await shot(page, '06-progress');
    await page.click('#cancel');
    await idle(page);
    assert.equal(await page.locator('#progress').count(), 0, 'progress gone after cancel');
    assert.equal(await valueOf(page, 'input.file'), before, 'the previous data set stays');
    // dropping a new file while one is read cancels the old one
    await page.evaluate(() => {
      const big = 'label,p\n' + '1,0.8125\n0,0.3125\n'.repeat(5_000_000);
      const dt = new DataTransfer();
      dt.items.add(new File([big], 'big2.csv'));
      document.body.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
    });
    await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
    assert.equal(await valueOf(page, 'input.file'), 'breast_cancer_rf_p.csv');
  });
});

test('a worker crash is reported and the worker can be restarted', async () => {
  await withExample(async ({ page }) => {
    await page.evaluate(() => window.calibscopeDebugPanic());
    await page.locator('#restart-worker').waitFor({ timeout: 10000 });
    assert.match(await page.locator('.banner.crashed').innerText(), /crashed/i);
    await shot(page, '07-worker-crash');
    await page.click('#restart-worker');
    await idle(page);
    assert.equal(await page.locator('#restart-worker').count(), 0);
    assert.equal(await page.locator('table.metrics tbody tr').count(), 10, 'the example is read again');
  });
});

test('every metric explains itself on focus; undefined values say why', async () => {
  await withExample(async ({ page }) => {
    const tip = page.locator('table.metrics thead .tip').first();
    await tip.focus();
    assert.ok(await page.locator('table.metrics thead .tip:focus .tiptext').isVisible());
    const docs = await page.$$eval('table.metrics thead .tiptext', (els) => els.map((e) => e.textContent.trim()));
    assert.ok(docs.length >= 15 && docs.every((d) => d.length > 10));
    const nulls = (await displayed(page)).filter((d) => d.value === 'null');
    for (const d of nulls) {
      const text = await page.locator(`[data-metric="${d.metric}"]`).first().innerText();
      assert.match(text, /undefined/);
    }
  });
});

test('dark theme and a narrow screen render', async () => {
  await withApp(async ({ page, errors }) => {
    await shot(page, '08-dark');
    assert.deepEqual(errors, []);
  }, { colorScheme: 'dark', viewport: { width: 1280, height: 1400 } });
  await withApp(async ({ page }) => {
    await shot(page, '09-narrow');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page does not scroll sideways (${overflow}px)`);
  }, { viewport: { width: 390, height: 900 } });
});

test('privacy: no request leaves the origin', async () => {
  await withApp(async ({ page, requests }) => {
    await dropFiles(page, ['real/digits_mlp_logits.npz']);
    assert.deepEqual(foreignRequests(requests), []);
  });
  assert.ok(allRequests.length > 10, 'requests were recorded');
  assert.deepEqual(foreignRequests(allRequests), []);
});
