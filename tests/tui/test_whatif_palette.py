"""Issue 26 in the designer: palette "What if…" fails the part under the cursor (or one
from the list, or typed); the views shade what goes down or degrades and the header shows
the figures until escape; no edit is made."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rackdesigner.tui import actions
from rackdesigner.tui.controllers.whatif import is_part
from rackdesigner.tui.screens.typed_choice import TypedChoiceScreen, filtered, resolve
from tests.conftest import ROOT
from tests.tui.pilot import (
    SIZE,
    app_for,
    copy,
    go_to,
    palette,
    run,
    settle,
    tree_labels,
    type_text,
    wait_for,
)

LEAF = "a01-leaf1"


def test_what_if_the_switch_under_the_cursor_fails(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)
    before = path.read_bytes()

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main
            session = main.session
            assert session is not None
            revision, text = session.revision, session.layout
            # The cursor onto the leaf switch: ctrl+g, its id, enter.
            await go_to(pilot, LEAF)
            await settle(pilot)
            assert main.racks.current_device_id() == LEAF
            # The palette: the list offers the switch under the cursor first; enter.
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            assert app.screen.choices[0][0] == f"switch:{LEAF}"
            await pilot.press("enter")
            await settle(pilot)
            # The racks shade the switch (down) and its nodes (a rail cut: degraded).
            shade = main.racks.shade
            assert shade[LEAF] == "down"
            assert shade["a01-n01"] == "degraded"
            assert main.racks.shade_where[LEAF] == "a01"
            # The header shows the figures instead of the totals.
            header = main.header
            assert header.figures.startswith(f"what if switch:{LEAF} fails: 0 GPUs lost")
            assert "bisection 75% left" in header.figures and "esc clears" in header.figures
            assert "bisection 75% left" in header.text().plain
            # At 80 columns the figures' line drops whole parts from its end, keeping what
            # fails, what it takes down and the key that clears it.
            narrow = header.fitted(80).plain.split("\n")[-1]
            assert narrow.startswith(f"what if switch:{LEAF} fails: 0 GPUs lost")
            assert narrow.endswith(" · esc clears") and len(narrow) <= 80, narrow
            assert "…" not in narrow
            # The scenario is in the problems panel, the notice says so.
            pinned = main.problems.pinned
            assert any(isinstance(x, str) and "rails cut: 4 GPU nodes" in x for x in pinned)
            assert "problems panel" in app.notices[-1][1]
            # The topology shades the switch too.
            await pilot.press("3")
            await settle(pilot)
            labels = tree_labels(main.topology.root)
            assert any(label.startswith(f"▼ {LEAF}") for label in labels), labels
            # Escape: every view as it was.
            await pilot.press("escape")
            await settle(pilot)
            assert main.racks.shade == {} and header.figures == ""
            assert "GPUs" in header.text().plain and "what if" not in header.text().plain
            assert not any(label.startswith("▼") for label in tree_labels(main.topology.root))
            # No edit was made.
            assert session.revision == revision and session.layout is text
            assert not app.workspace.dirty and path.read_bytes() == before

    run(journey)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_what_if_typed_filtered_and_chosen_parts(tmp_path: Path) -> None:
    """The list highlights rack:a01 (the cursor's rack); typing ``side:A`` and Enter runs
    side:A, not rack:a01. Typing part of an entry filters the list (``a01-B`` leaves the
    feed a01-B alone) and Enter runs the entry left; the arrows after typing choose. A
    part the list does not offer, typed, is run; one that names nothing is said."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            dialog = app.screen
            assert isinstance(dialog, TypedChoiceScreen)
            assert dialog.highlighted() == "rack:a01"
            await type_text(pilot, "side:A")
            assert dialog.shown() == ["side:A"]
            await pilot.press("enter")
            await settle(pilot)
            assert main.header.figures.startswith("what if side:A fails"), main.header.figures
            await pilot.press("escape")
            await settle(pilot)
            # Part of an entry: the list narrows to it.
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            dialog = app.screen
            assert isinstance(dialog, TypedChoiceScreen)
            await type_text(pilot, "a01-B")
            assert dialog.shown() == ["feed:a01/a01-B"]
            await pilot.press("escape")
            await settle(pilot)
            # Typed "feed", then the arrows: the entry the arrows chose.
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            dialog = app.screen
            assert isinstance(dialog, TypedChoiceScreen)
            await type_text(pilot, "feed")
            assert dialog.shown()[:2] == ["feed:a01/a01-A", "feed:a01/a01-B"]
            await pilot.press("down")
            await pilot.press("enter")
            await settle(pilot)
            assert main.header.figures.startswith("what if feed:a01/a01-B fails")

            await pilot.press("escape")
            await settle(pilot)
            # A part the list does not offer, typed: Enter runs what was typed.
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            await type_text(pilot, "rack:a02")
            await pilot.press("enter")
            await settle(pilot)
            assert main.header.figures.startswith("what if rack:a02 fails: 32 GPUs lost")
            assert main.racks.shade and set(main.racks.shade_where.values()) >= {"a02"}
            # In the racks view escape clears it too.
            main.racks.focus()
            await pilot.press("escape")
            await settle(pilot)
            assert main.racks.shade == {} and main.header.figures == ""
            # A part that names nothing: said, nothing shaded.
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            await type_text(pilot, "switch:nope")
            await pilot.press("enter")
            await settle(pilot)
            assert "nope" in app.notices[-1][1]
            assert main.racks.shade == {} and main.header.figures == ""

    run(journey)


def test_what_enter_takes() -> None:
    """Enter's answer from the typed text, the entries shown and the highlight."""
    shown = ["rack:a01", "feed:a01/a01-A", "side:A"]
    take = resolve
    # Nothing typed: the highlighted entry; nothing at all: nothing.
    assert take("", shown, "rack:a01", chose=False, complete=is_part) == "rack:a01"
    assert take("  ", [], None, chose=False, complete=is_part) is None
    # A whole part typed wins over the highlight, whether offered or not.
    assert take("side:A", shown, "rack:a01", chose=False, complete=is_part) == "side:A"
    assert take("side:B", [], None, chose=False, complete=is_part) == "side:B"
    assert take("SIDE:a", shown, "rack:a01", chose=False, complete=is_part) == "side:A"
    # Part of an entry: the first entry left; the arrows after typing: their entry.
    assert take("a01", shown[:2], "rack:a01", chose=False, complete=is_part) == "rack:a01"
    assert take("a01", shown[:2], "feed:a01/a01-A", chose=True, complete=is_part) == (
        "feed:a01/a01-A"
    )
    # Nothing offered and not a part: the text, for the caller to refuse with its reason.
    assert take("nope", [], None, chose=False, complete=is_part) == "nope"


def test_the_filter_keeps_entries_holding_every_word() -> None:
    entries = [("rack:a01", "rack:a01  (everything in it)"), ("side:A", "side:A  (every…)")]
    assert filtered(entries, "") == entries
    assert filtered(entries, "RACK") == entries[:1]
    assert filtered(entries, "everything") == []  # the explanation is not the part
    assert filtered(entries, "side a") == entries[1:]
    assert filtered(entries, "b") == []


def test_the_entry_is_in_the_palette_and_the_help() -> None:
    action = actions.BY_ID["what-if"]
    assert action.name == "What if…" and "escape clears" in action.help
    assert action in actions.palette()


@pytest.mark.slow  # a long journey: the slow step
def test_what_if_a_power_chain_element_a_loop_and_warmer_water(tmp_path: Path) -> None:
    """tests/data/whatif/chain-and-loop.toml (2 racks, 64 GPUs, a 2N chain, the loop fws to
    CDUs c1 and c2 of 80 kW at 5 K). The list offers the cursor's rack's chain elements and
    its CDUs' loop. ups:ups-a: both racks run on side B: nothing lost, 64 GPUs without
    redundancy. loop:fws: no CDU left, the 8 nodes trip: 64 GPUs lost. warmer-water:3K:
    the CDUs run at 2 K, below their rated 5 K: not judged."""
    path = tmp_path / "chain-and-loop.toml"
    shutil.copy(ROOT / "tests" / "data" / "whatif" / "chain-and-loop.toml", path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            main = app.main
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            dialog = app.screen
            assert isinstance(dialog, TypedChoiceScreen)
            offered = [key for key, _ in dialog.choices]
            assert offered[:2] == ["rack:r1", "feed:r1/r1-A"]
            assert {"ups:ups-a", "ats:ats-a", "loop:fws", "warmer-water:5 K"} <= set(offered)
            await type_text(pilot, "ups:ups-a")
            await pilot.press("enter")
            await settle(pilot)
            figures = main.header.figures
            assert figures.startswith("what if ups:ups-a fails: 0 GPUs lost"), figures
            assert "redundancy lost for 64 GPUs" in figures
            await pilot.press("escape")
            await settle(pilot)
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            await type_text(pilot, "loop:fws")
            await pilot.press("enter")
            await settle(pilot)
            assert main.header.figures.startswith("what if loop:fws fails: 64 GPUs lost")
            assert main.racks.shade["r1-n1"] == "down"
            await pilot.press("escape")
            await settle(pilot)
            await palette(pilot, "What if…")
            await wait_for(pilot, TypedChoiceScreen)
            await type_text(pilot, "warmer-water:3K")
            await pilot.press("enter")
            await settle(pilot)
            figures = main.header.figures
            assert figures.startswith("what if the facility water is 3 K warmer: 0 GPUs lost")
            assert "cooling not judged for 64 GPUs" in figures

    run(journey)
