#!/usr/bin/env python3
"""Time ``rackdesigner diff`` of two large layouts with one rack changed, against
``validate`` of one, as whole processes.

    python bench/diff.py                           # 100,000 GPUs, 3 repeats
    python bench/diff.py --sizes 8192,100000 --repeat 5

For each size the layout is (re)generated into --out (bench/out/), and two copies with one
rack changed are written beside it, as text edits of the generated file:

  move     the first node of the middle compute rack moved from U3 to U7 (its cables'
           lengths change; no cable, device or figure otherwise)
  remove   that node taken out with its eight cables (the rack's figures, the fabric
           figures and the findings are computed again)

Then these run --repeat times, interleaved:

  validate      rackdesigner validate F --format json --output /dev/null
  diff move     rackdesigner diff F F.move --format json --output /dev/null
  diff remove   rackdesigner diff F F.remove --format json --output /dev/null

With ``--before DIR`` (a source tree of another commit, e.g. from ``git archive``) each diff
also runs from that tree, so that a change is measured against the code before it in one
run.

The table gives best / median wall and CPU seconds (user + system of the process and of
the child ``diff`` forks to check the old layout) and each diff's ratio to validate, best
against best and median against median, with the issue's target: under 2 x validate.
On a machine shared with other work the wall time follows the load. Children run in the
repository root.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from exports import measure, ratio_table_head  # noqa: E402
from run import default_validate_cmd, fmt_s, prepare  # noqa: E402

BEFORE = "from rackdesigner.cli.main import main; main()"
TARGET = 2.0  # diff under 2 x validate of one layout: one more load and the changed facts


def changed_copies(path: str) -> dict[str, str]:
    """The ``move`` and ``remove`` copies of the layout at ``path`` (written beside it)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    firsts = re.findall(r'^id = "([a-z]+\d+)-n01"$', text, re.M)
    rack = firsts[len(firsts) // 2]
    node = f"{rack}-n01"
    table = re.search(
        rf'^\[\[racks\.devices\]\]\nid = "{node}"\nmodel = "[^"]+"\nposition = 3\n', text, re.M
    )
    assert table is not None, node
    moved = text[: table.start()] + table.group(0).replace("position = 3", "position = 7")
    moved += text[table.end() :]
    removed = text[: table.start()] + text[table.end() :].removeprefix("\n")
    removed, cables = re.subn(
        rf'^\[\[links\]\]\na = "{node}:[^\n]*\n(?:[^\n]+\n)*\n', "", removed, flags=re.M
    )
    assert cables == 8, (node, cables)
    out = {}
    for name, body in (("move", moved), ("remove", removed)):
        target = f"{path[: -len('.toml')]}.{name}.toml"
        with open(target, "w", encoding="utf-8") as f:
            f.write(body)
        out[name] = target
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000", help="comma-separated GPU counts (100000)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--before", metavar="DIR", help="also run each diff from this source tree")
    args = ap.parse_args(argv)
    python = sys.executable
    cmd = default_validate_cmd()
    env = dict(os.environ)
    failed = False
    for gpus, path in prepare([int(s) for s in args.sizes.split(",")], args.out, python):
        copies = changed_copies(path)
        quiet = ["--format", "json", "--output", os.devnull]
        commands = {"validate": [*cmd, "validate", path, *quiet]}
        for name, other in copies.items():
            commands[f"diff {name}"] = [*cmd, "diff", path, other, *quiet]
            if args.before:
                tree = os.path.abspath(args.before)
                run = f"import sys; sys.path.insert(0, {tree!r}); " + BEFORE
                commands[f"diff {name}, before"] = [python, "-c", run, "diff", path, other, *quiet]
        stats, broke = measure(commands, args.repeat, env)
        failed |= broke
        ref = stats["validate"]
        print(f"\n### {gpus:,} GPUs ({os.path.basename(path)}), {args.repeat} runs each\n")
        ratio_table_head()
        for name, s in stats.items():
            ratio = target = ""
            if name != "validate":
                best = s["best_s"] / ref["best_s"]
                median = s["median_s"] / ref["median_s"]
                ratio = f"{best:.2f} / {median:.2f}"
                target = f"< {TARGET:g} ×: {'met' if median < TARGET else 'NOT met'}"
            print(
                f"| {name} | {fmt_s(s['best_s'])} / {fmt_s(s['median_s'])} "
                f"| {fmt_s(s['cpu_best_s'])} / {fmt_s(s['cpu_median_s'])} | {ratio} "
                f"| {target} | {s['peak_mb']:.0f} |"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
