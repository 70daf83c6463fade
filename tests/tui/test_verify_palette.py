"""Issue 25 in the designer: palette "Verify against scan" reads a scan, marks the
differences on the racks and the topology, lists them in the problems panel one group per
kind, and writes the technician's work order from there; the layout is never edited."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from rackdesigner.asbuilt.report import CSV_COLUMNS
from rackdesigner.tui import actions
from rackdesigner.tui.overlays import CODE, form_of
from rackdesigner.tui.screens.prompt import PromptScreen
from rackdesigner.tui.screens.verify import VerifyScreen
from tests.asbuilt.helpers import DATA
from tests.tui.pilot import SIZE, app_for, copy, palette, paste, run, settle, tree_labels, wait_for

LEAF = "a01-leaf1"  # in the first scalable unit: the topology view draws its entries


def scan_with_differences(target: Path) -> Path:
    """The committed training-128 scan with one cable pulled (a01-leaf1's port 1: missing)
    and two crossed on its ports 2 and 3 (swapped), on both ends' records."""
    lines = (DATA / "training-128.scan").read_text(encoding="utf-8").splitlines()
    record = next(
        i for i, line in enumerate(lines) if line.startswith("Switch") and f";{LEAF}:" in line
    )
    switch = lines[record].split('"')[1]  # S-<guid>
    ports = {int(line[1 : line.index("]")]): line for line in lines[record + 1 : record + 4]}
    hosts = {n: ports[n].split('"')[1] for n in (1, 2, 3)}

    def echo(host: str, port: int) -> int:
        start = next(
            i
            for i, line in enumerate(lines)
            if line.startswith(("Ca", "Switch")) and f'"{host}"' in line
        )
        return next(i for i in range(start + 1, len(lines)) if f'"{switch}"[{port}]' in lines[i])

    crossed = {echo(hosts[2], 2): 3, echo(hosts[3], 3): 2}
    pulled = {record + 1, echo(hosts[1], 1)}
    out = []
    for i, line in enumerate(lines):
        if i in pulled:
            continue
        if i == record + 2:
            line = "[3]" + line[3:]
        elif i == record + 3:
            line = "[2]" + line[3:]
        elif i in crossed:
            line = line.replace(f'"{switch}"[{5 - crossed[i]}]', f'"{switch}"[{crossed[i]}]')
        out.append(line)
    target.write_text("\n".join(out) + "\n", encoding="utf-8")
    return target


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_verify_against_scan_marks_groups_and_writes_the_work_order(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)
    before = path.read_bytes()
    scan = scan_with_differences(tmp_path / "scan.txt")
    sheet = tmp_path / "work-order.csv"

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main
            session = main.session
            assert session is not None
            revision = session.revision
            plain = dict(main.racks.marks.devices)  # the rule findings' marks
            assert plain.get(LEAF) != "error"
            # The palette: type the name, the dialog asks for the scan.
            await palette(pilot, "Verify against scan")
            await wait_for(pilot, VerifyScreen)
            await paste(pilot, str(scan))
            # ibsim-style scans run at SDR: compare the width only (tab to the checkbox).
            await pilot.press("tab", "tab", "tab", "space", "enter")
            await settle(pilot)
            # One group per kind in the problems panel, above the rule findings.
            panel = main.problems
            headings = [row for row in panel.pinned if isinstance(row, str)]
            assert [h.split(":")[0] for h in headings] == ["missing", "swapped"], headings
            assert "Scan scan.txt: 2 differences" in str(panel.border_title)
            rows = [row for row in panel.pinned if not isinstance(row, str)]
            assert {d.code for d in rows} == {CODE}
            assert any(f"{LEAF}:p1" in d.message for d in rows)
            # Marked on the racks: both ends of the missing cable, the crossed switch.
            marks = main.racks.marks
            assert marks.devices[LEAF] == "error"
            assert marks.devices["a01-n01"] == "error"
            assert marks.racks["a01"]["error"] >= 2
            # Focus went to the panel on its first difference; enter goes to it.
            assert app.focused is panel and panel.current is not None
            await pilot.press("enter")
            await settle(pilot)
            assert main.racks.current_rack_id() == "a01"
            # The work order from the panel: w, the path, enter.
            await pilot.press("ctrl+o", "w")
            await wait_for(pilot, PromptScreen)
            await pilot.press("home", "ctrl+k")
            await paste(pilot, str(sheet))
            await pilot.press("enter")
            await settle(pilot)
            table = list(csv.reader(io.StringIO(sheet.read_text(encoding="utf-8"))))
            assert tuple(table[0]) == CSV_COLUMNS
            kinds = [row[CSV_COLUMNS.index("kind")] for row in table[1:]]
            assert kinds == ["missing", "swapped"]
            assert table[1][CSV_COLUMNS.index("rack")] == "a01"
            assert "Wrote the work order" in app.notices[-1][1]
            # And on the topology: the crossed leaf's entry carries the mark.
            await pilot.press("escape", "3")
            await settle(pilot)
            labels = tree_labels(main.topology.root)
            assert any(label.startswith(f"✖ {LEAF}") for label in labels), labels
            # No edit was made.
            assert session.revision == revision and not app.workspace.dirty
            assert path.read_bytes() == before
            # Cleared from the palette: marks and groups go.
            await pilot.press("1")
            await palette(pilot, "Clear scan results")
            await settle(pilot)
            assert panel.pinned == [] and "Scan" not in str(panel.border_title)
            assert main.racks.marks.devices == plain
            assert not any(
                label.startswith(f"✖ {LEAF}") for label in tree_labels(main.topology.root)
            )

    run(journey)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_an_unreadable_scan_is_said_and_changes_nothing(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)
    bad = tmp_path / "bad.txt"
    text = (DATA / "training-128.scan").read_text(encoding="utf-8")
    bad.write_text(text[:3000] + "\nnot a scan line\n", encoding="utf-8")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await palette(pilot, "Verify against scan")
            await wait_for(pilot, VerifyScreen)
            await paste(pilot, str(bad))
            await pilot.press("enter")
            await settle(pilot)
            assert "cannot read the scan" in app.notices[-1][1]
            assert "bad.txt:" in app.notices[-1][1]
            assert app.main.problems.pinned == []
            # A path that does not exist keeps the dialog open and says so.
            await palette(pilot, "Verify against scan")
            await wait_for(pilot, VerifyScreen)
            await paste(pilot, str(tmp_path / "nope.txt"))
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, VerifyScreen)
            await pilot.press("escape")
            await settle(pilot)
            # The work order with nothing verified says what to do first.
            await palette(pilot, "Export work order")
            await settle(pilot)
            assert "Verify against scan first" in app.notices[-1][1]

    run(journey)


def test_the_entries_are_in_the_palette_and_the_help() -> None:
    names = {a.name for a in actions.palette()}
    assert {"Verify against scan", "Export work order", "Clear scan results"} <= names
    assert form_of(str(DATA / "lldp")) == "lldp"
    assert form_of(str(DATA / "training-128.scan")) == "ibnetdiscover"
    assert form_of("x.json", "ibnetdiscover") == "ibnetdiscover"
