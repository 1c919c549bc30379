#!/usr/bin/env bash
# Browser benchmark of issue 9's scale inputs, not part of the test suite:
# 1M × 10 probabilities CSV (~160 MB), 100k × 100 f32 logits .npz (40 MB) and a
# 1M × 100 f32 logits .npy pair (408 MB): drop → first diagram, peak renderer memory
# and the worker's wasm memory, slider steps and binning toggles at that size.
#
# Usage: bash bench/run_scale_browser.sh [--runs N]   (default 3; N = 1 is quicker)
#
# Generates the inputs into bench/out/scale/ (gitignored) with bench/gen_scale.mjs,
# builds the app when dist/ is older than the sources, serves dist/ and runs
# bench/scale_browser.mjs. Results: printed, and bench/out/scale/result.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_runs "bash bench/run_scale_browser.sh" "$@"

export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
out=bench/out/scale
echo "== inputs"
node bench/gen_scale.mjs "$out"
ls -l "$out"

echo "== build"
cargo build --quiet --release --locked -p xtask
bench_dist

echo "== machine"
nproc
uptime
chromium --version

bench_serve "$out"

echo "== browser benchmark ($runs runs)"
node bench/scale_browser.mjs "$out" --runs "$runs" --out "$out/result.json"
uptime
