"""Reference values of the recalibration methods of issue 33 from their authors'
packages, on seeded synthetic binary data written into the same JSON:

    python bench/peers_recal.py OUT.json

- beta calibration: betacal 1.1.0 `BetaCalibration(parameters="abm")`: its map
  [a, b, m], the intercept of its logistic regression, and its probabilities on a
  grid of query scores; and the same procedure (same features, same C, same
  refits) solved to tight tolerance with scikit-learn's newton-cholesky solver
  (tol 1e-14), since betacal's own L-BFGS stops at a gradient tolerance of 1e-4;
- Venn-Abers: venn-abers 1.5.4 `VennAbers()` fitted on `[1 - s, s]`: its interval
  `[p0, p1]` and merged probability on the query scores (plus, in the case with tied
  scores, on every calibration value);

Each case holds the calibration scores and labels (floats written with repr, so
they round-trip exactly) and the query scores.
"""
import json
import sys

import numpy as np
from betacal import BetaCalibration
from venn_abers import VennAbers


def case(name, rng, n, draw, truth):
    s = draw(rng, n)
    p = truth(np.clip(s, 1e-12, 1 - 1e-12))
    y = (rng.random(n) < p).astype(int)
    q = np.concatenate([np.linspace(0.0, 1.0, 41), np.sort(rng.random(20))])
    return {"name": name, "scores": s.tolist(), "labels": y.tolist(), "queries": q.tolist()}


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def beta_family(a, b, c):
    return lambda s: sigmoid(c + a * np.log(s) - b * np.log1p(-s))


def beta_tight(s, y):
    """betacal's _beta_calibration with the logistic regressions solved tightly."""
    from sklearn.linear_model import LogisticRegression

    eps = np.finfo(float).eps
    s = np.clip(s, eps, 1 - eps)
    x = np.column_stack([np.log(s), -np.log1p(-s)])

    def lr(cols):
        return LogisticRegression(C=99999999999, tol=1e-14, max_iter=100000,
                                  solver="newton-cholesky").fit(x[:, cols], y)

    full = lr([0, 1])
    a, b = full.coef_[0]
    if a < 0:
        fit = lr([1]); a, b = 0.0, fit.coef_[0][0]
    elif b < 0:
        fit = lr([0]); a, b = fit.coef_[0][0], 0.0
    else:
        fit = full
    return {"a": float(a), "b": float(b), "c": float(fit.intercept_[0])}


def main(out):
    rng = np.random.default_rng(20261203)
    cases = [
        case("uniform_scores_beta_truth", rng, 2000, lambda r, n: r.random(n), beta_family(2.0, 0.5, 0.3)),
        case("skewed_scores_overconfident", rng, 1000, lambda r, n: r.beta(0.5, 0.5, n), beta_family(0.4, 0.4, 0.0)),
        case("underconfident", rng, 800, lambda r, n: r.beta(5, 5, n), beta_family(3.0, 3.0, 0.0)),
        case("small_split", rng, 60, lambda r, n: r.random(n), beta_family(1.0, 1.0, 0.0)),
        # outcomes fall as ln s grows near 0: the full fit's `a` is negative
        case("negative_a", rng, 500, lambda r, n: r.random(n), lambda s: 0.6 - 0.4 * s + 0.3 * (s > 0.9)),
        # outcomes fall near 1: the full fit's `b` is negative
        case("negative_b", rng, 500, lambda r, n: r.random(n), lambda s: 0.2 + 0.6 * s - 0.5 * (s > 0.85)),
        # scores rounded to two decimals: tied calibration scores, queries on them
        case("tied_scores", rng, 700, lambda r, n: np.round(r.random(n), 2), beta_family(1.5, 1.0, 0.0)),
    ]
    tied = cases[-1]
    tied["queries"] = sorted(set(tied["queries"]) | set(tied["scores"][:60]))
    for c in cases:
        s = np.array(c["scores"])
        y = np.array(c["labels"])
        bc = BetaCalibration(parameters="abm")
        bc.fit(s, y)
        a, b, m = (float(v) for v in bc.calibrator_.map_)
        c["betacal"] = {
            "a": a,
            "b": b,
            "m": m,
            "c": float(bc.calibrator_.lr_.intercept_[0]),
            "predict": [float(v) for v in bc.predict(np.array(c["queries"]))],
        }
        c["beta_tight"] = beta_tight(s, y)
        va = VennAbers()
        va.fit(np.column_stack([1 - s, s]), y)
        q = np.array(c["queries"])
        p_prime, p0_p1 = va.predict_proba(np.column_stack([1 - q, q]))
        c["venn_abers"] = {
            "p0": [float(v) for v in p0_p1[:, 0]],
            "p1": [float(v) for v in p0_p1[:, 1]],
            "p": [float(v) for v in p_prime[:, 1]],
        }
    import importlib.metadata as md
    doc = {
        "generated_by": "bench/peers_recal.sh (betacal %s, venn-abers %s, scikit-learn %s, numpy %s)"
        % (md.version("betacal"), md.version("venn-abers"), md.version("scikit-learn"), md.version("numpy")),
        "cases": cases,
    }
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
