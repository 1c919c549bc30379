// Legibility of the charts and numbers (issue 30): on every view that draws a chart,
// in both themes, at 1440 and 390 CSS px wide,
// - every chart text is at least 11 CSS px as rendered (its computed font size times
//   the scale of its SVG on the screen: a viewBox scaled to its card shrinks text);
// - in the dark theme the marks (bars, dots, count strip, lines) have 3:1 contrast
//   against the card behind them (WCAG AA for graphics), the dots 3:1 against the
//   bars, and chart text 4.5:1;
// - no number on the page is written in e-notation when its magnitude is in
//   [1e-4, 1e6) (neither in a data-value'd number nor anywhere in the text).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, openApp, idle, dropFiles, shot } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const MIN_PX = 11;

/** In the page: every visible chart text's rendered size, colour and background,
 * the marks' colours, and the numbers written in e-notation in range. */
async function audit(page, where) {
  return page.evaluate((where) => {
    const rgb = (s) => {
      const m = s.match(/rgba?\(([^)]+)\)/);
      if (!m) return null;
      const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
      return [r, g, b, a];
    };
    const lum = ([r, g, b]) => {
      const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const over = (top, under) => {
      const a = top[3] ?? 1;
      return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a));
    };
    /** The opaque colour behind an element: its ancestors' backgrounds composited. */
    const background = (el) => {
      const layers = [];
      for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c && c[3] > 0) layers.push(c);
        if (c && c[3] === 1) break;
      }
      let acc = rgb(getComputedStyle(document.documentElement).backgroundColor) || [255, 255, 255, 1];
      for (const c of layers.reverse()) acc = [...over(c, acc), 1];
      return acc;
    };
    const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const paint = (el, prop) => {
      const c = rgb(getComputedStyle(el)[prop]);
      if (!c) return null;
      const op = Number(getComputedStyle(el).opacity) * Number(getComputedStyle(el)[prop === 'fill' ? 'fillOpacity' : 'strokeOpacity']);
      return [c[0], c[1], c[2], (c[3] ?? 1) * op];
    };
    const small = [];
    const lowText = [];
    let texts = 0;
    const svgs = [...document.querySelectorAll('main svg')].filter((s) => !s.closest('.flips-legend') && visible(s));
    for (const svg of svgs) {
      for (const t of svg.querySelectorAll('text')) {
        if (!visible(t) || !t.textContent.trim()) continue;
        texts++;
        const m = t.getScreenCTM();
        const scale = Math.hypot(m.a, m.b);
        const px = parseFloat(getComputedStyle(t).fontSize) * scale;
        const id = svg.closest('[id]')?.id || svg.parentElement.className;
        if (px < 11 - 1e-6) small.push(`${id}: "${t.textContent.trim().slice(0, 30)}" at ${px.toFixed(1)} px`);
        const fill = paint(t, 'fill');
        const bg = background(svg);
        if (fill) {
          const r = ratio(over(fill, bg), bg);
          if (r < 4.5) lowText.push(`${id}: "${t.textContent.trim().slice(0, 30)}" ${r.toFixed(2)}:1`);
        }
      }
    }
    // marks: the diagram's bars, dots and strip; the small charts' lines and bars
    const marks = [];
    const lowMarks = [];
    const check = (sel, prop, against) => {
      for (const el of document.querySelectorAll(sel)) {
        if (!visible(el)) continue;
        const c = paint(el, prop);
        if (!c) continue;
        const bg = background(el.ownerSVGElement || el);
        const under = against ? against(el) : bg;
        const r = ratio(over(c, bg), under);
        marks.push(sel);
        if (r < 3) lowMarks.push(`${sel} in ${el.ownerSVGElement?.closest('[id]')?.id}: ${r.toFixed(2)}:1`);
      }
    };
    check('main svg path.cs-bar', 'fill');
    check('main svg path.cs-strip', 'fill');
    check('main svg path.cs-point', 'stroke');
    check('main svg path.cs-gap', 'stroke');
    check('main svg .lab-chart .series, main svg.lab-chart .series', 'stroke');
    check('main svg.lab-chart .bar', 'fill');
    // the dots against the bars they sit on
    check('main svg path.cs-point', 'stroke', (el) => {
      const bar = el.ownerSVGElement.querySelector('path.cs-bar');
      return bar ? over(paint(bar, 'fill'), background(el.ownerSVGElement)) : background(el);
    });
    // numbers in e-notation whose magnitude is in [1e-4, 1e6)
    const eNotation = [];
    const inRange = (v) => Number.isFinite(v) && Math.abs(v) >= 1e-4 && Math.abs(v) < 1e6;
    for (const el of document.querySelectorAll('main [data-value]')) {
      if (!visible(el)) continue;
      const v = Number(el.dataset.value);
      if (inRange(v) && /\de[-+]?\d/.test(el.textContent)) eNotation.push(`${el.dataset.metric}: ${el.textContent}`);
    }
    const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.parentElement || !visible(n.parentElement)) continue;
      for (const m of n.textContent.matchAll(/-?\d+(?:\.\d+)?e[-+]?\d+/g)) {
        // "< 1e-4" and "> -1e-4" are the formatter's bounds for tiny values, not numbers
        if (/[<>]\s?$/.test(n.textContent.slice(0, m.index))) continue;
        if (inRange(Number(m[0]))) eNotation.push(`text: …${n.textContent.slice(Math.max(0, m.index - 20), m.index + 20)}…`);
      }
    }
    return { where, svgs: svgs.length, texts, small, lowText, marks: marks.length, lowMarks, eNotation };
  }, where);
}

function assertLegible(r, { dark }) {
  assert.ok(r.svgs > 0 && r.texts > 0, `${r.where}: a chart with text is shown (${r.svgs} svgs, ${r.texts} texts)`);
  assert.deepEqual(r.small, [], `${r.where}: chart text under ${MIN_PX} px`);
  assert.deepEqual(r.eNotation, [], `${r.where}: e-notation in [1e-4, 1e6)`);
  if (dark) {
    assert.deepEqual(r.lowText, [], `${r.where}: chart text under 4.5:1 in the dark theme`);
    assert.deepEqual(r.lowMarks, [], `${r.where}: marks under 3:1 in the dark theme`);
  }
}

async function view(page, id) {
  await page.click(`#tab-${id}`);
  await idle(page);
}

for (const scheme of ['light', 'dark']) {
  for (const width of [1440, 390]) {
    const opts = { viewport: { width, height: 900 }, colorScheme: scheme };
    const dark = scheme === 'dark';
    const tag = `${scheme} ${width}px`;

    test(`${tag}: the audit diagram, a class reading, the flips curves`, async () => {
      const { page, context, errors } = await openApp(browser, opts);
      try {
        await dropFiles(page, ['multi/digits_zoo_probs.csv']);
        await idle(page);
        await page.waitForSelector('#chart svg');
        const r = await audit(page, `audit, ${tag}`);
        assert.ok(r.marks > 0, 'the diagram has marks');
        assertLegible(r, { dark });
        // the chart fills its card: drawn at its box's width, shown at scale ~1
        const fit = await page.$eval('#chart .svg svg', (s) => ({ box: s.parentElement.clientWidth, w: s.viewBox.baseVal.width, shown: s.getBoundingClientRect().width }));
        assert.ok(Math.abs(fit.shown - fit.box) <= 2, `the diagram spans its box: ${JSON.stringify(fit)}`);
        assert.ok(Math.abs(fit.w - fit.shown) <= 20 || fit.w === 280, `drawn at the width shown: ${JSON.stringify(fit)}`);
        // a class reading: the y axis is the class's frequency
        await page.selectOption('#reading-select', 'class:0');
        await idle(page);
        const texts = await page.$$eval('#chart .svg svg text', (t) => t.map((x) => x.textContent.trim()));
        assert.ok(texts.includes('frequency of the class'), 'class reading y label');
        assert.ok(!texts.includes('accuracy'), 'no "accuracy" axis for a class reading');
        assertLegible(await audit(page, `audit class reading, ${tag}`), { dark });
        // the count strip's scale can be chosen
        await page.selectOption('#count-scale', 'log');
        await idle(page);
        assert.ok((await page.$$eval('#chart .svg svg text', (t) => t.map((x) => x.textContent.trim()))).includes('samples (log)'));
        await view(page, 'flips');
        await page.waitForSelector('#flips-chart svg');
        assertLegible(await audit(page, `flips, ${tag}`), { dark });
        await shot(page, `legibility-flips-${scheme}-${width}`);
        assert.deepEqual(errors, [], 'no page error');
      } finally {
        await context.close();
      }
    });

    test(`${tag}: recalibrate (fitted maps, before/after), details behind a disclosure`, async () => {
      const { page, context, errors } = await openApp(browser, opts);
      try {
        await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
        await view(page, 'recalibrate');
        await page.waitForSelector('#recal-ledger');
        await page.waitForSelector('#recal-map-temperature svg');
        await idle(page);
        assertLegible(await audit(page, `recalibrate, ${tag}`), { dark });
        // the iteration table is behind "details", closed at first
        assert.equal(await page.$eval('#recal-trace', (t) => !!t.closest('details') && !t.closest('details').open), true);
        // the ledger's regressions are words, not the flips view's ▲
        assert.equal(await page.locator('#recal-ledger').getByText('▲').count(), 0);
        await shot(page, `legibility-recal-${scheme}-${width}`);
        assert.deepEqual(errors, [], 'no page error');
      } finally {
        await context.close();
      }
    });

    test(`${tag}: every learn step and both labs`, async () => {
      const { page, context, errors } = await openApp(browser, { ...opts, example: true });
      try {
        await view(page, 'learn');
        const steps = await page.$$eval('ol.steps button', (b) => b.length);
        let charts = 0;
        for (let i = 1; i <= steps; i++) {
          const r = await audit(page, `learn step ${i}, ${tag}`);
          if (r.svgs > 0) {
            charts++;
            assertLegible(r, { dark });
          } else {
            assert.deepEqual(r.eNotation, [], `learn step ${i}: e-notation`);
          }
          if (i < steps) {
            await page.click('#learn-next');
            await idle(page);
          }
        }
        assert.ok(charts >= 2, `the tour draws charts (${charts} steps with one)`);
        for (const lab of ['truth-lab', 'beyond-lab']) {
          await view(page, lab);
          await page.waitForSelector('main svg');
          await idle(page);
          assertLegible(await audit(page, `${lab}, ${tag}`), { dark });
          await shot(page, `legibility-${lab}-${scheme}-${width}`);
        }
        assert.deepEqual(errors, [], 'no page error');
      } finally {
        await context.close();
      }
    });
  }
}
