#!/usr/bin/env python3
"""Time the data exports and ``report`` as whole processes against loading the same file.

    python bench/exports.py                          # the 100,000-GPU preset, 3 repeats
    python bench/exports.py --sizes 8192,100000 --repeat 5
    python bench/exports.py --formats                # also GraphML and GEXF (slow writers)

For each size the layout is (re)generated into --out (bench/out/), then these run
--repeat times, interleaved:

  load       python -c "load_path(F)"  (garbage collector off and a hard exit, as the CLI)
  validate   rackdesigner validate F --format json --output /dev/null
  report     rackdesigner report F --format json --output /dev/null
  bisection  load + analysis + fabrics in a child that reports, on stderr, the seconds of
             the bisection alone (merging twins, then the max flow)
  --graph .json, --graph .dot, --cables, --slurm-topology, --hostfile, --power, --bom
             rackdesigner export F --<kind> FILE (in a temporary folder)

The table gives best / median wall and CPU (user + system) seconds and, for each export,
its time beyond loading (best against best) with the target the issue sets. On a machine
shared with other work the wall time follows the load; the CPU time is the steadier
figure. Children run in the repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import subprocess  # noqa: E402
import time  # noqa: E402

from run import ROOT, crashed, default_validate_cmd, fmt_s, prepare  # noqa: E402


class Timed:
    """A child's wall and CPU seconds (user + system), peak RSS, exit code, stderr."""

    def __init__(self, wall: float, cpu: float, rss_mb: float, code: int, stderr: str):
        self.seconds, self.cpu, self.rss_mb, self.code, self.stderr = (
            wall,
            cpu,
            rss_mb,
            code,
            stderr,
        )

    def timings(self) -> dict[str, float]:
        for line in reversed(self.stderr.splitlines()):
            if line.startswith("{") and '"timings"' in line:
                return json.loads(line)["timings"]
        return {}


def run_timed(argv: list[str], env: dict[str, str]) -> Timed:
    """Like run.py's run_child, and the CPU time too: on a machine shared with other work
    the wall time varies with the load; the CPU time much less."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT, env=env
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return Timed(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code, text)


def summary(results: list[Timed]) -> dict[str, float]:
    walls = sorted(r.seconds for r in results)
    cpus = sorted(r.cpu for r in results)
    return {
        "best_s": walls[0],
        "median_s": walls[len(walls) // 2],
        "cpu_best_s": cpus[0],
        "cpu_median_s": cpus[len(cpus) // 2],
        "peak_mb": max(r.rss_mb for r in results),
    }


def measure(
    commands: dict[str, list[str]], repeat: int, env: dict[str, str]
) -> tuple[dict[str, dict[str, float]], bool]:
    """Each command ``repeat`` times, taking turns (so a change in the machine's load falls
    on all of them alike): the summary per command, and whether any run failed (said on
    stdout with the end of its stderr)."""
    results: dict[str, list[Timed]] = {name: [] for name in commands}
    failed = False
    for _ in range(repeat):
        for name, argv in commands.items():
            result = run_timed(argv, env)
            if result.code not in (0, 1) or crashed(result.stderr):
                print(f"[bench] {name} failed ({result.code}):\n{result.stderr[-2000:]}")
                failed = True
            results[name].append(result)
    return {name: summary(rs) for name, rs in results.items()}, failed


def ratio_table_head() -> None:
    """The header of the side-by-side table ``diff.py`` and ``whatif.py`` print."""
    print(
        "| command | wall best / median s | CPU best / median s "
        "| × validate, wall best / median | target | peak MB |"
    )
    print("|---|---:|---:|---:|---|---:|")


TARGETS = {  # seconds beyond loading, for the 100,000-GPU layout
    "--graph .json": 1.5,
    "--graph .dot": 1.5,
    "--cables": 1.0,
    "--slurm-topology": 0.5,
}

LOAD = (
    "import gc, os, sys; gc.disable(); from rackdesigner.layout_io import load_path; "
    "load_path(sys.argv[1]); os._exit(0)"
)
BISECTION = (
    "import gc, json, os, sys, time; gc.disable()\n"
    "from rackdesigner.layout_io import load_path\n"
    "from rackdesigner.analysis import Analysis\n"
    "from rackdesigner.topology import figures as F\n"
    "from rackdesigner.topology.bisection import bisection, merge_twins\n"
    "a = Analysis(load_path(sys.argv[1])); a.fabrics; adj = F.adjacency(a)\n"
    "start = time.perf_counter()\n"
    "for fab in a.fabrics:\n"
    "    order = [d.id for d in fab.devices]\n"
    "    leaves = [s for s in order if s in fab.switches and fab.switches[s].tier == 1]\n"
    "    h = len(leaves) // 2\n"
    "    halves = {l: 1 for l in leaves[:h]} | {l: 2 for l in leaves[h:]}\n"
    "    g = merge_twins({d: adj[d] for d in order if d in adj}, set(fab.switches),\n"
    "                    {n.id for n in fab.nodes}, halves, order)\n"
    "    bisection(g, leaves[:h], leaves[h:], {l: fab.switches[l].down for l in leaves},\n"
    "              fab.injection)\n"
    "sys.stderr.write(json.dumps({'timings': {'bisection': time.perf_counter() - start}}))\n"
    "os._exit(0)\n"
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100000", help="comma-separated GPU counts (100000)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--formats", action="store_true", help="also --graph .graphml and .gexf")
    args = ap.parse_args(argv)
    python = sys.executable
    cmd = default_validate_cmd()
    env = dict(os.environ)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        exports = {
            "--graph .json": ["--graph", os.path.join(tmp, "g.json")],
            "--graph .dot": ["--graph", os.path.join(tmp, "g.dot")],
            "--cables": ["--cables", os.path.join(tmp, "cables.csv")],
            "--slurm-topology": ["--slurm-topology", os.path.join(tmp, "topology.conf")],
            "--hostfile": ["--hostfile", os.path.join(tmp, "hostfile")],
            "--power": ["--power", os.path.join(tmp, "power.csv")],
            "--bom": ["--bom", os.path.join(tmp, "bom.csv")],
        }
        if args.formats:
            exports["--graph .graphml"] = ["--graph", os.path.join(tmp, "g.graphml")]
            exports["--graph .gexf"] = ["--graph", os.path.join(tmp, "g.gexf")]
        sizes = [int(s) for s in args.sizes.split(",")]
        for gpus, path in prepare(sizes, args.out, python):
            commands = {
                "load": [python, "-c", LOAD, path],
                "validate": [*cmd, "validate", path, "--format", "json", "--output", os.devnull],
                "report": [*cmd, "report", path, "--format", "json", "--output", os.devnull],
                "bisection": [python, "-c", BISECTION, path],
            }
            for name, option in exports.items():
                commands[name] = [*cmd, "export", path, *option]
            results: dict[str, list] = {name: [] for name in commands}
            for _ in range(args.repeat):
                for name, argv_ in commands.items():
                    result = run_timed(argv_, env)
                    if result.code not in (0, 1) or crashed(result.stderr):
                        print(f"[bench] {name} failed ({result.code}):\n{result.stderr[-2000:]}")
                        failed = True
                    results[name].append(result)
            stats = {name: summary(rs) for name, rs in results.items()}
            load, load_cpu = stats["load"]["best_s"], stats["load"]["cpu_best_s"]
            flow = min(r.timings().get("bisection", float("inf")) for r in results["bisection"])
            print(f"\n### {gpus:,} GPUs ({os.path.basename(path)})\n")
            print(
                "| command | wall best / median s | CPU best / median s "
                "| beyond load, wall; CPU s | target | peak MB |"
            )
            print("|---|---:|---:|---:|---|---:|")
            for name, s in stats.items():
                beyond = ""
                if name != "load":
                    beyond = f"{fmt_s(s['best_s'] - load)}; {fmt_s(s['cpu_best_s'] - load_cpu)}"
                target = ""
                if name in TARGETS and gpus >= 100_000:
                    limit = TARGETS[name]
                    wall = "met" if s["best_s"] - load < limit else "NOT met"
                    cpu = "met" if s["cpu_best_s"] - load_cpu < limit else "NOT met"
                    target = f"< {limit:g} s: wall {wall}, CPU {cpu}"
                if name == "report":
                    limit = stats["validate"]["best_s"] + flow
                    limit_cpu = stats["validate"]["cpu_best_s"] + flow
                    wall = "met" if s["best_s"] <= limit else "NOT met"
                    cpu = "met" if s["cpu_best_s"] <= limit_cpu else "NOT met"
                    target = (
                        f"≤ validate + bisection: wall {fmt_s(limit)} s {wall}; "
                        f"CPU {fmt_s(limit_cpu)} s {cpu}"
                    )
                if name == "bisection":
                    target = f"the bisection alone, in process: {fmt_s(flow)} s"
                print(
                    f"| {name} | {fmt_s(s['best_s'])} / {fmt_s(s['median_s'])} "
                    f"| {fmt_s(s['cpu_best_s'])} / {fmt_s(s['cpu_median_s'])} | {beyond} "
                    f"| {target} | {s['peak_mb']:.0f} |"
                )
            print(json.dumps({"gpus": gpus, "bisection_s": flow}), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
