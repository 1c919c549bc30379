#!/bin/sh
# Runs one fuzz target for $2 seconds (default 600) from crates/audit/fuzz:
#   sh run_fuzz.sh record 600
# New inputs go to corpus/<target>/ (seeded from seeds/<target>/); afterwards
#   cargo +nightly fuzz cmin -s none <target> corpus/<target>
# minimises the corpus that is committed.
set -e
t=$1
secs=${2:-600}
mkdir -p corpus/$t logs
cargo +nightly fuzz run -s none $t corpus/$t seeds/$t -- \
  -max_total_time=$secs -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
  > logs/$t.log 2>&1
