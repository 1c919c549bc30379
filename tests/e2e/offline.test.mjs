// Offline (issue 8): after one visit the service worker has cached the built app;
// with the network off the page reloads, reads a dropped file and shows its numbers,
// and no request leaves the origin during the whole session. A new build (a changed
// precache list) is announced with "update available".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import path from 'node:path';
import { launch, idle, dropPaths, valueOf, expected, foreignRequests, baseUrl, fixtures, artifacts, repo } from './helpers.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

/** Waits for the app after a load or reload. */
async function ready(page) {
  await page.waitForFunction(() => typeof window.calibscopeIdle === 'function', null, { timeout: 30000 });
  await idle(page);
}

async function visit(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await ready(page);
  await page.evaluate(() => window.calibscopeOfflineReady());
  return { page, errors };
}

test('after one visit the app loads and works offline, and nothing leaves the origin', async () => {
  const context = await browser.newContext();
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  const { page, errors } = await visit(context, baseUrl + '/');
  const list = JSON.parse(readFileSync(path.join(repo, 'dist/precache.json'), 'utf8'));
  assert.match(list.cache, /^calibscope-[0-9a-f]{16}$/);
  const cached = await page.evaluate(async (name) => (await (await caches.open(name)).keys()).length, list.cache);
  assert.ok(cached >= list.files.length, `${cached} cached of ${list.files.length}`);
  await context.setOffline(true);
  await page.reload();
  await ready(page);
  assert.ok(await page.evaluate(() => navigator.serviceWorker.controller !== null), 'served by the service worker');
  await dropPaths(page, [path.join(fixtures, 'real/breast_cancer_rf_p.csv')]);
  const exp = expected('real/breast_cancer_rf_p.expected.json');
  const acc = Number(await valueOf(page, 'binning_free.accuracy'));
  assert.ok(Math.abs(acc - exp.binning_free.accuracy) < 1e-12, `accuracy ${acc}`);
  assert.ok(await page.locator('#chart svg').count() > 0, 'the diagram is drawn');
  assert.deepEqual(foreignRequests(requests), [], 'no request outside the origin');
  assert.deepEqual(errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch/.test(e)), []);
  await context.close();
});

test('a new build is announced as an update', async () => {
  const dir = path.join(artifacts, 'sw-dist');
  rmSync(dir, { recursive: true, force: true });
  cpSync(path.join(repo, 'dist'), dir, { recursive: true });
  const portFile = path.join(artifacts, 'sw-port');
  rmSync(portFile, { force: true });
  const server = spawn(path.join(repo, 'target/release/xtask'), ['serve', '--port', '0', '--port-file', portFile, '--dir', dir], { stdio: 'ignore' });
  try {
    const port = () => (existsSync(portFile) ? readFileSync(portFile, 'utf8').trim() : '');
    for (let i = 0; i < 200 && !/^\d+$/.test(port()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(port(), /^\d+$/, 'the second server writes its port');
    const url = `http://127.0.0.1:${port()}/`;
    const context = await browser.newContext();
    const first = await visit(context, url);
    // a page served from the cache finds nothing new
    await first.page.reload();
    await ready(first.page);
    await first.page.waitForTimeout(300);
    assert.equal(await first.page.locator('#update-available').count(), 0);
    // a new build: another precache list
    const listFile = path.join(dir, 'precache.json');
    const list = JSON.parse(readFileSync(listFile, 'utf8'));
    list.cache = 'calibscope-0000000000000001';
    writeFileSync(listFile, JSON.stringify(list));
    await first.page.reload();
    await first.page.waitForSelector('#update-available', { timeout: 20000 });
    assert.match(await first.page.textContent('#update-available'), /update of calibscope is available/);
    const names = await first.page.evaluate(() => caches.keys());
    assert.ok(names.includes('calibscope-0000000000000001'), names.join(','));
    await context.close();
  } finally {
    server.kill();
  }
});
