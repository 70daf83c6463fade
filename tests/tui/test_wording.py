"""The designer's counts read as English: "1 warning", "1 rack", "1 GPU node", from the one
plural helper (model/wording.py), in the problems panel's title, the topology tree, the
inspector's facts and the what-if's lines."""

from __future__ import annotations

import re
from pathlib import Path

from rackdesigner.edit import Session
from rackdesigner.export.render.topology_outline import Entry, outline
from rackdesigner.layout_io import load_path
from rackdesigner.model.wording import plural
from tests.conftest import ROOT
from tests.tui.pilot import app_for, copy, run, settle

# "1 racks", "1 warnings": a count of one with a plural noun after it.
ONE_MANY = re.compile(
    r"(?<![\d.,])1 (racks|nodes|GPU nodes|switches|leaves|GPUs|trays|warnings|errors|devices"
    r"|feeds|cables)\b"
)


def test_plural_separates_thousands() -> None:
    """1,152 cables (the GB200 SU's compute fabric) as people write it."""
    assert plural(1152, "cable") == "1,152 cables"
    assert plural(1, "switch", "switches") == "1 switch"
    assert plural(0, "warning") == "0 warnings"


def _walk(entry: Entry) -> list[Entry]:
    return [entry, *(e for child in entry.children for e in _walk(child))]


def test_the_topology_tree_says_1_rack_not_1_racks() -> None:
    """training-128: each scalable unit is 2 leaves over 1 rack of 4 nodes (x 4 alike)."""
    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    assert session.analysis is not None
    labels = [e.label for root in outline(session.analysis) for e in _walk(root)]
    assert any("· 2 leaves · 1 rack ·" in label for label in labels), labels
    assert not [label for label in labels if ONE_MANY.search(label)]


def test_one_warning_in_the_problems_title_after_a_move(tmp_path: Path) -> None:
    """Moving a01-leaf1 from U19 up to U34 (15 presses of up) puts it outside the rack's
    middle: one PLC003 warning beside the layout's two infos (NET007, and PWR009 on the
    ESS 3500's estimated power), and the title says "0 errors · 1 warning · 2 info"."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.main.go_to("a01-leaf1")
            await settle(pilot)
            await pilot.press("m", *["up"] * 15, "enter")
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            assert session.index.device("a01-leaf1").position == 34
            title = str(app.main.problems.border_title)
            assert "0 errors · 1 warning · 2 info" in title, title
            assert not ONE_MANY.search(title)

    run(journey)


def test_the_summary_counts_gpus_by_model_in_thousands() -> None:
    """A 1,024-GPU hall's summary: "1,024  1,024 × h100-sxm", not "1024 × h100-sxm"."""
    from rackdesigner.report.summary import Summary
    from rackdesigner.tui.widgets.summary_view import SummaryView

    head = SummaryView()._head(Summary(gpus=1024, gpus_by_model={"h100-sxm": 1024}))
    assert "".join(text for text, _ in head[0]) == "GPUs 1,024  1,024 × h100-sxm"
