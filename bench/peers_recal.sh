#!/usr/bin/env bash
# The recalibration methods against their authors' packages (beta calibration:
# betacal 1.1.0; Venn-Abers: venn-abers 1.5.4), on seeded synthetic data.
#
# Usage: bash bench/peers_recal.sh [--update-refs]
#
# Makes a throwaway virtualenv in /tmp/calibscope_peers_recal (python3 -m venv; pip
# install betacal==1.1.0 venn-abers==1.5.4 scikit-learn numpy) and writes target/peers_recal/refs.json:
# the data and the peers' fits. --update-refs copies it to
# crates/core/tests/refs/recal_peers.json, which crates/core/tests/recal_peers.rs
# compares against; the test runs either way.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib.sh
peer_update_flag "bash bench/peers_recal.sh" "$@"
venv=/tmp/calibscope_peers_recal
peer_venv "$venv"
"$venv/bin/pip" install --quiet betacal==1.1.0 venn-abers==1.5.4 scikit-learn numpy
out=target/peers_recal
mkdir -p "$out"
"$venv/bin/python" bench/peers_recal.py "$out/refs.json"
if [ "$update" = 1 ]; then
  cp "$out/refs.json" crates/core/tests/refs/recal_peers.json
  echo "copied to crates/core/tests/refs/recal_peers.json"
fi
CALIBSCOPE_RECAL_PEERS="$PWD/$out/refs.json" cargo test --release --locked -p calibscope-core --test core recal_peers::
