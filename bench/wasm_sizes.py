#!/usr/bin/env python3
"""What the app's wasm is made of: code bytes per group of functions (by crate, with
serde and the formatting machinery apart), and the gzip -9 size of each group's
function bodies concatenated (a lower bound of what the group adds to the gzipped
module), plus the data segments.

Usage: cargo xtask dist --names && python3 bench/wasm_sizes.py dist/app_bg.wasm [--top N]

`--names` keeps the function names (wasm-opt `--debuginfo`); without them every
function is "unnamed". --top N also lists the N largest functions.
"""
import gzip
import re
import sys
from collections import defaultdict


def leb(b, i):
    """An unsigned LEB128 at b[i:], and the index after it."""
    result = shift = 0
    while True:
        byte = b[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def sections(b):
    assert b[:4] == b"\0asm", "not a wasm module"
    i = 8
    while i < len(b):
        sid = b[i]
        size, j = leb(b, i + 1)
        yield sid, b[j:j + size]
        i = j + size


def name_of(payload):
    n, i = leb(payload, 0)
    return payload[i:i + n].decode(), i + n


def imported_functions(payload):
    count, i = leb(payload, 0)
    funcs = 0
    for _ in range(count):
        for _ in range(2):  # module, field
            n, i = leb(payload, i)
            i += n
        kind = payload[i]
        i += 1
        if kind == 0:
            _, i = leb(payload, i)
            funcs += 1
        elif kind == 1:  # table: reftype, limits
            i += 1
            flags, i = leb(payload, i + 0)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 2:  # memory: limits
            flags, i = leb(payload, i)
            _, i = leb(payload, i)
            if flags & 1:
                _, i = leb(payload, i)
        elif kind == 3:  # global: type, mutability
            i += 2
        else:  # tag
            i += 1
            _, i = leb(payload, i)
    return funcs


def function_names(payload):
    names = {}
    i = 0
    while i < len(payload):
        sub = payload[i]
        size, j = leb(payload, i + 1)
        if sub == 1:
            count, k = leb(payload, j)
            for _ in range(count):
                idx, k = leb(payload, k)
                n, k = leb(payload, k)
                names[idx] = payload[k:k + n].decode(errors="replace")
                k += n
        i = j + size
    return names


GROUPS = [
    ("serde (derives, serde_json)", re.compile(r"serde")),
    ("core::fmt + float printing", re.compile(r"core::fmt|float_to_|flt2dec|dragon|grisu|ryu")),
    ("tachys (Leptos rendering)", re.compile(r"^\W*tachys")),
    ("reactive_graph + leptos", re.compile(r"^\W*(reactive_graph|leptos|any_spawner|either_of|or_poisoned|throw_error|oco_ref|send_wrapper|guardian)")),
    ("wasm-bindgen / js-sys / web-sys", re.compile(r"^\W*(wasm_bindgen|js_sys|web_sys|__wbg|__wbindgen)")),
    ("plotters", re.compile(r"^\W*plotters")),
    ("calibscope-core", re.compile(r"^\W*calibscope_core")),
    ("calibscope-io + parsers", re.compile(r"^\W*(calibscope_io|fast_float2|csv_core|memchr|miniz_oxide|crc32fast)")),
    ("calibscope-audit", re.compile(r"^\W*calibscope_audit")),
    ("calibscope-report", re.compile(r"^\W*calibscope_report")),
    ("calibscope-charts", re.compile(r"^\W*calibscope_charts")),
    ("calibscope-share + sha2 + base64", re.compile(r"^\W*(calibscope_share|sha2|base64)")),
    ("the app: page views (src/app)", re.compile(r"^\W*calibscope_app::app::")),
    ("the app: worker (src/worker.rs)", re.compile(r"^\W*calibscope_app::worker::")),
    ("the app: library (engine, proto, labs, flips)", re.compile(r"^\W*calibscope_app")),
    ("std / core / alloc", re.compile(r"^\W*(std|core|alloc|dlmalloc|compiler_builtins|hashbrown)")),
]


def group_of(name):
    for label, pattern in GROUPS:
        if pattern.search(name):
            return label
    if name.startswith("unnamed") or not name:
        return "unnamed"
    return "other"


def main():
    args = sys.argv[1:]
    top = int(args[args.index("--top") + 1]) if "--top" in args else 0
    path = [a for a in args if not a.startswith("--") and not a.isdigit()][0]
    b = open(path, "rb").read()
    imports = 0
    bodies = []
    names = {}
    data = b""
    for sid, payload in sections(b):
        if sid == 2:
            imports = imported_functions(payload)
        elif sid == 10:
            count, i = leb(payload, 0)
            for _ in range(count):
                size, j = leb(payload, i)
                bodies.append(payload[j:j + size])
                i = j + size
        elif sid == 11:
            data = payload
        elif sid == 0:
            name, i = name_of(payload)
            if name == "name":
                names = function_names(payload[i:])
    groups = defaultdict(list)
    for k, body in enumerate(bodies):
        name = names.get(imports + k, f"unnamed {imports + k}")
        groups[group_of(name)].append((name, body))
    total = sum(len(x) for x in bodies)
    print(f"{path}: {len(b):,} bytes ({len(gzip.compress(b, 9)):,} gzipped), "
          f"{len(bodies):,} functions, code {total:,} bytes")
    print(f"{'group':48} {'functions':>9} {'code':>10} {'gz':>9}")
    rows = []
    for label, fs in groups.items():
        code = b"".join(body for _, body in fs)
        rows.append((len(code), label, len(fs), len(gzip.compress(code, 9))))
    for code, label, n, gz in sorted(rows, reverse=True):
        print(f"{label:48} {n:9,} {code:10,} {gz:9,}")
    print(f"{'data segments':48} {'':9} {len(data):10,} {len(gzip.compress(data, 9)):9,}")
    if top:
        every = sorted(((len(body), name) for fs in groups.values() for name, body in fs), reverse=True)
        for size, name in every[:top]:
            print(f"{size:8,}  {name[:150]}")


if __name__ == "__main__":
    main()
