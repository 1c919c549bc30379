#!/usr/bin/env bash
# Vector scaling, matrix scaling and Dirichlet calibration with ODIR against the
# Dirichlet calibration authors' package, dirichletcal 0.5.3, on seeded synthetic
# multiclass data (bench/peers_dirichlet.py says what is fitted).
#
# Usage: bash bench/peers_dirichlet.sh [--update-refs]
#
# Makes a throwaway virtualenv in /tmp/calibscope_peers_dirichlet (python3 -m venv;
# pip install dirichletcal==0.5.3, which brings numpy, scipy, scikit-learn and jax)
# and writes target/peers_dirichlet/refs.json: the data and the reference's fits.
# --update-refs copies it to crates/core/tests/refs/dirichlet_peers.json, which
# crates/core/tests/dirichlet_peers.rs compares against (tools/test.sh runs it with
# the core's tests); the test runs either way.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
peer_update_flag "bash bench/peers_dirichlet.sh" "$@"
venv=/tmp/calibscope_peers_dirichlet
peer_venv "$venv"
# dirichletcal 0.5.3 declares Python >= 3.12; its code runs on 3.11 (the
# machine's python3): its dependencies installed as pip resolves them for this
# Python, then the package itself past that declaration
"$venv/bin/pip" install --quiet numpy scipy scikit-learn jax jaxlib
"$venv/bin/pip" install --quiet --no-deps --ignore-requires-python dirichletcal==0.5.3
out=target/peers_dirichlet
mkdir -p "$out"
"$venv/bin/python" bench/peers_dirichlet.py "$out/refs.json"
if [ "$update" = 1 ]; then
  cp "$out/refs.json" crates/core/tests/refs/dirichlet_peers.json
  echo "copied to crates/core/tests/refs/dirichlet_peers.json"
fi
CALIBSCOPE_DIRICHLET_PEERS="$PWD/$out/refs.json" cargo test --release --locked -p calibscope-core --test core dirichlet_peers::
