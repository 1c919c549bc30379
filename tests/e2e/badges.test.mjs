// The overview's two badges on the bundled example (issue 27): the overconfidence
// risk says what it measures ("overconfidence risk: low/moderate/high") and is never
// the green "fine" badge; the separate calibration badge comes from mean confidence −
// accuracy (checked against the example's CSV read here) and the ECE shown, so the
// two worst-calibrated models (ECE 0.23 and 0.22, both underconfident) are shown as
// underconfident, not as fine.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, dropFiles, valueOf, shot, fixtures, foreignRequests } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Per model: mean top-label confidence and accuracy, from the CSV itself. */
function fromCsv(rel) {
  const [head, ...lines] = readFileSync(path.join(fixtures, rel), 'utf8').trim().split('\n');
  const cols = head.split(',');
  const probs = cols.map((c, i) => (c.startsWith('p_') ? i : -1)).filter((i) => i >= 0);
  const models = new Map();
  for (const line of lines) {
    const cells = line.split(',');
    const p = probs.map((i) => Number(cells[i]));
    let top = 0;
    for (let k = 1; k < p.length; k++) if (p[k] > p[top]) top = k;
    const m = models.get(cells[0]) ?? { conf: 0, correct: 0, n: 0 };
    m.conf += p[top];
    m.correct += top === Number(cells[cols.indexOf('label')]) ? 1 : 0;
    m.n += 1;
    models.set(cells[0], m);
  }
  return new Map([...models].map(([name, m]) => [name, { conf: m.conf / m.n, acc: m.correct / m.n }]));
}

/** The badge after the number `metric` in its cell: {text, cls}. */
async function badge(page, metric) {
  const b = page.locator(`[data-metric="${metric}"] + span.badge`);
  assert.equal(await b.count(), 1, `a badge beside ${metric}`);
  return { text: await b.getAttribute('data-badge'), cls: await b.getAttribute('class') };
}

async function checkOverview(page) {
  const csv = fromCsv('multi/digits_zoo_probs.csv');
  assert.equal(csv.size, 10);
  const rows = [];
  for (const [name, { conf, acc }] of csv) {
    const p = `models.${name}`;
    const gap = Number(await valueOf(page, `${p}.derived.conf_minus_acc`));
    assert.ok(Math.abs(gap - (conf - acc)) < 1e-12, `${name}: conf − acc ${gap} vs ${conf - acc} from the CSV`);
    const ece = Number(await valueOf(page, `${p}.readings.confidence.width.15.ece`));
    const risk = await badge(page, `${p}.beyond_ece.p_risk`);
    const cal = await badge(page, `${p}.derived.conf_minus_acc`);
    // the risk badge names what it measures and is never the green "fine" badge
    assert.match(risk.text, /^overconfidence risk: (low|moderate|high) \(P_risk/, `${name}: ${risk.text}`);
    assert.doesNotMatch(risk.cls, /\bok\b/, `${name}: the risk badge is not green`);
    // the calibration badge follows its stated rule on the numbers shown
    if (Math.abs(gap) >= 0.02) {
      const points = Number(await valueOf(page, `${p}.derived.conf_minus_acc_points`));
      assert.ok(Math.abs(points - Math.abs(gap) * 100) < 1e-9, `${name}: the badge's points ${points}`);
    }
    if (gap <= -0.02) assert.equal(cal.text, `underconfident by ${Math.round(-gap * 100)} points`);
    else if (gap >= 0.02) assert.equal(cal.text, `overconfident by ${Math.round(gap * 100)} points`);
    else if (ece < 0.05) assert.equal(cal.text, 'close to calibrated');
    else assert.match(cal.text, /^mixed/);
    assert.equal(/\bok\b/.test(cal.cls), cal.text === 'close to calibrated', `${name}: green only when close`);
    rows.push({ name, ece, gap, cal, risk });
  }
  // the two worst-calibrated models are underconfident and not shown as fine
  rows.sort((a, b) => b.ece - a.ece);
  const worst = rows.slice(0, 2);
  assert.deepEqual(worst.map((r) => r.name).sort(), ['logreg_C0.01', 'rf']);
  for (const r of worst) {
    assert.ok(r.ece > 0.2, `${r.name}: ECE ${r.ece}`);
    assert.match(r.cal.text, /^underconfident by 2[0-9] points$/, `${r.name}: ${r.cal.text}`);
    assert.doesNotMatch(r.cal.cls, /\bok\b/);
    assert.equal(r.risk.text, 'overconfidence risk: low (P_risk < 0.5)');
  }
  // and no text on the page calls them fine
  assert.equal(await page.getByText('no sign of overconfidence').count(), 0);
}

test('the badges of the bundled example, at start and after dropping it', async () => {
  const app = await openApp(browser, { example: true });
  try {
    const { page } = app;
    await checkOverview(page);
    await dropFiles(page, ['multi/digits_zoo_probs.csv']);
    assert.equal(await page.locator('table.metrics tbody tr').count(), 10);
    await checkOverview(page);
    await shot(page, 'overview-badges');
    assert.deepEqual(app.errors, []);
    assert.deepEqual(foreignRequests(app.requests), []);
  } finally {
    await app.context.close();
  }
});
