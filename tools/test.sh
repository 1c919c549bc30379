#!/usr/bin/env bash
# Runs every check of calibscope: formatting, lints, native unit/property/fixture
# tests (core, io, audit, CLI) and doctests. Installs what a fresh machine lacks.
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

step "toolchain"
command -v cargo >/dev/null || { echo "cargo is required (rustup)" >&2; exit 2; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo --version

step "format"
cargo fmt --all -- --check

step "lints"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "native tests (unit, property, fixtures, CLI, doctests)"
cargo test --workspace --locked --release
