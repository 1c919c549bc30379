#!/usr/bin/env python3
"""The Python peers of calibscope's full audit, timed on the same inputs.

    python bench/peers.py generate OUT      # writes the inputs as .npy files to OUT
    python bench/peers.py time OUT          # times the peers on them -> OUT/peers.json
    python bench/peers.py report OUT        # peers vs OUT/calibscope.json, side by side

`bench/run_peers.sh` runs all three plus calibscope's side
(`crates/core/examples/peers_audit.rs`, which reads the same .npy files).

The inputs follow `crates/core/benches/data.rs` in distribution (not bit for bit:
numpy's generator, a different seed):

* binary: n = 1,000,000 float32 forecasts u ~ U(0, 1), labels y ~ Bernoulli(u^1.3);
* logits: 100,000 x 100 float32 logits z = 4 U(0, 1) (+ 3 U(0, 1) on the label's
  column), labels uniform over the 100 classes.

"The same work as the full audit, as far as the peers can do it": every metric the
audit reports at m = 15 (both binnings), AUC, cwAUC, CSR/cwA and the classwise
readings, each computed by the library function that computes it where one exists
(torchmetrics' calibration errors, scikit-learn's Brier, log loss, ROC AUC with
sample weights for cwAUC, calibration curves, confusion matrix), else by a few
lines of numpy (equal-mass ECE, CSR/cwA: no peer library has them). Each metric is
timed on its own (median of `--repeat` runs) after a warm-up call; the total is
the sum of the medians.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

N_BINS = 15
RELIABILITY_BINS = 10


def generate(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20240611)
    n = 1_000_000
    u = rng.random(n, dtype=np.float64).astype(np.float32)
    y = (rng.random(n) < np.power(u.astype(np.float64), 1.3)).astype(np.uint32)
    np.save(os.path.join(out, "binary_p.npy"), u)
    np.save(os.path.join(out, "binary_y.npy"), y)
    n, k = 100_000, 100
    labels = rng.integers(0, k, size=n).astype(np.uint32)
    z = rng.random((n, k)) * 4.0
    z[np.arange(n), labels] += 3.0 * rng.random(n)
    np.save(os.path.join(out, "logits_z.npy"), z.astype(np.float32))
    np.save(os.path.join(out, "logits_y.npy"), labels)
    print(f"wrote binary (1M) and logits (100k x 100) inputs to {out}")


# --- numpy stand-ins (no peer library computes these) -------------------------


def mass_ece(conf, correct, m=N_BINS):
    """Equal-mass ECE / MCE / RMSCE: m bins of sizes differing by at most one, by
    sorted position (calibscope's equal-mass binning)."""
    order = np.argsort(conf, kind="stable")
    c, z = conf[order], correct[order].astype(np.float64)
    n = len(c)
    edges = -(-np.arange(m + 1) * n // m)  # ceil(b n / m)
    sc = np.add.reduceat(c, edges[:-1])
    sz = np.add.reduceat(z, edges[:-1])
    cnt = np.diff(edges)
    gap = sz / cnt - sc / cnt
    return np.sum(np.abs(sz - sc)) / n, np.max(np.abs(gap)), np.sqrt(np.sum(cnt * gap**2) / n)


def width_ece_numpy(conf, correct, m=N_BINS):
    """Equal-width ECE / MCE / RMSCE as torchmetrics computes them (used only when
    torch is not installed)."""
    b = np.clip((conf * m).astype(np.int64), 0, m - 1)
    cnt = np.bincount(b, minlength=m).astype(np.float64)
    sc = np.bincount(b, weights=conf, minlength=m)
    sz = np.bincount(b, weights=correct.astype(np.float64), minlength=m)
    nz = cnt > 0
    gap = sz[nz] / cnt[nz] - sc[nz] / cnt[nz]
    n = len(conf)
    return np.sum(np.abs(sz - sc)) / n, np.max(np.abs(gap)), np.sqrt(np.sum(cnt[nz] * gap**2) / n)


def csr_cwa(conf, correct):
    c = np.clip(conf, 1e-8, 1 - 1e-8)
    n = len(c)
    csr = np.sum(1.0 / (1.0 - c[~correct])) / n
    sigma = np.sqrt(np.sum(c / (1.0 - c))) / n
    cwa = np.sum(c * correct) / np.sum(c)
    return csr, sigma, cwa


# --- timing -------------------------------------------------------------------


def timed(results, name, lib, fn, repeat):
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - t)
    ms = 1e3 * sorted(times)[len(times) // 2]
    results.append({"metric": name, "library": lib, "ms": ms, "value": scalar(value)})
    print(f"  {name:<58} {lib:<24} {ms:10.1f} ms", flush=True)
    return value


def scalar(v):
    if isinstance(v, tuple):
        v = v[0]
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def binary_work(p, y, tm):
    """The binary audit's metrics as the peers compute them: `(name, library,
    thunk)` for each, the thunks sharing the arrays made here (forecasts `p` of class
    1 as float64, labels `y`; `tm` = (torch, BinaryCalibrationError,
    MulticlassCalibrationError) or None for numpy stand-ins). bench/peers.py times
    each on its own; bench/io_peers.py calls each once after reading a CSV."""
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import (accuracy_score, brier_score_loss, confusion_matrix,
                                 log_loss, roc_auc_score)

    def calibration(conf_t, correct_t, conf, correct, norm):
        """Width-binned calibration error by torchmetrics (or numpy)."""
        if tm is None:
            return width_ece_numpy(conf, correct)[{"l1": 0, "max": 1, "l2": 2}[norm]]
        return tm[1](n_bins=N_BINS, norm=norm)(conf_t, correct_t).item()

    lib_ce = "torchmetrics" if tm else "numpy (torchmetrics-like)"
    work = []
    pred = (p >= 0.5).astype(np.int64)
    conf = np.where(p >= 0.5, p, 1.0 - p)
    correct = pred == y
    w = np.clip(conf, 1e-8, 1 - 1e-8)
    if tm:
        torch = tm[0]
        pt, yt = torch.from_numpy(p), torch.from_numpy(y)
        qt, nt = torch.from_numpy(1.0 - p), torch.from_numpy(1 - y)
        probs2 = torch.from_numpy(np.stack([1.0 - p, p], axis=1))
    else:
        pt = yt = qt = nt = probs2 = None
    # (default arguments bind each loop's values: the thunks run after the loops)
    for norm in ("l1", "max", "l2"):
        work.append((f"positive-class ECE/MCE/RMSCE width ({norm})", lib_ce,
                     lambda norm=norm: calibration(pt, yt, p, y == 1, norm)))
        work.append((f"class-0 reading width ({norm})", lib_ce,
                     lambda norm=norm: calibration(qt, nt, 1.0 - p, y == 0, norm)))
        if tm:
            work.append((f"confidence reading width ({norm})", lib_ce,
                         lambda norm=norm: tm[2](num_classes=2, n_bins=N_BINS, norm=norm)(probs2, yt).item()))
        else:
            work.append((f"confidence reading width ({norm})", lib_ce,
                         lambda norm=norm: calibration(None, None, conf, correct, norm)))
    for name, (c_, z_) in {"positive-class": (p, y == 1), "class-0": (1.0 - p, y == 0),
                           "confidence": (conf, correct)}.items():
        work.append((f"{name} reading ECE/MCE/RMSCE mass", "numpy (no peer)",
                     lambda c_=c_, z_=z_: mass_ece(c_, z_)))
    for strategy in ("uniform", "quantile"):
        work.append((f"reliability curve positive class ({strategy})", "scikit-learn",
                     lambda s_=strategy: calibration_curve(y, p, n_bins=RELIABILITY_BINS, strategy=s_)))
        work.append((f"reliability curve confidence ({strategy})", "scikit-learn",
                     lambda s_=strategy: calibration_curve(correct, conf, n_bins=RELIABILITY_BINS, strategy=s_)))
    work.append(("Brier (positive class)", "scikit-learn", lambda: brier_score_loss(y, p)))
    work.append(("Brier (confidence reading)", "scikit-learn", lambda: brier_score_loss(correct, conf)))
    work.append(("log loss (NLL)", "scikit-learn", lambda: log_loss(y, p)))
    work.append(("ROC AUC", "scikit-learn", lambda: roc_auc_score(y, p)))
    work.append(("cwAUC (AUC with confidence weights)", "scikit-learn",
                 lambda: roc_auc_score(y, p, sample_weight=w)))
    work.append(("accuracy", "scikit-learn", lambda: accuracy_score(y, pred)))
    work.append(("confusion matrix", "scikit-learn", lambda: confusion_matrix(y, pred)))
    work.append(("CSR, sigma_CSR, cwA", "numpy (no peer)", lambda: csr_cwa(conf, correct)))
    return work


def peers(out, repeat, use_torch):
    import sklearn
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import (accuracy_score, brier_score_loss, confusion_matrix,
                                 log_loss, roc_auc_score)

    tm = None
    if use_torch:
        try:
            import torch
            import torchmetrics
            from torchmetrics.classification import (BinaryCalibrationError,
                                                     MulticlassCalibrationError)
            torch.set_num_threads(1)
            tm = (torch, BinaryCalibrationError, MulticlassCalibrationError)
        except ImportError as e:
            print(f"torch/torchmetrics not available ({e}); calibration errors by numpy")
    versions = {"python": sys.version.split()[0], "numpy": np.__version__,
                "scikit-learn": sklearn.__version__}
    if tm:
        versions["torch"] = tm[0].__version__
        versions["torchmetrics"] = torchmetrics.__version__
    print("versions:", versions)

    lib_ce = "torchmetrics" if tm else "numpy (torchmetrics-like)"
    report = {"versions": versions, "threads": 1, "repeat": repeat, "sets": {}}

    # ---- binary, 1M --------------------------------------------------------
    p = np.load(os.path.join(out, "binary_p.npy")).astype(np.float64)
    y = np.load(os.path.join(out, "binary_y.npy")).astype(np.int64)
    print(f"binary n={len(y)}")
    res = []
    for name, lib, fn in binary_work(p, y, tm):
        timed(res, name, lib, fn, repeat)
    report["sets"]["binary_1m"] = res

    # ---- logits, 100k x 100 --------------------------------------------------
    zs = np.load(os.path.join(out, "logits_z.npy"))
    y = np.load(os.path.join(out, "logits_y.npy")).astype(np.int64)
    n, k = zs.shape
    print(f"logits n={n} k={k}")
    res = []

    def softmax():
        z = zs.astype(np.float64)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    if tm:
        torch = tm[0]
        zt64 = torch.from_numpy(zs.astype(np.float64))
        P = timed(res, "softmax", "torch", lambda: torch.softmax(zt64, dim=1), repeat).numpy()
    else:
        P = timed(res, "softmax", "numpy", softmax, repeat)
    pred = P.argmax(axis=1)
    conf = P[np.arange(n), pred]
    correct = pred == y
    w = np.clip(conf, 1e-8, 1 - 1e-8)
    onehot = np.zeros_like(P)
    onehot[np.arange(n), y] = 1.0
    if tm:
        Pt, yt = torch.from_numpy(P), torch.from_numpy(y)
    for norm in ("l1", "max", "l2"):
        if tm:
            timed(res, f"confidence reading width ({norm})", lib_ce,
                  lambda: tm[2](num_classes=k, n_bins=N_BINS, norm=norm)(Pt, yt).item(), repeat)
        else:
            timed(res, f"confidence reading width ({norm})", lib_ce,
                  lambda: width_ece_numpy(conf, correct)[{"l1": 0, "max": 1, "l2": 2}[norm]], repeat)
    timed(res, "confidence reading ECE/MCE/RMSCE mass", "numpy (no peer)",
          lambda: mass_ece(conf, correct), repeat)
    for norm in ("l1", "max", "l2"):
        if tm:
            cols = [(torch.from_numpy(np.ascontiguousarray(P[:, r])), torch.from_numpy((y == r).astype(np.int64)))
                    for r in range(k)]
            timed(res, f"classwise width, 100 class readings ({norm})", lib_ce,
                  lambda: np.mean([tm[1](n_bins=N_BINS, norm=norm)(c_, o_).item() for c_, o_ in cols]), repeat)
        else:
            timed(res, f"classwise width, 100 class readings ({norm})", lib_ce,
                  lambda: np.mean([width_ece_numpy(P[:, r], y == r)[0] for r in range(k)]), repeat)
    timed(res, "classwise mass, 100 class readings", "numpy (no peer)",
          lambda: np.mean([mass_ece(P[:, r], y == r)[0] for r in range(k)]), repeat)
    for strategy in ("uniform", "quantile"):
        timed(res, f"reliability curve confidence ({strategy})", "scikit-learn",
              lambda: calibration_curve(correct, conf, n_bins=RELIABILITY_BINS, strategy=strategy), repeat)
    timed(res, "Brier (multiclass)", "numpy", lambda: np.mean(np.sum((P - onehot) ** 2, axis=1)), repeat)
    timed(res, "Brier per class (100 readings)", "scikit-learn",
          lambda: [brier_score_loss(y == r, P[:, r]) for r in range(k)], repeat)
    timed(res, "Brier (confidence reading)", "scikit-learn",
          lambda: brier_score_loss(correct, conf), repeat)
    timed(res, "log loss (NLL)", "scikit-learn", lambda: log_loss(y, P, labels=np.arange(k)), repeat)
    timed(res, "ROC AUC one-vs-rest, per class", "scikit-learn",
          lambda: roc_auc_score(y, P, multi_class="ovr", average=None), repeat)
    timed(res, "cwAUC one-vs-rest, per class", "scikit-learn",
          lambda: [roc_auc_score(y == r, P[:, r], sample_weight=w) for r in range(k)], repeat)
    timed(res, "accuracy", "scikit-learn", lambda: accuracy_score(y, pred), repeat)
    timed(res, "confusion matrix", "scikit-learn", lambda: confusion_matrix(y, pred), repeat)
    timed(res, "CSR, sigma_CSR, cwA", "numpy (no peer)", lambda: csr_cwa(conf, correct), repeat)
    report["sets"]["logits_100k_x_100"] = res

    with open(os.path.join(out, "peers.json"), "w") as f:
        json.dump(report, f, indent=1)
    for name, rows in report["sets"].items():
        print(f"{name}: peers total {sum(r['ms'] for r in rows):.0f} ms")


def report(out):
    with open(os.path.join(out, "peers.json")) as f:
        peer = json.load(f)
    with open(os.path.join(out, "calibscope.json")) as f:
        ours = json.load(f)
    print(f"peers: {peer['versions']} (one thread; median of {peer['repeat']} runs per metric)")
    print(f"calibscope: median of {ours['repeat']} runs of the full audit (one thread)\n")
    print("| input | peers, all metrics | of which library calls | of which numpy (no peer) "
          "| calibscope full audit | calibscope speed-up (all / library only) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, rows in peer["sets"].items():
        total = sum(r["ms"] for r in rows)
        numpy_only = sum(r["ms"] for r in rows if "no peer" in r["library"])
        mine = ours["sets"][name]["ms"]
        print(f"| {name} | {total:.0f} ms | {total - numpy_only:.0f} ms | {numpy_only:.0f} ms "
              f"| {mine:.1f} ms | {total / mine:.1f}x / {(total - numpy_only) / mine:.1f}x |")
    print()
    print("cross-check (same definitions on both sides):")
    for name, rows in peer["sets"].items():
        values = {r["metric"]: r["value"] for r in rows}
        for metric, key in ours["sets"][name]["check"].items():
            theirs = values.get(metric)
            if theirs is not None:
                print(f"  {name:<20} {metric:<44} peers {theirs:.12g}  calibscope {key:.12g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["generate", "time", "report"])
    ap.add_argument("out")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-torch", action="store_true")
    a = ap.parse_args()
    if a.command == "generate":
        generate(a.out)
    elif a.command == "time":
        peers(a.out, a.repeat, not a.no_torch)
    else:
        report(a.out)


if __name__ == "__main__":
    main()
