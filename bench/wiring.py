#!/usr/bin/env python3
"""Time the designer's cabling: Connect ports on the 128-GPU example, and
Generate fabric for 1,024 GPUs (preview, apply, undo), inside the app. Prints markdown.

    python bench/wiring.py                  # 5 repeats
    python bench/wiring.py --repeat 9 --gpus 1024

Both run in a child process through Textual's Pilot, headless at 120x40, the way a person
presses the keys:

* Connect: the designer opens layouts/training-128.toml, the cursor on leaf a01-leaf1; each
  repeat presses ``l``, types ``a01-leaf2`` for end B (the dialog proposes the free ports
  p33 → p33 and the medium) and times enter: from the key to the screen updated (the link
  in the layout, the inspector showing it) through Pilot's press (an upper bound), beside
  the app's own figure (AddLink, re-check, every panel refreshed). ctrl+z undoes it.
* Generate: a layout of 1,024 GPUs from ``bench/generate.py`` with its switches and
  cables taken out (128 liquid-cooled HGX H100 nodes in their racks, no fabric). ``g``
  opens the dialog with the default for 1,024 GPUs (rail, QM9700, 1:1); the preview is
  timed from the key to the counts shown (the generator runs in a worker thread), the
  generator alone beside it; enter applies the plan as one Batch (timed to the screen
  updated), ctrl+z undoes it (timed the same way). The fabric rules then run in their
  worker: the time to their findings is shown too.

The reference is ``tomllib`` parsing the same 1,024-GPU layout with its fabric, in the same
child process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

CHILD = r"""
import asyncio, json, shutil, sys, time, tomllib
from pathlib import Path
from rackdesigner.layout_io.catalog import builtin
from rackdesigner.layout_io import dumps, load_text
from rackdesigner.tui.app import DesignerApp
from rackdesigner.tui.screens.connect import ConnectScreen
from rackdesigner.tui.screens.fabric import GenerateScreen

example, fabric_file, repeat, folder = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
fabric_text = Path(fabric_file).read_text(encoding="utf-8")
out = {k: [] for k in ("noop", "connect_press", "connect_app", "preview_press",
                        "preview_worker", "apply_press", "apply_app", "undo_press",
                        "undo_app", "fabric_after_apply", "tomllib")}

async def idle(app, pilot, groups=("load", "check", "fabric")):
    for _ in range(20000):
        await pilot.pause()
        if not [w for w in app.workers if w.group in groups and w.is_running]:
            return
        await asyncio.sleep(0.002)
    raise RuntimeError("workers did not finish")

def step(text):
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)

async def until(pilot, test, limit=120.0):
    stop = time.perf_counter() + limit
    while time.perf_counter() < stop:
        if test():
            return
        await asyncio.sleep(0.001)
        await pilot.pause()
    raise RuntimeError("timed out")

async def type_text(pilot, text):
    await pilot.press(*text)

async def connect():
    copy = folder / Path(example).name
    shutil.copy(example, copy)
    app = DesignerApp(str(copy), keymap_file=folder / "none.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await idle(app, pilot)
        step("connect: opened")
        app.main.go_to("a01-leaf1")
        await pilot.pause()
        for _ in range(repeat):
            began = time.perf_counter()
            await pilot.press("z")
            out["noop"].append(time.perf_counter() - began)
        for _ in range(repeat):
            await pilot.press("l")
            await until(pilot, lambda: isinstance(app.screen, ConnectScreen))
            await type_text(pilot, "a01-leaf2")
            await pilot.pause()
            facts = app.main.inspector.query_one("#inspector-facts")
            began = time.perf_counter()
            await pilot.press("enter")
            await until(pilot, lambda: "a01-leaf2:p33" in str(facts.render()))
            out["connect_press"].append(time.perf_counter() - began)
            links = app.workspace.session.index.links_of("a01-leaf1")
            assert any(l.b == "a01-leaf2:p33" for l in links), app.notices[-2:]
            out["connect_app"].append(app.workspace.timings["connect"])
            await idle(app, pilot)
            await pilot.press("ctrl+z")
            await idle(app, pilot)
            step("connect: one repeat")

def nodes_only(text):
    layout = load_text(text)
    kinds = builtin().devices
    layout.links = []
    for rack in layout.racks:
        rack.devices = [d for d in rack.devices
                        if getattr(kinds.get(d.model), "kind", None) != "switch"]
    return dumps(layout)

async def generate():
    began = time.perf_counter()
    tomllib.loads(fabric_text)
    out["tomllib"].append(time.perf_counter() - began)
    path = folder / "gpus-1024-nodes.toml"
    path.write_text(nodes_only(fabric_text), encoding="utf-8")
    app = DesignerApp(str(path), keymap_file=folder / "none.toml")
    step("generate: layout written")
    async with app.run_test(size=(120, 40)) as pilot:
        await idle(app, pilot)
        step("generate: opened")
        session = app.workspace.session
        for _ in range(repeat):
            began = time.perf_counter()
            await pilot.press("g")
            await until(pilot, lambda: isinstance(app.screen, GenerateScreen))
            screen = app.screen
            await until(pilot, lambda: screen.result is not None or screen.error is not None)
            out["preview_press"].append(time.perf_counter() - began)
            assert screen.result is not None, screen.error
            out["preview_worker"].append(screen.result.seconds)
            step("generate: previewed")
            cables = len(screen.result.plan.links)
            began = time.perf_counter()
            await pilot.press("enter")
            await until(pilot, lambda: "generate_apply" in app.workspace.timings)
            out["apply_press"].append(time.perf_counter() - began)
            assert len(session.layout.links) == cables, app.notices[-3:]
            out["apply_app"].append(app.workspace.timings.pop("generate_apply"))
            step("generate: applied")
            await idle(app, pilot)
            out["fabric_after_apply"].append(time.perf_counter() - began)
            began = time.perf_counter()
            await pilot.press("ctrl+z")
            out["undo_press"].append(time.perf_counter() - began)
            assert session.layout.links == []
            out["undo_app"].append(app.workspace.timings["edit"])
            await idle(app, pilot)
            step("generate: undone")
    out["cables"] = cables

async def main():
    await connect()
    await generate()
    print(json.dumps(out))

asyncio.run(main())
"""


def table(rows: list[tuple[str, list[float]]], unit: str) -> str:
    scale = 1000.0 if unit == "ms" else 1.0
    lines = [f"| | median ({unit}) | best ({unit}) | runs |", "|---|---:|---:|---:|"]
    for name, values in rows:
        lines.append(
            f"| {name} | {statistics.median(values) * scale:,.{0 if unit == 'ms' else 2}f} "
            f"| {min(values) * scale:,.{0 if unit == 'ms' else 2}f} | {len(values)} |"
        )
    return "\n".join(lines)


def main() -> int:
    from generate import generate_layout_text  # bench/generate.py: no rackdesigner import

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--example", default=str(ROOT / "layouts" / "training-128.toml"))
    parser.add_argument("--gpus", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    text = generate_layout_text(args.gpus)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / f"gpus-{args.gpus}.toml"
        source.write_text(text, encoding="utf-8")
        child = subprocess.run(
            [args.python, "-c", CHILD, args.example, str(source), str(args.repeat), folder],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    if child.returncode != 0:
        return 1
    r = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"## Connect ports on {Path(args.example).name} (Pilot 120x40)\n")
    print(
        table(
            [
                ("Pilot press of a key bound to nothing (its own cost)", r["noop"]),
                ("enter to the screen updated (through Pilot)", r["connect_press"]),
                ("in the app: AddLink, re-check, every panel updated", r["connect_app"]),
            ],
            "ms",
        )
    )
    print(f"\n## Generate fabric for {args.gpus:,} GPUs ({r['cables']:,} cables, Pilot 120x40)\n")
    print(
        table(
            [
                ("reference: tomllib parses the layout with its fabric", r["tomllib"]),
                ("g to the preview's counts shown (through Pilot)", r["preview_press"]),
                ("the generator in the preview worker", r["preview_worker"]),
                ("enter to the fabric applied and shown (through Pilot)", r["apply_press"]),
                ("in the app: to_batch, Batch, re-check, panels", r["apply_app"]),
                ("enter to the fabric rules' findings (worker)", r["fabric_after_apply"]),
                ("ctrl+z to the fabric gone and shown (through Pilot)", r["undo_press"]),
                ("in the app: undo, re-check, panels", r["undo_app"]),
            ],
            "s",
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
