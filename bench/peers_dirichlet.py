"""Reference fits of the multiclass maps of issue 33 from dirichletcal 0.5.3 (the
Dirichlet calibration authors' package), on seeded synthetic multiclass data written
into the same JSON:

    python bench/peers_dirichlet.py OUT.json

- Dirichlet calibration with ODIR: `FullDirichletCalibrator(reg_lambda=s,
  reg_mu=s, reg_norm=True)` (so lambda / (K (K - 1)) and mu / K, as in the paper)
  on the probabilities;
- matrix scaling: `MatrixScaling(logit_input=True)` (unregularised) on the logits;
- vector scaling: `VectorScaling(logit_input=True)` (unregularised) on the logits.

For K <= 36 classes dirichletcal solves with its own Newton method (pseudo-inverse
of the Hessian from jax, stops when the loss changes by less than 1e-12 over five
iterations). Each case holds the calibration inputs (logits and their softmax,
floats written with repr so they round-trip exactly), labels, query rows, the
reference's `weights_` (K x (K + 1), last class as reference row) and its
probabilities on the query rows. The data keep every probability above 1e-12 and
every fitted probability of the true class above 1e-15, so that neither package's
clipping binds.
"""
import json
import sys

import numpy as np
from dirichletcal.calib.fulldirichlet import FullDirichletCalibrator
from dirichletcal.calib.matrixscaling import MatrixScaling
from dirichletcal.calib.vectorscaling import VectorScaling


def softmax(z):
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def draw(rng, n, k, sharp, bias):
    """Logits of a miscalibrated model: the true class drawn from softmax(t), the
    model's logits sharp * t plus a per-class bias and noise."""
    t = rng.normal(size=(n, k)) * 1.5
    y = np.array([rng.choice(k, p=p) for p in softmax(t)])
    z = sharp * t + bias + 0.3 * rng.normal(size=(n, k))
    return z, y


def case(name, seed, n, k, sharp, strength):
    rng = np.random.default_rng(seed)
    bias = np.linspace(-0.5, 0.5, k)
    z, y = draw(rng, n + 40, k, sharp, bias)
    zc, yc, zq = z[:n], y[:n], z[n:]
    pc, pq = softmax(zc), softmax(zq)
    assert pc.min() > 1e-12 and pq.min() > 1e-12
    assert sorted(set(yc.tolist())) == list(range(k))
    out = {"name": name, "k": k, "logits": zc.tolist(), "probs": pc.tolist(),
           "labels": yc.tolist(), "query_logits": zq.tolist(), "query_probs": pq.tolist(),
           "strength": strength}
    d = FullDirichletCalibrator(reg_lambda=strength, reg_mu=strength, reg_norm=True)
    d.fit(pc, yc)
    m = MatrixScaling(logit_input=True)
    m.fit(zc, yc)
    v = VectorScaling(logit_input=True)
    v.fit(zc, yc)
    for key, cal, xc, xq in [("dirichlet", d, pc, pq), ("matrix", m, zc, zq),
                             ("vector", v, zc, zq)]:
        q_fit = np.asarray(cal.predict_proba(xc))
        assert q_fit[np.arange(n), yc].min() > 1e-15, (name, key)
        out[key] = {"weights": np.asarray(cal.weights if key == "dirichlet" else cal.weights_).tolist(),
                    "query_p": np.asarray(cal.predict_proba(xq)).tolist()}
    return out


def main(path):
    cases = [
        case("overconfident_k4", 1, 400, 4, 2.5, 0.1),
        case("underconfident_k3", 2, 300, 3, 0.5, 1.0),
        case("k6_strong", 3, 500, 6, 1.8, 10.0),
        case("k5_weak", 4, 450, 5, 1.3, 0.01),
    ]
    import dirichletcal
    with open(path, "w") as f:
        json.dump({"dirichletcal": dirichletcal.__version__ if hasattr(dirichletcal, "__version__") else "0.5.3",
                   "cases": cases}, f)


if __name__ == "__main__":
    main(sys.argv[1])
