#!/usr/bin/env bash
# Writes the Parquet and Arrow IPC fixtures under crates/io/tests/data/columnar/ with
# the real producers (pandas + pyarrow, polars, pyarrow itself), in a throwaway
# virtual environment:
#   bash bench/columnar_fixtures.sh [/tmp/venv-dir]
# Every file holds the numbers of a canonical `label,p_<class>` CSV of
# crates/io/tests/data/sklearn/ (written by bench/sklearn_fixtures.sh), laid out the
# ways people write them: pandas' to_parquet, polars' list columns, pyarrow's
# fixed-size lists of float32, struct columns, dictionary-encoded string labels,
# several row groups, each codec, Feather and the IPC stream, a long-format file
# with a model column; and the bad inputs the reader must explain (into the
# bad-input corpus, crates/io/tests/corpus/bad/parquet_*). The test
# crates/io/tests/columnar.rs checks that calibscope reads each to the same
# prediction sets as the canonical CSV.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:-/tmp/calibscope_columnar_venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q pandas pyarrow polars numpy
fi
src="$here/crates/io/tests/data/sklearn"
out="$here/crates/io/tests/data/columnar"
mkdir -p "$out"
"$venv/bin/python" - "$src" "$out" <<'PY'
import sys, os
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pyarrow.feather as feather
import pyarrow.ipc as ipc

src, out = sys.argv[1], sys.argv[2]
def path(name):
    return os.path.join(out, name)

digits = pd.read_csv(os.path.join(src, "digits_canonical.csv"))
cancer = pd.read_csv(os.path.join(src, "cancer_canonical.csv"))
iris = pd.read_csv(os.path.join(src, "iris_classes.csv"), index_col=0)
pcols = [c for c in digits.columns if c.startswith("p_")]
P = digits[pcols].to_numpy()
y = digits["label"].to_numpy()

# pandas + pyarrow, the defaults (snappy, the RangeIndex kept as metadata)
digits.to_parquet(path("digits_pandas.parquet"))
# a non-default index is written as a column (`__index_level_0__`)
digits.set_index(pd.Index(np.arange(len(digits)) * 3)).to_parquet(path("digits_pandas_index.parquet"))
cancer.to_parquet(path("cancer_pandas.parquet"), compression="gzip")
# every codec the reader takes
for codec in ["zstd", "gzip", "lz4", "none"]:
    digits.to_parquet(path(f"digits_{codec}.parquet"), compression=codec)
# several row groups of 100 rows, read one at a time
pq.write_table(pa.Table.from_pandas(digits, preserve_index=False), path("digits_row_groups.parquet"),
               row_group_size=100, compression="zstd")
# polars: a list column of probabilities (zstd is polars' default)
pl.DataFrame({"label": y, "probs": P.tolist()}).write_parquet(path("digits_polars_list.parquet"))
# pyarrow: a fixed-size list of float32
f32 = pa.FixedSizeListArray.from_arrays(pa.array(P.astype(np.float32).ravel()), len(pcols))
pq.write_table(pa.table({"label": pa.array(y), "probs": f32}), path("digits_fixed_f32.parquet"))
# a struct column addressed by a dotted name, a string id
resp = pa.StructArray.from_arrays([pa.array(P.tolist()), pa.array(P.argmax(1))],
                                  names=["scores", "argmax"])
pq.write_table(pa.table({"id": pa.array([f"q{i}" for i in range(len(y))]),
                         "target": pa.array(y), "model_response": resp}),
               path("digits_struct.parquet"))
# class names: dictionary-encoded string labels (pandas' category) and class-name columns
iris_cat = iris.copy()
iris_cat["class"] = iris_cat["class"].astype("category")
iris_cat.to_parquet(path("iris_category.parquet"))
# Feather (Arrow IPC file, lz4 by default) and the IPC stream format
feather.write_feather(digits, path("digits.feather"))
table = pa.Table.from_pandas(digits, preserve_index=False)
with ipc.new_stream(path("digits.arrows"), table.schema) as w:
    w.write_table(table, max_chunksize=200)
# long format: two models on the same samples (the second sharpened: logits × 2)
logp = np.log(np.clip(P, 1e-300, None))
sharp = np.exp(2 * logp - (2 * logp).max(1, keepdims=True))
sharp /= sharp.sum(1, keepdims=True)
long = pd.concat([
    pd.DataFrame({"model": "lr", "label": y, **{c: P[:, i] for i, c in enumerate(pcols)}}),
    pd.DataFrame({"model": "lr_sharp", "label": y, **{c: sharp[:, i] for i, c in enumerate(pcols)}}),
])
long.to_parquet(path("digits_long.parquet"), index=False)
pd.DataFrame({"label": y, **{c: sharp[:, i] for i, c in enumerate(pcols)}}).to_csv(
    path("digits_sharp_canonical.csv"), index=False, float_format="%.17g")

# bad inputs, in the bad-input corpus (crates/io/tests/corpus/bad)
bad_dir = os.path.join(os.path.dirname(os.path.dirname(out)), "corpus", "bad")
def bad_path(name):
    return os.path.join(bad_dir, "parquet_" + name)
whole = open(path("digits_pandas.parquet"), "rb").read()
open(bad_path("truncated.parquet"), "wb").write(whole[: len(whole) - 40])
open(bad_path("magic.parquet"), "wb").write(b"PAR1" + b"\0" * 64 + b"PAR2")
digits.head(50).to_parquet(bad_path("brotli.parquet"), compression="brotli")
bad = digits.head(20).copy()
bad["p_3"] = bad["p_3"].map(lambda v: f"{v:.3f}")
bad.to_parquet(bad_path("text_scores.parquet"))
rag = [list(r) for r in P[:20]]
rag[7] = rag[7][:9]
pl.DataFrame({"label": y[:20], "probs": rag}).write_parquet(bad_path("ragged_list.parquet"))
lab = pd.DataFrame({"label": pd.array(list(y[:20]), dtype="Int64"), **{c: P[:20, i] for i, c in enumerate(pcols)}})
lab.loc[5, "label"] = pd.NA
lab.to_parquet(bad_path("null_label.parquet"))
bad_long = long.copy()
bad_long.iloc[len(y) + 5, bad_long.columns.get_loc("label")] = 12   # lr_sharp's 6th row
bad_long.to_parquet(bad_path("long_label_out_of_range.parquet"), index=False)
fea = open(path("digits.feather"), "rb").read()
open(os.path.join(bad_dir, "arrow_truncated.feather"), "wb").write(fea[: len(fea) // 2])

# fuzz seeds (crates/io/fuzz/seeds/{parquet,arrow}): small files of every layout
# and codec, a few KiB each, for the fuzzers and the mutation test
seeds = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(out))), "fuzz", "seeds")
os.makedirs(os.path.join(seeds, "parquet"), exist_ok=True)
os.makedirs(os.path.join(seeds, "arrow"), exist_ok=True)
def seed(kind, name):
    return os.path.join(seeds, kind, name)
small = digits.head(6)[["label"] + pcols[:3]].copy()
small[pcols[:3]] = small[pcols[:3]].div(small[pcols[:3]].sum(axis=1), axis=0)
for codec in ["snappy", "zstd", "gzip", "lz4", "none"]:
    small.to_parquet(seed("parquet", f"probs_{codec}.parquet"), compression=codec, index=False)
tiny = pa.table({"label": pa.array(small["label"].to_numpy()),
                 "probs": pa.array([list(r) for r in small[pcols[:3]].to_numpy(np.float32)],
                                   type=pa.list_(pa.float32(), 3))})
pq.write_table(tiny, seed("parquet", "fixed_list.parquet"), compression="none")
pl.DataFrame({"label": small["label"].to_numpy(), "scores": [list(r) for r in small[pcols[:3]].to_numpy()]}).write_parquet(seed("parquet", "polars_list.parquet"))
st = pa.table({"label": pa.array(["a", "b", "a", "c", "b", "a"]).dictionary_encode(),
               "out": pa.StructArray.from_arrays([pa.array(small[c].to_numpy()) for c in pcols[:3]], names=["a", "b", "c"])})
pq.write_table(st, seed("parquet", "struct_dict.parquet"), compression="none", row_group_size=2)
feather.write_feather(small, seed("arrow", "probs.feather"), compression="uncompressed")
feather.write_feather(small, seed("arrow", "probs_lz4.feather"), compression="lz4")
with ipc.new_stream(seed("arrow", "probs.arrows"), pa.Schema.from_pandas(small, preserve_index=False)) as w:
    w.write_table(pa.Table.from_pandas(small, preserve_index=False))

with open(path("VERSIONS"), "w") as f:
    f.write(f"pandas {pd.__version__}\npyarrow {pa.__version__}\npolars {pl.__version__}\nnumpy {np.__version__}\n")
PY
ls -l "$out"
