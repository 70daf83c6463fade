#!/usr/bin/env python3
"""Time rack elevations against rackdiag (nwdiag's rack diagram tool), in one run.

    python bench/render_bench.py                       # 100,000 GPUs, 3 repeats
    python bench/render_bench.py --gpus 8192 --repeat 5
    python bench/render_bench.py --rackdiag bench/.venv-rackdiag/bin/rackdiag

rackdiag needs an old Pillow, so it lives in a venv of its own (never in the project's):

    python3 -m venv bench/.venv-rackdiag
    bench/.venv-rackdiag/bin/python -m pip install nwdiag "pillow<10" "setuptools<81"

(or ``python -m pip install -e '.[bench]'`` inside that venv). Both sides run as whole
processes, interleaved, ``--repeat`` times:

  ours      a child that loads the layout, checks it (as ``export`` does), then draws
            the elevations sheet of every rack, front and rear; it reports the three
            phases, so "drawing" is the time beyond load and check; plus the file size
  rackdiag  ``rackdiag -T svg`` on the same layout's first ``--racks`` racks written as a
            rackdiag source (one face: rackdiag has no rear view, 0U devices or
            findings), and on one rack, so that its start-up is subtracted:
            per rack = (t(N racks) - t(1 rack)) / (N - 1)

The ratio compares the median per-rack drawing times. Children run with the repository
root as working directory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from generate import generate_layout_text  # noqa: E402

TARGET_RATIO = 20.0  # ours at least 20 x faster per rack
TARGET_MB = 8.0

OURS = r"""
import json, sys, time
t0 = time.perf_counter()
from rackdesigner.layout_io import load_path
from rackdesigner.check.engine import check
from rackdesigner.export.render.elevation import sheet
layout = load_path(sys.argv[1])
t1 = time.perf_counter()
analysis, diagnostics = check(layout, file=sys.argv[1])
t2 = time.perf_counter()
drawing = sheet(analysis, diagnostics).encode("utf-8")
t3 = time.perf_counter()
with open(sys.argv[2], "wb") as out:
    out.write(drawing)
print(json.dumps({"load": t1 - t0, "check": t2 - t1, "draw": t3 - t2,
                  "racks": len(analysis.racks), "bytes": len(drawing)}))
"""

SVGWRITE = r"""
import json, sys, time
import svgwrite
from rackdesigner.layout_io import load_path
from rackdesigner.check.engine import check
from rackdesigner.export.render.elevation import GEOMETRY as g, plan_rack
layout = load_path(sys.argv[1])
analysis, _ = check(layout, file=sys.argv[1])
t0 = time.perf_counter()
drawing = svgwrite.Drawing(size=(1000, 1000), debug=sys.argv[2] == "on")
for i, facts in enumerate(analysis.racks):
    plan = plan_rack(facts)
    rack = drawing.add(drawing.g(transform=f"translate({i % 36 * g.pitch},{i // 36 * 700})"))
    rack.add(drawing.text(facts.rack.id, insert=(0, 14), class_="h3"))
    for face in ("front", "rear"):
        f = rack.add(drawing.g())
        f.add(drawing.use("#u42"))
        for p in plan.placed:
            y, h = g.span(plan.units, p.position, p.height)
            d = f.add(drawing.g(class_="kg"))
            d.set_desc(title=p.dev.id)
            d.add(drawing.use("#m1", insert=(0, y)))
            d.add(drawing.text(p.dev.id, insert=(36, y + 10)))
data = drawing.tostring().encode()
print(json.dumps({"draw": time.perf_counter() - t0, "bytes": len(data)}))
"""


def run(cmd: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def rackdiag_source(path: str, racks: int) -> str:
    """The first ``racks`` racks of the layout as a rackdiag diagram, devices by position."""
    sys.path.insert(0, ROOT)
    from rackdesigner.check.engine import check
    from rackdesigner.layout_io import load_path

    analysis, _ = check(load_path(path), file=path)
    lines = ["rackdiag {"]
    for facts in analysis.racks[:racks]:
        lines.append("  rack {")
        lines.append(f"    {round(facts.rack.height_u)}U;")
        lines.append(f'    description = "{facts.rack.id}";')
        for dev in sorted(
            (d for d in facts.devices if d.device.position is not None and d.height_u > 0),
            key=lambda d: d.device.position,
        ):
            size = round(dev.height_u)
            extra = f" [{size}U]" if size > 1 else ""
            lines.append(f'    {dev.device.position}: "{dev.id}"{extra};')
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpus", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--racks", type=int, default=50, help="racks drawn by rackdiag")
    parser.add_argument(
        "--rackdiag",
        default=os.path.join(HERE, ".venv-rackdiag", "bin", "rackdiag"),
        help="the rackdiag executable (in its own venv)",
    )
    parser.add_argument("--svgwrite", action="store_true", help="also time svgwrite")
    parser.add_argument("--out", default=os.path.join(HERE, "out"))
    args = parser.parse_args()

    os.makedirs(args.out, exist_ok=True)
    layout = os.path.join(args.out, f"gpus-{args.gpus}.toml")
    text = generate_layout_text(args.gpus)
    old = None
    if os.path.exists(layout):
        with open(layout, encoding="utf-8") as stream:
            old = stream.read()
    if old != text:
        with open(layout, "w", encoding="utf-8") as stream:
            stream.write(text)
    rackdiag = args.rackdiag if shutil.which(args.rackdiag) else None
    work = tempfile.mkdtemp(prefix="render-bench-")
    sources = {}
    if rackdiag:
        for n in (1, args.racks):
            sources[n] = os.path.join(work, f"racks-{n}.diag")
            with open(sources[n], "w", encoding="utf-8") as stream:
                stream.write(rackdiag_source(layout, n))
    ours: list[dict[str, float]] = []
    exports: list[float] = []
    theirs: list[float] = []
    svgw: dict[str, list[float]] = {"off": [], "on": []}
    sheet_path = os.path.join(work, "elevations.svg")
    for _ in range(args.repeat):
        _, out = run([sys.executable, "-c", OURS, layout, sheet_path])
        ours.append(json.loads(out))
        seconds, _ = run(
            [sys.executable, "-m", "rackdesigner", "export", layout, "--elevations", sheet_path]
        )
        exports.append(seconds)
        if rackdiag:
            t1, _ = run([rackdiag, "-T", "svg", "-o", os.path.join(work, "1.svg"), sources[1]])
            tn, _ = run(
                [rackdiag, "-T", "svg", "-o", os.path.join(work, "n.svg"), sources[args.racks]]
            )
            theirs.append((tn - t1) / (args.racks - 1))
        if args.svgwrite:
            for mode in ("off", "on"):
                _, out = run([sys.executable, "-c", SVGWRITE, layout, mode])
                svgw[mode].append(json.loads(out)["draw"])
    racks = int(ours[0]["racks"])
    size_mb = ours[0]["bytes"] / 1e6
    draw = statistics.median(o["draw"] for o in ours)
    per_rack_ms = draw / racks * 1000
    print(f"## Elevations, {args.gpus:,} GPUs ({racks:,} racks), median of {args.repeat}\n")
    print("| measure | value |")
    print("|---|---|")
    print(f"| load (ours) | {statistics.median(o['load'] for o in ours):.2f} s |")
    print(f"| check (ours) | {statistics.median(o['check'] for o in ours):.2f} s |")
    print(f"| drawing, all racks front and rear (ours) | {draw:.2f} s |")
    print(f"| drawing per rack (ours) | {per_rack_ms:.3f} ms |")
    print(
        "| `rackdesigner export --elevations`, whole process | "
        f"{statistics.median(exports):.2f} s |"
    )
    print(f"| sheet size | {size_mb:.2f} MB (target < {TARGET_MB:g} MB) |")
    if args.svgwrite:
        for mode in ("off", "on"):
            print(
                f"| svgwrite, devices only, validation {mode} | "
                f"{statistics.median(svgw[mode]):.2f} s |"
            )
    if theirs:
        their_ms = statistics.median(theirs) * 1000
        ratio = their_ms / per_rack_ms
        verdict = "met" if ratio >= TARGET_RATIO else "NOT met"
        print(f"| rackdiag per rack ({args.racks} racks, one face) | {their_ms:.2f} ms |")
        print(f"| ratio | {ratio:.0f} x (target ≥ {TARGET_RATIO:g} x: {verdict}) |")
    else:
        print(f"| rackdiag | not found at {args.rackdiag} (see the module docstring) |")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
