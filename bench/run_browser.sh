#!/usr/bin/env bash
# Browser benchmark of the web app (issue 4), not part of the test suite:
# - a bin-count slider step (keyboard on #m-slider) with a 1M-row binary file loaded,
#   timed from the input event to the end of the frame showing the new table;
# - main-thread long tasks (PerformanceObserver 'longtask') from the drop of a
#   ~100 MB CSV to its finished audit, and drop-to-first-diagram times.
#
# Usage: bash bench/run_browser.sh [--runs N]
#
# Builds the CLI (for `calibscope synth`) and the app (`cargo xtask dist`, when dist/
# is older than the sources), generates the inputs into bench/out/browser/
# (gitignored), serves dist/ on a free port and runs bench/browser.mjs with
# playwright-core and /usr/bin/chromium (headless, the flags of tests/e2e/helpers.mjs).
# Results: printed, and bench/out/browser/result.json.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
bench_runs "bash bench/run_browser.sh" "$@"

export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
out=bench/out/browser
mkdir -p "$out"

echo "== build"
cargo build --quiet --release --locked -p calibscope-cli
bench_dist

echo "== inputs"
# `label,p` rows of ~21 bytes: 1M rows ≈ 21 MB, 4.75M rows ≈ 101 MB
[ -s "$out/binary_1m.csv" ] || target/release/calibscope synth --dist uniform --mode overconf_sqrt \
  -n 1000000 --form binary --seed 1 --out "$out/binary_1m.csv"
[ -s "$out/binary_4750k.csv" ] || target/release/calibscope synth --dist uniform --mode overconf_sqrt \
  -n 4750000 --form binary --seed 2 --out "$out/binary_4750k.csv"
ls -l "$out"/*.csv

echo "== machine"
nproc
uptime
chromium --version

bench_serve "$out"

echo "== browser benchmark ($runs runs)"
node bench/browser.mjs --binary "$out/binary_1m.csv" --big "$out/binary_4750k.csv" \
  --runs "$runs" --out "$out/result.json"
uptime
