// The ranking-flips view's flips against noise in headless chromium: the bundled
// example (10 models on the digits) dropped, the view opened, the matrices' check
// asked for (the ranking's runs by itself); every share of
// resamples and every "within noise" / "beyond noise" mark shown equals
// `calibscope flips --metric all --json`'s `noise` on the same file (the same
// paired bootstrap: 1000 replicates, seed 0, alpha 0.05), every flip of the CLI is
// marked on the page, and the rule is stated. Run: node --test
// tests/e2e/flips_noise.test.mjs (CALIBSCOPE_CLI: the CLI; see tests/e2e/helpers.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { launch, repo, idle, dropPaths, shot, foreignRequests, lookup, withApp } from './helpers.mjs';

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const file = path.join(repo, 'assets/examples/digits_zoo_probs.csv');

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('every flip is marked within or beyond noise with the CLI\'s shares', async () => {
  const doc = JSON.parse(execFileSync(cli, ['flips', '--metric', 'all', '--json', file], { maxBuffer: 1 << 28 }).toString());
  // every flip of the CLI's noise sections, by its path
  const want = new Map();
  for (const [metric, m] of Object.entries(doc.metrics)) {
    for (const [key, list] of Object.entries(m.noise?.flips ?? {})) {
      list.forEach((flip, k) => want.set(`metrics.${metric}.noise.flips.${key}.${k}`, flip));
    }
  }
  assert.ok(want.size > 0, 'the example has flips to check');
  await withApp(browser, async ({ page, errors, requests }) => {
    await dropPaths(page, [file]);
    await page.click('#tab-flips');
    await page.waitForSelector('#flips-ranking');
    await page.waitForSelector('#flips-noise-rule');
    // the matrices' flips (every binned metric) are checked on request only
    await idle(page);
    const ask = page.locator('#flips-noise-check-matrices');
    assert.equal((await ask.innerText()).trim(), 'Check these flips against noise');
    assert.match(await page.locator('.noise-flips summary').first().innerText(), /not checked/);
    await ask.click();
    // computed in the worker in slices: the page says so meanwhile, then marks
    await page.waitForFunction(() => !document.querySelector('#flips-noise-status')
      && document.querySelectorAll('[data-metric$=".within_noise"]').length > 0, null, { timeout: 120000 });
    await idle(page);
    assert.equal(await page.locator('.noise-mark.pending').count(), 0, 'no flip waits for its mark');
    assert.equal((await ask.innerText()).trim(), 'Checked against noise');
    assert.ok(await ask.isDisabled(), 'checked once for these bin counts');
    const shown = await page.$$eval('[data-metric*=".noise.flips."]',
      (els) => els.map((e) => [e.getAttribute('data-metric'), e.getAttribute('data-value'), e.textContent]));
    const marked = new Set();
    let shares = 0;
    for (const [metric, value, text] of shown) {
      const parts = metric.split('.');
      const got = JSON.parse(value);
      const expect = lookup(doc, parts);
      assert.notEqual(expect, undefined, `${metric} is in the CLI's JSON`);
      assert.deepEqual(got, expect, metric);
      if (parts.at(-1) === 'within_noise') {
        marked.add(parts.slice(0, -1).join('.'));
        assert.equal(text.trim(), expect ? 'within noise' : 'beyond noise', metric);
      } else {
        shares++;
        // shown as a percentage of the same value
        if (expect !== null) assert.ok(text.includes('%'), `${metric}: ${text}`);
      }
    }
    assert.deepEqual([...marked].sort(), [...want.keys()].sort(), 'every flip of the CLI is marked on the page');
    assert.ok(shares >= 2 * want.size, 'two shares per flip');
    assert.match(await page.locator('#flips-noise-rule').innerText(), /stable at both bin counts/);
    await shot(page, 'flips-noise');
    assert.deepEqual(errors, []);
    assert.deepEqual(foreignRequests(requests), [], 'no request leaves the origin');
  });
});
