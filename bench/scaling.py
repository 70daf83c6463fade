#!/usr/bin/env python3
"""The scaling audit: how each part of ``validate`` and each command's time grows with the
hall. Prints markdown tables.

    python bench/scaling.py                       # new --gpus 8192 and 32768, every command
    python bench/scaling.py --gpus 8192,32768,100000 --parts-only
    python bench/scaling.py --layout a.toml --layout b.toml --python .venv/bin/python

For each layout (written by ``rackdesigner new --gpus N`` unless given), in one run:

  parts     in a child process of ``--python``: the loader's steps, each part of the
            analysis built on first use, and every rule alone, by process time (gc paused,
            as the commands pause it), and the layout's racks, devices, cables, chain
            elements and pathways
  commands  ``validate``, ``report``, each ``export`` kind and ``whatif --fail`` of one
            element of each kind the layout has, as whole processes: user + system CPU

and the growth from the first layout to the last beside the hall's (cables): a part or
command whose time grows more than 1.3 x faster than the hall is marked. Times are CPU
seconds of one run (the machine is shared: run again before believing a small mark).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import tomllib
from pathlib import Path

PARTS = r"""
import gc, json, sys, time
gc.disable()
from rackdesigner.layout_io.toml_parse import parse_toml
from rackdesigner.layout_io.linemap import scan
from rackdesigner.layout_io import reader
from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import rules_for
clock = time.process_time
out, rules = {}, {}
def timed(name, work):
    start = clock(); value = work(); out[name] = clock() - start; return value
text = open(sys.argv[1]).read()
data = timed("load: parse", lambda: parse_toml(text))
lines = timed("load: line map", lambda: scan(text))
layout = timed("load: model", lambda: reader._Builder(text, lines, sys.argv[1]).layout(data))
a = timed("analysis: facts", lambda: Analysis(layout))
for part in ("pathway_graph", "links", "fabrics", "cdu_loads", "power_chain", "storage"):
    timed("analysis: " + part, lambda: getattr(a, part))
timed("analysis: cable lengths (routes)", lambda: [link.length for link in a.links])
timed("analysis: pathway fill", lambda: a.plant.fills(0.4))
for rule in rules_for(layout, None, None):
    start = clock(); list(rule.check(a)); rules[rule.code] = clock() - start
sizes = {"cables": len(layout.links), "racks": len(layout.racks), "devices": len(a.devices),
         "chain elements": len(layout.power_elements or []), "pathways": len(layout.pathways or [])}
print(json.dumps({"parts": out, "rules": rules, "sizes": sizes}))
"""

EXPORTS = {
    "bom": ("--bom", "bom.csv"),
    "netbox": ("--netbox", "netbox"),
    "graph .json": ("--graph", "graph.json"),
    "graph .graphml": ("--graph", "graph.graphml"),
    "cables": ("--cables", "cables.csv"),
    "pull sheets": ("--pull-sheets", "pull"),
    "labels": ("--labels", "labels.csv"),
    "slurm topology": ("--slurm-topology", "topology.conf"),
    "ibsim": ("--ibsim", "net.ibsim"),
    "floorplan": ("--floorplan", "floor.svg"),
    "topology": ("--topology", "topology.svg"),
    "one-line": ("--one-line", "one-line.svg"),
    "cooling diagram": ("--cooling-diagram", "cooling.svg"),
}


def cpu(argv: list[str], timeout: float) -> float | None:
    """User + system seconds of a whole process; None where it failed or ran past
    ``timeout`` (then it is killed)."""
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
            proc.returncode = 0  # reaped by wait4: Popen must not wait for it again
    return usage.ru_utime + usage.ru_stime if status == 0 else None


def failures(path: Path) -> list[str]:
    """One failure of each kind the layout has (the first in the file), by its ids."""
    data = tomllib.loads(path.read_text())
    picks: dict[str, str] = {}
    for element in data.get("power", {}).get("elements", []):
        picks.setdefault(element["kind"], element["id"])
    racks = data.get("racks", [])
    middle = racks[len(racks) // 2] if racks else {}
    if middle:
        picks["rack"] = middle["id"]
    if middle.get("feeds"):
        picks["feed"] = middle["feeds"][0]["id"]
        picks["side"] = middle["feeds"][0].get("side", "A")
    for rack in racks:
        for device in rack.get("devices", []):
            ident = device["id"]
            for kind, word in (
                ("pdu", "-pdu"),
                ("cdu", "-cdu"),
                ("switch", "spine"),
                ("storage", "-pfs"),
            ):
                if word in ident:
                    picks.setdefault(kind, ident)
    for loop in data.get("cooling", {}).get("loops", []):
        picks.setdefault("loop", loop["id"])
    return [f"{kind}:{ident}" for kind, ident in picks.items()]


def commands(exe: str, path: Path, out: Path) -> dict[str, list[str]]:
    runs = {
        "validate": [exe, "validate", str(path), "--format", "json", "--output", os.devnull],
        "report": [exe, "report", str(path), "--format", "json", "-o", os.devnull],
    }
    for name, (option, target) in EXPORTS.items():
        runs[f"export {name}"] = [exe, "export", str(path), option, str(out / target)]
    for failure in failures(path):
        kind = failure.partition(":")[0]
        runs[f"whatif --fail {kind}"] = [
            exe,
            "whatif",
            str(path),
            "--fail",
            failure,
            "-o",
            os.devnull,
        ]
    return runs


def growth_rows(names: list[str], found: list[dict], section: str, hall: float) -> list[str]:
    rows = []
    for name in names:
        values = [f[section].get(name) for f in found]
        if any(v is None for v in values):
            continue
        cells = " | ".join(f"{v:.3f}" for v in values)
        first, last = values[0], values[-1]
        if first < 0.005:  # too short to say
            rows.append(f"| {name} | {cells} | | |")
            continue
        mark = " **suspect**" if last / first > 1.3 * hall else ""
        rows.append(
            f"| {name} | {cells} | {last / first:.1f} x | {last / first / hall:.2f}{mark} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", default="8192,32768", help="sizes for rackdesigner new")
    parser.add_argument("--layout", action="append", type=Path, help="layouts, smallest first")
    parser.add_argument("--python", default=sys.executable, help="the venv's python")
    parser.add_argument("--parts-only", action="store_true")
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args()
    exe = str(Path(args.python).parent / "rackdesigner")
    work = Path(tempfile.mkdtemp(prefix="scaling-"))
    layouts = args.layout or []
    if not layouts:
        for gpus in (int(n) for n in args.gpus.split(",")):
            path = work / f"new-{gpus}.toml"
            subprocess.run(
                [exe, "new", str(path), "--gpus", str(gpus)],
                check=True,
                stdout=subprocess.DEVNULL,
                timeout=args.timeout,
            )
            layouts.append(path)
    found = []
    for path in layouts:
        child = subprocess.run(
            [args.python, "-c", PARTS, str(path)],
            check=True,
            capture_output=True,
            text=True,
            timeout=args.timeout,
        )
        found.append(json.loads(child.stdout))
        if not args.parts_only:
            out = work / path.stem
            out.mkdir(exist_ok=True)
            found[-1]["commands"] = {
                name: cpu(argv, args.timeout) for name, argv in commands(exe, path, out).items()
            }
        print(path.name, found[-1]["sizes"], file=sys.stderr, flush=True)
    first, last = found[0], found[-1]
    hall = last["sizes"]["cables"] / first["sizes"]["cables"]
    print("| measure | " + " | ".join(p.name for p in layouts) + " | growth |")
    print("|---|" + "---:|" * (len(layouts) + 1))
    for key in first["sizes"]:
        values = [f["sizes"][key] for f in found]
        ratio = f"{values[-1] / values[0]:.1f} x" if values[0] else ""
        print(f"| {key} | " + " | ".join(f"{v:,}" for v in values) + f" | {ratio} |")
    sizes = " | ".join(f"{p.name} (s)" for p in layouts)
    header = [
        "",
        f"| {{}} | {sizes} | growth | ÷ cables' growth |",
        "|---|" + "---:|" * (len(layouts) + 2),
    ]
    for section in ("parts", "rules", "commands"):
        if section not in first:
            continue
        names = sorted(first[section], key=lambda n: -(last[section].get(n) or 0))
        if section == "rules":
            names = [n for n in names if (last["rules"].get(n) or 0) >= 0.01]
        print("\n".join(line.format(section) for line in header))
        print("\n".join(growth_rows(names, found, section, hall)))


if __name__ == "__main__":
    main()
