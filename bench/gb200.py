#!/usr/bin/env python3
"""Time ``rackdesigner new --template gb200-superpod --sus N`` and ``validate`` of the hall
it writes, against ``tomllib`` parsing the same file; print a markdown table.

    python bench/gb200.py                    # 174 SUs: 1,392 NVL72 racks, 100,224 GPUs
    python bench/gb200.py --sus 1,8 --repeat 3
    git archive BASE | tar -x -C /tmp/base   # a tree to compare, with no venv of its own
    python bench/gb200.py --before /tmp/base --repeat 2

With ``--before DIR`` every repeat runs the tree in DIR (its package imported ahead of this
tree's editable install, with this venv's dependencies) and then this one, interleaved, so
both see the same load; each writes its own hall, and tomllib parses each.

Like run.py, each command is a whole process (wall time from perf_counter around Popen ..
os.wait4, peak RSS from that child's rusage); children run from the repository root.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
# Runs the rackdesigner command line of the tree in argv[1]: an editable install's finder
# would import this tree's package ahead of any sys.path entry, so it is dropped first.
TREE = (
    "import sys; sys.meta_path = [f for f in sys.meta_path if 'editable' not in "
    "repr(f).lower()]; sys.path.insert(0, sys.argv.pop(1)); "
    "from rackdesigner.cli.main import main; sys.argv[0] = 'rackdesigner'; sys.exit(main())"
)


def timed(argv: list[str], timeout: float) -> tuple[float, float, int]:
    """(wall s, peak RSS MB, exit code) of one child."""
    began = time.perf_counter()
    child = subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    deadline = began + timeout
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            child.kill()
            raise SystemExit(f"timed out: {shlex.join(argv)}")
        time.sleep(0.01)
    wall = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    code = child.returncode
    if code not in (0, 1):
        err = child.stderr.read() if child.stderr else ""
        raise SystemExit(f"{shlex.join(argv)} exited {code}: {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, code


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sus", default="174", help="comma-separated SU counts (174)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per command (3)")
    ap.add_argument("--python", default=sys.executable, help="interpreter (this one)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per child (900)")
    ap.add_argument("--before", help="a tree to run first in every repeat (see above)")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    py = args.python
    trees: list[tuple[str, list[str]]] = [("", [py, "-m", "rackdesigner"])]
    if args.before:
        before = str(Path(args.before).resolve())
        trees = [("before", [py, "-c", TREE, before]), ("after", trees[0][1])]
    rows = [
        "| tree | SUs | racks | GPUs | MB | new s | tomllib s | validate s | validate / tomllib "
        "| new MB | validate MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for sus in (int(s) for s in args.sus.split(",")):
        runs: dict[str, dict[str, list[tuple[float, float, int]]]] = {
            name: {"new": [], "toml": [], "check": []} for name, _ in trees
        }
        paths = {name: OUT / f"gb200-{sus}su{'-' + name if name else ''}.toml" for name, _ in trees}
        for _ in range(args.repeat):
            for name, command in trees:
                path = paths[name]
                new = [*command, "new", str(path), "--template", "gb200-superpod"]
                new += ["--sus", str(sus), "--force"]
                parse = [py, "-c", f"import tomllib; tomllib.load(open({str(path)!r}, 'rb'))"]
                check = [*command, "validate", str(path), "--format", "json"]
                check += ["--output", os.devnull]
                runs[name]["new"].append(timed(new, args.timeout))
                runs[name]["toml"].append(timed(parse, args.timeout))
                runs[name]["check"].append(timed(check, args.timeout))
        for name, _ in trees:
            wall = {k: statistics.median(r[0] for r in v) for k, v in runs[name].items()}
            rss = {k: max(r[1] for r in v) for k, v in runs[name].items()}
            racks = sus * 8
            size = paths[name].stat().st_size / 1e6
            rows.append(
                f"| {name or 'this'} | {sus} | {racks:,} NVL72 | {racks * 72:,} | {size:.1f} | "
                f"{wall['new']:.1f} | {wall['toml']:.2f} | {wall['check']:.1f} | "
                f"{wall['check'] / wall['toml']:.1f}x | {rss['new']:.0f} | {rss['check']:.0f} |"
            )
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
