#!/usr/bin/env python3
"""Time the PDF print pack of a whole hall, as whole processes, against the old path.

    python bench/pdf_bench.py                      # 8,192 GPUs (272 racks, 427 pages)
    python bench/pdf_bench.py --gpus 1024 --repeat 3

Both sides run as children, interleaved, ``--repeat`` times, on the same layout:

  export    rackdesigner export F --pdf OUT: load, check, lay out, print (one libcairo
            surface; table pages drawn directly, the rest through cairosvg onto it)
  old path  a child that loads and checks as export does, then prints the same pages as
            the pack did before issue 23: every page's SVG converted alone by cairosvg
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


def timed(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", type=int, default=8192)
    parser.add_argument("--repeat", type=int, default=1)
    options = parser.parse_args()
    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    layout = os.path.join(HERE, "out", f"gpus-{options.gpus}.toml")
    if not os.path.exists(layout):
        with open(layout, "w", encoding="utf-8") as out:
            out.write(generate_layout_text(options.gpus))
    python = sys.executable
    env_quiet = {**os.environ, "CI": "true"}  # no progress bar in the children
    os.environ.update(env_quiet)
    times: dict[str, list[float]] = {"load": [], "export": [], "old path": []}
    pages = 0
    with tempfile.TemporaryDirectory() as folder:
        new_pdf = os.path.join(folder, "new.pdf")
        old_pdf = os.path.join(folder, "old.pdf")
        for _ in range(options.repeat):
            times["load"].append(timed([python, "-c", LOAD, layout]))
            times["export"].append(
                timed([python, "-m", "rackdesigner", "export", layout, "--pdf", new_pdf])
            )
            times["old path"].append(timed([python, "-c", OLD, layout, old_pdf]))
        from pypdf import PdfReader

        pages = len(PdfReader(new_pdf).pages)
        sizes = {
            name: os.path.getsize(p) / 1e6
            for name, p in (("export", new_pdf), ("old path", old_pdf))
        }
    base = min(times["load"])
    print(f"{options.gpus:,} GPUs, {pages} pages, {options.repeat} run(s)\n")
    print("| process | best s | median s | printing beyond load + check, s | file MB |")
    print("|---|---:|---:|---:|---:|")
    for name, values in times.items():
        best = min(values)
        beyond = "–" if name == "load" else f"{best - base:.1f}"
        size = f"{sizes[name]:.1f}" if name in sizes else "–"
        print(f"| {name} | {best:.1f} | {statistics.median(values):.1f} | {beyond} | {size} |")
    ratio = (min(times["old path"]) - base) / max(1e-9, min(times["export"]) - base)
    print(f"\nprinting: {ratio:.1f} x faster than the old path")


if __name__ == "__main__":
    main()
