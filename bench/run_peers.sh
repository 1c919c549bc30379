#!/usr/bin/env bash
# calibscope's full audit vs its Python peers (numpy, scikit-learn, torchmetrics on
# CPU torch), on the same inputs, one thread each, side by side.
#
# Usage: bash bench/run_peers.sh [--no-torch] [--repeat N]
#
# Creates a throwaway virtualenv in bench/.venv (gitignored) and pip-installs the
# peers from PyPI into it; torch from PyPI is large (the default Linux wheel pulls
# the CUDA runtime packages, a few GB), so --no-torch skips torch and torchmetrics
# (their calibration errors are then computed by equivalent numpy code, and the
# table says so). Inputs and results go to bench/out (gitignored):
#   bench/peers.py generate  -> bench/out/*.npy (1M binary; 100k x 100 float32 logits)
#   bench/peers.py time      -> bench/out/peers.json
#   examples/peers_audit.rs  -> bench/out/calibscope.json (reads the same .npy files)
#   bench/peers.py report    -> the table
set -euo pipefail
cd "$(dirname "$0")/.."

torch=1
repeat=3
while [ $# -gt 0 ]; do
  case "$1" in
    --no-torch) torch=0 ;;
    --repeat) repeat="$2"; shift ;;
    *) echo "usage: bash bench/run_peers.sh [--no-torch] [--repeat N]" >&2; exit 2 ;;
  esac
  shift
done

venv=bench/.venv
out=bench/out
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet numpy scikit-learn
if [ "$torch" = 1 ]; then
  "$venv/bin/pip" install --quiet torch torchmetrics
fi

# one thread everywhere: calibscope's audit is single-threaded
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

echo "== machine"
uptime
echo "== inputs"
"$venv/bin/python" bench/peers.py generate "$out"
echo "== peers"
if [ "$torch" = 1 ]; then
  "$venv/bin/python" bench/peers.py time "$out" --repeat "$repeat"
else
  "$venv/bin/python" bench/peers.py time "$out" --repeat "$repeat" --no-torch
fi
echo "== calibscope"
cargo run --quiet --release -p calibscope-core --example peers_audit -- "$out" 5
echo "== comparison"
"$venv/bin/python" bench/peers.py report "$out"
uptime
