"""Issue 15's journey: the field guide's 32-GPU inference cluster built in the designer from
an empty file with only the keys and palette names a user presses, saved, and checked by
`rackdesigner validate` through the console script."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rackdesigner.layout_io import load_path
from rackdesigner.tui.screens.fabric import GenerateScreen
from tests.tui.pilot import (
    add_rack,
    app_for,
    palette,
    place,
    run,
    set_cooling,
    settle,
    type_text,
    wait_for_preview,
)


def test_build_the_guides_32_gpu_inference_cluster_from_an_empty_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = Path("inference-32.toml")  # does not exist: an empty layout, created on save

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(100, 32)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None and session.layout.racks == []
            # A rack with designer.md's defaults (Enter accepts): a01, two 415 V 3-phase
            # 63 A feeds on sides A and B, air, and a PDU made for each feed on its rail.
            await add_rack(pilot)
            assert [(d.model, d.side, d.feed) for d in session.layout.racks[0].devices] == [
                ("pdu-3ph-415v-63a", "left", "a01-A"),
                ("pdu-3ph-415v-63a", "right", "a01-B"),
            ]
            # Two DGX B200 (about 14 kW each) are too hot for air: a rear door, which the
            # dialog places and names.
            await set_cooling(pilot, "rear-door")
            # Two nodes: the cursor starts on the top unit, End goes to U1.
            await place(pilot, "dgx-b200")
            await pilot.press("end")
            await place(pilot, "dgx-b200")
            # The second rack: a copy of the first, devices and feeds under new ids.
            await palette(pilot, "Duplicate rack")
            await settle(pilot)
            assert [rack.id for rack in session.layout.racks] == ["a01", "a02"]
            # The fabric for all four nodes: leaf-spine (the default for 32 GPUs) on 200 Gbps
            # InfiniBand, the leaf following the speed, at 2:1.
            await pilot.press("g")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, GenerateScreen)
            assert len(screen.nodes.ids) == 4
            await pilot.press("tab", "down")  # speed: open its list
            await pilot.pause()
            await pilot.press("down", "enter")  # 200 Gbps
            await pilot.pause()
            await pilot.press("tab", "tab", "tab")  # leaf, spine, oversubscription
            await type_text(pilot, "2:1")
            await wait_for_preview(pilot, screen)
            assert screen.result is not None, screen.error
            assert screen.result.request.oversubscription == 2.0
            assert screen.result.request.leaf == "qm8700"
            await pilot.press("enter")
            await settle(pilot)
            assert not isinstance(app.screen, GenerateScreen)
            assert not [d for d in session.findings if d.severity == "error"], [
                (d.code, d.entity, d.message) for d in session.findings if d.severity == "error"
            ]
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert not app.workspace.dirty

    run(journey)
    layout = load_path(path)
    assert len(layout.racks) <= 4
    assert sum(1 for _, d in layout.devices() if d.model == "dgx-b200") == 4
    assert any(d.model == "qm8700" for _, d in layout.devices())
    script = Path(sys.executable).with_name("rackdesigner")
    done = subprocess.run(
        [str(script), "validate", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("0 errors"), done.stdout
    # Two leaves and two spines, each node on both leaves (no single point of failure), and
    # the nodes' 400G ports set to the 200G they run at on the QM8700s (no CAB004).
    assert sum(1 for _, d in layout.devices() if d.model == "qm8700") == 4
    assert "NET005" not in done.stdout and "CAB004" not in done.stdout
    assert layout.catalog["dgx-b200"].ports is not None
