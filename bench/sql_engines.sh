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
# Writes OUT_DIR/<stem>.sql, OUT_DIR/<stem>.agg.csv and prints one line per file.
set -euo pipefail

DUCKDB_VERSION=1.4.3

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

for file in "$@"; do
  stem="$(basename "$file" .csv)"
  sql="$out/$stem.sql"
  "$cli" sql --dialect duckdb --table "read_csv('$file', header = true)" --like "$file" > "$sql"
  start=$(date +%s.%N)
  "$venv/bin/python" - "$sql" "$out/$stem.agg.csv" <<'PY'
import sys, duckdb
query = open(sys.argv[1]).read()
con = duckdb.connect()
con.execute(f"COPY ({query.rstrip().rstrip(';')}) TO '{sys.argv[2]}' (HEADER, DELIMITER ',')")
PY
  end=$(date +%s.%N)
  echo "$stem duckdb $(echo "$end - $start" | bc) s -> $out/$stem.agg.csv"
done
