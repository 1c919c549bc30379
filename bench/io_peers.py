"""Issue 3's side-by-side benchmarks: calibscope's reader and CLI vs pandas,
scikit-learn and torchmetrics, on the same generated files, in the same run.

    python bench/io_peers.py generate OUT      # 100 MB numeric CSV (label,p_0..p_9) and a 1M-row binary CSV
    python bench/io_peers.py run OUT CALIBSCOPE IO_EXAMPLE --repeat 3 [--rounds 5]

The end-to-end rows time `calibscope audit FILE --json --bins 15 --no-recalibration`
(one process, the file read included) against the Python stack reading the same
CSV with pandas and computing (a) the audit's metrics as far as its libraries have
them, each called once (bench/peers.py's list), and (b) a small subset of them.

Run through bench/run_io_peers.sh, which makes the virtualenv and builds the tools.
"""
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np


def generate(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    multi = out / "multi_1e2mb.csv"
    if not multi.exists():
        n = 600_000  # about 100 MB as label,p_0..p_9 with 17 significant digits
        z = rng.normal(size=(n, 10)) * 2.0
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        y = np.array([rng.choice(10, p=row) for row in p[:50_000]] + list(rng.integers(0, 10, n - 50_000)))
        header = "label," + ",".join(f"p_{r}" for r in range(10))
        np.savetxt(multi, np.column_stack([y, p]), delimiter=",", header=header, comments="",
                   fmt=["%d"] + ["%.17g"] * 10)
    binary = out / "binary_1m.csv"
    if not binary.exists():
        n = 1_000_000
        u = rng.uniform(size=n)
        y = (rng.uniform(size=n) < u ** 1.3).astype(int)
        np.savetxt(binary, np.column_stack([y, u]), delimiter=",", header="label,p", comments="",
                   fmt=["%d", "%.17g"])
    for f in (multi, binary):
        print(f"{f.name}: {f.stat().st_size / 1e6:.1f} MB")


def best_of(repeat, fn):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def python_audit(path: Path) -> None:
    """The comparable audit with the Python stack: read the CSV with pandas, then
    ECE (15 bins), Brier, log loss, ROC AUC, accuracy, CSR/cwA with numpy."""
    import pandas as pd
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score
    df = pd.read_csv(path)
    y = df["label"].to_numpy()
    u = df["p"].to_numpy()
    try:
        import torch
        from torchmetrics.functional.classification import binary_calibration_error
        t_u, t_y = torch.from_numpy(u), torch.from_numpy(y)
        binary_calibration_error(t_u, t_y, n_bins=15, norm="l1")
        binary_calibration_error(t_u, t_y, n_bins=15, norm="max")
    except ImportError:
        edges = np.linspace(0, 1, 16)
        b = np.clip(np.digitize(u, edges[1:-1]), 0, 14)
        cnt = np.bincount(b, minlength=15)
        np.abs(np.bincount(b, weights=u - y, minlength=15)).sum() / len(u), cnt
    brier_score_loss(y, u)
    log_loss(y, np.clip(u, 1e-15, 1 - 1e-15))
    roc_auc_score(y, u)
    yhat = (u >= 0.5).astype(int)
    c = np.where(yhat == 1, u, 1 - u).clip(1e-8, 1 - 1e-8)
    z = yhat == y
    (1 / (1 - c[~z])).sum() / len(c), (c * z).sum() / c.sum()


def python_audit_same_metrics(path: Path) -> None:
    """The Python stack computing the metrics `calibscope audit --no-recalibration`
    reports for a binary set, as far as its libraries have them (bench/peers.py's
    list: torchmetrics' width-binned ECE/MCE/RMSCE of the three readings,
    scikit-learn's calibration curves, Brier scores, log loss, ROC AUC and cwAUC,
    accuracy, confusion matrix; numpy where no library has the metric: equal-mass
    ECE, CSR/cwA), each called once, after reading the CSV with pandas."""
    import pandas as pd
    sys.path.insert(0, str(Path(__file__).parent))
    from peers import binary_work
    tm = None
    try:
        import torch
        from torchmetrics.classification import BinaryCalibrationError, MulticlassCalibrationError
        tm = (torch, BinaryCalibrationError, MulticlassCalibrationError)
    except ImportError:
        pass
    df = pd.read_csv(path)
    y = df["label"].to_numpy().astype(np.int64)
    p = df["p"].to_numpy(dtype=np.float64)
    for _, _, fn in binary_work(p, y, tm):
        fn()


def pandas_read(path: Path, repeat: int, cpus) -> tuple:
    """pandas.read_csv in a fresh process on `cpus` (pandas 3 converts the columns in
    several threads when it has the cores): best wall time of `repeat` reads and the
    CPU time of that read."""
    code = ("import sys, time, pandas as pd\n"
            "best = (1e9, 0)\n"
            "for _ in range(int(sys.argv[2])):\n"
            "    t, c = time.perf_counter(), time.process_time()\n"
            "    pd.read_csv(sys.argv[1])\n"
            "    best = min(best, (time.perf_counter() - t, time.process_time() - c))\n"
            "print(*best)\n")
    out = subprocess.run([sys.executable, "-c", code, str(path), str(repeat)], check=True,
                         capture_output=True, text=True,
                         preexec_fn=lambda: os.sched_setaffinity(0, cpus)).stdout
    wall, cpu = out.split()
    return float(wall), float(cpu)


def run(out: Path, calibscope: str, io_example: str, repeat: int, rounds: int) -> None:
    rows = []
    cores = sorted(os.sched_getaffinity(0))
    for name in ("multi_1e2mb.csv", "binary_1m.csv"):
        path = out / name
        mb = path.stat().st_size / 1e6

        def ours(threads, cpus):
            text = subprocess.run([io_example, str(path)], check=True, capture_output=True, text=True,
                                  env={"REPEAT": str(repeat), "THREADS": threads},
                                  preexec_fn=lambda: os.sched_setaffinity(0, cpus)).stdout
            return float(text.strip().splitlines()[-1].split()[0])

        # pandas 3 parses with several threads when it has the cores: both sides on
        # one core, then on all cores (calibscope-io: THREADS=1 = its serial parser,
        # unset = one thread per core). This machine's speed drifts by tens of per
        # cent over seconds, so each round measures the four side by side and the
        # ratios are taken within a round (median, and range over the rounds).
        seen = []
        for _ in range(rounds):
            p1, _ = pandas_read(path, repeat, cores[:1])
            o1 = ours("1", cores[:1])
            pn, cpu = pandas_read(path, repeat, cores)
            on = ours("0", cores)
            seen.append((p1, o1, pn, on, cpu))
        med = statistics.median
        t_pandas_1, t_one, t_pandas, t_ours, cpu_pandas = (med([r[i] for r in seen]) for i in range(5))
        ratio_1 = [r[0] / r[1] for r in seen]
        ratio_n = [r[2] / r[3] for r in seen]
        rows.append({"input": name, "MB": round(mb, 1), "rounds": rounds,
                     "1 core: pandas s": round(t_pandas_1, 3), "calibscope-io s": round(t_one, 3),
                     "MB/s": [round(mb / t_pandas_1), round(mb / t_one)],
                     "speed-up": round(med(ratio_1), 2),
                     "speed-up range": [round(min(ratio_1), 2), round(max(ratio_1), 2)],
                     f"{len(cores)} cores: pandas s": round(t_pandas, 3), "calibscope-io  s": round(t_ours, 3),
                     "MB/s ": [round(mb / t_pandas), round(mb / t_ours)],
                     "speed-up ": round(med(ratio_n), 2),
                     "speed-up range ": [round(min(ratio_n), 2), round(max(ratio_n), 2)],
                     "pandas CPU s (all cores, best read)": round(cpu_pandas, 3)})
    binary = out / "binary_1m.csv"
    t_py = best_of(repeat, lambda: python_audit(binary))
    t_cli = best_of(repeat, lambda: subprocess.run(
        [calibscope, "audit", str(binary), "--json", "--bins", "15", "--no-recalibration"],
        check=True, capture_output=True))
    t_same = best_of(repeat, lambda: python_audit_same_metrics(binary))
    rows.append({"input": "binary_1m.csv end to end, the audit's metrics",
                 "python (pandas + sklearn + torchmetrics + numpy) s": round(t_same, 3),
                 "calibscope audit s": round(t_cli, 3), "speed-up": round(t_same / t_cli, 1)})
    rows.append({"input": "binary_1m.csv end to end, a subset (ECE/MCE 15, Brier, log loss, AUC, CSR, cwA)",
                 "python (pandas + sklearn + torchmetrics) s": round(t_py, 3),
                 "calibscope audit s": round(t_cli, 3), "speed-up": round(t_py / t_cli, 1)})
    for r in rows:
        print(json.dumps(r))
    (out / "io_peers.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    cmd, out = sys.argv[1], Path(sys.argv[2])
    if cmd == "generate":
        generate(out)
    else:
        repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
        rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 1
        run(out, sys.argv[3], sys.argv[4], repeat, rounds)
