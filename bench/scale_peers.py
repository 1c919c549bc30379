"""Issue 9's native comparison: `calibscope audit` of each scale input (written by
bench/gen_scale.mjs) against a Python script doing the comparable work with
pandas/numpy + scikit-learn + torchmetrics, end to end (reading the file included),
in the same run, one thread each (`--threads one`, the default: torch, numpy and
calibscope `--threads 1`), or each with every core (`--threads all`: torch's and the
BLAS' default thread counts, calibscope's default `--threads 0`, which runs the
audit's independent sections side by side and parses large CSVs in parallel).

    python bench/scale_peers.py DIR CALIBSCOPE [--repeat N] [--only probs|npz|npy] [--threads one|all]

The peer, per input: read (pandas.read_csv / numpy.load); probabilities (the CSV's
columns, or a float64 softmax of the logits); torchmetrics MulticlassCalibrationError
(15 bins, l1); Brier score (scikit-learn's brier_score_loss when it takes
multiclass input, else numpy); scikit-learn log_loss and one-vs-rest roc_auc_score
(macro); a temperature fit with torch.optim.LBFGS on the calibration half (a seeded
random half, as calibscope's default split). calibscope: `calibscope audit FILE...
--json --bins 15` (its full audit: every reading at m = 15, both binnings, the
classwise readings, AUCs, and temperature/Platt/isotonic recalibration on the
default split), the same with `--temperature-only` (the peer's work: the metrics and
a temperature fit) and with `--no-recalibration`. Each side is timed as a
process (wall, user + system CPU, peak RSS from /usr/bin/time), best of N.
Run through bench/run_scale_peers.sh.
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

INPUTS = {
    "probs": ["probs_1m_x10.csv"],
    "npz": ["logits_100k_x100.npz"],
    "npy": ["logits_1m_x100.labels.npy", "logits_1m_x100.logits.npy"],
}


def peer(kind: str, files: list) -> dict:
    """The peer's work on one input; returns the per-step times (seconds)."""
    import numpy as np
    import torch
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score
    from torchmetrics.classification import MulticlassCalibrationError

    if os.environ.get("PEER_THREADS", "one") == "one":
        torch.set_num_threads(1)
    t = {}
    t0 = time.perf_counter()
    logits = None
    if kind == "probs":
        import pandas as pd

        df = pd.read_csv(files[0])
        y = df["label"].to_numpy()
        p = df[[c for c in df.columns if c.startswith("p_")]].to_numpy(dtype=np.float64)
    else:
        if kind == "npz":
            z = np.load(files[0])
            y, logits = z["labels"], z["logits"]
        else:
            y, logits = np.load(files[0]), np.load(files[1])
        m = logits.max(axis=1, keepdims=True)
        e = np.exp(logits.astype(np.float64) - m)
        p = e / e.sum(axis=1, keepdims=True)
        del e
    k = p.shape[1]
    t["read"] = time.perf_counter() - t0

    s = time.perf_counter()
    pt, yt = torch.from_numpy(p), torch.from_numpy(y.astype(np.int64))
    ece = MulticlassCalibrationError(num_classes=k, n_bins=15, norm="l1")(pt, yt).item()
    t["ece15"] = time.perf_counter() - s

    s = time.perf_counter()
    try:
        brier = brier_score_loss(y, p, labels=list(range(k)))
    except (TypeError, ValueError):
        onehot = np.zeros_like(p)
        onehot[np.arange(len(y)), y] = 1.0
        brier = float(np.mean(np.sum((p - onehot) ** 2, axis=1)))
    t["brier"] = time.perf_counter() - s

    s = time.perf_counter()
    nll = log_loss(y, p, labels=list(range(k)))
    t["log_loss"] = time.perf_counter() - s

    s = time.perf_counter()
    auc = roc_auc_score(y, p, multi_class="ovr", labels=list(range(k)))
    t["roc_auc_ovr"] = time.perf_counter() - s

    s = time.perf_counter()
    zt = torch.from_numpy(np.asarray(logits, dtype=np.float32)) if logits is not None else torch.log(pt).float()
    cal = torch.from_numpy(np.random.default_rng(0).permutation(len(y))[: len(y) // 2])
    zc, yc = zt[cal], yt[cal]
    log_t = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=50, line_search_fn="strong_wolfe")
    loss_fn = torch.nn.CrossEntropyLoss()

    def closure():
        opt.zero_grad()
        loss = loss_fn(zc / log_t.exp(), yc)
        loss.backward()
        return loss

    opt.step(closure)
    t["temperature_lbfgs"] = time.perf_counter() - s
    t["values"] = {"ece15": ece, "brier": brier, "nll": nll, "auc_ovr": auc, "tau": float(log_t.exp())}
    return t


THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def timed(cmd: list, threads: str) -> dict:
    """Runs `cmd` under /usr/bin/time: wall, CPU (user + sys) seconds, peak RSS MB."""
    fmt = "%e %U %S %M"
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARS}
    env["PEER_THREADS"] = threads
    if threads == "one":
        env.update({k: "1" for k in THREAD_VARS})
    r = subprocess.run(["/usr/bin/time", "-f", fmt, *cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {r.stderr[-2000:]}")
    wall, user, system, rss = r.stderr.strip().splitlines()[-1].split()
    return {"wall": float(wall), "cpu": float(user) + float(system), "rss_mb": int(rss) / 1e3,
            "stdout": r.stdout}


def best(runs: list) -> dict:
    return {k: min(r[k] for r in runs) for k in runs[0] if k != "stdout"}


def main() -> None:
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    if sys.argv[1] == "--peer":
        # one peer run in this process: prints its step times as JSON
        kind, files = sys.argv[2], sys.argv[3:]
        print(json.dumps(peer(kind, files)))
        return
    d, exe = Path(sys.argv[1]), sys.argv[2]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    threads = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "one"
    if threads not in ("one", "all"):
        raise SystemExit("--threads takes one or all")
    cs_threads = ["--threads", "1" if threads == "one" else "0"]
    print(f"threads: {threads}", flush=True)
    results = {"threads": threads}
    for kind, names in INPUTS.items():
        if only and kind != only:
            continue
        files = [str(d / n) for n in names]
        size = sum(os.path.getsize(f) for f in files)
        pr, steps = [], None
        for _ in range(repeat):
            pr.append(timed([sys.executable, __file__, "--peer", kind, *files], threads))
            steps = json.loads(pr[-1]["stdout"].strip().splitlines()[-1])
        audit = [exe, "audit", *files, "--json", "--bins", "15", *cs_threads]
        full = best([timed(audit, threads) for _ in range(repeat)])
        norecal = best([timed([*audit, "--no-recalibration"], threads) for _ in range(repeat)])
        # the peer's work: the metrics and a temperature fit (no Platt, no isotonic)
        temp = best([timed([*audit, "--temperature-only"], threads) for _ in range(repeat)])
        peer_best = best(pr)
        results[kind] = {"files": names, "bytes": size, "peer": peer_best, "peer_steps": steps,
                         "calibscope": full, "calibscope_no_recal": norecal,
                         "calibscope_temperature_only": temp,
                         "ratio_wall": peer_best["wall"] / full["wall"],
                         "ratio_cpu": peer_best["cpu"] / full["cpu"],
                         "ratio_wall_temperature_only": peer_best["wall"] / temp["wall"],
                         "ratio_cpu_temperature_only": peer_best["cpu"] / temp["cpu"]}
        print(f"{kind} ({size / 1e6:.0f} MB): peer {peer_best['wall']:.2f} s wall / {peer_best['cpu']:.2f} s CPU "
              f"/ {peer_best['rss_mb']:.0f} MB; calibscope {full['wall']:.2f} s / {full['cpu']:.2f} s / "
              f"{full['rss_mb']:.0f} MB (no recalibration {norecal['wall']:.2f} s / {norecal['cpu']:.2f} s / "
              f"{norecal['rss_mb']:.0f} MB); ratio wall {results[kind]['ratio_wall']:.1f}x, "
              f"CPU {results[kind]['ratio_cpu']:.1f}x", flush=True)
        print(f"  comparable work (--temperature-only): calibscope {temp['wall']:.2f} s / {temp['cpu']:.2f} s / "
              f"{temp['rss_mb']:.0f} MB; ratio wall {results[kind]['ratio_wall_temperature_only']:.1f}x, "
              f"CPU {results[kind]['ratio_cpu_temperature_only']:.1f}x", flush=True)
        print(f"  peer steps (s): { {k: round(v, 3) for k, v in steps.items() if k != 'values'} }", flush=True)
        print(f"  peer values: {steps['values']}", flush=True)
    (d / f"peers_{threads}.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
