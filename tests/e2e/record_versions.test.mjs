// Records across versions of the metric contract (issue 27): the golden records of
// crates/audit/tests/golden, dropped with their data on "Verify a record". A record
// of this contract verifies with every value identical; a record written before
// contract v3 verifies too, each P_risk moved by the definition change listed with
// its sentence ("definition changed in contract v3 …: recorded …, now 0"), none ✗.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, dropPaths, foreignRequests, repo, shot, openShare } from './helpers.mjs';

const golden = path.join(repo, 'crates/audit/tests/golden');
const NAMES = ['breast_cancer_logreg_logit', 'digits_zoo3_head60_probs'];
// Not verified in full here: the multiclass golden record. A record the native CLI
// writes for a multiclass file does not verify in the browser (measured on this
// record, digits_knn_probs, digits_logreg_C100 and edge_absent_class_logits; not on
// digits_mlp_logits): the temperature fit ends at another τ (0.27451454109936824
// natively, 0.2745145442796678 in wasm for this one) and a Platt parameter moves by
// ~6e-14 relative, because exp/ln differ in the last bit between the platforms and
// the fits' comparisons amplify that; the values of those fits then differ. The test
// below pins that the differences stay inside those two fits.
const MULTICLASS = 'digits_rf_probs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** The P_risk values of a CSR at most 1 that are not 0 (contract v3 moved them). */
function moved(v, at, out) {
  if (Array.isArray(v)) v.forEach((x, i) => moved(x, `${at}.${i}`, out));
  else if (v && typeof v === 'object') {
    if (typeof v.csr === 'number' && typeof v.p_risk === 'number' && v.csr <= 1 && v.p_risk !== 0) {
      out.push(`${at}.p_risk`);
    }
    for (const [k, x] of Object.entries(v)) moved(x, `${at}.${k}`, out);
  }
  return out;
}

async function verify(page, record, data) {
  if (!(await page.$('#verify-drop'))) await openShare(page); // "Verify a record" is on the Share & export view
  await dropPaths(page, [record, data], { target: '#verify-drop' });
  await page.waitForSelector('#verify-summary');
  const s = page.locator('#verify-summary');
  const r = {
    compared: Number(await s.getAttribute('data-compared')),
    failed: Number(await s.getAttribute('data-failed')),
    definition: Number(await s.getAttribute('data-definition')),
    text: await s.textContent(),
  };
  return r;
}

test('golden records verify in the app across contract versions', async () => {
  const app = await openApp(browser, { example: true });
  const { page } = app;
  try {
    for (const name of NAMES) {
      const data = path.join(golden, `${name}.csv`);
      const now = await verify(page, path.join(golden, `${name}.record.json`), data);
      assert.ok(now.compared > 1000, `${name}: ${now.text}`);
      assert.equal(now.failed, 0, now.text);
      assert.equal(now.definition, 0, now.text);
      assert.match(now.text, /metric contract v3\)/);

      const oldFile = path.join(golden, `${name}.contract2.record.json`);
      const expected = moved(JSON.parse(readFileSync(oldFile, 'utf8')).audits, 'audits', []).sort();
      assert.ok(expected.length > 0);
      const old = await verify(page, oldFile, data);
      assert.equal(old.failed, 0, old.text);
      assert.equal(old.definition, expected.length, old.text);
      assert.match(old.text, /✓ Every value verifies/);
      assert.match(old.text, new RegExp(`${expected.length} of them moved only because a definition of the metric contract changed`));
      assert.match(old.text, /metric contract v2\)/);
      const rows = page.locator('#verify-checks tr[data-status="definition"]');
      const paths = (await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.path))).sort();
      assert.deepEqual(paths, expected);
      for (let i = 0; i < expected.length; i += 1) {
        const row = rows.nth(i);
        const recorded = Number(await row.locator('td[data-recorded]').getAttribute('data-recorded'));
        assert.equal(Number(await row.locator('td[data-recomputed]').getAttribute('data-recomputed')), 0);
        assert.equal(
          (await row.locator('td.mark').textContent()).trim(),
          `✓ definition changed in contract v3 (P_risk is 0 when CSR ≤ 1): recorded ${recorded}, now 0`,
        );
      }
      // no difference, so the definition changes come first
      const first = await page.locator('#verify-checks tbody tr').first().getAttribute('data-status');
      assert.equal(first, 'definition');
      if (name === NAMES[0]) await shot(page, 'record-contract2');
    }
    const r = await verify(page, path.join(golden, `${MULTICLASS}.record.json`), path.join(golden, `${MULTICLASS}.csv`));
    assert.ok(r.compared > 1000, r.text);
    const differing = await page.locator('#verify-checks tr.bad').evaluateAll((trs) => trs.map((tr) => tr.dataset.path));
    assert.equal(differing.length, r.failed);
    const outside = differing.filter((p) => !/^audits\.0\.recalibration\.(temperature|platt)\./.test(p));
    assert.deepEqual(outside, [], `${MULTICLASS}: differences outside the temperature and Platt fits`);
    assert.deepEqual(foreignRequests(app.requests), [], 'no request outside the origin');
    assert.deepEqual(app.errors, [], 'no page error');
  } finally {
    await app.context.close();
  }
});
