"""The liquid loop's outputs at scale, as whole processes, side by side in one run
(alternating, median of N): ``export --cooling-diagram`` against ``validate`` (the same
load and analysis, every rule), and ``export --netbox`` with NetBox 4.7's cooling objects
against the same export for 4.6 (without them), on the 100,000-GPU layout with a water loop
feeding every CDU (``generate.py --loops``).

    python bench/cooling.py --gpus 100000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _generate(gpus: int) -> str:
    path = os.path.join(HERE, "out", f"gpus-{gpus}-loops.toml")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    args = [sys.executable, os.path.join(HERE, "generate.py"), "--gpus", str(gpus), "-o", path]
    subprocess.run([*args, "--loops"], check=True, timeout=600)
    return path


def _time(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one command: the CPU time moves less than
    the wall time on a machine others share."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "rackdesigner", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=900,
        check=False,
    )
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr.decode()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpus", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    path = _generate(args.gpus)
    with tempfile.TemporaryDirectory() as out:
        commands = {
            "validate": ["validate", "--totals", "never", path],
            "--cooling-diagram": ["export", path, "--cooling-diagram", f"{out}/c.svg"],
            "--netbox (4.6)": ["export", path, "--netbox", f"{out}/46", "--netbox-version", "4.6"],
            "--netbox (4.7)": ["export", path, "--netbox", f"{out}/47"],
        }
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        _time(commands["validate"])  # warm the file cache and the bytecode
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(_time(command))
    print(f"{args.gpus:,} GPUs, {args.runs} runs, median wall / CPU seconds")
    for name, found in times.items():
        wall = statistics.median(w for w, _ in found)
        cpu = statistics.median(c for _, c in found)
        print(f"  {name:<18} {wall:7.2f} {cpu:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
