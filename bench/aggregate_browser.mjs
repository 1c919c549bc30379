// Browser benchmark of issue 31's target "the aggregate of 100M rows opens in the
// browser in ≤ 1 s": an aggregate's size is bounded by its cells, not its rows, so
// the bench builds one whose every cell is filled (10 binary models × ROWS rows of
// forecasts spread over [0, 1]: each model's confidence reading fills its 32,768
// cells of [0.5, 1] and each class reading its 65,536 cells), as large as the
// aggregate of 100M rows or of any larger count; then times drop → first diagram
// in Chromium (bench/browser.mjs's `dropAndTime`: the reliability diagram and table
// drawn, one frame later), for the JSON form and the engine's CSV table.
// Not part of the test suite.
//
// Usage: CALIBSCOPE_URL=http://127.0.0.1:PORT CALIBSCOPE_CLI=target/release/calibscope \
//          node bench/aggregate_browser.mjs DIR [--rows N] [--runs R]
// (DIR receives the generated CSVs and aggregates; N default 1,000,000 per model.)
import { existsSync, mkdirSync, statSync, createWriteStream } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { launch, openApp } from '../tests/e2e/helpers.mjs';
import { dropAndTime, r1 } from './browser.mjs';

const MODELS = 10;

function args() {
  const a = { rows: 1_000_000, runs: 3 };
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i++) {
    if (v[i] === '--rows') a.rows = Number(v[++i]);
    else if (v[i] === '--runs') a.runs = Number(v[++i]);
    else if (!a.dir) a.dir = v[i];
    else throw new Error(`unknown argument ${v[i]}`);
  }
  if (!a.dir) throw new Error('usage: node bench/aggregate_browser.mjs DIR [--rows N] [--runs R]');
  return a;
}

/** Writes model `j`'s `label,p` rows (xorshift-seeded; each model miscalibrated its own way). */
async function writeModel(file, rows, j) {
  let s = BigInt(0x9e3779b97f4a7c15n + BigInt(j) * 0x632be59bd9b4e019n) & 0xffffffffffffffffn;
  const next = () => {
    s ^= (s << 13n) & 0xffffffffffffffffn; s ^= s >> 7n; s ^= (s << 17n) & 0xffffffffffffffffn;
    return Number(s >> 11n) / 2 ** 53;
  };
  const out = createWriteStream(file);
  out.write('label,p\n');
  const power = 0.7 + 0.06 * j;
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    const p = next();
    const y = next() < p ** power ? 1 : 0;
    chunk += `${y},${p}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
      chunk = '';
    }
  }
  out.write(chunk);
  await new Promise((r) => out.end(r));
}

const a = args();
const cli = process.env.CALIBSCOPE_CLI || 'target/release/calibscope';
const shards = path.join(a.dir, `models_${a.rows}`);
mkdirSync(shards, { recursive: true });
for (let j = 0; j < MODELS; j++) {
  const f = path.join(shards, `model_${String(j).padStart(2, '0')}.csv`);
  if (!existsSync(f)) await writeModel(f, a.rows, j);
}
const forms = [
  ['json', path.join(a.dir, `aggregate_${a.rows}.json`), []],
  ['csv', path.join(a.dir, `aggregate_${a.rows}.csv`), ['--csv']],
];
for (const [, out, flags] of forms) {
  if (!existsSync(out)) {
    const t = performance.now();
    execFileSync(cli, ['aggregate', shards, ...flags, '--out', out]);
    console.log(`calibscope aggregate ${shards} ${flags.join(' ')}: ${r1((performance.now() - t) / 1000)} s`);
  }
}
const browser = await launch();
const results = {};
for (const [form, file] of forms) {
  const times = [];
  for (let r = 0; r < a.runs; r++) {
    const { page, context } = await openApp(browser);
    const t = await dropAndTime(page, file);
    const cells = await page.$$eval('[data-metric]', (els) => els.length);
    times.push(t.dropToFirstDiagram);
    console.log(`${form} (${(statSync(file).size / 1e6).toFixed(1)} MB): drop → first diagram ${r1(t.dropToFirstDiagram)} ms (read ${r1(t.dropToRead)} ms, DOM ${r1(t.dropToDom)} ms, longest frame gap ${r1(t.maxFrameGap)} ms, ${cells} numbers)`);
    await context.close();
  }
  times.sort((x, y) => x - y);
  results[form] = { bytes: statSync(file).size, median_ms: times[Math.floor(times.length / 2)], best_ms: times[0] };
}
console.log(JSON.stringify(results));
await browser.close();
