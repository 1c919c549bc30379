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
    const file = path.join(corpus, f.replace(/\.expected$/, ''));
    // the page does not read Parquet or Arrow IPC: it refuses them whole and names
    // the command-line tool (what calibscope-io says without its `columnar` reader)
    const head = readFileSync(file).subarray(0, 6).toString('latin1');
    if (head.startsWith('PAR1') || head === 'ARROW1' || head.startsWith('\xff\xff\xff\xff')) return { file, code: 'columnar_unsupported', says: 'calibscope command-line tool' };
    return { file, code: first.split(/[ |]/)[0] };
  });

test(`every bad-corpus file (${cases.length}) shows its expected error and the app stays usable`, async () => {
  assert.ok(cases.length >= 40, `corpus has ${cases.length} files`);
  const browser = await launch();
  try {
    const { page, requests, context } = await openApp(browser);
    const wrong = [];
    for (const { file, code, says } of cases) {
      await dropPaths(page, [file]);
      const error = page.locator('#error');
      const shown = (await error.count()) ? await error.getAttribute('data-error-code') : null;
      const text = (await error.count()) ? await error.innerText() : '';
      if (shown !== code || !text.trim()) wrong.push(`${path.basename(file)}: expected ${code}, page shows ${shown}`);
      if (says && !text.includes(says)) wrong.push(`${path.basename(file)}: the message does not say "${says}": ${text}`);
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
