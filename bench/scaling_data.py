"""Seeded synthetic multiclass logits for the multiclass maps' benchmark
(BENCHMARKS.md): N rows of K classes, an overconfident model (logits 2x the truth's
plus a class bias and noise), written as an npz with `labels` (int64) and `logits`
(float32):

    python bench/scaling_data.py OUT.npz N K
"""
import sys

import numpy as np


def main(path, n, k):
    rng = np.random.default_rng(0)
    t = rng.normal(size=(n, k)).astype(np.float64) * 1.5
    e = np.exp(t - t.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    u = rng.random(n)
    y = (p.cumsum(axis=1) < u[:, None]).sum(axis=1).clip(0, k - 1)
    z = 2.0 * t + np.linspace(-0.5, 0.5, k) + 0.3 * rng.normal(size=(n, k))
    np.savez(path, labels=y.astype(np.int64), logits=z.astype(np.float32))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
