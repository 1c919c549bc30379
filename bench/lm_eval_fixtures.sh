#!/usr/bin/env bash
# Writes lm-evaluation-harness sample logs under crates/io/tests/data/lm_eval/ with
# the harness's own writer, in a throwaway virtual environment:
#   bash bench/lm_eval_fixtures.sh [/tmp/venv-dir]
# The samples are built the way lm_eval/evaluator.py `evaluate` builds them
# (doc_id, doc, target, arguments, resps, filtered_resps, filter, metrics, hashes,
# then the metrics of ConfigurableTask.process_results) from a seeded synthetic
# model, and written by lm_eval's EvaluationTracker.save_results_samples (which
# turns every response into strings with sanitize_list and the target into
# str(target)). Each log comes with the same numbers as a canonical
# `id,label,logit_<j>` CSV; crates/io/tests/lm_eval.rs checks that calibscope reads
# both the same, that the logged acc is checked, and the bad logs' messages.
# The harness is installed without its model dependencies (torch is not needed to
# write a log).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-/tmp/calibscope_lmeval_venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --no-deps "lm_eval==0.4.13"
    "$venv/bin/pip" install -q numpy pyyaml jinja2 requests datasets huggingface_hub
fi
out="$here/crates/io/tests/data/lm_eval"
mkdir -p "$out"
"$venv/bin/python" - "$out" <<'PY'
import glob, json, os, shutil, sys, tempfile
import numpy as np
from lm_eval.loggers import EvaluationTracker
from lm_eval.utils import hash_string

out = sys.argv[1]
rng = np.random.default_rng(20261203)

def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()

def sample(doc_id, doc, choices, gold, lls, context, target=None, extra=None):
    """One logged sample as evaluate() builds it for a multiple_choice task."""
    lls = [float(x) for x in lls]
    greedy = [bool(i == int(np.argmax(lls))) for i in range(len(lls))]
    args = [(context, " " + c) for c in choices]
    resps = [[(ll, g)] for ll, g in zip(lls, greedy)]
    filtered = [(ll, g) for ll, g in zip(lls, greedy)]
    completion_len = np.array([float(len(c)) for c in choices])
    pred = int(np.argmax(lls))
    pred_norm = int(np.argmax(np.array(lls) / completion_len))
    metrics = {"acc": 1.0 if pred == gold else 0.0, "acc_norm": 1.0 if pred_norm == gold else 0.0}
    if extra:
        metrics.update(extra)
    target = gold if target is None else target
    ex = {
        "doc_id": doc_id,
        "doc": doc,
        "target": target,
        "arguments": args,
        "resps": resps,
        "filtered_resps": filtered,
        "filter": "none",
        "metrics": list(metrics.keys()),
        "doc_hash": hash_string(json.dumps(doc, indent=2, ensure_ascii=False)),
        "prompt_hash": hash_string(args[0][0]),
        "target_hash": hash_string(str(target)),
    }
    ex.update(metrics)
    return ex

def write(task, samples, name):
    """Writes through the harness's tracker, then moves the log to `name`."""
    tmp = tempfile.mkdtemp()
    tracker = EvaluationTracker(output_path=tmp)
    tracker.date_id = "2026-12-03T00-00-00.000000"
    tracker.general_config_tracker.model_name_sanitized = "synthetic-lm"
    tracker.save_results_samples(task_name=task, samples=samples)
    (path,) = glob.glob(os.path.join(tmp, "synthetic-lm", f"samples_{task}_*.jsonl"))
    shutil.move(path, os.path.join(out, name))
    shutil.rmtree(tmp)

def canonical(samples, k, name):
    """The same numbers as a plain CSV (the log writes str(float), so does this)."""
    with open(os.path.join(out, name), "w") as f:
        f.write("id,label," + ",".join(f"logit_{j}" for j in range(k)) + "\n")
        for s in samples:
            lls = [str(ll) for ll, _ in s["filtered_resps"]]
            f.write(f"{s['doc_id']},{s['gold']},{','.join(lls)}\n")

def task(n, k, sharp, integer_targets):
    samples = []
    for doc_id in range(n):
        choices = [f"ending {doc_id}.{j} " + "word " * int(rng.integers(1, 6)) for j in range(k)]
        gold = int(rng.integers(0, k))
        # a model that is right more often than chance, with per-choice log-likelihoods
        lls = rng.normal(-12.0, 3.0, size=k)
        lls[gold] += sharp * abs(rng.normal())
        doc = {"ctx": f"context {doc_id}", "endings": choices, "label": str(gold)}
        target = None if integer_targets else " ".join(choices[gold].split())
        if not integer_targets:
            choices = [" ".join(c.split()) for c in choices]
        s = sample(doc_id, doc, choices, gold, lls, f"context {doc_id}", target=target)
        samples.append((s, gold))
    return samples

def plain(samples):
    return [dict(s) for s, _ in samples]

def with_gold(samples):
    rows = []
    for s, gold in samples:
        r = dict(s)
        r["gold"] = gold
        rows.append(r)
    return rows

# 1. a hellaswag-like task: 4 choices, integer targets (logged as "0".."3")
four = task(300, 4, 4.0, True)
write("hellaswag_like", plain(four), "samples_hellaswag_like.jsonl")
canonical(with_gold(four), 4, "hellaswag_like.csv")

# 2. a piqa-like task: 2 choices, the target is the gold choice's text
two = task(200, 2, 2.5, False)
write("piqa_like", plain(two), "samples_piqa_like.jsonl")
canonical(with_gold(two), 2, "piqa_like.csv")

# 3. the logged acc disagrees with the log-likelihoods on one question
mism = [dict(s) for s, _ in four[:40]]
mism[7] = dict(mism[7]); mism[7]["acc"] = 1.0 - mism[7]["acc"]
write("acc_mismatch", mism, "samples_acc_mismatch.jsonl")

# bad logs: a target outside the choices, a ragged question, a generated-text task
bad_target = [dict(s) for s, _ in four[:20]]
bad_target[5] = dict(bad_target[5]); bad_target[5]["target"] = 7
write("bad_target", bad_target, "samples_bad_target.jsonl")

ragged = [dict(s) for s, _ in four[:20]]
r = dict(ragged[9]); r["filtered_resps"] = r["filtered_resps"][:3]; r["resps"] = r["resps"][:3]
r["arguments"] = r["arguments"][:3]; r["target"] = 0; ragged[9] = r
write("ragged", ragged, "samples_ragged.jsonl")

gen = []
for doc_id in range(5):
    gen.append({"doc_id": doc_id, "doc": {"q": "?"}, "target": "42",
                "arguments": [("Q: ?\nA:", {"until": ["\n"]})], "resps": [["42"]],
                "filtered_resps": ["42"], "filter": "strict-match",
                "metrics": ["exact_match"], "doc_hash": "", "prompt_hash": "",
                "target_hash": "", "exact_match": 1.0})
write("generate", gen, "samples_generate.jsonl")

# 4. an ARC-like task whose questions have 3 to 5 choices (ragged), integer targets,
# with each question's own log-likelihoods in a plain file for the oracle tests
# (id,label,choices,ll_0..ll_4; a question's missing choices are empty)
arc = []
for doc_id in range(240):
    k = int(rng.choice([3, 4, 4, 4, 5]))
    choices = [f"answer {doc_id}.{j} " + "word " * int(rng.integers(1, 4)) for j in range(k)]
    gold = int(rng.integers(0, k))
    lls = rng.normal(-9.0, 2.5, size=k)
    lls[gold] += 3.0 * abs(rng.normal())
    doc = {"question": f"question {doc_id}", "choices": {"text": choices, "label": list("ABCDE"[:k])}, "answerKey": "ABCDE"[gold]}
    arc.append((sample(doc_id, doc, choices, gold, lls, f"Question: question {doc_id}\nAnswer:"), gold))
write("arc_like", plain(arc), "samples_arc_like.jsonl")
with open(os.path.join(out, "arc_like_choices.csv"), "w") as f:
    f.write("id,label,choices," + ",".join(f"ll_{j}" for j in range(5)) + "\n")
    for s, gold in arc:
        lls = [str(ll) for ll, _ in s["filtered_resps"]]
        f.write(f"{s['doc_id']},{gold},{len(lls)}," + ",".join(lls + [""] * (5 - len(lls))) + "\n")

# bad ragged logs: a target past its own question's choices (the log has questions
# with more), and responses that do not match the arguments (one choice's response cut)
short = next(i for i, (s, _) in enumerate(arc[:30]) if len(s["filtered_resps"]) == 3)
bad = [dict(s) for s, _ in arc[:30]]
bad[short] = dict(bad[short]); bad[short]["target"] = 3
write("ragged_bad_target", bad, "samples_ragged_bad_target.jsonl")
cut = [dict(s) for s, _ in arc[:30]]
cut[4] = dict(cut[4]); cut[4]["filtered_resps"] = cut[4]["filtered_resps"][:-1]
write("ragged_resps", cut, "samples_ragged_resps.jsonl")
# 5. an MMLU-like task: 4 choices, integer targets, each document with its subject
# (cais/mmlu's rows: question, subject, choices, answer); its own seed, so adding it
# changed none of the logs above. The log is grouped by subject unless told not to.
mrng = np.random.default_rng(20261207)
subjects = ["anatomy", "astronomy", "college_physics", "virology"]
mmlu = []
for doc_id in range(120):
    subject = subjects[int(mrng.integers(0, len(subjects)))]
    choices = [f"option {doc_id}.{j}" for j in range(4)]
    gold = int(mrng.integers(0, 4))
    lls = mrng.normal(-6.0, 2.0, size=4)
    lls[gold] += (1.0 + subjects.index(subject)) * abs(mrng.normal())
    doc = {"question": f"question {doc_id}", "subject": subject, "choices": choices, "answer": gold}
    mmlu.append(sample(doc_id, doc, choices, gold, lls, f"{subject}: question {doc_id}\nAnswer:"))
write("mmlu_like", mmlu, "samples_mmlu_like.jsonl")
print("short question at row", short)
print("wrote", sorted(os.listdir(out)))
PY
