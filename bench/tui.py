#!/usr/bin/env python3
"""Time the designer app: start to first paint in a real terminal, and an edit to the
updated problems panel through Pilot. Prints a markdown table.

    python bench/tui.py                     # 5 repeats of each, interleaved
    python bench/tui.py --repeat 9 --layout layouts/training-128.toml
    python bench/tui.py --paint-only --before /tmp/before   # another source tree beside it

Start to first paint (tmux, 120x40): for each repeat, interleaved, a new tmux session runs

  hello     a bare Textual app whose only widget is Static("hello")
  designer  rackdesigner edit LAYOUT

(and, with ``--before DIR``, the designer of the source tree DIR, e.g. ``git archive``
of the commit before, started from DIR the same way) and the screen is read every 5 ms
until "hello" (for hello), the designer's first frame
(its header), its racks ("Row A"), and the checked totals ("GPUs") appear. The clock starts just
before tmux is asked to start the command, the same way for both, so tmux and shell start-up
count for both. Beside the wall time, the CPU time the process had used when each marker
was seen (/proc, 10 ms ticks): on a machine other processes load, the wall time also
counts their turns, the CPU time far less.

Edit to problems panel (Pilot, headless, in a child process): the designer opens LAYOUT
(the 128-GPU example: its layout is assumed) at 120x40, deletes the blanking panel at the
top of rack a01 and goes to leaf a01-leaf1; each repeat moves the leaf to U41 with m, arrows
and enter (a PLC003 finding appears in the problems panel) and undoes it (it goes). The
time is from the key press (enter, ctrl+z) to the problems panel holding the new findings,
through Pilot's press (so an upper bound); the app's own figure (command, re-check and
every panel updated) is shown beside it. The fabric rules then run in a worker; the time
to their findings is reported too.
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
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HELLO = """
from textual.app import App
from textual.widgets import Static

class Hello(App):
    def compose(self):
        yield Static("hello")

Hello().run()
"""

PILOT = r"""
import asyncio, json, shutil, sys, time
from pathlib import Path
from rackdesigner.tui.app import DesignerApp

layout, repeat, folder = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
copy = folder / Path(layout).name
shutil.copy(layout, copy)

async def idle(app, pilot):
    for _ in range(200):
        await pilot.pause()
        if not [w for w in app.workers
                if w.group in ("load", "check", "fabric") and w.is_running]:
            return
        await asyncio.sleep(0.005)

async def main():
    app = DesignerApp(str(copy), keymap_file=folder / "none.toml")
    out = {"press": [], "app": [], "fabric": [], "noop": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await idle(app, pilot)
        # Free U41-U42, then put the cursor on a leaf switch (setup, not timed).
        await pilot.press("delete")
        await idle(app, pilot)
        app.main.go_to("a01-leaf1")
        await pilot.pause()
        for _ in range(repeat):  # what Pilot itself costs: a key bound to nothing
            began = time.perf_counter()
            await pilot.press("z")
            out["noop"].append(time.perf_counter() - began)
        for _ in range(repeat):
            # Move the leaf to U41 (PLC003: outside the rack's middle), then undo it.
            await pilot.press("m", *["up"] * 22)
            for key, present in (("enter", True), ("ctrl+z", False)):
                began = time.perf_counter()
                await pilot.press(key)
                found = any(d.code == "PLC003" for d in app.main.problems.findings)
                out["press"].append(time.perf_counter() - began)
                assert found == present, (key, found, app.notices[-3:])
                out["app"].append(app.workspace.timings["edit"])
                await idle(app, pilot)
                out["fabric"].append(time.perf_counter() - began)
    print(json.dumps(out))

asyncio.run(main())
"""


class Tmux:
    def __init__(self) -> None:
        self.socket = f"rackdesigner-bench-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, check=False
        ).stdout


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system, every thread) process ``pid`` has used so far (0: gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def paint_times(
    command: list[str],
    markers: list[str],
    timeout: float = 60.0,
    cwd: Path = ROOT,
    cpu: list[float] | None = None,
) -> list[float]:
    """Seconds from asking tmux to start ``command`` (in ``cwd``: ``-m`` imports the
    package found there) to each marker appearing on screen; with ``cpu``, the CPU seconds
    the command had used by then are appended to it (the process is ``exec``'d: tmux's
    pane process is the command's). On a shared machine the CPU time varies far less than
    the wall time, which waits for the other processes' turns too."""
    tmux = Tmux()
    line = " ".join(f"'{part}'" for part in command)
    found: list[float] = []
    began = time.perf_counter()
    tmux("new-session", "-d", "-s", "b", "-x", "120", "-y", "40", "-c", str(cwd), f"exec {line}")
    pid = int(tmux("display-message", "-p", "-t", "b", "#{pane_pid}").strip() or 0)
    try:
        while len(found) < len(markers):
            screen = tmux("capture-pane", "-t", "b", "-p")
            now = time.perf_counter() - began
            used = cpu_seconds(pid)
            while len(found) < len(markers) and markers[len(found)] in screen:
                found.append(now)
                if cpu is not None:
                    cpu.append(used)
            if now > timeout:
                raise RuntimeError(f"{markers[len(found)]!r} never appeared:\n{screen}")
            time.sleep(0.005)
    finally:
        tmux("kill-server")
    return found


def table(rows: list[tuple[str, list[float]]], unit: str = "s") -> str:
    scale = 1000 if unit == "ms" else 1
    out = [f"| measure | best ({unit}) | median ({unit}) | runs |", "|---|---:|---:|---:|"]
    for name, values in rows:
        out.append(
            f"| {name} | {min(values) * scale:.3f} | {statistics.median(values) * scale:.3f}"
            f" | {len(values)} |"
        )
    return "\n".join(out)


MILESTONES = ("first frame (header, panels)", "racks drawn", "checked, totals in the header")


def ratios(name: str, milestones: list[list[float]], hello: list[float]) -> str:
    return f"{name}: ratio to hello, best/best (median/median): " + ", ".join(
        f"{what.split(' (')[0].split(',')[0]} {min(values) / min(hello):.2f} x "
        f"({statistics.median(values) / statistics.median(hello):.2f} x)"
        for what, values in zip(MILESTONES, milestones, strict=True)
    )


def paint_half(args: argparse.Namespace) -> None:
    """Start to first paint, interleaved: hello, then each tree's designer, per repeat; the
    wall time to each milestone and the CPU time the process had used by then."""
    hello = [args.python, "-c", HELLO]
    hello_wall: list[float] = []
    hello_cpu: list[float] = []
    markers = [Path(args.layout).name, "Row ", "GPUs"]
    trees = [("designer", ROOT)] + ([("before", args.before.resolve())] if args.before else [])
    # tree -> [first frame, racks drawn, checked] times
    wall: dict[str, list[list[float]]] = {name: [[], [], []] for name, _ in trees}
    cpu: dict[str, list[list[float]]] = {name: [[], [], []] for name, _ in trees}
    layout = str(Path(args.layout).resolve())
    for _ in range(args.repeat):
        hello_wall.extend(paint_times(hello, ["hello"], cpu=hello_cpu))
        for name, tree in trees:
            command = [args.python, "-m", "rackdesigner", "edit", layout]
            used: list[float] = []
            found = paint_times(command, markers, cwd=tree, cpu=used)
            for kept, value in zip(wall[name], found, strict=True):
                kept.append(value)
            for kept, value in zip(cpu[name], used, strict=True):
                kept.append(value)
    for what, figures, reference in (("wall", wall, hello_wall), ("CPU", cpu, hello_cpu)):
        print(f"## Start to first paint, {what} time ({Path(args.layout).name}, tmux 120x40)\n")
        rows = [("bare Textual app: hello", reference)]
        for name, _ in trees:
            rows += [(f"{name}: {m}", v) for m, v in zip(MILESTONES, figures[name], strict=True)]
        print(table(rows))
        for name, _ in trees:
            print("\n" + ratios(name, figures[name], reference))
        print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layout", default=str(ROOT / "layouts" / "training-128.toml"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument(
        "--before", type=Path, help="another source tree whose designer is timed beside this one"
    )
    parser.add_argument("--paint-only", action="store_true", help="skip the Pilot edit half")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed: the start-to-paint half needs it", file=sys.stderr)
        return 2
    paint_half(args)
    if args.paint_only:
        return 0
    with tempfile.TemporaryDirectory() as folder:
        child = subprocess.run(
            [args.python, "-c", PILOT, args.layout, str(args.repeat), folder],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
    if child.returncode != 0:
        print(child.stderr[-2000:], file=sys.stderr)
        return 1
    result = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"## Edit to updated problems panel ({Path(args.layout).name}, Pilot 120x40)\n")
    print(
        table(
            [
                ("Pilot press of a key bound to nothing (its own cost)", result["noop"]),
                ("key press to problems panel updated (through Pilot)", result["press"]),
                ("in the app: command, re-check, every panel updated", result["app"]),
                ("key press to fabric findings (worker) shown", result["fabric"]),
            ],
            unit="ms",
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
