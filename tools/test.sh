#!/usr/bin/env bash
# Runs every check of calibscope: formatting, lints, native unit/property/fixture
# tests (core, io, audit, CLI, the app's engine) and doctests, then builds the web
# app and runs its browser tests in headless Debian chromium. Installs what a fresh
# machine lacks (rustfmt/clippy, the wasm32 target, chromium + chromium-driver via
# apt, the npm tools pinned in package-lock.json).
# Usage: bash tools/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

# The fixtures live beside the repository (../shared); tests find them there or
# through CALIBSCOPE_SHARED.
if [ -z "${CALIBSCOPE_SHARED:-}" ] && [ ! -d ../shared/fixtures ]; then
  echo "tools/test.sh: ../shared/fixtures not found; set CALIBSCOPE_SHARED to the shared/ folder" >&2
  exit 2
fi

# The browser and the npm tools are downloads, not computation: they install in the
# background while the native tests compile (the browser steps wait for them).
prefetch_log="$(mktemp)"
(
  set -e
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
  fi
  command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
  npm ci --no-audit --no-fund
) > "$prefetch_log" 2>&1 &
prefetch=$!

step "toolchain"
command -v cargo >/dev/null || { echo "cargo is required (rustup)" >&2; exit 2; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo --version

step "format"
cargo fmt --all -- --check

step "lints"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "native tests (unit, property, fixtures, CLI, the worker's engine, doctests; the SQL query run by DuckDB, pinned, pip-installed into a throwaway venv)"
# calibscope-web is the wasm binary's root (natively a one-line main, no tests): not
# linked natively here
# (the examples are not built here: the clippy step above checks that they compile)
CALIBSCOPE_SQL_ENGINES=1 cargo test --workspace --exclude calibscope-web --locked --release --lib --bins --tests
cargo test --workspace --exclude calibscope-web --locked --release --doc

export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"
step "wasm32 target"
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown

step "lints (the page, the worker and what it computes, wasm32; clippy_wasm/clippy.toml bans calls that panic or block in a browser)"
CLIPPY_CONF_DIR="$PWD/clippy_wasm" cargo clippy -p calibscope-app -p calibscope-web -p calibscope-worker -p calibscope-engine -p calibscope-proto --no-deps --target wasm32-unknown-unknown --profile wasm-release --locked -- -D warnings

step "browser (Debian chromium) and npm tools (binaryen wasm-opt, playwright-core, axe-core), installed in the background"
if ! wait "$prefetch"; then
  cat "$prefetch_log" >&2
  echo "installing chromium or the npm tools failed (log above)" >&2
  exit 1
fi
chromium --version

step "building the app (cargo xtask dist)"
# the xtask binary the native tests built (its tests/serve.rs needs it): `cargo xtask`
# would build it again, its dependencies' features resolved for xtask alone (~90 s)
target/release/xtask dist

step "browser tests (playwright-core + chromium, node --test)"
portfile="$(mktemp)"
target/release/xtask serve --port 0 --port-file "$portfile" > target/e2e-server.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$portfile"' EXIT
for _ in $(seq 1 100); do [ -s "$portfile" ] && break; sleep 0.1; done
[ -s "$portfile" ] || { echo "the test server did not start" >&2; cat target/e2e-server.log >&2; exit 1; }
export CALIBSCOPE_URL="http://127.0.0.1:$(cat "$portfile")"
export CALIBSCOPE_SHARED="${CALIBSCOPE_SHARED:-$(cd ../shared && pwd)}"
# the CLI that writes the reports of tests/e2e/report.test.mjs (built by the native tests)
export CALIBSCOPE_CLI="${CALIBSCOPE_CLI:-$PWD/target/release/calibscope}"
# two test files at a time: a test mostly waits on one worker thread, so the second
# core would otherwise idle (each file has its own browser; tests in a file run in order)
node --test --test-concurrency=2 tests/e2e/
echo "screenshots: target/e2e-artifacts/ (tests), target/screens/ (every view, 1440×900 and 390×844, light and dark)"
