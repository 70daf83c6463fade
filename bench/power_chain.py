#!/usr/bin/env python3
"""Time ``rackdesigner validate`` of a layout with a power chain declared against the same
layout without one, as whole processes, side by side in one run (issue 34: at most 1.2 ×).

    python bench/power_chain.py                  # 100,000 GPUs, 3 repeats
    python bench/power_chain.py --gpus 8192 --repeat 5
    python bench/power_chain.py --drawings       # also export --one-line and --floorplan

The layouts are bench/generate.py's, the second with ``--power-chain`` (a 2N chain: a
utility, per side a generator, an ATS and a switchboard, per row and side a UPS and a
busway every feed taps off: about 400 elements and 12,800 feeds on it at 100,000 GPUs). The
table gives best / median wall and CPU (user + system) seconds and the ratio to the layout
without a chain; on a shared machine the CPU time is the steadier figure. ``--drawings``
adds the chained layout's single-line diagram (``export --one-line``) beside its floor
plan (``export --floorplan``): both load, check (their findings) and draw, so the floor
plan is the reference the diagram's cost reads against.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from exports import measure, ratio_table_head  # noqa: E402
from run import ROOT, default_validate_cmd, fmt_s  # noqa: E402

TARGET = 1.2  # × validate without a chain


def _generate(python: str, gpus: int, path: str, chain: bool) -> None:
    argv = [python, os.path.join(HERE, "generate.py"), "--gpus", str(gpus), "-o", path]
    subprocess.run([*argv, *(["--power-chain"] if chain else [])], check=True, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpus", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--drawings", action="store_true", help="also time --one-line, --floorplan")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    plain = os.path.abspath(os.path.join(args.out, f"gpus-{args.gpus}.toml"))
    chained = os.path.abspath(os.path.join(args.out, f"gpus-{args.gpus}-chain.toml"))
    _generate(sys.executable, args.gpus, plain, chain=False)
    _generate(sys.executable, args.gpus, chained, chain=True)
    cmd = default_validate_cmd()
    quiet = ["--format", "json", "--output", os.devnull]
    commands = {
        "validate": [*cmd, "validate", plain, *quiet],
        "validate, chain declared": [*cmd, "validate", chained, *quiet],
    }
    if args.drawings:
        for option in ("--one-line", "--floorplan"):
            drawn = os.path.join(args.out, f"gpus-{args.gpus}{option[1:]}.svg")
            commands[f"export {option}, chain declared"] = [
                *cmd,
                "export",
                chained,
                option,
                drawn,
            ]
    stats, failed = measure(commands, args.repeat, dict(os.environ))
    ref = stats["validate"]
    print(f"\n### {args.gpus:,} GPUs, {args.repeat} runs each\n")
    ratio_table_head()
    for name, s in stats.items():
        ratio = target = ""
        if name != "validate":
            ratio = f"{s['best_s'] / ref['best_s']:.2f} / {s['median_s'] / ref['median_s']:.2f}"
        if name == "validate, chain declared":  # the drawings have no target of their own
            wall = "met" if s["median_s"] < TARGET * ref["median_s"] else "NOT met"
            cpu = "met" if s["cpu_median_s"] < TARGET * ref["cpu_median_s"] else "NOT met"
            target = f"< {TARGET:g} × validate: wall {wall}, CPU {cpu}"
        print(
            f"| {name} | {fmt_s(s['best_s'])} / {fmt_s(s['median_s'])} "
            f"| {fmt_s(s['cpu_best_s'])} / {fmt_s(s['cpu_median_s'])} | {ratio} "
            f"| {target} | {s['peak_mb']:.0f} |"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
