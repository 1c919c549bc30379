// The page's structure (issue 30): each view shows only what belongs to it (the
// link, the downloads and the record live in the "Share & export" view, which names
// the view they describe); no view scrolls sideways on a 390 px phone, in either
// theme; a column header's help is not cut off by the table's scrolling box.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launch, withApp, idle, dropPaths, fixtures, VIEWS } from './helpers.mjs';

/** A test that reads the bundled example. */
const withExample = (b, fn, opts = {}) => withApp(b, fn, { ...opts, example: true });

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function show(page, view) {
  await page.click(`#tab-${view}`);
  await idle(page);
}

test('sharing, records and exports are in the Share & export view only, about the view shown before', async () => {
  await withExample(browser, async ({ page }) => {
    for (const v of VIEWS.filter((v) => v !== 'share')) {
      await show(page, v);
      for (const id of ['share', 'copy-link', 'records', 'download-record', 'verify-drop', 'exports', 'download-zip']) {
        assert.equal(await page.locator(`#${id}`).count(), 0, `#${id} is not on the ${v} view`);
      }
    }
    for (const from of ['flips', 'truth-lab', 'audit']) {
      await show(page, from);
      await show(page, 'share');
      for (const id of ['copy-link', 'download-record', 'verify-drop', 'download-zip', 'prepare-exports']) {
        assert.equal(await page.locator(`#${id}`).count(), 1, `#${id} is on the Share & export view`);
      }
      assert.equal(await page.getAttribute('#share-subject', 'data-view'), from, 'it names the view it shares');
      await page.waitForTimeout(450); // the URL follows after 300 ms
      const link = await page.inputValue('#share-link');
      assert.equal(await page.evaluate(() => location.href), link, 'the URL is the shared view\'s link');
      // the link opens the view it describes, not the Share & export view
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const other = await context.newPage();
      await other.goto(link);
      await other.waitForFunction(() => typeof window.calibscopeIdle === 'function', null, { timeout: 30000 });
      await idle(other);
      assert.equal(await other.getAttribute(`#tab-${from}`, 'aria-selected'), 'true', `the link opens ${from}`);
      await context.close();
      // its name goes back to that view
      await page.click('#share-subject button');
      await idle(page);
      assert.equal(await page.getAttribute(`#tab-${from}`, 'aria-selected'), 'true');
    }
  });
});

for (const colorScheme of ['light', 'dark']) {
  test(`no view scrolls sideways at 390 px (${colorScheme})`, async () => {
    await withExample(browser, async ({ page }) => {
      const wide = [];
      for (const v of VIEWS) {
        await show(page, v);
        const width = await page.evaluate(() => document.documentElement.scrollWidth);
        if (width > 390) {
          const culprits = await page.evaluate(() => [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > 391)
            .slice(-3)
            .map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''} (${Math.round(e.getBoundingClientRect().right)} px)`));
          wide.push(`${v}: ${width} px wide (${culprits.join(', ')})`);
        }
      }
      assert.deepEqual(wide, []);
    }, { viewport: { width: 390, height: 844 }, colorScheme });
  });
}

test('a column header\'s help is shown whole, not cut off by the table\'s scrolling box', async () => {
  await withApp(browser, async ({ page }) => {
    // the overview of one model: a one-row table in a scrolling box, at a width
    // where the table scrolls sideways
    await dropPaths(page, [path.join(fixtures, 'real/breast_cancer_rf_p.csv')]);
    const tips = page.locator('#overview thead th:not([hidden]) .tip'); // the columns shown
    const n = await tips.count();
    assert.ok(n >= 5, `${n} column headers with help`);
    for (const i of [0, Math.floor(n / 2), n - 1]) {
      const tip = tips.nth(i);
      await tip.focus();
      const text = tip.locator('.tiptext');
      await text.waitFor({ state: 'visible' });
      const seen = await text.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const points = [[r.left + 4, r.top + 4], [r.right - 4, r.top + 4], [r.left + 4, r.bottom - 4], [r.right - 4, r.bottom - 4]];
        return {
          inside: r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight,
          whole: points.every(([x, y]) => el.contains(document.elementFromPoint(x, y))),
          text: el.textContent.slice(0, 40),
        };
      });
      assert.ok(seen.inside, `header ${i}: its help lies inside the screen (${seen.text})`);
      assert.ok(seen.whole, `header ${i}: every corner of its help is visible, nothing covers or clips it (${seen.text})`);
    }
  }, { viewport: { width: 700, height: 900 } });
});

/** Names of documents and implementation details a user cannot open or does not
 * need: the contract's file and sections, the seed files, the generator's name. */
const JARGON = /METRICS\.md|§|\bsource 00\d|\bseed 00\d|SplitMix|Fisher[–-]Yates|calibscope-(audit|record|share)\/\d/gi;

test('no view\'s text cites internal documents or implementation names', async () => {
  await withExample(browser, async ({ page }) => {
    const found = [];
    for (const v of VIEWS) {
      await show(page, v);
      // every text of the view, its tooltips and closed details included
      const text = await page.evaluate(() => {
        const attrs = [...document.querySelectorAll('[title], [aria-label], [placeholder]')]
          .map((e) => [e.getAttribute('title'), e.getAttribute('aria-label'), e.getAttribute('placeholder')].join(' '));
        return document.body.textContent + ' ' + attrs.join(' ');
      });
      for (const m of text.matchAll(JARGON)) {
        found.push(`${v}: …${text.slice(Math.max(0, m.index - 60), m.index + 40).replace(/\s+/g, ' ')}…`);
      }
    }
    assert.deepEqual(found, []);
  });
});
