// Writes the scale inputs of issue 9 (not committed; bench/out/ is gitignored):
//   probs_1m_x10.csv             1M rows `label,p_0..p_9` (softmax of N(0, 1.5²)
//                                logits, the true class +2.5 in 70 % of the rows),
//                                12 significant digits: ~150 MB
//   logits_100k_x100.npz         numpy's `np.savez` layout (stored zip): `labels`
//                                (int64, 100k) + `logits` (float32, 100k × 100): 40 MB
//   logits_1m_x100.labels.npy    a pair of plain .npy files as people save them:
//   logits_1m_x100.logits.npy    int64 labels + float32 1M × 100 logits: 400 MB
// Logits: N(0, 3²) noise, true class +6 in 80 % of the rows (the generator of
// bench/out/browser/logits_100k_x_100.csv). Deterministic (xorshift128+ seeds).
//
// Usage: node bench/gen_scale.mjs OUT_DIR [--only probs|npz|npy]
import { closeSync, existsSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';

/** xorshift128+ uniform doubles in [0, 1) and standard normals (Box–Muller). */
function rng(seed) {
  let s0 = BigInt(seed) * 0x9e3779b97f4a7c15n & 0xffffffffffffffffn | 1n;
  let s1 = (s0 ^ 0x6a09e667f3bcc909n) * 0xbf58476d1ce4e5b9n & 0xffffffffffffffffn | 1n;
  // BigInt is slow; draw 32-bit halves with a plain xorshift32 seeded from it
  let x = Number(s0 & 0xffffffffn) || 1;
  let y = Number(s1 & 0xffffffffn) || 7;
  const u32 = () => {
    let t = x ^ (x << 11);
    x = y;
    y = (y ^ (y >>> 19)) ^ (t ^ (t >>> 8));
    return y >>> 0;
  };
  const uniform = () => (u32() * 2 ** -32 + u32()) * 2 ** -32;
  let spare = null;
  const normal = () => {
    if (spare !== null) { const v = spare; spare = null; return v; }
    const u = uniform() || 2 ** -64;
    const r = Math.sqrt(-2 * Math.log(u));
    const a = 2 * Math.PI * uniform();
    spare = r * Math.sin(a);
    return r * Math.cos(a);
  };
  return { uniform, normal, below: (k) => Math.floor(uniform() * k) };
}

/** Writes through a temporary file, renamed when complete. */
function writer(file) {
  const tmp = `${file}.part`;
  const fd = openSync(tmp, 'w');
  return {
    write: (buf) => { writeSync(fd, buf); },
    close: () => { closeSync(fd); renameSync(tmp, file); },
  };
}

/** The .npy v1 header of a C-order array. */
function npyHeader(descr, shape) {
  const dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const unpadded = 10 + dict.length + 1;
  const pad = (64 - (unpadded % 64)) % 64;
  const text = dict + ' '.repeat(pad) + '\n';
  const h = Buffer.alloc(10);
  h.write('\x93NUMPY', 0, 'latin1');
  h[6] = 1; h[7] = 0;
  h.writeUInt16LE(text.length, 8);
  return Buffer.concat([h, Buffer.from(text, 'latin1')]);
}

/** Rows of (label, logits) in chunks of `chunk` rows: `f(labels: BigInt64Array, z: Float32Array)`. */
function logitRows(n, k, seed, chunk, f) {
  const r = rng(seed);
  for (let at = 0; at < n; at += chunk) {
    const rows = Math.min(chunk, n - at);
    const labels = new BigInt64Array(rows);
    const z = new Float32Array(rows * k);
    for (let i = 0; i < rows; i++) {
      const y = r.below(k);
      labels[i] = BigInt(y);
      for (let j = 0; j < k; j++) z[i * k + j] = 3 * r.normal();
      if (r.uniform() < 0.8) z[i * k + y] += 6;
    }
    f(labels, z);
  }
}

function probsCsv(file, n = 1_000_000, k = 10) {
  const w = writer(file);
  const r = rng(10);
  w.write(`label,${Array.from({ length: k }, (_, j) => `p_${j}`).join(',')}\n`);
  const z = new Float64Array(k);
  let lines = [];
  for (let i = 0; i < n; i++) {
    const y = r.below(k);
    let max = -Infinity;
    for (let j = 0; j < k; j++) {
      z[j] = 1.5 * r.normal() + (j === y && r.uniform() < 0.7 ? 2.5 : 0);
      max = Math.max(max, z[j]);
    }
    let s = 0;
    for (let j = 0; j < k; j++) { z[j] = Math.exp(z[j] - max); s += z[j]; }
    let line = String(y);
    for (let j = 0; j < k; j++) line += `,${Number((z[j] / s).toPrecision(12))}`;
    lines.push(line);
    if (lines.length === 10000) { w.write(`${lines.join('\n')}\n`); lines = []; }
  }
  if (lines.length) w.write(`${lines.join('\n')}\n`);
  w.close();
}

/** numpy's `np.savez` (stored members `labels.npy`, `logits.npy`). */
function npz(file, n = 100_000, k = 100) {
  const labels = [];
  const logits = [];
  logitRows(n, k, 20, 10000, (l, z) => {
    labels.push(Buffer.from(l.buffer));
    logits.push(Buffer.from(z.buffer));
  });
  const members = [
    ['labels.npy', Buffer.concat([npyHeader('<i8', [n]), ...labels])],
    ['logits.npy', Buffer.concat([npyHeader('<f4', [n, k]), ...logits])],
  ];
  const w = writer(file);
  const central = [];
  let offset = 0;
  for (const [name, data] of members) {
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    w.write(local); w.write(Buffer.from(name)); w.write(data);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4); c.writeUInt16LE(20, 6);
    c.writeUInt32LE(crc, 16);
    c.writeUInt32LE(data.length, 20);
    c.writeUInt32LE(data.length, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(Buffer.concat([c, Buffer.from(name)]));
    offset += 30 + name.length + data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8); end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  w.write(cd); w.write(end);
  w.close();
}

function npyPair(stem, n = 1_000_000, k = 100) {
  const lw = writer(`${stem}.labels.npy`);
  const zw = writer(`${stem}.logits.npy`);
  lw.write(npyHeader('<i8', [n]));
  zw.write(npyHeader('<f4', [n, k]));
  logitRows(n, k, 30, 10000, (l, z) => { lw.write(Buffer.from(l.buffer)); zw.write(Buffer.from(z.buffer)); });
  lw.close(); zw.close();
}

const out = process.argv[2];
if (!out) { console.error('usage: node bench/gen_scale.mjs OUT_DIR [--only probs|npz|npy]'); process.exit(2); }
const only = process.argv[3] === '--only' ? process.argv[4] : null;
mkdirSync(out, { recursive: true });
const want = (what, file) => (!only || only === what) && !existsSync(file);
const p = (f) => path.join(out, f);
if (want('probs', p('probs_1m_x10.csv'))) probsCsv(p('probs_1m_x10.csv'));
if (want('npz', p('logits_100k_x100.npz'))) npz(p('logits_100k_x100.npz'));
if (want('npy', p('logits_1m_x100.logits.npy'))) npyPair(p('logits_1m_x100'));
