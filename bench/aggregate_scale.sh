#!/usr/bin/env bash
# `calibscope aggregate` and DuckDB (running `calibscope sql`'s query) on a generated
# long-format Parquet data set of N rows (default 10M) and 10 models, written by
# DuckDB as 10 shards of N/10 rows (not committed), side by side in the same run:
# wall time and peak memory of each, and the agreement of the two aggregates.
# usage: bench/aggregate_scale.sh OUT_DIR [N]    (OUT_DIR/venv as bench/sql_bench.sh)
# The issue's scale points: N = 10000000 and N = 100000000.
set -euo pipefail
out="$1"; n="${2:-10000000}"
mkdir -p "$out"
source "$(dirname "$0")/lib.sh"
bench_duckdb "$out"
dir="$out/long_$n"
if [ ! -f "$dir.done" ]; then
  mkdir -p "$dir"
  # every model predicts the same samples (row r is sample r / 10, model r % 10): a
  # sample's label is drawn from its latent q, and model m says
  # 0.5 + (q - 0.5) (0.5 + m / 10), clipped: ten models miscalibrated by different
  # amounts (under- to overconfident); snappy, row groups of 2^20 rows
  "$py" -c "
import duckdb; c = duckdb.connect()
c.execute('SELECT setseed(0.5)')
per = $n // 10
for s in range(10):
    c.execute(f\"\"\"COPY (SELECT 'model_' || CAST(m AS VARCHAR) AS model, label,
        least(1.0, greatest(0.0, 0.5 + (q - 0.5) * (0.5 + m / 10))) AS p
      FROM (SELECT range AS i, random() AS q, random() AS r FROM range({s * per // 10}, {(s + 1) * per // 10})) s
      CROSS JOIN (SELECT range AS m FROM range(10)) ms,
      LATERAL (SELECT CAST(r < q AS INT) AS label)
      ORDER BY i, m)
      TO '$dir/shard_{s}.parquet' (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 1048576)\"\"\")
"
  touch "$dir.done"
fi
echo "== $dir: $n rows, 10 models, $(du -sh "$dir" | cut -f1) of Parquet"
/usr/bin/time -f "calibscope aggregate: %e s wall, %U s user, peak RSS %M KB" \
  "$cli" aggregate "$dir" --out "$out/agg_$n.json"
"$py" -c "
import duckdb; c = duckdb.connect()
c.execute(\"COPY (SELECT * FROM read_parquet('$dir/shard_0.parquet') LIMIT 1000) TO '$out/like.csv' (HEADER)\")"
"$cli" sql --dialect duckdb --table "read_parquet('$dir/*.parquet')" --like "$out/like.csv" --model-column model > "$out/agg_$n.sql"
/usr/bin/time -f "duckdb (query incl. Parquet scan): %e s wall, %U s user, peak RSS %M KB" "$py" -c "
import duckdb; c = duckdb.connect()
c.execute(\"COPY (\" + open('$out/agg_$n.sql').read() + \") TO '$out/agg_$n.duckdb.csv' (HEADER)\")"
# the same audit from both aggregates (every exact value)
"$cli" audit "$out/agg_$n.json" --json > "$out/audit_$n.calibscope.json"
"$cli" audit "$out/agg_$n.duckdb.csv" --json > "$out/audit_$n.duckdb.json"
"$py" - "$out/audit_$n.calibscope.json" "$out/audit_$n.duckdb.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
worst = [0.0, ""]
def walk(x, y, path):
    if isinstance(x, dict):
        for k in x:
            if k in y: walk(x[k], y[k], path + "." + k)
    elif isinstance(x, list):
        for i, (u, v) in enumerate(zip(x, y)): walk(u, v, f"{path}.{i}")
    elif isinstance(x, float) and isinstance(y, (int, float)) and x != 0:
        r = abs(x - y) / abs(x)
        if r > worst[0]: worst[:] = [r, path]
walk(a, b, "")
print(f"largest relative difference between the two aggregates' audits: {worst[0]:.3g} at {worst[1]}")
PY
