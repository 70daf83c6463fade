#!/usr/bin/env python3
"""Time ``rackdesigner whatif --each`` as whole processes, beside ``validate`` of the same
layout in the same run.

    python bench/whatif.py                         # the issue's cases, 3 repeats
    python bench/whatif.py --repeat 5
    python bench/whatif.py --case 1024:switch --case 8192:side
    python bench/whatif.py --case 8192:rack --findings   # with --findings too
    python bench/whatif.py --chain --case 100000:ups --case 100000:loop

With ``--chain`` the layouts are generated with a 2N power chain and a water loop
(``generate.py --power-chain --loops``), and validate is of that layout: the power chain's
and the loop's kinds (``ups``, ``ats``, ``busway``, ``utility``, ``loop``) are ranked there.

A case is ``GPUS:KIND``: the layout of that size is (re)generated into --out (bench/out/),
then these run --repeat times, interleaved:

  validate      rackdesigner validate F --format json --output /dev/null
  whatif KIND   rackdesigner whatif F --each KIND --format json --output /dev/null
  (--findings)  the same with --findings: each failure's new findings counted

The targets: every ``--each`` kind at most 3 x validate of the same layout at 8,192 GPUs,
and growing linearly beyond (issue 32: the ratio to validate at 100,000 GPUs is the
check); ``--each switch`` on 1,024 GPUs under 5 s (issue 26). The table gives best /
median wall and CPU (user + system) seconds, the ratio to validate (best against best,
median against median) and whether the median wall time and the median CPU time meet the
target. On a machine shared with other work the wall time follows the load; the CPU time
is the steadier figure. Children run in the repository root.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from exports import measure, ratio_table_head  # noqa: E402
from run import ROOT, default_validate_cmd, fmt_s, prepare  # noqa: E402

KINDS = ("feed", "side", "pdu", "cdu", "switch", "rack")
CHAIN_KINDS = ("ups", "ats", "busway", "utility", "loop")  # with --chain
CASES = [f"{gpus}:{kind}" for gpus in (8192, 100000) for kind in KINDS]
CHAIN_CASES = [f"100000:{kind}" for kind in CHAIN_KINDS]
# (gpus, kind) -> ("seconds", limit) or ("validate", factor)
TARGETS: dict[tuple[int, str], tuple[str, float]] = {(1024, "switch"): ("seconds", 5.0)}
TARGETS.update({(8192, kind): ("validate", 3.0) for kind in KINDS})
TARGETS.update({(100000, kind): ("validate", 3.0) for kind in KINDS + CHAIN_KINDS})


def _chained(sizes: list[int], out: str, python: str) -> list[tuple[int, str]]:
    """The layouts with a 2N power chain and a water loop (``generate.py --power-chain
    --loops``), generated in a child process as ``prepare`` does."""
    os.makedirs(out, exist_ok=True)
    files = []
    for gpus in sizes:
        path = os.path.abspath(os.path.join(out, f"gpus-{gpus}-chain-loops.toml"))
        argv = [python, os.path.join(HERE, "generate.py"), "--gpus", str(gpus), "-o", path]
        subprocess.run([*argv, "--power-chain", "--loops"], check=True, cwd=ROOT)
        files.append((gpus, path))
    return files


def _target(gpus: int, kind: str, s: dict[str, float], ref: dict[str, float]) -> str:
    target = TARGETS.get((gpus, kind))
    if target is None:
        return ""
    what, limit = target

    def met(key: str) -> str:
        bound = limit if what == "seconds" else limit * ref[key]
        return "met" if s[key] < bound else "NOT met"

    bound = f"< {limit:g} s" if what == "seconds" else f"< {limit:g} × validate"
    return f"{bound}: wall {met('median_s')}, CPU {met('cpu_median_s')}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--case", action="append", metavar="GPUS:KIND", help=f"default: {' '.join(CASES)}"
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--findings", action="store_true", help="also time each with --findings")
    ap.add_argument(
        "--chain",
        action="store_true",
        help=f"layouts with a power chain and a water loop; default: {' '.join(CHAIN_CASES)}",
    )
    args = ap.parse_args(argv)
    default = CHAIN_CASES if args.chain else CASES
    cases = [(int(g), k) for g, k in (c.split(":", 1) for c in args.case or default)]
    python = sys.executable
    cmd = default_validate_cmd()
    env = dict(os.environ)
    quiet = ["--format", "json", "--output", os.devnull]
    failed = False
    sizes = sorted({gpus for gpus, _ in cases})
    paths = dict((_chained if args.chain else prepare)(sizes, args.out, python))
    for gpus in sizes:
        path = paths[gpus]
        commands = {"validate": [*cmd, "validate", path, *quiet]}
        for g, kind in cases:
            if g == gpus:
                run = [*cmd, "whatif", path, "--each", kind, *quiet]
                commands[f"whatif --each {kind}"] = run
                if args.findings:
                    commands[f"whatif --each {kind} --findings"] = [*run, "--findings"]
        stats, broke = measure(commands, args.repeat, env)
        failed |= broke
        ref = stats["validate"]
        print(f"\n### {gpus:,} GPUs ({os.path.basename(path)}), {args.repeat} runs each\n")
        ratio_table_head()
        for name, s in stats.items():
            ratio = target = ""
            if name != "validate":
                ratio = f"{s['best_s'] / ref['best_s']:.2f} / {s['median_s'] / ref['median_s']:.2f}"
                kind = name.split(" ")[2]
                target = _target(gpus, kind, s, ref)
            print(
                f"| {name} | {fmt_s(s['best_s'])} / {fmt_s(s['median_s'])} "
                f"| {fmt_s(s['cpu_best_s'])} / {fmt_s(s['cpu_median_s'])} | {ratio} "
                f"| {target} | {s['peak_mb']:.0f} |"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
