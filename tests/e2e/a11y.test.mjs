// Accessibility (issue 30): axe-core (pinned in package.json, installed by `npm ci`)
// audits every view in both themes, on a desktop and a phone screen; no violation
// of impact "serious" or "critical" is allowed. The page's CSP forbids inline
// scripts, so the audit's context bypasses the CSP to inject axe.min.js (the app
// itself runs under its CSP in every other test).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { existsSync } from 'node:fs';
import { launch, idle, baseUrl, repo, VIEWS } from './helpers.mjs';

const AXE = path.join(repo, 'node_modules/axe-core/axe.min.js');

let browser;
before(async () => {
  assert.ok(existsSync(AXE), `${AXE} not found: run npm ci`);
  browser = await launch();
});
after(async () => { await browser?.close(); });

/** The serious and critical violations of the page as shown, one line each. */
async function audit(page) {
  const result = await page.evaluate(async () => window.axe.run(document, {
    resultTypes: ['violations'],
  }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.slice(0, 5).map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary.split('\n').slice(0, 2).join(' ')}`));
}

for (const colorScheme of ['light', 'dark']) {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    test(`every view passes axe-core with no serious or critical violation (${colorScheme}, ${viewport.width} px)`, async () => {
      const context = await browser.newContext({ viewport, colorScheme, bypassCSP: true });
      try {
        const page = await context.newPage();
        await page.goto(baseUrl + '/');
        await page.waitForFunction(() => typeof window.calibscopeIdle === 'function', null, { timeout: 30000 });
        await idle(page);
        await page.addScriptTag({ path: AXE });
        assert.equal(await page.evaluate(() => typeof window.axe?.run), 'function', 'axe-core is in the page');
        const found = [];
        for (const v of VIEWS) {
          await page.click(`#tab-${v}`);
          await idle(page);
          for (const line of await audit(page)) found.push(`${v}: ${line}`);
        }
        assert.deepEqual(found, []);
      } finally {
        await context.close();
      }
    });
  }
}
