"""Reference Clopper-Pearson bounds (Beta quantiles) at 60 significant digits.

    python3 crates/core/tests/refs/make_beta_quantile_refs.py > crates/core/tests/refs/beta_quantile_refs.json

Needs mpmath (any 1.x). The bounds' shapes are integers, so I_x(a, b) is a finite
binomial sum, computed at 60 digits; each bound is bracketed by bisection and then
polished by mpmath's findroot (no dependence on calibscope's starting guesses), and
printed with 20 significant digits, which pins the f64 result. Cases: the shapes of
reliability bins, successes x of n for n from 1 to 5000 (and the tails of n = 20000),
alpha 0.05 (the app's), 0.10 and 0.01. Takes ~3 minutes.
"""
import json
import random

import mpmath as mp

mp.mp.dps = 60


def cdf(a, b, x):
    """I_x(a, b) for integer shapes: P(Binomial(a + b - 1, x) >= a), summed exactly over
    the shorter of the two sides (min(a, b) terms, each positive: no cancellation)."""
    a, b = int(a), int(b)
    n = a + b - 1
    if a <= b:
        # 1 - P(K <= a - 1)
        return 1 - binomial_sum(n, x, range(0, a))
    return binomial_sum(n, x, range(a, n + 1))


def binomial_sum(n, x, ks):
    """sum over k in ks of C(n, k) x^k (1 - x)^(n - k), terms by their logarithms."""
    lx, ly = mp.log(x), mp.log1p(-x)
    total = mp.mpf(0)
    for k in ks:
        total += mp.exp(mp.loggamma(n + 1) - mp.loggamma(k + 1) - mp.loggamma(n - k + 1) + k * lx + (n - k) * ly)
    return total


def quantile(p, a, b):
    """Bisection to a 1e-8 relative bracket, then the secant method at 60 digits."""
    p, a, b = mp.mpf(p), mp.mpf(a), mp.mpf(b)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while hi - lo > hi * mp.mpf(10) ** -8:
        mid = (lo + hi) / 2 if lo > 0 and hi / lo < 4 else (mp.sqrt(lo * hi) if lo > 0 else hi / 2**40)
        if cdf(a, b, mid) < p:
            lo = mid
        else:
            hi = mid
    x = mp.findroot(lambda t: cdf(a, b, t) - p, (lo, hi), solver="anderson")
    assert lo * (1 - mp.mpf(10) ** -6) <= x <= hi * (1 + mp.mpf(10) ** -6)
    return x


def bounds(x, n, alpha):
    lower = mp.mpf(0) if x == 0 else quantile(mp.mpf(alpha) / 2, x, n - x + 1)
    upper = mp.mpf(1) if x == n else quantile(1 - mp.mpf(alpha) / 2, x + 1, n - x)
    return lower, upper


def main():
    rng = random.Random(20261201)
    cases = []
    for n in [1, 2, 3, 7, 10, 33, 100, 487, 500, 1000, 5000]:
        xs = {0, 1, n // 2, n - 1, n} | {rng.randint(0, n) for _ in range(4)}
        for x in sorted(v for v in xs if 0 <= v <= n):
            for alpha in [0.05, 0.10, 0.01]:
                cases.append((x, n, alpha))
    for x in [0, 1, 2, 3, 19997, 19999, 20000]:
        cases.append((x, 20000, 0.05))
    # bins as the slider makes them at m ~ 2000 on 1M rows: ~500 samples each
    for _ in range(120):
        n = rng.randint(300, 700)
        cases.append((rng.randint(0, n), n, 0.05))
    out = []
    for x, n, alpha in cases:
        lo, hi = bounds(x, n, alpha)
        out.append({"x": x, "n": n, "alpha": alpha,
                    "lower": mp.nstr(lo, 20, strip_zeros=False),
                    "upper": mp.nstr(hi, 20, strip_zeros=False)})
    print(json.dumps({"about": "Clopper-Pearson bounds at 60 digits (mpmath bisection); "
                      "see make_beta_quantile_refs.py", "cases": out}, indent=0))


main()
