// Screenshots (issue 30): every view on the bundled example, at 1440×900 and
// 390×844, in the light and the dark theme, saved as test artifacts in
// target/screens/<view>-<width>-<theme>.png (28 files, the whole page: its top
// 900 or 844 px are the first screen; CI keeps target/ after `bash tools/test.sh`). Each is checked for what a new user must see in it: the
// view's tab selected, no sideways scroll, and a picture that is not blank.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { launch, withApp, idle, repo, VIEWS } from './helpers.mjs';

const dir = path.join(repo, 'target/screens');
mkdirSync(dir, { recursive: true });

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

for (const colorScheme of ['light', 'dark']) {
  for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
    test(`every view at ${viewport.width}×${viewport.height}, ${colorScheme}`, async () => {
      await withApp(browser, async ({ page }) => {
        for (const v of VIEWS) {
          await page.click(`#tab-${v}`);
          await idle(page);
          await page.evaluate(() => window.scrollTo(0, 0));
          assert.equal(await page.getAttribute(`#tab-${v}`, 'aria-selected'), 'true');
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(width <= viewport.width, `${v}: ${width} px wide on a ${viewport.width} px screen`);
          const file = path.join(dir, `${v}-${viewport.width}-${colorScheme}.png`);
          await page.screenshot({ path: file, fullPage: true });
          assert.ok(statSync(file).size > 10000, `${file}: ${statSync(file).size} bytes, a blank picture?`);
          // in the theme asked for
          const bg = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
          const sum = bg.match(/\d+/g).slice(0, 3).map(Number).reduce((a, b) => a + b, 0);
          assert.ok(colorScheme === 'dark' ? sum < 200 : sum > 600, `${v}: background ${bg} in the ${colorScheme} theme`);
        }
      }, { viewport, colorScheme, example: true });
    });
  }
}
