#!/usr/bin/env bash
# Builds the calibscope web app in release and serves it on http://127.0.0.1:8080.
# Installs what a fresh machine lacks: the wasm32 target (rustup) and the project's
# npm tools (binaryen's wasm-opt, pinned in package-lock.json). Nothing else is
# downloaded: wasm-bindgen is linked into `cargo xtask` at the version of Cargo.lock.
# Usage: bash tools/run.sh   (PORT=8080 by default; NO_SERVE=1 builds only)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${PORT:-8080}"
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}"

step() { printf '\n== %s\n' "$*"; }

command -v cargo >/dev/null || { echo "cargo is required (rustup)" >&2; exit 2; }
if ! command -v npm >/dev/null; then
  step "installing node and npm (apt)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm
fi

step "wasm32 target"
rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown

step "npm tools (binaryen wasm-opt, playwright-core)"
if [ ! -x node_modules/.bin/wasm-opt ] || ! node_modules/.bin/wasm-opt --version | grep -q 'version 132'; then
  npm ci --no-audit --no-fund
fi

step "building the app (cargo xtask dist)"
cargo xtask dist

if [ -n "${NO_SERVE:-}" ]; then exit 0; fi
step "serving http://127.0.0.1:${port}"
exec cargo xtask serve --port "$port"
