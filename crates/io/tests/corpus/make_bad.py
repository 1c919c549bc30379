#!/usr/bin/env python3
"""Writes the bad-input corpus (tests/corpus/bad/). Standard library only.

Each file NAME gets its expectation in NAME.expected (written by hand, checked by
tests/bad_corpus.rs): one line per error, `code key=value ...`.
"""
import os, struct, zipfile, zlib, io, binascii

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad")
os.makedirs(HERE, exist_ok=True)

def w(name, data):
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)

def npy(descr, shape, data, fortran=False, version=1):
    d = descr if descr.startswith("[") else repr(descr)
    s = "(%d,)" % shape[0] if len(shape) == 1 else "(" + ", ".join(map(str, shape)) + ")"
    h = "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (d, "True" if fortran else "False", s)
    pre = 10 if version == 1 else 12
    while (pre + len(h) + 1) % 64:
        h += " "
    h += "\n"
    out = b"\x93NUMPY" + bytes([version, 0])
    out += struct.pack("<H" if version == 1 else "<I", len(h)) + h.encode("latin-1")
    return out + data

def i8(v): return struct.pack("<%dq" % len(v), *v)
def f4(v): return struct.pack("<%df" % len(v), *v)
def f8(v): return struct.pack("<%dd" % len(v), *v)

def npz(members, deflate=False):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED) as z:
        for name, data in members:
            with z.open(name, "w", force_zip64=True) as f:
                f.write(data)
    return b.getvalue()

LAB = npy("<i8", [3], i8([0, 2, 1]))
PROBS = npy("<f4", [3, 3], f4([0.7, 0.2, 0.1, 0.1, 0.1, 0.8, 0.25, 0.5, 0.25]))

# ---------------------------------------------------------------- CSV
w("empty.csv", b"")
w("whitespace_only.csv", "  \n\n\t\n")
w("header_only.csv", "label,p\n")
w("header_only_crlf.csv", "label,p_0,p_1\r\n\r\n")
w("no_header.csv", "1,0.9\n0,0.2\n")
w("ragged_short.csv", "label,p_0,p_1\n0,0.5,0.5\n1,0.5\n0,0.4,0.6\n")
w("ragged_long.csv", "label,p\n0,0.5\n1,0,5\n")
w("bad_number.csv", "label,p\n0,0.5\n1,abc\n0,0.1\n")
w("nan.csv", "label,p_0,p_1\n0,0.5,0.5\n1,nan,0.5\n")
w("inf.csv", "label,logit\n0,inf\n1,-inf\n0,1.5\n")
w("empty_value.csv", "label,p\n0,0.5\n1,\n")
w("prob_out_of_range.csv", "label,p\n0,0.5\n1,1.5\n")
w("negative_prob.csv", "label,p_0,p_1\n0,1.1,-0.1\n")
w("row_sum.csv", "label,p_0,p_1,p_2\n0,0.5,0.3,0.2\n1,0.47,0.2,0.2\n2,0.2,0.2,0.6\n")
w("logits_as_probs.csv", "label,p_0,p_1,p_2\n0,2.5,-1.0,0.3\n")
w("label_out_of_range.csv", "label,p_0,p_1\n0,0.5,0.5\n2,0.5,0.5\n")
w("negative_label.csv", "label,p\n-1,0.5\n0,0.5\n")
w("float_label.csv", "label,p\n1.5,0.5\n0,0.5\n")
w("text_label.csv", "label,p_0,p_1\ncat,0.5,0.5\n")
w("mixed_labels.csv", "label,p_cat,p_dog\ncat,0.9,0.1\n1,0.2,0.8\ndog,0.3,0.7\n")
w("empty_label.csv", "label,p\n,0.5\n1,0.5\n")
w("unknown_class_name.csv", "label,p_cat,p_dog\ncat,0.9,0.1\ncow,0.2,0.8\n")
w("bool_label_multiclass.csv", "label,p_0,p_1,p_2\ntrue,0.2,0.3,0.5\n")
w("duplicate_columns.csv", "label,p,P\n0,0.5,0.5\n")
w("missing_label.csv", "p_0,p_1\n0.5,0.5\n")
w("missing_scores.csv", "label,foo\n0,1\n")
w("non_utf8_header.csv", b"label,p,caf\xe9\n0,0.5,1\n")
w("non_utf8_label.csv", b"label,p_a,p_b\n\xe9,0.5,0.5\n")
w("utf16.csv", "label,p\n0,0.5\n".encode("utf-16"))
w("gzip.csv", zlib.compress(b"label,p\n0,0.5\n")[:2] and b"\x1f\x8b\x08\x00" + b"\x00" * 20)
w("binary_garbage.csv", bytes(range(1, 40)) + b"\x00\x00\x00" + bytes(range(200, 256)))
w("toplabel_bad_conf.csv", "label,yhat,conf\n0,0,0.9\n1,0,1.2\n")
w("toplabel_bad_pred.csv", "label,yhat,conf\n0,x,0.9\n")
w("long_label_mismatch.csv", "model,id,label,p\na,0,1,0.9\na,1,0,0.2\nb,0,1,0.7\nb,1,1,0.4\n")
w("long_length_mismatch.csv", "model,label,p\na,1,0.9\na,0,0.2\nb,1,0.7\n")
w("unterminated_quote.csv", "label,p\n1,\"0.5\n0,0.2\n")
w("pickle.pt", b"\x80\x02\x8a\x0alz\xe8\x9c\x1e" + b"\x00" * 16)
# ---------------------------------------------------------------- JSON
w("json_truncated.json", '[{"label": 1, "p": 0.5}, {"label": 0, "p": 0.')
w("json_numbers_not_records.json", "[1, 2, 3]")
w("json_ragged.json", '[{"label": 0, "probs": [0.5, 0.5]}, {"label": 1, "probs": [0.2, 0.3, 0.5]}]')
w("json_columns_length.json", '{"label": [0, 1, 1], "p": [0.5, 0.5]}')
w("json_deep.json", "[" * 100 + "]" * 100)
w("json_missing_key.json", '[{"label": 0, "p": 0.5}, {"label": 1}]')
w("json_empty_array.json", "[]")
w("json_trailing.json", '[{"label": 0, "p": 0.5}] x')
# ---------------------------------------------------------------- NPY
w("npy_truncated_header.npy", LAB[:40])
w("npy_truncated_data.npy", PROBS[:-5])
w("npy_bad_version.npy", b"\x93NUMPY\x09\x00" + LAB[8:])
w("npy_object.npy", npy("|O", [3], b"\x00" * 24))
w("npy_string_labels.npy", npy("<U3", [2], b"\x00" * 24))
w("npy_complex.npy", npy("<c8", [2], b"\x00" * 16))
w("npy_3d.npy", npy("<f4", [2, 2, 2], f4([0.5] * 8)))
w("npy_bad_header.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", 54) + b"{'descr': <f4, 'fortran_order': False, 'shape': (1,)}\n")
w("npy_missing_key.npy", npy("<f4", [1], f4([0.5])).replace(b"'fortran_order'", b"'fortran_ordex'"))
w("npy_trailing.npy", PROBS + b"\x00\x01\x02")
w("npy_plain_alone.npy", PROBS)
st = "[('label', '<i8'), ('p', '<f8')]"
w("npy_structured_nan.npy", npy(st, [3], i8([0]) + f8([0.5]) + i8([1]) + f8([float("nan")]) + i8([1]) + f8([0.25])))
w("npy_structured_negative_label.npy", npy(st, [2], i8([-3]) + f8([0.5]) + i8([1]) + f8([0.5])))
w("npy_structured_float_label.npy", npy("[('label', '<f8'), ('p', '<f8')]", [2], f8([1.5, 0.5, 1.0, 0.5])))
w("npy_structured_no_scores.npy", npy("[('label', '<i8'), ('weight', '<f8')]", [1], i8([1]) + f8([0.5])))
w("npy_structured_2d.npy", npy(st, [1, 1], i8([1]) + f8([0.5])))
# ---------------------------------------------------------------- NPZ
w("npz_empty.npz", b"")
w("npz_no_members.npz", npz([]))
full = npz([("labels.npy", LAB), ("probs.npy", PROBS)])
w("npz_truncated.npz", full[: len(full) // 2])
w("npz_no_central_directory.npz", full[: full.index(b"PK\x01\x02")])
crc = bytearray(full)
pos = full.index(PROBS) + len(PROBS) - 2
crc[pos] ^= 0xFF
w("npz_crc.npz", bytes(crc))
bz = bytearray(full)
bz[8] = 12  # method of the first member: bzip2
w("npz_bzip2.npz", bytes(bz))
enc = bytearray(full)
enc[6] |= 1  # flags: encrypted
w("npz_encrypted.npz", bytes(enc))
w("npz_missing_labels.npz", npz([("probs.npy", PROBS)]))
w("npz_length_mismatch.npz", npz([("labels.npy", npy("<i8", [2], i8([0, 1]))), ("probs.npy", PROBS)]))
w("npz_label_out_of_range.npz", npz([("labels.npy", npy("<i8", [3], i8([0, 5, 1]))), ("probs.npy", PROBS)]))
w("npz_only_text.npz", npz([("readme.txt", b"hello")]))
w("npz_member_truncated_npy.npz", npz([("labels.npy", LAB[:-4]), ("probs.npy", PROBS)]))
# declared size far beyond the limit
big = bytearray(npz([("labels.npy", LAB)]))
zpos = big.index(b"\x01\x00\x10\x00") + 4  # zip64 extra: uncompressed size first
big[zpos:zpos + 8] = struct.pack("<Q", 100 << 30)
w("npz_bomb_declared.npz", bytes(big))
# a member that declares 1 KiB and inflates to 64 MiB of zeros
payload = npy("<f4", [16 << 20], b"")  # header declaring 16M float32
co = zlib.compressobj(9, zlib.DEFLATED, -15)
stream = co.compress(payload) + co.compress(b"\x00" * (64 << 20)) + co.flush()
name = b"labels.npy"
extra = struct.pack("<HHQQ", 1, 16, 1024, len(stream))
hdr = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, 0, 0x21, 0, 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra))
w("npz_bomb_inflate.npz", hdr + name + extra + stream + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0, 0, 0, 0, 0))
gar = bytearray(npz([("labels.npy", LAB)], deflate=True))
dpos = gar.index(b"labels.npy") + len(b"labels.npy") + 20
for i in range(dpos, dpos + 12):
    gar[i] = 0xFF
w("npz_corrupt_deflate.npz", bytes(gar))
w("json_deep_value.json", '[{"label": ' + "[" * 100 + "]" * 100 + "}]")
w("json_not_utf8.json", b'[{"label": "\xe9", "p": 0.5}]')
w("long_nan_in_second_model.csv", "model,label,p_0,p_1\na,0,0.9,0.1\na,1,0.2,0.8\nb,0,0.6,0.4\nb,1,,0.3\n")
w("toplabel_huge_label.csv", "label,yhat,conf\n5000000,0,0.5\n1,1,0.9\n")

# --- compressed text (gzip: the standard library; zstd: frames written by hand)
import gzip
GOOD = b"label,p_0,p_1\n" + b"".join(b"%d,%r,%r\n" % (i % 2, 0.25 + i / 1000, 0.75 - i / 1000) for i in range(200))
gz = gzip.compress(GOOD, mtime=0)
w("gzip_truncated.csv.gz", gz[: len(gz) // 2])
bad_crc = bytearray(gz)
bad_crc[-8] ^= 0xFF  # the trailer's CRC-32
w("gzip_crc.csv.gz", bytes(bad_crc))
w("gzip_trailing_garbage.csv.gz", gz + b"garbage")
w("gzip_not_table.csv.gz", gzip.compress(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, mtime=0))

def zstd_frame(blocks, size=None):
    """A zstd frame (RFC 8878) of (type, payload, last) blocks; type 0 = raw."""
    head = b"\x28\xb5\x2f\xfd"
    if size is not None and size < 256:
        head += bytes([0x20, size])  # single segment, 1-byte content size
    else:
        head += bytes([0x00, 0x58])  # window descriptor: 1 MiB... (exponent 11)
    out = head
    for kind, payload, last in blocks:
        n = 1 if kind == 1 else len(payload)
        h = int(last) | (kind << 1) | (n << 3)
        out += struct.pack("<I", h)[:3] + payload
    return out

raw = zstd_frame([(0, GOOD[:1000], False), (0, GOOD[1000:], True)])
w("zstd_truncated.csv.zst", raw[: len(raw) - 300])
w("zstd_corrupt.csv.zst", zstd_frame([(2, b"\xff" * 40, True)]))

# --- scikit-learn / pandas conventions: readings the labels contradict
w("class_columns_mismatch.csv", "label,cat,dog,bird\nfish,0.2,0.3,0.5\ncat,0.6,0.3,0.1\nfish,0.1,0.1,0.8\n")
w("binary_labels_past_one.csv", "label,score,cat,dog,bird\n0,0.6,0.6,0.3,0.1\n2,0.5,0.2,0.3,0.5\n1,0.7,0.2,0.7,0.1\n2,0.8,0.1,0.1,0.8\n")
w("one_based_class_columns.csv", "label,p_1,p_2,p_3\n0,0.6,0.3,0.1\n2,0.2,0.3,0.5\n1,0.2,0.7,0.1\n0,0.8,0.1,0.1\n")
w("binary_only_column_past_one.csv", "y,p\n0,0.2\n3,0.9\n1,0.7\n")

# --- lm-evaluation-harness sample logs (the layout EvaluationTracker writes; see
# crates/io/tests/data/lm_eval for logs written by the harness itself)
def lm_sample(doc_id, lls, target, extra=""):
    pairs = ", ".join(f'["{ll}", "False"]' for ll in lls)
    return (f'{{"doc_id": {doc_id}, "doc": {{}}, "target": "{target}", '
            f'"filtered_resps": [{pairs}], "filter": "none", "acc": 0.0{extra}}}\n')
w("lm_eval_target_outside.jsonl",
  lm_sample(0, [-1.5, -2.0, -3.0], 1) + lm_sample(1, [-1.0, -2.0, -0.5], 3))
# questions may have different numbers of choices, but a target must be one of its
# own question's; a response must be a [loglikelihood, is_greedy] pair; one
# argument per response
w("lm_eval_ragged_target_outside.jsonl",
  lm_sample(0, [-1.5, -2.0, -3.0], 1) + lm_sample(1, [-1.0, -2.0], 2))
w("lm_eval_ragged_pair.jsonl",
  lm_sample(0, [-1.5, -2.0, -3.0], 1)
  + '{"doc_id": 1, "doc": {}, "target": "0", "filtered_resps": [["-1.0", "False"], ["-2.0"]], "filter": "none", "acc": 0.0}\n')
w("lm_eval_args_mismatch.jsonl",
  lm_sample(0, [-1.5, -2.0], 1)
  + lm_sample(1, [-1.0, -2.0], 0, ', "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": " a"}, '
              '"gen_args_1": {"arg_0": "Q", "arg_1": " b"}, "gen_args_2": {"arg_0": "Q", "arg_1": " c"}}'))
w("lm_eval_text_target.jsonl",
  lm_sample(0, [-1.5, -2.0], "yes") + lm_sample(1, [-1.0, -2.0], 0))
w("lm_eval_bad_loglik.jsonl",
  lm_sample(0, [-1.5, -2.0], 0) + lm_sample(1, ["-1.0x", -2.0], 0))

# --- verbalised confidence with abstention (a confidence column + a correctness
# column): a column mixing % signs and fractions, a correctness that is not 0/1,
# a confidence past 100, every question abstained
w("verbal_mixed_percent.csv", "id,verbalized_confidence,correct\n0,85%,1\n1,0.5,0\n2,90%,1\n")
w("verbal_bad_correct.csv", "confidence,is_correct\n0.5,1\n0.7,maybe\n,\n")
w("verbal_out_of_range.csv", "stated_confidence,correct\n50,1\n140,0\n")
w("verbal_all_abstained.csv", "confidence,correct\n,\nNaN,\n")

import json

# --- HELM per_instance_stats.json (the layout of HELM's runner: a list of
# PerInstanceStats): an instance without max_prob, an exact_match that is not 0/1
def helm_instance(i, stats):
    return {"instance_id": f"id{i}", "train_trial_index": 0, "stats": [
        {"name": {"name": n, "split": "test"}, "count": 1, "sum": v, "sum_squared": v * v,
         "min": v, "max": v, "mean": v} for n, v in stats]}
w("helm_no_max_prob.json", json.dumps([helm_instance(0, [("exact_match", 1.0), ("max_prob", 0.9)]),
                                       helm_instance(1, [("exact_match", 0.0)])], indent=2))
w("helm_bad_exact_match.json", json.dumps([helm_instance(0, [("exact_match", 1.0), ("max_prob", 0.9)]),
                                           helm_instance(1, [("exact_match", 0.5), ("max_prob", 0.6)])], indent=2))

# --- multilabel tables (one 0/1 column and one score column per label): a label
# that is not 0/1, a probability past 1 and a missing score, a row short of fields,
# logit and probability columns mixed, a header and no rows, JSON list values where
# a label is a list
w("multilabel_label_two.csv", "id,toxic,obscene,p_toxic,p_obscene\na,1,0,0.9,0.2\nb,2,0,0.3,0.1\n")
w("multilabel_bad_scores.csv", "y_0,y_1,p_0,p_1\n1,0,1.5,0.2\n0,1,0.3,\n")
w("multilabel_ragged.csv", "y_a,y_b,p_a,p_b\n1,0,0.9,0.2\n0,1,0.3\n")
w("multilabel_mixed_sources.csv", "y_a,y_b,logit_a,p_b\n1,0,2.0,0.2\n")
w("multilabel_header_only.csv", "y_a,y_b,p_a,p_b\n")
w("multilabel_nested.jsonl",
  '{"y": [1, 0], "probs": [0.9, 0.2]}\n{"y": [[1], 0], "probs": [0.8, 0.1]}\n')
