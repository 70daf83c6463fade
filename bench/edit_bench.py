#!/usr/bin/env python3
"""Time the editing core in process on a large layout: open a Session (load + full check),
move one device and re-check, add and remove one cable and re-check (fabric rules
included), and undo each; ``tomllib`` parsing the same file is timed beside it.

Then the designer's core edit path, as ``DesignerApp.do`` runs it (the panels' repaint
apart): ``session.do(command, fabric=False)``, the guidance's comparison of findings before
and after (``guide_before``/``guide_edit``), the header's figures (``totals``, with the
site figures) and what the inspector shows of the edited device (its facts and cables,
its port page and its findings, through the app's ``Workspace``), for ``--edits``
alternating moves of a GPU node up and down by a unit, label edits of a device and
cooling changes of a rack; median and worst of each.

    python bench/edit_bench.py bench/out/gpus-100000.toml
    python bench/edit_bench.py --gpus 100000          # generates the layout in memory

Prints a markdown table of CPU seconds of this process (best and median of ``--repeat``
runs of each edit, findings brought up to date included); the machine is shared, so wall
time would measure the neighbours too.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


# CPU seconds of this process: on a shared machine, wall time measures the neighbours too.
_clock = time.process_time


def _time(action: Callable[[], object]) -> float:
    began = _clock()
    action()
    return _clock() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("layout", nargs="?", help="a layout file")
    parser.add_argument("--gpus", type=int, default=100_000, help="generate this many GPUs")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each edit")
    parser.add_argument("--edits", type=int, default=20, help="designer edits of each kind")
    args = parser.parse_args()

    from rackdesigner.edit import AddLink, MoveDevice, RemoveLink, Session
    from rackdesigner.layout_io import load_path, load_text

    if args.layout:
        path = Path(args.layout)
        text = path.read_text(encoding="utf-8")
        tomllib_seconds = _time(lambda: tomllib.loads(text))
        began = _clock()
        layout = load_path(path)
    else:
        from generate import generate_layout_text

        text = generate_layout_text(args.gpus)
        tomllib_seconds = _time(lambda: tomllib.loads(text))
        began = _clock()
        layout = load_text(text)
    loaded = _clock()
    session = Session(layout, path=args.layout)
    opened = _clock()
    gpus = session.analysis.total_gpus if session.analysis else 0

    index = session.index
    # A GPU node that can move by a unit or more within its rack.
    spot = node = None
    for rack in layout.racks:
        for device in rack.devices:
            dtype = index.catalog.devices.get(device.model)
            # Any GPU node (the generator's halls hold DGX and liquid-cooled Supermicro ones).
            if dtype is None or dtype.kind != "gpu-node" or device.position is None:
                continue
            taken = index.occupied(rack.id)
            units = len(index.units_of(device))
            for position in range(1, int(rack.height_u) - units + 2):
                span = range(position, position + units)
                if position != device.position and all(
                    taken.get(u) in (None, device) for u in span
                ):
                    spot, node = position, device.id
                    break
            if node:
                break
        if node:
            break
    assert node is not None and spot is not None, "no GPU node can move"
    # A compute cable of that node: removed, put back by undo; removed again and added
    # anew as a new cable between the same two ports.
    cable = index.links_of(node)[0]
    ends = (cable.a, cable.b, cable.media)

    rows: list[tuple[str, list[float]]] = []
    move_times, move_undo, add_times, add_undo, remove_times, remove_undo = ([] for _ in range(6))
    for _ in range(args.repeat):
        # Each edit is timed with the findings brought up to date (what a front end shows).
        move_times.append(
            _time(lambda: (session.do(MoveDevice(node, position=spot)), session.findings))
        )
        move_undo.append(_time(lambda: (session.undo(), session.findings)))
        remove_times.append(_time(lambda: (session.do(RemoveLink(cable)), session.findings)))
        remove_undo.append(_time(lambda: (session.undo(), session.findings)))
        session.do(RemoveLink(cable))
        add_times.append(_time(lambda: (session.do(AddLink(*ends)), session.findings)))
        add_undo.append(_time(lambda: (session.undo(), session.findings)))
        session.undo()
    rows += [
        ("move one device + re-check", move_times),
        ("undo the move", move_undo),
        ("add one cable + re-check (fabric rules included)", add_times),
        ("undo the cable", add_undo),
        ("remove one cable + re-check (fabric rules included)", remove_times),
        ("undo the removal", remove_undo),
    ]
    designer_rows = _designer_path(session, args.edits)
    findings = len(session.findings)
    print(
        f"layout: {args.layout or f'generated, {args.gpus} GPUs'}: {gpus:,} GPUs, "
        f"{len(layout.racks):,} racks, {len(layout.links):,} cables, {findings:,} findings"
    )
    print()
    print("| step | best | median |")
    print("|---|---:|---:|")
    print(f"| tomllib parse (reference) | {tomllib_seconds:.2f} s | |")
    print(f"| load | {loaded - began:.2f} s | |")
    print(f"| Session open (full check) | {opened - loaded:.2f} s | |")
    for label, times in rows:
        print(
            f"| {label} | {min(times) * 1000:.1f} ms | {statistics.median(times) * 1000:.1f} ms |"
        )
    print()
    print(f"The designer's core edit path ({args.edits} edits of each kind):")
    print()
    print("| edit (session.do + guidance + header figures + inspector) | median | worst |")
    print("|---|---:|---:|")
    for label, times in designer_rows:
        print(
            f"| {label} | {statistics.median(times) * 1000:.1f} ms | {max(times) * 1000:.1f} ms |"
        )
    return 0


def _designer_path(session: Any, edits: int) -> list[tuple[str, list[float]]]:
    """Time what ``DesignerApp.do`` computes outside its panels, edit by edit: the session
    re-checks all but the fabric rules, guidance names the problems the edit brought (as
    ``tui/controllers/guide.py`` does: the findings before, the groups that re-ran after)
    and the header reads its totals (``tui/totals.py``)."""
    from rackdesigner.design.guidance import new_problems
    from rackdesigner.edit import MoveDevice, UpdateDevice, UpdateRack
    from rackdesigner.tui.totals import totals
    from rackdesigner.tui.workspace import Workspace

    workspace = Workspace()
    workspace.use(session, None)

    def edit(command: Any) -> None:
        before = tuple(session.findings)  # guide_before
        session.do(command, fabric=False)
        changes = session.finding_changes()  # guide_edit
        new_problems(*changes) if changes else new_problems(before, session.findings)
        totals(session.analysis, session.findings)  # the header
        inspected = ("device", node)  # the inspector, on the device edited
        workspace.facts(inspected)
        workspace.page(inspected)
        workspace.findings_of(inspected)

    index = session.index
    # A GPU node whose unit above is free: the move the designer's m, up, enter makes.
    found = None
    for facts in session.analysis.racks:
        taken = index.occupied(facts.rack.id)
        for dev in facts.devices:
            device = dev.device
            if not dev.is_gpu_node or device.position is None:
                continue
            top = device.position + len(index.units_of(device))
            if top <= facts.rack.height_u and taken.get(top) is None:
                found = (device, facts.rack)
                break
        if found:
            break
    assert found is not None, "no GPU node has a free unit above it"
    device, rack = found
    node, home, step = device.id, device.position, 1
    cooling = rack.cooling or "air"
    other = "air" if cooling != "air" else "liquid"
    totals(session.analysis, session.findings)  # the header as it stands when editing starts
    kinds: list[tuple[str, Callable[[int], Any]]] = [
        (
            "move a GPU node a unit (up, then down)",
            lambda i: MoveDevice(node, position=home + step if i % 2 == 0 else home),
        ),
        ("set a device's label", lambda i: UpdateDevice(node, label=f"edit {i}")),
        (
            "set a rack's cooling (site rules re-run)",
            lambda i: UpdateRack(rack.id, cooling=other if i % 2 == 0 else cooling),
        ),
    ]
    rows = []
    for label, command in kinds:
        times = []
        for i in range(edits):
            made = command(i)
            times.append(_time(lambda made=made: edit(made)))
        rows.append((label, times))
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
