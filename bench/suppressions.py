"""Time validate with baselines and ignore keys on a large layout, side by side.

    python bench/suppressions.py                        # gpus-100000, 3 interleaved runs
    python bench/suppressions.py --gpus 8192 --repeat 5
    python bench/suppressions.py --reference "python -m rackdesigner" --reference-cwd ../main

Every command is a whole process; the table gives wall and CPU seconds (min / median) of the
process tree, CPU being the fairer figure on a shared machine. The layout comes from
``generate.py``; a variant gives every DGX H100 ``ignore = ["PWR008"]``, and a baseline of
the plain layout is written first.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def timed(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cmd", default=None, help="rackdesigner command prefix")
    parser.add_argument("--reference", default=None, help="another rackdesigner to compare")
    parser.add_argument("--reference-cwd", type=Path, default=None)
    args = parser.parse_args()
    script = Path(sys.executable).with_name("rackdesigner")
    cmd = shlex.split(args.cmd) if args.cmd else [str(script)]
    out = HERE / "out"
    out.mkdir(exist_ok=True)
    layout = out / f"gpus-{args.gpus}.toml"
    subprocess.run(
        [sys.executable, str(HERE / "generate.py"), "--gpus", str(args.gpus), "-o", str(layout)],
        check=True,
    )
    work = Path(tempfile.mkdtemp(prefix="rackdesigner-bench-"))
    ignoring = work / "ignore.toml"
    ignoring.write_text(
        layout.read_text().replace(
            '\nmodel = "dgx-h100"\n', '\nmodel = "dgx-h100"\nignore = ["PWR008"]\n'
        )
    )
    baseline = work / "baseline.json"
    subprocess.run([*cmd, "validate", str(layout), "-q", "--write-baseline", str(baseline)])
    commands: dict[str, tuple[list[str], Path | None]] = {
        "tomllib parse only": (
            [sys.executable, "-c", f"import tomllib; tomllib.load(open({str(layout)!r}, 'rb'))"],
            None,
        ),
        "validate": ([*cmd, "validate", str(layout), "-q"], None),
        "validate --baseline (all known)": (
            [*cmd, "validate", str(layout), "-q", "--baseline", str(baseline)],
            None,
        ),
        "validate, ignore key on every DGX": ([*cmd, "validate", str(ignoring), "-q"], None),
        "validate --write-baseline": (
            [*cmd, "validate", str(layout), "-q", "--write-baseline", str(work / "b2.json")],
            None,
        ),
    }
    if args.reference:
        commands["reference: validate"] = (
            [*shlex.split(args.reference), "validate", str(layout), "-q"],
            args.reference_cwd,
        )
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, (command, cwd) in commands.items():
            results[name].append(timed(command, cwd))
    print(f"| command ({layout.stem}) | wall min / median | CPU min / median |")
    print("|---|---:|---:|")
    for name, runs in results.items():
        walls, cpus = [r[0] for r in runs], [r[1] for r in runs]
        print(
            f"| {name} | {min(walls):.2f} / {statistics.median(walls):.2f} s "
            f"| {min(cpus):.2f} / {statistics.median(cpus):.2f} s |"
        )
    for path in work.iterdir():
        path.unlink()
    os.rmdir(work)


if __name__ == "__main__":
    main()
