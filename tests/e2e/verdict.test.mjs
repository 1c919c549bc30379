// The audit's answer first (issue 29): after a drop the point estimates arrive, then
// the bootstrap; each model's verdict sentence and the overview's intervals then
// equal `calibscope audit --json --bootstrap 1000 --seed 0 --alpha 0.05` exactly
// (every number by its data-metric path and full-precision data-value), and the
// verdict and the diagram are on the first screen at 1440×900 and 390×844.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { launch, withApp, dropPaths, idle, fixtures, repo, shot, auditValue } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** The CLI's audit document of `files` with the page's bootstrap settings. */
function cliAudit(files) {
  assert.ok(existsSync(cli), `${cli} not found: cargo build --release -p calibscope-cli`);
  const out = execFileSync(cli, ['audit', '--json', '--bootstrap', '1000', '--seed', '0', '--alpha', '0.05', ...files], { maxBuffer: 1 << 28 });
  return JSON.parse(out.toString());
}

/** Waits until every model's verdict (or its absence) is shown. */
async function waitForVerdicts(page) {
  await page.waitForSelector('#verdict');
  await page.waitForFunction(() => {
    const items = document.querySelectorAll('#verdict .verdict-list li');
    return items.length > 0 && [...items].every((li) => li.querySelector('.verdict-text, .verdict-none'));
  }, null, { timeout: 120000 });
  await idle(page);
}

/** Every number of the verdicts and the overview's intervals: {metric, value, text}. */
async function shown(page) {
  return page.locator('#verdict [data-metric], #overview [data-metric*=".intervals."], #overview [data-metric$=".smece"]').evaluateAll((els) =>
    els.map((e) => ({ metric: e.dataset.metric, value: e.dataset.value, text: e.textContent })));
}

async function checkAgainstCli(page, files, models) {
  const doc = cliAudit(files);
  const numbers = await shown(page);
  const sentences = numbers.filter((n) => n.metric.endsWith('verdict.text'));
  assert.equal(sentences.length, Math.max(models.length, 1), 'one verdict per model');
  let intervals = 0;
  for (const n of numbers) {
    const want = auditValue(doc, n.metric, models);
    assert.notEqual(want, undefined, `${n.metric} is in the CLI's document`);
    if (n.metric.endsWith('verdict.text')) {
      assert.equal(n.value, want, n.metric);
      assert.equal(n.text, want, `${n.metric}: the sentence reads as the CLI's`);
    } else {
      assert.deepEqual(JSON.parse(n.value), want, n.metric);
    }
    if (n.metric.includes('.intervals.')) intervals += 1;
  }
  assert.ok(intervals >= 2 * Math.max(models.length, 1), `${intervals} intervals shown`);
  return doc;
}

test('one model: the verdict and the intervals are the CLI bootstrap\'s, number for number', async () => {
  const file = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
  await withApp(browser, async ({ page, errors }) => {
    await dropPaths(page, [file]);
    await waitForVerdicts(page);
    const doc = await checkAgainstCli(page, [file], []);
    assert.ok(doc.verdict && doc.verdict.text, 'the CLI gives a verdict');
    assert.equal(await page.locator('#verdict .verdict-progress').count(), 0, 'the progress is gone');
    assert.deepEqual(errors, []);
  });
});

test('several models: each verdict and interval is the CLI\'s (paired resamples)', async () => {
  const file = path.join(fixtures, 'multi/digits_zoo_probs.csv');
  await withApp(browser, async ({ page }) => {
    await dropPaths(page, [file]);
    await waitForVerdicts(page);
    const models = await page.locator('#verdict .verdict-list li').evaluateAll((els) => els.map((e) => e.dataset.model));
    assert.equal(models.length, 10);
    await checkAgainstCli(page, [file], models);
    // the bootstrap's progress was shown while it ran, then the answer replaced it
    await shot(page, 'verdict-multi');
  });
});

test('the column chooser shows a short table and every column on demand', async () => {
  await withApp(browser, async ({ page }) => {
    await dropPaths(page, [path.join(fixtures, 'real/breast_cancer_rf_p.csv')]);
    await waitForVerdicts(page);
    const visible = () => page.locator('#overview thead th:not([hidden])').count();
    const all = await page.locator('#overview thead th').count();
    const short = await visible();
    assert.ok(short <= 7 && all >= 18, `${short} of ${all} columns shown by default`);
    // every hidden value is still in the page (data-metric) and appears when chosen
    await page.click('#overview details.columns > summary');
    await page.check('#overview input[data-column="mce"]');
    assert.equal(await visible(), short + 1);
    assert.ok(await page.locator('#overview [data-metric="readings.confidence.width.15.mce"]').isVisible());
    await page.uncheck('#overview input[data-column="mce"]');
    assert.equal(await visible(), short);
  });
});

const FIRST_SCREEN = [
  ['one model', 'real/breast_cancer_rf_p.csv'],
  ['10 models', 'multi/digits_zoo_probs.csv'],
];
for (const [what, rel] of FIRST_SCREEN) for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
  test(`${what}: the verdict and the diagram are on the first screen at ${viewport.width}×${viewport.height}`, async () => {
    await withApp(browser, async ({ page }) => {
      await dropPaths(page, [path.join(fixtures, rel)]);
      await waitForVerdicts(page);
      // as the page leaves it after the drop: on a wide screen nothing scrolled; on a
      // phone the page brings the verdict to the top
      const scrolled = await page.evaluate(() => window.scrollY);
      if (viewport.width >= 1000) assert.equal(scrolled, 0, 'no scrolling on a wide screen');
      const box = async (sel) => page.locator(sel).first().evaluate((e) => e.getBoundingClientRect().toJSON());
      const verdict = await box('#verdict .verdict-list');
      const chart = await box('#chart svg');
      // every verdict and the whole diagram (on a wide screen ten verdicts stand
      // beside the diagram)
      for (const [name, b] of [['verdict', verdict], ['diagram', chart]]) {
        assert.ok(b.top >= 0 && b.left >= 0 && b.bottom <= viewport.height && b.right <= viewport.width,
          `the ${name} (${Math.round(b.left)},${Math.round(b.top)})–(${Math.round(b.right)},${Math.round(b.bottom)}) lies within ${viewport.width}×${viewport.height}`);
      }
      if (what === '10 models' && viewport.width >= 1000) {
        assert.ok(verdict.right <= chart.left, 'the verdicts stand left of the diagram');
      }
      if (what === '10 models' && viewport.width < 600) {
        // a phone lists the first verdicts; the others are one click away
        const more = page.locator('#verdict-more');
        assert.equal(await page.locator('#verdict .verdict-list li:visible').count(), 3);
        assert.match(await more.innerText(), /Show the other 7 models' verdicts/);
        await more.click();
        assert.equal(await page.locator('#verdict .verdict-list li:visible').count(), 10);
        assert.equal(await more.getAttribute('aria-expanded'), 'true');
      } else {
        assert.ok(await page.locator('#verdict-more').isHidden(), 'no "show more" where every verdict fits');
      }
      await shot(page, `verdict-first-screen-${what.replace(' ', '-')}-${viewport.width}`);
    }, { viewport });
  });
}

test('the smooth and cumulative-differences diagrams render with the CLI\'s numbers', async () => {
  const file = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
  const doc = cliAudit([file]);
  await withApp(browser, async ({ page, errors }) => {
    await dropPaths(page, [file]);
    await waitForVerdicts(page);
    const value = async (metric) => JSON.parse(await page.getAttribute(`#chart-binning-free [data-metric="${metric}"]`, 'data-value'));
    await page.selectOption('#diagram-select', 'smooth');
    await page.waitForSelector('#chart-binning-free[data-diagram="smooth"] svg');
    await idle(page);
    assert.equal(await value('binning_free.smece_sigma'), doc.binning_free.smece_sigma);
    assert.equal(await value('binning_free.smece'), doc.binning_free.smece);
    assert.ok(await page.locator('#chart').isHidden(), 'the binned diagram gives way');
    await page.selectOption('#diagram-select', 'cumulative');
    await page.waitForSelector('#chart-binning-free[data-diagram="cumulative"] svg');
    await idle(page);
    assert.equal(await value('readings.confidence.tests.cumulative.ks'), doc.readings.confidence.tests.cumulative.ks);
    assert.equal(await value('readings.confidence.tests.cumulative.p_ks'), doc.readings.confidence.tests.cumulative.p_ks);
    await shot(page, 'verdict-cumulative');
    await page.selectOption('#diagram-select', 'binned');
    assert.ok(await page.locator('#chart svg').first().isVisible());
    // no error, not even the CSP's refusal of an inline style (plotters measures a
    // chart's caption with a styled <span> in a browser; the charts lay it out without)
    assert.deepEqual(errors, []);
  });
});
