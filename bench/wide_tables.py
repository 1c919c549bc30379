"""Wide CSV tables for the reader's many-class benchmarks (BENCHMARKS.md, session 12):

    python3 bench/wide_tables.py bench/out      # wide_10k.csv (10,000 classes, ~9 MB), wide_1k.csv (1,000 classes, 50 MB)

then `target/release/examples/one FILE` (THREADS=1 for the serial reader) or
`/usr/bin/time -f '%e s %M KB' target/release/calibscope audit --json --bins 15 --no-recalibration FILE`.
Standard library only.
"""
import sys
from pathlib import Path


def write(path: Path, k: int, rows: int, hot: str, cold: str) -> None:
    with path.open("w") as f:
        f.write("label," + ",".join(f"p_{j}" for j in range(k)) + "\n")
        for row in range(rows):
            label = row % k
            f.write(f"{label}," + ",".join(hot if j == label else cold for j in range(k)) + "\n")
    print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB, {rows} rows x {k} classes")


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/out")
    out.mkdir(parents=True, exist_ok=True)
    write(out / "wide_10k.csv", 10_000, 469, "1", "0")
    write(out / "wide_1k.csv", 1_000, 5_000, "0.9991", "0.0000009")


if __name__ == "__main__":
    main()
