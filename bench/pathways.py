#!/usr/bin/env python3
"""Validate with declared pathways against validate without, whole processes, side by side.

    python bench/pathways.py                    # 100,000 GPUs, 3 repeats
    python bench/pathways.py --gpus 8192 --repeat 5

Both layouts come from bench/generate.py (the same hall; ``--pathways`` adds a tray over each
row and cross-aisle runs), written into bench/out/. Then, interleaved, ``--repeat`` times:

  plain     rackdesigner validate gpus-N.toml --format json --output /dev/null
  pathways  rackdesigner validate gpus-N-pathways.toml --format json --output /dev/null

Each child's wall time comes from perf_counter around Popen .. os.wait4, its peak RSS from
its own rusage. The target (issue 38): pathways at most 1.5 x plain, medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET = 1.5


def timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child."""
    began = time.perf_counter()
    child = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        err = child.stderr.read().decode(errors="replace") if child.stderr else ""
        raise SystemExit(f"{' '.join(argv)} exited {code}: {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    plain = os.path.join(args.out, f"gpus-{args.gpus}.toml")
    routed = os.path.join(args.out, f"gpus-{args.gpus}-pathways.toml")
    generate = [sys.executable, os.path.join(HERE, "generate.py"), "--gpus", str(args.gpus)]
    subprocess.run([*generate, "-o", plain], check=True)
    subprocess.run([*generate, "--pathways", "-o", routed], check=True)
    validate = [sys.executable, "-m", "rackdesigner", "validate"]
    tail = ["--format", "json", "--output", os.devnull]
    runs: dict[str, list[tuple[float, float]]] = {"plain": [], "pathways": []}
    for _ in range(args.repeat):
        runs["plain"].append(timed([*validate, plain, *tail]))
        runs["pathways"].append(timed([*validate, routed, *tail]))
    medians = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    print(f"| layout ({args.gpus:,} GPUs) | wall s (median of {args.repeat}) | peak RSS MB |")
    print("|---|---|---|")
    for name, results in runs.items():
        rss = max(r for _, r in results)
        walls = ", ".join(f"{w:.2f}" for w, _ in results)
        print(f"| {name} | {medians[name]:.2f} ({walls}) | {rss:.0f} |")
    ratio = medians["pathways"] / medians["plain"]
    print(f"\npathways / plain: {ratio:.2f} (target at most {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
