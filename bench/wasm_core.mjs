// The core compiled to wasm (opt-level 3, simd128, as in the worker) and timed in
// Node by the process's CPU time (user + system), so that the number holds on a
// loaded machine; min over the runs, after a warm-up call (V8 tiers up).
//
// Usage: node bench/wasm_core.mjs [--runs N] [--no-build] [--detail] [--parse] [--audit FILE...]
// Builds bench/wasm_core (a cdylib around calibscope-core/-io/-audit) into
// target/wasm-core. Without --audit: the temperature fit on the calibration half
// (every other row) of generated data, 100k x 100 f32 logits and 1M binary logits
// (crates/core/benches/temperature.rs's generators), with screening on and off.
// With --audit FILE...: `calibscope audit FILE... --json --bins 15
// --no-recalibration`'s work after reading the files (parse, assemble, audit, JSON),
// to compare with the native CLI (`perf stat -e task-clock`); with --parse before
// --audit, the parse alone.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const runs = Number(args[args.indexOf('--runs') + 1] || 5) || 5;
if (!args.includes('--no-build')) {
  execFileSync('cargo', ['build', '--release', '--target', 'wasm32-unknown-unknown',
    '--manifest-path', 'bench/wasm_core/Cargo.toml', '--target-dir', 'target/wasm-core',
    '--config', 'target.wasm32-unknown-unknown.rustflags=["-C", "target-feature=+simd128"]'],
  { cwd: root, stdio: 'inherit' });
}
const file = path.join(root, 'target/wasm-core/wasm32-unknown-unknown/release/calibscope_wasm_core_bench.wasm');
const { instance } = await WebAssembly.instantiate(readFileSync(file), {});
const w = instance.exports;

function cpuMs(f) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const v = f();
  const c = process.cpuUsage(c0);
  return { v, cpu: (c.user + c.system) / 1000, wall: performance.now() - t0 };
}

function measure(name, f) {
  f(); // warm-up
  const xs = [];
  for (let i = 0; i < runs; i++) xs.push(cpuMs(f));
  const cpu = Math.min(...xs.map((x) => x.cpu));
  const wall = Math.min(...xs.map((x) => x.wall));
  console.log(`${name.padEnd(44)} CPU ${cpu.toFixed(1).padStart(7)} ms   wall ${wall.toFixed(1).padStart(7)} ms   -> ${xs[0].v}`);
}

const at = args.indexOf('--audit');
if (at >= 0) {
  const files = args.slice(at + 1).filter((a) => !a.startsWith('--'));
  for (const f of files) {
    const data = readFileSync(f);
    const name = Buffer.from(path.basename(f));
    const np = w.alloc(name.length);
    new Uint8Array(w.memory.buffer, np, name.length).set(name);
    const dp = w.alloc(data.length);
    new Uint8Array(w.memory.buffer, dp, data.length).set(data);
    w.add_file(np, name.length, dp, data.length);
  }
  if (args.includes('--parse')) measure(`parse ${files.map((f) => path.basename(f)).join(' + ')}`, () => w.parse());
  else measure(`audit ${files.map((f) => path.basename(f)).join(' + ')}`, () => w.audit());
  process.exit(0);
}
w.setup_multiclass(100_000, 100);
w.setup_binary(1_000_000);
measure('multiclass 100k x 100, half: fit', () => w.fit_multiclass(1));
measure('multiclass 100k x 100, half: fit, no screening', () => w.fit_multiclass(0));
if (args.includes('--detail')) {
  measure('multiclass: direct pass, two taus', () => w.nll2_multiclass());
  measure('multiclass: fit, screening, no expansion', () => w.fit_multiclass(3));
  measure('multiclass: fit, no screening, no expansion', () => w.fit_multiclass(2));
}
measure('binary 1M, half: fit', () => w.fit_binary(1));
measure('binary 1M, half: fit, no screening', () => w.fit_binary(0));
