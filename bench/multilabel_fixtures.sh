#!/usr/bin/env bash
# Writes the multilabel fixtures under crates/io/tests/data/multilabel/ with the
# real producers (scikit-learn, pandas, pyarrow, polars), in a throwaway virtual
# environment:
#   bash bench/multilabel_fixtures.sh [/tmp/venv-dir]
# The problem is real: scikit-learn's handwritten digits, each image tagged with
# four traits of its digit (even, above 4, prime, drawn with a closed loop), so an
# image has any number of them. One logistic regression per trait
# (MultiOutputClassifier) is fitted on 65 % of the images and its predict_proba on
# the rest is written the ways people write it: pandas' to_csv (default index, and
# gzip), to_parquet (pyarrow), polars' list columns, JSON Lines records with lists
# (Python's json).
# Beside them, the same numbers as plain binary CSVs: one per trait
# (`traits_<trait>.csv`: label,p) and the pooled pairs (`traits_pooled.csv`:
# label,p,trait, row-major: each image's four traits in turn). The tests
# (crates/io/tests/multilabel.rs, crates/cli/tests) check that calibscope reads each
# file to those numbers and audits each trait as its own binary file.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-/tmp/calibscope_multilabel_venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pandas scikit-learn numpy pyarrow polars
fi
out="$here/crates/io/tests/data/multilabel"
mkdir -p "$out"
"$venv/bin/python" - "$out" <<'PY'
import sys, os, json
import numpy as np
import pandas as pd
import polars as pl
import sklearn, pyarrow
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.multioutput import MultiOutputClassifier

out = sys.argv[1]
def path(name):
    return os.path.join(out, name)

X, digit = load_digits(return_X_y=True)
traits = {
    "even": np.isin(digit, [0, 2, 4, 6, 8]),
    "above_4": digit > 4,
    "prime": np.isin(digit, [2, 3, 5, 7]),
    "loop": np.isin(digit, [0, 6, 8, 9]),
}
names = list(traits)
Y = np.column_stack([traits[t] for t in names]).astype(int)
Xtr, Xte, Ytr, Yte = train_test_split(X, Y, test_size=0.35, random_state=0)
model = MultiOutputClassifier(LogisticRegression(max_iter=5000)).fit(Xtr, Ytr)
# predict_proba gives one (n, 2) array per trait; column 1 is P(trait)
P = np.column_stack([p[:, 1] for p in model.predict_proba(Xte)])

df = pd.DataFrame(Yte, columns=names)
for j, t in enumerate(names):
    df[f"p_{t}"] = P[:, j]
df.to_csv(path("traits.csv"))                        # default index: empty header
df.to_csv(path("traits.csv.gz"), compression="gzip")
df.to_parquet(path("traits.parquet"))                # pyarrow, snappy
# polars: one list column of labels and one of probabilities
pl.DataFrame({"y": Yte.tolist(), "probs": P.tolist()}).write_parquet(path("traits_polars_list.parquet"))
# JSON Lines records with lists, written by Python's json (floats round-trip;
# pandas' to_json keeps at most 15 digits)
with open(path("traits_lists.jsonl"), "w") as f:
    for i, (y, p) in enumerate(zip(Yte.tolist(), P.tolist())):
        f.write(json.dumps({"id": 100 + i, "y": y, "probs": p}) + "\n")

# the same numbers as binary files: per trait, and every (image, trait) pair pooled
for j, t in enumerate(names):
    pd.DataFrame({"label": Yte[:, j], "p": P[:, j]}).to_csv(path(f"traits_{t}.csv"), index=False)
pd.DataFrame({
    "label": Yte.ravel(),
    "p": P.ravel(),
    "trait": np.tile(names, len(Yte)),
}).to_csv(path("traits_pooled.csv"), index=False)

with open(path("VERSIONS"), "w") as f:
    f.write(f"scikit-learn {sklearn.__version__}\npandas {pd.__version__}\n"
            f"pyarrow {pyarrow.__version__}\npolars {pl.__version__}\nnumpy {np.__version__}\n")
PY
ls -l "$out"
