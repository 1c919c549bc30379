#!/usr/bin/env bash
# Builds calibscope and serves it on http://127.0.0.1:8080 with an example audit.
#
# The web app (Leptos + Trunk, the core in a Web Worker) is not built yet (issue 4).
# Until it lands this serves a static page with the example audit computed by the
# native `calibscope` CLI from the bundled predictions in assets/examples/.
# Usage: bash tools/run.sh   (PORT=8080 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${PORT:-8080}"

command -v cargo >/dev/null || { echo "cargo is required (rustup)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is required to serve the page" >&2; exit 2; }

echo "== building the calibscope CLI (release)"
cargo build --release --locked -p calibscope-cli

out=dist/placeholder
mkdir -p "$out"
example=assets/examples/digits_logreg_C1_logits.csv
./target/release/calibscope audit "$example" --bins 15 --json > "$out/audit.json"
./target/release/calibscope audit "$example" --bins 15 > "$out/audit.md"
./target/release/calibscope flips assets/examples/digits_zoo_probs.csv --bins 5,20,450 > "$out/flips.md"

python3 - "$out" <<'PY'
import html, sys, pathlib
out = pathlib.Path(sys.argv[1])
md = (out / "audit.md").read_text()
flips = (out / "flips.md").read_text()
page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; style-src 'unsafe-inline'">
<title>calibscope — example audit</title>
<style>body{{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}
pre{{background:#f4f4f4;padding:1rem;overflow:auto}}@media(prefers-color-scheme:dark){{body{{background:#111;color:#eee}}pre{{background:#222}}}}</style>
</head><body>
<h1>calibscope</h1>
<p>The interactive web app is not built yet. This page shows the example audit computed
by the <code>calibscope</code> command-line tool from <code>assets/examples/</code>
(digits, logistic regression); the full document is <a href="audit.json">audit.json</a>.</p>
<pre>{html.escape(md)}</pre>
<h2>Ranking flips across bin counts (digits model zoo)</h2>
<pre>{html.escape(flips)}</pre>
</body></html>"""
(out / "index.html").write_text(page)
PY

echo "== serving http://127.0.0.1:${port} (Ctrl-C to stop)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$out"
