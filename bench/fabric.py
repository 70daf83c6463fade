#!/usr/bin/env python3
"""Time the fabric generators and ``rackdesigner new``, and check the big sizes validate.

    python bench/fabric.py                       # every size, 3 repeats
    python bench/fabric.py --sizes 100000 --repeat 5
    python bench/fabric.py --skip-fabrics        # timings only

Three parts, each printed as a markdown table:

1. In process: the rail fabric for N GPUs (the default node, QM9700, 1:1), placement and media
   included: ``templates.build`` with its ``fabric`` phase timed (the generator alone),
   best and median of ``--repeat`` runs, the cyclic collector off as the command runs it.
2. Whole processes, interleaved ``--repeat`` times: ``rackdesigner new OUT --gpus N``
   (generate, validate, write) against ``python -c "import tomllib; tomllib.load(OUT)"`` on
   the file it wrote; the target is new <= 2 x tomllib.
3. Every fabric that fits at each size: ``rackdesigner new`` must exit 0 with 0 errors.

Layouts go to ``--out`` (default ``bench/out/``, git-ignored). Unlike ``generate.py`` this
script imports the package (part 1), so run it with the project's interpreter.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES = (1024, 8192, 100_000)
MATRIX = (8, 16, 32, 64, 128, 256, 1024, 8192, 100_000)
FABRICS = ("direct", "leaf-spine", "rail", "dragonfly")


def command() -> list[str]:
    script = os.path.join(os.path.dirname(sys.executable), "rackdesigner")
    if os.path.exists(script):
        return [script]
    found = shutil.which("rackdesigner")
    return [found] if found else [sys.executable, "-m", "rackdesigner"]


def timed(args: list[str]) -> tuple[float, float, int, str, str]:
    """Wall seconds, CPU seconds (user + system, the child and what it waited for), exit
    code, stdout, stderr of one whole process."""
    began = time.perf_counter()
    child = subprocess.Popen(
        args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    stdout, stderr = child.communicate()
    wall = time.perf_counter() - began
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - timed.cpu_before  # type: ignore[attr-defined]
    timed.cpu_before = usage.ru_utime + usage.ru_stime  # type: ignore[attr-defined]
    return wall, cpu, child.returncode, stdout, stderr


timed.cpu_before = 0.0  # type: ignore[attr-defined]


def in_process(sizes: list[int], repeat: int) -> None:
    sys.path.insert(0, ROOT)
    from rackdesigner.design.templates import NewOptions, build

    gc.disable()
    print(
        "| GPUs | switches | cables | fabric best (s) | fabric median (s) | fabric CPU best (s) "
        "| whole build (s) |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for gpus in sizes:
        fabric_times, totals, cpu_times = [], [], []
        built = None
        for _ in range(repeat):
            timings: dict[str, float] = {}
            began = time.perf_counter()
            built = build(NewOptions(gpus=gpus, fabric="rail"), timings=timings)
            totals.append(time.perf_counter() - began)
            fabric_times.append(timings["fabric"])
            cpu_times.append(timings["fabric_cpu"])
        assert built is not None
        c = built.plan.counts
        switches = c.get("leaves", 0) + c.get("spines", 0) + c.get("cores", 0)
        print(
            f"| {gpus:,} | {switches:,} | {len(built.plan.links):,} | {min(fabric_times):.2f} "
            f"| {statistics.median(fabric_times):.2f} | {min(cpu_times):.2f} "
            f"| {statistics.median(totals):.2f} |"
        )
        del built
        gc.collect()


def whole(sizes: list[int], repeat: int, out: str) -> bool:
    ok = True
    cmd = command()
    print()
    print(
        "| GPUs | file | new best (s) | tomllib best (s) | ratio (best) | ratio (median) "
        "| new CPU (s) | tomllib CPU (s) | ratio (CPU) | target |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for gpus in sizes:
        path = os.path.join(out, f"new-{gpus}.toml")
        new_t, parse_t, new_cpu, parse_cpu = [], [], [], []
        for _ in range(repeat):
            seconds, cpu, code, _, err = timed([*cmd, "new", path, "--gpus", str(gpus), "--force"])
            if code not in (0, 1):
                print(f"new --gpus {gpus} failed: {err.strip()}", file=sys.stderr)
                return False
            new_t.append(seconds)
            new_cpu.append(cpu)
            seconds, cpu, code, _, err = timed(
                [sys.executable, "-c", f"import tomllib; tomllib.load(open({path!r}, 'rb'))"]
            )
            parse_t.append(seconds)
            parse_cpu.append(cpu)
        best = min(new_t) / min(parse_t)
        median = statistics.median(new_t) / statistics.median(parse_t)
        cpu_ratio = min(new_cpu) / min(parse_cpu)
        size = os.path.getsize(path) / 1e6
        meets = "yes" if best <= 2.0 else "NO"
        ok &= best <= 2.0 or gpus < 100_000
        print(
            f"| {gpus:,} | {size:.1f} MB | {min(new_t):.2f} | {min(parse_t):.2f} | {best:.2f} "
            f"| {median:.2f} | {min(new_cpu):.2f} | {min(parse_cpu):.2f} | {cpu_ratio:.2f} "
            f"| {meets} |"
        )
    return ok


def matrix(sizes: list[int], out: str) -> bool:
    ok = True
    cmd = command()
    print()
    print("| GPUs | " + " | ".join(FABRICS) + " |")
    print("|---:|" + "---|" * len(FABRICS))
    for gpus in sizes:
        cells = []
        for fabric in FABRICS:
            path = os.path.join(out, f"m-{gpus}-{fabric}.toml")
            seconds, _, code, stdout, err = timed(
                [*cmd, "new", path, "--gpus", str(gpus), "--fabric", fabric, "--force"]
            )
            if code == 2:
                cells.append("does not fit")
            elif code == 0 and "validate: 0 errors" in stdout:
                cells.append(f"0 errors ({seconds:.1f} s)")
            else:
                ok = False
                cells.append(f"**exit {code}**")
                print(err, file=sys.stderr)
            if os.path.exists(path):
                os.unlink(path)
        print(f"| {gpus:,} | " + " | ".join(cells) + " |")
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--skip-fabrics", action="store_true", help="skip part 3")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    os.makedirs(args.out, exist_ok=True)
    in_process(sizes, args.repeat)
    ok = whole(sizes, args.repeat, args.out)
    if not args.skip_fabrics:
        ok &= matrix(list(MATRIX), args.out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
