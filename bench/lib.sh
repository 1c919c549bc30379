# Shared steps of the benchmarks and peer checks (sourced by bench/run_*browser.sh and
# bench/peers_*.sh, which run from the repository root with `set -euo pipefail`).

# bench_runs USAGE ARGS...: sets `runs` from `--runs N` (default 3).
bench_runs() {
  local usage="$1"
  shift
  runs=3
  while [ $# -gt 0 ]; do
    case "$1" in
      --runs) runs="$2"; shift ;;
      *) echo "usage: $usage [--runs N]" >&2; exit 2 ;;
    esac
    shift
  done
}

# bench_dist: the optimised app (`cargo xtask dist`) when dist/ is older than the
# sources; playwright-core.
bench_dist() {
  if [ ! -f dist/app_bg.wasm ] \
    || [ -n "$(find src index.html style assets crates Cargo.toml Cargo.lock -newer dist/app_bg.wasm -type f -print -quit)" ]; then
    cargo xtask dist
  fi
  [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund
}

# bench_serve OUT_DIR: serves dist/ on a free port (stopped on exit) and exports
# CALIBSCOPE_URL.
bench_serve() {
  local out="$1"
  portfile="$(mktemp)"
  target/release/xtask serve --port 0 --port-file "$portfile" > "$out/server.log" 2>&1 &
  server=$!
  trap 'kill "$server" 2>/dev/null || true; rm -f "$portfile"' EXIT
  for _ in $(seq 1 100); do [ -s "$portfile" ] && break; sleep 0.1; done
  [ -s "$portfile" ] || { echo "the server did not start" >&2; cat "$out/server.log" >&2; exit 1; }
  export CALIBSCOPE_URL="http://127.0.0.1:$(cat "$portfile")"
}

# peer_update_flag USAGE ARGS...: sets `update` to 1 on `--update-refs`, 0 without
# arguments; anything else prints USAGE and exits 2.
peer_update_flag() {
  local usage="$1"
  shift
  update=0
  case "${1:-}" in
    --update-refs) update=1 ;;
    "") ;;
    *) echo "usage: $usage [--update-refs]" >&2; exit 2 ;;
  esac
}

# peer_venv DIR: a throwaway Python virtualenv in DIR (made once, then reused).
peer_venv() {
  [ -x "$1/bin/python" ] || python3 -m venv "$1"
}

# bench_duckdb OUT_DIR: sets `py` to a python with DuckDB 1.4.3 (the venv
# CALIBSCOPE_VENV, else OUT_DIR/venv, made when missing) and `cli` to the CLI
# (CALIBSCOPE_CLI, else target/release/calibscope).
bench_duckdb() {
  local venv="${CALIBSCOPE_VENV:-$1/venv}"
  cli="${CALIBSCOPE_CLI:-target/release/calibscope}"
  [ -x "$venv/bin/python" ] || { python3 -m venv "$venv"; "$venv/bin/pip" install --quiet duckdb==1.4.3; }
  py="$venv/bin/python"
}
