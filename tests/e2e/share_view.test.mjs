// The "Share & export" view (issue 30): "Download everything" saves one ZIP whose
// files are byte for byte the single downloads (listed in groups, on request); a
// record dropped without its data says which files it needs (names, sizes,
// fingerprints) and how to give them; after files that are not a link's, the
// link's own files replace the warning with the confirmation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, copyFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  launch, withApp, idle, dropPaths, openShare, fixtures, artifacts, repo,
} from './helpers.mjs';

/** A test that reads the bundled example. */
const withExample = (b, fn, opts = {}) => withApp(b, fn, { ...opts, example: true });

const cli = process.env.CALIBSCOPE_CLI || path.join(repo, 'target/release/calibscope');
const RF = path.join(fixtures, 'real/breast_cancer_rf_p.csv');
const GNB = path.join(fixtures, 'real/breast_cancer_gnb_p.csv');
const dir = path.join(artifacts, 'share-view');
mkdirSync(dir, { recursive: true });

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function save(page, selector, to) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  const file = path.join(to, download.suggestedFilename());
  await download.saveAs(file);
  return file;
}

/** The members of a ZIP file as python's zipfile reads them (it checks each CRC). */
function unzip(file, to) {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  const out = execFileSync('python3', ['-c', `
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
bad = z.testzip()
assert bad is None, f"bad CRC: {bad}"
z.extractall(sys.argv[2])
print(json.dumps([[i.filename, i.compress_type] for i in z.infolist()]))
`, file, to]);
  return JSON.parse(out.toString());
}

test('"Download everything" saves one ZIP of every export, equal to the single files', async () => {
  await withApp(browser, async ({ page }) => {
    await dropPaths(page, [RF, GNB]);
    await openShare(page);
    const single = path.join(dir, 'single');
    mkdirSync(single, { recursive: true });
    const zip = await save(page, '#download-zip', dir);
    await idle(page);
    // two models: the files are named after both
    const stem = 'breast_cancer_rf_p+breast_cancer_gnb_p';
    assert.equal(path.basename(zip), `${stem}.calibscope.zip`);
    assert.match(await page.textContent('#zip-status'), /^Saved breast_cancer_rf_p\+breast_cancer_gnb_p\.calibscope\.zip: \d+ files/);
    const members = unzip(zip, path.join(dir, 'unzipped'));
    const names = members.map((m) => m[0]);
    // the single files, listed in groups on request
    await page.click('#prepare-exports');
    await idle(page);
    const groups = await page.$$eval('#export-list h4', (hs) => hs.map((h) => h.textContent));
    assert.deepEqual(groups, ['Report, summary and record', 'Tables (CSV)', 'Charts (SVG and PNG)']);
    const listed = await page.$$eval('[data-export]', (bs) => bs.map((b) => b.dataset.export));
    assert.deepEqual(names.filter((n) => !n.endsWith('.record.json')).map((n) => path.basename(n)).sort(), [...listed].sort(),
      'the ZIP holds every single file and the record');
    assert.ok(names.includes(`${stem}.record.json`));
    assert.ok(names.some((n) => n.startsWith('tables/') && n.endsWith('.csv')));
    assert.ok(names.some((n) => n.startsWith('charts/') && n.endsWith('.png')));
    // deflated (8) when that makes a member smaller, else stored (0)
    for (const [name, method] of members) {
      assert.ok(method === 0 || method === 8, `${name}: method ${method}`);
      if (name.endsWith('.report.html')) assert.equal(method, 8, `${name} is deflated`);
    }
    // byte for byte the single downloads: report, summary, a CSV, an SVG and its PNG, the record
    const csv = listed.find((n) => n.endsWith('.csv'));
    const svg = listed.find((n) => n.endsWith('.svg'));
    for (const name of [`${stem}.report.html`, `${stem}.summary.md`, csv, svg, svg.replace('.svg', '.png')]) {
      const file = await save(page, `[data-export="${name}"]`, single);
      const member = names.find((n) => path.basename(n) === name);
      assert.ok(readFileSync(file).equals(readFileSync(path.join(dir, 'unzipped', member))), `${name}: the ZIP's copy equals the single download`);
    }
    const record = await save(page, '#download-record', single);
    assert.ok(readFileSync(record).equals(readFileSync(path.join(dir, 'unzipped', `${stem}.record.json`))), 'the record too');
  });
});

test('a record dropped without its data says which files it needs and how to give them', async () => {
  const record = path.join(dir, 'rf.record.json');
  execFileSync(cli, ['audit', '--record', record, RF], { stdio: 'ignore' });
  const sha = execFileSync('sha256sum', [RF]).toString().slice(0, 8);
  await withExample(browser, async ({ page, errors }) => {
    await openShare(page);
    await dropPaths(page, [record], { target: '#verify-drop' });
    const status = await page.textContent('#verify-status');
    assert.doesNotMatch(status, /did not understand|report it/);
    assert.match(status, new RegExp(`rf\\.record\\.json holds the numbers, not the data`));
    assert.match(status, new RegExp(`breast_cancer_rf_p\\.csv \\(1\\.1 KB, sha256 ${sha}…\\)`), status);
    assert.match(status, /drop it here together with/);
    assert.equal(await page.locator('#error').count(), 0, 'no error panel');
    // given with its data, it verifies
    await dropPaths(page, [record, RF], { target: '#verify-drop' });
    await page.waitForSelector('#verify-summary');
    assert.equal(await page.getAttribute('#verify-summary', 'data-failed'), '0');
    assert.deepEqual(errors, []);
  });
});

test('after files that are not the link\'s, the link\'s files replace the warning with the confirmation', async () => {
  let link;
  await withApp(browser, async ({ page }) => {
    await dropPaths(page, [RF]);
    await page.check('#binning-mass');
    await idle(page);
    await openShare(page);
    await page.waitForTimeout(450); // the URL follows after 300 ms
    link = await page.inputValue('#share-link');
  });
  const fakeDir = path.join(dir, 'fake');
  mkdirSync(fakeDir, { recursive: true });
  const fake = path.join(fakeDir, path.basename(RF));
  copyFileSync(GNB, fake);
  const context = await browser.newContext({ viewport: { width: 1280, height: 1200 } });
  try {
    const page = await context.newPage();
    await page.goto(link);
    await page.waitForFunction(() => typeof window.calibscopeIdle === 'function', null, { timeout: 30000 });
    await idle(page);
    await dropPaths(page, [fake]);
    assert.equal(await page.locator('[data-notice=mismatch]').count(), 1, 'the wrong file is flagged');
    await dropPaths(page, [RF]);
    assert.equal(await page.locator('[data-notice=mismatch]').count(), 0, 'the warning is gone once the right file is dropped');
    assert.equal(await page.locator('[data-notice=match]').count(), 1, 'and the match is confirmed');
    // the link's settings apply to the right file
    assert.equal(await page.isChecked('#binning-mass'), true);
  } finally {
    await context.close();
  }
});
