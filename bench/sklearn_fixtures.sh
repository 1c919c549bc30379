#!/usr/bin/env bash
# Writes the scikit-learn / pandas fixtures under crates/io/tests/data/sklearn/ with
# the real producers, in a throwaway virtual environment:
#   bash bench/sklearn_fixtures.sh [/tmp/venv-dir]
# Each model is trained on a scikit-learn dataset (digits: 10 classes; iris with its
# class names; breast_cancer: binary) and its predict_proba on a held-out split is
# written with pandas' to_csv (default index) in the ways people write it, plus the
# same numbers as a canonical `label,p_<class>` CSV (index=False). The test
# crates/io/tests/sklearn.rs checks that calibscope reads each variant to the same
# audit as its canonical file. Compressed copies (to_csv's gzip and zstd) feed the
# compressed-text tests.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-/tmp/calibscope_sklearn_venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pandas scikit-learn numpy zstandard
fi
out="$here/crates/io/tests/data/sklearn"
mkdir -p "$out"
"$venv/bin/python" - "$out" <<'PY'
import sys, os
import numpy as np
import pandas as pd
import sklearn
from sklearn.datasets import load_digits, load_iris, load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

out = sys.argv[1]
def path(name):
    return os.path.join(out, name)

def fit(X, y, seed=0):
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.35, random_state=seed, stratify=y)
    model = LogisticRegression(max_iter=5000)
    model.fit(Xtr, ytr)
    return model, model.predict_proba(Xte), yte

# digits: 10 classes, integer classes_
X, y = load_digits(return_X_y=True)
model, P, yte = fit(X, y)
df = pd.DataFrame(P, columns=model.classes_)          # headers 0..9
df.insert(0, "label", yte)
df.to_csv(path("digits_classes.csv"))                  # default index: empty header
df = pd.DataFrame(P, columns=[f"p{c}" for c in model.classes_])
df["y_true"] = yte
df.to_csv(path("digits_p.csv"))
df = pd.DataFrame(P, columns=[f"proba_{c}" for c in model.classes_])
df.insert(0, "target", yte)
df.to_csv(path("digits_proba.csv"))
canon = pd.DataFrame(P, columns=[f"p_{c}" for c in model.classes_])
canon.insert(0, "label", yte)
canon.to_csv(path("digits_canonical.csv"), index=False)
# `Unnamed: 0`: the index read back by read_csv and written again
pd.read_csv(path("digits_p.csv")).to_csv(path("digits_p_reread.csv"), index=False)
# compressed text, as pandas writes it
canon.to_csv(path("digits_canonical.csv.gz"), index=False)
canon.to_csv(path("digits_canonical.csv.zst"), index=False)

# iris: string class names in classes_ order
iris = load_iris()
names = np.array(iris.target_names)[iris.target]
model, P, yte = fit(iris.data, names)
df = pd.DataFrame(P, columns=model.classes_)          # setosa, versicolor, virginica
df.insert(0, "class", yte)
df.to_csv(path("iris_classes.csv"))
canon = pd.DataFrame(P, columns=[f"p_{c}" for c in model.classes_])
canon.insert(0, "label", yte)
canon.to_csv(path("iris_canonical.csv"), index=False)

# breast_cancer: a predict_proba binary pair, integer and string classes
X, y = load_breast_cancer(return_X_y=True)
model, P, yte = fit(X, y)
df = pd.DataFrame(P, columns=model.classes_)          # 0, 1
df.insert(0, "y", yte)
df.to_csv(path("cancer_classes.csv"))
canon = pd.DataFrame(P, columns=["p_0", "p_1"])
canon.insert(0, "label", yte)
canon.to_csv(path("cancer_canonical.csv"), index=False)
ys = np.where(y == 1, "pos", "neg")
model, P, yte = fit(X, ys)
df = pd.DataFrame(P, columns=model.classes_)          # neg, pos
df["true_label"] = yte
df.to_csv(path("cancer_negpos.csv"))
canon = pd.DataFrame(P, columns=[f"p_{c}" for c in model.classes_])
canon.insert(0, "label", yte)
canon.to_csv(path("cancer_negpos_canonical.csv"), index=False)

with open(path("VERSIONS"), "w") as f:
    f.write(f"pandas {pd.__version__}\nscikit-learn {sklearn.__version__}\nnumpy {np.__version__}\n")
PY
ls -l "$out"
