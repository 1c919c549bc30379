"""The grouped fixtures of issue 32 (see groups_fixtures.sh): `label,p,GROUP` CSVs
and one file per group with the same rows in the same order (no group column)."""
import os
import sys

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def write(name, column, labels, probs, groups):
    """NAME.csv with the group column, and NAME.<group>.csv per group."""
    rows = list(zip(labels, probs, groups))
    with open(os.path.join(out, f"{name}.csv"), "w") as f:
        f.write(f"label,p,{column}\n")
        for y, p, g in rows:
            f.write(f"{int(y)},{float(p)!r},{g}\n")
    for value in sorted(set(groups)):
        with open(os.path.join(out, f"{name}.{value}.csv"), "w") as f:
            f.write("label,p\n")
            for y, p, g in rows:
                if g == value:
                    f.write(f"{int(y)},{float(p)!r}\n")
    counts = {v: sum(1 for g in groups if g == v) for v in sorted(set(groups))}
    print(f"{name}.csv: {len(rows)} rows, groups {counts}")


# breast_cancer: P(malignant) (class 0 of the dataset is malignant; written as
# label 1 = malignant) of a logistic regression, grouped by mean radius
data = load_breast_cancer()
X, y = data.data, 1 - data.target
radius = list(data.feature_names).index("mean radius")
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(Xtr, ytr)
p = model.predict_proba(Xte)[:, 1]
cut = np.median(Xtr[:, radius])
groups = ["large" if r > cut else "small" for r in Xte[:, radius]]
write("breast_cancer_groups", "radius", yte, p, groups)

# synthetic: confidence c uniform in [0.5, 1]; the prediction is right with
# probability c in groups calibrated_a and calibrated_b, c - 0.2 in overconfident
rng = np.random.default_rng(32)
labels, probs, groups = [], [], []
for i in range(3000):
    g = ["calibrated_a", "calibrated_b", "overconfident"][i % 3]
    c = rng.uniform(0.5, 1.0)
    right = rng.uniform() < (c - 0.2 if g == "overconfident" else c)
    predicted = int(rng.uniform() < 0.5)
    label = predicted if right else 1 - predicted
    labels.append(label)
    probs.append(c if predicted == 1 else 1.0 - c)
    groups.append(g)
write("synthetic_groups", "cohort", labels, probs, groups)
