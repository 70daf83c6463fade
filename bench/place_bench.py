#!/usr/bin/env python3
"""Time Place device in the designer on the 128-GPU example: from the Enter that picks a
catalog entry to the device placed and every panel updated. Prints a markdown table.

    python bench/place_bench.py                 # 9 repeats
    python bench/place_bench.py --repeat 15 --layout layouts/training-128.toml

Pilot (headless, in a child process, 120x40) opens LAYOUT (the 128-GPU example: rack a01
and its node a01-n01 at U3-U6 are assumed), puts the cursor on a01-n01 and, each repeat,
presses ``a``, types ``qm8700`` (setup, not timed), then Enter: the switch goes to the
nearest free unit above the node (U7) and the timed span ends when Pilot's press returns
with the device in the layout and the problems panel, racks view, header and inspector
updated. The app's own figure (placement rule, command, incremental re-check, every panel
updated, the notification) is shown beside it, and Pilot's own cost for a key bound to
nothing. Each repeat is undone (ctrl+z, not timed) before the next. Then the mouse: with a
catalog entry armed (as a click on it does), a click on U8 of a01 places it (no dialog
closes, so no full repaint); Pilot's click is timed the same way.
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

PILOT = r"""
import asyncio, json, shutil, sys, time
from pathlib import Path
from rackdesigner.tui.app import DesignerApp
from rackdesigner.tui.screens.catalog_picker import CatalogPickerScreen

layout, repeat, folder = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
copy = folder / Path(layout).name
shutil.copy(layout, copy)

async def idle(app, pilot):
    for _ in range(400):
        await pilot.pause()
        if not [w for w in app.workers
                if w.group in ("load", "check", "fabric", "dialog") and w.is_running]:
            return
        await asyncio.sleep(0.005)

async def main():
    app = DesignerApp(str(copy), keymap_file=folder / "none.toml")
    out = {"press": [], "app": [], "edit": [], "noop": [], "click": [], "click_app": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await idle(app, pilot)
        for _ in range(repeat):
            began = time.perf_counter()
            await pilot.press("z")
            out["noop"].append(time.perf_counter() - began)
        for _ in range(repeat):
            app.main.go_to("a01-n01")
            await pilot.press("a")
            while not isinstance(app.screen, CatalogPickerScreen):
                await pilot.pause()
            await pilot.press(*"qm8700")
            began = time.perf_counter()
            await pilot.press("enter")
            while app.workspace.session.index.device("a01-sw01") is None:
                await pilot.pause()
            out["press"].append(time.perf_counter() - began)
            assert app.workspace.session.index.device("a01-sw01").position == 7
            out["app"].append(app.workspace.timings["place"])
            out["edit"].append(app.workspace.timings["edit"])
            await idle(app, pilot)
            await pilot.press("ctrl+z")
            await idle(app, pilot)
            assert app.workspace.session.index.device("a01-sw01") is None
        # The mouse: an armed catalog entry, then a click on U8 (no dialog to close).
        view = app.main.racks
        for _ in range(repeat):
            app.main.go_to("a01-n01")
            await pilot.pause()
            app.main.build.armed = "qm8700"
            tallest = max(p.height for p in view.plans())
            x = view.gutter.left + 3 + 1 + 4 - view.scroll_offset.x
            y = view.gutter.top + 1 + tallest - 8 - view.scroll_offset.y
            began = time.perf_counter()
            await pilot.click("#racks", offset=(x, y))
            while app.workspace.session.index.device("a01-sw01") is None:
                await pilot.pause()
            out["click"].append(time.perf_counter() - began)
            assert app.workspace.session.index.device("a01-sw01").position == 8
            out["click_app"].append(app.workspace.timings["place"])
            await idle(app, pilot)
            await pilot.press("ctrl+z")
            await idle(app, pilot)
    print(json.dumps(out))

asyncio.run(main())
"""


def table(rows: list[tuple[str, list[float]]]) -> str:
    out = ["| measure | best (ms) | median (ms) | runs |", "|---|---:|---:|---:|"]
    for name, values in rows:
        out.append(
            f"| {name} | {min(values) * 1000:.3f} | {statistics.median(values) * 1000:.3f}"
            f" | {len(values)} |"
        )
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", default=str(ROOT / "layouts" / "training-128.toml"))
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        child = subprocess.run(
            [args.python, "-c", PILOT, args.layout, str(args.repeat), folder],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    if child.returncode != 0:
        print(child.stderr, file=sys.stderr)
        return 1
    data = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"## Place device ({Path(args.layout).name}, Pilot 120x40)\n")
    print(
        table(
            [
                ("Pilot press of a key bound to nothing (its own cost)", data["noop"]),
                ("enter in the picker to device placed, screen updated (Pilot)", data["press"]),
                ("in the app: placement rule, command, re-check, panels, notice", data["app"]),
                ("of which the command, re-check and panels (app.main.do)", data["edit"]),
                ("click on a unit, entry armed, to placed (Pilot)", data["click"]),
                ("in the app, for the click", data["click_app"]),
            ]
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
