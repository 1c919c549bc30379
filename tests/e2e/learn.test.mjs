// Browser tests of the Learn tour and the two labs (issue 7): the labs' key claims
// read from the page's data-values, the tour walked with the keyboard.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, idle, valueOf, shot, foreignRequests, repo } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function withApp(fn, opts) {
  const app = await openApp(browser, { example: true, ...opts });
  try {
    await fn(app);
    assert.deepEqual(app.errors, [], 'no console errors');
    assert.deepEqual(foreignRequests(app.requests), [], 'no request leaves the origin');
  } finally {
    await app.context.close();
  }
}

async function num(page, metric) {
  const v = await valueOf(page, metric);
  assert.ok(v !== undefined && v !== 'null', `${metric} is shown (got ${v})`);
  return Number(v);
}

async function openView(page, id) {
  await page.click(`#tab-${id}`);
  await idle(page);
}

test('truthfulness lab: uncorrected ConfCE rewards the uniform report, ConfCE^corr the honest one', async () => {
  await withApp(async ({ page }) => {
    await openView(page, 'truth-lab');
    // the default p* is (1/2, 1/3, 1/6)
    assert.equal(Number(await page.inputValue('#p1')), 0.5);
    const e = (k) => num(page, `lab.truth.expected.${k}`);
    const honest = await e('confce.honest');
    const uniform = await e('confce.uniform');
    const honestCorr = await e('confce_corr.honest');
    const uniformCorr = await e('confce_corr.uniform');
    assert.ok(honest > uniform, `E[ConfCE]: honest ${honest} > uniform ${uniform}`);
    assert.ok(honestCorr < uniformCorr, `E[ConfCE^corr]: honest ${honestCorr} < uniform ${uniformCorr}`);
    assert.equal(await page.textContent('[data-prefers="confce"]'), 'the uniform report');
    assert.equal(await page.textContent('[data-prefers="confce_corr"]'), 'the honest report');
    // the source's variance terms at n = 100: q(1-q)/n and (1-q²)/n
    assert.ok(Math.abs(honest - 0.25 / 100) < 1e-12);
    assert.ok(Math.abs(uniformCorr - (8 / 9) / 100) < 1e-12);
    // the simulation confirms the analytic values within 4 standard errors
    for (const s of ['honest', 'uniform', 'temperature', 'coarse']) {
      for (const k of ['confce', 'confce_corr']) {
        const mean = await num(page, `lab.truth.sim.${k}.${s}.mean`);
        const se = await num(page, `lab.truth.sim.${k}.${s}.se`);
        const want = await e(`${k}.${s}`);
        assert.ok(Math.abs(mean - want) <= 4 * se + 1e-12, `${s} ${k}: ${mean} ± ${se} vs ${want}`);
      }
    }
    // editing p* keeps the sum 1
    await page.fill('#p1', '0.8');
    await page.dispatchEvent('#p1', 'change');
    await idle(page);
    const p = await Promise.all(['#p1', '#p2', '#p3'].map((s) => page.inputValue(s).then(Number)));
    assert.ok(Math.abs(p[0] + p[1] + p[2] - 1) < 1e-3, `p* sums to 1: ${p}`);
    assert.ok(Math.abs((await num(page, 'lab.truth.report.honest.q')) - 0.8) < 1e-9);
    // exact conditioning: O(1) for the truthful forecaster, O(1/sqrt n) for the constant one
    const t10 = await num(page, 'lab.truth.exact.truthful.10');
    const c10 = await num(page, 'lab.truth.exact.constant.10');
    const c10k = await num(page, 'lab.truth.exact.constant.10000');
    assert.ok(Math.abs(t10 - 1 / 3) < 1e-12);
    assert.ok(c10k < c10 / 20 && c10k < 0.005, `constant: ${c10} -> ${c10k}`);
    const b10k = await num(page, 'lab.truth.exact.sim.binned.10000.mean');
    assert.ok(b10k < t10 && b10k > c10k, `binned truthful ${b10k} lies between`);
    await shot(page, 'truth-lab');
  });
});

test('beyond-ECE lab: Perfect/Uniform at N = 10,000 over 100 repetitions', async () => {
  await withApp(async ({ page }) => {
    await openView(page, 'beyond-lab');
    await page.selectOption('#beyond-dist', 'uniform');
    await page.selectOption('#beyond-mode', 'perfect');
    assert.equal(Number(await page.inputValue('#beyond-n')), 10000);
    await page.fill('#beyond-reps', '100');
    await page.dispatchEvent('#beyond-reps', 'change');
    await idle(page);
    // one run is shown with its metrics
    for (const k of ['ece', 'csr', 'sigma_csr', 'p_risk', 'cwa', 'gain', 'auc', 'cwauc']) {
      await num(page, `lab.beyond.run.${k}`);
    }
    await page.click('#beyond-repeat');
    await idle(page);
    assert.equal(await num(page, 'lab.beyond.repeat.reps'), 100);
    const csr = await num(page, 'lab.beyond.repeat.csr.mean');
    const se = await num(page, 'lab.beyond.repeat.csr.se');
    const cwa = await num(page, 'lab.beyond.repeat.cwa.mean');
    assert.ok(Math.abs(csr - 1) <= 3 * se, `mean CSR ${csr} ± ${se}`);
    assert.ok(Math.abs(cwa - 2 / 3) < 0.01, `mean cwA ${cwa}`);
    // the paper's Table 5 row is beside it
    assert.equal(await num(page, 'lab.beyond.paper.cwa'), 0.6671);
    assert.equal(await num(page, 'lab.beyond.paper.csr'), 0.9993);
    const ms = await num(page, 'lab.beyond.repeat.ms');
    console.log(`# repeat 100 x N=10000 (uniform/perfect): ${ms.toFixed(0)} ms`);
    assert.ok(ms <= 2000, `100 repetitions at N = 10,000 took ${ms} ms`);
    // the ten distributions in Table 5's layout, beside the paper's rows
    await page.click('#beyond-table');
    await idle(page);
    assert.equal(await page.$$eval('#table5 tbody tr', (r) => r.length), 10);
    for (const d of ['uniform', 'skew_high', 'bimodal', 'bell']) {
      const acc = await num(page, `lab.beyond.table.${d}.acc`);
      const cwa = await num(page, `lab.beyond.table.${d}.cwa`);
      const paperAcc = await num(page, `lab.beyond.table.${d}.paper.acc`);
      assert.ok(cwa > acc, `${d}: cwA ${cwa} > Acc ${acc} under perfect calibration`);
      assert.ok(Math.abs(acc - paperAcc) < 0.02, `${d}: Acc ${acc} vs the paper's ${paperAcc}`);
    }
    // counterexample: ECE < 1/N and CSR > Λ
    const ece = await num(page, 'lab.beyond.counter.ece');
    const oneOverN = await num(page, 'lab.beyond.counter.one_over_n');
    assert.ok(ece < oneOverN, `ECE ${ece} < 1/N ${oneOverN}`);
    assert.ok((await num(page, 'lab.beyond.counter.csr')) > Number(await page.inputValue('#counter-lambda')));
    await shot(page, 'beyond-lab');
  });
});

// The reproduction of the paper's Tables 5, 8 and 9: every cell has the paper's
// value, ours, the SE and a verdict that follows the stated rule, and every number
// equals the native reproduction's (target/lab_repro.json, written by
// `cargo test --release -p calibscope-core --test core lab_repro::`).
test('beyond-ECE lab: the paper\'s Tables 5, 8 and 9 reproduced cell by cell', async () => {
  const jsonPath = path.join(repo, 'target/lab_repro.json');
  if (!existsSync(jsonPath)) {
    throw new Error(`${jsonPath} is missing: run cargo test --release --locked -p calibscope-core --test core lab_repro:: first`);
  }
  const native = JSON.parse(readFileSync(jsonPath, 'utf8'));
  assert.equal(native.cells.length, 800);
  await withApp(async ({ page }) => {
    await openView(page, 'beyond-lab');
    assert.equal(Number(await page.inputValue('#beyond-seed')), native.seed);
    const t0 = Date.now();
    await page.click('#beyond-repro-run');
    await idle(page);
    console.log(`# reproduction of 100 rows x 100 repetitions in the worker: ${Date.now() - t0} ms`);
    const cells = await page.$$eval('td.repro-cell', (tds) => tds.map((td) => {
      const v = (k) => td.querySelector(`.${k} [data-metric]`);
      return {
        path: v('ours').dataset.metric.replace(/\.ours$/, ''),
        ours: Number(v('ours').dataset.value), paper: Number(v('paper').dataset.value), se: Number(v('se').dataset.value),
        verdict: td.dataset.verdict,
      };
    }));
    assert.equal(cells.length, 800);
    const shown = new Map(cells.map((c) => [c.path, c]));
    const reasons = new Set(await page.$$eval('#repro-reasons > li', (li) => li.map((l) => l.dataset.cell)));
    const words = { agrees: 'agrees', off: 'off', Unclipped: 'cannot agree', HeavyTail: 'not judged', RareRuns: 'not judged' };
    const counts = { agrees: 0, off: 0, 'cannot agree': 0, 'not judged': 0 };
    for (const n of native.cells) {
      const key = `lab.beyond.repro.t${n.table}.n${n.n}.${n.dist}.${n.mode}.${n.column}`;
      const c = shown.get(key);
      assert.ok(c, `${key} is shown`);
      for (const k of ['ours', 'paper', 'se']) {
        assert.ok(Math.abs(c[k] - n[k]) <= 1e-9 * Math.max(1, Math.abs(n[k])), `${key}.${k}: page ${c[k]}, native ${n[k]}`);
      }
      assert.equal(c.verdict, words[n.verdict], `${key}: verdict`);
      counts[c.verdict] += 1;
      const within = Math.abs(c.ours - c.paper) <= 4 * c.se + 5e-5;
      if (c.verdict === 'agrees') assert.ok(within, `${key} agrees within 4 SE`);
      else if (c.verdict === 'off') assert.ok(!within, `${key} is off`);
      else assert.ok(reasons.has(key), `${key}: its reason is listed`);
    }
    assert.equal(reasons.size, counts['cannot agree'] + counts['not judged']);
    assert.equal(counts.off, 0, 'no cell is off at the default seed');
    for (const [k, v] of Object.entries({ agrees: counts.agrees, off: counts.off, cannot_agree: counts['cannot agree'], not_judged: counts['not judged'], total: 800 })) {
      assert.equal(await num(page, `lab.beyond.repro.count.${k}`), v, `count ${k}`);
    }
    // the Perfect rows' P_risk sentence is computed from the table shown
    for (const n of [100, 10000]) {
      const ours = cells.filter((c) => c.path.startsWith(`lab.beyond.repro.t5.n${n}.`) && c.path.endsWith('.p_risk')).map((c) => c.ours);
      assert.equal(ours.length, 10);
      assert.equal(await num(page, `lab.beyond.repro.p_risk.n${n}.ours.min`), Math.min(...ours));
      assert.equal(await num(page, `lab.beyond.repro.p_risk.n${n}.ours.max`), Math.max(...ours));
    }
    // every listed reason shows its numbers
    assert.ok(await page.locator('#repro-reasons [data-metric*=".evidence."]').count() >= reasons.size);
    assert.equal(await page.getByText('leave the difference visible').count(), 0);
    await shot(page, 'beyond-lab-reproduction');
  });
});

test('the Learn tour can be walked with the keyboard', async () => {
  await withApp(async ({ page }) => {
    // reach the Learn tab from the Audit tab with the arrow keys
    await page.focus('#tab-audit');
    const tabs = await page.$$eval('nav.views [role=tab]', (t) => t.map((b) => b.id));
    for (let i = 0; i < tabs.indexOf('tab-learn'); i++) {
      await page.keyboard.press('ArrowRight');
      await idle(page);
    }
    assert.equal(await page.getAttribute('#tab-learn', 'aria-selected'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-learn', 'focus follows the selected tab');
    const steps = await page.$$eval('ol.steps button', (b) => b.length);
    assert.ok(steps >= 7 && steps <= 9, `${steps} steps`);
    for (let i = 1; i <= steps; i++) {
      assert.equal(await page.getAttribute('.step-body', 'data-step'), String(i));
      // every step shows live numbers and a "try it on your data" link
      const shown = await page.$$eval('.step-body [data-metric]', (els) => els.filter((e) => e.dataset.value !== 'null').length);
      assert.ok(shown > 0, `step ${i} shows numbers`);
      assert.equal(await page.$$eval('.step-body .try button', (b) => b.length), 1);
      if (i < steps) {
        await page.focus('#learn-next');
        await page.keyboard.press('Enter');
        await idle(page);
        // focus moved to the new step's title
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'learn-step-title');
      }
    }
    assert.equal(await page.isDisabled('#learn-next'), true);
    // step 1's "try it" opens the audit view
    await page.focus('#learn-step-1');
    await page.keyboard.press('Enter');
    await idle(page);
    await page.focus('.step-body .try button');
    await page.keyboard.press('Enter');
    await idle(page);
    assert.equal(await page.getAttribute('#tab-audit', 'aria-selected'), 'true');
  });
});

test('leaving a lab while it computes is harmless', async () => {
  await withApp(async ({ page }) => {
    await openView(page, 'truth-lab');
    await page.fill('#truth-n', '10000');
    await page.dispatchEvent('#truth-n', 'change');
    // a long simulation, then several quick changes (they wait, the newest is sent)
    await page.fill('#truth-reps', '3000');
    await page.dispatchEvent('#truth-reps', 'change');
    for (const m of ['5', '6', '7']) {
      await page.fill('#truth-m', m);
      await page.dispatchEvent('#truth-m', 'change');
    }
    await page.click('#tab-audit');
    await idle(page);
    await openView(page, 'truth-lab');
    assert.ok((await num(page, 'lab.truth.expected.confce.honest')) > 0);
  });
});

test('a lab computing moves nothing on the page; a field left unchanged recomputes nothing', async () => {
  await withApp(async ({ page }) => {
    await openView(page, 'truth-lab');
    const top = () => page.evaluate(() => document.querySelector('footer').getBoundingClientRect().top + window.scrollY);
    const before = await top();
    // a long simulation shows its progress bar
    await page.fill('#truth-n', '10000');
    await page.dispatchEvent('#truth-n', 'change');
    await page.fill('#truth-reps', '3000');
    await page.dispatchEvent('#truth-reps', 'change');
    await page.locator('.lab-progress').first().waitFor({ timeout: 20000 });
    assert.equal(await top(), before, 'the footer stays put while the bar is shown');
    await idle(page);
    assert.equal(await top(), before, 'and after the answer');
    // the same value committed again (a field left after Enter) sends nothing
    const metric = 'lab.truth.sim.confce.honest.mean';
    const shown = await valueOf(page, metric);
    await page.evaluate((m) => { document.querySelector(`[data-metric="${m}"]`).dataset.mark = 'kept'; }, metric);
    await page.fill('#truth-reps', '3000');
    await page.dispatchEvent('#truth-reps', 'change');
    await page.fill('#truth-n', '20000000');
    await page.dispatchEvent('#truth-n', 'change');
    await idle(page);
    assert.equal(await page.inputValue('#truth-n'), '10000', 'an out-of-range entry shows the value in force');
    assert.equal(await page.getAttribute(`[data-metric="${metric}"]`, 'data-mark'), 'kept', 'the results were not rebuilt');
    assert.equal(await valueOf(page, metric), shown);
  });
});

test('the tour and the labs fit a narrow screen in the dark theme', async () => {
  await withApp(async ({ page }) => {
    for (const v of ['learn', 'truth-lab', 'beyond-lab']) {
      await openView(page, v);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 400, `${v}: the page is ${width} px wide on a 400 px screen`);
    }
    await shot(page, 'beyond-lab-narrow-dark');
  }, { viewport: { width: 400, height: 900 }, colorScheme: 'dark' });
});
