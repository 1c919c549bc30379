// Every file of calibscope-io's bad-input corpus (crates/io/tests/corpus/bad), dropped
// on the page as a person would: the page shows the error code the corpus expects,
// with its message, and stays usable (a good file afterwards is audited).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { launch, openApp, dropPaths, dropFiles, valueOf, repo, foreignRequests } from './helpers.mjs';

const corpus = path.join(repo, 'crates/io/tests/corpus/bad');
const cases = readdirSync(corpus)
  .filter((f) => f.endsWith('.expected'))
  .map((f) => {
    const text = readFileSync(path.join(corpus, f), 'utf8');
    const first = text.split('\n')[0];
    return { file: path.join(corpus, f.replace(/\.expected$/, '')), code: first.split(/[ |]/)[0] };
  });

test(`every bad-corpus file (${cases.length}) shows its expected error and the app stays usable`, async () => {
  assert.ok(cases.length >= 40, `corpus has ${cases.length} files`);
  const browser = await launch();
  try {
    const { page, requests, context } = await openApp(browser);
    const wrong = [];
    for (const { file, code } of cases) {
      await dropPaths(page, [file]);
      const error = page.locator('#error');
      const shown = (await error.count()) ? await error.getAttribute('data-error-code') : null;
      const text = (await error.count()) ? await error.innerText() : '';
      if (shown !== code || !text.trim()) wrong.push(`${path.basename(file)}: expected ${code}, page shows ${shown}`);
    }
    assert.deepEqual(wrong, [], wrong.join('\n'));
    await dropFiles(page, ['real/breast_cancer_rf_p.csv']);
    assert.equal(await page.locator('#error').count(), 0);
    assert.equal(await valueOf(page, 'input.n'), '171');
    assert.deepEqual(foreignRequests(requests), []);
    await context.close();
  } finally {
    await browser.close();
  }
});
