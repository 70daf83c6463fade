"""The power view (key 5): the chain as a tree with load bars, margins and worst single
failures; enter opens the first rack an element feeds, whose path up the chain the
inspector shows; What if… offers the chain's elements and shows one in the view. Pilot
presses the keys; the lines' figures are the report's (hand-worked below)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.design.facts_text import chain_lines, chain_path
from rackdesigner.layout_io import load_path
from rackdesigner.tui import actions
from rackdesigner.tui.controllers.whatif import OFFERS, WhatIfController, choices, is_part
from rackdesigner.tui.power_rows import ChainView, chain_view
from rackdesigner.tui.screens.typed_choice import TypedChoiceScreen
from tests.builders import chain_hall
from tests.conftest import ROOT
from tests.tui.fake_ui import FakeUI
from tests.tui.pilot import SIZE, app_for, palette, run, settle, shown, type_text, until, wait_for
from tests.tui.test_workspace import opened

CHAIN = ROOT / "tests" / "data" / "render" / "chain.toml"


def test_the_lines_are_the_chain_as_a_tree_with_the_reports_figures() -> None:
    """chain.toml: the utility, its ATS (the generator its alternate), the switchboard, the
    UPSs and their panel and busway; the generator a source of its own. ups-b: 25.5 kW of
    30 kW (85 %, amber); losing ups-a puts 51 kW on it, 21 kW over (red); rpp-a1: 25.5 of
    57.5 kW (44 %)."""
    view = chain_view(Analysis(load_path(CHAIN)))
    assert [(line.prefix + line.id) for line in view.lines] == [
        "utility-1",
        "└ ats-1",
        "  └ swbd-1",
        "    ├ ups-a",
        "    │ └ rpp-a1",
        "    └ ups-b",
        "      └ busway-b1",
        "gen-1",
    ]
    lines = {line.id: line for line in view.lines}
    ups_b = lines["ups-b"]
    assert round(ups_b.use or 0, 3) == 0.85 and ups_b.margin == "4.5 kW"
    assert ups_b.worst == "ups ups-a: 51 kW, margin -21 kW" and ups_b.worst_over
    assert ups_b.level == "error" and ups_b.lost == "40 GPUs on one path"
    assert lines["rpp-a1"].level is None and lines["rpp-a1"].load == "25.5 kW"
    assert lines["rpp-a1"].rack == "a01"
    assert lines["ats-1"].also == "gen-1" and lines["ats-1"].lost == "40 GPUs down"
    assert lines["swbd-1"].use is None and lines["swbd-1"].rating == "–"
    assert view.over == 0 and view.fragile == 2  # ups-b and busway-b1
    assert view.racks_on == 3 and view.racks_off == 1
    assert view.factor.startswith("1.4 ")


def test_a_layout_without_a_chain_has_no_lines() -> None:
    view = chain_view(Analysis(load_path(ROOT / "layouts" / "starter-4x-a6000.toml")))
    assert view.lines == [] and view.factor == ""


def test_a_racks_path_up_the_chain_reads_from_the_layout() -> None:
    layout = load_path(CHAIN)
    assert [e.id for e in chain_path(layout, "busway-b1")] == [
        "busway-b1",
        "ups-b",
        "swbd-1",
        "ats-1",
        "utility-1",
    ]
    rack = next(r for r in layout.racks if r.id == "a01")
    assert chain_lines(layout, rack) == [
        "power A: rpp-a1 ← ups-a ← swbd-1 ← ats-1 (else gen-1) ← utility-1",
        "power B: busway-b1 ← ups-b ← swbd-1 ← ats-1 (else gen-1) ← utility-1",
    ]
    off = next(r for r in layout.racks if r.id == "b02")
    assert chain_lines(layout, off) == []


def test_what_if_offers_the_chain_and_runs_an_element(tmp_path: Path) -> None:
    """chain.toml: ups-b feeds side B of the three racks on the chain (40 GPUs); losing it
    leaves them on side A (redundancy lost for 40 GPUs, none down; their 5 nodes on 3 of 6
    PSUs where 4 are needed: 40 GPUs degraded); an id the chain does not have is refused
    naming the ids of that kind."""
    analysis = Analysis(load_path(CHAIN))
    offered = choices(analysis, None, "a01")
    keys = [key for key, _ in offered]
    # The rack's own path first (after its rack, feeds and sides), then every element.
    assert keys.index("rpp:rpp-a1") < keys.index("ups:ups-a") < keys.index("utility:utility-1")
    assert dict(offered)["rpp:rpp-a1"] == "rpp:rpp-a1  (rack a01's power, A)"
    assert {f"{e.kind}:{e.id}" for e in analysis.layout.power_elements} <= set(keys)
    assert len(OFFERS) == 5 and is_part("ups:ups-a") and not is_part("ups:")
    path = tmp_path / "chain.toml"
    shutil.copy(CHAIN, path)
    ui = FakeUI(opened(path))
    controller = WhatIfController(ui.workspace, ui)
    controller.run("ups:ups-b")
    controller.done(ui.results[-1])
    impact = ui.results[-1].impact
    assert (impact.gpus_down, impact.gpus_degraded, impact.gpus_one_path) == (0, 40, 40)
    controller.run("ups:nope")
    controller.done(ui.results[-1])
    assert ui.notices[-1][0] == "error" and "ups-a" in ui.notices[-1][1], ui.notices[-1]


def test_the_view_has_a_key_a_palette_entry_and_a_help_line() -> None:
    action = actions.BY_ID["power-view"]
    assert action.keys == "5" and action.name == "Power view"
    assert "worst single failure" in action.help and action in actions.palette()


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_power_view_journey(tmp_path: Path) -> None:
    path = tmp_path / "chain.toml"
    shutil.copy(CHAIN, path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main
            await pilot.press("5")
            await settle(pilot)
            assert shown(app) == "power"
            view = main._view_widget("power")
            await until(pilot, lambda: view.view is not None, "the power view's lines")
            assert view.border_title == "Power chain · 8 elements"
            text = [view.render_line(y).text for y in range(view.size.height)]
            assert text[0].startswith("Power chain 8 elements · 3 racks on it")
            assert "2 over it after a single failure" in text[1]
            ups_b = next(t for t in text if t.strip().startswith("└ ups-b"))
            assert "✖" in ups_b and "85%" in ups_b and "4.5 kW" in ups_b
            assert "ups ups-a: 51 kW, margin -21 kW" in ups_b
            # Only the lines on screen were drawn (the Line API's cache holds them).
            assert len(view._cache) <= view.size.height + 2
            # Down to rpp-a1 (the fifth element), enter: its first rack, a01, with its
            # path up the chain in the inspector.
            for _ in range(4):
                await pilot.press("down")
            assert view.current_element() == "rpp-a1"
            await pilot.press("enter")
            await settle(pilot)
            assert shown(app) == "racks" and main.racks.current_rack_id() == "a01"
            facts = main.inspector.facts_text()
            assert "power A: rpp-a1 ← ups-a ← swbd-1 ← ats-1 (else gen-1) ←" in facts
            # What if… lists the chain; a UPS chosen runs the what-if: side B lost, the
            # three racks' 40 GPUs run on side A, their nodes on 3 of 6 PSUs (4 needed).
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            assert "rpp:rpp-a1" in [key for key, _ in app.screen.choices]
            await type_text(pilot, "ups:ups-b")
            await pilot.press("enter")
            await settle(pilot)
            figures = main.header.figures
            assert figures.startswith("what if ups:ups-b fails: 40 GPUs lost (0 down, 40 degr")
            assert "redundancy lost for 40 GPUs" in figures

    run(journey)


def test_the_view_says_when_there_is_no_chain(tmp_path: Path) -> None:
    path = tmp_path / "starter.toml"
    shutil.copy(ROOT / "layouts" / "starter-4x-a6000.toml", path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("5")
            await settle(pilot)
            view = app.main._view_widget("power")
            await until(pilot, lambda: view.view is not None, "the power view's lines")
            assert isinstance(view.view, ChainView) and view.view.lines == []
            text = " ".join(view.render_line(y).text.strip() for y in range(4))
            assert "This layout declares no power chain" in text
            assert "rackdesigner new --gpus N" in text

    run(journey)


def test_a_large_chain_draws_only_the_lines_on_screen(tmp_path: Path) -> None:
    """243 elements (a utility, 2 switchboards, 30 blocks of 2 UPSs and 3 rows of 2
    busways): the view draws the lines on screen, not the 248 of the table; end goes to
    the last element and the title says which are in view."""
    path = tmp_path / "hall.toml"
    path.write_text(chain_hall(30, 3, 1))

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("5")
            await settle(pilot)
            view = app.main._view_widget("power")
            await until(pilot, lambda: view.view is not None, "the power view's lines")
            assert len(view.view.lines) == 243
            height = view.size.height
            assert len(view._cache) <= height + 2
            assert view.border_title.startswith("Power chain · 243 elements · 1–")
            await pilot.press("end")
            await settle(pilot)
            assert view.current_element() == "bw-r30c-b"
            assert view.border_title.endswith("–243 in view")
            assert len(view._cache) <= 2 * (height + 2)

    run(journey)
