#!/usr/bin/env bash
# Issue 3's benchmarks, side by side in one run: calibscope-io vs pandas.read_csv on a
# 100 MB numeric CSV and a 1M-row binary CSV, and `calibscope audit` end to end vs
# pandas + scikit-learn (+ torchmetrics when installed in the venv) on the 1M-row CSV.
# Usage: bash bench/run_io_peers.sh [--repeat N [--rounds R]]
# Makes a throwaway virtualenv in bench/.venv (gitignored); inputs in bench/out.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat="${2:-3}"
rounds="${4:-1}"
venv=bench/.venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet numpy pandas scikit-learn
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
# (--example restricts the build to the example: the CLI binary is built separately)
cargo build --release --locked -p calibscope-cli
cargo build --release --locked -p calibscope-io --example one
uptime
"$venv/bin/python" bench/io_peers.py generate bench/out
"$venv/bin/python" bench/io_peers.py run bench/out target/release/calibscope target/release/examples/one --repeat "$repeat" --rounds "$rounds"
