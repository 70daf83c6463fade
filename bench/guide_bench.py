#!/usr/bin/env python3
"""Time guidance: what naming an edit's new problems (and finding their fix) adds to an edit.

    python bench/guide_bench.py                              # both parts, 7 repeats
    python bench/guide_bench.py --large bench/out/gpus-100000.toml --repeat 5
    python bench/guide_bench.py --no-app --large bench/out/gpus-100000-cab.toml  # part 2 only

Part 1, the designer on the 128-GPU example (Pilot, headless, in this process, 120x40): the
app's own time for an edit to every panel updated (``app.timings["edit"]``: the command, the
incremental re-check, guidance, problems panel, marks, header, inspector), interleaved with
guidance switched off, for two edits that bring problems:

  cooling  rack a01 set to air cooling (COOL001, COOL002, PLC006 appear: the announcement
           tries COOL001's rear-door fix on a copy of the rack) and the undo
  move     leaf a01-leaf1 moved to U41, out of the middle of its rack (PLC003 appears; no
           fix to try), after the blanking panel there is deleted once; and the undo

Part 2, the core on a large layout (``--large``; CPU seconds of this process, best and
median): a GPU node moved by a unit with the findings brought up to date, without and with
guidance (the copy of the findings before the edit, the diff of what the re-check replaced,
the announcement); and the parts alone: the copy, the diff of the re-check's record, and the
whole-list diff used after a check from scratch.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

_clock = time.process_time


def _ms(values: list[float]) -> str:
    return f"{min(values) * 1000:.2f} | {statistics.median(values) * 1000:.2f} | {len(values)}"


def pilot_part(repeat: int) -> list[tuple[str, list[float]]]:
    from rackdesigner.edit import MoveDevice, RemoveDevice, UpdateRack
    from rackdesigner.tui.app import DesignerApp
    from rackdesigner.tui.workspace import Workspace

    folder = Path(tempfile.mkdtemp(prefix="guide-bench-"))
    shutil.copy(HERE.parent / "layouts" / "training-128.toml", folder / "t.toml")
    times: dict[str, list[float]] = {}
    real_edit = Workspace.edited

    async def settle(pilot: object) -> None:
        app = pilot.app  # type: ignore[attr-defined]
        for _ in range(3000):
            await pilot.pause(0.01)  # type: ignore[attr-defined]
            if not [w for w in app.workers if w.group in ("load", "check", "fabric")]:
                return

    async def run() -> None:
        app = DesignerApp(str(folder / "t.toml"), keymap_file=folder / "none.toml")
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.main.do(RemoveDevice("a01-blank4")) is None  # U41-U42 free
            await settle(pilot)
            edits: list[tuple[str, Callable[[], object]]] = [
                ("cooling", lambda: UpdateRack("a01", cooling="air")),
                ("move", lambda: MoveDevice("a01-leaf1", position=41)),
            ]
            for _ in range(repeat):
                for guided in (True, False):
                    unguided = lambda self, command, before: self.changed(command)  # noqa: E731
                    Workspace.edited = real_edit if guided else unguided  # type: ignore[method-assign]
                    tag = "with guidance" if guided else "guidance off"
                    for name, make in edits:
                        app.notices.clear()
                        assert app.main.do(make()) is None
                        times.setdefault(f"{name}: edit to panels ({tag})", []).append(
                            app.workspace.timings["edit"]
                        )
                        if guided:
                            assert any(s in ("error", "warning") for s, _ in app.notices)
                        await pilot.pause()
                        app.main.action_undo()
                        times.setdefault(f"{name}: undo to panels ({tag})", []).append(
                            app.workspace.timings["edit"]
                        )
                        await settle(pilot)
            Workspace.edited = real_edit  # type: ignore[method-assign]

    asyncio.run(run())
    shutil.rmtree(folder, ignore_errors=True)
    return sorted(times.items())


def large_part(path: str, repeat: int) -> tuple[str, list[tuple[str, list[float]]]]:
    from rackdesigner.design.guidance import announce, new_problems
    from rackdesigner.edit import MoveDevice, Session
    from rackdesigner.layout_io import load_path

    layout = load_path(path)
    session = Session(layout, path=path, check=False)
    session.check_fast()
    index = session.index
    node = spot = None
    for rack in layout.racks:
        taken = index.occupied(rack.id)
        for device in rack.devices:
            if not device.model.startswith(("dgx", "sys")) or device.position is None:
                continue
            units = len(index.units_of(device))
            for position in range(1, int(rack.height_u) - units + 2):
                span = range(position, position + units)
                if position != device.position and all(
                    taken.get(u) in (None, device) for u in span
                ):
                    node, spot = device.id, position
                    break
            if node:
                break
        if node:
            break
    assert node is not None and spot is not None, "no GPU node can move"
    rows: dict[str, list[float]] = {}

    def timed(label: str, action: Callable[[], object]) -> object:
        began = _clock()
        result = action()
        rows.setdefault(label, []).append(_clock() - began)
        return result

    for _ in range(repeat):
        timed(
            "move + re-check + findings",
            lambda: (session.do(MoveDevice(node, position=spot), fabric=False), session.findings),
        )
        session.undo(fabric=False)
        _ = session.findings

        def guided() -> None:
            before = tuple(session.findings)
            session.do(MoveDevice(node, position=spot), fabric=False)
            changes = session.finding_changes()
            new = new_problems(*changes) if changes else new_problems(before, session.findings)
            announce(session.layout, new, session.index)
            _ = session.findings

        timed("move + re-check + guidance + findings", guided)
        session.undo(fabric=False)
        _ = session.findings
        before = timed("guidance: copy of the findings before", lambda: tuple(session.findings))
        session.do(MoveDevice(node, position=spot), fabric=False)
        changes = session.finding_changes()
        assert changes is not None
        timed(
            "guidance: diff of the re-check's record",
            lambda changes=changes: new_problems(*changes),
        )
        timed(
            "guidance: whole-list diff (after a check from scratch)",
            lambda before=before: new_problems(before, session.findings),  # type: ignore[misc]
        )
        session.undo(fabric=False)
        _ = session.findings
    gpus = session.analysis.total_gpus if session.analysis else 0
    head = f"{path}: {gpus:,} GPUs, {len(layout.racks):,} racks, {len(session.findings):,} findings"
    return head, list(rows.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--large", help="a large layout for part 2 (bench/generate.py)")
    parser.add_argument("--no-app", action="store_true", help="skip part 1")
    args = parser.parse_args()
    if not args.no_app:
        print("| 128-GPU example, in the app | best (ms) | median (ms) | runs |")
        print("|---|---:|---:|---:|")
        for label, values in pilot_part(args.repeat):
            print(f"| {label} | {_ms(values)} |")
    if args.large:
        head, rows = large_part(args.large, args.repeat)
        print()
        print(head)
        print()
        print("| large layout, in process | best (ms) | median (ms) | runs |")
        print("|---|---:|---:|---:|")
        for label, values in rows:
            print(f"| {label} | {_ms(values)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
