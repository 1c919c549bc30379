#!/usr/bin/env bash
# Issue 9's native comparison: `calibscope audit` vs pandas/numpy + scikit-learn +
# torchmetrics + torch L-BFGS on the scale inputs, end to end, same run: one thread
# each (default), or every core each (`--threads all`).
#
# Usage: bash bench/run_scale_peers.sh [--repeat N] [--only probs|npz|npy] [--threads one|all]
#
# Generates the inputs into bench/out/scale/ (bench/gen_scale.mjs), builds the CLI,
# pip-installs the peers into the throwaway virtualenv bench/.venv (gitignored; the
# one bench/run_peers.sh uses) and runs bench/scale_peers.py.
# Results: printed, and bench/out/scale/peers_one.json / peers_all.json.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bench/.venv
out=bench/out/scale
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet numpy pandas scikit-learn torch torchmetrics
node bench/gen_scale.mjs "$out"
cargo build --quiet --release --locked -p calibscope-cli
echo "== machine"
nproc
uptime
"$venv/bin/python" bench/scale_peers.py "$out" target/release/calibscope "$@"
uptime
