"""``rackdesigner validate`` on a layout with water loops declared (v1.4) against the same
layout without them, as whole processes, side by side in one run (alternating, median of
N): the liquid-loop rules must cost within 10 % (docs/liquid-cooling.md, Scale).

    python bench/loops.py --gpus 100000 --runs 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _generate(gpus: int, loops: bool) -> str:
    path = os.path.join(HERE, "out", f"gpus-{gpus}{'-loops' if loops else ''}.toml")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    args = [sys.executable, os.path.join(HERE, "generate.py"), "--gpus", str(gpus), "-o", path]
    subprocess.run(args + (["--loops"] if loops else []), check=True, timeout=600)
    return path


def _time(path: str) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one ``validate``: the CPU time moves less
    than the wall time on a machine others share."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "rackdesigner", "validate", "--totals", "never", path],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=900,
        check=False,
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpus", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    without, with_loops = _generate(args.gpus, False), _generate(args.gpus, True)
    times: dict[str, list[tuple[float, float]]] = {"without loops": [], "with loops": []}
    _time(without)  # warm the file cache and the bytecode
    for _ in range(args.runs):
        times["without loops"].append(_time(without))
        times["with loops"].append(_time(with_loops))
    wall0 = statistics.median(w for w, _ in times["without loops"])
    cpu0 = statistics.median(c for _, c in times["without loops"])
    print(
        f"| validate, {args.gpus:,} GPUs | wall, median of {args.runs} (s) | vs without "
        "| CPU, median (s) | vs without | wall runs (s) |"
    )
    print("|---|---:|---:|---:|---:|---|")
    for name, values in times.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        runs = ", ".join(f"{w:.2f}" for w, _ in values)
        print(
            f"| {name} | {wall:.2f} | {wall / wall0 - 1:+.1%} | {cpu:.2f} | "
            f"{cpu / cpu0 - 1:+.1%} | {runs} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
