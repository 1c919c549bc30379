#!/usr/bin/env bash
# Writes the grouped fixtures of issue 32 under crates/audit/tests/data/groups/ with
# scikit-learn in a throwaway virtual environment:
#   bash bench/groups_fixtures.sh [/tmp/venv-dir]
# breast_cancer_groups.csv: scikit-learn's breast_cancer, a logistic regression's
# P(malignant) on a held-out half, grouped by a binarised feature (mean radius above
# or below the training median); synthetic_groups.csv: three groups of 1,000 samples,
# two calibrated and one overconfident by construction (its correct rate is its
# confidence minus 0.2). Each group's rows are also written as a file of their own
# (NAME.GROUP.csv): crates/audit/tests/groups.rs checks that each group's audit in the
# grouped audit equals the audit of that file, and that the worst group is the
# constructed one.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-/tmp/calibscope_groups_venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q scikit-learn numpy
fi
"$venv/bin/python" "$here/bench/groups_fixtures.py" "$here/crates/audit/tests/data/groups"
