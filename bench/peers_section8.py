"""Peer values for METRICS.md section 8: relplot 1.0.3's smECE and
uncertainty-calibration's debiased L2 calibration error on the contract's bins.

Run by bench/peers_section8.sh inside a throwaway virtual environment.

  python peers_section8.py fixtures SHARED OUT.json
      every valid fixture file (multi-model files: every model): the confidence
      reading and, for binary files, the positive-class reading.
  python peers_section8.py realworld SHARED OUTDIR
      the six CIFAR files of SHARED/real-world: writes OUTDIR/<name>.labels.npy and
      OUTDIR/<name>.probs.npy (the arrays as stored, decompressed) and
      OUTDIR/peers.json with the values on their confidence reading.

The readings follow METRICS.md section 1 (argmax with ties to the lowest index;
binary input, in one column or two, predicts class 1 iff P(y=1) >= 0.5). The debiased
L2 error is `calibration.utils.unbiased_l2_ce` (what `get_calibration_error(...,
debias=True)` computes once it has chosen bins) applied to the contract's bins
(section 2: equal-width with the 1e-7 edge tolerance, equal-mass by sorted position),
since `get_calibration_error` itself takes no bins.
"""

import json
import os
import sys
import zipfile

import numpy as np
import relplot
from calibration import utils as cu

M_VALUES = [10, 15]


def width_bin(u, m):
    x = u * m
    r = np.round(x)
    b = np.where(np.abs(x - r) <= 1e-7 * m, r, np.floor(x))
    return np.clip(b, 0, m - 1).astype(np.int64)


def mass_bin(u, m):
    order = np.argsort(u, kind="stable")
    b = np.empty(len(u), dtype=np.int64)
    b[order] = (np.arange(len(u), dtype=np.int64) * m) // len(u)
    return b


def l2_debiased(u, o, binning, m):
    b = width_bin(u, m) if binning == "width" else mass_bin(u, m)
    data = np.stack([u, o.astype(np.float64)], axis=1)
    binned = [data[b == j] for j in range(m)]
    return float(cu.unbiased_l2_ce(binned))


def values(u, o):
    u = np.asarray(u, dtype=np.float64)
    o = np.asarray(o, dtype=bool)
    s, sigma = relplot.smECE(u, o.astype(np.float64), return_width=True)
    out = {"n": int(len(u)), "smece": float(s), "smece_sigma": float(sigma)}
    out["ece_l2_debiased"] = {
        binning: {str(m): l2_debiased(u, o, binning, m) for m in M_VALUES}
        for binning in ("width", "mass")
    }
    return out


def softmax(z):
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def readings(labels, scores, probs):
    """(confidence pairs, positive pairs or None) of a prediction set."""
    labels = np.asarray(labels, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1 or scores.shape[1] == 1:
        s = scores.reshape(-1)
        p1 = s if probs else 1.0 / (1.0 + np.exp(-s))
        p = np.stack([1.0 - p1, p1], axis=1)
    else:
        p = scores if probs else softmax(scores)
    if p.shape[1] == 2:
        r = (p[:, 1] >= 0.5).astype(np.int64)
        pos = (p[:, 1], labels == 1)
    else:
        r = np.argmax(p, axis=1)
        pos = None
    c = p[np.arange(len(r)), r]
    return (c, labels == r), pos


def load_npy_in_zip(path):
    with zipfile.ZipFile(path) as z:
        return {name[:-4]: np.load(z.open(name)) for name in z.namelist()}


def load_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=np.float64, ndmin=2)
    return header, data


def fixture_sets(shared):
    """(key, labels, scores, probs) or (key, toplabel pairs) for every valid set."""
    root = os.path.join(shared, "fixtures")
    for sub in ("real", "synthetic", "edge", "multi"):
        d = os.path.join(root, sub)
        for name in sorted(os.listdir(d)):
            if not name.endswith(".expected.json"):
                continue
            stem = name[: -len(".expected.json")]
            exp = json.load(open(os.path.join(d, name)))
            if exp.get("input_error"):
                continue
            files = exp.get("files") or [exp["file"]]
            key = f"{sub}/{exp['file']}"
            if sub == "multi":
                header, data = load_csv(os.path.join(d, exp["file"]))
                models = np.genfromtxt(
                    os.path.join(d, exp["file"]), delimiter=",", skip_header=1,
                    usecols=0, dtype=str)
                probs = header[3].startswith("p")
                for model in exp["input"]["models"]:
                    rows = models == model
                    yield f"{key}#{model}", data[rows, 2], data[rows, 3:], probs
                continue
            path = os.path.join(d, exp["file"])
            if exp["input"]["format"] == "npy-pair":
                labels = np.load(os.path.join(d, stem + ".labels.npy"))
                other = [f for f in files if not f.endswith(".labels.npy")][0]
                yield key, labels, np.load(os.path.join(d, other)), other.endswith(".probs.npy")
            elif path.endswith(".npz"):
                arrays = load_npy_in_zip(path)
                probs = "probs" in arrays
                yield key, arrays["labels"], arrays["probs" if probs else "logits"], probs
            elif path.endswith(".npy"):
                a = np.load(path)
                yield key, a["label"], a["logit"], False
            else:
                header, data = load_csv(path)
                if header[1] == "yhat":
                    yield key, (data[:, 2], data[:, 0] == data[:, 1])
                else:
                    yield key, data[:, 0], data[:, 1:], header[1].startswith("p")


def main():
    mode, shared, out = sys.argv[1], sys.argv[2], sys.argv[3]
    result = {
        "generated_by": "bench/peers_section8.sh (relplot 1.0.3 smECE; "
        "uncertainty-calibration unbiased_l2_ce on the contract's bins)",
        "m_values": M_VALUES,
        "sets": {},
    }
    if mode == "fixtures":
        for item in fixture_sets(shared):
            if len(item) == 2:
                key, conf = item
                entry = {"confidence": values(*conf)}
            else:
                key, labels, scores, probs = item
                conf, pos = readings(labels, scores, probs)
                entry = {"confidence": values(*conf)}
                if pos is not None:
                    entry["positive"] = values(*pos)
            result["sets"][key] = entry
            print(key, entry["confidence"]["smece"], file=sys.stderr)
        with open(out, "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
            f.write("\n")
    elif mode == "realworld":
        os.makedirs(out, exist_ok=True)
        d = os.path.join(shared, "real-world")
        for name in sorted(os.listdir(d)):
            if not name.endswith(".npz"):
                continue
            stem = name[:-4]
            arrays = load_npy_in_zip(os.path.join(d, name))
            np.save(os.path.join(out, stem + ".labels.npy"), arrays["labels"])
            np.save(os.path.join(out, stem + ".probs.npy"), arrays["probs"])
            conf, _ = readings(arrays["labels"], arrays["probs"].astype(np.float64), True)
            result["sets"][stem] = {"confidence": values(*conf)}
            print(stem, result["sets"][stem]["confidence"]["smece"], file=sys.stderr)
        with open(os.path.join(out, "peers.json"), "w") as f:
            json.dump(result, f, indent=1, sort_keys=True)
            f.write("\n")
    else:
        sys.exit(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
