#!/usr/bin/env bash
# The aggregation query of `calibscope sql` run by a real engine (issue 31): for each
# CSV prediction file, DuckDB (pinned, from PyPI, in a throwaway virtual environment)
# loads the file as a table, runs the printed query and writes the result as CSV;
# then `calibscope audit` of that result is compared with `calibscope audit` of the
# file (exact values within 1e-12 relative, bounded ones within their bound) by
# crates/cli/tests/sql_engines.rs, which runs this script.
#
# usage: bench/sql_engines.sh OUT_DIR FILE.csv...
#   CALIBSCOPE_CLI   the calibscope binary (default target/release/calibscope)
#   CALIBSCOPE_VENV  the virtual environment to use or create (default OUT_DIR/venv)
#   ENGINES          comma-separated: duckdb (default), datafusion (the Python
#                    package, pinned; its result written with pyarrow)
# Writes OUT_DIR/<stem>.<engine>.sql and OUT_DIR/<stem>.<engine>.csv, one line per file;
# with DuckDB also the file as Parquet (OUT_DIR/<stem>.parquet), the query over it
# (read_parquet) and its result as Parquet (OUT_DIR/<stem>.duckdb-parquet.parquet).
# Spark is not run: a JVM and pyspark (~300 MB) per CI run is too slow for CI.
set -euo pipefail

DUCKDB_VERSION=1.4.3
DATAFUSION_VERSION=55.0.0
engines="${ENGINES:-duckdb}"

if [ $# -lt 2 ]; then
  echo "usage: $0 OUT_DIR FILE.csv..." >&2
  exit 2
fi
out="$1"
shift
mkdir -p "$out"
cli="${CALIBSCOPE_CLI:-target/release/calibscope}"
venv="${CALIBSCOPE_VENV:-$out/venv}"

if ! "$venv/bin/python" -c "import duckdb, sys; sys.exit(duckdb.__version__ != '$DUCKDB_VERSION')" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "duckdb==$DUCKDB_VERSION"
fi
if [[ ",$engines," == *,datafusion,* ]] \
  && ! "$venv/bin/python" -c "import datafusion, sys; sys.exit(datafusion.__version__ != '$DATAFUSION_VERSION')" 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "datafusion==$DATAFUSION_VERSION"
fi

for file in "$@"; do
  stem="$(basename "$file" .csv)"
  if [[ ",$engines," == *,duckdb,* ]]; then
    sql="$out/$stem.duckdb.sql"
    "$cli" sql --dialect duckdb --table "read_csv('$file', header = true)" --like "$file" > "$sql"
    start=$(date +%s.%N)
    "$venv/bin/python" - "$sql" "$out/$stem.duckdb.csv" <<'PY'
import sys, duckdb
query = open(sys.argv[1]).read()
con = duckdb.connect()
con.execute(f"COPY ({query.rstrip().rstrip(';')}) TO '{sys.argv[2]}' (HEADER, DELIMITER ',')")
PY
    echo "$stem duckdb $(echo "$(date +%s.%N) - $start" | bc) s -> $out/$stem.duckdb.csv"
    # the predictions as Parquet (as they sit in a lake), queried where they are,
    # the result written as Parquet: `calibscope audit` opens it as it is
    pq_sql="$out/$stem.duckdb-parquet.sql"
    "$venv/bin/python" - "$file" "$out/$stem.parquet" <<'PY'
import sys, duckdb
duckdb.connect().execute(f"COPY (SELECT * FROM read_csv('{sys.argv[1]}', header = true)) TO '{sys.argv[2]}' (FORMAT PARQUET)")
PY
    "$cli" sql --dialect duckdb --table "read_parquet('$out/$stem.parquet')" --like "$file" > "$pq_sql"
    "$venv/bin/python" - "$pq_sql" "$out/$stem.duckdb-parquet.parquet" <<'PY'
import sys, duckdb
query = open(sys.argv[1]).read()
duckdb.connect().execute(f"COPY ({query.rstrip().rstrip(';')}) TO '{sys.argv[2]}' (FORMAT PARQUET)")
PY
    echo "$stem duckdb over Parquet -> $out/$stem.duckdb-parquet.parquet"
  fi
  if [[ ",$engines," == *,datafusion,* ]]; then
    sql="$out/$stem.datafusion.sql"
    "$cli" sql --dialect datafusion --table t --like "$file" > "$sql"
    "$venv/bin/python" - "$file" "$sql" "$out/$stem.datafusion.csv" <<'PY'
import sys, datafusion, pyarrow as pa, pyarrow.csv as pc
ctx = datafusion.SessionContext()
ctx.register_csv("t", sys.argv[1])
t = ctx.sql(open(sys.argv[2]).read()).to_arrow_table()
# pyarrow's CSV writer has no string_view: plain strings
t = pa.table({n: (c.cast(pa.string()) if pa.types.is_string_view(c.type) else c) for n, c in zip(t.column_names, t.columns)})
pc.write_csv(t, sys.argv[3])
PY
    echo "$stem datafusion -> $out/$stem.datafusion.csv"
  fi
done
