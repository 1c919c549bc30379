#!/usr/bin/env bash
# `calibscope aggregate` against DuckDB running `calibscope sql`'s query, same run,
# on a generated file (not committed): N rows (default 10M) of a binary set
# (label,p) and N/10 rows of a 10-class probability set, written by DuckDB.
# usage: bench/sql_bench.sh OUT_DIR [N]     (uses OUT_DIR/venv, as bench/sql_engines.sh)
set -euo pipefail
out="$1"; n="${2:-10000000}"
mkdir -p "$out"
source "$(dirname "$0")/lib.sh"
bench_duckdb "$out"
bin="$out/binary_$n.csv"; mc="$out/mc10_$((n / 10)).csv"
[ -f "$bin" ] || "$py" -c "
import duckdb; c = duckdb.connect()
c.execute(\"SELECT setseed(0.5)\")
c.execute(\"COPY (SELECT CAST(random() < p * 0.9 + 0.05 AS INT) AS label, p FROM (SELECT random() AS p FROM range($n))) TO '$bin' (HEADER)\")"
[ -f "$mc" ] || "$py" -c "
import duckdb; c = duckdb.connect()
c.execute(\"SELECT setseed(0.25)\")
cols = ', '.join(f'e{r} / s AS p_{r}' for r in range(10))
es = ', '.join(f'random() AS e{r}' for r in range(10))
c.execute(f\"COPY (SELECT CAST(floor(random() * 10) AS INT) AS label, {cols} FROM (SELECT *, {' + '.join(f'e{r}' for r in range(10))} AS s FROM (SELECT {es} FROM range($((n / 10)))))) TO '$mc' (HEADER)\")"
for f in "$bin" "$mc"; do
  echo "== $f ($(du -h "$f" | cut -f1))"
  /usr/bin/time -f "calibscope aggregate: %e s, peak RSS %M KB" "$cli" aggregate "$f" --out "$f.agg.json"
  "$cli" sql --dialect duckdb --table "read_csv('$f', header = true)" --like <(head -1000 "$f") --model-name "$(basename "$f" .csv)" > "$f.sql"
  /usr/bin/time -f "duckdb (query incl. CSV scan): %e s, peak RSS %M KB" "$py" -c "
import duckdb, sys; c = duckdb.connect()
c.execute(\"COPY (\" + open('$f.sql').read() + \") TO '$f.duckdb.csv' (HEADER)\")"
done
