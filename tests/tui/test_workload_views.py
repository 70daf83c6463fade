"""The workload in the designer: the summary view shows the memory fit (a GPU's need against
its memory, the smallest fit) and the gradient sync, whole where the screen has room and in
one phrase under the view where it has not; Layout settings lists every ``[workload]`` key
of the schema and shows the same figures under its heading, changed by an edit made with
keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.layout_io import schema
from tests.tui.pilot import SMALL, app_for, copy, palette, run, settle, type_text

BIG = (200, 60)
BRIEF = "workload fits (8.75 GB of 80 GB a GPU; ≥ 16 GPUs) · checkpoint 4.9 s"


def _text(view: object) -> str:
    return "\n".join(
        view.render_line(y).text  # type: ignore[attr-defined]
        for y in range(view.size.height)  # type: ignore[attr-defined]
    )


def test_the_summary_shows_the_fit_and_the_sync(tmp_path: Path) -> None:
    """training-128 (figures worked in tests/report/test_workload_brief.py): at 200 × 60
    the lines above the racks (the storage a GPU and the checkpoint's time with them), all
    7 racks still in view; at 80 × 24 (the water loop's two lines leave room for 3 racks,
    fewer than the 4 the workload's lines must leave) the phrase under the view instead:
    the fit and the checkpoint, the sync left out to keep it under 75 characters."""
    path = copy("training-128.toml", tmp_path)

    async def journey(size: tuple[int, int]) -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            await pilot.press("4")
            await settle(pilot)
            summary = app.main.summary
            if size == BIG:
                assert summary.workload_shown and str(summary.border_subtitle) == ""
                text = _text(summary)
                assert (
                    "Memory   8.75 GB a GPU of 80 GB (h100-sxm) on 128 GPUs, ZeRO-3: fits" in text
                )
                assert "Smallest the job fits on 16 GPUs (2 nodes of 8 GPUs)" in text
                assert "Sync     417 GB a GPU a step, its shard 1.09 GB (ZeRO-3 / FSDP)" in text
                assert (
                    "Storage  1.42 GB/s read a GPU, write not given (level best: 488 MB/s)" in text
                )
                assert "         checkpoint 980 GB written in 4.9 s, every 33.3 min" in text
                assert summary.racks_in_view() == (0, 7)
            else:
                assert not summary.workload_shown
                assert str(summary.border_subtitle) == BRIEF
                assert summary.racks_in_view() == (0, 3)

    run(lambda: journey(BIG))
    run(lambda: journey(SMALL))


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_layout_settings_edits_the_workload_and_shows_what_it_changes(tmp_path: Path) -> None:
    """Every [workload] key of the schema is a field (a key added to the schema later is
    one too). zero_stage 0 typed by keys: 16 B × 70e9 = 1.12 TB a GPU, no longer fits
    (CMP009), and both the settings' heading and the summary say so; 5 is refused with the
    loader's message; ctrl+z gives the fit back."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=BIG) as pilot:
            await settle(pilot)
            session = app.main.session
            assert session is not None
            await palette(pilot, "Layout settings")
            await settle(pilot)
            inspector = app.main.inspector
            keys = [f.key for f in inspector.shown.fields]
            assert [k for k in keys if k.startswith("workload.")] == [
                f"workload.{f.key}" for f in schema.WORKLOAD
            ]
            heading = inspector.shown.headings["workload.kind"]
            assert heading.startswith("[workload]\n")
            assert "memory: 8.75 GB a GPU of 80 GB (h100-sxm) on 128 GPUs, ZeRO-3: fits" in heading
            assert "  checkpoint 980 GB written in 4.9 s, every 33.3 min" in heading
            # name, description, revision, notes; then the workload's keys up to zero_stage.
            steps = 4 + keys.index("workload.zero_stage") - keys.index("workload.kind")
            await pilot.press(*["tab"] * steps)
            assert inspector.editing == "workload.zero_stage"
            await type_text(pilot, "5")
            await pilot.press("enter")
            await settle(pilot)
            note = inspector.note("workload.zero_stage")
            assert note is not None and "0 | 1 | 2 | 3" in note
            await pilot.press("ctrl+u")
            await type_text(pilot, "0")
            await pilot.press("enter")
            await settle(pilot)
            assert session.layout.workload is not None and session.layout.workload.zero_stage == 0
            heading = inspector.shown.headings["workload.kind"]
            unfit = "1.12 TB a GPU of 80 GB (h100-sxm) on 128 GPUs, no ZeRO sharding: does not fit"
            assert f"memory: {unfit}" in heading
            assert "smallest: with ZeRO-3 it fits on 16 GPUs" in heading
            assert any(d.code == "CMP009" for d in session.findings)
            await pilot.press("escape", "4")
            await settle(pilot)
            assert f"Memory   {unfit}" in _text(app.main.summary)
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert "ZeRO-3: fits" in _text(app.main.summary)

    run(journey)


def test_a_flag_reads_as_the_file_writes_it() -> None:
    """power_capping = true is shown "true" (as TOML writes it and the field takes it), not
    Python's "True"; its chooser offers true and false. A model's size reads as written."""
    from rackdesigner.layout_io import load_text
    from rackdesigner.tui.widgets.inspector import choices_of
    from rackdesigner.tui.widgets.layout_settings import settings_page

    layout = load_text(
        'format = 1\nname = "t"\n[workload]\npower_capping = true\nmodel_params = 70e9\n'
        "adapter_params = 828.4e6\nsteps_per_second = 0.05\n"
    )
    page = settings_page(layout)
    assert page.values["workload.power_capping"] == "true"
    # A count as the file writes it: 70e9, not 70000000000.0.
    assert page.values["workload.model_params"] == "70e9"
    assert page.values["workload.adapter_params"] == "828.4e6"
    assert page.values["workload.steps_per_second"] == "0.05"
    flag = next(f for f in page.fields if f.key == "workload.power_capping")
    assert choices_of(flag) == ["true", "false"]
