"""The export dialog as a user meets it at 80x24: light drawings by default (the command
line's ``--theme light``) though the app is dark; each kind's line shows the file it
writes, suffix and all; several kinds in one export (``p`` ticks the print pack: the PDF,
the SVG elevations and the cable schedule); and, when done, what it wrote and where."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, OptionList, Select

from rackdesigner.export.registry import KINDS
from rackdesigner.export.render import palette
from rackdesigner.tui.screens.export import (
    PRINT_PACK,
    ExportRequest,
    ExportScreen,
    default_path,
    written_text,
)
from tests.tui.pilot import app_for, copy, run, settle


def _kind(option: str):  # type: ignore[no-untyped-def]
    return next(k for k in KINDS if k.option == option)


def test_default_files_name_what_they_hold() -> None:
    """``--graph FILE`` takes its format from the suffix: the dialog's default is GraphML;
    Slurm's topology file is a ``.conf``; a folder kind has no suffix."""
    assert default_path(_kind("--graph"), "/w/lab.toml", "lab") == "/w/lab-graph.graphml"
    assert default_path(_kind("--slurm-topology"), "/w/lab.toml", "lab") == (
        "/w/lab-slurm-topology.conf"
    )
    assert default_path(_kind("--svg-dir"), "/w/lab.toml", "lab") == "/w/lab-svg-dir"
    assert default_path(_kind("--pdf"), None, "lab") == "lab.pdf"
    assert default_path(_kind("--png"), "/w/lab.toml", "lab") == "/w/lab.png"


def test_what_was_written_and_where() -> None:
    pdf = ExportRequest(_kind("--pdf"), "/w/out/a.pdf", "light")
    svgs = ExportRequest(_kind("--svg-dir"), "/w/out/racks", "light")
    assert written_text([(pdf, [Path("/w/out/a.pdf")])]) == "Wrote a.pdf in /w/out"
    racks = [Path(f"/w/out/racks/a0{i}.svg") for i in range(1, 8)]
    assert written_text([(pdf, [Path("/w/out/a.pdf")]), (svgs, racks)]) == (
        "Wrote 8 files in /w/out: a.pdf, racks/ (7 files)"
    )
    other = ExportRequest(_kind("--cables"), "/w/b.csv", "light")
    assert written_text([(pdf, [Path("/w/out/a.pdf")]), (other, [Path("/w/b.csv")])]) == (
        "Wrote /w/out/a.pdf, /w/b.csv"
    )


def test_the_print_pack_in_one_export_light_by_default_says_where_it_wrote(
    tmp_path: Path,
) -> None:
    path = copy("inference-32-b200.toml", tmp_path)
    stem = tmp_path / "inference-32-b200"

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            assert app.current_theme.dark  # the app is dark; drawings stay light
            await pilot.press("ctrl+e")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ExportScreen)
            assert screen.query_one("#export-theme", Select).value == "light"
            kinds = screen.query_one("#export-kinds", OptionList)
            lines = [str(kinds.get_option_at_index(i).prompt) for i in range(len(KINDS))]
            graph = lines[[k.option for k in KINDS].index("--graph")]
            assert "inference-32-b200-graph.graphml" in graph
            assert "inference-32-b200-elevations.svg" in lines[0]
            # Space ticks the highlighted kind and unticks it; p ticks the print pack.
            await pilot.press("space")
            assert screen.ticked == {"--elevations"}
            await pilot.press("space", "p")
            assert screen.ticked == set(PRINT_PACK)
            assert "[x] pdf" in str(kinds.get_option_at_index(4).prompt)
            # The paper size shows: the PDF is among the kinds.
            assert screen.query_one("#export-paper").display
            # The path field edits the highlighted kind's file; its line follows.
            field = screen.query_one("#export-path", Input)
            field.value = str(tmp_path / "out" / "racks.svg")
            await pilot.pause()
            assert "racks.svg" in str(kinds.get_option_at_index(0).prompt)
            await pilot.press("enter")
            for _ in range(1500):
                await pilot.pause(0.02)
                if app.screen is not screen and any("Wrote" in t for _, t in app.notices):
                    break
            await settle(pilot)
            said = next(t for _, t in reversed(app.notices) if "Wrote" in t)
            assert said == (
                f"Export: Wrote {tmp_path / 'out' / 'racks.svg'}, {stem}.pdf, {stem}-cables.csv"
            )
            svg = (tmp_path / "out" / "racks.svg").read_text(encoding="utf-8")
            assert palette.SURFACES["light"]["bg"] in svg
            assert palette.SURFACES["dark"]["bg"] not in svg
            assert Path(f"{stem}.pdf").read_bytes()[:5] == b"%PDF-"
            assert Path(f"{stem}-cables.csv").read_text(encoding="utf-8").startswith("cable_id,")

    run(journey)
