#!/usr/bin/env bash
# METRICS.md section 8 against its peers: relplot 1.0.3's smECE and
# uncertainty-calibration's debiased L2 error (on the contract's bins), on every
# fixture file and on the six CIFAR files of shared/real-world.
#
# Usage: bash bench/peers_section8.sh [--update-refs]
#
# Makes a throwaway virtualenv in /tmp/calibscope_peers8 (python3 -m venv; pip install
# relplot==1.0.3 uncertainty-calibration numpy scipy). Writes
#   target/peers_section8/fixtures.json  the peers' values on every fixture reading
#                                        (--update-refs copies it to
#                                        crates/core/tests/refs/section8_peers.json, which
#                                        tests/section8_peers.rs compares against)
#   target/peers_section8/real/          the CIFAR arrays as plain .npy + peers.json
# and runs examples/section8_peers.rs on the latter: a pass/fail table (smECE within
# 1e-9 relative, the debiased L2 error within 1e-9 relative + 1e-12), exit status 1 on
# any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

source bench/lib.sh
peer_update_flag "bash bench/peers_section8.sh" "$@"

shared="${CALIBSCOPE_SHARED:-$(cd .. && pwd)/shared}"
[ -d "$shared/fixtures" ] || { echo "no fixtures under $shared (set CALIBSCOPE_SHARED)" >&2; exit 1; }
venv=/tmp/calibscope_peers8
peer_venv "$venv"
"$venv/bin/pip" install --quiet relplot==1.0.3 uncertainty-calibration numpy scipy
"$venv/bin/python" -c "import importlib.metadata as m; print('relplot', m.version('relplot'), '| uncertainty-calibration', m.version('uncertainty-calibration'), '| numpy', m.version('numpy'))"

out=target/peers_section8
mkdir -p "$out/real"
"$venv/bin/python" bench/peers_section8.py fixtures "$shared" "$out/fixtures.json" 2>/dev/null
echo "fixtures: $(grep -c '"confidence"' "$out/fixtures.json") prediction sets -> $out/fixtures.json"
if [ "$update" = 1 ]; then
  cp "$out/fixtures.json" crates/core/tests/refs/section8_peers.json
  echo "copied to crates/core/tests/refs/section8_peers.json"
fi
"$venv/bin/python" bench/peers_section8.py realworld "$shared" "$out/real" 2>/dev/null
cargo run --release --locked --quiet -p calibscope-core --example section8_peers -- "$out/real"
