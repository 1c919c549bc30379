// The reliability table at a large bin count: only the rows in view are in the page
// (written as one HTML string), and every window of it shows the worker's values,
// which "Copy as CSV" gives in full. Run: node --test tests/e2e/table.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, idle, copyWith, dropFiles, setM, withApp as withAppOf } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const FIELDS = ['bin', 'u_min', 'u_max', 'n', 'conf', 'acc', 'gap', 'successes', 'cp_lower', 'cp_upper'];

/** The table rows in the page: [{i, values: {key: data-value}, text: {key: shown}}]. */
function rowsInPage(page) {
  return page.$$eval('#reliability-table tbody tr', (trs) => trs.map((tr) => {
    const values = {};
    const text = {};
    let i = null;
    for (const s of tr.querySelectorAll('[data-metric]')) {
      const parts = s.dataset.metric.split('.');
      i = Number(parts[parts.length - 2]);
      values[parts[parts.length - 1]] = s.dataset.value;
      text[parts[parts.length - 1]] = s.textContent;
    }
    return { i, rowindex: Number(tr.getAttribute('aria-rowindex')), values, text, metric: tr.querySelector('[data-metric]').dataset.metric };
  }));
}

test('at m = n every window of the reliability table shows the worker\'s rows; the CSV has all of them', async () => {
  await withAppOf(browser, async ({ page, errors }) => {
    await dropFiles(page, ['real/digits_logreg_C1_logits.csv']);
    await page.locator('#binning-mass').check();
    await idle(page);
    await setM(page, 450);
    // the worker's rows, in full: the clipboard's CSV
    assert.equal(await copyWith(page, '#copy-csv', '#copy-csv-status'), 'Copied as CSV.');
    const lines = (await page.evaluate(() => navigator.clipboard.readText())).trim().split('\n');
    assert.equal(lines[0], FIELDS.join(','));
    const csv = lines.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, k) => [FIELDS[k], v])));
    assert.equal(csv.length, 450, 'one CSV line per non-empty bin');
    assert.equal(await page.getAttribute('#reliability-table', 'data-rows'), '450');
    // equal-mass with m = n: one sample per bin, in confidence order
    csv.forEach((r, i) => {
      assert.equal(r.bin, String(i));
      assert.equal(r.n, '1');
      assert.equal(r.u_min, r.conf);
      assert.equal(r.u_max, r.conf);
      assert.ok(i === 0 || Number(r.conf) >= Number(csv[i - 1].conf));
    });
    const box = page.locator('#reliability-rows');
    const rowPx = await page.$eval('#reliability-table tbody tr', (tr) => tr.getBoundingClientRect().height);
    const seen = new Set();
    for (const target of [0, 200, 449, 17, 0]) {
      await box.evaluate((el, top) => { el.scrollTop = top; }, target * rowPx);
      // the scroll event renders the window of the rows now in view
      await page.waitForFunction((t) => {
        const first = Number(document.getElementById('reliability-table').dataset.firstRow);
        const trs = document.querySelectorAll('#reliability-table tbody tr');
        return first <= t && first + trs.length > Math.min(t, 449);
      }, target);
      await idle(page);
      const rows = await rowsInPage(page);
      const first = Number(await page.getAttribute('#reliability-table', 'data-first-row'));
      assert.ok(rows.length >= 15 && rows.length <= 48, `${rows.length} rows in the page`);
      // what the box shows: the rows in the page fill it, and the row at its top is
      // the one its scroll position stands for (the paddings match the rows' height)
      const view = await box.evaluate((el) => {
        const r = el.getBoundingClientRect();
        const head = el.querySelector('thead th').getBoundingClientRect().bottom; // sticky
        const shown = [...el.querySelectorAll('tbody tr')].filter((tr) => {
          const b = tr.getBoundingClientRect();
          return b.bottom > head + 1 && b.top < r.bottom - 1;
        }).map((tr) => Number(tr.getAttribute('aria-rowindex')) - 2);
        return { shown, top: el.scrollTop, height: el.clientHeight };
      });
      const atTop = Math.floor(view.top / rowPx);
      assert.ok(view.shown.length >= Math.min(Math.floor(view.height / rowPx) - 2, 450 - atTop), `${view.shown.length} rows fill the box`);
      assert.ok(Math.abs(view.shown[0] - atTop) <= 1, `row ${view.shown[0]} at the top, scrolled to row ${atTop}`);
      rows.forEach((r, j) => {
        assert.equal(r.i, first + j, 'rows in order');
        assert.equal(r.rowindex, r.i + 2);
        assert.match(r.metric, new RegExp(`^reliability\\.confidence\\.mass_450\\.${r.i}\\.`));
        const want = csv[r.i];
        for (const k of ['bin', 'u_min', 'u_max', 'n', 'conf', 'acc', 'gap', 'cp_lower', 'cp_upper']) {
          assert.equal(r.values[k], want[k], `row ${r.i} ${k}`);
        }
        // the shown text rounds the value (4 significant digits)
        for (const k of ['conf', 'cp_lower', 'cp_upper']) {
          const v = Number(want[k]);
          const shown = Number(r.text[k]);
          assert.ok(Math.abs(shown - v) <= 5e-4 * Math.max(Math.abs(v), 1e-3), `row ${r.i} ${k}: ${r.text[k]} for ${v}`);
        }
        seen.add(r.i);
      });
    }
    assert.ok(seen.has(0) && seen.has(200) && seen.has(449), 'first, middle and last rows shown');
    // one path per data series in the diagram, however many bins; at 450 bins (a few
    // pixels each) the bars and the count strip, without per-bin dots or whiskers
    for (const c of ['cs-bar', 'cs-strip']) assert.equal(await page.locator(`#chart .svg svg path.${c}`).count(), 1, c);
    assert.equal(await page.locator('#chart .svg svg path.cs-point, #chart .svg svg path.cs-whisker').count(), 0);
    assert.deepEqual(errors, []);
  });
});
