#!/usr/bin/env bash
# Benchmarks of the ranking-flips view (issue 5), not part of the test suite:
# - natively, the worker's answers (examples/flips_worker.rs: the curve m = 1..2000
#   of 10 models × 100k samples, a ranking, the Spearman matrices);
# - in chromium, the same file dropped on the page: the curve's round trip through
#   the worker, a metric change to the frame showing the new chart, and slider steps
#   on the flips view (bench/flips_browser.mjs).
#
# Usage: bash bench/run_flips_browser.sh [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_runs "bash bench/run_flips_browser.sh" "$@"

export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
out=bench/out/flips
mkdir -p "$out"

echo "== machine"
nproc
uptime

echo "== native (and the input file)"
cargo run --quiet --release --locked --example flips_worker -- --write "$out/flips_10x100k.csv"

bench_dist

bench_serve "$out"

echo "== browser ($runs runs)"
chromium --version
node bench/flips_browser.mjs --file "$out/flips_10x100k.csv" --runs "$runs" --out "$out/result.json"
uptime
