#!/usr/bin/env bash
# Parquet read speed natively against pyarrow + pandas, side by side in one run:
#   bash bench/parquet_read.sh [ROWS] [/tmp/venv-dir]
# Writes ROWS (default 1,000,000) × 10 float64 probabilities + an int64 label with
# pyarrow (codecs none, snappy, zstd), then reads each (best of 5):
# - calibscope: `target/release/examples/one FILE` (read, decode, assemble,
#   validate: the prediction set the audit starts from);
# - pyarrow + pandas: pq.read_table → to_pandas → the label and the n × 10
#   probability matrix as NumPy arrays (what a Python audit starts from).
# Throughput is decoded float data (ROWS × 10 × 8 bytes) per second.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
rows="${1:-1000000}"
venv="${2:-/tmp/calibscope_columnar_venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pandas pyarrow polars numpy
fi
out="$here/bench/out/parquet"
mkdir -p "$out"
cd "$here"
cargo build --release -q -p calibscope-io --example one
"$venv/bin/python" - "$out" "$rows" <<'PY'
import sys, os, time
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
out, n = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(1)
z = rng.normal(size=(n, 10)) * 3
p = np.exp(z - z.max(1, keepdims=True)); p /= p.sum(1, keepdims=True)
y = np.array([rng.choice(10, p=r) for r in p[:2000]] * (n // 2000) + [0] * (n % 2000))
t = pa.table({"label": y, **{f"p_{c}": p[:, c] for c in range(10)}})
for codec in ["none", "snappy", "zstd"]:
    pq.write_table(t, os.path.join(out, f"probs_{n}_{codec}.parquet"), compression=codec)
PY
for codec in none snappy zstd; do
    f="$out/probs_${rows}_${codec}.parquet"
    echo "== $codec ($(du -h "$f" | cut -f1))"
    echo "calibscope, one thread: $(THREADS=1 REPEAT=5 target/release/examples/one "$f" | tail -1)"
    echo "calibscope, every core: $(REPEAT=5 target/release/examples/one "$f" | tail -1)"
    "$venv/bin/python" - "$f" "$rows" <<'PY'
import sys, time
import pyarrow.parquet as pq
f, n = sys.argv[1], int(sys.argv[2])
best = float("inf")
for _ in range(5):
    t = time.perf_counter()
    df = pq.read_table(f).to_pandas()
    y = df["label"].to_numpy()
    P = df[[f"p_{c}" for c in range(10)]].to_numpy()
    best = min(best, time.perf_counter() - t)
print(f"pyarrow + pandas → NumPy: {best:.4f} s ({n * 80 / best / 1e9:.2f} GB/s of float data), shape {P.shape}")
PY
done
