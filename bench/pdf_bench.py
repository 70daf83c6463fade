#!/usr/bin/env python3
"""Time the PDF print pack of a whole hall, as whole processes, against the old path.

    python bench/pdf_bench.py                      # 8,192 GPUs (272 racks, 427 pages)
    python bench/pdf_bench.py --gpus 1024 --repeat 3
    python bench/pdf_bench.py --before /tmp/before --no-old-path   # against a commit

``--before DIR`` adds ``export`` run from another tree's ``rackdesigner`` (``git archive
main rackdesigner assets | tar -x -C DIR``), interleaved with this one; ``--no-old-path``
leaves out the slow per-page path.

Both sides run as children, interleaved, ``--repeat`` times, on the same layout:

  export    rackdesigner export F --pdf OUT: load, check, lay out, print (one libcairo
            surface; table pages drawn from their lines, drawing pages painted from
            their SVG, export/render/paint.py)
  old path  a child that loads and checks as export does, then prints the same pages as
            the pack once did: every page's SVG converted alone by cairosvg
            into a one-page PDF, the pages joined by pypdf
  load      load and check alone, so that each side's printing is its time beyond it

The table gives the best and median wall seconds and the printing beyond load and check.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from generate import generate_layout_text  # noqa: E402

LOAD = r"""
import gc, os, sys
gc.disable()
from rackdesigner.layout_io import load_path
from rackdesigner.check.engine import check
analysis, diagnostics = check(load_path(sys.argv[1]), file=sys.argv[1])
"""

OLD = (
    LOAD
    + r"""
import io
import cairosvg
from pypdf import PdfReader, PdfWriter
from rackdesigner.export.render import pdf
from rackdesigner.export.render.raster import flatten
writer = PdfWriter()
for document in pdf.pages(analysis, diagnostics):
    single = cairosvg.svg2pdf(bytestring=flatten(document).encode("utf-8"))
    writer.add_page(PdfReader(io.BytesIO(single)).pages[0])
with open(sys.argv[2], "wb") as out:
    writer.write(out)
sys.stdout.flush()
os._exit(0)
"""
)


def timed(args: list[str], tree: str = ROOT) -> float:
    """Wall seconds of ``args`` run with ``tree``'s rackdesigner first on the path."""
    env = {**os.environ, "PYTHONPATH": tree}
    started = time.perf_counter()
    subprocess.run(args, check=True, cwd=tree, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=8192)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--before", help="a tree whose rackdesigner is timed beside this one")
    parser.add_argument("--no-old-path", action="store_true")
    options = parser.parse_args()
    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    layout = os.path.join(HERE, "out", f"gpus-{options.gpus}.toml")
    if not os.path.exists(layout):
        with open(layout, "w", encoding="utf-8") as out:
            out.write(generate_layout_text(options.gpus))
    python = sys.executable
    env_quiet = {**os.environ, "CI": "true"}  # no progress bar in the children
    os.environ.update(env_quiet)
    times: dict[str, list[float]] = {"load": [], "export": []}
    if options.before:
        times["export (before)"] = []
    if not options.no_old_path:
        times["old path"] = []
    pages = 0
    with tempfile.TemporaryDirectory() as folder:
        new_pdf = os.path.join(folder, "new.pdf")
        old_pdf = os.path.join(folder, "old.pdf")
        for _ in range(options.repeat):
            times["load"].append(timed([python, "-c", LOAD, layout]))
            times["export"].append(
                timed([python, "-m", "rackdesigner", "export", layout, "--pdf", new_pdf])
            )
            if options.before:
                before = os.path.join(folder, "before.pdf")
                command = [python, "-m", "rackdesigner", "export", layout, "--pdf", before]
                times["export (before)"].append(timed(command, options.before))
            if not options.no_old_path:
                times["old path"].append(timed([python, "-c", OLD, layout, old_pdf]))
        from pypdf import PdfReader

        pages = len(PdfReader(new_pdf).pages)
        paths = {"export": new_pdf, "old path": old_pdf}
        paths["export (before)"] = os.path.join(folder, "before.pdf")
        sizes = {name: os.path.getsize(p) / 1e6 for name, p in paths.items() if os.path.exists(p)}
    base = min(times["load"])
    print(f"{options.gpus:,} GPUs, {pages} pages, {options.repeat} run(s)\n")
    print("| process | best s | median s | printing beyond load + check, s | file MB |")
    print("|---|---:|---:|---:|---:|")
    for name, values in times.items():
        best = min(values)
        beyond = "–" if name == "load" else f"{best - base:.1f}"
        size = f"{sizes[name]:.1f}" if name in sizes else "–"
        print(f"| {name} | {best:.1f} | {statistics.median(values):.1f} | {beyond} | {size} |")
    for name in ("export (before)", "old path"):
        if name in times:
            ratio = (min(times[name]) - base) / max(1e-9, min(times["export"]) - base)
            print(f"\nprinting: {ratio:.1f} x faster than {name}")


if __name__ == "__main__":
    main()
